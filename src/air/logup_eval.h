/* The LogUp fingerprint and constraints of one row (definitions in logup.h,
 * docs/protocol.md "Buses"), written once for every evaluator: the CPU aux
 * trace and quotient (base-field interaction outputs), the verifier (Fp3
 * outputs at z), both in src/air/logup.c, and the device aux trace and
 * quotient (src/cuda/quotient.cu). It compiles as C11 and as CUDA C++ and
 * needs only gstark/field.h (GS_HD arithmetic), so src/cuda/ may include it.
 *
 * A template, like hash/keccak_round.h: the includer defines the macros
 * below, includes this file and gets three functions; every GS_LU_* macro is
 * #undef'd at the end, so the file can be included again with others.
 *
 *   GS_LU_NAME(x)         the generated names (e.g. lu_fp_##x): fingerprint,
 *                         mult, constraints
 *   GS_LU_QUAL            their qualifiers (static inline; under nvcc e.g.
 *                         template <class RF> static __host__ __device__)
 *   GS_LU_CTX             the includer's row type; the functions take a
 *                         GS_LU_CTX * as first argument, c below
 *   GS_LU_V               an interaction output: gs_fp or gs_fp3
 *   GS_LU_MUL(x, v)       x * v, x in Fp3, v a GS_LU_V
 *   GS_LU_NEG(v)          -v
 *   GS_LU_LIFT(v)         v as an Fp3 value
 *   GS_LU_OUT(c, k)       output k of the interaction program on the row
 *   GS_LU_GROUPS(c)       the number of groups
 *   GS_LU_FIRST(c, g)     group g's first interaction
 *   GS_LU_SIZE(c, g)      group g's size (at least 1)
 *   GS_LU_OFF(c, i)       interaction i's output offset (m, then the tuple)
 *   GS_LU_WIDTH(c, i)     its tuple's width
 *   GS_LU_RECEIVES(c, i)  nonzero when its sign is -1
 *   GS_LU_BUS(c, i)       its bus id as a gs_fp
 *   GS_LU_Z(c)            the challenge z (Fp3)
 *   GS_LU_AP(c, k)        alpha^k (Fp3), k <= GS_AIR_MAX_TUPLE
 *   GS_LU_AUX(c, j)       aux column j (Fp3) on the row: h_j for j < groups - 1,
 *                         S for j = groups - 1
 *   GS_LU_AUX_NEXT(c, j)  the same on the next row (only S is read there)
 *   GS_LU_GROUP(c, g, v)  takes group g's constraint value v
 *   GS_LU_DOT(c, at, w)   optional: sum_(k < w) alpha^(k+1) * output (at + k),
 *                         in Fp3 (a host fast path: one reduction per component
 *                         instead of one per product); when not defined, the
 *                         products are added one by one
 *
 * Field arithmetic is exact and canonical, so any order of these operations
 * gives the same values; every evaluator runs this one (the order the three
 * copies this file replaced had). No include guard: a template. */
#include "gstark/field.h"

/* d_i = z - (bus_i + sum_k alpha^(k+1) v_(i,k)). */
GS_LU_QUAL gs_fp3 GS_LU_NAME(fingerprint)(GS_LU_CTX *c, uint32_t i) {
    uint32_t at = (uint32_t)GS_LU_OFF(c, i) + 1, w = (uint32_t)GS_LU_WIDTH(c, i);
    gs_fp3 acc = gs_fp3_from_fp(GS_LU_BUS(c, i));
#ifdef GS_LU_DOT
    acc = gs_fp3_add(acc, GS_LU_DOT(c, at, w));
#else
    for (uint32_t k = 0; k < w; k++)
        acc = gs_fp3_add(acc, GS_LU_MUL(GS_LU_AP(c, k + 1), GS_LU_OUT(c, at + k)));
#endif
    return gs_fp3_sub(GS_LU_Z(c), acc);
}

/* s_i m_i. */
GS_LU_QUAL GS_LU_V GS_LU_NAME(mult)(GS_LU_CTX *c, uint32_t i) {
    GS_LU_V m = GS_LU_OUT(c, (uint32_t)GS_LU_OFF(c, i));
    return GS_LU_RECEIVES(c, i) ? GS_LU_NEG(m) : m;
}

/* Every group g (through GS_LU_GROUP), every row, for its interactions a..:
 *   h_g prod_i d_i - sum_i s_i m_i prod_(j != i) d_j
 * (one: h_g d_a - s_a m_a; two: h_g d_a d_b - (s_a m_a d_b + s_b m_b d_a)),
 * built one interaction at a time: P = prod d, R = sum s m prod_(others) d,
 * and each new (d, m) makes R = R d + m P, P = P d. Groups 0 .. G-2 take
 * h_g from their aux column; the last group has none: its h is
 * S' - S - sum_(g < G-1) h_g + sigma_n (S the running sum, aux column
 * G - 1, and sigma_n = sigma / n), so its constraint is also the running
 * sum's, on every row with the wrap-around. */
GS_LU_QUAL void GS_LU_NAME(constraints)(GS_LU_CTX *c, gs_fp3 sigma_n) {
    uint32_t G = (uint32_t)GS_LU_GROUPS(c);
    gs_fp3 hsum = gs_fp3_zero();
    for (uint32_t g = 0; g < G; g++) {
        uint32_t a = (uint32_t)GS_LU_FIRST(c, g), size = (uint32_t)GS_LU_SIZE(c, g);
        gs_fp3 P = GS_LU_NAME(fingerprint)(c, a), R;
        GS_LU_V ma = GS_LU_NAME(mult)(c, a);
        if (size == 1) {
            R = GS_LU_LIFT(ma);
        } else { /* the first step with m_a still in V: two cheap products */
            gs_fp3 d = GS_LU_NAME(fingerprint)(c, a + 1);
            R = gs_fp3_add(GS_LU_MUL(d, ma), GS_LU_MUL(P, GS_LU_NAME(mult)(c, a + 1)));
            P = gs_fp3_mul(P, d);
        }
        for (uint32_t k = 2; k < size; k++) {
            gs_fp3 d = GS_LU_NAME(fingerprint)(c, a + k);
            R = gs_fp3_add(gs_fp3_mul(R, d), GS_LU_MUL(P, GS_LU_NAME(mult)(c, a + k)));
            P = gs_fp3_mul(P, d);
        }
        gs_fp3 h;
        if (g + 1 < G) {
            h = GS_LU_AUX(c, g);
            hsum = gs_fp3_add(hsum, h);
        } else {
            h = gs_fp3_add(gs_fp3_sub(gs_fp3_sub(GS_LU_AUX_NEXT(c, g), GS_LU_AUX(c, g)), hsum), sigma_n);
        }
        GS_LU_GROUP(c, g, gs_fp3_sub(gs_fp3_mul(h, P), R));
    }
}

#undef GS_LU_NAME
#undef GS_LU_QUAL
#undef GS_LU_CTX
#undef GS_LU_V
#undef GS_LU_MUL
#undef GS_LU_NEG
#undef GS_LU_LIFT
#undef GS_LU_OUT
#undef GS_LU_GROUPS
#undef GS_LU_FIRST
#undef GS_LU_SIZE
#undef GS_LU_OFF
#undef GS_LU_WIDTH
#undef GS_LU_RECEIVES
#undef GS_LU_BUS
#undef GS_LU_Z
#undef GS_LU_AP
#undef GS_LU_AUX
#undef GS_LU_AUX_NEXT
#undef GS_LU_GROUP
#undef GS_LU_DOT
