#!/usr/bin/env bash
# gstark prove --timeline FILE (docs/gpu.md, "Reading a timeline"): the
# Chrome trace of a single-table proof (fib), a multi-table one (synth vm,
# two tables at once) and a program's run (--elf), each parsed and checked by
# tests/timeline_check.py: valid JSON, every X event with ts and dur >= 0 on
# a named track, each table's phases present, the spans of each host thread
# nested or disjoint (children inside their parents), the host spans
# covering the prove time --json reports, no device tracks on a CPU run.
# Then the refusals (exit 2, before any proving, nothing written): a
# missing directory, a directory, the same file as -o or --metrics, a
# symbolic link; and a run that fails after the checks leaves an existing
# file as it was and no temporary file behind.
# usage: cli_timeline_test.sh path/to/gstark path/to/test_zkvm_exec
case $2 in /*) T=$2 ;; *) T=$PWD/$2 ;; esac
CHECKER=$(cd "$(dirname "$0")" && pwd)/timeline_check.py
. "$(dirname "$0")/cli_lib.sh"

tl() { # tl WHAT JSON_SUMMARY TIMELINE [checker args...]
    local what=$1 sum=$2 file=$3
    shift 3
    if python3 "$CHECKER" "$sum" "$file" "$@" >"$D/chk" 2>&1; then
        echo "ok: $what"
        sed 's/^/    /' "$D/chk"
    else
        echo "FAIL: $what"
        sed 's/^/    /' "$D/chk" | head -30
        fail=1
    fi
}

expect 0 "prove fib --timeline" "$G" prove --air fib --log-rows 10 "${fast[@]}" --backend cpu \
    -o fib.proof --timeline fib.json --json
cp "$D/out" fib.sum
tl "fib's timeline" fib.sum fib.json --tables 1 --single
check "no temporary file left beside it" -z "$(ls -A | grep '\.tmp\.' || true)"
expect 0 "the proof verifies" "$G" verify -q fib.proof

expect 0 "prove synth vm, 2 tables at once, --timeline and --metrics" "$G" prove --air synth \
    --preset vm --shrink 8 --tables-parallel 2 "${fast[@]}" -o vm.proof --timeline vm.json \
    --metrics vm.jsonl --json
cp "$D/out" vm.sum
tl "synth's timeline" vm.sum vm.json --multi
check "the metrics were written too" -s vm.jsonl

"$T" --write-elf echo echo.elf || { echo "FAIL: writing echo.elf"; exit 1; }
printf 'hello, timeline\n' >in.bin
expect 0 "prove --elf --timeline" "$G" prove --elf echo.elf --input in.bin --security 80 \
    --grinding 0 -o run.proof --timeline run.json --json
cp "$D/out" run.sum
tl "the zkVM run's timeline" run.sum run.json --multi

expect 0 "--timeline to a character device (written through)" "$G" prove --air fib --log-rows 8 \
    "${fast[@]}" -o fib2.proof --timeline /dev/null -q

# ---- refusals: before proving, nothing written ----
refused() { # refused WHAT TEXT args...
    local what=$1 text=$2
    shift 2
    rm -f never.proof
    expect 2 "$what" "$G" prove "${fast[@]}" -o never.proof "$@"
    has "$D/err" "$text" "$what: the reason"
    check "$what: no proof written (refused before proving)" ! -e never.proof
    check "$what: no summary printed" ! -s "$D/out"
}
refused "--timeline in a missing directory" "--timeline nodir/t.json: directory nodir" \
    --timeline nodir/t.json
check "no directory or file made" ! -e nodir
mkdir adir
refused "--timeline naming a directory" "--timeline adir: is a directory" --timeline adir
ln -s fib.json link.json
refused "--timeline naming a symbolic link" "is a symbolic link" --timeline link.json
refused "--timeline and -o the same file" "--timeline and -o name the same file" \
    --timeline never.proof
refused "--timeline and --metrics the same file" "--timeline and --metrics name the same file" \
    --air synth --preset vm --shrink 8 --metrics m.json --timeline m.json
check "--metrics not written either" ! -e m.json
refused "--timeline with no name" "--timeline needs a file name" --timeline ""
refused "--timeline -" "only the proof (-o) can go to standard output" --timeline -
if [ "$(id -u)" != 0 ]; then
    mkdir ro && chmod 555 ro
    refused "--timeline in a read-only directory" "--timeline ro/t.json: directory ro" \
        --timeline ro/t.json
    check "nothing made in it" -z "$(ls -A ro)"
fi

# A run that fails after the option checks (a 1 KiB budget, strict): the
# existing timeline stays as it was, no temporary file is left.
printf 'old\n' >keep.json
expect 2 "a failing proof with --timeline" "$G" prove --air fib --log-rows 10 "${fast[@]}" \
    --mem-budget 1K --strict-budget -o never.proof --timeline keep.json
check "the old timeline is untouched" "$(cat keep.json)" = old
check "no temporary file left" -z "$(ls -A | grep '\.tmp\.' || true)"

exit $fail
