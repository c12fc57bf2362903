/* gstark prove --air synth, and verify / inspect of multi-table proofs.
 * Each table's air_desc is "synth preset=P shrink=K table=I"; verify
 * rebuilds every AIR from there (synth AIRs do not depend on the seed) and
 * the verifier checks the fingerprints. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int synth_desc_parse(const char *desc, char preset[16], unsigned *shrink, uint32_t *table) {
    int used = 0;
    return sscanf(desc, "synth preset=%15[a-z] shrink=%u table=%u%n", preset, shrink, table, &used) == 3 &&
           desc[used] == '\0';
}

int cli_prove_synth(const char *preset, unsigned shrink, uint64_t seed, const gs_params *par,
                    int no_check, const cli_sched *sc, const char *out) {
    gs_multi_workload w = {0};
    double t0 = cli_now();
    gs_status s = gs_synth_preset(&w, preset, shrink, seed);
    if (s == GS_ERR_INVALID_ARG) {
        fprintf(stderr, "gstark prove: unknown preset '%s' or shrink %u (vm, skew, uniform; 0..%u)\n",
                preset, shrink, GS_SYNTH_MAX_SHRINK);
        return CLI_USAGE;
    }
    if (s != GS_OK) return cli_fail("building the traces", s);
    double t1 = cli_now();
    gs_table_input *in = calloc(w.num_tables, sizeof *in);
    char (*desc)[128] = calloc(w.num_tables, sizeof *desc);
    gs_multi_proof *mp = NULL;
    s = in && desc ? GS_OK : GS_ERR_NOMEM;
    size_t cells = 0;
    for (uint32_t i = 0; s == GS_OK && i < w.num_tables; i++) {
        snprintf(desc[i], sizeof desc[i], "synth preset=%s shrink=%u table=%u", preset, shrink, i);
        in[i] = (gs_table_input){w.tables[i].air, w.tables[i].trace, w.tables[i].log_n,
                                 w.tables[i].pub, desc[i]};
        cells += (size_t)gs_air_num_cols(w.tables[i].air) << w.tables[i].log_n;
    }
    gs_prove_stats st;
    gs_obs *obs = NULL;
    if (s == GS_OK) s = gs_obs_new(&obs);
    gs_prove_opts opts = {.skip_check = no_check, .stats = &st, .obs = obs,
                          .tables_parallel = sc->tables_parallel, .mem_budget = sc->mem_budget,
                          .backend = sc->backend, .no_fallback = sc->no_fallback,
                          .device_mem_budget = sc->device_budget};
    if (s == GS_OK) s = gs_prove_multi(&mp, in, w.num_tables, par, &opts);
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc = CLI_OK;
    if (s == GS_OK) s = gs_multi_proof_serialize(&bytes, &len, mp);
    if (s == GS_OK) s = cli_write_atomic(out, bytes, len);
    if (s == GS_ERR_IO) {
        fprintf(stderr, "gstark prove: writing %s: %s\n", out, strerror(errno));
        rc = CLI_USAGE;
    } else if (s != GS_OK) {
        rc = cli_fail("proving", s);
    } else {
        printf("proved synth %s (shrink %u): %u tables, %.1f M cells, %u-bit security\n", preset,
               shrink, w.num_tables, (double)cells / 1e6, gs_params_security(par));
        printf("  trace %.3f s, prove %.3f s (check %.3f, commit %.3f, then summed over tables: "
               "quotient %.3f, ood %.3f, deep %.3f, fri %.3f, queries %.3f), %.2f Mcells/s\n",
               t1 - t0, st.total, st.check, st.commit, st.quotient, st.ood, st.deep, st.fri,
               st.queries, (double)cells / st.total / 1e6);
        printf("  peak %.1f MB charged, gate peak %.1f MB\n", (double)st.peak_bytes / 1e6,
               (double)st.gate_peak_bytes / 1e6);
        cli_print_backend(&st);
        printf("  wrote %s (%zu bytes)\n", out, len);
        if (sc->report) gs_obs_report(obs, stdout);
        if (sc->metrics) {
            FILE *f = fopen(sc->metrics, "w");
            gs_status ms = f ? gs_obs_write_metrics(obs, f) : GS_ERR_IO;
            if (f && fclose(f) != 0) ms = GS_ERR_IO;
            if (ms != GS_OK) {
                fprintf(stderr, "gstark prove: writing metrics to %s: %s\n", sc->metrics,
                        f ? gs_status_str(ms) : strerror(errno));
                rc = CLI_USAGE;
            }
        }
    }
    gs_obs_free(obs);
    free(bytes), free(in), free(desc);
    gs_multi_proof_free(mp);
    gs_multi_workload_free(&w);
    return rc;
}

static int load_multi(const char *path, const uint8_t *buf, size_t len, gs_multi_proof **mp) {
    return cli_parse_result(path, gs_multi_proof_parse(mp, buf, len));
}

int cli_verify_multi(const char *path, const uint8_t *buf, size_t len, unsigned min_bits) {
    gs_multi_proof *mp = NULL;
    int rc = load_multi(path, buf, len, &mp);
    if (rc != CLI_OK) return rc;
    double t0 = cli_now();
    gs_air **airs = calloc(mp->num_tables, sizeof *airs);
    gs_status s = airs ? GS_OK : GS_ERR_NOMEM;
    for (uint32_t i = 0; s == GS_OK && i < mp->num_tables; i++) {
        char preset[16];
        unsigned shrink;
        uint32_t table;
        if (!synth_desc_parse(mp->tables[i].air_desc, preset, &shrink, &table) || table != i)
            s = GS_ERR_PROOF_STATEMENT;
        else if (gs_synth_table_air(&airs[i], NULL, preset, shrink, 0, table) != GS_OK)
            s = GS_ERR_PROOF_STATEMENT;
    }
    if (s == GS_OK) s = gs_verify_multi((const gs_air *const *)airs, mp->num_tables, mp, min_bits);
    double t1 = cli_now();
    if (s == GS_OK) {
        printf("valid: %u tables (%s), %u-bit security, verified in %.1f ms\n", mp->num_tables,
               mp->tables[0].air_desc, gs_params_security(&mp->params), 1e3 * (t1 - t0));
    } else {
        fprintf(stderr, "invalid: %s\n", gs_status_str(s));
        rc = s == GS_ERR_NOMEM ? CLI_USAGE : CLI_INVALID;
    }
    for (uint32_t i = 0; airs && i < mp->num_tables; i++) gs_air_free(airs[i]);
    free(airs);
    gs_multi_proof_free(mp);
    return rc;
}

int cli_inspect_multi(const char *path, const uint8_t *buf, size_t len) {
    gs_multi_proof *mp = NULL;
    int rc = load_multi(path, buf, len, &mp);
    if (rc != CLI_OK) return rc;
    const gs_params *q = &mp->params;
    printf("gstark multi-table proof, %u tables, %zu bytes\n", mp->num_tables, len);
    printf("  parameters  blowup %u, %u queries, %u grinding bits, final degree < %u, fold by %u\n",
           1u << q->log_blowup, q->num_queries, q->grinding_bits, 1u << q->log_final,
           1u << q->log_arity);
    printf("  security    %u bits (queries x log2(blowup) + grinding, capped at 160)\n",
           gs_params_security(q));
    printf("  %-5s %-40s %6s %6s %5s %6s %10s\n", "table", "statement", "rows", "cols", "aux",
           "chunks", "bytes");
    size_t sum = 0;
    for (uint32_t i = 0; i < mp->num_tables; i++) {
        const gs_proof *p = &mp->tables[i];
        cli_parts parts;
        cli_table_parts(&parts, p);
        sum += parts.total;
        printf("  %-5u %-40s   2^%-2u %6u %5u %6u %10zu\n", i, p->air_desc, p->log_n,
               p->table.num_cols, p->table.aux_cols, p->table.num_chunks, parts.total);
    }
    printf("  header and framing %zu bytes\n", len - sum);
    gs_multi_proof_free(mp);
    return CLI_OK;
}
