/* Merkle commit throughput over a grid of shapes and thread counts, and the
 * target row: a 2^20 x 64 commit against one-shot gs_keccak256 of the same
 * 512 MiB (target: commit / keccak <= 1.3). Medians of repeated runs.
 *
 *   bench_merkle [--quick] [--max-log N] [--reps R] [--json]
 *
 * --json: one JSON object per row on stdout (the table goes to stderr): the
 * grid as "commit lg=<log rows> cols=<c> t=<threads>", the target rows as
 * "target keccak", "target commit t=1" and "target commit t=default".
 *
 * --quick: 2^16..2^18 rows, target shape 2^18 x 64 (128 MiB);
 * --max-log N: largest log2(rows) in the grid (default 20; shapes above
 * 2 GiB are skipped). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/merkle.h"
#include "gstark/parallel.h"

#define MAX_REPS 15

static gs_fp *make_matrix(size_t cols, size_t rows) {
    gs_fp *m = malloc(cols * rows * sizeof *m);
    if (!m) return NULL;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < cols * rows; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        m[i] = gs_fp_from_u64(x * 0x2545F4914F6CDD1Dull);
    }
    return m;
}

/* Repetitions: enough for a median on small shapes, few on large ones. */
static int reps_for(size_t bytes, int reps) {
    if (reps > 0) return reps;
    if (bytes <= (8u << 20)) return 7;
    if (bytes <= (64u << 20)) return 5;
    return 3;
}

static double time_commit(const gs_fp *m, size_t cols, unsigned log_rows, int reps,
                          gs_digest *root) {
    double s[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        gs_merkle_tree *t = NULL;
        double t0 = bench_now();
        gs_status st = gs_merkle_commit(&t, GS_HASH_KECCAK256, m, cols, (size_t)1 << log_rows,
                                        log_rows);
        s[r] = bench_now() - t0;
        if (st != GS_OK) {
            fprintf(stderr, "commit failed: %s\n", gs_status_str(st));
            exit(1);
        }
        if (root) *root = gs_merkle_root(t);
        gs_merkle_free(t);
    }
    return bench_median(s, reps);
}

static double time_keccak(const void *p, size_t bytes, int reps, uint8_t out[32]) {
    double s[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now();
        gs_keccak256(out, p, bytes);
        s[r] = bench_now() - t0;
    }
    return bench_median(s, reps);
}

/* The JSON line of one row; ratio 0 leaves it out. */
static void json_row(const char *stmt, double t, size_t rows, size_t bytes, double ratio) {
    bench_jrow r;
    bench_json_begin(&r, "bench_merkle", stmt);
    bench_json_metric(&r, "time_ms", 1e3 * t, "ms");
    bench_json_metric(&r, "mrows_s", (double)rows / t / 1e6, "Mrows/s");
    bench_json_metric(&r, "mb_s", (double)bytes / t / 1e6, "MB/s");
    if (ratio > 0) bench_json_metric(&r, "ratio_to_keccak", ratio, "x");
    bench_json_end(&r);
}

int main(int argc, char **argv) {
    int quick = 0, reps = 0, json = 0;
    unsigned max_log = 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--max-log") == 0 && i + 1 < argc) {
            max_log = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) reps = 1;
            if (reps > MAX_REPS) reps = MAX_REPS;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--max-log N] [--reps R] [--json]\n", argv[0]);
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (quick && max_log > 18) max_log = 18;
    unsigned threads_default = gs_threads_get();
    static const size_t COLS[] = {8, 64, 256};
    static const unsigned THREADS[] = {1, 2};

    printf("Merkle commit, Keccak-256, column-major input (default threads: %u)\n",
           threads_default);
    printf("%9s %6s %8s %10s %12s %10s\n", "rows", "cols", "threads", "ms", "Mrows/s", "MB/s");
    for (unsigned lg = 16; lg <= max_log; lg += 2)
        for (size_t ci = 0; ci < sizeof COLS / sizeof COLS[0]; ci++) {
            size_t cols = COLS[ci], rows = (size_t)1 << lg, bytes = cols * rows * 8;
            if (bytes > ((size_t)2 << 30)) continue;
            gs_fp *m = make_matrix(cols, rows);
            if (!m) {
                printf("2^%-7u %6zu   (no memory)\n", lg, cols);
                continue;
            }
            for (size_t ti = 0; ti < sizeof THREADS / sizeof THREADS[0]; ti++) {
                gs_threads_set(THREADS[ti]);
                double t = time_commit(m, cols, lg, reps_for(bytes, reps), NULL);
                printf("2^%-7u %6zu %8u %10.2f %12.3f %10.1f\n", lg, cols, THREADS[ti], 1e3 * t,
                       (double)rows / t / 1e6, (double)bytes / t / 1e6);
                fflush(stdout);
                char stmt[64];
                snprintf(stmt, sizeof stmt, "commit lg=%u cols=%zu t=%u", lg, cols, THREADS[ti]);
                json_row(stmt, t, rows, bytes, 0);
            }
            free(m);
        }

    /* The target row. */
    unsigned lg = quick ? 18 : 20;
    size_t cols = 64, rows = (size_t)1 << lg, bytes = cols * rows * 8;
    gs_fp *m = make_matrix(cols, rows);
    if (!m) {
        printf("target: no memory\n");
        return 0;
    }
    int r = reps_for(bytes, reps);
    uint8_t h[32];
    gs_digest root1, root2;
    double tk = time_keccak(m, bytes, r, h);
    gs_threads_set(1);
    double t1 = time_commit(m, cols, lg, r, &root1);
    gs_threads_set(0);
    double td = time_commit(m, cols, lg, r, &root2);
    printf("\ntarget: 2^%u rows x %zu cols = %zu MiB, median of %d\n", lg, cols, bytes >> 20, r);
    printf("  one-shot gs_keccak256 (1 thread)   %9.1f ms %8.1f MB/s\n", 1e3 * tk,
           (double)bytes / tk / 1e6);
    printf("  gs_merkle_commit, 1 thread          %9.1f ms %8.1f MB/s  ratio %.3f\n", 1e3 * t1,
           (double)bytes / t1 / 1e6, t1 / tk);
    printf("  gs_merkle_commit, %u threads         %9.1f ms %8.1f MB/s  ratio %.3f (target <= 1.3)\n",
           threads_default, 1e3 * td, (double)bytes / td / 1e6, td / tk);
    json_row("target keccak", tk, rows, bytes, 0);
    json_row("target commit t=1", t1, rows, bytes, t1 / tk);
    json_row("target commit t=default", td, rows, bytes, td / tk);
    printf("  roots %s\n", memcmp(&root1, &root2, sizeof root1) == 0 ? "agree" : "DIFFER");
    free(m);
    return 0;
}
