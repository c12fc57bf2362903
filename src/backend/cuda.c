/* The CUDA backend: one object per table, on a device object
 * (src/backend/device.h). Buffers live in device memory (stream-ordered)
 * from the trace upload to the last opening; every stage runs there (inverse
 * NTT, coset LDE, Keccak Merkle trees, LogUp aux trace, quotient,
 * out-of-domain values, DEEP, FRI folds, grinding; docs/gpu.md), and only
 * roots, out-of-domain values, the bus sum, the final polynomial, the nonce
 * and opened rows and paths come back. The object owns no CUDA resource: each
 * operation runs on the lane (stream and pinned staging pair) of the thread
 * that calls it, which must be bound to the device; the lanes are the device
 * object's, made once and reused by every table and proof. A table moved
 * from one worker to another between its main commitment and its chain
 * changes lanes safely: the commitment's root has been read back by then,
 * so nothing of it is in flight.
 *
 * Every device byte is charged to the caller's account and to the device
 * account with its budget; a request over the budget fails with
 * GS_ERR_DEVICE_MEM before anything is allocated. Plain C: the CUDA calls
 * are behind src/cuda/device.h and the kernel headers. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "cuda/device.h"
#include "cuda/quotient.h"
#include "cuda/stages.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_ntt.h"
#include "gstark/ntt.h"

typedef struct {
    gs_device *dev;
    gs_mem *dev_acct;
    size_t budget;
    /* The lane of the latest operation (the bound thread's): frees go on its
     * stream, after the buffer's last use. */
    void *stream;
    gs_cuda_stage *stage;
    /* timing: an event pair around each operation, given to the device's
     * busy log at destroy */
    void **marks;
    size_t n_marks, cap_marks;
} cuda_ctx;

/* A device Merkle tree and what it is charged to. */
typedef struct {
    gs_cuda_tree *tree;
    gs_mem *acct;
    size_t bytes;
} cuda_tree_ref;

static cuda_ctx *ctx_of(gs_backend *be) { return be->ctx; }

/* The calling thread's lane (its stream and staging pair), before any
 * device work: GS_ERR_CUDA when the thread is not bound to the device. */
static gs_status use_lane(cuda_ctx *c) {
    void *stream;
    gs_cuda_stage *stage;
    GS_TRY(gs_device_lane(c->dev, &stream, &stage));
    c->stream = stream, c->stage = stage;
    return GS_OK;
}

/* Records a timing event on the stream (the start or the end of an
 * operation). Timing is best effort: a failure here only loses the mark, and
 * mark_end drops a start whose end could not be recorded. */
static void mark(cuda_ctx *c) {
    if (c->n_marks == c->cap_marks) {
        size_t cap = c->cap_marks ? 2 * c->cap_marks : 64;
        void **m = realloc(c->marks, cap * sizeof *m);
        if (!m) return;
        c->marks = m, c->cap_marks = cap;
    }
    if (gs_cuda_mark(&c->marks[c->n_marks], c->stream) == GS_OK) c->n_marks++;
}

/* An operation between two timing marks: t = mark_start(c), then
 * return mark_end(c, t, status). The marks stay in (start, end) pairs. */
static size_t mark_start(cuda_ctx *c) {
    size_t n0 = c->n_marks;
    mark(c);
    return n0;
}

static gs_status mark_end(cuda_ctx *c, size_t n0, gs_status s) {
    if (c->n_marks == n0 + 1) {
        mark(c);
        if (c->n_marks == n0 + 1) gs_cuda_mark_free(c->marks[--c->n_marks]);
    }
    return s;
}

/* Charges bytes to the device account within the budget, then to acct. */
static gs_status charge(cuda_ctx *c, gs_mem *acct, size_t bytes) {
    if (!gs_mem_try_charge(c->dev_acct, bytes, c->budget)) return GS_ERR_DEVICE_MEM;
    gs_mem_charge(acct, bytes);
    return GS_OK;
}

static void uncharge(cuda_ctx *c, gs_mem *acct, size_t bytes) {
    gs_mem_uncharge(c->dev_acct, bytes);
    gs_mem_uncharge(acct, bytes);
}

static gs_status cuda_alloc(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes) {
    cuda_ctx *c = ctx_of(be);
    memset(out, 0, sizeof *out);
    GS_TRY(use_lane(c));
    GS_TRY(charge(c, acct, bytes));
    gs_status s = gs_cuda_buf_alloc(&out->ptr, bytes, c->stream);
    if (s != GS_OK) {
        uncharge(c, acct, bytes);
        return s;
    }
    out->bytes = bytes;
    out->acct = acct;
    return GS_OK;
}

static void cuda_free(gs_backend *be, gs_buf *buf) {
    cuda_ctx *c = ctx_of(be);
    if (!buf->ptr) return;
    gs_cuda_buf_free(buf->ptr, c->stream);
    uncharge(c, buf->acct, buf->bytes);
    buf->ptr = NULL;
    buf->bytes = 0;
}

static gs_status cuda_upload(gs_backend *be, gs_buf *dst, const void *src, size_t bytes) {
    cuda_ctx *c = ctx_of(be);
    if (bytes > dst->bytes) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_stage_upload(c->stage, dst->ptr, src, bytes, c->stream));
}

static gs_status cuda_copy(gs_backend *be, gs_buf *dst, size_t dst_off, const gs_buf *src,
                           size_t src_off, size_t n) {
    size_t e = sizeof(gs_fp);
    if ((dst_off + n) * e > dst->bytes || (src_off + n) * e > src->bytes) return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_d2d_async((gs_fp *)dst->ptr + dst_off,
                                            (const gs_fp *)src->ptr + src_off, n * e, c->stream));
}

static gs_status cuda_interpolate(gs_backend *be, gs_buf *v, size_t cols, unsigned log_n,
                                  gs_fp shift) {
    cuda_ctx *c = ctx_of(be);
    size_t n = (size_t)1 << log_n;
    if (cols * n * sizeof(gs_fp) > v->bytes || shift == 0) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    gs_status s = gs_cuda_ntt_inverse_batch(v->ptr, cols, log_n, c->stream);
    /* Evaluations on shift <w>: the inverse NTT gives the coefficients of
     * P(shift y); coefficient i times shift^-i gives P's. */
    if (s == GS_OK && shift != 1) s = gs_cuda_scale_powers(v->ptr, cols, n, gs_fp_inv(shift), c->stream);
    return mark_end(c, t, s);
}

static gs_status cuda_lde(gs_backend *be, gs_buf *out, const gs_buf *coeffs, size_t cols,
                          unsigned log_n, unsigned log_blowup, gs_fp shift) {
    size_t n = (size_t)1 << log_n;
    if (log_n + log_blowup > 32 || cols * n * sizeof(gs_fp) > coeffs->bytes ||
        (cols * n * sizeof(gs_fp)) << log_blowup > out->bytes)
        return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_lde_coset_from_coeffs(out->ptr, coeffs->ptr, cols, log_n,
                                                        log_blowup, shift, GS_ORDER_NATURAL,
                                                        c->stream));
}

static gs_status cuda_commit(gs_backend *be, gs_mem *acct, gs_bcommit **out, const gs_buf *m,
                             size_t cols, size_t col_stride, unsigned log_rows) {
    cuda_ctx *c = ctx_of(be);
    *out = NULL;
    size_t rows = (size_t)1 << log_rows;
    if (cols == 0 || col_stride < rows || ((cols - 1) * col_stride + rows) * sizeof(gs_fp) > m->bytes)
        return GS_ERR_INVALID_ARG;
    cuda_tree_ref *cc = malloc(sizeof *cc);
    if (!cc) return GS_ERR_NOMEM;
    cc->acct = acct;
    cc->bytes = gs_cuda_merkle_tree_bytes(log_rows);
    gs_status s = use_lane(c);
    if (s == GS_OK) s = charge(c, acct, cc->bytes);
    if (s == GS_OK) {
        size_t t = mark_start(c);
        s = mark_end(c, t, gs_cuda_merkle_commit(&cc->tree, m->ptr, cols, col_stride, log_rows,
                                                 c->stream));
        if (s != GS_OK) uncharge(c, acct, cc->bytes);
    }
    if (s != GS_OK) {
        free(cc);
        return s;
    }
    *out = (gs_bcommit *)cc;
    return GS_OK;
}

static gs_status cuda_root(gs_backend *be, const gs_bcommit *c, gs_digest *out) {
    (void)be;
    return gs_cuda_merkle_root(((const cuda_tree_ref *)c)->tree, out);
}

static gs_status cuda_open(gs_backend *be, const gs_bcommit *c, gs_digest *paths,
                           const size_t *idx, size_t n) {
    (void)be;
    return gs_cuda_merkle_open(((const cuda_tree_ref *)c)->tree, paths, idx, n);
}

static void cuda_commit_free(gs_backend *be, gs_bcommit *c) {
    cuda_tree_ref *cc = (cuda_tree_ref *)c;
    if (!cc) return;
    gs_cuda_merkle_free(cc->tree);
    uncharge(ctx_of(be), cc->acct, cc->bytes);
    free(cc);
}

static gs_status cuda_gather(gs_backend *be, gs_fp *out, const gs_buf *m, size_t cols,
                             size_t col_stride, const size_t *idx, size_t n) {
    size_t elems = m->bytes / sizeof(gs_fp);
    if (cols && (cols - 1) > elems / (col_stride ? col_stride : 1)) return GS_ERR_INVALID_ARG;
    for (size_t k = 0; k < n; k++)
        if (cols && (idx[k] >= col_stride || (cols - 1) * col_stride + idx[k] >= elems))
            return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_gather_rows(out, m->ptr, cols, col_stride, idx, n, c->stream));
}

static gs_status cuda_logup_aux(gs_backend *be, gs_buf *aux, gs_fp3 *sigma, const gs_logup *L,
                                const gs_air *air, const gs_fp *trace, unsigned log_n,
                                const gs_fp *pub, gs_fp3 z, gs_fp3 alpha) {
    cuda_ctx *c = ctx_of(be);
    if (aux->bytes < 3 * (size_t)L->aux_cols * ((size_t)1 << log_n) * sizeof(gs_fp))
        return GS_ERR_INVALID_ARG;
    /* The trace again (the main buffer holds coefficients by now), for the
     * call: charged to the device account only. */
    gs_buf d_trace;
    GS_TRY(cuda_alloc(be, NULL, &d_trace, (size_t)gs_air_num_cols(air) * sizeof(gs_fp) << log_n));
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    gs_status s = gs_cuda_stage_upload(c->stage, d_trace.ptr, trace, d_trace.bytes, c->stream);
    if (s == GS_OK)
        s = gs_cuda_logup_aux(aux->ptr, sigma, L, air, d_trace.ptr, log_n, pub, z, alpha, c->stream);
    s = mark_end(c, t, s);
    cuda_free(be, &d_trace);
    return s;
}

static gs_status cuda_quotient(gs_backend *be, gs_buf *out, const gs_buf *lde,
                               const gs_buf *aux_lde, const gs_quotient_args *a) {
    cuda_ctx *c = ctx_of(be);
    size_t N = (size_t)1 << (a->log_n + a->log_blowup);
    if (out->bytes < 3 * N * sizeof(gs_fp) ||
        lde->bytes < (size_t)gs_air_num_cols(a->air) * N * sizeof(gs_fp) ||
        (a->logup && (!aux_lde || aux_lde->bytes < 3 * (size_t)a->logup->aux_cols * N * sizeof(gs_fp))))
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_quotient(out->ptr, lde->ptr, a->logup ? aux_lde->ptr : NULL, a,
                                           c->stream));
}

static gs_status cuda_eval_at(gs_backend *be, gs_fp3 *out, const gs_buf *coeffs, size_t cols,
                              size_t len, gs_fp3 x) {
    cuda_ctx *c = ctx_of(be);
    if (coeffs->bytes < cols * len * sizeof(gs_fp)) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_eval_at(out, coeffs->ptr, cols, len, x, c->stream));
}

static gs_status cuda_deep(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                           const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a) {
    cuda_ctx *c = ctx_of(be);
    size_t N = (size_t)1 << a->log_size, e = sizeof(gs_fp);
    if (out->bytes < 3 * N * e || trace_lde->bytes < a->cols * N * e ||
        chunk_lde->bytes < 3 * (size_t)a->chunks * N * e ||
        (a->aux_cols && (!aux_lde || aux_lde->bytes < 3 * (size_t)a->aux_cols * N * e)))
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_deep(out->ptr, trace_lde->ptr, chunk_lde->ptr,
                                       a->aux_cols ? aux_lde->ptr : NULL, a, c->stream));
}

static gs_status cuda_fold(gs_backend *be, gs_buf *out, const gs_buf *in, unsigned log_size,
                           gs_fp shift, gs_fp3 gamma) {
    cuda_ctx *c = ctx_of(be);
    if (log_size == 0) return GS_ERR_INVALID_ARG;
    size_t H = (size_t)1 << (log_size - 1);
    if (out->bytes < 3 * H * sizeof(gs_fp) || in->bytes < 6 * H * sizeof(gs_fp))
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c);
    return mark_end(c, t, gs_cuda_fold(out->ptr, in->ptr, log_size, shift, gamma, c->stream));
}

/* Grinding on the device for 16 bits and more; below, the host's first
 * round of 1 Ki nonces finds it faster than a launch and its copy back. */
static gs_status cuda_grind(gs_backend *be, gs_transcript *t, unsigned bits, uint64_t *nonce) {
    cuda_ctx *c = ctx_of(be);
    if (bits < 16) return gs_transcript_grind(t, bits, nonce);
    GS_TRY(use_lane(c));
    size_t m = mark_start(c);
    return mark_end(c, m, gs_cuda_grind(t, bits, nonce, c->stream));
}

static void cuda_destroy(gs_backend *be) {
    if (!be) return;
    cuda_ctx *c = ctx_of(be);
    gs_device_busy_add(c->dev, c->marks, c->n_marks);
    free(c->marks);
    free(c);
    free(be);
}

static const gs_backend_iface cuda_iface = {
    .name = "cuda",
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .copy = cuda_copy,
    .interpolate = cuda_interpolate,
    .lde = cuda_lde,
    .commit = cuda_commit,
    .root = cuda_root,
    .open = cuda_open,
    .commit_free = cuda_commit_free,
    .gather = cuda_gather,
    .logup_aux = cuda_logup_aux,
    .quotient = cuda_quotient,
    .eval_at = cuda_eval_at,
    .deep = cuda_deep,
    .fold = cuda_fold,
    .grind = cuda_grind,
    .destroy = cuda_destroy,
};

gs_status gs_backend_cuda_new(gs_backend **out, gs_device *dev) {
    *out = NULL;
    if (!dev || gs_device_kind_of(dev) != GS_DEVICE_CUDA) return GS_ERR_INVALID_ARG;
    gs_backend *be = calloc(1, sizeof *be);
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be), free(c);
        return GS_ERR_NOMEM;
    }
    c->dev = dev;
    c->dev_acct = gs_device_account(dev);
    c->budget = gs_device_budget(dev);
    be->iface = &cuda_iface;
    be->ctx = c;
    *out = be;
    return GS_OK;
}
