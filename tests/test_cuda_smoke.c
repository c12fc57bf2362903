/* The CUDA wiring: the trivial kernels' outputs equal the host field code
 * (the addition; the device's Fp3 product and its unreduced sums against
 * products reduced one by one, on random and edge values). Exits
 * GS_TEST_SKIP (77) where no device exists; CTest reports a skip. */
#include "gstark/cuda.h"
#include "gstark/field.h"
#include "test_util.h"

/* A value: random, or (one in four) an edge of the reductions. */
static gs_fp pick(void) {
    static const gs_fp edge[] = {0, 1, 2, GS_FP_P - 1, GS_FP_P - 2, 0xFFFFFFFFull, 0x100000000ull,
                                 GS_FP_P - 0x100000000ull, 0x8000000000000000ull, GS_FP_EPSILON + 1};
    uint64_t r = gs_test_fp();
    return (r & 3) ? gs_test_fp() : edge[(r >> 2) % (sizeof edge / sizeof edge[0])];
}

/* a b in Fp3 (w^3 = 2) with every product reduced: the reference. */
static gs_fp3 mul_ref(const gs_fp *a, const gs_fp *b) {
    gs_fp m[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m[i][j] = gs_fp_mul(a[i], b[j]);
    gs_fp c0 = gs_fp_add(m[0][0], gs_fp_mul(2, gs_fp_add(m[1][2], m[2][1])));
    gs_fp c1 = gs_fp_add(gs_fp_add(m[0][1], m[1][0]), gs_fp_mul(2, m[2][2]));
    gs_fp c2 = gs_fp_add(gs_fp_add(m[0][2], m[2][0]), m[1][1]);
    return gs_fp3_make(c0, c1, c2);
}

static void test_fp3(size_t n) {
    uint64_t *a = malloc(3 * n * 8), *b = malloc(3 * n * 8), *out = calloc(9 * n, 8);
    for (size_t i = 0; i < 3 * n; i++) a[i] = pick(), b[i] = pick();
    /* all-maximal rows: every product near 2^128, so the sums carry past it */
    for (size_t i = 0; i < 3 * n && i < 3 * 20; i++) a[i] = b[i] = GS_FP_P - 1;
    gs_status s = gs_cuda_smoke_fp3(0, out, a, b, n);
    if (s != GS_OK) fprintf(stderr, "gs_cuda_smoke_fp3: %s: %s\n", gs_status_str(s), gs_cuda_last_error());
    CHECK(s == GS_OK);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        gs_fp3 p = mul_ref(a + 3 * i, b + 3 * i), sum = gs_fp3_zero(), sum_fp = gs_fp3_zero();
        for (size_t k = 0; k < 16; k++) {
            size_t j = (i + k) % n;
            sum = gs_fp3_add(sum, mul_ref(a + 3 * j, b + 3 * j));
            gs_fp s1[3] = {b[3 * j], 0, 0};
            sum_fp = gs_fp3_add(sum_fp, mul_ref(a + 3 * j, s1));
        }
        for (int c = 0; c < 3; c++)
            bad += (out[3 * i + c] != p.c[c]) + (out[3 * n + 3 * i + c] != sum.c[c]) +
                   (out[6 * n + 3 * i + c] != sum_fp.c[c]);
    }
    if (bad) fprintf(stderr, "Fp3 on the device, n %zu: %zu words differ\n", n, bad);
    CHECK(bad == 0);
    free(a), free(b), free(out);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    if (gs_cuda_device_count() == 0) {
        printf("skipped: no CUDA device (%s)\n",
               gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return GS_TEST_SKIP;
    }
    static const size_t sizes[] = {1, 255, 256, 257, 100000, (size_t)1 << 22};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint64_t *a = malloc(n * 8), *b = malloc(n * 8), *out = malloc(n * 8);
        for (size_t i = 0; i < n; i++) a[i] = gs_test_fp(), b[i] = gs_test_fp(), out[i] = 0;
        gs_status s = gs_cuda_smoke_add(0, out, a, b, n);
        if (s != GS_OK) fprintf(stderr, "gs_cuda_smoke_add: %s: %s\n", gs_status_str(s), gs_cuda_last_error());
        CHECK(s == GS_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += out[i] != gs_fp_add(a[i], b[i]);
        CHECK(bad == 0);
        free(a), free(b), free(out);
    }
    test_fp3(1);
    test_fp3(1000);
    test_fp3((size_t)1 << 18);
    CHECK(gs_cuda_smoke_add(0, NULL, NULL, NULL, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_smoke_fp3(0, NULL, NULL, NULL, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_smoke_add(9999, (uint64_t[1]){0}, (uint64_t[1]){1}, (uint64_t[1]){2}, 1) != GS_OK);
    return gs_test_done();
}
