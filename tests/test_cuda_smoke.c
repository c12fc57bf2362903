/* The CUDA wiring: the trivial kernel's output equals the host field code.
 * Exits GS_TEST_SKIP (77) where no device exists; CTest reports a skip. */
#include "gstark/cuda.h"
#include "gstark/field.h"
#include "test_util.h"

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
    CHECK(gs_cuda_smoke_add(0, NULL, NULL, NULL, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_smoke_add(9999, (uint64_t[1]){0}, (uint64_t[1]){1}, (uint64_t[1]){2}, 1) != GS_OK);
    return gs_test_done();
}
