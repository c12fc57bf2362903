/* Four Poseidon2 states at once with AVX2: element i of state k is 64-bit lane k of ymm s[i].
 * As the AVX-512 form (poseidon2_x8_avx512.c): a product is four vpmuludq partial products and
 * the Goldilocks reduction of field.h; AVX2 has no unsigned 64-bit compare, so x < y is the
 * signed vpcmpgtq of y and x with their top bits flipped, and the corrections are masks ANDed
 * with 2^32 - 1 or p. Compiled for AVX2 per function; called only where the CPU has it
 * (poseidon2.c). */
#include "hash/poseidon2_internal.h"

#if GS_KECCAK_X86
#include <immintrin.h>

#define VATTR __attribute__((target("avx2")))

/* All ones where x < y (unsigned). */
VATTR static inline __m256i v256_lt(__m256i x, __m256i y) {
    const __m256i top = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    return _mm256_cmpgt_epi64(_mm256_xor_si256(y, top), _mm256_xor_si256(x, top));
}

/* x mod p for x < 2^64: subtract p where x >= p. */
VATTR static inline __m256i v256_canon(__m256i x) {
    const __m256i p = _mm256_set1_epi64x((long long)GS_FP_P);
    return _mm256_sub_epi64(x, _mm256_andnot_si256(v256_lt(x, p), p));
}

VATTR static inline __m256i v256_reduce(__m256i hi, __m256i lo) {
    const __m256i eps = _mm256_set1_epi64x((long long)GS_FP_EPSILON);
    __m256i hi_hi = _mm256_srli_epi64(hi, 32);
    __m256i t0 = _mm256_sub_epi64(lo, hi_hi); /* lo - hi_hi 2^96 */
    t0 = _mm256_sub_epi64(t0, _mm256_and_si256(v256_lt(lo, hi_hi), eps));
    __m256i t1 = _mm256_mul_epu32(hi, eps); /* hi_lo 2^64 = hi_lo (2^32 - 1): low halves */
    __m256i r = _mm256_add_epi64(t0, t1);
    r = _mm256_add_epi64(r, _mm256_and_si256(v256_lt(r, t1), eps));
    return v256_canon(r);
}

VATTR static inline __m256i v256_mul(__m256i a, __m256i b) {
    const __m256i m32 = _mm256_set1_epi64x((long long)0xFFFFFFFFull);
    __m256i ah = _mm256_srli_epi64(a, 32), bh = _mm256_srli_epi64(b, 32);
    __m256i ll = _mm256_mul_epu32(a, b), lh = _mm256_mul_epu32(a, bh);
    __m256i hl = _mm256_mul_epu32(ah, b), hh = _mm256_mul_epu32(ah, bh);
    /* (ll >> 32) + lh and (t mod 2^32) + hl fit in 64 bits: (2^32 - 1)^2 + 2^32 - 1 < 2^64 */
    __m256i t = _mm256_add_epi64(_mm256_srli_epi64(ll, 32), lh);
    __m256i u = _mm256_add_epi64(_mm256_and_si256(t, m32), hl);
    __m256i lo = _mm256_or_si256(_mm256_slli_epi64(u, 32), _mm256_and_si256(ll, m32));
    __m256i hi = _mm256_add_epi64(hh, _mm256_add_epi64(_mm256_srli_epi64(t, 32),
                                                       _mm256_srli_epi64(u, 32)));
    return v256_reduce(hi, lo);
}

/* a + b = a - (p - b): where that borrows, add p back. */
VATTR static inline __m256i v256_add(__m256i a, __m256i b) {
    const __m256i p = _mm256_set1_epi64x((long long)GS_FP_P);
    __m256i pb = _mm256_sub_epi64(p, b);
    __m256i r = _mm256_sub_epi64(a, pb);
    return _mm256_add_epi64(r, _mm256_and_si256(v256_lt(a, pb), p));
}

#define VT __m256i
#define VLANES 4
#define VI __m256i
#define V_IDX(off) _mm256_loadu_si256((const __m256i *)(const void *)(off))
#define VSUF avx2
#define V_ADD(a, b) v256_add(a, b)
#define V_MUL(a, b) v256_mul(a, b)
#define V_CONST(c) _mm256_set1_epi64x((long long)(c))
#define V_CANON(x) v256_canon(x)
#define V_GATHER(p, idx) _mm256_i64gather_epi64((const long long *)(const void *)(p), idx, 8)
#define V_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define V_STOREU(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#include "hash/poseidon2_lanes.h"

#endif
