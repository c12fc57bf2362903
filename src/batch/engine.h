/* The batch scheduling engine (internal; docs/batch.md, "Scheduling").
 *
 * A generic engine that knows units, lanes, devices and bytes, not proofs.
 * The batch pipeline (src/batch/run.c) describes every claim and join of a
 * batch as a unit with its byte reservations, and plugs the work in through
 * callbacks; the engine decides what runs where and when, and guarantees:
 *
 *  - no budget is ever exceeded: a unit's bytes are reserved before its
 *    callback runs and released after it returns, and the engine admits a
 *    reservation only when it fits the host budget and its lane's device
 *    budget (counted, with peaks, in its accounting);
 *  - no deadlock: when nothing runs and no waiting unit can be admitted
 *    because executed units hold the memory (every runnable unit waits on
 *    memory another waiter holds), the youngest such waiter is cancelled:
 *    its trace discarded through `discard`, its bytes released, and it is
 *    requeued to execute again;
 *  - no starvation: a unit that cannot be admitted has its bytes set aside,
 *    so units behind it in priority order are admitted only if they fit
 *    beside it (the memory gate's "reserve for the head", extended to every
 *    waiter and to several resources);
 *  - joins go ahead: a join whose children are done goes before executed
 *    claims, which go before new claims, which go in manifest (unit) order.
 *
 * Units. A claim has two stages: execute (stage 1: build its trace; reserves
 * exec_host on the host) and prove (stage 2: prove, verify, store; reserves
 * prove_host on the host and prove_dev on the device of the lane that runs
 * it). Both stay reserved until prove returns. With an optional third
 * stage, finish (verify and store the proof), run by finisher threads off
 * the lanes: when prove returns GS_OK its device bytes are released (the lane
 * proves its next claim at once) and its host bytes stay reserved until
 * finish returns; the claim's outcome comes after finish. With finishers,
 * stage 1 runs on them too (and a cancelled claim's discard), so a lane only
 * proves: the next claim's trace is built while the lane proves the one
 * before it. A join has one stage: when every child is done it reserves
 * exec_host + prove_host and
 * prove_dev and runs `join`; with finishers, a join that needs no device
 * bytes runs on a finisher, so joins never take a lane from claims. On a lane without a device (a CPU lane) prove_dev is charged
 * to the host. A unit that cannot fit on any lane even with nothing else
 * running is refused at gs_engine_new (GS_ERR_BUDGET): splitting it is the
 * pipeline's job, before.
 *
 * Lanes are threads the engine creates in gs_engine_run, each bound to one
 * device or to none. A lane never waits for memory: units wait in the
 * execution queue, and a lane is either running a callback or idle. A
 * claim's execute and prove may run on different lanes (the trace is host
 * memory; the prove goes to whichever device has room first).
 *
 * The execution queue holds, in priority order, the joins whose children are
 * done, the executed claims waiting for a lane to prove them, and the claims
 * waiting to execute. It takes claims from the backlog (the rest, in unit
 * order) while fewer than queue_cap claims are between the backlog and the
 * start of their proof (waiting to execute, executing, or executed and
 * waiting): so at most queue_cap traces exist before their proofs start, and
 * the engine commits to an order at most queue_cap claims ahead.
 *
 * Ownership of a claim's work: execute builds it (say a trace); after an
 * execute that returns GS_OK the engine calls exactly one of prove (which
 * consumes it: frees it whether it succeeds or fails) or discard (frees it
 * unproven: the unit was cancelled; `discard` is called once per cancelled
 * attempt). An execute that fails frees what it built itself.
 *
 * Failures are values: a callback's status other than GS_OK fails the unit
 * (outcome FAILED, status kept) and skips every unit that depends on it,
 * directly or not (outcome SKIPPED, cause = the failed unit); the batch goes
 * on. gs_engine_run returns GS_OK once every unit has an outcome, whatever
 * the outcomes are.
 *
 * Threads: callbacks run on lane (or finisher) threads, never under the engine's lock, so
 * they may call gs_engine_cancel. unit_done and progress are serialized (never
 * two at once, in the order units finished), from lane or finisher threads or
 * the thread in gs_engine_run. */
#ifndef GSTARK_BATCH_ENGINE_H
#define GSTARK_BATCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_ENGINE_NONE UINT32_MAX       /* no lane, device or unit */
#define GS_ENGINE_UNLIMITED SIZE_MAX    /* a budget that never blocks */
#define GS_ENGINE_NO_TIME UINT64_MAX    /* a timestamp of an event that did not happen */
#define GS_ENGINE_MAX_UNITS (1u << 30)  /* units per engine */
#define GS_ENGINE_MAX_LANES 4096u
#define GS_ENGINE_MAX_DEVICES 4096u

typedef struct gs_engine gs_engine;

typedef enum gs_engine_kind {
    GS_ENGINE_CLAIM = 0, /* execute, then prove */
    GS_ENGINE_JOIN = 1   /* join, once every child is done */
} gs_engine_kind;

/* One unit, as gs_engine_new takes it (copied, children included). */
typedef struct gs_engine_unit {
    gs_engine_kind kind;
    uint32_t num_children;    /* joins: units that must be done first (none for claims) */
    const uint32_t *children; /* unit indices, distinct, not the unit itself; no cycles */
    size_t exec_host;         /* claims: stage 1 host bytes (the trace); joins: added to prove_host */
    size_t prove_host;        /* stage 2 host bytes */
    size_t prove_dev;         /* stage 2 bytes on the lane's device (on the host for a CPU lane) */
} gs_engine_unit;

typedef enum gs_engine_outcome {
    GS_ENGINE_PENDING = 0,   /* not finished (only while running, or never run) */
    GS_ENGINE_DONE = 1,      /* proven (claims) or joined (joins) */
    GS_ENGINE_FAILED = 2,    /* a callback returned `status` */
    GS_ENGINE_SKIPPED = 3,   /* a unit it depends on (`cause`) failed, was refused or skipped */
    GS_ENGINE_REFUSED = 4,   /* fits no lane even alone (GS_ERR_BUDGET), decided at gs_engine_new */
    GS_ENGINE_CANCELLED = 5  /* gs_engine_cancel stopped the batch before it finished */
} gs_engine_outcome;

/* What happened to one unit. Times are nanoseconds since gs_engine_run was
 * entered (CLOCK_MONOTONIC), GS_ENGINE_NO_TIME where the event did not
 * happen; t_exec_* are the last attempt's. seq_* order the engine's
 * decisions: one counter, taken under the engine's lock, 0 when the event did
 * not happen (for tests and for debugging a schedule). */
typedef struct gs_engine_unit_info {
    gs_engine_kind kind;
    gs_engine_outcome outcome;
    gs_status status;      /* DONE: GS_OK; FAILED: the callback's; SKIPPED: the cause's;
                            * REFUSED: GS_ERR_BUDGET; CANCELLED: GS_ERR_CANCELLED */
    uint32_t cause;        /* SKIPPED: the failed or refused unit behind it; else GS_ENGINE_NONE */
    uint32_t exec_lane;    /* the lane of the last execute (GS_ENGINE_NONE if none, or on a finisher) */
    uint32_t lane;         /* the lane of prove or join (GS_ENGINE_NONE if none) */
    uint32_t device;       /* that lane's device (GS_ENGINE_NONE: a CPU lane, or none) */
    uint32_t cancellations; /* attempts cancelled (each discarded once) and requeued */
    uint64_t t_queued;     /* claims: entered the execution queue; joins: children done */
    uint64_t t_exec_start, t_exec_end;   /* execute callback (last attempt) */
    uint64_t t_prove_start, t_prove_end; /* prove or join callback */
    uint64_t t_finish_start, t_finish_end; /* finish callback on a finisher */
    uint64_t t_done;       /* the outcome was decided */
    uint64_t exec_ns;      /* in execute, summed over attempts */
    uint64_t discard_ns;   /* in discard, summed */
    uint64_t prove_ns;     /* in prove or join (and finish, without finishers) */
    uint64_t finish_ns;    /* in finish on a finisher */
    uint64_t wait_ns;      /* from t_queued to the prove (or the outcome) outside callbacks */
    size_t host_bytes;     /* reserved on the host at once, at most */
    size_t dev_bytes;      /* reserved on the device */
    uint64_t seq_queued, seq_exec, seq_exec_end, seq_prove, seq_done;
} gs_engine_unit_info;

typedef struct gs_engine_lane_info {
    uint32_t device;         /* GS_ENGINE_NONE for a CPU lane */
    gs_status init_status;   /* lane_init's (GS_OK without one) */
    uint64_t init_ns;        /* in lane_init */
    uint64_t busy_ns;        /* in execute, prove, join and discard */
    uint32_t executed, proven, joined, discarded, failed; /* callbacks run (failed: not GS_OK) */
} gs_engine_lane_info;

typedef struct gs_engine_stats {
    uint32_t units, done, failed, skipped, refused, cancelled, pending;
    uint64_t cancellations;   /* attempts cancelled to break a mutual block */
    uint64_t wall_ns;         /* gs_engine_run, entry to return (0 before) */
    size_t host_budget;
    size_t host_peak;         /* most host bytes reserved at once */
    uint64_t budget_violations; /* admissions past a budget: 0 unless the engine is wrong */
    uint32_t queue_cap;       /* in force (defaults applied) */
    uint32_t queue_peak;      /* most claims between the backlog and their proof at once */
    uint32_t finishers;       /* finisher threads in force */
    uint64_t finisher_busy_ns; /* summed over finishers: in every job they ran */
    uint64_t finisher_executed, finisher_discarded; /* claims' executes and discards they ran */
} gs_engine_stats;

/* The pipeline's work. ctx is passed back to every callback. unit and lane
 * are indices into the arrays given to gs_engine_new. */
typedef struct gs_engine_callbacks {
    void *ctx;
    /* Optional. Once per lane, on the lane's thread, before it takes work
     * (make the resident prover context here). If any lane's init fails,
     * nothing runs: lanes whose init succeeded get lane_fini, and
     * gs_engine_run returns the first failing lane's status. */
    gs_status (*lane_init)(void *ctx, uint32_t lane);
    /* Optional. Once per lane whose init succeeded, on its thread, last. */
    void (*lane_fini)(void *ctx, uint32_t lane);
    /* Required when there are claims: stage 1 and stage 2 (see above).
     * execute's lane is GS_ENGINE_NONE on a finisher. */
    gs_status (*execute)(void *ctx, uint32_t unit, uint32_t lane);
    gs_status (*prove)(void *ctx, uint32_t unit, uint32_t lane);
    /* Required when there are joins. */
    gs_status (*join)(void *ctx, uint32_t unit, uint32_t lane); /* lane: GS_ENGINE_NONE on a finisher */
    /* Optional. Stage 3 of a claim whose prove returned GS_OK: on a finisher
     * thread, or on the lane right after prove when there are none. Its
     * status is the claim's. */
    gs_status (*finish)(void *ctx, uint32_t unit);
    /* Optional (NULL: executed work needs no freeing). Frees the work of an
     * executed, cancelled claim; cannot fail. On a finisher (lane
     * GS_ENGINE_NONE) when there are finishers. */
    void (*discard)(void *ctx, uint32_t unit, uint32_t lane);
    /* Optional, serialized: a unit got its outcome (info is final). */
    void (*unit_done)(void *ctx, uint32_t unit, const gs_engine_unit_info *info);
    /* Optional, serialized, after unit_done: done of total units have outcomes. */
    void (*progress)(void *ctx, uint32_t done, uint32_t total);
} gs_engine_callbacks;

typedef struct gs_engine_config {
    size_t host_budget;          /* bytes, shared by every lane (GS_ENGINE_UNLIMITED: none) */
    uint32_t num_devices;        /* 0..GS_ENGINE_MAX_DEVICES (real or simulated) */
    const size_t *device_budget; /* num_devices budgets, shared by the device's lanes */
    uint32_t num_lanes;          /* 1..GS_ENGINE_MAX_LANES */
    const uint32_t *lane_device; /* num_lanes device indices or GS_ENGINE_NONE (NULL: all CPU) */
    uint32_t queue_cap;          /* claims in the execution queue (0: 2 x num_lanes) */
    uint32_t finishers;          /* threads for finish, device-free joins and executes,
                                  * 0..GS_ENGINE_MAX_LANES (0: all on the lanes); in force
                                  * only when there is a finish callback or a join */
} gs_engine_config;

/* Checks and copies everything; decides refusals (their unit_done comes when
 * gs_engine_run starts). GS_ERR_INVALID_ARG for: NULL out, cfg or cb; no
 * lanes, too many lanes or devices, a lane's device out of range; a missing
 * required callback; num_units above GS_ENGINE_MAX_UNITS or units NULL with
 * num_units > 0; a claim with children, a join child out of range, repeated
 * or itself, a cycle. GS_ERR_NOMEM. */
gs_status gs_engine_new(gs_engine **out, const gs_engine_config *cfg,
                        const gs_engine_callbacks *cb, const gs_engine_unit *units,
                        uint32_t num_units);
/* NULL is a no-op. Not while gs_engine_run runs. */
void gs_engine_free(gs_engine *e);

/* Runs the batch on the calling thread's behalf: starts the lanes, runs every
 * unit to an outcome, stops the lanes, returns. GS_OK when every unit has an
 * outcome (see the stats for how many failed); GS_ERR_CANCELLED after
 * gs_engine_cancel; a lane_init's status; GS_ERR_NOMEM when a thread cannot
 * be started (nothing runs then); GS_ERR_INVALID_ARG on a second call. */
gs_status gs_engine_run(gs_engine *e);

/* Stops the batch, from any thread (a callback included; not from a signal
 * handler): no new callback starts, running ones finish (their results
 * count), executed claims are discarded, and every unit without an outcome
 * gets CANCELLED. Before gs_engine_run: it will cancel everything at once. */
void gs_engine_cancel(gs_engine *e);

/* Snapshots, under the engine's lock (also during a run).
 * GS_ERR_INVALID_ARG for NULL or an index out of range. */
gs_status gs_engine_unit_get(gs_engine *e, gs_engine_unit_info *out, uint32_t unit);
gs_status gs_engine_lane_get(gs_engine *e, gs_engine_lane_info *out, uint32_t lane);
void gs_engine_stats_get(gs_engine *e, gs_engine_stats *out);
/* Most bytes reserved at once on a device (0 for an index out of range). */
size_t gs_engine_device_peak(gs_engine *e, uint32_t device);

/* Outcome names: "pending", "done", "failed", "skipped", "refused", "cancelled". */
const char *gs_engine_outcome_str(gs_engine_outcome o);

#ifdef __cplusplus
}
#endif
#endif
