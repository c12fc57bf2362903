/* The CPU backend's out-of-domain evaluation (eval_at: every column at one
 * Fp3 point, by blocks of coefficients whose powers serve every column)
 * against Horner's rule, column by column: exact equality at lengths around
 * the block size (0, 1, 4095, 4096, 4097, three blocks and a few, 2^16),
 * for 1..7 columns, at random points and at 0 and 1; then a buffer too small
 * for cols x len is refused. (The device's eval_at is checked against this
 * one in test_cuda_stages.)
 * Then eval_values_at (the barycentric evaluation from an LDE's every
 * B-th row, which the prover uses instead of keeping coefficients): random
 * coefficients extended by the backend's lde at blowups 1, 2, 4 and 16,
 * evaluated at z and z w_n, equal to Horner on the coefficients, for 2^0 ..
 * 2^14 rows (one block, several, a partial last one never: n is a power of
 * two) and 1..7 columns, z random, in Fp, 0 and 1; without out_zw only out_z is
 * written; a matrix too small is refused. */
#include <stdlib.h>

#include "backend/backend.h"
#include "test_util.h"

static gs_fp3 horner(const gs_fp *c, size_t len, gs_fp3 x) {
    gs_fp3 r = gs_fp3_zero();
    for (size_t i = len; i-- > 0;) r = gs_fp3_add(gs_fp3_mul(r, x), gs_fp3_from_fp(c[i]));
    return r;
}

static int check(gs_backend *cpu, size_t cols, size_t len, gs_fp3 x) {
    gs_fp *coeffs = malloc((cols * len + 1) * sizeof *coeffs);
    gs_fp3 *got = malloc(cols * sizeof *got);
    CHECK(coeffs && got);
    if (!coeffs || !got) {
        free(coeffs), free(got);
        return 0;
    }
    for (size_t i = 0; i < cols * len; i++) coeffs[i] = gs_test_fp();
    gs_buf b = {.ptr = coeffs, .bytes = cols * len * sizeof *coeffs};
    CHECK(cpu->iface->eval_at(cpu, got, &b, cols, len, x) == GS_OK);
    int bad = 0;
    for (size_t c = 0; c < cols; c++) {
        gs_fp3 want = horner(coeffs + c * len, len, x);
        for (int k = 0; k < 3; k++) bad |= want.c[k] != got[c].c[k];
    }
    if (bad) fprintf(stderr, "eval_at: %zu columns of %zu differ from Horner\n", cols, len);
    CHECK(!bad);
    free(coeffs), free(got);
    return 1;
}

static int check_values(gs_backend *cpu, size_t cols, unsigned log_n, unsigned log_b, gs_fp3 z) {
    size_t n = (size_t)1 << log_n, N = n << log_b;
    gs_buf co = {0}, lde = {0};
    gs_fp3 *got = malloc(2 * cols * sizeof *got);
    CHECK(got && cpu->iface->alloc(cpu, NULL, &co, cols * n * sizeof(gs_fp)) == GS_OK &&
          cpu->iface->alloc(cpu, NULL, &lde, cols * N * sizeof(gs_fp)) == GS_OK);
    if (!got || !co.ptr || !lde.ptr) {
        free(got), cpu->iface->free(cpu, &co), cpu->iface->free(cpu, &lde);
        return 0;
    }
    gs_fp *c = co.ptr;
    for (size_t i = 0; i < cols * n; i++) c[i] = gs_test_fp();
    CHECK(cpu->iface->lde(cpu, &lde, &co, cols, log_n, log_b, GS_FP_GENERATOR) == GS_OK);
    CHECK(cpu->iface->eval_values_at(cpu, got, got + cols, &lde, cols, N, log_b, log_n, GS_FP_GENERATOR, z) ==
          GS_OK);
    gs_fp3 zw = gs_fp3_mul_fp(z, gs_fp_root_of_unity(log_n));
    int bad = 0;
    for (size_t k = 0; k < cols; k++) {
        gs_fp3 a = horner(c + k * n, n, z), b = horner(c + k * n, n, zw);
        bad |= !gs_fp3_eq(a, got[k]) || !gs_fp3_eq(b, got[cols + k]);
    }
    /* Without out_zw: the same values at z. */
    gs_fp3 mark = gs_fp3_make(7, 7, 7);
    for (size_t k = 0; k < cols; k++) got[cols + k] = mark;
    CHECK(cpu->iface->eval_values_at(cpu, got, NULL, &lde, cols, N, log_b, log_n, GS_FP_GENERATOR, z) == GS_OK);
    for (size_t k = 0; k < cols; k++)
        bad |= !gs_fp3_eq(horner(c + k * n, n, z), got[k]) || !gs_fp3_eq(got[cols + k], mark);
    if (bad) fprintf(stderr, "eval_values_at: %zu columns of 2^%u, blowup 2^%u differ from Horner\n", cols, log_n, log_b);
    CHECK(!bad);
    /* One row too few for the last column's last value. */
    gs_buf cut = lde;
    cut.bytes = ((cols - 1) * N + ((n - 1) << log_b)) * sizeof(gs_fp);
    CHECK(cpu->iface->eval_values_at(cpu, got, NULL, &cut, cols, N, log_b, log_n, GS_FP_GENERATOR, z) ==
          GS_ERR_INVALID_ARG);
    cut.bytes += sizeof(gs_fp);
    CHECK(cpu->iface->eval_values_at(cpu, got, NULL, &cut, cols, N, log_b, log_n, GS_FP_GENERATOR, z) == GS_OK);
    free(got), cpu->iface->free(cpu, &co), cpu->iface->free(cpu, &lde);
    return 1;
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    gs_backend *cpu = gs_backend_cpu();
    static const size_t lens[] = {0, 1, 4095, 4096, 4097, 3 * 4096 + 5, 1u << 16};
    int n = 0;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (size_t cols = 1; cols <= 7; cols += 3) {
            n += check(cpu, cols, lens[i], gs_test_fp3());
            n += check(cpu, cols, lens[i], gs_fp3_zero());
            n += check(cpu, cols, lens[i], gs_fp3_one());
        }
    gs_fp small[8] = {0};
    gs_fp3 out[2];
    gs_buf b = {.ptr = small, .bytes = sizeof small};
    CHECK(cpu->iface->eval_at(cpu, out, &b, 2, 5, gs_fp3_one()) == GS_ERR_INVALID_ARG);
    CHECK(cpu->iface->eval_at(cpu, out, &b, 2, 4, gs_fp3_one()) == GS_OK);
    static const unsigned log_ns[] = {0, 1, 5, 12, 13, 14}, log_bs[] = {0, 1, 2, 4};
    int nv = 0;
    for (size_t i = 0; i < sizeof log_ns / sizeof log_ns[0]; i++)
        for (size_t j = 0; j < sizeof log_bs / sizeof log_bs[0]; j++)
            for (size_t cols = 1; cols <= 7; cols += 3) {
                nv += check_values(cpu, cols, log_ns[i], log_bs[j], gs_test_fp3());
                nv += check_values(cpu, cols, log_ns[i], log_bs[j], gs_fp3_from_fp(gs_test_fp()));
                nv += check_values(cpu, cols, log_ns[i], log_bs[j], gs_fp3_zero());
                nv += check_values(cpu, cols, log_ns[i], log_bs[j], gs_fp3_one());
            }
    printf("%d evaluations equal Horner's rule; %d from values equal it at z and z w\n", n, nv);
    return gs_test_done();
}
