#!/usr/bin/env bash
# G1/G2 interop against @noble/curves (and @chainsafe/blst as a second decoder), both directions, on
# fresh random data each run: C writes cases that noble+blst check, noble writes cases that C checks.
# Usage: test_ec_noble.sh BUILD_DIR [N cases per category and group, default 300]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [N]}
n=${2:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
oracles=$here/oracles
tool=$build/tests/cz_tool_ec_vectors
[ -x "$tool" ] || { echo "missing $tool (build the project first)"; exit 1; }
if [ ! -d "$oracles/node_modules" ]; then
  npm ci --prefix "$oracles" --no-audit --no-fund >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== C -> noble/blst ($n per category)"
"$tool" gen "$n" >"$tmp/c.txt"
node "$oracles/ec_check.mjs" check <"$tmp/c.txt"

echo "== noble -> C ($n per category)"
node "$oracles/ec_check.mjs" gen "$n" >"$tmp/n.txt"
"$tool" check <"$tmp/n.txt"
