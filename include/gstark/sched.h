/* Scheduling primitives: the memory gate that admits work against a byte
 * budget (docs/architecture.md, "Memory, the gate and the scheduler").
 *
 * The gate is a FIFO ticket queue in front of a byte counter. Each blocking
 * request takes a ticket; only the oldest waiting ticket (the head) may be
 * admitted, and only when its bytes fit: in_use + bytes <= budget, or nothing
 * at all is admitted (in_use == 0: a request larger than the budget then runs
 * alone rather than deadlocking). While the head waits, later requests wait
 * behind it even if they would fit, so the head's bytes are in effect
 * reserved: a large request cannot be starved by a stream of small ones (the
 * flaw of the reference gate, which let any fitting request through). The
 * price is head-of-line blocking: a small request behind a large one waits
 * for it. The gate is for coarse work (one table, one claim), not for
 * fine-grained allocation. */
#ifndef GSTARK_SCHED_H
#define GSTARK_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_GATE_UNLIMITED SIZE_MAX

typedef struct gs_gate gs_gate;

/* A gate with a budget in bytes. GS_GATE_UNLIMITED: never blocks (in_use and
 * peak are still counted, saturating at SIZE_MAX). A budget of 0 admits one
 * nonzero request at a time. GS_ERR_INVALID_ARG if out is NULL, GS_ERR_NOMEM
 * if the gate cannot be allocated or its lock initialised. */
gs_status gs_gate_new(gs_gate **out, size_t budget);
/* NULL is a no-op. No thread may be inside gs_gate_acquire, and none may
 * call the gate again; bytes still admitted are simply forgotten. */
void gs_gate_free(gs_gate *g);

/* Admit `bytes`, blocking until they fit. Requests are served in arrival
 * order: a waiting request at the head reserves the budget, so later
 * requests (even small ones that would fit) wait behind it and a large
 * request is never starved. A request larger than the whole budget is
 * admitted when nothing else is admitted. Admitted bytes never exceed the
 * budget otherwise. A zero-byte request still waits its turn.
 * A thread that already holds bytes and acquires again can deadlock (its
 * second request may wait behind a head that needs the first one's bytes):
 * acquire once per unit of work, for its whole estimate. */
void gs_gate_acquire(gs_gate *g, size_t bytes);
/* Give back bytes admitted earlier; wakes waiters. Releasing more than is
 * admitted is a caller bug: in_use is clamped to 0 and the gate keeps
 * working (no abort). On an unlimited gate whose count saturated, in_use may
 * read low while saturated; it is back to 0 once everything is released. */
void gs_gate_release(gs_gate *g, size_t bytes);

/* Counters, read under the gate's lock: a snapshot that may be stale as soon
 * as it returns. NULL gives 0. */
size_t gs_gate_budget(const gs_gate *g);
size_t gs_gate_in_use(gs_gate *g);  /* admitted now */
size_t gs_gate_peak(gs_gate *g);    /* most admitted at once */
size_t gs_gate_waiting(gs_gate *g); /* requests blocked now */

/* gs_size_parse (gstark/size.h: "512M", "2GiB", "1500MB", "unlimited", ...)
 * for a size_t: the same accepted forms, "unlimited" -> GS_GATE_UNLIMITED;
 * GS_ERR_INVALID_ARG for what gs_size_parse refuses and for values that do
 * not fit a size_t; *out is left unchanged then. Note that the number
 * SIZE_MAX itself also reads as unlimited. */
gs_status gs_parse_size(size_t *out, const char *s);

#ifdef __cplusplus
}
#endif
#endif
