#!/usr/bin/env bash
# THE test command of cuzk (README, .ci/run). On a fresh Debian 12 machine, as root:
#   bash scripts/test.sh
# 1. installs what is missing (scripts/install-deps.sh: apt packages, npm test oracles);
# 2. Release build in build/, runs the CTest labels unit, interop and e2e (not gpu, not slow);
# 3. ASan+UBSan build in build-asan/ (CUDA off), runs the unit and e2e labels again under the sanitizers.
# Every phase runs even after a failure (so one report shows everything); the exit status is non-zero
# if any phase failed. Environment:
#   CZ_TEST_JOBS=N        build and ctest parallelism (default: nproc)
#   CZ_BUILD_DIR, CZ_ASAN_BUILD_DIR   build directories (default build, build-asan)
#   CZ_TEST_NO_ASAN=1     skip the sanitizer phase (quick local runs; the CI never sets it)
#   CZ_TEST_TSAN=1        add a ThreadSanitizer phase (scripts/tsan.sh: its own build, ~16 min on 2 cores)
#   CZ_TEST_SEED=0x...    replay the random inputs of a failed run (each test prints its seed)
set -uo pipefail
cd "$(dirname "$0")/.."

jobs=${CZ_TEST_JOBS:-$(nproc)}
build=${CZ_BUILD_DIR:-build}
asan_build=${CZ_ASAN_BUILD_DIR:-build-asan}
t_start=$(date +%s)
names=() results=() secs=() notes=()
failed=0

# run_phase NAME CMD...: runs CMD, records ok/FAILED and the duration.
run_phase() {
    local name=$1 t0 rc
    shift
    echo
    echo "==== $name: $*"
    t0=$(date +%s)
    "$@"
    rc=$?
    names+=("$name") secs+=($(($(date +%s) - t0)))
    if [ "$rc" = 0 ]; then results+=(ok); else results+=("FAILED (exit $rc)"); failed=1; fi
    notes+=("${note:-}")
    note=
    return "$rc"
}
skip_phase() {
    names+=("$1") results+=("skipped: $2") secs+=(0) notes+=("")
}
# ctest summary line ("100% tests passed, 0 tests failed out of 7") of the last run, for the report.
ctest_counts() { grep -Eo '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -1; }

run_ctest() { # BUILD_DIR LABEL_REGEX LOG
    ctest --test-dir "$1" -L "$2" --output-on-failure --no-tests=error -j"$jobs" 2>&1 | tee "$3"
    local rc=${PIPESTATUS[0]}
    note=$(ctest_counts "$3")
    return "$rc"
}

run_phase "install dependencies" bash scripts/install-deps.sh
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    export NODE_OPTIONS="--experimental-global-webcrypto ${NODE_OPTIONS:-}"
fi

if run_phase "configure (Release)" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release &&
    run_phase "build (Release, -j$jobs)" cmake --build "$build" -j"$jobs"; then
    mkdir -p "$build"
    run_phase "tests: unit|interop|e2e" run_ctest "$build" 'unit|interop|e2e' "$build/cz-test.log"
else
    skip_phase "tests: unit|interop|e2e" "the build failed"
fi

if [ "${CZ_TEST_NO_ASAN:-0}" = 1 ]; then
    skip_phase "sanitizers (ASan+UBSan)" "CZ_TEST_NO_ASAN=1"
else
    # The sanitizers stop at the first report and make the test exit non-zero.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    if run_phase "configure (ASan+UBSan)" cmake -S . -B "$asan_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCZ_SANITIZE=ON -DCZ_ENABLE_CUDA=OFF &&
        run_phase "build (ASan+UBSan, -j$jobs)" cmake --build "$asan_build" -j"$jobs"; then
        mkdir -p "$asan_build"
        # e2e too: the daemon's error paths (oversized messages, corrupt params, bad C1) under the sanitizers; a
        # daemon that reports exits non-zero, and every e2e suite checks its daemon's exit status
        run_phase "tests under ASan+UBSan: unit|e2e" run_ctest "$asan_build" 'unit|e2e' "$asan_build/cz-test.log"
    else
        skip_phase "tests under ASan+UBSan: unit|e2e" "the build failed"
    fi
fi

if [ "${CZ_TEST_TSAN:-0}" = 1 ]; then
    run_phase "ThreadSanitizer (scripts/tsan.sh)" bash scripts/tsan.sh
fi

total=$(($(date +%s) - t_start))
echo
echo "==================== cuzk test summary ===================="
for i in "${!names[@]}"; do
    printf '%-34s %-28s %5ss  %s\n' "${names[$i]}" "${results[$i]}" "${secs[$i]}" "${notes[$i]}"
done
echo "-----------------------------------------------------------"
if [ "$failed" = 0 ]; then
    echo "ALL PASSED in ${total}s (commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
else
    echo "FAILED in ${total}s: see the phases marked FAILED above (logs: $build/cz-test.log, $asan_build/cz-test.log)"
fi
exit "$failed"
