#!/usr/bin/env bash
# libgstark.so (BUILD_SHARED_LIBS=ON) exports exactly the public API: every
# global symbol it defines is declared in include/gstark/*.h, and every
# function those headers declare that the library defines is exported.
# The declared names come from cmake/gs_public_symbols.cmake (gstark.syms,
# also the source of the version script), so each is checked here against the
# headers' text as well; the library's own globals come from the static copy
# of the same objects, gstark_internal.
# usage: symbols_test.sh LIBGSTARK_SO LIBGSTARK_INTERNAL_A GSTARK_SYMS INCLUDE_DIR [NM]
set -u
so=$1 ar=$2 syms=$3 inc=$4 nm=${5:-nm}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gstark-symbols.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

sort -u "$syms" >"$tmp/declared"
# Exported: defined, global (upper-case type) dynamic symbols.
"$nm" -D --defined-only "$so" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {sub(/@.*/, "", $3); print $3}' |
    sort -u >"$tmp/exported"
# Everything the library's objects define globally, internal functions included.
"$nm" --defined-only -g "$ar" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' |
    sort -u >"$tmp/defined"
echo "declared in include/gstark: $(wc -l <"$tmp/declared"), exported: $(wc -l <"$tmp/exported")," \
     "global in the library's objects: $(wc -l <"$tmp/defined")"

for f in gs_air_new gs_prove gs_verify gs_proof_parse; do
    grep -qx "$f" "$tmp/declared" || bad "$f missing from the declared list"
done
# Each declared name is a call-like name in the headers' text.
while read -r f; do
    cat "$inc"/gstark/*.h | grep -qE "(^|[^A-Za-z0-9_])$f[[:space:]]*[(;[]" ||
        bad "$f is in $syms but not declared in $inc/gstark"
done <"$tmp/declared"

leaked=$(comm -23 "$tmp/exported" "$tmp/declared")
[ -z "$leaked" ] || bad "exported but not public:" $leaked
missing=$(comm -12 "$tmp/declared" "$tmp/defined" | comm -23 - "$tmp/exported")
[ -z "$missing" ] || bad "public and defined but not exported:" $missing
hidden=$(comm -23 "$tmp/defined" "$tmp/declared" | wc -l)
[ "$hidden" -gt 0 ] || bad "no internal globals found in $ar: cannot tell hiding works"
undefined=$(comm -23 "$tmp/declared" "$tmp/defined")
[ -z "$undefined" ] || echo "note: declared but defined nowhere in the library:" $undefined
[ $fail = 0 ] && echo "ok: $(wc -l <"$tmp/exported") public symbols exported, $hidden internal globals hidden"
exit $fail
