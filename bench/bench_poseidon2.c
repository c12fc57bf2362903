/* Poseidon2 (Goldilocks) benchmarks, single thread:
 *   1. permutations per second, widths 8 and 12: one state at a time (gs_poseidon2_permute_w*)
 *      and 4096 states per call through every bulk path this CPU has;
 *   2. leaf hashing: 2^16 rows of 8 and of 64 field elements, row-major, and the 64-element rows
 *      of a column-major matrix (the Merkle trees' layout), through every bulk path, with
 *      Keccak-256 (gs_hash_many, best path) over rows of the same length in the same run
 *      (row-major for both layouts: gs_hash_many has no element stride);
 *   3. 2-to-1 compressions (a Merkle level of 2^16 pairs) per bulk path, with Keccak-256 of the
 *      same 64-byte pairs.
 * The table's keccak/p2 is how many times faster Keccak-256 is (the JSON's ratio_to_keccak is
 * the inverse, Poseidon2's rate over Keccak's: above 1 would mean Poseidon2 is faster). Figures
 * are medians of several samples, each timed in the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID), as bench_keccak. Usage: bench_poseidon2 [--samples N] [--json].
 *
 * --json: one JSON object per row on stdout (tables to stderr), see bench_util.h. Statements:
 * "perm w<W> <path>" (mperm_s, ns_per_perm), "rows <n>x<len> <layout> <path>" (mrows_s,
 * melem_s, keccak_mrows_s, ratio_to_keccak) and "compress <path>" (mcompress_s,
 * keccak_mhash_s, ratio_to_keccak). */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/hash.h"
#include "gstark/poseidon2.h"
#include "hash/poseidon2_internal.h"

static int SAMPLES = 9;
static volatile uint64_t sink;


/* Seconds per repetition, median of SAMPLES. */
static double time_fn(bench_work_fn fn, void *arg, double target_s) {
    size_t reps = bench_calibrate(fn, arg, target_s);
    double s[64];
    for (int i = 0; i < SAMPLES; i++) {
        double t0 = bench_cpu_now();
        fn(arg, reps);
        s[i] = bench_cpu_now() - t0;
    }
    return bench_median(s, SAMPLES) / (double)reps;
}

static void fill(gs_fp *x, size_t n) {
    uint64_t z = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < n; i++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = gs_fp_from_u64(z ^ (z >> 29));
    }
}

/* ---- permutations ---- */

typedef struct {
    int impl; /* -1: one state at a time through the public call */
    unsigned w;
    gs_fp *st;
    size_t n;
} perm_arg;

static void run_perm(void *p, size_t reps) {
    perm_arg *a = p;
    for (size_t r = 0; r < reps; r++) {
        if (a->impl < 0) {
            if (a->w == 8) gs_poseidon2_permute_w8(a->st);
            else gs_poseidon2_permute_w12(a->st);
        } else if (a->w == 8) {
            gs_p2_permute_w8_many_with((gs_p2_impl)a->impl, a->st, a->n);
        } else {
            gs_p2_permute_w12_many_with((gs_p2_impl)a->impl, a->st, a->n);
        }
    }
    sink ^= a->st[0];
}

static void perm_row(unsigned w, const char *path, double t_per_perm) {
    printf("  w%-3u %-22s %14.0f %12.1f\n", w, path, 1 / t_per_perm, t_per_perm * 1e9);
    char stmt[64];
    snprintf(stmt, sizeof stmt, "perm w%u %s", w, path);
    bench_jrow r;
    bench_json_begin(&r, "bench_poseidon2", stmt);
    bench_json_metric(&r, "mperm_s", 1 / t_per_perm / 1e6, "Mperm/s");
    bench_json_metric(&r, "ns_per_perm", t_per_perm * 1e9, "ns");
    bench_json_end(&r);
}

static void bench_permutations(void) {
    enum { N = 4096 };
    gs_fp *st = malloc((size_t)N * 12 * sizeof *st);
    if (!st) return;
    fill(st, (size_t)N * 12);
    printf("Poseidon2 permutations (bulk paths: %d states per call)\n", N);
    printf("  %-4s %-22s %14s %12s\n", "", "path", "perm/s", "ns/perm");
    static const unsigned WIDTHS[2] = {8, 12};
    for (int wi = 0; wi < 2; wi++) {
        unsigned w = WIDTHS[wi];
        perm_arg a = {-1, w, st, 1};
        perm_row(w, "one state", time_fn(run_perm, &a, 0.05));
        for (int impl = 0; impl < GS_P2_IMPL_COUNT; impl++) {
            if (!gs_p2_available((gs_p2_impl)impl)) {
                printf("  w%-3u %-22s %14s\n", w, gs_p2_name((gs_p2_impl)impl),
                       "(not on this CPU)");
                continue;
            }
            perm_arg b = {impl, w, st, N};
            perm_row(w, gs_p2_name((gs_p2_impl)impl), time_fn(run_perm, &b, 0.1) / N);
        }
    }
    free(st);
}

/* ---- rows ---- */

typedef struct {
    int impl; /* -1: Keccak-256 of the row-major bytes */
    gs_poseidon2_digest *out;
    gs_digest *kout;
    const gs_fp *m;
    size_t n, len, row_stride, col_stride;
} rows_arg;

static void run_rows(void *p, size_t reps) {
    rows_arg *a = p;
    for (size_t r = 0; r < reps; r++) {
        if (a->impl < 0)
            gs_hash_many(GS_HASH_KECCAK256, a->kout, (const uint8_t *)a->m, a->len * 8,
                         a->row_stride * 8, a->n);
        else
            gs_p2_hash_rows_with((gs_p2_impl)a->impl, a->out, a->m, a->n, a->len, a->row_stride,
                                 a->col_stride);
    }
    sink ^= a->impl < 0 ? a->kout[0].b[0] : a->out[0].v[0];
}

static void bench_rows(void) {
    enum { LOG_ROWS = 16 };
    const size_t n = (size_t)1 << LOG_ROWS;
    static const size_t LENS[2] = {8, 64};
    gs_fp *m = malloc(n * 64 * sizeof *m);
    gs_poseidon2_digest *out = malloc(n * sizeof *out);
    gs_digest *kout = malloc(n * sizeof *kout);
    if (!m || !out || !kout) goto done;
    fill(m, n * 64);
    printf("\nLeaf hashing, 2^%d rows (Keccak-256: gs_hash_many over row-major rows of the "
           "same length, 8-byte limbs, path %s)\n", LOG_ROWS,
           gs_keccak_many_name(gs_keccak_many_best()));
    printf("  %-9s %-12s %-12s %12s %12s %14s %12s\n", "rows", "layout", "path", "Mrows/s",
           "Melem/s", "keccak Mrows/s", "keccak/p2");
    for (int li = 0; li < 2; li++) {
        size_t len = LENS[li];
        rows_arg k = {-1, out, kout, m, n, len, len, 1};
        double tk = time_fn(run_rows, &k, 0.2);
        for (int layout = 0; layout < 2; layout++) {
            if (layout == 1 && len != 64) continue; /* column-major: the 64-column matrix */
            for (int impl = 0; impl < GS_P2_IMPL_COUNT; impl++) {
                if (!gs_p2_available((gs_p2_impl)impl)) continue;
                rows_arg a = {impl, out, kout, m, n, len, layout ? 1 : len, layout ? n : 1};
                double t = time_fn(run_rows, &a, 0.2);
                char shape[32];
                snprintf(shape, sizeof shape, "%zux%zu", n, len);
                const char *lay = layout ? "col-major" : "row-major";
                printf("  %-9s %-12s %-12s %12.3f %12.1f %14.3f %11.1fx\n", shape, lay,
                       gs_p2_name((gs_p2_impl)impl), (double)n / t / 1e6,
                       (double)(n * len) / t / 1e6, (double)n / tk / 1e6, t / tk);
                char stmt[96];
                snprintf(stmt, sizeof stmt, "rows %s %s %s", shape, lay,
                         gs_p2_name((gs_p2_impl)impl));
                bench_jrow r;
                bench_json_begin(&r, "bench_poseidon2", stmt);
                bench_json_metric(&r, "mrows_s", (double)n / t / 1e6, "Mrows/s");
                bench_json_metric(&r, "melem_s", (double)(n * len) / t / 1e6, "Melem/s");
                bench_json_metric(&r, "keccak_mrows_s", (double)n / tk / 1e6, "Mrows/s");
                bench_json_metric(&r, "ratio_to_keccak", tk / t, "x");
                bench_json_end(&r);
            }
        }
    }
done:
    free(m);
    free(out);
    free(kout);
}

/* ---- compressions ---- */

typedef struct {
    int impl; /* -1: Keccak-256 of 64-byte pairs */
    gs_poseidon2_digest *out;
    const gs_poseidon2_digest *in;
    gs_digest *kout;
    size_t n;
} comp_arg;

static void run_comp(void *p, size_t reps) {
    comp_arg *a = p;
    for (size_t r = 0; r < reps; r++) {
        if (a->impl < 0)
            gs_hash_many(GS_HASH_KECCAK256, a->kout, (const uint8_t *)a->in, 64, 64, a->n);
        else
            gs_p2_compress_many_with((gs_p2_impl)a->impl, a->out, a->in, a->n);
    }
    sink ^= a->impl < 0 ? a->kout[0].b[0] : a->out[0].v[0];
}

static void bench_compress(void) {
    const size_t n = (size_t)1 << 16;
    gs_poseidon2_digest *in = malloc(2 * n * sizeof *in), *out = malloc(n * sizeof *out);
    gs_digest *kout = malloc(n * sizeof *kout);
    if (!in || !out || !kout) goto done;
    fill(in[0].v, 2 * n * 4);
    comp_arg k = {-1, out, in, kout, n};
    double tk = time_fn(run_comp, &k, 0.1) / (double)n;
    printf("\n2-to-1 compressions, a level of 2^16 pairs (Keccak-256 of the same 64 bytes: "
           "%.2f M/s)\n", 1 / tk / 1e6);
    printf("  %-12s %14s %12s %12s\n", "path", "compress/s", "ns each", "keccak/p2");
    for (int impl = 0; impl < GS_P2_IMPL_COUNT; impl++) {
        if (!gs_p2_available((gs_p2_impl)impl)) continue;
        comp_arg a = {impl, out, in, kout, n};
        double t = time_fn(run_comp, &a, 0.1) / (double)n;
        printf("  %-12s %14.0f %12.1f %11.1fx\n", gs_p2_name((gs_p2_impl)impl), 1 / t, t * 1e9,
               t / tk);
        char stmt[64];
        snprintf(stmt, sizeof stmt, "compress %s", gs_p2_name((gs_p2_impl)impl));
        bench_jrow r;
        bench_json_begin(&r, "bench_poseidon2", stmt);
        bench_json_metric(&r, "mcompress_s", 1 / t / 1e6, "M/s");
        bench_json_metric(&r, "keccak_mhash_s", 1 / tk / 1e6, "M/s");
        bench_json_metric(&r, "ratio_to_keccak", tk / t, "x");
        bench_json_end(&r);
    }
done:
    free(in);
    free(out);
    free(kout);
}

int main(int argc, char **argv) {
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
            SAMPLES = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            fprintf(stderr, "usage: bench_poseidon2 [--samples N] [--json]\n");
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (SAMPLES < 1) SAMPLES = 1;
    if (SAMPLES > 64) SAMPLES = 64;
    printf("bench_poseidon2: median of %d samples, single thread (bulk paths: best is %s)\n\n",
           SAMPLES, gs_p2_name(gs_p2_best()));
    bench_permutations();
    bench_rows();
    bench_compress();
    return 0;
}
