/* gs_parallel_for: threads are started per call and inherit the caller's own
 * thread count (gs_threads_set_local), so a prover context's count holds in
 * any loop they run. The work split is static (equal ranges), which is all
 * the bulk kernels need: their per-index work is uniform; under a shared
 * count (util/parallel_share.h) it is chunks taken in turn, so that threads
 * can join a loop already running. Spawning costs tens of microseconds, so
 * callers pick a grain that keeps small problems on one thread. */
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
} range_job;

static void *run_job(void *arg) {
    range_job *j = arg;
    t_threads = j->local;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

/* n indices cut into parts ranges, the first n % parts one longer: range c
 * is [range_lo(c), range_lo(c + 1)). */
static size_t range_lo(size_t c, size_t n, size_t parts) {
    size_t per = n / parts, extra = n % parts;
    return c * per + (c < extra ? c : extra);
}

/* A loop under a shared count: chunks taken in turn, more threads started
 * between the caller's chunks as the share rises. */
typedef struct {
    gs_range_fn fn;
    void *ctx;
    size_t n, nchunks; /* chunk c: range_lo(c) .. range_lo(c + 1) */
    atomic_size_t next;
    unsigned local;
    const atomic_uint *share;
} shared_loop;

/* Runs the next chunk; 0 when none was left. */
static int take_chunk(shared_loop *l) {
    size_t c = atomic_fetch_add(&l->next, 1);
    if (c >= l->nchunks) return 0;
    l->fn(l->ctx, range_lo(c, l->n, l->nchunks), range_lo(c + 1, l->n, l->nchunks));
    return 1;
}

static void *shared_helper(void *arg) {
    shared_loop *l = arg;
    t_threads = l->local;
    t_share = l->share;
    while (take_chunk(l)) {
    }
    return NULL;
}

#define TASKS_PER_THREAD 4u

/* Under a share: 4 tasks per thread the caller could ever have (the
 * process's count, its own, or the share now, whichever is largest). */
static unsigned shared_tasks(void) {
    unsigned g = atomic_load(&g_threads), most = g ? g : default_threads(), t = gs_threads_get();
    if (t_threads > most) most = t_threads;
    if (t > most) most = t;
    return most > GS_MAX_THREADS / TASKS_PER_THREAD ? GS_MAX_THREADS : TASKS_PER_THREAD * most;
}

unsigned gs_threads_tasks(void) { return t_share ? shared_tasks() : gs_threads_get(); }

/* Under a shared count (util/parallel_share.h) the count may rise while a
 * loop runs, when a multi-table worker runs out of tables: so the loop is
 * cut into up to shared_tasks() chunks (at least `grain` indices each), the
 * threads take them in turn, and between its own chunks the caller starts
 * as many more threads as the share now allows. Which thread runs which
 * range never changes a result (every gs_range_fn is written for any split:
 * proofs are the same for every thread count). */
static void parallel_for_shared(size_t n, size_t grain, gs_range_fn fn, void *ctx) {
    size_t nchunks = n / grain, cap = shared_tasks();
    if (nchunks > cap) nchunks = cap;
    if (nchunks <= 1) {
        fn(ctx, 0, n);
        return;
    }
    shared_loop l = {.fn = fn, .ctx = ctx, .n = n, .nchunks = nchunks, .local = t_threads, .share = t_share};
    atomic_init(&l.next, 0);
    pthread_t tid[GS_MAX_THREADS];
    unsigned started = 0; /* helpers running */
    for (;;) {
        unsigned want = gs_threads_get();
        size_t taken = atomic_load(&l.next), left = taken < l.nchunks ? l.nchunks - taken : 0;
        while (started + 1 < want && started + 1 < left && started + 1 < GS_MAX_THREADS &&
               pthread_create(&tid[started], NULL, shared_helper, &l) == 0)
            started++;
        if (!take_chunk(&l)) break;
    }
    for (unsigned i = 0; i < started; i++) pthread_join(tid[i], NULL);
}

void gs_parallel_for(size_t n, size_t grain, gs_range_fn fn, void *ctx) {
    if (n == 0) return;
    if (grain == 0) grain = 1;
    if (t_share) {
        parallel_for_shared(n, grain, fn, ctx);
        return;
    }
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
    for (size_t i = 0; i < parts; i++)
        jobs[i] = (range_job){fn, ctx, range_lo(i, n, parts), range_lo(i + 1, n, parts), t_threads};
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
