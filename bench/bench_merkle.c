/* Merkle commit throughput over a grid of shapes and thread counts, and the
 * target row: a 2^20 x 64 commit against one-shot gs_keccak256 of the same
 * 512 MiB (target: commit / keccak <= 1.3). Medians of repeated runs.
 *
 *   bench_merkle [--quick] [--max-log N] [--reps R] [--json]
 *   bench_merkle --hash keccak|poseidon2|both [--quick] [--reps R] [--json]
 *
 * --json: one JSON object per row on stdout (the table goes to stderr): the
 * grid as "commit lg=<log rows> cols=<c> t=<threads>", the target rows as
 * "target keccak", "target commit t=1" and "target commit t=default".
 *
 * --quick: 2^16..2^18 rows, target shape 2^18 x 64 (128 MiB);
 * --max-log N: largest log2(rows) in the grid (default 20; shapes above
 * 2 GiB are skipped).
 *
 * --hash: instead of the above, commit time by hash (docs/hash.md): Keccak-256
 * and/or Poseidon2 on 2^16 and 2^18 rows (--quick: 2^14, 2^16) of 8 and 64
 * columns, the CPU at 1 thread and the default count, and the CUDA device
 * when one is present (gs_cuda_merkle_commit_hash, the matrix already on the
 * device, commit plus the root's copy back); with both hashes, each row's
 * Poseidon2 / Keccak time. JSON statements "hash <name> lg=<l> cols=<c>
 * t=<threads>" or "... gpu", metrics commit_s and mrows_s. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
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

static double time_commit_hash(gs_hash_id id, const gs_fp *m, size_t cols, unsigned log_rows,
                               int reps, gs_digest *root) {
    double s[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        gs_merkle_tree *t = NULL;
        double t0 = bench_now();
        gs_status st = gs_merkle_commit(&t, id, m, cols, (size_t)1 << log_rows, log_rows);
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

static double time_commit(const gs_fp *m, size_t cols, unsigned log_rows, int reps,
                          gs_digest *root) {
    return time_commit_hash(GS_HASH_KECCAK256, m, cols, log_rows, reps, root);
}

/* The device commit of a matrix already on the device, root copied back; < 0 on failure. */
static double time_commit_gpu(gs_hash_id id, const uint64_t *d_m, size_t cols, unsigned log_rows,
                              int reps, gs_digest *root) {
    double s[MAX_REPS];
    for (int r = 0; r <= reps; r++) { /* one warm-up */
        gs_cuda_tree *t = NULL;
        double t0 = bench_now();
        gs_status st = gs_cuda_merkle_commit_hash(&t, id, d_m, cols, (size_t)1 << log_rows,
                                                  log_rows, NULL);
        if (st == GS_OK) st = gs_cuda_merkle_root(t, root);
        double dt = bench_now() - t0;
        gs_cuda_merkle_free(t);
        if (st != GS_OK) {
            fprintf(stderr, "device commit failed: %s (%s)\n", gs_status_str(st), gs_cuda_last_error());
            return -1;
        }
        if (r) s[r - 1] = dt;
    }
    return bench_median(s, reps);
}

static void hash_row(const char *name, unsigned lg, size_t cols, const char *where, double t,
                     double keccak_t) {
    size_t rows = (size_t)1 << lg;
    printf("%-10s 2^%-5u %5zu %8s %10.4f %10.3f", name, lg, cols, where, t, (double)rows / t / 1e6);
    if (keccak_t > 0) printf(" %9.1fx", t / keccak_t);
    printf("\n");
    fflush(stdout);
    char stmt[96];
    snprintf(stmt, sizeof stmt, "hash %s lg=%u cols=%zu %s", name, lg, cols, where);
    bench_jrow r;
    bench_json_begin(&r, "bench_merkle", stmt);
    bench_json_metric(&r, "commit_s", t, "s");
    bench_json_metric(&r, "mrows_s", (double)rows / t / 1e6, "Mrows/s");
    bench_json_end(&r);
}

/* --hash: commit time by hash on CPU (1 thread, the default count) and GPU. */
static int compare_hashes(const char *which, int quick, int reps) {
    int nh = 0;
    gs_hash_id ids[2];
    if (!strcmp(which, "keccak") || !strcmp(which, "both")) ids[nh++] = GS_HASH_KECCAK256;
    if (!strcmp(which, "poseidon2") || !strcmp(which, "both")) ids[nh++] = GS_HASH_POSEIDON2;
    if (!nh) {
        fprintf(stderr, "--hash is keccak, poseidon2 or both\n");
        return 2;
    }
    int gpu = gs_cuda_device_count() > 0;
    unsigned threads_default = gs_threads_get();
    printf("Merkle commit by hash (docs/hash.md), median of %s; CPU threads 1 and %u%s\n",
           reps ? "--reps" : "3..7 runs", threads_default, gpu ? ", and the CUDA device" : "");
    printf("%-10s %7s %5s %8s %10s %10s%s\n", "hash", "rows", "cols", "where", "commit_s", "Mrows/s",
           nh == 2 ? "  p2/keccak" : "");
    static const size_t COLS[] = {8, 64};
    for (unsigned lg = quick ? 14 : 16; lg <= (quick ? 16u : 18u); lg += 2)
        for (size_t ci = 0; ci < 2; ci++) {
            size_t cols = COLS[ci], rows = (size_t)1 << lg, bytes = cols * rows * 8;
            gs_fp *m = make_matrix(cols, rows);
            if (!m) return 1;
            int r = reps_for(bytes, reps);
            unsigned ts[2] = {1, threads_default};
            for (int ti = 0; ti < (threads_default > 1 ? 2 : 1); ti++) {
                double tk = 0;
                char where[16];
                snprintf(where, sizeof where, "t=%u", ts[ti]);
                for (int h = 0; h < nh; h++) {
                    gs_threads_set(ts[ti]);
                    double t = time_commit_hash(ids[h], m, cols, lg, r, NULL);
                    gs_threads_set(0);
                    if (ids[h] == GS_HASH_KECCAK256) tk = t;
                    hash_row(gs_hash_name(ids[h]), lg, cols, where, t,
                             ids[h] == GS_HASH_POSEIDON2 ? tk : 0);
                }
            }
            void *d = NULL;
            if (gpu && gs_cuda_merkle_dev_alloc(&d, bytes) == GS_OK &&
                gs_cuda_merkle_dev_copy(d, m, bytes) == GS_OK) {
                double tk = 0;
                for (int h = 0; h < nh; h++) {
                    gs_digest gr, cr;
                    double t = time_commit_gpu(ids[h], d, cols, lg, r, &gr);
                    if (t < 0) break;
                    time_commit_hash(ids[h], m, cols, lg, 1, &cr);
                    if (memcmp(&gr, &cr, sizeof gr) != 0)
                        fprintf(stderr, "%s 2^%u x %zu: GPU and CPU roots DIFFER\n",
                                gs_hash_name(ids[h]), lg, cols);
                    if (ids[h] == GS_HASH_KECCAK256) tk = t;
                    hash_row(gs_hash_name(ids[h]), lg, cols, "gpu", t,
                             ids[h] == GS_HASH_POSEIDON2 ? tk : 0);
                }
            }
            gs_cuda_merkle_dev_free(d);
            free(m);
        }
    return 0;
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
    const char *hash = NULL;
    unsigned max_log = 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--hash") == 0 && i + 1 < argc) {
            hash = argv[++i];
        } else if (strcmp(argv[i], "--max-log") == 0 && i + 1 < argc) {
            max_log = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) reps = 1;
            if (reps > MAX_REPS) reps = MAX_REPS;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--max-log N] [--reps R] [--json]\n"
                            "       %s --hash keccak|poseidon2|both [--quick] [--reps R] [--json]\n",
                    argv[0], argv[0]);
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (hash) return compare_hashes(hash, quick, reps);
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
