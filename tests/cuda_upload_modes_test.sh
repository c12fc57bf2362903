#!/usr/bin/env bash
# The CUDA upload modes (GS_CUDA_UPLOAD, src/cuda/device.cu): a proof whose
# trace upload takes each path (0: the staging buffers, 1: one copy from
# pageable memory, 2: pinned in place piece by piece) has the same bytes as
# the CPU backend's. The trace, 64 x 2^20 values (512 MiB), is over the
# modes' threshold (two staging chunks) and two of mode 2's 256 MiB pieces
# (its start not on a page boundary in general). Exits 77 (skipped) without
# a CUDA device.
# usage: cuda_upload_modes_test.sh path/to/gstark
G=$1
case $("$G" version) in *" 0 device(s)"* | *"not built"*) echo "skipped: no CUDA device"; exit 77 ;; esac
D=$(mktemp -d) || exit 1
trap 'rm -rf "$D"' EXIT
fail=0
args=(prove --air mix --cols 64 --log-rows 20 --grinding 8 -q)
"$G" "${args[@]}" --backend cpu -o "$D/cpu.proof" || { echo "FAIL: the CPU proof"; exit 1; }
for m in 0 1 2; do
    if ! GS_CUDA_UPLOAD=$m "$G" "${args[@]}" --backend cuda --no-fallback -o "$D/m$m.proof"; then
        echo "FAIL: upload mode $m: the CUDA proof failed"; fail=1
    elif ! cmp -s "$D/cpu.proof" "$D/m$m.proof"; then
        echo "FAIL: upload mode $m: the proof differs from the CPU's"; fail=1
    else
        echo "ok: upload mode $m"
    fi
done
exit $fail
