/* The per-table scheduler: the vm and skew presets give identical proof
 * bytes for k in {1, 2, 4, 8} tables at once and for a tiny, a medium and an
 * unlimited memory budget; when every table fits in the budget, the bytes
 * charged never exceed it. */
#include "gstark/gstark.h"
#include "gstark/sched.h"
#include "test_util.h"

static uint8_t *prove_bytes(const gs_multi_workload *w, unsigned k, size_t budget, size_t *len,
                            gs_prove_stats *st) {
    uint32_t n = w->num_tables;
    gs_table_input *in = calloc(n, sizeof *in);
    const gs_air **airs = calloc(n, sizeof *airs);
    for (uint32_t i = 0; i < n; i++) {
        in[i] = (gs_table_input){.air = w->tables[i].air, .trace = w->tables[i].trace,
                                 .log_n = w->tables[i].log_n, .pub = w->tables[i].pub};
        airs[i] = w->tables[i].air;
    }
    gs_params par = {2, 3, 4, 40, 1, 0, 0, 0, 0};
    gs_prove_opts o = {.stats = st, .tables_parallel = k, .mem_budget = budget};
    gs_multi_proof *mp = NULL;
    uint8_t *b = NULL;
    gs_status s = gs_prove_multi(&mp, in, n, &par, &o);
    CHECK(s == GS_OK);
    if (s == GS_OK) {
        CHECK(gs_verify_multi(airs, n, mp, 0) == GS_OK);
        CHECK(gs_multi_proof_serialize(&b, len, mp) == GS_OK);
    }
    gs_multi_proof_free(mp);
    free(in), free(airs);
    return b;
}

static void test_preset(const char *preset, unsigned shrink) {
    gs_multi_workload w = {0};
    CHECK(gs_synth_preset(&w, preset, shrink, 2) == GS_OK);
    gs_params par = {2, 3, 4, 40, 1, 0, 0, 0, 0};
    size_t largest = 0, sum = 0;
    for (uint32_t i = 0; i < w.num_tables; i++) {
        gs_mem_estimate e;
        CHECK(gs_estimate_table(&e, w.tables[i].air, w.tables[i].log_n, &par) == GS_OK);
        if (e.total > largest) largest = e.total;
        sum += e.total;
    }
    size_t ref_len = 0;
    gs_prove_stats st;
    uint8_t *ref = prove_bytes(&w, 1, GS_GATE_UNLIMITED, &ref_len, &st);
    /* tiny: smaller than any table (each runs alone); medium: the largest
     * table fits but not all at once; unlimited. */
    const size_t budgets[3] = {largest / 4, largest + (sum - largest) / 3, GS_GATE_UNLIMITED};
    static const unsigned ks[4] = {1, 2, 4, 8};
    for (int b = 0; b < 3; b++)
        for (int ki = 0; ki < 4; ki++) {
            size_t len = 0;
            uint8_t *got = prove_bytes(&w, ks[ki], budgets[b], &len, &st);
            CHECK(ref && got && len == ref_len && memcmp(ref, got, len) == 0);
            if (b == 1) { /* every table fits: never above the budget */
                CHECK(st.peak_bytes <= budgets[b]);
                CHECK(st.gate_peak_bytes <= budgets[b]);
            }
            free(got);
        }
    printf("%s shrink %u: %u tables, identical proofs for k 1..8 and 3 budgets (largest table %zu B, all %zu B)\n",
           preset, shrink, w.num_tables, largest, sum);
    free(ref);
    gs_multi_workload_free(&w);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_preset("vm", 11);
    test_preset("skew", 13);
    CHECK(gs_tables_parallel_default() >= 2); /* never collapses to one worker, even on 2 cores */
    return gs_test_done();
}
