#!/bin/sh
# Proof bytes with one FRI per table against one shared FRI (docs/benchmarks.md,
# "One FRI for many tables").
#   bench/shared_fri_sizes.sh [GSTARK] [SHRINK] [PRESETS...]
# For each synth preset (default: vm skew uniform) at SHRINK (default 0),
# 128-bit defaults (blowup 4, fold by 8, final degree < 256, 54 queries, 20
# grinding bits): one markdown row with the per-table and shared files' bytes
# and the change. Each proof is verified. Proof bytes are deterministic.
set -eu
g=${1:-./build/gstark}
shrink=${2:-0}
[ $# -ge 2 ] && shift 2 || shift $#
presets=${*:-vm skew uniform}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '| synth preset /%s | per-table FRI | shared FRI | change |\n| --- | ---: | ---: | ---: |\n' "$shrink"
for p in $presets; do
    "$g" prove --air synth --preset "$p" --shrink "$shrink" -q -o "$dir/a.proof"
    "$g" verify -q "$dir/a.proof"
    "$g" prove --air synth --preset "$p" --shrink "$shrink" --shared-fri -q -o "$dir/b.proof"
    "$g" verify -q "$dir/b.proof"
    a=$(wc -c < "$dir/a.proof" | tr -d ' ')
    b=$(wc -c < "$dir/b.proof" | tr -d ' ')
    printf '| %s | %s | %s | %s%% |\n' "$p" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", 100 * (b - a) / a }')"
done
