/* The device quotient and LogUp aux trace (src/cuda/quotient.h) against the
 * CPU backend (cpu_quotient, gs_logup_aux_trace): exact equality of every
 * value, on real AIRs with their traces (fib, mix at several widths and
 * degrees, every table of the synth presets vm, skew and uniform, which have
 * bus interactions) and on custom AIRs that reach the other code paths
 * (public inputs in transitions and interactions, boundaries on many rows,
 * register files past the local-memory tiers, wide tuples, no transitions,
 * boundaries only, one-row traces, a multi-level scan). Inputs are built as
 * the prover builds them (gs_prover_round_trace, round_aux, round_quotient):
 * CPU LDE of the trace (and of the aux trace), random alpha powers and bus
 * challenges. log_n 1..14, blowups 2, 4 and 8 where the AIR's degree allows;
 * for tables without LogUp also from the trace's coefficients on sub-cosets
 * (gs_cuda_quotient_eval_coeffs, the out-of-core path) at every log_step.
 * Then argument errors (rejected before any device work), zero fingerprints
 * (GS_ERR_EXHAUSTED like the CPU), a non-default stream, and fault injection:
 * every device allocation, copy and launch of a call failing in turn gives
 * GS_ERR_CUDA with free device memory unchanged, until the call succeeds.
 * Exits GS_TEST_SKIP (77) where no device exists.
 *
 * Options: --seed N (replay), --quick (smaller sizes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "air/logup.h"
#include "backend/backend.h"
#include "cuda/device.h"
#include "cuda/quotient.h"
#include "gstark/airs.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_ntt.h"
#include "gstark/synth.h"
#include "test_util.h"

#define CHECK_OK(expr)                                                                     \
    do {                                                                                   \
        gs_status s_ = (expr);                                                             \
        if (s_ != GS_OK)                                                                   \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #expr,             \
                    gs_status_str(s_), gs_cuda_last_error());                              \
        CHECK(s_ == GS_OK);                                                                \
    } while (0)

#define POISON 0xBAADF00DDEADBEEFull /* not canonical: never a computed value */

static int g_quick;
static size_t g_max_values; /* cols * N per case at most (host memory and time) */
static long g_quots, g_auxes;

static void die(const char *what) {
    fprintf(stderr, "fatal: %s (%s)\n", what, gs_cuda_last_error());
    exit(1);
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) die("out of host memory");
    return p;
}

/* ---- device buffers ---- */

static uint64_t *dev_new(size_t words) {
    void *d = NULL;
    if (gs_cuda_mem_alloc(&d, (words ? words : 1) * sizeof(uint64_t)) != GS_OK) die("gs_cuda_mem_alloc");
    return d;
}

static uint64_t *dev_put(const void *h, size_t words) {
    uint64_t *d = dev_new(words);
    if (words && gs_cuda_mem_h2d(d, h, words * sizeof(uint64_t)) != GS_OK) die("gs_cuda_mem_h2d");
    return d;
}

static void dev_poison(uint64_t *d, size_t words) {
    uint64_t *p = xmalloc(words * sizeof *p);
    for (size_t i = 0; i < words; i++) p[i] = POISON;
    if (gs_cuda_mem_h2d(d, p, words * sizeof *p) != GS_OK) die("gs_cuda_mem_h2d");
    free(p);
    if (gs_cuda_sync() != GS_OK) die("gs_cuda_sync"); /* ordered before work on any stream */
}

static gs_status wait_for(void *stream) {
    return stream ? gs_cuda_merkle_stream_sync(stream) : gs_cuda_sync();
}


/* ---- one table: the CPU reference and the device inputs ---- */

typedef struct {
    char desc[160];
    const gs_air *air;
    const gs_fp *trace, *pub;
    unsigned log_n, log_b;
    size_t n, N, cols, A3; /* A3: aux Fp columns (0 without interactions) */
    gs_logup L;
    gs_fp3 z, alpha, sigma; /* bus challenges and the CPU bus sum */
    gs_buf aux, lde, aux_lde, quot; /* CPU results (aux: the aux trace itself) */
    uint64_t *d_coeffs; /* the trace's coefficients on the device (no LogUp only) */
    gs_fp3 *alpha_pows, bus_pows[GS_AIR_MAX_TUPLE + 1];
    uint32_t *bcols;
    uint64_t *brows;
    gs_fp *bvals;
    gs_quotient_args qa;
    int with_quot;
    uint64_t *d_trace, *d_aux, *d_lde, *d_aux_lde, *d_out;
} tcase;

static void case_free(tcase *c) {
    gs_backend *be = gs_backend_cpu();
    gs_buf *bufs[] = {&c->aux, &c->lde, &c->aux_lde, &c->quot};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->ptr) be->iface->free(be, bufs[i]);
    uint64_t *d[] = {c->d_trace, c->d_aux, c->d_lde, c->d_aux_lde, c->d_out, c->d_coeffs};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (d[i]) gs_cuda_mem_free(d[i]);
    free(c->alpha_pows), free(c->bcols), free(c->brows), free(c->bvals);
    gs_logup_free(&c->L);
    memset(c, 0, sizeof *c);
}

/* The CPU side as the prover does it, and the device copies of the inputs.
 * with_quot = 0: the aux trace only (no LDE, no quotient). */
static void case_make(tcase *c, const char *desc, const gs_air *air, const gs_fp *trace,
                      unsigned log_n, const gs_fp *pub, unsigned log_b, int with_quot) {
    gs_backend *be = gs_backend_cpu();
    memset(c, 0, sizeof *c);
    snprintf(c->desc, sizeof c->desc, "%s log_n %u blowup %u", desc, log_n, 1u << log_b);
    c->air = air, c->trace = trace, c->pub = pub, c->log_n = log_n, c->log_b = log_b;
    c->with_quot = with_quot;
    c->n = (size_t)1 << log_n, c->N = c->n << log_b, c->cols = gs_air_num_cols(air);
    CHECK_OK(gs_logup_layout(&c->L, air));
    c->A3 = 3 * (size_t)c->L.aux_cols;
    size_t n = c->n, N = c->N, C = c->cols, A3 = c->A3;
    c->d_trace = dev_put(trace, C * n);
    if (A3) {
        c->z = gs_test_fp3(), c->alpha = gs_test_fp3();
        CHECK_OK(be->iface->alloc(be, NULL, &c->aux, A3 * n * sizeof(gs_fp)));
        CHECK_OK(be->iface->logup_aux(be, &c->aux, &c->sigma, &c->L, air, trace, NULL, log_n, pub,
                                      c->z, c->alpha));
        c->d_aux = dev_new(A3 * n);
    }
    if (with_quot) {
        gs_buf coeffs;
        CHECK_OK(be->iface->alloc(be, NULL, &coeffs, C * n * sizeof(gs_fp)));
        CHECK_OK(be->iface->alloc(be, NULL, &c->lde, C * N * sizeof(gs_fp)));
        CHECK_OK(be->iface->upload(be, &coeffs, trace, C * n * sizeof(gs_fp)));
        CHECK_OK(be->iface->interpolate(be, &coeffs, C, log_n, 1));
        CHECK_OK(be->iface->lde(be, &c->lde, &coeffs, C, log_n, log_b, GS_FP_GENERATOR));
        if (!A3) c->d_coeffs = dev_put(coeffs.ptr, C * n);
        be->iface->free(be, &coeffs);
        if (A3) {
            gs_buf ac;
            CHECK_OK(be->iface->alloc(be, NULL, &ac, A3 * n * sizeof(gs_fp)));
            CHECK_OK(be->iface->copy(be, &ac, 0, &c->aux, 0, A3 * n, 0));
            CHECK_OK(be->iface->alloc(be, NULL, &c->aux_lde, A3 * N * sizeof(gs_fp)));
            CHECK_OK(be->iface->interpolate(be, &ac, A3, log_n, 1));
            CHECK_OK(be->iface->lde(be, &c->aux_lde, &ac, A3, log_n, log_b, GS_FP_GENERATOR));
            be->iface->free(be, &ac);
        }
        /* The quotient's arguments, as round_quotient builds them. */
        uint32_t nt = gs_air_num_transitions(air), nb = gs_air_num_boundaries(air);
        uint32_t nl = A3 ? c->L.n_groups + 3 : 0;
        c->alpha_pows = xmalloc((nt + nb + nl + 1) * sizeof *c->alpha_pows);
        c->bcols = xmalloc((nb + 1) * sizeof *c->bcols);
        c->brows = xmalloc((nb + 1) * sizeof *c->brows);
        c->bvals = xmalloc((nb + 1) * sizeof *c->bvals);
        gs_fp3_powers(c->alpha_pows, gs_test_fp3(), nt + nb + nl);
        gs_fp3_powers(c->bus_pows, c->alpha, GS_AIR_MAX_TUPLE + 1);
        CHECK_OK(gs_air_boundary_values(air, c->bvals, pub));
        for (uint32_t i = 0; i < nb; i++)
            CHECK_OK(gs_air_boundary_at(air, i, log_n, &c->bcols[i], &c->brows[i]));
        gs_quotient_args qa = {air, pub, log_n, log_b, 0, GS_FP_GENERATOR, c->alpha_pows, c->bcols,
                               c->brows, c->bvals, A3 ? &c->L : NULL, c->z, c->sigma, c->bus_pows, NULL};
        c->qa = qa;
        CHECK_OK(be->iface->alloc(be, NULL, &c->quot, 3 * N * sizeof(gs_fp)));
        CHECK_OK(be->iface->quotient(be, &c->quot, &c->lde, A3 ? &c->aux_lde : NULL, &c->qa));
        c->d_lde = dev_put(c->lde.ptr, C * N);
        if (A3) c->d_aux_lde = dev_put(c->aux_lde.ptr, A3 * N);
        c->d_out = dev_new(3 * N);
    }
    if (gs_cuda_sync() != GS_OK) die("gs_cuda_sync");
}

/* Downloads and compares what a successful device aux call left. */
static int aux_matches(tcase *c, gs_fp3 sigma) {
    size_t words = c->A3 * c->n;
    uint64_t *got = xmalloc(words * sizeof *got);
    CHECK_OK(gs_cuda_mem_d2h(got, c->d_aux, words * sizeof *got));
    char desc[200];
    snprintf(desc, sizeof desc, "aux trace of %s", c->desc);
    int ok = gs_test_same_values(desc, c->aux.ptr, got, words, c->n);
    if (!gs_fp3_eq(sigma, c->sigma)) {
        fprintf(stderr, "MISMATCH bus sum of %s\n", c->desc);
        ok = 0;
    }
    free(got);
    return ok;
}

static int quot_matches(tcase *c) {
    size_t words = 3 * c->N;
    uint64_t *got = xmalloc(words * sizeof *got);
    CHECK_OK(gs_cuda_mem_d2h(got, c->d_out, words * sizeof *got));
    char desc[200];
    snprintf(desc, sizeof desc, "quotient of %s", c->desc);
    int ok = gs_test_same_values(desc, c->quot.ptr, got, words, c->N);
    free(got);
    return ok;
}

/* The quotient at every 2^k-th point only (gs_quotient_args.log_step = k,
 * k = 1 .. log_blowup): on both backends, the full values' subsample. */
static int strided_matches(tcase *c, void *stream) {
    gs_backend *be = gs_backend_cpu();
    int ok = 1;
    for (unsigned k = 1; ok && k <= c->qa.log_blowup; k++) {
        gs_quotient_args q = c->qa;
        q.log_step = k;
        size_t m = c->N >> k;
        const gs_fp *full = c->quot.ptr;
        uint64_t *want = xmalloc(3 * m * sizeof *want), *got = xmalloc(3 * m * sizeof *got);
        for (size_t col = 0; col < 3; col++)
            for (size_t j = 0; j < m; j++) want[col * m + j] = full[col * c->N + (j << k)];
        gs_buf cpu = {0};
        CHECK_OK(be->iface->alloc(be, NULL, &cpu, 3 * m * sizeof(gs_fp)));
        CHECK_OK(be->iface->quotient(be, &cpu, &c->lde, c->A3 ? &c->aux_lde : NULL, &q));
        dev_poison(c->d_out, 3 * c->N);
        CHECK_OK(gs_cuda_quotient(c->d_out, c->d_lde, c->d_aux_lde, &q, stream));
        CHECK_OK(wait_for(stream));
        CHECK_OK(gs_cuda_mem_d2h(got, c->d_out, 3 * m * sizeof *got));
        char desc[200];
        snprintf(desc, sizeof desc, "quotient of %s, every 2^%u-th point, cpu", c->desc, k);
        ok &= gs_test_same_values(desc, want, cpu.ptr, 3 * m, m);
        snprintf(desc, sizeof desc, "quotient of %s, every 2^%u-th point, cuda", c->desc, k);
        ok &= gs_test_same_values(desc, want, got, 3 * m, m);
        be->iface->free(be, &cpu);
        free(want), free(got);
    }
    return ok;
}

/* From the coefficients (gs_cuda_quotient_eval_coeffs, a table without
 * LogUp): for every log_step and several cuts of the cosets, the CPU's
 * values on the LDE, subsampled. */
static int coeffs_matches(tcase *c, void *stream) {
    if (!c->d_coeffs) return 1;
    int ok = 1;
    /* Whole cosets, halves, and cosets of at least 2 points cut in up to 16
     * (each cut makes K (2^t + 1) sub-cosets: launches, not values, cost). */
    unsigned cuts[4] = {0, 1, 3, c->log_n > 5 ? 4 : c->log_n - 1};
    for (unsigned k = 0; ok && k <= c->qa.log_blowup; k++) {
        size_t m = c->N >> k;
        const gs_fp *full = c->quot.ptr;
        uint64_t *want = xmalloc(3 * m * sizeof *want), *got = xmalloc(3 * m * sizeof *got);
        for (size_t col = 0; col < 3; col++)
            for (size_t j = 0; j < m; j++) want[col * m + j] = full[col * c->N + (j << k)];
        for (unsigned t = 0; ok && t < 4; t++) {
            unsigned log_sub = cuts[t];
            if (log_sub >= c->log_n || (t && log_sub == cuts[t - 1])) continue;
            gs_quotient_args q = c->qa;
            q.log_step = k;
            uint64_t *d_slots = dev_new(2 * c->cols * (c->n >> log_sub));
            dev_poison(c->d_out, 3 * c->N);
            CHECK_OK(gs_cuda_quotient_coeffs(c->d_out, c->d_coeffs, d_slots, log_sub, &q, stream));
            CHECK_OK(wait_for(stream));
            CHECK_OK(gs_cuda_mem_d2h(got, c->d_out, 3 * m * sizeof *got));
            gs_cuda_mem_free(d_slots);
            char desc[320];
            snprintf(desc, sizeof desc, "quotient of %s from coefficients, every 2^%u-th point, cosets cut in 2^%u",
                     c->desc, k, log_sub);
            ok &= gs_test_same_values(desc, want, got, 3 * m, m);
        }
        free(want), free(got);
    }
    return ok;
}

static int run_aux(tcase *c, void *stream) {
    dev_poison(c->d_aux, c->A3 * c->n);
    gs_fp3 sg = gs_fp3_zero();
    gs_status s = gs_cuda_logup_aux(c->d_aux, &sg, &c->L, c->air, c->d_trace, c->log_n, c->pub,
                                    c->z, c->alpha, stream);
    CHECK_OK(s);
    CHECK_OK(wait_for(stream));
    g_auxes++;
    return s == GS_OK && aux_matches(c, sg);
}

static int run_quot(tcase *c, void *stream) {
    dev_poison(c->d_out, 3 * c->N);
    gs_status s = gs_cuda_quotient(c->d_out, c->d_lde, c->d_aux_lde, &c->qa, stream);
    CHECK_OK(s);
    CHECK_OK(wait_for(stream));
    g_quots++;
    return s == GS_OK && quot_matches(c) && strided_matches(c, stream) && coeffs_matches(c, stream);
}

/* Both stages of one table at one blowup. */
static void check_table(const char *desc, const gs_air *air, const gs_fp *trace, unsigned log_n,
                        const gs_fp *pub, unsigned log_b) {
    tcase c;
    case_make(&c, desc, air, trace, log_n, pub, log_b, 1);
    if (c.A3) CHECK(run_aux(&c, NULL));
    CHECK(run_quot(&c, NULL));
    case_free(&c);
}

/* Every allowed blowup 2, 4, 8 within the size cap. */
static void check_blowups(const char *desc, const gs_air *air, const gs_fp *trace,
                          unsigned log_n, const gs_fp *pub) {
    for (unsigned log_b = 1; log_b <= 3; log_b++) {
        if (gs_air_check_degree(air, log_b) != GS_OK) continue;
        if ((size_t)gs_air_num_cols(air) << (log_n + log_b) > g_max_values) continue;
        check_table(desc, air, trace, log_n, pub, log_b);
    }
}

static gs_fp *rand_values(size_t n) {
    gs_fp *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = gs_test_fp();
    return v;
}

/* ---- built-in AIRs ---- */

static void test_fib(void) {
    unsigned max_log = g_quick ? 10 : 14;
    for (unsigned log_n = 1; log_n <= max_log; log_n++) {
        gs_workload w;
        CHECK_OK(gs_airs_fib(&w, log_n, gs_test_fp(), gs_test_fp()));
        if (!w.air) continue;
        check_blowups("fib", w.air, w.trace, log_n, w.pub);
        gs_workload_free(&w);
    }
}

static void test_mix(void) {
    static const struct { uint32_t cols; unsigned degree; } cfg[] = {
        {1, 2}, {2, 3}, {3, 3}, {8, 5}, {33, 9}, {40, 2}, {100, 3}, {1024, 2}};
    static const unsigned logs_full[] = {1, 2, 3, 4, 5, 7, 9, 11, 12, 14};
    static const unsigned logs_quick[] = {1, 3, 6, 9};
    const unsigned *logs = g_quick ? logs_quick : logs_full;
    size_t nlogs = g_quick ? sizeof logs_quick / sizeof *logs : sizeof logs_full / sizeof *logs;
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        for (size_t j = 0; j < nlogs; j++) {
            unsigned log_n = logs[j];
            if ((size_t)cfg[k].cols << (log_n + 1) > g_max_values) continue;
            gs_mix_params p = {cfg[k].cols, cfg[k].degree, log_n, gs_test_u64()};
            gs_workload w;
            CHECK_OK(gs_airs_mix(&w, &p));
            if (!w.air) continue;
            char desc[64];
            snprintf(desc, sizeof desc, "mix cols %u degree %u", cfg[k].cols, cfg[k].degree);
            check_blowups(desc, w.air, w.trace, log_n, w.pub);
            gs_workload_free(&w);
        }
    }
}

/* Every table of the presets (they have buses, so LogUp on both stages). */
static void test_synth(void) {
    static const char *presets[] = {"vm", "skew", "uniform"};
    static const unsigned shrinks_full[] = {20, 12, 6};
    static const unsigned shrinks_quick[] = {20, 14};
    const unsigned *shrinks = g_quick ? shrinks_quick : shrinks_full;
    size_t ns = g_quick ? 2 : 3;
    for (size_t p = 0; p < 3; p++) {
        for (size_t k = 0; k < ns; k++) {
            gs_multi_workload mw;
            CHECK_OK(gs_synth_preset(&mw, presets[p], shrinks[k], gs_test_u64()));
            for (uint32_t t = 0; t < mw.num_tables; t++) {
                const gs_workload *w = &mw.tables[t];
                if (w->log_n > 14) continue;
                char desc[96];
                snprintf(desc, sizeof desc, "%s shrink %u table %u (%s)", presets[p], shrinks[k],
                         t, gs_air_name(w->air));
                check_blowups(desc, w->air, w->trace, w->log_n, w->pub);
            }
            gs_multi_workload_free(&mw);
        }
    }
}

/* ---- custom AIRs for the other paths ---- */

/* Public inputs in transitions, next-row loads, negation, and boundaries on
 * up to 10 distinct rows (the denominators are inverted 4 at a time); with_bus
 * adds a packed pair of interactions and a lone one of degree 2 (public
 * input as a multiplicity). Rows up to 7: log_n >= 3. */
static gs_air *air_pubs(int with_bus) {
    gs_air *a = gs_air_new(with_bus ? "pubs-bus" : "pubs", 3, 2);
    gs_expr c0 = gs_air_col(a, 0), c1 = gs_air_col(a, 1), c2 = gs_air_col(a, 2);
    gs_expr p0 = gs_air_public(a, 0), p1 = gs_air_public(a, 1);
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 0), gs_air_add(a, gs_air_mul(a, c0, p0), c1)));
    gs_air_transition(a, gs_air_add(a, gs_air_sub(a, gs_air_next(a, 1),
                                                  gs_air_mul(a, gs_air_neg(a, c2), gs_air_const(a, 5))),
                                    p1));
    gs_air_transition(a, gs_air_sub(a, gs_air_mul(a, gs_air_mul(a, c2, c2), c0), gs_air_next(a, 2)));
    static const int64_t rows[] = {0, 1, 2, 3, 5, 7, -1, -2, -3};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        gs_air_boundary(a, 0, rows[i], gs_air_add(a, p0, gs_air_const(a, (gs_fp)(i + 10))));
    gs_air_boundary(a, 1, 0, p1);
    gs_air_boundary(a, 1, -1, gs_air_mul(a, p0, p1));
    gs_air_boundary(a, 2, 4, gs_air_add(a, p0, gs_air_mul(a, p1, gs_air_const(a, 3))));
    if (with_bus) {
        gs_expr v[3] = {c0, c1, c2};
        gs_air_send(a, 11, v, 2, c2);
        gs_expr w[3] = {c1, c2, c0};
        gs_air_receive(a, 13, w, 3, p1);
        gs_expr sq = gs_air_mul(a, c2, c2);
        gs_air_receive(a, 12, &sq, 1, gs_air_const(a, 1));
    }
    CHECK_OK(gs_air_finalize(a));
    return a;
}

/* `live` products alive at once: the transition program needs about that
 * many registers. */
static gs_air *air_live(uint32_t live, const char *name) {
    gs_air *a = gs_air_new(name, 4, 0);
    gs_expr *p = xmalloc(live * sizeof *p);
    for (uint32_t k = 0; k < live; k++)
        p[k] = gs_air_mul(a, gs_air_col(a, k % 4), gs_air_const(a, (gs_fp)k + 2));
    gs_expr s = p[0];
    for (uint32_t k = 1; k < live; k++) s = gs_air_add(a, s, p[k]);
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 0), s));
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 1), gs_air_mul(a, gs_air_col(a, 2), gs_air_col(a, 3))));
    gs_air_boundary(a, 3, 0, gs_air_const(a, 9));
    free(p);
    CHECK_OK(gs_air_finalize(a));
    return a;
}

/* 12 interactions of width 16 (204 interaction outputs: past the local
 * register tiers in both kernels), pairs and lone degree-2 ones, sends and
 * receives, a public input as a multiplicity. */
static gs_air *air_bus_wide(void) {
    gs_air *a = gs_air_new("bus-wide", 5, 1);
    for (uint32_t i = 0; i < 12; i++) {
        gs_expr v[16];
        for (uint32_t k = 0; k < 16; k++) v[k] = gs_air_col(a, (i + k) % 5);
        if (i % 3 == 2) v[0] = gs_air_mul(a, gs_air_col(a, 0), gs_air_col(a, 1));
        gs_expr m = i % 4 == 3 ? gs_air_const(a, i + 1) : i % 4 == 1 ? gs_air_public(a, 0)
                                                                     : gs_air_col(a, i % 5);
        if (i & 1) gs_air_receive(a, 20 + i, v, 16, m);
        else gs_air_send(a, 20 + i, v, 16, m);
    }
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 0), gs_air_add(a, gs_air_col(a, 1), gs_air_public(a, 0))));
    CHECK_OK(gs_air_finalize(a));
    return a;
}

/* Interactions only: no transitions, no boundaries. */
static gs_air *air_bus_only(void) {
    gs_air *a = gs_air_new("bus-only", 2, 0);
    gs_expr x = gs_air_col(a, 0), y[2] = {gs_air_col(a, 1), gs_air_col(a, 0)};
    gs_air_send(a, 1, &x, 1, gs_air_col(a, 1));
    gs_air_receive(a, 2, y, 2, gs_air_const(a, 1));
    CHECK_OK(gs_air_finalize(a));
    return a;
}

/* Boundaries only. */
static gs_air *air_bound_only(void) {
    gs_air *a = gs_air_new("bound-only", 2, 1);
    gs_air_boundary(a, 0, 0, gs_air_public(a, 0));
    gs_air_boundary(a, 1, -1, gs_air_const(a, 3));
    gs_air_boundary(a, 0, 1, gs_air_const(a, 4));
    CHECK_OK(gs_air_finalize(a));
    return a;
}

static void check_random(const char *desc, const gs_air *air, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    gs_fp *trace = rand_values(gs_air_num_cols(air) * n);
    gs_fp *pub = rand_values(gs_air_num_public(air) + 1);
    check_blowups(desc, air, trace, log_n, pub);
    free(trace), free(pub);
}

static void test_custom(void) {
    unsigned max_log = g_quick ? 9 : 12;
    gs_air *pubs = air_pubs(0), *pubs_bus = air_pubs(1), *wide = air_live(300, "live-300");
    gs_air *mid = air_live(90, "live-90"), *bw = air_bus_wide(), *bo = air_bus_only();
    gs_air *bd = air_bound_only();
    /* The register files these reach (see quotient.cu): over 128 words,
     * 33..128 words, and over 128 with the interaction outputs. */
    CHECK(wide->prog_trans.n_regs > 128);
    CHECK(mid->prog_trans.n_regs > 32 && mid->prog_trans.n_regs <= 128);
    CHECK(bw->prog_inter.n_regs + bw->prog_inter.n_out > 128);
    for (unsigned log_n = 3; log_n <= max_log; log_n++) {
        check_random("pubs", pubs, log_n);
        check_random("pubs-bus", pubs_bus, log_n);
    }
    for (unsigned log_n = 1; log_n <= max_log; log_n += 2) {
        check_random("live-300", wide, log_n);
        check_random("live-90", mid, log_n);
        check_random("bound-only", bd, log_n);
    }
    for (unsigned log_n = 0; log_n <= max_log; log_n++) check_random("bus-only", bo, log_n);
    static const unsigned bw_logs[] = {0, 1, 2, 3, 4, 8, 12, 13};
    for (size_t k = 0; k < sizeof bw_logs / sizeof *bw_logs; k++)
        if (bw_logs[k] <= max_log + 1) check_random("bus-wide", bw, bw_logs[k]);
    /* A scan of three levels (more than 2048^2 rows), aux trace only. */
    if (!g_quick) {
        unsigned log_n = 23;
        gs_fp *trace = rand_values(2 * ((size_t)1 << log_n));
        tcase c;
        case_make(&c, "bus-only (aux only)", bo, trace, log_n, NULL, 1, 0);
        CHECK(run_aux(&c, NULL));
        case_free(&c);
        free(trace);
    }
    gs_air_free(pubs), gs_air_free(pubs_bus), gs_air_free(wide), gs_air_free(mid);
    gs_air_free(bw), gs_air_free(bo), gs_air_free(bd);
}

/* A fingerprint that is zero on one row: GS_ERR_EXHAUSTED from both. */
static void test_zero_fingerprint(void) {
    gs_air *air = air_bus_only();
    for (unsigned log_n = 0; log_n <= 6; log_n += 3) {
        size_t n = (size_t)1 << log_n, r = n / 2;
        gs_fp *trace = rand_values(2 * n);
        gs_logup L;
        CHECK_OK(gs_logup_layout(&L, air));
        gs_fp3 alpha = gs_test_fp3();
        /* interaction 0 sends (col 0) on bus 1: d = z - (1 + alpha v) */
        gs_fp3 z = gs_fp3_add(gs_fp3_from_fp(1), gs_fp3_mul_fp(alpha, trace[r]));
        gs_fp *aux = xmalloc(3 * L.aux_cols * n * sizeof *aux);
        gs_fp3 s1, s2;
        CHECK(gs_logup_aux_trace(aux, &s1, &L, air, trace, log_n, NULL, z, alpha) == GS_ERR_EXHAUSTED);
        uint64_t *d_trace = dev_put(trace, 2 * n), *d_aux = dev_new(3 * L.aux_cols * n);
        gs_status s = gs_cuda_logup_aux(d_aux, &s2, &L, air, d_trace, log_n, NULL, z, alpha, NULL);
        if (s != GS_ERR_EXHAUSTED)
            fprintf(stderr, "zero fingerprint, log_n %u: %s (%s)\n", log_n, gs_status_str(s),
                    gs_cuda_last_error());
        CHECK(s == GS_ERR_EXHAUSTED);
        gs_cuda_mem_free(d_trace), gs_cuda_mem_free(d_aux);
        free(trace), free(aux);
        gs_logup_free(&L);
    }
    gs_air_free(air);
}

/* ---- argument errors: refused before any device work ---- */

static void test_args(void) {
    gs_air *air = air_pubs(1), *other = air_bus_only(), *plain = air_pubs(0);
    gs_air *raw = gs_air_new("unfinalized", 3, 2);
    gs_air_transition(raw, gs_air_col(raw, 0));
    unsigned log_n = 4;
    size_t n = (size_t)1 << log_n;
    gs_fp *trace = rand_values(3 * n), pub[2] = {5, 6};
    tcase c;
    case_make(&c, "pubs-bus (arguments)", air, trace, log_n, pub, 1, 1);
    gs_logup Lo, Lp;
    CHECK_OK(gs_logup_layout(&Lo, other));
    CHECK_OK(gs_logup_layout(&Lp, plain)); /* no interactions */
    long ops[3];
    for (int k = 0; k < 3; k++) ops[k] = gs_cuda_fault_count((gs_cuda_fault_kind)k);

    gs_quotient_args q;
    const gs_status bad = GS_ERR_INVALID_ARG;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, NULL, NULL) == bad);
    CHECK(gs_cuda_quotient(NULL, c.d_lde, c.d_aux_lde, &c.qa, NULL) == bad);
    CHECK(gs_cuda_quotient(c.d_out, NULL, c.d_aux_lde, &c.qa, NULL) == bad);
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, NULL, &c.qa, NULL) == bad); /* LogUp needs the aux LDE */
    q = c.qa, q.air = NULL;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.air = raw;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.log_blowup = 33 - log_n;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.shift = GS_FP_P;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.shift = 1; /* the coset would meet the trace domain */
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.alpha_pows = NULL;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.pub = NULL;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.bound_vals = NULL;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.bus_alpha_pows = NULL;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.logup = &Lo; /* another AIR's layout */
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    q = c.qa, q.logup = &Lp; /* a layout without interactions */
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    uint32_t nb = gs_air_num_boundaries(air);
    uint32_t *bc = xmalloc(nb * sizeof *bc);
    uint64_t *br = xmalloc(nb * sizeof *br);
    memcpy(bc, c.bcols, nb * sizeof *bc), memcpy(br, c.brows, nb * sizeof *br);
    bc[nb - 1] = gs_air_num_cols(air);
    q = c.qa, q.bound_cols = bc;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    br[0] = n;
    q = c.qa, q.bound_rows = br;
    CHECK(gs_cuda_quotient(c.d_out, c.d_lde, c.d_aux_lde, &q, NULL) == bad);
    free(bc), free(br);

    gs_fp3 sg;
    CHECK(gs_cuda_logup_aux(NULL, &sg, &c.L, air, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, NULL, &c.L, air, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, NULL, air, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &c.L, NULL, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &c.L, air, NULL, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &c.L, air, c.d_trace, 33, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &c.L, air, c.d_trace, log_n, NULL, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &c.L, raw, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &Lo, air, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    CHECK(gs_cuda_logup_aux(c.d_aux, &sg, &Lp, plain, c.d_trace, log_n, pub, c.z, c.alpha, NULL) == bad);
    for (int k = 0; k < 3; k++) CHECK(gs_cuda_fault_count((gs_cuda_fault_kind)k) == ops[k]);

    /* The same case is fine with its real arguments. */
    CHECK(run_aux(&c, NULL));
    CHECK(run_quot(&c, NULL));
    case_free(&c);
    gs_logup_free(&Lo), gs_logup_free(&Lp);
    free(trace);
    gs_air_free(air), gs_air_free(other), gs_air_free(plain), gs_air_free(raw);
}

/* ---- a non-default stream ---- */

static void test_stream(void) {
    void *stream = NULL;
    CHECK_OK(gs_cuda_merkle_stream_create(&stream));
    if (!stream) return;
    gs_air *air = air_bus_wide();
    unsigned log_n = 12;
    gs_fp *trace = rand_values(5 * ((size_t)1 << log_n)), pub[1] = {gs_test_fp()};
    tcase c;
    case_make(&c, "bus-wide (stream)", air, trace, log_n, pub, 1, 1);
    CHECK(run_aux(&c, stream));
    CHECK(run_quot(&c, stream));
    case_free(&c);
    free(trace);
    gs_air_free(air);
    gs_cuda_merkle_stream_destroy(stream);
}

/* ---- fault injection: each device operation of a call failing in turn ---- */

static void fault_sweep(tcase *c, int aux) {
    static const char *names[3] = {"alloc", "copy", "launch"};
    for (int kind = 0; kind < 3; kind++) {
        /* Warm-up: kernels loaded, local memory sized, pools settled. */
        CHECK(aux ? run_aux(c, NULL) : run_quot(c, NULL));
        CHECK_OK(gs_cuda_sync());
        long live0 = gs_cuda_live_allocations(); /* this process's, not the device's */
        int failures = 0, done = 0;
        for (long k = 1; k <= 64 && !done; k++) {
            if (aux) dev_poison(c->d_aux, c->A3 * c->n);
            else dev_poison(c->d_out, 3 * c->N);
            gs_fp3 sg = gs_fp3_zero();
            gs_cuda_fault_inject((gs_cuda_fault_kind)kind, k);
            gs_status s = aux ? gs_cuda_logup_aux(c->d_aux, &sg, &c->L, c->air, c->d_trace, c->log_n,
                                                  c->pub, c->z, c->alpha, NULL)
                              : gs_cuda_quotient(c->d_out, c->d_lde, c->d_aux_lde, &c->qa, NULL);
            gs_cuda_fault_inject((gs_cuda_fault_kind)kind, 0);
            CHECK_OK(gs_cuda_sync());
            if (s == GS_OK) {
                done = 1;
                CHECK(aux ? aux_matches(c, sg) : quot_matches(c));
            } else {
                failures++;
                if (s != GS_ERR_CUDA || strncmp(gs_cuda_last_error(), "injected fault", 14) != 0)
                    fprintf(stderr, "%s fault %s #%ld: %s (%s)\n", aux ? "aux" : "quotient",
                            names[kind], k, gs_status_str(s), gs_cuda_last_error());
                CHECK(s == GS_ERR_CUDA);
                CHECK(strncmp(gs_cuda_last_error(), "injected fault", 14) == 0);
            }
            long live1 = gs_cuda_live_allocations();
            if (live1 != live0)
                fprintf(stderr, "%s fault %s #%ld: live device allocations %ld -> %ld\n",
                        aux ? "aux" : "quotient", names[kind], k, live0, live1);
            CHECK(live1 == live0);
        }
        CHECK(done);
        CHECK(failures >= 1);
    }
}

static void test_faults(void) {
    gs_air *bw = air_bus_wide(), *pb = air_pubs(1);
    unsigned log_n = 12; /* a two-level scan; global register files */
    gs_fp *trace = rand_values(5 * ((size_t)1 << log_n)), pub[2] = {gs_test_fp(), gs_test_fp()};
    tcase c;
    case_make(&c, "bus-wide (faults)", bw, trace, log_n, pub, 1, 1);
    fault_sweep(&c, 1);
    fault_sweep(&c, 0);
    case_free(&c);
    case_make(&c, "pubs-bus (faults)", pb, trace, 6, pub, 2, 1); /* local register files */
    fault_sweep(&c, 1);
    fault_sweep(&c, 0);
    case_free(&c);
    free(trace);
    gs_air_free(bw), gs_air_free(pb);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) g_quick = 1;
    if (gs_cuda_device_count() == 0) {
        printf("skipped: no CUDA device (%s)\n",
               gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return GS_TEST_SKIP;
    }
    g_max_values = g_quick ? (size_t)1 << 20 : (size_t)1 << 22;
    test_args();
    test_fib();
    test_mix();
    test_custom();
    test_synth();
    test_zero_fingerprint();
    test_stream();
    test_faults();
    printf("%ld quotients and %ld aux traces compared\n", g_quots, g_auxes);
    return gs_test_done();
}
