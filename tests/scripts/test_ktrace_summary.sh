#!/usr/bin/env bash
# scripts/ktrace-summary.py on a small hand-made trace whose figures are known: the segment split, the span /
# busy / idle sums, the per-kernel table, --launches and --bins; a --segment it does not have refused. Usage:
# test_ktrace_summary.sh SOURCE_DIR
set -u
src=${1:-$(dirname "$0")/../..}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# K,start_ns,end_ns,stream,grid,block,regs,name and C,start_ns,end_ns,stream,bytes,kind (1 = HtoD)
cat > "$tmp/t.csv" <<'CSV'
K,1000000,3000000,7,1,1,1,alpha<int>
K,2000000,2500000,8,1,1,1,beta
K,5000000,6000000,7,1,1,1,split_me
K,6000000,9000000,7,1,1,1,alpha<float>
C,6500000,7000000,9,1024,1
K,12000000,12500000,8,1,1,1,beta
CSV
out=$(python3 "$src/scripts/ktrace-summary.py" "$tmp/t.csv" --split split_me --launches '^alpha' --bins 2) || {
    echo "FAIL: the script exited non-zero"; exit 1; }
echo "$out"
fail=0
expect() { # REGEX WHAT
    if ! grep -Eq -- "$1" <<<"$out"; then echo "FAIL: $2 (no line matching $1)"; fail=1; fi
}
expect '^== segment 0 of 1: span 7\.500 ms, busy 4\.500 ms, idle 3\.000 ms' "one segment, from split_me (the records before it dropped): span, busy, idle"
expect '^ +3\.000 +1 +3000\.0 +40\.0  alpha<float>$' "alpha<float>: 3 ms, one launch, 40 % of the span"
expect '^ +0\.500 +1 +500\.0 +6\.7  \[HtoD\]  0\.0 MB$' "the copy as [HtoD]"
expect '^ +1\.000 +3\.000 +7  alpha<float>$' "--launches: alpha<float> 1 ms after the segment's start, 3 ms, stream 7"
if grep -Eq 'alpha<int>' <<<"$out"; then echo "FAIL: alpha<int> lies before the first split"; fail=1; fi
expect '^ +0\.0  split_me 1\.00  alpha 1\.00  \[HtoD\] 0\.50$' "--bins: bin 0"
expect '^ +2\.0  alpha 2\.00$' "--bins: bin 2"
expect '^ +6\.0  beta 0\.50$' "--bins: bin 6"
# a segment the trace does not have, or not a number: a clear usage error (exit 2), no traceback
for seg in 1 -2 x; do
    err=$(python3 "$src/scripts/ktrace-summary.py" "$tmp/t.csv" --split split_me --segment "$seg" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" != 2 ] || ! grep -q -- "--segment" <<<"$err" || grep -q Traceback <<<"$err"; then
        echo "FAIL: --segment $seg: exit $rc, $err"; fail=1
    fi
done
[ "$fail" = 0 ] && echo "ktrace-summary: ok"
exit $fail
