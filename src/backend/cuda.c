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
 * GS_ERR_DEVICE_MEM before anything is allocated, except that a large
 * buffer goes out of core instead (docs/gpu.md, "Out of core"): into
 * page-locked host memory that the kernels read and write over the bus as
 * they would device memory, the NTTs of its columns run in pieces through
 * device scratch within the budget, and uploads into it and rows gathered
 * from it are host copies. Plain C: the CUDA calls are behind
 * src/cuda/device.h and the kernel headers.
 *
 * src/cuda/ knows only the field, hash and NTT layers: its launchers take
 * plain arguments (pointers, sizes, field elements, the structs of
 * cuda/quotient.h and cuda/stages.h). This file adapts the backend's types
 * to them: the AIR and its LogUp layout (gs_cuda_air, gs_cuda_bus), the
 * DEEP arguments, and the transcript's pow-hash prefix for grinding. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "backend/backend.h"
#include "backend/device.h"
#include "cuda/device.h"
#include "cuda/mixed.h"
#include "cuda/quotient.h"
#include "cuda/stages.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_ntt.h"
#include "gstark/cuda_poseidon2.h"
#include "gstark/merkle.h"
#include "gstark/ntt.h"
#include "gstark/obs.h"
#include "gstark/poseidon2.h"
#include "transcript/transcript_internal.h"

_Static_assert(GS_OBS_COPY_LANES == GS_DEVICE_MAX_LANES, "a lane's copy track follows the lanes");

/* ---- the plain arguments of src/cuda/ ---- */

/* The device interprets the AIR's bytecode as it is: same opcodes, same
 * 8-byte instructions, same tuple bound. */
#define SAME_OP(x) _Static_assert((int)GS_CUDA_OP_##x == (int)GS_OP_##x, "opcode " #x)
SAME_OP(LOAD_CUR);
SAME_OP(LOAD_NEXT);
SAME_OP(LOAD_PUB);
SAME_OP(LOAD_CONST);
SAME_OP(ADD);
SAME_OP(SUB);
SAME_OP(MUL);
SAME_OP(NEG);
SAME_OP(STORE);
#undef SAME_OP
_Static_assert(sizeof(gs_cuda_insn) == sizeof(gs_air_insn) &&
                   offsetof(gs_cuda_insn, op) == offsetof(gs_air_insn, op) &&
                   offsetof(gs_cuda_insn, dst) == offsetof(gs_air_insn, dst) &&
                   offsetof(gs_cuda_insn, a) == offsetof(gs_air_insn, a) &&
                   offsetof(gs_cuda_insn, b) == offsetof(gs_air_insn, b),
               "src/cuda/quotient.h's instructions are the AIR's");
_Static_assert(GS_CUDA_MAX_TUPLE == GS_AIR_MAX_TUPLE, "one tuple bound");
_Static_assert(GS_CUDA_FOLD_MAX == GS_MAX_LOG_ARITY, "a layer's folds fit one fold call");
_Static_assert(GS_CUDA_POW_PREFIX == GS_DIGEST_BYTES + 2, "S || tag || bits");

static gs_cuda_program cuda_program(const gs_air_program *p) {
    gs_cuda_program q = {.insns = (const gs_cuda_insn *)(const void *)p->insns,
                         .n_insns = p->n_insns,
                         .consts = p->consts,
                         .n_consts = p->n_consts,
                         .n_regs = p->n_regs,
                         .n_out = p->n_out};
    return q;
}

static gs_cuda_air cuda_air(const gs_air *air) {
    gs_cuda_air a = {.num_cols = air->num_cols,
                     .num_public = air->num_public,
                     .n_trans = air->n_trans,
                     .trans = cuda_program(&air->prog_trans),
                     .inter = cuda_program(&air->prog_inter)};
    return a;
}

/* L (air's LogUp layout) as plain tables; *inters is allocated here (the
 * caller frees it). GS_ERR_INVALID_ARG when L cannot be air's layout (no
 * interactions, another count); the device code checks the rest. */
static gs_status cuda_bus(gs_cuda_bus *out, gs_cuda_inter **inters, const gs_logup *L,
                          const gs_air *air) {
    *inters = NULL;
    if (!L->n_inters || L->n_inters != air->n_inters || !air->inters ||
        L->aux_cols != L->n_groups)
        return GS_ERR_INVALID_ARG;
    gs_cuda_inter *v = malloc(L->n_inters * sizeof *v);
    if (!v) return GS_ERR_NOMEM;
    for (uint32_t i = 0; i < L->n_inters; i++) {
        const gs_air_inter *it = &air->inters[i];
        v[i] = (gs_cuda_inter){.width = it->width, .receives = it->sign < 0, .bus = it->bus};
    }
    *out = (gs_cuda_bus){.n_inters = L->n_inters,
                         .n_groups = L->n_groups,
                         .n_outs = L->n_outs,
                         .group_first = L->group_first,
                         .group_size = L->group_size,
                         .out_off = L->out_off,
                         .inters = v};
    *inters = v;
    return GS_OK;
}

/* Out of core, the quotient's inputs in parts: two device buffers and the
 * stream their copies run on (row pieces: gs_cuda_quotient_eval_pieces), or
 * the slots of sub-cosets made from the coefficients (copy_stream NULL;
 * gs_cuda_quotient_eval_coeffs, lde then the coefficients). */
typedef struct {
    uint64_t *buf[2];
    size_t rows;        /* a row piece's rows */
    unsigned log_sub;   /* the sub-cosets: 2^log_sub of each coset of <w_n> */
    void *copy_stream;
} quot_pieces;

/* gs_cuda_quotient, in parts when `pieces` is not NULL. */
static gs_status quotient_on(uint64_t *d_out, const uint64_t *lde, const uint64_t *aux_lde,
                             const gs_quotient_args *a, void *stream, const quot_pieces *pieces) {
    if (!a || !a->air || !a->air->finalized) return GS_ERR_INVALID_ARG;
    gs_cuda_air air = cuda_air(a->air);
    gs_cuda_bus bus;
    gs_cuda_inter *inters = NULL;
    if (a->logup) GS_TRY(cuda_bus(&bus, &inters, a->logup, a->air));
    gs_cuda_quotient_args q = {.air = &air,
                               .pub = a->pub,
                               .log_n = a->log_n,
                               .log_blowup = a->log_blowup,
                               .log_step = a->log_step,
                               .shift = a->shift,
                               .alpha_pows = a->alpha_pows,
                               .n_bounds = a->air->n_bounds,
                               .bound_cols = a->bound_cols,
                               .bound_rows = a->bound_rows,
                               .bound_vals = a->bound_vals,
                               .bus = a->logup ? &bus : NULL,
                               .bus_z = a->bus_z,
                               .sigma = a->sigma,
                               .bus_alpha_pows = a->bus_alpha_pows};
    /* The tables are copied to the device before it returns. */
    gs_status s = !pieces ? gs_cuda_quotient_eval(d_out, lde, aux_lde, &q, stream)
                  : pieces->copy_stream
                      ? gs_cuda_quotient_eval_pieces(d_out, lde, aux_lde, &q, pieces->buf, pieces->rows, stream,
                                                     pieces->copy_stream)
                      : gs_cuda_quotient_eval_coeffs(d_out, lde, &q, pieces->buf[0], pieces->log_sub, stream);
    free(inters);
    return s;
}

gs_status gs_cuda_quotient(uint64_t *d_out, const uint64_t *d_lde, const uint64_t *d_aux_lde,
                           const gs_quotient_args *a, void *stream) {
    return quotient_on(d_out, d_lde, d_aux_lde, a, stream, NULL);
}

gs_status gs_cuda_quotient_coeffs(uint64_t *d_out, const uint64_t *d_coeffs, uint64_t *d_slots,
                                  unsigned log_sub, const gs_quotient_args *a, void *stream) {
    quot_pieces qp = {{d_slots, NULL}, 0, log_sub, NULL};
    return quotient_on(d_out, d_coeffs, NULL, a, stream, &qp);
}

gs_status gs_cuda_logup_aux(uint64_t *d_aux, gs_fp3 *sigma, const gs_logup *L, const gs_air *air,
                            const uint64_t *d_trace, unsigned log_n, const gs_fp *pub, gs_fp3 z,
                            gs_fp3 alpha, void *stream) {
    if (!L || !air || !air->finalized) return GS_ERR_INVALID_ARG;
    gs_cuda_air ca = cuda_air(air);
    gs_cuda_bus bus;
    gs_cuda_inter *inters;
    GS_TRY(cuda_bus(&bus, &inters, L, air));
    gs_status s = gs_cuda_aux_trace(d_aux, sigma, &ca, &bus, d_trace, log_n, pub, z, alpha, stream);
    free(inters);
    return s;
}

static gs_cuda_deep_args cuda_deep_args(const gs_deep_args *a) {
    gs_cuda_deep_args d = {.log_size = a->log_size,
                           .shift = a->shift,
                           .cols = a->cols,
                           .chunks = a->chunks,
                           .aux_cols = a->aux_cols,
                           .z = a->z,
                           .zw = a->zw,
                           .k1 = a->k1,
                           .k2 = a->k2,
                           .beta_pows = a->beta_pows};
    return d;
}

gs_status gs_cuda_deep(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                       const uint64_t *d_aux, const gs_deep_args *a, void *stream) {
    if (!a) return GS_ERR_INVALID_ARG;
    gs_cuda_deep_args d = cuda_deep_args(a);
    return gs_cuda_deep_word(d_out, d_trace, d_chunks, d_aux, &d, stream);
}

gs_status gs_cuda_grind(gs_transcript *t, unsigned bits, uint64_t *nonce, void *stream) {
    if (!t || !nonce || bits > 64) return GS_ERR_INVALID_ARG;
    /* The device's pow hash is Keccak-256's: another transcript grinds on the host. */
    if (t->id != GS_HASH_KECCAK256) return gs_transcript_grind(t, bits, nonce);
    if (bits == 0) { /* every nonce is valid: 0, as gs_transcript_grind */
        GS_TRY(gs_transcript_check_pow(t, 0, 0));
        *nonce = 0;
        return GS_OK;
    }
    /* The pow hash's prefix S || tag || bits (pow.c). */
    uint8_t prefix[GS_CUDA_POW_PREFIX];
    memcpy(prefix, t->state.b, GS_DIGEST_BYTES);
    prefix[GS_DIGEST_BYTES] = GS_TT_POW_HASH;
    prefix[GS_DIGEST_BYTES + 1] = (uint8_t)bits;
    int found = 0;
    uint64_t best = 0;
    GS_TRY(gs_cuda_pow_search(&found, &best, prefix, bits, stream));
    if (!found) return GS_ERR_EXHAUSTED;
    /* Absorbs exactly as gs_transcript_grind, after checking the nonce on the
     * host (one hash): a device that disagrees with the CPU is a failure. */
    gs_status s = gs_transcript_check_pow(t, bits, best);
    if (s == GS_ERR_POW) {
        gs_cuda_note_error("grind: the device's nonce fails the host check");
        return GS_ERR_CUDA;
    }
    GS_TRY(s);
    *nonce = best;
    return GS_OK;
}

/* ---- the backend ---- */

typedef struct {
    gs_device *dev;
    gs_mem *dev_acct;
    size_t budget;
    /* The lane of the latest operation (the bound thread's): frees go on its
     * stream, after the buffer's last use. */
    void *stream;
    gs_cuda_stage *stage;
    unsigned lane;
    int32_t table; /* the table this object proves (-1: none), for the busy log */
    /* The largest Merkle tree charge so far (bytes and scratch): the room a
     * large buffer leaves free for the next tree (the LDE trees of a table
     * all have its LDE's height). */
    size_t tree_bytes;
    /* The leaf digests lde_out hashed as it extended the main trace out of
     * core, for the commit of that LDE (its buffer and plan): device memory,
     * charged to the device account, dropped at the next commit. */
    struct {
        const void *lde;
        gs_leaf_plan plan;
        void *digests;
        size_t bytes;
    } fused;
    /* timing: an event pair around each operation, named, given to the
     * device's busy log at destroy */
    gs_device_mark *marks;
    size_t n_marks, cap_marks;
} cuda_ctx;

/* A device Merkle tree, what it is charged to, and (a tree that skips its
 * lower levels, gs_merkle_skip_for) the matrix its openings hash again. */
typedef struct {
    gs_cuda_tree *tree;
    gs_mem *acct;
    size_t bytes;
    gs_hash_id hash;
    gs_buf m; /* a copy of the handle */
    size_t cols, col_stride;
} cuda_tree_ref;

static cuda_ctx *ctx_of(gs_backend *be) { return be->ctx; }

/* The calling thread's lane (its stream and staging pair), before any
 * device work: GS_ERR_CUDA when the thread is not bound to the device. */
static gs_status use_lane(cuda_ctx *c) {
    void *stream;
    gs_cuda_stage *stage;
    unsigned lane = 0;
    GS_TRY(gs_device_lane(c->dev, &stream, &stage, &lane));
    c->stream = stream, c->stage = stage, c->lane = lane;
    return GS_OK;
}

/* An operation between two timing events on the lane's stream, named op (a
 * static string: the timeline's name for it): t = mark_start(c, op), then
 * return mark_end(c, t, status). Timing is best effort: a failure only
 * loses the operation's entry (mark_start returns SIZE_MAX then, and
 * mark_end drops a start whose end could not be recorded). */
static size_t mark_start_on(cuda_ctx *c, const char *op, void *stream, unsigned lane) {
    if (c->n_marks == c->cap_marks) {
        size_t cap = c->cap_marks ? 2 * c->cap_marks : 64;
        gs_device_mark *m = realloc(c->marks, cap * sizeof *m);
        if (!m) return SIZE_MAX;
        c->marks = m, c->cap_marks = cap;
    }
    gs_device_mark *m = &c->marks[c->n_marks];
    *m = (gs_device_mark){.op = op, .lane = lane, .table = c->table};
    if (gs_cuda_mark(&m->start, stream) != GS_OK) return SIZE_MAX;
    return c->n_marks;
}

static gs_status mark_end_on(cuda_ctx *c, size_t t, gs_status s, void *stream) {
    if (t != c->n_marks) return s; /* the start was not recorded */
    gs_device_mark *m = &c->marks[t];
    if (gs_cuda_mark(&m->end, stream) == GS_OK) c->n_marks++;
    else gs_cuda_mark_free(m->start);
    return s;
}

static size_t mark_start(cuda_ctx *c, const char *op) { return mark_start_on(c, op, c->stream, c->lane); }
static gs_status mark_end(cuda_ctx *c, size_t t, gs_status s) { return mark_end_on(c, t, s, c->stream); }

/* GS_ERR_DEVICE_MEM, with what did not fit as the device error's text
 * (gs_cuda_last_error, which the fallback's report and the CLI show). */
static gs_status over_budget(cuda_ctx *c, const char *what, size_t bytes) {
    char m[160];
    snprintf(m, sizeof m, "device budget: %s of %zu bytes with %zu of %zu bytes held", what, bytes,
             gs_mem_current(c->dev_acct), c->budget);
    gs_cuda_note_error(m);
    return GS_ERR_DEVICE_MEM;
}

/* Charges bytes to the device account within limit (charge: the budget),
 * then to acct; what: the thing charged, for the error. */
static gs_status charge_within(cuda_ctx *c, gs_mem *acct, size_t bytes, size_t limit, const char *what) {
    if (!gs_mem_try_charge(c->dev_acct, bytes, limit)) return over_budget(c, what, bytes);
    gs_mem_charge(acct, bytes);
    return GS_OK;
}

static gs_status charge(cuda_ctx *c, gs_mem *acct, size_t bytes, const char *what) {
    return charge_within(c, acct, bytes, c->budget, what);
}

static void uncharge(cuda_ctx *c, gs_mem *acct, size_t bytes) {
    gs_mem_uncharge(c->dev_acct, bytes);
    gs_mem_uncharge(acct, bytes);
}

/* Frees the digests lde_out left (stream-ordered), if any. */
static void drop_fused(cuda_ctx *c) {
    if (!c->fused.digests) return;
    gs_cuda_buf_free(c->fused.digests, c->stream);
    gs_mem_uncharge(c->dev_acct, c->fused.bytes);
    memset(&c->fused, 0, sizeof c->fused);
}

size_t gs_cuda_spill_min_bytes = (size_t)1 << 20;

/* A buffer within the budget is device memory; a large one (at least
 * gs_cuda_spill_min_bytes) goes out of core when it would leave less free
 * than an eighth of the budget (the scratch of the NTTs of buffers out of
 * core) or than the largest tree so far (the next tree's), or with unheld
 * is left unheld (no memory at all); a smaller one that does not fit fails. */
static gs_status alloc_in(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes, int unheld) {
    cuda_ctx *c = ctx_of(be);
    memset(out, 0, sizeof *out);
    GS_TRY(use_lane(c));
    int large = bytes >= gs_cuda_spill_min_bytes;
    size_t keep = c->budget / 8 > c->tree_bytes ? c->budget / 8 : c->tree_bytes;
    size_t limit = !large ? c->budget : c->budget > keep ? c->budget - keep : 0;
    gs_status s = charge_within(c, acct, bytes, limit, "a buffer");
    if (s == GS_ERR_DEVICE_MEM && large) {
        if (!unheld) GS_TRY(gs_device_spill_alloc(c->dev, &out->ptr, bytes));
        out->bytes = bytes;
        out->host = 1;
        out->unheld = unheld;
        return GS_OK;
    }
    GS_TRY(s);
    s = gs_cuda_buf_alloc(&out->ptr, bytes, c->stream);
    if (s != GS_OK) {
        uncharge(c, acct, bytes);
        return s;
    }
    out->bytes = bytes;
    out->acct = acct;
    return GS_OK;
}

static gs_status cuda_alloc(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes) {
    return alloc_in(be, acct, out, bytes, 0);
}

static gs_status cuda_alloc_unheld(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes) {
    return alloc_in(be, acct, out, bytes, 1);
}

static void cuda_free(gs_backend *be, gs_buf *buf) {
    cuda_ctx *c = ctx_of(be);
    if (buf->unheld) { /* nothing held; leaves hashed for it go too */
        if (!c->fused.lde) drop_fused(c);
        memset(buf, 0, sizeof *buf);
        return;
    }
    if (!buf->ptr) return;
    if (buf->ptr == c->fused.lde) drop_fused(c);
    if (buf->host) {
        (void)gs_cuda_stream_wait(c->stream); /* the device may still read it */
        gs_device_spill_free(c->dev, buf->ptr, buf->bytes);
    } else {
        gs_cuda_buf_free(buf->ptr, c->stream);
        uncharge(c, buf->acct, buf->bytes);
    }
    buf->ptr = NULL;
    buf->bytes = 0;
}

/* ---- out of core: the NTTs of a buffer in host memory run in pieces of
 * columns through device scratch ---- */

typedef struct {
    void *p;
    size_t bytes, cols; /* cols: the columns a piece holds */
} scratch;

/* The device bytes left under the budget. */
static size_t room_left(const cuda_ctx *c) {
    size_t used = gs_mem_current(c->dev_acct);
    return c->budget > used ? c->budget - used : 0;
}

/* Scratch of `bytes` (> 0), charged to the device account until
 * scratch_put; GS_ERR_DEVICE_MEM naming `what` when the room has not got
 * it. */
static gs_status scratch_take(cuda_ctx *c, scratch *sc, size_t bytes, const char *what) {
    memset(sc, 0, sizeof *sc);
    if (!gs_mem_try_charge(c->dev_acct, bytes, c->budget)) return over_budget(c, what, bytes);
    gs_status s = gs_cuda_buf_alloc(&sc->p, bytes, c->stream);
    if (s != GS_OK) {
        gs_mem_uncharge(c->dev_acct, bytes);
        sc->p = NULL;
        return s;
    }
    sc->bytes = bytes;
    return GS_OK;
}

/* Scratch of per_col bytes a column for the most columns (<= want, >= 1)
 * the room left under the device budget holds (scratch_take).
 * GS_ERR_DEVICE_MEM when not one column fits. */
static gs_status scratch_get(cuda_ctx *c, scratch *sc, size_t per_col, size_t want) {
    size_t fit = room_left(c) / per_col, k = fit == 0 ? 1 : fit < want ? fit : want;
    GS_TRY(scratch_take(c, sc, k * per_col, "out-of-core scratch"));
    sc->cols = k;
    return GS_OK;
}

static void scratch_put(cuda_ctx *c, scratch *sc) {
    if (!sc->p) return;
    gs_cuda_buf_free(sc->p, c->stream);
    gs_mem_uncharge(c->dev_acct, sc->bytes);
    sc->p = NULL;
}

/* The columns of a piece: about gs_cuda_extend_piece_bytes of `col` bytes
 * each, at least one, at most cols. */
static size_t piece_cols(size_t col, size_t cols) {
    size_t per = gs_cuda_extend_piece_bytes / col;
    if (per == 0) per = 1;
    return per < cols ? per : cols;
}

static gs_status cuda_upload(gs_backend *be, gs_buf *dst, const void *src, size_t bytes) {
    cuda_ctx *c = ctx_of(be);
    if (bytes > dst->bytes) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    if (dst->host) { /* after the device's work on it, a host copy */
        GS_TRY(gs_cuda_stream_wait(c->stream));
        gs_device_host_copy(dst->ptr, src, bytes);
        return GS_OK;
    }
    size_t t = mark_start(c, "upload");
    return mark_end(c, t, gs_cuda_stage_upload(c->stage, dst->ptr, src, bytes, c->stream));
}

static gs_status cuda_copy(gs_backend *be, gs_buf *dst, size_t dst_off, const gs_buf *src,
                           size_t src_off, size_t n, unsigned log_step) {
    if (n == 0) return GS_OK;
    if (!gs_copy_fits(dst, dst_off, src, src_off, n, log_step)) return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "copy");
    return mark_end(c, t, gs_cuda_every_async((gs_fp *)dst->ptr + dst_off, (const gs_fp *)src->ptr + src_off,
                                              n, log_step, c->stream));
}

/* The inverse NTT of cols columns of 2^log_n at d (device memory), then
 * the coefficients of P(shift y) made P's. */
static gs_status interpolate_on(cuda_ctx *c, uint64_t *d, size_t cols, unsigned log_n, gs_fp shift) {
    gs_status s = gs_cuda_ntt_inverse_batch(d, cols, log_n, c->stream);
    /* Evaluations on shift <w>: the inverse NTT gives the coefficients of
     * P(shift y); coefficient i times shift^-i gives P's. */
    if (s == GS_OK && shift != 1)
        s = gs_cuda_scale_powers(d, cols, (size_t)1 << log_n, gs_fp_inv(shift), c->stream);
    return s;
}

static gs_status cuda_interpolate(gs_backend *be, gs_buf *v, size_t cols, unsigned log_n,
                                  gs_fp shift) {
    cuda_ctx *c = ctx_of(be);
    size_t n = (size_t)1 << log_n, col = n * sizeof(gs_fp);
    if (cols * col > v->bytes || shift == 0) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "interpolate");
    if (!v->host) return mark_end(c, t, interpolate_on(c, v->ptr, cols, log_n, shift));
    scratch sc;
    gs_status s = cols ? scratch_get(c, &sc, col, piece_cols(col, cols)) : GS_OK;
    for (size_t c0 = 0; s == GS_OK && c0 < cols; c0 += sc.cols) {
        size_t k = cols - c0 < sc.cols ? cols - c0 : sc.cols;
        uint64_t *h = (uint64_t *)v->ptr + c0 * n;
        s = gs_cuda_d2d_async(sc.p, h, k * col, c->stream);
        if (s == GS_OK) s = interpolate_on(c, sc.p, k, log_n, shift);
        if (s == GS_OK) s = gs_cuda_d2d_async(h, sc.p, k * col, c->stream);
    }
    if (cols) scratch_put(c, &sc);
    return mark_end(c, t, s);
}

/* Row sponges for lde_out to hash the leaves of plan lp as it extends
 * (Keccak-256 trees that keep every level, one row a leaf: the case the
 * GPU tests cover), charged: 1, with *state and c->fused set; 0 when the
 * plan does not apply or the budget has no room (the commit then reads the
 * matrix back in row pieces). */
static int fuse_begin(cuda_ctx *c, uint64_t **state, const gs_buf *out, size_t cols, unsigned log_size,
                      const gs_leaf_plan *lp) {
    *state = NULL;
    if (!lp || lp->hash != GS_HASH_KECCAK256 || lp->log_rows != log_size || lp->leaf_cols != cols ||
        gs_merkle_skip_for(cols, log_size) != 0)
        return 0;
    size_t sbytes = (size_t)25 * sizeof(uint64_t) << lp->log_rows;
    size_t dbytes = sizeof(gs_digest) << lp->log_rows;
    if (!gs_mem_try_charge(c->dev_acct, sbytes + dbytes, c->budget)) return 0;
    void *st = NULL, *dg = NULL;
    if (gs_cuda_buf_alloc(&st, sbytes, c->stream) != GS_OK ||
        gs_cuda_buf_alloc(&dg, dbytes, c->stream) != GS_OK ||
        gs_cuda_keccak_rows_begin(st, lp->log_rows, c->stream) != GS_OK) {
        gs_cuda_buf_free(st, c->stream), gs_cuda_buf_free(dg, c->stream);
        gs_mem_uncharge(c->dev_acct, sbytes + dbytes);
        return 0;
    }
    drop_fused(c);
    c->fused.lde = out->ptr, c->fused.plan = *lp, c->fused.digests = dg, c->fused.bytes = dbytes;
    *state = st;
    return 1;
}

/* The sponges go; the digests stay for the commit when keep. */
static void fuse_end(cuda_ctx *c, uint64_t *state, const gs_leaf_plan *lp, int keep) {
    gs_cuda_buf_free(state, c->stream);
    gs_mem_uncharge(c->dev_acct, (size_t)25 * sizeof(uint64_t) << lp->log_rows);
    if (!keep) drop_fused(c);
}

/* The extension of cols columns of coefficients on the device (2^log_n
 * each) into `out`, out of core: piece by piece in two scratch buffers
 * taken in turn, each piece's copy to the host on the lane's copy stream
 * beside the next piece's NTTs. With a leaf plan lp that fuse_begin takes,
 * each piece's values also go into the row sponges, and the leaf digests
 * are left in c->fused for the commit; an unheld out then gets no copies
 * (without the sponges it is held after all: out of core, as alloc does).
 * Returns when the copies are done. */
static gs_status lde_out(cuda_ctx *c, gs_buf *out, const uint64_t *coeffs, size_t cols, unsigned log_n,
                         unsigned log_blowup, gs_fp shift, const gs_leaf_plan *lp) {
    size_t n = (size_t)1 << log_n, N = n << log_blowup, col = N * sizeof(gs_fp);
    uint64_t *state = NULL;
    int fuse = fuse_begin(c, &state, out, cols, log_n + log_blowup, lp);
    if (out->unheld && !fuse) {
        GS_TRY(gs_device_spill_alloc(c->dev, &out->ptr, out->bytes));
        out->unheld = 0;
    }
    unsigned pos = 0;
    scratch sc;
    gs_status r = scratch_get(c, &sc, 2 * col, piece_cols(n * sizeof(gs_fp), cols));
    if (r != GS_OK) {
        if (fuse) fuse_end(c, state, lp, 0);
        return r;
    }
    size_t per = sc.cols;
    uint64_t *buf[2] = {sc.p, (uint64_t *)sc.p + per * N};
    void *copies = gs_cuda_stage_copy_stream(c->stage), *done[2] = {NULL, NULL};
    for (size_t c0 = 0, k = 0; r == GS_OK && c0 < cols; c0 += per, k++) {
        int b = (int)(k & 1);
        size_t kk = cols - c0 < per ? cols - c0 : per;
        if (done[b]) r = gs_cuda_stream_wait_mark(c->stream, done[b]); /* its last copy is out */
        if (r == GS_OK)
            r = gs_cuda_lde_coset_from_coeffs(buf[b], coeffs + c0 * n, kk, log_n, log_blowup, shift,
                                              GS_ORDER_NATURAL, c->stream);
        if (r == GS_OK && !out->unheld) {
            r = gs_cuda_stage_copies_follow(c->stage, c->stream);
            if (r == GS_OK) r = gs_cuda_d2d_async((uint64_t *)out->ptr + c0 * N, buf[b], kk * col, copies);
            if (r == GS_OK) r = done[b] ? gs_cuda_mark_record(done[b], copies) : gs_cuda_mark(&done[b], copies);
        }
        if (r == GS_OK && fuse) {
            r = gs_cuda_keccak_rows_absorb(state, buf[b], kk, N, lp->log_rows, pos, c->stream);
            pos = (unsigned)((pos + kk) % 17);
        }
    }
    if (r == GS_OK && fuse)
        r = gs_cuda_keccak_rows_finish(c->fused.digests, state, lp->log_rows, pos, c->stream);
    gs_status w = gs_cuda_stage_wait_copies(c->stage);
    gs_cuda_mark_free(done[0]), gs_cuda_mark_free(done[1]);
    scratch_put(c, &sc);
    if (fuse) fuse_end(c, state, lp, r == GS_OK && w == GS_OK);
    return r != GS_OK ? r : w;
}

static gs_status cuda_lde(gs_backend *be, gs_buf *out, const gs_buf *coeffs, size_t cols,
                          unsigned log_n, unsigned log_blowup, gs_fp shift) {
    size_t n = (size_t)1 << log_n, col = n * sizeof(gs_fp);
    if (log_n + log_blowup > 32 || cols * col > coeffs->bytes || (cols * col) << log_blowup > out->bytes)
        return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "lde");
    if (!out->host && !coeffs->host)
        return mark_end(c, t, gs_cuda_lde_coset_from_coeffs(out->ptr, coeffs->ptr, cols, log_n, log_blowup,
                                                            shift, GS_ORDER_NATURAL, c->stream));
    if (!coeffs->host)
        return mark_end(c, t, cols ? lde_out(c, out, coeffs->ptr, cols, log_n, log_blowup, shift, NULL) : GS_OK);
    /* Coefficients out of core: a piece's coefficients (and its extension,
     * when out is out of core too) through scratch, one piece at a time. */
    size_t out_col = out->host ? col << log_blowup : 0;
    scratch sc;
    gs_status s = cols ? scratch_get(c, &sc, col + out_col, piece_cols(col, cols)) : GS_OK;
    for (size_t c0 = 0; s == GS_OK && c0 < cols; c0 += sc.cols) {
        size_t k = cols - c0 < sc.cols ? cols - c0 : sc.cols;
        uint64_t *tin = sc.p, *tout = tin + sc.cols * n;
        uint64_t *dst = (uint64_t *)out->ptr + (c0 * n << log_blowup);
        s = gs_cuda_d2d_async(tin, (const uint64_t *)coeffs->ptr + c0 * n, k * col, c->stream);
        if (s == GS_OK)
            s = gs_cuda_lde_coset_from_coeffs(out->host ? tout : dst, tin, k, log_n, log_blowup, shift,
                                              GS_ORDER_NATURAL, c->stream);
        if (s == GS_OK && out->host) s = gs_cuda_d2d_async(dst, tout, (k * col) << log_blowup, c->stream);
    }
    if (cols) scratch_put(c, &sc);
    return mark_end(c, t, s);
}

size_t gs_cuda_extend_piece_bytes = (size_t)64 << 20;

/* A packed trace's columns made on the device: the packed bytes uploaded
 * into scratch (pinned when the caller built them in the prover's host
 * memory: one DMA) and expanded into dst by the trace's own kernel.
 * GS_ERR_UNSUPPORTED (the prover expands on the host) without a device
 * expander, for dst out of core, or when the scratch is not in the room
 * left under the budget. */
static gs_status cuda_expand(gs_backend *be, gs_buf *dst, const gs_packed_trace *pk, size_t cols,
                             unsigned log_n) {
    if (!pk || !pk->data || !pk->bytes || ((cols * sizeof(gs_fp)) << log_n) > dst->bytes)
        return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    if (!pk->expand_device || dst->host || pk->bytes > room_left(c)) return GS_ERR_UNSUPPORTED;
    GS_TRY(use_lane(c));
    scratch sc;
    GS_TRY(scratch_take(c, &sc, pk->bytes, "a packed trace"));
    size_t t = mark_start(c, "upload");
    gs_status s = mark_end(c, t, gs_cuda_stage_upload(c->stage, sc.p, pk->data, pk->bytes, c->stream));
    if (s == GS_OK) {
        t = mark_start(c, "expand");
        s = mark_end(c, t, pk->expand_device(sc.p, dst->ptr, log_n, c->stream, pk->ctx) ? GS_ERR_CUDA
                                                                                           : GS_OK);
    }
    scratch_put(c, &sc); /* freed in stream order, after the kernel */
    return s;
}

/* upload, copy, interpolate and lde of the main trace, by pieces of columns
 * (about gs_cuda_extend_piece_bytes of trace each): a piece's upload runs on
 * the lane's copy stream while the lane's stream interpolates and extends
 * the pieces before it, so the trace's transfer (the bus at about 55 GB/s
 * pinned, the staging copies at about 8 GB/s pageable) hides behind the
 * NTTs. The uploads are timed on the copy stream's track. A buffer out of
 * core is written from device scratch: the coefficients' piece (the next
 * upload then waits for the piece before it, which reads the scratch) and
 * the extension's; with the coefficients on the device, the extension out
 * of core comes after all of them (lde_out: its copies then have the copy
 * stream to themselves). */
static gs_status cuda_extend(gs_backend *be, gs_buf *coeffs, gs_buf *lde, gs_buf *evals,
                             const gs_fp *trace, size_t cols, unsigned log_n, unsigned log_blowup,
                             gs_fp shift, const gs_leaf_plan *leaves) {
    size_t n = (size_t)1 << log_n, col = n * sizeof(gs_fp), bytes = cols * col;
    if (log_n + log_blowup > 32 || (!trace && coeffs->host) || shift == 0 || bytes > coeffs->bytes ||
        bytes << log_blowup > lde->bytes || (evals && bytes > evals->bytes) || (lde->unheld && coeffs->host))
        return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    void *copies = gs_cuda_stage_copy_stream(c->stage);
    size_t per = piece_cols(col, cols);
    int after = lde->host && !coeffs->host; /* the extension after the loop: lde_out */
    size_t in_col = coeffs->host ? col : 0, out_col = lde->host && !after ? col << log_blowup : 0;
    scratch sc = {0};
    if (in_col + out_col && cols) {
        GS_TRY(scratch_get(c, &sc, in_col + out_col, per));
        per = sc.cols;
    }
    uint64_t *tin = sc.p, *tout = sc.p ? tin + (coeffs->host ? per * n : 0) : NULL;
    /* The buffers were allocated on the lane's stream; the pieces' uploads
     * then run ahead of the NTTs that wait for them. */
    gs_status r = gs_cuda_stage_copies_follow(c->stage, c->stream);
    for (size_t c0 = 0; r == GS_OK && c0 < cols; c0 += per) {
        size_t k = cols - c0 < per ? cols - c0 : per;
        uint64_t *v = coeffs->host ? tin : (uint64_t *)coeffs->ptr + c0 * n;
        uint64_t *e = (uint64_t *)lde->ptr + (c0 * n << log_blowup);
        if (coeffs->host && c0) r = gs_cuda_stage_copies_follow(c->stage, c->stream);
        size_t t;
        if (trace) { /* else the columns are in coeffs already (expand) */
            t = mark_start_on(c, "upload", copies, c->lane + GS_OBS_COPY_LANES);
            if (r == GS_OK) r = gs_cuda_stage_upload_async(c->stage, v, trace + c0 * n, k * col, c->stream);
            r = mark_end_on(c, t, r, copies);
        }
        if (r == GS_OK && evals) {
            t = mark_start(c, "copy");
            r = mark_end(c, t, gs_cuda_d2d_async((uint64_t *)evals->ptr + c0 * n, v, k * col, c->stream));
        }
        if (r == GS_OK) {
            t = mark_start(c, "interpolate");
            r = gs_cuda_ntt_inverse_batch(v, k, log_n, c->stream);
            if (r == GS_OK && coeffs->host)
                r = gs_cuda_d2d_async((uint64_t *)coeffs->ptr + c0 * n, v, k * col, c->stream);
            r = mark_end(c, t, r);
        }
        if (r == GS_OK && !after) {
            t = mark_start(c, "lde");
            r = gs_cuda_lde_coset_from_coeffs(lde->host ? tout : e, v, k, log_n, log_blowup, shift,
                                              GS_ORDER_NATURAL, c->stream);
            if (r == GS_OK && lde->host) r = gs_cuda_d2d_async(e, tout, (k * col) << log_blowup, c->stream);
            r = mark_end(c, t, r);
        }
    }
    gs_status w = gs_cuda_stage_wait_copies(c->stage); /* the trace may be reused */
    scratch_put(c, &sc);
    if (r == GS_OK && w == GS_OK && after && cols) {
        size_t t = mark_start(c, "lde");
        r = mark_end(c, t, lde_out(c, lde, coeffs->ptr, cols, log_n, log_blowup, shift, leaves));
    }
    return r != GS_OK ? r : w;
}

/* cuda_commit of a matrix out of core: its rows in pieces of about
 * gs_cuda_extend_piece_bytes, two at a time in scratch within the budget
 * (gs_cuda_merkle_commit_pieces). */
static gs_status commit_pieces(cuda_ctx *c, cuda_tree_ref *cc, const gs_buf *m, size_t cols,
                               size_t col_stride, unsigned log_rows, unsigned skip) {
    size_t room = room_left(c), row_bytes = cols * sizeof(gs_fp);
    unsigned lr = log_rows < GS_CUDA_MERKLE_PASS_LOG_ROWS ? log_rows : GS_CUDA_MERKLE_PASS_LOG_ROWS;
    while (lr > skip && (row_bytes << lr) > gs_cuda_extend_piece_bytes) lr--;
    while (lr > skip && 2 * (row_bytes << lr) > room) lr--;
    scratch sc;
    GS_TRY(scratch_take(c, &sc, 2 * (row_bytes << lr), "a Merkle tree's row pieces"));
    size_t t = mark_start(c, "commit");
    uint64_t *buf[2] = {sc.p, (uint64_t *)sc.p + (cols << lr)};
    gs_status s = gs_cuda_merkle_commit_pieces(&cc->tree, cc->hash, m->ptr, cols, col_stride, log_rows,
                                               skip, buf, lr, c->stream, gs_cuda_stage_copy_stream(c->stage));
    scratch_put(c, &sc);
    return mark_end(c, t, s);
}

static gs_status cuda_commit(gs_backend *be, gs_mem *acct, gs_bcommit **out, gs_hash_id hash,
                             const gs_buf *m, size_t cols, size_t col_stride, unsigned log_rows) {
    cuda_ctx *c = ctx_of(be);
    *out = NULL;
    size_t rows = (size_t)1 << log_rows;
    if (cols == 0 || col_stride < rows || ((cols - 1) * col_stride + rows) * sizeof(gs_fp) > m->bytes)
        return GS_ERR_INVALID_ARG;
    /* The leaves lde_out hashed, when this is the commit they were made for. */
    const gs_leaf_plan *fp = &c->fused.plan;
    int fused = c->fused.digests && m->ptr == c->fused.lde && hash == fp->hash && cols == fp->leaf_cols &&
                log_rows == fp->log_rows && col_stride == rows;
    if (m->unheld && !fused) { /* no values to hash */
        drop_fused(c);
        return GS_ERR_INVALID_ARG;
    }
    cuda_tree_ref *cc = malloc(sizeof *cc);
    if (!cc) {
        drop_fused(c);
        return GS_ERR_NOMEM;
    }
    unsigned skip = gs_merkle_skip_for(cols, log_rows);
    *cc = (cuda_tree_ref){.acct = acct, .bytes = gs_cuda_merkle_stored_bytes(log_rows, skip),
                          .hash = hash, .m = *m, .cols = cols, .col_stride = col_stride};
    /* The commit's scratch is charged for the call only. */
    size_t scratch = gs_cuda_merkle_tree_bytes_skip(log_rows, skip) - cc->bytes;
    if (cc->bytes + scratch > c->tree_bytes) c->tree_bytes = cc->bytes + scratch;
    gs_status s = use_lane(c);
    if (s == GS_OK) s = charge(c, acct, cc->bytes + scratch, "a Merkle tree and its scratch");
    if (s == GS_OK && fused && skip == 0) {
        size_t t = mark_start(c, "commit");
        s = mark_end(c, t, gs_cuda_merkle_commit_leaves(&cc->tree, c->fused.digests, log_rows, c->stream));
        uncharge(c, acct, s == GS_OK ? scratch : cc->bytes + scratch);
    } else if (s == GS_OK && !m->host) {
        size_t t = mark_start(c, "commit");
        s = mark_end(c, t, gs_cuda_merkle_commit_skip(&cc->tree, hash, m->ptr, cols, col_stride,
                                                      log_rows, skip, c->stream));
        uncharge(c, acct, s == GS_OK ? scratch : cc->bytes + scratch);
    } else if (s == GS_OK) {
        s = commit_pieces(c, cc, m, cols, col_stride, log_rows, skip);
        uncharge(c, acct, s == GS_OK ? scratch : cc->bytes + scratch);
    }
    drop_fused(c); /* made for this commit, or stale */
    if (s != GS_OK) {
        free(cc);
        return s;
    }
    *out = (gs_bcommit *)cc;
    return GS_OK;
}

/* The 2^cap_log nodes of the stored level depth - cap_log (the root when
 * cap_log is 0), copied back. */
static gs_status cuda_cap(gs_backend *be, const gs_bcommit *c, gs_digest *out, unsigned cap_log) {
    (void)be;
    const gs_cuda_tree *t = ((const cuda_tree_ref *)c)->tree;
    unsigned depth = gs_cuda_merkle_depth(t);
    if (cap_log > depth) return GS_ERR_INVALID_ARG;
    return gs_cuda_merkle_level(t, depth - cap_log, out);
}

/* The stored levels' siblings from the device; below the skip, each
 * query's 2^skip rows are gathered and hashed again on the host. */
static gs_status cuda_open(gs_backend *be, const gs_bcommit *c, gs_digest *paths,
                           const size_t *idx, size_t n) {
    const cuda_tree_ref *cc = (const cuda_tree_ref *)c;
    GS_TRY(gs_cuda_merkle_open(cc->tree, paths, idx, n));
    unsigned skip = gs_cuda_merkle_skip(cc->tree), depth = gs_cuda_merkle_depth(cc->tree);
    if (!skip || !n) return GS_OK;
    size_t block = (size_t)1 << skip;
    size_t *ridx = malloc((n << skip) * sizeof *ridx);
    gs_fp *rows = malloc((n << skip) * cc->cols * sizeof *rows);
    gs_status s = ridx && rows ? GS_OK : GS_ERR_NOMEM;
    for (size_t k = 0; s == GS_OK && k < n; k++)
        for (size_t j = 0; j < block; j++) ridx[(k << skip) + j] = (idx[k] & ~(block - 1)) + j;
    if (s == GS_OK) s = be->iface->gather(be, rows, &cc->m, cc->cols, cc->col_stride, ridx, n << skip);
    for (size_t k = 0; s == GS_OK && k < n; k++)
        gs_merkle_low_path(cc->hash, paths + k * depth, rows + (k << skip) * cc->cols, cc->cols, skip,
                           idx[k] & (block - 1));
    free(ridx), free(rows);
    return s;
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
    if (m->unheld || (cols && (cols - 1) > elems / (col_stride ? col_stride : 1))) return GS_ERR_INVALID_ARG;
    for (size_t k = 0; k < n; k++)
        if (cols && (idx[k] >= col_stride || (cols - 1) * col_stride + idx[k] >= elems))
            return GS_ERR_INVALID_ARG;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    if (m->host) { /* after the device's work on it, read where it lies */
        GS_TRY(gs_cuda_stream_wait(c->stream));
        const gs_fp *h = m->ptr;
        for (size_t k = 0; k < n; k++)
            for (size_t j = 0; j < cols; j++) out[k * cols + j] = h[j * col_stride + idx[k]];
        return GS_OK;
    }
    size_t t = mark_start(c, "gather");
    return mark_end(c, t, gs_cuda_gather_rows(out, m->ptr, cols, col_stride, idx, n, c->stream));
}

/* The rows of an unheld extension from its coefficients: the columns'
 * values at the leaves' points, summed on the device (gs_cuda_eval_points:
 * cols x n 2^fold points x 2^log_n products, 15 G for mix 256 x 2^20's 54
 * queries) instead of reading them where the extension would lie. */
static gs_status cuda_gather_coeffs(gs_backend *be, gs_fp *out, const gs_buf *coeffs, size_t cols,
                                    unsigned log_n, unsigned log_blowup, unsigned fold, gs_fp shift,
                                    const size_t *idx, size_t n) {
    unsigned log_N = log_n + log_blowup;
    if (log_N > 32 || fold > log_N || coeffs->host || coeffs->unheld ||
        (cols && ((size_t)cols << log_n) > coeffs->bytes / sizeof(gs_fp)) || n > ((size_t)1 << 32) >> fold)
        return GS_ERR_INVALID_ARG;
    size_t M = (size_t)1 << (log_N - fold), per = (size_t)1 << fold, pts = n << fold;
    if (pts && cols > SIZE_MAX / sizeof(gs_fp) / pts) return GS_ERR_INVALID_ARG;
    for (size_t k = 0; k < n; k++)
        if (idx[k] >= M) return GS_ERR_INVALID_ARG;
    if (!cols || !n) return GS_OK;
    cuda_ctx *c = ctx_of(be);
    GS_TRY(use_lane(c));
    gs_fp *x = malloc(pts * sizeof *x), *v = malloc(pts * cols * sizeof *v);
    gs_status s = x && v ? GS_OK : GS_ERR_NOMEM;
    gs_fp w = gs_fp_root_of_unity(log_N);
    for (size_t k = 0; s == GS_OK && k < n; k++)
        for (size_t i = 0; i < per; i++) x[k * per + i] = gs_fp_mul(shift, gs_fp_pow(w, idx[k] + i * M));
    if (s == GS_OK) {
        size_t t = mark_start(c, "gather");
        s = mark_end(c, t, gs_cuda_eval_points(v, coeffs->ptr, cols, (size_t)1 << log_n, x, pts, c->stream));
    }
    for (size_t k = 0; s == GS_OK && k < n; k++)
        for (size_t j = 0; j < cols; j++)
            for (size_t i = 0; i < per; i++) out[k * (cols << fold) + (j << fold) + i] = v[(k * per + i) * cols + j];
    free(x), free(v);
    return s;
}

/* The row digests of m on the device (Keccak-256's leaf kernel or
 * Poseidon2's row hash), straight into out when it is device memory, else
 * into a scratch downloaded through the stage; a matrix out of core is
 * hashed on the host where it lies (and uploaded into a device out). The
 * device's Poseidon2 digests are canonical elements: their bytes are the
 * digests' byte form as they are. Returns once the digests are written. */
static gs_status cuda_row_digests(gs_backend *be, gs_buf *out, const gs_buf *m, size_t cols,
                                  size_t col_stride, unsigned log_rows, gs_hash_id hash) {
    cuda_ctx *c = ctx_of(be);
    if (log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    size_t rows = (size_t)1 << log_rows, bytes = rows * sizeof(gs_digest);
    if (m->unheld || !gs_rows_fit(m, cols, col_stride, rows) || out->bytes < bytes) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    if (m->host) {
        GS_TRY(gs_cuda_stream_wait(c->stream));
        if (out->host) return gs_merkle_row_digests(hash, out->ptr, m->ptr, cols, col_stride, log_rows);
        gs_digest *h = malloc(bytes);
        gs_status s = h ? gs_merkle_row_digests(hash, h, m->ptr, cols, col_stride, log_rows) : GS_ERR_NOMEM;
        if (s == GS_OK) s = gs_cuda_stage_upload(c->stage, out->ptr, h, bytes, c->stream);
        free(h);
        return s;
    }
    void *d = out->host ? NULL : out->ptr;
    if (out->host) {
        GS_TRY(charge(c, NULL, bytes, "the rows' leaf digests"));
        gs_status s = gs_cuda_buf_alloc(&d, bytes, c->stream);
        if (s != GS_OK) {
            uncharge(c, NULL, bytes);
            return s;
        }
    }
    size_t t = mark_start(c, "row digests");
    gs_status s = hash == GS_HASH_POSEIDON2
                      ? gs_cuda_poseidon2_hash_rows(d, m->ptr, rows, cols, 1, col_stride, c->stream)
                      : gs_cuda_merkle_hash_leaves(d, m->ptr, cols, col_stride, log_rows, c->stream);
    if (s == GS_OK && out->host) s = gs_cuda_stage_download(c->stage, out->ptr, d, bytes, c->stream);
    /* Done before the round's tree reads them, maybe on another lane's stream. */
    else if (s == GS_OK) s = gs_cuda_stream_wait(c->stream);
    s = mark_end(c, t, s);
    if (out->host) {
        gs_cuda_buf_free(d, c->stream);
        uncharge(c, NULL, bytes);
    }
    return s;
}

/* The shared tree on the device: the digests out of core (or another
 * backend's) uploaded into scratch, the levels below the skip in scratch,
 * the kept levels downloaded into the host tree. Where the device budget
 * has not room for that, the host builds it from the digests (the device's
 * downloaded), the same nodes. */
static gs_status cuda_mixed_build(gs_backend *be, gs_mem *acct, gs_mixed_tree **out, gs_hash_id hash,
                                  const gs_buf *const *rowd, const unsigned *log_rows, uint32_t n,
                                  unsigned skip) {
    cuda_ctx *c = ctx_of(be);
    *out = NULL;
    if (!n) return GS_ERR_INVALID_ARG;
    unsigned depth = 0;
    size_t up = 0; /* device bytes for the host digests */
    for (uint32_t t = 0; t < n; t++) {
        if (log_rows[t] > GS_CUDA_MERKLE_MAX_LOG_ROWS || rowd[t]->bytes >> log_rows[t] < sizeof(gs_digest))
            return GS_ERR_INVALID_ARG;
        if (log_rows[t] > depth) depth = log_rows[t];
        if (rowd[t]->host) up += sizeof(gs_digest) << log_rows[t];
    }
    GS_TRY(use_lane(c));
    gs_mixed_tree *tree = NULL;
    GS_TRY(gs_mixed_alloc(&tree, hash, log_rows, n, skip));
    skip = gs_mixed_skip(tree);
    size_t nodes = ((((size_t)2) << (depth - skip)) - 1) * sizeof(gs_digest);
    size_t low = gs_mixed_build_scratch(depth, skip); /* the levels below the skip */
    size_t need = nodes + low + up;
    /* the digests' addresses: on the device, or host copies of the device's */
    const void **rows = calloc(n, sizeof *rows);
    gs_digest **copies = calloc(n, sizeof *copies);
    gs_status s = rows && copies ? GS_OK : GS_ERR_NOMEM;
    if (s == GS_OK && gs_mem_try_charge(c->dev_acct, need, c->budget)) {
        size_t t = mark_start(c, "mixed tree");
        void *d = NULL;
        s = gs_cuda_buf_alloc(&d, need, c->stream);
        char *p = (char *)d + nodes + low;
        for (uint32_t i = 0; s == GS_OK && i < n; i++) {
            rows[i] = rowd[i]->ptr;
            if (!rowd[i]->host) continue;
            size_t b = sizeof(gs_digest) << log_rows[i];
            s = gs_cuda_stage_upload(c->stage, p, rowd[i]->ptr, b, c->stream);
            rows[i] = p, p += b;
        }
        if (s == GS_OK)
            s = gs_cuda_mixed_build(hash, d, low ? (char *)d + nodes : NULL, rows, log_rows, n, skip, c->stream);
        if (s == GS_OK) s = gs_cuda_stage_download(c->stage, gs_mixed_nodes(tree), d, nodes, c->stream);
        s = mark_end(c, t, s);
        if (d) gs_cuda_buf_free(d, c->stream);
        gs_mem_uncharge(c->dev_acct, need);
    } else if (s == GS_OK) { /* no room on the device: the CPU backend's build, on host copies */
        gs_mixed_free(tree);
        tree = NULL;
        gs_buf *views = calloc(n, sizeof *views);
        const gs_buf **vp = calloc(n, sizeof *vp);
        size_t held = 0;
        if (!views || !vp) s = GS_ERR_NOMEM;
        for (uint32_t i = 0; s == GS_OK && i < n; i++) {
            views[i] = *rowd[i], vp[i] = &views[i];
            if (rowd[i]->host) continue;
            size_t b = sizeof(gs_digest) << log_rows[i];
            if (!(copies[i] = malloc(b))) s = GS_ERR_NOMEM;
            else s = gs_cuda_stage_download(c->stage, copies[i], rowd[i]->ptr, b, c->stream);
            views[i] = (gs_buf){.ptr = copies[i], .bytes = b, .host = 1}, held += copies[i] ? b : 0;
        }
        gs_mem_charge(acct, held);
        gs_backend *cpu = gs_backend_cpu();
        if (s == GS_OK) s = cpu->iface->mixed_build(cpu, acct, &tree, hash, vp, log_rows, n, skip);
        gs_mem_uncharge(acct, held);
        free(views), free(vp);
    }
    for (uint32_t i = 0; copies && i < n; i++) free(copies[i]);
    free(copies), free(rows);
    if (s != GS_OK) gs_mixed_free(tree);
    else *out = tree;
    return s;
}

static gs_status cuda_logup_aux(gs_backend *be, gs_buf *aux, gs_fp3 *sigma, const gs_logup *L,
                                const gs_air *air, const gs_fp *trace, const gs_buf *evals,
                                unsigned log_n, const gs_fp *pub, gs_fp3 z, gs_fp3 alpha) {
    cuda_ctx *c = ctx_of(be);
    size_t trace_bytes = (size_t)gs_air_num_cols(air) * sizeof(gs_fp) << log_n;
    if (aux->bytes < 3 * (size_t)L->aux_cols * ((size_t)1 << log_n) * sizeof(gs_fp) ||
        (evals && evals->bytes < trace_bytes))
        return GS_ERR_INVALID_ARG;
    /* Without the prover's copy, the trace again (the main buffer holds
     * coefficients by now), for the call: charged to the device account only. */
    gs_buf d_trace = {0};
    if (!evals) GS_TRY(cuda_alloc(be, NULL, &d_trace, trace_bytes));
    gs_status s = use_lane(c);
    size_t t = s == GS_OK ? mark_start(c, "aux trace") : SIZE_MAX;
    if (s == GS_OK && !evals)
        s = gs_cuda_stage_upload(c->stage, d_trace.ptr, trace, d_trace.bytes, c->stream);
    if (s == GS_OK)
        s = gs_cuda_logup_aux(aux->ptr, sigma, L, air, evals ? evals->ptr : d_trace.ptr, log_n, pub,
                              z, alpha, c->stream);
    s = mark_end(c, t, s);
    cuda_free(be, &d_trace); /* nothing when the prover's copy was read */
    return s;
}

static gs_status cuda_check_trace(gs_backend *be, uint64_t *bad_row, const gs_buf *evals,
                                  const gs_air *air, unsigned log_n, const gs_fp *pub) {
    cuda_ctx *c = ctx_of(be);
    if (!air || !air->finalized ||
        evals->bytes < ((size_t)gs_air_num_cols(air) << log_n) * sizeof(gs_fp))
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    gs_cuda_air ca = cuda_air(air);
    size_t t = mark_start(c, "trace check");
    return mark_end(c, t, gs_cuda_trace_check(bad_row, &ca, evals->ptr, log_n, pub, c->stream));
}

static gs_status cuda_quotient(gs_backend *be, gs_buf *out, const gs_buf *lde,
                               const gs_buf *aux_lde, const gs_quotient_args *a) {
    cuda_ctx *c = ctx_of(be);
    size_t N = (size_t)1 << (a->log_n + a->log_blowup);
    if (a->log_step > a->log_blowup || out->bytes < 3 * (N >> a->log_step) * sizeof(gs_fp) ||
        lde->bytes < (size_t)gs_air_num_cols(a->air) * N * sizeof(gs_fp) ||
        (a->logup && (!aux_lde || aux_lde->bytes < 3 * (size_t)a->logup->aux_cols * N * sizeof(gs_fp))))
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "quotient");
    const uint64_t *aux = a->logup ? aux_lde->ptr : NULL;
    if (!lde->host && !(aux && aux_lde->host))
        return mark_end(c, t, quotient_on(out->ptr, lde->ptr, aux, a, c->stream, NULL));
    /* Out of core, with the coefficients on the device and no LogUp: the
     * columns made again on sub-cosets of <w_n>, two at a time in scratch,
     * the largest that fit the room (each coset cut in 2^log_sub). */
    size_t n = (size_t)1 << a->log_n, cols = gs_air_num_cols(a->air);
    if (!aux && a->coeffs && !a->coeffs->host && a->coeffs->bytes >= cols * n * sizeof(gs_fp) && cols) {
        unsigned log_sub = 0;
        while (log_sub < a->log_n && 2 * cols * (n >> log_sub) * sizeof(gs_fp) > room_left(c)) log_sub++;
        size_t bytes = 2 * cols * (n >> log_sub) * sizeof(gs_fp);
        scratch sc;
        if (bytes <= room_left(c) && (n >> log_sub) >= 16) { /* else: the row pieces below */
            gs_status s = scratch_take(c, &sc, bytes, "the quotient's sub-cosets");
            if (s == GS_OK) {
                quot_pieces qp = {{sc.p, NULL}, 0, log_sub, NULL};
                s = quotient_on(out->ptr, a->coeffs->ptr, NULL, a, c->stream, &qp);
                scratch_put(c, &sc);
            }
            return mark_end(c, t, s);
        }
    }
    if (lde->unheld) /* no rows to read */
        return mark_end(c, t, over_budget(c, "the quotient's sub-cosets", 32 * cols * sizeof(gs_fp)));
    /* Else rows in pieces of about gs_cuda_extend_piece_bytes, two at a
     * time in scratch within the budget. */
    size_t B = (size_t)1 << a->log_blowup, W = cols;
    if (aux) W += 3 * (size_t)a->logup->aux_cols;
    size_t room = room_left(c), rows = N, least = (size_t)1 << a->log_step, row_bytes = W * sizeof(gs_fp);
    while (rows > least && (rows + B) * row_bytes > gs_cuda_extend_piece_bytes) rows >>= 1;
    while (rows > least && 2 * (rows + B) * row_bytes > room) rows >>= 1;
    scratch sc;
    gs_status s = scratch_take(c, &sc, 2 * (rows + B) * row_bytes, "the quotient's row pieces");
    if (s == GS_OK) {
        quot_pieces qp = {{sc.p, (uint64_t *)sc.p + W * (rows + B)}, rows, 0, gs_cuda_stage_copy_stream(c->stage)};
        s = quotient_on(out->ptr, lde->ptr, aux, a, c->stream, &qp);
        scratch_put(c, &sc);
    }
    return mark_end(c, t, s);
}

static gs_status cuda_eval_at(gs_backend *be, gs_fp3 *out, const gs_buf *coeffs, size_t cols,
                              size_t len, gs_fp3 x) {
    cuda_ctx *c = ctx_of(be);
    if (coeffs->bytes < cols * len * sizeof(gs_fp)) return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "ood eval");
    return mark_end(c, t, gs_cuda_eval_at(out, coeffs->ptr, cols, len, x, c->stream));
}

/* Whether DEEP's inputs hold a's columns and out holds out_rows Fp3 rows. */
static int deep_fits(const gs_buf *out, size_t out_rows, const gs_buf *trace_lde,
                     const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a) {
    size_t N = (size_t)1 << a->log_size, e = sizeof(gs_fp);
    return out->bytes >= 3 * out_rows * e && trace_lde->bytes >= a->cols * N * e &&
           chunk_lde->bytes >= 3 * (size_t)a->chunks * N * e &&
           (!a->aux_cols || (aux_lde && aux_lde->bytes >= 3 * (size_t)a->aux_cols * N * e));
}

/* DEEP over a trace LDE out of core whose coefficients are on the device:
 * sum_c beta^c t_c is linear in the columns, so it is the extension of the
 * same sum of their coefficients, 3 Fp columns made and extended in scratch
 * (gs_cuda_deep_combine) and read in place of the cols x N values the bus
 * would bring back. *ext is then those 3 columns of N (the caller puts sc
 * back); otherwise NULL, with nothing taken. */
static gs_status deep_trace_sum(cuda_ctx *c, scratch *sc, uint64_t **ext, const gs_buf *trace_lde,
                                const gs_deep_args *a) {
    memset(sc, 0, sizeof *sc);
    *ext = NULL;
    int must = trace_lde->unheld; /* no LDE to read back */
    if (!trace_lde->host || !a->coeffs || a->coeffs->host || a->cols == 0 || a->log_blowup > a->log_size)
        return must ? GS_ERR_INVALID_ARG : GS_OK;
    size_t N = (size_t)1 << a->log_size, n = N >> a->log_blowup, bytes = 3 * (n + N) * sizeof(gs_fp);
    if (a->coeffs->bytes < a->cols * n * sizeof(gs_fp)) return GS_ERR_INVALID_ARG;
    if (room_left(c) < bytes) /* the LDE read back, as without coefficients */
        return must ? over_budget(c, "DEEP's trace sum", bytes) : GS_OK;
    GS_TRY(scratch_take(c, sc, bytes, "DEEP's trace sum"));
    uint64_t *co = sc->p;
    gs_status s = gs_cuda_deep_combine(co, a->coeffs->ptr, a->cols, n, a->beta_pows, c->stream);
    if (s == GS_OK)
        s = gs_cuda_lde_coset_from_coeffs(co + 3 * n, co, 3, a->log_size - a->log_blowup, a->log_blowup, a->shift,
                                          GS_ORDER_NATURAL, c->stream);
    if (s != GS_OK) {
        scratch_put(c, sc);
        return s;
    }
    *ext = co + 3 * n;
    return GS_OK;
}

/* cuda_deep (folds 0) and cuda_deep_fold. */
static gs_status deep_on(gs_backend *be, gs_buf *out, const gs_buf *trace_lde, const gs_buf *chunk_lde,
                         const gs_buf *aux_lde, const gs_deep_args *a, unsigned folds, gs_fp3 gamma) {
    cuda_ctx *c = ctx_of(be);
    if (folds > a->log_size ||
        !deep_fits(out, (size_t)1 << (a->log_size - folds), trace_lde, chunk_lde, aux_lde, a))
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "deep");
    scratch sc;
    uint64_t *ext;
    gs_status s = deep_trace_sum(c, &sc, &ext, trace_lde, a);
    gs_cuda_deep_args d = cuda_deep_args(a);
    d.trace_combined = ext != NULL;
    const uint64_t *tr = ext ? ext : trace_lde->ptr, *aux = a->aux_cols ? aux_lde->ptr : NULL;
    if (s == GS_OK)
        s = folds ? gs_cuda_deep_fold(out->ptr, tr, chunk_lde->ptr, aux, &d, folds, gamma, c->stream)
                  : gs_cuda_deep_word(out->ptr, tr, chunk_lde->ptr, aux, &d, c->stream);
    scratch_put(c, &sc);
    return mark_end(c, t, s);
}

static gs_status cuda_deep(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                           const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a) {
    return deep_on(be, out, trace_lde, chunk_lde, aux_lde, a, 0, gs_fp3_zero());
}

static gs_status cuda_deep_fold(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                                const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a,
                                unsigned folds, gs_fp3 gamma) {
    return folds == 0 ? GS_ERR_INVALID_ARG : deep_on(be, out, trace_lde, chunk_lde, aux_lde, a, folds, gamma);
}

static gs_status cuda_fold(gs_backend *be, gs_buf *out, const gs_buf *in, unsigned log_size,
                           unsigned folds, gs_fp shift, gs_fp3 gamma) {
    cuda_ctx *c = ctx_of(be);
    if (folds == 0 || folds > log_size) return GS_ERR_INVALID_ARG;
    size_t M = (size_t)1 << (log_size - folds);
    if (out->bytes / sizeof(gs_fp) / 3 < M || in->bytes / sizeof(gs_fp) / 3 < M << folds)
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(c));
    size_t t = mark_start(c, "fold");
    return mark_end(c, t, gs_cuda_fold(out->ptr, in->ptr, log_size, folds, shift, gamma, c->stream));
}

static gs_status cuda_add_scaled(gs_backend *be, gs_buf *dst, size_t dst_rows, const gs_buf *src,
                                 size_t src_rows, size_t len, gs_fp3 c) {
    cuda_ctx *x = ctx_of(be);
    if (!dst || !src || len > dst_rows || len > src_rows ||
        dst->bytes / sizeof(gs_fp) / 3 < dst_rows || src->bytes / sizeof(gs_fp) / 3 < src_rows)
        return GS_ERR_INVALID_ARG;
    GS_TRY(use_lane(x));
    size_t t = mark_start(x, "add_scaled");
    return mark_end(x, t, gs_cuda_add_scaled(dst->ptr, dst_rows, src->ptr, src_rows, len, c,
                                             x->stream));
}

/* Grinding on the device for 16 bits and more; below, the host's first
 * round of 1 Ki nonces finds it faster than a launch and its copy back. The
 * device search is Keccak-256's pow hash: a Poseidon2 transcript grinds on
 * the host (the same smallest nonce, so the same proof). */
static gs_status cuda_grind(gs_backend *be, gs_transcript *t, unsigned bits, uint64_t *nonce) {
    cuda_ctx *c = ctx_of(be);
    if (bits < 16 || t->id != GS_HASH_KECCAK256) return gs_transcript_grind(t, bits, nonce);
    GS_TRY(use_lane(c));
    size_t m = mark_start(c, "grind");
    return mark_end(c, m, gs_cuda_grind(t, bits, nonce, c->stream));
}

static void cuda_destroy(gs_backend *be) {
    if (!be) return;
    cuda_ctx *c = ctx_of(be);
    drop_fused(c);
    gs_device_busy_add(c->dev, c->marks, c->n_marks);
    free(c->marks);
    free(c);
    free(be);
}

static const gs_backend_iface cuda_iface = {
    .name = "cuda",
    .keeps_evals = 1,
    .alloc = cuda_alloc,
    .alloc_unheld = cuda_alloc_unheld,
    .free = cuda_free,
    .upload = cuda_upload,
    .copy = cuda_copy,
    .interpolate = cuda_interpolate,
    .lde = cuda_lde,
    .extend = cuda_extend,
    .expand = cuda_expand,
    .deep_fold = cuda_deep_fold,
    .check_trace = cuda_check_trace,
    .commit = cuda_commit,
    .cap = cuda_cap,
    .open = cuda_open,
    .commit_free = cuda_commit_free,
    .gather = cuda_gather,
    .gather_coeffs = cuda_gather_coeffs,
    .row_digests = cuda_row_digests,
    .mixed_build = cuda_mixed_build,
    .logup_aux = cuda_logup_aux,
    .quotient = cuda_quotient,
    .eval_at = cuda_eval_at,
    .deep = cuda_deep,
    .fold = cuda_fold,
    .add_scaled = cuda_add_scaled,
    .grind = cuda_grind,
    .destroy = cuda_destroy,
};

gs_status gs_backend_cuda_new(gs_backend **out, gs_device *dev, int32_t table) {
    *out = NULL;
    if (!dev || gs_device_kind_of(dev) != GS_DEVICE_CUDA) return GS_ERR_INVALID_ARG;
    gs_backend *be = calloc(1, sizeof *be);
    cuda_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be), free(c);
        return GS_ERR_NOMEM;
    }
    c->dev = dev;
    c->table = table < 0 ? -1 : table;
    c->dev_acct = gs_device_account(dev);
    c->budget = gs_device_budget(dev);
    be->iface = &cuda_iface;
    be->ctx = c;
    *out = be;
    return GS_OK;
}
