/* Resident prover contexts (gstark/prover.h, "resident provers";
 * docs/architecture.md, "Contexts and lanes"): what a proof runs on, made
 * once and reused. A context holds a device object (src/backend/device.c:
 * the CPU or one CUDA device, its accountant and budget, busy log, fallback
 * rule and lanes), the budget, thread count and table parallelism resolved
 * at creation, and the worker pool (src/sched/pool.c), started on its first
 * multi-table proof. gs_prove and gs_prove_multi are one-shot wrappers: a
 * context made from their options and freed around one proof.
 *
 * A proof on a context binds the calling thread to the device (lane 0) and
 * gives it the context's thread count for the proof's duration, then
 * restores both; the pool's workers bind lane w and take their share of the
 * count at the start of every phase. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/cuda.h"
#include "gstark/parallel.h"
#include "gstark/sched.h"
#include "prover/prover_internal.h"
#include "util/pages.h"

#define MAX_THREADS 256u /* as gs_threads_set */
#define MAX_TABLES_PARALLEL 256u

static gs_status open_device(gs_device **dev, const gs_prover_cfg *c) {
    int allow = !c->no_fallback;
    if (c->backend == GS_BACKEND_CPU) return gs_device_open(dev, GS_DEVICE_CPU, -1, 1, 0, allow);
    if (c->backend == GS_BACKEND_AUTO && gs_cuda_device_count() == 0)
        return gs_device_open(dev, GS_DEVICE_CPU, -1, 1, 0, allow);
    gs_status r = gs_device_open(dev, GS_DEVICE_CUDA, c->device, c->device_share,
                                 c->device_mem_budget, allow);
    /* AUTO: a device that cannot be used (its memory cannot be read, say)
     * leaves the CPU; an index out of range is still the caller's error. */
    if (r != GS_OK && c->backend == GS_BACKEND_AUTO && gs_status_is_device(r))
        r = gs_device_open(dev, GS_DEVICE_CPU, -1, 1, 0, allow);
    return r;
}

gs_status gs_prover_new(gs_prover **out, const gs_prover_cfg *cfg) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    gs_prover_cfg c = {0};
    if (cfg) c = *cfg;
    if (c.backend != GS_BACKEND_CPU && c.backend != GS_BACKEND_CUDA &&
        c.backend != GS_BACKEND_AUTO)
        return GS_ERR_INVALID_ARG;
    if (c.device < 0 || c.device_share > GS_DEVICE_MAX_SHARE || c.threads > MAX_THREADS ||
        c.tables_parallel > MAX_TABLES_PARALLEL)
        return GS_ERR_INVALID_ARG;
    gs_prover *pv = calloc(1, sizeof *pv);
    if (!pv) return GS_ERR_NOMEM;
    gs_status r = open_device(&pv->dev, &c);
    if (r != GS_OK) {
        free(pv);
        return r;
    }
    pv->mem_budget = c.mem_budget ? c.mem_budget : gs_device_default_mem_budget(pv->dev);
    pv->threads = c.threads ? c.threads : gs_threads_get();
    pv->tables_parallel = c.tables_parallel ? c.tables_parallel : gs_tables_parallel_default();
    gs_arena_pin pin = gs_device_kind_of(pv->dev) == GS_DEVICE_CUDA ? GS_ARENA_TRY_PINNED : GS_ARENA_PAGES;
    r = gs_host_arena_new(&pv->host, pin, 0);
    if (r != GS_OK) {
        gs_device_close(pv->dev);
        free(pv);
        return r;
    }
    atomic_init(&pv->busy, 0);
    *out = pv;
    return GS_OK;
}

void gs_prover_free(gs_prover *pv) {
    if (!pv) return;
    gs_pool_free(pv->pool); /* its threads are bound to the device: gone first */
    gs_host_arena_free(pv->host); /* pinned blocks: before the device goes */
    gs_device_close(pv->dev);
    free(pv);
    /* The page cache (util/pages.h) keeps freed buffers for the next proof
     * of a resident prover; with the prover gone they go back. */
    gs_pages_trim();
}

void gs_prover_get_info(gs_prover_info *out, const gs_prover *pv) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!pv) return;
    out->backend = gs_device_name(pv->dev);
    out->device = gs_device_index(pv->dev);
    out->mem_budget = pv->mem_budget;
    out->device_mem_budget = gs_device_budget(pv->dev);
    out->threads = pv->threads;
    out->tables_parallel = pv->tables_parallel;
    out->proofs = pv->proofs;
    gs_host_arena_stats(pv->host, &out->host_bytes, &out->host_pinned_bytes, NULL);
}

static gs_status host_alloc(gs_prover *pv, void **out, size_t bytes, int zero) {
    if (out) *out = NULL;
    if (!pv) return GS_ERR_INVALID_ARG;
    return gs_host_arena_alloc(pv->host, out, bytes, zero);
}

gs_status gs_prover_host_alloc(gs_prover *pv, void **out, size_t bytes) {
    return host_alloc(pv, out, bytes, 1);
}

gs_status gs_prover_host_alloc_dirty(gs_prover *pv, void **out, size_t bytes) {
    return host_alloc(pv, out, bytes, 0);
}

gs_status gs_prover_host_free(gs_prover *pv, void *p) {
    if (!p) return GS_OK;
    if (!pv) return GS_ERR_INVALID_ARG;
    return gs_host_arena_release(pv->host, p);
}

gs_status gs_prover_run_begin(run_backend *rb, gs_prover *pv, const gs_prove_opts *opts) {
    if (atomic_exchange(&pv->busy, 1)) return GS_ERR_INVALID_ARG; /* an overlapping call */
    rb->pv = pv;
    rb->dev = pv->dev;
    rb->cuda = gs_device_kind_of(pv->dev) == GS_DEVICE_CUDA;
    rb->check_on_commit = rb->cuda && !opts->skip_check;
    /* Pages a resident prover kept from a larger proof hold at most this
     * proof's budget (util/pages.h); device proofs keep host pages small. */
    if (!rb->cuda) gs_pages_cap(pv->mem_budget);
    rb->caller_threads = gs_threads_get_local();
    gs_threads_set_local(pv->threads);
    /* A thread left unbound (cudaSetDevice failed) makes every device
     * operation of the proof fail: its tables fall back to the CPU, or the
     * proof fails (the fallback rule). */
    (void)gs_device_bind(pv->dev, 0);
    /* The reference event is recorded and waited for inside. It completes
     * when the device reaches it: at once on an idle device, after whatever
     * is still queued otherwise (a one-shot proof's set-up uploads), so
     * its device time is the host's reading just after the wait, less the
     * wait's wake-up latency (microseconds); not the midpoint, which would
     * put every operation early by half of any queued work. */
    rb->obs = opts->obs;
    gs_device_begin(pv->dev);
    rb->ref_ns = gs_obs_elapsed_ns(rb->obs);
    return GS_OK;
}

/* The device operations of the proof onto the obs's time base (timing only:
 * an error loses them). */
static void give_device_ops(const run_backend *rb) {
    gs_device_op *ops = NULL;
    size_t n = 0;
    if (!rb->obs || gs_device_ops(rb->dev, &ops, &n) != GS_OK || !n) return;
    gs_obs_device_op *o = malloc(n * sizeof *o);
    for (size_t i = 0; o && i < n; i++) {
        double a = (double)rb->ref_ns + ops[i].start_ms * 1e6;
        double b = (double)rb->ref_ns + ops[i].end_ms * 1e6;
        o[i] = (gs_obs_device_op){.op = ops[i].op,
                                  .device = gs_device_index(rb->dev),
                                  .lane = (int32_t)ops[i].lane,
                                  .table = ops[i].table,
                                  .start_ns = a > 0 ? (uint64_t)a : 0,
                                  .end_ns = b > 0 ? (uint64_t)b : 0};
    }
    if (o) (void)gs_obs_add_device_ops(rb->obs, o, n);
    free(o);
    free(ops);
}

void gs_prover_run_end(run_backend *rb, gs_prove_stats *ps, gs_status r) {
    gs_prover *pv = rb->pv;
    ps->backend = gs_device_name(pv->dev);
    ps->device_peak_bytes = gs_device_peak(pv->dev);
    ps->spill_peak_bytes = gs_device_spill_peak(pv->dev);
    ps->device_busy = gs_device_busy_seconds(pv->dev);
    give_device_ops(rb);
    if (r == GS_OK) pv->proofs++;
    gs_device_unbind();
    gs_threads_set_local(rb->caller_threads);
    atomic_store(&pv->busy, 0);
}

/* ---- one-shot wrappers ---- */

static gs_prover_cfg cfg_from_opts(const gs_prove_opts *o) {
    return (gs_prover_cfg){
        .backend = o->backend,
        .device = 0,
        .device_share = 1,
        .device_mem_budget = o->device_mem_budget,
        .mem_budget = o->mem_budget,
        .threads = 0, /* the caller's count */
        .tables_parallel = o->tables_parallel > MAX_TABLES_PARALLEL ? MAX_TABLES_PARALLEL
                                                                    : o->tables_parallel,
        .no_fallback = o->no_fallback,
    };
}

/* The context's creation counts in the proof's check phase and total. */
static void add_setup_time(const gs_prove_opts *o, double seconds, gs_status r) {
    if (!o->stats) return;
    o->stats->check += seconds;
    if (r == GS_OK) o->stats->total += seconds;
}

/* gs_prove's checks before it makes a context: *out NULL, the arguments,
 * the parameters; the stats zeroed. */
static gs_status single_args_check(gs_proof **out, const gs_air *air, const gs_params *params,
                                   const gs_prove_opts *opts) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!air) return GS_ERR_INVALID_ARG;
    if (gs_air_num_interactions(air)) return GS_ERR_UNSUPPORTED;
    GS_TRY(gs_prover_check_params(params, opts));
    if (opts->stats) memset(opts->stats, 0, sizeof *opts->stats);
    return GS_OK;
}

gs_status gs_prove(gs_proof **out, const gs_air *air, const gs_fp *trace, unsigned log_n,
                   const gs_fp *pub, const gs_params *params, const gs_prove_opts *opts) {
    double start = gs_prover_now();
    if (!opts) opts = &gs_prover_default_opts;
    /* The argument checks come before the context, as they always did. */
    GS_TRY(single_args_check(out, air, params, opts));
    gs_prover_cfg cfg = cfg_from_opts(opts);
    gs_prover *pv = NULL;
    /* A one-shot proof makes its context (on CUDA: the device context, pools
     * and twiddles): a span of its own, so a timeline shows where it went. */
    int64_t sp = gs_obs_begin(opts->obs, "setup", -1, 0, 0);
    gs_status made_ok = gs_prover_new(&pv, &cfg);
    gs_obs_end(opts->obs, sp, 0);
    GS_TRY(made_ok);
    double made = gs_prover_now() - start;
    gs_status r = gs_prover_prove(pv, out, air, trace, log_n, pub, params, opts);
    gs_prover_free(pv);
    add_setup_time(opts, made, r);
    return r;
}

/* gs_prove_multi's checks before it makes a context: *out NULL, the
 * arguments, the parameters; the stats zeroed. */
static gs_status multi_args_check(gs_multi_proof **out, const gs_table_input *tables, uint32_t n,
                                           const gs_params *params, const gs_prove_opts *opts) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!tables || n == 0 || n > GS_MAX_TABLES || !params) return GS_ERR_INVALID_ARG;
    gs_params eff = gs_prover_effective_params(params);
    GS_TRY(gs_prover_check_params(&eff, opts));
    if (opts->stats) memset(opts->stats, 0, sizeof *opts->stats);
    return GS_OK;
}

/* ---- a one-shot context made ahead (gstark/prover.h) ---- */

struct gs_prover_ahead {
    pthread_t thread;
    gs_prover_cfg cfg;
    gs_prover *pv;
    gs_status made;
    gs_obs *obs;
};

static void *make_ahead(void *arg) {
    gs_prover_ahead *a = arg;
    int64_t sp = gs_obs_begin(a->obs, "setup ahead", -1, 0, 0);
    a->made = gs_prover_new(&a->pv, &a->cfg);
    gs_obs_end(a->obs, sp, 0);
    return NULL;
}

gs_prover_ahead *gs_prover_ahead_start(const gs_prove_opts *opts) {
    if (!opts) opts = &gs_prover_default_opts;
    if (opts->backend == GS_BACKEND_CPU) return NULL; /* a CPU context costs nothing to make */
    gs_prover_ahead *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->cfg = cfg_from_opts(opts);
    a->obs = opts->obs;
    if (pthread_create(&a->thread, NULL, make_ahead, a) != 0) {
        free(a);
        return NULL;
    }
    return a;
}

/* Waits for the context; returns what making it returned (pv set on GS_OK). */
static gs_status ahead_join(gs_prover_ahead *a, gs_prover **pv) {
    pthread_join(a->thread, NULL);
    gs_status r = a->made;
    *pv = a->pv;
    free(a);
    return r;
}

/* Waits for a's context under a "setup" span (a one-shot proof's set-up,
 * what is left of it); *waited the seconds it took. */
static gs_status ahead_wait(gs_prover_ahead *a, gs_prover **pv, const gs_prove_opts *opts,
                            double *waited) {
    double start = gs_prover_now();
    int64_t sp = gs_obs_begin(opts->obs, "setup", -1, 0, 0);
    gs_status made = ahead_join(a, pv);
    gs_obs_end(opts->obs, sp, 0);
    *waited = gs_prover_now() - start;
    return made;
}

void gs_prover_ahead_free(gs_prover_ahead *a) {
    if (!a) return;
    gs_prover *pv = NULL;
    if (ahead_join(a, &pv) == GS_OK) gs_prover_free(pv);
}

gs_status gs_prove_multi_ahead(gs_prover_ahead *a, gs_multi_proof **out, const gs_table_input *tables,
                               uint32_t n, const gs_params *params, const gs_prove_opts *opts) {
    if (!a) return gs_prove_multi(out, tables, n, params, opts);
    if (!opts) opts = &gs_prover_default_opts;
    gs_prover *pv = NULL;
    double waited;
    gs_status made = ahead_wait(a, &pv, opts, &waited);
    if (made != GS_OK) { /* as gs_prove_multi: the arguments first, then the context's error */
        gs_status r = multi_args_check(out, tables, n, params, opts);
        return r != GS_OK ? r : made;
    }
    gs_status r = gs_prover_prove_multi(pv, out, tables, n, params, opts);
    gs_prover_free(pv);
    add_setup_time(opts, waited, r);
    return r;
}

gs_status gs_prove_ahead(gs_prover_ahead *a, gs_proof **out, const gs_air *air, const gs_fp *trace,
                         unsigned log_n, const gs_fp *pub, const gs_params *params,
                         const gs_prove_opts *opts) {
    if (!a) return gs_prove(out, air, trace, log_n, pub, params, opts);
    if (!opts) opts = &gs_prover_default_opts;
    gs_prover *pv = NULL;
    double waited;
    gs_status made = ahead_wait(a, &pv, opts, &waited);
    if (made != GS_OK) { /* as gs_prove: the arguments first, then the context's error */
        gs_status r = single_args_check(out, air, params, opts);
        return r != GS_OK ? r : made;
    }
    gs_status r = gs_prover_prove(pv, out, air, trace, log_n, pub, params, opts);
    gs_prover_free(pv);
    add_setup_time(opts, waited, r);
    return r;
}

gs_status gs_prove_multi(gs_multi_proof **out, const gs_table_input *tables, uint32_t n,
                         const gs_params *params, const gs_prove_opts *opts) {
    double start = gs_prover_now();
    if (!opts) opts = &gs_prover_default_opts;
    GS_TRY(multi_args_check(out, tables, n, params, opts));
    gs_prover_cfg cfg = cfg_from_opts(opts);
    gs_prover *pv = NULL;
    /* A one-shot proof makes its context (on CUDA: the device context, pools
     * and twiddles): a span of its own, so a timeline shows where it went. */
    int64_t sp = gs_obs_begin(opts->obs, "setup", -1, 0, 0);
    gs_status made_ok = gs_prover_new(&pv, &cfg);
    gs_obs_end(opts->obs, sp, 0);
    GS_TRY(made_ok);
    double made = gs_prover_now() - start;
    gs_status r = gs_prover_prove_multi(pv, out, tables, n, params, opts);
    gs_prover_free(pv);
    add_setup_time(opts, made, r);
    return r;
}
