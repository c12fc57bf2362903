/* Device Poseidon2 (gstark/cuda_poseidon2.h) against the CPU (gstark/poseidon2.h): the
 * published width-8 and width-12 vectors through the device permutation; random states of both
 * widths; rows through the sponge, row-major (rows padded apart) and column-major, for many row
 * counts and lengths (0, 1, 7, 8, 9, 17, 64, 100), values >= p included; a large shape (2^18 rows
 * of 8, 2^16 of 64 column-major); compressions of random pairs; argument errors; and no device
 * allocation left behind. Exits GS_TEST_SKIP (77) where no device exists; CTest reports a skip.
 *
 *   test_cuda_poseidon2 [--seed N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/device.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_poseidon2.h"
#include "gstark/poseidon2.h"
#include "test_util.h"

static int ok(gs_status s, const char *call) {
    if (s == GS_OK) return 1;
    fprintf(stderr, "%s: %s (%s)\n", call, gs_status_str(s), gs_cuda_last_error());
    return 0;
}

#define CHECK_OK(expr) CHECK(ok((expr), #expr))

/* A device copy of n host words (NULL on failure, reported). */
static uint64_t *to_device(const void *h, size_t words) {
    void *d = NULL;
    if (!ok(gs_cuda_merkle_dev_alloc(&d, words * 8), "dev_alloc")) return NULL;
    if (words && !ok(gs_cuda_merkle_dev_copy(d, h, words * 8), "dev_copy to device")) {
        gs_cuda_merkle_dev_free(d);
        return NULL;
    }
    return d;
}

static void random_words(uint64_t *x, size_t n, int non_canonical) {
    for (size_t i = 0; i < n; i++)
        x[i] = non_canonical && i % 5 == 2 ? GS_FP_P + gs_test_u64() % GS_FP_EPSILON : gs_test_fp();
}

/* ---- permutations ---- */

static const gs_fp W12_RANGE[12] = { /* HorizenLabs' kats, as tests/test_poseidon2.c */
    0x01eaef96bdf1c0c1ull, 0x1f0d2cc525b2540cull, 0x6282c1dfe1e0358dull, 0xe780d721f698e1e6ull,
    0x280c0b6f753d833bull, 0x1b942dd5023156abull, 0x43f0df3fcccb8398ull, 0xe8e8190585489025ull,
    0x56bdbf72f77ada22ull, 0x7911c32bf9dcd705ull, 0xec467926508fbe67ull, 0x6a50450ddf85a6edull};
static const gs_fp W8_RANGE[8] = { /* Plonky3's test_poseidon2_width_8_range, as above */
    14266028122062624699ull, 5353147180106052723ull, 15203350112844181434ull,
    17630919042639565165ull, 16601551015858213987ull, 10184091939013874068ull,
    16774100645754596496ull, 12047415603622314780ull};

static void test_permute(void) {
    static const size_t COUNTS[] = {1, 2, 127, 128, 129, 5000};
    for (unsigned w = 8; w <= 12; w += 4) {
        for (size_t ci = 0; ci < sizeof COUNTS / sizeof COUNTS[0]; ci++) {
            size_t n = COUNTS[ci];
            gs_fp *h = malloc(n * w * 8), *want = malloc(n * w * 8);
            random_words(h, n * w, 0);
            for (unsigned i = 0; i < w; i++) h[i] = i; /* state 0: the published vector */
            memcpy(want, h, n * w * 8);
            for (size_t k = 0; k < n; k++) {
                if (w == 8) gs_poseidon2_permute_w8(want + 8 * k);
                else gs_poseidon2_permute_w12(want + 12 * k);
            }
            CHECK(memcmp(want, w == 8 ? W8_RANGE : W12_RANGE, w * 8) == 0);
            uint64_t *d = to_device(h, n * w);
            CHECK(d != NULL);
            if (d) {
                CHECK_OK(gs_cuda_poseidon2_permute_many(d, w, n, NULL));
                CHECK_OK(gs_cuda_merkle_dev_copy(h, d, n * w * 8));
                CHECK(gs_test_same_values(w == 8 ? "permute w8" : "permute w12", want, h, n * w,
                                          n * w));
            }
            gs_cuda_merkle_dev_free(d);
            free(h);
            free(want);
        }
    }
}

/* ---- rows ---- */

static size_t g_rows_checked;

/* n rows of len elements; row-major (rows len + pad apart) or column-major (columns n + pad
 * apart). */
static void check_rows(size_t n, size_t len, int col_major, size_t pad) {
    size_t rs = col_major ? 1 : len + pad, cs = col_major ? n + pad : 1;
    size_t words = len ? (n - 1) * rs + (len - 1) * cs + 1 : 1;
    uint64_t *h = malloc(words * 8);
    gs_poseidon2_digest *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    random_words(h, words, 1);
    gs_poseidon2_hash_rows(want, h, n, len, rs, cs);
    uint64_t *d = to_device(h, words);
    void *d_out = NULL;
    CHECK_OK(gs_cuda_merkle_dev_alloc(&d_out, n * sizeof *got));
    if (d && d_out) {
        CHECK_OK(gs_cuda_poseidon2_hash_rows(d_out, d, n, len, rs, cs, NULL));
        CHECK_OK(gs_cuda_merkle_dev_copy(got, d_out, n * sizeof *got));
        char what[96];
        snprintf(what, sizeof what, "rows %zu x %zu %s", n, len,
                 col_major ? "col-major" : "row-major");
        CHECK(gs_test_same_values(what, want[0].v, got[0].v, 4 * n, 4));
        g_rows_checked += n;
    }
    gs_cuda_merkle_dev_free(d);
    gs_cuda_merkle_dev_free(d_out);
    free(h);
    free(want);
    free(got);
}

static void test_rows(void) {
    static const size_t ROWS[] = {1, 3, 31, 128, 129, 1000};
    static const size_t LENS[] = {0, 1, 7, 8, 9, 17, 64, 100};
    for (size_t ri = 0; ri < sizeof ROWS / sizeof ROWS[0]; ri++)
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (int cm = 0; cm < 2; cm++) check_rows(ROWS[ri], LENS[li], cm, 3);
    check_rows((size_t)1 << 18, 8, 0, 0);
    check_rows((size_t)1 << 16, 64, 1, 0);
    printf("  hash_rows: %zu rows equal to the CPU's\n", g_rows_checked);
}

/* ---- compressions ---- */

static void test_compress(void) {
    static const size_t COUNTS[] = {1, 2, 129, 1 << 16};
    for (size_t ci = 0; ci < sizeof COUNTS / sizeof COUNTS[0]; ci++) {
        size_t n = COUNTS[ci];
        gs_poseidon2_digest *in = malloc(2 * n * sizeof *in), *want = malloc(n * sizeof *want);
        gs_poseidon2_digest *got = malloc(n * sizeof *got);
        random_words(in[0].v, 8 * n, 0);
        gs_poseidon2_compress_many(want, in, n);
        uint64_t *d = to_device(in, 8 * n);
        void *d_out = NULL;
        CHECK_OK(gs_cuda_merkle_dev_alloc(&d_out, n * sizeof *got));
        if (d && d_out) {
            CHECK_OK(
                gs_cuda_poseidon2_compress_many(d_out, (const gs_poseidon2_digest *)d, n, NULL));
            CHECK_OK(gs_cuda_merkle_dev_copy(got, d_out, n * sizeof *got));
            CHECK(gs_test_same_values("compress", want[0].v, got[0].v, 4 * n, 4));
        }
        gs_cuda_merkle_dev_free(d);
        gs_cuda_merkle_dev_free(d_out);
        free(in);
        free(want);
        free(got);
    }
}

/* ---- argument errors ---- */

static void test_errors(void) {
    void *d = NULL;
    CHECK_OK(gs_cuda_merkle_dev_alloc(&d, 4096));
    if (!d) return;
    uint64_t host[16] = {0};
    gs_poseidon2_digest *dd = d;
    CHECK(gs_cuda_poseidon2_hash_rows(NULL, d, 1, 1, 1, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_hash_rows(dd, NULL, 1, 1, 1, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_hash_rows(dd, (const uint64_t *)((char *)d + 4), 1, 1, 1, 1, NULL) ==
          GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_hash_rows(dd, host, 1, 1, 1, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_hash_rows(dd, d, 2, 2, SIZE_MAX / 4, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_hash_rows(dd, NULL, 4, 0, 0, 0, NULL) == GS_OK); /* empty rows */
    CHECK(gs_cuda_poseidon2_hash_rows(NULL, NULL, 0, 5, 5, 1, NULL) == GS_OK);
    CHECK(gs_cuda_poseidon2_compress_many(dd, NULL, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_compress_many(NULL, dd, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_compress_many(NULL, NULL, 0, NULL) == GS_OK);
    CHECK(gs_cuda_poseidon2_permute_many(d, 16, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_permute_many(NULL, 8, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_poseidon2_permute_many(host, 12, 1, NULL) == GS_ERR_INVALID_ARG);
    /* empty rows hash like gs_poseidon2_hash of nothing */
    gs_poseidon2_digest got[4], want;
    CHECK_OK(gs_cuda_merkle_dev_copy(got, d, sizeof got));
    gs_poseidon2_hash(&want, NULL, 0);
    for (int i = 0; i < 4; i++) CHECK(memcmp(&got[i], &want, sizeof want) == 0);
    gs_cuda_merkle_dev_free(d);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    if (gs_cuda_device_count() == 0) {
        printf("skipped: no CUDA device (%s)\n",
               gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return GS_TEST_SKIP;
    }
    long live0 = gs_cuda_live_allocations();
    test_permute();
    test_rows();
    test_compress();
    test_errors();
    CHECK_EQ_U64(gs_cuda_live_allocations(), live0);
    return gs_test_done();
}
