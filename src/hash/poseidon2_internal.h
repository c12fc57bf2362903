/* Private to src/hash and its tests/benchmarks: the Poseidon2 tables, the explicit choice of
 * implementation behind the bulk entry points (so that every SIMD path can be compared with the
 * portable one), and the SIMD kernels. */
#ifndef GS_POSEIDON2_INTERNAL_H
#define GS_POSEIDON2_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/poseidon2.h"
#include "hash/keccak_internal.h" /* GS_KECCAK_X86 and the cached CPU features */

/* The tables (poseidon2_consts.h's lists): external round constants (8 rows of W), partial
 * round constants (22), internal diagonals (W). */
extern const uint64_t gs_p2_rc8_ext[64], gs_p2_rc8_int[22], gs_p2_diag8[8];
extern const uint64_t gs_p2_rc12_ext[96], gs_p2_rc12_int[22], gs_p2_diag12[12];

typedef enum gs_p2_impl {
    GS_P2_PORTABLE = 0, /* one state at a time, scalar C */
    GS_P2_AVX2 = 1,     /* 4 states, one per 64-bit lane of a ymm register */
    GS_P2_AVX512 = 2,   /* 8 states, one per 64-bit lane of a zmm register */
    GS_P2_IMPL_COUNT = 3
} gs_p2_impl;

int gs_p2_available(gs_p2_impl impl);
const char *gs_p2_name(gs_p2_impl impl);
gs_p2_impl gs_p2_best(void); /* the fastest available: what the public bulk calls use */

/* The bulk operations through a given implementation, which must be available:
 * n states of W elements each, contiguous (state k at st + k * W), permuted in place; */
void gs_p2_permute_w8_many_with(gs_p2_impl impl, gs_fp *st, size_t n);
void gs_p2_permute_w12_many_with(gs_p2_impl impl, gs_fp *st, size_t n);
/* gs_poseidon2_hash_rows and gs_poseidon2_compress_many. */
void gs_p2_hash_rows_with(gs_p2_impl impl, gs_poseidon2_digest *out, const gs_fp *in,
                          size_t n_rows, size_t row_len, size_t row_stride, size_t col_stride);
void gs_p2_compress_many_with(gs_p2_impl impl, gs_poseidon2_digest *out,
                              const gs_poseidon2_digest *in, size_t n);

/* The kernels (poseidon2_x4_avx2.c, poseidon2_x8_avx512.c): any n, tails included. */
#define GS_P2_KERNEL_DECLS(SUFFIX)                                                            \
    void gs_p2_permute_w8_many_##SUFFIX(gs_fp *st, size_t n);                                 \
    void gs_p2_permute_w12_many_##SUFFIX(gs_fp *st, size_t n);                                \
    void gs_p2_hash_rows_##SUFFIX(gs_poseidon2_digest *out, const gs_fp *in, size_t n_rows,   \
                                  size_t row_len, size_t row_stride, size_t col_stride);      \
    void gs_p2_compress_many_##SUFFIX(gs_poseidon2_digest *out, const gs_poseidon2_digest *in, \
                                      size_t n);
GS_P2_KERNEL_DECLS(avx2)
GS_P2_KERNEL_DECLS(avx512)

#endif
