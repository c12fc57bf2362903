/* gs_prover_prove_multi: many tables in one proof, scheduled (docs/architecture.md,
 * "Memory, the gate and the scheduler").
 *
 * Phase A: every table's main commitment, admitted through the memory gate
 * with its main-commit estimate, heaviest first, k workers, no barriers.
 * The roots are absorbed in table order once all are done, then the shared
 * bus challenges are drawn. Phase B: one fused chain per table (aux, quotient,
 * OOD, DEEP, FRI, openings) in its transcript fork, admitted with its
 * estimate, heaviest first, k workers. The workers are the context's pool
 * (src/sched/pool.c): the calling thread and k - 1 threads started on the
 * context's first multi-table proof and kept; worker w works on the
 * device's lane w.
 *
 * When every table's whole footprint fits in the budget at once, phase A's
 * buffers stay for phase B. Otherwise phase A frees them after taking the
 * root and phase B recomputes the main commitment (the same bytes: the root
 * is checked), so admitted bytes never exceed the budget and nothing waits
 * on memory held by a table that cannot run. The proof is the same either
 * way, for every k, budget and order.
 *
 * Shared trees (params.shared_fri = GS_SHARED_TREES): phase A as above,
 * each table's rows hashed for the trace tree; then the chains in three
 * phases (aux, quotient, out-of-domain values and DEEP: gs_prover_part),
 * each round's tree built on this thread between them. Every table is held
 * whole throughout, checked against the budget up front. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "air/logup.h"
#include "gstark/parallel.h"
#include "gstark/sched.h"
#include "prover/prover_internal.h"
#include "util/parallel_share.h"

const uint32_t *gs_prover_debug_table_order = NULL;
int gs_prover_debug_skip_width_check = 0;

typedef struct {
    gs_device *dev;
    prover_state *st;
    gs_multi_proof *mp;
    const gs_table_input *in;
    const gs_mem_estimate *est;
    const uint32_t *order; /* heaviest first */
    uint32_t n;
    int phase, keep;
    int shared;        /* params.shared_fri: chains stop after DEEP and keep their state */
    gs_digest *chain;  /* shared: each table's fork state after beta */
    /* Shared trees: the chains run in parts (phases 2, 3, 4: gs_prover_part
     * 0, 1, 2) in these forks, root the tree of the round before the part. */
    gs_transcript *forks;
    const gs_digest *root;
    unsigned threads_each; /* a worker's share of the threads at a phase's start */
    unsigned threads;      /* all of them */
    atomic_uint share;     /* a worker's share now: threads / the workers still proving */
    atomic_uint active;    /* those workers */
    gs_gate *gate;
    const gs_transcript *tr;
    const bus_challenges *bc;
    gs_prove_stats *ts; /* per table, always present */
    gs_obs *obs;
    int64_t span; /* the phase's top-level span: table spans hang under it */
    atomic_uint next;
    atomic_int err;
} sched;

/* Shared trees: part phase - 2 of table i's chain. Every table is admitted
 * whole (the run holds them all at once: keep), so the gate never waits
 * across a phase's barrier. */
static gs_status run_part(sched *pl, uint32_t i) {
    prover_state *st = &pl->st[i];
    gs_prove_stats *t = &pl->ts[i];
    int part = pl->phase - 2;
    if (part == 0) {
        gs_gate_acquire(pl->gate, pl->est[i].chain);
        gs_transcript_fork(&pl->forks[i], pl->tr, i);
    }
    int64_t sp = gs_obs_begin_under(pl->obs, pl->span, "chain", (int32_t)i, (uint64_t)1 << st->s.log_n,
                                    st->s.cols);
    gs_status r = gs_prover_part(st, &pl->mp->tables[i], &pl->forks[i], pl->bc, part, pl->root, t);
    t->peak_bytes = gs_mem_peak(st->mem);
    gs_obs_end(pl->obs, sp, t->peak_bytes);
    if (part == 2 && r == GS_OK) {
        t->total = t->commit + t->quotient + t->ood + t->deep;
        gs_obs_progress_add(pl->obs, 0, 1);
        pl->chain[i] = pl->forks[i].state;
        gs_gate_release(pl->gate, pl->est[i].total - pl->est[i].retained);
    }
    return r;
}

static gs_status run_table(sched *pl, uint32_t i) {
    prover_state *st = &pl->st[i];
    gs_proof *p = &pl->mp->tables[i];
    gs_prove_stats *t = &pl->ts[i];
    uint64_t rows = (uint64_t)1 << pl->in[i].log_n;
    uint32_t cols = gs_air_num_cols(pl->in[i].air);
    if (pl->phase == 0) {
        gs_gate_acquire(pl->gate, pl->est[i].main_commit);
        int64_t sp = gs_obs_begin_under(pl->obs, pl->span, "commit", (int32_t)i, rows, cols);
        double c0 = gs_prover_now();
        gs_status r = gs_prover_round_trace(st, &p->table, GS_FP_GENERATOR);
        t->commit = gs_prover_now() - c0;
        t->commit_peak_bytes = gs_mem_peak(st->mem);
        gs_obs_end(pl->obs, sp, t->commit_peak_bytes);
        gs_obs_progress_add(pl->obs, 1, 0);
        if (!pl->keep) {
            gs_prover_drop_main(st);
            gs_gate_release(pl->gate, pl->est[i].main_commit);
        }
        return r;
    }
    if (pl->phase >= 2) return run_part(pl, i);
    size_t need = pl->keep ? pl->est[i].chain : pl->est[i].total;
    gs_gate_acquire(pl->gate, need);
    int64_t sp = gs_obs_begin_under(pl->obs, pl->span, "chain", (int32_t)i, rows, cols);
    gs_status r = GS_OK;
    if (!pl->keep) { /* recompute the main commitment; it must give the same cap */
        double c0 = gs_prover_now();
        int64_t csp = gs_obs_begin(pl->obs, "commit", (int32_t)i, rows, cols);
        r = gs_prover_recommit_main(st, &p->table);
        gs_obs_end(pl->obs, csp, gs_mem_peak(st->mem));
        t->commit += gs_prover_now() - c0;
    }
    gs_transcript fork;
    gs_transcript_fork(&fork, pl->tr, i);
    gs_prove_stats one = {0};
    if (r == GS_OK) r = gs_prover_chain(st, p, &fork, pl->bc, &one);
    t->quotient = one.quotient, t->ood = one.ood, t->deep = one.deep, t->fri = one.fri;
    t->queries = one.queries;
    t->total = t->commit + t->quotient + t->ood + t->deep + t->fri + t->queries;
    t->peak_bytes = gs_mem_peak(st->mem);
    t->cpu_fallbacks = st->fallbacks;
    memcpy(t->device_error, st->device_error, sizeof t->device_error);
    gs_obs_end(pl->obs, sp, t->peak_bytes);
    gs_obs_progress_add(pl->obs, 0, 1);
    size_t held = pl->keep ? pl->est[i].total : need;
    if (pl->shared && r == GS_OK) {
        /* Its LDEs, trees and DEEP word wait for the shared FRI; the rest of
         * its admission goes back now (the run checked up front that every
         * table's retained bytes fit together: no one waits forever). */
        pl->chain[i] = fork.state;
        gs_gate_release(pl->gate, held - pl->est[i].retained);
        return r;
    }
    gs_prover_state_free(st); /* this table is done: give its memory back */
    gs_gate_release(pl->gate, held);
    return r;
}

/* Worker w of a phase (w = 0 is the calling thread, already bound): binds
 * the device's lane w and takes the context's share of threads, then proves
 * tables in order until none is left or one failed. The share is read at
 * every parallel loop: a worker that runs out of tables hands its threads
 * to those still proving (a zkVM proof's CPU table, its heaviest by far,
 * would otherwise finish on 1 of 2 cores). */
static void worker(void *arg, unsigned w) {
    sched *pl = arg;
    unsigned saved = gs_threads_get_local();
    const atomic_uint *saved_share = gs_threads_get_local_share();
    gs_threads_set_local_share(&pl->share);
    /* A worker whose binding fails stays unbound: its tables' device work
     * fails (GS_ERR_CUDA) and they fall back to the CPU like after any
     * device failure, or the proof fails. */
    if (w) (void)gs_device_bind(pl->dev, w);
    for (;;) {
        unsigned k = atomic_fetch_add(&pl->next, 1);
        if (k >= pl->n || atomic_load(&pl->err) != GS_OK) break;
        gs_status r = run_table(pl, pl->order[k]);
        if (r != GS_OK) {
            int ok = GS_OK;
            atomic_compare_exchange_strong(&pl->err, &ok, r);
        }
    }
    unsigned left = atomic_fetch_sub(&pl->active, 1) - 1;
    if (left) atomic_store(&pl->share, pl->threads / left ? pl->threads / left : 1);
    gs_threads_set_local(saved);
    gs_threads_set_local_share(saved_share);
}

/* Runs one phase on k workers of the context's pool (the caller is one). */
static gs_status run_phase(sched *pl, gs_pool *pool, unsigned k, int phase) {
    pl->phase = phase;
    atomic_store(&pl->next, 0);
    atomic_store(&pl->active, k);
    atomic_store(&pl->share, pl->threads_each);
    gs_pool_run(pool, k, worker, pl);
    return (gs_status)atomic_load(&pl->err);
}

unsigned gs_tables_parallel_default(void) {
    const char *env = getenv("GS_TABLES_PARALLEL");
    if (env && *env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 256) return (unsigned)v;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned k = cores > 8 ? (unsigned)(cores / 4) : 2;
    return k > 256 ? 256 : k;
}

/* A statement whose bus carries two tuple widths is refused up front
 * (GS_ERR_INVALID_ARG): the verifier would refuse its proof. */
static gs_status check_bus_widths(const gs_table_input *tables, uint32_t n) {
    const gs_air **airs = malloc(n * sizeof *airs);
    if (!airs) return GS_ERR_NOMEM;
    gs_status r = GS_OK;
    for (uint32_t i = 0; i < n; i++)
        if (!(airs[i] = tables[i].air)) r = GS_ERR_INVALID_ARG;
    if (r == GS_OK) r = gs_logup_check_widths(airs, n);
    free(airs);
    return r == GS_ERR_AIR ? GS_ERR_INVALID_ARG : r;
}

/* The shared FRI's plan from the tables' heights (checked here: the
 * setup checks the rest). */
static gs_status shared_plan(gs_fri_plan *f, const gs_table_input *tables, uint32_t n,
                             const gs_params *params) {
    uint32_t *log_n = malloc(n * sizeof *log_n);
    if (!log_n) return GS_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) log_n[i] = tables[i].log_n;
    gs_status r = gs_fri_plan_make(f, params, log_n, n);
    free(log_n);
    return r;
}

/* Shared FRI: every table holds its retained bytes until the FRI's
 * openings, so the gate must hold them all at once, plus the largest
 * table's chain beyond it (or the FRI's own words): otherwise a table would
 * wait for memory that only the end of the proof gives back. Refused up
 * front (GS_ERR_BUDGET) with the numbers. */
static gs_status shared_budget_check(gs_prove_stats *ps, gs_obs *obs, const gs_mem_estimate *est,
                                     uint32_t n, size_t gate_budget, size_t fri_bytes) {
    if (gate_budget == GS_GATE_UNLIMITED) return GS_OK;
    size_t held, extra, need = gs_prover_shared_need(est, n, fri_bytes, &held, &extra);
    if (need <= gate_budget) return GS_OK;
    gs_obs_warn(obs,
                "shared FRI: the tables keep %zu bytes until the shared FRI's openings and need "
                "%zu more at their peak, %zu bytes in all, over the %zu bytes the memory budget "
                "leaves for proving (after %zu bytes of input traces); refused (a larger budget, "
                "or shared_fri = 0, proves it)",
                held, extra, need, gate_budget, ps->input_bytes);
    ps->mem_need_bytes = need + ps->input_bytes;
    return GS_ERR_BUDGET;
}

/* The shared FRI with its own account. */
static gs_status shared_fri(prover_state *st, uint32_t n, gs_multi_proof *mp, gs_transcript *tr,
                            const gs_digest *chain, const gs_fri_plan *plan, run_backend *rb,
                            gs_mem *run, gs_mixed_tree *const *trees, gs_prove_stats *ps) {
    gs_mem *fmem = NULL;
    gs_status r = gs_mem_new(&fmem, run);
    if (r == GS_OK) r = gs_prover_shared_fri(st, n, mp, tr, chain, plan, rb, fmem, trees, ps);
    gs_mem_free(fmem);
    return r;
}

/* After the device failure r in the shared FRI (its words, trees or the
 * tables' openings): every table on the device moves to the CPU and makes
 * its chain again there, from its fork of tr (the transcript as the chains
 * forked it; the same state after beta, which chain[i] takes again); then
 * the shared FRI runs again, on the CPU. Without fallback, r. The same
 * proof bytes. */
static gs_status shared_fri_on_cpu(prover_state *st, uint32_t n, gs_multi_proof *mp,
                                   gs_transcript *tr, gs_digest *chain, const gs_fri_plan *plan,
                                   run_backend *rb, gs_mem *run, gs_prove_stats *ps,
                                   const bus_challenges *bc, gs_status r) {
    for (uint32_t i = 0; i < n; i++) {
        if (st[i].be == gs_backend_cpu()) continue;
        gs_transcript fork;
        gs_transcript_fork(&fork, tr, i);
        gs_prove_stats one = {0};
        GS_TRY(gs_prover_chain_on_cpu(&st[i], &mp->tables[i], &fork, bc, &one, r));
        chain[i] = fork.state;
    }
    return shared_fri(st, n, mp, tr, chain, plan, rb, run, NULL, ps);
}

/* Shared trees: the round's tree (GS_TREE_TRACE, _CHUNK or _AUX) from the
 * tables' row digests, which go; *out stays NULL for an aux round without
 * buses. Built through the backend of a table on the device if there is
 * one (they share the device: CUDA builds it where the digests are), the
 * digests of tables on the CPU then handed over as host memory; the tree is
 * charged to run. */
static gs_status build_tree(gs_mixed_tree **out, prover_state *st, uint32_t n, unsigned tree, gs_mem *run) {
    const gs_buf **rows = malloc(n * sizeof *rows);
    gs_buf *views = malloc(n * sizeof *views);
    unsigned *log_rows = malloc(n * sizeof *log_rows);
    gs_backend *be = st[0].be;
    for (uint32_t i = 0; i < n; i++)
        if (st[i].be != gs_backend_cpu()) be = st[i].be;
    uint32_t m = 0;
    gs_status r = rows && views && log_rows ? GS_OK : GS_ERR_NOMEM;
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        if (!gs_shared_tree_holds(&st[i].s, tree)) continue;
        if (!st[i].rowd[tree].ptr) r = GS_ERR_INVALID_ARG; /* a part did not run */
        views[m] = st[i].rowd[tree];
        if (st[i].be == gs_backend_cpu()) views[m].host = 1;
        rows[m] = &views[m], log_rows[m] = st[i].s.lde_depth;
        m++;
    }
    if (r == GS_OK && m && !be->iface->mixed_build) r = GS_ERR_UNSUPPORTED;
    if (r == GS_OK && m) r = be->iface->mixed_build(be, run, out, st[0].s.hash, rows, log_rows, m, GS_SHARED_TREE_SKIP);
    if (r == GS_OK && *out) gs_mem_charge(run, gs_mixed_tree_bytes_skip(gs_mixed_depth(*out), GS_SHARED_TREE_SKIP));
    for (uint32_t i = 0; i < n; i++) gs_prover_rowd_free(&st[i], tree);
    free(rows), free(views), free(log_rows);
    return r;
}

static void trees_free(gs_mixed_tree **trees, gs_mem *run) {
    for (unsigned i = 0; i < 3; i++) {
        if (!trees[i]) continue;
        gs_mem_uncharge(run, gs_mixed_tree_bytes_skip(gs_mixed_depth(trees[i]), GS_SHARED_TREE_SKIP));
        gs_mixed_free(trees[i]);
        trees[i] = NULL;
    }
}

/* Shared trees, after the main commitments' phase: the trace tree and its
 * root, the bus challenges, then the chains' three parts with the aux and
 * chunk trees built between them. */
static gs_status shared_trees_chains(sched *pl, gs_pool *pool, unsigned k, gs_transcript *tr,
                                     bus_challenges *bc, gs_mixed_tree **trees, gs_mem *run) {
    GS_TRY(build_tree(&trees[GS_TREE_TRACE], pl->st, pl->n, GS_TREE_TRACE, run));
    gs_digest root = gs_mixed_root(trees[GS_TREE_TRACE]);
    gs_transcript_absorb_digest(tr, "trace_root", &root);
    bc->z = gs_transcript_squeeze_fp3(tr, "bus_z");
    bc->alpha = gs_transcript_squeeze_fp3(tr, "bus_alpha");
    pl->root = NULL;
    GS_TRY(run_phase(pl, pool, k, 2)); /* aux traces */
    GS_TRY(build_tree(&trees[GS_TREE_AUX], pl->st, pl->n, GS_TREE_AUX, run));
    gs_digest aux_root = gs_mixed_root(trees[GS_TREE_AUX]); /* zero without buses: not absorbed */
    pl->root = &aux_root;
    GS_TRY(run_phase(pl, pool, k, 3)); /* quotients */
    GS_TRY(build_tree(&trees[GS_TREE_CHUNK], pl->st, pl->n, GS_TREE_CHUNK, run));
    gs_digest chunk_root = gs_mixed_root(trees[GS_TREE_CHUNK]);
    pl->root = &chunk_root;
    return run_phase(pl, pool, k, 4); /* out-of-domain values, DEEP */
}

gs_status gs_prover_prove_multi(gs_prover *pv, gs_multi_proof **out, const gs_table_input *tables,
                                uint32_t n, const gs_params *params, const gs_prove_opts *opts) {
    double start = gs_prover_now();
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!opts) opts = &gs_prover_default_opts;
    if (!pv || !tables || n == 0 || n > GS_MAX_TABLES || !params) return GS_ERR_INVALID_ARG;
    gs_params eff = gs_prover_effective_params(params);
    params = &eff;
    GS_TRY(gs_prover_check_params(params, opts));
    if (!gs_prover_debug_skip_width_check) GS_TRY(check_bus_widths(tables, n));
    gs_prove_stats local = {0}, *ps = opts->stats ? opts->stats : &local;
    memset(ps, 0, sizeof *ps);
    run_backend rb;
    GS_TRY(gs_prover_run_begin(&rb, pv, opts));
    gs_multi_proof *mp = calloc(1, sizeof *mp);
    prover_state *st = calloc(n, sizeof *st);
    gs_mem_estimate *est = calloc(n, sizeof *est);
    int *lean = calloc(n, sizeof *lean);
    uint32_t *order = malloc(n * sizeof *order);
    gs_prove_stats *ts = calloc(n, sizeof *ts);
    gs_mem *run = NULL;
    gs_gate *gate = NULL;
    int shared = params->shared_fri != 0, trees_mode = params->shared_fri == GS_SHARED_TREES;
    gs_digest *chain = shared ? calloc(n, sizeof *chain) : NULL;
    gs_transcript *forks = trees_mode ? calloc(n, sizeof *forks) : NULL;
    gs_mixed_tree *trees[3] = {NULL, NULL, NULL};
    gs_fri_plan plan = {0};
    gs_status r = mp && st && est && lean && order && ts && (chain || !shared) && (forks || !trees_mode)
                      ? gs_mem_new(&run, NULL)
                      : GS_ERR_NOMEM;
    if (r == GS_OK && shared) r = shared_plan(&plan, tables, n, params);
    if (r == GS_OK && !pv->pool) r = gs_pool_new(&pv->pool); /* once per context */
    if (r == GS_OK) {
        mp->params = *params;
        mp->tables = calloc(n, sizeof *mp->tables);
        r = mp->tables ? GS_OK : GS_ERR_NOMEM;
        if (r == GS_OK) mp->num_tables = n;
    }
    int64_t check_span = gs_obs_begin(opts->obs, "check", -1, 0, 0);
    /* The estimates first: the budget rule (which tables go lean, which
     * overrun) is decided before anything is set up (trace checks) or proven. */
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        r = gs_estimate_table_on(&est[i], tables[i].air, tables[i].log_n, params,
                                 rb.cuda ? GS_BACKEND_CUDA : GS_BACKEND_CPU);
        order[i] = i;
    }
    /* The gate meters what the tables charge: device bytes on CUDA (the
     * device budget), host bytes on the CPU. */
    if (r == GS_OK)
        r = gs_prover_budget_check(ps, opts->obs, est, lean, n, pv->mem_budget,
                                   gs_prover_input_bytes(tables, n, &rb), opts->strict_budget, rb.cuda);
    size_t gate_budget = gs_prover_gate_budget(ps), sum = 0;
    size_t fri_bytes = shared ? gs_estimate_shared_fri(&plan, rb.cuda ? GS_BACKEND_CUDA : GS_BACKEND_CPU) : 0;
    if (r == GS_OK && shared) r = shared_budget_check(ps, opts->obs, est, n, gate_budget, fri_bytes);
    for (uint32_t i = 0; r == GS_OK && i < n; i++)
        sum = sum + est[i].total < sum ? SIZE_MAX : sum + est[i].total;
    /* Shared trees: every table is held whole from its main commitment to the
     * shared FRI's openings (the rounds' trees need all of them), with the
     * three trees beside them. */
    size_t tree_bytes = trees_mode ? gs_prover_trees_bytes(plan.log_size) : 0;
    size_t trees_need = trees_mode ? gs_prover_trees_need(est, n, fri_bytes, plan.log_size) : 0;
    if (r == GS_OK && trees_mode && gate_budget != GS_GATE_UNLIMITED && trees_need > gate_budget) {
        gs_obs_warn(opts->obs,
                    "shared trees: the tables need %zu bytes at once, and with the trees and the "
                    "shared FRI %zu, over the %zu bytes the memory budget leaves for proving; "
                    "refused (a larger budget, or shared_fri = 1, proves it)",
                    sum, trees_need, gate_budget);
        ps->mem_need_bytes = trees_need + ps->input_bytes;
        r = GS_ERR_BUDGET;
    }
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        st[i].obs = opts->obs, st[i].index = (int32_t)i;
        st[i].shared_queries = plan.queries;
        r = gs_prover_table_setup(&st[i], &mp->tables[i], &tables[i], params, opts, &rb, run);
        st[i].lean = lean[i];
    }
    /* Heaviest first (ties by index), or a test's order. */
    for (uint32_t a = 1; r == GS_OK && a < n; a++)
        for (uint32_t b = a; b > 0 && est[order[b]].total > est[order[b - 1]].total; b--) {
            uint32_t t = order[b];
            order[b] = order[b - 1], order[b - 1] = t;
        }
    if (gs_prover_debug_table_order) memcpy(order, gs_prover_debug_table_order, n * sizeof *order);
    if (r == GS_OK) r = gs_gate_new(&gate, gate_budget);
    unsigned k = pv->tables_parallel;
    if (k > n) k = n;
    if (k > 256) k = 256;
    unsigned T = pv->threads;
    ps->check = gs_prover_now() - start;
    gs_obs_end(opts->obs, check_span, 0);

    gs_transcript tr;
    gs_transcript_init(&tr, (gs_hash_id)params->hash, GS_TRANSCRIPT_DOMAIN_MULTI);
    bus_challenges bc = {gs_fp3_zero(), gs_fp3_zero()};
    int keep = gate_budget == GS_GATE_UNLIMITED || sum <= gate_budget;
    sched pl = {.dev = rb.dev, .st = st, .mp = mp, .in = tables, .est = est, .order = order,
                .n = n, .phase = 0, .keep = keep, .threads_each = T / k ? T / k : 1, .threads = T,
                .gate = gate, .tr = &tr, .bc = &bc, .ts = ts, .obs = opts->obs, .span = -1,
                .shared = shared, .chain = chain, .forks = forks};
    gs_obs_progress_init(opts->obs, n, -1);
    atomic_init(&pl.next, 0);
    atomic_init(&pl.err, GS_OK);
    atomic_init(&pl.share, pl.threads_each);
    atomic_init(&pl.active, 0);
    double t0 = gs_prover_now();
    if (r == GS_OK && trees_mode) gs_gate_acquire(gate, tree_bytes);
    if (r == GS_OK) {
        gs_multi_statement_absorb(&tr, mp);
        pl.span = gs_obs_begin(opts->obs, "main commits", -1, 0, 0);
        r = run_phase(&pl, pv->pool, k, 0);
        gs_obs_end(opts->obs, pl.span, gs_mem_peak(run));
    }
    ps->commit_peak_bytes = gs_mem_peak(run);
    if (r == GS_OK && trees_mode) {
        ps->commit = gs_prover_now() - t0;
        pl.span = gs_obs_begin(opts->obs, "table chains", -1, 0, 0);
        r = shared_trees_chains(&pl, pv->pool, k, &tr, &bc, trees, run);
        gs_obs_end(opts->obs, pl.span, gs_mem_peak(run));
    }
    for (uint32_t i = 0; r == GS_OK && !trees_mode && i < n; i++)
        gs_cap_absorb(&tr, "trace_root", gs_table_cap(&mp->tables[i].table, &pl.st[i].s, GS_TREE_TRACE),
                      pl.st[i].s.lde_cap);
    if (!trees_mode) ps->commit = gs_prover_now() - t0;
    if (r == GS_OK && !trees_mode) {
        bc.z = gs_transcript_squeeze_fp3(&tr, "bus_z");
        bc.alpha = gs_transcript_squeeze_fp3(&tr, "bus_alpha");
        pl.span = gs_obs_begin(opts->obs, "table chains", -1, 0, 0);
        r = run_phase(&pl, pv->pool, k, 1);
        gs_obs_end(opts->obs, pl.span, gs_mem_peak(run));
    }
    if (r == GS_OK && shared) { /* every chain is done: the one FRI, on this thread */
        gs_transcript forks = tr; /* as the chains forked it */
        gs_gate_acquire(gate, fri_bytes);
        r = shared_fri(st, n, mp, &tr, chain, &plan, &rb, run, trees_mode ? trees : NULL, ps);
        /* (With shared trees a device failure after the main commitments
         * fails the proof: the chains' parts have no CPU fallback yet.) */
        if (r != GS_OK && rb.cuda && gs_status_is_device(r) && !trees_mode) {
            tr = forks;
            r = shared_fri_on_cpu(st, n, mp, &tr, chain, &plan, &rb, run, ps, &bc, r);
        }
        gs_gate_release(gate, fri_bytes);
    }
    gs_obs_progress_done(opts->obs);
    for (uint32_t i = 0; ts && i < n; i++) {
        if (shared && st) ts[i].peak_bytes = st[i].mem ? gs_mem_peak(st[i].mem) : ts[i].peak_bytes;
        ps->quotient += ts[i].quotient, ps->ood += ts[i].ood, ps->deep += ts[i].deep;
        ps->fri += ts[i].fri, ps->queries += ts[i].queries;
    }
    /* Check mode: the buses must balance (the verifier's check, done early). */
    if (r == GS_OK && !opts->skip_check) {
        gs_fp3 total = gs_fp3_zero();
        for (uint32_t i = 0; i < n; i++) total = gs_fp3_add(total, mp->tables[i].table.bus_sum);
        if (!gs_fp3_is_zero(total)) r = GS_ERR_BUS_UNBALANCED;
    }
    ps->peak_bytes = gs_mem_peak(run);
    ps->gate_peak_bytes = gate ? gs_gate_peak(gate) : 0;
    gs_prover_budget_done(ps, opts->obs);
    for (uint32_t i = 0; ts && st && i < n; i++) { /* tables done were freed: see ts */
        ps->cpu_fallbacks += st[i].be ? st[i].fallbacks : ts[i].cpu_fallbacks;
        const char *e = st[i].be ? st[i].device_error : ts[i].device_error;
        if (!ps->device_error[0] && e[0]) memcpy(ps->device_error, e, sizeof ps->device_error);
    }
    if (opts->table_stats && ts) memcpy(opts->table_stats, ts, n * sizeof *ts);
    for (uint32_t i = 0; st && i < n; i++) gs_prover_state_free(&st[i]);
    gs_prover_run_end(&rb, ps, r);
    free(st), free(est), free(lean), free(order), free(ts), free(chain), free(forks);
    trees_free(trees, run);
    gs_gate_free(gate);
    gs_mem_free(run);
    if (r != GS_OK) {
        gs_multi_proof_free(mp);
        return r;
    }
    ps->total = gs_prover_now() - start;
    *out = mp;
    return GS_OK;
}
