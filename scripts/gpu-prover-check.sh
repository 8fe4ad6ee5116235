#!/usr/bin/env bash
# One device call for the GPU partition prover: test_gpu_prover and test_gpu_prover_compact, the 0/1/other
# mix of a PoRep 32 GiB witness (cz_bench_porep_mix; with MIX_QUERIES=porep-32g, the default, also per query:
# B's aux and the others apart, which records the circuit: ~29 GB of host memory, else the one mix), then
# cz_bench_prover at the given sizes with that mix, dense witness upload and then compact (--compact; COMPACT=0
# skips it).
# Runs prebuilt binaries from bin/ (carried from a local -DCZ_CUDA_ARCH=90 build) when they load on this
# machine, else builds them (CUDA on, server off). Logs also go to $OUT when it is set.
# Usage: bash scripts/gpu-prover-check.sh [log_n ...]   (default: 24 27)   env: BUILD_DIR (build-gpu)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
SIZES=${*:-24 27}
B=${BUILD_DIR:-build-gpu}
LOG=${OUT:-.}/prover-check.log
exec > >(tee -a "$LOG") 2>&1
echo "== $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,memory.used,memory.total --format=csv 2>&1 || true
T=bin/test_gpu_prover
TC=bin/test_gpu_prover_compact
BENCH=bin/cz_bench_prover
MIX=bin/cz_bench_porep_mix
if [ ! -x "$T" ] || [ ! -x "$TC" ] || ldd "$T" 2>&1 | grep -q "not found"; then
  t0=$(date +%s)
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCZ_ENABLE_CUDA=ON -DCZ_ENABLE_SERVER=OFF \
    -DCZ_CUDA_ARCH="${CZ_CUDA_ARCH:-90}" >"$B.cmake.log" 2>&1 || { cat "$B.cmake.log"; exit 1; }
  cmake --build "$B" -j"$(nproc)" --target test_gpu_prover test_gpu_prover_compact cz_bench_prover cz_bench_porep_mix >"$B.build.log" 2>&1 ||
    { tail -60 "$B.build.log"; exit 1; }
  T=$B/tests/test_gpu_prover
  TC=$B/tests/test_gpu_prover_compact
  BENCH=$B/src/gpu/cz_bench_prover
  MIX=$B/src/gpu/cz_bench_porep_mix
  echo "== build $(( $(date +%s) - t0 )) s"
else
  echo "== prebuilt binaries"
fi
t0=$(date +%s)
timeout "${TEST_TIMEOUT:-150}" "$T"
trc=$?
echo "== test_gpu_prover rc=$trc, $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
if [ -x "$TC" ]; then timeout "${TEST_TIMEOUT:-150}" "$TC"; tcrc=$?; else echo "no $TC"; tcrc=1; fi
echo "== test_gpu_prover_compact rc=$tcrc, $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
if [ -z "${CZ_BENCH_MIX:-}" ]; then # measure it unless given
  mo=$(CZ_MIX_QUERIES=${MIX_QUERIES-porep-32g} timeout 180 "$MIX" | tee /dev/stderr)
  mix=$(sed -n 's/^mix //p' <<<"$mo") mixb=$(sed -n 's/^mix_b //p' <<<"$mo") mixn=$(sed -n 's/^mix_not_b //p' <<<"$mo")
  if [ -n "$mixb" ] && [ -n "$mixn" ]; then
    export CZ_BENCH_MIX="$mixn" CZ_BENCH_MIX_B="$mixb"
  elif [ -n "$mix" ]; then
    export CZ_BENCH_MIX="$mix"
  fi
  echo "== porep mix '$mix' (B's aux '$mixb', the others '$mixn'), $(( $(date +%s) - t0 )) s"
fi
t0=$(date +%s)
# shellcheck disable=SC2086
timeout "${BENCH_TIMEOUT:-200}" "$BENCH" $SIZES
brc=$?
echo "== bench rc=$brc, $(( $(date +%s) - t0 )) s"
crc=0
if [ "${COMPACT:-1}" != 0 ]; then
  t0=$(date +%s)
  # shellcheck disable=SC2086
  timeout "${BENCH_TIMEOUT:-200}" "$BENCH" --compact $SIZES
  crc=$?
  echo "== bench --compact rc=$crc, $(( $(date +%s) - t0 )) s"
fi
exit $(( trc != 0 || tcrc != 0 || brc != 0 || crc != 0 ))
