/* gstark prove --air synth: a multi-table statement through the scheduler.
 * Each table's air_desc is "synth preset=P shrink=K table=I"; verify
 * rebuilds every AIR from there (synth AIRs do not depend on the seed). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* What gs_obs writes to a stream, into memory, then to path by the output
 * rules (atomic for a regular file): never a half-written file. */
static int write_obs(const char *path, const gs_obs *obs, const char *what,
                     gs_status (*fn)(const gs_obs *, FILE *)) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    gs_status s = m ? fn(obs, m) : GS_ERR_NOMEM;
    if (m && fclose(m) != 0 && s == GS_OK) s = GS_ERR_NOMEM;
    int rc = CLI_OK;
    if (s != GS_OK) {
        cli_err("writing %s to %s: %s", what, path, gs_status_str(s));
        rc = CLI_USAGE;
    } else {
        rc = cli_out_write(path, (const uint8_t *)buf, len);
    }
    free(buf);
    return rc;
}

int cli_write_metrics(const char *path, const gs_obs *obs) {
    return write_obs(path, obs, "metrics", gs_obs_write_metrics);
}

int cli_write_timeline(const char *path, const gs_obs *obs) {
    return write_obs(path, obs, "the timeline", gs_obs_write_chrome_trace);
}

int cli_write_obs_files(const cli_sched *sc, const gs_obs *obs) {
    int rc = sc->metrics ? cli_write_metrics(sc->metrics, obs) : CLI_OK;
    if (rc == CLI_OK && sc->timeline) rc = cli_write_timeline(sc->timeline, obs);
    return rc;
}

int cli_prove_synth(const char *preset, unsigned shrink, uint64_t seed, const gs_params *par,
                    int no_check, const cli_sched *sc, const char *out, const cli_print *pr) {
    gs_multi_workload w = {0};
    gs_prove_stats st = {0};
    /* The obs records spans for --report, --metrics and --timeline, draws
     * the progress line and carries the prover's warnings. */
    gs_obs *obs = NULL;
    gs_status s = gs_obs_new(&obs);
    if (s != GS_OK) {
        cli_err("%s", gs_status_str(s));
        return CLI_PROVER;
    }
    gs_prove_opts opts = {.skip_check = no_check, .stats = &st, .obs = obs,
                          .tables_parallel = sc->tables_parallel, .mem_budget = sc->mem_budget,
                          .strict_budget = sc->strict_budget, .backend = sc->backend,
                          .no_fallback = sc->no_fallback, .device_mem_budget = sc->device_budget};
    /* The context (on CUDA the device's set-up) is made beside the traces,
     * inside their span. */
    double t0 = cli_now();
    int64_t span = gs_obs_begin(obs, "trace", -1, 0, 0);
    gs_prover_ahead *ahead = gs_prover_ahead_start(&opts);
    s = gs_synth_preset(&w, preset, shrink, seed);
    gs_obs_end(obs, span, 0);
    if (s != GS_OK) {
        cli_err("building the traces: %s", gs_status_str(s));
        gs_prover_ahead_free(ahead);
        gs_obs_free(obs);
        return s == GS_ERR_INVALID_ARG ? CLI_USAGE : CLI_PROVER;
    }
    double t1 = cli_now();
    gs_table_input *in = calloc(w.num_tables, sizeof *in);
    char (*desc)[128] = calloc(w.num_tables, sizeof *desc);
    gs_multi_proof *mp = NULL;
    s = in && desc ? GS_OK : GS_ERR_NOMEM;
    size_t cells = 0;
    for (uint32_t i = 0; s == GS_OK && i < w.num_tables; i++) {
        snprintf(desc[i], sizeof desc[i], "synth preset=%s shrink=%u table=%u", preset, shrink, i);
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub,
                                 .air_desc = desc[i]};
        cells += (size_t)gs_air_num_cols(w.tables[i].air) << w.tables[i].log_n;
    }
    gs_params chosen = *par;
    if (s == GS_OK && sc->provable) {
        const gs_air **airs = calloc(w.num_tables, sizeof *airs);
        unsigned *lg = calloc(w.num_tables, sizeof *lg);
        int rc = airs && lg ? CLI_OK : CLI_PROVER;
        for (uint32_t i = 0; rc == CLI_OK && i < w.num_tables; i++) airs[i] = w.tables[i].air, lg[i] = w.tables[i].log_n;
        if (rc == CLI_OK) rc = cli_params_provable(&chosen, sc, airs, lg, w.num_tables);
        free(airs), free(lg);
        if (rc != CLI_OK) {
            gs_prover_ahead_free(ahead);
            gs_obs_free(obs);
            free(in), free(desc);
            gs_multi_workload_free(&w);
            return rc;
        }
        par = &chosen;
    }
    cli_hush h = {-1, NULL};
    if (s == GS_OK && pr->quiet) cli_hush_begin(&h, obs);
    if (s == GS_OK) s = gs_prove_multi_ahead(ahead, &mp, in, w.num_tables, par, &opts);
    else gs_prover_ahead_free(ahead);
    cli_hush_end(&h, obs);
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc = CLI_OK;
    if (s == GS_ERR_BUDGET && par->shared_fri) {
        char need[32], budget[32];
        cli_size_str(need, sizeof need, st.mem_need_bytes);
        cli_size_str(budget, sizeof budget, st.mem_budget);
        if (par->shared_fri == GS_SHARED_TREES)
            cli_err("--shared-trees: every table is held whole, with the shared trees, until the "
                    "openings and needs %s (%zu bytes, input traces included) at once, more than "
                    "the memory budget of %s (%zu bytes); nothing was proven (raise --mem-budget, "
                    "or prove with --shared-fri alone)", need, st.mem_need_bytes, budget, st.mem_budget);
        else
            cli_err("--shared-fri: the tables keep their LDEs, trees and DEEP words until the shared "
                    "FRI's openings and need %s (%zu bytes, input traces included) at once, more than "
                    "the memory budget of %s (%zu bytes); nothing was proven (raise --mem-budget, or "
                    "prove without --shared-fri)", need, st.mem_need_bytes, budget, st.mem_budget);
        rc = CLI_USAGE;
    } else if (s != GS_OK) {
        rc = cli_prove_failed(s, &st);
    } else if ((s = gs_multi_proof_serialize(&bytes, &len, mp)) != GS_OK) {
        cli_err("serializing the proof: %s", gs_status_str(s));
        rc = CLI_PROVER;
    } else {
        rc = cli_out_write(out, bytes, len);
    }
    if (rc == CLI_OK) rc = cli_write_obs_files(sc, obs);
    if (rc == CLI_OK) {
        char name[64];
        snprintf(name, sizeof name, "synth preset=%s shrink=%u", preset, shrink);
        cli_proved x = {.name = name, .mp = mp, .st = &st, .trace_s = t1 - t0, .cells = cells,
                        .out = out, .bytes = len};
        cli_print_proved(pr, &x);
        if (sc->report) {
            FILE *f = pr->human ? pr->human : cli_out_is_stdout(out) || pr->json ? stderr : stdout;
            gs_obs_report(obs, f);
        }
    }
    gs_obs_free(obs);
    free(bytes), free(in), free(desc);
    gs_multi_proof_free(mp);
    gs_multi_workload_free(&w);
    return rc;
}
