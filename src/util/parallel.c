/* gs_parallel_for: threads are started per call and inherit the caller's own
 * thread count (gs_threads_set_local), so a prover context's count holds in
 * any loop they run. The work split is static (equal ranges), which is all
 * the bulk kernels need: their per-index work is uniform. Spawning costs tens
 * of microseconds, so callers pick a grain that keeps small problems on one
 * thread. */
#include "gstark/parallel.h"
#include "util/parallel_share.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define GS_MAX_THREADS 256u

static atomic_uint g_threads; /* 0: default */
static _Thread_local unsigned t_threads;
static _Thread_local const atomic_uint *t_share; /* util/parallel_share.h */

static unsigned default_threads(void) {
    const char *env = getenv("GS_THREADS");
    if (env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (*end == '\0' && v > 0) return v > GS_MAX_THREADS ? GS_MAX_THREADS : (unsigned)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) return 1;
    return n > (long)GS_MAX_THREADS ? GS_MAX_THREADS : (unsigned)n;
}

unsigned gs_threads_get(void) {
    unsigned s = t_share ? atomic_load(t_share) : 0;
    if (s) return s > GS_MAX_THREADS ? GS_MAX_THREADS : s;
    if (t_threads) return t_threads;
    unsigned g = atomic_load(&g_threads);
    return g ? g : default_threads();
}

void gs_threads_set(unsigned n) {
    atomic_store(&g_threads, n > GS_MAX_THREADS ? GS_MAX_THREADS : n);
}

void gs_threads_set_local(unsigned n) {
    t_threads = n > GS_MAX_THREADS ? GS_MAX_THREADS : n;
    t_share = NULL;
}

unsigned gs_threads_get_local(void) { return t_threads; }

void gs_threads_set_local_share(const atomic_uint *share) { t_share = share; }

const atomic_uint *gs_threads_get_local_share(void) { return t_share; }

typedef struct {
    gs_range_fn fn;
    void *ctx;
    size_t begin, end;
    unsigned local; /* the caller's own count: a started thread inherits it */
    const atomic_uint *share; /* and its shared count */
} range_job;

static void *run_job(void *arg) {
    range_job *j = arg;
    t_threads = j->local;
    t_share = j->share;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

void gs_parallel_for(size_t n, size_t grain, gs_range_fn fn, void *ctx) {
    if (n == 0) return;
    if (grain == 0) grain = 1;
    size_t parts = n / grain; /* every range gets at least `grain` indices */
    unsigned t = gs_threads_get();
    if (parts > t) parts = t;
    if (parts <= 1) { /* also covers n < grain */
        fn(ctx, 0, n);
        return;
    }
    range_job jobs[GS_MAX_THREADS];
    pthread_t tid[GS_MAX_THREADS];
    int started[GS_MAX_THREADS];
    size_t per = n / parts, extra = n % parts, at = 0;
    for (size_t i = 0; i < parts; i++) {
        size_t len = per + (i < extra);
        jobs[i] = (range_job){fn, ctx, at, at + len, t_threads, t_share};
        at += len;
    }
    for (size_t i = 1; i < parts; i++)
        started[i] = pthread_create(&tid[i], NULL, run_job, &jobs[i]) == 0;
    run_job(&jobs[0]);
    for (size_t i = 1; i < parts; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            run_job(&jobs[i]);
    }
}
