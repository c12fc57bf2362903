/* Portable NTT kernels: the group operations of ntt_kern.h over 8 scalar
 * lanes. The arithmetic is field.h's, rewritten without data-dependent
 * branches (carries become masks), which matters here: the carry of a + b
 * is a coin flip for random field elements. Same canonical results. */
#include <string.h>

#include "ntt/ntt_internal.h"

static inline uint64_t mask_if(int c) { return (uint64_t)0 - (uint64_t)c; }

/* a + b = a - (p - b), plus p on borrow (a ?: on the carry of a + b
 * compiles to a branch). */
static inline gs_fp p_add(gs_fp a, gs_fp b) {
    gs_fp nb = GS_FP_P - b, d = a - nb;
    return d + (mask_if(a < nb) & GS_FP_P);
}

static inline gs_fp p_sub(gs_fp a, gs_fp b) {
    gs_fp d = a - b;
    return d - (mask_if(a < b) & GS_FP_EPSILON); /* on borrow: + p = - eps */
}

static inline gs_fp p_mul(gs_fp a, gs_fp b) {
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t hh = hi >> 32, hl = hi & 0xFFFFFFFFull;
    uint64_t t0 = lo - hh;
    t0 -= mask_if(lo < hh) & GS_FP_EPSILON;
    uint64_t t1 = (hl << 32) - hl; /* hl * eps */
    uint64_t r = t0 + t1;
    r += mask_if(r < t1) & GS_FP_EPSILON;
    return r >= GS_FP_P ? r - GS_FP_P : r;
}
#define gs_fp_add p_add
#define gs_fp_sub p_sub
#define gs_fp_mul p_mul

typedef struct {
    gs_fp l[8];
} vec;

static inline vec v_load(const gs_fp *p) {
    vec v;
    memcpy(v.l, p, sizeof v.l);
    return v;
}
static inline void v_store(gs_fp *p, vec v) { memcpy(p, v.l, sizeof v.l); }
static inline vec v_bcast(gs_fp x) {
    vec v;
    for (int i = 0; i < 8; i++) v.l[i] = x;
    return v;
}
static inline vec v_mul(vec a, vec b) {
    for (int i = 0; i < 8; i++) a.l[i] = gs_fp_mul(a.l[i], b.l[i]);
    return a;
}
static inline void v_transpose8(vec r[8]) {
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++) {
            gs_fp t = r[i].l[j];
            r[i].l[j] = r[j].l[i];
            r[j].l[i] = t;
        }
}
static inline vec v_revlanes(vec a) {
    static const unsigned char r3[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    vec v;
    for (int i = 0; i < 8; i++) v.l[i] = a.l[r3[i]];
    return v;
}

/* Butterflies work on memory rows directly: scalar code keeps one lane's
 * values in registers at a time. */
static inline void bfly_dif1(gs_fp *a, gs_fp *b) {
    for (int i = 0; i < 8; i++) {
        gs_fp x = a[i], y = b[i];
        a[i] = gs_fp_add(x, y);
        b[i] = gs_fp_sub(x, y);
    }
}
static inline void bfly_dit(gs_fp *a, gs_fp *b, gs_fp w) {
    for (int i = 0; i < 8; i++) {
        gs_fp x = a[i], y = gs_fp_mul(b[i], w);
        a[i] = gs_fp_add(x, y);
        b[i] = gs_fp_sub(x, y);
    }
}
static inline void bfly_dit1(gs_fp *a, gs_fp *b) { bfly_dif1(a, b); }
static inline void row_mul(gs_fp *d, const gs_fp *s, gs_fp w) {
    for (int i = 0; i < 8; i++) d[i] = gs_fp_mul(s[i], w);
}

/* Radix-4 steps as two radix-2 stages (see ntt_kern.h); W3 and inv are not
 * needed here (Wq carries w_4^(+-1)). */
static inline void bfly4_dif(gs_fp *r, size_t q, gs_fp W, gs_fp W2, gs_fp W3, gs_fp Wq,
                             const int inv) {
    (void)W3;
    (void)inv;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    for (int i = 0; i < 8; i++) {
        gs_fp a = pa[i], b = pb[i], c = pc[i], d = pd[i];
        gs_fp a1 = p_add(a, c), c1 = p_mul(p_sub(a, c), W);
        gs_fp b1 = p_add(b, d), d1 = p_mul(p_sub(b, d), Wq);
        pa[i] = p_add(a1, b1);
        pb[i] = p_mul(p_sub(a1, b1), W2);
        pc[i] = p_add(c1, d1);
        pd[i] = p_mul(p_sub(c1, d1), W2);
    }
}
static inline void bfly4_dif0(gs_fp *r, size_t q, gs_fp Wq, const int inv) {
    (void)inv;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    for (int i = 0; i < 8; i++) {
        gs_fp a = pa[i], b = pb[i], c = pc[i], d = pd[i];
        gs_fp a1 = p_add(a, c), c1 = p_sub(a, c);
        gs_fp b1 = p_add(b, d), d1 = p_mul(p_sub(b, d), Wq);
        pa[i] = p_add(a1, b1);
        pb[i] = p_sub(a1, b1);
        pc[i] = p_add(c1, d1);
        pd[i] = p_sub(c1, d1);
    }
}
static inline void bfly4_dit(gs_fp *r, size_t q, gs_fp W, gs_fp W2, gs_fp W3, gs_fp Wq,
                             const int inv) {
    (void)W3;
    (void)inv;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    for (int i = 0; i < 8; i++) {
        gs_fp a = pa[i], b = p_mul(pb[i], W2), c = pc[i], d = p_mul(pd[i], W2);
        gs_fp a1 = p_add(a, b), b1 = p_sub(a, b);
        gs_fp c1 = p_mul(p_add(c, d), W), d1 = p_mul(p_sub(c, d), Wq);
        pa[i] = p_add(a1, c1);
        pc[i] = p_sub(a1, c1);
        pb[i] = p_add(b1, d1);
        pd[i] = p_sub(b1, d1);
    }
}
static inline void bfly4_dit0(gs_fp *r, size_t q, gs_fp Wq, const int inv) {
    (void)inv;
    gs_fp *pa = r, *pb = r + q * 8, *pc = r + 2 * q * 8, *pd = r + 3 * q * 8;
    for (int i = 0; i < 8; i++) {
        gs_fp a = pa[i], b = pb[i], c = pc[i], d = pd[i];
        gs_fp a1 = p_add(a, b), b1 = p_sub(a, b);
        gs_fp c1 = p_add(c, d), d1 = p_mul(p_sub(c, d), Wq);
        pa[i] = p_add(a1, c1);
        pc[i] = p_sub(a1, c1);
        pb[i] = p_add(b1, d1);
        pd[i] = p_sub(b1, d1);
    }
}

#define KFN(name) name##_portable
#define KFN_NAME "portable"
#include "ntt/ntt_kern.h"
