#!/bin/sh
# Proof bytes over Merkle cap heights (docs/benchmarks.md, "Merkle caps").
#   bench/caps_sizes.sh [GSTARK] [MAX_H] [VM_SHRINK]
# For cap heights 0..MAX_H (default 6): fib 2^20 and synth vm (shrink
# VM_SHRINK, default 0), 128-bit defaults (blowup 4, fold by 8, final degree
# < 256, 54 queries, 20 grinding bits), Keccak-256; prints one markdown row
# per height with the file's bytes and, from `gstark inspect --json`, the
# commitments' bytes. Each proof is verified. Proof bytes are deterministic.
set -eu
g=${1:-./build/gstark}
max=${2:-6}
shrink=${3:-0}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| cap height | fib 2^20 bytes | synth vm /%s bytes |\n| --- | --- | --- |\n' "$shrink"
h=0
while [ "$h" -le "$max" ]; do
    "$g" prove --air fib --log-rows 20 --cap-height "$h" -q -o "$dir/f.proof"
    "$g" verify -q "$dir/f.proof"
    "$g" prove --air synth --preset vm --shrink "$shrink" --cap-height "$h" -q -o "$dir/v.proof"
    "$g" verify -q "$dir/v.proof"
    printf '| %s | %s | %s |\n' "$h" "$(wc -c < "$dir/f.proof" | tr -d ' ')" \
        "$(wc -c < "$dir/v.proof" | tr -d ' ')"
    h=$((h + 1))
done
