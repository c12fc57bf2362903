# Shared pieces of the CLI tests (sourced; not a test itself).
# After sourcing: G is the gstark binary (absolute), D a private temporary
# directory (removed on exit) and the working directory, fail the failure
# flag, abspath PATH, and:
#   expect CODE "what" cmd...   runs cmd; stdout in $D/out, stderr in $D/err,
#                               both in $D/all; fails unless it exits CODE
#   check "what" test-args...   fails unless [ test-args ] holds
#   has FILE TEXT "what"        fails unless FILE contains TEXT (fixed string)
#   hasnt FILE TEXT "what"      fails if FILE contains TEXT
#   on_tty cmd...               runs cmd with a terminal as stdin, stdout and
#                               stderr (script(1)); output in $D/tty; only
#                               where tty_ok is 1 (a terminal can be had here)
set -u
abspath() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
G=$(abspath "$1")
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
# Run inside D: a binary that writes somewhere it should not writes there.
cd "$D" || exit 1
fail=0
# Tiny, fast parameters: 80 bits (the verifier's minimum) with 4 grinding bits.
fast=(--grinding 4 --security 80)

expect() {
    local want=$1 what=$2
    shift 2
    "$@" >"$D/out" 2>"$D/err"
    local got=$?
    cat "$D/out" "$D/err" >"$D/all"
    if [ "$got" != "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"
        sed 's/^/    /' "$D/all" | head -20
        fail=1
    else
        echo "ok: $what (exit $got)"
    fi
}
check() {
    local what=$1
    shift
    if [ "$@" ]; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
has() {
    if grep -qF -- "$2" "$1"; then echo "ok: $3"; else
        echo "FAIL: $3: no '$2' in:"; sed 's/^/    /' "$1" | head -20; fail=1
    fi
}
hasnt() {
    if grep -qF -- "$2" "$1"; then
        echo "FAIL: $3: '$2' found in:"; sed 's/^/    /' "$1" | head -20; fail=1
    else echo "ok: $3"; fi
}
tty_ok=0
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then tty_ok=1; fi
on_tty() {
    local cmd="" a
    for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
    script -qec "$cmd" /dev/null </dev/null >"$D/tty" 2>&1
}
