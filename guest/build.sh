#!/usr/bin/env bash
# Builds a C program for the gstark zkVM: RV32IM, ilp32, picolibc, the kit's
# start file (crt0.S) and linker script (gstark.ld).
#
#   guest/build.sh [-o OUT.elf] [-O LEVEL] SOURCE.c... [-- EXTRA GCC ARGS]
#
# OUT defaults to the first source's name with .elf. Needs Debian's
# gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf
# (scripts/install-deps.sh); exits 77 with a message when they are absent, so
# a test can skip. Override the compiler with GS_GUEST_CC.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cc=${GS_GUEST_CC:-riscv64-unknown-elf-gcc}
specs=/usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs
out="" opt=-O2 srcs=() extra=()
usage() { echo "usage: $0 [-o OUT.elf] [-O LEVEL] SOURCE.c... [-- GCC ARGS]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    -o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -O) [ $# -ge 2 ] || usage; opt=-O$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) srcs+=("$1"); shift ;;
    esac
done
[ ${#srcs[@]} -gt 0 ] || usage
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "guest/build.sh: $cc not found (install gcc-riscv64-unknown-elf: scripts/install-deps.sh)" >&2
    exit 77
fi
if [ ! -f "$specs" ]; then
    echo "guest/build.sh: picolibc not found at $specs (install picolibc-riscv64-unknown-elf)" >&2
    exit 77
fi
[ -n "$out" ] || out="${srcs[0]%.c}.elf"
# -mstrict-align: the machine refuses misaligned accesses, so the compiler
# must not count on them. -mno-relax is not needed: crt0 sets gp.
"$cc" -march=rv32im -mabi=ilp32 -mstrict-align -specs="$specs" "$opt" -g0 \
    -ffunction-sections -fdata-sections -fno-common -Wall -Wextra \
    -nostartfiles -static -T "$here/gstark.ld" -Wl,--gc-sections -Wl,-z,noexecstack \
    -I "$here/include" "$here/crt0.S" "${srcs[@]}" ${extra[@]+"${extra[@]}"} -o "$out"
