#!/usr/bin/env bash
# `gstark run` end to end, on programs test_zkvm_exec writes (no cross
# toolchain needed): the output bytes on stdout, the summary on stderr, exit
# codes 0 (guest exit 0), 1 (guest exit non-zero), 2 (usage, bad ELF, bad
# input), 3 (fault, cycle limit); --json, --traced, --max-cycles, help.
# usage: cli_run_test.sh path/to/gstark path/to/test_zkvm_exec
case $2 in /*) T=$2 ;; *) T=$PWD/$2 ;; esac
. "$(dirname "$0")/cli_lib.sh"
for k in fault loop exit3 echo 7; do "$T" --write-elf "$k" "$D/$k.elf" || { echo "FAIL: writing $k.elf"; exit 1; }; done

head -c 100000 /dev/urandom >"$D/rnd"
expect 0 "run echo on a binary input" "$G" run echo.elf --input rnd
cmp -s "$D/out" "$D/rnd" && echo "ok: the output is exactly the input's bytes" || { echo "FAIL: echo's output differs from its input"; fail=1; }
has "$D/err" "exit code 0 after" "the summary names the exit code"
has "$D/err" "cycles" "the summary names the cycle count"
has "$D/err" "instructions/s" "the summary gives the speed"
expect 0 "run echo on standard input" bash -c "'$G' run echo.elf --input - <rnd"
cmp -s "$D/out" "$D/rnd" || { echo "FAIL: echo from stdin"; fail=1; }
expect 0 "run echo with no input" "$G" run echo.elf
check "no input, no output" ! -s "$D/out"
expect 0 "run -q says nothing on success" "$G" run -q echo.elf
check "-q: empty stderr" ! -s "$D/err"
expect 0 "run --traced" "$G" run --traced echo.elf --input rnd
has "$D/err" "trace:" "--traced reports the trace"
cmp -s "$D/out" "$D/rnd" || { echo "FAIL: --traced changed the output"; fail=1; }

expect 1 "a guest exiting 3" "$G" run exit3.elf
has "$D/err" "bye" "the guest's fd 2 goes to stderr"
has "$D/err" "exited with code 3" "the exit code is named"
check "nothing on stdout" ! -s "$D/out"
expect 3 "a faulting guest" "$G" run fault.elf
has "$D/err" "pc 0x00010004 (lw t1,0(zero)): load at 0x00000000 outside memory" "the fault names the pc, the instruction and the reason"
expect 3 "a guest that never exits, --max-cycles" "$G" run loop.elf --max-cycles 100000
has "$D/err" "did not exit within 100000 cycles" "the cycle limit is named"

expect 0 "run --json" "$G" run --json echo.elf --input rnd
python3 - "$D/out" "$D/rnd" <<'PY' && echo "ok: --json parses and holds the output bytes" || { echo "FAIL: --json"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
data = open(sys.argv[2], 'rb').read()
assert j["stop"] == "exited" and j["exit_code"] == 0 and j["cycles"] > 0, j
assert j["output"].encode("latin-1") == data and j["output_bytes"] == len(data)
assert j["input_bytes"] == len(data) and j["input_read"] == len(data)
PY
expect 3 "run --json on a fault" "$G" run --json fault.elf
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["stop"]=="fault" and j["fault_pc"]==0x10004 and "pc 0x00010004" in j["message"], j' "$D/out" \
    && echo "ok: --json names the fault" || { echo "FAIL: --json fault"; fail=1; }
expect 1 "run --json on exit 3" "$G" run --json exit3.elf
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["exit_code"]==3 and j["stderr"]=="bye\n", j' "$D/out" \
    && echo "ok: --json holds the exit code and stderr" || { echo "FAIL: --json exit3"; fail=1; }

# Bad programs and inputs: exit 2, with a message.
expect 2 "no program" "$G" run
expect 2 "two programs" "$G" run echo.elf echo.elf
expect 2 "a missing program" "$G" run nope.elf
has "$D/err" "nope.elf" "the missing file is named"
expect 2 "a missing input" "$G" run echo.elf --input nope.txt
has "$D/err" "input" "the input is named"
expect 2 "a directory as input" "$G" run echo.elf --input "$D"
printf 'hello' >text.txt
expect 2 "a text file" "$G" run text.txt
has "$D/err" "not an ELF" "a text file is not an ELF"
head -c 100 echo.elf >short.elf
expect 2 "a truncated ELF" "$G" run short.elf
has "$D/err" "not a program for the zkVM" "a truncated ELF is refused"
expect 2 "a host binary" "$G" run "$(type -P true)"
has "$D/err" "not a 32-bit ELF" "an x86-64 binary is refused by class"
expect 2 "a bad --max-cycles" "$G" run echo.elf --max-cycles 0
expect 2 "a non-number --max-cycles" "$G" run echo.elf --max-cycles lots
expect 2 "an unknown option" "$G" run --frobnicate echo.elf
expect 2 "both from standard input" "$G" run - --input -

expect 0 "run --help" "$G" run --help
has "$D/out" "usage: gstark run" "run has its own help"
has "$D/out" "--max-cycles" "the help lists --max-cycles"
expect 0 "help run" "$G" help run
expect 0 "help lists run" "$G" help
has "$D/out" "run       run a RISC-V" "gstark help lists run"
exit $fail
