#!/usr/bin/env bash
# The gstark command end to end: prove, verify, inspect; exit codes 0 (valid),
# 1 (invalid), 2 (usage, parameter or I/O error), 3 (prover failure); no
# partial proof file on any failure. Options, help and exit codes in depth:
# cli_options_test.sh; output files: cli_output_test.sh; statements:
# cli_statement_test.sh.
# usage: cli_test.sh path/to/gstark
set -u
G=$1
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0
expect() { # expect CODE description command...
    local want=$1 what=$2
    shift 2
    "$@" >"$D/out" 2>&1
    local got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"; cat "$D/out"; fail=1
    else
        echo "ok: $what (exit $got)"
    fi
}
fast=(--grinding 4 --security 80)
expect 0 "prove fib" "$G" prove --air fib --log-rows 6 "${fast[@]}" -o "$D/fib.proof"
expect 0 "verify fib" "$G" verify "$D/fib.proof"
expect 0 "inspect fib" "$G" inspect "$D/fib.proof"
grep -q "80 bits" "$D/out" || { echo "FAIL: inspect does not show the security level"; fail=1; }
# Coset leaves by default (2^10 rows, final degree 256: one layer folding by 4, 4 rows a
# leaf); --no-coset-leaves, --shared-fri with them, and the two verify as different statements.
expect 0 "prove fib 2^10" "$G" prove --air fib --log-rows 10 "${fast[@]}" -o "$D/fib10.proof"
expect 0 "inspect fib 2^10" "$G" inspect "$D/fib10.proof"
grep -q "coset leaves" "$D/out" && grep -q "4 LDE rows a leaf" "$D/out" || { echo "FAIL: inspect does not show the coset leaves"; fail=1; }
expect 0 "prove fib without coset leaves" "$G" prove --air fib --log-rows 10 "${fast[@]}" --no-coset-leaves -o "$D/fib0.proof"
expect 0 "inspect fib without coset leaves" "$G" inspect "$D/fib0.proof"
! grep -q "coset leaves\|LDE rows a leaf" "$D/out" || { echo "FAIL: inspect shows coset leaves that are not there"; fail=1; }
expect 0 "verify fib without coset leaves" "$G" verify "$D/fib0.proof"
expect 1 "fib without coset leaves against the default's statement" "$G" verify "$D/fib0.proof" --statement "$("$G" inspect --json "$D/fib10.proof" | sed 's/.*"statement":"\([0-9a-f]*\)".*/\1/')"
expect 2 "--coset-leaves with --shared-fri" "$G" prove --air synth --preset vm --shrink 12 "${fast[@]}" --coset-leaves --shared-fri -o "$D/x.proof"
# One tree per round: smaller than the shared FRI alone, verifies, named by inspect; no caps.
expect 0 "prove synth vm with one FRI" "$G" prove --air synth --preset vm --shrink 10 "${fast[@]}" --shared-fri -o "$D/vmf.proof"
expect 0 "prove synth vm with shared trees" "$G" prove --air synth --preset vm --shrink 10 "${fast[@]}" --shared-trees -o "$D/vmt.proof"
[ "$(wc -c <"$D/vmt.proof")" -lt "$(wc -c <"$D/vmf.proof")" ] || { echo "FAIL: shared trees are not smaller than the shared FRI"; fail=1; }
expect 0 "verify the shared-trees proof" "$G" verify "$D/vmt.proof"
expect 0 "inspect the shared-trees proof" "$G" inspect "$D/vmt.proof"
grep -q "one tree per round" "$D/out" || { echo "FAIL: inspect does not name the shared trees"; fail=1; }
expect 2 "--shared-trees with --cap-height" "$G" prove --air synth --preset vm --shrink 12 "${fast[@]}" --shared-trees --cap-height 2 -o "$D/x.proof"
[ -e "$D/x.proof" ] && { echo "FAIL: a refused --shared-trees left a file"; fail=1; }
expect 2 "--shared-trees on one table" "$G" prove --air fib --log-rows 6 "${fast[@]}" --shared-trees -o "$D/x.proof"
expect 0 "prove mix" "$G" prove --air mix --cols 9 --degree 5 --blowup 4 --log-rows 5 "${fast[@]}" -o "$D/mix.proof"
expect 0 "verify mix" "$G" verify "$D/mix.proof"
expect 1 "verify mix asking for 128 bits" "$G" verify "$D/mix.proof" --min-security 128
expect 0 "prove synth vm" "$G" prove --air synth --preset vm --shrink 12 "${fast[@]}" -o "$D/vm.proof"
expect 0 "verify synth vm" "$G" verify "$D/vm.proof"
expect 0 "inspect synth vm" "$G" inspect "$D/vm.proof"
grep -q "table=7" "$D/out" || { echo "FAIL: inspect does not list the tables"; fail=1; }
expect 0 "prove synth skew" "$G" prove --air synth --preset skew --shrink 14 "${fast[@]}" -o "$D/skew.proof"
expect 0 "verify synth skew" "$G" verify "$D/skew.proof"
expect 0 "prove synth with 2 tables at once, a small budget, report and metrics" "$G" prove --air synth --preset uniform --shrink 12 "${fast[@]}" --tables-parallel 2 --mem-budget 1M --report --metrics "$D/m.jsonl" -o "$D/u.proof"
grep -q "timing report" "$D/out" || { echo "FAIL: no timing report"; fail=1; }
[ "$(grep -c '"phase":"chain"' "$D/m.jsonl")" = 8 ] || { echo "FAIL: metrics do not hold one chain line per table"; fail=1; }
expect 0 "verify it" "$G" verify "$D/u.proof"
expect 2 "a bad --mem-budget" "$G" prove --air synth --mem-budget 12Q -o "$D/x.proof"
expect 2 "an unknown --backend" "$G" prove --air fib --backend tpu -o "$D/x.proof"
expect 2 "a bad --device-mem-budget" "$G" prove --air fib --backend auto --device-mem-budget lots -o "$D/x.proof"
expect 0 "prove fib on the CPU backend" "$G" prove --air fib --log-rows 6 "${fast[@]}" --backend cpu -o "$D/fib_cpu.proof"
cmp -s "$D/fib.proof" "$D/fib_cpu.proof" || { echo "FAIL: --backend cpu and the default (auto) gave different proofs"; fail=1; }
if [ "$("$G" version | grep -c '0 device')" = 1 ]; then
    expect 2 "--backend cuda without a device" "$G" prove --air fib --backend cuda -o "$D/x.proof"
    [ -e "$D/x.proof" ] && { echo "FAIL: --backend cuda without a device left a file"; fail=1; }
fi
expect 2 "prove an unknown preset" "$G" prove --air synth --preset nope -o "$D/x.proof"
head -c 3000 "$D/vm.proof" >"$D/vm_short.proof"
expect 1 "verify a truncated multi-table proof" "$G" verify "$D/vm_short.proof"
# A flipped byte deep inside the proof: invalid, exit 1.
cp "$D/fib.proof" "$D/bad.proof"
size=$(stat -c %s "$D/bad.proof")
off=$((size / 2))
orig=$(od -An -tu1 -j "$off" -N1 "$D/bad.proof" | tr -d ' ')
printf "$(printf '\\%03o' $(( (orig ^ 1) & 255 )))" | dd of="$D/bad.proof" bs=1 seek="$off" conv=notrunc status=none
expect 1 "verify a flipped proof" "$G" verify "$D/bad.proof"
head -c 100 "$D/fib.proof" >"$D/short.proof"
expect 1 "verify a truncated proof" "$G" verify "$D/short.proof"
expect 2 "verify a missing file" "$G" verify "$D/nope.proof"
expect 2 "verify without a file" "$G" verify
expect 2 "unknown command" "$G" frobnicate
expect 2 "prove without -o" "$G" prove --air fib
expect 2 "prove with a bad option value" "$G" prove --air fib --log-rows 99 -o "$D/x.proof"
expect 2 "prove an unknown AIR" "$G" prove --air nope -o "$D/x.proof"
# Degree 5 with blowup 2 is refused cleanly (a parameter error, before
# proving), and leaves no file behind.
expect 2 "prove a degree above blowup + 1" "$G" prove --air mix --degree 5 --blowup 2 --log-rows 4 "${fast[@]}" -o "$D/deg.proof"
[ ! -e "$D/deg.proof" ] || { echo "FAIL: a refused proof left a file"; fail=1; }
expect 2 "prove into a missing directory" "$G" prove --air fib --log-rows 4 "${fast[@]}" -o "$D/no/such/dir/p.proof"
leftovers=$(find "$D" -name '*.tmp.*' | wc -l)
[ "$leftovers" = 0 ] || { echo "FAIL: temporary files left behind"; fail=1; }
exit $fail
