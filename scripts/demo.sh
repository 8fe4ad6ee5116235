#!/usr/bin/env bash
# The "main job" command: on a fresh Debian 12 machine, as root,
#   bash scripts/demo.sh
# installs what is missing (scripts/install-deps.sh, system packages only), builds cuzk (Release, in
# build/ or $CZ_BUILD_DIR) and runs the demo program: build/src/cli/cz_demo when the CLI provides one,
# else build/bench/cz_bench_demo. The demo prints its checks and timings and exits non-zero if any
# check fails; so does this script. CZ_TEST_JOBS=N sets the build parallelism (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=${CZ_TEST_JOBS:-$(nproc)}
build=${CZ_BUILD_DIR:-build}

echo "==== install dependencies"
bash scripts/install-deps.sh --no-npm
echo "==== configure + build (Release, -j$jobs)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs"

demo=
for candidate in "$build/src/cli/cz_demo" "$build/bench/cz_bench_demo"; do
    if [ -x "$candidate" ]; then demo=$candidate; break; fi
done
if [ -z "$demo" ]; then
    echo "demo.sh: no demo program was built ($build/src/cli/cz_demo or $build/bench/cz_bench_demo)" >&2
    exit 1
fi
echo "==== $demo $*"
"$demo" "$@"

# The main job: the daemon on a temporary configuration proves a real 2 KiB PoRep C2 (the StackedDrg circuit,
# 2,687,921 constraints) for a fresh synthetic C1 written by `cuzk-bench gen-vanilla porep` (the Commit2In
# JSON Curio sends), submitted through cuzk-bench over the real gRPC API; the daemon verifies the vanilla
# proofs, proves, and checks the proof against public inputs from the C1's public values before it answers
# COMPLETED. Parameters: the official v28 2 KiB file when it is in $FIL_PROOFS_PARAMETER_CACHE (default
# /var/tmp/filecoin-proof-parameters), else a seeded local setup cached in $build/srs-cache: the first run
# pays that setup (minutes on 2 cores), later runs read the file.
if [ ! -x "$build/cuzk" ] || [ ! -x "$build/cuzk-bench" ]; then
    echo "demo.sh: the daemon was not built (server libraries missing?); stopping after the CPU demo" >&2
    exit 1
fi
tmp=$(mktemp -d)
daemon_pid=
cleanup() {
    [ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
params=${FIL_PROOFS_PARAMETER_CACHE:-/var/tmp/filecoin-proof-parameters}
cache=$(cd "$build" && pwd)/srs-cache
printf '[daemon]\nlisten = "unix://%s/cuzk.sock"\n\n[srs]\nparam_cache = "%s"\nlocal_cache = "%s"\n' \
    "$tmp" "$params" "$cache" >"$tmp/cuzk.toml"
echo "==== $build/cuzk --config $tmp/cuzk.toml"
cat "$tmp/cuzk.toml"
if [ ! -f "$cache/cuzk-test-porep-2k.params" ]; then
    echo "(first run: no cached 2 KiB parameters yet, the daemon runs the seeded setup once: minutes on 2 cores)"
fi
"$build/cuzk" --config "$tmp/cuzk.toml" --log-level info >"$tmp/cuzk.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 200); do [ -S "$tmp/cuzk.sock" ] && break; sleep 0.1; done
# the socket appears when gRPC binds it, before it listens: wait until a call is answered
for _ in $(seq 100); do "$build/cuzk-bench" -a "unix://$tmp/cuzk.sock" status >/dev/null 2>&1 && break; sleep 0.1; done
addr="unix://$tmp/cuzk.sock"
rc=0
echo "==== cuzk-bench gen-vanilla porep --sector-size 2048 -o $tmp/c1.json"
"$build/cuzk-bench" gen-vanilla porep --sector-size 2048 -o "$tmp/c1.json" || rc=$?
echo "==== cuzk-bench single -t porep --c1 $tmp/c1.json (real 2 KiB PoRep C2, proved and verified by the daemon)"
[ "$rc" != 0 ] || "$build/cuzk-bench" -a "$addr" single -t porep --c1 "$tmp/c1.json" || rc=$?
echo "==== cuzk-bench status"
"$build/cuzk-bench" -a "$addr" status || rc=$?
kill -TERM "$daemon_pid"
wait "$daemon_pid" || rc=$?
daemon_pid=
echo "---- daemon log: circuit, SRS, TIMELINE and timing lines"
grep -E "cuzk::srs|vanilla proof|TIMELINE|proof completed|proof failed" "$tmp/cuzk.log" | head -40
if [ "$rc" = 0 ]; then echo "demo: OK"; else echo "demo: FAILED (exit $rc)"; fi
exit "$rc"
