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
