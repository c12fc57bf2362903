/* examples/custom_air.c: write your own AIR, prove, serialize, parse, verify.
 * Walkthrough: docs/air-guide.md. Public API only; exits non-zero on failure.
 *
 * The machine, "cubechain": a keyed chain of cubing rounds with a round
 * counter and a running product of the states (a toy, not a hash).
 *   columns      x (0) the state, r (1) the round counter, acc (2) the product
 *   publics      pub[0] seed = x[0], pub[1] key k, pub[2] = x[n-1], pub[3] = acc[n-1]
 *   transitions  (rows 0..n-2; a primed column is its value on the next row)
 *                x'   = (x + k + r)^3    degree 3
 *                r'   = r + 1            degree 1
 *                acc' = acc * x          degree 2
 *   boundaries   x[0] = pub[0], r[0] = 0, acc[0] = 1, x[-1] = pub[2], acc[-1] = pub[3] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gstark/air.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"

enum { X, R, ACC, NCOLS };                     /* column indices */
enum { SEED, KEY, X_LAST, ACC_LAST, NPUB };    /* public-input indices */
#define LOG_N 12                               /* 2^12 = 4096 rows */

/* Prover and verifier both call this: the verifier needs the very same AIR
 * (gs_verify compares gs_air_fingerprint with the one in the proof). */
static gs_air *cubechain_air(void) {
    gs_air *air = gs_air_new("cubechain", NCOLS, NPUB);
    if (!air) return NULL;
    gs_expr x = gs_air_col(air, X), r = gs_air_col(air, R), acc = gs_air_col(air, ACC);
    gs_expr k = gs_air_public(air, KEY);
    /* Each constraint is an expression that must be 0: "next - f(current)". */
    gs_expr t = gs_air_add(air, gs_air_add(air, x, k), r);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, X), gs_air_pow(air, t, 3)));
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, R),
                                      gs_air_add(air, r, gs_air_const(air, 1))));
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, ACC), gs_air_mul(air, acc, x)));
    /* Boundary values are built from publics and constants only. */
    gs_air_boundary(air, X, 0, gs_air_public(air, SEED));
    gs_air_boundary(air, R, 0, gs_air_const(air, 0));
    gs_air_boundary(air, ACC, 0, gs_air_const(air, 1));
    gs_air_boundary(air, X, -1, gs_air_public(air, X_LAST));     /* -1: the last row */
    gs_air_boundary(air, ACC, -1, gs_air_public(air, ACC_LAST));
    /* Builder calls never fail loudly; the first error surfaces here. */
    gs_status s = gs_air_finalize(air);
    if (s != GS_OK) {
        fprintf(stderr, "cubechain: %s: %s\n", gs_status_str(s), gs_air_error(air));
        gs_air_free(air);
        return NULL;
    }
    return air;
}

/* The witness: run the machine for n rows, column-major (column c at
 * m + c * n); fill in the two public outputs. */
static gs_fp *cubechain_trace(gs_fp pub[NPUB]) {
    size_t n = (size_t)1 << LOG_N;
    gs_fp *m = malloc(NCOLS * n * sizeof *m);
    if (!m) return NULL;
    gs_fp *x = m + X * n, *r = m + R * n, *acc = m + ACC * n;
    x[0] = pub[SEED], r[0] = 0, acc[0] = 1;
    for (size_t i = 0; i + 1 < n; i++) {
        gs_fp t = gs_fp_add(gs_fp_add(x[i], pub[KEY]), r[i]);
        x[i + 1] = gs_fp_mul(gs_fp_sqr(t), t);
        r[i + 1] = gs_fp_add(r[i], 1);
        acc[i + 1] = gs_fp_mul(acc[i], x[i]);
    }
    pub[X_LAST] = x[n - 1], pub[ACC_LAST] = acc[n - 1];
    return m;
}

static double seconds(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); goto done; } while (0)

int main(void) {
    int rc = 1;
    gs_air *air = NULL, *vair = NULL;
    gs_fp *trace = NULL;
    gs_proof *proof = NULL, *parsed = NULL;
    uint8_t *bytes = NULL;
    size_t len = 0;
    gs_status s;

    /* ---- prover side ---- */
    gs_fp pub[NPUB] = {[SEED] = 3, [KEY] = 0x0123456789abcdefull};
    if (!(air = cubechain_air()) || !(trace = cubechain_trace(pub))) FAIL("setup");

    /* 128-bit defaults: blowup 4, 20 grinding bits, 54 queries. Security is
     * num_queries * log_blowup + grinding_bits (include/gstark/proof.h). We
     * grind only 12 bits to stay fast and buy the 8 bits back with 4 more
     * queries: 58 * 2 + 12 = 128 bits (the verifier's floor is 80). */
    gs_params par = gs_params_default(128);
    par.grinding_bits = 12;
    par.num_queries = (128 - par.grinding_bits + par.log_blowup - 1) / par.log_blowup;
    if (gs_params_check(&par, 128) != GS_OK) FAIL("parameters below 128 bits");

    /* Check mode (the default) refuses a trace that breaks a constraint;
     * gs_air_check_trace names the first failing row and constraint. */
    size_t n = (size_t)1 << LOG_N;
    trace[ACC * n + 100] ^= 1;
    uint64_t bad_row;
    uint32_t bad_con;
    s = gs_prove(&proof, air, trace, LOG_N, pub, &par, NULL);
    if (s != GS_ERR_AIR_UNSATISFIED) FAIL("bad trace not refused: %s", gs_status_str(s));
    if (gs_air_check_trace(air, trace, LOG_N, pub, &bad_row, &bad_con) != GS_ERR_AIR_UNSATISFIED)
        FAIL("check_trace missed the corrupted cell");
    printf("corrupted trace refused: %s (row %llu, constraint %u)\n", gs_status_str(s),
           (unsigned long long)bad_row, bad_con);
    trace[ACC * n + 100] ^= 1;

    gs_prove_stats st;
    gs_prove_opts opts = {.air_desc = "cubechain log_n=12", .stats = &st};
    if ((s = gs_prove(&proof, air, trace, LOG_N, pub, &par, &opts)) != GS_OK)
        FAIL("prove: %s", gs_status_str(s));
    if ((s = gs_proof_serialize(&bytes, &len, proof)) != GS_OK)
        FAIL("serialize: %s", gs_status_str(s));

    /* ---- verifier side: only the bytes and the statement it expects ---- */
    if (!(vair = cubechain_air())) FAIL("verifier AIR");
    double t0 = seconds();
    if ((s = gs_proof_parse(&parsed, bytes, len)) != GS_OK) FAIL("parse: %s", gs_status_str(s));
    /* gs_verify checks the proof against the public inputs and the height it
     * carries: the caller must compare them with the statement it wants
     * proven (x[n-1] means something only for the n it expects). */
    if (parsed->num_public != NPUB || parsed->log_n != LOG_N || memcmp(parsed->pub, pub, sizeof pub) != 0)
        FAIL("the proof is about another statement");
    s = gs_verify(vair, parsed, 128);
    double t_verify = seconds() - t0;
    printf("cubechain: %zu rows x %u columns, max degree %u (%u quotient chunks), %u-bit params\n",
           n, gs_air_num_cols(vair), gs_air_max_degree(vair), gs_air_num_chunks(vair),
           gs_params_security(&par));
    printf("x[n-1] = %llu, acc[n-1] = %llu\n", (unsigned long long)pub[X_LAST],
           (unsigned long long)pub[ACC_LAST]);
    printf("proof: %zu bytes, proved in %.3f s, parsed + verified in %.3f s: %s\n", len, st.total,
           t_verify, gs_status_str(s));
    if (s != GS_OK) FAIL("verify");

    /* A tampered public input (a different claimed output) is rejected: the
     * publics enter the transcript and the boundary constraints. */
    parsed->pub[X_LAST] = gs_fp_add(parsed->pub[X_LAST], 1);
    s = gs_verify(vair, parsed, 128);
    printf("tampered x[n-1]: %s\n", gs_status_str(s));
    if (s == GS_OK) FAIL("tampered public input accepted");
    rc = 0;
done:
    free(bytes);
    gs_proof_free(proof);
    gs_proof_free(parsed);
    free(trace);
    gs_air_free(air);
    gs_air_free(vair);
    printf("%s\n", rc ? "custom_air: FAILED" : "custom_air: OK");
    return rc;
}
