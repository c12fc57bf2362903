/* Eight Poseidon2 states at once with AVX-512 F: element i of state k is 64-bit lane k of
 * zmm s[i]. AVX-512 F has no 64 x 64 -> 128-bit product, so a product is four 32 x 32 -> 64
 * vpmuludq partial products combined into hi:lo, then the Goldilocks reduction of
 * field.h's gs_fp_reduce128 (2^64 = 2^32 - 1, 2^96 = -1) with mask registers for its
 * conditional corrections (vpcmpuq + masked add/sub). About 25 instructions per 8 products
 * against ~8 per scalar product. Compiled for AVX-512 F per function; called only where the
 * CPU has it (poseidon2.c). */
#include "hash/poseidon2_internal.h"

#if GS_KECCAK_X86
#include <immintrin.h>

#define VATTR __attribute__((target("avx512f")))

VATTR static inline __m512i v512_reduce(__m512i hi, __m512i lo) {
    const __m512i eps = _mm512_set1_epi64((long long)GS_FP_EPSILON);
    const __m512i p = _mm512_set1_epi64((long long)GS_FP_P);
    __m512i hi_hi = _mm512_srli_epi64(hi, 32);
    __m512i t0 = _mm512_sub_epi64(lo, hi_hi); /* lo - hi_hi 2^96 */
    t0 = _mm512_mask_sub_epi64(t0, _mm512_cmplt_epu64_mask(lo, hi_hi), t0, eps);
    __m512i t1 = _mm512_mul_epu32(hi, eps); /* hi_lo 2^64 = hi_lo (2^32 - 1): low halves */
    __m512i r = _mm512_add_epi64(t0, t1);
    r = _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(r, t1), r, eps);
    return _mm512_mask_sub_epi64(r, _mm512_cmpge_epu64_mask(r, p), r, p);
}

VATTR static inline __m512i v512_mul(__m512i a, __m512i b) {
    const __m512i m32 = _mm512_set1_epi64((long long)0xFFFFFFFFull);
    __m512i ah = _mm512_srli_epi64(a, 32), bh = _mm512_srli_epi64(b, 32);
    __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, bh);
    __m512i hl = _mm512_mul_epu32(ah, b), hh = _mm512_mul_epu32(ah, bh);
    /* (ll >> 32) + lh and (t mod 2^32) + hl fit in 64 bits: (2^32 - 1)^2 + 2^32 - 1 < 2^64 */
    __m512i t = _mm512_add_epi64(_mm512_srli_epi64(ll, 32), lh);
    __m512i u = _mm512_add_epi64(_mm512_and_si512(t, m32), hl);
    /* lo = (u << 32) | (ll & m32): one vpternlogq */
    __m512i lo = _mm512_ternarylogic_epi64(_mm512_slli_epi64(u, 32), ll, m32, 0xF8);
    __m512i hi = _mm512_add_epi64(hh, _mm512_add_epi64(_mm512_srli_epi64(t, 32),
                                                       _mm512_srli_epi64(u, 32)));
    return v512_reduce(hi, lo);
}

/* a + b = a - (p - b): where that borrows, add p back. */
VATTR static inline __m512i v512_add(__m512i a, __m512i b) {
    const __m512i p = _mm512_set1_epi64((long long)GS_FP_P);
    __m512i pb = _mm512_sub_epi64(p, b);
    __m512i r = _mm512_sub_epi64(a, pb);
    return _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(a, pb), r, p);
}

VATTR static inline __m512i v512_canon(__m512i x) {
    const __m512i p = _mm512_set1_epi64((long long)GS_FP_P);
    return _mm512_mask_sub_epi64(x, _mm512_cmpge_epu64_mask(x, p), x, p);
}

#define VT __m512i
#define VLANES 8
#define VI __m512i
#define V_IDX(off) _mm512_loadu_si512((const void *)(off))
#define VSUF avx512
#define V_ADD(a, b) v512_add(a, b)
#define V_MUL(a, b) v512_mul(a, b)
#define V_CONST(c) _mm512_set1_epi64((long long)(c))
#define V_CANON(x) v512_canon(x)
#define V_GATHER(p, idx) _mm512_i64gather_epi64(idx, (const void *)(p), 8)
#define V_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define V_STOREU(p, v) _mm512_storeu_si512((void *)(p), v)
#include "hash/poseidon2_lanes.h"

#endif
