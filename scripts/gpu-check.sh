#!/usr/bin/env bash
# One device call: build (CUDA on, server off), run the gpu-labelled tests, then the GPU benchmark
# (correctness at 2^24+ first, then timings); the benchmark's table is printed last.
# Usage: bash scripts/gpu-check.sh [max_log_n (27)]      env: BUILD_DIR (build-gpu), CZ_CUDA_ARCH (90),
#   SANITIZE=1: also run every gpu test under compute-sanitizer memcheck (their sizes are small: 2^1..2^20;
#   tests that read CZ_TEST_GPU_MAX_N stop at SANITIZE_MAX_N, default 4096),
#   BENCH=0: skip both benchmarks (tests, and the sanitizer if asked, only)
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
brc=0
if [ "${BENCH:-1}" != 0 ]; then
  t0=$(date +%s)
  "$B/src/gpu/cz_bench_gpu" "$MAXLOG"
  brc=$?
  echo "== bench rc=$brc, $(( $(date +%s) - t0 )) s"
  # GPU partition prover on a synthetic PoRep-shaped circuit (2^24 and the largest size, dense witness), then
  # the largest with the compact witness the daemon sends
  t0=$(date +%s)
  "$B/src/gpu/cz_bench_prover" 24 "$MAXLOG" && "$B/src/gpu/cz_bench_prover" --compact "$MAXLOG"
  prc=$?
  echo "== prover bench rc=$prc, $(( $(date +%s) - t0 )) s"
  brc=$(( brc || prc ))
fi
if [ "${SANITIZE:-0}" = 1 ]; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -z "$CS" ]; then echo "== sanitizer: compute-sanitizer not found"; trc=1
  else
    names=$(ctest --test-dir "$B" -N -L gpu | sed -n 's/.*Test *#[0-9]*: *//p')
    # the longest (test_gpu_msm) last
    for name in $(echo "$names" | grep -v _msm) $(echo "$names" | grep _msm); do
      t="$B/tests/$name"
      [ -x "$t" ] || { echo "== memcheck: no $t"; trc=1; continue; }
      t0=$(date +%s)
      # memcheck: out-of-bounds / misaligned device accesses, device-side errors; the test's own checks still run
      CZ_TEST_GPU_MAX_N=${SANITIZE_MAX_N:-4096} timeout "${SANITIZE_TIMEOUT:-400}" "$CS" --tool memcheck --error-exitcode 86 --print-limit 20 "$t" >"$B.$(basename "$t").cs.log" 2>&1
      src=$?
      grep -E "ERROR SUMMARY|passed, " "$B.$(basename "$t").cs.log" | tail -2 | tr '\n' ' '
      echo "== memcheck $(basename "$t") rc=$src, $(( $(date +%s) - t0 )) s"
      [ $src -ne 0 ] && { grep -B2 -A12 "Invalid\|Error" "$B.$(basename "$t").cs.log" | head -60; trc=1; }
    done
  fi
fi
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader 2>&1 || true
exit $(( trc != 0 || brc != 0 ))
