#!/usr/bin/env bash
# C1 public inputs against the research notes' independent Python checker (verify_c1.py, stdlib
# only, written from the upstream sources): for the real 2 KiB C1 fixture both must derive the same
# 39 public inputs, both must verify the vanilla proofs, and ours must find the circuit satisfied.
# usage: test_c1_inputs_py.sh BUILD_DIR   (CZ_SHARED overrides the shared folder: research + fixtures)
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=$BUILD/tests/cz_tool_c1_inputs
SHARED=${CZ_SHARED:-}
for d in "$SHARED" "$ROOT/../shared" "$ROOT/../../shared" /work/shared; do
  [ -n "$d" ] && [ -d "$d/research/filecoin-circuits-tools" ] && { SHARED=$d; break; }
done
PY=$SHARED/research/filecoin-circuits-tools
FIX=$SHARED/fixtures/real/ipfs-force-community+gpuproxy/2KiB.json
[ -x "$TOOL" ] || { echo "missing $TOOL (build the tests first)"; exit 1; }
[ -f "$PY/verify_c1.py" ] && [ -f "$FIX" ] || { echo "research tools or fixture not found: skipped"; echo "0 passed, 0 failed"; exit 0; }
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
(cd "$PY" && python3 verify_c1.py "$FIX" 64) > "$W/py.txt"
"$TOOL" "$FIX" --check > "$W/c.txt" && ok || bad "cz_tool_c1_inputs failed: $(cat "$W/c.txt")"
grep -q "challenge 1: .*labels=True encoding=True parent_columns=True" "$W/py.txt" && ok || bad "verify_c1.py does not verify"
grep -q "circuit satisfied (every constraint)" "$W/c.txt" && ok || bad "circuit not satisfied"
# Python: 3 hex lines, then the list of 36 small integers -> 39 big-endian hex lines
python3 - "$W/py.txt" > "$W/py_inputs.txt" <<'PYEOF'
import re, sys
t = open(sys.argv[1]).read()
hexes = re.findall(r'^\s+([0-9a-f]{64})$', t, re.M)[:3]
small = [int(x) for x in re.search(r'per-challenge small inputs: \[([^\]]*)\]', t).group(1).split(',')]
for h in hexes: print(h)
for v in small: print('%064x' % v)
PYEOF
grep -E '^  [0-9a-f]{64}$' "$W/c.txt" | tr -d ' ' > "$W/c_inputs.txt"
[ "$(wc -l < "$W/c_inputs.txt")" = 39 ] && ok || bad "expected 39 inputs from the tool"
diff -q "$W/py_inputs.txt" "$W/c_inputs.txt" >/dev/null && ok || bad "public inputs differ: $(diff "$W/py_inputs.txt" "$W/c_inputs.txt" | head -5)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
