#!/usr/bin/env bash
# Pairing values against @noble/curves (single pairings on fresh random points, batches of 4 against
# pairingBatch, infinity). $1 = build directory.
set -euo pipefail
build=${1:?usage: test_pairing_noble.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
oracles="$here/../oracles"
if [ ! -d "$oracles/node_modules/@noble/curves" ]; then
  npm ci --prefix "$oracles" --no-audit --no-fund >/dev/null
fi
tool="$build/tests/cz_tool_pairing_vectors"
[ -x "$tool" ] || { echo "missing $tool (build the tests first)"; exit 1; }
node "$oracles/pairing_check.mjs" "$tool" 40 6
