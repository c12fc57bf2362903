/* The device object's timing arithmetic (src/backend/device.c):
 *  - gs_device_busy_union on fixed intervals: disjoint, overlapping, nested,
 *    touching, empty and reversed ones, clipping at either end and at both,
 *    order independence (shuffled input), and against a brute-force count
 *    on a fine grid for random integer intervals;
 *  - the timeline window API where no CUDA device exists (a CPU-only build,
 *    or a machine without a GPU): begin and end report GS_ERR_NO_DEVICE
 *    (never crash), end zeroes its outputs, and a CPU device object's busy
 *    time stays 0 through gs_device_busy_add.
 * With a device, the window over real proofs is tests/test_cuda_window.c. */
#include <math.h>

#include "backend/device.h"
#include "gstark/cuda.h"
#include "test_util.h"

#define EPS 1e-12

static double u(const double *iv, size_t n, double lo, double hi) {
    double tmp[64];
    memcpy(tmp, iv, 2 * n * sizeof *iv);
    return gs_device_busy_union(tmp, n, lo, hi);
}

static int near(double a, double b) { return fabs(a - b) < EPS; }

static void test_union_fixed(void) {
    const double inf = HUGE_VAL;
    /* nothing */
    CHECK(gs_device_busy_union(NULL, 0, 0, 10) == 0);
    double one[2] = {1, 4};
    CHECK(near(u(one, 1, -inf, inf), 3));
    /* disjoint: the sum */
    double disjoint[] = {0, 1, 2, 3, 5, 9};
    CHECK(near(u(disjoint, 3, -inf, inf), 6));
    /* overlapping: counted once */
    double overlap[] = {0, 4, 2, 6, 5, 7};
    CHECK(near(u(overlap, 3, -inf, inf), 7));
    /* nested: the outer one */
    double nested[] = {0, 10, 2, 3, 4, 9, 1, 10};
    CHECK(near(u(nested, 4, -inf, inf), 10));
    /* touching intervals merge without a gap or a double count */
    double touch[] = {0, 1, 1, 2, 2, 3};
    CHECK(near(u(touch, 3, -inf, inf), 3));
    /* empty and reversed intervals count nothing */
    double degenerate[] = {5, 5, 7, 6, 1, 2};
    CHECK(near(u(degenerate, 3, -inf, inf), 1));
    /* order does not matter: unsorted input */
    double shuffled[] = {5, 9, 0, 1, 2, 3};
    CHECK(near(u(shuffled, 3, -inf, inf), 6));
    /* clipping: below lo (negative: work from before a window opened),
     * above hi (after it closed), both ends, and entirely outside */
    double clip[] = {-5, 2, 3, 4, 8, 20};
    CHECK(near(u(clip, 3, 0, 10), 2 + 1 + 2));
    CHECK(near(u(clip, 3, 0, inf), 2 + 1 + 12));
    CHECK(near(u(clip, 3, -inf, 10), 7 + 1 + 2));
    double around[] = {-1, 100};
    CHECK(near(u(around, 1, 0, 10), 10));
    double outside[] = {-3, -1, 11, 12};
    CHECK(near(u(outside, 2, 0, 10), 0));
    /* a clipped start that lands inside an earlier interval still merges */
    double clipmerge[] = {-4, 3, -2, 5};
    CHECK(near(u(clipmerge, 2, 0, 10), 5));
    /* an empty or reversed window counts nothing */
    CHECK(u(overlap, 3, 4, 4) == 0);
    CHECK(u(overlap, 3, 5, 1) == 0);
    /* the busy time never exceeds the window */
    double dense[] = {0, 3, 1, 9, 2, 12, 11, 15};
    CHECK(u(dense, 4, 0, 10) <= 10 + EPS);
    CHECK(near(u(dense, 4, 0, 10), 10));
}

/* Random integer intervals against counting unit cells of [lo, hi). */
static void test_union_random(void) {
    for (int round = 0; round < 500; round++) {
        size_t n = 1 + (size_t)gs_test_below(30);
        double iv[64];
        int cell[64] = {0};
        int lo = (int)gs_test_below(20) - 5, hi = lo + (int)gs_test_below(40);
        for (size_t i = 0; i < n; i++) {
            int a = (int)gs_test_below(50) - 10, b = a + (int)gs_test_below(15) - 2;
            iv[2 * i] = a, iv[2 * i + 1] = b;
            for (int c = a; c < b; c++)
                if (c >= lo && c < hi && c + 10 < 64) cell[c + 10] = 1;
        }
        int want = 0;
        for (int c = 0; c < 64; c++) want += cell[c];
        double got = gs_device_busy_union(iv, n, lo, hi);
        CHECK(near(got, want));
        if (!near(got, want)) {
            fprintf(stderr, "round %d: union %g, cells %d\n", round, got, want);
            break;
        }
    }
}

static void test_window_without_device(void) {
    if (gs_cuda_device_count() > 0) {
        printf("a CUDA device is present: the no-device checks are skipped\n");
        return;
    }
    double busy = 7, span = 7;
    CHECK(gs_device_window_begin(0) == GS_ERR_NO_DEVICE);
    CHECK(gs_device_window_begin(-1) == GS_ERR_NO_DEVICE);
    CHECK(gs_device_window_end(0, &busy, &span) == GS_ERR_NO_DEVICE);
    CHECK(busy == 0 && span == 0);
    busy = span = 7;
    CHECK(gs_device_window_end(3, &busy, &span) == GS_ERR_NO_DEVICE);
    CHECK(busy == 0 && span == 0);
    CHECK(gs_device_window_end(0, NULL, NULL) == GS_ERR_NO_DEVICE);
    /* A CPU object: no busy log, nothing reaches a window. */
    gs_device *d = NULL;
    CHECK(gs_device_open(&d, GS_DEVICE_CPU, 0, 1, 0, 1) == GS_OK);
    if (d) {
        gs_device_begin(d);
        gs_device_busy_add(d, NULL, 0);
        CHECK(gs_device_busy_seconds(d) == 0);
    }
    gs_device_close(d);
    CHECK(gs_device_open(&d, GS_DEVICE_CUDA, 0, 1, 0, 1) == GS_ERR_NO_DEVICE);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_union_fixed();
    test_union_random();
    test_window_without_device();
    return gs_test_done();
}
