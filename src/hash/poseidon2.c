/* Poseidon2 over Goldilocks (gstark/poseidon2.h): the tables, the portable permutation
 * (poseidon2_round.h on gs_fp), the sponge, the compression, the digest's bytes, and the
 * choice of SIMD kernel behind the bulk calls (CPU features detected once, in hash.c). */
#include <string.h>

#include "hash/poseidon2_consts.h"
#include "hash/poseidon2_internal.h"

const uint64_t gs_p2_rc8_ext[64] = GS_P2_RC8_EXT;
const uint64_t gs_p2_rc8_int[22] = GS_P2_RC8_INT;
const uint64_t gs_p2_diag8[8] = GS_P2_DIAG8;
const uint64_t gs_p2_rc12_ext[96] = GS_P2_RC12_EXT;
const uint64_t gs_p2_rc12_int[22] = GS_P2_RC12_INT;
const uint64_t gs_p2_diag12[12] = GS_P2_DIAG12;

/* ---- the portable permutation ---- */

#define P2T gs_fp
#define P2_FN static inline
#define P2_NAME(x) p2s_##x
#define P2_ADD(a, b) gs_fp_add(a, b)
#define P2_MUL(a, b) gs_fp_mul(a, b)
#define P2_CONST(c) ((gs_fp)(c))
/* Lazy linear layers: sums in 128 bits, one reduction per output; a * c + b with one. */
typedef unsigned __int128 p2_u128;
#define P2W p2_u128
#define P2W_OF(x) ((p2_u128)(x))
#define P2W_ADD(a, b) ((a) + (b))
#define P2W_RED(x) red_small(x)
#define P2_MULADD(a, c, b) red_wide((p2_u128)(a) * (c) + (b))

/* x mod p for x < 2^96: with x = hi 2^64 + lo, hi < 2^32, x = lo + hi (2^32 - 1) (mod p);
 * hi (2^32 - 1) < 2^64 - 2^33 + 2, so the sum carries at most once, and after adding the
 * carry's 2^32 - 1 it is below 2p. */
static inline gs_fp red_small(p2_u128 x) {
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t t = (hi << 32) - hi;
    uint64_t r = lo + t;
    r += gs_fp_mask_(r < t) & GS_FP_EPSILON;
    return r - (gs_fp_mask_(r >= GS_FP_P) & GS_FP_P);
}

static inline gs_fp red_wide(p2_u128 x) {
    return gs_fp_reduce128((uint64_t)(x >> 64), (uint64_t)x);
}
#include "hash/poseidon2_round.h"

void gs_poseidon2_permute_w8(gs_fp st[8]) {
    p2s_permute(st, 8, gs_p2_rc8_ext, gs_p2_rc8_int, gs_p2_diag8);
}

void gs_poseidon2_permute_w12(gs_fp st[12]) {
    p2s_permute(st, 12, gs_p2_rc12_ext, gs_p2_rc12_int, gs_p2_diag12);
}

/* ---- sponge and compression ---- */

/* Row-generic sponge: element j at in[j * col_stride]. */
static void hash_strided(gs_poseidon2_digest *out, const gs_fp *in, size_t n, size_t col_stride) {
    gs_fp s[12] = {0};
    s[GS_POSEIDON2_RATE] = gs_fp_from_u64((uint64_t)n);
    size_t j = 0;
    do {
        for (unsigned k = 0; k < GS_POSEIDON2_RATE && j < n; k++, j++)
            s[k] = gs_fp_add(s[k], gs_fp_from_u64(in[j * col_stride]));
        gs_poseidon2_permute_w12(s);
    } while (j < n);
    memcpy(out->v, s, sizeof out->v);
}

void gs_poseidon2_hash(gs_poseidon2_digest *out, const gs_fp *in, size_t n) {
    hash_strided(out, in, n, 1);
}

void gs_poseidon2_compress(gs_poseidon2_digest *out, const gs_poseidon2_digest *l,
                           const gs_poseidon2_digest *r) {
    gs_fp s[8], x[4];
    memcpy(s, l->v, 32);
    memcpy(s + 4, r->v, 32);
    memcpy(x, s, sizeof x);
    gs_poseidon2_permute_w8(s);
    for (int i = 0; i < 4; i++) out->v[i] = gs_fp_add(s[i], x[i]);
}

/* ---- bytes ---- */

void gs_poseidon2_digest_to_bytes(gs_digest *out, const gs_poseidon2_digest *d) {
    for (int i = 0; i < 4; i++) gs_store_le64(out->b + 8 * i, gs_fp_from_u64(d->v[i]));
}

gs_status gs_poseidon2_digest_from_bytes(gs_poseidon2_digest *out, const gs_digest *in) {
    if (!out || !in) return GS_ERR_INVALID_ARG;
    gs_fp v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = gs_load_le64(in->b + 8 * i);
        if (v[i] >= GS_FP_P) return GS_ERR_INVALID_ARG;
    }
    memcpy(out->v, v, sizeof v);
    return GS_OK;
}

/* ---- the bulk calls and their implementations ---- */

int gs_p2_available(gs_p2_impl impl) {
    switch (impl) {
    case GS_P2_PORTABLE: return 1;
#if GS_KECCAK_X86
    case GS_P2_AVX2: return gs_keccak_cpu_has_avx2();
    case GS_P2_AVX512: return gs_keccak_cpu_has_avx512();
#endif
    default: return 0;
    }
}

const char *gs_p2_name(gs_p2_impl impl) {
    switch (impl) {
    case GS_P2_PORTABLE: return "portable";
    case GS_P2_AVX2: return "avx2-x4";
    case GS_P2_AVX512: return "avx512-x8";
    default: return "?";
    }
}

gs_p2_impl gs_p2_best(void) {
    static int best; /* 1 + gs_p2_impl, 0 = not yet chosen; racing first calls agree */
    int b = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (!b) {
        b = 1 + (gs_p2_available(GS_P2_AVX512) ? GS_P2_AVX512
                 : gs_p2_available(GS_P2_AVX2) ? GS_P2_AVX2
                                               : GS_P2_PORTABLE);
        __atomic_store_n(&best, b, __ATOMIC_RELAXED);
    }
    return (gs_p2_impl)(b - 1);
}

void gs_p2_permute_w8_many_with(gs_p2_impl impl, gs_fp *st, size_t n) {
    switch (impl) {
#if GS_KECCAK_X86
    case GS_P2_AVX512: gs_p2_permute_w8_many_avx512(st, n); return;
    case GS_P2_AVX2: gs_p2_permute_w8_many_avx2(st, n); return;
#endif
    default:
        for (size_t k = 0; k < n; k++) gs_poseidon2_permute_w8(st + 8 * k);
        return;
    }
}

void gs_p2_permute_w12_many_with(gs_p2_impl impl, gs_fp *st, size_t n) {
    switch (impl) {
#if GS_KECCAK_X86
    case GS_P2_AVX512: gs_p2_permute_w12_many_avx512(st, n); return;
    case GS_P2_AVX2: gs_p2_permute_w12_many_avx2(st, n); return;
#endif
    default:
        for (size_t k = 0; k < n; k++) gs_poseidon2_permute_w12(st + 12 * k);
        return;
    }
}

void gs_p2_hash_rows_with(gs_p2_impl impl, gs_poseidon2_digest *out, const gs_fp *in,
                          size_t n_rows, size_t row_len, size_t row_stride, size_t col_stride) {
    switch (impl) {
#if GS_KECCAK_X86
    case GS_P2_AVX512:
        gs_p2_hash_rows_avx512(out, in, n_rows, row_len, row_stride, col_stride);
        return;
    case GS_P2_AVX2:
        gs_p2_hash_rows_avx2(out, in, n_rows, row_len, row_stride, col_stride);
        return;
#endif
    default:
        for (size_t i = 0; i < n_rows; i++)
            hash_strided(out + i, in + i * row_stride, row_len, col_stride);
        return;
    }
}

void gs_p2_compress_many_with(gs_p2_impl impl, gs_poseidon2_digest *out,
                              const gs_poseidon2_digest *in, size_t n) {
    switch (impl) {
#if GS_KECCAK_X86
    case GS_P2_AVX512: gs_p2_compress_many_avx512(out, in, n); return;
    case GS_P2_AVX2: gs_p2_compress_many_avx2(out, in, n); return;
#endif
    default:
        for (size_t i = 0; i < n; i++) gs_poseidon2_compress(out + i, in + 2 * i, in + 2 * i + 1);
        return;
    }
}

void gs_poseidon2_hash_rows(gs_poseidon2_digest *out, const gs_fp *in, size_t n_rows,
                            size_t row_len, size_t row_stride, size_t col_stride) {
    gs_p2_hash_rows_with(gs_p2_best(), out, in, n_rows, row_len, row_stride, col_stride);
}

void gs_poseidon2_compress_many(gs_poseidon2_digest *out, const gs_poseidon2_digest *in,
                                size_t n) {
    gs_p2_compress_many_with(gs_p2_best(), out, in, n);
}
