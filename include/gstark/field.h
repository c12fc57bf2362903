/* Goldilocks field Fp, p = 2^64 - 2^32 + 1, and its cubic extension
 * Fp3 = Fp[w]/(w^3 - 2).
 *
 * One definition of the arithmetic for host and device: every function here
 * is GS_HD (static inline in C, __host__ __device__ under nvcc). Values are
 * always canonical (< p); every function takes and returns canonical values.
 *
 * Reduction of a 128-bit product hi*2^64 + lo uses 2^64 = 2^32 - 1 and
 * 2^96 = -1 (mod p), so no division or '%' appears anywhere. */
#ifndef GSTARK_FIELD_H
#define GSTARK_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/status.h"

#if defined(__CUDACC__)
#define GS_HD static inline __host__ __device__
#else
#define GS_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t gs_fp;

#define GS_FP_P 0xFFFFFFFF00000001ull
#define GS_FP_EPSILON 0xFFFFFFFFull /* 2^64 mod p = 2^32 - 1 */
#define GS_FP_TWO_ADICITY 32u
#define GS_FP_GENERATOR 7u
/* A primitive cube root of unity: 2^((p-1)/3) = 2^32 - 1. It is the Frobenius
 * twist of w: w^p = GS_FP3_FROB1 * w. */
#define GS_FP3_FROB1 0x00000000FFFFFFFFull
#define GS_FP3_FROB2 0xFFFFFFFE00000001ull /* GS_FP3_FROB1^2 */
#define GS_FP3_W3 2u                       /* w^3 = 2 */

/* Branch-free: on pseudorandom values a branch here mispredicts about half
 * the time, so conditions become masks (0 or all ones). */
GS_HD uint64_t gs_fp_mask_(int cond) { return (uint64_t)0 - (uint64_t)(cond != 0); }

GS_HD gs_fp gs_fp_add(gs_fp a, gs_fp b) {
    gs_fp s = a + b;
    s += gs_fp_mask_(s < a) & GS_FP_EPSILON; /* carry: a + b - p, already canonical */
    return s - (gs_fp_mask_(s >= GS_FP_P) & GS_FP_P);
}

GS_HD gs_fp gs_fp_sub(gs_fp a, gs_fp b) {
    gs_fp d = a - b;
    return d - (gs_fp_mask_(a < b) & GS_FP_EPSILON); /* on borrow: a - b + p */
}

GS_HD gs_fp gs_fp_double(gs_fp a) { return gs_fp_add(a, a); }

GS_HD gs_fp gs_fp_neg(gs_fp a) { return a ? GS_FP_P - a : 0; }

/* Reduce hi * 2^64 + lo to a canonical value. */
GS_HD gs_fp gs_fp_reduce128(uint64_t hi, uint64_t lo) {
    uint64_t hi_hi = hi >> 32, hi_lo = hi & 0xFFFFFFFFull;
    uint64_t t0 = lo - hi_hi; /* lo - hi_hi * 2^96 */
    t0 -= gs_fp_mask_(lo < hi_hi) & GS_FP_EPSILON;
    uint64_t t1 = hi_lo * GS_FP_EPSILON; /* hi_lo * 2^64, fits in 64 bits */
    uint64_t r = t0 + t1;
    r += gs_fp_mask_(r < t1) & GS_FP_EPSILON; /* cannot carry again: r < 2^64 - 2^32 */
    return r - (gs_fp_mask_(r >= GS_FP_P) & GS_FP_P);
}

GS_HD gs_fp gs_fp_mul(gs_fp a, gs_fp b) {
#if defined(__CUDA_ARCH__)
    return gs_fp_reduce128(__umul64hi(a, b), a * b);
#else
    unsigned __int128 x = (unsigned __int128)a * b;
    return gs_fp_reduce128((uint64_t)(x >> 64), (uint64_t)x);
#endif
}

GS_HD gs_fp gs_fp_sqr(gs_fp a) { return gs_fp_mul(a, a); }

GS_HD gs_fp gs_fp_pow(gs_fp a, uint64_t e) {
    gs_fp r = 1;
    while (e) {
        if (e & 1) r = gs_fp_mul(r, a);
        a = gs_fp_sqr(a);
        e >>= 1;
    }
    return r;
}

/* a^(p-2); the inverse of 0 is 0. */
/* a^(2^k): k squarings. */
GS_HD gs_fp gs_fp_sqr_n(gs_fp a, unsigned k) {
    for (unsigned j = 0; j < k; j++) a = gs_fp_sqr(a);
    return a;
}

/* a^(p-2) (0 for 0) by an addition chain: with t_k = a^(2^k - 1),
 * p - 2 = (2^31 - 1) 2^33 + 2^32 - 1, so a^(p-2) = t_31^(2^33) t_32:
 * 63 squarings and 9 products (square-and-multiply needs 63 + 62). */
GS_HD gs_fp gs_fp_inv(gs_fp a) {
    gs_fp t2 = gs_fp_mul(gs_fp_sqr(a), a);
    gs_fp t3 = gs_fp_mul(gs_fp_sqr(t2), a);
    gs_fp t6 = gs_fp_mul(gs_fp_sqr_n(t3, 3), t3);
    gs_fp t12 = gs_fp_mul(gs_fp_sqr_n(t6, 6), t6);
    gs_fp t24 = gs_fp_mul(gs_fp_sqr_n(t12, 12), t12);
    gs_fp t30 = gs_fp_mul(gs_fp_sqr_n(t24, 6), t6);
    gs_fp t31 = gs_fp_mul(gs_fp_sqr(t30), a);
    gs_fp t32 = gs_fp_mul(gs_fp_sqr(t31), a);
    return gs_fp_mul(gs_fp_sqr_n(t31, 33), t32);
}

/* Reduce any 64-bit value (not necessarily canonical) into Fp. */
GS_HD gs_fp gs_fp_from_u64(uint64_t x) { return x >= GS_FP_P ? x - GS_FP_P : x; }

/* The primitive 2^log_n-th root of unity 7^((p-1)/2^log_n), log_n <= 32.
 * Larger log_n returns 0 (no such root). */
GS_HD gs_fp gs_fp_root_of_unity(unsigned log_n) {
    if (log_n > GS_FP_TWO_ADICITY) return 0;
    return gs_fp_pow(GS_FP_GENERATOR, (GS_FP_P - 1) >> log_n);
}

/* ---- Fp3 = Fp[w]/(w^3 - 2): c[0] + c[1] w + c[2] w^2 ---- */

typedef struct gs_fp3 {
    gs_fp c[3];
} gs_fp3;

GS_HD gs_fp3 gs_fp3_make(gs_fp c0, gs_fp c1, gs_fp c2) {
    gs_fp3 r;
    r.c[0] = c0;
    r.c[1] = c1;
    r.c[2] = c2;
    return r;
}

GS_HD gs_fp3 gs_fp3_from_fp(gs_fp a) { return gs_fp3_make(a, 0, 0); }
GS_HD gs_fp3 gs_fp3_zero(void) { return gs_fp3_make(0, 0, 0); }
GS_HD gs_fp3 gs_fp3_one(void) { return gs_fp3_make(1, 0, 0); }

GS_HD int gs_fp3_eq(gs_fp3 a, gs_fp3 b) {
    return a.c[0] == b.c[0] && a.c[1] == b.c[1] && a.c[2] == b.c[2];
}

GS_HD int gs_fp3_is_zero(gs_fp3 a) { return (a.c[0] | a.c[1] | a.c[2]) == 0; }

GS_HD gs_fp3 gs_fp3_add(gs_fp3 a, gs_fp3 b) {
    return gs_fp3_make(gs_fp_add(a.c[0], b.c[0]), gs_fp_add(a.c[1], b.c[1]),
                       gs_fp_add(a.c[2], b.c[2]));
}

GS_HD gs_fp3 gs_fp3_sub(gs_fp3 a, gs_fp3 b) {
    return gs_fp3_make(gs_fp_sub(a.c[0], b.c[0]), gs_fp_sub(a.c[1], b.c[1]),
                       gs_fp_sub(a.c[2], b.c[2]));
}

GS_HD gs_fp3 gs_fp3_neg(gs_fp3 a) {
    return gs_fp3_make(gs_fp_neg(a.c[0]), gs_fp_neg(a.c[1]), gs_fp_neg(a.c[2]));
}

/* A sum of 128-bit products reduced once: 2^128 = -2^32 (mod p), so a sum
 * acc + top 2^128 (top counts the carries out of 128 bits) is
 * reduce128(acc) - top 2^32, top 2^32 < p. The same canonical value as
 * reducing every product and adding (test_field compares them on the host,
 * test_cuda_smoke on the device). gs_fp_acc_mul_ adds a b, gs_fp_acc_mul2_
 * 2 a b, gs_fp_acc_done_ reduces; the host also adds a 128-bit value
 * (gs_fp_acc_add_). */
#if !defined(__CUDA_ARCH__)
typedef struct {
    unsigned __int128 acc;
    uint64_t top;
} gs_fp_acc_;

GS_HD void gs_fp_acc_add_(gs_fp_acc_ *s, unsigned __int128 x) {
    s->acc += x;
    s->top += s->acc < x;
}

GS_HD void gs_fp_acc_mul_(gs_fp_acc_ *s, gs_fp a, gs_fp b) { gs_fp_acc_add_(s, (unsigned __int128)a * b); }

GS_HD void gs_fp_acc_mul2_(gs_fp_acc_ *s, gs_fp a, gs_fp b) { /* s += 2 a b */
    unsigned __int128 x = (unsigned __int128)a * b;
    gs_fp_acc_add_(s, x), gs_fp_acc_add_(s, x);
}

GS_HD gs_fp gs_fp_acc_done_(gs_fp_acc_ s) {
    return gs_fp_sub(gs_fp_reduce128((uint64_t)(s.acc >> 64), (uint64_t)s.acc), s.top << 32);
}

GS_HD gs_fp_acc_ gs_fp_acc_zero_(void) {
    gs_fp_acc_ s = {0, 0};
    return s;
}
#else
/* Device: the sum in three words, added with the carry flag. */
typedef struct {
    uint64_t lo, hi, top;
} gs_fp_acc_;

GS_HD void gs_fp_acc_add_hl_(gs_fp_acc_ *s, uint64_t hi, uint64_t lo) {
    asm("add.cc.u64 %0, %0, %3;\n\t"
        "addc.cc.u64 %1, %1, %4;\n\t"
        "addc.u64 %2, %2, 0;"
        : "+l"(s->lo), "+l"(s->hi), "+l"(s->top)
        : "l"(lo), "l"(hi));
}

GS_HD void gs_fp_acc_mul_(gs_fp_acc_ *s, gs_fp a, gs_fp b) { gs_fp_acc_add_hl_(s, __umul64hi(a, b), a * b); }

GS_HD void gs_fp_acc_mul2_(gs_fp_acc_ *s, gs_fp a, gs_fp b) { /* s += 2 a b */
    uint64_t hi = __umul64hi(a, b), lo = a * b;
    gs_fp_acc_add_hl_(s, hi, lo), gs_fp_acc_add_hl_(s, hi, lo);
}

GS_HD gs_fp gs_fp_acc_done_(gs_fp_acc_ s) { return gs_fp_sub(gs_fp_reduce128(s.hi, s.lo), s.top << 32); }

GS_HD gs_fp_acc_ gs_fp_acc_zero_(void) {
    gs_fp_acc_ s = {0, 0, 0};
    return s;
}
#endif

/* An Fp3 sum of products, each component a gs_fp_acc_: the terms are
 * added unreduced, one reduction per component at the end. */
typedef struct {
    gs_fp_acc_ c[3];
} gs_fp3_acc_;

GS_HD gs_fp3_acc_ gs_fp3_acc_zero_(void) {
    gs_fp3_acc_ s = {{gs_fp_acc_zero_(), gs_fp_acc_zero_(), gs_fp_acc_zero_()}};
    return s;
}

/* s += a v. */
GS_HD void gs_fp3_acc_mul_fp_(gs_fp3_acc_ *s, gs_fp3 a, gs_fp v) {
    gs_fp_acc_mul_(&s->c[0], a.c[0], v);
    gs_fp_acc_mul_(&s->c[1], a.c[1], v);
    gs_fp_acc_mul_(&s->c[2], a.c[2], v);
}

/* s += a b: w^3 = 2, so c0 += a0b0 + 2 (a1b2 + a2b1),
 * c1 += a0b1 + a1b0 + 2 a2b2, c2 += a0b2 + a2b0 + a1b1. */
GS_HD void gs_fp3_acc_mul_(gs_fp3_acc_ *s, gs_fp3 a, gs_fp3 b) {
    gs_fp_acc_mul_(&s->c[0], a.c[0], b.c[0]);
    gs_fp_acc_mul2_(&s->c[0], a.c[1], b.c[2]), gs_fp_acc_mul2_(&s->c[0], a.c[2], b.c[1]);
    gs_fp_acc_mul_(&s->c[1], a.c[0], b.c[1]), gs_fp_acc_mul_(&s->c[1], a.c[1], b.c[0]);
    gs_fp_acc_mul2_(&s->c[1], a.c[2], b.c[2]);
    gs_fp_acc_mul_(&s->c[2], a.c[0], b.c[2]), gs_fp_acc_mul_(&s->c[2], a.c[2], b.c[0]);
    gs_fp_acc_mul_(&s->c[2], a.c[1], b.c[1]);
}

GS_HD gs_fp3 gs_fp3_acc_done_(const gs_fp3_acc_ *s) {
    return gs_fp3_make(gs_fp_acc_done_(s->c[0]), gs_fp_acc_done_(s->c[1]), gs_fp_acc_done_(s->c[2]));
}

/* The nine 128-bit products summed per component, one reduction each. */
GS_HD gs_fp3 gs_fp3_mul(gs_fp3 a, gs_fp3 b) {
    gs_fp3_acc_ s = gs_fp3_acc_zero_();
    gs_fp3_acc_mul_(&s, a, b);
    return gs_fp3_acc_done_(&s);
}

GS_HD gs_fp3 gs_fp3_sqr(gs_fp3 a) { return gs_fp3_mul(a, a); }

/* The product of an Fp3 element by an Fp scalar. */
GS_HD gs_fp3 gs_fp3_mul_fp(gs_fp3 a, gs_fp s) {
    return gs_fp3_make(gs_fp_mul(a.c[0], s), gs_fp_mul(a.c[1], s), gs_fp_mul(a.c[2], s));
}

GS_HD gs_fp3 gs_fp3_pow(gs_fp3 a, uint64_t e) {
    gs_fp3 r = gs_fp3_one();
    while (e) {
        if (e & 1) r = gs_fp3_mul(r, a);
        a = gs_fp3_sqr(a);
        e >>= 1;
    }
    return r;
}

/* a^p: the Frobenius map, w -> GS_FP3_FROB1 * w. */
GS_HD gs_fp3 gs_fp3_frobenius(gs_fp3 a) {
    return gs_fp3_make(a.c[0], gs_fp_mul(a.c[1], GS_FP3_FROB1), gs_fp_mul(a.c[2], GS_FP3_FROB2));
}

/* The inverse through the adjugate of the multiplication matrix: with
 * b = (a0^2 - 2 a1 a2, 2 a2^2 - a0 a1, a1^2 - a0 a2), a * b is the norm
 * N = a0 b0 + 2 (a2 b1 + a1 b2) in Fp, so a^-1 = b / N. 0 maps to 0. */
GS_HD gs_fp3 gs_fp3_inv(gs_fp3 a) {
    gs_fp a0 = a.c[0], a1 = a.c[1], a2 = a.c[2];
    gs_fp b0 = gs_fp_sub(gs_fp_sqr(a0), gs_fp_double(gs_fp_mul(a1, a2)));
    gs_fp b1 = gs_fp_sub(gs_fp_double(gs_fp_sqr(a2)), gs_fp_mul(a0, a1));
    gs_fp b2 = gs_fp_sub(gs_fp_sqr(a1), gs_fp_mul(a0, a2));
    gs_fp n = gs_fp_add(gs_fp_mul(a0, b0),
                        gs_fp_double(gs_fp_add(gs_fp_mul(a2, b1), gs_fp_mul(a1, b2))));
    return gs_fp3_mul_fp(gs_fp3_make(b0, b1, b2), gs_fp_inv(n));
}

/* ---- host-only bulk helpers (src/field/field.c) ---- */

/* out[i] = in[i]^-1 with Montgomery's trick (one field inversion per chunk);
 * zeros map to zero and do not poison their neighbours. out may equal in.
 * Multi-threaded for large n; the result does not depend on the thread count. */
gs_status gs_fp_batch_inv(gs_fp *out, const gs_fp *in, size_t n);
gs_status gs_fp3_batch_inv(gs_fp3 *out, const gs_fp3 *in, size_t n);

/* out[i] = x^i for i < n. */
void gs_fp3_powers(gs_fp3 *out, gs_fp3 x, size_t n);

#ifdef __cplusplus
}
#endif
#endif
