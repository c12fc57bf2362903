/* The prover for one AIR table (docs/protocol.md gives every round). */
#ifndef GSTARK_PROVER_H
#define GSTARK_PROVER_H

#include "gstark/air.h"
#include "gstark/obs.h"
#include "gstark/proof.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wall time of each phase of one proof, in seconds; they add up to total. */
typedef struct gs_prove_stats {
    double check, commit, quotient, ood, deep, fri, queries, total;
    size_t commit_peak_bytes; /* most bytes charged during the main commit(s) */
    size_t peak_bytes;        /* most bytes charged at once over the whole proof */
    size_t gate_peak_bytes;   /* gs_prove_multi: most bytes the gate admitted at once */
    const char *backend;      /* "cpu" or "cuda": what the run used */
    size_t device_peak_bytes; /* most device bytes held at once (0 on the CPU) */
    /* Seconds the device had work from this run (the union of the
     * backend's operations over all streams); device_busy / total is the
     * GPU busy share. */
    double device_busy;
    unsigned cpu_fallbacks;   /* tables moved to the CPU after a device failure */
    char device_error[160];   /* what the first device failure was ("" if none) */
    /* The memory budget (gs_prove_opts.mem_budget), filled before proving
     * starts, so also when the run is refused with GS_ERR_BUDGET. On the
     * host the budget covers the input traces and what the prover charges
     * (peak_bytes); on CUDA, device bytes. */
    size_t mem_budget;         /* the budget in force, defaults applied (GS_GATE_UNLIMITED: none) */
    size_t input_bytes;        /* the input traces it covers (0 on CUDA) */
    size_t mem_need_bytes;     /* the most one table needs alone: input_bytes + its estimate */
    unsigned budget_lean_tables; /* tables proven lean for the budget (gs_mem_estimate.lean_total) */
    unsigned budget_overruns;  /* tables whose need exceeds the budget: each ran alone, over it */
    size_t budget_over_bytes;  /* after the run: input_bytes + peak_bytes - mem_budget, or 0 */
    /* CUDA: the most bytes of buffers held out of core at once, in
     * page-locked host memory the device reads over the bus, because the
     * device budget could not hold them (docs/gpu.md, "Out of core"); 0
     * when everything fit. Not in device_peak_bytes. */
    size_t spill_peak_bytes;
} gs_prove_stats;

/* Where the bulk work runs (docs/gpu.md, "Backends"). CPU is the library
 * default; AUTO takes CUDA when the build has it and a device is present. */
typedef enum gs_backend_kind {
    GS_BACKEND_CPU = 0,
    GS_BACKEND_CUDA = 1,
    GS_BACKEND_AUTO = 2
} gs_backend_kind;

/* The defaults gs_prove_multi uses when opts leave them 0. */
unsigned gs_tables_parallel_default(void);
size_t gs_mem_budget_default(void);

/* Upper bounds of the bytes a table's proving charges (one place for the
 * formulas, src/prover/estimate.c; tests check them against the measured
 * peaks): main_commit covers the main trace's coefficients, LDE and Merkle
 * tree; total is the table's whole peak, the larger of the end of the
 * quotient round (main, LogUp aux trace, LDE and tree, chunk coefficients,
 * their LDE and tree) and the end of FRI (the coefficients freed; the DEEP
 * word and every FRI layer with its tree added); chain = total -
 * main_commit, what the table needs beyond its main commitment. lean_total
 * (<= total) is the peak when the main coefficients are not held through
 * the quotient round but interpolated again from the trace for the
 * out-of-domain values: what the prover does for a table whose total does
 * not fit the memory budget. retained (<= total, and <= lean_total) is what
 * the table holds after its DEEP word in a shared-FRI proof
 * (params.shared_fri = 1) until the shared FRI's openings are done: the
 * LDEs and trees of main, aux and chunks and the DEEP word. */
typedef struct gs_mem_estimate {
    size_t main_commit, chain, total, lean_total;
    size_t retained;
} gs_mem_estimate;
gs_status gs_estimate_table(gs_mem_estimate *out, const gs_air *air, unsigned log_n,
                            const gs_params *params);
/* The same for the backend the table will run on. Both backends' Merkle
 * trees keep only their upper levels (gs_merkle_skip_for); GS_BACKEND_CPU
 * counts the host tree's bytes, CUDA and AUTO the device tree's with its
 * commit's scratch (gstark/cuda_merkle.h). gs_estimate_table gives the
 * larger of the two, an upper bound on either backend. */
gs_status gs_estimate_table_on(gs_mem_estimate *out, const gs_air *air, unsigned log_n,
                               const gs_params *params, gs_backend_kind kind);
/* What a multi-table proof with params.shared_fri = 1 needs at once on that
 * backend (the larger of both for AUTO): every table's retained bytes, plus
 * the largest of one table's total beyond its retained bytes and the shared
 * FRI's own words and trees. gs_prove_multi refuses such a run up front
 * (GS_ERR_BUDGET) when this (with its tables' lean figures where the budget
 * makes them lean) exceeds the budget less the input traces. */
gs_status gs_estimate_shared(size_t *out, const gs_air *const *airs, const unsigned *log_n,
                             uint32_t n, const gs_params *params, gs_backend_kind kind);

/* Parameters whose provable security (docs/protocol.md, "Security"; the
 * level gs_multi_proof_security_provable gives, or gs_proof_security_provable
 * for one table) is at least `bits` for the n tables airs[i] of 2^log_n[i]
 * rows, chosen for the smallest proof: from `base` (grinding, final degree,
 * FRI arity and hash kept), every blowup from 2^min_log_blowup (or the least
 * the constraint degrees allow, if more) up to 2^max_log_blowup (1..6), each
 * with the least query
 * count reaching the target (and the verifier's conjectured minimum), and of
 * those the smallest estimated version 3 proof. GS_ERR_PROOF_PARAMS if no
 * choice reaches it (then *reachable, if not NULL, is the most the search
 * reached), GS_ERR_INVALID_ARG for bits outside 1..GS_MAX_SECURITY_BITS. */
gs_status gs_params_for_provable(gs_params *out, unsigned bits, const gs_air *const *airs,
                                 const unsigned *log_n, uint32_t n, const gs_params *base,
                                 unsigned min_log_blowup, unsigned max_log_blowup,
                                 unsigned *reachable);

typedef struct gs_prove_opts {
    int skip_check;        /* 0 (default): refuse a trace that does not satisfy the AIR */
    int allow_insecure;    /* 0 (default): refuse parameters below GS_MIN_SECURITY_BITS */
    const char *air_desc;  /* copied into the proof header (at most 127 bytes); may be NULL */
    gs_prove_stats *stats; /* filled in if not NULL */
    /* gs_prove_multi only: per-table phases (commit, quotient, ood, deep, fri,
     * queries, and total = their sum), one entry per table, if not NULL. */
    gs_prove_stats *table_stats;
    /* 0 = default, docs/knobs.md. gs_prove_multi only: tables proven at once
     * (GS_TABLES_PARALLEL, else max(2, cores / 4)). The memory budget in bytes
     * (GS_GATE_UNLIMITED for none; 0: 80% of the available RAM, or the device
     * budget on CUDA), the most the gate admits at once; any other value,
     * however small, is taken as given and follows strict_budget's rule. */
    unsigned tables_parallel;
    size_t mem_budget;
    /* What a table whose estimate alone exceeds mem_budget does, even proven
     * lean (the scheduler cannot split a table). 0 (default): it is proven alone, after
     * a warning through obs with the numbers (needed, budget) and counted in
     * stats->budget_overruns; the charged peak may then exceed the budget by
     * up to the difference. 1: the run is refused with GS_ERR_BUDGET before
     * anything is proven (stats->mem_need_bytes and mem_budget say by how
     * much). When no table exceeds the budget, the charged peak stays within
     * it (docs/architecture.md, "Memory, the gate and the scheduler"). The
     * rule applies to gs_prove too (its one table, nothing to schedule). */
    int strict_budget;
    /* gs_prove_multi: spans (check, main commits, table chains; per table
     * commit, quotient, ood, deep, fri, queries) and progress go here if not
     * NULL; gs_prove and gs_prove_multi: warnings and the budget note. */
    gs_obs *obs;
    /* The backend (GS_BACKEND_CPU by default). With CUDA, a table whose
     * device work fails (a CUDA error, or a request over the device budget)
     * is proven on the CPU instead and counted in stats->cpu_fallbacks, unless
     * no_fallback is set: then the proof fails with that error. The proof
     * bytes are the same on every backend. */
    gs_backend_kind backend;
    int no_fallback;
    /* Device bytes the run may hold at once (0 = 90% of the device's free
     * memory when the run starts). */
    size_t device_mem_budget;
} gs_prove_opts;

/* Prove that `trace` (column-major, gs_air_num_cols(air) columns of 2^log_n)
 * satisfies the finalized `air` with public inputs `pub`. opts may be NULL.
 * Errors: GS_ERR_INVALID_ARG (shape or parameters out of range),
 * GS_ERR_PROOF_PARAMS (below the security minimum), GS_ERR_AIR_DEGREE,
 * GS_ERR_AIR_UNSATISFIED (check mode), GS_ERR_NOMEM, GS_ERR_NO_DEVICE
 * (GS_BACKEND_CUDA without a device), GS_ERR_CUDA or GS_ERR_DEVICE_MEM (device
 * failures with no_fallback), GS_ERR_BUDGET (strict_budget, the table's
 * estimate above mem_budget; nothing proven), GS_ERR_UNSUPPORTED for an
 * AIR with bus interactions (those are proven with the other tables on their
 * buses, by the multi-table prover). */
gs_status gs_prove(gs_proof **out, const gs_air *air, const gs_fp *trace, unsigned log_n,
                   const gs_fp *pub, const gs_params *params, const gs_prove_opts *opts);

/* A main trace given packed (docs/architecture.md, "Packed traces"): bytes
 * from which `expand` makes the trace's columns on the host and, where it is
 * set, `expand_device` on a CUDA device, so the CUDA backend uploads the
 * packed bytes and makes the columns there (the zkVM's CPU table: 32 bytes
 * a row instead of 264). The prover expands on the host whatever needs the
 * columns there (the CPU backend, a host check, a fallback to the CPU).
 * Both expanders must give the same columns: the proof is the same bytes
 * either way. data must stay unchanged until the proof returns. */
typedef struct gs_packed_trace {
    const void *data;
    size_t bytes;
    /* Rows [r0, r1) of every column: column c's row r at
     * out[c * stride + (r - r0)]; may run on several threads at once, for
     * disjoint ranges. */
    void (*expand)(const void *data, gs_fp *out, size_t stride, uint64_t r0, uint64_t r1,
                   const void *ctx);
    /* Every row, from a device copy of data, into the device buffer out
     * (column-major, 2^log_n rows a column), queued on `stream` (a
     * cudaStream_t); 0 when queued. NULL: the host expands. */
    int (*expand_device)(const void *data, uint64_t *out, unsigned log_n, void *stream,
                         const void *ctx);
    const void *ctx;
} gs_packed_trace;

/* Every row of pk's columns into out (column c at out + c 2^log_n), on the
 * host's threads (gs_parallel_for over ranges of rows): what the prover
 * does where it needs a packed trace's columns on the host. */
void gs_packed_trace_expand(const gs_packed_trace *pk, gs_fp *out, unsigned log_n);

/* One table of a multi-table statement. */
typedef struct gs_table_input {
    const gs_air *air; /* finalized; may declare bus interactions */
    const gs_fp *trace; /* NULL when packed is set */
    unsigned log_n;
    const gs_fp *pub;
    const char *air_desc; /* copied into the table's entry; may be NULL */
    const gs_packed_trace *packed; /* the trace packed, instead of trace; NULL: none */
} gs_table_input;

#define GS_MAX_TABLES 4096u

/* Prove n tables together (docs/protocol.md, "Many tables"): the statement,
 * every main commitment (roots absorbed in table order), the shared LogUp
 * challenges, then one independent chain per table in its transcript fork.
 * GS_ERR_INVALID_ARG for a bus carrying tuples of two widths (its proof
 * would be refused). In check mode also GS_ERR_BUS_UNBALANCED when the buses
 * do not cancel;
 * GS_ERR_BUDGET under strict_budget when a table alone needs more than the
 * budget (before any table is set up or proven).
 * stats: check and commit cover all tables; the other phases are summed
 * over tables. */
gs_status gs_prove_multi(gs_multi_proof **out, const gs_table_input *tables, uint32_t n,
                         const gs_params *params, const gs_prove_opts *opts);

/* A one-shot proof's context made ahead, on a thread of its own, while the
 * caller still builds the traces (on CUDA about 0.1 s of the device's
 * set-up hidden behind the trace generation; the zkVM and `gstark prove`
 * use it). gs_prover_ahead_start takes the opts the proof will be made
 * with (backend, device and host budgets, tables_parallel, no_fallback,
 * obs: its "setup ahead" span); it returns NULL for the CPU backend (a CPU
 * context costs nothing to make) or when no thread can be started, and a
 * NULL handle makes gs_prove_ahead / gs_prove_multi_ahead exactly gs_prove
 * / gs_prove_multi. Those consume the handle: they wait for the context,
 * prove on it exactly as the one-shot call would (the same bytes, errors and
 * stats, the wait counted as the set-up, a "setup" span) and free it.
 * gs_prover_ahead_free waits and frees without proving (error paths; NULL
 * is a no-op). A handle is used once, from one thread. */
typedef struct gs_prover_ahead gs_prover_ahead;
gs_prover_ahead *gs_prover_ahead_start(const gs_prove_opts *opts);
gs_status gs_prove_ahead(gs_prover_ahead *a, gs_proof **out, const gs_air *air, const gs_fp *trace,
                         unsigned log_n, const gs_fp *pub, const gs_params *params,
                         const gs_prove_opts *opts);
gs_status gs_prove_multi_ahead(gs_prover_ahead *a, gs_multi_proof **out, const gs_table_input *tables,
                               uint32_t n, const gs_params *params, const gs_prove_opts *opts);
void gs_prover_ahead_free(gs_prover_ahead *a);

/* ---- resident provers (docs/architecture.md, "Contexts and lanes") ----
 * A gs_prover is a run made once and reused: a device object (the CPU, or
 * one CUDA device with its accountant, budget, busy log and fallback rule),
 * the host budget and worker threads, and on CUDA the streams, pinned
 * staging buffers and cached tables every proof made on it reuses, so no
 * proof pays for them. gs_prove and gs_prove_multi are one-shot wrappers (a
 * context made from opts and freed around one proof). Proof bytes are the
 * same whichever way a proof is made. One context proves one statement at a
 * time (calls on it must not overlap: an overlapping call is refused with
 * GS_ERR_INVALID_ARG); several contexts may share a device (lanes), each
 * with its share of the device budget, and may be used from different
 * threads at once. Defaults are resolved at creation (get_info reports
 * them). */
typedef struct gs_prover gs_prover;

typedef struct gs_prover_cfg {
    gs_backend_kind backend;  /* CPU (default), CUDA or AUTO (CUDA if a device is present) */
    int device;               /* CUDA device index (default 0) */
    /* Contexts sharing the device (lanes per device; 0 = 1): the default
     * device budget is divided between them. */
    unsigned device_share;
    /* Device bytes this context may hold at once (0: 90% of the device's
     * free memory at creation / device_share). */
    size_t device_mem_budget;
    size_t mem_budget;        /* host bytes, as gs_prove_opts.mem_budget (0: default rule) */
    /* Host threads for this context's proofs (0: the creating thread's
     * gs_threads_get() at creation); the calling thread's own count is
     * restored after each proof. */
    unsigned threads;
    unsigned tables_parallel; /* as gs_prove_opts.tables_parallel (0: default) */
    int no_fallback;          /* as gs_prove_opts.no_fallback */
} gs_prover_cfg;

/* cfg NULL: all defaults. GS_ERR_NO_DEVICE for CUDA without a device,
 * GS_ERR_INVALID_ARG for a device index out of range (or negative), a
 * backend outside the enum, or device_share, threads or tables_parallel
 * above 256. */
gs_status gs_prover_new(gs_prover **out, const gs_prover_cfg *cfg);
void gs_prover_free(gs_prover *pv); /* NULL is a no-op */

/* gs_prove / gs_prove_multi on the context: opts's backend, no_fallback,
 * device_mem_budget, mem_budget and tables_parallel are ignored (the
 * context's configuration holds); everything else in opts applies. */
gs_status gs_prover_prove(gs_prover *pv, gs_proof **out, const gs_air *air, const gs_fp *trace,
                          unsigned log_n, const gs_fp *pub, const gs_params *params,
                          const gs_prove_opts *opts);
gs_status gs_prover_prove_multi(gs_prover *pv, gs_multi_proof **out, const gs_table_input *tables,
                                uint32_t n, const gs_params *params, const gs_prove_opts *opts);

/* Host memory for the traces a context proves: `bytes` (> 0) zeroed bytes,
 * 64-byte aligned, in *out. On a CUDA context the memory is page-locked
 * where the driver allows it, so the backend uploads a trace there in one
 * DMA at the bus's speed (gstark/cuda.h) instead of through its staging
 * copies. gs_prover_host_free gives a block back to the context, which keeps
 * it for the next request of at most its size (the smallest that fits;
 * sizes round up to 2 MiB): a resident prover pays for pinning and page
 * faults once, not per proof. Blocks are released by gs_prover_free (the
 * memory must not be used after it). The budgets do not meter these bytes
 * (they are the caller's traces, as any trace passed to a proof).
 * GS_ERR_INVALID_ARG (NULL, 0), GS_ERR_NOMEM. Thread-safe. */
gs_status gs_prover_host_alloc(gs_prover *pv, void **out, size_t bytes);
/* The same without the zeroing: the bytes are unspecified (a reused block
 * holds what its last user left), for a caller that writes every byte it
 * reads; the same blocks, errors and reuse. */
gs_status gs_prover_host_alloc_dirty(gs_prover *pv, void **out, size_t bytes);
/* p from gs_prover_host_alloc on pv (NULL: no-op); GS_ERR_INVALID_ARG for
 * any other pointer or one already given back. */
gs_status gs_prover_host_free(gs_prover *pv, void *p);

/* What a context is bound to, with its defaults resolved. */
typedef struct gs_prover_info {
    const char *backend;      /* "cpu" or "cuda" */
    int device;               /* -1 on the CPU */
    size_t mem_budget;        /* GS_GATE_UNLIMITED for none */
    size_t device_mem_budget; /* 0 on the CPU */
    unsigned threads, tables_parallel;
    unsigned proofs;          /* proofs made on it so far */
    /* gs_prover_host_alloc's blocks: bytes held (in use or cached), of
     * them page-locked. */
    size_t host_bytes, host_pinned_bytes;
} gs_prover_info;
void gs_prover_get_info(gs_prover_info *out, const gs_prover *pv);

#ifdef __cplusplus
}
#endif
#endif
