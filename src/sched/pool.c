/* The worker pool (src/sched/pool.h): one mutex, a condition variable for
 * new runs and one for their end, a generation counter. A run publishes
 * (fn, ctx, k) under a new generation and wakes every thread; thread w takes
 * part when w < k and counts itself out when its call returns; the caller
 * (worker 0) waits for the count to reach zero. Threads are numbered 1, 2,
 * ... in the order they start; a thread that cannot be started ends the
 * numbering there (later runs try again). */
#include "sched/pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    struct gs_pool *pool;
    unsigned w;
    uint64_t gen0; /* the generation when it started: it joins the next one */
} pool_thread;

struct gs_pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    uint64_t gen;     /* runs published so far */
    gs_pool_fn fn;    /* the current run */
    void *ctx;
    unsigned k;
    unsigned pending; /* pool threads of the current run still inside fn */
    int stop;
    unsigned n;       /* threads started: workers 1 .. n */
    pthread_t tid[GS_POOL_MAX_WORKERS];
    pool_thread arg[GS_POOL_MAX_WORKERS];
};

static void *pool_main(void *a) {
    pool_thread *t = a;
    gs_pool *p = t->pool;
    uint64_t seen = t->gen0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen) pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop) break;
        seen = p->gen;
        if (t->w >= p->k) continue;
        gs_pool_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, t->w);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

gs_status gs_pool_new(gs_pool **out) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    gs_pool *p = calloc(1, sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return GS_ERR_NOMEM;
    }
    if (pthread_cond_init(&p->work_cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return GS_ERR_NOMEM;
    }
    if (pthread_cond_init(&p->done_cv, NULL) != 0) {
        pthread_cond_destroy(&p->work_cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return GS_ERR_NOMEM;
    }
    *out = p;
    return GS_OK;
}

void gs_pool_free(gs_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 1; i <= p->n; i++) pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

unsigned gs_pool_run(gs_pool *p, unsigned k, gs_pool_fn fn, void *ctx) {
    if (!p || !fn || k == 0) return 0;
    if (k > GS_POOL_MAX_WORKERS) k = GS_POOL_MAX_WORKERS;
    pthread_mutex_lock(&p->mu);
    while (p->n + 1 < k) { /* start the threads this run needs, numbered on */
        unsigned w = p->n + 1;
        p->arg[w] = (pool_thread){p, w, p->gen};
        if (pthread_create(&p->tid[w], NULL, pool_main, &p->arg[w]) != 0) break;
        p->n = w;
    }
    unsigned helpers = p->n < k - 1 ? p->n : k - 1;
    p->fn = fn, p->ctx = ctx, p->k = k;
    p->pending = helpers;
    p->gen++;
    if (helpers) pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    fn(ctx, 0);
    pthread_mutex_lock(&p->mu);
    while (p->pending) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return helpers + 1;
}

unsigned gs_pool_threads(const gs_pool *p) {
    if (!p) return 0;
    pthread_mutex_lock((pthread_mutex_t *)&p->mu);
    unsigned n = p->n;
    pthread_mutex_unlock((pthread_mutex_t *)&p->mu);
    return n;
}
