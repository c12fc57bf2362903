/* Prove-then-verify for the built-in AIRs over the sizes, blowups and
 * degrees the prover supports: fib at log rows 3..16 and blowups 2, 4, 8;
 * mix at several heights and widths, every degree 2..blowup+1; proof bytes
 * identical for 1, 2 and 3 threads. Grinding is off and queries minimal (80
 * bits) to keep the matrix fast; the protocol is the same. */
#include "gstark/gstark.h"
#include "test_util.h"

static gs_params params(unsigned log_blowup) {
    gs_params p = {log_blowup, 3, 0, (80 + log_blowup - 1) / log_blowup, 1, 0, 0, 0, 0};
    return p;
}

static void prove_verify(const char *what, gs_workload *w, unsigned log_blowup) {
    gs_params par = params(log_blowup);
    gs_proof *pf = NULL;
    gs_status s = gs_prove(&pf, w->air, w->trace, w->log_n, w->pub, &par, NULL);
    if (s != GS_OK) fprintf(stderr, "%s: prove: %s\n", what, gs_status_str(s));
    CHECK(s == GS_OK);
    if (s == GS_OK) {
        gs_status v = gs_verify(w->air, pf, 0);
        if (v != GS_OK) fprintf(stderr, "%s: verify: %s\n", what, gs_status_str(v));
        CHECK(v == GS_OK);
    }
    gs_proof_free(pf);
}

static void test_fib(void) {
    for (unsigned log_n = 3; log_n <= 16; log_n++)
        for (unsigned lb = 1; lb <= 3; lb++) {
            gs_workload w = {0};
            CHECK(gs_airs_fib(&w, log_n, 1, 1) == GS_OK);
            char what[64];
            snprintf(what, sizeof what, "fib log_n %u blowup %u", log_n, 1u << lb);
            prove_verify(what, &w, lb);
            gs_workload_free(&w);
        }
}

static void test_mix(void) {
    static const unsigned logs[] = {3, 6, 9, 12};
    static const uint32_t cols[] = {1, 5, 33};
    for (unsigned lb = 1; lb <= 3; lb++)
        for (unsigned d = 2; d <= (1u << lb) + 1; d++)
            for (int i = 0; i < 4; i++) {
                gs_mix_params mp = {cols[(d + i) % 3], d, logs[i], 7 + d};
                gs_workload w = {0};
                CHECK(gs_airs_mix(&w, &mp) == GS_OK);
                char what[96];
                snprintf(what, sizeof what, "mix cols %u degree %u log_n %u blowup %u", mp.cols, d,
                         mp.log_n, 1u << lb);
                prove_verify(what, &w, lb);
                gs_workload_free(&w);
            }
    /* The tallest size of the matrix, once per blowup at its largest degree. */
    for (unsigned lb = 1; lb <= 3; lb++) {
        gs_mix_params mp = {2, (1u << lb) + 1, 16, 99};
        gs_workload w = {0};
        CHECK(gs_airs_mix(&w, &mp) == GS_OK);
        char what[96];
        snprintf(what, sizeof what, "mix cols 2 degree %u log_n 16 blowup %u", mp.degree, 1u << lb);
        prove_verify(what, &w, lb);
        gs_workload_free(&w);
    }
}

static void test_threads_bytes(void) {
    gs_mix_params mp = {40, 4, 12, 3};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = params(2);
    par.grinding_bits = 8;
    uint8_t *b[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    for (unsigned t = 1; t <= 3; t++) {
        gs_threads_set(t);
        gs_proof *pf = NULL;
        CHECK(gs_prove(&pf, w.air, w.trace, w.log_n, w.pub, &par, NULL) == GS_OK);
        CHECK(pf && gs_proof_serialize(&b[t - 1], &len[t - 1], pf) == GS_OK);
        gs_proof_free(pf);
    }
    gs_threads_set(0);
    CHECK(len[0] > 0 && len[0] == len[1] && len[0] == len[2]);
    CHECK(b[0] && b[1] && b[2] && memcmp(b[0], b[1], len[0]) == 0 && memcmp(b[0], b[2], len[0]) == 0);
    free(b[0]), free(b[1]), free(b[2]);
    gs_workload_free(&w);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_fib();
    test_mix();
    test_threads_bytes();
    return gs_test_done();
}
