#!/usr/bin/env bash
# Installs the Debian packages gstark's build needs, only those missing.
# CUDA (nvcc) is optional and never installed here: the build detects it.
set -euo pipefail
need=(cmake make gcc libssl-dev pkg-config libcjson-dev)
# The zkVM's guest kit (guest/build.sh) cross-compiles RV32IM programs with
# riscv64-unknown-elf-gcc and picolibc; its tests cross-check them under
# qemu-riscv32 (qemu-user). Only guest builds and those tests need them; the
# tests skip where they are absent.
need+=(gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-user)
# scripts/bench-compare and scripts/bench-plot (and their CTest test,
# test_bench_stats) use SciPy and matplotlib from Debian's own
# /usr/bin/python3: a pyenv or venv python3 first on PATH may lack them, so
# the scripts name /usr/bin/python3. (Until 2026-12-04 this line came after
# the check below, so they were never installed and that test always
# skipped.)
need+=(python3-scipy python3-matplotlib)
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
