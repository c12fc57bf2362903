/* The FRI fold of a whole layer in one pass (the backends' fold with folds
 * = a) against its reference, a fold by 2 repeated a times with gamma,
 * gamma^2, ... over shift, shift^2, ... (one call per fold, through the
 * intermediate words): exact equality for every layer arity 2..16, log
 * sizes a..14, random and edge shifts and gammas, on the CPU backend (the
 * device's fold is checked against this one in test_cuda_stages). Then the
 * argument errors. Then the DEEP word folded as it is made (deep_fold)
 * against deep followed by fold, for every arity, with and without aux
 * columns, at sizes below and above the backend's row block; and DEEP
 * over a true LDE with its columns summed on one coset and extended
 * (wide tables) against the row-by-row sum. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "gstark/ntt.h"
#include "test_util.h"

static gs_backend *g_cpu;

static gs_buf host(gs_fp *p, size_t n) {
    gs_buf b = {.ptr = p, .bytes = n * sizeof(gs_fp)};
    return b;
}

/* Random chunk and aux columns (2^log_size rows) and beta powers into ch, ax
 * and betas, and DEEP's arguments over them with random z, z w, k1, k2. */
static gs_deep_args random_deep(gs_fp *ch, gs_fp *ax, gs_fp3 *betas, unsigned log_size, uint32_t cols,
                                uint32_t chunks, uint32_t aux) {
    size_t N = (size_t)1 << log_size, nbeta = 2 * (size_t)cols + chunks + 2 * (size_t)aux;
    for (size_t i = 0; i < 3 * chunks * N; i++) ch[i] = gs_test_fp();
    for (size_t i = 0; i < 3 * aux * N; i++) ax[i] = gs_test_fp();
    for (size_t i = 0; i < nbeta; i++) betas[i] = gs_test_fp3();
    return (gs_deep_args){.log_size = log_size, .shift = GS_LDE_SHIFT, .cols = cols, .chunks = chunks,
                          .aux_cols = aux, .z = gs_test_fp3(), .zw = gs_test_fp3(),
                          .k1 = gs_test_fp3(), .k2 = gs_test_fp3(), .beta_pows = betas};
}

static void check_fold(unsigned log_size, unsigned folds, gs_fp shift, gs_fp3 gamma) {
    size_t N = (size_t)1 << log_size, M = N >> folds;
    gs_fp *in = malloc(3 * N * sizeof *in), *a = malloc(3 * N * sizeof *a),
          *b = malloc(3 * N * sizeof *b), *got = malloc(3 * M * sizeof *got);
    CHECK(in && a && b && got);
    if (!in || !a || !b || !got) goto out;
    for (size_t i = 0; i < 3 * N; i++) in[i] = gs_test_fp();
    gs_buf bin = host(in, 3 * N), bgot = host(got, 3 * M);
    CHECK(g_cpu->iface->fold(g_cpu, &bgot, &bin, log_size, folds, shift, gamma) == GS_OK);
    /* The reference: folds by 2, each into a fresh word. */
    memcpy(a, in, 3 * N * sizeof *a);
    gs_fp sh = shift;
    gs_fp3 g = gamma;
    for (unsigned r = 0; r < folds; r++) {
        size_t n = N >> r;
        gs_buf ba = host(a, 3 * n), bb = host(b, 3 * (n / 2));
        CHECK(g_cpu->iface->fold(g_cpu, &bb, &ba, log_size - r, 1, sh, g) == GS_OK);
        memcpy(a, b, 3 * (n / 2) * sizeof *a);
        sh = gs_fp_sqr(sh), g = gs_fp3_sqr(g);
    }
    size_t bad = 0;
    for (size_t i = 0; i < 3 * M; i++) bad += got[i] != a[i];
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "fold 2^%u by 2^%u: %zu of %zu values differ\n", log_size, folds, bad, 3 * M);
out:
    free(in), free(a), free(b), free(got);
}

static void check_deep_fold(unsigned log_size, unsigned folds, uint32_t cols, uint32_t chunks, uint32_t aux) {
    size_t N = (size_t)1 << log_size, M = N >> folds, nbeta = 2 * (size_t)cols + chunks + 2 * (size_t)aux;
    gs_fp *tr = malloc(cols * N * sizeof *tr), *ch = malloc(3 * chunks * N * sizeof *ch);
    gs_fp *ax = malloc((3 * aux * N + 1) * sizeof *ax), *word = malloc(3 * N * sizeof *word);
    gs_fp *want = malloc(3 * M * sizeof *want), *got = malloc(3 * M * sizeof *got);
    gs_fp3 *betas = malloc(nbeta * sizeof *betas);
    CHECK(tr && ch && ax && word && want && got && betas);
    if (!tr || !ch || !ax || !word || !want || !got || !betas) goto out;
    for (size_t i = 0; i < cols * N; i++) tr[i] = gs_test_fp();
    gs_deep_args a = random_deep(ch, ax, betas, log_size, cols, chunks, aux);
    gs_fp3 gamma = gs_test_fp3();
    gs_buf bt = host(tr, cols * N), bc = host(ch, 3 * chunks * N), ba = host(ax, 3 * aux * N);
    gs_buf bw = host(word, 3 * N), bwant = host(want, 3 * M), bgot = host(got, 3 * M);
    CHECK(g_cpu->iface->deep(g_cpu, &bw, &bt, &bc, aux ? &ba : NULL, &a) == GS_OK);
    CHECK(g_cpu->iface->fold(g_cpu, &bwant, &bw, log_size, folds, a.shift, gamma) == GS_OK);
    CHECK(g_cpu->iface->deep_fold(g_cpu, &bgot, &bt, &bc, aux ? &ba : NULL, &a, folds, gamma) == GS_OK);
    size_t bad = 0;
    for (size_t i = 0; i < 3 * M; i++) bad += got[i] != want[i];
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "deep_fold 2^%u by 2^%u (%u cols, %u chunks, %u aux): %zu of %zu values differ\n",
                log_size, folds, cols, chunks, aux, bad, 3 * M);
out:
    free(tr), free(ch), free(ax), free(word), free(want), free(got), free(betas);
}

/* DEEP over a true LDE (columns of degree < n, extended by B = 2^log_b)
 * with log_blowup given, so that the backend may sum the columns on one
 * coset and extend the sum, against the row-by-row sum (log_blowup 0): the
 * same word, and the same folded word. */
static void check_deep_coset_sum(unsigned log_n, unsigned log_b, uint32_t cols, uint32_t chunks, uint32_t aux) {
    unsigned log_size = log_n + log_b;
    size_t n = (size_t)1 << log_n, N = (size_t)1 << log_size, nbeta = 2 * (size_t)cols + chunks + 2 * (size_t)aux;
    gs_fp *co = malloc(cols * n * sizeof *co), *tr = malloc(cols * N * sizeof *tr);
    gs_fp *ch = malloc(3 * chunks * N * sizeof *ch), *ax = malloc((3 * aux * N + 1) * sizeof *ax);
    gs_fp *want = malloc(3 * N * sizeof *want), *got = malloc(3 * N * sizeof *got);
    gs_fp3 *betas = malloc(nbeta * sizeof *betas);
    CHECK(co && tr && ch && ax && want && got && betas);
    if (!co || !tr || !ch || !ax || !want || !got || !betas) goto out;
    for (size_t i = 0; i < cols * n; i++) co[i] = gs_test_fp();
    CHECK(gs_lde_coset_from_coeffs(tr, co, cols, log_n, log_b, GS_LDE_SHIFT, GS_ORDER_NATURAL) == GS_OK);
    gs_deep_args rows = random_deep(ch, ax, betas, log_size, cols, chunks, aux);
    gs_deep_args coset = rows;
    coset.log_blowup = log_b;
    gs_buf bt = host(tr, cols * N), bc = host(ch, 3 * chunks * N), ba = host(ax, 3 * aux * N);
    gs_buf bw = host(want, 3 * N), bg = host(got, 3 * N);
    CHECK(g_cpu->iface->deep(g_cpu, &bw, &bt, &bc, aux ? &ba : NULL, &rows) == GS_OK);
    CHECK(g_cpu->iface->deep(g_cpu, &bg, &bt, &bc, aux ? &ba : NULL, &coset) == GS_OK);
    size_t bad = 0;
    for (size_t i = 0; i < 3 * N; i++) bad += got[i] != want[i];
    for (unsigned folds = 1; folds <= GS_MAX_LOG_ARITY && folds <= log_size; folds++) {
        gs_fp3 gamma = gs_test_fp3();
        size_t M = N >> folds;
        gs_buf fw = host(want, 3 * M), fg = host(got, 3 * M);
        CHECK(g_cpu->iface->deep_fold(g_cpu, &fw, &bt, &bc, aux ? &ba : NULL, &rows, folds, gamma) == GS_OK);
        CHECK(g_cpu->iface->deep_fold(g_cpu, &fg, &bt, &bc, aux ? &ba : NULL, &coset, folds, gamma) == GS_OK);
        for (size_t i = 0; i < 3 * M; i++) bad += got[i] != want[i];
    }
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "DEEP summed on a coset, 2^%u x 2^%u (%u cols, %u chunks, %u aux): %zu values differ\n",
                log_n, log_b, cols, chunks, aux, bad);
out:
    free(co), free(tr), free(ch), free(ax), free(want), free(got), free(betas);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    g_cpu = gs_backend_cpu();
    int cases = 0;
    for (unsigned a = 1; a <= GS_MAX_LOG_ARITY; a++)
        for (unsigned l = a; l <= 14; l++) {
            gs_fp shift = gs_test_fp();
            check_fold(l, a, shift ? shift : 7, gs_test_fp3());
            check_fold(l, a, GS_LDE_SHIFT, gs_test_fp3());
            cases += 2;
        }
    check_fold(6, 4, 1, gs_fp3_zero());
    check_fold(6, 3, gs_fp_neg(1), gs_fp3_one());
    /* Arguments: no fold, more folds than the bound or the size, shift 0,
     * buffers too small. */
    gs_fp in[3 * 32] = {0}, out[3 * 16] = {0};
    gs_buf bi = host(in, 3 * 32), bo = host(out, 3 * 16), small = host(out, 3 * 16 - 1);
    gs_fp3 g = gs_fp3_one();
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, 5, 0, 7, g) == GS_ERR_INVALID_ARG);
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, 5, GS_MAX_LOG_ARITY + 1, 7, g) == GS_ERR_INVALID_ARG);
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, 2, 3, 7, g) == GS_ERR_INVALID_ARG);
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, 5, 1, 0, g) == GS_ERR_INVALID_ARG);
    CHECK(g_cpu->iface->fold(g_cpu, &small, &bi, 5, 1, 7, g) == GS_ERR_INVALID_ARG);
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, 6, 2, 7, g) == GS_ERR_INVALID_ARG); /* input of 2^6 */
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, 5, 1, 7, g) == GS_OK);
    printf("%d folds checked against the repeated fold by 2\n", cases);
    int fused = 0;
    for (unsigned a = 1; a <= GS_MAX_LOG_ARITY; a++)
        for (unsigned l = a; l <= 15; l += 3) {
            check_deep_fold(l, a, 1 + (uint32_t)gs_test_below(5), 1 + (uint32_t)gs_test_below(3), 0);
            check_deep_fold(l, a, 1 + (uint32_t)gs_test_below(5), 1 + (uint32_t)gs_test_below(3),
                            1 + (uint32_t)gs_test_below(3));
            fused += 2;
        }
    gs_deep_args da = {.log_size = 5, .shift = GS_LDE_SHIFT, .cols = 1, .chunks = 1, .beta_pows = NULL};
    CHECK(g_cpu->iface->deep_fold(g_cpu, &bo, &bi, &bi, NULL, &da, 0, g) == GS_ERR_INVALID_ARG);
    CHECK(g_cpu->iface->deep_fold(g_cpu, &small, &bi, &bi, NULL, &da, 1, g) == GS_ERR_INVALID_ARG);
    da.aux_cols = 1;
    CHECK(g_cpu->iface->deep_fold(g_cpu, &bo, &bi, &bi, NULL, &da, 1, g) == GS_ERR_INVALID_ARG);
    printf("%d DEEP words folded as they are made, equal to deep then fold\n", fused);
    /* Wide enough that the columns are summed on a coset (1.5 log N and
     * more), at blowups 2, 4 and 8, sizes below and above the row block. */
    check_deep_coset_sum(0, 2, 12, 1, 0); /* one row */
    check_deep_coset_sum(1, 1, 8, 1, 1);
    check_deep_coset_sum(4, 1, 12, 1, 0);
    check_deep_coset_sum(8, 2, 40, 2, 1);
    check_deep_coset_sum(10, 3, 64, 3, 2);
    check_deep_coset_sum(11, 2, 33, 1, 0);
    printf("DEEP with the columns summed on a coset: the row-by-row words\n");
    return gs_test_done();
}
