#!/usr/bin/env bash
# Fuzzes the proof parsers and verifiers for N seconds in all, split between
# two targets: tests/fuzz/fuzz_proof.c (version-1 and 3 files, the Fibonacci AIR)
# and tests/fuzz/fuzz_multi.c (version-2 and 3 multi-table files, the statement of
# tests/fuzz/multi_stmt.h); a tenth of the time (2..10 s) goes first to
# tests/fuzz/fuzz_elf.c (the zkVM's ELF loader and executor).
#
#   tests/fuzz/run.sh [seconds]      default 60 (half each, at least 1 s each)
#
# Configures a clang build with GS_FUZZ=ON in build-fuzz/ (GS_FUZZ_BUILD
# overrides), seeds build-fuzz/corpus (version 1) and build-fuzz/corpus-multi
# (version 2) with the golden proofs and a few small valid proofs, runs
# libFuzzer on each and exits non-zero on any finding of either (the crashing
# input is left in build-fuzz/artifacts/). The corpora are kept between runs.
# Needs clang with its libFuzzer runtime; on Debian, libclang-rt-<ver>-dev is
# installed with apt-get if -fsanitize=fuzzer cannot link and it is missing.
set -euo pipefail

secs=${1:-60}
case "$secs" in '' | *[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${GS_FUZZ_BUILD:-$root/build-fuzz}

# ---- clang and its fuzzer runtime ----
cc=""
for c in ${CC_FUZZ:-} clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null 2>&1; then cc=$(command -v "$c"); break; fi
done
if [ -z "$cc" ]; then
    echo "fuzz: no clang found (install clang, e.g. apt-get install clang-14 libclang-rt-14-dev)" >&2
    exit 1
fi
probe_dir=$(mktemp -d)
trap 'rm -rf "$probe_dir"' EXIT
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
    >"$probe_dir/probe.c"
probe() { "$cc" -fsanitize=fuzzer,address,undefined "$probe_dir/probe.c" -o "$probe_dir/probe" 2>"$probe_dir/err"; }
if ! probe; then
    ver=$("$cc" -dumpversion | cut -d. -f1)
    pkg="libclang-rt-${ver}-dev"
    if command -v dpkg-query >/dev/null 2>&1 &&
        ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        echo "fuzz: -fsanitize=fuzzer does not link; installing $pkg"
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO="sudo"
        $SUDO apt-get update -q
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "$pkg"
    fi
    if ! probe; then
        echo "fuzz: $cc cannot link -fsanitize=fuzzer:" >&2
        cat "$probe_dir/err" >&2
        exit 1
    fi
fi
echo "fuzz: $("$cc" --version | head -n1)"

# ---- build ----
# Warnings are not errors here: the main build enforces them, and clang may
# warn where the project compiler does not.
CC="$cc" cmake -S "$root" -B "$build" -DGS_FUZZ=ON -DGS_CUDA=OFF -DGS_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" \
    --target fuzz_proof fuzz_multi fuzz_elf test_proof_format test_proof_format_multi test_proof_format_v3 test_shared_fri \
        test_zkvm_exec >/dev/null

# ---- corpora ----
corpus="$build/corpus"
corpus_multi="$build/corpus-multi"
mkdir -p "$corpus" "$corpus_multi" "$build/artifacts"
cp "$root/tests/golden/fib_small.proof" "$corpus/golden_fib_small.proof"
"$build/test_proof_format" --write-seeds "$corpus" >/dev/null
cp "$root/tests/golden/multi_small.proof" "$corpus_multi/golden_multi_small.proof"
"$build/test_proof_format_multi" --write-seeds "$corpus_multi" >/dev/null
"$build/test_proof_format_v3" --write-seeds "$corpus" "$corpus_multi" >/dev/null
"$build/test_shared_fri" --write-seeds "$corpus_multi" >/dev/null
corpus_elf="$build/corpus-elf"
mkdir -p "$corpus_elf"
for k in 1 2 3 4 5 6 7 8 echo fault loop exit3; do
    "$build/test_zkvm_exec" --write-elf "$k" "$corpus_elf/seed_$k.elf" >/dev/null
done

# ---- run ----
elf_secs=$((secs / 10))
[ "$elf_secs" -ge 2 ] || elf_secs=2
[ "$elf_secs" -le 10 ] || elf_secs=10
[ "$secs" -gt $((elf_secs + 2)) ] && secs=$((secs - elf_secs))
half=$((secs / 2))
[ "$half" -ge 1 ] || half=1
rest=$((secs - half))
[ "$rest" -ge 1 ] || rest=1
fuzz() { # target seconds corpus dict
    echo "fuzz: $1 for ${2}s, corpus $3 ($(ls "$3" | wc -l) files)"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$build/$1" -max_total_time="$2" -print_final_stats=1 \
        -malloc_limit_mb=64 -rss_limit_mb=2048 -timeout=10 \
        -dict="$4" -artifact_prefix="$build/artifacts/$1-" "$3"
}
status=0
fuzz fuzz_elf "$elf_secs" "$corpus_elf" "$root/tests/fuzz/elf.dict" || status=1
fuzz fuzz_proof "$half" "$corpus" "$root/tests/fuzz/proof.dict" || status=1
fuzz fuzz_multi "$rest" "$corpus_multi" "$root/tests/fuzz/multi.dict" || status=1
if [ "$status" -ne 0 ]; then
    echo "fuzz: FINDINGS (inputs in $build/artifacts/)" >&2
else
    echo "fuzz: no findings"
fi
exit "$status"
