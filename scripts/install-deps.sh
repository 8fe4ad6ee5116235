#!/usr/bin/env bash
# Installs what building and testing cuzk needs, only where it is missing, so a re-run on a ready
# machine touches neither apt nor npm. Used by scripts/test.sh and scripts/demo.sh.
#   bash scripts/install-deps.sh            system packages + npm test oracles (tests/oracles)
#   bash scripts/install-deps.sh --no-npm   system packages only (enough to build and run the demo)
# On a fresh Debian 12 this needs root (or sudo) and network access for apt and npm.
set -euo pipefail
cd "$(dirname "$0")/.."

want_npm=1
for arg in "$@"; do
    case "$arg" in
    --no-npm) want_npm=0 ;;
    *) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

missing=()
have() { command -v "$1" >/dev/null 2>&1; }
for tool in cmake gcc g++ make pkg-config; do
    have "$tool" || missing+=("$tool")
done
# GMP is the big-integer oracle of the field tests: check the header the compiler will see.
if ! have gcc || ! echo '#include <gmp.h>' | gcc -E -x c - >/dev/null 2>&1; then missing+=(libgmp-dev); fi
# The daemon and its e2e tests: gRPC core, protobuf-c, jansson, libmicrohttpd, python3-grpcio, promtool
# (one Debian package a line in scripts/deps-server.txt).
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
while read -r pkg; do
    [ -n "$pkg" ] && [ "${pkg#\#}" = "$pkg" ] || continue
    installed "$pkg" || missing+=("$pkg")
done <scripts/deps-server.txt
if [ "$want_npm" = 1 ]; then
    have node || missing+=(nodejs)
    have npm || missing+=(npm)
fi

if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    sudo=()
    if [ "$(id -u)" != 0 ]; then
        if have sudo; then sudo=(sudo); else
            echo "install-deps: missing ${missing[*]}; run as root or install them (apt-get install ${missing[*]})" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" ca-certificates
else
    echo "install-deps: system packages present"
fi

if [ "$want_npm" = 1 ]; then
    # npm ci wipes node_modules, so run it only when the lock file changed since the last install.
    lock=tests/oracles/package-lock.json
    stamp=tests/oracles/node_modules/.cz-lock-sha256
    sum=$(sha256sum "$lock" | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
        echo "install-deps: npm oracles present (tests/oracles/node_modules)"
    else
        echo "install-deps: npm ci --prefix tests/oracles"
        npm ci --prefix tests/oracles --no-audit --no-fund --loglevel=error
        echo "$sum" >"$stamp"
    fi
    # @noble/curves 2.x asks for node >= 20; Debian 12 ships 18, which lacks the global WebCrypto
    # object unless a flag turns it on.
    major=$(node -p 'process.versions.node.split(".")[0]')
    if [ "$major" -lt 20 ]; then
        echo "install-deps: warning: node $(node --version) is older than the oracles ask for (20);" \
            "scripts/test.sh runs it with --experimental-global-webcrypto" >&2
    fi
fi
