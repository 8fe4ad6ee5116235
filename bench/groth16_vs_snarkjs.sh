#!/usr/bin/env bash
# Our CPU Groth16 against snarkjs 0.7.6 on the same circuit, in the same run: for each size 2^k the
# generated circuit t_i^2 = t_{i+1} - y (tests/oracles/sq_circuit.mjs, 2^k - 3 constraints, dense A/B so
# every MSM is full size), one .zkey from our setup, then
#   ours (zkey path)  : cz_tool_snarkjs prove (in-process wall + CPU time of the proof; zkey read apart)
#   ours (bellperson) : cz_tool_snarkjs bellman (setup.h + prover.h on the same r1cs; prove time only)
#   ours verify       : cz_tool_snarkjs verify on the JSON files (in-process)
#   snarkjs prove     : `snarkjs groth16 prove` CLI, wall / user+sys CPU from /usr/bin/time (incl. ~0.5 s
#                       start-up and zkey read, as a user sees it)
#   snarkjs verify    : `snarkjs groth16 verify` CLI likewise.
# Every proof is checked by `snarkjs groth16 verify`. Prints a markdown table.
# usage: bench/groth16_vs_snarkjs.sh BUILD_DIR [SIZES]      (default SIZES="12 16"; 20 takes ~10 min)
set -euo pipefail
BUILD=$(cd "$1" && pwd)
SIZES=${2:-12 16}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL=$BUILD/tests/cz_tool_snarkjs
ORA=$ROOT/tests/oracles
[ -x "$TOOL" ] || { echo "missing $TOOL"; exit 1; }
[ -d "$ORA/node_modules" ] || npm ci --prefix "$ORA" --no-audit --no-fund >/dev/null
SNARKJS=$ORA/node_modules/.bin/snarkjs
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
tm() { awk -v n="$1" '$1 == "time" && $2 == n { printf "%.2f / %.2f", $3, $4 }' "$2"; }
gnu() { /usr/bin/time -f "%e %U %S" -o t.txt "$@" >/dev/null 2>&1; awk '{ printf "%.2f / %.2f", $1, $2 + $3 }' t.txt; }
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
rows=()
for k in $SIZES; do
    N=$(((1 << k) - 3))
    node "$ORA/sq_circuit.mjs" $N sq >/dev/null
    "$TOOL" setup sq.r1cs sq.zkey 1 >setup.txt
    "$SNARKJS" zkey export verificationkey sq.zkey vk.json >/dev/null
    "$TOOL" prove sq.zkey sq.wtns ours.json pub.json >prove.txt
    "$SNARKJS" groth16 verify vk.json pub.json ours.json >/dev/null || { echo "snarkjs rejected our 2^$k proof"; exit 1; }
    "$TOOL" verify vk.json pub.json ours.json >verify.txt
    mkdir -p bell && "$TOOL" bellman sq.r1cs sq.wtns 2 bell >bell.txt
    "$SNARKJS" groth16 verify bell/vk.json bell/public.json bell/proof.json >/dev/null || { echo "snarkjs rejected the bellperson-path proof"; exit 1; }
    sp=$(gnu "$SNARKJS" groth16 prove sq.zkey sq.wtns sj.json sjpub.json)
    sv=$(gnu "$SNARKJS" groth16 verify vk.json sjpub.json sj.json)
    ours_w=$(awk '$1 == "time" && $2 == "prove" { print $3 }' prove.txt)
    sj_w=${sp%% /*}
    ratio=$(awk -v a="$sj_w" -v b="$ours_w" 'BEGIN { printf "%.1f", a / b }')
    rows+=("| 2^$k | $N | $(tm setup setup.txt) | $(tm zkey_read prove.txt) | $(tm prove prove.txt) | $(tm prove bell.txt) | $(tm verify verify.txt) | $sp | $sv | ${ratio}x |")
    echo "2^$k done"
done
echo
echo "wall s / CPU s (CPU = user + sys, all threads)"
echo "| domain | constraints | our setup (zkey) | our zkey read | our prove (zkey) | our prove (bellperson) | our verify | snarkjs prove (CLI) | snarkjs verify (CLI) | snarkjs/ours prove wall |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
