#!/usr/bin/env bash
# gstark's options, help and exit codes: every option form gives the same
# proof; per-command help on stdout with exit 0; an unknown option is one
# line and a hint; options that do not apply to the AIR are errors; exit
# codes 0 / 1 / 2 / 3; security caps, the grinding bound; --quiet, --json and
# the progress line (on a terminal only).
# usage: cli_options_test.sh path/to/gstark
. "$(dirname "$0")/cli_lib.sh"

# ---- option forms: the same proof bytes from each spelling ----
expect 0 "--opt value, -o FILE" "$G" prove --air fib --log-rows 6 --grinding 4 --security 80 -o "$D/a.proof"
expect 0 "--opt=value, -oFILE" "$G" prove --air=fib --log-rows=6 --grinding=4 --security=80 "-o$D/b.proof"
expect 0 "--output FILE, options in another order" "$G" prove --security 80 --output "$D/c.proof" --grinding 4 --log-rows 6
expect 0 "--output=FILE, a unique prefix (--log-r)" "$G" prove --log-r 6 "${fast[@]}" "--output=$D/d.proof"
for x in b c d; do
    check "form $x gives the same proof bytes" -s "$D/$x.proof"
    cmp -s "$D/a.proof" "$D/$x.proof" || { echo "FAIL: proof $x differs from a"; fail=1; }
done
expect 0 "verify --min-security=80 FILE" "$G" verify --min-security=80 "$D/a.proof"
expect 0 "verify FILE --min-security 80 (options after the file)" "$G" verify "$D/a.proof" --min-security 80
expect 0 "verify --expect=air=fib" "$G" verify "--expect=air=fib" "$D/a.proof"
expect 0 "verify -- FILE" "$G" verify -- "$D/a.proof"
expect 2 "an ambiguous prefix (--se: --security or --seed)" "$G" prove --se 80 -o "$D/x.proof"
has "$D/err" "ambiguous option '--se'" "it says the prefix is ambiguous"

# ---- --start: fib's first row (a batch manifest's workload.start) ----
expect 0 "prove --start 1,1 (the default)" "$G" prove --air fib --log-rows 6 --grinding 4 --security 80 --start 1,1 -o "$D/s11.proof"
cmp -s "$D/a.proof" "$D/s11.proof" || { echo "FAIL: --start 1,1 differs from the default"; fail=1; }
expect 0 "prove --start 3,4" "$G" prove --air fib --log-rows 6 --grinding 4 --security 80 --start 3,4 -o "$D/s34.proof"
expect 0 "verify a proof from --start 3,4" "$G" verify "$D/s34.proof"
cmp -s "$D/a.proof" "$D/s34.proof" && { echo "FAIL: --start 3,4 gives the default's proof"; fail=1; }
for bad in 3 3,4,5 18446744069414584321,1 -1,2 3, x,1; do
    expect 2 "--start $bad is a usage error" "$G" prove --air fib --log-rows 6 --start "$bad" -o "$D/x.proof"
    has "$D/err" "--start needs" "it says what --start takes"
    check "no proof file" ! -e "$D/x.proof"
done

# ---- --hash: the proof's hash, read back by verify and inspect ----
expect 0 "prove --hash poseidon2" "$G" prove --air fib --log-rows 6 "${fast[@]}" --hash poseidon2 -o "$D/p2.proof"
has "$D/out" "hash       poseidon2" "prove says the hash"
expect 0 "verify a Poseidon2 proof" "$G" verify "$D/p2.proof"
has "$D/out" "hash       poseidon2" "verify says the hash"
expect 0 "inspect a Poseidon2 proof" "$G" inspect "$D/p2.proof"
has "$D/out" "hash        poseidon2" "inspect says the hash"
expect 0 "inspect --json a Poseidon2 proof" "$G" inspect --json "$D/p2.proof"
has "$D/out" '"hash":"poseidon2"' "inspect --json has params.hash"
expect 0 "prove --hash keccak (the default)" "$G" prove --air fib --log-rows 6 "${fast[@]}" --hash keccak -o "$D/k.proof"
cmp -s "$D/a.proof" "$D/k.proof" || { echo "FAIL: --hash keccak differs from the default"; fail=1; }
cmp -s "$D/a.proof" "$D/p2.proof" && { echo "FAIL: --hash poseidon2 gives the Keccak proof"; fail=1; }
expect 0 "verify a Keccak proof says so" "$G" verify "$D/a.proof"
has "$D/out" "hash       keccak256" "verify says keccak256"
expect 2 "--hash sha256 is a usage error" "$G" prove --air fib --log-rows 6 "${fast[@]}" --hash sha256 -o "$D/x.proof"
has "$D/err" "--hash is keccak or poseidon2" "it names the choices"

# ---- --cap-height: Merkle caps, read back by verify and inspect ----
expect 0 "prove --cap-height 3" "$G" prove --air fib --log-rows 6 "${fast[@]}" --cap-height 3 -o "$D/c3.proof"
expect 0 "verify a capped proof" "$G" verify "$D/c3.proof"
expect 0 "inspect a capped proof" "$G" inspect "$D/c3.proof"
has "$D/out" "cap height 3" "inspect says the cap height"
expect 0 "inspect --json a capped proof" "$G" inspect --json "$D/c3.proof"
has "$D/out" '"cap_height":3' "inspect --json has params.cap_height"
expect 0 "prove --cap-height 0 (the default)" "$G" prove --air fib --log-rows 6 "${fast[@]}" --cap-height 0 -o "$D/c0.proof"
cmp -s "$D/a.proof" "$D/c0.proof" || { echo "FAIL: --cap-height 0 differs from the default"; fail=1; }
cmp -s "$D/a.proof" "$D/c3.proof" && { echo "FAIL: --cap-height 3 gives the uncapped proof"; fail=1; }
expect 2 "--cap-height 11 is a usage error" "$G" prove --air fib --log-rows 6 "${fast[@]}" --cap-height 11 -o "$D/x.proof"
has "$D/err" "--cap-height needs an integer in 0..10" "it names the range"

# ---- --provable-security: parameters chosen for the statement, the level printed ----
expect 0 "prove --provable-security 90" "$G" prove --air fib --log-rows 8 --grinding 4 --provable-security 90 -o "$D/pv.proof"
level=$(sed -n 's/.*; \([0-9]*\) bits provable).*/\1/p' "$D/out" | head -1)
[ -n "$level" ] && [ "$level" -ge 90 ] || { echo "FAIL: --provable-security 90 gave '$level' bits provable"; fail=1; }
expect 0 "verify it" "$G" verify "$D/pv.proof"
expect 0 "--provable-security 90 --blowup 4 keeps the blowup" "$G" prove --air fib --log-rows 8 --grinding 4 --provable-security 90 --blowup 4 -o "$D/pv4.proof"
has "$D/out" "blowup 4," "the blowup asked for"
expect 2 "--provable-security with --security" "$G" prove --air fib --log-rows 8 --provable-security 90 --security 100 -o "$D/x.proof"
has "$D/err" "not with --security" "it names the conflict"
expect 2 "--provable-security 129" "$G" prove --air fib --log-rows 8 --provable-security 129 -o "$D/x.proof"

# ---- help ----
expect 0 "gstark help" "$G" help
for w in prove verify inspect demo version "exit codes" "gstark help COMMAND" "conjectured"; do
    has "$D/out" "$w" "gstark help mentions '$w'"
done
for code in "  0  success" "  1  verify" "  2  usage" "  3  prove"; do
    has "$D/out" "$code" "gstark help documents exit code '$code'"
done
hasnt "$D/out" "160" "no stale 160-bit cap in gstark help"
check "gstark help prints nothing on stderr" ! -s "$D/err"
expect 0 "gstark --help" "$G" --help
expect 0 "gstark -h" "$G" -h
for c in prove verify inspect demo version help; do
    expect 0 "gstark help $c" "$G" help "$c"
    cp "$D/out" "$D/help_$c"
    has "$D/help_$c" "usage: gstark $c" "the help of $c starts with its usage"
    check "help $c prints nothing on stderr" ! -s "$D/err"
    if [ "$c" != help ]; then
        expect 0 "gstark $c --help" "$G" "$c" --help
        cmp -s "$D/out" "$D/help_$c" || { echo "FAIL: '$c --help' differs from 'help $c'"; fail=1; }
        expect 0 "gstark $c -h" "$G" "$c" -h
        cmp -s "$D/out" "$D/help_$c" || { echo "FAIL: '$c -h' differs from 'help $c'"; fail=1; }
    fi
done
for w in --air --log-rows --cols --degree --seed --start --preset --shrink --security --queries --blowup \
    --grinding --allow-slow --no-check --threads --backend --no-fallback --device-mem-budget \
    --tables-parallel --mem-budget --report --metrics --output --quiet --verbose --json \
    "symbolic link" "FIFO" "KiB" "exit: 0"; do
    has "$D/help_prove" "$w" "prove --help documents $w"
done
for w in --min-security --expect --statement --json log-rows "pub[i]" "table[T]" "unknown" "exit: 0"; do
    has "$D/help_verify" "$w" "verify --help documents $w"
done
hasnt "$D/help_prove" "160" "no stale 160-bit cap in prove --help"
expect 2 "help for an unknown command" "$G" help frobnicate
has "$D/err" "unknown command 'frobnicate'" "it names the command"

# ---- unknown options: one line and a hint ----
expect 2 "prove --foo" "$G" prove --foo -o "$D/x.proof"
check "one line on stderr" "$(wc -l <"$D/err")" = 1
check "nothing on stdout" ! -s "$D/out"
has "$D/err" "gstark: prove: unknown option '--foo' (see 'gstark prove --help')" "the line names the option and the help"
expect 2 "verify --foo=1" "$G" verify --foo=1 "$D/a.proof"
has "$D/err" "unknown option '--foo' (see 'gstark verify --help')" "--foo=1 is named without its value"
check "one line on stderr" "$(wc -l <"$D/err")" = 1
expect 2 "an unknown short option" "$G" prove -x -o "$D/x.proof"
has "$D/err" "unknown option '-x'" "it names -x"
expect 2 "inspect --foo" "$G" inspect --foo "$D/a.proof"
expect 2 "demo --foo" "$G" demo --foo
has "$D/err" "(see 'gstark demo --help')" "demo's hint"
expect 2 "a missing value" "$G" prove --air
has "$D/err" "option '--air' needs a value" "it says what is missing"
expect 2 "a value for a flag" "$G" prove --no-check=yes -o "$D/x.proof"
has "$D/err" "option '--no-check' takes no value" "it says the flag takes none"
expect 2 "unknown command" "$G" frobnicate
has "$D/err" "unknown command 'frobnicate' (see 'gstark help')" "one line and a hint"
check "one line on stderr" "$(wc -l <"$D/err")" = 1
expect 2 "no command" "$G"
expect 0 "gstark -V" "$G" -V
cp "$D/out" "$D/version"
has "$D/version" "gstark " "-V prints the version"
expect 0 "gstark --version" "$G" --version
cmp -s "$D/out" "$D/version" || { echo "FAIL: --version differs from -V"; fail=1; }
expect 0 "gstark version" "$G" version
cmp -s "$D/out" "$D/version" || { echo "FAIL: version differs from -V"; fail=1; }

# ---- options that do not apply to the chosen AIR ----
na() { # na "args..." "what it says"
    local args=$1
    # shellcheck disable=SC2086
    expect 2 "prove $args" "$G" prove $args -o "$D/x.proof"
    has "$D/err" "$2" "it says why"
    check "no proof file" ! -e "$D/x.proof"
}
na "--air fib --cols 4" "--cols does not apply to --air fib"
na "--air fib --degree 2" "--degree does not apply to --air fib"
na "--air fib --seed 3" "--seed does not apply to --air fib"
na "--air mix --start 1,2" "--start does not apply to --air mix"
na "--air synth --start 1,2" "--start does not apply to --air synth"
na "--air fib --preset vm" "--preset does not apply to --air fib"
na "--air mix --preset vm" "--preset does not apply to --air mix"
na "--air mix --shrink 2" "--shrink does not apply to --air mix"
na "--air mix --tables-parallel 2" "--tables-parallel does not apply to --air mix"
na "--air fib --report" "--report does not apply to --air fib"
na "--air fib --metrics $D/m.jsonl" "--metrics does not apply to --air fib"
na "--air synth --log-rows 8" "--log-rows does not apply to --air synth"
na "--air synth --cols 8" "--cols does not apply to --air synth"
na "--backend cpu --no-fallback" "--no-fallback applies to --backend cuda or auto"
na "--backend cpu --device-mem-budget 1G" "--device-mem-budget applies to --backend cuda or auto"
na "--air nope" "unknown AIR 'nope'"
na "--air synth --preset nope" "unknown preset 'nope'"
na "--security 90 --queries 40" "--security and --queries both set the query count"
na "-q -v" "--quiet prints nothing"

# ---- security: the library's levels and cap ----
expect 2 "--security 40 (below the verifier's minimum)" "$G" prove --air fib --log-rows 6 --security 40 -o "$D/x.proof"
has "$D/err" "below the verifier's minimum of 80 bits" "it names the minimum"
expect 2 "--security 160 (above the cap)" "$G" prove --air fib --log-rows 6 --security 160 -o "$D/x.proof"
has "$D/err" "--security 160: Keccak-256 commitments cap the claim at 128 bits" "it names the cap"
expect 2 "--security 129" "$G" prove --air fib --log-rows 6 --security 129 -o "$D/x.proof"
expect 2 "--queries 5 (parameters below the minimum)" "$G" prove --air fib --log-rows 6 --queries 5 -o "$D/x.proof"
has "$D/err" "below the verifier's minimum" "it says the parameters are too weak"
expect 2 "verify --min-security 129" "$G" verify --min-security 129 "$D/a.proof"
has "$D/err" "cap the claim at 128 bits" "it names the cap"
expect 0 "prove --security 128" "$G" prove --air fib --log-rows 6 --grinding 8 --security 128 -o "$D/s128.proof"
has "$D/out" "128 bits (conjectured; " "prove prints the conjectured level"
has "$D/out" " bits provable)" "and the provable one"
expect 0 "verify --min-security 128" "$G" verify --min-security 128 "$D/s128.proof"
has "$D/out" "128 bits (conjectured; " "verify prints the conjectured level"
expect 1 "verify an 80-bit proof with --min-security 81" "$G" verify --min-security 81 "$D/a.proof"

# ---- grinding above the bound needs --allow-slow ----
expect 2 "--grinding 31" "$G" prove --air fib --log-rows 6 --grinding 31 -o "$D/x.proof"
has "$D/err" "2^31" "it states the expected work"
has "$D/err" "--allow-slow" "and how to allow it"
# With --allow-slow the bound is passed; the (too few) queries then stop it
# before any proving.
expect 2 "--grinding 31 --allow-slow passes the bound" "$G" prove --air fib --log-rows 6 --grinding 31 --allow-slow --queries 1 -o "$D/x.proof"
hasnt "$D/err" "--allow-slow" "the grinding bound is not what stops it"
has "$D/err" "below the verifier's minimum" "the parameter check does"
expect 0 "--grinding 12 runs without --allow-slow" "$G" prove --air fib --log-rows 6 --grinding 12 --security 80 -o "$D/g12.proof"

# ---- sizes ----
for s in 1048576 512K 64M 2G 1T 512KiB 64MiB 2GiB 1TiB 512KB 64MB 2GB 1TB unlimited; do
    expect 0 "--mem-budget $s" "$G" prove --air synth --shrink 14 "${fast[@]}" --mem-budget "$s" -q -o "$D/size.proof"
done
for s in 12Q 1.5G -1 "" 0x10 1GG 0 " 2G"; do
    expect 2 "--mem-budget '$s'" "$G" prove --air synth --shrink 14 "${fast[@]}" --mem-budget "$s" -o "$D/x.proof"
    has "$D/err" "--mem-budget" "it names the option"
done
expect 2 "--device-mem-budget 0" "$G" prove --air fib --device-mem-budget 0 -o "$D/x.proof"

# ---- memory budgets: refused up front with --strict-budget, else a warning ----
expect 2 "--strict-budget with a budget below one table's need" "$G" prove --air synth --shrink 12 "${fast[@]}" --mem-budget 64K --strict-budget -o "$D/x.proof"
has "$D/err" "more than the memory budget of 64 KiB (65536 bytes)" "it gives the budget"
has "$D/err" "a table alone needs" "and the need"
check "nothing on stdout (nothing proven)" ! -s "$D/out"
check "no proof file" ! -e "$D/x.proof"
expect 2 "--strict-budget on one table (fib)" "$G" prove --air fib --log-rows 10 "${fast[@]}" --mem-budget 64K --strict-budget -o "$D/x.proof"
has "$D/err" "more than the memory budget of 64 KiB" "the same rule for a single table"
expect 0 "the same budget without --strict-budget: proven, with a warning" "$G" prove --air synth --shrink 12 "${fast[@]}" --mem-budget 64K -o "$D/over.proof"
has "$D/err" "gstark: warning: the memory budget 64 KiB" "the warning gives the budget"
has "$D/out" "over it (the largest needs" "the summary counts the overrun"
expect 0 "it verifies" "$G" verify "$D/over.proof"
expect 0 "-q keeps the warning" "$G" prove -q --air synth --shrink 12 "${fast[@]}" --mem-budget 64K -o "$D/over.proof"
has "$D/err" "gstark: warning:" "warnings still print under --quiet"
check "no summary under --quiet" ! -s "$D/out"
expect 0 "a budget that fits every table" "$G" prove --air synth --shrink 12 "${fast[@]}" --mem-budget 1GiB --strict-budget --json -o "$D/fits.proof"
has "$D/out" '"mem_budget":1073741824' "the JSON gives the budget"
has "$D/out" '"budget_overruns":0' "no overruns"
has "$D/out" '"budget_over_bytes":0' "the peak stayed within the budget"
check "no warning" ! -s "$D/err"

# ---- exit codes: 0, 1, 2, 3 ----
expect 0 "exit 0: proved" "$G" prove --air mix --cols 4 --log-rows 6 "${fast[@]}" -o "$D/mix.proof"
cp "$D/mix.proof" "$D/bad.proof"
printf 'X' | dd of="$D/bad.proof" bs=1 seek=$(( $(stat -c %s "$D/bad.proof") / 2 )) conv=notrunc status=none
expect 1 "exit 1: an invalid proof" "$G" verify "$D/bad.proof"
has "$D/err" "invalid:" "it says invalid"
expect 2 "exit 2: a usage error" "$G" prove --log-rows 99 -o "$D/x.proof"
expect 2 "exit 2: degree above blowup + 1 (a parameter error)" "$G" prove --air mix --degree 5 --blowup 2 --log-rows 4 "${fast[@]}" -o "$D/x.proof"
has "$D/err" "--degree 5 needs --blowup 4 or more" "it names the least blowup"
expect 2 "exit 2: inspect of malformed bytes" "$G" inspect "$D/help_prove"
# Exit 3: the prover runs out of memory (address space capped) after the
# checks. Skipped where the cap stops the program itself (sanitizer builds).
if bash -c 'ulimit -v 200000 && "$0" version; exit $?' "$G" >/dev/null 2>&1; then
    (ulimit -v 200000 && exec "$G" prove --air fib --log-rows 22 "${fast[@]}" --threads 2 -o "$D/oom.proof") >"$D/out" 2>"$D/err"
    got=$?
    check "exit 3: the prover ran out of memory (got $got)" "$got" = 3
    has "$D/err" "out of memory" "it says why"
    check "no proof file after a prover failure" ! -e "$D/oom.proof"
else
    echo "skip: exit 3 (the address-space cap stops this build's binary)"
fi

# ---- --quiet, --verbose, --json ----
expect 0 "prove -q" "$G" prove -q --air fib --log-rows 6 "${fast[@]}" -o "$D/q.proof"
check "prove -q prints nothing" ! -s "$D/all"
expect 0 "verify -q" "$G" verify -q "$D/q.proof"
check "verify -q prints nothing" ! -s "$D/all"
expect 1 "verify -q of an invalid proof" "$G" verify -q "$D/bad.proof"
check "errors still print under -q" -s "$D/err"
expect 0 "prove --json" "$G" prove --json --air fib --log-rows 6 "${fast[@]}" -o "$D/j.proof"
check "one line of JSON on stdout" "$(wc -l <"$D/out")" = 1
has "$D/out" '{"command":"prove"' "it is the prove object"
has "$D/out" '"security_bits":80' "with the security level"
has "$D/out" '"provable_bits":' "and the provable one"
for cmd in "verify" "inspect"; do
    expect 0 "$cmd --json" "$G" "$cmd" --json "$D/j.proof"
    check "$cmd: one line of JSON on stdout" "$(wc -l <"$D/out")" = 1
    has "$D/out" "{\"command\":\"$cmd\"" "it is the $cmd object"
    cp "$D/out" "$D/$cmd.json"
done
has "$D/verify.json" '"accepted":true' "verify --json says accepted"
expect 1 "verify --json of an invalid proof" "$G" verify --json "$D/bad.proof"
has "$D/out" '"valid":false' "the JSON says invalid"
if command -v python3 >/dev/null 2>&1; then
    for f in "$D/verify.json" "$D/inspect.json" "$D/out"; do
        python3 -m json.tool "$f" >/dev/null || { echo "FAIL: not valid JSON: $f"; fail=1; }
    done
    echo "ok: the JSON objects parse"
fi
expect 2 "--json with -o -" "$G" prove --json --air fib --log-rows 6 "${fast[@]}" -o -
expect 0 "prove -v prints every public input" "$G" prove -v --air mix --cols 64 --log-rows 6 "${fast[@]}" -o "$D/wide.proof"
hasnt "$D/out" "..." "no cut list with -v"
expect 0 "prove without -v cuts a long list" "$G" prove --air mix --cols 64 --log-rows 6 "${fast[@]}" -o "$D/wide.proof"
has "$D/out" "(24 values; -v prints all)" "a cut list says how many"

# ---- progress: on a terminal only, for one table too ----
expect 0 "prove with stderr not a terminal" "$G" prove --air fib --log-rows 10 "${fast[@]}" -o "$D/p.proof"
hasnt "$D/err" "tables committed" "no progress line into a pipe or file"
if [ "$tty_ok" = 1 ]; then
    on_tty "$G" prove --air fib --log-rows 10 "${fast[@]}" -o "$D/p.proof"
    has "$D/tty" "tables committed 0/1, proven 0/1" "a single-table proof draws the progress line on a terminal"
    has "$D/tty" "eta" "with an ETA"
    on_tty "$G" prove -q --air fib --log-rows 10 "${fast[@]}" -o "$D/p.proof"
    hasnt "$D/tty" "tables committed" "--quiet draws no progress line"
    check "--quiet prints nothing on a terminal" ! -s "$D/tty"
    on_tty "$G" prove --air synth --shrink 14 "${fast[@]}" -o "$D/p.proof"
    has "$D/tty" "tables committed" "a multi-table proof draws it too"
    on_tty "$G" prove -q --report --metrics "$D/qm.jsonl" --air synth --shrink 14 "${fast[@]}" -o "$D/p.proof"
    hasnt "$D/tty" "tables committed" "--quiet with --report and --metrics draws no progress line"
    has "$D/tty" "timing report" "but prints the report asked for"
    check "and writes the metrics" -s "$D/qm.jsonl"
    on_tty "$G" prove -q --air synth --shrink 12 "${fast[@]}" --mem-budget 64K -o "$D/p.proof"
    has "$D/tty" "gstark: warning: the memory budget 64 KiB" "--quiet on a terminal keeps the warnings"
    on_tty "$G" prove --air fib --log-rows 6 "${fast[@]}" -o -
    has "$D/tty" "standard output is a terminal" "-o - refuses a terminal"
else
    echo "skip: progress on a terminal (script(1) cannot open one here)"
fi
exit $fail
