#!/usr/bin/env bash
# Groth16 interop with snarkjs 0.7.6 and @noble/curves (issue 3, point 3), via cz_tool_snarkjs:
#  (a) circom2 circuit (public output + two public inputs) -> witness by snarkjs -> snarkjs ceremony
#      (power 8) + groth16 setup + zkey contribute (random delta): our zkey prover's proof is accepted by
#      `snarkjs groth16 verify` and by noble; snarkjs's proof is accepted by our verifier; with the same
#      fixed r, s our proof.json/public.json equal snarkjs's byte for byte; flipped public inputs fail.
#  (b) generated 2^12-domain circuit (sq_circuit.mjs, fresh random inputs) with a .zkey from our own
#      setup (known toxic waste): snarkjs verifies our proof, its proof with our r, s is byte-identical.
#      SIZE=k (env) picks 2^k instead, ONLY_B=1 skips (a) and (c): tests/slow/test_groth16_snarkjs_2e16.sh
#      runs (b) at 2^16 (35-90 s, too long for the interop label on a loaded machine).
#  (c) our bellperson-path setup + prover (setup.h, prover.h) on the circom circuit: noble and snarkjs
#      verify the proof from the JSON files our tool writes.
#  plus damaged zkeys: errors name the section / offset, no crash.
# usage: test_groth16_snarkjs.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=$BUILD/tests/cz_tool_snarkjs
ORA=$ROOT/tests/oracles
SIZE=${SIZE:-12}
[ -x "$TOOL" ] || { echo "missing $TOOL (build the tests first)"; exit 1; }
[ -d "$ORA/node_modules" ] || npm ci --prefix "$ORA" --no-audit --no-fund >/dev/null
SNARKJS=$ORA/node_modules/.bin/snarkjs
NOBLE="node $ORA/noble_groth16.mjs"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
pass=0
fail=0
t0=$(date +%s)
ok() { pass=$((pass + 1)); [ -z "${VERBOSE:-}" ] || echo "ok: $1"; }
bad() { echo "FAIL: $1" >&2; fail=$((fail + 1)); }
expect() { # expect DESC WANT_RC CMD... : exit status must be WANT_RC
    local desc=$1 want=$2 rc=0
    shift 2
    "$@" >out.txt 2>err.txt || rc=$?
    if [ "$rc" = "$want" ]; then ok "$desc"; else bad "$desc: exit $rc, want $want: $(tail -c 300 err.txt) $(tail -c 200 out.txt)"; fi
}
same() { # same DESC FILE1 FILE2
    if cmp -s "$2" "$3"; then ok "$1"; else bad "$1: $2 and $3 differ"; diff "$2" "$3" | head -20 >&2 || true; fi
}
# A copy of public.json with signal $2 (0-based) replaced by another value below r.
flip_public() {
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));const i=+process.argv[2];
      p[i]=(BigInt(p[i])+1n).toString();fs.writeFileSync(process.argv[3],JSON.stringify(p,null,1));' "$1" "$2" "$3"
}
rnd() { node -e 'const r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
  console.log((BigInt("0x"+require("crypto").randomBytes(40).toString("hex"))%r).toString())'; }

if [ -z "${ONLY_B:-}" ]; then
# ---------------- (a) circom2 + the snarkjs ceremony ----------------
"$ORA/node_modules/.bin/circom2" "$ROOT/tests/interop/circuits/g16_small.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
node -e 'const r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
  const b=()=>(BigInt("0x"+require("crypto").randomBytes(40).toString("hex"))%r).toString();
  console.log(JSON.stringify({k:b(),x:b(),a:Array.from({length:20},b)}))' >in.json
echo "inputs: $(cat in.json)"
"$SNARKJS" wtns calculate g16_small_js/g16_small.wasm in.json c.wtns >/dev/null
"$SNARKJS" powersoftau new bls12381 8 p0.ptau >/dev/null
"$SNARKJS" powersoftau contribute p0.ptau p1.ptau --name=t -e="$(rnd)" >/dev/null
"$SNARKJS" powersoftau prepare phase2 p1.ptau pf.ptau >/dev/null
"$SNARKJS" groth16 setup g16_small.r1cs pf.ptau c0.zkey >/dev/null
"$SNARKJS" zkey contribute c0.zkey c.zkey --name=t -e="$(rnd)" >/dev/null
"$SNARKJS" zkey export verificationkey c.zkey vk.json >/dev/null
echo "circom + ceremony: $(($(date +%s) - t0)) s"

expect "our tool reads snarkjs's zkey (subgroup-checked)" 0 "$TOOL" check c.zkey
expect "our prover on snarkjs's zkey (random r, s)" 0 "$TOOL" prove c.zkey c.wtns ours.json ours_pub.json
expect "snarkjs verifies our proof" 0 "$SNARKJS" groth16 verify vk.json ours_pub.json ours.json
expect "noble verifies our proof" 0 $NOBLE vk.json ours_pub.json ours.json
expect "our verifier (vk.json) accepts our proof" 0 "$TOOL" verify vk.json ours_pub.json ours.json
"$SNARKJS" groth16 prove c.zkey c.wtns sj.json sj_pub.json >/dev/null
expect "our verifier accepts snarkjs's proof (vk.json)" 0 "$TOOL" verify vk.json sj_pub.json sj.json
expect "our verifier accepts snarkjs's proof (vk from the zkey)" 0 "$TOOL" zverify c.zkey sj_pub.json sj.json
same "public.json equals snarkjs's" sj_pub.json ours_pub.json
for i in 0 1 2; do
    flip_public sj_pub.json $i bad_pub.json
    expect "our verifier rejects snarkjs's proof with public signal $i changed" 1 "$TOOL" verify vk.json bad_pub.json sj.json
done
flip_public ours_pub.json 1 bad_pub.json
expect "snarkjs rejects our proof with a public input changed" 1 "$SNARKJS" groth16 verify vk.json bad_pub.json ours.json
R=$(rnd) S=$(rnd)
echo "fixed r=$R s=$S"
node "$ORA/snarkjs_prove_fixed.mjs" c.zkey c.wtns "$R" "$S" sjd.json sjd_pub.json >/dev/null
expect "our prover with fixed r, s" 0 "$TOOL" prove c.zkey c.wtns oursd.json oursd_pub.json "$R" "$S"
same "fixed r, s: our proof.json equals snarkjs's byte for byte" sjd.json oursd.json
node "$ORA/snarkjs_prove_fixed.mjs" c.zkey c.wtns 0 0 sj0.json sj0_pub.json >/dev/null
"$TOOL" prove c.zkey c.wtns ours0.json ours0_pub.json 0 0 >/dev/null
same "r = s = 0 (raw MSM sums): our proof.json equals snarkjs's" sj0.json ours0.json

# ---------------- (c) the bellperson path, checked by noble and snarkjs ----------------
mkdir bell
expect "bellperson-path setup + prove on the circom circuit" 0 "$TOOL" bellman g16_small.r1cs c.wtns "$RANDOM$RANDOM" bell
expect "noble verifies our bellperson-path proof" 0 $NOBLE bell/vk.json bell/public.json bell/proof.json
expect "snarkjs verifies our bellperson-path proof" 0 "$SNARKJS" groth16 verify bell/vk.json bell/public.json bell/proof.json
flip_public bell/public.json 2 bad_pub.json
expect "noble rejects it with a public input changed" 1 $NOBLE bell/vk.json bad_pub.json bell/proof.json
# proof with pi_a replaced by pi_c (valid points, wrong proof)
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("bell/proof.json"));p.pi_a=p.pi_c;
  fs.writeFileSync("bad_proof.json",JSON.stringify(p,null,1))'
expect "noble rejects a proof with A replaced by C" 1 $NOBLE bell/vk.json bell/public.json bad_proof.json
expect "our verifier rejects it too" 1 "$TOOL" verify bell/vk.json bell/public.json bad_proof.json

# ---------------- damaged zkeys ----------------
zk_bad() { # zk_bad DESC PATTERN FILE
    local rc=0
    "$TOOL" check "$3" >out.txt 2>err.txt || rc=$?
    if [ "$rc" = 2 ] && grep -q -- "$2" err.txt; then ok "$1: $(cat err.txt)"; else bad "$1: exit $rc, message: $(cat err.txt)"; fi
}
SZ=$(stat -c %s c.zkey)
head -c $((SZ - 7)) c.zkey >t.zkey; zk_bad "truncated zkey" "runs past the end\|header truncated" t.zkey
head -c 10 c.zkey >t.zkey; zk_bad "10-byte zkey" "offset 0" t.zkey
cp c.zkey t.zkey; printf 'xkey' | dd of=t.zkey conv=notrunc status=none; zk_bad "bad magic" "magic" t.zkey
# Our own zkey has sections in order: 1 at 24 (4 B), 2 at 40 (964 B), 3 (IC) at 1016.
"$TOOL" setup g16_small.r1cs own.zkey 5 >/dev/null
cp own.zkey t.zkey; printf '\x07' | dd of=t.zkey bs=1 seek=145 conv=notrunc status=none
zk_bad "alpha1 off the curve" "section 2: G1 point at offset 140" t.zkey
cp own.zkey t.zkey; printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of=t.zkey bs=1 seek=1056 conv=notrunc status=none
zk_bad "IC[0].x >= q" "section 3: Fp coordinate at offset 1016" t.zkey
cp own.zkey t.zkey; printf '\x02' | dd of=t.zkey bs=1 seek=24 conv=notrunc status=none
zk_bad "protocol 2 (plonk)" "not groth16" t.zkey
expect "our own zkey for the circom circuit: prove" 0 "$TOOL" prove own.zkey c.wtns own.json own_pub.json
"$TOOL" vkjson own.zkey own_vk.json
expect "snarkjs verifies the proof from our own zkey" 0 "$SNARKJS" groth16 verify own_vk.json own_pub.json own.json
fi

# ---------------- (b) generated 2^SIZE circuit, zkey from our own setup ----------------
N=$(((1 << SIZE) - 3))
node "$ORA/sq_circuit.mjs" $N sq >/dev/null
expect "our setup writes a 2^$SIZE zkey" 0 "$TOOL" setup sq.r1cs sq.zkey "$RANDOM$RANDOM"
"$SNARKJS" zkey export verificationkey sq.zkey sq_vk.json >/dev/null
expect "our prover, 2^$SIZE" 0 "$TOOL" prove sq.zkey sq.wtns sq_ours.json sq_pub.json
grep '^time' out.txt || true
expect "snarkjs verifies our 2^$SIZE proof" 0 "$SNARKJS" groth16 verify sq_vk.json sq_pub.json sq_ours.json
expect "noble verifies our 2^$SIZE proof" 0 $NOBLE sq_vk.json sq_pub.json sq_ours.json
R=$(rnd) S=$(rnd)
node "$ORA/snarkjs_prove_fixed.mjs" sq.zkey sq.wtns "$R" "$S" sq_sj.json sq_sj_pub.json >/dev/null
"$TOOL" prove sq.zkey sq.wtns sq_oursd.json sq_oursd_pub.json "$R" "$S" >/dev/null
same "2^$SIZE fixed r, s: our proof.json equals snarkjs's" sq_sj.json sq_oursd.json
same "2^$SIZE public.json equals snarkjs's" sq_sj_pub.json sq_oursd_pub.json
expect "our verifier accepts snarkjs's 2^$SIZE proof" 0 "$TOOL" zverify sq.zkey sq_sj_pub.json sq_sj.json

echo "time: $(($(date +%s) - t0)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
