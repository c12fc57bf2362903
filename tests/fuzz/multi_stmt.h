/* The small multi-table statement of the version-2 proof file tests
 * (tests/test_proof_format_multi.c) and its fuzzer (tests/fuzz/fuzz_multi.c):
 * three generic lookup tables (include/gstark/synth.h, gs_synth_custom):
 *   0 "prov"  8 rows x 4 columns, degree 2: a provider, no ports;
 *   1 "user"  8 rows x 8 columns, degree 2: one port looking up table 0;
 *   2 "solo" 16 rows x 3 columns, degree 3: no interactions, so A = 0.
 * Tables 0 and 1 have LogUp aux columns, table 2 none: a proof covers both
 * kinds of MTBL section. The AIRs depend on nothing else; the traces on the
 * seed. */
#ifndef GSTARK_TESTS_MULTI_STMT_H
#define GSTARK_TESTS_MULTI_STMT_H

#include "gstark/parallel.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/synth.h"

#define MULTI_STMT_TABLES 3u

/* Proof parameters of the small proofs: blowup 2, 80 bits (78 queries + 2
 * bits of grinding), two or three FRI layers; 16 or 32 queries drawn. */
static const gs_params MULTI_STMT_PARAMS = {1, 1, 2, 78, 1, 0, 0, 0, 0};

static const gs_synth_table MULTI_STMT_SPEC[MULTI_STMT_TABLES] = {
    {.name = "prov", .log_n = 3, .cols = 4, .degree = 2, .provider = 1},
    {.name = "user", .log_n = 3, .cols = 8, .degree = 2, .num_ports = 1, .targets = {1}, .density = 128},
    {.name = "solo", .log_n = 4, .cols = 3, .degree = 3},
};

/* The statement's AIRs (what a verifier needs); on error none is left. */
static inline gs_status multi_stmt_airs(gs_air *airs[MULTI_STMT_TABLES]) {
    for (uint32_t t = 0; t < MULTI_STMT_TABLES; t++) {
        gs_status s = gs_synth_custom_air(&airs[t], NULL, MULTI_STMT_SPEC, MULTI_STMT_TABLES, 0, t);
        if (s != GS_OK) {
            while (t-- > 0) gs_air_free(airs[t]), airs[t] = NULL;
            return s;
        }
    }
    return GS_OK;
}

/* The statement with traces for `seed`. */
static inline gs_status multi_stmt_workload(gs_multi_workload *w, uint64_t seed) {
    return gs_synth_custom(w, MULTI_STMT_SPEC, MULTI_STMT_TABLES, 0, seed);
}

/* The statement for `seed` proven into *mp with `threads` worker threads (0:
 * the default, which is restored after). */
static inline gs_status multi_stmt_prove(gs_multi_proof **mp, uint64_t seed, const gs_params *par,
                                         unsigned threads) {
    gs_multi_workload w = {0};
    *mp = NULL;
    gs_status s = multi_stmt_workload(&w, seed);
    gs_table_input in[MULTI_STMT_TABLES];
    for (uint32_t i = 0; s == GS_OK && i < w.num_tables; i++)
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
    gs_threads_set(threads);
    if (s == GS_OK) s = gs_prove_multi(mp, in, w.num_tables, par, NULL);
    gs_threads_set(0);
    gs_multi_workload_free(&w);
    return s;
}

#endif
