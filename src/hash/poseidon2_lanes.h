/* Poseidon2's bulk kernels over several states held in the lanes of one SIMD vector (state k in
 * 64-bit lane k): permutations of many states, rows through the sponge, pairs of digests
 * through the compression. Written once for AVX2 and AVX-512; no include guard. A file
 * includes it once after defining
 *   VT, VLANES            the vector type and its number of 64-bit lanes;
 *   VI, V_IDX(off)        an index vector type and its load from long long off[VLANES];
 *   VATTR                 the target attribute of every function;
 *   VSUF                  the suffix of the exported kernel names (gs_p2_*_VSUF);
 *   V_ADD, V_MUL, V_CONST Fp arithmetic and a broadcast constant (as poseidon2_round.h);
 *   V_CANON(x)            x mod p for any 64-bit lanes;
 *   V_GATHER(p, idx)      lanes p[idx[k]] (gs_fp elements);
 *   V_LOADU(p), V_STOREU(p, v)  VLANES contiguous elements.
 * A group of count < VLANES states fills its spare lanes with the last state again and drops
 * their results, so no element outside the caller's arrays is read. Every gather of a group
 * happens before any of its stores (compress_many in place relies on it). */

#define P2T VT
#define P2_FN VATTR static inline
#define P2_NAME(x) p2v_##x
#define P2_ADD(a, b) V_ADD(a, b)
#define P2_MUL(a, b) V_MUL(a, b)
#define P2_CONST(c) V_CONST(c)
#include "hash/poseidon2_round.h"

#define P2V_CAT_(a, b) a##b
#define P2V_CAT(a, b) P2V_CAT_(a, b)
#define P2V_EXPORT(name) P2V_CAT(name, VSUF)

/* off[k] = min(k, count - 1) * step, as an index vector. */
VATTR static inline VI p2v_index(size_t step, unsigned count) {
    long long off[VLANES];
    for (unsigned k = 0; k < VLANES; k++) off[k] = (long long)((k < count ? k : count - 1) * step);
    return V_IDX(off);
}

/* State k of the group = w elements at st + k * w. */
VATTR static void p2v_permute_group(gs_fp *st, unsigned w, unsigned count, const uint64_t *rc_ext,
                                    const uint64_t *rc_int, const uint64_t *diag) {
    const VI idx = p2v_index(w, count);
    VT s[12];
    for (unsigned i = 0; i < w; i++) s[i] = V_GATHER(st + i, idx);
    p2v_permute(s, w, rc_ext, rc_int, diag);
    gs_fp t[VLANES];
    for (unsigned i = 0; i < w; i++) {
        V_STOREU(t, s[i]);
        for (unsigned k = 0; k < count; k++) st[(size_t)k * w + i] = t[k];
    }
}

VATTR static void p2v_hash_group(gs_poseidon2_digest *out, const gs_fp *in, size_t row_len,
                                 size_t row_stride, size_t col_stride, unsigned count) {
    const VI idx = p2v_index(row_stride, count);
    const int contiguous = row_stride == 1 && count == VLANES;
    VT s[12];
    for (unsigned i = 0; i < 12; i++) s[i] = V_CONST(0);
    s[GS_POSEIDON2_RATE] = V_CONST(gs_fp_from_u64((uint64_t)row_len));
    size_t j = 0;
    do {
        for (unsigned k = 0; k < GS_POSEIDON2_RATE && j < row_len; k++, j++) {
            const gs_fp *p = in + j * col_stride;
            VT x = contiguous ? V_LOADU(p) : V_GATHER(p, idx);
            s[k] = V_ADD(s[k], V_CANON(x));
        }
        p2v_permute(s, 12, gs_p2_rc12_ext, gs_p2_rc12_int, gs_p2_diag12);
    } while (j < row_len);
    gs_fp t[4][VLANES];
    for (unsigned i = 0; i < 4; i++) V_STOREU(t[i], s[i]);
    for (unsigned k = 0; k < count; k++)
        for (unsigned i = 0; i < 4; i++) out[k].v[i] = t[i][k];
}

VATTR static void p2v_compress_group(gs_poseidon2_digest *out, const gs_poseidon2_digest *in,
                                     unsigned count) {
    const VI idx = p2v_index(8, count);
    const gs_fp *base = in[0].v;
    VT s[8], x[4];
    for (unsigned i = 0; i < 8; i++) s[i] = V_GATHER(base + i, idx);
    for (unsigned i = 0; i < 4; i++) x[i] = s[i];
    p2v_permute(s, 8, gs_p2_rc8_ext, gs_p2_rc8_int, gs_p2_diag8);
    gs_fp t[4][VLANES];
    for (unsigned i = 0; i < 4; i++) V_STOREU(t[i], V_ADD(s[i], x[i]));
    for (unsigned k = 0; k < count; k++)
        for (unsigned i = 0; i < 4; i++) out[k].v[i] = t[i][k];
}

/* A lone leftover state goes through the scalar code: one SIMD group costs as much as
 * VLANES states. */
VATTR void P2V_EXPORT(gs_p2_permute_w8_many_)(gs_fp *st, size_t n) {
    size_t i = 0;
    for (; i + VLANES <= n; i += VLANES)
        p2v_permute_group(st + 8 * i, 8, VLANES, gs_p2_rc8_ext, gs_p2_rc8_int, gs_p2_diag8);
    if (n - i > 1)
        p2v_permute_group(st + 8 * i, 8, (unsigned)(n - i), gs_p2_rc8_ext, gs_p2_rc8_int,
                          gs_p2_diag8);
    else if (n - i == 1)
        gs_poseidon2_permute_w8(st + 8 * i);
}

VATTR void P2V_EXPORT(gs_p2_permute_w12_many_)(gs_fp *st, size_t n) {
    size_t i = 0;
    for (; i + VLANES <= n; i += VLANES)
        p2v_permute_group(st + 12 * i, 12, VLANES, gs_p2_rc12_ext, gs_p2_rc12_int, gs_p2_diag12);
    if (n - i > 1)
        p2v_permute_group(st + 12 * i, 12, (unsigned)(n - i), gs_p2_rc12_ext, gs_p2_rc12_int,
                          gs_p2_diag12);
    else if (n - i == 1)
        gs_poseidon2_permute_w12(st + 12 * i);
}

VATTR void P2V_EXPORT(gs_p2_hash_rows_)(gs_poseidon2_digest *out, const gs_fp *in, size_t n_rows,
                                        size_t row_len, size_t row_stride, size_t col_stride) {
    size_t i = 0;
    for (; i + VLANES <= n_rows; i += VLANES)
        p2v_hash_group(out + i, in + i * row_stride, row_len, row_stride, col_stride, VLANES);
    if (n_rows - i > 1)
        p2v_hash_group(out + i, in + i * row_stride, row_len, row_stride, col_stride,
                       (unsigned)(n_rows - i));
    else if (n_rows - i == 1)
        gs_p2_hash_rows_with(GS_P2_PORTABLE, out + i, in + i * row_stride, 1, row_len,
                             row_stride, col_stride);
}

VATTR void P2V_EXPORT(gs_p2_compress_many_)(gs_poseidon2_digest *out,
                                            const gs_poseidon2_digest *in, size_t n) {
    size_t i = 0;
    for (; i + VLANES <= n; i += VLANES) p2v_compress_group(out + i, in + 2 * i, VLANES);
    if (n - i > 1)
        p2v_compress_group(out + i, in + 2 * i, (unsigned)(n - i));
    else if (n - i == 1)
        gs_poseidon2_compress(out + i, in + 2 * i, in + 2 * i + 1);
}
