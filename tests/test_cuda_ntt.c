/* The device NTT and coset LDE (gstark/cuda_ntt.h) against the CPU functions
 * (gstark/ntt.h): exact equality of every output value, for every log size
 * 1..24, several column counts (fewer for large sizes), forward and inverse,
 * LDE from evaluations and from coefficients, blowups 2, 4 and 8, natural and
 * bit-reversed order, the default and other shifts; then argument errors.
 * Exits GS_TEST_SKIP (77) where no device exists.
 *
 * Options: --seed N (replay), --max-log L (largest log size, default 24),
 * --quick (log sizes up to 16, for slow emulators). */
#include <stdint.h>
#include <time.h>

#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_ntt.h"
#include "gstark/field.h"
#include "gstark/ntt.h"
#include "test_util.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Outputs per LDE call are kept at most this many (host memory and CPU time). */
#define MAX_LDE_VALUES ((size_t)1 << 26)

static uint64_t *d_in, *d_out; /* device buffers: MAX_LDE_VALUES / 2 and MAX_LDE_VALUES values */
static long g_cases, g_bad_cases;

static void report_cuda(const char *what, gs_status s) {
    fprintf(stderr, "%s: %s (%s)\n", what, gs_status_str(s), gs_cuda_last_error());
}

/* Compares n values; prints the first mismatch with the case's description. */
static int same(const uint64_t *want, const uint64_t *got, size_t n, size_t col_len,
                const char *desc) {
    g_cases++;
    if (gs_test_same_values(desc, want, got, n, col_len)) return 1;
    g_bad_cases++;
    return 0;
}

static uint64_t *rand_values(size_t n) {
    uint64_t *v = malloc(n * sizeof *v);
    if (!v) {
        fprintf(stderr, "out of host memory (%zu values)\n", n);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) v[i] = gs_test_fp();
    return v;
}

/* Forward and inverse batch NTT of cols x 2^log_n. */
static void test_ntt(unsigned log_n, size_t cols) {
    size_t n = (size_t)1 << log_n, total = cols * n;
    uint64_t *x = rand_values(total), *want = malloc(total * 8), *got = malloc(total * 8);
    char desc[128];
    for (int inv = 0; inv < 2; inv++) {
        memcpy(want, x, total * 8);
        gs_status s = inv ? gs_ntt_inverse_batch(want, cols, log_n) : gs_ntt_forward_batch(want, cols, log_n);
        CHECK(s == GS_OK);
        CHECK(gs_cuda_mem_h2d(d_out, x, total * 8) == GS_OK);
        s = inv ? gs_cuda_ntt_inverse_batch(d_out, cols, log_n, NULL)
                : gs_cuda_ntt_forward_batch(d_out, cols, log_n, NULL);
        if (s != GS_OK) report_cuda(inv ? "gs_cuda_ntt_inverse_batch" : "gs_cuda_ntt_forward_batch", s);
        CHECK(s == GS_OK);
        s = gs_cuda_sync();
        if (s != GS_OK) report_cuda("gs_cuda_sync", s);
        CHECK(s == GS_OK);
        memset(got, 0, total * 8);
        CHECK(gs_cuda_mem_d2h(got, d_out, total * 8) == GS_OK);
        snprintf(desc, sizeof desc, "%s NTT log_n %u cols %zu", inv ? "inverse" : "forward", log_n, cols);
        CHECK(same(want, got, total, n, desc));
    }
    free(x), free(want), free(got);
}

/* Columns of edge values (each column one value repeated, or two
 * alternating), where every product by a register DFT's root sees the same
 * extremes (0, 1, p - 1, 2^32 - 1, ...): forward and inverse against the CPU. */
static void test_ntt_edges(unsigned log_n) {
    static const uint64_t edges[] = {0, 1, 2, GS_FP_P - 1, GS_FP_P - 2, (1ull << 32) - 1, 1ull << 32,
                                     GS_FP_P - (1ull << 32), 1ull << 63, 4095, GS_FP_P - 4096};
    const size_t ne = sizeof edges / sizeof edges[0], cols = 2 * ne, n = (size_t)1 << log_n;
    uint64_t *x = malloc(cols * n * 8), *want = malloc(cols * n * 8), *got = malloc(cols * n * 8);
    CHECK(x && want && got);
    for (size_t c = 0; c < cols; c++)
        for (size_t i = 0; i < n; i++)
            x[c * n + i] = c < ne ? edges[c] : edges[(c + (i & 1)) % ne];
    char desc[96];
    for (int inv = 0; inv < 2; inv++) {
        memcpy(want, x, cols * n * 8);
        CHECK((inv ? gs_ntt_inverse_batch(want, cols, log_n) : gs_ntt_forward_batch(want, cols, log_n)) == GS_OK);
        CHECK(gs_cuda_mem_h2d(d_out, x, cols * n * 8) == GS_OK);
        CHECK((inv ? gs_cuda_ntt_inverse_batch(d_out, cols, log_n, NULL)
                   : gs_cuda_ntt_forward_batch(d_out, cols, log_n, NULL)) == GS_OK);
        CHECK(gs_cuda_sync() == GS_OK);
        CHECK(gs_cuda_mem_d2h(got, d_out, cols * n * 8) == GS_OK);
        snprintf(desc, sizeof desc, "%s NTT of edge-value columns, log_n %u", inv ? "inverse" : "forward", log_n);
        CHECK(same(want, got, cols * n, n, desc));
    }
    free(x), free(want), free(got);
}

/* LDE of cols x 2^log_n by 2^log_b, both kinds of input and both orders,
 * queued on stream (NULL: the legacy default stream). */
static void test_lde_on(unsigned log_n, unsigned log_b, size_t cols, uint64_t shift, void *stream) {
    size_t n = (size_t)1 << log_n, N = n << log_b, tin = cols * n, tout = cols * N;
    uint64_t *x = rand_values(tin), *want = malloc(tout * 8), *got = malloc(tout * 8);
    if (!want || !got) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    CHECK(gs_cuda_mem_h2d(d_in, x, tin * 8) == GS_OK);
    char desc[160];
    for (int coeffs = 0; coeffs < 2; coeffs++) {
        for (int order = 0; order < 2; order++) {
            gs_status s = coeffs ? gs_lde_coset_from_coeffs(want, x, cols, log_n, log_b, shift, (gs_order)order)
                                 : gs_lde_coset(want, x, cols, log_n, log_b, shift, (gs_order)order);
            CHECK(s == GS_OK);
            s = coeffs ? gs_cuda_lde_coset_from_coeffs(d_out, d_in, cols, log_n, log_b, shift, order, stream)
                       : gs_cuda_lde_coset(d_out, d_in, cols, log_n, log_b, shift, order, stream);
            if (s != GS_OK) report_cuda(coeffs ? "gs_cuda_lde_coset_from_coeffs" : "gs_cuda_lde_coset", s);
            CHECK(s == GS_OK);
            s = gs_cuda_sync();
            if (s != GS_OK) report_cuda("gs_cuda_sync", s);
            CHECK(s == GS_OK);
            memset(got, 0, tout * 8);
            CHECK(gs_cuda_mem_d2h(got, d_out, tout * 8) == GS_OK);
            snprintf(desc, sizeof desc, "LDE from %s log_n %u blowup %u cols %zu %s shift 0x%" PRIx64,
                     coeffs ? "coeffs" : "evals", log_n, 1u << log_b, cols,
                     order ? "bitrev" : "natural", shift);
            CHECK(same(want, got, tout, N, desc));
        }
    }
    /* the input is left unchanged */
    memset(got, 0, tin * 8);
    CHECK(gs_cuda_mem_d2h(got, d_in, tin * 8) == GS_OK);
    CHECK(memcmp(got, x, tin * 8) == 0);
    free(x), free(want), free(got);
}

static void test_lde(unsigned log_n, unsigned log_b, size_t cols, uint64_t shift) {
    test_lde_on(log_n, log_b, cols, shift, NULL);
}

/* LDEs whose shift tables are new (cached by the call that makes them), on a
 * non-blocking stream right after the table is made, as the prover's lanes
 * run them: each must equal the CPU. The tables used to be uploaded with a
 * plain cudaMemcpy, which returns before a pageable copy lands and runs on
 * the legacy stream that non-blocking streams do not wait for; a lane's
 * first LDE of a new shape could then read a partly written table (the
 * intermittent invalid proof in docs/gpu.md, "An intermittent invalid zkVM
 * proof on CUDA"). Runs before anything else fills the cache. */
static void test_fresh_tables_on_stream(void) {
    void *st = NULL;
    CHECK(gs_cuda_merkle_stream_create(&st) == GS_OK);
    if (!st) return;
    long bad0 = g_bad_cases;
    /* a new shift each time: two new tables (from evaluations, from coefficients) */
    for (unsigned i = 0; i < 24; i++) test_lde_on(10 + i % 8, 2, 1, gs_test_fp(), st);
    printf("new shift tables read at once on a non-blocking stream: 48 tables, %s\n",
           g_bad_cases == bad0 ? "all equal" : "MISMATCHES");
    gs_cuda_merkle_stream_destroy(st);
}

static void test_args(void) {
    uint64_t *v = d_out;
    CHECK(gs_cuda_ntt_forward_batch(v, 1, 33, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_ntt_inverse_batch(v, 1, 33, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_ntt_forward_batch(NULL, 1, 4, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_ntt_inverse_batch(NULL, 2, 4, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_ntt_forward_batch(NULL, 0, 4, NULL) == GS_OK);
    CHECK(gs_cuda_ntt_forward_batch(v, SIZE_MAX / 4, 8, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out, d_in, 1, 30, 3, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out, d_in, 1, 33, 0, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset_from_coeffs(d_out, d_in, 1, 4, 33, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out, d_in, 1, 4, 2, GS_FP_P, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out, d_in, 1, 4, 2, GS_LDE_SHIFT, 2, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out, d_in, 1, 4, 2, GS_LDE_SHIFT, -1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(NULL, d_in, 1, 4, 2, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out, NULL, 1, 4, 2, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset_from_coeffs(NULL, NULL, 3, 4, 2, GS_LDE_SHIFT, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(NULL, NULL, 0, 4, 2, GS_LDE_SHIFT, 0, NULL) == GS_OK);
    /* overlapping input and output */
    CHECK(gs_cuda_lde_coset(d_out, d_out, 1, 4, 2, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset(d_out + 8, d_out, 1, 4, 2, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_lde_coset_from_coeffs(d_out, d_out + 60, 1, 4, 2, GS_LDE_SHIFT, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_sync() == GS_OK);
}

/* Column counts per log size: many for small columns, one for the largest. */
static void cols_for(unsigned log_n, size_t *c, int *nc) {
    static const size_t small[] = {1, 3, 7, 64, 300}, mid[] = {1, 3, 7}, big[] = {1, 2};
    const size_t *src = log_n <= 10 ? small : log_n <= 16 ? mid : log_n <= 20 ? big : small;
    *nc = log_n <= 10 ? 5 : log_n <= 16 ? 3 : log_n <= 20 ? 2 : 1;
    for (int i = 0; i < *nc; i++) c[i] = src[i];
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    unsigned max_log = 24;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-log") == 0 && i + 1 < argc) max_log = (unsigned)atoi(argv[i + 1]);
        if (strcmp(argv[i], "--quick") == 0) max_log = 16;
    }
    if (max_log > 24) max_log = 24;
    if (gs_cuda_device_count() == 0) {
        printf("skipped: no CUDA device (%s)\n", gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return GS_TEST_SKIP;
    }
    char name[256];
    size_t mem = 0;
    if (gs_cuda_device_info(name, sizeof name, &mem) == GS_OK)
        printf("device: %s, %.1f GiB\n", name, (double)mem / (1 << 30));
    gs_status s = gs_cuda_mem_alloc((void **)&d_in, MAX_LDE_VALUES / 2 * 8);
    if (s == GS_OK) s = gs_cuda_mem_alloc((void **)&d_out, MAX_LDE_VALUES * 8);
    if (s != GS_OK) {
        report_cuda("gs_cuda_mem_alloc", s);
        return 1;
    }

    test_fresh_tables_on_stream();
    test_args();

    double t_all = now_s();
    for (unsigned log_n = 1; log_n <= max_log; log_n++) {
        double t0 = now_s();
        long bad0 = g_bad_cases, cases0 = g_cases;
        size_t cols[5];
        int nc;
        cols_for(log_n, cols, &nc);
        for (int ci = 0; ci < nc; ci++) test_ntt(log_n, cols[ci]);
        for (int ci = 0; ci < nc; ci++) {
            for (unsigned log_b = 1; log_b <= 3; log_b++) {
                if (cols[ci] << (log_n + log_b) > MAX_LDE_VALUES) continue;
                if (cols[ci] > 7 && log_b != 2) continue; /* wide batches: blowup 4 only */
                uint64_t shift = (ci == 1 && log_b == 2) ? gs_test_fp() : GS_LDE_SHIFT;
                test_lde(log_n, log_b, cols[ci], shift);
            }
        }
        printf("log_n %2u: %3ld cases, %s, %.2f s\n", log_n, g_cases - cases0,
               g_bad_cases == bad0 ? "all equal" : "MISMATCHES", now_s() - t0);
        fflush(stdout);
    }

    /* edge cases: shift 0 and 1, blowup 1 and large blowups, log_n 0 */
    test_lde(5, 0, 3, GS_LDE_SHIFT);
    test_lde(13, 0, 1, 3);
    test_lde(4, 2, 2, 0);
    test_lde(6, 1, 2, 1);
    test_lde(0, 3, 5, GS_LDE_SHIFT);
    test_lde(0, 0, 2, GS_LDE_SHIFT);
    test_lde(2, 12, 1, GS_LDE_SHIFT);
    test_lde(3, 9, 2, GS_LDE_SHIFT);
    test_lde(9, 5, 1, GS_LDE_SHIFT);
    test_lde(14, 6, 1, GS_LDE_SHIFT);
    /* more shifts than the device caches tables for */
    for (int i = 0; i < 72; i++) test_lde(3, 1, 1, gs_test_fp());
    test_ntt(0, 3);
    for (unsigned l = 4; l <= 16; l += 4) test_ntt_edges(l);
    printf("edge cases done; %ld comparisons in %.1f s, %ld mismatching\n", g_cases,
           now_s() - t_all, g_bad_cases);

    CHECK(gs_cuda_mem_free(d_in) == GS_OK);
    CHECK(gs_cuda_mem_free(d_out) == GS_OK);
    return gs_test_done();
}
