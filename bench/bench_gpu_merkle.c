/* Device Merkle commit throughput (gstark/cuda_merkle.h): leaf hashing alone
 * and the whole commit, for 2^22 rows x 64 and x 8 columns, in every device
 * Keccak code form (src/cuda/keccak.cuh). Each figure is the median of
 * --reps runs timed with CUDA events on the default stream; GB/s counts the
 * matrix bytes hashed (rows * cols * 8).
 *
 *   bench_gpu_merkle [--log-rows N] [--reps R] [--variant V] [--no-check] [--json]
 *
 * Columns: leaves = gs_cuda_merkle_hash_leaves; commit = gs_cuda_merkle_recommit
 * into a tree allocated once (kernels only); +alloc = gs_cuda_merkle_commit,
 * cudaMalloc of the tree included; ratio = commit / leaves; Gperm/s = Keccak-f
 * permutations per second in the leaf kernel (floor(cols/17) + 1 per row).
 * Targets (2^22 x 64): leaves >= 400 GB/s, commit / leaves <= 1.15. The node
 * levels cost one permutation per row, so the ratio cannot go below
 * ~(floor(cols/17) + 2) / (floor(cols/17) + 1) when both run at the same
 * permutation rate: 1.25 for 64 columns, 2 for 8; the table prints that floor.
 * Unless --no-check, every root is compared with the CPU's gs_merkle_commit.
 * Benchmarks never decide pass or fail; a wrong root is reported and exits 1.
 *
 * --json: one JSON object per row on stdout (the table goes to stderr); see
 * bench_util.h. Statements are "2^<log rows> x <cols> <code form>"; metrics
 * leaves_ms, leaves_gb_s, gperm_s, commit_ms, commit_gb_s, commit_over_leaves
 * and alloc_commit_ms; a row with a wrong root prints no JSON line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/merkle.h"

#define MAX_REPS 51

static void die(const char *what, gs_status s) {
    fprintf(stderr, "%s: %s (%s)\n", what, gs_status_str(s), gs_cuda_last_error());
    exit(1);
}

#define TRY(expr)                              \
    do {                                       \
        gs_status s_ = (expr);                 \
        if (s_ != GS_OK) die(#expr, s_);       \
    } while (0)

/* Milliseconds of one run of `what` between two events on the default stream. */
typedef struct {
    int what; /* 0 leaves, 1 recommit, 2 commit with allocation */
    gs_digest *d_leaves;
    gs_cuda_tree *tree;
    const uint64_t *d_m;
    size_t cols, rows;
    unsigned log_rows;
} run_ctx;

static double run_once(run_ctx *c, gs_digest *root) {
    void *e0 = NULL, *e1 = NULL;
    gs_cuda_tree *fresh = NULL;
    TRY(gs_cuda_merkle_event_record(&e0, NULL));
    if (c->what == 0)
        TRY(gs_cuda_merkle_hash_leaves(c->d_leaves, c->d_m, c->cols, c->rows, c->log_rows, NULL));
    else if (c->what == 1)
        TRY(gs_cuda_merkle_recommit(c->tree, c->d_m, c->cols, c->rows, NULL));
    else
        TRY(gs_cuda_merkle_commit(&fresh, c->d_m, c->cols, c->rows, c->log_rows, NULL));
    TRY(gs_cuda_merkle_event_record(&e1, NULL));
    double ms = 0;
    TRY(gs_cuda_merkle_event_elapsed(&ms, e0, e1));
    gs_cuda_merkle_event_destroy(e0);
    gs_cuda_merkle_event_destroy(e1);
    if (root && c->what != 0) TRY(gs_cuda_merkle_root(c->what == 1 ? c->tree : fresh, root));
    gs_cuda_merkle_free(fresh);
    return ms;
}

static double median_ms(run_ctx *c, int reps, gs_digest *root) {
    double s[MAX_REPS];
    (void)run_once(c, NULL); /* warm-up: module load, clocks */
    for (int r = 0; r < reps; r++) s[r] = run_once(c, r == 0 ? root : NULL);
    return bench_median(s, reps);
}

static uint64_t *make_matrix(size_t elems) {
    uint64_t *m = malloc(elems * sizeof *m);
    if (!m) return NULL;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < elems; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        m[i] = gs_fp_from_u64(x * 0x2545F4914F6CDD1Dull);
    }
    return m;
}

int main(int argc, char **argv) {
    unsigned log_rows = 22;
    int reps = 10, only = -1, check = 1, json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--log-rows") == 0 && i + 1 < argc) {
            log_rows = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1) reps = 1;
            if (reps > MAX_REPS) reps = MAX_REPS;
        } else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            only = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--no-check") == 0) {
            check = 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            fprintf(stderr, "usage: %s [--log-rows N] [--reps R] [--variant V] [--no-check] [--json]\n",
                    argv[0]);
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (gs_cuda_device_count() == 0) {
        printf("bench_gpu_merkle: no CUDA device (%s): nothing to measure\n",
               gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return 0;
    }
    if (log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS) {
        fprintf(stderr, "--log-rows must be <= %u\n", GS_CUDA_MERKLE_MAX_LOG_ROWS);
        return 2;
    }
    int nv = gs_cuda_keccak_variant_count(), def = gs_cuda_keccak_variant_select(-1);
    if (only >= nv) {
        fprintf(stderr, "--variant must be < %d\n", nv);
        return 2;
    }
    static const size_t cols_list[] = {64, 8};
    size_t rows = (size_t)1 << log_rows;
    int wrong = 0;
    double best_leaf_gbs = 0, best_ratio = 0;
    const char *best_leaf_name = "", *best_ratio_name = "";
    printf("device Merkle commit, 2^%u rows, median of %d (CUDA events); default code form: %s\n",
           log_rows, reps, gs_cuda_keccak_variant_name(def));
    for (size_t ci = 0; ci < sizeof cols_list / sizeof cols_list[0]; ci++) {
        size_t cols = cols_list[ci], elems = cols * rows;
        double bytes = (double)elems * 8;
        size_t perms_row = cols / 17 + 1;
        uint64_t *h = make_matrix(elems);
        if (!h) {
            fprintf(stderr, "out of host memory (%zu MiB)\n", elems * 8 >> 20);
            return 1;
        }
        void *d_m = NULL, *d_leaves = NULL;
        TRY(gs_cuda_merkle_dev_alloc(&d_m, elems * 8));
        TRY(gs_cuda_merkle_dev_alloc(&d_leaves, rows * sizeof(gs_digest)));
        TRY(gs_cuda_merkle_dev_copy(d_m, h, elems * 8));
        gs_digest cpu_root;
        if (check) {
            gs_merkle_tree *ct = NULL;
            double t0 = bench_now();
            TRY(gs_merkle_commit(&ct, GS_HASH_KECCAK256, h, cols, rows, log_rows));
            double t1 = bench_now();
            cpu_root = gs_merkle_root(ct);
            gs_merkle_free(ct);
            printf("\n2^%u x %zu (%.0f MiB), CPU reference commit %.1f ms\n", log_rows, cols,
                   bytes / 1048576, 1e3 * (t1 - t0));
        } else {
            printf("\n2^%u x %zu (%.0f MiB)\n", log_rows, cols, bytes / 1048576);
        }
        printf("  %-10s %9s %9s %8s %9s %9s %7s %6s %10s  %s\n", "form", "leaves ms", "GB/s",
               "Gperm/s", "commit ms", "GB/s", "ratio", "floor", "+alloc ms", "root");
        for (int v = 0; v < nv; v++) {
            if (only >= 0 && v != only) continue;
            gs_cuda_keccak_variant_select(v);
            run_ctx c = {0, d_leaves, NULL, d_m, cols, rows, log_rows};
            TRY(gs_cuda_merkle_commit(&c.tree, d_m, cols, rows, log_rows, NULL));
            gs_digest r1, r2;
            double leaf = median_ms(&c, reps, NULL);
            c.what = 1;
            double commit = median_ms(&c, reps, &r1);
            c.what = 2;
            double alloc = median_ms(&c, reps, &r2);
            gs_cuda_merkle_free(c.tree);
            int same = memcmp(r1.b, r2.b, 32) == 0 && (!check || memcmp(r1.b, cpu_root.b, 32) == 0);
            wrong |= !same;
            double leaf_gbs = bytes / leaf / 1e6, ratio = commit / leaf;
            printf("  %-10s %9.3f %9.1f %8.2f %9.3f %9.1f %7.3f %6.3f %10.3f  %s\n",
                   gs_cuda_keccak_variant_name(v), leaf, leaf_gbs,
                   (double)rows * (double)perms_row / leaf / 1e6, commit, bytes / commit / 1e6,
                   ratio, (double)(perms_row + 1) / (double)perms_row, alloc,
                   same ? (check ? "= CPU" : "ok") : "WRONG");
            char stmt[64];
            snprintf(stmt, sizeof stmt, "2^%u x %zu %s", log_rows, cols, gs_cuda_keccak_variant_name(v));
            bench_jrow r;
            bench_json_begin(&r, "bench_gpu_merkle", stmt);
            bench_json_metric(&r, "leaves_ms", leaf, "ms");
            bench_json_metric(&r, "leaves_gb_s", leaf_gbs, "GB/s");
            bench_json_metric(&r, "gperm_s", (double)rows * (double)perms_row / leaf / 1e6, "Gperm/s");
            bench_json_metric(&r, "commit_ms", commit, "ms");
            bench_json_metric(&r, "commit_gb_s", bytes / commit / 1e6, "GB/s");
            bench_json_metric(&r, "commit_over_leaves", ratio, "x");
            bench_json_metric(&r, "alloc_commit_ms", alloc, "ms");
            if (same) bench_json_end(&r);
            if (cols == 64 && leaf_gbs > best_leaf_gbs) {
                best_leaf_gbs = leaf_gbs;
                best_leaf_name = gs_cuda_keccak_variant_name(v);
            }
            if (cols == 64 && (best_ratio == 0 || ratio < best_ratio)) {
                best_ratio = ratio;
                best_ratio_name = gs_cuda_keccak_variant_name(v);
            }
        }
        gs_cuda_keccak_variant_select(def);
        gs_cuda_merkle_dev_free(d_m);
        gs_cuda_merkle_dev_free(d_leaves);
        free(h);
    }
    if (best_leaf_gbs > 0)
        printf("\ntargets, 2^%u x 64: leaves %.1f GB/s (%s; target >= 400), "
               "commit/leaves %.3f (%s; target <= 1.15, floor ~%.3f)\n",
               log_rows, best_leaf_gbs, best_leaf_name, best_ratio, best_ratio_name, 5.0 / 4.0);
    if (wrong) {
        fprintf(stderr, "a device root differs from the CPU's or between runs\n");
        return 1;
    }
    return 0;
}
