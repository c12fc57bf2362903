/* The CPU backend's out-of-domain evaluation (eval_at: every column at one
 * Fp3 point, by blocks of coefficients whose powers serve every column)
 * against Horner's rule, column by column: exact equality at lengths around
 * the block size (0, 1, 4095, 4096, 4097, three blocks and a few, 2^16),
 * for 1..7 columns, at random points and at 0 and 1; then a buffer too small
 * for cols x len is refused. (The device's eval_at is checked against this
 * one in test_cuda_stages.) */
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
    printf("%d evaluations equal Horner's rule\n", n);
    return gs_test_done();
}
