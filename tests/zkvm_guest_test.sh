#!/usr/bin/env bash
# The guest kit and the executor against independent references:
#  - builds guest/examples/*.c with guest/build.sh and runs each on `gstark
#    run`, checking the output against an independent computation (python3,
#    sha256sum, sort -n, the FIPS 180-4 vectors) and the exit code, and on
#    both executor paths (test_zkvm_exec --compare: fast = traced, the trace
#    replays, and runs as segments of three lengths, each from the previous
#    one's end state, end as the one run);
#  - runs the same programs under qemu-riscv32 (user mode): the same output
#    and exit code;
#  - runs random instruction streams (test_zkvm_exec --write-elf SEED; seeds
#    from GS_ZKVM_SEEDS, default 1..40) on both and compares their output
#    (every register and the data page).
# Exits 77 (skipped) when the cross toolchain or qemu-riscv32 is missing,
# after running what it can without them.
# usage: zkvm_guest_test.sh path/to/gstark path/to/test_zkvm_exec SOURCE_DIR
case $2 in /*) T=$2 ;; *) T=$PWD/$2 ;; esac
case $3 in /*) S=$3 ;; *) S=$PWD/$3 ;; esac
. "$(dirname "$0")/cli_lib.sh"
have_cc=1 have_qemu=1
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 && [ -f /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || have_cc=0
command -v qemu-riscv32 >/dev/null 2>&1 || have_qemu=0
[ $have_cc = 1 ] || echo "skip: no riscv64-unknown-elf-gcc with picolibc (scripts/install-deps.sh): the examples are not built"
[ $have_qemu = 1 ] || echo "skip: no qemu-riscv32 (qemu-user): no cross-check"
if [ $have_cc = 0 ] && [ $have_qemu = 0 ]; then exit 77; fi

# run_case NAME ELF INPUT EXPECTED_FILE WANT_EXIT [compare]
run_case() {
    local name=$1 elf=$2 input=$3 want=$4 code=$5 cmp=${6:-}
    expect "$code" "$name: gstark run" "$G" run -q "$elf" --input "$input"
    if cmp -s "$D/out" "$want"; then echo "ok: $name: output as expected"; else
        echo "FAIL: $name: output differs from the reference"; head -c 300 "$D/out" | sed 's/^/    got: /'
        head -c 300 "$want" | sed 's/^/    want: /'; fail=1
    fi
    if [ $have_qemu = 1 ]; then
        qemu-riscv32 "$elf" <"$input" >"$D/qout" 2>"$D/qerr"
        local q=$? g
        g=$(( code == 0 ? 0 : 1 ))
        if [ "$q" != 0 ] && [ "$g" = 1 ]; then g=$q; fi
        cmp -s "$D/qout" "$D/out" && [ "$(( q == 0 ? 0 : 1 ))" = "$(( code == 0 ? 0 : 1 ))" ] \
            && echo "ok: $name: qemu-riscv32 agrees (exit $q)" \
            || { echo "FAIL: $name: qemu-riscv32 gives exit $q and different output"; fail=1; }
    fi
    if [ -n "$cmp" ]; then
        if "$T" --compare "$elf" "$input" >"$D/cmp" 2>&1; then echo "ok: $name: fast and traced paths agree, the trace replays, segment runs end the same"
        else echo "FAIL: $name: fast and traced paths"; sed 's/^/    /' "$D/cmp" | head; fail=1; fi
    fi
}

if [ $have_cc = 1 ]; then
    for e in fib sha256 sort matmul; do
        "$S/guest/build.sh" -o "$D/$e.elf" "$S/guest/examples/$e.c" || { echo "FAIL: building $e"; fail=1; }
    done
    # Fibonacci: F(n) mod 2^32.
    for n in 0 1 2 10 47 100000; do
        echo "$n" >"fib$n.in"
        python3 -c "
a, b = 0, 1
for _ in range($n): a, b = b, (a + b) % 2**32
print(a)" >"fib$n.want"
        run_case "fib $n" fib.elf "fib$n.in" "fib$n.want" 0 $([ "$n" -le 1000 ] && echo compare)
    done
    : >empty.in
    : >empty.want
    run_case "fib without n" fib.elf empty.in empty.want 1
    # SHA-256: FIPS 180-4 example vectors, padding boundaries, sha256sum.
    printf 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n' >v0.want
    run_case "sha256 of nothing" sha256.elf empty.in v0.want 0 compare
    printf abc >abc.in
    printf 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n' >abc.want
    run_case "sha256 abc" sha256.elf abc.in abc.want 0 compare
    printf abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq >two.in
    printf '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1\n' >two.want
    run_case "sha256 of the two-block vector" sha256.elf two.in two.want 0
    head -c 1000000 /dev/zero | tr '\0' a >million.in
    printf 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0\n' >million.want
    run_case "sha256 of a million a" sha256.elf million.in million.want 0
    for len in 55 56 63 64 65 119 120 65535 65536 65537 200000; do
        head -c "$len" /dev/urandom >"r$len.in"
        sha256sum <"r$len.in" | cut -c1-64 >"r$len.want"
        run_case "sha256 of $len random bytes" sha256.elf "r$len.in" "r$len.want" 0 $([ "$len" -le 1000 ] && echo compare)
    done
    # Sorting: sort -n.
    python3 -c "
import random
r = random.Random(14)
print(' '.join(str(r.choice([0, 1, 2**32 - 1, r.randrange(2**32), r.randrange(100)])) for _ in range(20000)))" >sort.in
    tr ' ' '\n' <sort.in | sort -n >sort.want
    run_case "sort 20000 numbers" sort.elf sort.in sort.want 0
    printf '5 3\n\n10\t1 2' >small.in
    printf '1\n2\n3\n5\n10\n' >small.want
    run_case "sort a few" sort.elf small.in small.want 0 compare
    run_case "sort nothing" sort.elf empty.in empty.want 0
    printf '1 2 x' >bad.in
    run_case "sort a bad input" sort.elf bad.in empty.want 1
    printf '4294967296' >big.in
    run_case "sort a number above 2^32" sort.elf big.in empty.want 1
    # Matrix product: the same in python.
    for ns in "5 7" "17 3" "64 12345"; do
        echo "$ns" >mm.in
        python3 -c "
n, seed = map(int, '$ns'.split())
x = seed or 1
v = []
for _ in range(2 * n * n):
    x ^= (x << 13) & 0xFFFFFFFF; x ^= x >> 17; x ^= (x << 5) & 0xFFFFFFFF
    v.append(x)
A, B = v[:n*n], v[n*n:]
C = [sum(A[r*n+k] * B[k*n+c] for k in range(n)) % 2**32 for r in range(n) for c in range(n)]
h = 2166136261
for c in C: h = ((h ^ c) * 16777619) % 2**32
print(f'n={n} trace={sum(C[r*n+r] for r in range(n)) % 2**32} hash={h}')" >mm.want
        run_case "matmul $ns" matmul.elf mm.in mm.want 0 $([ "${ns%% *}" -le 17 ] && echo compare)
    done
    printf '0 1' >mm0.in
    run_case "matmul n=0" matmul.elf mm0.in empty.want 1
    # A guest that faults (a null store) and one that returns non-zero.
    printf '#include "gstark_guest.h"\nint main(void) { *(volatile int *)0 = 1; return 0; }\n' >null.c
    printf '#include "gstark_guest.h"\nint main(void) { gs_puts(1, "partial\\n"); return 42; }\n' >ret.c
    "$S/guest/build.sh" -o null.elf null.c && "$S/guest/build.sh" -o ret.elf ret.c || { echo "FAIL: building"; fail=1; }
    expect 3 "a guest storing to address 0" "$G" run null.elf
    has "$D/err" "store at 0x00000000 outside memory" "the null store is named"
    expect 1 "a guest returning 42" "$G" run ret.elf
    has "$D/out" "partial" "its output is printed"
    has "$D/err" "exited with code 42" "its code is named"
    if [ $have_qemu = 1 ]; then
        qemu-riscv32 ret.elf >/dev/null 2>&1
        check "qemu agrees on exit 42" $? = 42
    fi
    # Proven runs: each example on a small input, proven and verified; the
    # verified output is the reference's (80-bit parameters keep it quick).
    zk=(--security 80 --grinding 0)
    printf 'abc' >abc.in
    printf 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n' >abc.want
    for c in "fib fib.elf fib47.in fib47.want" "sha256 sha256.elf abc.in abc.want" \
             "sort sort.elf small.in small.want" "matmul matmul.elf mm.in mm.want"; do
        set -- $c
        [ "$1" = matmul ] && { echo "5 7" >mm.in; "$G" run -q matmul.elf --input mm.in >mm.want; }
        expect 0 "$1: gstark prove --elf" "$G" prove -q --elf "$2" --input "$3" -o "$1.proof" "${zk[@]}"
        expect 0 "$1: gstark verify --elf" "$G" verify "$1.proof" --elf "$2" --input "$3"
        cmp -s "$D/out" "$4" && echo "ok: $1: the proven output is the reference's" \
            || { echo "FAIL: $1: the proven output differs"; fail=1; }
    done
    expect 1 "a proof of sort does not verify as matmul" "$G" verify sort.proof --elf matmul.elf
    # The kit's layout: text at 0x10000, the data segment up to 16 MiB.
    riscv64-unknown-elf-readelf -lW sort.elf >layout
    has layout "LOAD           0x001000 0x00010000" "the text is at 0x10000"
    rw=$(grep -E 'LOAD .* RW ' layout)
    set -- $rw
    [ $(( $3 + $6 )) = $(( 0x1000000 )) ] \
        && echo "ok: the data segment ends at 16 MiB" || { echo "FAIL: the data segment does not end at 16 MiB"; cat layout; fail=1; }
fi

if [ $have_qemu = 1 ]; then
    seeds=${GS_ZKVM_SEEDS:-$(seq 1 40)}
    bad=0
    for s in $seeds; do
        "$T" --write-elf "$s" "rand$s.elf" && chmod +x "rand$s.elf" || { echo "FAIL: writing seed $s"; fail=1; continue; }
        "$G" run -q "rand$s.elf" >g.out 2>g.err; gc=$?
        qemu-riscv32 "rand$s.elf" >q.out 2>q.err; qc=$?
        if [ "$gc" != 0 ] || [ "$qc" != 0 ] || ! cmp -s g.out q.out || [ "$(stat -c %s g.out)" != 4224 ]; then
            echo "FAIL: random stream seed $s: gstark exit $gc, qemu exit $qc, outputs $(stat -c %s g.out)/$(stat -c %s q.out) bytes$(cmp g.out q.out 2>&1 | sed 's/^/: /')"
            bad=1; fail=1
        fi
    done
    [ $bad = 0 ] && echo "ok: $(echo $seeds | wc -w) random instruction streams: gstark and qemu-riscv32 agree on every register and the data page (replay one with GS_ZKVM_SEEDS=N)"
fi
[ $fail = 0 ] || exit 1
if [ $have_cc = 0 ] || [ $have_qemu = 0 ]; then exit 77; fi
exit 0
