/* The timeline window over CUDA device 0 (src/backend/device.h,
 * gs_device_window_begin / _end), what the batch's device busy share is made
 * of: two resident prover contexts on device 0 (device_share 2) prove fib
 * statements from two threads at once inside one window. The window's busy
 * time is the union of both contexts' device work, so
 *     0 < busy <= span,  busy >= each proof's own busy time (its union),
 *     busy <= the two proofs' busy times summed,
 * and the span is no longer than the host's clock around the window. Then
 * the API's edges: a second window on an open device is refused, closing a
 * closed one is refused with zeroed outputs, an index past the devices is
 * refused, and an empty window (work done before it opened) is 0 busy.
 * Exits GS_TEST_SKIP (77) where no device exists.
 *
 * Tolerances: each proof's busy time is computed from its own reference
 * event and the window's from another; the differences are float rounding
 * of cudaEventElapsedTime (about a microsecond), far below 1 ms. */
#include <pthread.h>
#include <time.h>

#include "backend/device.h"
#include "fib_air.h"
#include "gstark/cuda.h"
#include "gstark/gstark.h"
#include "test_util.h"

#define TOL 1e-3 /* seconds */

typedef struct {
    gs_prover *pv;
    const gs_air *air;
    const gs_fp *trace, *pub;
    unsigned log_n, proofs;
    gs_status status;
    double busy_s; /* summed over its proofs (each one's own union) */
    double max_busy_s;
    int on_cuda, fallbacks;
} job;

static void *prove_thread(void *arg) {
    job *j = arg;
    gs_params par = gs_params_default(80);
    for (unsigned i = 0; i < j->proofs && j->status == GS_OK; i++) {
        gs_prove_stats st = {0};
        gs_prove_opts o = {.stats = &st};
        gs_proof *p = NULL;
        j->status = gs_prover_prove(j->pv, &p, j->air, j->trace, j->log_n, j->pub, &par, &o);
        gs_proof_free(p);
        j->busy_s += st.device_busy;
        if (st.device_busy > j->max_busy_s) j->max_busy_s = st.device_busy;
        j->on_cuda += st.backend && !strcmp(st.backend, "cuda");
        j->fallbacks += (int)st.cpu_fallbacks;
    }
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    if (gs_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return GS_TEST_SKIP;
    }
    const unsigned log_n = 14, proofs = 3;
    gs_air *air = fib_air();
    gs_fp pub[2][4] = {{1, 1}, {3, 5}};
    gs_fp *trace[2] = {fib_trace(log_n, pub[0]), fib_trace(log_n, pub[1])};
    CHECK(air && trace[0] && trace[1]);
    gs_prover *pv[2] = {NULL, NULL};
    gs_prover_cfg pc = {.backend = GS_BACKEND_CUDA, .device = 0, .device_share = 2};
    CHECK(gs_prover_new(&pv[0], &pc) == GS_OK);
    CHECK(gs_prover_new(&pv[1], &pc) == GS_OK);
    if (!air || !trace[0] || !trace[1] || !pv[0] || !pv[1]) goto out;

    /* A proof before the window: its work must not reach the window. */
    job warm = {.pv = pv[0], .air = air, .trace = trace[0], .pub = pub[0], .log_n = log_n,
                .proofs = 1};
    prove_thread(&warm);
    CHECK(warm.status == GS_OK);

    double busy = -1, span = -1;
    CHECK(gs_device_window_begin(0) == GS_OK);
    CHECK(gs_device_window_end(0, &busy, &span) == GS_OK);
    CHECK(busy == 0 && span >= 0);

    /* Two contexts at once inside one window. */
    double t0 = now_s();
    CHECK(gs_device_window_begin(0) == GS_OK);
    CHECK(gs_device_window_begin(0) == GS_ERR_UNSUPPORTED); /* one window per device */
    job jobs[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        jobs[i] = (job){.pv = pv[i], .air = air, .trace = trace[i], .pub = pub[i],
                        .log_n = log_n, .proofs = proofs};
        CHECK(pthread_create(&th[i], NULL, prove_thread, &jobs[i]) == 0);
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    busy = span = -1;
    gs_status s = gs_device_window_end(0, &busy, &span);
    double wall = now_s() - t0;
    CHECK(s == GS_OK);
    for (int i = 0; i < 2; i++) {
        CHECK(jobs[i].status == GS_OK);
        CHECK(jobs[i].on_cuda == (int)proofs && jobs[i].fallbacks == 0);
        CHECK(jobs[i].max_busy_s > 0);
    }
    double larger = jobs[0].busy_s > jobs[1].busy_s ? jobs[0].busy_s : jobs[1].busy_s;
    double sum = jobs[0].busy_s + jobs[1].busy_s;
    printf("window: busy %.6f s of span %.6f s (%.1f%%); per context %.6f s and %.6f s "
           "(sum %.6f s); host clock %.6f s\n", busy, span, span > 0 ? 100 * busy / span : 0.0,
           jobs[0].busy_s, jobs[1].busy_s, sum, wall);
    CHECK(busy > 0);
    CHECK(busy <= span);
    CHECK(busy + TOL >= larger);
    CHECK(busy <= sum + TOL);
    CHECK(span <= wall + TOL);

    /* The edges. */
    busy = span = 7;
    CHECK(gs_device_window_end(0, &busy, &span) == GS_ERR_INVALID_ARG); /* closed */
    CHECK(busy == 0 && span == 0);
    CHECK(gs_device_window_begin(gs_cuda_device_count()) == GS_ERR_INVALID_ARG);
    CHECK(gs_device_window_begin(-1) == GS_ERR_INVALID_ARG);
    CHECK(gs_device_window_end(0, NULL, NULL) == GS_ERR_INVALID_ARG);
out:
    gs_prover_free(pv[0]);
    gs_prover_free(pv[1]);
    free(trace[0]);
    free(trace[1]);
    gs_air_free(air);
    return gs_test_done();
}
