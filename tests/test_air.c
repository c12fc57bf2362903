/* AIR builder and bytecode tests: random expression DAGs evaluated by the
 * block interpreter and the extension interpreter against a tree-walking
 * evaluator kept by the test; register reuse; degrees; the trace checker;
 * builder errors; fingerprints. */
#include "gstark/air.h"
#include "gstark/parallel.h"
#include "test_util.h"

#define NCOLS 5
#define NPUB 3
#define MAXN 400

/* The test's own mirror of each expression. */
typedef struct {
    int op; /* 0 col, 1 next, 2 pub, 3 const, 4 add, 5 sub, 6 mul, 7 neg */
    int a, b;
    uint64_t v;
    unsigned deg;
} tnode;

static tnode T[MAXN];
static gs_expr E[MAXN];
static int NT;

/* Evaluates node i straight from the mirror: every node in order, each
 * from its operands' values (the mirror is a DAG; no sharing is assumed). */
static gs_fp3 eval3(int i, const gs_fp3 *cur, const gs_fp3 *next, const gs_fp *pub) {
    static gs_fp3 v[MAXN];
    for (int j = 0; j <= i; j++) {
        const tnode *t = &T[j];
        switch (t->op) {
        case 0: v[j] = cur[t->v]; break;
        case 1: v[j] = next[t->v]; break;
        case 2: v[j] = gs_fp3_from_fp(pub[t->v]); break;
        case 3: v[j] = gs_fp3_from_fp(t->v); break;
        case 4: v[j] = gs_fp3_add(v[t->a], v[t->b]); break;
        case 5: v[j] = gs_fp3_sub(v[t->a], v[t->b]); break;
        case 6: v[j] = gs_fp3_mul(v[t->a], v[t->b]); break;
        default: v[j] = gs_fp3_neg(v[t->a]); break;
        }
    }
    return v[i];
}

/* Builds NT random nodes (leaves first, then operations on earlier nodes)
 * into the AIR and the mirror. */
static void build_random(gs_air *air) {
    NT = 0;
    for (int i = 0; i < MAXN; i++) {
        tnode t = {0, 0, 0, 0, 0};
        int kind = i < 12 ? (int)gs_test_below(4) : 4 + (int)gs_test_below(4);
        t.op = kind;
        switch (kind) {
        case 0: t.v = gs_test_below(NCOLS), t.deg = 1, E[i] = gs_air_col(air, (uint32_t)t.v); break;
        case 1: t.v = gs_test_below(NCOLS), t.deg = 1, E[i] = gs_air_next(air, (uint32_t)t.v); break;
        case 2: t.v = gs_test_below(NPUB), E[i] = gs_air_public(air, (uint32_t)t.v); break;
        case 3: t.v = gs_test_fp(), E[i] = gs_air_const(air, t.v); break;
        default: {
            /* Mostly recent operands keep degrees moderate but reach far back too. */
            t.a = i - 1 - (int)gs_test_below(i < 8 ? (uint64_t)i : 8);
            t.b = (int)gs_test_below((uint64_t)i);
            unsigned da = T[t.a].deg, db = T[t.b].deg;
            if (kind == 6 && da + db > 6) kind = t.op = 4;
            if (kind == 4) t.deg = da > db ? da : db, E[i] = gs_air_add(air, E[t.a], E[t.b]);
            if (kind == 5) t.deg = da > db ? da : db, E[i] = gs_air_sub(air, E[t.a], E[t.b]);
            if (kind == 6) t.deg = da + db, E[i] = gs_air_mul(air, E[t.a], E[t.b]);
            if (kind == 7) t.deg = da, E[i] = gs_air_neg(air, E[t.a]);
        }
        }
        T[i] = t;
        NT++;
    }
}

static void test_random_programs(void) {
    for (int round = 0; round < 20; round++) {
        gs_air *air = gs_air_new("random", NCOLS, NPUB);
        CHECK(air != NULL);
        build_random(air);
        int outs[24];
        unsigned maxd = 1;
        for (int k = 0; k < 24; k++) {
            outs[k] = NT - 1 - (int)gs_test_below(60); /* includes repeated outputs */
            gs_air_transition(air, E[outs[k]]);
            if (T[outs[k]].deg > maxd) maxd = T[outs[k]].deg;
        }
        CHECK(gs_air_finalize(air) == GS_OK);
        CHECK(gs_air_max_degree(air) == maxd);
        CHECK(gs_air_num_transitions(air) == 24);
        /* Block interpreter on a random 2^7 x NCOLS matrix, next step 3. */
        size_t rows = 128, step = 3;
        gs_fp m[NCOLS * 128], pub[NPUB], out[24 * GS_AIR_BLOCK];
        for (size_t i = 0; i < NCOLS * rows; i++) m[i] = gs_test_fp();
        for (int i = 0; i < NPUB; i++) pub[i] = gs_test_fp();
        void *scratch = malloc(gs_air_scratch_size(air));
        int bad = 0;
        for (size_t start = 0; start < rows; start += 40) {
            size_t count = rows - start < 40 ? rows - start : 40;
            CHECK(gs_air_eval_block(air, scratch, out, m, rows, step, start, count, pub) == GS_OK);
            for (size_t r = 0; r < count; r++) {
                gs_fp3 cur[NCOLS], nxt[NCOLS];
                for (int c = 0; c < NCOLS; c++) {
                    cur[c] = gs_fp3_from_fp(m[c * rows + start + r]);
                    nxt[c] = gs_fp3_from_fp(m[c * rows + ((start + r + step) % rows)]);
                }
                for (int k = 0; k < 24; k++) {
                    gs_fp3 want = eval3(outs[k], cur, nxt, pub);
                    bad += want.c[1] || want.c[2] || out[k * count + r] != want.c[0];
                }
            }
        }
        CHECK(bad == 0);
        /* Extension interpreter at a random point. */
        gs_fp3 cur[NCOLS], nxt[NCOLS], o3[24];
        for (int c = 0; c < NCOLS; c++) cur[c] = gs_test_fp3(), nxt[c] = gs_test_fp3();
        CHECK(gs_air_eval_ext(air, o3, cur, nxt, pub) == GS_OK);
        for (int k = 0; k < 24; k++) CHECK(gs_fp3_eq(o3[k], eval3(outs[k], cur, nxt, pub)));
        free(scratch);
        gs_air_free(air);
    }
}

static void test_register_reuse(void) {
    /* A long chain x_{i+1} = x_i * col1 + c_i: at most a handful of live values. */
    gs_air *air = gs_air_new("chain", 2, 0);
    gs_expr x = gs_air_col(air, 0);
    for (int i = 0; i < 1000; i++)
        x = gs_air_add(air, gs_air_mul(air, x, gs_air_col(air, 1)), gs_air_const(air, (gs_fp)i + 2));
    gs_air_transition(air, gs_air_sub(air, x, gs_air_next(air, 0)));
    CHECK(gs_air_finalize(air) == GS_OK);
    /* Scratch is (regs + 1) rows; a chain needs only a few registers. */
    CHECK(gs_air_scratch_size(air) <= 8 * GS_AIR_BLOCK * sizeof(gs_fp));
    CHECK(gs_air_max_degree(air) == 1001);
    CHECK(gs_air_check_degree(air, 3) == GS_ERR_AIR_DEGREE);
    gs_air_free(air);
}

/* Fibonacci: a' = b, b' = a + b; a[0] = pub0, b[0] = pub1, b[last] = pub2. */
static gs_air *fib_air(void) {
    gs_air *air = gs_air_new("fib", 2, 3);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0), gs_air_col(air, 1)));
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 1),
                                      gs_air_add(air, gs_air_col(air, 0), gs_air_col(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_public(air, 0));
    gs_air_boundary(air, 1, 0, gs_air_public(air, 1));
    gs_air_boundary(air, 1, -1, gs_air_public(air, 2));
    return air;
}

static void test_check_trace(void) {
    gs_air *air = fib_air();
    CHECK(gs_air_finalize(air) == GS_OK);
    CHECK(gs_air_max_degree(air) == 1 && gs_air_num_chunks(air) == 1);
    CHECK(gs_air_check_degree(air, 1) == GS_OK);
    for (unsigned log_n = 1; log_n <= 12; log_n++) {
        size_t n = (size_t)1 << log_n;
        gs_fp *m = malloc(2 * n * sizeof *m), pub[4] = {3, 5, 0, 0};
        m[0] = pub[0], m[n] = pub[1];
        for (size_t i = 0; i + 1 < n; i++) m[i + 1] = m[n + i], m[n + i + 1] = gs_fp_add(m[i], m[n + i]);
        pub[2] = m[2 * n - 1], pub[3] = m[n - 1];
        uint64_t row = 99;
        uint32_t con = 99;
        for (unsigned t = 1; t <= 3; t++) {
            gs_threads_set(t);
            CHECK(gs_air_check_trace(air, m, log_n, pub, &row, &con) == GS_OK);
        }
        gs_threads_set(0);
        /* Any changed cell is caught, and the first failing place is named. */
        size_t cell = gs_test_below(2 * n);
        m[cell] = gs_fp_add(m[cell], 1);
        CHECK(gs_air_check_trace(air, m, log_n, pub, &row, &con) == GS_ERR_AIR_UNSATISFIED);
        size_t r = cell % n;
        if (cell == 0 || cell == n) CHECK(row == 0); /* transition 0 or boundary */
        else CHECK(row == r - 1 || row == r);
        m[cell] = gs_fp_sub(m[cell], 1);
        pub[2] = gs_fp_add(pub[2], 1);
        CHECK(gs_air_check_trace(air, m, log_n, pub, &row, &con) == GS_ERR_AIR_UNSATISFIED);
        CHECK(row == n - 1 && con == 4);
        /* the boundaries alone, as the CUDA backend's check mode uses them */
        CHECK(gs_air_check_boundaries(air, m, log_n, pub, &row, &con) == GS_ERR_AIR_UNSATISFIED);
        CHECK(row == n - 1 && con == 4);
        pub[2] = gs_fp_sub(pub[2], 1);
        CHECK(gs_air_check_boundaries(air, m, log_n, pub, &row, &con) == GS_OK);
        m[1] = gs_fp_add(m[1], 1); /* a's row 1: transitions only, not theirs */
        CHECK(gs_air_check_boundaries(air, m, log_n, pub, NULL, NULL) == GS_OK);
        m[1] = gs_fp_sub(m[1], 1);
        m[n] = gs_fp_add(m[n], 1); /* b's row 0: boundary 1 */
        CHECK(gs_air_check_boundaries(air, m, log_n, pub, &row, &con) == GS_ERR_AIR_UNSATISFIED);
        CHECK(row == 0 && con == 3);
        m[n] = gs_fp_sub(m[n], 1);
        CHECK(gs_air_check_boundaries(NULL, m, log_n, pub, NULL, NULL) == GS_ERR_INVALID_ARG);
        free(m);
    }
    gs_air_free(air);
}

static void test_errors_and_fingerprint(void) {
    CHECK(gs_air_new("x", 0, 0) == NULL);
    CHECK(gs_air_new("x", GS_AIR_MAX_COLS + 1, 0) == NULL);
    gs_air *a = gs_air_new("bad", 2, 1);
    gs_expr bad = gs_air_col(a, 2);
    CHECK(bad == GS_EXPR_INVALID);
    gs_air_transition(a, gs_air_col(a, 0));
    CHECK(gs_air_finalize(a) == GS_ERR_AIR);
    CHECK(strstr(gs_air_error(a), "column 2") != NULL);
    gs_air_free(a);
    a = gs_air_new("bad", 2, 1);
    gs_air_boundary(a, 0, 0, gs_air_col(a, 1));
    CHECK(gs_air_finalize(a) == GS_ERR_AIR);
    gs_air_free(a);
    a = gs_air_new("bad", 2, 1);
    gs_air_pow(a, gs_air_col(a, 0), GS_AIR_MAX_POW + 1);
    CHECK(gs_air_finalize(a) == GS_ERR_AIR);
    gs_air_free(a);
    a = gs_air_new("empty", 2, 1);
    CHECK(gs_air_finalize(a) == GS_ERR_AIR_EMPTY);
    gs_air_free(a);
    /* pow equals repeated multiplication, and degrees follow. */
    a = gs_air_new("pow", 1, 0);
    gs_air_transition(a, gs_air_pow(a, gs_air_col(a, 0), 5));
    CHECK(gs_air_finalize(a) == GS_OK);
    CHECK(gs_air_max_degree(a) == 5 && gs_air_num_chunks(a) == 4);
    CHECK(gs_air_check_degree(a, 1) == GS_ERR_AIR_DEGREE);
    CHECK(gs_air_check_degree(a, 2) == GS_OK);
    gs_fp3 x = gs_test_fp3(), o;
    CHECK(gs_air_eval_ext(a, &o, &x, &x, NULL) == GS_OK);
    CHECK(gs_fp3_eq(o, gs_fp3_pow(x, 5)));
    /* Fingerprints: equal for equal AIRs, different for any change. */
    gs_air *f1 = fib_air(), *f2 = fib_air(), *f3 = fib_air();
    gs_air_boundary(f3, 0, -1, gs_air_public(f3, 2));
    CHECK(gs_air_finalize(f1) == GS_OK && gs_air_finalize(f2) == GS_OK && gs_air_finalize(f3) == GS_OK);
    gs_digest d1 = gs_air_fingerprint(f1), d2 = gs_air_fingerprint(f2), d3 = gs_air_fingerprint(f3),
              d4 = gs_air_fingerprint(a);
    CHECK(memcmp(&d1, &d2, 32) == 0);
    CHECK(memcmp(&d1, &d3, 32) != 0);
    CHECK(memcmp(&d1, &d4, 32) != 0);
    /* Building after finalize is refused. */
    gs_air_transition(f1, gs_air_col(f1, 0));
    CHECK(gs_air_num_transitions(f1) == 2);
    gs_air_free(f1), gs_air_free(f2), gs_air_free(f3), gs_air_free(a);
    gs_air_free(NULL);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_random_programs();
    test_register_reuse();
    test_check_trace();
    test_errors_and_fingerprint();
    return gs_test_done();
}
