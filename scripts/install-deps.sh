#!/usr/bin/env bash
# Installs the Debian packages gstark's build needs, only those missing.
# CUDA (nvcc) is optional and never installed here: the build detects it.
set -euo pipefail
need=(cmake make gcc libssl-dev pkg-config libcjson-dev)
missing=()
for p in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# tests/security_ref.py (CTest) needs a python3; any one on PATH will do.
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
