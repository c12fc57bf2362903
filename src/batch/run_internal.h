/* What the batch pipeline's files share (src/batch/run.c and its helpers):
 * the plan (claims after bisection and the joins over them), the partition
 * file, the join aggregate object, lanes and devices, and the report.
 * docs/batch.md, "Running a batch". The scheduling engine (engine.h) knows
 * none of this: it sees units with children and byte reservations. */
#ifndef GSTARK_BATCH_RUN_INTERNAL_H
#define GSTARK_BATCH_RUN_INTERNAL_H

#include <pthread.h>
#include <stdio.h>

#include "batch/batch_internal.h"
#include "gstark/batch.h"
#include "gstark/store.h"

#define BP_NONE GS_MANIFEST_NONE

/* ---- the plan (plan.c) ---- */

/* What planning counts a claim's bytes against. */
typedef struct bp_budget {
    size_t device;   /* the largest device's budget (prove bytes); SIZE_MAX: none */
    size_t host;     /* the host's (traces; on CPU lanes also prove bytes); SIZE_MAX: none */
    int host_proves; /* CPU lanes without devices: the prover charges the host */
    unsigned lanes_on_device; /* lanes sharing the largest device (its budget's share) */
} bp_budget;

typedef struct bp_node {
    char id[GS_CLAIM_ID_CAP];
    int is_join, split;     /* split: the join of a bisected claim's halves */
    uint32_t origin;        /* the manifest node it is or came from */
    uint32_t parent;        /* node index of its join, BP_NONE for the root */
    /* claims */
    const gs_claim *claim;  /* the manifest's, or a piece the plan owns */
    gs_claim_cost cost;
    int multi;              /* proven with gs_prove_multi (a version-2 proof) */
    size_t exec_host;       /* the trace */
    size_t prove_dev;       /* proving, on the lane's device (or the host on CPU lanes) */
    size_t prove_host;      /* the proof's serialized bytes and its struct */
    size_t need;            /* what planning counted against the budget */
    size_t proof_estimate;  /* a bound on its proof object's size */
    int lean;               /* fits only proven lean (prove_lean_bytes) */
    uint32_t shards;        /* pieces its manifest claim was cut into */
    int refused;            /* refused up front (reason says why) */
    gs_status refuse_status;
    char reason[256];
    /* joins */
    uint32_t num_children;
    uint32_t *children;     /* node indices, in order (into bp_plan.kids) */
    size_t kids_at;         /* where they start in bp_plan.kids */
} bp_node;

typedef struct bp_partition bp_partition;

/* Nodes: the claims first (manifest order, a bisected claim's pieces in its
 * place, in chain order), then the joins, children before parents, the root
 * last. The root of a bisected claim's pieces is a split join with the
 * claim's id, so the manifest's joins keep their children's ids. */
typedef struct bp_plan {
    uint32_t n, claims, joins, bisected, refused;
    bp_node *nodes;
    gs_claim **piece_blocks; /* owned: the claims bisection made, in blocks that never move */
    uint32_t num_pieces, num_blocks;
    uint32_t *kids;   /* owned: every join's children */
    size_t num_kids, cap_kids;
    int from_partition; /* planning started from a partition file */
} bp_plan;

/* Plans the manifest under the budget, starting from `part` (may be NULL).
 * Refusals are recorded in the nodes, not returned: GS_OK unless memory runs
 * out or the partition does not fit the manifest (GS_ERR_MANIFEST, err). */
gs_status bp_plan_make(bp_plan *out, const gs_manifest *m, const bp_budget *b,
                       const bp_partition *part, char *err, size_t err_len);
void bp_plan_free(bp_plan *p);
/* The plan's node for a manifest claim or join id; BP_NONE if none. */
uint32_t bp_plan_find(const bp_plan *p, const char *id);

/* ---- the partition file (partition.c) ---- */

/* Reads `path`: GS_ERR_NOT_FOUND when it does not exist (planning starts
 * from the manifest), GS_ERR_MANIFEST with a message when it does not parse
 * or does not match the manifest (a claim it names is not the manifest's, a
 * split whose pieces do not cover their claim), GS_ERR_IO when unreadable. */
gs_status bp_partition_read(bp_partition **out, const char *path, const gs_manifest *m,
                            char *err, size_t err_len);
void bp_partition_free(bp_partition *p);
/* The split recorded for `id`: its two children's ids are id/0 and id/1.
 * 1 if `id` is a split join in the file. */
int bp_partition_split(const bp_partition *p, const char *id);
/* The piece `id` (a claim whose id has a '/'), as a fib claim with the
 * parameters of `origin`; 0 if the file has no such piece. */
int bp_partition_piece(const bp_partition *p, const char *id, const gs_claim *origin,
                       gs_claim *out);
/* Writes the plan as JSON, atomically (a temporary beside it, fsync,
 * rename, fsync of the directory). GS_ERR_IO with a message. */
gs_status bp_partition_write(const char *path, const bp_plan *plan, const gs_manifest *m,
                             const bp_budget *b, char *err, size_t err_len);

/* ---- the join aggregate object (aggregate.c; docs/batch.md, "Joins") ---- */

#define BP_AGG_MAGIC "GSAGGREG"
#define BP_AGG_HEAD 56u  /* magic, format, flags, n, checks, root */
#define BP_AGG_CHILD 68u /* kind, key, statement */
#define BP_AGG_ENDS 64u  /* first and last fib public inputs */
#define BP_AGG_SPLIT 1u  /* flags: a bisection join (boundaries checked, ends present) */

typedef struct bp_agg_child {
    uint32_t kind;        /* gs_store_kind: 1, 2 (a proof) or 3 (a join) */
    gs_digest key;        /* its store key */
    gs_digest statement;  /* a proof's statement digest, or a join's root */
} bp_agg_child;

typedef struct bp_agg {
    uint32_t flags, n, checks;
    gs_digest root;       /* Merkle root over the children's statements */
    bp_agg_child *child;  /* n (owned by the decoder's caller: free()) */
    gs_fp first_pub[4], last_pub[4]; /* split: the chain's first and last fib tables' publics */
} bp_agg;

/* The Merkle root over n statement digests (docs/batch.md). */
gs_digest bp_agg_root(const bp_agg_child *child, uint32_t n);
gs_status bp_agg_encode(uint8_t **out, size_t *len, const bp_agg *a);
/* GS_ERR_CORRUPT for anything but a well-formed object of this format. */
gs_status bp_agg_decode(bp_agg *a, const uint8_t *buf, size_t len);

/* ---- claims' statements (keys.c) ---- */

/* Whether the claim is proven as a multi-table proof, from its shapes. */
gs_status bp_claim_multi(int *multi, const gs_claim *c);
/* The key when it is known without the trace (fib, or no public inputs):
 * 1 and *key set; 0 when it needs the workload; or an error. */
int bp_claim_key_early(gs_digest *key, const gs_claim *c, int multi, gs_status *st);
/* The key from a built workload. */
gs_status bp_claim_key_workload(gs_digest *key, const gs_claim *c, const gs_multi_workload *w,
                                int multi);
/* A bound on the serialized proof of the claim (for reservations). */
size_t bp_proof_estimate(const gs_claim *c);

/* ---- lanes and devices (lanes.c) ---- */

typedef struct bp_lanes {
    unsigned num_devices;   /* 0: CPU lanes on the host */
    int simulated;          /* the devices are GS_BATCH_SIM_DEVICES's */
    gs_backend_kind backend; /* what the lanes' provers use */
    size_t device_budget[GS_BATCH_MAX_SIM_DEVICES]; /* SIZE_MAX: none */
    unsigned num_lanes;
    uint32_t lane_device[GS_BATCH_MAX_LANES]; /* device index, or UINT32_MAX (CPU lane) */
    unsigned lanes_on[GS_BATCH_MAX_SIM_DEVICES]; /* lanes per device */
    unsigned threads_per_lane;
    size_t host_budget;     /* SIZE_MAX: none */
} bp_lanes;

/* Resolves cfg's lanes, devices, budgets and threads. GS_ERR_INVALID_ARG
 * (bad GS_BATCH_SIM_DEVICES, lanes out of range), GS_ERR_NO_DEVICE. */
gs_status bp_lanes_resolve(bp_lanes *out, const gs_batch_config *cfg, char *err, size_t err_len);
/* Parses "D:BUDGET". */
gs_status bp_sim_parse(const char *spec, unsigned *devices, size_t *budget, char *err,
                       size_t err_len);

/* ---- a run (run.c, report.c) ---- */

/* A claim's executed work, from execute to prove or discard. */
typedef struct bp_work {
    int reused;           /* found in the store and verified: nothing to prove */
    gs_multi_workload w;  /* the statement and its witness (not when reused); the
                           * traces are freed once proven */
    gs_proof *p;          /* proven, to verify and store (one of these two) */
    gs_multi_proof *mp;
} bp_work;

/* What a unit's callbacks learnt, for its join and the report. Written by
 * the unit's own callbacks; read by its parent join (which runs after it)
 * and by unit_done (after its last callback). */
typedef struct bp_unit_state {
    bp_work *work;
    int has_key;
    gs_digest key;
    uint32_t kind;             /* its store object's kind */
    gs_digest statement;       /* a proof's statement digest; a join's root */
    gs_digest payload_hash;    /* Keccak-256 of the payload it verified or wrote */
    int has_ends;              /* fib claims and split joins: */
    gs_fp first_pub[4], last_pub[4]; /* the first and last fib tables' public inputs */
    int reused, corrupt_replaced;
    int on_device;             /* proven by the CUDA backend (peak_bytes counts the host side) */
    gs_status status;
    char reason[256];
    double execute_s, prove_s, verify_s, store_s;
    size_t object_bytes, peak_bytes, device_peak_bytes, reserved_bytes;
    double device_busy_s;
} bp_unit_state;

struct gs_engine;
typedef struct bp_run {
    const gs_batch_config *cfg;
    const gs_manifest *m;
    bp_plan plan;
    bp_budget budget;
    bp_lanes lanes;
    gs_store *store;
    struct gs_engine *eng;
    gs_prover **pv;      /* one resident prover per lane */
    size_t *pv_budget;   /* each one's memory budget (what its gate meters) */
    uint32_t eng_fins;    /* the engine's finisher threads (0: finish on the lanes) */
    unsigned fin_threads; /* host threads of each finisher's work (execute, verify, joins) */
    bp_unit_state *us;
    gs_batch_result *res;
    double t0;
    /* progress and report state: counts by unit_done (serialized); the
     * streams under out_mu (notes come from lane threads) */
    pthread_mutex_t out_mu;
    uint32_t claims_done, units_done;
    double last_draw;
    int drawn; /* a progress line is on the stream */
} bp_run;

/* Observability (report.c), from unit_done and at the end. */
void bp_report_unit(bp_run *r, uint32_t unit);
void bp_report_progress(bp_run *r, int final);
void bp_report_end(bp_run *r);
/* Clears the progress line before another line goes to its stream (under
 * out_mu). */
void bp_report_clear(bp_run *r);
double bp_now(void);

/* ---- errors ---- */
void bp_err(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
