/* Test hooks into the prover. Production code never sets them. */
#ifndef GSTARK_PROVER_INTERNAL_H
#define GSTARK_PROVER_INTERNAL_H

#include "gstark/air.h"
#include "backend/backend.h"
#include "backend/device.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "proof/shape.h"
#include "backend/host_arena.h"
#include "merkle/mixed.h"

#include <stdatomic.h>

#include "sched/pool.h"

/* Called after the out-of-domain values are computed and before they are
 * absorbed; may rewrite them (a cheating prover, for soundness tests). */
typedef void (*gs_prover_ood_hook)(const gs_air *air, const gs_proof *p, gs_table_proof *t,
                                   gs_fp3 alpha, gs_fp3 z);
extern gs_prover_ood_hook gs_prover_debug_ood;

/* If set, gs_prove_multi runs the per-table chains in this order (a
 * permutation of 0..n-1) instead of index order: proofs must not change. */
extern const uint32_t *gs_prover_debug_table_order;

/* If set, gs_prove_multi does not refuse a bus carrying two tuple widths (a
 * prover that skips the check, for the verifier's test). */
extern int gs_prover_debug_skip_width_check;


/* The version 3 proof's bytes gs_params_for_provable estimates for tables
 * airs[0..n) of heights log_n under p (params.c; INFINITY if they have no
 * shape): for tests, against the serialized size. */
double gs_params_proof_bytes(const gs_params *p, const gs_air *const *airs, const unsigned *log_n,
                             uint32_t n);

/* A resident prover context (context.c; gs_prover in gstark/prover.h): the
 * device object, the budget, threads and table parallelism resolved once at
 * creation, and the worker pool, created on the first multi-table proof and
 * kept. */
struct gs_prover {
    gs_device *dev;
    size_t mem_budget;        /* the gate's budget, defaults applied */
    unsigned threads;         /* host threads of its proofs */
    unsigned tables_parallel; /* k, before the cap at the table count */
    gs_pool *pool;
    atomic_int busy;          /* a proof is running on it: calls must not overlap */
    unsigned proofs;
    gs_host_arena *host;      /* gs_prover_host_alloc's blocks */
};

/* One proof on a context: what the rounds need of it. */
typedef struct {
    gs_prover *pv;
    gs_device *dev;
    int cuda;
    int check_on_commit; /* check mode on CUDA: each table checked at its main commitment */
    unsigned caller_threads; /* the calling thread's own count, restored at the end */
    gs_obs *obs;             /* the proof's (opts->obs), or NULL */
    uint64_t ref_ns;         /* the busy log's reference event on the obs's clock */
} run_backend;

/* A proof starts on pv: refuses an overlapping call (GS_ERR_INVALID_ARG),
 * binds the calling thread to the device (lane 0), gives it the context's
 * thread count and restarts the device's peak and busy log. */
gs_status gs_prover_run_begin(run_backend *rb, gs_prover *pv, const gs_prove_opts *opts);
/* The proof ends: fills stats' backend name, device peak and busy time (not
 * the fallback count; call after every table's backend is destroyed), gives
 * the device operations to the obs (on its time base, through ref_ns), counts
 * the proof when r is GS_OK, restores the calling thread and frees pv for the
 * next call. Not called when run_begin failed. */
void gs_prover_run_end(run_backend *rb, gs_prove_stats *ps, gs_status r);

/* The budget rule (budget.c): the budget itself is the context's
 * (cfg.mem_budget, else gs_device_default_mem_budget, src/backend/device.c). */
/* The input traces' bytes the budget covers: their sum on the host, 0 on
 * CUDA (the budget there meters device bytes). */
size_t gs_prover_input_bytes(const gs_table_input *t, uint32_t n, const run_backend *rb);
/* Before any proving: lean[i] = 1 for each table whose inputs + total
 * exceeds the budget and whose lean_total is smaller (est[i].total and chain
 * are then set to the lean figures); fills ps->mem_budget, input_bytes,
 * mem_need_bytes (inputs + the largest est[i].total), budget_lean_tables and
 * budget_overruns (tables for which inputs + total still exceeds the
 * budget); when some table does, warns through obs with the numbers and
 * returns GS_OK, or GS_ERR_BUDGET if strict. cuda: the budget meters device
 * bytes, and what it cannot hold of such a table goes out of core (the
 * warning says so) rather than over it. */
gs_status gs_prover_budget_check(gs_prove_stats *ps, gs_obs *obs, gs_mem_estimate *est,
                                 int *lean, uint32_t n, size_t budget, size_t inputs, int strict,
                                 int cuda);
/* The bytes the shared FRI itself charges (its folded words and the
 * layers' trees; estimate.c), for the plan f on that backend. */
size_t gs_estimate_shared_fri(const gs_fri_plan *f, gs_backend_kind kind);
/* A shared-FRI proof's need (budget.c): every table's retained bytes at
 * once (*held) plus the most any one needs beyond them, a table's chain or
 * the FRI's own fri_bytes (*extra); saturating. held, extra may be NULL. */
size_t gs_prover_shared_need(const gs_mem_estimate *est, uint32_t n, size_t fri_bytes,
                             size_t *held, size_t *extra);
/* What the gate may admit: the budget less the inputs (after the check). */
size_t gs_prover_gate_budget(const gs_prove_stats *ps);
/* Shared trees: the levels of each round's tree below this one are not
 * kept; an opening makes them again from the LDE rows (gs_mixed_open_fetch):
 * the trees take an eighth of the memory. */
#define GS_SHARED_TREE_SKIP 3u
/* Shared trees: the three trees of a largest LDE of 2^log_size rows with one
 * build's scratch; and with every table whole at once (est[i].total) and
 * the FRI's own fri_bytes (saturating). */
size_t gs_prover_trees_bytes(unsigned log_size);
size_t gs_prover_trees_need(const gs_mem_estimate *est, uint32_t n, size_t fri_bytes, unsigned log_size);
/* After the run (ps->peak_bytes set): budget_over_bytes, and the note in
 * obs for the report and the metrics (nothing if the check was not reached). */
void gs_prover_budget_done(gs_prove_stats *ps, gs_obs *obs);

/* One table's prover state, from its main commitment to its openings. */
typedef struct {
    gs_backend *be; /* the CPU backend, or this table's own CUDA backend object */
    gs_device *dev; /* the context's: its fallback rule */
    unsigned fallbacks; /* times this table moved to the CPU (0 or 1) */
    char device_error[160]; /* the first device failure's text ("" if none) */
    gs_shape s;
    const gs_air *air;
    const gs_fp *trace, *pub; /* trace NULL: packed, not expanded on the host (yet) */
    const gs_packed_trace *packed;
    gs_fp *expanded; /* packed's host columns, once made (trace then points at them) */
    gs_logup L; /* no interactions: L.aux_cols == 0 */
    gs_mem *mem; /* this table's account (child of the run's) */
    int lean;    /* main coefficients not held past the LDE (estimate.c: lean_total) */
    int check;   /* check mode, not done yet: done at the main commitment (CUDA runs) */
    gs_obs *obs; /* spans of this table's phases (may be NULL) */
    int32_t index;
    uint32_t shared_queries; /* shared FRI: the queries every table answers (set before setup) */
    gs_buf coeffs, lde, quot, chunk_coeffs, chunk_lde, aux, aux_lde;
    gs_buf evals; /* a bus table's uploaded trace, kept for logup_aux (keeps_evals backends) */
    gs_buf *layers; /* s.layers + 1 DEEP/FRI words */
    gs_bcommit *trace_c, *chunk_c, *aux_c, **layer_c;
    /* Shared trees: the row digests of the trace, chunk and aux LDEs
     * (indexed GS_TREE_*; 2^lde_depth each, the backend's buffers, on the
     * device with CUDA) until the round's tree is built from them; the
     * composition challenge. */
    gs_buf rowd[3];
    gs_fp3 alpha;
    gs_fp3 bus_z, bus_alpha; /* the statement's LogUp challenges (zero without buses) */
} prover_state;

/* The LogUp challenges shared by all tables of a statement. */
typedef struct {
    gs_fp3 z, alpha;
} bus_challenges;

/* The pieces of the prover that gs_prove (prover.c), gs_prove_multi
 * (multi.c) and the shared FRI (shared_fri.c) share. */
/* The parameters a proof is made with: params, with coset_leaves taken as
 * 0 under a shared FRI (gs_params_default sets it; the two do not combine,
 * and a proof records what it used). */
gs_params gs_prover_effective_params(const gs_params *params);

/* The final polynomial: `last` (3 columns of 2^log_size over shift * <w>)
 * interpolated in place, its first len coefficients into out. */
gs_status gs_prover_final_poly(gs_backend *be, gs_fp3 *out, size_t len, gs_buf *last,
                               unsigned log_size, gs_fp shift);
double gs_prover_now(void);
extern const gs_prove_opts gs_prover_default_opts;
gs_status gs_prover_check_params(const gs_params *params, const gs_prove_opts *opts);
/* Checks one table's inputs, sets up its state (its account a child of run)
 * and its proof entry. */
gs_status gs_prover_table_setup(prover_state *st, gs_proof *p, const gs_table_input *in,
                                const gs_params *params, const gs_prove_opts *opts, run_backend *rb,
                                gs_mem *run);
/* The main commitment: interpolate, extend, commit (sets the trace tree's
 * cap: t->trace_root when the cap height is 0).
 * After a device failure the table moves to the CPU (when allowed) and the
 * commitment is made there. */
gs_status gs_prover_round_trace(prover_state *st, gs_table_proof *t, gs_fp shift);
/* Everything after the main commitment, in the table's transcript. After a
 * device failure the table moves to the CPU (when allowed): the main
 * commitment is made again there (its cap must be the same) and the chain
 * restarts from the transcript as it was. */
gs_status gs_prover_chain(prover_state *st, gs_proof *p, gs_transcript *tr,
                          const bus_challenges *bc, gs_prove_stats *ps);
/* After the device failure r outside the table's chain (in the shared
 * FRI): the table, on the device, moves to the CPU (when allowed; else r)
 * and makes its main commitment and chain again there, in tr (its fork as
 * it was before the chain). */
gs_status gs_prover_chain_on_cpu(prover_state *st, gs_proof *p, gs_transcript *tr,
                                 const bus_challenges *bc, gs_prove_stats *ps, gs_status r);
void gs_prover_state_free(prover_state *st);
/* The openings of the table's trees at positions qs[0..s.queries): trace,
 * chunks, aux, and (a table with its own FRI) each FRI layer's leaf. */
gs_status gs_prover_open_queries(prover_state *st, gs_table_proof *t, const size_t *qs);

/* Shared trees (params.shared_fri = GS_SHARED_TREES; multi.c): a table's
 * chain in three parts, the round's shared tree built between them. Part 0:
 * the aux trace and its row digests (buses only). Part 1: `root` (the aux
 * tree's) and the bus sum into the table's transcript, the composition
 * challenge, the quotient and its row digests. Part 2: `root` (the chunk
 * tree's) into the transcript, the out-of-domain values, beta, the DEEP
 * word. The same transcript as chain_rounds with the table's own roots. */
gs_status gs_prover_part(prover_state *st, gs_proof *p, gs_transcript *tr, const bus_challenges *bc,
                         int part, const gs_digest *root, gs_prove_stats *ps);
/* Frees st->rowd[tree]; none is a no-op. */
void gs_prover_rowd_free(prover_state *st, unsigned tree);
/* The shared FRI (shared_fri.c) of a multi-table proof whose tables' chains
 * stopped after DEEP (each state holding its LDEs, trees and DEEP word in
 * layers[0]): absorbs chain[i] (table i's fork state after beta) in table
 * order into tr, combines the DEEP words along the plan, commits, folds,
 * grinds, draws the queries, fills mp->fri and opens every table at its
 * reduced positions. mem: the account of the FRI's own buffers. trees: with
 * shared trees the trace, chunk and aux trees (GS_TREE_* order; the aux one
 * NULL without buses), whose roots and paths go into mp->fri; else NULL. */
gs_status gs_prover_shared_fri(prover_state *st, uint32_t n, gs_multi_proof *mp, gs_transcript *tr,
                               const gs_digest *chain, const gs_fri_plan *f, run_backend *rb,
                               gs_mem *mem, gs_mixed_tree *const *trees, gs_prove_stats *ps);
/* Commits the main trace again (gs_prover_round_trace) for a table whose
 * first commitment is in t: GS_ERR_INVALID_ARG unless it gives the same cap. */
gs_status gs_prover_recommit_main(prover_state *st, gs_table_proof *t);
/* Frees the main commitment's buffers and tree (coefficients, LDE). */
void gs_prover_drop_main(prover_state *st);

#endif
