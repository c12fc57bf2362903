/* The per-table memory estimates are upper bounds of the measured peaks of
 * the bytes charged to that table (main commit and whole proof), across
 * built-in AIRs, synth presets, blowups and widths; and they are not loose
 * by more than a factor of two (a formula that forgot nothing but counted
 * everything twice would still be a bug). */
#include "gstark/gstark.h"
#include "test_util.h"

static void check_one(const char *what, const gs_air *air, unsigned log_n, const gs_params *par,
                      const gs_prove_stats *st, double *worst) {
    gs_mem_estimate e, any;
    gs_backend_kind kind = st->backend && !strcmp(st->backend, "cuda") ? GS_BACKEND_CUDA : GS_BACKEND_CPU;
    CHECK(gs_estimate_table_on(&e, air, log_n, par, kind) == GS_OK);
    CHECK(gs_estimate_table(&any, air, log_n, par) == GS_OK && any.total >= e.total); /* any backend */
    CHECK(st->commit_peak_bytes <= e.main_commit);
    CHECK(st->peak_bytes <= e.total);
    CHECK(st->commit_peak_bytes > 0 && 2 * st->peak_bytes >= e.total);
    if (st->peak_bytes > e.total || st->commit_peak_bytes > e.main_commit || 2 * st->peak_bytes < e.total)
        fprintf(stderr, "%s: peak %zu / estimate %zu, commit peak %zu / estimate %zu\n", what,
                st->peak_bytes, e.total, st->commit_peak_bytes, e.main_commit);
    double ratio = (double)e.total / (double)(st->peak_bytes ? st->peak_bytes : 1);
    if (ratio > *worst) *worst = ratio;
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    double worst = 0;
    for (unsigned lb = 1; lb <= 3; lb++) {
        gs_params par = {lb, 3, 0, (80 + lb - 1) / lb, 1, 0, 0, 0, 0};
        static const uint32_t widths[] = {1, 7, 64};
        for (int wi = 0; wi < 3; wi++) {
            gs_mix_params mp = {widths[wi], (1u << lb) + 1, 9 + lb, 3};
            gs_workload w = {0};
            CHECK(gs_airs_mix(&w, &mp) == GS_OK);
            gs_prove_stats st;
            gs_prove_opts o = {.stats = &st};
            gs_proof *pf = NULL;
            CHECK(gs_prove(&pf, w.air, w.trace, w.log_n, w.pub, &par, &o) == GS_OK);
            char what[64];
            snprintf(what, sizeof what, "mix cols %u blowup %u", widths[wi], 1u << lb);
            check_one(what, w.air, w.log_n, &par, &st, &worst);
            gs_proof_free(pf);
            gs_workload_free(&w);
        }
        static const struct {
            const char *preset;
            unsigned shrink;
        } cases[] = {{"vm", 10}, {"skew", 12}, {"uniform", 10}};
        for (int c = 0; c < 3; c++) {
            if (lb == 1 && strcmp(cases[c].preset, "uniform")) continue; /* degree 4 tables need blowup >= 4 */
            gs_multi_workload w = {0};
            CHECK(gs_synth_preset(&w, cases[c].preset, cases[c].shrink, 1) == GS_OK);
            uint32_t n = w.num_tables;
            gs_table_input *in = calloc(n, sizeof *in);
            gs_prove_stats st, *ts = calloc(n, sizeof *ts);
            for (uint32_t i = 0; i < n; i++)
                in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                         .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
            gs_prove_opts o = {.stats = &st, .table_stats = ts};
            gs_multi_proof *mp = NULL;
            CHECK(gs_prove_multi(&mp, in, n, &par, &o) == GS_OK);
            for (uint32_t i = 0; mp && i < n; i++) {
                char what[64];
                snprintf(what, sizeof what, "%s table %u blowup %u", cases[c].preset, i, 1u << lb);
                check_one(what, w.tables[i].air, w.tables[i].log_n, &par, &ts[i], &worst);
            }
            gs_multi_proof_free(mp);
            free(in), free(ts);
            gs_multi_workload_free(&w);
        }
    }
    printf("largest estimate / measured peak: %.2f\n", worst);
    return gs_test_done();
}
