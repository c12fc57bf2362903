/* The cheating prover of the soundness tests (tests/test_prove.c,
 * tests/test_caps.c), installed as gs_prover_debug_ood with the trace check
 * off (gs_prove_opts.skip_check). */
#ifndef GSTARK_TESTS_CHEAT_OOD_H
#define GSTARK_TESTS_CHEAT_OOD_H

#include "gstark/air.h"
#include "gstark/proof.h"

/* A cheating prover: for a wrong witness it sends the last quotient chunk's
 * value at z chosen so that the out-of-domain check passes (recomputing the
 * composition at z here, independently of the verifier). The DEEP word is
 * then far from low degree and FRI must reject: at layer 0 against the DEEP
 * value, at a fold, or at the final polynomial. */
static void lie_at_z(const gs_air *air, const gs_proof *p, gs_table_proof *t, gs_fp3 alpha,
                     gs_fp3 z) {
    uint32_t nt = gs_air_num_transitions(air), nb = gs_air_num_boundaries(air);
    gs_fp3 c[8];
    gs_fp bv[8];
    gs_air_eval_ext(air, c, t->ood_cur, t->ood_next, p->pub);
    gs_air_boundary_values(air, bv, p->pub);
    uint64_t n = (uint64_t)1 << p->log_n;
    gs_fp w = gs_fp_root_of_unity(p->log_n);
    gs_fp3 zn = gs_fp3_pow(z, n), a = gs_fp3_one(), total = gs_fp3_zero();
    gs_fp3 vanish = gs_fp3_mul(gs_fp3_sub(z, gs_fp3_from_fp(gs_fp_pow(w, n - 1))),
                               gs_fp3_inv(gs_fp3_sub(zn, gs_fp3_one())));
    for (uint32_t k = 0; k < nt; k++, a = gs_fp3_mul(a, alpha))
        total = gs_fp3_add(total, gs_fp3_mul(gs_fp3_mul(a, c[k]), vanish));
    for (uint32_t i = 0; i < nb; i++, a = gs_fp3_mul(a, alpha)) {
        uint32_t col;
        uint64_t row;
        gs_air_boundary_at(air, i, p->log_n, &col, &row);
        gs_fp3 v = gs_fp3_sub(t->ood_cur[col], gs_fp3_from_fp(bv[i]));
        total = gs_fp3_add(total, gs_fp3_mul(gs_fp3_mul(a, v),
                                             gs_fp3_inv(gs_fp3_sub(z, gs_fp3_from_fp(gs_fp_pow(w, row))))));
    }
    /* total = sum_j z^(jn) Q_j(z): solve for the last chunk. */
    uint32_t K = t->num_chunks;
    gs_fp3 rest = gs_fp3_zero(), zjn = gs_fp3_one();
    for (uint32_t j = 0; j + 1 < K; j++, zjn = gs_fp3_mul(zjn, zn))
        rest = gs_fp3_add(rest, gs_fp3_mul(zjn, t->ood_chunks[j]));
    t->ood_chunks[K - 1] = gs_fp3_mul(gs_fp3_sub(total, rest), gs_fp3_inv(zjn));
}

#endif
