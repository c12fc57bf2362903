/* Host threading: one knob (the thread count) and one primitive (a parallel
 * loop over an index range). Every multi-threaded routine in gstark splits
 * work so that its output does not depend on the thread count. */
#ifndef GSTARK_PARALLEL_H
#define GSTARK_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads used by gs_parallel_for on the calling thread. The default is the
 * GS_THREADS environment variable if set to a positive number, else the
 * number of online CPUs. */
unsigned gs_threads_get(void);
/* Set the process-wide thread count; 0 restores the default. */
void gs_threads_set(unsigned n);
/* Override the count for the calling thread only (0 removes the override):
 * lets a worker that runs beside others use its share of the cores. */
void gs_threads_set_local(unsigned n);
/* The calling thread's own count (0: none, the process-wide count applies).
 * Threads gs_parallel_for starts inherit it. */
unsigned gs_threads_get_local(void);

typedef void (*gs_range_fn)(void *ctx, size_t begin, size_t end);

/* Call fn(ctx, b, e) over disjoint ranges covering [0, n). Every range holds
 * at least `grain` indices (n < grain: one range); at most gs_threads_get() run at
 * once; the caller runs one of them. Returns when all are done. If a thread
 * cannot be started, its range runs on the caller: never an error. */
void gs_parallel_for(size_t n, size_t grain, gs_range_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
