/* Resident prover contexts (src/prover/context.c) and the worker pool
 * (src/sched/pool.c): many proofs (fib, mix, synth presets) on one context
 * give the same bytes as gs_prove / gs_prove_multi one-shot, in any order
 * and after failed proofs; two contexts used from two threads at once give
 * the same bytes; the configuration is honoured (get_info, the budget a
 * proof uses, the thread count inside a proof, the table parallelism of the
 * pool, the caller's own count restored); the budget rules (a device_share
 * of 2 halves the default device budget, through the CPU-side function that
 * computes it); free(NULL) is a no-op; bad configurations and overlapping
 * calls are refused; host memory for traces (gs_prover_host_alloc) is zeroed,
 * reused smallest-first and never handed to two holders, also from four
 * threads at once. With a CUDA device, proofs on a context bound to the
 * last device (index > 0 on a machine with several) equal the CPU's.
 *
 * Worker threads never call CHECK (its counters are not thread-safe): they
 * record into atomics and plain fields that main checks after joining. */
#include <pthread.h>
#include <stdatomic.h>

#include "backend/device.h"
#include "cuda/device.h"
#include "gstark/cuda.h"
#include "gstark/gstark.h"
#include "gstark/parallel.h"
#include "prover/prover_internal.h"
#include "sched/pool.h"
#include "test_util.h"

typedef struct {
    uint8_t *b;
    size_t n;
} blob;

static int same(const blob *x, const blob *y) {
    return x->b && y->b && x->n == y->n && memcmp(x->b, y->b, x->n) == 0;
}

/* ---- the statements ---- */

#define N_SINGLE 4
#define N_MULTI 3

typedef struct {
    gs_workload single[N_SINGLE];
    gs_multi_workload multi[N_MULTI];
    gs_table_input *inputs[N_MULTI];
    blob ref_single[N_SINGLE], ref_multi[N_MULTI];
} statements;

static const gs_params g_par = {2, 3, 4, 40, 1, 0, 0, 0, 0}; /* blowup 4, 80 bits from the queries */

static gs_status prove_single(blob *out, gs_prover *pv, const gs_workload *w,
                              const gs_prove_opts *o) {
    gs_proof *p = NULL;
    out->b = NULL, out->n = 0;
    gs_status s = pv ? gs_prover_prove(pv, &p, w->air, w->trace, w->log_n, w->pub, &g_par, o)
                     : gs_prove(&p, w->air, w->trace, w->log_n, w->pub, &g_par, o);
    if (s == GS_OK) s = gs_proof_serialize(&out->b, &out->n, p);
    gs_proof_free(p);
    return s;
}

static gs_status prove_many(blob *out, gs_prover *pv, const statements *S, int m,
                            const gs_prove_opts *o) {
    gs_multi_proof *p = NULL;
    out->b = NULL, out->n = 0;
    uint32_t n = S->multi[m].num_tables;
    gs_status s = pv ? gs_prover_prove_multi(pv, &p, S->inputs[m], n, &g_par, o)
                     : gs_prove_multi(&p, S->inputs[m], n, &g_par, o);
    if (s == GS_OK) s = gs_multi_proof_serialize(&out->b, &out->n, p);
    gs_multi_proof_free(p);
    return s;
}

static void statements_make(statements *S) {
    memset(S, 0, sizeof *S);
    CHECK(gs_airs_fib(&S->single[0], 6, 1, 1) == GS_OK);
    CHECK(gs_airs_fib(&S->single[1], 10, 3, 5) == GS_OK);
    gs_mix_params mp = {12, 3, 7, 3};
    CHECK(gs_airs_mix(&S->single[2], &mp) == GS_OK);
    gs_mix_params mp2 = {40, 2, 8, 11};
    CHECK(gs_airs_mix(&S->single[3], &mp2) == GS_OK);
    static const struct {
        const char *name;
        unsigned shrink;
    } presets[N_MULTI] = {{"vm", 12}, {"uniform", 12}, {"skew", 14}};
    for (int m = 0; m < N_MULTI; m++) {
        CHECK(gs_synth_preset(&S->multi[m], presets[m].name, presets[m].shrink, 4) == GS_OK);
        uint32_t n = S->multi[m].num_tables;
        S->inputs[m] = calloc(n ? n : 1, sizeof *S->inputs[m]);
        for (uint32_t i = 0; i < n; i++) {
            const gs_workload *t = &S->multi[m].tables[i];
            S->inputs[m][i] = (gs_table_input){.air = t->air, .trace = t->trace, .log_n = t->log_n,
                                               .pub = t->pub};
        }
    }
    /* The references: one-shot, the library defaults. */
    for (int i = 0; i < N_SINGLE; i++)
        CHECK(prove_single(&S->ref_single[i], NULL, &S->single[i], NULL) == GS_OK);
    for (int m = 0; m < N_MULTI; m++) {
        gs_prove_opts o = {.tables_parallel = 2};
        CHECK(prove_many(&S->ref_multi[m], NULL, S, m, &o) == GS_OK);
    }
}

static void statements_free(statements *S) {
    for (int i = 0; i < N_SINGLE; i++) {
        gs_workload_free(&S->single[i]);
        free(S->ref_single[i].b);
    }
    for (int m = 0; m < N_MULTI; m++) {
        gs_multi_workload_free(&S->multi[m]);
        free(S->inputs[m]);
        free(S->ref_multi[m].b);
    }
}

/* Every statement on pv, `rounds` times, in an order that mixes single and
 * multi-table proofs; returns the number of proofs whose bytes differ from
 * the references (or failed). */
static int prove_all(gs_prover *pv, const statements *S, int rounds, uint64_t salt) {
    int bad = 0;
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < N_SINGLE + N_MULTI; j++) {
            int at = (int)((j + (uint64_t)r * 3 + salt) % (N_SINGLE + N_MULTI));
            blob b;
            gs_prove_stats st;
            gs_prove_opts o = {.stats = &st};
            gs_status s = at < N_SINGLE ? prove_single(&b, pv, &S->single[at], &o)
                                        : prove_many(&b, pv, S, at - N_SINGLE, &o);
            const blob *ref = at < N_SINGLE ? &S->ref_single[at] : &S->ref_multi[at - N_SINGLE];
            bad += s != GS_OK || !same(&b, ref);
            free(b.b);
        }
    return bad;
}

/* ---- one-shot contexts made ahead (gs_prover_ahead_start) ---- */

/* A context made ahead (AUTO: a CPU one on a thread here, a CUDA one on a
 * GPU machine) proves every statement to the one-shot bytes and counts the
 * wait as set-up; NULL handles (the CPU backend) are the one-shot calls;
 * bad arguments get the one-shot call's error and consume the handle; a
 * handle freed unused is fine (ASan/LSan check the rest). */
static void test_ahead(const statements *S) {
    gs_prove_opts auto_o = {.backend = GS_BACKEND_AUTO}, cpu_o = {.backend = GS_BACKEND_CPU};
    CHECK(gs_prover_ahead_start(&cpu_o) == NULL);
    gs_prover_ahead_free(NULL);
    gs_prover_ahead_free(gs_prover_ahead_start(&auto_o));
    for (int i = 0; i < N_SINGLE; i++)
        for (int k = 0; k < 2; k++) {
            const gs_workload *w = &S->single[i];
            gs_prove_stats st;
            gs_prove_opts o = {.backend = k ? GS_BACKEND_AUTO : GS_BACKEND_CPU, .stats = &st};
            gs_proof *p = NULL;
            blob b = {0};
            gs_status r = gs_prove_ahead(gs_prover_ahead_start(&o), &p, w->air, w->trace, w->log_n,
                                         w->pub, &g_par, &o);
            CHECK(r == GS_OK);
            if (r == GS_OK) CHECK(gs_proof_serialize(&b.b, &b.n, p) == GS_OK);
            CHECK(same(&b, &S->ref_single[i]));
            CHECK(r != GS_OK || (st.check >= 0 && st.total >= st.check));
            free(b.b);
            gs_proof_free(p);
        }
    for (int m = 0; m < N_MULTI; m++) {
        gs_prove_opts o = {.backend = GS_BACKEND_AUTO, .tables_parallel = 2};
        gs_multi_proof *p = NULL;
        blob b = {0};
        gs_status r = gs_prove_multi_ahead(gs_prover_ahead_start(&o), &p, S->inputs[m],
                                           S->multi[m].num_tables, &g_par, &o);
        CHECK(r == GS_OK);
        if (r == GS_OK) CHECK(gs_multi_proof_serialize(&b.b, &b.n, p) == GS_OK);
        CHECK(same(&b, &S->ref_multi[m]));
        free(b.b);
        gs_multi_proof_free(p);
    }
    /* The one-shot calls' errors, the handle consumed either way. */
    const gs_workload *w = &S->single[0];
    gs_proof *p = NULL;
    CHECK(gs_prove_ahead(gs_prover_ahead_start(&auto_o), NULL, w->air, w->trace, w->log_n, w->pub,
                         &g_par, &auto_o) == GS_ERR_INVALID_ARG);
    CHECK(gs_prove_ahead(gs_prover_ahead_start(&auto_o), &p, NULL, w->trace, w->log_n, w->pub,
                         &g_par, &auto_o) == GS_ERR_INVALID_ARG && p == NULL);
    CHECK(gs_prove_ahead(gs_prover_ahead_start(&auto_o), &p, S->multi[0].tables[0].air, w->trace,
                         w->log_n, w->pub, &g_par, &auto_o) ==
          gs_prove(&p, S->multi[0].tables[0].air, w->trace, w->log_n, w->pub, &g_par, &auto_o));
    gs_multi_proof *mp = NULL;
    CHECK(gs_prove_multi_ahead(gs_prover_ahead_start(&auto_o), &mp, S->inputs[0], 0, &g_par,
                               &auto_o) == GS_ERR_INVALID_ARG && mp == NULL);
}

/* ---- many proofs on one context ---- */

static void test_many_proofs(const statements *S) {
    static const gs_prover_cfg cfgs[] = {
        {.threads = 2, .tables_parallel = 2},
        {.threads = 1, .tables_parallel = 3},
        {.threads = 3, .tables_parallel = 1, .mem_budget = 1}, /* every table over it: one at a time */
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        gs_prover *pv = NULL;
        CHECK(gs_prover_new(&pv, &cfgs[c]) == GS_OK && pv);
        gs_obs *quiet = NULL;
        CHECK(gs_obs_new(&quiet) == GS_OK);
        gs_obs_set_warning_stream(quiet, NULL); /* the 1-byte budget warns on every proof */
        int bad = 0;
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < N_SINGLE + N_MULTI; j++) {
                blob b;
                gs_prove_opts o = {.obs = quiet};
                gs_status s = j < N_SINGLE ? prove_single(&b, pv, &S->single[j], &o)
                                           : prove_many(&b, pv, S, j - N_SINGLE, &o);
                bad += s != GS_OK ||
                       !same(&b, j < N_SINGLE ? &S->ref_single[j] : &S->ref_multi[j - N_SINGLE]);
                free(b.b);
            }
        CHECK(bad == 0);
        gs_prover_info info;
        gs_prover_get_info(&info, pv);
        CHECK(info.proofs == 2 * (N_SINGLE + N_MULTI));
        /* The pool was made once: k - 1 threads whatever the number of proofs. */
        CHECK(gs_pool_threads(pv->pool) == cfgs[c].tables_parallel - 1);
        printf("cfg %zu (threads %u, k %u%s): %u proofs on one context, %d differing from "
               "one-shot; %u pool thread(s)\n",
               c, cfgs[c].threads, cfgs[c].tables_parallel, cfgs[c].mem_budget ? ", 1-byte budget" : "",
               info.proofs, bad, gs_pool_threads(pv->pool));
        gs_obs_free(quiet);
        gs_prover_free(pv);
    }
    /* A NULL cfg: every default. */
    gs_prover *pv = NULL;
    CHECK(gs_prover_new(&pv, NULL) == GS_OK);
    CHECK(prove_all(pv, S, 1, 5) == 0);
    gs_prover_free(pv);
}

/* ---- failures leave the context usable ---- */

static void test_failures(const statements *S) {
    gs_prover_cfg cfg = {.threads = 2, .tables_parallel = 2};
    gs_prover *pv = NULL;
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    /* A wrong witness: refused, nothing counted; the next proofs are right. */
    const gs_workload *w = &S->single[1];
    size_t cells = (size_t)2 << w->log_n;
    gs_fp *bad = malloc(cells * sizeof *bad);
    memcpy(bad, w->trace, cells * sizeof *bad);
    bad[cells / 3] = gs_fp_add(bad[cells / 3], 1);
    gs_proof *p = NULL;
    CHECK(gs_prover_prove(pv, &p, w->air, bad, w->log_n, w->pub, &g_par, NULL) ==
          GS_ERR_AIR_UNSATISFIED && p == NULL);
    free(bad);
    /* A statement whose buses do not balance. */
    const gs_multi_workload *mw = &S->multi[0];
    uint32_t n = mw->num_tables;
    gs_table_input *in = calloc(n, sizeof *in);
    memcpy(in, S->inputs[0], n * sizeof *in);
    gs_multi_proof *mp = NULL;
    CHECK(gs_prover_prove_multi(pv, &mp, in, 1, &g_par, NULL) == GS_ERR_BUS_UNBALANCED && mp == NULL);
    free(in);
    /* strict_budget with a budget no table fits: refused before proving. */
    gs_prover_cfg tiny = {.mem_budget = 1, .tables_parallel = 2};
    gs_prover *pt = NULL;
    CHECK(gs_prover_new(&pt, &tiny) == GS_OK);
    gs_prove_stats st;
    gs_prove_opts strict = {.strict_budget = 1, .stats = &st};
    blob b;
    CHECK(prove_many(&b, pt, S, 1, &strict) == GS_ERR_BUDGET && b.b == NULL);
    CHECK(st.mem_budget == 1 && st.mem_need_bytes > 1);
    gs_prover_free(pt);
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    CHECK(info.proofs == 0);
    CHECK(prove_all(pv, S, 1, 1) == 0);
    gs_prover_get_info(&info, pv);
    CHECK(info.proofs == N_SINGLE + N_MULTI);
    /* Argument errors. */
    CHECK(gs_prover_prove(NULL, &p, w->air, w->trace, w->log_n, w->pub, &g_par, NULL) ==
          GS_ERR_INVALID_ARG && p == NULL);
    CHECK(gs_prover_prove_multi(NULL, &mp, S->inputs[0], n, &g_par, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_prover_prove(pv, NULL, w->air, w->trace, w->log_n, w->pub, &g_par, NULL) ==
          GS_ERR_INVALID_ARG);
    CHECK(gs_prover_prove_multi(pv, &mp, S->inputs[0], 0, &g_par, NULL) == GS_ERR_INVALID_ARG);
    /* An AIR with buses needs the multi-table prover. */
    CHECK(gs_prover_prove(pv, &p, mw->tables[0].air, mw->tables[0].trace, mw->tables[0].log_n,
                          mw->tables[0].pub, &g_par, NULL) == GS_ERR_UNSUPPORTED);
    gs_prover_free(pv);
    printf("failures: wrong witness, unbalanced buses, strict budget refused; the context "
           "proves right after them\n");
}

/* ---- the configuration is honoured ---- */

static atomic_uint g_thr_min, g_thr_max, g_hook_calls;
static gs_prover *g_reenter; /* the context a hook tries to prove on again */
static const statements *g_S;
static atomic_int g_reenter_status;

/* Runs inside a table's chain (on the caller or a pool worker): what the
 * thread count is there; and, when asked, a second proof on the same
 * context, which must be refused. Rewrites nothing. */
static void probe_hook(const gs_air *air, const gs_proof *p, gs_table_proof *t, gs_fp3 alpha,
                       gs_fp3 z) {
    (void)air, (void)p, (void)t, (void)alpha, (void)z;
    unsigned n = gs_threads_get();
    unsigned lo = atomic_load(&g_thr_min);
    while (n < lo && !atomic_compare_exchange_weak(&g_thr_min, &lo, n)) {
    }
    unsigned hi = atomic_load(&g_thr_max);
    while (n > hi && !atomic_compare_exchange_weak(&g_thr_max, &hi, n)) {
    }
    atomic_fetch_add(&g_hook_calls, 1);
    if (g_reenter) {
        const gs_workload *w = &g_S->single[0];
        gs_proof *q = NULL;
        gs_status s = gs_prover_prove(g_reenter, &q, w->air, w->trace, w->log_n, w->pub, &g_par, NULL);
        atomic_store(&g_reenter_status, (int)s);
        gs_proof_free(q);
    }
}

static void probe_reset(void) {
    atomic_store(&g_thr_min, 1000);
    atomic_store(&g_thr_max, 0);
    atomic_store(&g_hook_calls, 0);
}

static void test_config(const statements *S) {
    gs_prover_cfg cfg = {.threads = 6, .tables_parallel = 3, .mem_budget = (size_t)3 << 30};
    gs_prover *pv = NULL;
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    CHECK(info.backend && !strcmp(info.backend, "cpu"));
    CHECK(info.device == -1 && info.device_mem_budget == 0);
    CHECK(info.mem_budget == cfg.mem_budget);
    CHECK(info.threads == 6 && info.tables_parallel == 3 && info.proofs == 0);

    /* The budget a proof uses is the context's. */
    gs_prove_stats st;
    gs_prove_opts o = {.stats = &st, .mem_budget = 12345, .tables_parallel = 9}; /* ignored */
    blob b;
    CHECK(prove_many(&b, pv, S, 0, &o) == GS_OK && same(&b, &S->ref_multi[0]));
    free(b.b);
    CHECK(st.mem_budget == cfg.mem_budget && !strcmp(st.backend, "cpu"));

    /* Threads: a single table runs on the caller with the context's count; a
     * multi-table proof's k = 3 workers get 6 / 3 = 2 each, and 6 / 2 or 6 / 1
     * once one or two of them ran out of tables; the caller's own count is
     * back afterwards. */
    g_S = S;
    gs_prover_debug_ood = probe_hook;
    gs_threads_set_local(5);
    probe_reset();
    CHECK(prove_single(&b, pv, &S->single[2], NULL) == GS_OK && same(&b, &S->ref_single[2]));
    free(b.b);
    CHECK(atomic_load(&g_hook_calls) == 1);
    CHECK(atomic_load(&g_thr_min) == 6 && atomic_load(&g_thr_max) == 6);
    CHECK(gs_threads_get_local() == 5);
    probe_reset();
    CHECK(prove_many(&b, pv, S, 0, NULL) == GS_OK && same(&b, &S->ref_multi[0]));
    free(b.b);
    CHECK(atomic_load(&g_hook_calls) == S->multi[0].num_tables);
    unsigned hi = atomic_load(&g_thr_max);
    CHECK(atomic_load(&g_thr_min) == 2 && (hi == 2 || hi == 3 || hi == 6));
    CHECK(gs_threads_get_local() == 5);
    unsigned multi_calls = atomic_load(&g_hook_calls);

    /* A call that overlaps a proof on the same context is refused, and the
     * proof it interrupted is unharmed. */
    g_reenter = pv;
    atomic_store(&g_reenter_status, -1);
    CHECK(prove_single(&b, pv, &S->single[0], NULL) == GS_OK && same(&b, &S->ref_single[0]));
    free(b.b);
    CHECK(atomic_load(&g_reenter_status) == GS_ERR_INVALID_ARG);
    g_reenter = NULL;
    gs_prover_debug_ood = NULL;
    gs_threads_set_local(0);

    /* Defaults resolved at creation: the caller's thread count and the
     * documented table parallelism; the host budget rule. */
    gs_threads_set_local(7);
    gs_prover *pd = NULL;
    CHECK(gs_prover_new(&pd, NULL) == GS_OK);
    gs_threads_set_local(0);
    gs_prover_get_info(&info, pd);
    CHECK(info.threads == 7 && info.tables_parallel == gs_tables_parallel_default());
    size_t avail = gs_host_available_bytes();
    /* 80% of what was available at creation: nonzero, and below all of
     * memory (available memory moves with other processes: no equality). */
    CHECK(info.mem_budget > 0);
    if (avail) CHECK(info.mem_budget != GS_GATE_UNLIMITED);
    printf("config: threads 6 -> 6 on the caller, 2 on each of 3 workers (%u tables); default "
           "budget %zu MiB against %zu MiB available\n",
           multi_calls, info.mem_budget >> 20, avail >> 20);
    gs_prover_free(pd);
    gs_prover_free(pv);
}

/* ---- the budget rules ---- */

static void test_budget_rules(void) {
    CHECK(gs_device_budget_rule(1000, 1) == 900);
    CHECK(gs_device_budget_rule(1000, 0) == 900); /* 0 counts as 1 */
    CHECK(gs_device_budget_rule(1000, 2) == 450);
    size_t h200 = (size_t)143771 << 20; /* about an H200's free memory */
    size_t whole = gs_device_budget_rule(h200, 1), half = gs_device_budget_rule(h200, 2);
    CHECK(half == whole / 2);
    CHECK(gs_device_budget_rule(h200, 4) == whole / 4);
    CHECK(gs_host_budget_rule(1000) == 800);
    CHECK(gs_host_budget_rule(0) == 0);
    printf("budget rules: device 90%% of free / share (H200: %zu MiB, share 2: %zu MiB), host 80%%\n",
           whole >> 20, half >> 20);
}

/* ---- bad configurations ---- */

static void test_bad_cfg(void) {
    gs_prover_free(NULL); /* a no-op */
    gs_prover_info info;
    memset(&info, 0xab, sizeof info);
    gs_prover_get_info(&info, NULL);
    CHECK(info.backend == NULL && info.proofs == 0);
    gs_prover *pv = (gs_prover *)&info; /* must come back NULL */
    const gs_prover_cfg bad[] = {
        {.backend = (gs_backend_kind)7},
        {.backend = (gs_backend_kind)-1},
        {.device = -1},
        {.backend = GS_BACKEND_AUTO, .device = -2},
        {.device_share = GS_DEVICE_MAX_SHARE + 1},
        {.threads = 257},
        {.tables_parallel = 257},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pv = (gs_prover *)&info;
        CHECK(gs_prover_new(&pv, &bad[i]) == GS_ERR_INVALID_ARG && pv == NULL);
    }
    CHECK(gs_prover_new(NULL, NULL) == GS_ERR_INVALID_ARG);
    /* The largest accepted values. */
    gs_prover_cfg most = {.threads = 256, .tables_parallel = 256, .device_share = GS_DEVICE_MAX_SHARE};
    CHECK(gs_prover_new(&pv, &most) == GS_OK);
    gs_prover_free(pv);
    int devices = gs_cuda_device_count();
    gs_prover_cfg cuda = {.backend = GS_BACKEND_CUDA};
    gs_prover_cfg far = {.backend = GS_BACKEND_CUDA, .device = devices + 3};
    gs_prover_cfg autod = {.backend = GS_BACKEND_AUTO};
    if (!devices) {
        CHECK(gs_prover_new(&pv, &cuda) == GS_ERR_NO_DEVICE && pv == NULL);
        CHECK(gs_prover_new(&pv, &far) == GS_ERR_NO_DEVICE && pv == NULL);
        CHECK(gs_prover_new(&pv, &autod) == GS_OK);
        gs_prover_get_info(&info, pv);
        CHECK(!strcmp(info.backend, "cpu") && info.device == -1);
        gs_prover_free(pv);
    } else {
        CHECK(gs_prover_new(&pv, &far) == GS_ERR_INVALID_ARG && pv == NULL);
    }
    printf("bad configurations refused (%d CUDA device(s) here)\n", devices);
}

/* ---- two contexts, two threads ---- */

typedef struct {
    const statements *S;
    gs_prover_cfg cfg;
    uint64_t salt;
    int bad;
    unsigned proofs;
    gs_status made;
} twin;

static void *twin_main(void *arg) {
    twin *t = arg;
    gs_prover *pv = NULL;
    t->made = gs_prover_new(&pv, &t->cfg);
    if (t->made != GS_OK) return NULL;
    t->bad = prove_all(pv, t->S, 2, t->salt);
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    t->proofs = info.proofs;
    gs_prover_free(pv);
    return NULL;
}

static void test_two_threads(const statements *S) {
    twin t[2] = {{S, {.threads = 2, .tables_parallel = 2}, 0, 0, 0, GS_OK},
                 {S, {.threads = 1, .tables_parallel = 3}, 4, 0, 0, GS_OK}};
    pthread_t tid[2];
    int started[2];
    for (int i = 0; i < 2; i++) started[i] = pthread_create(&tid[i], NULL, twin_main, &t[i]) == 0;
    for (int i = 0; i < 2; i++) {
        CHECK(started[i]);
        if (started[i]) pthread_join(tid[i], NULL);
        CHECK(t[i].made == GS_OK && t[i].bad == 0 && t[i].proofs == 2 * (N_SINGLE + N_MULTI));
    }
    printf("two contexts on two threads at once: %u + %u proofs, %d + %d differing\n", t[0].proofs,
           t[1].proofs, t[0].bad, t[1].bad);
}

/* ---- CUDA, where a device exists ---- */

static void test_cuda(const statements *S) {
    int devices = gs_cuda_device_count();
    if (!devices) return;
    /* The last device: on a machine with several, an index other than 0,
     * whose work must not land on device 0 from a worker thread. Two lanes
     * share it. */
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CUDA, .device = devices - 1, .device_share = 2,
                         .tables_parallel = 3};
    gs_prover *pv = NULL;
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    if (!pv) return;
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    CHECK(!strcmp(info.backend, "cuda") && info.device == devices - 1);
    size_t free_b = 0, total = 0; /* the device is the thread's current one now */
    CHECK(gs_cuda_dev_mem_info(&free_b, &total) == GS_OK);
    CHECK(info.device_mem_budget > 0 && info.device_mem_budget <= gs_device_budget_rule(total, 2));
    int bad = 0;
    unsigned fallbacks = 0;
    for (int r = 0; r < 2; r++)
        for (int j = 0; j < N_SINGLE + N_MULTI; j++) {
            blob b;
            gs_prove_stats st;
            gs_prove_opts o = {.stats = &st};
            gs_status s = j < N_SINGLE ? prove_single(&b, pv, &S->single[j], &o)
                                       : prove_many(&b, pv, S, j - N_SINGLE, &o);
            bad += s != GS_OK ||
                   !same(&b, j < N_SINGLE ? &S->ref_single[j] : &S->ref_multi[j - N_SINGLE]);
            fallbacks += st.cpu_fallbacks;
            if (st.cpu_fallbacks) fprintf(stderr, "cuda fallback: %s\n", st.device_error);
            free(b.b);
        }
    CHECK(bad == 0 && fallbacks == 0);
    printf("cuda: device %d of %d, budget %zu MiB (share 2): %d proofs differing from the CPU's, "
           "%u fallbacks\n",
           info.device, devices, info.device_mem_budget >> 20, bad, fallbacks);
    gs_prover_free(pv);
}

/* ---- the pool ---- */

typedef struct {
    atomic_uint calls, mask_lo;
    atomic_uint tasks;
    unsigned n_tasks;
} pool_job;

static void pool_fn(void *arg, unsigned w) {
    pool_job *j = arg;
    atomic_fetch_add(&j->calls, 1);
    if (w < 32) atomic_fetch_or(&j->mask_lo, 1u << w);
    while (atomic_fetch_add(&j->tasks, 1) < j->n_tasks) {
    }
}

static void test_pool(void) {
    gs_pool *p = NULL;
    CHECK(gs_pool_new(&p) == GS_OK && gs_pool_threads(p) == 0);
    static const unsigned ks[] = {1, 4, 2, 4, 6, 3, 1};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        pool_job j = {.n_tasks = 1000};
        atomic_init(&j.calls, 0);
        atomic_init(&j.mask_lo, 0);
        atomic_init(&j.tasks, 0);
        unsigned ran = gs_pool_run(p, ks[i], pool_fn, &j);
        CHECK(ran == ks[i] && atomic_load(&j.calls) == ks[i]);
        CHECK(atomic_load(&j.mask_lo) == (1u << ks[i]) - 1); /* each worker once */
        CHECK(atomic_load(&j.tasks) >= j.n_tasks);
    }
    CHECK(gs_pool_threads(p) == 5); /* grown to the largest run, never restarted */
    CHECK(gs_pool_run(p, 0, pool_fn, NULL) == 0);
    gs_pool_free(p);
    gs_pool_free(NULL);
    CHECK(gs_pool_new(NULL) == GS_ERR_INVALID_ARG);
    printf("pool: runs of 1..6 workers, each worker once per run, 5 threads kept\n");
}

/* The host block cache's limit (what out-of-core buffers are held to):
 * blocks within it, a request past it refused while every block is held,
 * a smaller cached block reused, the unused blocks given up for a request
 * that needs their room; a pinned-only cache gives page-locked blocks or
 * none (none without a device). */
static void test_arena_limit(void) {
    const size_t MiB = (size_t)1 << 20;
    gs_host_arena *a = NULL;
    CHECK(gs_host_arena_new(&a, GS_ARENA_PAGES, 8 * MiB) == GS_OK);
    if (!a) return;
    void *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL;
    CHECK(gs_host_arena_alloc(a, &p1, 4 * MiB, 0) == GS_OK && p1);
    CHECK(gs_host_arena_alloc(a, &p2, 4 * MiB, 0) == GS_OK && p2 && p2 != p1);
    CHECK(gs_host_arena_alloc(a, &p3, 2 * MiB, 0) == GS_ERR_NOMEM && !p3);
    CHECK(gs_host_arena_release(a, p1) == GS_OK);
    CHECK(gs_host_arena_alloc(a, &p3, 2 * MiB, 1) == GS_OK && p3 == p1);
    CHECK(gs_host_arena_release(a, p2) == GS_OK && gs_host_arena_release(a, p3) == GS_OK);
    CHECK(gs_host_arena_alloc(a, &p4, 6 * MiB, 0) == GS_OK && p4);
    size_t total = 0, used = 0;
    gs_host_arena_stats(a, &total, NULL, &used);
    CHECK(total == 6 * MiB && used == 6 * MiB);
    CHECK(gs_host_arena_release(a, p4) == GS_OK && gs_host_arena_release(a, p4) == GS_ERR_INVALID_ARG);
    gs_host_arena_free(a);

    gs_host_arena *pin = NULL;
    CHECK(gs_host_arena_new(&pin, GS_ARENA_PINNED, 0) == GS_OK);
    void *q = NULL;
    gs_status s = pin ? gs_host_arena_alloc(pin, &q, MiB, 0) : GS_ERR_NOMEM;
    size_t pinned = 0;
    gs_host_arena_stats(pin, &total, &pinned, NULL);
    if (gs_cuda_device_count() == 0) CHECK(s == GS_ERR_NOMEM && !q && total == 0);
    else CHECK(s == GS_OK && q && pinned == total && total == 2 * MiB);
    gs_host_arena_free(pin);
    printf("host block cache: limit kept, blocks reused and given up; pinned-only %s\n",
           gs_cuda_device_count() ? "pinned" : "refused without a device");
}

/* gs_prover_host_alloc: zeroed blocks, reused after they are given back
 * (dirty, zeroed again; gs_prover_host_alloc_dirty: as left), the smallest
 * that fits, kept until the context is freed; other pointers refused. */
static void test_host_memory(void) {
    gs_prover *pv = NULL;
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CPU};
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    if (!pv) return;
    void *a = NULL, *b = NULL, *c = NULL;
    const size_t big = (size_t)5 << 20, small = (size_t)1 << 20;
    CHECK(gs_prover_host_alloc(pv, &a, big) == GS_OK && a);
    CHECK(gs_prover_host_alloc(pv, &b, small) == GS_OK && b && b != a);
    CHECK(((uintptr_t)a & 63) == 0 && ((uintptr_t)b & 63) == 0);
    int zero = 1;
    for (size_t i = 0; a && i < big; i++) zero &= ((unsigned char *)a)[i] == 0;
    CHECK(zero);
    if (a) memset(a, 0x5A, big);
    if (b) memset(b, 0x5A, small);
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    CHECK(info.host_bytes == ((size_t)6 << 20) + ((size_t)2 << 20) && info.host_pinned_bytes == 0);
    CHECK(gs_prover_host_free(pv, a) == GS_OK && gs_prover_host_free(pv, b) == GS_OK);
    CHECK(gs_prover_host_free(pv, a) == GS_ERR_INVALID_ARG); /* given back already */
    CHECK(gs_prover_host_free(pv, &zero) == GS_ERR_INVALID_ARG);
    CHECK(gs_prover_host_free(pv, NULL) == GS_OK);
    /* the smallest block that fits, zeroed again: the 2 MiB one for 1.5 MiB */
    CHECK(gs_prover_host_alloc(pv, &c, small + small / 2) == GS_OK && c == b);
    zero = 1;
    for (size_t i = 0; c && i < small + small / 2; i++) zero &= ((unsigned char *)c)[i] == 0;
    CHECK(zero);
    void *d = NULL;
    CHECK(gs_prover_host_alloc(pv, &d, big) == GS_OK && d == a); /* the other cached block */
    gs_prover_get_info(&info, pv);
    CHECK(info.host_bytes == ((size_t)8 << 20)); /* nothing new was made */
    CHECK(gs_prover_host_alloc(pv, &d, 0) == GS_ERR_INVALID_ARG && d == NULL);
    CHECK(gs_prover_host_alloc(NULL, &d, 1) == GS_ERR_INVALID_ARG);
    /* Unzeroed (gs_prover_host_alloc_dirty): the same block back as its last
     * user left it; the zeroed call clears it again. */
    if (c) memset(c, 0x3C, small + small / 2);
    CHECK(gs_prover_host_free(pv, c) == GS_OK);
    void *e = NULL;
    CHECK(gs_prover_host_alloc_dirty(pv, &e, small) == GS_OK && e == b);
    int kept = 1;
    for (size_t i = 0; e && i < small; i++) kept &= ((unsigned char *)e)[i] == 0x3C;
    CHECK(kept);
    CHECK(gs_prover_host_free(pv, e) == GS_OK);
    CHECK(gs_prover_host_alloc(pv, &e, small) == GS_OK && e == b);
    zero = 1;
    for (size_t i = 0; e && i < small; i++) zero &= ((unsigned char *)e)[i] == 0;
    CHECK(zero);
    CHECK(gs_prover_host_alloc_dirty(pv, &d, 0) == GS_ERR_INVALID_ARG && d == NULL);
    CHECK(gs_prover_host_alloc_dirty(NULL, &d, 1) == GS_ERR_INVALID_ARG);
    gs_prover_free(pv); /* releases the blocks still in use too (ASan: no leak) */
    printf("host memory: zeroed (or not, on request), reused smallest-first, refused pointers\n");
}

/* Four threads take and give back blocks of one context at once (run under
 * ThreadSanitizer in CI): every block handed out is zeroed and nobody
 * else's while held. Threads record into their own slots; main checks. */
typedef struct {
    gs_prover *pv;
    unsigned seed;
    int dirty, failed, overlaps;
} host_thr;

static void *host_thread(void *arg) {
    host_thr *h = arg;
    for (unsigned i = 0; i < 40; i++) {
        size_t bytes = ((size_t)1 << 16) * (1 + (h->seed * 7 + i * 13) % 48); /* 64 KiB .. 3 MiB */
        unsigned char *p = NULL;
        if (gs_prover_host_alloc(h->pv, (void **)&p, bytes) != GS_OK || !p) {
            h->failed++;
            continue;
        }
        for (size_t k = 0; k < bytes; k += 4096) h->dirty |= p[k] != 0;
        memset(p, (int)(h->seed + 1), bytes); /* mine while held: checked before giving back */
        for (size_t k = 0; k < bytes; k += 4096) h->overlaps += p[k] != (unsigned char)(h->seed + 1);
        if (gs_prover_host_free(h->pv, p) != GS_OK) h->failed++;
    }
    return NULL;
}

static void test_host_memory_threads(void) {
    gs_prover *pv = NULL;
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CPU};
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    if (!pv) return;
    host_thr h[4];
    pthread_t t[4];
    for (unsigned i = 0; i < 4; i++) {
        h[i] = (host_thr){.pv = pv, .seed = i};
        CHECK(pthread_create(&t[i], NULL, host_thread, &h[i]) == 0);
    }
    for (unsigned i = 0; i < 4; i++) pthread_join(t[i], NULL);
    for (unsigned i = 0; i < 4; i++) CHECK(!h[i].dirty && !h[i].failed && !h[i].overlaps);
    gs_prover_info info;
    gs_prover_get_info(&info, pv);
    /* Requests round to 2 or 4 MiB; a new block of a size is made only when
     * every block that fits is held, by at most 4 threads: <= 4 of each. */
    CHECK(info.host_bytes > 0 && info.host_bytes <= ((size_t)4 * (2 + 4) << 20));
    printf("host memory from 4 threads: zeroed, never shared, %zu bytes held\n", info.host_bytes);
    gs_prover_free(pv);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_host_memory();
    test_arena_limit();
    test_host_memory_threads();
    test_budget_rules();
    test_bad_cfg();
    test_pool();
    statements S;
    statements_make(&S);
    test_many_proofs(&S);
    test_ahead(&S);
    test_failures(&S);
    test_config(&S);
    test_two_threads(&S);
    test_cuda(&S);
    statements_free(&S);
    return gs_test_done();
}
