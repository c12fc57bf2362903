#!/usr/bin/env bash
# gstark's output files: a regular file is replaced atomically; a character
# device or FIFO is written through, never replaced; a symbolic link,
# directory or missing directory is refused before any proving (exit 2, no
# summary, no progress, no file, no temporary left); -o - writes only the
# proof bytes to stdout; a directory given to verify says so.
# usage: cli_output_test.sh path/to/gstark
. "$(dirname "$0")/cli_lib.sh"

prove=("$G" prove --air fib --log-rows 6 "${fast[@]}")
expect 0 "reference proof into a new file" "${prove[@]}" -o "$D/ref.proof"
expect 0 "verify it" "$G" verify "$D/ref.proof"

# ---- a regular file is replaced (its mode kept), atomically ----
printf 'old contents' >"$D/reg.proof"
chmod 640 "$D/reg.proof"
expect 0 "prove over an existing regular file" "${prove[@]}" -o "$D/reg.proof"
cmp -s "$D/reg.proof" "$D/ref.proof" || { echo "FAIL: the regular file does not hold the proof"; fail=1; }
check "its mode is kept (640)" "$(stat -c %a "$D/reg.proof")" = 640

# ---- -o -: the proof bytes, and only them, on stdout ----
"${prove[@]}" -o - >"$D/stdout.proof" 2>"$D/stderr.txt"
check "prove -o - exits 0" $? = 0
cmp -s "$D/stdout.proof" "$D/ref.proof" || { echo "FAIL: stdout does not carry exactly the proof bytes"; fail=1; }
has "$D/stderr.txt" "proved fib" "the summary goes to stderr"
has "$D/stderr.txt" "wrote standard output" "and says where the proof went"
"${prove[@]}" -o - 2>/dev/null | "$G" verify - >"$D/piped.txt" 2>&1
check "prove -o - | verify - accepts (exit ${PIPESTATUS[1]})" "${PIPESTATUS[1]}" = 0
has "$D/piped.txt" "valid: fib" "verify - read the piped proof"
"$G" prove --air synth --shrink 14 "${fast[@]}" -o - 2>/dev/null >"$D/multi_stdout.proof"
expect 0 "a multi-table proof through -o - verifies" "$G" verify "$D/multi_stdout.proof"

# ---- a FIFO is written through ----
mkfifo "$D/fifo"
timeout 60 cat "$D/fifo" >"$D/from_fifo" &
reader=$!
expect 0 "prove into a FIFO with a reader" "${prove[@]}" -o "$D/fifo"
wait "$reader"
check "the FIFO is still a FIFO" -p "$D/fifo"
cmp -s "$D/from_fifo" "$D/ref.proof" || { echo "FAIL: the reader did not get the proof bytes"; fail=1; }

# ---- a symbolic link is refused, before proving, and left alone ----
cp "$D/ref.proof" "$D/target.proof"
printf 'keep me' >"$D/target.proof"
ln -s "$D/target.proof" "$D/link.proof"
expect 2 "prove into a symbolic link" "${prove[@]}" -o "$D/link.proof"
has "$D/err" "is a symbolic link" "it says why"
check "the link is still a link" -L "$D/link.proof"
check "its target is untouched" "$(cat "$D/target.proof")" = "keep me"
ln -s "$D/nowhere" "$D/dangling.proof"
expect 2 "prove into a dangling symbolic link" "${prove[@]}" -o "$D/dangling.proof"
check "the dangling link is left alone" -L "$D/dangling.proof"
check "and nothing was created where it points" ! -e "$D/nowhere"

# ---- character devices: written through, never replaced ----
# Private device nodes in the temporary directory (root only), and /dev/null
# itself only inside a private mount namespace where a private node is
# bind-mounted over it; the machine's own device nodes are never written.
if [ "$(id -u)" = 0 ] && mknod "$D/null" c 1 3 2>/dev/null && mknod "$D/full" c 1 7 2>/dev/null &&
    : >"$D/null" 2>/dev/null; then
    expect 0 "prove into a private null device node" "${prove[@]}" -o "$D/null"
    check "it is still a character device" -c "$D/null"
    expect 2 "prove into a private full device node (ENOSPC)" "${prove[@]}" -o "$D/full"
    has "$D/err" "No space left on device" "the write error is reported"
    check "it is still a character device" -c "$D/full"
    if unshare -m true 2>/dev/null; then
        unshare -m bash -c '
            mount --bind "$1" /dev/null || exit 99
            "$2" prove --air fib --log-rows 6 --grinding 4 --security 80 -o /dev/null -q || exit $?
            [ -c /dev/null ] || exit 98
            [ "$(stat -c %t:%T /dev/null)" = 1:3 ] || exit 97' _ "$D/null" "$G" >"$D/ns.txt" 2>&1
        r=$?
        if [ "$r" = 99 ]; then
            echo "skip: -o /dev/null in a mount namespace (bind mount refused here)"
        else
            check "-o /dev/null (private mount namespace) exits 0, leaves a device (got $r)" "$r" = 0
        fi
    else
        echo "skip: -o /dev/null in a mount namespace (unshare -m refused here)"
    fi
else
    echo "skip: character device targets (needs root and device nodes in $D)"
fi

# ---- bad output paths fail before any proving ----
# A large proof is asked for each time; if proving started, it would print a
# summary on stdout (and on a terminal a progress line) and take seconds.
big=("$G" prove --air fib --log-rows 20 "${fast[@]}")
mkdir "$D/adir"
printf 'x' >"$D/afile"
bad() { # bad "what" "message" args...
    local what=$1 msg=$2
    shift 2
    expect 2 "$what" "${big[@]}" "$@"
    has "$D/err" "$msg" "$what: it says why"
    check "$what: nothing on stdout (no proving, no summary)" ! -s "$D/out"
    if [ "$tty_ok" = 1 ]; then
        on_tty "${big[@]}" "$@"
        hasnt "$D/tty" "tables committed" "$what: no progress line on a terminal (proving never started)"
    fi
}
bad "-o into a missing directory" "No such file or directory" -o "$D/no/such/dir/p.proof"
bad "-o naming a directory" "is a directory" -o "$D/adir"
bad "-o naming a directory with a slash" "is a directory" -o "$D/adir/"
bad "-o under a regular file" "Not a directory" -o "$D/afile/p.proof"
bad "-o into a symbolic link" "is a symbolic link" -o "$D/link.proof"
bad "-o with an empty name" "needs a file name" -o ""
big=("$G" prove --air synth --shrink 4 "${fast[@]}")
bad "--metrics into a missing directory" "--metrics $D/no/m.jsonl" --metrics "$D/no/m.jsonl" -o "$D/m.proof"
check "the proof file was not written either" ! -e "$D/m.proof"
bad "--metrics naming a directory" "is a directory" --metrics "$D/adir" -o "$D/m.proof"
bad "--metrics to standard output" "only the proof (-o) can go to standard output" --metrics - -o "$D/m.proof"
bad "--metrics and -o the same file" "name the same file" --metrics "$D/same" -o "$D/same"
bad "--timeline and -o the same file by two spellings" "--timeline and -o name the same file" -o "$D/same2" --timeline "$D/./same2"
if [ "$(id -u)" != 0 ]; then
    mkdir "$D/ro" && chmod 555 "$D/ro"
    big=("$G" prove --air fib --log-rows 20 "${fast[@]}")
    bad "-o into a read-only directory" "Permission denied" -o "$D/ro/p.proof"
    chmod 755 "$D/ro"
else
    echo "skip: read-only directory (root writes anywhere)"
fi
expect 0 "--metrics into a new file" "$G" prove --air synth --shrink 14 "${fast[@]}" --metrics "$D/m.jsonl" -o "$D/m.proof"
check "the metrics file holds JSON lines" "$(head -c 1 "$D/m.jsonl")" = "{"

# ---- inputs ----
expect 2 "verify a directory" "$G" verify "$D/adir"
has "$D/err" "is a directory" "it says it is a directory"
hasnt "$D/err" "too large" "not 'File too large'"
expect 2 "inspect a directory" "$G" inspect "$D/adir"
has "$D/err" "is a directory" "it says it is a directory"
truncate -s 1100M "$D/huge.proof" # sparse: no disk used
expect 2 "verify a file above the 1 GiB limit" "$G" verify "$D/huge.proof"
has "$D/err" "larger than 1024 MiB" "it says the file is too large"
rm -f "$D/huge.proof"
expect 2 "verify a missing file" "$G" verify "$D/missing.proof"
has "$D/err" "No such file or directory" "it says why"
expect 0 "verify a proof from a FIFO" bash -c '"$1" prove --air fib --log-rows 6 --grinding 4 --security 80 -q -o - >"$2" & "$3" verify "$2"; r=$?; wait; exit $r' _ "$G" "$D/fifo" "$G"

leftovers=$(find "$D" -name '*.tmp.*' | wc -l)
check "no temporary files left behind" "$leftovers" = 0
exit $fail
