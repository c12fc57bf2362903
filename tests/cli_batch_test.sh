#!/usr/bin/env bash
# gstark batch end to end (docs/batch.md): help and usage errors; bad
# manifests refused with exit 2 before anything is written; proofs
# byte-identical to `gstark prove` with 1, 2 and 3 lanes (and the same root
# with finishers or without); the report, the
# metrics, --json, -q and the progress line on a terminal; a refused claim
# (exit 3, the rest proven); bisection under GS_BATCH_SIM_DEVICES and the
# partition reused; corrupt and truncated store objects re-proven; kill -9 at
# random points (several seeds) and a rerun that reuses every stored object
# and gives the uninterrupted run's output; two batches on one store at once.
# usage: cli_batch_test.sh path/to/gstark [seed]
. "$(dirname "$0")/cli_lib.sh"
seed=${2:-1}
unset GS_BATCH_SIM_DEVICES

# ---- help and usage ----
expect 0 "batch --help" "$G" batch --help
has "$D/out" "--store DIR" "batch --help lists --store"
has "$D/out" "GS_BATCH_SIM_DEVICES" "batch --help names the simulated devices"
expect 0 "help batch" "$G" help batch
expect 0 "help" "$G" help
has "$D/out" "batch" "the main help lists batch"
echo '{"claims": [{"id": "a", "workload": {"air": "fib", "log_rows": 4}, "params": {"security": 80}}]}' >one.json
expect 2 "batch without a manifest" "$G" batch --store s
has "$D/err" "which manifest" "says a manifest is missing"
expect 2 "batch without --store" "$G" batch one.json
has "$D/err" "--store" "says --store is missing"
expect 2 "batch with two manifests" "$G" batch one.json one.json --store s
expect 2 "an unknown option" "$G" batch one.json --store s --frobnicate
has "$D/err" "unknown option '--frobnicate'" "names the unknown option"
expect 2 "--lanes 0" "$G" batch one.json --store s --lanes 0
expect 2 "--backend tpu" "$G" batch one.json --store s --backend tpu
expect 2 "--quiet with --json" "$G" batch one.json --store s -q --json
touch afile
expect 2 "--store is a file" "$G" batch one.json --store afile
expect 2 "--store under a file" "$G" batch one.json --store afile/s
expect 2 "--metrics in a missing directory" "$G" batch one.json --store s --metrics no/such/m.jsonl
mkdir adir
expect 2 "--out-partition is a directory" "$G" batch one.json --store s --out-partition adir
expect 2 "--metrics and --out-partition the same" "$G" batch one.json --store s --metrics p.json --out-partition p.json
GS_BATCH_SIM_DEVICES=2x64M expect 2 "a bad GS_BATCH_SIM_DEVICES" "$G" batch one.json --store s
has "$D/err" "GS_BATCH_SIM_DEVICES" "names the variable"
check "usage errors create no store" ! -e s
expect 2 "a missing manifest" "$G" batch nope.json --store s
check "nor does a missing manifest" ! -e s

# ---- bad manifests: exit 2, the claim named, nothing proven or written ----
bad() { # bad "what" 'json' "expected text"
    printf '%s' "$2" >bad.json
    expect 2 "manifest: $1" "$G" batch bad.json --store s --out-partition p.json --metrics m.jsonl
    has "$D/err" "$3" "manifest: $1: the message"
    check "manifest: $1: no store, partition or metrics written" ! -e s -a ! -e p.json -a ! -e m.jsonl
}
bad "a syntax error" '{"claims": [{"id": "a", "workload": {"air": "fib" "log_rows": 4}}]}' "JSON syntax error at line 1"
bad "an unknown workload" '{"claims": [{"id": "c", "workload": {"air": "nope"}}]}' "claim 'c': workload.air: unknown AIR 'nope'"
bad "duplicate ids" '{"claims": [{"id": "a", "workload": {"air": "fib", "log_rows": 4}}, {"id": "a", "workload": {"air": "fib", "log_rows": 5}}]}' "claim 'a': duplicate id"
bad "a cycle" '{"claims": [{"id": "a", "workload": {"air": "fib", "log_rows": 4}}], "joins": [{"id": "j1", "children": ["a", "j2"]}, {"id": "j2", "children": ["j1"]}]}' "cycle"
bad "an absurd fib" '{"claims": [{"id": "big", "workload": {"air": "fib", "log_rows": 31}}]}' "claim 'big': workload.log_rows: 31 is outside 1..30"
bad "absurd steps" '{"claims": [{"id": "big", "workload": {"air": "fib", "steps": 99999999999}}]}' "claim 'big'"
bad "an absurd mix" '{"claims": [{"id": "wide", "workload": {"air": "mix", "cols": 5000, "log_rows": 4}}]}' "claim 'wide'"

# ---- proofs: the bytes `gstark prove` makes, whatever the lanes ----
cat >small.json <<'EOF'
{"claims": [
 {"id": "f8", "workload": {"air": "fib", "log_rows": 8}, "params": {"security": 80}},
 {"id": "m", "workload": {"air": "mix", "cols": 8, "log_rows": 6, "degree": 3, "seed": 7}, "params": {"security": 80}},
 {"id": "u", "workload": {"air": "synth", "preset": "uniform", "shrink": 13, "seed": 1}, "params": {"security": 80}},
 {"id": "f7", "workload": {"air": "fib", "log_rows": 7}, "params": {"security": 80, "blowup": 8}}
]}
EOF
expect 0 "prove f8" "$G" prove --air fib --log-rows 8 --security 80 -o f8.proof -q
expect 0 "prove m" "$G" prove --air mix --cols 8 --log-rows 6 --degree 3 --seed 7 --security 80 -o m.proof -q
expect 0 "prove u" "$G" prove --air synth --preset uniform --shrink 13 --seed 1 --security 80 -o u.proof -q
expect 0 "prove f7" "$G" prove --air fib --log-rows 7 --security 80 --blowup 8 -o f7.proof -q
# key_of METRICS ID: the unit's key from its metrics line
key_of() { sed -n "s/.*\"id\":\"$2\".*\"key\":\"\([0-9a-f]*\)\".*/\1/p" "$1"; }
# object STORE KEY: the object's file
object() { printf '%s/objects/%s/%s' "$1" "${2:0:2}" "${2:2}"; }
root_of() { sed -n 's/.*"root":"\([0-9a-f]*\)".*/\1/p' "$1"; }
for lanes in 1 2 3; do
    expect 0 "batch with $lanes lanes" "$G" batch small.json --store "s$lanes" --lanes "$lanes" --metrics "m$lanes.jsonl" --json
    cp "$D/out" "j$lanes.json"
    for c in f8 m u f7; do
        k=$(key_of "m$lanes.jsonl" "$c")
        o=$(object "s$lanes" "$k")
        if [ -n "$k" ] && [ -f "$o" ] && cmp -s <(tail -c +89 "$o") "$c.proof"; then
            echo "ok: $lanes lanes: claim $c is byte-identical to gstark prove"
        else
            echo "FAIL: $lanes lanes: claim $c (key '$k') differs from gstark prove"; fail=1
        fi
    done
    check "$lanes lanes: one metrics line per unit" "$(grep -c '"unit":' "m$lanes.jsonl")" = 7
    check "$lanes lanes: one metrics line per lane" "$(grep -c '^{"lane":' "m$lanes.jsonl")" = "$lanes"
    check "$lanes lanes: a pipeline line" "$(grep -c '"pipeline"' "m$lanes.jsonl")" = 1
done
r1=$(root_of j1.json)
check "the root key is printed" -n "$r1"
check "the same root with 2 lanes" "$(root_of j2.json)" = "$r1"
check "the same root with 3 lanes" "$(root_of j3.json)" = "$r1"
for fin in lane 1 5; do # finishers: none (the lane does it), one, five: the same proofs and root
    expect 0 "batch with --finishers $fin" "$G" batch small.json --store "sf$fin" --lanes 2 --finishers "$fin" --json
    check "the same root with --finishers $fin" "$(root_of "$D/out")" = "$r1"
done
expect 2 "--finishers 0" "$G" batch small.json --store sf0 --finishers 0
expect 2 "--finishers many" "$G" batch small.json --store sf0 --finishers many
check "a bad --finishers creates no store" ! -e sf0
expect 0 "a rerun" "$G" batch small.json --store s1
has "$D/out" "claims 4: 0 proven, 4 reused" "a rerun reuses every claim"
has "$D/out" "root $r1" "and prints the same root"
has "$D/err" "claim f8 reused  lane" "one line per unit on stderr"
expect 0 "--report" "$G" batch small.json --store s1 --report --backend cpu
for col in execute-time prove-time "throughput (cells/s)" peak-ram peak-device-mem proof-size verify-time fft-cost shards "pipeline total" "claims/s" "lane 0 (host): busy"; do
    has "$D/out" "$col" "the report has $col"
done
expect 0 "-q" "$G" batch small.json --store s1 -q
check "-q prints nothing" ! -s "$D/all"
if [ "$tty_ok" = 1 ]; then
    on_tty "$G" batch small.json --store s1 --lanes 2
    has "$D/tty" "batch: claims" "a progress line on a terminal"
    expect 0 "not on a pipe" "$G" batch small.json --store s1
    hasnt "$D/err" "batch: claims" "no progress line on a pipe"
fi

# ---- failures: a refused claim is exit 3, the rest is proven ----
cat >refuse.json <<'EOF'
{"claims": [
 {"id": "ok", "workload": {"air": "fib", "log_rows": 5}, "params": {"security": 80}},
 {"id": "wide", "workload": {"air": "mix", "cols": 64, "log_rows": 12}, "params": {"security": 80}}
]}
EOF
GS_BATCH_SIM_DEVICES=1:1M expect 3 "a claim too large for every lane" "$G" batch refuse.json --store sr --metrics mr.jsonl
has "$D/err" "claim wide refused: needs" "the refusal with the numbers"
has "$D/err" "1 MiB" "and the budget"
has "$D/err" "join root skipped" "its dependants skipped"
has "$D/out" "root: none" "no root"
k=$(key_of mr.jsonl ok)
check "the other claim is stored" -n "$k" -a -f "$(object sr "$k")"

# ---- bisection under simulated devices; the partition reused ----
echo '{"claims": [{"id": "long", "workload": {"air": "fib", "log_rows": 13, "start": [4, 9]}, "params": {"security": 80}}]}' >long.json
GS_BATCH_SIM_DEVICES=2:1M expect 0 "a claim bisected for 1 MiB devices" "$G" batch long.json --store sb --out-partition part.json --report
has "$D/out" "bisected: 1 manifest claims" "it was bisected"
has "$D/out" "(bisection: boundaries checked)" "the report shows the split joins"
has part.json '"split": true' "the partition records the split"
has part.json '"id": "long/0/0' "and the pieces"
pieces=$(grep -c '"of": "long"' part.json)
check "several pieces ($pieces)" "$pieces" -ge 4
expect 0 "rerun with the partition, no devices" "$G" batch long.json --store sb --out-partition part.json --json
has "$D/out" '"proven":0' "the partition's pieces are all reused"
printf '{"claims": [{"id": "other", "workload": {"air": "fib", "log_rows": 5}}]}' >other.json
expect 2 "a partition of another manifest" "$G" batch other.json --store sb2 --out-partition part.json
has "$D/err" "not in the manifest" "says so"
check "and writes nothing" ! -e sb2

# ---- corrupt and truncated objects are re-proven ----
cp -r s1 sc
chmod -R u+w sc
f=$(object sc "$(key_of m1.jsonl f8)")
truncate -s 50 "$f"
f=$(object sc "$(key_of m1.jsonl m)")
printf 'X' | dd of="$f" bs=1 seek=200 conv=notrunc status=none
expect 0 "a rerun over a truncated and a flipped object" "$G" batch small.json --store sc --json
has "$D/out" '"corrupt":2' "both found"
has "$D/out" '"proven":2' "both proven again"
has "$D/err" "is corrupt" "and reported"
check "the same root" "$(root_of "$D/out")" = "$r1"
for c in f8 m; do
    check "claim $c: the same bytes again" "$(tail -c +89 "$(object sc "$(key_of m1.jsonl $c)")" | cmp - "$c.proof" && echo same)" = same
done

# ---- kill -9 at random points, then resume ----
{
    printf '{"claims": [\n'
    for i in $(seq 1 12); do
        printf ' {"id": "c%d", "workload": {"air": "fib", "log_rows": %d, "start": [%d, 1]}, "params": {"security": 80}}%s\n' \
            "$i" $((8 + i % 3)) "$i" "$([ "$i" = 12 ] && echo '' || echo ,)"
    done
    printf ']}\n'
} >crash.json
t0=$(date +%s.%N)
expect 0 "the uninterrupted run" "$G" batch crash.json --store sref --lanes 2 --json
t1=$(date +%s.%N)
rref=$(root_of "$D/out")
objs_ref=$(find sref/objects -type f | wc -l)
check "the reference stored every unit ($objs_ref)" "$objs_ref" = 23
for s in 1 2 3 4; do
    rm -rf sk pk.json
    delay=$(awk -v s=$((seed * 100 + s)) -v a="$t0" -v b="$t1" 'BEGIN { srand(s); printf "%.3f", rand() * (b - a) * 1.1 }')
    "$G" batch crash.json --store sk --lanes 2 --out-partition pk.json -q &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    n=$(find sk/objects -type f 2>/dev/null | wc -l)
    expect 0 "seed $s: resume after kill -9 at ${delay} s ($n objects stored)" "$G" batch crash.json --store sk --lanes 3 --out-partition pk.json --json
    has "$D/out" "\"reused\":$n," "seed $s: every stored object reused ($n)"
    check "seed $s: the uninterrupted run's root" "$(root_of "$D/out")" = "$rref"
    same=1
    for o in $(cd sref && find objects -type f); do cmp -s "sref/$o" "sk/$o" || same=0; done
    check "seed $s: every object equals the uninterrupted run's" "$same" = 1
    check "seed $s: no temporaries left" "$(find sk/tmp -type f | wc -l)" = 0
done

# ---- two batches on one store at once ----
"$G" batch crash.json --store sboth --lanes 2 --json >both1.json 2>both1.err &
p1=$!
"$G" batch crash.json --store sboth --lanes 2 --json >both2.json 2>both2.err &
p2=$!
wait "$p1"; e1=$?
wait "$p2"; e2=$?
check "two batches at once: both exit 0 ($e1, $e2)" "$e1$e2" = 00
check "both print the root" "$(root_of both1.json)" = "$rref" -a "$(root_of both2.json)" = "$rref"
same=1
for o in $(cd sref && find objects -type f); do cmp -s "sref/$o" "sboth/$o" || same=0; done
check "and the store holds the same objects" "$same" = 1
exit $fail
