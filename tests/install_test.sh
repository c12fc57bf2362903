#!/usr/bin/env bash
# cmake --install into a temporary prefix, then build examples/custom_air.c
# against that installed copy twice, once through pkg-config only and once
# through find_package only, and run both builds. Also checks the installed
# layout (library, every public header, the gstark command, the package files).
# usage: install_test.sh BUILD_DIR SOURCE_DIR CMAKE CC [CONFIG]
set -u
build=$1 src=$2 cmake=$3 cc=$4 config=${5:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gstark-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
log=$tmp/log
fail() { echo "FAIL: $*"; [ -s "$log" ] && tail -n 40 "$log"; exit 1; }
run() { "$@" >"$log" 2>&1; } # run CMD...: its output goes to the log

cfg=()
[ -n "$config" ] && cfg=(--config "$config")
run "$cmake" --install "$build" --prefix "$prefix" ${cfg[@]+"${cfg[@]}"} || fail "cmake --install"
echo "ok: installed into a temporary prefix"

# ---- the layout ----
pcs=$(find "$prefix" -name gstark.pc)
[ "$(printf '%s\n' "$pcs" | grep -c .)" = 1 ] || fail "expected one gstark.pc, found: $pcs"
libdir=$(dirname "$(dirname "$pcs")")
[ -f "$libdir/libgstark.a" ] || [ -e "$libdir/libgstark.so" ] || fail "no libgstark in $libdir"
[ -f "$libdir/cmake/gstark/gstarkConfig.cmake" ] && [ -f "$libdir/cmake/gstark/gstarkConfigVersion.cmake" ] \
    || fail "no CMake package files in $libdir/cmake/gstark"
for h in "$src"/include/gstark/*.h; do
    cmp -s "$h" "$prefix/include/gstark/$(basename "$h")" || fail "header $(basename "$h") not installed"
done
# Run without LD_LIBRARY_PATH: a shared build's command finds libgstark itself.
run "$prefix/bin/gstark" version || fail "the installed gstark command"
grep -q '^gstark ' "$log" || fail "gstark version printed no version"
echo "ok: layout ($(cd "$prefix" && find . -type f | wc -l) files) and the gstark command: $(cat "$log")"

# A shared libgstark is found through LD_LIBRARY_PATH by the pkg-config build
# (pkg-config gives no rpath); it must resolve to the installed copy.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
from_prefix() { # from_prefix BINARY: a dynamic libgstark must come from $libdir
    local where
    where=$(ldd "$1" 2>/dev/null | awk '/libgstark/ {print $3}')
    [ -z "$where" ] || case $where in "$libdir"/*) ;; *) fail "$1 loads $where" ;; esac
}

# ---- pkg-config only ----
command -v pkg-config >/dev/null || fail "pkg-config not found (scripts/install-deps.sh installs it)"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --variable=prefix gstark)" = "$prefix" ] \
    || fail "gstark.pc has prefix $(pkg-config --variable=prefix gstark), expected $prefix"
flags=$(pkg-config --cflags --libs --static gstark) || fail "pkg-config gstark"
case " $flags " in *" -I$src"* | *" -L$build"*) fail "pkg-config points into the source or build tree: $flags" ;; esac
echo "ok: pkg-config --cflags --libs --static gstark: $flags"
# shellcheck disable=SC2086 # the flags are words
run "$cc" -std=c11 "$src/examples/custom_air.c" -o "$tmp/custom_air_pc" $flags || fail "build with pkg-config"
from_prefix "$tmp/custom_air_pc"
run "$tmp/custom_air_pc" || fail "custom_air built with pkg-config"
echo "ok: built with pkg-config and ran: $(tail -n 1 "$log")"
unset PKG_CONFIG_PATH

# ---- find_package only ----
mkdir "$tmp/consumer" || fail "mkdir"
cat >"$tmp/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(gstark_consumer C)
find_package(gstark 0.1 REQUIRED CONFIG)
add_executable(custom_air "$src/examples/custom_air.c")
target_link_libraries(custom_air PRIVATE gstark::gstark)
CMAKE
run "$cmake" -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    || fail "configure a project that calls find_package(gstark)"
found=$(sed -n 's/^gstark_DIR:PATH=//p' "$tmp/consumer/build/CMakeCache.txt")
[ "$found" = "$libdir/cmake/gstark" ] || fail "find_package found gstark in '$found', not in $libdir/cmake/gstark"
run "$cmake" --build "$tmp/consumer/build" || fail "build with find_package"
from_prefix "$tmp/consumer/build/custom_air"
run "$tmp/consumer/build/custom_air" || fail "custom_air built with find_package"
echo "ok: built with find_package(gstark) and ran: $(tail -n 1 "$log")"
