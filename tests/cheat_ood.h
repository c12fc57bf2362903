/* The cheating prover of the soundness tests (tests/test_prove.c,
 * tests/test_caps.c), installed as gs_prover_debug_ood with the trace check
 * off (gs_prove_opts.skip_check). */
#ifndef GSTARK_TESTS_CHEAT_OOD_H
#define GSTARK_TESTS_CHEAT_OOD_H

#include "gstark/air.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "prover/prover_internal.h"
#include "test_util.h"

/* A cheating prover: for a wrong witness it sends the last quotient chunk's
 * value at z chosen so that the out-of-domain check passes (recomputing the
 * composition at z here, independently of the verifier). The DEEP word is
 * then far from low degree and FRI must reject: at layer 0 against the DEEP
 * value, at a fold, or at the final polynomial. */
static void lie_at_z(const gs_air *air, const gs_proof *p, gs_table_proof *t, gs_fp3 alpha,
                     gs_fp3 z) {
    uint32_t nt = gs_air_num_transitions(air), nb = gs_air_num_boundaries(air);
    gs_fp3 c[64];
    gs_fp bv[64];
    CHECK(nt <= 64 && nb <= 64); /* the AIRs of the tests */
    if (nt > 64 || nb > 64) return;
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

/* One cheating proof: a random cell of the trace m (`cells` values) made
 * wrong, proven unchecked with lie_at_z; the proof goes to *out (the caller
 * frees it) and the verifier's status comes back. */
static gs_status cheat_prove(gs_proof **out, const gs_air *air, gs_fp *m, size_t cells,
                             unsigned log_n, const gs_fp *pub, const gs_params *par) {
    size_t cell = gs_test_below(cells);
    m[cell] = gs_fp_add(m[cell], 1 + gs_test_below(99));
    gs_prove_opts o = {.skip_check = 1};
    *out = NULL;
    gs_prover_debug_ood = lie_at_z;
    CHECK(gs_prove(out, air, m, log_n, pub, par, &o) == GS_OK);
    gs_prover_debug_ood = NULL;
    return *out ? gs_verify(air, *out, 0) : GS_OK;
}

/* A single-table proof file for `air` changed in place: 1 when the parser
 * refuses it (counted in *by_parser) or the verifier rejects it, 0 when it
 * is accepted. */
static inline int file_rejected(const gs_air *air, const uint8_t *b, size_t l, int *by_parser) {
    gs_proof *q = NULL;
    if (gs_proof_parse(&q, b, l) != GS_OK) return ++*by_parser, 1;
    gs_status v = gs_verify(air, q, 0);
    gs_proof_free(q);
    return v != GS_OK;
}

/* Every byte of the single-table file b after magic and version with one
 * random bit flipped (undone after it is tried): how many were accepted
 * (each named on stderr); *by_parser counts the parser's refusals. */
static inline int every_byte_accepted(const gs_air *air, uint8_t *b, size_t l, int *by_parser) {
    int accepted = 0;
    for (size_t i = 12; i < l; i++) {
        uint8_t x = (uint8_t)(1u << gs_test_below(8)), old = b[i];
        b[i] ^= x;
        if (!file_rejected(air, b, l, by_parser)) {
            accepted++;
            fprintf(stderr, "  accepted: byte %zu ^ 0x%02x\n", i, x);
        }
        b[i] = old;
    }
    return accepted;
}

/* `flips` random single-byte changes (after magic and version) of the
 * multi-table proof file b, each undone after it is tried: how many were
 * accepted by the parser and the verifier of the n AIRs. */
static inline int multi_flips_accepted(const gs_air *const *airs, uint32_t n, uint8_t *b, size_t l, int flips) {
    int accepted = 0;
    for (int j = 0; b && j < flips; j++) {
        size_t i = 12 + gs_test_below(l - 12);
        uint8_t old = b[i];
        b[i] ^= (uint8_t)(1 + gs_test_below(255));
        gs_multi_proof *q = NULL;
        if (gs_multi_proof_parse(&q, b, l) == GS_OK && gs_verify_multi(airs, n, q, 0) == GS_OK) accepted++;
        gs_multi_proof_free(q);
        b[i] = old;
    }
    return accepted;
}

/* The verifier's status for proof pf read back from its file (the
 * serializer's or the parser's status when one of them fails). */
static inline gs_status file_verify(const gs_air *air, const gs_proof *pf) {
    uint8_t *b = NULL;
    size_t l = 0;
    gs_proof *q = NULL;
    gs_status s = gs_proof_serialize(&b, &l, pf);
    if (s == GS_OK) s = gs_proof_parse(&q, b, l);
    if (s == GS_OK) s = gs_verify(air, q, 0);
    free(b);
    gs_proof_free(q);
    return s;
}

/* Where FRI caught it: 0 at DEEP, 1 at a fold, 2 at the final polynomial,
 * -1 for any other status (the test fails on that). */
static int cheat_kind(gs_status v) {
    return v == GS_ERR_PROOF_DEEP ? 0 : v == GS_ERR_PROOF_FRI_FOLD ? 1 : v == GS_ERR_PROOF_FRI_FINAL ? 2 : -1;
}

#endif
