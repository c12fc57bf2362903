/* The device stages (src/cuda/stages.h) against the CPU backend
 * (gs_backend_cpu()->iface, and gs_transcript_grind): exact equality of
 * every output value for
 *   - fold at every log size 1..22, by 2, 4, 8 and 16,
 *   - DEEP at log sizes 0..21 with 0..70 trace columns, 1..4 chunks and
 *     0..3 aux columns, random z, z w, beta powers, k1, k2; and from the
 *     trace's coefficients (gs_cuda_deep_combine, extended on the device),
 *   - eval_at for 1..600000 columns and lengths 1..2^20 (odd ones too),
 *   - eval_points (many base-field points, 1..432) against Horner on the
 *     host, and the CUDA backend's gather_coeffs against the CPU's gather
 *     from the CPU's LDE, with leaves of 1..16 rows,
 *   - grind for 0..20 bits over several transcript states (the nonce, the
 *     state after it and a challenge squeezed from it);
 * then argument errors, and injected CUDA faults (every allocation, copy and
 * launch of every stage in turn): each gives GS_ERR_CUDA, leaves a grind's
 * transcript unchanged, and the device's free memory is the same afterwards.
 * Cases alternate between the legacy default stream and a non-blocking one.
 * Exits GS_TEST_SKIP (77) where no device exists.
 *
 * Options: --seed N (replay), --quick (smaller sizes, for slow emulators). */
#include <stdint.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "cuda/device.h"
#include "cuda/stages.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_ntt.h"
#include "gstark/ntt.h"
#include "gstark/transcript.h"
#include "test_util.h"

static gs_backend *g_cpu;
static void *g_stream; /* non-blocking; every other case uses it */
static int g_quick;
static long g_cases, g_bad_cases;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report_cuda(const char *what, gs_status s) {
    fprintf(stderr, "%s: %s (%s)\n", what, gs_status_str(s), gs_cuda_last_error());
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static uint64_t *rand_values(size_t n) {
    uint64_t *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = gs_test_fp();
    return v;
}

static gs_fp3 *rand_fp3s(size_t n) {
    gs_fp3 *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = gs_test_fp3();
    return v;
}

/* A device copy of n host values (NULL for n = 0); exits on failure. */
static uint64_t *dev_copy(const uint64_t *h, size_t n) {
    if (n == 0) return NULL;
    void *d = NULL;
    gs_status s = gs_cuda_mem_alloc(&d, n * sizeof *h);
    if (s == GS_OK) s = gs_cuda_mem_h2d(d, h, n * sizeof *h);
    if (s != GS_OK) {
        report_cuda("device copy", s);
        exit(1);
    }
    return d;
}

static uint64_t *dev_zeroed(size_t n) {
    uint64_t *z = calloc(n ? n : 1, sizeof *z);
    if (!z) exit(1);
    uint64_t *d = dev_copy(z, n);
    free(z);
    return d;
}

static void dev_free(void *d) {
    if (d) CHECK(gs_cuda_mem_free(d) == GS_OK);
}

static void *next_stream(void) { return (g_cases & 1) ? g_stream : NULL; }

/* Waits for the stage's stream and everything else (the test's own copies
 * run on the legacy stream, which a non-blocking stream does not wait for). */
static int sync_all(void *stream) {
    gs_status s = stream ? gs_cuda_merkle_stream_sync(stream) : GS_OK;
    if (s == GS_OK) s = gs_cuda_sync();
    if (s != GS_OK) report_cuda("synchronize", s);
    return s == GS_OK;
}

static uint64_t *download(const uint64_t *d, size_t n) {
    uint64_t *h = xmalloc(n * sizeof *h);
    memset(h, 0xA5, n * sizeof *h);
    gs_status s = gs_cuda_mem_d2h(h, d, n * sizeof *h);
    if (s != GS_OK) report_cuda("download", s);
    CHECK(s == GS_OK);
    return h;
}

/* Compares n values; prints the first mismatch with the case's description. */
static int same(const uint64_t *want, const uint64_t *got, size_t n, size_t col_len,
                const char *desc) {
    g_cases++;
    if (gs_test_same_values(desc, want, got, n, col_len)) return 1;
    g_bad_cases++;
    return 0;
}

static gs_buf host_buf(void *p, size_t values) {
    gs_buf b = {.ptr = p, .bytes = values * sizeof(uint64_t)};
    return b;
}

/* ---- fold ---- */

static void test_fold(unsigned log_size, unsigned folds, gs_fp shift, gs_fp3 gamma) {
    size_t M = (size_t)1 << (log_size - folds), N = M << folds;
    uint64_t *in = rand_values(3 * N), *want = xmalloc(3 * M * 8);
    gs_buf bin = host_buf(in, 3 * N), bout = host_buf(want, 3 * M);
    CHECK(g_cpu->iface->fold(g_cpu, &bout, &bin, log_size, folds, shift, gamma) == GS_OK);
    uint64_t *d_in = dev_copy(in, 3 * N), *d_out = dev_zeroed(3 * M);
    void *stream = next_stream();
    CHECK(sync_all(NULL));
    gs_status s = gs_cuda_fold(d_out, d_in, log_size, folds, shift, gamma, stream);
    if (s != GS_OK) report_cuda("gs_cuda_fold", s);
    CHECK(s == GS_OK);
    CHECK(sync_all(stream));
    uint64_t *got = download(d_out, 3 * M);
    char desc[160];
    snprintf(desc, sizeof desc, "fold log_size %u by 2^%u shift 0x%" PRIx64 "%s", log_size, folds,
             shift, stream ? " (stream)" : "");
    CHECK(same(want, got, 3 * M, M, desc));
    dev_free(d_in), dev_free(d_out);
    free(in), free(want), free(got);
}

/* ---- add_scaled (the shared FRI's join) ---- */

/* dst (3 columns dst_rows apart) += c src (src_rows apart) over len rows, on
 * both backends: the same values, rows past len untouched. */
static void test_add_scaled(size_t dst_rows, size_t src_rows, size_t len) {
    uint64_t *dst = rand_values(3 * dst_rows), *src = rand_values(3 * src_rows);
    uint64_t *want = xmalloc(3 * dst_rows * 8);
    memcpy(want, dst, 3 * dst_rows * 8);
    gs_fp3 c = gs_test_fp3();
    gs_buf bd = host_buf(want, 3 * dst_rows), bs = host_buf(src, 3 * src_rows);
    CHECK(g_cpu->iface->add_scaled(g_cpu, &bd, dst_rows, &bs, src_rows, len, c) == GS_OK);
    uint64_t *d_dst = dev_copy(dst, 3 * dst_rows), *d_src = dev_copy(src, 3 * src_rows);
    void *stream = next_stream();
    CHECK(sync_all(NULL));
    gs_status s = gs_cuda_add_scaled(d_dst, dst_rows, d_src, src_rows, len, c, stream);
    if (s != GS_OK) report_cuda("gs_cuda_add_scaled", s);
    CHECK(s == GS_OK);
    CHECK(sync_all(stream));
    uint64_t *got = download(d_dst, 3 * dst_rows);
    char desc[96];
    snprintf(desc, sizeof desc, "add_scaled %zu of %zu rows (src %zu)", len, dst_rows, src_rows);
    CHECK(same(want, got, 3 * dst_rows, dst_rows, desc));
    dev_free(d_dst), dev_free(d_src);
    free(dst), free(src), free(want), free(got);
}

/* ---- DEEP ---- */

/* The DEEP word folded as it is made (deep_fold), every arity: the CPU's
 * (a with the CPU's inputs bt, bc, ba) against the device's (ca over
 * d_trace, d_chunks, d_aux). */
static void check_deep_folds(const char *what, const gs_deep_args *a, const gs_buf *bt, const gs_buf *bc,
                             const gs_buf *ba, const gs_cuda_deep_args *ca, const uint64_t *d_trace,
                             const uint64_t *d_chunks, const uint64_t *d_aux, void *stream) {
    size_t N = (size_t)1 << a->log_size;
    for (unsigned folds = 1; folds <= GS_CUDA_FOLD_MAX && folds <= a->log_size; folds++) {
        size_t M = N >> folds;
        gs_fp3 gamma = gs_test_fp3();
        uint64_t *fwant = xmalloc(3 * M * 8), *d_fold = dev_zeroed(3 * M);
        gs_buf bf = host_buf(fwant, 3 * M);
        CHECK(g_cpu->iface->deep_fold(g_cpu, &bf, bt, bc, a->aux_cols ? ba : NULL, a, folds, gamma) == GS_OK);
        gs_status s = gs_cuda_deep_fold(d_fold, d_trace, d_chunks, d_aux, ca, folds, gamma, stream);
        if (s != GS_OK) report_cuda("gs_cuda_deep_fold", s);
        CHECK(s == GS_OK && sync_all(stream));
        uint64_t *fgot = download(d_fold, 3 * M);
        char desc[200];
        snprintf(desc, sizeof desc, "%s folded by 2^%u, log_size %u cols %u chunks %u aux %u", what, folds,
                 a->log_size, a->cols, a->chunks, a->aux_cols);
        CHECK(same(fwant, fgot, 3 * M, M, desc));
        dev_free(d_fold);
        free(fwant), free(fgot);
    }
}

static void test_deep(unsigned log_size, uint32_t cols, uint32_t chunks, uint32_t aux) {
    size_t N = (size_t)1 << log_size, nbeta = 2 * (size_t)cols + chunks + 2 * (size_t)aux;
    uint64_t *trace = rand_values(cols * N), *chunk = rand_values(3 * (size_t)chunks * N);
    uint64_t *auxv = rand_values(3 * (size_t)aux * N), *want = xmalloc(3 * N * 8);
    gs_fp3 *betas = rand_fp3s(nbeta ? nbeta : 1);
    gs_deep_args a = {.log_size = log_size, .shift = gs_test_fp(), .cols = cols, .chunks = chunks,
                      .aux_cols = aux, .z = gs_test_fp3(), .zw = gs_test_fp3(),
                      .k1 = gs_test_fp3(), .k2 = gs_test_fp3(), .beta_pows = betas};
    if (gs_test_below(4) == 0) a.shift = GS_LDE_SHIFT;
    gs_buf bt = host_buf(trace, cols * N), bc = host_buf(chunk, 3 * (size_t)chunks * N);
    gs_buf ba = host_buf(auxv, 3 * (size_t)aux * N), bo = host_buf(want, 3 * N);
    CHECK(g_cpu->iface->deep(g_cpu, &bo, &bt, &bc, aux ? &ba : NULL, &a) == GS_OK);
    uint64_t *d_trace = dev_copy(trace, cols * N), *d_chunks = dev_copy(chunk, 3 * (size_t)chunks * N);
    uint64_t *d_aux = dev_copy(auxv, 3 * (size_t)aux * N), *d_out = dev_zeroed(3 * N);
    void *stream = next_stream();
    CHECK(sync_all(NULL));
    gs_status s = gs_cuda_deep(d_out, d_trace, d_chunks, d_aux, &a, stream);
    if (s != GS_OK) report_cuda("gs_cuda_deep", s);
    CHECK(s == GS_OK);
    CHECK(sync_all(stream));
    uint64_t *got = download(d_out, 3 * N);
    char desc[160];
    snprintf(desc, sizeof desc, "DEEP log_size %u cols %u chunks %u aux %u%s", log_size, cols,
             chunks, aux, stream ? " (stream)" : "");
    CHECK(same(want, got, 3 * N, N, desc));
    gs_cuda_deep_args ca = {.log_size = a.log_size, .shift = a.shift, .cols = a.cols, .chunks = a.chunks,
                            .aux_cols = a.aux_cols, .z = a.z, .zw = a.zw, .k1 = a.k1, .k2 = a.k2,
                            .beta_pows = a.beta_pows};
    check_deep_folds("DEEP", &a, &bt, &bc, &ba, &ca, d_trace, d_chunks, d_aux, stream);
    dev_free(d_trace), dev_free(d_chunks), dev_free(d_aux), dev_free(d_out);
    free(trace), free(chunk), free(auxv), free(want), free(got), free(betas);
}

/* DEEP over a trace given by its coefficients (the out-of-core path of
 * src/backend/cuda.c): gs_cuda_deep_combine's sum of the coefficients
 * (checked against the host's), extended on the device and read as a
 * trace_combined trace, gives the CPU's DEEP word over the columns' own
 * extension, and its folds the CPU's folded words. */
static void test_deep_combined(unsigned log_n, unsigned log_blowup, uint32_t cols, uint32_t chunks, uint32_t aux) {
    unsigned log_size = log_n + log_blowup;
    size_t n = (size_t)1 << log_n, N = (size_t)1 << log_size, nbeta = 2 * (size_t)cols + chunks + 2 * (size_t)aux;
    uint64_t *coeffs = rand_values(cols * n), *lde = xmalloc(cols * N * 8 + 8);
    uint64_t *chunk = rand_values(3 * (size_t)chunks * N), *auxv = rand_values(3 * (size_t)aux * N);
    uint64_t *want = xmalloc(3 * N * 8), *sum = xmalloc(3 * n * 8);
    gs_fp3 *betas = rand_fp3s(nbeta);
    gs_deep_args a = {.log_size = log_size, .shift = GS_LDE_SHIFT, .cols = cols, .chunks = chunks,
                      .aux_cols = aux, .z = gs_test_fp3(), .zw = gs_test_fp3(),
                      .k1 = gs_test_fp3(), .k2 = gs_test_fp3(), .beta_pows = betas};
    gs_buf bk = host_buf(coeffs, cols * n), bt = host_buf(lde, cols * N);
    gs_buf bc = host_buf(chunk, 3 * (size_t)chunks * N), ba = host_buf(auxv, 3 * (size_t)aux * N);
    gs_buf bo = host_buf(want, 3 * N);
    CHECK(g_cpu->iface->lde(g_cpu, &bt, &bk, cols, log_n, log_blowup, a.shift) == GS_OK);
    CHECK(g_cpu->iface->deep(g_cpu, &bo, &bt, &bc, aux ? &ba : NULL, &a) == GS_OK);
    for (size_t i = 0; i < n; i++) {
        gs_fp3 v = gs_fp3_zero();
        for (uint32_t c = 0; c < cols; c++) v = gs_fp3_add(v, gs_fp3_mul_fp(betas[c], coeffs[c * n + i]));
        for (int k = 0; k < 3; k++) sum[k * n + i] = v.c[k];
    }
    uint64_t *d_coeffs = dev_copy(coeffs, cols * n), *d_chunks = dev_copy(chunk, 3 * (size_t)chunks * N);
    uint64_t *d_aux = dev_copy(auxv, 3 * (size_t)aux * N), *d_sum = dev_zeroed(3 * n);
    uint64_t *d_ext = dev_zeroed(3 * N), *d_out = dev_zeroed(3 * N);
    void *stream = next_stream();
    CHECK(sync_all(NULL));
    gs_status s = gs_cuda_deep_combine(d_sum, d_coeffs, cols, n, betas, stream);
    if (s == GS_OK)
        s = gs_cuda_lde_coset_from_coeffs(d_ext, d_sum, 3, log_n, log_blowup, a.shift, GS_ORDER_NATURAL, stream);
    gs_cuda_deep_args ca = {.log_size = log_size, .shift = a.shift, .cols = cols, .chunks = chunks,
                            .aux_cols = aux, .z = a.z, .zw = a.zw, .k1 = a.k1, .k2 = a.k2,
                            .beta_pows = betas, .trace_combined = 1};
    if (s == GS_OK) s = gs_cuda_deep_word(d_out, d_ext, d_chunks, d_aux, &ca, stream);
    if (s != GS_OK) report_cuda("DEEP from coefficients", s);
    CHECK(s == GS_OK && sync_all(stream));
    uint64_t *got_sum = download(d_sum, 3 * n), *got = download(d_out, 3 * N);
    char desc[160];
    snprintf(desc, sizeof desc, "DEEP's sum of %u columns of 2^%u coefficients", cols, log_n);
    CHECK(same(sum, got_sum, 3 * n, n, desc));
    snprintf(desc, sizeof desc, "DEEP from coefficients, log_n %u blowup 2^%u cols %u chunks %u aux %u", log_n,
             log_blowup, cols, chunks, aux);
    CHECK(same(want, got, 3 * N, N, desc));
    check_deep_folds("DEEP from coefficients", &a, &bt, &bc, &ba, &ca, d_ext, d_chunks, d_aux, stream);
    dev_free(d_coeffs), dev_free(d_chunks), dev_free(d_aux), dev_free(d_sum), dev_free(d_ext), dev_free(d_out);
    free(coeffs), free(lde), free(chunk), free(auxv), free(want), free(sum), free(betas), free(got_sum), free(got);
}

/* A random DEEP shape of the given size, with at most `cap` values in all. */
static void test_deep_random(unsigned log_size, size_t cap) {
    size_t N = (size_t)1 << log_size;
    uint32_t cols = 1 + (uint32_t)gs_test_below(70), chunks = 1 + (uint32_t)gs_test_below(4);
    uint32_t aux = (uint32_t)gs_test_below(4);
    while ((cols + 3 * (size_t)(chunks + aux + 1)) * N > cap) {
        if (cols > 1) cols = cols / 2;
        else if (aux > 0) aux--;
        else if (chunks > 1) chunks--;
        else break;
    }
    test_deep(log_size, cols, chunks, aux);
}

/* ---- eval_at ---- */

static void test_eval(size_t cols, size_t len, gs_fp3 x) {
    uint64_t *coeffs = rand_values(cols * len);
    gs_fp3 *want = xmalloc(cols * sizeof *want), *got = xmalloc(cols * sizeof *got);
    gs_buf b = host_buf(coeffs, cols * len);
    CHECK(g_cpu->iface->eval_at(g_cpu, want, &b, cols, len, x) == GS_OK);
    uint64_t *d = dev_copy(coeffs, cols * len);
    void *stream = next_stream();
    CHECK(sync_all(NULL));
    memset(got, 0xA5, cols * sizeof *got);
    gs_status s = gs_cuda_eval_at(got, d, cols, len, x, stream);
    if (s != GS_OK) report_cuda("gs_cuda_eval_at", s);
    CHECK(s == GS_OK);
    char desc[160];
    snprintf(desc, sizeof desc, "eval_at cols %zu len %zu%s", cols, len, stream ? " (stream)" : "");
    CHECK(same(&want[0].c[0], &got[0].c[0], 3 * cols, 3, desc));
    dev_free(d);
    free(coeffs), free(want), free(got);
}

/* ---- values at many points: eval_points and gather_coeffs ---- */

/* sum_i c[i] x^i for i < len, by Horner on the host. */
static gs_fp horner(const uint64_t *c, size_t len, gs_fp x) {
    gs_fp v = 0;
    for (size_t i = len; i-- > 0;) v = gs_fp_add(gs_fp_mul(v, x), c[i]);
    return v;
}

static void test_points(size_t cols, size_t len, size_t npts) {
    uint64_t *coeffs = rand_values(cols * len), *x = rand_values(npts);
    if (npts > 2) x[0] = 0, x[1] = 1, x[2] = GS_FP_P - 1;
    uint64_t *want = xmalloc(npts * cols * sizeof *want), *got = xmalloc(npts * cols * sizeof *got);
    for (size_t j = 0; j < npts; j++)
        for (size_t c = 0; c < cols; c++) want[j * cols + c] = horner(coeffs + c * len, len, x[j]);
    uint64_t *d = dev_copy(coeffs, cols * len);
    void *stream = next_stream();
    CHECK(sync_all(NULL));
    memset(got, 0xA5, npts * cols * sizeof *got);
    gs_status s = gs_cuda_eval_points(got, d, cols, len, x, npts, stream);
    if (s != GS_OK) report_cuda("gs_cuda_eval_points", s);
    CHECK(s == GS_OK);
    char desc[160];
    snprintf(desc, sizeof desc, "eval_points cols %zu len %zu points %zu%s", cols, len, npts, stream ? " (stream)" : "");
    CHECK(same(want, got, npts * cols, cols, desc));
    dev_free(d);
    free(coeffs), free(x), free(want), free(got);
}

/* The rows gather_coeffs makes from the coefficients on a CUDA backend
 * object against the CPU's gather from the CPU's LDE of them, read as
 * cols << fold columns of N >> fold rows (the prover's leaves). */
static void test_gather_coeffs(gs_backend *be, size_t cols, unsigned log_n, unsigned log_blowup, unsigned fold,
                               size_t nq) {
    size_t n = (size_t)1 << log_n, N = n << log_blowup, M = N >> fold, w = cols << fold;
    uint64_t *coeffs = rand_values(cols * n), *lde = xmalloc(cols * N * sizeof *lde);
    uint64_t *want = xmalloc(nq * w * sizeof *want), *got = xmalloc(nq * w * sizeof *got);
    size_t *idx = xmalloc(nq * sizeof *idx);
    for (size_t k = 0; k < nq; k++) idx[k] = k == 0 ? 0 : k == 1 ? M - 1 : gs_test_below(M);
    gs_buf hc = host_buf(coeffs, cols * n), hl = host_buf(lde, cols * N);
    CHECK(g_cpu->iface->lde(g_cpu, &hl, &hc, cols, log_n, log_blowup, GS_FP_GENERATOR) == GS_OK);
    CHECK(g_cpu->iface->gather(g_cpu, want, &hl, w, M, idx, nq) == GS_OK);
    gs_buf dc = {0};
    gs_status s = be->iface->alloc(be, NULL, &dc, cols * n * sizeof(gs_fp));
    if (s == GS_OK) s = be->iface->upload(be, &dc, coeffs, cols * n * sizeof(gs_fp));
    memset(got, 0xA5, nq * w * sizeof *got);
    if (s == GS_OK)
        s = be->iface->gather_coeffs(be, got, &dc, cols, log_n, log_blowup, fold, GS_FP_GENERATOR, idx, nq);
    if (s != GS_OK) report_cuda("gather_coeffs", s);
    CHECK(s == GS_OK);
    char desc[160];
    snprintf(desc, sizeof desc, "gather_coeffs cols %zu log_n %u blowup 2^%u fold %u, %zu rows", cols, log_n,
             log_blowup, fold, nq);
    CHECK(same(want, got, nq * w, w, desc));
    /* A row past the leaves' range is refused. */
    idx[0] = M;
    CHECK(be->iface->gather_coeffs(be, got, &dc, cols, log_n, log_blowup, fold, GS_FP_GENERATOR, idx, nq) ==
          GS_ERR_INVALID_ARG);
    if (dc.ptr) be->iface->free(be, &dc);
    free(coeffs), free(lde), free(want), free(got), free(idx);
}

static void test_gather_coeffs_all(void) {
    gs_device *d = NULL;
    gs_backend *be = NULL;
    CHECK(gs_device_open(&d, GS_DEVICE_CUDA, 0, 1, 0, 0) == GS_OK);
    CHECK(d && gs_device_bind(d, 0) == GS_OK);
    CHECK(d && gs_device_backend_new(&be, d, -1) == GS_OK);
    if (be) {
        test_gather_coeffs(be, 1, 0, 1, 0, 2);
        test_gather_coeffs(be, 5, 6, 2, 0, 20);
        test_gather_coeffs(be, 5, 6, 2, 3, 20);
        test_gather_coeffs(be, 2, 10, 2, 3, 54);
        test_gather_coeffs(be, 33, 9, 3, 4, 27);
        test_gather_coeffs(be, 160, 12, 2, 0, 54);
        test_gather_coeffs(be, 3, 14, 1, 1, 100);
        be->iface->destroy(be);
    }
    gs_device_close(d);
}

/* ---- grind ---- */

static void test_grind(const gs_transcript *t0, unsigned bits) {
    gs_transcript tc = *t0, tg = *t0;
    uint64_t nc = 0x1111, ng = 0x2222;
    void *stream = next_stream();
    gs_status sc = gs_transcript_grind(&tc, bits, &nc);
    gs_status sg = gs_cuda_grind(&tg, bits, &ng, stream);
    if (sg != GS_OK) report_cuda("gs_cuda_grind", sg);
    g_cases++;
    int ok = sc == GS_OK && sg == GS_OK && nc == ng && tc.id == tg.id &&
             memcmp(tc.state.b, tg.state.b, sizeof tc.state.b) == 0;
    gs_fp3 cc = gs_transcript_squeeze_fp3(&tc, "after grinding");
    gs_fp3 cg = gs_transcript_squeeze_fp3(&tg, "after grinding");
    ok = ok && gs_fp3_eq(cc, cg) && gs_transcript_pow_valid(t0, bits, ng);
    if (!ok) {
        fprintf(stderr,
                "MISMATCH grind bits %u: cpu %s nonce %" PRIu64 ", gpu %s nonce %" PRIu64
                "; states %s; challenges %s\n",
                bits, gs_status_str(sc), nc, gs_status_str(sg), ng,
                memcmp(tc.state.b, tg.state.b, sizeof tc.state.b) ? "differ" : "equal",
                gs_fp3_eq(cc, cg) ? "equal" : "differ");
        g_bad_cases++;
    }
    CHECK(ok);
}

/* ---- argument errors ---- */

static void test_args(void) {
    uint64_t *d_a = dev_zeroed(256), *d_b = dev_zeroed(256);
    gs_fp3 g = gs_fp3_make(1, 2, 3), out[4];
    CHECK(gs_cuda_fold(NULL, d_a, 3, 1, 7, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_fold(d_b, NULL, 3, 1, 7, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_fold(d_b, d_a, 0, 1, 7, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_fold(d_b, d_a, 33, 1, 7, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_fold(d_b, d_a, 3, 0, 7, g, NULL) == GS_ERR_INVALID_ARG);  /* no fold */
    CHECK(gs_cuda_fold(d_b, d_a, 3, 4, 7, g, NULL) == GS_ERR_INVALID_ARG);  /* folds > log size */
    CHECK(gs_cuda_fold(d_b, d_a, 5, 5, 7, g, NULL) == GS_ERR_INVALID_ARG);  /* above the bound */
    CHECK(gs_cuda_fold(d_b, d_a, 3, 1, 0, g, NULL) == GS_ERR_INVALID_ARG);  /* shift 0 */
    CHECK(gs_cuda_fold(d_a, d_a, 3, 1, 7, g, NULL) == GS_ERR_INVALID_ARG);      /* in place */
    CHECK(gs_cuda_fold(d_a + 23, d_a, 3, 1, 7, g, NULL) == GS_ERR_INVALID_ARG); /* overlap */
    CHECK(gs_cuda_fold(d_a + 24, d_a, 3, 1, 7, g, NULL) == GS_OK);              /* adjacent */
    CHECK(gs_cuda_fold(d_b, d_a, 3, 1, 7, g, NULL) == GS_OK);

    gs_fp3 betas[8] = {{{0}}};
    gs_deep_args a = {.log_size = 4, .shift = 7, .cols = 1, .chunks = 1, .aux_cols = 1,
                      .z = gs_fp3_make(5, 6, 7), .zw = gs_fp3_make(8, 9, 10), .beta_pows = betas};
    CHECK(gs_cuda_deep(d_b, d_a, d_a, d_a, NULL, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_deep(NULL, d_a, d_a, d_a, &a, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_deep(d_b, NULL, d_a, d_a, &a, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_deep(d_b, d_a, NULL, d_a, &a, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_deep(d_b, d_a, d_a, NULL, &a, NULL) == GS_ERR_INVALID_ARG);
    a.beta_pows = NULL;
    CHECK(gs_cuda_deep(d_b, d_a, d_a, d_a, &a, NULL) == GS_ERR_INVALID_ARG);
    a.beta_pows = betas;
    a.log_size = 33;
    CHECK(gs_cuda_deep(d_b, d_a, d_a, d_a, &a, NULL) == GS_ERR_INVALID_ARG);
    a.log_size = 4;
    CHECK(gs_cuda_deep(d_b, d_a, d_a, d_a, &a, NULL) == GS_OK);
    a.aux_cols = 0; /* no aux: d_aux may be NULL */
    CHECK(gs_cuda_deep(d_b, d_a, d_a, NULL, &a, NULL) == GS_OK);

    CHECK(gs_cuda_eval_at(NULL, d_a, 1, 4, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_at(out, NULL, 1, 4, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_at(out, d_a, 2, SIZE_MAX / 8, g, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_at(NULL, NULL, 0, 4, g, NULL) == GS_OK);
    memset(out, 0xA5, sizeof out);
    CHECK(gs_cuda_eval_at(out, NULL, 4, 0, g, NULL) == GS_OK);
    for (int c = 0; c < 4; c++) CHECK(gs_fp3_is_zero(out[c]));
    uint64_t vals[8], pts[2] = {3, 5};
    CHECK(gs_cuda_eval_points(NULL, d_a, 1, 4, pts, 2, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_points(vals, d_a, 1, 4, NULL, 2, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_points(vals, NULL, 1, 4, pts, 2, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_points(vals, d_a, 2, SIZE_MAX / 8, pts, 2, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_eval_points(NULL, NULL, 0, 4, pts, 2, NULL) == GS_OK);
    CHECK(gs_cuda_eval_points(NULL, NULL, 4, 4, NULL, 0, NULL) == GS_OK);
    memset(vals, 0xA5, sizeof vals);
    CHECK(gs_cuda_eval_points(vals, NULL, 4, 0, pts, 2, NULL) == GS_OK);
    for (int c = 0; c < 8; c++) CHECK(vals[c] == 0);

    gs_transcript t, t0;
    gs_transcript_init(&t, GS_HASH_KECCAK256, "stages-args");
    t0 = t;
    uint64_t nonce = 99;
    CHECK(gs_cuda_grind(NULL, 4, &nonce, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_grind(&t, 4, NULL, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_grind(&t, 65, &nonce, NULL) == GS_ERR_INVALID_ARG);
    CHECK(nonce == 99 && memcmp(&t, &t0, sizeof t) == 0);
    CHECK(gs_transcript_grind(&t0, 65, &nonce) == GS_ERR_INVALID_ARG);

    CHECK(sync_all(NULL));
    dev_free(d_a), dev_free(d_b);
}

/* ---- injected faults ---- */

typedef struct {
    unsigned log_fold;
    uint64_t *d_fold_in, *d_fold_out, *fold_want;
    gs_deep_args deep;
    uint64_t *d_trace, *d_chunks, *d_aux, *d_deep_out, *deep_want;
    size_t deep_n;
    uint64_t *d_coeffs;
    size_t cols, len;
    gs_fp3 x, *eval_want;
    uint64_t pts[10], *pts_want;
    gs_transcript t;
    unsigned bits;
    uint64_t nonce_want;
    gs_digest state_want;
} fault_ctx;

enum { OP_FOLD, OP_DEEP, OP_EVAL, OP_POINTS, OP_GRIND, N_OPS };
static const char *const op_names[N_OPS] = {"fold", "deep", "eval_at", "points", "grind"};

/* Runs one stage; on success checks its result, on failure that nothing
 * visible changed (grind's transcript and nonce). */
static gs_status run_op(fault_ctx *f, int op) {
    gs_status s = GS_OK;
    if (op == OP_FOLD || op == OP_DEEP) {
        s = op == OP_FOLD ? gs_cuda_fold(f->d_fold_out, f->d_fold_in, f->log_fold, 1, 7,
                                         gs_fp3_make(3, 4, 5), g_stream)
                          : gs_cuda_deep(f->d_deep_out, f->d_trace, f->d_chunks, f->d_aux,
                                         &f->deep, g_stream);
        gs_status w = gs_cuda_merkle_stream_sync(g_stream);
        if (s == GS_OK && w != GS_OK) s = w;
        if (s == GS_OK) {
            size_t n = op == OP_FOLD ? 3 * ((size_t)1 << (f->log_fold - 1)) : 3 * f->deep_n;
            uint64_t *got = download(op == OP_FOLD ? f->d_fold_out : f->d_deep_out, n);
            CHECK(same(op == OP_FOLD ? f->fold_want : f->deep_want, got, n, n / 3,
                       op == OP_FOLD ? "fold after faults" : "DEEP after faults"));
            free(got);
        }
    } else if (op == OP_EVAL) {
        gs_fp3 *got = xmalloc(f->cols * sizeof *got);
        s = gs_cuda_eval_at(got, f->d_coeffs, f->cols, f->len, f->x, g_stream);
        if (s == GS_OK)
            CHECK(same(&f->eval_want[0].c[0], &got[0].c[0], 3 * f->cols, 3, "eval_at after faults"));
        free(got);
    } else if (op == OP_POINTS) {
        uint64_t *got = xmalloc(10 * f->cols * sizeof *got);
        s = gs_cuda_eval_points(got, f->d_coeffs, f->cols, f->len, f->pts, 10, g_stream);
        if (s == GS_OK) CHECK(same(f->pts_want, got, 10 * f->cols, f->cols, "eval_points after faults"));
        free(got);
    } else {
        gs_transcript t = f->t;
        uint64_t nonce = 12345;
        s = gs_cuda_grind(&t, f->bits, &nonce, g_stream);
        if (s == GS_OK) {
            CHECK_EQ_U64(nonce, f->nonce_want);
            CHECK(memcmp(t.state.b, f->state_want.b, sizeof t.state.b) == 0);
        } else {
            CHECK(nonce == 12345);
            CHECK(memcmp(&t, &f->t, sizeof t) == 0);
        }
    }
    return s;
}

static void fault_setup(fault_ctx *f) {
    memset(f, 0, sizeof *f);
    f->log_fold = 12;
    size_t H = (size_t)1 << (f->log_fold - 1);
    uint64_t *in = rand_values(6 * H);
    f->fold_want = xmalloc(3 * H * 8);
    gs_buf bi = host_buf(in, 6 * H), bo = host_buf(f->fold_want, 3 * H);
    CHECK(g_cpu->iface->fold(g_cpu, &bo, &bi, f->log_fold, 1, 7, gs_fp3_make(3, 4, 5)) == GS_OK);
    f->d_fold_in = dev_copy(in, 6 * H);
    f->d_fold_out = dev_zeroed(3 * H);
    free(in);

    static gs_fp3 betas[2 * 5 + 2 + 2 * 1];
    for (size_t i = 0; i < sizeof betas / sizeof betas[0]; i++) betas[i] = gs_test_fp3();
    size_t N = f->deep_n = 1024;
    f->deep = (gs_deep_args){.log_size = 10, .shift = 7, .cols = 5, .chunks = 2, .aux_cols = 1,
                             .z = gs_test_fp3(), .zw = gs_test_fp3(), .k1 = gs_test_fp3(),
                             .k2 = gs_test_fp3(), .beta_pows = betas};
    uint64_t *tr = rand_values(5 * N), *ch = rand_values(6 * N), *ax = rand_values(3 * N);
    f->deep_want = xmalloc(3 * N * 8);
    gs_buf bt = host_buf(tr, 5 * N), bc = host_buf(ch, 6 * N), ba = host_buf(ax, 3 * N);
    gs_buf bd = host_buf(f->deep_want, 3 * N);
    CHECK(g_cpu->iface->deep(g_cpu, &bd, &bt, &bc, &ba, &f->deep) == GS_OK);
    f->d_trace = dev_copy(tr, 5 * N), f->d_chunks = dev_copy(ch, 6 * N);
    f->d_aux = dev_copy(ax, 3 * N), f->d_deep_out = dev_zeroed(3 * N);
    free(tr), free(ch), free(ax);

    f->cols = 19, f->len = 5000, f->x = gs_test_fp3(); /* several segments: all three kernels */
    uint64_t *co = rand_values(f->cols * f->len);
    f->eval_want = xmalloc(f->cols * sizeof *f->eval_want);
    gs_buf bco = host_buf(co, f->cols * f->len);
    CHECK(g_cpu->iface->eval_at(g_cpu, f->eval_want, &bco, f->cols, f->len, f->x) == GS_OK);
    f->pts_want = xmalloc(10 * f->cols * sizeof *f->pts_want);
    for (size_t j = 0; j < 10; j++) {
        f->pts[j] = gs_test_fp();
        for (size_t c = 0; c < f->cols; c++) f->pts_want[j * f->cols + c] = horner(co + c * f->len, f->len, f->pts[j]);
    }
    f->d_coeffs = dev_copy(co, f->cols * f->len);
    free(co);

    gs_transcript_init(&f->t, GS_HASH_KECCAK256, "stages-faults");
    gs_transcript_absorb_u64(&f->t, "k", gs_test_u64());
    f->bits = 8;
    gs_transcript t = f->t;
    CHECK(gs_transcript_grind(&t, f->bits, &f->nonce_want) == GS_OK);
    f->state_want = t.state;
    CHECK(sync_all(NULL));
}

static void fault_teardown(fault_ctx *f) {
    dev_free(f->d_fold_in), dev_free(f->d_fold_out), dev_free(f->d_trace), dev_free(f->d_chunks);
    dev_free(f->d_aux), dev_free(f->d_deep_out), dev_free(f->d_coeffs);
    free(f->fold_want), free(f->deep_want), free(f->eval_want), free(f->pts_want);
}

/* For every stage and every kind: fail its 1st, 2nd, ... operation of that
 * kind until a call gets through untouched. */
static void test_faults(void) {
    static const gs_cuda_fault_kind kinds[3] = {GS_CUDA_FAULT_ALLOC, GS_CUDA_FAULT_COPY,
                                                GS_CUDA_FAULT_LAUNCH};
    static const char *const kind_names[3] = {"alloc", "copy", "launch"};
    /* Operations of each kind a stage makes at least: alloc, copy, launch. */
    static const int at_least[N_OPS][3] = {{0, 0, 1}, {1, 1, 1}, {1, 1, 2}, {1, 2, 3}, {1, 2, 1}};
    fault_ctx f;
    fault_setup(&f);
    long live0 = gs_cuda_live_allocations(); /* this process's, not the device's */
    for (int op = 0; op < N_OPS; op++) {
        for (int k = 0; k < 3; k++) {
            int injected = 0;
            long n;
            for (n = 1; n <= 16; n++) {
                gs_cuda_fault_inject(kinds[k], n);
                gs_status s = run_op(&f, op);
                gs_cuda_fault_inject(kinds[k], 0);
                if (s == GS_OK) break;
                injected++;
                if (s != GS_ERR_CUDA || strncmp(gs_cuda_last_error(), "injected fault", 14) != 0)
                    fprintf(stderr, "%s with %s fault %ld: %s (%s)\n", op_names[op], kind_names[k],
                            n, gs_status_str(s), gs_cuda_last_error());
                CHECK(s == GS_ERR_CUDA);
                CHECK(strncmp(gs_cuda_last_error(), "injected fault", 14) == 0);
            }
            CHECK(n <= 16);
            if (injected < at_least[op][k])
                fprintf(stderr, "%s: %d %s faults, expected at least %d\n", op_names[op], injected,
                        kind_names[k], at_least[op][k]);
            CHECK(injected >= at_least[op][k]);
            printf("faults: %-7s %-6s: %d injected, then ok\n", op_names[op], kind_names[k], injected);
        }
    }
    CHECK(sync_all(g_stream));
    long live1 = gs_cuda_live_allocations();
    printf("live device allocations: %ld before the faults, %ld after\n", live0, live1);
    CHECK(live1 == live0);
    fault_teardown(&f);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) g_quick = 1;
    if (gs_cuda_device_count() == 0) {
        printf("skipped: no CUDA device (%s)\n", gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return GS_TEST_SKIP;
    }
    char name[256];
    size_t mem = 0;
    if (gs_cuda_device_info(name, sizeof name, &mem) == GS_OK)
        printf("device: %s, %.1f GiB\n", name, (double)mem / (1 << 30));
    g_cpu = gs_backend_cpu();
    gs_status s = gs_cuda_merkle_stream_create(&g_stream);
    if (s != GS_OK) {
        report_cuda("stream", s);
        return 1;
    }
    const unsigned max_fold = g_quick ? 16 : 22, max_deep = g_quick ? 12 : 21;
    const size_t eval_cap = g_quick ? (size_t)1 << 18 : (size_t)1 << 24;
    const unsigned max_bits = g_quick ? 12 : 20;
    const int states = g_quick ? 2 : 4;

    test_args();

    double t0 = now_s();
    long bad0 = g_bad_cases;
    for (unsigned l = 1; l <= max_fold; l++) {
        for (unsigned a = 1; a <= GS_CUDA_FOLD_MAX && a <= l; a++) {
            gs_fp shift = gs_test_fp();
            test_fold(l, a, shift ? shift : 1, gs_test_fp3());
            if (l <= 6) test_fold(l, a, GS_LDE_SHIFT, gs_test_fp3());
        }
    }
    test_fold(5, 1, 1, gs_fp3_zero());
    test_fold(5, 4, 1, gs_fp3_one());
    for (unsigned l = 0; l <= 20; l += g_quick ? 5 : 1) test_add_scaled((size_t)1 << l, (size_t)1 << l, (size_t)1 << l);
    test_add_scaled(64, 256, 64);
    test_add_scaled(256, 64, 64);
    test_add_scaled(1000, 1000, 999);
    printf("fold: log sizes 1..%u, %s, %.2f s\n", max_fold,
           g_bad_cases == bad0 ? "all equal" : "MISMATCHES", now_s() - t0);

    t0 = now_s(), bad0 = g_bad_cases;
    const size_t deep_cap = (size_t)1 << 24;
    for (unsigned l = 0; l <= max_deep; l++) {
        test_deep_random(l, deep_cap);
        if (l <= 16) test_deep_random(l, deep_cap);
    }
    test_deep(10, 70, 4, 3);
    test_deep(12, 70, 4, 0);
    test_deep(9, 0, 1, 0); /* no trace columns */
    test_deep(8, 0, 1, 2);
    test_deep(3, 2, 1, 1);
    test_deep(11, 33, 3, 2);
    if (!g_quick) test_deep(21, 1, 1, 1); /* several tiles per block */
    test_deep_combined(10, 2, 70, 2, 0);
    test_deep_combined(8, 1, 5, 1, 2);
    test_deep_combined(6, 3, 1, 3, 1);
    test_deep_combined(12, 2, 40, 2, 1);
    if (!g_quick) test_deep_combined(18, 2, 16, 2, 0);
    printf("DEEP: log sizes 0..%u, %s, %.2f s\n", max_deep,
           g_bad_cases == bad0 ? "all equal" : "MISMATCHES", now_s() - t0);

    t0 = now_s(), bad0 = g_bad_cases;
    static const size_t eval_cols[] = {1, 2, 3, 7, 8, 9, 16, 17, 64, 255, 300};
    static const size_t eval_lens[] = {1,    2,     3,     17,    255,   256,           257,
                                       1000, 2047,  2048,  2049,  4095,  4097,          65535,
                                       65536, 65537, 262143, 1 << 20, (1 << 20) - 1};
    for (size_t ci = 0; ci < sizeof eval_cols / sizeof eval_cols[0]; ci++)
        for (size_t li = 0; li < sizeof eval_lens / sizeof eval_lens[0]; li++) {
            size_t cols = eval_cols[ci], len = eval_lens[li];
            if (cols * len > eval_cap) continue;
            if (cols > 17 && li % 2 == 1 && len > 4096) continue; /* fewer of the big ones */
            test_eval(cols, len, gs_test_fp3());
        }
    test_eval(5, 300, gs_fp3_zero());
    test_eval(5, 3000, gs_fp3_one());
    test_eval(3, 5000, gs_fp3_from_fp(GS_FP_P - 1));
    test_eval(70000, 3, gs_test_fp3());
    test_eval(600000, 1, gs_test_fp3()); /* more column groups than grid rows */
    printf("eval_at: %s, %.2f s\n", g_bad_cases == bad0 ? "all equal" : "MISMATCHES", now_s() - t0);

    t0 = now_s(), bad0 = g_bad_cases;
    static const size_t pt_cols[] = {1, 3, 4, 5, 9, 64};
    static const size_t pt_lens[] = {1, 2, 255, 256, 257, 4097, 65536};
    static const size_t pt_npts[] = {1, 7, 8, 9, 54, 432};
    for (size_t ci = 0; ci < sizeof pt_cols / sizeof pt_cols[0]; ci++)
        for (size_t li = 0; li < sizeof pt_lens / sizeof pt_lens[0]; li++)
            for (size_t pi = 0; pi < sizeof pt_npts / sizeof pt_npts[0]; pi++)
                if (pt_cols[ci] * pt_lens[li] * pt_npts[pi] <= (size_t)(g_quick ? 1 : 8) << 20)
                    test_points(pt_cols[ci], pt_lens[li], pt_npts[pi]);
    test_points(2, (size_t)1 << 20, 3); /* several segments */
    test_points(256, 4096, 54);
    test_points(300000, 1, 2); /* more groups than grid rows */
    test_gather_coeffs_all();
    printf("eval_points and gather_coeffs: %s, %.2f s\n", g_bad_cases == bad0 ? "all equal" : "MISMATCHES",
           now_s() - t0);

    t0 = now_s(), bad0 = g_bad_cases;
    for (int k = 0; k < states; k++) {
        gs_transcript t;
        gs_transcript_init(&t, GS_HASH_KECCAK256, "stages-grind");
        gs_transcript_absorb_u64(&t, "state", gs_test_u64());
        for (unsigned bits = 0; bits <= max_bits; bits++) test_grind(&t, bits);
    }
    printf("grind: bits 0..%u over %d states, %s, %.2f s\n", max_bits, states,
           g_bad_cases == bad0 ? "all equal" : "MISMATCHES", now_s() - t0);

    test_faults();

    gs_cuda_merkle_stream_destroy(g_stream);
    printf("%ld comparisons, %ld mismatching\n", g_cases, g_bad_cases);
    return gs_test_done();
}
