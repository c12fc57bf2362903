/* A worker pool for work proven at once (the tables of a multi-table proof):
 * threads started the first time a run needs them and kept for later runs,
 * so a resident prover context (src/prover/context.c) starts its threads
 * once, not per proof.
 *
 * A run calls fn(ctx, w) for every worker w < k at once: w = 0 on the
 * calling thread, 1 .. k - 1 on the pool's threads, and returns when every
 * call has returned (which orders everything the workers did before what the
 * caller does next). Workers share their work through ctx (an atomic counter
 * over a task list): a thread that could not be started leaves its w out,
 * which the work split must tolerate. A pool thread keeps its thread-local
 * state between runs (the thread count, a device binding): fn sets what it
 * needs at the start of each run. One run at a time (calls on a pool must
 * not overlap). */
#ifndef GSTARK_SCHED_POOL_H
#define GSTARK_SCHED_POOL_H

#include "gstark/status.h"

#define GS_POOL_MAX_WORKERS 256u /* the caller included */

typedef struct gs_pool gs_pool;
typedef void (*gs_pool_fn)(void *ctx, unsigned worker);

/* An empty pool (no thread yet). GS_ERR_INVALID_ARG if out is NULL,
 * GS_ERR_NOMEM. */
gs_status gs_pool_new(gs_pool **out);
/* Stops and joins every thread (none may be inside a run). NULL: no-op. */
void gs_pool_free(gs_pool *p);

/* Runs fn(ctx, w) for w < k (k capped at GS_POOL_MAX_WORKERS; 0 runs
 * nothing), starting the threads this run needs first. Returns the number
 * of workers that ran (k, or fewer when a thread could not be started). */
unsigned gs_pool_run(gs_pool *p, unsigned k, gs_pool_fn fn, void *ctx);

/* Threads started so far (the caller not counted). */
unsigned gs_pool_threads(const gs_pool *p);

#endif
