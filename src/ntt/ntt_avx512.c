/* AVX-512 NTT kernels: the group operations of ntt_kern.h with one __m512i
 * (8 field elements) per row. Compiled for AVX-512F through a target pragma,
 * not a build flag; ntt.c only calls them after __builtin_cpu_supports
 * ("avx512f"). The results are bit-identical to the portable kernels (all
 * values canonical); tests/test_ntt.c compares the two.
 *
 * Goldilocks product of 8 lanes: the 128-bit product from four 32x32->64
 * multiplies (vpmuludq), then the reduction of field.h (2^64 = 2^32 - 1,
 * 2^96 = -1 mod p) with unsigned compares into masks for the carries. */
#include "ntt/ntt_internal.h"

#if defined(GS_NTT_HAVE_AVX512)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif

typedef __m512i vec;

#define V_P _mm512_set1_epi64((long long)GS_FP_P)
#define V_EPS _mm512_set1_epi64((long long)GS_FP_EPSILON)

static inline vec v_load(const gs_fp *p) { return _mm512_loadu_si512((const void *)p); }
static inline void v_store(gs_fp *p, vec v) { _mm512_storeu_si512((void *)p, v); }
static inline vec v_bcast(gs_fp x) { return _mm512_set1_epi64((long long)x); }

/* a + b for canonical a, b: a - (p - b), plus p on borrow. */
static inline vec v_add(vec a, vec b) {
    vec nb = _mm512_sub_epi64(V_P, b);
    vec d = _mm512_sub_epi64(a, nb);
    __mmask8 m = _mm512_cmplt_epu64_mask(a, nb);
    return _mm512_mask_add_epi64(d, m, d, V_P);
}

static inline vec v_sub(vec a, vec b) {
    vec d = _mm512_sub_epi64(a, b);
    __mmask8 m = _mm512_cmplt_epu64_mask(a, b);
    return _mm512_mask_add_epi64(d, m, d, V_P);
}

/* Reduce hi * 2^64 + lo to canonical, as gs_fp_reduce128. */
static inline vec v_reduce(vec hi, vec lo) {
    vec hh = _mm512_srli_epi64(hi, 32);
    vec t1 = _mm512_mul_epu32(hi, V_EPS); /* (hi mod 2^32) * (2^32 - 1) */
    vec t0 = _mm512_sub_epi64(lo, hh);
    __mmask8 borrow = _mm512_cmplt_epu64_mask(lo, hh);
    t0 = _mm512_mask_sub_epi64(t0, borrow, t0, V_EPS);
    vec r = _mm512_add_epi64(t0, t1);
    __mmask8 carry = _mm512_cmplt_epu64_mask(r, t1);
    r = _mm512_mask_add_epi64(r, carry, r, V_EPS);
    /* r - p = r + eps (mod 2^64) is smaller than r exactly when r >= p */
    return _mm512_min_epu64(r, _mm512_add_epi64(r, V_EPS));
}

/* a * b, with b_hi = b >> 32 given (twiddles reuse it). */
static inline vec v_mul_h(vec a, vec b, vec b_hi) {
    vec a_hi = _mm512_srli_epi64(a, 32);
    vec ll = _mm512_mul_epu32(a, b);
    vec lh = _mm512_mul_epu32(a, b_hi);
    vec hl = _mm512_mul_epu32(a_hi, b);
    vec hh = _mm512_mul_epu32(a_hi, b_hi);
    const vec m32 = _mm512_set1_epi64(0xFFFFFFFFll);
    vec t = _mm512_add_epi64(hl, _mm512_srli_epi64(ll, 32)); /* < 2^64 */
    vec u = _mm512_add_epi64(lh, _mm512_and_si512(t, m32));  /* < 2^64 */
    vec lo = _mm512_mask_blend_epi32(0xAAAA, ll, _mm512_slli_epi64(u, 32));
    vec hi = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(t, 32)),
                              _mm512_srli_epi64(u, 32));
    return v_reduce(hi, lo);
}

static inline vec v_mul(vec a, vec b) { return v_mul_h(a, b, _mm512_srli_epi64(b, 32)); }

static inline vec v_mulw(vec a, gs_fp w) { return v_mul_h(a, v_bcast(w), v_bcast(w >> 32)); }

static inline void v_transpose8(vec r[8]) {
    vec t[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
    }
    /* distance 2: lanes {0,1,4,5} of t[i] with lanes {0,1,4,5} of t[i+2] */
    const vec i2a = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const vec i2b = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int base = 0; base < 8; base += 4)
        for (int i = base; i < base + 2; i++) {
            r[i] = _mm512_permutex2var_epi64(t[i], i2a, t[i + 2]);
            r[i + 2] = _mm512_permutex2var_epi64(t[i], i2b, t[i + 2]);
        }
    const vec i4a = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const vec i4b = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_permutex2var_epi64(r[i], i4a, r[i + 4]);
        t[i + 4] = _mm512_permutex2var_epi64(r[i], i4b, r[i + 4]);
    }
    for (int i = 0; i < 8; i++) r[i] = t[i];
}

static inline vec v_revlanes(vec a) {
    return _mm512_permutexvar_epi64(_mm512_set_epi64(7, 3, 5, 1, 6, 2, 4, 0), a);
}

static inline void bfly_dif1(gs_fp *a, gs_fp *b) {
    vec x = v_load(a), y = v_load(b);
    v_store(a, v_add(x, y));
    v_store(b, v_sub(x, y));
}
static inline void bfly_dit(gs_fp *a, gs_fp *b, gs_fp w) {
    vec x = v_load(a), y = v_mulw(v_load(b), w);
    v_store(a, v_add(x, y));
    v_store(b, v_sub(x, y));
}
static inline void bfly_dit1(gs_fp *a, gs_fp *b) { bfly_dif1(a, b); }
static inline void row_mul(gs_fp *d, const gs_fp *s, gs_fp w) { v_store(d, v_mulw(v_load(s), w)); }

/* x * 2^48 = (x >> 16) 2^64 + (x << 48), reduced as in v_reduce. */
static inline vec v_mul_w4(vec x) {
    return v_reduce(_mm512_srli_epi64(x, 16), _mm512_slli_epi64(x, 48));
}

static inline void bfly4_dif(gs_fp *r, size_t q, gs_fp W, gs_fp W2, gs_fp W3, gs_fp Wq,
                             const int inv) {
    (void)Wq;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    vec a = v_load(pa), b = v_load(pb), c = v_load(pc), d = v_load(pd);
    vec s0 = v_add(a, c), s1 = v_add(b, d), e = v_sub(a, c);
    vec f = v_mul_w4(inv ? v_sub(d, b) : v_sub(b, d));
    v_store(pa, v_add(s0, s1));
    v_store(pb, v_mulw(v_sub(s0, s1), W2));
    v_store(pc, v_mulw(v_add(e, f), W));
    v_store(pd, v_mulw(v_sub(e, f), W3));
}
static inline void bfly4_dif0(gs_fp *r, size_t q, gs_fp Wq, const int inv) {
    (void)Wq;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    vec a = v_load(pa), b = v_load(pb), c = v_load(pc), d = v_load(pd);
    vec s0 = v_add(a, c), s1 = v_add(b, d), e = v_sub(a, c);
    vec f = v_mul_w4(inv ? v_sub(d, b) : v_sub(b, d));
    v_store(pa, v_add(s0, s1));
    v_store(pb, v_sub(s0, s1));
    v_store(pc, v_add(e, f));
    v_store(pd, v_sub(e, f));
}
static inline void bfly4_dit(gs_fp *r, size_t q, gs_fp W, gs_fp W2, gs_fp W3, gs_fp Wq,
                             const int inv) {
    (void)Wq;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    vec a = v_load(pa), B = v_mulw(v_load(pb), W2), C = v_mulw(v_load(pc), W);
    vec D = v_mulw(v_load(pd), W3);
    vec a1 = v_add(a, B), b1 = v_sub(a, B), c1 = v_add(C, D);
    vec d1 = v_mul_w4(inv ? v_sub(D, C) : v_sub(C, D));
    v_store(pa, v_add(a1, c1));
    v_store(pc, v_sub(a1, c1));
    v_store(pb, v_add(b1, d1));
    v_store(pd, v_sub(b1, d1));
}
static inline void bfly4_dit0(gs_fp *r, size_t q, gs_fp Wq, const int inv) {
    (void)Wq;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    vec a = v_load(pa), B = v_load(pb), C = v_load(pc), D = v_load(pd);
    vec a1 = v_add(a, B), b1 = v_sub(a, B), c1 = v_add(C, D);
    vec d1 = v_mul_w4(inv ? v_sub(D, C) : v_sub(C, D));
    v_store(pa, v_add(a1, c1));
    v_store(pc, v_sub(a1, c1));
    v_store(pb, v_add(b1, d1));
    v_store(pd, v_sub(b1, d1));
}

#define KFN(name) name##_avx512
#define KFN_NAME "avx512"
#include "ntt/ntt_kern.h"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
