#!/usr/bin/env bash
# circom .r1cs / .wtns readers against circom2 + snarkjs (bls12381): a circuit compiled by circom2,
# a witness from snarkjs (which also checks it), then cz_tool_r1cs_check must find every row
# satisfied, must fail once any single witness value is changed, and must reject damaged files
# (truncations, magic, version, prime, section sizes, wire ids, coefficients >= r) with a message.
# usage: [VERBOSE=1] test_circom_r1cs.sh BUILD_DIR   (VERBOSE prints each case's message)
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=$BUILD/tests/cz_tool_r1cs_check
ORA=$ROOT/tests/oracles
PATCH="node $ROOT/tests/interop/iden3_patch.mjs"
[ -x "$TOOL" ] || { echo "missing $TOOL (build the tests first)"; exit 1; }
[ -d "$ORA/node_modules" ] || npm ci --prefix "$ORA" --no-audit --no-fund >/dev/null
BIN=$ORA/node_modules/.bin
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
check() { # check DESCRIPTION WANT_RC [GREP] -- CMD...
    local desc=$1 want=$2 pat=$3
    shift 4
    local rc=0
    "$@" >"$W/out" 2>"$W/err" || rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL: $desc: exit $rc, want $want; stderr: $(head -c 400 "$W/err")" >&2
        fail=$((fail + 1))
    elif [ -n "$pat" ] && ! grep -q -- "$pat" "$W/err" "$W/out"; then
        echo "FAIL: $desc: output lacks '$pat': $(head -c 400 "$W/err")" >&2
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
        [ -z "${VERBOSE:-}" ] || echo "ok: $desc: $(head -c 300 "$W/err")"
    fi
}

t0=$(date +%s)
cd "$W"
"$BIN/circom2" "$ROOT/tests/interop/circuits/r1cs_mix.circom" --r1cs --wasm --sym --O0 --prime bls12381 -o . >/dev/null
# Fresh random inputs each run (printed for replay); k = 0 one run in four exercises the other branch.
node -e '
const { randomBytes } = require("node:crypto");
const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const big = () => (BigInt("0x" + randomBytes(32).toString("hex")) % r).toString();
const k = randomBytes(1)[0] < 64 ? "0" : big();
console.log(JSON.stringify({ x: big(), k, a: Array.from({ length: 6 }, big) }));' >in.json
echo "inputs: $(cat in.json)"
"$BIN/snarkjs" wtns calculate r1cs_mix_js/r1cs_mix.wasm in.json good.wtns >/dev/null
check "snarkjs accepts the witness" 0 "WITNESS IS CORRECT" -- "$BIN/snarkjs" wtns check r1cs_mix.r1cs good.wtns
check "good witness satisfies every row" 0 "rows satisfied" -- "$TOOL" r1cs_mix.r1cs good.wtns
cat "$W/out"
NW=$(sed -n 's/^r1cs: wires \([0-9]*\).*/\1/p' "$W/out")
[ -n "$NW" ] || { echo "FAIL: no wire count in the tool output" >&2; exit 1; }

# Damaged copies are written by one node run per source file (node start-up dominates otherwise):
# each case is "file op args" for iden3_patch.mjs plus the exit status and message the tool must give.
R_DESC=() R_WANT=() R_PAT=() W_DESC=() W_WANT=() W_PAT=()
: >r1cs.spec
: >wtns.spec
bad_r1cs() { # DESC WANT PATTERN OP ARGS...
    R_DESC+=("$1") R_WANT+=("$2") R_PAT+=("$3")
    shift 3
    echo "bad${#R_DESC[@]}.r1cs $*" >>r1cs.spec
}
bad_wtns() {
    W_DESC+=("$1") W_WANT+=("$2") W_PAT+=("$3")
    shift 3
    echo "bad${#W_DESC[@]}.wtns $*" >>wtns.spec
}

# Changing any one value must break some constraint (wire 0 is ONE and is rejected outright). With k = 0 the
# hint signal inv only meets k * inv, so it is free and changing it must NOT break anything: that wire is
# checked the other way round (its wire number comes from circom's --sym output).
INV_WIRE=$(awk -F, '$4 == "main.inv" {print $2}' r1cs_mix.sym)
[ -n "$INV_WIRE" ] || { echo "FAIL: no main.inv in r1cs_mix.sym" >&2; exit 1; }
K_IS_ZERO=$(node -e 'console.log(JSON.parse(require("fs").readFileSync("in.json")).k === "0" ? 1 : 0)')
for ((i = 1; i < NW; i++)); do
    if [ "$K_IS_ZERO" = 1 ] && [ "$i" = "$INV_WIRE" ]; then
        bad_wtns "witness value $i (inv, free when k = 0) changed" 0 "rows satisfied" wtns-flip "$i"
    else
        bad_wtns "witness value $i changed" 1 "not satisfied" wtns-flip "$i"
    fi
done
bad_wtns "witness value 0 (ONE) changed" 2 "value 0 is not 1" wtns-flip 0
WLEN=$(stat -c %s good.wtns)
read -r _ WS2 _ < <($PATCH good.wtns - info | awk '$1 == 2')
for n in 0 11 12 30 $((WLEN - 32)) $((WLEN - 1)); do bad_wtns "wtns truncated to $n bytes" 2 ".wtns" truncate "$n"; done
bad_wtns "wtns magic flipped" 2 "magic" xor 1 01
bad_wtns "wtns version 3" 2 "version" xor 4 01
bad_wtns "wtns value section shorter than the count" 2 "offset" section-size 2 -32
bad_wtns "wtns value >= r" 2 ">= r" xor $((WS2 + 32 + 31)) ff

LEN=$(stat -c %s r1cs_mix.r1cs)
read -r _ H1 _ < <($PATCH r1cs_mix.r1cs - info | awk '$1 == 1')
read -r _ S2 Z2 < <($PATCH r1cs_mix.r1cs - info | awk '$1 == 2')
for n in 0 3 4 11 12 20 $((H1 - 1)) $((H1 + 10)) $((H1 + 63)) $((S2 + 2)) $((S2 + Z2 / 2)) $((LEN - 1)); do
    bad_r1cs "r1cs truncated to $n bytes" 2 ".r1cs" truncate "$n"
done
bad_r1cs "r1cs magic flipped" 2 "magic" xor 0 20
bad_r1cs "r1cs version 3" 2 "version" xor 4 02
bad_r1cs "r1cs prime changed" 2 "prime" xor $((H1 + 4)) 01
bad_r1cs "r1cs field size 48" 2 "n8" xor "$H1" 10
bad_r1cs "r1cs constraint section 1 byte too long" 2 "offset" section-size 2 1
bad_r1cs "r1cs constraint section 36 bytes short" 2 "offset" section-size 2 -36
bad_r1cs "r1cs header section too long" 2 "offset" section-size 1 4
bad_r1cs "r1cs wire id = nWires" 2 "wire $NW" first-wire "$NW"
bad_r1cs "r1cs wire id 2^32-1" 2 "wire" first-wire 4294967295
bad_r1cs "r1cs coefficient = r" 2 "coefficient >= r" \
    first-coef 01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73
bad_r1cs "r1cs coefficient = r - 1 is accepted" 0 "" \
    first-coef 00000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73

$PATCH r1cs_mix.r1cs --batch <r1cs.spec
$PATCH good.wtns --batch <wtns.spec
for ((i = 0; i < ${#R_DESC[@]}; i++)); do
    check "${R_DESC[i]}" "${R_WANT[i]}" "${R_PAT[i]}" -- "$TOOL" "bad$((i + 1)).r1cs"
done
for ((i = 0; i < ${#W_DESC[@]}; i++)); do
    check "${W_DESC[i]}" "${W_WANT[i]}" "${W_PAT[i]}" -- "$TOOL" r1cs_mix.r1cs "bad$((i + 1)).wtns"
done
check "missing file" 2 "cannot open" -- "$TOOL" r1cs_mix.r1cs missing.wtns
mkdir -p bn
"$BIN/circom2" "$ROOT/tests/interop/circuits/r1cs_mix.circom" --r1cs --O0 --prime bn128 -o bn >/dev/null
check "r1cs over bn128 rejected" 2 "prime" -- "$TOOL" bn/r1cs_mix.r1cs

echo "circom r1cs interop: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
