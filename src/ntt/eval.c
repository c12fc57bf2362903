/* Subgroup-interpolated polynomials evaluated at one point of Fp3: the
 * barycentric (Lagrange) form over <w_n>, no transform.
 *
 * With n = 2^log_n and w = w_n, the polynomial P of degree < n with
 * P(w^k) = v[k] is P(x) = sum_k v[k] L_k(x), and over the subgroup
 * L_k(x) = (x^n - 1) w^k / (n (x - w^k)) (the derivative of x^n - 1 at w^k is
 * n w^(-k)). So for x outside <w>:
 *     P(x) = (x^n - 1) / n * sum_k v[k] u_k,   u_k = w^k / (x - w^k).
 * The weights u_k depend only on x: one batched inversion (gs_fp3_batch_inv)
 * serves every column. x^n = 1 means x = w^k for one k (the n-th roots of
 * unity of Fp3 all lie in Fp): then P(x) = v[k].
 *
 * Cost per point: n Fp3 inversions by Montgomery's trick (about 3n Fp3
 * products) and n more for the weights, then n Fp3-by-Fp products per
 * column. Memory: the weights, 24n bytes, plus the batch inversion's
 * scratch of the same size. */
#include <stdlib.h>

#include "gstark/ntt.h"

static int fp3_canonical(gs_fp3 x) { return x.c[0] < GS_FP_P && x.c[1] < GS_FP_P && x.c[2] < GS_FP_P; }

gs_status gs_ntt_eval_at(gs_fp3 *out, const gs_fp *const *cols, size_t ncols, unsigned log_n,
                         gs_fp3 x) {
    if (log_n > GS_FP_TWO_ADICITY || !fp3_canonical(x)) return GS_ERR_INVALID_ARG;
    if (ncols == 0) return GS_OK;
    if (!out || !cols) return GS_ERR_INVALID_ARG;
    size_t n = (size_t)1 << log_n;
    for (size_t c = 0; c < ncols; c++) {
        if (!cols[c]) return GS_ERR_INVALID_ARG;
        for (size_t k = 0; k < n; k++)
            if (cols[c][k] >= GS_FP_P) return GS_ERR_INVALID_ARG;
    }
    gs_fp w = gs_fp_root_of_unity(log_n);
    gs_fp3 xn = x;
    for (unsigned i = 0; i < log_n; i++) xn = gs_fp3_sqr(xn);
    if (gs_fp3_eq(xn, gs_fp3_one())) {
        /* x = w^k: find k (the caller's OOD points never get here). */
        gs_fp wk = 1;
        for (size_t k = 0; k < n; k++, wk = gs_fp_mul(wk, w)) {
            if (x.c[0] != wk) continue;
            for (size_t c = 0; c < ncols; c++) out[c] = gs_fp3_from_fp(cols[c][k]);
            return GS_OK;
        }
        return GS_ERR_INVALID_ARG; /* unreachable: x^n = 1 puts x in <w> */
    }
    gs_fp3 *u = malloc(n * sizeof *u);
    if (!u) return GS_ERR_NOMEM;
    gs_fp wk = 1;
    for (size_t k = 0; k < n; k++, wk = gs_fp_mul(wk, w)) u[k] = gs_fp3_sub(x, gs_fp3_from_fp(wk));
    gs_status r = gs_fp3_batch_inv(u, u, n); /* no zero: x is not in <w> */
    if (r == GS_OK) {
        wk = 1;
        for (size_t k = 0; k < n; k++, wk = gs_fp_mul(wk, w)) u[k] = gs_fp3_mul_fp(u[k], wk);
        /* (x^n - 1) / n */
        gs_fp3 scale = gs_fp3_mul_fp(gs_fp3_sub(xn, gs_fp3_one()), gs_fp_inv((gs_fp)n));
        for (size_t c = 0; c < ncols; c++) {
            const gs_fp *v = cols[c];
            gs_fp3 acc = gs_fp3_zero();
            for (size_t k = 0; k < n; k++) acc = gs_fp3_add(acc, gs_fp3_mul_fp(u[k], v[k]));
            out[c] = gs_fp3_mul(acc, scale);
        }
    }
    free(u);
    return r;
}
