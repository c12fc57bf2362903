/* Batches: a manifest of claims and the join tree over them (docs/batch.md,
 * "Manifest"), what a claim proves (its workload), what it costs (its memory
 * estimate, without building anything) and how a fib claim is bisected.
 * The scheduler that proves a batch over lanes is built on this API.
 *
 * A claim is a statement to prove: an id, a workload (a built-in AIR with its
 * options, or an AIR a library user registered) and its parameters. A join
 * aggregates finished children (claims or joins); the joins form one tree
 * whose root is the batch's output. Node indices name both: claim i is node
 * i, join j is node num_claims + j.
 *
 * Parsing validates everything it can without building a trace (ids, types,
 * unknown keys, ranges, degrees against the blowup, LDE sizes, the join tree)
 * and never proves or writes anything. Every refusal is GS_ERR_MANIFEST with
 * a message in err naming the claim or join (or the line, column and byte
 * offset of a JSON syntax error). */
#ifndef GSTARK_BATCH_H
#define GSTARK_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gstark/airs.h"
#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/status.h"
#include "gstark/synth.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_MANIFEST_MAX_CLAIMS 1000000u
#define GS_MANIFEST_MAX_BYTES ((size_t)1 << 30) /* gs_manifest_load refuses larger files */
#define GS_MANIFEST_NONE UINT32_MAX             /* gs_manifest_find: no such id */
/* Ids: 1..GS_CLAIM_ID_MAX bytes of [A-Za-z0-9_.-]. Claims and joins share one
 * namespace. Names the library makes contain '/', which a manifest id cannot:
 * the default tree's joins ("root", "root/0", "root/1/0", ...) and the halves
 * of a split claim ("a/0", "a/1"). */
#define GS_CLAIM_ID_MAX 64u
#define GS_CLAIM_ID_CAP 128u /* id buffers: a manifest id, 30 split levels, NUL */
#define GS_JOIN_MAX_CHILDREN 1024u
/* fib claims: at most 2^30 steps (log_rows at most GS_AIRS_FIB_MAX_LOG_N). */
#define GS_CLAIM_FIB_MAX_STEPS ((uint64_t)1 << 30)
#define GS_BATCH_AIR_NAME_MAX 32u /* registered AIR names: 1..31 bytes */

typedef enum gs_claim_kind {
    GS_CLAIM_FIB = 1,
    GS_CLAIM_MIX = 2,
    GS_CLAIM_SYNTH = 3,
    GS_CLAIM_CUSTOM = 4 /* an AIR registered with gs_batch_register_air */
} gs_claim_kind;

/* fib: the run x_0 = start, x_{i+1} = F(x_i) with F(a, b) = (b, a + b), for
 * `steps` transitions; its rows are the steps + 1 states x_0 .. x_steps
 * ("log_rows": k in a manifest is steps = 2^k - 1, one table of 2^k rows, the
 * statement `gstark prove fib` makes). The rows are cut into tables of
 * consecutive states, one per binary digit of steps + 1 (largest first, each
 * of at least 2 rows); a table's first row is F of the previous table's last.
 * When steps + 1 is odd, x_steps is in no table (one row cannot be a fib
 * table, and it needs no proof): it is F of the last table's last row. */
typedef struct gs_claim_fib {
    gs_fp start[2]; /* x_0 = (a[0], b[0]), canonical (below p) */
    uint64_t steps; /* 1..GS_CLAIM_FIB_MAX_STEPS */
} gs_claim_fib;

typedef struct gs_claim_synth {
    char preset[16]; /* "vm", "skew" or "uniform" */
    unsigned shrink; /* 0..GS_SYNTH_MAX_SHRINK */
    uint64_t seed;
} gs_claim_synth;

/* A library user's AIR. `json` is the claim's workload object as compact JSON
 * text (json_len bytes, NUL-terminated; "air" included). With air_only set,
 * fill only out->air (finalized) and out->log_n, without a trace: what
 * parsing (to validate the workload) and estimates need. Otherwise fill the
 * whole gs_workload (AIR, trace, log_n, public inputs). On a bad workload
 * return any status other than GS_OK with a message in err (err_len >= 1;
 * the manifest adds the claim's id); leave *out zeroed on error. The builder
 * is called from parsing, estimating and building threads at once: it must be
 * thread-safe. */
typedef gs_status (*gs_batch_air_builder)(void *ctx, gs_workload *out, const char *json,
                                          size_t json_len, int air_only, char *err,
                                          size_t err_len);

/* Registers `fn` for manifests' workloads {"air": name, ...}. name: 1..31
 * bytes of [a-z0-9_-], not a built-in ("fib", "mix", "synth"). fn NULL
 * removes the name (GS_ERR_INVALID_ARG if absent). GS_ERR_INVALID_ARG for a
 * bad or already registered name (remove it first), GS_ERR_NOMEM when 64
 * names are registered. A parsed manifest keeps the builder it found, so
 * removing a name later does not affect it. Thread-safe. */
gs_status gs_batch_register_air(const char *name, gs_batch_air_builder fn, void *ctx);

typedef struct gs_claim_custom {
    char air[GS_BATCH_AIR_NAME_MAX]; /* the registered name */
    gs_batch_air_builder build;
    void *ctx;
    const char *json; /* owned by the manifest */
    size_t json_len;
} gs_claim_custom;

typedef struct gs_claim {
    char id[GS_CLAIM_ID_CAP];
    gs_claim_kind kind;
    union {
        gs_claim_fib fib;
        gs_mix_params mix; /* cols, degree, log_n, seed as in airs.h */
        gs_claim_synth synth;
        gs_claim_custom custom;
    } w;
    unsigned security; /* the target in bits: GS_MIN_SECURITY_BITS..GS_MAX_SECURITY_BITS */
    gs_params params;  /* for it: the blowup asked for (default 4), grinding 20 and the
                        * least query count reaching `security`, as `gstark prove` picks */
} gs_claim;

typedef struct gs_join {
    char id[GS_CLAIM_ID_CAP];
    uint32_t num_children; /* 1..GS_JOIN_MAX_CHILDREN */
    uint32_t *children;    /* node indices, in the manifest's order; each below this join's node */
} gs_join;

typedef struct gs_manifest_index gs_manifest_index;

/* Every claim and join of the batch. The joins are in topological order
 * (children first), the root last; every claim and every other join is the
 * child of exactly one join. Without "joins" in the manifest, the joins are
 * the default balanced binary tree over the claims in manifest order:
 * tree(claims lo..hi) = the claim itself if there is one, else a join of
 * tree(lo..mid) and tree(mid..hi), mid = lo + ceil((hi - lo) / 2); a lone
 * claim gets a root join with that one child. Read-only once parsed. */
typedef struct gs_manifest {
    uint32_t num_claims; /* 1..GS_MANIFEST_MAX_CLAIMS */
    gs_claim *claims;
    uint32_t num_joins;
    gs_join *joins;
    int default_joins;        /* 1: the joins are the default tree */
    gs_manifest_index *index; /* private: id lookup */
} gs_manifest;

/* Parses a manifest of len bytes (docs/batch.md). GS_OK with *out set, or
 * *out NULL and GS_ERR_MANIFEST (the reason in err), GS_ERR_NOMEM, or
 * GS_ERR_INVALID_ARG for NULL arguments. err may be NULL (err_len then 0).
 * Thread-safe. */
gs_status gs_manifest_parse(gs_manifest **out, const char *json, size_t len, char *err,
                            size_t err_len);
/* Reads the file and parses it; GS_ERR_IO (the reason in err) when it cannot
 * be read or exceeds GS_MANIFEST_MAX_BYTES. */
gs_status gs_manifest_load(gs_manifest **out, const char *path, char *err, size_t err_len);
void gs_manifest_free(gs_manifest *m); /* NULL is a no-op */

/* The node index of a claim or join id, GS_MANIFEST_NONE if none. */
uint32_t gs_manifest_find(const gs_manifest *m, const char *id);
/* The root join's node index (num_claims + num_joins - 1). */
uint32_t gs_manifest_root(const gs_manifest *m);
/* A node's id (a claim's or a join's), NULL for an index out of range. */
const char *gs_manifest_node_id(const gs_manifest *m, uint32_t node);

/* The claim's statement with its witness, built: always a multi-workload, its
 * tables in proving order, its name the AIR's ("fib", "mix", the synth preset,
 * or the registered name). How to prove it: one table without bus
 * interactions (fib of one table, mix, a custom AIR) with gs_prove, which
 * makes the statement `gstark prove` makes (use gs_claim_air_desc for
 * opts.air_desc and c->params); anything else (synth presets, fib claims of
 * several tables) with gs_prove_multi. Errors as gs_airs_fib, gs_airs_mix and
 * gs_synth_preset; a custom builder's status as it returns it. */
gs_status gs_claim_workload(gs_multi_workload *out, const gs_claim *c);

/* The air_desc the CLI writes for table t: "fib", "mix cols=C degree=D
 * log_n=L seed=S", "synth preset=P shrink=K table=T", or the registered name.
 * GS_ERR_INVALID_ARG for t beyond the claim's tables or a buffer too short. */
gs_status gs_claim_air_desc(char *out, size_t cap, const gs_claim *c, uint32_t t);

/* What a claim costs, from the shapes alone (no trace is built; a custom AIR's
 * builder runs with air_only). Proving it needs trace_bytes on the host for
 * the workload, plus, where the prover charges (the host on the CPU backend,
 * the device on CUDA), prove_bytes: its largest table's gs_estimate_table
 * total, the least budget (beyond the traces on the CPU) under which gs_prove
 * and gs_prove_multi prove it within the budget, tables one at a time.
 * prove_lean_bytes (<= prove_bytes) is the largest lean_total: under a budget
 * between the two the prover proves the tables that need it lean (more work,
 * still within the budget). prove_all_bytes is every table's total at once,
 * the most it charges with all its tables in parallel. */
typedef struct gs_claim_cost {
    uint32_t tables;
    unsigned max_log_n;       /* the tallest table */
    uint64_t rows;            /* summed over the tables */
    uint64_t cells;           /* columns x rows, summed */
    uint64_t fft_cost;        /* columns x rows x log2(rows), summed (DESIGN.md §5) */
    size_t trace_bytes;       /* traces and public inputs, as gs_claim_workload allocates them */
    size_t prove_bytes;       /* the largest table's estimate (total) */
    size_t prove_lean_bytes;  /* the largest table's lean estimate (lean_total) */
    size_t prove_all_bytes;   /* the tables' totals summed */
} gs_claim_cost;

/* GS_ERR_INVALID_ARG when a table cannot be proven under the claim's
 * parameters (a fib table beyond the 2^30-row LDE domain: split the claim). */
gs_status gs_claim_estimate(gs_claim_cost *out, const gs_claim *c);

/* Bisection of a fib claim (steps >= 3): the states x_0 .. x_s are cut after
 * the first r1 = 2 floor((s + 1) / 4) of them (an even count, so the first
 * half ends on a table row; steps + 1 a power of two splits into two halves
 * of one table each). first = (start, r1 - 1 steps), id "<id>/0"; second =
 * (x_r1, s - r1 steps), id "<id>/1", its start computed here in the field.
 * The pair covers exactly the unsplit claim's rows, and the join's boundary
 * check between them is gs_fib_check_boundary (first's last table, second's
 * first). Parameters are kept. GS_ERR_UNSUPPORTED for other workloads and
 * fib claims of fewer than 3 steps; GS_ERR_INVALID_ARG when an id would
 * exceed the buffer. first or second may alias c. */
gs_status gs_claim_split(gs_claim *first, gs_claim *second, const gs_claim *c);

/* The state x_steps of a fib claim (2x2 matrix powers: O(log steps)).
 * GS_ERR_INVALID_ARG for other claims. */
gs_status gs_claim_fib_end(gs_fp end[2], const gs_claim *c);

/* ---- the boundary between consecutive fib tables ----
 * A fib table's public inputs are (a[0], b[0], b[n-1], a[n-1]): chaining two
 * tables checks that the second starts from the state after the first's last
 * row, F(a[n-1], b[n-1]) = (b[n-1], a[n-1] + b[n-1]) (docs/batch.md,
 * "Bisection"). */

/* next = F(a[n-1], b[n-1]) from a fib table's 4 public inputs;
 * GS_ERR_INVALID_ARG for another count. */
gs_status gs_fib_next_state(gs_fp next[2], const gs_fp *pub, uint32_t num_pub);

/* The join's boundary check: the second table starts where the first leads,
 * (second a[0], b[0]) == F(first a[n-1], b[n-1]). GS_OK when it does,
 * GS_ERR_PROOF_STATEMENT when it does not, GS_ERR_INVALID_ARG unless both
 * carry the fib AIR's 4 public inputs. */
gs_status gs_fib_check_boundary(const gs_fp *first_pub, uint32_t first_num_pub,
                                const gs_fp *second_pub, uint32_t second_num_pub);

/* ==== running a batch (src/batch/run.c; docs/batch.md, "Running a batch") ====
 * gs_batch_run proves a parsed manifest over lanes: it plans (every claim's
 * estimate against the largest lane's budget; a claim that does not fit is
 * bisected, or refused with the numbers when it cannot be), then runs every
 * unit through the scheduling engine: a claim is executed (its trace built),
 * proven on its lane's resident prover, verified and put in the store; a
 * join verifies its children's objects, checks the boundaries of bisection
 * halves and stores its aggregate object. A claim whose proof is already in
 * the store is loaded, verified and reused; a corrupt stored object is
 * reported, removed and proven again. Proof bytes are those `gstark prove`
 * (or gs_prove / gs_prove_multi with the claim's air_desc) makes for the
 * claim, whatever the lanes, devices and order. */

#define GS_BATCH_AGG_FORMAT 1u  /* the join aggregate object's format (docs/batch.md) */
#define GS_BATCH_MAX_LANES 256u
#define GS_BATCH_MAX_SIM_DEVICES 64u
#define GS_BATCH_SIM_ENV "GS_BATCH_SIM_DEVICES" /* "D:BUDGET", e.g. "2:64M" */

#define GS_BATCH_FINISH_ON_LANE (~0u) /* gs_batch_config.finishers: no finisher threads */

typedef struct gs_batch_config {
    const gs_manifest *manifest; /* parsed; required */
    const char *store_dir;       /* the proof store (gs_store_open); required */
    /* Lanes (one resident prover each) and how they sit on devices. lanes 0:
     * every device times lanes_per_device (CUDA devices, or the simulated
     * ones), or max(1, cores / 4) CPU lanes on the host when there is no
     * device. lanes_per_device 0: 1. */
    unsigned lanes, lanes_per_device;
    /* "D:BUDGET": D simulated devices (1..GS_BATCH_MAX_SIM_DEVICES), each
     * with BUDGET bytes (gs_size_parse); lanes are CPU provers bound to them.
     * NULL: the environment variable GS_BATCH_SIM_DEVICES, if set; "": none. */
    const char *sim_devices;
    gs_backend_kind backend; /* GS_BACKEND_CPU (0), CUDA or AUTO; ignored with simulated devices */
    size_t mem_budget;       /* the host's budget in bytes (0: the prover's default rule) */
    unsigned threads;        /* host threads, split between the lanes (0: gs_threads_get()) */
    /* The refined partition (docs/batch.md, "Partition file"). NULL: none.
     * When the file exists it is read and reused (planning starts from it);
     * after planning it is written atomically (temporary, fsync, rename). */
    const char *partition_file;
    /* Observability (each NULL: nothing). log: one line per finished unit;
     * warnings: what does not fail a unit but a user must know (a corrupt
     * stored object removed and proven again, the prover's budget
     * warnings); progress: the progress line (claims done/total, ETA), drawn
     * when progress_enabled is 1, or -1 and the stream is a terminal;
     * report: the report at the end; metrics: JSON lines per unit, per lane
     * and for the pipeline. */
    FILE *log, *warnings, *progress, *report, *metrics;
    int progress_enabled;
    unsigned min_security; /* verifying: 0 = GS_MIN_SECURITY_BITS */
    /* Finisher threads: they execute claims (build their traces), verify and
     * store proven claims and run the joins, off the lanes, so a lane proves
     * its next claim while the last one is verified and stored and the next
     * ones are built (docs/batch.md, "Scheduling"). 0: with CUDA lanes every
     * host thread, else four per lane, at most the host threads (at least 4);
     * their work runs with threads / finishers threads each (at least 1).
     * GS_BATCH_FINISH_ON_LANE: none, a lane executes, verifies and stores its
     * own claims and runs the joins. */
    unsigned finishers;
} gs_batch_config;

typedef enum gs_batch_outcome {
    GS_BATCH_PENDING = 0, /* not run (the batch stopped before it) */
    GS_BATCH_PROVEN = 1,  /* proven (a claim) or aggregated (a join) now, and stored */
    GS_BATCH_REUSED = 2,  /* found in the store, verified, reused */
    GS_BATCH_FAILED = 3,  /* the prover, the verifier, a boundary check or the store failed */
    GS_BATCH_REFUSED = 4, /* refused up front: too large for every lane and not splittable */
    GS_BATCH_SKIPPED = 5  /* a join whose subtree holds a failed or refused unit */
} gs_batch_outcome;

/* One unit of the refined plan: a claim (a manifest claim or a bisection
 * piece) or a join (a manifest join, or the join of a bisected claim's
 * halves, which takes the claim's id). */
typedef struct gs_batch_unit {
    char id[GS_CLAIM_ID_CAP];
    int is_join;
    int split;         /* a join of bisection halves (boundaries checked) */
    uint32_t origin;   /* the manifest node it is or came from */
    uint32_t parent;   /* unit index of its join; GS_MANIFEST_NONE for the root */
    uint32_t shards;   /* claims: pieces its manifest claim was cut into (1: not cut) */
    gs_batch_outcome outcome;
    gs_status status;  /* failed or refused: why (GS_OK otherwise) */
    char reason[256];  /* failed, refused, skipped: one line; also a corrupt object re-proven */
    int has_key;
    gs_digest key;        /* its store object's key (the root join's is the batch's output) */
    int corrupt_replaced; /* a corrupt stored object was found, removed and replaced */
    int lane, device;     /* where it ran (-1: nowhere); device -1 is the host */
    double wait_s, execute_s, prove_s, verify_s, store_s; /* seconds */
    size_t reserved_bytes;            /* the most it held reserved at once, host and device */
    size_t object_bytes;              /* its stored object's payload (proof or aggregate) */
    size_t peak_bytes, device_peak_bytes; /* the prover's charged peak and device peak */
    double device_busy_s;             /* seconds the device had work from its proof (CUDA) */
    uint64_t cells, fft_cost;         /* claims: from gs_claim_estimate */
    size_t need_bytes;                /* claims: what planning counted against the budget */
} gs_batch_unit;

/* A CUDA device's busy share over the run: the union of the device work of
 * every lane on it (the intervals between the CUDA backend's timing events,
 * work overlapping on several lanes counted once) over the span from just
 * before the engine starts the first unit to after the last unit finished
 * (set-up excluded: gs_batch_result.setup_s). measured 0: no number (CPU
 * lanes, simulated devices, or the device's timeline could not be timed);
 * busy_s and span_s are then 0, never an estimate. */
typedef struct gs_batch_device_time {
    int measured;
    double busy_s, span_s; /* 0 <= busy_s <= span_s; the share is busy_s / span_s */
} gs_batch_device_time;

typedef struct gs_batch_result {
    uint32_t num_units;  /* claims first (manifest order, pieces in place), then joins */
    gs_batch_unit *units;
    uint32_t claims, joins;                  /* after bisection */
    uint32_t proven, reused, failed, refused, skipped; /* units per outcome */
    uint32_t corrupt;    /* corrupt stored objects found (each removed and replaced) */
    uint32_t bisected;   /* manifest claims cut into pieces */
    int has_root;        /* the root join was stored: root_key is the batch's output */
    gs_digest root_key;
    unsigned lanes, devices;
    double wall_s;       /* the whole call */
    double setup_s;      /* of which before the first unit could run: planning, the
                          * partition file, the store, the lanes' provers */
    double *lane_busy_s; /* lanes entries: seconds each lane spent in callbacks */
    gs_batch_device_time *device_time; /* devices entries (NULL when devices is 0) */
    size_t peak_rss_bytes; /* the process's peak resident set */
} gs_batch_result;

/* Runs the batch. Returns GS_OK when the batch ran to its end, whatever its
 * units' outcomes: check out->failed, refused and skipped (0 each: every
 * unit proven or reused, has_root set). Returns an error, with a message in
 * err, when it could not run, before anything is proven or written:
 * GS_ERR_INVALID_ARG (a bad configuration or GS_BATCH_SIM_DEVICES),
 * GS_ERR_MANIFEST (a partition file that does not parse or does not match
 * the manifest), GS_ERR_IO (the store or the partition file cannot be
 * written), GS_ERR_NO_DEVICE (CUDA asked for, none present), GS_ERR_NOMEM.
 * out is filled either way (free it with gs_batch_result_free). */
gs_status gs_batch_run(gs_batch_result *out, const gs_batch_config *cfg, char *err,
                       size_t err_len);
void gs_batch_result_free(gs_batch_result *r); /* NULL is a no-op; zeroes *r */

/* The store key of a claim's proof (gs_store_key_proof or _multi of its
 * statement): from its parameters, AIRs, heights and public inputs. Built
 * without a trace where the public inputs are known without one (fib: from
 * start and steps; AIRs without public inputs), else from its workload. */
gs_status gs_batch_claim_key(gs_digest *key, const gs_claim *c);

#ifdef __cplusplus
}
#endif
#endif
