/* Built-in AIRs: fib and mix traces satisfy their AIRs; values against
 * independent computations (the Fibonacci recurrence with '%', the mix
 * definition of gstark/airs.h evaluated naively); changed cells are caught;
 * degrees, shapes, determinism, seeds, non-degeneracy, parameter errors. */
#include "gstark/airs.h"
#include "gstark/parallel.h"
#include "test_util.h"

static int digest_eq(const gs_air *a, const gs_air *b) {
    gs_digest x = gs_air_fingerprint(a), y = gs_air_fingerprint(b);
    return memcmp(&x, &y, sizeof x) == 0;
}

/* A nonzero field element to add to a cell. */
static gs_fp nonzero_delta(void) {
    gs_fp d = gs_test_fp();
    return d ? d : 1;
}

/* Changing the cell (c, r) makes the check fail. */
static void check_tamper(const gs_workload *w, uint32_t c, size_t r) {
    size_t n = (size_t)1 << w->log_n, at = (size_t)c * n + r;
    gs_fp old = w->trace[at];
    w->trace[at] = gs_fp_add(old, nonzero_delta());
    uint64_t row = 0;
    CHECK(gs_air_check_trace(w->air, w->trace, w->log_n, w->pub, &row, NULL) ==
          GS_ERR_AIR_UNSATISFIED);
    /* A changed row r >= 1 breaks the transition on row r - 1 first. */
    if (r >= 1) CHECK_EQ_U64(row, r - 1);
    w->trace[at] = old;
}

/* ---- fib ---- */

static uint64_t mod_add(uint64_t a, uint64_t b) {
    return (uint64_t)(((unsigned __int128)a + b) % GS_FP_P);
}

static void test_fib(void) {
    for (unsigned log_n = 1; log_n <= 12; log_n++) {
        size_t n = (size_t)1 << log_n;
        gs_fp a0 = gs_test_fp(), a1 = gs_test_fp();
        if (log_n == 3) a0 = 0, a1 = 1;
        gs_workload w;
        CHECK(gs_airs_fib(&w, log_n, a0, a1) == GS_OK);
        CHECK(w.log_n == log_n);
        CHECK(gs_air_num_cols(w.air) == 2 && gs_air_num_public(w.air) == 4);
        CHECK(gs_air_max_degree(w.air) == 1);
        CHECK(gs_air_check_trace(w.air, w.trace, log_n, w.pub, NULL, NULL) == GS_OK);
        /* Independent recurrence: F_0 = a0, F_1 = a1, F_{k+2} = F_k + F_{k+1}
         * mod p; a[i] = F_i, b[i] = F_{i+1}. */
        uint64_t f0 = a0 % GS_FP_P, f1 = a1 % GS_FP_P;
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += w.trace[i] != f0 || w.trace[n + i] != f1;
            uint64_t f2 = mod_add(f0, f1);
            f0 = f1, f1 = f2;
        }
        CHECK(bad == 0);
        CHECK_EQ_U64(w.pub[0], a0 % GS_FP_P);
        CHECK_EQ_U64(w.pub[1], a1 % GS_FP_P);
        CHECK_EQ_U64(w.pub[2], w.trace[2 * n - 1]);
        CHECK_EQ_U64(w.pub[3], w.trace[n - 1]);
        if (log_n == 3) CHECK_EQ_U64(w.pub[2], 21); /* b[7] = F_8 */
        for (int t = 0; t < 4; t++) check_tamper(&w, (uint32_t)gs_test_below(2), gs_test_below(n));
        check_tamper(&w, 0, n - 1);
        check_tamper(&w, 1, n - 1);
        check_tamper(&w, 0, 0);
        check_tamper(&w, 1, 0);
        /* A wrong public input is caught too. */
        w.pub[2] = gs_fp_add(w.pub[2], 1);
        CHECK(gs_air_check_trace(w.air, w.trace, log_n, w.pub, NULL, NULL) ==
              GS_ERR_AIR_UNSATISFIED);
        gs_air *a = NULL;
        CHECK(gs_airs_fib_air(&a) == GS_OK);
        CHECK(a && digest_eq(a, w.air));
        gs_air_free(a);
        gs_workload_free(&w);
        CHECK(w.air == NULL && w.trace == NULL && w.pub == NULL && w.log_n == 0);
        gs_workload_free(&w); /* zeroed: a no-op */
    }
    /* Non-canonical inputs are reduced. */
    gs_workload w;
    CHECK(gs_airs_fib(&w, 4, GS_FP_P + 2, UINT64_MAX) == GS_OK);
    CHECK_EQ_U64(w.trace[0], 2);
    CHECK_EQ_U64(w.trace[16], UINT64_MAX - GS_FP_P);
    CHECK(gs_air_check_trace(w.air, w.trace, 4, w.pub, NULL, NULL) == GS_OK);
    gs_workload_free(&w);
}

/* ---- mix: the definition of gstark/airs.h, evaluated naively ---- */

static uint64_t ref_stream(uint64_t seed, uint64_t k) {
    uint64_t z = seed;
    for (uint64_t i = 0; i <= k; i++) z += 0x9E3779B97F4A7C15ull; /* state after k+1 steps */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static gs_fp ref_f(uint64_t seed, uint64_t k) { return ref_stream(seed, k) % GS_FP_P; }
static gs_fp ref_fstar(uint64_t seed, uint64_t k) {
    gs_fp v = ref_f(seed, k);
    return v ? v : 1;
}

typedef struct {
    uint32_t C, g, K;
    uint32_t *lo, *size; /* per column: its group's first column and size */
    gs_fp *alpha, *beta, *gamma;
} ref_mix;

static void ref_init(ref_mix *r, const gs_mix_params *p) {
    r->C = p->cols;
    r->g = (p->cols + 31) / 32;
    r->K = p->cols < 8 ? p->cols : 8;
    r->lo = malloc(r->C * sizeof *r->lo);
    r->size = malloc(r->C * sizeof *r->size);
    r->alpha = malloc(r->C * sizeof *r->alpha);
    r->beta = malloc(r->C * sizeof *r->beta);
    r->gamma = malloc(r->C * sizeof *r->gamma);
    for (uint32_t j = 0; j < r->g; j++) {
        uint32_t lo = (uint32_t)((uint64_t)j * r->C / r->g);
        uint32_t hi = (uint32_t)((uint64_t)(j + 1) * r->C / r->g);
        for (uint32_t c = lo; c < hi; c++) r->lo[c] = lo, r->size[c] = hi - lo;
    }
    for (uint32_t c = 0; c < r->C; c++) {
        r->alpha[c] = ref_fstar(p->seed, 4ull * c);
        r->beta[c] = ref_fstar(p->seed, 4ull * c + 1);
        r->gamma[c] = ref_fstar(p->seed, 4ull * c + 2);
    }
}

static void ref_free(ref_mix *r) {
    free(r->lo), free(r->size), free(r->alpha), free(r->beta), free(r->gamma);
}

/* F_c over Fp3 at the current-row values cur. */
static gs_fp3 ref_F(const ref_mix *r, unsigned d, uint32_t c, const gs_fp3 *cur) {
    uint32_t lo = r->lo[c], G = r->size[c], i = c - lo;
    gs_fp3 prod = gs_fp3_one();
    for (unsigned t = 0; t < d; t++) prod = gs_fp3_mul(prod, cur[lo + (i + t) % G]);
    gs_fp3 v = gs_fp3_mul_fp(prod, r->alpha[c]);
    v = gs_fp3_add(v, gs_fp3_mul_fp(cur[lo + (i + G - 1) % G], r->beta[c]));
    return gs_fp3_add(v, gs_fp3_from_fp(r->gamma[c]));
}

/* Everything about one mix workload; `full` also replays every row. */
static void check_mix(const gs_mix_params *p, int full) {
    size_t n = (size_t)1 << p->log_n;
    uint32_t C = p->cols;
    gs_workload w;
    gs_status s = gs_airs_mix(&w, p);
    CHECK(s == GS_OK);
    if (s != GS_OK) {
        fprintf(stderr, "mix cols %u degree %u log_n %u: %s\n", p->cols, p->degree, p->log_n,
                gs_status_str(s));
        return;
    }
    ref_mix r;
    ref_init(&r, p);
    CHECK(w.log_n == p->log_n);
    CHECK(gs_air_num_cols(w.air) == C);
    CHECK(gs_air_num_transitions(w.air) == C);
    CHECK(gs_air_num_public(w.air) == 3 * r.K);
    CHECK(gs_air_num_boundaries(w.air) == 3 * r.K);
    CHECK(gs_air_max_degree(w.air) == p->degree);
    CHECK(gs_air_num_chunks(w.air) == p->degree - 1);
    CHECK(gs_air_check_trace(w.air, w.trace, p->log_n, w.pub, NULL, NULL) == GS_OK);
    /* Boundaries: rows 0, n/2, n-1 of columns i C / K; the publics match. */
    for (uint32_t b = 0; b < 3 * r.K; b++) {
        uint32_t col = 0;
        uint64_t row = 0, want_row = b < r.K ? 0 : b < 2 * r.K ? n / 2 : n - 1;
        uint32_t want_col = (uint32_t)((uint64_t)(b % r.K) * C / r.K);
        CHECK(gs_air_boundary_at(w.air, b, p->log_n, &col, &row) == GS_OK);
        CHECK_EQ_U64(row, want_row);
        CHECK_EQ_U64(col, want_col);
        CHECK_EQ_U64(w.pub[b], w.trace[(size_t)want_col * n + want_row]);
    }
    /* The first row, and the transitions replayed from the definition. */
    int bad = 0;
    for (uint32_t c = 0; c < C; c++) bad += w.trace[(size_t)c * n] != ref_f(p->seed, 4ull * c + 3);
    gs_fp3 *cur = malloc(C * sizeof *cur), *nxt = malloc(C * sizeof *nxt);
    gs_fp3 *out = malloc(C * sizeof *out);
    size_t rows_checked = full ? n - 1 : (n - 1 < 8 ? n - 1 : 8);
    for (size_t k = 0; k < rows_checked; k++) {
        size_t row = full ? k : gs_test_below(n - 1);
        for (uint32_t c = 0; c < C; c++) cur[c] = gs_fp3_from_fp(w.trace[(size_t)c * n + row]);
        for (uint32_t c = 0; c < C; c++) {
            gs_fp3 f = ref_F(&r, p->degree, c, cur);
            bad += f.c[0] != w.trace[(size_t)c * n + row + 1];
        }
    }
    CHECK(bad == 0);
    /* The AIR at a random extension point is next[c] - F_c(cur) exactly. */
    gs_fp *pubz = calloc(3 * r.K, sizeof *pubz);
    for (uint32_t c = 0; c < C; c++) cur[c] = gs_test_fp3(), nxt[c] = gs_test_fp3();
    CHECK(gs_air_eval_ext(w.air, out, cur, nxt, pubz) == GS_OK);
    bad = 0;
    for (uint32_t c = 0; c < C; c++)
        bad += !gs_fp3_eq(out[c], gs_fp3_sub(nxt[c], ref_F(&r, p->degree, c, cur)));
    CHECK(bad == 0);
    free(pubz), free(cur), free(nxt), free(out);
    /* Changed cells: random ones, the last row, the first row. */
    for (int t = 0; t < 3; t++) check_tamper(&w, (uint32_t)gs_test_below(C), gs_test_below(n));
    check_tamper(&w, (uint32_t)gs_test_below(C), n - 1);
    check_tamper(&w, (uint32_t)gs_test_below(C), 0);
    check_tamper(&w, C - 1, n - 1);
    /* The AIR alone equals the workload's. */
    gs_air *a = NULL;
    CHECK(gs_airs_mix_air(&a, p) == GS_OK);
    CHECK(a && digest_eq(a, w.air));
    gs_air_free(a);
    ref_free(&r);
    gs_workload_free(&w);
}

static void test_mix_shapes(void) {
    static const uint32_t cols[] = {1, 2, 3, 16, 64, 300};
    for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++)
        for (unsigned d = 2; d <= 9; d++) {
            gs_mix_params p = {cols[ci], d, 1 + (unsigned)gs_test_below(cols[ci] > 64 ? 8 : 12),
                               gs_test_u64()};
            check_mix(&p, 1);
        }
    /* Every log_n 1..12 on a few shapes; the largest degrees. */
    for (unsigned log_n = 1; log_n <= 12; log_n++) {
        gs_mix_params p = {3, 4, log_n, gs_test_u64()};
        check_mix(&p, 1);
        gs_mix_params q = {40, 3, log_n, gs_test_u64()};
        check_mix(&q, log_n <= 8);
    }
    for (unsigned d = 10; d <= GS_AIRS_MIX_MAX_DEGREE; d++) {
        gs_mix_params p = {(uint32_t)(1 + gs_test_below(70)), d, 6, gs_test_u64()};
        check_mix(&p, 1);
    }
    gs_mix_params wide = {GS_AIRS_MIX_MAX_COLS, 5, 4, gs_test_u64()};
    check_mix(&wide, 1);
    gs_mix_params odd = {33, 17, 5, gs_test_u64()}; /* groups of 17 and 16 columns */
    check_mix(&odd, 1);
}

static void test_mix_determinism(void) {
    gs_mix_params p = {300, 5, 9, 12345};
    size_t n = (size_t)1 << p.log_n, cells = (size_t)p.cols * n;
    gs_workload a, b, c, e;
    gs_threads_set(1);
    CHECK(gs_airs_mix(&a, &p) == GS_OK);
    gs_threads_set(3);
    CHECK(gs_airs_mix(&b, &p) == GS_OK);
    gs_threads_set(0);
    CHECK(digest_eq(a.air, b.air));
    CHECK(memcmp(a.trace, b.trace, cells * sizeof(gs_fp)) == 0);
    CHECK(memcmp(a.pub, b.pub, 3 * 8 * sizeof(gs_fp)) == 0);
    /* Another seed: other constants and another trace. */
    gs_mix_params q = p;
    q.seed = 12346;
    CHECK(gs_airs_mix(&c, &q) == GS_OK);
    CHECK(!digest_eq(a.air, c.air));
    size_t same = 0;
    for (size_t i = 0; i < cells; i++) same += a.trace[i] == c.trace[i];
    CHECK(same < 4);
    /* Another log_n moves the middle boundary: another AIR. */
    q = p;
    q.log_n = 10;
    CHECK(gs_airs_mix(&e, &q) == GS_OK);
    CHECK(!digest_eq(a.air, e.air));
    /* Same rows for the same seed: the trace of 2^9 rows is a prefix. */
    CHECK(memcmp(a.trace, e.trace, n * sizeof(gs_fp)) == 0);
    gs_workload_free(&e);
    /* Another degree or width: another AIR. */
    q = p;
    q.degree = 6;
    gs_air *x = NULL;
    CHECK(gs_airs_mix_air(&x, &q) == GS_OK);
    CHECK(!digest_eq(a.air, x));
    gs_air_free(x);
    gs_workload_free(&a), gs_workload_free(&b), gs_workload_free(&c);
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static void test_mix_not_degenerate(void) {
    static const gs_mix_params ps[] = {
        {1, 2, 12, 1}, {2, 9, 11, 0}, {64, 3, 10, 7}, {5, 17, 10, 0}, {300, 2, 8, 3}};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        gs_workload w;
        CHECK(gs_airs_mix(&w, &ps[k]) == GS_OK);
        size_t cells = (size_t)ps[k].cols << ps[k].log_n, zeros = 0, dups = 0, small = 0;
        gs_fp *v = malloc(cells * sizeof *v);
        memcpy(v, w.trace, cells * sizeof *v);
        for (size_t i = 0; i < cells; i++) zeros += v[i] == 0, small += v[i] < (1ull << 40);
        qsort(v, cells, sizeof *v, cmp_u64);
        for (size_t i = 1; i < cells; i++) dups += v[i] == v[i - 1];
        CHECK(zeros == 0);
        CHECK(dups == 0);
        CHECK(small < 4); /* values spread over the whole field */
        /* Consecutive values of a column differ; so do bits across the field. */
        uint64_t or_all = 0, and_all = UINT64_MAX;
        for (size_t i = 0; i < cells; i++) or_all |= w.trace[i], and_all &= w.trace[i];
        CHECK(or_all >> 60 == 0xF && and_all == 0);
        free(v);
        gs_workload_free(&w);
    }
}

static void test_errors(void) {
    gs_workload w;
    memset(&w, 0x5A, sizeof w);
    CHECK(gs_airs_fib(&w, 0, 1, 1) == GS_ERR_INVALID_ARG);
    CHECK(w.air == NULL && w.trace == NULL && w.pub == NULL);
    CHECK(gs_airs_fib(&w, GS_AIRS_FIB_MAX_LOG_N + 1, 1, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_airs_fib(NULL, 4, 1, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_airs_fib_air(NULL) == GS_ERR_INVALID_ARG);
    const gs_mix_params ok = {4, 3, 4, 9};
    gs_mix_params bad[] = {ok, ok, ok, ok, ok, ok, ok, ok};
    bad[0].cols = 0;
    bad[1].cols = GS_AIRS_MIX_MAX_COLS + 1;
    bad[2].degree = 0;
    bad[3].degree = 1;
    bad[4].degree = GS_AIRS_MIX_MAX_DEGREE + 1;
    bad[5].log_n = 0;
    bad[6].log_n = GS_AIRS_MIX_MAX_LOG_N + 1;
    bad[7].cols = UINT32_MAX;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gs_air *a = (gs_air *)&w; /* overwritten with NULL on error */
        memset(&w, 0x5A, sizeof w);
        CHECK(gs_airs_mix(&w, &bad[i]) == GS_ERR_INVALID_ARG);
        CHECK(w.air == NULL && w.trace == NULL && w.pub == NULL);
        CHECK(gs_airs_mix_air(&a, &bad[i]) == GS_ERR_INVALID_ARG);
        CHECK(a == NULL);
    }
    CHECK(gs_airs_mix(NULL, &ok) == GS_ERR_INVALID_ARG);
    CHECK(gs_airs_mix(&w, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_airs_mix_air(NULL, &ok) == GS_ERR_INVALID_ARG);
    gs_air *a = NULL;
    CHECK(gs_airs_mix_air(&a, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_airs_mix(&w, &ok) == GS_OK);
    gs_workload_free(&w);
    gs_workload_free(NULL);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_fib();
    test_mix_shapes();
    test_mix_determinism();
    test_mix_not_degenerate();
    test_errors();
    return gs_test_done();
}
