/* NTT / LDE benchmark: a table of forward NTTs and coset LDEs (blowup 2, 4,
 * 8) over log sizes and column counts, with 1 and 2 threads: the median
 * wall time of several runs and ns per butterfly (n/2 log2 n per column; for
 * the LDE the inverse of size n plus the forward of size nB). Then the three
 * target rows with their targets.
 *
 *   bench_ntt [--quick] [--max-log N] [--min-log N] [--reps R] [--portable]
 *             [--targets-only] [--max-mib M] [--json]
 *
 * --json: one JSON object per row on stdout (the table goes to stderr), the
 * statement "<op> lg=<log n> cols=<c> B=<blowup> t=<threads>", target rows
 * prefixed "target ".
 *
 * Timings on a shared machine are noisy: medians of R runs (default 5; 3
 * for rows whose warm-up run takes over a quarter second). --max-mib caps
 * the memory of one row (default 512 MiB: input plus output). The default
 * run takes about 80 s on 2 cores, --quick about 20 s. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/ntt.h"
#include "gstark/parallel.h"
#include "ntt/ntt_internal.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static gs_fp rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % GS_FP_P;
}

static gs_fp *alloc_fp(size_t n) {
    size_t bytes = (n * sizeof(gs_fp) + 63) & ~(size_t)63;
    gs_fp *p = aligned_alloc(64, bytes);
    if (!p) {
        fprintf(stderr, "bench_ntt: out of memory (%zu MiB)\n", bytes >> 20);
        exit(2);
    }
    return p;
}

typedef enum { OP_NTT, OP_LDE } op_kind;

static int g_reps = 5;

/* Median seconds of g_reps runs (after one warm-up run). */
static double time_op(op_kind op, size_t cols, unsigned log_n, unsigned log_b, unsigned threads,
                      gs_fp *buf, gs_fp *out) {
    gs_threads_set(threads);
    double s[64];
    int reps = g_reps > 64 ? 64 : g_reps;
    for (int r = -1; r < reps; r++) {
        if (r == 0 && s[0] > 0.25 && reps > 3) reps = 3;
        double t0 = bench_now();
        gs_status st;
        if (op == OP_NTT)
            st = gs_ntt_forward_batch(buf, cols, log_n);
        else
            st = gs_lde_coset(out, buf, cols, log_n, log_b, GS_LDE_SHIFT, GS_ORDER_NATURAL);
        double t = bench_now() - t0;
        if (st != GS_OK) {
            fprintf(stderr, "bench_ntt: %s\n", gs_status_str(st));
            exit(1);
        }
        s[r < 0 ? 0 : r] = t;
    }
    gs_threads_set(0);
    return bench_median(s, reps);
}

static double butterflies(op_kind op, size_t cols, unsigned log_n, unsigned log_b) {
    double n = (double)((size_t)1 << log_n), N = n * (double)((size_t)1 << log_b);
    double b = n / 2 * log_n;
    if (op == OP_LDE) b += N / 2 * (log_n + log_b);
    return b * (double)cols;
}

static void row(const char *name, op_kind op, size_t cols, unsigned log_n, unsigned log_b,
                unsigned threads, const char *target) {
    size_t n = (size_t)1 << log_n, N = n << log_b;
    gs_fp *buf = alloc_fp(cols * n), *out = op == OP_LDE ? alloc_fp(cols * N) : NULL;
    for (size_t i = 0; i < cols * n; i++) buf[i] = rnd();
    if (out) memset(out, 0, cols * N * sizeof *out); /* fault the pages in */
    double t = time_op(op, cols, log_n, log_b, threads, buf, out);
    double bf = butterflies(op, cols, log_n, log_b);
    printf("%-8s %4u %5zu %4u %7u %11.3f %9.3f%s%s\n", name, log_n, cols, 1u << log_b, threads,
           t * 1e3, t * 1e9 / bf, target ? "   " : "", target ? target : "");
    fflush(stdout);
    char stmt[96];
    snprintf(stmt, sizeof stmt, "%s%s lg=%u cols=%zu B=%u t=%u", target ? "target " : "", name, log_n, cols,
             1u << log_b, threads);
    bench_jrow r;
    bench_json_begin(&r, "bench_ntt", stmt);
    bench_json_metric(&r, "time_ms", t * 1e3, "ms");
    bench_json_metric(&r, "ns_per_bfly", t * 1e9 / bf, "ns");
    bench_json_end(&r);
    free(buf);
    free(out);
}

static void header(void) {
    printf("%-8s %4s %5s %4s %7s %11s %9s\n", "op", "log", "cols", "B", "threads", "ms", "ns/bfly");
}

int main(int argc, char **argv) {
    unsigned min_log = 16, max_log = 24;
    int quick = 0, targets_only = 0, json = 0;
    size_t max_mib = 512;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--targets-only")) {
            targets_only = 1;
        } else if (!strcmp(argv[i], "--portable")) {
            gs_ntt_set_kernel_mode(1);
        } else if (i + 1 < argc && !strcmp(argv[i], "--max-log")) {
            max_log = (unsigned)atoi(argv[++i]);
        } else if (i + 1 < argc && !strcmp(argv[i], "--min-log")) {
            min_log = (unsigned)atoi(argv[++i]);
        } else if (i + 1 < argc && !strcmp(argv[i], "--reps")) {
            g_reps = atoi(argv[++i]);
        } else if (i + 1 < argc && !strcmp(argv[i], "--max-mib")) {
            max_mib = (size_t)atol(argv[++i]);
        } else {
            fprintf(stderr,
                    "usage: %s [--quick] [--max-log N] [--min-log N] [--reps R] [--portable] "
                    "[--targets-only] [--max-mib M] [--json]\n",
                    argv[0]);
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (g_reps < 1) g_reps = 1;
    if (max_log > 28) max_log = 28;
    if (quick) {
        if (max_log > 20) max_log = 20;
        if (g_reps > 3) g_reps = 3;
    }
    printf("bench_ntt: kernels %s, %u threads available, median of %d runs (3 for long rows)\n",
           gs_ntt_kernel_name(), gs_threads_get(), g_reps);

    if (!targets_only) {
        static const size_t colset[] = {1, 8, 16, 64};
        static const unsigned blowups[] = {0, 1, 2, 3}; /* 0: the plain forward NTT */
        header();
        for (size_t bi = 0; bi < 4; bi++) {
            unsigned log_b = blowups[bi];
            op_kind op = log_b ? OP_LDE : OP_NTT;
            for (unsigned log_n = min_log; log_n <= max_log; log_n += quick ? 4 : 2) {
                for (size_t ci = 0; ci < 4; ci++) {
                    size_t cols = colset[ci];
                    size_t n = (size_t)1 << log_n;
                    size_t bytes = cols * (n + (op == OP_LDE ? n << log_b : 0)) * sizeof(gs_fp);
                    if (bytes > max_mib << 20) continue;
                    if (quick && cols > 16) continue;
                    for (unsigned th = 1; th <= 2; th++)
                        row(op == OP_NTT ? "ntt" : "lde", op, cols, log_n, log_b, th, NULL);
                }
            }
        }
        printf("\n");
    }
    printf("targets:\n");
    header();
    row("ntt", OP_NTT, 1, 20, 0, 1, "target <= 4 ns/bfly");
    row("ntt", OP_NTT, 16, 20, 0, 2, "target <= 1.2 ns/bfly");
    row("lde", OP_LDE, 8, 20, 2, 2, "target <= 650 ms");
    return 0;
}
