/* bench_batch: the batch pipeline against one process per claim.
 *
 *   1. N small claims (fib 2^12..2^16 and synth vm /12 and /10, mixed; each
 *      a distinct statement: fib start values and vm seeds vary, and the
 *      security (80..128) and the blowup)
 *      through gs_batch_run with resident lanes, then through one
 *      `gstark prove` process per claim (spawned one after another, each
 *      with every core; --cli-claims M: the first M of them, a multiple of
 *      10 keeps the mix), in the same run: claims/s of each and the ratio;
 *   2. the per-claim overhead of a resident lane on fib 2^12 (K claims on one
 *      lane: the pipeline's wall time per claim less the prover's own time),
 *      with verify, store and joins on the lane, then on finisher threads
 *      beside it (the default);
 *   3. the same N claims with 1, 2, 4 and 8 lanes (on one CUDA device: all
 *      lanes on it): wall time, claims/s, the lanes' busy share (time in
 *      callbacks over the wall time) and, on CUDA, the device busy share:
 *      the union of every lane's device work over the batch's timeline
 *      window (gs_batch_result.device_time; docs/batch.md, "The device busy
 *      share"), work overlapping on several lanes counted once; n/a on the
 *      CPU;
 *   4. one fib claim of 2^L rows bisected (on the CPU under a simulated
 *      device that fits 2^(L-2), or --bisect-budget; on CUDA the device's own
 *      budget), in a fresh process (this program again, --bisect-child: its
 *      own peak RSS, and CUDA is never used across a fork): pieces, total
 *      time, peak RSS and peak device memory;
 *   5. multi-device scaling simulated on the CPU (for machines with one GPU
 *      or none): the same claims (--sim-claims M: the first M) on 1, 2 and 4
 *      simulated devices (GS_BATCH_SIM_DEVICES's "D:BUDGET", one lane each,
 *      a budget every claim fits), each device worth T host threads (the
 *      pipeline splits D x T threads between the lanes; T = cores / 4, at
 *      least 1, or --sim-threads T): wall time, claims/s and the scaling
 *      efficiency, claims/s at D over D x claims/s at 1 device. Where D x T
 *      exceeds the cores the devices share cores, and the table says so.
 * Prints the same table every run; it never decides pass or fail.
 * --only LIST (e.g. 3,5): run those sections only. --finish-on-lane: every
 * batch (but section 2's second) without finisher threads, for comparison.
 * --json: one JSON object per result on stdout (the table goes to stderr):
 * "claims batch", "claims processes", "overhead fib lg=12" (and "... on lane"), "lanes=<k>"
 * (device_busy_share: a fraction, null where not measured),
 * "bisect fib lg=<L>" (from the child), "bisect fib lg=<L> process" and
 * "simulated devices=<D>". */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "gstark/gstark.h"

extern char **environ;

typedef struct {
    char json[256];
    char *argv[24];
    char args[24][32];
} bclaim;

static const char *g_backend = "auto";
static const char *g_gstark;
static char g_tmp[256];

/* Claim i: 7 of 10 fib (2^12..2^16), 3 synth vm (shrink 12, 12, 10), each a
 * distinct statement (a repeated statement is reused from the store, not
 * proven; the witness is not part of it, and two security targets can give
 * the same parameters): a fib claim starts from its own values (i + 2, 1),
 * a vm claim has its own seed (i + 1), from which its constraints' constants
 * come; the process for each claim proves the same statement (`gstark
 * prove --start`, `--seed`). Until 2026-12-06 the claims varied only the
 * security (80..128), blowup and size, with synth uniform and vm at seed 1:
 * 1,000 claims were 147 statements, the batch proved 147 and reused 853
 * while the processes proved all 1,000. Every batch row now says how many
 * it reused. */
static void make_claim(bclaim *c, unsigned i) {
    unsigned sec = 80 + (i * 7) % 49, kind = i % 10, n = 0;
    static const unsigned fib_blowups[3] = {2, 4, 8}, synth_blowups[3] = {4, 8, 16};
#define ARG(...) (snprintf(c->args[n], sizeof c->args[n], __VA_ARGS__), c->argv[n] = c->args[n], n++)
    ARG("%s", "gstark");
    ARG("prove");
    if (kind < 7) {
        unsigned lr = 12 + (i / 10 + kind) % 5, b = fib_blowups[(i / 49) % 3];
        snprintf(c->json, sizeof c->json,
                 "{\"id\": \"c%u\", \"workload\": {\"air\": \"fib\", \"log_rows\": %u, "
                 "\"start\": [%u, 1]}, \"params\": {\"security\": %u, \"blowup\": %u}}",
                 i, lr, i + 2, sec, b);
        ARG("--air"), ARG("fib"), ARG("--log-rows"), ARG("%u", lr), ARG("--start"), ARG("%u,1", i + 2),
            ARG("--blowup"), ARG("%u", b);
    } else {
        unsigned shrink = kind == 9 ? 10 : 12, b = synth_blowups[(i / 49) % 3];
        snprintf(c->json, sizeof c->json,
                 "{\"id\": \"c%u\", \"workload\": {\"air\": \"synth\", \"preset\": \"vm\", "
                 "\"shrink\": %u, \"seed\": %u}, \"params\": {\"security\": %u, \"blowup\": %u}}",
                 i, shrink, i + 1, sec, b);
        ARG("--air"), ARG("synth"), ARG("--preset"), ARG("vm"), ARG("--shrink"), ARG("%u", shrink),
            ARG("--seed"), ARG("%u", i + 1), ARG("--blowup"), ARG("%u", b);
    }
    ARG("--security"), ARG("%u", sec), ARG("--backend"), ARG("%s", g_backend), ARG("-o"),
        ARG("/dev/null"), ARG("-q");
    c->argv[n] = NULL;
#undef ARG
}

static gs_manifest *manifest_of(const char *const *claims_json, unsigned n) {
    size_t cap = 64 + (size_t)n * 260;
    char *buf = malloc(cap);
    size_t len = (size_t)snprintf(buf, cap, "{\"claims\": [");
    for (unsigned i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ",\n" : "\n", claims_json[i]);
    len += (size_t)snprintf(buf + len, cap - len, "\n]}");
    gs_manifest *m = NULL;
    char err[512];
    if (gs_manifest_parse(&m, buf, len, err, sizeof err) != GS_OK) {
        fprintf(stderr, "bench_batch: manifest: %s\n", err);
        exit(1);
    }
    free(buf);
    return m;
}

static gs_backend_kind backend_kind(void) {
    return !strcmp(g_backend, "cpu") ? GS_BACKEND_CPU : !strcmp(g_backend, "cuda") ? GS_BACKEND_CUDA
                                                                                   : GS_BACKEND_AUTO;
}

/* A fresh store under the temporary directory. */
static void store_dir(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_tmp, name);
}

/* The batches' finisher setting: 0 (one per lane, the default) or
 * GS_BATCH_FINISH_ON_LANE (--finish-on-lane, or section 2's first run). */
static unsigned g_finishers;

static int run_batch_threads(gs_batch_result *res, const gs_manifest *m, const char *store,
                             unsigned lanes, const char *sim, unsigned threads) {
    gs_batch_config cfg = {.manifest = m, .store_dir = store, .lanes = lanes,
                           .backend = backend_kind(), .sim_devices = sim ? sim : "",
                           .threads = threads, .finishers = g_finishers};
    char err[512];
    gs_status s = gs_batch_run(res, &cfg, err, sizeof err);
    if (s != GS_OK || res->failed || res->refused || res->skipped) {
        fprintf(stderr, "bench_batch: the batch failed: %s (%u failed, %u refused)\n",
                s != GS_OK ? err : "", res->failed, res->refused);
        return 0;
    }
    return 1;
}

static int run_batch(gs_batch_result *res, const gs_manifest *m, const char *store, unsigned lanes,
                     const char *sim) {
    return run_batch_threads(res, m, store, lanes, sim, 0);
}

static double busy_share(const gs_batch_result *r, double *lo) {
    double sum = 0, min = 1e9;
    for (unsigned l = 0; l < r->lanes; l++) {
        double b = r->lane_busy_s[l] / r->wall_s;
        sum += b;
        if (b < min) min = b;
    }
    *lo = min;
    return sum / r->lanes;
}

/* What the claims' time went to, summed over the claims: execute (trace
 * generation), prove, and the device's busy time inside those proofs. */
static void claim_times(const gs_batch_result *r, double *exec, double *prove, double *dev) {
    *exec = *prove = *dev = 0;
    for (uint32_t i = 0; i < r->num_units; i++) {
        const gs_batch_unit *u = &r->units[i];
        if (u->is_join) continue;
        *exec += u->execute_s, *prove += u->prove_s, *dev += u->device_busy_s;
    }
}

/* The device busy share (busy / span of the batch's timeline window),
 * averaged over the devices measured, and the lowest; NAN when none was
 * (CPU lanes, simulated devices). */
static double device_share(const gs_batch_result *r, double *lo) {
    double sum = 0, min = NAN;
    unsigned n = 0;
    for (unsigned d = 0; r->device_time && d < r->devices; d++) {
        const gs_batch_device_time *t = &r->device_time[d];
        if (!t->measured || !(t->span_s > 0)) continue;
        double sh = t->busy_s / t->span_s;
        sum += sh, n++;
        if (!(sh >= min)) min = sh;
    }
    *lo = min;
    return n ? sum / n : NAN;
}

/* Section 4, in the child: prints its line, exits 0 if the batch ran. */
static int bisect_child(unsigned bisect_log, size_t bisect_budget, int cuda) {
    char bj[200], dir[300];
    snprintf(bj, sizeof bj, "{\"id\": \"long\", \"workload\": {\"air\": \"fib\", \"log_rows\": %u, "
                            "\"start\": [3, 4]}}", bisect_log);
    const char *bp = bj;
    gs_manifest *mb = manifest_of(&bp, 1);
    char sim[64] = "";
    if (!cuda || bisect_budget) {
        if (!bisect_budget) { /* fits a quarter */
            gs_claim q = mb->claims[0], h[2], qq[2];
            gs_claim_cost c;
            gs_claim_split(&h[0], &h[1], &q);
            gs_claim_split(&qq[0], &qq[1], &h[0]);
            gs_claim_estimate(&c, &qq[0]);
            bisect_budget = c.prove_bytes;
        }
        snprintf(sim, sizeof sim, "1:%zu", bisect_budget);
    }
    store_dir(dir, sizeof dir, "s_bisect");
    gs_batch_result res;
    int ok = run_batch(&res, mb, dir, 1, sim[0] ? sim : NULL);
    size_t dev_peak = 0;
    for (uint32_t i = 0; i < res.num_units; i++)
        if (res.units[i].device_peak_bytes > dev_peak) dev_peak = res.units[i].device_peak_bytes;
    char b1[GS_SIZE_BUF], b2[GS_SIZE_BUF];
    printf("\n4. fib 2^%u bisected (%s %s): %u pieces, %u joins, total %.3f s, device peak %s%s\n",
           bisect_log, sim[0] ? "simulated device budget" : "device budget",
           sim[0] ? gs_size_format(b1, bisect_budget) : "(the prover's rule)", res.claims, res.joins,
           res.wall_s, cuda ? gs_size_format(b2, dev_peak) : "-", ok ? "" : " (FAILED)");
    fflush(stdout);
    char stmt[48];
    snprintf(stmt, sizeof stmt, "bisect fib lg=%u", bisect_log);
    bench_jrow j;
    bench_json_begin(&j, "bench_batch", stmt);
    bench_json_metric(&j, "wall_s", res.wall_s, "s");
    bench_json_metric(&j, "pieces", res.claims, "count");
    bench_json_metric(&j, "joins", res.joins, "count");
    bench_json_metric(&j, "device_peak_mb", (double)dev_peak / 1048576.0, "MiB");
    if (ok) bench_json_end(&j);
    gs_batch_result_free(&res);
    gs_manifest_free(mb);
    return ok ? 0 : 1;
}

/* Section 5: the claims on D simulated devices, one lane each, T threads per
 * lane; 0 if the batch failed. */
static int sim_run(gs_batch_result *res, const gs_manifest *m, unsigned d, size_t budget,
                   unsigned t) {
    char sim[64], name[32], dir[300];
    snprintf(sim, sizeof sim, "%u:%zu", d, budget);
    snprintf(name, sizeof name, "s_sim%u", d);
    store_dir(dir, sizeof dir, name);
    return run_batch_threads(res, m, dir, d, sim, d * t);
}

/* A simulated device budget every claim fits whole (no bisection): twice the
 * largest claim's proving bytes with all its tables at once and its traces. */
static size_t sim_budget(const gs_manifest *m) {
    size_t most = 0;
    for (uint32_t i = 0; i < m->num_claims; i++) {
        gs_claim_cost c;
        if (gs_claim_estimate(&c, &m->claims[i]) != GS_OK) continue;
        size_t need = c.prove_all_bytes + c.trace_bytes;
        if (need > most) most = need;
    }
    return 2 * most + ((size_t)64 << 20);
}

int main(int argc, char **argv) {
    unsigned n = 200, k = 50, bisect_log = 20, cli_n = 0, sim_n = 0, sim_t = 0;
    unsigned lanes = 0;
    int json = 0;
    size_t bisect_budget = 0;
    int child = 0;
    const char *budget_arg = NULL;
    int only[6] = {0, 1, 1, 1, 1, 1}; /* sections 1..5 */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--claims") && i + 1 < argc) n = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--overhead-claims") && i + 1 < argc) k = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bisect-log") && i + 1 < argc) bisect_log = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cli-claims") && i + 1 < argc) cli_n = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sim-claims") && i + 1 < argc) sim_n = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sim-threads") && i + 1 < argc) sim_t = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            const char *l = argv[++i];
            memset(only, 0, sizeof only);
            for (; *l; l++) {
                if (*l >= '1' && *l <= '5') only[*l - '0'] = 1;
                else if (*l != ',') return fprintf(stderr, "bench_batch: --only takes sections 1..5, e.g. 3,5\n"), 2;
            }
        } else if (!strcmp(argv[i], "--bisect-child")) child = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--tmp") && i + 1 < argc) snprintf(g_tmp, sizeof g_tmp, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--bisect-budget") && i + 1 < argc) {
            uint64_t b;
            budget_arg = argv[++i];
            if (gs_size_parse(budget_arg, &b) != GS_OK) return 2;
            bisect_budget = (size_t)b;
        } else if (!strcmp(argv[i], "--lanes") && i + 1 < argc) lanes = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) g_backend = argv[++i];
        else if (!strcmp(argv[i], "--gstark") && i + 1 < argc) g_gstark = argv[++i];
        else if (!strcmp(argv[i], "--finish-on-lane")) g_finishers = GS_BATCH_FINISH_ON_LANE;
        else {
            fprintf(stderr, "usage: bench_batch [--claims N (200)] [--cli-claims M (N)] "
                            "[--overhead-claims K (50)] [--lanes L] [--bisect-log L (20)] "
                            "[--bisect-budget SIZE] [--sim-claims M (N)] [--sim-threads T (cores/4)] "
                            "[--only 1,2,3,4,5] [--backend cpu|cuda|auto] [--gstark PATH] "
                            "[--finish-on-lane] [--json]\n");
            return 2;
        }
    }
    if (!cli_n || cli_n > n) cli_n = n;
    if (!sim_n || sim_n > n) sim_n = n;
    if (json && !bench_json_start()) return 1;
    if (child) return bisect_child(bisect_log, bisect_budget, strcmp(g_backend, "cpu") && gs_cuda_device_count() > 0);
    if (n < 1 || n > 1000 || k < 1 || k > 49 * 3 || bisect_log < 4 || bisect_log > 30 || sim_t > 1024) {
        fprintf(stderr, "bench_batch: --claims 1..1000, --overhead-claims 1..147, --bisect-log 4..30, "
                        "--sim-threads 0..1024\n");
        return 2;
    }
    static char exe[PATH_MAX];
    if (!g_gstark) { /* the gstark binary beside this one */
        ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 16);
        if (l <= 0) return 2;
        exe[l] = 0;
        strcpy(strrchr(exe, '/') + 1, "gstark");
        g_gstark = exe;
    }
    snprintf(g_tmp, sizeof g_tmp, "%s/bench_batch.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmp)) return 1;
    int cuda = strcmp(g_backend, "cpu") && gs_cuda_device_count() > 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("bench_batch: %ld cores, %s backend, %d CUDA device(s), %u claims, gstark %s\n",
           cores, cuda ? "cuda" : "cpu", gs_cuda_device_count(), n, g_gstark);

    bclaim *cl = calloc(n, sizeof *cl);
    const char **js = calloc(n, sizeof *js);
    for (unsigned i = 0; i < n; i++) make_claim(&cl[i], i), js[i] = cl[i].json;
    gs_manifest *m = manifest_of(js, n);
    char dir[300];
    gs_batch_result res;
    bench_jrow j;
    int ok;

    /* ---- 1. the batch against one process per claim ---- */
    if (only[1]) {
        store_dir(dir, sizeof dir, "s_batch");
        double t0 = bench_now();
        ok = run_batch(&res, m, dir, lanes, NULL);
        double t_batch = bench_now() - t0;
        unsigned used_lanes = res.lanes, reused = res.reused;
        gs_batch_result_free(&res);
        fflush(stdout);
        t0 = bench_now();
        unsigned spawned_ok = 0;
        for (unsigned i = 0; i < cli_n; i++) {
            pid_t pid;
            if (posix_spawn(&pid, g_gstark, NULL, NULL, cl[i].argv, environ) != 0) continue;
            int st;
            if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) spawned_ok++;
        }
        double t_cli = bench_now() - t0;
        printf("\n%-44s %10s %10s\n", "1. N claims", "wall s", "claims/s");
        printf("%-44s %10.3f %10.2f%s  (%u reused)\n", "batch (resident lanes)", t_batch, n / t_batch,
               ok ? "" : "  (FAILED)", reused);
        char what[64];
        snprintf(what, sizeof what, "one gstark prove per claim (%u of %u ok)", spawned_ok, cli_n);
        printf("%-44s %10.3f %10.2f\n", what, t_cli, cli_n / t_cli);
        printf("%-44s %10s %9.2fx  (%u lane%s)\n", "ratio batch / processes (claims/s)", "",
               (n / t_batch) / (cli_n / t_cli), used_lanes, used_lanes == 1 ? "" : "s");
        bench_json_begin(&j, "bench_batch", "claims batch");
        bench_json_metric(&j, "wall_s", t_batch, "s");
        bench_json_metric(&j, "claims_s", n / t_batch, "claims/s");
        bench_json_metric(&j, "ratio_to_processes", (n / t_batch) / (cli_n / t_cli), "x");
        if (ok) bench_json_end(&j);
        bench_json_begin(&j, "bench_batch", "claims processes");
        bench_json_metric(&j, "wall_s", t_cli, "s");
        bench_json_metric(&j, "claims_s", cli_n / t_cli, "claims/s");
        if (spawned_ok == cli_n) bench_json_end(&j);
    }
    /* ---- 2. per-claim overhead of a resident lane, fib 2^12 ---- */
    if (only[2]) {
        char (*kj)[160] = calloc(k, sizeof *kj);
        const char **kp = calloc(k, sizeof *kp);
        for (unsigned i = 0; i < k; i++) {
            snprintf(kj[i], sizeof kj[i],
                     "{\"id\": \"f%u\", \"workload\": {\"air\": \"fib\", \"log_rows\": 12, \"start\": [%u, 1]}}",
                     i, i + 2);
            kp[i] = kj[i];
        }
        gs_manifest *mk = manifest_of(kp, k);
        printf("\n2. per-claim overhead of a resident lane, fib 2^12, %u claims on 1 lane\n", k);
        /* verify and store on the lane, as before finishers; then beside it */
        static const unsigned fin[2] = {GS_BATCH_FINISH_ON_LANE, 0};
        unsigned keep = g_finishers;
        for (int f = 0; f < 2; f++) {
            g_finishers = fin[f];
            store_dir(dir, sizeof dir, f ? "s_overhead_fin" : "s_overhead_lane");
            ok = run_batch(&res, mk, dir, 1, NULL);
            double prove = 0, verify = 0, exec = 0, store = 0, joins = 0;
            for (uint32_t i = 0; i < res.num_units; i++) {
                const gs_batch_unit *u = &res.units[i];
                if (u->is_join) joins += u->prove_s;
                else prove += u->prove_s, verify += u->verify_s, exec += u->execute_s, store += u->store_s;
            }
            double per = (res.wall_s - res.setup_s) / k, own = prove / k;
            const char *mode = f ? "finishers" : "on the lane";
            printf("   %-12s set-up %.1f ms once (planning, store, lanes); then pipeline %.2f ms/claim, "
                   "prover %.2f ms/claim: overhead %.2f ms/claim%s\n", mode, res.setup_s * 1e3,
                   per * 1e3, own * 1e3, (per - own) * 1e3, ok ? "" : " (FAILED)");
            printf("   %-12s execute %.2f ms, verify %.2f ms, store %.2f ms, joins %.2f ms (%s)\n", "",
                   exec / k * 1e3, verify / k * 1e3, store / k * 1e3, joins / k * 1e3,
                   f ? "verify, store and joins on finisher threads, beside the lane"
                     : "all on the lane");
            bench_json_begin(&j, "bench_batch", f ? "overhead fib lg=12" : "overhead fib lg=12 on lane");
            bench_json_metric(&j, "setup_ms", res.setup_s * 1e3, "ms");
            bench_json_metric(&j, "pipeline_ms_per_claim", per * 1e3, "ms");
            bench_json_metric(&j, "prove_ms_per_claim", own * 1e3, "ms");
            bench_json_metric(&j, "overhead_ms_per_claim", (per - own) * 1e3, "ms");
            if (ok) bench_json_end(&j);
            gs_batch_result_free(&res);
        }
        g_finishers = keep;
        gs_manifest_free(mk);
        free(kj), free(kp);
    }

    /* ---- 3. lanes on the device(s) ---- */
    if (only[3]) {
        printf("\n%-8s %10s %10s %10s %10s %14s %10s\n", "3. lanes", "wall s", "claims/s",
               "busy mean", "busy min", "device busy", "span s");
        printf("%-8s %10s %10s %10s %10s %14s %10s\n", "", "", "", "(lanes)", "(lanes)",
               cuda ? "(union/span)" : "", "");
        static const unsigned lane_counts[4] = {1, 2, 4, 8};
        for (int li = 0; li < 4; li++) {
            char name[32];
            snprintf(name, sizeof name, "s_lanes%u", lane_counts[li]);
            store_dir(dir, sizeof dir, name);
            ok = run_batch(&res, m, dir, lane_counts[li], NULL);
            double lo, mean = busy_share(&res, &lo), dlo, dev = device_share(&res, &dlo);
            double span = 0;
            for (unsigned d = 0; res.device_time && d < res.devices; d++)
                if (res.device_time[d].span_s > span) span = res.device_time[d].span_s;
            char dw[48] = "n/a", sp[24] = "-";
            if (isfinite(dev) && res.devices > 1)
                snprintf(dw, sizeof dw, "%.1f%% (min %.1f%%)", 100 * dev, 100 * dlo);
            else if (isfinite(dev))
                snprintf(dw, sizeof dw, "%.1f%%", 100 * dev);
            if (isfinite(dev)) snprintf(sp, sizeof sp, "%.3f", span);
            printf("%-8u %10.3f %10.2f %9.1f%% %9.1f%% %14s %10s%s\n", lane_counts[li], res.wall_s,
                   n / res.wall_s, 100 * mean, 100 * lo, dw, sp, ok ? "" : "  (FAILED)");
            double ex, pr, db;
            claim_times(&res, &ex, &pr, &db);
            printf("%-8s claims' time: execute %.3f s, prove %.3f s (device busy in them %.3f s); "
                   "%u reused\n", "", ex, pr, db, res.reused);
            snprintf(name, sizeof name, "lanes=%u", lane_counts[li]);
            bench_json_begin(&j, "bench_batch", name);
            bench_json_metric(&j, "wall_s", res.wall_s, "s");
            bench_json_metric(&j, "claims_s", n / res.wall_s, "claims/s");
            bench_json_metric(&j, "busy_mean_pct", 100 * mean, "%");
            bench_json_metric(&j, "device_busy_share", dev, "fraction");
            bench_json_metric(&j, "device_busy_share_min", dlo, "fraction");
            bench_json_metric(&j, "device_span_s", isfinite(dev) ? span : NAN, "s");
            bench_json_metric(&j, "execute_s", ex, "s");
            bench_json_metric(&j, "prove_s", pr, "s");
            bench_json_metric(&j, "proof_device_busy_s", cuda ? db : NAN, "s");
            if (ok) bench_json_end(&j);
            gs_batch_result_free(&res);
        }
        if (cuda)
            printf("   device busy: the union of every lane's device work over the batch's "
                   "timeline (overlap counted once) / its span\n");
    }

    /* ---- 4. a bisected fib claim, in a fresh process (its own peak RSS) ---- */
    if (only[4]) {
        fflush(stdout);
        char a_log[16], a_tmp[300];
        snprintf(a_log, sizeof a_log, "%u", bisect_log);
        snprintf(a_tmp, sizeof a_tmp, "%s", g_tmp);
        char *cargv[12] = {argv[0], "--bisect-child", "--bisect-log", a_log, "--backend",
                           (char *)g_backend, "--tmp", a_tmp, NULL};
        int ca = 8;
        if (budget_arg) cargv[ca++] = "--bisect-budget", cargv[ca++] = (char *)budget_arg;
        if (json) cargv[ca++] = "--json";
        cargv[ca] = NULL;
        /* The child writes its JSON line to ours: our JSON stream is its stdout. */
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        if (json) posix_spawn_file_actions_adddup2(&fa, fileno(bench_json_out), 1);
        static char self[PATH_MAX];
        ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
        pid_t pid;
        int st = 0;
        struct rusage ru;
        if (sl > 0 && (self[sl] = 0, posix_spawn(&pid, self, &fa, NULL, cargv, environ) == 0) &&
            wait4(pid, &st, 0, &ru) == pid) {
            char b[GS_SIZE_BUF];
            printf("   peak RSS of that run: %s%s\n", gs_size_format(b, (uint64_t)ru.ru_maxrss * 1024),
                   WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "" : " (the run FAILED)");
            char stmt[48];
            snprintf(stmt, sizeof stmt, "bisect fib lg=%u process", bisect_log);
            bench_json_begin(&j, "bench_batch", stmt);
            bench_json_metric(&j, "peak_rss_mb", (double)ru.ru_maxrss / 1024.0, "MiB");
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0) bench_json_end(&j);
        } else {
            printf("\n4. could not start the bisection run\n");
        }
        posix_spawn_file_actions_destroy(&fa);
    }

    /* ---- 5. multi-device scaling, simulated on the CPU ---- */
    if (only[5]) {
        unsigned t = sim_t ? sim_t : cores >= 8 ? (unsigned)(cores / 4) : 1;
        gs_manifest *ms = sim_n == n ? m : manifest_of(js, sim_n);
        size_t budget = sim_budget(ms);
        char b1[GS_SIZE_BUF];
        printf("\n5. %u claims on D simulated devices (CPU provers, one lane each, %u thread%s per "
               "device, budget %s each)\n", sim_n, t, t == 1 ? "" : "s", gs_size_format(b1, budget));
        printf("%-8s %10s %10s %12s %10s  %s\n", "devices", "wall s", "claims/s", "efficiency",
               "threads", "");
        static const unsigned dcounts[3] = {1, 2, 4};
        double base = 0;
        for (int di = 0; di < 3; di++) {
            unsigned d = dcounts[di];
            ok = sim_run(&res, ms, d, budget, t);
            double cps = res.wall_s > 0 ? sim_n / res.wall_s : 0;
            if (di == 0) base = ok ? cps : 0;
            double eff = base > 0 && ok ? cps / (d * base) : NAN;
            char e[24] = "-", note[96] = "";
            if (isfinite(eff)) snprintf(e, sizeof e, "%.1f%%", 100 * eff);
            if ((long)(d * t) > cores)
                snprintf(note, sizeof note, "(%u threads on %ld cores: devices share cores)", d * t, cores);
            if (res.bisected) snprintf(note + strlen(note), sizeof note - strlen(note), " (%u bisected)", res.bisected);
            if (res.reused) snprintf(note + strlen(note), sizeof note - strlen(note), " (%u reused)", res.reused);
            printf("%-8u %10.3f %10.2f %12s %10u  %s%s\n", d, res.wall_s, cps, e, d * t, note,
                   ok ? "" : " (FAILED)");
            char name[40];
            snprintf(name, sizeof name, "simulated devices=%u", d);
            bench_json_begin(&j, "bench_batch", name);
            bench_json_metric(&j, "wall_s", res.wall_s, "s");
            bench_json_metric(&j, "claims_s", cps, "claims/s");
            bench_json_metric(&j, "scaling_efficiency", eff, "fraction");
            bench_json_metric(&j, "threads", d * t, "count");
            bench_json_metric(&j, "oversubscribed", (long)(d * t) > cores, "bool");
            if (ok) bench_json_end(&j);
            gs_batch_result_free(&res);
        }
        printf("   efficiency: claims/s at D devices over D x claims/s at 1\n");
        if (ms != m) gs_manifest_free(ms);
    }

    gs_manifest_free(m);
    free(cl), free(js);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' && rm -rf '%s'", g_tmp, g_tmp);
    if (system(cmd) != 0) fprintf(stderr, "bench_batch: could not remove %s\n", g_tmp);
    return 0;
}
