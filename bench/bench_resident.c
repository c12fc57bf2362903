/* bench_resident: what a resident prover context saves per proof. For each
 * size, N proofs of fib 2^L one-shot (gs_prove each time: a context made
 * and freed around every proof) against N proofs on one context made once
 * (gs_prover_new, then gs_prover_prove), in the same run, on the same
 * backend, the two interleaved (one of each in turn, so that both see the
 * same load on a shared machine). Prints per-proof milliseconds (median, mean, min) for both, the
 * context's creation time, the ratio of the means (one-shot / resident), and
 * whether every proof's bytes equal the first one-shot proof's.
 *
 * Before timing, one proof of each size on a context of its own warms what
 * every path shares (the process's CUDA initialisation, cached twiddles), so
 * the numbers compare the per-proof costs only.
 *
 * usage: bench_resident [--backend cpu|cuda] [--n N] [--log L]... [--threads T]
 *                       [--security BITS] [--grinding G] [--json]
 *   defaults: --backend cpu --n 50 --log 12 --log 16, the default parameters
 *   (gs_params_default(128): 20 bits of grinding) unless --grinding says
 *   otherwise.
 *
 * --json: one JSON object per row on stdout (the table goes to stderr); see
 * bench_util.h. Statements are "fib lg=<log rows> <backend>"; metrics the
 * per-proof medians and means of both paths (oneshot_ms, resident_ms,
 * oneshot_mean_ms, resident_mean_ms), the context's creation (ctx_ms) and
 * resident_speedup (one-shot mean over resident mean). A row whose proofs
 * differ prints no JSON line and the program exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/gstark.h"
#include "gstark/parallel.h"

typedef struct {
    double med, mean, min;
} summary;

static summary summarize(double *ms, int n) {
    summary s = {0, 0, 1e300};
    for (int i = 0; i < n; i++) {
        s.mean += ms[i] / n;
        if (ms[i] < s.min) s.min = ms[i];
    }
    s.med = bench_median(ms, n);
    return s;
}

static int same_bytes(const gs_proof *p, const uint8_t *ref, size_t ref_len) {
    uint8_t *b = NULL;
    size_t len = 0;
    int ok = p && gs_proof_serialize(&b, &len, p) == GS_OK && len == ref_len &&
             memcmp(b, ref, len) == 0;
    free(b);
    return ok;
}

static int run_size(unsigned log_n, int n, gs_backend_kind kind, const gs_params *par) {
    gs_workload w = {0};
    if (gs_airs_fib(&w, log_n, 1, 1) != GS_OK) {
        fprintf(stderr, "fib 2^%u: no workload\n", log_n);
        return 1;
    }
    gs_prove_opts o = {.backend = kind};
    gs_prover_cfg cfg = {.backend = kind};
    double *one = calloc((size_t)n, sizeof *one), *res = calloc((size_t)n, sizeof *res);
    uint8_t *ref = NULL;
    size_t ref_len = 0;
    int same = 1, failed = 0;

    gs_prover *warm = NULL; /* the shared costs, paid before any timing */
    gs_proof *p = NULL;
    gs_status ws = gs_prover_new(&warm, &cfg);
    if (ws == GS_OK) ws = gs_prover_prove(warm, &p, w.air, w.trace, log_n, w.pub, par, NULL);
    if (ws == GS_OK) ws = gs_proof_serialize(&ref, &ref_len, p);
    if (ws != GS_OK) {
        fprintf(stderr, "fib 2^%u: the warm-up proof failed: %s\n", log_n, gs_status_str(ws));
        free(one), free(res), free(ref);
        gs_proof_free(p);
        gs_prover_free(warm);
        gs_workload_free(&w);
        return 1;
    }
    gs_proof_free(p);
    gs_prover_free(warm);

    double c0 = bench_now();
    gs_prover *pv = NULL;
    if (!failed && gs_prover_new(&pv, &cfg) != GS_OK) failed = 1;
    double made = 1e3 * (bench_now() - c0);
    /* Interleaved, one-shot then resident, so that both see the same load
     * on a shared machine. */
    for (int i = 0; !failed && i < n; i++) {
        double t0 = bench_now();
        gs_status s = gs_prove(&p, w.air, w.trace, log_n, w.pub, par, &o);
        one[i] = 1e3 * (bench_now() - t0);
        failed |= s != GS_OK;
        same &= same_bytes(p, ref, ref_len);
        gs_proof_free(p);
        t0 = bench_now();
        s = gs_prover_prove(pv, &p, w.air, w.trace, log_n, w.pub, par, NULL);
        res[i] = 1e3 * (bench_now() - t0);
        failed |= s != GS_OK;
        same &= same_bytes(p, ref, ref_len);
        gs_proof_free(p);
    }
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    gs_prover_free(pv);
    if (failed) {
        fprintf(stderr, "fib 2^%u: a proof failed\n", log_n);
    } else {
        summary a = summarize(one, n), b = summarize(res, n);
        const char *be = info.backend ? info.backend : "?";
        printf("fib 2^%-2u %-4s %6d   %9.3f %9.3f %9.3f   %9.3f %9.3f %9.3f   %7.3f  %6.2fx  %s\n",
               log_n, be, n, a.med, a.mean, a.min, b.med, b.mean, b.min, made, a.mean / b.mean,
               same ? "same" : "DIFFERENT");
        char stmt[64];
        snprintf(stmt, sizeof stmt, "fib lg=%u %s", log_n, be);
        bench_jrow r;
        bench_json_begin(&r, "bench_resident", stmt);
        bench_json_metric(&r, "oneshot_ms", a.med, "ms");
        bench_json_metric(&r, "resident_ms", b.med, "ms");
        bench_json_metric(&r, "oneshot_mean_ms", a.mean, "ms");
        bench_json_metric(&r, "resident_mean_ms", b.mean, "ms");
        bench_json_metric(&r, "ctx_ms", made, "ms");
        bench_json_metric(&r, "resident_speedup", a.mean / b.mean, "x");
        if (same) bench_json_end(&r);
    }
    free(one), free(res), free(ref);
    gs_workload_free(&w);
    return failed || !same;
}

int main(int argc, char **argv) {
    gs_backend_kind kind = GS_BACKEND_CPU;
    int n = 50, nlogs = 0, grinding = -1, json = 0;
    unsigned logs[16], security = 128;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--backend") && v) {
            kind = !strcmp(v, "cuda") ? GS_BACKEND_CUDA : GS_BACKEND_CPU;
            if (strcmp(v, "cuda") && strcmp(v, "cpu")) {
                fprintf(stderr, "--backend is cpu or cuda\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--n") && v) {
            n = atoi(v), i++;
        } else if (!strcmp(a, "--log") && v && nlogs < 16) {
            logs[nlogs++] = (unsigned)atoi(v), i++;
        } else if (!strcmp(a, "--threads") && v) {
            gs_threads_set((unsigned)atoi(v)), i++;
        } else if (!strcmp(a, "--security") && v) {
            security = (unsigned)atoi(v), i++;
        } else if (!strcmp(a, "--grinding") && v) {
            grinding = atoi(v), i++;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else {
            fprintf(stderr,
                    "usage: bench_resident [--backend cpu|cuda] [--n N] [--log L]... [--threads T] "
                    "[--security BITS] [--grinding G] [--json]\n");
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (n < 1) n = 1;
    if (!nlogs) logs[nlogs++] = 12, logs[nlogs++] = 16;
    gs_params par = gs_params_default(security);
    if (grinding >= 0) par.grinding_bits = (uint32_t)grinding;
    printf("bench_resident: %d proofs per row, %u-bit parameters, %u grinding bits, %u threads\n",
           n, gs_params_security(&par), par.grinding_bits, gs_threads_get());
    printf("                       one-shot ms per proof         resident ms per proof\n");
    printf("row           proofs      median      mean       min      median      mean       min"
           "    ctx ms   ratio  bytes\n");
    int bad = 0;
    for (int i = 0; i < nlogs; i++) bad |= run_size(logs[i], n, kind, &par);
    return bad;
}
