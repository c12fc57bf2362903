/* gs_air_ood_composition (air/ood.h). */
#include "air/ood.h"

#include <stdlib.h>

#include "air/logup.h"

/* The LogUp constraints (every row: over x^n - 1), weighted from *a on
 * (advanced past them), into *total. */
static gs_status logup_terms(const gs_air *air, const gs_logup *L, const gs_fp *pub,
                             const gs_ood_values *v, gs_fp3 alpha, gs_fp3 *a, unsigned log_n,
                             gs_fp3 zinv, gs_fp3 *total) {
    gs_fp3 *outs = malloc((L->n_outs + 1) * sizeof *outs), *grp = malloc((L->n_groups + 1) * sizeof *grp);
    gs_fp3 bp[GS_AIR_MAX_TUPLE + 1];
    gs_status r = outs && grp ? GS_OK : GS_ERR_NOMEM;
    if (r == GS_OK) r = gs_air_eval_inter_ext(air, outs, v->cur, pub);
    if (r == GS_OK) {
        gs_fp3_powers(bp, v->bus_alpha, GS_AIR_MAX_TUPLE + 1);
        gs_logup_constraints(L, air, grp, outs, v->aux_cur, v->aux_next, v->bus_z, bp,
                             gs_logup_sigma_n(v->bus_sum, log_n));
        gs_fp3 g = gs_fp3_zero();
        for (uint32_t k = 0; k < L->n_groups; k++) g = gs_fp3_add(g, gs_fp3_mul(*a, grp[k])), *a = gs_fp3_mul(*a, alpha);
        *total = gs_fp3_add(*total, gs_fp3_mul(g, zinv));
    }
    free(outs), free(grp);
    return r;
}

gs_status gs_air_ood_composition(const gs_air *air, unsigned log_n, const gs_fp *pub,
                                 const gs_ood_values *v, gs_fp3 alpha, gs_fp3 z, gs_fp3 *total) {
    uint32_t nt = gs_air_num_transitions(air), nb = gs_air_num_boundaries(air);
    gs_fp3 *c = malloc((nt + 1) * sizeof *c);
    gs_fp *bv = malloc((nb + 1) * sizeof *bv);
    gs_status r = c && bv ? GS_OK : GS_ERR_NOMEM;
    if (r == GS_OK) r = gs_air_eval_ext(air, c, v->cur, v->next, pub);
    if (r == GS_OK) r = gs_air_boundary_values(air, bv, pub);
    if (r == GS_OK) {
        uint64_t n = (uint64_t)1 << log_n;
        gs_fp wn = gs_fp_root_of_unity(log_n);
        gs_fp3 zn = gs_fp3_pow(z, n), one = gs_fp3_one(), a = one, trans = gs_fp3_zero();
        gs_fp3 wl = gs_fp3_from_fp(gs_fp_pow(wn, n - 1)), zinv = gs_fp3_inv(gs_fp3_sub(zn, one));
        for (uint32_t k = 0; k < nt; k++) trans = gs_fp3_add(trans, gs_fp3_mul(a, c[k])), a = gs_fp3_mul(a, alpha);
        *total = gs_fp3_mul(trans, gs_fp3_mul(gs_fp3_sub(z, wl), zinv));
        for (uint32_t i = 0; r == GS_OK && i < nb; i++) {
            uint32_t col;
            uint64_t row;
            r = gs_air_boundary_at(air, i, log_n, &col, &row);
            gs_fp3 d = gs_fp3_sub(z, gs_fp3_from_fp(gs_fp_pow(wn, row)));
            gs_fp3 b = gs_fp3_sub(v->cur[col], gs_fp3_from_fp(bv[i]));
            *total = gs_fp3_add(*total, gs_fp3_mul(gs_fp3_mul(a, b), gs_fp3_inv(d)));
            a = gs_fp3_mul(a, alpha);
        }
        gs_logup L;
        if (r == GS_OK && (r = gs_logup_layout(&L, air)) == GS_OK) {
            if (L.aux_cols) r = logup_terms(air, &L, pub, v, alpha, &a, log_n, zinv, total);
            gs_logup_free(&L);
        }
    }
    free(c), free(bv);
    return r;
}
