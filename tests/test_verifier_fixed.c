/* Preprocessed ("fixed") columns in the verifiers (docs/protocol.md,
 * "Preprocessed columns"). A two-table statement built with the public API:
 * "prog" (p, s) with s' = s + p', where p is the known program, and "mem"
 * (addr, val, acc) with acc' = acc + addr' val', where addr and val are the
 * known memory image. Over several heights (2 rows, the smallest the prover
 * takes, up to 2^10):
 * - the true fixed values are accepted (and num_fixed = 0 is gs_verify_multi);
 * - a claimed column with one value changed (first, second, middle, last
 *   row) is refused with GS_ERR_PROOF_FIXED;
 * - a cheating prover that commits another program (still satisfying the
 *   AIR) passes gs_verify_multi but is refused against the true program;
 * - bad arguments are refused (GS_ERR_INVALID_ARG, or GS_ERR_PROOF_STATEMENT
 *   for a height the proof does not have), without crashing;
 * - the single-table gs_verify_fixed likewise.
 * And gs_ntt_eval_at against an inverse NTT and Horner's rule at random Fp3
 * points, in the subgroup, and on bad arguments. */
#include "gstark/gstark.h"
#include "test_util.h"

static gs_params params(void) {
    gs_params p = {2, 3, 0, 40, 1, 0, 0, 0, 0}; /* blowup 4, 80 bits from queries alone */
    return p;
}

static gs_air *prog_air(void) {
    gs_air *a = gs_air_new("prog", 2, 0);
    /* s' = s + p' */
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 1), gs_air_add(a, gs_air_col(a, 1), gs_air_next(a, 0))));
    return gs_air_finalize(a) == GS_OK ? a : (gs_air_free(a), NULL);
}

static gs_air *mem_air(void) {
    gs_air *a = gs_air_new("mem", 3, 0);
    /* acc' = acc + addr' val' */
    gs_expr prod = gs_air_mul(a, gs_air_next(a, 0), gs_air_next(a, 1));
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 2), gs_air_add(a, gs_air_col(a, 2), prod)));
    return gs_air_finalize(a) == GS_OK ? a : (gs_air_free(a), NULL);
}

/* Column-major traces from the fixed columns: the running columns follow. */
static gs_fp *prog_trace(const gs_fp *prog, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    gs_fp *m = malloc(2 * n * sizeof *m);
    memcpy(m, prog, n * sizeof *m);
    m[n] = gs_test_fp();
    for (size_t i = 1; i < n; i++) m[n + i] = gs_fp_add(m[n + i - 1], prog[i]);
    return m;
}

static gs_fp *mem_trace(const gs_fp *addr, const gs_fp *val, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    gs_fp *m = malloc(3 * n * sizeof *m);
    memcpy(m, addr, n * sizeof *m);
    memcpy(m + n, val, n * sizeof *m);
    m[2 * n] = 0;
    for (size_t i = 1; i < n; i++) m[2 * n + i] = gs_fp_add(m[2 * n + i - 1], gs_fp_mul(addr[i], val[i]));
    return m;
}

static gs_fp *random_col(size_t n) {
    gs_fp *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = gs_test_fp();
    return v;
}

static gs_multi_proof *prove2(const gs_air *airs[2], const gs_fp *prog, unsigned lp, const gs_fp *addr,
                              const gs_fp *val, unsigned lm) {
    gs_fp *t0 = prog_trace(prog, lp), *t1 = mem_trace(addr, val, lm);
    gs_table_input in[2] = {{.air = airs[0], .trace = t0, .log_n = lp},
                            {.air = airs[1], .trace = t1, .log_n = lm}};
    gs_params par = params();
    gs_multi_proof *mp = NULL;
    gs_status s = gs_prove_multi(&mp, in, 2, &par, NULL);
    if (s != GS_OK) fprintf(stderr, "prove_multi: %s\n", gs_status_str(s));
    CHECK(s == GS_OK);
    free(t0), free(t1);
    return s == GS_OK ? mp : NULL;
}

/* Rows to alter: first, second, middle, last (some coincide when n = 2). */
static void alter_rows(size_t rows[4], size_t n) {
    rows[0] = 0, rows[1] = 1 % n, rows[2] = n / 2, rows[3] = n - 1;
}

static void test_multi(unsigned lp, unsigned lm) {
    size_t np = (size_t)1 << lp, nm = (size_t)1 << lm;
    const gs_air *airs[2] = {prog_air(), mem_air()};
    CHECK(airs[0] && airs[1]);
    gs_fp *prog = random_col(np), *val = random_col(nm), *addr = malloc(nm * sizeof *addr);
    for (size_t i = 0; i < nm; i++) addr[i] = 0x10000 + 4 * i;
    gs_multi_proof *mp = prove2(airs, prog, lp, addr, val, lm);
    if (!mp) goto out;
    CHECK(gs_verify_multi(airs, 2, mp, 0) == GS_OK);

    gs_fixed_col fx[3] = {{0, 0, lp, prog}, {1, 0, lm, addr}, {1, 1, lm, val}};
    CHECK(gs_verify_multi_fixed(airs, 2, mp, fx, 3, 0) == GS_OK);
    for (size_t k = 1; k <= 3; k++) CHECK(gs_verify_multi_fixed(airs, 2, mp, fx + 3 - k, k, 0) == GS_OK);
    CHECK(gs_verify_multi_fixed(airs, 2, mp, NULL, 0, 0) == GS_OK);
    gs_fixed_col rev[3] = {fx[2], fx[0], fx[1]};
    CHECK(gs_verify_multi_fixed(airs, 2, mp, rev, 3, 0) == GS_OK);

    /* One value of a claimed column changed: refused, in each fixed column. */
    for (size_t c = 0; c < 3; c++) {
        size_t n = (size_t)1 << fx[c].log_n, rows[4];
        alter_rows(rows, n);
        gs_fp *bad = malloc(n * sizeof *bad);
        for (size_t r = 0; r < 4; r++) {
            memcpy(bad, fx[c].values, n * sizeof *bad);
            bad[rows[r]] = gs_fp_add(bad[rows[r]], 1 + gs_test_below(1000));
            gs_fixed_col g[3] = {fx[0], fx[1], fx[2]};
            g[c].values = bad;
            gs_status s = gs_verify_multi_fixed(airs, 2, mp, g, 3, 0);
            if (s != GS_ERR_PROOF_FIXED)
                fprintf(stderr, "log_n %u/%u col %zu row %zu: %s\n", lp, lm, c, rows[r], gs_status_str(s));
            CHECK(s == GS_ERR_PROOF_FIXED);
            CHECK(gs_verify_multi_fixed(airs, 2, mp, &g[c], 1, 0) == GS_ERR_PROOF_FIXED);
        }
        free(bad);
    }

    /* Bad arguments: refused before any proof check, never a crash. */
    gs_fixed_col b;
    b = fx[0], b.table = 2;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_INVALID_ARG);
    b = fx[0], b.table = UINT32_MAX;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_INVALID_ARG);
    b = fx[0], b.col = 2;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_INVALID_ARG);
    b = fx[1], b.col = 3;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_INVALID_ARG);
    b = fx[0], b.values = NULL;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_INVALID_ARG);
    b = fx[0], b.log_n = 33;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_INVALID_ARG);
    CHECK(gs_verify_multi_fixed(airs, 2, mp, NULL, 1, 0) == GS_ERR_INVALID_ARG);
    gs_fixed_col dup[4] = {fx[0], fx[1], fx[2], fx[1]};
    CHECK(gs_verify_multi_fixed(airs, 2, mp, dup, 4, 0) == GS_ERR_INVALID_ARG);
    gs_fp keep = prog[np - 1];
    prog[np - 1] = GS_FP_P + 0; /* non-canonical */
    CHECK(gs_verify_multi_fixed(airs, 2, mp, fx, 1, 0) == GS_ERR_INVALID_ARG);
    prog[np - 1] = keep;
    /* Heights the proof does not have: a statement mismatch. */
    gs_fp *big = calloc(2 * np, sizeof *big);
    b = fx[0], b.log_n = lp + 1, b.values = big;
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_PROOF_STATEMENT);
    b = fx[0], b.log_n = lp - 1; /* lp >= 1: the first half of the program */
    CHECK(gs_verify_multi_fixed(airs, 2, mp, &b, 1, 0) == GS_ERR_PROOF_STATEMENT);
    free(big);
    CHECK(gs_verify_multi_fixed(airs, 1, mp, fx, 1, 0) == GS_ERR_PROOF_STATEMENT);
    CHECK(gs_verify_multi_fixed(NULL, 2, mp, fx, 3, 0) == GS_ERR_INVALID_ARG);
    CHECK(gs_verify_multi_fixed(airs, 2, NULL, fx, 3, 0) == GS_ERR_INVALID_ARG);
    const gs_air *nul[2] = {airs[0], NULL};
    CHECK(gs_verify_multi_fixed(nul, 2, mp, fx, 1, 0) == GS_ERR_INVALID_ARG);

    /* A cheating prover commits another program that still satisfies the
     * AIR: a valid proof of the AIR, refused against the true program. */
    for (size_t r = 0; r < 4; r++) {
        size_t rows[4];
        alter_rows(rows, np);
        gs_fp *cheat = malloc(np * sizeof *cheat);
        memcpy(cheat, prog, np * sizeof *cheat);
        cheat[rows[r]] = gs_fp_add(cheat[rows[r]], 7);
        gs_multi_proof *cp = prove2(airs, cheat, lp, addr, val, lm);
        if (cp) {
            CHECK(gs_verify_multi(airs, 2, cp, 0) == GS_OK);
            CHECK(gs_verify_multi_fixed(airs, 2, cp, fx, 3, 0) == GS_ERR_PROOF_FIXED);
            gs_fixed_col own[3] = {{0, 0, lp, cheat}, fx[1], fx[2]};
            CHECK(gs_verify_multi_fixed(airs, 2, cp, own, 3, 0) == GS_OK);
        }
        gs_multi_proof_free(cp);
        free(cheat);
    }
    printf("log_n %u/%u: fixed columns checked\n", lp, lm);
out:
    gs_multi_proof_free(mp);
    free(prog), free(val), free(addr);
    gs_air_free((gs_air *)airs[0]), gs_air_free((gs_air *)airs[1]);
}

static void test_single(unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    gs_air *air = prog_air();
    gs_fp *prog = random_col(n), *t = prog_trace(prog, log_n);
    gs_params par = params();
    gs_proof *p = NULL;
    CHECK(gs_prove(&p, air, t, log_n, NULL, &par, NULL) == GS_OK);
    if (p) {
        gs_fixed_col f = {0, 0, log_n, prog};
        CHECK(gs_verify_fixed(air, p, &f, 1, 0) == GS_OK);
        CHECK(gs_verify_fixed(air, p, NULL, 0, 0) == GS_OK);
        prog[n - 1] = gs_fp_sub(prog[n - 1], 1);
        CHECK(gs_verify_fixed(air, p, &f, 1, 0) == GS_ERR_PROOF_FIXED);
        prog[n - 1] = gs_fp_add(prog[n - 1], 1);
        gs_fixed_col g = f;
        g.table = 1;
        CHECK(gs_verify_fixed(air, p, &g, 1, 0) == GS_ERR_INVALID_ARG);
        g = f, g.col = 2;
        CHECK(gs_verify_fixed(air, p, &g, 1, 0) == GS_ERR_INVALID_ARG);
        g = f, g.log_n = log_n - 1;
        CHECK(gs_verify_fixed(air, p, &g, 1, 0) == GS_ERR_PROOF_STATEMENT);
        CHECK(gs_verify_fixed(NULL, p, &f, 1, 0) == GS_ERR_INVALID_ARG);
        /* The running sum as a fixed column too: two of one table. */
        gs_fixed_col two[2] = {f, {0, 1, log_n, t + n}};
        CHECK(gs_verify_fixed(air, p, two, 2, 0) == GS_OK);
        t[2 * n - 1] = gs_fp_add(t[2 * n - 1], 1);
        CHECK(gs_verify_fixed(air, p, two, 2, 0) == GS_ERR_PROOF_FIXED);
    }
    gs_proof_free(p);
    free(prog), free(t);
    gs_air_free(air);
}

/* gs_ntt_eval_at against coefficients (inverse NTT) evaluated by Horner. */
static void test_eval_at(void) {
    for (unsigned log_n = 0; log_n <= 10; log_n++) {
        size_t n = (size_t)1 << log_n, ncols = 3;
        gs_fp *v = random_col(ncols * n), *coef = malloc(ncols * n * sizeof *coef);
        memcpy(coef, v, ncols * n * sizeof *coef);
        CHECK(gs_ntt_inverse_batch(coef, ncols, log_n) == GS_OK);
        const gs_fp *cols[3] = {v, v + n, v + 2 * n};
        for (int trial = 0; trial < 4; trial++) {
            gs_fp3 x = gs_test_fp3(), got[3];
            if (trial == 3) x = gs_fp3_from_fp(gs_test_fp()); /* a base-field point */
            CHECK(gs_ntt_eval_at(got, cols, ncols, log_n, x) == GS_OK);
            for (size_t c = 0; c < ncols; c++) {
                gs_fp3 want = gs_fp3_zero();
                for (size_t j = n; j-- > 0;) want = gs_fp3_add(gs_fp3_mul(want, x), gs_fp3_from_fp(coef[c * n + j]));
                CHECK(gs_fp3_eq(got[c], want));
            }
        }
        /* In the subgroup: the row's value. */
        gs_fp w = gs_fp_root_of_unity(log_n);
        size_t rows[4];
        alter_rows(rows, n);
        for (size_t r = 0; r < 4; r++) {
            gs_fp3 got[3];
            CHECK(gs_ntt_eval_at(got, cols, ncols, log_n, gs_fp3_from_fp(gs_fp_pow(w, rows[r]))) == GS_OK);
            for (size_t c = 0; c < ncols; c++) CHECK(gs_fp3_eq(got[c], gs_fp3_from_fp(cols[c][rows[r]])));
        }
        free(v), free(coef);
    }
    gs_fp one = 1;
    const gs_fp *col = &one, *nul = NULL;
    gs_fp3 out, x = gs_test_fp3();
    CHECK(gs_ntt_eval_at(&out, &col, 1, 0, x) == GS_OK && gs_fp3_eq(out, gs_fp3_one()));
    CHECK(gs_ntt_eval_at(&out, &col, 1, 33, x) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_eval_at(&out, &nul, 1, 0, x) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_eval_at(NULL, &col, 1, 0, x) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_eval_at(&out, NULL, 1, 0, x) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_eval_at(NULL, NULL, 0, 4, x) == GS_OK);
    gs_fp3 bad = x;
    bad.c[1] = GS_FP_P;
    CHECK(gs_ntt_eval_at(&out, &col, 1, 0, bad) == GS_ERR_INVALID_ARG);
    gs_fp big = GS_FP_P;
    col = &big;
    CHECK(gs_ntt_eval_at(&out, &col, 1, 0, x) == GS_ERR_INVALID_ARG);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_eval_at();
    test_multi(1, 1);
    test_multi(3, 5);
    test_multi(10, 4);
    test_single(1);
    test_single(6);
    CHECK(strcmp(gs_status_str(GS_ERR_PROOF_FIXED), "unknown status") != 0);
    return gs_test_done();
}
