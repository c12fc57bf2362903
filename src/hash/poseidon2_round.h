/* The Poseidon2 permutation's round structure, written once over an abstract element type so
 * that the portable C path, the AVX2 and AVX-512 paths (several states in the lanes of a
 * vector) and the CUDA kernels compute it from one definition. No include guard: a file
 * includes it once after defining
 *   P2T             the element type (gs_fp, __m256i, __m512i, ...);
 *   P2_FN           the functions' qualifiers (e.g. `static inline`);
 *   P2_NAME(x)      the name given to helper x (so that two instantiations can coexist);
 *   P2_ADD(a, b)    a + b in Fp (canonical in, canonical out);
 *   P2_MUL(a, b)    a * b in Fp;
 *   P2_CONST(c)     the uint64_t constant c (canonical) as a P2T;
 * and optionally, for lazy reduction in the linear layers (defaults: the canonical operations):
 *   P2W, P2W_OF(x), P2W_ADD(a, b), P2W_RED(x)  a wide type that holds sums of up to 64
 *                   canonical values unreduced, P2T -> P2W, its addition, and P2W -> P2T
 *                   (canonical, the value mod p);
 *   P2_MULADD(a, c, b)  a * c + b (c a uint64_t constant), canonical.
 *
 * The permutation (Poseidon2 paper, eprint 2023/323, section 4; HorizenLabs' reference):
 *   M_E x;  4 x (add round constants, x^7 on every element, M_E);
 *   22 x (add a constant to element 0, x^7 on element 0, M_I);
 *   4 x (add round constants, x^7 on every element, M_E).
 * M_E (width W = 4k) = circ(2 M4, M4, ..., M4): M4 on each 4-element block, then each
 * element plus the sum of the elements at its position in every block; M4 is the paper's
 *   [5 7 1 3; 4 6 1 1; 1 3 5 7; 1 1 4 6].
 * M_I = J + diag(d) (J all ones): y_i = d_i x_i + sum_j x_j.
 * x^7 = x^3 x^4: four products. Per permutation: 8 W + 22 S-boxes (4 products each),
 * 22 W products for M_I, and about 9 (3 W + 8) + 22 (2 W) additions. */

#ifndef P2W
#define P2W P2T
#define P2W_OF(x) (x)
#define P2W_ADD(a, b) P2_ADD(a, b)
#define P2W_RED(x) (x)
#endif
#ifndef P2_MULADD
#define P2_MULADD(a, c, b) P2_ADD(P2_MUL(a, P2_CONST(c)), b)
#endif

/* x^7 */
P2_FN P2T P2_NAME(sbox)(P2T x) {
    P2T x2 = P2_MUL(x, x);
    P2T x3 = P2_MUL(x2, x);
    P2T x4 = P2_MUL(x2, x2);
    return P2_MUL(x3, x4);
}

/* y <- M4 x on four elements (wide: each output is at most 16 times the largest input). With
 * a = x0 + x1, b = x2 + x3:
 *   row 1 = 4a + (2 x1 + b),   row 3 = 4b + (2 x3 + a),
 *   row 0 = row 1 + (2 x3 + a), row 2 = row 3 + (2 x1 + b). */
P2_FN void P2_NAME(m4)(P2W *y, const P2T *x) {
    P2W x1 = P2W_OF(x[1]), x3 = P2W_OF(x[3]);
    P2W a = P2W_ADD(P2W_OF(x[0]), x1), b = P2W_ADD(P2W_OF(x[2]), x3);
    P2W p = P2W_ADD(P2W_ADD(x1, x1), b); /* 2 x1 + b */
    P2W q = P2W_ADD(P2W_ADD(x3, x3), a); /* 2 x3 + a */
    P2W a2 = P2W_ADD(a, a), b2 = P2W_ADD(b, b);
    P2W r1 = P2W_ADD(P2W_ADD(a2, a2), p);
    P2W r3 = P2W_ADD(P2W_ADD(b2, b2), q);
    y[0] = P2W_ADD(r1, q);
    y[1] = r1;
    y[2] = P2W_ADD(r3, p);
    y[3] = r3;
}

/* s <- M_E s, width w (a multiple of 4, at most 12: every output sums at most 64 inputs). */
P2_FN void P2_NAME(external)(P2T *s, unsigned w) {
    P2W y[12] = {0}, col[4]; /* zeroed: gcc 13 cannot see that w >= 4 */
    for (unsigned c = 0; c < w; c += 4) P2_NAME(m4)(y + c, s + c);
    for (unsigned l = 0; l < 4; l++) {
        col[l] = y[l];
        for (unsigned c = 4; c < w; c += 4) col[l] = P2W_ADD(col[l], y[c + l]);
    }
    for (unsigned i = 0; i < w; i++) s[i] = P2W_RED(P2W_ADD(y[i], col[i & 3]));
}

/* A partial round: s[0] <- (s[0] + c)^7, then s <- (J + diag(d)) s. The sum of s[1..w) is
 * taken as a tree while the S-box runs (exact: Fp addition is associative), so the chain from
 * one round to the next is the S-box, one addition and one product. */
P2_FN void P2_NAME(partial)(P2T *s, unsigned w, uint64_t c, const uint64_t *d) {
    P2W t[12];
    unsigned n = w - 1;
    for (unsigned i = 0; i < n; i++) t[i] = P2W_OF(s[i + 1]);
    while (n > 1) {
        for (unsigned i = 0; i < n / 2; i++) t[i] = P2W_ADD(t[2 * i], t[2 * i + 1]);
        if (n & 1) t[n / 2] = t[n - 1];
        n = (n + 1) / 2;
    }
    P2T x = P2_NAME(sbox)(P2_ADD(s[0], P2_CONST(c)));
    P2T sum = P2W_RED(P2W_ADD(P2W_OF(x), t[0]));
    s[0] = P2_MULADD(x, d[0], sum);
    for (unsigned i = 1; i < w; i++) s[i] = P2_MULADD(s[i], d[i], sum);
}

/* Four full rounds with the round-constant rows rc[0..4*w). */
P2_FN void P2_NAME(full4)(P2T *s, unsigned w, const uint64_t *rc) {
    for (unsigned r = 0; r < 4; r++) {
        for (unsigned i = 0; i < w; i++)
            s[i] = P2_NAME(sbox)(P2_ADD(s[i], P2_CONST(rc[r * w + i])));
        P2_NAME(external)(s, w);
    }
}

/* The permutation of width w: rc_ext (8 rows of w, gs_poseidon2 consts layout), rc_int (22),
 * diag (w). */
P2_FN void P2_NAME(permute)(P2T *s, unsigned w, const uint64_t *rc_ext, const uint64_t *rc_int,
                            const uint64_t *diag) {
    P2_NAME(external)(s, w);
    P2_NAME(full4)(s, w, rc_ext);
    for (unsigned r = 0; r < 22; r++) P2_NAME(partial)(s, w, rc_int[r], diag);
    P2_NAME(full4)(s, w, rc_ext + 4 * w);
}

#undef P2W
#undef P2W_OF
#undef P2W_ADD
#undef P2W_RED
#undef P2_MULADD
