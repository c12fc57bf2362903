/* 1/(x - z) for x in Fp and z in Fp3 without an Fp3 inversion per x, shared
 * by the CPU and CUDA DEEP code (host and device: GS_HD).
 * (x - z)(x - z^p)(x - z^(p^2)) = m(x) is a cubic over Fp (z's minimal
 * polynomial when z is not in Fp), so 1/(x - z) = (x^2 + A x + B) / m(x)
 * with A = -(z^p + z^(p^2)), B = z^(p+p^2): only m(x) needs inverting, in Fp. */
#ifndef GSTARK_FIELD_INV_LIN_H
#define GSTARK_FIELD_INV_LIN_H

#include "gstark/field.h"

typedef struct {
    gs_fp3 A, B;
    gs_fp m2, m1, m0; /* m(x) = x^3 + m2 x^2 + m1 x + m0 */
} gs_inv_lin;

GS_HD gs_inv_lin gs_inv_lin_make(gs_fp3 z) {
    gs_fp3 z1 = gs_fp3_frobenius(z), z2 = gs_fp3_frobenius(z1);
    gs_inv_lin l;
    l.A = gs_fp3_neg(gs_fp3_add(z1, z2));
    l.B = gs_fp3_mul(z1, z2);
    l.m2 = gs_fp3_sub(l.A, z).c[0];
    l.m1 = gs_fp3_sub(l.B, gs_fp3_mul(z, l.A)).c[0];
    l.m0 = gs_fp3_neg(gs_fp3_mul(z, l.B)).c[0];
    return l;
}

/* m(x). */
GS_HD gs_fp gs_inv_lin_norm(const gs_inv_lin *l, gs_fp x) {
    return gs_fp_add(gs_fp_mul(gs_fp_add(gs_fp_mul(gs_fp_add(x, l->m2), x), l->m1), x), l->m0);
}

/* x^2 + A x + B, with x2 = x^2: times 1/m(x) it is 1/(x - z). */
GS_HD gs_fp3 gs_inv_lin_quad(const gs_inv_lin *l, gs_fp x, gs_fp x2) {
    return gs_fp3_make(gs_fp_add(gs_fp_add(x2, gs_fp_mul(l->A.c[0], x)), l->B.c[0]),
                       gs_fp_add(gs_fp_mul(l->A.c[1], x), l->B.c[1]),
                       gs_fp_add(gs_fp_mul(l->A.c[2], x), l->B.c[2]));
}

#endif
