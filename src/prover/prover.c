/* The prover's rounds, written once against the backend interface, and
 * gs_prover_prove for one table on a context (multi.c drives the same rounds
 * for many tables; context.c makes the contexts and the one-shot wrappers).
 * Rounds (docs/protocol.md, "Transcript schedule"):
 *   statement -> trace LDE + commit -> [with buses: aux trace LDE + commit,
 *   bus sum] -> alpha -> quotient over the LDE, split into chunks, chunk LDE
 *   + commit -> z -> trace (and aux) at z and z w, chunks at z -> beta -> DEEP
 *   word -> FRI layers (commit, gamma, fold) -> final polynomial -> grinding
 *   -> queries -> openings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "air/ood.h"
#include "backend/backend.h"
#include "cuda/device.h"
#include "gstark/cuda.h"
#include "gstark/parallel.h"
#include "gstark/prover.h"
#include "proof/shape.h"
#include "prover/prover_internal.h"
#include "util/pages.h"

gs_prover_ood_hook gs_prover_debug_ood = NULL;


double gs_prover_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A phase of one table: its span on the timeline, when one is kept, and its
 * seconds for the stats. Both come from the span's own clock reads where
 * there is a span, so --json's phase times and the timeline's spans agree
 * exactly (a thread descheduled between two separate clock reads, as on a
 * loaded machine, once made them differ by milliseconds). */
typedef struct {
    gs_obs *obs;
    int64_t span;
    double t0;
} phase;

static phase phase_begin(const prover_state *st, const char *name) {
    phase ph = {st->obs, -1, gs_prover_now()};
    ph.span = gs_obs_begin(st->obs, name, st->index, (uint64_t)1 << st->s.log_n, st->s.cols);
    return ph;
}

static double phase_end(phase *ph, uint64_t bytes) {
    if (ph->span < 0) return gs_prover_now() - ph->t0;
    gs_obs_end(ph->obs, ph->span, bytes);
    gs_obs_span sp;
    if (gs_obs_span_get(ph->obs, ph->span, &sp) != GS_OK) return gs_prover_now() - ph->t0;
    return 1e-9 * (double)(sp.end_ns - sp.start_ns);
}

/* Frees every buffer and tree the state holds through its backend. */
static void release_buffers(prover_state *st) {
    gs_backend *be = st->be;
    gs_buf *bufs[] = {&st->coeffs, &st->lde, &st->quot, &st->chunk_coeffs, &st->chunk_lde,
                      &st->aux, &st->aux_lde, &st->evals};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->ptr || bufs[i]->unheld) be->iface->free(be, bufs[i]);
    gs_bcommit **trees[] = {&st->trace_c, &st->chunk_c, &st->aux_c};
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        if (*trees[i]) be->iface->commit_free(be, *trees[i]);
        *trees[i] = NULL;
    }
    for (unsigned i = 0; i < 3; i++) gs_prover_rowd_free(st, i);
    for (uint32_t l = 0; st->layers && l <= st->s.layers; l++)
        if (st->layers[l].ptr) be->iface->free(be, &st->layers[l]);
    for (uint32_t l = 0; st->layer_c && l < st->s.layers; l++) {
        if (st->layer_c[l]) be->iface->commit_free(be, st->layer_c[l]);
        st->layer_c[l] = NULL;
    }
}

/* Frees everything the state holds and zeroes it: a second call is a no-op. */
void gs_prover_state_free(prover_state *st) {
    gs_backend *be = st->be;
    if (!be) return;
    release_buffers(st);
    be->iface->destroy(be);
    gs_logup_free(&st->L);
    gs_pages_free(st->expanded);
    free(st->layers);
    free(st->layer_c);
    gs_mem_free(st->mem);
    memset(st, 0, sizeof *st);
}

/* After the failure r of a device stage: if the table may move to the CPU,
 * frees what it holds on the device, switches it to the CPU backend and
 * returns 1; else 0 (r stands). */
static int fall_back(prover_state *st, gs_status r) {
    gs_backend *cpu = gs_backend_cpu();
    if (gs_status_is_device(r) && st->be != cpu && !st->device_error[0])
        snprintf(st->device_error, sizeof st->device_error, "%s",
                 r == GS_ERR_CUDA || r == GS_ERR_DEVICE_MEM ? gs_cuda_last_error() : gs_status_str(r));
    if (st->be == cpu || !gs_device_may_fall_back(st->dev, r)) return 0;
    release_buffers(st);
    st->be->iface->destroy(st->be);
    st->be = cpu;
    st->fallbacks++;
    gs_obs_count_fallback(st->obs);
    return 1;
}

void gs_prover_drop_main(prover_state *st) {
    gs_backend *be = st->be;
    if (st->coeffs.ptr) be->iface->free(be, &st->coeffs);
    if (st->evals.ptr) be->iface->free(be, &st->evals);
    if (st->lde.ptr || st->lde.unheld) be->iface->free(be, &st->lde);
    if (st->trace_c) be->iface->commit_free(be, st->trace_c);
    st->trace_c = NULL;
}

static gs_status alloc_fp(prover_state *st, gs_buf *b, size_t elems) {
    return st->be->iface->alloc(st->be, st->mem, b, elems * sizeof(gs_fp));
}

/* Allocates the sub-proof's arrays from its shape. */
static gs_status table_alloc(gs_table_proof *t, const gs_shape *s) {
    size_t Q = s->queries;
    t->num_cols = s->cols;
    t->num_chunks = s->chunks;
    t->num_layers = s->layers;
    t->final_len = s->final_len;
    t->num_queries = s->queries;
    t->log_lde = s->log_size;
    t->fri_row_len = (uint32_t)s->fri_row_len;
    t->fri_path_len = (uint32_t)s->fri_path_len;
    t->cap_height = s->cap_height;
    if (s->cap_height && !(t->caps = calloc(gs_shape_cap_len(s), sizeof(gs_digest)))) return GS_ERR_NOMEM;
    t->ood_cur = calloc(s->cols, sizeof(gs_fp3));
    t->ood_next = calloc(s->cols, sizeof(gs_fp3));
    t->ood_chunks = calloc(s->chunks, sizeof(gs_fp3));
    /* A table of a shared-FRI proof (final_len 0) has no FRI part. */
    int own_fri = s->final_len != 0;
    if (own_fri) {
        t->fri_roots = calloc(s->layers + 1, sizeof(gs_digest));
        t->final_poly = calloc(s->final_len, sizeof(gs_fp3));
        t->fri_rows = calloc(Q * s->fri_row_len + 1, sizeof(gs_fp));
        t->fri_paths = calloc(Q * s->fri_path_len + 1, sizeof(gs_digest));
    }
    /* With shared trees the paths are the shared FRI part's: none here. */
    int paths = !s->shared_trees;
    t->trace_rows = calloc(Q * gs_lde_leaf_width(s, s->cols), sizeof(gs_fp));
    if (paths) t->trace_paths = calloc(Q * s->lde_path_len + 1, sizeof(gs_digest));
    t->chunk_rows = calloc(Q * gs_lde_leaf_width(s, 3 * (size_t)s->chunks), sizeof(gs_fp));
    if (paths) t->chunk_paths = calloc(Q * s->lde_path_len + 1, sizeof(gs_digest));
    t->query_pos = calloc(Q, sizeof(uint32_t));
    t->aux_cols = s->aux;
    if (s->aux) {
        t->ood_aux_cur = calloc(s->aux, sizeof(gs_fp3));
        t->ood_aux_next = calloc(s->aux, sizeof(gs_fp3));
        t->aux_rows = calloc(Q * gs_lde_leaf_width(s, 3 * (size_t)s->aux), sizeof(gs_fp));
        if (paths) t->aux_paths = calloc(Q * s->lde_path_len + 1, sizeof(gs_digest));
        if (!t->ood_aux_cur || !t->ood_aux_next || !t->aux_rows || (paths && !t->aux_paths)) return GS_ERR_NOMEM;
    }
    if (!t->ood_cur || !t->ood_next || !t->ood_chunks || !t->trace_rows || (paths && !t->trace_paths) ||
        !t->chunk_rows || (paths && !t->chunk_paths) || !t->query_pos ||
        (own_fri && (!t->fri_roots || !t->final_poly || !t->fri_rows || !t->fri_paths)))
        return GS_ERR_NOMEM;
    return GS_OK;
}

/* Tree `tree`'s cap (its root when the cap height is 0) into the sub-proof. */
static gs_status take_cap(prover_state *st, gs_table_proof *t, const gs_bcommit *c, unsigned tree) {
    const gs_shape *s = &st->s;
    if (s->shared_trees && tree < GS_TREE_FRI) return GS_OK; /* the proof's shared tree holds it */
    return st->be->iface->cap(st->be, c, gs_table_cap(t, s, tree),
                              gs_cap_log(s, gs_tree_depth(s, tree)));
}

/* The paths of leaves idx[0..n) of tree c (of depth `depth`) cut below its
 * cap: out[k * len .. + len), len = depth - its cap height. */
static gs_status open_paths(prover_state *st, const gs_bcommit *c, unsigned depth, gs_digest *out,
                            const size_t *idx, size_t n) {
    gs_backend *be = st->be;
    unsigned len = depth - gs_cap_log(&st->s, depth);
    if (len == depth) return be->iface->open(be, c, out, idx, n);
    gs_digest *full = malloc((n * depth + 1) * sizeof *full);
    if (!full) return GS_ERR_NOMEM;
    gs_status r = be->iface->open(be, c, full, idx, n);
    for (size_t k = 0; r == GS_OK && k < n; k++)
        memcpy(out + k * len, full + k * depth, len * sizeof *out);
    free(full);
    return r;
}

/* Opens leaves idx[0..n) of the trace, chunk or aux tree c over the LDE
 * matrix m of `cols` columns: their rows (gs_lde_leaf_width elements each)
 * into rows, their paths into paths. */
static gs_status open_lde(prover_state *st, const gs_bcommit *c, const gs_buf *m, size_t cols,
                          gs_fp *rows, gs_digest *paths, const size_t *idx, size_t n) {
    const gs_shape *s = &st->s;
    if (m->unheld) /* the trace's, from the coefficients kept for it (commit_main's shift) */
        GS_TRY(st->be->iface->gather_coeffs(st->be, rows, &st->coeffs, cols, s->log_n, s->log_blowup,
                                            s->lde_fold, GS_FP_GENERATOR, idx, n));
    else
        GS_TRY(st->be->iface->gather(st->be, rows, m, gs_lde_leaf_width(s, cols),
                                     (size_t)1 << s->lde_depth, idx, n));
    if (s->shared_trees) return GS_OK; /* the paths are the shared trees' */
    return open_paths(st, c, s->lde_depth, paths, idx, n);
}

/* The openings for the drawn query positions: the trace, chunk and aux
 * trees' leaves q mod 2^lde_depth (the row q, or with coset leaves the
 * rows of its folding coset), and at each committed FRI layer l the leaf
 * q mod 2^(log N_l - a_l) (gs_fri_log_size, gs_fri_folds); every path
 * stops below its tree's cap. */
gs_status gs_prover_open_queries(prover_state *st, gs_table_proof *t, const size_t *qs) {
    const gs_shape *s = &st->s;
    size_t Q = s->queries, M = (size_t)1 << s->lde_depth;
    size_t *leaf = malloc((Q + 1) * sizeof *leaf);
    if (!leaf) return GS_ERR_NOMEM;
    for (size_t k = 0; k < Q; k++) t->query_pos[k] = (uint32_t)qs[k], leaf[k] = qs[k] & (M - 1);
    gs_status r = open_lde(st, st->trace_c, &st->lde, s->cols, t->trace_rows, t->trace_paths, leaf, Q);
    if (r == GS_OK)
        r = open_lde(st, st->chunk_c, &st->chunk_lde, 3 * (size_t)s->chunks, t->chunk_rows,
                     t->chunk_paths, leaf, Q);
    if (r == GS_OK && s->aux)
        r = open_lde(st, st->aux_c, &st->aux_lde, 3 * (size_t)s->aux, t->aux_rows, t->aux_paths, leaf, Q);
    if (r != GS_OK || s->layers == s->fri_first) {
        free(leaf);
        return r;
    }
    gs_backend *be = st->be;
    gs_fp *rows = malloc(Q * ((size_t)3 << s->log_arity) * sizeof *rows);
    gs_digest *paths = malloc(Q * s->log_size * sizeof *paths);
    r = rows && paths ? GS_OK : GS_ERR_NOMEM;
    size_t path_off = 0, row_off = 0;
    for (uint32_t l = s->fri_first; r == GS_OK && l < s->layers; l++) {
        unsigned depth = gs_fri_depth(s, l), len = depth - gs_cap_log(s, depth);
        size_t width = (size_t)3 << gs_fri_folds(s, l), leaves = (size_t)1 << depth;
        for (size_t k = 0; k < Q; k++) leaf[k] = qs[k] & (leaves - 1);
        r = be->iface->gather(be, rows, &st->layers[l], width, leaves, leaf, Q);
        if (r == GS_OK) r = open_paths(st, st->layer_c[l], depth, paths, leaf, Q);
        for (size_t k = 0; r == GS_OK && k < Q; k++) {
            memcpy(t->fri_rows + k * s->fri_row_len + row_off, rows + k * width, width * sizeof(gs_fp));
            memcpy(t->fri_paths + k * s->fri_path_len + path_off, paths + k * len,
                   len * sizeof(gs_digest));
        }
        path_off += len, row_off += width;
    }
    free(leaf), free(rows), free(paths);
    return r;
}

/* ---- packed traces (gstark/prover.h): their host columns made only where
 * something needs them on the host ---- */

typedef struct {
    const gs_packed_trace *pk;
    gs_fp *out;
    size_t n;
} expand_job;

static void expand_rows(void *ctx, size_t begin, size_t end) {
    const expand_job *j = ctx;
    j->pk->expand(j->pk->data, j->out + begin, j->n, begin, end, j->pk->ctx);
}

void gs_packed_trace_expand(const gs_packed_trace *pk, gs_fp *out, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    expand_job j = {pk, out, n};
    gs_parallel_for(n, (size_t)1 << 14, expand_rows, &j);
}

/* Sets st->trace: a packed trace's columns expanded on the host, once. */
static gs_status host_trace(prover_state *st) {
    if (st->trace) return GS_OK;
    size_t n = (size_t)1 << st->s.log_n;
    if (!(st->expanded = gs_pages_alloc(st->s.cols * n * sizeof(gs_fp)))) return GS_ERR_NOMEM;
    gs_packed_trace_expand(st->packed, st->expanded, st->s.log_n);
    st->trace = st->expanded;
    return GS_OK;
}

/* The main trace's columns into dst, where upload puts them: a packed
 * trace not expanded on the host is made there by the backend (*made = 1)
 * or, where it cannot, expanded on the host (*made = 0, st->trace set). */
static gs_status expand_into(prover_state *st, gs_buf *dst, int *made) {
    *made = 0;
    if (st->trace) return GS_OK;
    gs_backend *be = st->be;
    gs_status r = be->iface->expand ? be->iface->expand(be, dst, st->packed, st->s.cols, st->s.log_n)
                                    : GS_ERR_UNSUPPORTED;
    if (r != GS_ERR_UNSUPPORTED) {
        *made = r == GS_OK;
        return r;
    }
    return host_trace(st);
}

/* Upload of the main trace, or its columns made in dst (expand_into). */
static gs_status put_trace(prover_state *st, gs_buf *dst) {
    int made;
    GS_TRY(expand_into(st, dst, &made));
    if (made) return GS_OK;
    size_t bytes = st->s.cols * ((size_t)1 << st->s.log_n) * sizeof(gs_fp);
    return st->be->iface->upload(st->be, dst, st->trace, bytes);
}

/* One cell of a packed trace, for the boundary check: its row expanded. */
static gs_fp packed_cell(const void *ctx, uint32_t col, uint64_t row, unsigned log_n) {
    (void)log_n;
    const prover_state *st = ctx;
    gs_fp v[GS_AIR_MAX_COLS];
    st->packed->expand(st->packed->data, v, 1, row, row + 1, st->packed->ctx);
    return v[col];
}

/* Check mode where the backend checks on its side (CUDA): the transitions
 * on the uploaded evaluations there (st->evals, or the trace in place before
 * its extension), the boundaries
 * here. (A table moved to the CPU before it was checked is checked on the
 * host in full, by commit_main.) */
static gs_status check_main(prover_state *st, const gs_buf *evals) {
    gs_backend *be = st->be;
    unsigned log_n = st->s.log_n;
    uint64_t bad = 0;
    GS_TRY(be->iface->check_trace(be, &bad, evals, st->air, log_n, st->pub));
    if (bad != UINT64_MAX) return GS_ERR_AIR_UNSATISFIED;
    if (st->trace) return gs_air_check_boundaries(st->air, st->trace, log_n, st->pub, NULL, NULL);
    return gs_air_check_boundaries_by(st->air, packed_cell, st, log_n, st->pub, NULL, NULL);
}

void gs_prover_rowd_free(prover_state *st, unsigned tree) {
    if (st->rowd[tree].ptr) st->be->iface->free(st->be, &st->rowd[tree]);
}

/* Commits the LDE matrix m of `cols` columns (column stride N) of tree
 * `tree` (GS_TREE_TRACE, _CHUNK or _AUX): one row a leaf, or with coset
 * leaves 2^lde_fold rows a leaf, which is the same memory read as cols <<
 * lde_fold columns of 2^lde_depth rows. With shared trees the table's rows
 * go into the proof's tree of that round (multi.c builds it): their leaf
 * digests into st->rowd[tree] (the backend's row_digests). */
static gs_status commit_lde(prover_state *st, unsigned tree, const gs_buf *m, size_t cols) {
    const gs_shape *s = &st->s;
    size_t N = (size_t)1 << s->lde_depth;
    if (s->shared_trees) {
        gs_prover_rowd_free(st, tree);
        if (!st->be->iface->row_digests) return GS_ERR_UNSUPPORTED;
        GS_TRY(st->be->iface->alloc(st->be, st->mem, &st->rowd[tree], N * sizeof(gs_digest)));
        return st->be->iface->row_digests(st->be, &st->rowd[tree], m, cols, N, s->lde_depth, s->hash);
    }
    gs_bcommit **c = tree == GS_TREE_TRACE ? &st->trace_c : tree == GS_TREE_CHUNK ? &st->chunk_c : &st->aux_c;
    return st->be->iface->commit(st->be, st->mem, c, s->hash, m, gs_lde_leaf_width(s, cols), N, s->lde_depth);
}

/* Main trace: interpolate, extend, commit. A bus table on a backend that
 * keeps the trace away from the host keeps its evaluations for the aux
 * trace; a check on the backend's side reads them too (so the backend may
 * interpolate while it uploads: extend), and they go once checked unless
 * kept. */
static gs_status commit_main(prover_state *st, gs_table_proof *t, gs_fp shift) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    size_t n = (size_t)1 << s->log_n, N = (size_t)1 << s->log_size;
    int keep = s->aux && be->iface->keeps_evals && !st->lean;
    int dev_check = st->check && be->iface->check_trace;
    if (st->check && !dev_check) {
        GS_TRY(host_trace(st));
        GS_TRY(gs_air_check_trace(st->air, st->trace, s->log_n, st->pub, NULL, NULL));
        st->check = 0;
    }
    GS_TRY(alloc_fp(st, &st->coeffs, s->cols * n));
    /* An LDE that would go out of core may be left unheld (alloc_unheld)
     * when nothing reads it but the commit (its leaves hashed as it is
     * made), the quotient and DEEP from the coefficients (no LogUp) and the
     * openings, which make its rows from the coefficients, kept to then. */
    int unheld_ok = be->iface->alloc_unheld && be->iface->gather_coeffs && be->iface->extend && !keep &&
                    !s->aux && !s->shared_trees && !st->lean && !st->coeffs.host;
    if (unheld_ok)
        GS_TRY(be->iface->alloc_unheld(be, st->mem, &st->lde, s->cols * N * sizeof(gs_fp)));
    else
        GS_TRY(alloc_fp(st, &st->lde, s->cols * N));
    /* With the LDE out of core and the coefficients not (the device short
     * of room), a check that nothing else needs the evaluations for runs on
     * the uploaded trace in place, before the extension: no copy of it is
     * made (it would go out of core too, over the bus and back). */
    int check_first = dev_check && !keep && st->lde.host && !st->coeffs.host && be->iface->extend;
    if (keep || (dev_check && !check_first)) GS_TRY(alloc_fp(st, &st->evals, s->cols * n));
    if (be->iface->extend) {
        gs_leaf_plan plan = {s->hash, gs_lde_leaf_width(s, s->cols), s->lde_depth};
        int made;
        GS_TRY(expand_into(st, &st->coeffs, &made));
        if (check_first) {
            if (!made) GS_TRY(put_trace(st, &st->coeffs));
            made = 1; /* the columns are in coeffs: the extension takes them there */
            GS_TRY(check_main(st, &st->coeffs));
            dev_check = st->check = 0;
        }
        /* (No leaf plan with shared trees: no tree of the table's own; row_digests hashes the rows.) */
        GS_TRY(be->iface->extend(be, &st->coeffs, &st->lde, st->evals.ptr ? &st->evals : NULL,
                                 made ? NULL : st->trace, s->cols, s->log_n, s->log_blowup, shift,
                                 s->shared_trees ? NULL : &plan));
    } else {
        GS_TRY(put_trace(st, &st->coeffs));
        if (st->evals.ptr) GS_TRY(be->iface->copy(be, &st->evals, 0, &st->coeffs, 0, s->cols * n, 0));
        GS_TRY(be->iface->interpolate(be, &st->coeffs, s->cols, s->log_n, 1));
        GS_TRY(be->iface->lde(be, &st->lde, &st->coeffs, s->cols, s->log_n, s->log_blowup, shift));
    }
    if (dev_check) {
        GS_TRY(check_main(st, &st->evals));
        st->check = 0;
    }
    if (!keep) be->iface->free(be, &st->evals);
    /* Lean: made again for the out-of-domain values; with eval_values_at
     * those come from the LDE and the coefficients are not needed again. */
    if (st->lean || be->iface->eval_values_at) be->iface->free(be, &st->coeffs);
    GS_TRY(commit_lde(st, GS_TREE_TRACE, &st->lde, s->cols));
    return take_cap(st, t, st->trace_c, GS_TREE_TRACE);
}

/* LogUp aux trace: build, interpolate, extend, commit. */
static gs_status round_aux(prover_state *st, gs_table_proof *t, const bus_challenges *bc,
                           gs_fp shift) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    size_t n = (size_t)1 << s->log_n, N = (size_t)1 << s->log_size, A3 = 3 * (size_t)s->aux;
    GS_TRY(alloc_fp(st, &st->aux, A3 * n));
    GS_TRY(alloc_fp(st, &st->aux_lde, A3 * N));
    if (!st->evals.ptr) GS_TRY(host_trace(st)); /* logup_aux reads the host's */
    GS_TRY(be->iface->logup_aux(be, &st->aux, &t->bus_sum, &st->L, st->air, st->trace,
                                st->evals.ptr ? &st->evals : NULL, s->log_n, st->pub, bc->z,
                                bc->alpha));
    if (st->evals.ptr) be->iface->free(be, &st->evals);
    GS_TRY(be->iface->interpolate(be, &st->aux, A3, s->log_n, 1));
    GS_TRY(be->iface->lde(be, &st->aux_lde, &st->aux, A3, s->log_n, s->log_blowup, shift));
    if (be->iface->eval_values_at) be->iface->free(be, &st->aux); /* round_ood reads the LDE */
    GS_TRY(commit_lde(st, GS_TREE_AUX, &st->aux_lde, A3));
    return take_cap(st, t, st->aux_c, GS_TREE_AUX);
}

/* Quotient over the LDE domain, its coefficients, the chunks. */
static gs_status round_quotient(prover_state *st, gs_table_proof *t, const gs_air *air,
                                const gs_fp *pub, gs_fp3 alpha, gs_fp shift,
                                const bus_challenges *bc) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    size_t n = (size_t)1 << s->log_n, N = (size_t)1 << s->log_size;
    uint32_t nt = gs_air_num_transitions(air), nb = gs_air_num_boundaries(air);
    uint32_t nl = s->aux ? st->L.n_groups : 0; /* one per group, the last also the running sum's */
    gs_fp3 *alpha_pows = malloc((nt + nb + nl + 1) * sizeof *alpha_pows);
    gs_fp3 bus_pows[GS_AIR_MAX_TUPLE + 1];
    uint32_t *bcols = malloc((nb + 1) * sizeof *bcols);
    uint64_t *brows = malloc((nb + 1) * sizeof *brows);
    gs_fp *bvals = malloc((nb + 1) * sizeof *bvals);
    gs_status r = alpha_pows && bcols && brows && bvals ? GS_OK : GS_ERR_NOMEM;
    if (r == GS_OK) {
        gs_fp3_powers(alpha_pows, alpha, nt + nb + nl);
        if (bc) gs_fp3_powers(bus_pows, bc->alpha, GS_AIR_MAX_TUPLE + 1);
        r = gs_air_boundary_values(air, bvals, pub);
    }
    for (uint32_t i = 0; r == GS_OK && i < nb; i++)
        r = gs_air_boundary_at(air, i, s->log_n, &bcols[i], &brows[i]);
    /* K chunks: Q has degree < K n, so its values on a coset of K' n points
     * (K' = K rounded up to a power of 2) determine it: every 2^log_step-th
     * point of D, log_step = log B - log K'. One chunk takes the shortcut
     * below instead, with all N values. */
    unsigned log_k = 0;
    while (((uint32_t)1 << log_k) < s->chunks) log_k++;
    unsigned log_step = s->chunks == 1 || log_k > s->log_blowup ? 0 : s->log_blowup - log_k;
    size_t NQ = N >> log_step;
    gs_quotient_args qa = {air, pub, s->log_n, s->log_blowup, log_step, shift, alpha_pows, bcols, brows, bvals,
                           s->aux ? &st->L : NULL, bc ? bc->z : gs_fp3_zero(), t->bus_sum,
                           bus_pows, st->coeffs.ptr ? &st->coeffs : NULL};
    if (r == GS_OK) r = alloc_fp(st, &st->quot, 3 * NQ);
    if (r == GS_OK) r = be->iface->quotient(be, &st->quot, &st->lde, s->aux ? &st->aux_lde : NULL, &qa);
    if (r == GS_OK && s->chunks == 1) {
        /* One chunk: the quotient itself, of degree < n (for a trace that
         * satisfies the AIR), so its values are its chunk's LDE as they are,
         * the same values as the general path below, and its value at z is
         * the composition there (round_ood): no coefficients needed. */
        st->chunk_lde = st->quot;
        st->quot = (gs_buf){0};
    } else {
        if (r == GS_OK) r = be->iface->interpolate(be, &st->quot, 3, s->log_size - log_step, shift);
        /* Chunk j's component i: coefficients [j n, (j + 1) n) of component i. */
        if (r == GS_OK) r = alloc_fp(st, &st->chunk_coeffs, 3 * s->chunks * n);
        for (uint32_t j = 0; r == GS_OK && j < s->chunks; j++)
            for (uint32_t i = 0; r == GS_OK && i < 3; i++)
                r = be->iface->copy(be, &st->chunk_coeffs, (3 * j + i) * n, &st->quot, i * NQ + j * n, n, 0);
        if (r == GS_OK) be->iface->free(be, &st->quot);
        if (r == GS_OK) r = alloc_fp(st, &st->chunk_lde, 3 * s->chunks * N);
        if (r == GS_OK)
            r = be->iface->lde(be, &st->chunk_lde, &st->chunk_coeffs, 3 * s->chunks, s->log_n,
                               s->log_blowup, shift);
        if (r == GS_OK && be->iface->eval_values_at) be->iface->free(be, &st->chunk_coeffs);
    }
    if (r == GS_OK) r = commit_lde(st, GS_TREE_CHUNK, &st->chunk_lde, 3 * (size_t)s->chunks);
    if (r == GS_OK) r = take_cap(st, t, st->chunk_c, GS_TREE_CHUNK);
    free(alpha_pows), free(bcols), free(brows), free(bvals);
    return r;
}

/* Values of Fp3 columns from their three components' values:
 * out[j] = parts[3j] + w parts[3j+1] + w^2 parts[3j+2]. */
static void fp3_columns(gs_fp3 *out, const gs_fp3 *parts, uint32_t n) {
    gs_fp3 w = gs_fp3_make(0, 1, 0), w2 = gs_fp3_make(0, 0, 1);
    for (uint32_t j = 0; j < n; j++)
        out[j] = gs_fp3_add(parts[3 * j], gs_fp3_add(gs_fp3_mul(w, parts[3 * j + 1]),
                                                     gs_fp3_mul(w2, parts[3 * j + 2])));
}

/* The out-of-domain values from the LDEs' every B-th rows, the coset shift
 * <w_n> (eval_values_at: no coefficients were kept): chunks at z (more than
 * one), aux and trace columns at z and z w. parts: 6 * max(chunks, aux). */
static gs_status ood_from_ldes(prover_state *st, gs_table_proof *t, gs_fp3 z, gs_fp shift, gs_fp3 *parts) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    size_t N = (size_t)1 << s->log_size, most = s->chunks > s->aux ? s->chunks : s->aux;
    unsigned lb = s->log_blowup, ln = s->log_n;
    gs_fp3 *next = parts + 3 * most;
    if (s->chunks > 1) {
        GS_TRY(be->iface->eval_values_at(be, parts, NULL, &st->chunk_lde, 3 * s->chunks, N, lb, ln, shift, z));
        fp3_columns(t->ood_chunks, parts, s->chunks);
    }
    if (s->aux) {
        GS_TRY(be->iface->eval_values_at(be, parts, next, &st->aux_lde, 3 * s->aux, N, lb, ln, shift, z));
        fp3_columns(t->ood_aux_cur, parts, s->aux), fp3_columns(t->ood_aux_next, next, s->aux);
    }
    return be->iface->eval_values_at(be, t->ood_cur, t->ood_next, &st->lde, s->cols, N, lb, ln, shift, z);
}

/* The same values from the coefficients, each set freed once its values are
 * taken (DEEP and FRI need only the LDEs), so a lean table's main
 * coefficients, interpolated again from the trace here, are held only with
 * the LDEs and trees. parts: 3 * max(chunks, aux). */
static gs_status ood_from_coeffs(prover_state *st, gs_table_proof *t, gs_fp3 z, gs_fp3 zw, gs_fp3 *parts) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    size_t n = (size_t)1 << s->log_n;
    if (s->chunks > 1) {
        GS_TRY(be->iface->eval_at(be, parts, &st->chunk_coeffs, 3 * s->chunks, n, z));
        fp3_columns(t->ood_chunks, parts, s->chunks);
    }
    if (s->aux) {
        GS_TRY(be->iface->eval_at(be, parts, &st->aux, 3 * s->aux, n, z));
        fp3_columns(t->ood_aux_cur, parts, s->aux);
        GS_TRY(be->iface->eval_at(be, parts, &st->aux, 3 * s->aux, n, zw));
        fp3_columns(t->ood_aux_next, parts, s->aux);
    }
    be->iface->free(be, &st->chunk_coeffs);
    if (st->aux.ptr) be->iface->free(be, &st->aux);
    if (!st->coeffs.ptr) { /* lean: the main coefficients again, from the trace */
        GS_TRY(alloc_fp(st, &st->coeffs, s->cols * n));
        GS_TRY(put_trace(st, &st->coeffs));
        GS_TRY(be->iface->interpolate(be, &st->coeffs, s->cols, s->log_n, 1));
    }
    GS_TRY(be->iface->eval_at(be, t->ood_cur, &st->coeffs, s->cols, n, z));
    GS_TRY(be->iface->eval_at(be, t->ood_next, &st->coeffs, s->cols, n, zw));
    /* Kept for DEEP when the trace LDE is out of core and they are not: the
     * device extends DEEP's sum over the columns from them (gs_deep_args). */
    if (!st->lde.host || st->coeffs.host) be->iface->free(be, &st->coeffs);
    return GS_OK;
}

/* Chunks at z, aux columns at z and z w, trace columns at z and z w (a
 * single chunk last: the composition of those values), from the LDEs when
 * the backend evaluates values, else from the coefficients. */
static gs_status round_ood(prover_state *st, gs_table_proof *t, gs_fp3 z, gs_fp3 zw, gs_fp shift) {
    const gs_shape *s = &st->s;
    size_t most = s->chunks > s->aux ? s->chunks : s->aux;
    gs_fp3 *parts = malloc(6 * most * sizeof *parts);
    if (!parts) return GS_ERR_NOMEM;
    gs_status r = st->be->iface->eval_values_at ? ood_from_ldes(st, t, z, shift, parts)
                                                 : ood_from_coeffs(st, t, z, zw, parts);
    free(parts);
    GS_TRY(r);
    if (s->chunks > 1) return GS_OK;
    /* One chunk: Q(z) = the composition at z (air/ood.h), what the verifier
     * checks it against; for a trace that satisfies the AIR the same value
     * as Q's interpolant at z. */
    gs_ood_values v = {t->ood_cur, t->ood_next, t->ood_aux_cur, t->ood_aux_next, t->bus_sum,
                       st->bus_z, st->bus_alpha};
    return gs_air_ood_composition(st->air, s->log_n, st->pub, &v, st->alpha, z, &t->ood_chunks[0]);
}

/* FRI from layer `first` (0, or 1 when deep_fold made layer 1), whose word
 * is 2^log_size over sh: for every layer, commit (leaves of 2^a values, a
 * its folds; not layer 0 with coset leaves, whose values the openings give),
 * draw gamma, fold a times by 2 with gamma, gamma^2, gamma^4, ... in one
 * backend call (one fold by 2^a: sum_i gamma^i f_i); then the final
 * polynomial. */
static gs_status round_fri(prover_state *st, gs_table_proof *t, gs_transcript *tr, uint32_t first,
                           unsigned log_size, gs_fp sh) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    for (uint32_t l = first; l < s->layers; l++) {
        unsigned a = gs_fri_folds(s, l);
        size_t leaves = (size_t)1 << (log_size - a);
        if (l >= s->fri_first) {
            GS_TRY(be->iface->commit(be, st->mem, &st->layer_c[l], s->hash, &st->layers[l],
                                     (size_t)3 << a, leaves, log_size - a));
            GS_TRY(take_cap(st, t, st->layer_c[l], GS_TREE_FRI + l));
            gs_cap_absorb(tr, "fri_root", gs_table_cap(t, s, GS_TREE_FRI + l),
                          gs_cap_log(s, log_size - a));
        }
        gs_fp3 gamma = gs_transcript_squeeze_fp3(tr, "fri_gamma");
        GS_TRY(alloc_fp(st, &st->layers[l + 1], (size_t)3 << (log_size - a)));
        GS_TRY(be->iface->fold(be, &st->layers[l + 1], &st->layers[l], log_size, a, sh, gamma));
        for (unsigned i = 0; i < a; i++) sh = gs_fp_sqr(sh);
        log_size -= a;
    }
    GS_TRY(gs_prover_final_poly(be, t->final_poly, t->final_len, &st->layers[s->layers], log_size, sh));
    gs_transcript_absorb_fp3(tr, "fri_final", t->final_poly, t->final_len);
    return GS_OK;
}

gs_status gs_prover_final_poly(gs_backend *be, gs_fp3 *out, size_t len, gs_buf *last,
                               unsigned log_size, gs_fp shift) {
    /* The last word's coefficients over its coset; the polynomial has degree
     * < len when the trace is valid; the verifier checks the rest. */
    size_t M = (size_t)1 << log_size;
    GS_TRY(be->iface->interpolate(be, last, 3, log_size, shift));
    size_t *idx = malloc(len * sizeof *idx);
    gs_fp *rows = malloc(len * 3 * sizeof *rows);
    gs_status r = idx && rows ? GS_OK : GS_ERR_NOMEM;
    for (size_t i = 0; r == GS_OK && i < len; i++) idx[i] = i;
    if (r == GS_OK) r = be->iface->gather(be, rows, last, 3, M, idx, len);
    for (size_t i = 0; r == GS_OK && i < len; i++)
        out[i] = gs_fp3_make(rows[3 * i], rows[3 * i + 1], rows[3 * i + 2]);
    free(idx), free(rows);
    return r;
}

/* The parts of a table's chain after its main commitment (chain_rounds runs
 * them in a row; with shared trees multi.c runs each for every table and
 * builds the round's tree in between). */

/* The aux round: the LogUp aux trace, its LDE and commitment (buses only). */
static gs_status part_aux(prover_state *st, gs_table_proof *t, const bus_challenges *bc) {
    return st->s.aux ? round_aux(st, t, bc, GS_FP_GENERATOR) : GS_OK;
}

/* Into the table's transcript: its aux commitment (the round's shared root
 * when `root` is not NULL) and bus sum, then the composition challenge and
 * the quotient's commitment. */
static gs_status part_quotient(prover_state *st, gs_proof *p, gs_transcript *tr,
                               const bus_challenges *bc, const gs_digest *root) {
    const gs_shape *s = &st->s;
    gs_table_proof *t = &p->table;
    if (s->aux) {
        gs_cap_absorb(tr, "aux_root", root ? root : gs_table_cap(t, s, GS_TREE_AUX), root ? 0 : s->lde_cap);
        gs_transcript_absorb_fp3(tr, "bus_sum", &t->bus_sum, 1);
    }
    st->alpha = gs_transcript_squeeze_fp3(tr, "alpha");
    st->bus_z = bc ? bc->z : gs_fp3_zero(), st->bus_alpha = bc ? bc->alpha : gs_fp3_zero();
    return round_quotient(st, t, st->air, p->pub, st->alpha, GS_FP_GENERATOR, bc);
}

/* After the quotient's commitment (the round's shared root when `root` is
 * not NULL) enters the transcript: the out-of-domain values, beta and the
 * DEEP word (st->layers[0]; or with coset leaves folded once into
 * st->layers[1]: *first = 1, *log_fri and *sh the word's domain). */
static gs_status part_deep(prover_state *st, gs_proof *p, gs_transcript *tr, const gs_digest *root,
                           double secs[2], uint32_t *first, unsigned *log_fri, gs_fp *sh) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    gs_table_proof *t = &p->table;
    gs_fp shift = GS_FP_GENERATOR;
    gs_cap_absorb(tr, "chunk_root", root ? root : gs_table_cap(t, s, GS_TREE_CHUNK), root ? 0 : s->lde_cap);
    phase ph = phase_begin(st, "ood");
    gs_fp3 z = gs_draw_ood_point(tr, s, shift);
    gs_fp3 zw = gs_fp3_mul_fp(z, gs_fp_root_of_unity(s->log_n));
    GS_TRY(round_ood(st, t, z, zw, shift));
    if (gs_prover_debug_ood) gs_prover_debug_ood(st->air, p, t, st->alpha, z);
    gs_transcript_absorb_fp3(tr, "ood_cur", t->ood_cur, s->cols);
    gs_transcript_absorb_fp3(tr, "ood_next", t->ood_next, s->cols);
    gs_transcript_absorb_fp3(tr, "ood_chunks", t->ood_chunks, s->chunks);
    if (s->aux) {
        gs_transcript_absorb_fp3(tr, "ood_aux_cur", t->ood_aux_cur, s->aux);
        gs_transcript_absorb_fp3(tr, "ood_aux_next", t->ood_aux_next, s->aux);
    }
    secs[0] = phase_end(&ph, gs_mem_current(st->mem));
    ph = phase_begin(st, "deep");
    gs_fp3 beta = gs_transcript_squeeze_fp3(tr, "beta");
    size_t nbeta = 2 * (size_t)s->cols + s->chunks + 2 * (size_t)s->aux;
    gs_fp3 *beta_pows = malloc(nbeta * sizeof *beta_pows);
    if (!beta_pows) return GS_ERR_NOMEM;
    gs_fp3_powers(beta_pows, beta, nbeta);
    gs_deep_args da = {s->log_size, shift, s->cols, s->chunks, s->aux, z, zw,
                       gs_fp3_zero(), gs_fp3_zero(), beta_pows, st->coeffs.ptr ? &st->coeffs : NULL,
                       s->log_blowup};
    gs_deep_constants(&da.k1, &da.k2, beta_pows, t);
    /* With layer 0 not committed (coset leaves), its fold challenge follows
     * beta at once: the backend may fold the DEEP word as it makes it, and
     * the word is never held. Always on the CPU (faster there too); on the
     * device for a lean table only (the device's separate kernels are
     * faster: fib 2^24 on the H200 0.12 s against 0.13 s). */
    int fused = s->fri_first == 1 && be->iface->deep_fold && (be == gs_backend_cpu() || st->lean);
    *first = 0, *log_fri = s->log_size, *sh = shift;
    gs_status r;
    if (fused) {
        unsigned a = gs_fri_folds(s, 0);
        gs_fp3 gamma = gs_transcript_squeeze_fp3(tr, "fri_gamma");
        r = alloc_fp(st, &st->layers[1], (size_t)3 << (s->log_size - a));
        if (r == GS_OK)
            r = be->iface->deep_fold(be, &st->layers[1], &st->lde, &st->chunk_lde,
                                     s->aux ? &st->aux_lde : NULL, &da, a, gamma);
        *first = 1, *log_fri -= a;
        for (unsigned i = 0; i < a; i++) *sh = gs_fp_sqr(*sh);
    } else {
        r = alloc_fp(st, &st->layers[0], 3 * ((size_t)1 << s->log_size));
        if (r == GS_OK)
            r = be->iface->deep(be, &st->layers[0], &st->lde, &st->chunk_lde,
                                s->aux ? &st->aux_lde : NULL, &da);
    }
    free(beta_pows);
    if (st->coeffs.ptr && !st->lde.unheld) be->iface->free(be, &st->coeffs); /* else the openings' */
    secs[1] = phase_end(&ph, gs_mem_current(st->mem));
    GS_TRY(r);
    if (p->params.shared_fri) {
        /* The shared FRI (shared_fri.c) takes it from here. One row of the
         * DEEP word to the host: a synchronous gather, so that the word is
         * complete (on a device, this lane's stream has run it) before
         * another thread's lane reads it. */
        size_t zero = 0;
        gs_fp row[3];
        GS_TRY(be->iface->gather(be, row, &st->layers[0], 3, (size_t)1 << s->log_size, &zero, 1));
    }
    return GS_OK;
}

gs_status gs_prover_part(prover_state *st, gs_proof *p, gs_transcript *tr, const bus_challenges *bc,
                         int part, const gs_digest *root, gs_prove_stats *ps) {
    if (part == 2) {
        uint32_t first;
        unsigned log_fri;
        gs_fp sh;
        double secs[2] = {0, 0};
        gs_status r = part_deep(st, p, tr, root, secs, &first, &log_fri, &sh);
        if (ps && r == GS_OK) ps->ood += secs[0], ps->deep += secs[1];
        return r;
    }
    phase ph = phase_begin(st, "quotient");
    gs_status r = part == 0 ? part_aux(st, &p->table, bc) : part_quotient(st, p, tr, bc, root);
    double q = phase_end(&ph, gs_mem_current(st->mem));
    if (ps) ps->quotient += q;
    return r;
}

/* Everything after the main commitment, inside the table's transcript (the
 * statement's own for one table, the table's fork for many): aux trace and
 * bus sum (with buses), quotient, out-of-domain values, DEEP, FRI, grinding,
 * openings. */
static gs_status chain_rounds(prover_state *st, gs_proof *p, gs_transcript *tr,
                              const bus_challenges *bc, gs_prove_stats *ps) {
    gs_backend *be = st->be;
    const gs_shape *s = &st->s;
    gs_table_proof *t = &p->table;
    phase ph = phase_begin(st, "quotient");
    GS_TRY(part_aux(st, t, bc));
    GS_TRY(part_quotient(st, p, tr, bc, NULL));
    double quotient = phase_end(&ph, gs_mem_current(st->mem)), secs[2] = {0, 0};
    uint32_t first;
    unsigned log_fri;
    gs_fp sh;
    GS_TRY(part_deep(st, p, tr, NULL, secs, &first, &log_fri, &sh));
    if (ps) ps->quotient += quotient, ps->ood += secs[0], ps->deep += secs[1];
    if (p->params.shared_fri) return GS_OK;
    ph = phase_begin(st, "fri");
    gs_status r = round_fri(st, t, tr, first, log_fri, sh);
    double fri = phase_end(&ph, gs_mem_current(st->mem));
    GS_TRY(r);
    if (ps) ps->fri += fri;
    ph = phase_begin(st, "queries");
    GS_TRY(be->iface->grind(be, tr, p->params.grinding_bits, &t->pow_nonce));
    size_t *qs = malloc(s->queries * sizeof *qs);
    if (!qs) return GS_ERR_NOMEM;
    r = gs_transcript_squeeze_indices(tr, "queries", qs, s->queries, s->log_size);
    if (r == GS_OK) r = gs_prover_open_queries(st, t, qs);
    free(qs);
    double queries = phase_end(&ph, gs_mem_current(st->mem));
    if (ps) ps->queries += queries;
    return r;
}

gs_status gs_prover_round_trace(prover_state *st, gs_table_proof *t, gs_fp shift) {
    gs_status r = commit_main(st, t, shift);
    if (r != GS_OK && fall_back(st, r)) r = commit_main(st, t, shift);
    return r;
}

/* Runs `commit` (a main commitment) again into t, whose trace cap is from
 * the first one: the cap must come out the same. */
static gs_status recommit(prover_state *st, gs_table_proof *t,
                          gs_status (*commit)(prover_state *, gs_table_proof *, gs_fp)) {
    const gs_shape *s = &st->s;
    size_t bytes = ((size_t)1 << s->lde_cap) * sizeof(gs_digest);
    gs_digest *before = malloc(bytes);
    if (!before) return GS_ERR_NOMEM;
    memcpy(before, gs_table_cap(t, s, GS_TREE_TRACE), bytes);
    gs_status r = commit(st, t, GS_FP_GENERATOR);
    if (r == GS_OK && memcmp(before, gs_table_cap(t, s, GS_TREE_TRACE), bytes) != 0) r = GS_ERR_INVALID_ARG;
    free(before);
    return r;
}

gs_status gs_prover_recommit_main(prover_state *st, gs_table_proof *t) {
    return recommit(st, t, gs_prover_round_trace);
}

gs_status gs_prover_chain(prover_state *st, gs_proof *p, gs_transcript *tr,
                          const bus_challenges *bc, gs_prove_stats *ps) {
    gs_transcript start = *tr;
    gs_status r = chain_rounds(st, p, tr, bc, ps);
    if (r == GS_OK || !fall_back(st, r)) return r;
    double t0 = gs_prover_now();
    r = recommit(st, &p->table, commit_main);
    if (ps) ps->commit += gs_prover_now() - t0;
    *tr = start;
    if (r == GS_OK) r = chain_rounds(st, p, tr, bc, ps);
    return r;
}

gs_status gs_prover_chain_on_cpu(prover_state *st, gs_proof *p, gs_transcript *tr,
                                 const bus_challenges *bc, gs_prove_stats *ps, gs_status r) {
    if (!fall_back(st, r)) return r;
    GS_TRY(recommit(st, &p->table, commit_main));
    return chain_rounds(st, p, tr, bc, ps);
}

/* Checks one table's inputs and sets up its state and its proof entry
 * (statement and allocated sub-proof). */
gs_status gs_prover_table_setup(prover_state *st, gs_proof *p, const gs_table_input *in,
                                const gs_params *params, const gs_prove_opts *opts, run_backend *rb,
                                gs_mem *run) {
    const gs_air *air = in->air;
    const gs_fp *pub = in->pub;
    const gs_packed_trace *pk = in->packed;
    unsigned log_n = in->log_n;
    if (!air || !in->trace == !pk || (pk && (!pk->data || !pk->expand)) ||
        (gs_air_num_public(air) && !pub))
        return GS_ERR_INVALID_ARG;
    GS_TRY(gs_air_check_height(air, log_n));
    st->be = gs_backend_cpu();
    st->dev = rb->dev;
    if (rb->cuda) {
        gs_backend *be;
        gs_status r = gs_device_backend_new(&be, rb->dev, st->index);
        if (r != GS_OK) return r; /* host memory: no device work was tried */
        st->be = be;
    }
    GS_TRY(gs_mem_new(&st->mem, run));
    st->air = air, st->trace = in->trace, st->packed = pk, st->pub = pub;
    GS_TRY(gs_shape_make(&st->s, params, log_n, gs_air_num_cols(air), gs_air_num_chunks(air)));
    if (params->shared_fri) gs_shape_shared_table(&st->s, st->shared_queries);
    GS_TRY(gs_air_check_degree(air, params->log_blowup));
    GS_TRY(gs_logup_layout(&st->L, air));
    st->s.aux = st->L.aux_cols;
    if (!opts->skip_check && !rb->check_on_commit) {
        GS_TRY(host_trace(st));
        GS_TRY(gs_air_check_trace(air, st->trace, log_n, pub, NULL, NULL));
    }
    st->check = rb->check_on_commit;
    p->params = *params;
    p->air_fingerprint = gs_air_fingerprint(air);
    if (in->air_desc) strncpy(p->air_desc, in->air_desc, sizeof p->air_desc - 1);
    p->log_n = log_n;
    p->num_public = gs_air_num_public(air);
    p->pub = malloc((p->num_public + 1) * sizeof *p->pub);
    st->layers = calloc(st->s.layers + 1, sizeof *st->layers);
    st->layer_c = calloc(st->s.layers + 1, sizeof *st->layer_c);
    if (!p->pub || !st->layers || !st->layer_c) return GS_ERR_NOMEM;
    if (p->num_public) memcpy(p->pub, pub, p->num_public * sizeof *p->pub);
    return table_alloc(&p->table, &st->s);
}

gs_status gs_prover_check_params(const gs_params *params, const gs_prove_opts *opts) {
    if (!params) return GS_ERR_INVALID_ARG;
    gs_shape s;
    GS_TRY(gs_shape_make(&s, params, 1, 1, 1));
    if (!opts->allow_insecure && gs_params_check(params, GS_MIN_SECURITY_BITS) != GS_OK)
        return GS_ERR_PROOF_PARAMS;
    return GS_OK;
}

gs_params gs_prover_effective_params(const gs_params *params) {
    gs_params p = *params;
    if (p.shared_fri) p.coset_leaves = 0;
    return p;
}

const gs_prove_opts gs_prover_default_opts = {0};

gs_status gs_prover_prove(gs_prover *pv, gs_proof **out, const gs_air *air, const gs_fp *trace,
                          unsigned log_n, const gs_fp *pub, const gs_params *params,
                          const gs_prove_opts *opts) {
    double start = gs_prover_now();
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!opts) opts = &gs_prover_default_opts;
    if (!pv || !air) return GS_ERR_INVALID_ARG;
    /* Bus interactions need the multi-table prover (its shared LogUp
     * challenges); a single table cannot balance a bus on its own. */
    if (gs_air_num_interactions(air)) return GS_ERR_UNSUPPORTED;
    GS_TRY(gs_prover_check_params(params, opts));
    /* One table has no FRI to share with another (docs/multi-table.md). */
    if (params->shared_fri) return GS_ERR_INVALID_ARG;
    gs_prove_stats local = {0}, *ps = opts->stats ? opts->stats : &local;
    memset(ps, 0, sizeof *ps);
    run_backend rb;
    GS_TRY(gs_prover_run_begin(&rb, pv, opts));
    int64_t check_span = gs_obs_begin(opts->obs, "check", -1, 0, 0);
    prover_state st = {.obs = opts->obs};
    gs_proof *p = calloc(1, sizeof *p);
    gs_mem *run = NULL;
    gs_status r = p ? gs_mem_new(&run, NULL) : GS_ERR_NOMEM;
    gs_table_input one = {air, trace, log_n, pub, opts->air_desc, NULL};
    gs_mem_estimate est;
    int lean = 0;
    if (r == GS_OK) r = gs_estimate_table_on(&est, air, log_n, params, rb.cuda ? GS_BACKEND_CUDA : GS_BACKEND_CPU);
    if (r == GS_OK)
        r = gs_prover_budget_check(ps, opts->obs, &est, &lean, 1, pv->mem_budget,
                                   gs_prover_input_bytes(&one, 1, &rb), opts->strict_budget, rb.cuda);
    if (r == GS_OK)
        r = gs_prover_table_setup(&st, p, &one, params, opts, &rb, run);
    st.lean = lean;
    ps->check = gs_prover_now() - start;
    gs_obs_end(opts->obs, check_span, 0);
    gs_obs_progress_init(opts->obs, 1, -1); /* the progress line, on a terminal only */
    if (r == GS_OK) {
        gs_transcript tr;
        gs_transcript_init(&tr, (gs_hash_id)params->hash, GS_TRANSCRIPT_DOMAIN);
        gs_statement_absorb(&tr, p);
        double t0 = gs_prover_now();
        int64_t sp = gs_obs_begin(opts->obs, "commit", st.index, (uint64_t)1 << log_n,
                                  gs_air_num_cols(air));
        r = gs_prover_round_trace(&st, &p->table, GS_FP_GENERATOR);
        ps->commit = gs_prover_now() - t0;
        ps->commit_peak_bytes = gs_mem_peak(run);
        gs_obs_end(opts->obs, sp, ps->commit_peak_bytes);
        if (r == GS_OK) {
            gs_obs_progress_add(opts->obs, 1, 0);
            gs_cap_absorb(&tr, "trace_root", gs_table_cap(&p->table, &st.s, GS_TREE_TRACE), st.s.lde_cap);
            r = gs_prover_chain(&st, p, &tr, NULL, ps);
        }
    }
    gs_obs_progress_done(opts->obs);
    ps->peak_bytes = gs_mem_peak(run);
    gs_prover_budget_done(ps, opts->obs);
    ps->cpu_fallbacks = st.fallbacks;
    memcpy(ps->device_error, st.device_error, sizeof ps->device_error);
    gs_prover_state_free(&st);
    gs_prover_run_end(&rb, ps, r);
    gs_mem_free(run);
    if (r != GS_OK) {
        gs_proof_free(p);
        return r;
    }
    ps->total = gs_prover_now() - start;
    *out = p;
    return GS_OK;
}
