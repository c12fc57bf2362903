/* bench_prove: whole proofs of the built-in AIRs on the CPU and CUDA backends.
 * Per row: trace generation, prove (with its phases, which add up to the
 * total: check + commit + quotient + ood + deep + fri + queries + other),
 * verify, proof size, trace cells per second, the peak RSS of that proof
 * (the kernel's high-water mark, reset before each row) and the fft-cost:
 * the sum over the proof's tables of main columns * rows * log2(rows)
 * (fftM, in millions), the NTT work the trace's shape asks for, which a
 * change of shape moves and a change of speed does not.
 *
 * Multi-table presets (synth vm and skew at --vm-shrink / --skew-shrink,
 * defaults 1 and 0: 5-60 s each on a 2-core machine) print a summary row
 * (lg is '-', cols is the table count) and one row per table with its main
 * commit and chain phases.
 *
 * --backend cpu|cuda|both (default cpu): with both, every statement is proven
 * on the CPU and then on CUDA in the same run, and a line gives the speedup
 * (CPU prove time over CUDA prove time) and whether the proofs are identical.
 * The be column names the backend; devMB is the peak device memory; busy% the
 * time the device had work from the proof (the union of its operations'
 * intervals over all streams) over the prove time; fb the tables that fell
 * back to the CPU.
 *
 * --json: one JSON object per proof row on stdout (the table goes to stderr);
 * see bench_util.h. Statements are "<name> lg=<log rows> <backend>".
 *
 * usage: bench_prove [--quick] [--max-log N] [--fib-log N] [--threads T] [--air fib|mix|synth|heights|sched|all]
 *                    [--security BITS] [--grinding G] [--vm-shrink K] [--skew-shrink K]
 *                    [--mix COLSxLOG] [--pinned] [--no-coset-leaves] [--shared-fri 0|1|2] [--timeline PREFIX] [--resident]
 *                    [--backend cpu|cuda|both] [--device-mem-budget SIZE] [--json]
 *
 * --device-mem-budget SIZE (e.g. 4G): the CUDA proofs' device budget; what it cannot hold goes
 * out of core (docs/gpu.md, "Out of core"), and a row that did prints how much after it.
 * --mix COLSxLOG (e.g. 512x22): the mix rows are that one statement.
 * --pinned: traces in pinned host memory (see g_pinned).
 * --no-coset-leaves: gs_params.coset_leaves = 0 (the default is 1; docs/protocol.md, "Coset leaves").
 * --shared-fri M: the multi-table rows (synth, heights, sched) with gs_params.shared_fri = M (1: one
 * FRI for all tables, 2: and one Merkle tree per round; docs/protocol.md); default 0.
 * --resident: every proof on one resident prover per backend (gs_prover_new, made before the
 * rows), each statement proven once untimed first: the steady state of a prover that keeps
 * its device pools, streams and staging between proofs (without it, each proof is a one-shot
 * gs_prove with the CUDA driver already initialised). Statement names get " res".
 * --timeline PREFIX: each proof's host spans and device operations as a Chrome trace in
 * PREFIX-<preset>-<shrink>-<backend>.json (multi-table rows) or PREFIX-<name>-<log n>-<backend>.json
 * (single-table rows, spaces in the name as _) (docs/gpu.md, "Reading a timeline"), a warm
 * context's timeline where `gstark prove --timeline` shows a one-shot one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "gstark/gstark.h"
#include "gstark/sched.h"

static void reset_peak_rss(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* System (kernel) CPU seconds of the process so far: page faults and
 * mapping work show here. */
static double sys_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

static double peak_rss_mb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kb = atof(line + 6);
    if (f) fclose(f);
    return kb / 1024.0;
}

/* The backends each statement runs on, in order. */
static gs_backend_kind g_kinds[2] = {GS_BACKEND_CPU};
static int g_nkinds = 1;
/* --pinned: every trace is copied (untimed) into pinned host memory
 * (gs_cuda_host_alloc) before its proofs, as a trace built there would be:
 * the CUDA backend uploads it in one DMA instead of through its staging
 * buffers. Statement names get " pinned". */
static int g_pinned;
static const char *g_timeline; /* --timeline PREFIX, or NULL */
static gs_prover *g_pv[2];      /* --resident: one per entry of g_kinds */
static size_t g_dev_budget;     /* --device-mem-budget (0: the default rule) */

/* A single-table proof: on the resident prover of backend k, once untimed
 * first, or one-shot. */
static gs_status prove_one(gs_proof **p, int k, const gs_workload *w, const gs_params *par,
                           gs_prove_opts *opts) {
    if (!g_pv[k]) return gs_prove(p, w->air, w->trace, w->log_n, w->pub, par, opts);
    return gs_prover_prove(g_pv[k], p, w->air, w->trace, w->log_n, w->pub, par, opts);
}

/* --resident: the statement once, untimed, before the measured proof (whose
 * system time and peak RSS are taken after it). */
static gs_status warm_one(int k, const gs_workload *w, const gs_params *par, const char *desc) {
    if (!g_pv[k]) return GS_OK;
    gs_prove_opts quiet = {.air_desc = desc};
    gs_proof *p = NULL;
    gs_status s = gs_prover_prove(g_pv[k], &p, w->air, w->trace, w->log_n, w->pub, par, &quiet);
    gs_proof_free(p);
    return s;
}

/* The same for n tables. */
static gs_status prove_many(gs_multi_proof **mp, int k, const gs_table_input *in, uint32_t n,
                            const gs_params *par, gs_prove_opts *opts) {
    if (!g_pv[k]) return gs_prove_multi(mp, in, n, par, opts);
    return gs_prover_prove_multi(g_pv[k], mp, in, n, par, opts);
}

static gs_status warm_many(int k, const gs_table_input *in, uint32_t n, const gs_params *par) {
    if (!g_pv[k]) return GS_OK;
    gs_prove_opts quiet = {0};
    gs_multi_proof *mp = NULL;
    gs_status s = gs_prover_prove_multi(g_pv[k], &mp, in, n, par, &quiet);
    gs_multi_proof_free(mp);
    return s;
}

/* A pinned copy of n field elements, or NULL (the message printed). */
static gs_fp *pinned_copy(const gs_fp *src, size_t n) {
    void *p = NULL;
    gs_status s = gs_cuda_host_alloc(&p, n * sizeof *src);
    if (s != GS_OK) {
        printf("pinned host memory (%zu bytes): %s (%s)\n", n * sizeof *src, gs_status_str(s),
               gs_cuda_last_error());
        return NULL;
    }
    memcpy(p, src, n * sizeof *src);
    return p;
}

/* The line after a row whose proof went out of core. */
static void spill_note(const gs_prove_stats *st) {
    if (st->spill_peak_bytes)
        printf("  -> out of core: %.1f MiB in page-locked host memory, device peak %.1f MiB\n",
               (double)st->spill_peak_bytes / 1048576.0, (double)st->device_peak_bytes / 1048576.0);
}

/* The speedup line after the last backend of a statement. */
typedef struct {
    double first_total;
    uint8_t *first_bytes;
    size_t first_len;
} compare;

static void compare_note(compare *c, int k, double total, uint8_t *bytes, size_t len) {
    if (g_nkinds < 2) {
        free(bytes);
        return;
    }
    if (k == 0) {
        c->first_total = total, c->first_bytes = bytes, c->first_len = len;
        return;
    }
    int same = bytes && c->first_bytes && len == c->first_len && !memcmp(bytes, c->first_bytes, len);
    printf("  -> cuda speedup %.2fx over the cpu backend, proofs %s\n", c->first_total / total,
           same ? "identical" : "DIFFERENT");
    free(bytes);
    free(c->first_bytes);
    c->first_bytes = NULL;
}

/* One table's fft-cost: width * height * log2(height), main columns only. */
static double fft_cost(const gs_air *air, unsigned log_n) {
    return (double)gs_air_num_cols(air) * (double)((size_t)1 << log_n) * (double)log_n;
}

/* The JSON line of one proof row (single or multi-table). */
static void json_row(const char *name, const char *lg, const char *be, double t_trace, const gs_prove_stats *st,
                     double other, double verify_ms, size_t bytes, double cells, double fft, double rss,
                     double sys, uint32_t cols) {
    if (!bench_json_out) return;
    char stmt[96];
    snprintf(stmt, sizeof stmt, "%s lg=%s %s", name, lg, be);
    bench_jrow r;
    bench_json_begin(&r, "bench_prove", stmt);
    bench_json_metric(&r, "cols", cols, "count");
    bench_json_metric(&r, "cells", cells, "count");
    bench_json_metric(&r, "fft_cost", fft, "cells x lg");
    bench_json_metric(&r, "trace_s", t_trace, "s");
    bench_json_metric(&r, "prove_s", st->total, "s");
    static const char *phase[7] = {"check_s", "commit_s", "quotient_s", "ood_s", "deep_s", "fri_s", "queries_s"};
    const double pv[7] = {st->check, st->commit, st->quotient, st->ood, st->deep, st->fri, st->queries};
    for (int i = 0; i < 7; i++) bench_json_metric(&r, phase[i], pv[i], "s");
    bench_json_metric(&r, "other_s", other, "s");
    bench_json_metric(&r, "verify_ms", verify_ms, "ms");
    bench_json_metric(&r, "proof_bytes", (double)bytes, "B");
    bench_json_metric(&r, "throughput_mcells_s", cells / st->total / 1e6, "Mcells/s");
    bench_json_metric(&r, "peak_rss_mb", rss, "MiB");
    bench_json_metric(&r, "sys_s", sys, "s");
    bench_json_metric(&r, "device_peak_mb", (double)st->device_peak_bytes / 1048576.0, "MiB");
    bench_json_metric(&r, "device_busy_pct", st->total > 0 ? 100.0 * st->device_busy / st->total : 0, "%");
    bench_json_metric(&r, "cpu_fallbacks", st->cpu_fallbacks, "count");
    bench_json_metric(&r, "spill_peak_mb", (double)st->spill_peak_bytes / 1048576.0, "MiB");
    bench_json_end(&r);
}

/* --timeline: the proof's Chrome trace at PREFIX-WHAT-BACKEND.json. */
static void write_timeline(gs_obs *obs, const char *what, int k) {
    char path[4096];
    snprintf(path, sizeof path, "%s-%s-%s.json", g_timeline, what, g_kinds[k] == GS_BACKEND_CUDA ? "cuda" : "cpu");
    for (char *c = path + strlen(g_timeline); *c; c++)
        if (*c == ' ') *c = '_';
    FILE *f = fopen(path, "w");
    if (!f || gs_obs_write_chrome_trace(obs, f) != GS_OK) printf("timeline %s: not written\n", path);
    if (f) fclose(f);
}

static void row_on(const char *name, gs_workload *w, double t_trace, const gs_params *par, int k,
                   compare *cmp) {
    gs_prove_stats st;
    gs_obs *obs = NULL;
    if (g_timeline && gs_obs_new(&obs) != GS_OK) obs = NULL;
    gs_prove_opts opts = {.air_desc = name, .stats = &st, .backend = g_kinds[k], .device_mem_budget = g_dev_budget,
                          .obs = obs};
    gs_proof *p = NULL;
    gs_status s = warm_one(k, w, par, name);
    reset_peak_rss();
    double sys0 = sys_seconds();
    if (s == GS_OK) s = prove_one(&p, k, w, par, &opts);
    if (obs && s == GS_OK) {
        char what[96];
        snprintf(what, sizeof what, "%s-%u", name, w->log_n);
        write_timeline(obs, what, k);
    }
    gs_obs_free(obs);
    if (s != GS_OK) {
        printf("%-22s prove failed: %s\n", name, gs_status_str(s));
        return;
    }
    double rss = peak_rss_mb(), sys = sys_seconds() - sys0;
    uint8_t *bytes = NULL;
    size_t len = 0;
    s = gs_proof_serialize(&bytes, &len, p);
    double v0 = bench_now();
    gs_status vs = gs_verify(w->air, p, 0);
    double v1 = bench_now();
    double cells = (double)gs_air_num_cols(w->air) * (double)((size_t)1 << w->log_n);
    double fft = fft_cost(w->air, w->log_n);
    double other = st.total - (st.check + st.commit + st.quotient + st.ood + st.deep + st.fri + st.queries);
    printf("%-22s %2u %5u %7.3f %8.3f | %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f | %7.2f %8zu %8.1f %8.2f %8.1f %5.1f %4s %7.1f %5.1f %2u %s\n",
           name, w->log_n, gs_air_num_cols(w->air), t_trace, st.total, st.check, st.commit,
           st.quotient, st.ood, st.deep, st.fri, st.queries, other, 1e3 * (v1 - v0),
           s == GS_OK ? len : 0, fft / 1e6, cells / st.total / 1e6, rss, 100.0 * sys / st.total, st.backend,
           (double)st.device_peak_bytes / 1048576.0, 100.0 * st.device_busy / st.total,
           st.cpu_fallbacks, vs == GS_OK ? "ok" : gs_status_str(vs));
    spill_note(&st);
    fflush(stdout);
    char lg[8];
    snprintf(lg, sizeof lg, "%u", w->log_n);
    if (vs == GS_OK)
        json_row(name, lg, st.backend, t_trace, &st, other, 1e3 * (v1 - v0), s == GS_OK ? len : 0, cells, fft,
                 rss, sys, gs_air_num_cols(w->air));
    compare_note(cmp, k, st.total, s == GS_OK ? bytes : NULL, len);
    if (s != GS_OK) free(bytes);
    gs_proof_free(p);
}

static void row(const char *name, gs_workload *w, double t_trace, const gs_params *par) {
    compare cmp = {0};
    gs_workload pw = *w;
    char pname[64];
    if (g_pinned) {
        pw.trace = pinned_copy(w->trace, (size_t)gs_air_num_cols(w->air) << w->log_n);
        if (!pw.trace) return;
        snprintf(pname, sizeof pname, "%s pinned", name);
        name = pname;
    }
    char rname[72];
    if (g_pv[0]) {
        snprintf(rname, sizeof rname, "%s res", name);
        name = rname;
    }
    for (int k = 0; k < g_nkinds; k++) row_on(name, &pw, t_trace, par, k, &cmp);
    if (g_pinned) gs_cuda_host_free(pw.trace);
    free(cmp.first_bytes);
}

/* A multi-table preset: the summary row, then one row per table with its
 * main commit and its chain's phases. Tables run one after another today,
 * so the per-table totals add up to the summary's commit + chain phases. */
/* Tables of 2^22 and 2^3 rows on one bus: the height range a statement may mix. */
static const gs_synth_table heights_spec[2] = {
    {"tall", 22, 12, 3, 1, 1, {1u << 1}, 128},
    {"tiny", 3, 12, 2, 1, 1, {1u << 0}, 200},
};

static void multi_row(const char *preset, unsigned shrink, const gs_params *par) {
    gs_multi_workload w = {0};
    reset_peak_rss();
    double t0 = bench_now();
    gs_status gs = strcmp(preset, "heights") ? gs_synth_preset(&w, preset, shrink, 1)
                                             : gs_synth_custom(&w, heights_spec, 2, shrink, 1);
    if (gs != GS_OK) {
        printf("%s: preset failed: %s\n", preset, gs_status_str(gs));
        return;
    }
    double t_trace = bench_now() - t0;
    uint32_t n = w.num_tables;
    gs_table_input *in = calloc(n, sizeof *in);
    gs_prove_stats *ts = calloc(n, sizeof *ts);
    const gs_air **airs = calloc(n, sizeof *airs);
    double cells = 0, fft = 0;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
        if (g_pinned && in[i].trace) {
            in[i].trace = pinned_copy(w.tables[i].trace, (size_t)gs_air_num_cols(w.tables[i].air) << w.tables[i].log_n);
            if (!in[i].trace) {
                for (uint32_t j = 0; j < i; j++) gs_cuda_host_free((void *)in[j].trace);
                free(in), free(ts), free(airs);
                gs_multi_workload_free(&w);
                return;
            }
        }
        airs[i] = w.tables[i].air;
        cells += (double)gs_air_num_cols(w.tables[i].air) * (double)((size_t)1 << w.tables[i].log_n);
        fft += fft_cost(w.tables[i].air, w.tables[i].log_n);
    }
    compare cmp = {0};
    for (int k = 0; k < g_nkinds; k++) {
        gs_prove_stats st;
        gs_obs *obs = NULL;
        if (g_timeline && gs_obs_new(&obs) != GS_OK) obs = NULL;
        gs_prove_opts opts = {.stats = &st, .table_stats = ts, .backend = g_kinds[k], .obs = obs,
                              .device_mem_budget = g_dev_budget};
        gs_multi_proof *mp = NULL;
        gs_status s = warm_many(k, in, n, par);
        reset_peak_rss();
        double sys0 = sys_seconds();
        if (s == GS_OK) s = prove_many(&mp, k, in, n, par, &opts);
        if (obs && s == GS_OK) {
            char what[96];
            snprintf(what, sizeof what, "%s-%u", preset, shrink);
            write_timeline(obs, what, k);
        }
        gs_obs_free(obs);
        if (s != GS_OK) {
            printf("%s shrink %u: prove failed: %s\n", preset, shrink, gs_status_str(s));
        } else {
            double rss = peak_rss_mb(), sys = sys_seconds() - sys0;
            uint8_t *bytes = NULL;
            size_t len = 0;
            gs_status ss = gs_multi_proof_serialize(&bytes, &len, mp);
            double v0 = bench_now();
            gs_status vs = gs_verify_multi(airs, n, mp, 0);
            double v1 = bench_now();
            char name[48];
            snprintf(name, sizeof name, "synth %s /%u%s%s", preset, shrink, g_pinned ? " pinned" : "",
                     g_pv[0] ? " res" : "");
            double other = st.total - (st.check + st.commit + st.quotient + st.ood + st.deep + st.fri + st.queries);
            printf("%-22s %2s %5u %7.3f %8.3f | %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f | %7.2f %8zu %8.1f %8.2f %8.1f %5.1f %4s %7.1f %5.1f %2u %s\n",
                   name, "-", n, t_trace, st.total, st.check, st.commit, st.quotient, st.ood, st.deep,
                   st.fri, st.queries, other, 1e3 * (v1 - v0), ss == GS_OK ? len : 0, fft / 1e6,
                   cells / st.total / 1e6, rss, 100.0 * sys / st.total, st.backend, (double)st.device_peak_bytes / 1048576.0,
                   100.0 * st.device_busy / st.total, st.cpu_fallbacks, vs == GS_OK ? "ok" : gs_status_str(vs));
            spill_note(&st);
            if (vs == GS_OK)
                json_row(name, "-", st.backend, t_trace, &st, other, 1e3 * (v1 - v0), ss == GS_OK ? len : 0,
                         cells, fft, rss, sys, n);
            for (uint32_t i = 0; i < n; i++)
                printf("  table %-14s %2u %5u         %8.3f |        %6.3f %6.3f %6.3f %6.3f %6.3f %6.3f        | aux %u, fftM %.3f\n",
                       gs_air_name(airs[i]), w.tables[i].log_n, gs_air_num_cols(airs[i]), ts[i].total,
                       ts[i].commit, ts[i].quotient, ts[i].ood, ts[i].deep, ts[i].fri, ts[i].queries,
                       mp->tables[i].table.aux_cols, fft_cost(airs[i], w.tables[i].log_n) / 1e6);
            fflush(stdout);
            compare_note(&cmp, k, st.total, ss == GS_OK ? bytes : NULL, len);
            if (ss != GS_OK) free(bytes);
        }
        gs_multi_proof_free(mp);
    }
    free(cmp.first_bytes);
    for (uint32_t i = 0; g_pinned && i < n; i++) gs_cuda_host_free((void *)in[i].trace);
    free(in), free(ts), free(airs);
    gs_multi_workload_free(&w);
}

/* The scheduler on one preset: for k = 1, 2, 4 tables at once, the wall time
 * of the commits and chains, the sum of the per-table times, the workers'
 * busy share (sum / (k x wall)) and the peak bytes charged against the
 * budget. */
static void sched_rows(const char *preset, unsigned shrink, const gs_params *par, size_t budget) {
    gs_multi_workload w = {0};
    if (gs_synth_preset(&w, preset, shrink, 1) != GS_OK) return;
    uint32_t n = w.num_tables;
    gs_table_input *in = calloc(n, sizeof *in);
    gs_prove_stats *ts = calloc(n, sizeof *ts);
    for (uint32_t i = 0; i < n; i++)
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
    static const unsigned ks[3] = {1, 2, 4};
    for (int ki = 0; ki < 3; ki++) {
        gs_prove_stats st;
        gs_prove_opts opts = {.stats = &st, .table_stats = ts, .tables_parallel = ks[ki], .mem_budget = budget};
        gs_multi_proof *mp = NULL;
        if (gs_prove_multi(&mp, in, n, par, &opts) != GS_OK) {
            printf("%s /%u k=%u: prove failed\n", preset, shrink, ks[ki]);
            continue;
        }
        double sum = 0, wall = st.total - st.check;
        for (uint32_t i = 0; i < n; i++) sum += ts[i].total;
        unsigned k = ks[ki] < n ? ks[ki] : n;
        printf("sched %-8s /%u  k=%u  wall %7.3f s  tables %7.3f s  busy %5.1f%%  peak %8.1f MB  gate peak %8.1f MB  budget %s\n",
               preset, shrink, k, wall, sum, 100.0 * sum / (k * wall), (double)st.peak_bytes / 1e6,
               (double)st.gate_peak_bytes / 1e6, budget == GS_GATE_UNLIMITED ? "unlimited" : "set");
        fflush(stdout);
        gs_multi_proof_free(mp);
    }
    free(in), free(ts);
    gs_multi_workload_free(&w);
}

int main(int argc, char **argv) {
    unsigned max_log = 22, fib_log = 0, threads = 0, security = 128, grinding = 20, vm_shrink = 1, skew_shrink = 0;
    unsigned mix_cols_arg = 0, mix_log_arg = 0;
    int quick = 0, json = 0, coset = 1, resident = 0;
    unsigned shared = 0;
    const char *which = "all";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--max-log") && i + 1 < argc) max_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fib-log") && i + 1 < argc) fib_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--air") && i + 1 < argc) which = argv[++i];
        else if (!strcmp(argv[i], "--security") && i + 1 < argc) security = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--grinding") && i + 1 < argc) grinding = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--vm-shrink") && i + 1 < argc) vm_shrink = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--skew-shrink") && i + 1 < argc) skew_shrink = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--mix") && i + 1 < argc &&
                 sscanf(argv[i + 1], "%ux%u", &mix_cols_arg, &mix_log_arg) == 2)
            i++;
        else if (!strcmp(argv[i], "--pinned")) g_pinned = 1;
        else if (!strcmp(argv[i], "--device-mem-budget") && i + 1 < argc) {
            uint64_t b = 0;
            if (gs_size_parse(argv[++i], &b) != GS_OK || b == 0) {
                fprintf(stderr, "bench_prove: bad --device-mem-budget '%s'\n", argv[i]);
                return 2;
            }
            g_dev_budget = (size_t)b;
        }
        else if (!strcmp(argv[i], "--no-coset-leaves")) coset = 0;
        else if (!strcmp(argv[i], "--shared-fri") && i + 1 < argc) shared = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--timeline") && i + 1 < argc) g_timeline = argv[++i];
        else if (!strcmp(argv[i], "--resident")) resident = 1;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "cpu")) i++;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "cuda"))
            g_kinds[0] = GS_BACKEND_CUDA, i++;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "both"))
            g_kinds[1] = GS_BACKEND_CUDA, g_nkinds = 2, i++;
        else {
            fprintf(stderr, "usage: bench_prove [--quick] [--max-log N] [--fib-log N] [--threads T] "
                            "[--air fib|mix|synth|heights|sched|all] [--security BITS] [--grinding G] "
                            "[--vm-shrink K] [--skew-shrink K] [--mix COLSxLOG] [--pinned] [--no-coset-leaves] [--shared-fri 0|1|2] [--timeline PREFIX] [--resident] "
                            "[--backend cpu|cuda|both] [--json]\n");
            return 2;
        }
    }
    if (vm_shrink > GS_SYNTH_MAX_SHRINK || skew_shrink > GS_SYNTH_MAX_SHRINK) {
        fprintf(stderr, "bench_prove: --vm-shrink and --skew-shrink take 0..%u\n", GS_SYNTH_MAX_SHRINK);
        return 2;
    }
    if (json && !bench_json_start()) return 1;
    if (quick && max_log > 16) max_log = 16;
    if (quick && vm_shrink < 8) vm_shrink = 8;
    if (quick && skew_shrink < 8) skew_shrink = 8;
    if (threads) gs_threads_set(threads);
    gs_params par = gs_params_default(security);
    par.grinding_bits = grinding;
    par.coset_leaves = coset;
    if (gs_params_set_queries(&par, security) != GS_OK) {
        fprintf(stderr, "bench_prove: --security %u cannot be reached with %u grinding bits\n", security,
                grinding);
        return 2;
    }
    /* The multi-table rows' parameters: a shared FRI (and trees) turns coset leaves off. */
    gs_params mpar = par;
    mpar.shared_fri = shared;
    if (shared) mpar.coset_leaves = 0;
    /* A resident prover pays the CUDA context, its memory pools and the
     * twiddle tables once: do that before the timed rows and print it. */
    double cuda_init = 0;
    if (g_kinds[g_nkinds - 1] == GS_BACKEND_CUDA) {
        gs_workload w = {0};
        gs_params small = {2, 3, 0, 8, 1, 0, 0, 0, 0};
        gs_prove_opts o = {.allow_insecure = 1, .backend = GS_BACKEND_CUDA};
        gs_proof *p = NULL;
        double t0 = bench_now();
        if (gs_airs_fib(&w, 10, 1, 1) != GS_OK || gs_prove(&p, w.air, w.trace, w.log_n, w.pub, &small, &o) != GS_OK) {
            fprintf(stderr, "bench_prove: the CUDA warm-up proof failed\n");
            gs_workload_free(&w);
            return 1;
        }
        cuda_init = bench_now() - t0;
        gs_proof_free(p);
        gs_workload_free(&w);
    }
    printf("bench_prove: %s, %u CPU threads, blowup %u, %u queries, %u grinding bits (%u-bit)%s%s\n",
           g_nkinds == 2 ? "cpu then cuda backend" : g_kinds[0] == GS_BACKEND_CUDA ? "cuda backend" : "cpu backend",
           gs_threads_get(), 1u << par.log_blowup, par.num_queries, par.grinding_bits,
           gs_params_security(&par), coset ? "" : ", no coset leaves",
           shared == 2 ? ", multi-table: shared FRI and trees" : shared ? ", multi-table: shared FRI" : "");
    if (cuda_init > 0) printf("CUDA set-up (context, pools, twiddles; a warm-up proof, untimed below): %.3f s\n", cuda_init);
    for (int k = 0; resident && k < g_nkinds; k++) {
        gs_prover_cfg cfg = {.backend = g_kinds[k], .device_mem_budget = g_dev_budget};
        if (gs_prover_new(&g_pv[k], &cfg) != GS_OK) {
            fprintf(stderr, "bench_prove: the resident prover could not be made\n");
            return 1;
        }
    }
    if (resident) printf("resident provers: every statement proven once untimed, then timed on the same prover\n");
    printf("%-22s %2s %5s %7s %8s | %6s %6s %6s %6s %6s %6s %6s %6s | %7s %8s %8s %8s %8s %5s %4s %7s %5s %2s\n",
           "statement", "lg", "cols", "trace_s", "prove_s", "check", "commit", "quot", "ood", "deep", "fri",
           "query", "other", "verif_ms", "bytes", "fftM", "Mcells/s", "peakMB", "sys%", "be", "devMB", "busy%",
           "fb");
    if (!strcmp(which, "all") || !strcmp(which, "fib"))
        /* --fib-log N: that one height (odd ones too, e.g. the tall narrow 2^23). */
        for (unsigned lg = fib_log ? fib_log : 16; fib_log ? lg == fib_log : lg <= max_log && lg <= 24;
             lg += 2) {
            gs_workload w = {0};
            reset_peak_rss();
            double t0 = bench_now();
            if (gs_airs_fib(&w, lg, 1, 1) != GS_OK) return 1;
            row("fib", &w, bench_now() - t0, &par);
            gs_workload_free(&w);
        }
    static const uint32_t mix_cols[] = {64, 256};
    if (mix_cols_arg && (!strcmp(which, "all") || !strcmp(which, "mix"))) { /* --mix COLSxLOG: that one */
        gs_mix_params mp = {mix_cols_arg, 3, mix_log_arg, 1};
        gs_workload w = {0};
        char name[48];
        snprintf(name, sizeof name, "mix c=%u d=3", mix_cols_arg);
        reset_peak_rss();
        double t0 = bench_now();
        if (gs_airs_mix(&w, &mp) != GS_OK) return 1;
        row(name, &w, bench_now() - t0, &par);
        gs_workload_free(&w);
    } else if (!strcmp(which, "all") || !strcmp(which, "mix"))
        for (int c = 0; c < 2; c++)
            for (unsigned lg = 14; lg <= max_log && lg <= 20; lg += 2) {
                gs_mix_params mp = {mix_cols[c], 3, lg, 1};
                gs_workload w = {0};
                char name[48];
                snprintf(name, sizeof name, "mix c=%u d=3", mix_cols[c]);
                reset_peak_rss();
                double t0 = bench_now();
                if (gs_airs_mix(&w, &mp) != GS_OK) return 1;
                row(name, &w, bench_now() - t0, &par);
                gs_workload_free(&w);
            }
    if (!strcmp(which, "all") || !strcmp(which, "synth")) {
        multi_row("vm", vm_shrink, &mpar);
        multi_row("skew", skew_shrink, &mpar);
    }
    if (!strcmp(which, "heights")) multi_row("heights", 0, &mpar);
    if (!strcmp(which, "sched")) {
        sched_rows("vm", vm_shrink, &mpar, GS_GATE_UNLIMITED);
        sched_rows("skew", skew_shrink, &mpar, GS_GATE_UNLIMITED);
        sched_rows("vm", vm_shrink, &mpar, (size_t)1 << 30);
    }
    for (int k = 0; k < 2; k++) gs_prover_free(g_pv[k]);
    return 0;
}
