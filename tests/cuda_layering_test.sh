#!/usr/bin/env bash
# src/cuda/ sits on the field, hash and NTT layers only (docs/architecture.md):
# its kernels and launchers take plain arguments, and src/backend/cuda.c adapts
# the backend interface to them. This fails on any include in src/cuda/ of a
# layer above (backend/, air/, transcript/, prover/, ...) so that the old
# cycle (backend/cuda.c -> cuda/ -> backend/backend.h) cannot come back.
#
# Checked: src/cuda/*.{h,cuh,cu,c} and src/cuda's public headers,
# include/gstark/cuda*.h. Allowed: system and CUDA headers (<...> outside the
# project), src/cuda's own headers, the lower layers (field/, hash/, ntt/ and
# their public headers), and
# from above only
#   air/logup_eval.h    the LogUp constraints written once for both backends;
# which must itself include nothing but gstark/field.h (field/inv_lin.h,
# 1/(x - z) over Fp3 for DEEP, is in the field layer, checked the same way).
# usage: cuda_layering_test.sh SOURCE_DIR
set -u
root=${1:?usage: cuda_layering_test.sh SOURCE_DIR}
src=$root/src
fail=0
bad() { echo "FAIL: $*"; fail=1; }

public_ok='^gstark/(status|field|hash|poseidon2|ntt|cuda|cuda_[a-z0-9]+)\.h$'
lower_ok='^(cuda|field|hash|ntt)/[A-Za-z0-9_.]+$'
above_ok='^air/logup_eval\.h$'
project_dirs='^(gstark|util|field|hash|ntt|merkle|transcript|air|fri|proof|prover|verifier|backend|cuda|sched|batch|store|cluster|obs|airs|zkvm)/'

# Prints "file:line:kind:path" for each #include of a file (kind q or a).
includes() {
    awk '/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
             s = $0
             sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
             kind = substr(s, 1, 1) == "<" ? "a" : "q"
             s = substr(s, 2)
             sub(/[">].*/, "", s)
             print FILENAME ":" FNR ":" kind ":" s
         }' "$@"
}

shopt -s nullglob
files=("$src"/cuda/*.h "$src"/cuda/*.cuh "$src"/cuda/*.cu "$src"/cuda/*.c "$root"/include/gstark/cuda*.h)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no files under $src/cuda"; exit 1; }
checked=0
while IFS=: read -r file line kind path; do
    checked=$((checked + 1))
    where="${file#"$root"/}:$line"
    if [ "$kind" = a ]; then
        # <...>: system and CUDA headers; a project path in angle brackets is
        # judged like a quoted one.
        [[ $path =~ $project_dirs ]] || continue
    fi
    if [[ $path =~ $public_ok || $path =~ $lower_ok || $path =~ $above_ok ]]; then
        continue
    fi
    bad "$where includes \"$path\": src/cuda/ may use only the field, hash and NTT layers" \
        "(take plain arguments; src/backend/cuda.c adapts)"
done < <(includes "${files[@]}")

# The header allowed from above, and the DEEP inverse both backends share, stay field-only.
for h in air/logup_eval.h field/inv_lin.h; do
    [ -f "$src/$h" ] || { bad "$h is missing"; continue; }
    while IFS=: read -r file line kind path; do
        [ "$kind" = a ] && ! [[ $path =~ $project_dirs ]] && continue
        [ "$path" = gstark/field.h ] || bad "$h:$line includes \"$path\" (only gstark/field.h)"
    done < <(includes "$src/$h")
done

echo "src/cuda and include/gstark/cuda*.h: ${#files[@]} files, $checked includes checked"
[ $fail -eq 0 ] && echo "PASS: src/cuda includes only the field, hash and NTT layers"
exit $fail
