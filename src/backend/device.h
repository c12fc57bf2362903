/* The device object: what a resident prover context (src/prover/context.c)
 * proves on. One object per context: its kind (the CPU, or one CUDA device
 * and its index), the device accountant with the context's device budget,
 * the busy log, the fallback rule, and on CUDA the lanes: one (stream,
 * pinned staging pair) per table proven at once, created the first time a
 * lane is used and kept until the device object is closed. Several objects
 * may share one CUDA device (lanes per device), each with its share of the
 * device budget. docs/architecture.md, "Contexts and lanes".
 *
 * The two budget rules live here and nowhere else: a CUDA device's default
 * budget (gs_device_budget_rule) and the host's (gs_host_budget_rule).
 *
 * Thread binding: CUDA's current device is per thread, so every thread that
 * does device work for the object binds itself first (gs_device_bind):
 * cudaSetDevice(index) and the lane its operations use. The prover binds the
 * thread that calls it (lane 0) and each worker of the context's pool (lane
 * w); the CUDA backend refuses to work on a thread not bound to its device
 * (a device error, so the table falls back to the CPU, counted, or fails). */
#ifndef GSTARK_BACKEND_DEVICE_H
#define GSTARK_BACKEND_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/mem.h"
#include "gstark/status.h"

typedef enum gs_device_kind { GS_DEVICE_CPU = 0, GS_DEVICE_CUDA = 1 } gs_device_kind;

#define GS_DEVICE_MAX_LANES 256u /* tables proven at once on one object */
#define GS_DEVICE_MAX_SHARE 256u /* objects sharing one device */
/* Bytes per pinned staging buffer of a lane (two per lane, made at its first
 * use): transfers go through them chunk by chunk (src/cuda/device.h). */
#define GS_DEVICE_STAGE_CHUNK ((size_t)8 << 20)

typedef struct gs_device gs_device;
typedef struct gs_backend gs_backend;

/* memcpy split over the calling thread's share of the cores (in pieces of at
 * least 2 MiB): the lanes' stages copy pageable memory with it, since one
 * thread's memcpy into pinned memory, not the bus, bounds a staged upload. */
void gs_device_host_copy(void *dst, const void *src, size_t len);

/* ---- the budget rules ---- */
/* A CUDA device's default budget: 90% of its free memory, divided between
 * the `share` objects that use it (0 counts as 1). */
size_t gs_device_budget_rule(size_t free_bytes, unsigned share);
/* The host's default budget: 80% of the available memory. */
size_t gs_host_budget_rule(size_t available_bytes);
/* The host's available memory (MemAvailable, else the available physical
 * pages); 0 when it cannot be read. */
size_t gs_host_available_bytes(void);
/* gs_host_budget_rule of the memory available now; GS_GATE_UNLIMITED when it
 * cannot be read (gs_mem_budget_default). */
size_t gs_host_default_budget(void);

/* ---- the object ---- */
/* CPU: no device memory (the budget and the account stay 0 / NULL). CUDA:
 * device `index` (GS_ERR_NO_DEVICE without CUDA or any device,
 * GS_ERR_INVALID_ARG for an index out of range or a share above
 * GS_DEVICE_MAX_SHARE); its budget is `budget` when nonzero, else
 * gs_device_budget_rule(free memory now, share). The device is the calling
 * thread's current CUDA device on return (the thread is not bound: see
 * gs_device_bind). allow_fallback: whether a table whose
 * device work fails moves to the CPU. */
gs_status gs_device_open(gs_device **out, gs_device_kind kind, int index, unsigned share,
                         size_t budget, int allow_fallback);
/* Waits for the lanes' work, frees them (the calling thread is bound to the
 * device for it), the account and the busy log. NULL: no-op. */
void gs_device_close(gs_device *d);

gs_device_kind gs_device_kind_of(const gs_device *d);
const char *gs_device_name(const gs_device *d); /* "cpu" or "cuda" */
int gs_device_index(const gs_device *d);        /* -1 on the CPU */
size_t gs_device_budget(const gs_device *d);    /* device bytes; 0 on the CPU */
/* The budget the memory gate meters when the caller sets none: the device
 * budget on CUDA (when nonzero), else gs_host_default_budget(). */
size_t gs_device_default_mem_budget(const gs_device *d);

/* The fallback rule: whether a table whose device stage failed with r moves
 * to the CPU (allowed, and r is a device failure: gs_status_is_device). */
int gs_device_may_fall_back(const gs_device *d, gs_status r);
int gs_device_allows_fallback(const gs_device *d);

/* Binds the calling thread to d and its lane `lane` (< GS_DEVICE_MAX_LANES):
 * on CUDA, cudaSetDevice(index) when the thread's current device differs.
 * On an error the thread is left unbound. A CPU object only records it. */
gs_status gs_device_bind(gs_device *d, unsigned lane);
/* Forgets the calling thread's binding (its CUDA device stays current). */
void gs_device_unbind(void);

/* A proof starts: the account's peak and the busy log restart. The busy
 * log's reference event is recorded and waited for (the device is idle at a
 * proof's start, so it completes at once): the host clock read just before
 * and just after the call brackets its device time, which is what puts the
 * device operations on the host's time base (gs_device_ops). */
void gs_device_begin(gs_device *d);
size_t gs_device_peak(const gs_device *d);   /* most device bytes held since begin */
/* Most bytes of buffers held out of core at once since begin (0 on the CPU). */
size_t gs_device_spill_peak(const gs_device *d);
double gs_device_busy_seconds(gs_device *d); /* the device's busy time since begin */

/* One device operation of the busy log: its name (a static string of the
 * backend's: "upload", "lde", ...), the lane (stream) and table it ran for,
 * and its interval in ms after the reference event of gs_device_begin. */
typedef struct gs_device_op {
    const char *op;
    unsigned lane;
    int32_t table; /* -1: none */
    double start_ms, end_ms;
} gs_device_op;
/* The operations logged since gs_device_begin (those of backend objects
 * already released), in the order logged; free(*ops) after. None on the
 * CPU or when timing was lost. GS_ERR_NOMEM. */
gs_status gs_device_ops(gs_device *d, gs_device_op **ops, size_t *n);

/* A backend object for one table on d: the process-wide CPU backend, or a
 * CUDA backend object charging d's account within its budget and using the
 * lane of whichever bound thread runs it (released with iface->destroy).
 * table: the table's index, for the busy log's operations (-1: none). */
gs_status gs_device_backend_new(gs_backend **out, gs_device *d, int32_t table);

/* ---- for the CUDA backend (src/backend/cuda.c) ---- */
/* Out of core (docs/gpu.md, "Out of core"): a buffer the device budget
 * cannot hold lives in page-locked host memory that the device reads and
 * writes over the bus. The blocks are kept on the object between proofs
 * (a resident context pins them once), up to the host's default budget
 * divided between the objects sharing the device. GS_ERR_DEVICE_MEM when no
 * block can be had (the table then falls back as for any device failure). */
gs_status gs_device_spill_alloc(gs_device *d, void **p, size_t bytes);
/* Gives p (of `bytes`, from spill_alloc) back; the device must be done with
 * it. NULL: no-op. */
void gs_device_spill_free(gs_device *d, void *p, size_t bytes);
typedef struct gs_cuda_stage gs_cuda_stage;
/* The calling thread's lane on d: its stream and staging pair, created on
 * first use, and its index (lane may be NULL). GS_ERR_CUDA (with the error
 * text) when the thread is not bound to d or the lane cannot be created. */
gs_status gs_device_lane(gs_device *d, void **stream, gs_cuda_stage **stage, unsigned *lane);
gs_mem *gs_device_account(gs_device *d); /* NULL on the CPU */
/* One device operation between two timing marks (gs_cuda_mark) on a lane's
 * stream: op is a static name, table -1 for none. */
typedef struct gs_device_mark {
    void *start, *end;
    const char *op;
    unsigned lane;
    int32_t table;
} gs_device_mark;
/* Adds the device time of each of the n operations to the busy log (and to
 * the window open on d's CUDA device, if one is) and frees their marks. */
void gs_device_busy_add(gs_device *d, gs_device_mark *marks, size_t n);

/* ---- the device's timeline over many proofs (a window) ----
 * The busy log above is one object's, over one proof. Several objects may
 * share a CUDA device (lanes per device), each proving in turn: the device
 * busy share over a whole batch is the union of every object's intervals
 * over one span. A window is that span: while the window on device `index`
 * is open, gs_device_busy_add also adds the intervals of every object on
 * that index to it, timed against the window's own reference event (events
 * of one device compare across streams, threads and objects of the
 * process). Intervals before the window opened or after it closed are
 * clipped off; an object's intervals reach the window when its backend
 * object is released (the end of a table), so close the window after the
 * work it measures has finished. One window per device at a time.
 * Timing only: a failure loses the numbers, never any work. */
#define GS_DEVICE_MAX_WINDOWS 64u /* CUDA device indices a window can be opened on */

/* Opens the window on CUDA device `index`: makes it the calling thread's
 * current device (not a binding: gs_device_bind) and records the reference
 * event. GS_ERR_NO_DEVICE without CUDA or any device, GS_ERR_INVALID_ARG for
 * an index out of range, GS_ERR_UNSUPPORTED when a window is open on it
 * already, GS_ERR_CUDA (the text in gs_cuda_last_error) or GS_ERR_NOMEM when
 * the event cannot be made (no window is open then). */
gs_status gs_device_window_begin(int index);
/* Closes it: makes the device current on the calling thread, records an end
 * event and waits for it. *span_s = seconds from the reference to the end,
 * *busy_s = the union of the intervals added while open, clipped to
 * [0, span]: 0 <= busy <= span. The window is closed whatever the result.
 * GS_ERR_INVALID_ARG when no window is open on index (or NULL outputs),
 * GS_ERR_NO_DEVICE without CUDA, GS_ERR_CUDA or GS_ERR_NOMEM when the end
 * or any interval could not be timed (a share from part of the work would
 * be a made-up number): both outputs 0 on every error. */
gs_status gs_device_window_end(int index, double *busy_s, double *span_s);

/* The length of the union of n intervals [iv[2i], iv[2i + 1]] clipped to
 * [lo, hi] (lo <= hi; HUGE_VAL bounds clip nothing); intervals with end <=
 * start count nothing. Sorts the pairs in place by start. Pure: what the
 * busy log and the window both compute (units as given). */
double gs_device_busy_union(double *iv, size_t n, double lo, double hi);

#endif
