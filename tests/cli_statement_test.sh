#!/usr/bin/env bash
# What gstark verify says a proof proves, and pinning it: the AIR, shape,
# security (conjectured and provable), public inputs and statement digest are
# printed; --expect KEY=VALUE and --statement DIGEST fail (exit 1) on another
# statement; a proof of an AIR the CLI cannot rebuild is exit 2 "unknown AIR".
# usage: cli_statement_test.sh path/to/gstark path/to/test_cli_custom_air
H=$2
case $H in /*) ;; *) H=$PWD/$H ;; esac
. "$(dirname "$0")/cli_lib.sh"

expect 0 "prove fib" "$G" prove --air fib --log-rows 6 "${fast[@]}" -o "$D/fib.proof"
pdigest=$(sed -n 's/^  statement  \([0-9a-f]\{64\}\)$/\1/p' "$D/out")
check "prove prints a statement digest" ${#pdigest} = 64
expect 0 "verify fib" "$G" verify "$D/fib.proof"
cp "$D/out" "$D/v_fib"
has "$D/v_fib" "valid: fib, 2^6 rows x 2 columns" "verify names the AIR and the shape"
has "$D/v_fib" "80 bits (conjectured; " "the conjectured level"
has "$D/v_fib" " bits provable)" "the provable level"
has "$D/v_fib" "public     4 inputs [1, 1, " "the public inputs"
vdigest=$(sed -n 's/^  statement  \([0-9a-f]\{64\}\)$/\1/p' "$D/v_fib")
check "verify prints the digest prove printed" "$vdigest" = "$pdigest"
expect 0 "inspect fib" "$G" inspect "$D/fib.proof"
has "$D/out" "80 bits (conjectured; " "inspect prints the conjectured level"
has "$D/out" " bits provable)" "and the provable one"
has "$D/out" "$pdigest" "and the digest"
hasnt "$D/out" "capped at 160" "no stale 160-bit text"
pub2=$(sed -n 's/^  public     4 inputs \[1, 1, \([0-9]*\), [0-9]*\]$/\1/p' "$D/v_fib")
pub3=$(sed -n 's/^  public     4 inputs \[1, 1, [0-9]*, \([0-9]*\)\]$/\1/p' "$D/v_fib")
check "the third public input is a number" -n "$pub2"
check "the fourth public input is a number" -n "$pub3"

# The digest is the statement's: the same statement proven twice under the
# same parameters has the same digest; another height or other parameters
# give another.
expect 0 "prove fib again" "$G" prove --air fib --log-rows 6 "${fast[@]}" -o "$D/fib2.proof"
has "$D/out" "$pdigest" "the same statement gives the same digest"
expect 0 "prove fib 2^7" "$G" prove --air fib --log-rows 7 "${fast[@]}" -o "$D/fib7.proof"
hasnt "$D/out" "$pdigest" "another height gives another digest"
expect 0 "prove fib with other parameters" "$G" prove --air fib --log-rows 6 --grinding 6 --security 80 -o "$D/fibg.proof"
hasnt "$D/out" "$pdigest" "other parameters give another digest"

# ---- --statement ----
expect 0 "--statement with the right digest" "$G" verify --statement "$pdigest" "$D/fib.proof"
upper=$(printf '%s' "$pdigest" | tr a-f A-F)
expect 0 "--statement in upper case" "$G" verify "--statement=$upper" "$D/fib.proof"
expect 1 "--statement of another proof's statement" "$G" verify --statement "$pdigest" "$D/fib7.proof"
has "$D/err" "statement mismatch" "it says the statements differ"
check "nothing on stdout for a mismatch" ! -s "$D/out"
expect 2 "--statement malformed" "$G" verify --statement 1234 "$D/fib.proof"

# ---- --expect on a single-table proof ----
ok_keys=(air=fib tables=1 log-rows=6 cols=2 degree=1 "pub[0]=1" "pub[1]=0x1" "pub[2]=$pub2"
    "pub[3]=$pub3" "pub=1,1,$pub2,$pub3" "table[0].cols=2")
for e in "${ok_keys[@]}"; do
    expect 0 "--expect $e (holds)" "$G" verify --expect "$e" "$D/fib.proof"
done
expect 0 "several --expect at once" "$G" verify --expect air=fib --expect log-rows=6 --expect "pub[0]=1" "$D/fib.proof"
bad_keys=(air=mix tables=2 log-rows=7 cols=3 degree=2 "pub[0]=2" "pub[4]=1" "pub[3]=1" "pub=1,1" "seed=1"
    preset=vm "table[1].cols=2")
for e in "${bad_keys[@]}"; do
    expect 1 "--expect $e (does not hold)" "$G" verify --expect "$e" "$D/fib.proof"
    has "$D/err" "statement mismatch: expected $e" "it names the expectation"
done
expect 1 "one wrong --expect among right ones" "$G" verify --expect air=fib --expect log-rows=7 "$D/fib.proof"
expect 1 "--expect log-rows=6 on the 2^7 proof" "$G" verify --expect log-rows=6 "$D/fib7.proof"
for e in foo=1 air "pub[x]=1" "pub[0]=p" "pub[0]=18446744073709551615" "table[0].tables=1" log-rows=-1; do
    expect 2 "--expect $e (malformed)" "$G" verify --expect "$e" "$D/fib.proof"
done

# ---- mix: seed, degree, long public lists ----
expect 0 "prove mix" "$G" prove --air mix --cols 64 --degree 3 --seed 9 --log-rows 6 "${fast[@]}" -o "$D/mix.proof"
expect 0 "verify mix" "$G" verify "$D/mix.proof"
has "$D/out" "valid: mix cols=64 degree=3 log_n=6 seed=9, 2^6 rows x 64 columns" "verify names mix and its shape"
has "$D/out" "24 inputs [" "24 public inputs"
has "$D/out" "(24 values; -v prints all)" "cut when long"
expect 0 "verify -v mix" "$G" verify -v "$D/mix.proof"
hasnt "$D/out" "..." "-v prints them all"
expect 0 "--expect seed=9 degree=3 cols=64 air=mix" "$G" verify --expect seed=9 --expect degree=3 --expect cols=64 --expect air=mix "$D/mix.proof"
expect 1 "--expect seed=1 on a seed-9 proof" "$G" verify --expect seed=1 "$D/mix.proof"

# ---- multi-table ----
expect 0 "prove synth vm" "$G" prove --air synth --preset vm --shrink 12 "${fast[@]}" -o "$D/vm.proof"
expect 0 "verify synth vm" "$G" verify "$D/vm.proof"
cp "$D/out" "$D/v_vm"
has "$D/v_vm" "valid: synth preset=vm shrink=12, 8 tables" "verify names the preset and the tables"
has "$D/v_vm" "table 7" "and lists every table"
mdigest=$(sed -n 's/^  statement  \([0-9a-f]\{64\}\)$/\1/p' "$D/v_vm")
check "a multi-table digest" ${#mdigest} = 64
tpub=$(sed -n 's/^  table 0 .*public \[\([0-9]*\)\]$/\1/p' "$D/v_vm")
check "table 0 has a public input" -n "$tpub"
for e in air=synth preset=vm shrink=12 tables=8 "table[4].cols=400" "table[0].pub[0]=$tpub" "table[1].pub="; do
    expect 0 "--expect $e (holds)" "$G" verify --expect "$e" "$D/vm.proof"
done
expect 0 "--statement (multi)" "$G" verify --statement "$mdigest" "$D/vm.proof"
for e in preset=skew shrink=11 tables=7 "table[4].cols=401" "table[0].pub[0]=1" "table[8].cols=1"; do
    expect 1 "--expect $e (does not hold)" "$G" verify --expect "$e" "$D/vm.proof"
done
expect 1 "--statement of the fib statement on the vm proof" "$G" verify --statement "$pdigest" "$D/vm.proof"
expect 2 "--expect cols=48 on a multi-table proof needs table[T]." "$G" verify --expect cols=48 "$D/vm.proof"
has "$D/err" "table[T]." "it says how to name the table"

# ---- AIRs the CLI cannot rebuild ----
expect 0 "the helper's own check of its proofs" "$H"
"$H" single "$D/custom.proof" && "$H" multi "$D/custom_multi.proof" && "$H" misnamed "$D/misnamed.proof"
check "the helper wrote its proofs" -s "$D/misnamed.proof"
expect 0 "inspect the custom proof" "$G" inspect "$D/custom.proof"
fp=$(sed -n 's/^  air         \([0-9a-f]\{64\}\)$/\1/p' "$D/out")
check "inspect shows its fingerprint" ${#fp} = 64
expect 2 "verify a proof of a custom AIR" "$G" verify "$D/custom.proof"
has "$D/err" "unknown AIR $fp: verify it with the library (see docs/air-guide.md)" "unknown AIR, its fingerprint and the way forward"
hasnt "$D/all" "invalid" "not reported invalid"
expect 2 "verify a multi-table proof of custom AIRs" "$G" verify "$D/custom_multi.proof"
has "$D/err" "table 0: unknown AIR " "the first unknown table is named"
expect 2 "verify --json of a custom AIR (no verdict)" "$G" verify --json "$D/custom.proof"
check "no JSON verdict for an unknown AIR" ! -s "$D/out"
# A fib proof whose description names another AIR: the fingerprint decides.
expect 0 "verify a fib proof described as 'sqchain'" "$G" verify "$D/misnamed.proof"
has "$D/out" "valid: fib (described as 'sqchain log_n=6')" "it says what was verified"
expect 0 "--expect air=fib on it" "$G" verify --expect air=fib "$D/misnamed.proof"
# A mix proof of 2^10 rows described as (and made with) the mix AIR of 2^8
# rows: its "middle" publics are row 128's. The description's height must be
# the table's (found by review, 2026-12-04: it verified as "log_n=8").
"$H" mixheight "$D/mixheight.proof"
check "the helper wrote the mix proof" -s "$D/mixheight.proof"
expect 2 "verify a 2^10-row mix proof described as log_n=8" "$G" verify "$D/mixheight.proof"
hasnt "$D/out" "valid:" "not reported valid"
# --expect numbers are decimal or 0x hex, never octal ("010" was 8)
expect 0 "prove fib 2^8" "$G" prove --air fib --log-rows 8 "${fast[@]}" -o "$D/fib8.proof"
expect 1 "--expect log-rows=010 on a 2^8 proof: ten, not octal eight" "$G" verify --expect log-rows=010 "$D/fib8.proof"
expect 0 "--expect log-rows=0x8 holds" "$G" verify --expect log-rows=0x8 "$D/fib8.proof"
exit $fail
