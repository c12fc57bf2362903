/* Prove-then-verify for a Fibonacci AIR built here and a higher-degree AIR;
 * wrong witnesses refused by the check and rejected by the verifier;
 * tampered proofs rejected with the matching check; thread independence. */
#include "gstark/air.h"
#include "gstark/parallel.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "cheat_ood.h"
#include "fib_air.h"
#include "prover/prover_internal.h"
#include "test_util.h"

/* A degree-d AIR: x' = x^d + y, y' = y + 1; x[0] = pub0. */
static gs_air *pow_air(unsigned d) {
    gs_air *air = gs_air_new("pow", 2, 1);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0),
                                      gs_air_add(air, gs_air_pow(air, gs_air_col(air, 0), d), gs_air_col(air, 1))));
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 1), gs_air_add(air, gs_air_col(air, 1), gs_air_const(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_public(air, 0));
    gs_air_finalize(air);
    return air;
}

static gs_fp *pow_trace(unsigned log_n, unsigned d, gs_fp x0) {
    size_t n = (size_t)1 << log_n;
    gs_fp *m = malloc(2 * n * sizeof *m);
    m[0] = x0, m[n] = 5;
    for (size_t i = 0; i + 1 < n; i++)
        m[i + 1] = gs_fp_add(gs_fp_pow(m[i], d), m[n + i]), m[n + i + 1] = gs_fp_add(m[n + i], 1);
    return m;
}

static gs_params test_params(unsigned log_blowup) {
    gs_params p = {log_blowup, 3, 4, 0, 1, 0, 0, 0, 0};
    p.num_queries = (80 - 4 + log_blowup - 1) / log_blowup;
    return p;
}

static void test_fib(void) {
    gs_air *air = fib_air();
    for (unsigned log_n = 1; log_n <= 10; log_n++)
        for (unsigned lb = 1; lb <= 3; lb++) {
            gs_fp pub[4] = {1, 1, 0, 0};
            gs_fp *m = fib_trace(log_n, pub);
            gs_params par = test_params(lb);
            gs_proof *pf = NULL;
            gs_status s = gs_prove(&pf, air, m, log_n, pub, &par, NULL);
            CHECK(s == GS_OK);
            if (s == GS_OK) {
                gs_status v = gs_verify(air, pf, 0);
                if (v != GS_OK) fprintf(stderr, "fib log_n %u lb %u: %s\n", log_n, lb, gs_status_str(v));
                CHECK(v == GS_OK);
            }
            gs_proof_free(pf);
            free(m);
        }
    gs_air_free(air);
}

static void test_degrees(void) {
    for (unsigned lb = 1; lb <= 3; lb++)
        for (unsigned d = 2; d <= (1u << lb) + 1; d++) {
            gs_air *air = pow_air(d);
            unsigned log_n = 6;
            gs_fp pub[1] = {3};
            gs_fp *m = pow_trace(log_n, d, pub[0]);
            gs_params par = test_params(lb);
            gs_proof *pf = NULL;
            gs_status s = gs_prove(&pf, air, m, log_n, pub, &par, NULL);
            CHECK(s == GS_OK);
            if (s == GS_OK) {
                gs_status v = gs_verify(air, pf, 0);
                if (v != GS_OK) fprintf(stderr, "pow d %u lb %u: %s\n", d, lb, gs_status_str(v));
                CHECK(v == GS_OK);
            }
            gs_proof_free(pf);
            /* A degree too large for the blowup is refused. */
            gs_air *big = pow_air((1u << lb) + 2);
            CHECK(gs_prove(&pf, big, m, log_n, pub, &par, NULL) == GS_ERR_AIR_DEGREE);
            gs_air_free(big);
            free(m);
            gs_air_free(air);
        }
}

static void test_wrong_witness(void) {
    gs_air *air = fib_air();
    unsigned log_n = 6;
    size_t n = (size_t)1 << log_n;
    gs_params par = test_params(2);
    for (int round = 0; round < 12; round++) {
        gs_fp pub[4] = {2, 7, 0, 0};
        gs_fp *m = fib_trace(log_n, pub);
        size_t cell = round == 0 ? 2 * n - 1 : round == 1 ? n - 1 : gs_test_below(2 * n);
        m[cell] = gs_fp_add(m[cell], 1 + gs_test_below(1000));
        gs_proof *pf = NULL;
        CHECK(gs_prove(&pf, air, m, log_n, pub, &par, NULL) == GS_ERR_AIR_UNSATISFIED);
        gs_prove_opts o = {.skip_check = 1};
        gs_status s = gs_prove(&pf, air, m, log_n, pub, &par, &o);
        CHECK(s == GS_OK);
        if (s == GS_OK) {
            gs_status v = gs_verify(air, pf, 0);
            CHECK(v != GS_OK);
            if (round < 4) printf("wrong witness, cell %zu: %s\n", cell, gs_status_str(v));
        }
        gs_proof_free(pf);
        free(m);
    }
    gs_air_free(air);
}

/* Every part of a valid proof, changed, is rejected, and by the check that
 * looks at it first. Grinding is off here so that the proof of work does not
 * catch the change first; anything absorbed before the queries are drawn
 * moves the query positions, so the openings fail at the trace paths. */
static void test_tamper(void) {
    gs_air *air = fib_air();
    unsigned log_n = 8;
    gs_fp pub[4] = {1, 2, 0, 0};
    gs_fp *m = fib_trace(log_n, pub);
    gs_params par = {2, 3, 0, 40, 1, 0, 0, 0, 0};
    gs_proof *pf = NULL;
    CHECK(gs_prove(&pf, air, m, log_n, pub, &par, NULL) == GS_OK);
    CHECK(gs_verify(air, pf, 0) == GS_OK);
    gs_table_proof *t = &pf->table;
    CHECK(t->num_layers == 5 && t->final_len == 8);
#define TAMPER(field, expect)                                   \
    do {                                                        \
        uint8_t *b_ = (uint8_t *)&(field);                      \
        b_[0] ^= 1;                                             \
        gs_status v_ = gs_verify(air, pf, 0);                   \
        if (v_ != (expect)) fprintf(stderr, "tamper %s: %s\n", #field, gs_status_str(v_)); \
        CHECK(v_ == (expect));                                  \
        b_[0] ^= 1;                                             \
    } while (0)
    TAMPER(pf->pub[2], GS_ERR_PROOF_OOD);
    TAMPER(pf->air_fingerprint, GS_ERR_PROOF_STATEMENT);
    TAMPER(pf->log_n, GS_ERR_PROOF_FORMAT);
    TAMPER(t->trace_root, GS_ERR_PROOF_OOD); /* alpha and z move */
    TAMPER(t->chunk_root, GS_ERR_PROOF_OOD); /* z moves */
    TAMPER(t->ood_cur[1], GS_ERR_PROOF_OOD);
    TAMPER(t->ood_next[0], GS_ERR_PROOF_OOD);
    TAMPER(t->ood_chunks[0], GS_ERR_PROOF_OOD);
    /* These move the drawn positions away from the ones the proof carries. */
    TAMPER(t->fri_roots[0], GS_ERR_PROOF_QUERIES);
    TAMPER(t->fri_roots[4], GS_ERR_PROOF_QUERIES);
    TAMPER(t->final_poly[0], GS_ERR_PROOF_QUERIES);
    TAMPER(t->query_pos[1], GS_ERR_PROOF_QUERIES);
    { /* Without positions (a proof read from a version 1 file) the openings catch it. */
        uint32_t *qp = t->query_pos;
        t->query_pos = NULL;
        TAMPER(t->fri_roots[0], GS_ERR_PROOF_TRACE_PATH);
        TAMPER(t->fri_roots[4], GS_ERR_PROOF_TRACE_PATH);
        TAMPER(t->final_poly[0], GS_ERR_PROOF_TRACE_PATH);
        t->query_pos = qp;
    }
    TAMPER(t->trace_rows[5], GS_ERR_PROOF_TRACE_PATH);
    TAMPER(t->trace_paths[3], GS_ERR_PROOF_TRACE_PATH);
    TAMPER(t->chunk_rows[2], GS_ERR_PROOF_CHUNK_PATH);
    TAMPER(t->chunk_paths[0], GS_ERR_PROOF_CHUNK_PATH);
    TAMPER(t->fri_rows[3], GS_ERR_PROOF_FRI_PATH);
    TAMPER(t->fri_paths[1], GS_ERR_PROOF_FRI_PATH);
    TAMPER(pf->params.num_queries, GS_ERR_PROOF_FORMAT);
    TAMPER(pf->params.log_final, GS_ERR_PROOF_FORMAT);
    TAMPER(pf->params.log_arity, GS_ERR_PROOF_PARAMS);
    /* The DEEP, fold and final-polynomial checks are reached by proofs of
     * wrong witnesses (test_wrong_witness): their openings are honest. */
    gs_proof_free(pf);
    /* With grinding: a nonce that does not meet the target is refused. */
    par.grinding_bits = 6;
    CHECK(gs_prove(&pf, air, m, log_n, pub, &par, NULL) == GS_OK);
    CHECK(gs_verify(air, pf, 0) == GS_OK);
    t = &pf->table;
    uint64_t good = t->pow_nonce;
    int rejected = 0;
    for (uint64_t k = 1; k < 64 && !rejected; k++) {
        t->pow_nonce = good + k;
        rejected = gs_verify(air, pf, 0) == GS_ERR_PROOF_POW;
    }
    CHECK(rejected);
    t->pow_nonce = good;
    CHECK(gs_verify(air, pf, 0) == GS_OK);
    /* Security minimum: the same proof is refused when asking for more than
     * it has; a minimum above what Keccak-256 allows (128) is a bad argument,
     * since no proof could meet it. */
    unsigned have = gs_params_security(&pf->params);
    CHECK(have < GS_MAX_SECURITY_BITS && gs_verify(air, pf, have) == GS_OK);
    CHECK(gs_verify(air, pf, have + 1) == GS_ERR_PROOF_PARAMS);
    CHECK(gs_verify(air, pf, GS_MAX_SECURITY_BITS + 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_verify(air, pf, 200) == GS_ERR_INVALID_ARG);
    /* Another AIR. */
    gs_air *other = pow_air(2);
    CHECK(gs_verify(other, pf, 0) == GS_ERR_PROOF_STATEMENT);
    gs_air_free(other);
    gs_proof_free(pf);
    free(m);
    gs_air_free(air);
}

static void test_threads(void) {
    gs_air *air = pow_air(3);
    unsigned log_n = 11;
    gs_fp pub[1] = {9};
    gs_fp *m = pow_trace(log_n, 3, pub[0]);
    gs_params par = test_params(2);
    gs_proof *p1 = NULL, *p2 = NULL;
    gs_threads_set(1);
    CHECK(gs_prove(&p1, air, m, log_n, pub, &par, NULL) == GS_OK);
    gs_threads_set(3);
    CHECK(gs_prove(&p2, air, m, log_n, pub, &par, NULL) == GS_OK);
    gs_threads_set(0);
    if (p1 && p2) {
        CHECK(memcmp(&p1->table.trace_root, &p2->table.trace_root, 32) == 0);
        CHECK(memcmp(&p1->table.chunk_root, &p2->table.chunk_root, 32) == 0);
        CHECK(p1->table.pow_nonce == p2->table.pow_nonce);
        CHECK(memcmp(p1->table.fri_paths, p2->table.fri_paths,
                     p1->table.num_queries * sizeof(gs_digest)) == 0);
    }
    gs_proof_free(p1), gs_proof_free(p2);
    free(m);
    gs_air_free(air);
}

static void test_cheating_prover(gs_hash_id hash) {
    gs_params par = {2, 2, 0, 40, 1, hash, 0, 0, 0};
    int by_kind[3] = {0, 0, 0};
    for (int round = 0; round < 12; round++) {
        par.log_arity = 1 + (uint32_t)(round / 3); /* every fold arity: 2, 4, 8, 16 */
        int use_fib = round % 2 == 0;
        unsigned log_n = 5 + (unsigned)(round % 4);
        size_t n = (size_t)1 << log_n;
        gs_fp pub3[4] = {1, 1, 0, 0}, pub1[1] = {4};
        gs_air *air = use_fib ? fib_air() : pow_air(3);
        gs_fp *m = use_fib ? fib_trace(log_n, pub3) : pow_trace(log_n, 3, pub1[0]);
        gs_fp *pub = use_fib ? pub3 : pub1;
        gs_proof *pf;
        gs_status v = cheat_prove(&pf, air, m, 2 * n, log_n, pub, &par);
        int kind = cheat_kind(v);
        CHECK(kind >= 0);
        if (kind < 0)
            fprintf(stderr, "cheating prover, round %d (fold by %u): %s\n", round,
                    1u << par.log_arity, gs_status_str(v));
        else
            by_kind[kind]++;
        gs_proof_free(pf);
        free(m);
        gs_air_free(air);
    }
    printf("cheating prover (%s) rejected: %d at DEEP, %d at a fold, %d at the final polynomial "
           "(folds by 2, 4, 8 and 16)\n", gs_hash_name(hash), by_kind[0], by_kind[1], by_kind[2]);
    par.log_arity = 1;
    /* The hook itself is honest about valid witnesses: lying is only needed
     * for wrong ones. With a valid trace the rewritten value is the true one. */
    gs_air *air = fib_air();
    gs_fp pub[4] = {1, 1, 0, 0};
    gs_fp *m = fib_trace(6, pub);
    gs_proof *pf = NULL;
    gs_prover_debug_ood = lie_at_z;
    CHECK(gs_prove(&pf, air, m, 6, pub, &par, NULL) == GS_OK);
    gs_prover_debug_ood = NULL;
    CHECK(pf && gs_verify(air, pf, 0) == GS_OK);
    CHECK(pf && pf->params.hash == (uint32_t)hash);
    gs_proof_free(pf);
    free(m);
    gs_air_free(air);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_fib();
    test_degrees();
    test_wrong_witness();
    test_tamper();
    test_threads();
    test_cheating_prover(GS_HASH_KECCAK256);
    test_cheating_prover(GS_HASH_POSEIDON2);
    return gs_test_done();
}
