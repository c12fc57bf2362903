#!/usr/bin/env bash
# gstark prove --elf, and verify and inspect on a run's proof, end to end on
# programs test_zkvm_exec writes (no cross toolchain needed): the proof of
# echo (its input copied to fd 1) and of exit3 (writes "bye\n" to fd 2, exits
# 3) verified against their programs, with fd 1's bytes on stdout and the
# summary on stderr; rejected against another program or another --input;
# truncated and malformed files; inspect; the refusals (exit 2): --elf with
# --air or an AIR's option, a missing or non-ELF program, a fault, a program
# that never exits (the cycle limit names segmenting), an unwritable -o.
# usage: cli_zkvm_test.sh path/to/gstark path/to/test_zkvm_exec
case $2 in /*) T=$2 ;; *) T=$PWD/$2 ;; esac
. "$(dirname "$0")/cli_lib.sh"
for k in fault loop exit3 echo; do "$T" --write-elf "$k" "$D/$k.elf" || { echo "FAIL: writing $k.elf"; exit 1; }; done
# The verifier's minimum (80 bits) and no grinding: each proof takes about a
# second on 2 cores.
zk=(--security 80 --grinding 0)
printf 'hello, zkVM\n\001\002\377' >in.bin
printf 'hello, zkvm\n\001\002\377' >other.bin

cp echo.elf keep.elf && cp in.bin keep.bin
expect 2 "-o naming the program (./echo.elf)" "$G" prove --elf echo.elf --input in.bin -o ./echo.elf "${zk[@]}"
has "$D/err" "-o names the elf file" "it says which input"
expect 2 "-o naming the input" "$G" prove --elf echo.elf --input in.bin -o in.bin "${zk[@]}"
check "the program is untouched" -z "$(cmp echo.elf keep.elf 2>&1)"
check "the input is untouched" -z "$(cmp in.bin keep.bin 2>&1)"
expect 0 "prove echo's run" "$G" prove --elf echo.elf --input in.bin -o run.proof "${zk[@]}"
has "$D/out" "exit code 0 after" "the summary names the exit code and cycles"
has "$D/out" "15 bytes to fd 1" "the summary counts the output"
has "$D/out" "wrote run.proof" "the summary names the file"
check "the proof is written" -s run.proof
check "it is a run's proof (GSZKVM01)" "$(head -c 8 run.proof)" = GSZKVM01

expect 0 "verify it against echo.elf" "$G" verify run.proof --elf echo.elf
cmp -s "$D/out" in.bin && echo "ok: stdout is exactly fd 1's bytes" || { echo "FAIL: verify's stdout is not the run's output"; fail=1; }
has "$D/err" "valid: a run of echo.elf: exit code 0 after" "the summary (stderr) names the program and exit code"
has "$D/err" "input      15 bytes" "the summary gives the input's size"
has "$D/err" "program    " "the summary gives the program's fingerprint"
has "$D/err" "start      pc 0x00010000 at clk 0 (the reset state), input at byte 0, registers all zero" "the summary gives the start state"
has "$D/err" "at clk $(grep -o 'after [0-9]*' "$D/err" | head -1 | cut -d' ' -f2) (exited with code 0), input at byte 15" "the summary gives the end state"
expect 0 "verify with the same --input" "$G" verify run.proof --elf echo.elf --input in.bin
expect 0 "verify -q prints nothing" "$G" verify -q run.proof --elf echo.elf
check "-q: no output" ! -s "$D/all"
expect 0 "verify --json" "$G" verify --json run.proof --elf echo.elf
python3 - "$D/out" in.bin <<'PY' && echo "ok: --json holds the claim and the output bytes" || { echo "FAIL: verify --json"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
data = open(sys.argv[2], 'rb').read()
r = j["run"]
assert j["accepted"] and j["valid"] and j["zkvm"], j
assert r["exit_code"] == 0 and r["cycles"] > 0 and r["input_bytes"] == len(data), r
assert r["output"].encode("latin-1") == data and r["output_bytes"] == len(data) and r["stderr"] == "", r
assert len(r["program"]) == 64 and len(r["input_digest"]) == 64 and len(r["output_digest"]) == 64, r
assert r["exited"] and r["start"]["pc"] == r["entry"] and r["start"]["clk"] == 0 and r["start"]["regs"] == [0] * 32, r
assert r["end"]["clk"] == r["cycles"] and r["end"]["input_pos"] == len(data) and len(r["end"]["regs"]) == 32, r
assert r["end"]["regs"][0] == 0 and r["end"]["regs"][17] == 93, r
PY
expect 0 "verify from standard input" bash -c "'$G' verify - --elf echo.elf <run.proof"
cmp -s "$D/out" in.bin || { echo "FAIL: verify - changed the output"; fail=1; }

expect 0 "prove -o - into verify -" bash -c "'$G' prove -q --elf echo.elf --input in.bin -o - ${zk[*]} | '$G' verify - --elf echo.elf"
cmp -s "$D/out" in.bin && echo "ok: a proof through a pipe" || { echo "FAIL: prove -o - | verify -"; fail=1; }

expect 1 "verify against another program" "$G" verify run.proof --elf exit3.elf
has "$D/err" "another program" "the reason names the program"
check "nothing on stdout when rejected" ! -s "$D/out"
expect 1 "verify with another --input" "$G" verify run.proof --elf echo.elf --input other.bin
has "$D/err" "input mismatch" "the reason names the input"
expect 1 "verify --json with another --input" "$G" verify --json run.proof --elf echo.elf --input other.bin
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert not j["accepted"] and "input" in j["error"], j' "$D/out" \
    && echo "ok: --json says why" || { echo "FAIL: --json on rejection"; fail=1; }
expect 1 "verify --statement of another digest" "$G" verify run.proof --elf echo.elf \
    --statement 0000000000000000000000000000000000000000000000000000000000000000
has "$D/err" "statement mismatch" "--statement applies to a run's proof"
# One FRI for all 13 tables: a smaller file, the same claim, rejected against another
# program or input as the per-table proof is.
expect 0 "prove echo's run with one FRI for all tables" "$G" prove --elf echo.elf --input in.bin --shared-fri -o shared.proof "${zk[@]}"
check "the shared-FRI proof is smaller" "$(wc -c <shared.proof)" -lt "$(wc -c <run.proof)"
expect 0 "verify the shared-FRI proof" "$G" verify shared.proof --elf echo.elf
cmp -s "$D/out" in.bin && echo "ok: the shared-FRI proof gives the output" || { echo "FAIL: shared-FRI output"; fail=1; }
expect 0 "inspect the shared-FRI proof" "$G" inspect shared.proof
has "$D/out" "one FRI for all tables" "inspect names the shared FRI"
expect 1 "the shared-FRI proof against another program" "$G" verify shared.proof --elf exit3.elf
expect 1 "the shared-FRI proof with another --input" "$G" verify shared.proof --elf echo.elf --input other.bin
# One tree per round on top: smaller still, the same claim and rejections.
expect 0 "prove echo's run with shared trees" "$G" prove --elf echo.elf --input in.bin --shared-trees -o trees.proof "${zk[@]}"
check "the shared-trees proof is smaller" "$(wc -c <trees.proof)" -lt "$(wc -c <shared.proof)"
expect 0 "verify the shared-trees proof" "$G" verify trees.proof --elf echo.elf
cmp -s "$D/out" in.bin && echo "ok: the shared-trees proof gives the output" || { echo "FAIL: shared-trees output"; fail=1; }
expect 1 "the shared-trees proof against another program" "$G" verify trees.proof --elf exit3.elf
expect 1 "the shared-trees proof with another --input" "$G" verify trees.proof --elf echo.elf --input other.bin
# Blowup 2 (every table's constraints have degree 3 at most, the IO chip's included): more
# queries for the same conjectured level, the same claim and rejections.
expect 0 "prove echo's run at blowup 2" "$G" prove --elf echo.elf --input in.bin --blowup 2 -o b2.proof "${zk[@]}"
expect 0 "verify the blowup-2 proof" "$G" verify b2.proof --elf echo.elf
cmp -s "$D/out" in.bin && echo "ok: the blowup-2 proof gives the output" || { echo "FAIL: blowup-2 output"; fail=1; }
expect 0 "inspect the blowup-2 proof" "$G" inspect b2.proof
has "$D/out" "blowup 2" "inspect names the blowup"
expect 1 "the blowup-2 proof with another --input" "$G" verify b2.proof --elf echo.elf --input other.bin
# --provable-security: the blowup and queries chosen once the run's tables are built; the
# level printed reaches the target, the proof verifies; a target out of reach is refused (exit 2).
expect 0 "prove echo's run with --provable-security 90" "$G" prove --elf echo.elf --input in.bin --grinding 4 --provable-security 90 -o pv.proof
level=$(sed -n 's/.*; \([0-9]*\) bits provable).*/\1/p' "$D/out" | head -1)
[ -n "$level" ] && [ "$level" -ge 90 ] && echo "ok: $level bits provable" || { echo "FAIL: --provable-security 90 gave '$level' bits provable"; fail=1; }
expect 0 "verify the --provable-security proof" "$G" verify pv.proof --elf echo.elf
cmp -s "$D/out" in.bin && echo "ok: the --provable-security proof gives the output" || { echo "FAIL: --provable-security output"; fail=1; }
expect 2 "--provable-security 128 at blowup 2 without grinding (out of reach)" "$G" prove --elf echo.elf --input in.bin --grinding 0 --blowup 2 --provable-security 128 -o never.proof
has "$D/err" "cannot be reached for this run" "it says so"
check "no proof written" ! -e never.proof
# --coset-leaves-all: the CPU table's trees (and every other table's) hash a leaf per folding
# coset: the same claim, verified, inspect says so; with --shared-fri it is refused.
expect 0 "prove echo's run with --coset-leaves-all" "$G" prove --elf echo.elf --input in.bin --coset-leaves-all -o all.proof "${zk[@]}"
expect 0 "verify the --coset-leaves-all proof" "$G" verify all.proof --elf echo.elf
cmp -s "$D/out" in.bin && echo "ok: the --coset-leaves-all proof gives the output" || { echo "FAIL: --coset-leaves-all output"; fail=1; }
expect 0 "inspect the --coset-leaves-all proof" "$G" inspect all.proof
has "$D/out" "coset leaves (every table)" "inspect names the choice"
expect 1 "the --coset-leaves-all proof with another --input" "$G" verify all.proof --elf echo.elf --input other.bin
expect 2 "--coset-leaves-all with --shared-fri" "$G" prove --elf echo.elf --input in.bin --coset-leaves-all --shared-fri -o never.proof "${zk[@]}"
has "$D/err" "--coset-leaves-all and --shared-fri" "it names both"
size=$(wc -c <run.proof)
head -c $((size / 2)) run.proof >half.proof
expect 1 "a truncated run's proof" "$G" verify half.proof --elf echo.elf
head -c 12 run.proof >short.proof
expect 1 "a run's proof cut inside its input" "$G" verify short.proof --elf echo.elf
{ head -c 100 run.proof; head -c 1000 /dev/urandom; } >junk.proof
expect 1 "a run's proof with garbage after its header" "$G" verify junk.proof --elf echo.elf
expect 2 "inspect on a truncated run's proof" "$G" inspect half.proof

expect 2 "verify a run's proof without --elf" "$G" verify run.proof
has "$D/err" "--elf" "the message asks for --elf"
expect 2 "verify with a missing --elf" "$G" verify run.proof --elf nope.elf
expect 2 "--expect on a run's proof" "$G" verify run.proof --elf echo.elf --expect air=fib
expect 0 "prove a fib proof" "$G" prove --log-rows 4 -o fib.proof "${fast[@]}"
expect 2 "--elf on another proof" "$G" verify fib.proof --elf echo.elf
has "$D/err" "not one" "--elf is refused for a built-in AIR's proof"
expect 2 "two inputs from standard input" "$G" verify - --elf - <run.proof

expect 0 "inspect the run's proof" "$G" inspect run.proof
has "$D/out" "zkVM run proof" "inspect names the kind"
has "$D/out" "zkvm-cpu" "inspect lists the CPU table"
has "$D/out" "15 bytes to fd 1" "inspect gives the output's size"
has "$D/out" "start       pc 0x00010000 at clk 0 (the reset state)" "inspect gives the claimed start state"
has "$D/out" "(exited with code 0), input at byte 15, registers digest" "inspect gives the claimed end state"
expect 0 "inspect --json" "$G" inspect --json run.proof
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); r=j["run"]; assert j["zkvm"] and len(j["tables"]) > 1 and r["input_bytes"] == 15 and r["claimed_exited"] and r["claimed_start"]["clk"] == 0 and r["claimed_end"]["input_pos"] == 15, j' "$D/out" \
    && echo "ok: inspect --json" || { echo "FAIL: inspect --json"; fail=1; }

# A non-zero exit code and fd 2 are proven too.
expect 0 "prove exit3's run (--json)" "$G" prove --elf exit3.elf -o e3.proof --json "${zk[@]}"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); r=j["run"]; assert r["exit_code"]==3 and r["stderr_bytes"]==4, j' "$D/out" \
    && echo "ok: prove --json holds the claim" || { echo "FAIL: prove --json"; fail=1; }
expect 0 "verify exit3's run" "$G" verify e3.proof --elf exit3.elf
check "no fd 1 bytes" ! -s "$D/out"
has "$D/err" "bye" "fd 2's bytes go to stderr"
has "$D/err" "exit code 3 after" "the exit code it proves"

# Refusals before or instead of proving: exit 2, nothing written.
expect 2 "--elf with --air" "$G" prove --elf echo.elf --air fib -o x.proof
has "$D/err" "not with --air" "--air is refused"
expect 2 "--elf with --log-rows" "$G" prove --elf echo.elf --log-rows 4 -o x.proof
expect 2 "--input without --elf" "$G" prove --input in.bin -o x.proof
expect 2 "a missing ELF" "$G" prove --elf nope.elf -o x.proof
has "$D/err" "nope.elf" "the missing file is named"
expect 2 "a non-ELF file" "$G" prove --elf in.bin -o x.proof
has "$D/err" "not a program for the zkVM" "the loader's reason is given"
expect 2 "a missing input" "$G" prove --elf echo.elf --input nope.bin -o x.proof
expect 2 "a faulting program" "$G" prove --elf fault.elf -o x.proof "${zk[@]}"
has "$D/err" "faulted" "the fault is named"
expect 2 "a program that never exits, --max-cycles 1000" "$G" prove --elf loop.elf --max-cycles 1000 -o x.proof "${zk[@]}"
has "$D/err" "1000 cycles" "the limit is named"
has "$D/err" "segmenting" "the message points to segmenting"
head -c $((16 * 1024 * 1024 + 1)) /dev/zero >big.bin
expect 2 "an input above what a proof holds" "$G" prove --elf echo.elf --input big.bin -o x.proof "${zk[@]}"
has "$D/err" "a proof holds at most" "the library's reason is given"
expect 2 "--max-cycles above the largest proof" "$G" prove --elf loop.elf --max-cycles 99999999 -o x.proof
check "no proof written by a refusal" ! -e x.proof
mkdir ro
expect 2 "-o into a missing directory" "$G" prove --elf echo.elf -o ro/missing/x.proof "${zk[@]}"
expect 2 "-o a directory" "$G" prove --elf echo.elf -o ro "${zk[@]}"
check "nothing left behind" -z "$(ls -A ro)"

expect 0 "prove --help" "$G" prove --help
has "$D/out" "--elf FILE" "prove's help lists --elf"
has "$D/out" "--max-cycles" "prove's help lists --max-cycles"
expect 0 "verify --help" "$G" verify --help
has "$D/out" "--elf" "verify's help lists --elf"
exit $fail
