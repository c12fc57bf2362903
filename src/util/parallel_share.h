/* A thread count that changes while a worker runs (src/util/parallel.c):
 * the multi-table scheduler (src/prover/multi.c) gives its workers a shared
 * count and raises it as workers finish, so the cores of a worker that ran
 * out of tables go to the tables still being proven. */
#ifndef GSTARK_UTIL_PARALLEL_SHARE_H
#define GSTARK_UTIL_PARALLEL_SHARE_H

#include <stdatomic.h>

/* The calling thread's count is read from *share (when nonzero) at every
 * gs_parallel_for, and by the threads that loop starts; NULL removes it.
 * gs_threads_set_local also removes it. A loop under a share is cut into
 * chunks that its threads take in turn, and it starts more threads between
 * its caller's chunks when the share rises. */
void gs_threads_set_local_share(const atomic_uint *share);
/* How many tasks a loop that sizes its work by threads should cut it into:
 * gs_threads_get(), or under a share 4 per thread the loop could ever get,
 * so that threads joining it later find tasks left. */
unsigned gs_threads_tasks(void);
/* The calling thread's shared count source, or NULL. */
const atomic_uint *gs_threads_get_local_share(void);

#endif
