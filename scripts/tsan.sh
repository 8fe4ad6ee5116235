#!/usr/bin/env bash
# ThreadSanitizer over the engine's threads, the SRS manager and the daemon: a build in build-tsan/ (-DCZ_TSAN=ON,
# CUDA off unless CZ_TSAN_CUDA=1), then the unit and e2e labels under TSan. Any race report fails it. Not part of
# scripts/test.sh's default run (about 16 minutes on 2 cores: the build 7, the tests 9); `CZ_TEST_TSAN=1 bash
# scripts/test.sh` adds it as a phase.
#   bash scripts/tsan.sh              everything
#   bash scripts/tsan.sh REGEX        only the tests whose names match (ctest -R)
# Needs what scripts/test.sh installs (scripts/install-deps.sh); without the server libraries the e2e label is
# not built and only the unit label runs. Environment: CZ_TEST_JOBS (default nproc), CZ_TSAN_BUILD_DIR
# (default build-tsan), CZ_TSAN_CUDA=1 (build the GPU library too, its C host code instrumented, so that the unit
# label takes test_gpu_lock, the device lock's host threads; the CUDA build adds ~10 minutes; the gpu label's tests
# need a device: on the GPU machine run test_gpu_backend and test_gpu_backend_build from that build with
# OMP_THREAD_LIMIT=1 and TSAN_OPTIONS=suppressions=tests/tsan.supp; docs/perf.md, session 58).
#
# What it leaves out, and why:
# - OpenMP runs one thread a region (OMP_THREAD_LIMIT=1): Debian's libgomp is not built with TSan, so the
#   hand-offs at its barriers are invisible and every parallel loop would be reported. The engine's own threads
#   (dispatcher, synthesis, GPU workers, finishers, the digest beside a load, the RPC handlers) are pthreads
#   and fully checked.
# - test_engine_synth_pool checks the OpenMP team sizes that limit changes.
# - test_mapguard and test_srs_changed_file raise SIGBUS on purpose (a file cut short under its mapping); TSan
#   reports a SIGBUS as a fatal error.
# - Reports inside gRPC, abseil, upb and the CUDA driver (tests/tsan.supp): those libraries are not instrumented
#   either.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${CZ_TEST_JOBS:-$(nproc)}
build=${CZ_TSAN_BUILD_DIR:-build-tsan}
filter=${1:-}

cuda=OFF
[ "${CZ_TSAN_CUDA:-0}" = 1 ] && cuda=ON
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZ_TSAN=ON -DCZ_ENABLE_CUDA=$cuda >/dev/null || exit 1
cmake --build "$build" -j"$jobs" || exit 1

reports=$(mktemp -d /tmp/cz-tsan.XXXXXX)
export OMP_THREAD_LIMIT=1
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 history_size=4 log_path=$reports/report \
suppressions=$root/tests/tsan.supp"
args=(-L 'unit|e2e' -E 'test_engine_synth_pool|test_mapguard|test_srs_changed_file')
[ -n "$filter" ] && args+=(-R "$filter")
ctest --test-dir "$build" "${args[@]}" --output-on-failure --no-tests=error -j"$jobs" --timeout 1800 2>&1 |
    tee "$build/cz-tsan.log"
rc=${PIPESTATUS[0]}

n=$(cat "$reports"/report.* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer')
if [ "$n" -gt 0 ]; then
    echo
    echo "==== $n ThreadSanitizer report(s):"
    cat "$reports"/report.*
    grep -h 'SUMMARY: ThreadSanitizer' "$reports"/report.* | sort | uniq -c
    rc=1
fi
rm -rf "$reports"
counts=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$build/cz-tsan.log" | tail -1)
if [ "$rc" = 0 ]; then
    echo "tsan: OK ($counts, no reports)"
else
    echo "tsan: FAILED ($counts, $n report(s))"
fi
exit "$rc"
