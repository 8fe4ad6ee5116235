#!/usr/bin/env bash
# One device call: build (CUDA on, server off), run the gpu-labelled tests, then the GPU benchmark
# (correctness at 2^24+ first, then timings); the benchmark's table is printed last.
# Usage: bash scripts/gpu-check.sh [max_log_n (27)]      env: BUILD_DIR (build-gpu), CZ_CUDA_ARCH (90)
set -uo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build-gpu}
MAXLOG=${1:-27}
J=$(nproc 2>/dev/null || echo 4)
echo "== commit $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,memory.used --format=csv 2>&1 || true
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCZ_ENABLE_CUDA=ON -DCZ_ENABLE_SERVER=OFF \
  -DCZ_CUDA_ARCH="${CZ_CUDA_ARCH:-90}" >"$B.cmake.log" 2>&1 || { cat "$B.cmake.log"; exit 1; }
cmake --build "$B" -j"$J" >"$B.build.log" 2>&1 || { tail -60 "$B.build.log"; exit 1; }
grep -A2 "Compiling entry\|Function properties for" "$B.build.log" | grep -i "spill" | sort | uniq -c | head -5
echo "== build $(( $(date +%s) - t0 )) s"
# SASS instruction mix of the field-product micro-benchmark kernels (what ptxas made of the carry chains)
if command -v cuobjdump >/dev/null 2>&1; then
  o=$(find "$B/src/gpu" -name 'gpu.cu.o' | head -1)
  [ -n "$o" ] && cuobjdump -sass "$o" 2>/dev/null | awk '/Function : .*mulbench/ {f=$3} /Function : / && !/mulbench/ {f=""}
    f && match($0, /\/\*[0-9a-f]+\*\/ +(@!?U?P[T0-9]+ +)?[A-Z0-9_.]+/) { split(substr($0, RSTART, RLENGTH), w, / +/); op=w[length(w)];
      n[f" "op]++ } END { for (k in n) print n[k], k }' | sort -k2,2 -k1,1nr | awk '$1 > 8' | head -40
fi
t0=$(date +%s)
ctest --test-dir "$B" -L gpu --output-on-failure -j1
trc=$?
echo "== gpu tests rc=$trc, $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
"$B/src/gpu/cz_bench_gpu" "$MAXLOG"
brc=$?
echo "== bench rc=$brc, $(( $(date +%s) - t0 )) s"
# GPU partition prover on a synthetic PoRep-shaped circuit (2^24 and the largest size).
t0=$(date +%s)
"$B/src/gpu/cz_bench_prover" 24 "$MAXLOG"
prc=$?
echo "== prover bench rc=$prc, $(( $(date +%s) - t0 )) s"
brc=$(( brc || prc ))
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1 || true
exit $(( trc != 0 || brc != 0 ))
