/* The shared FRI of a multi-table proof (params.shared_fri = 1;
 * docs/protocol.md, "One FRI for many tables").
 *
 * Every table's chain stopped after its DEEP word (prover.c), each in its
 * transcript fork; the multi transcript absorbs every fork's state after
 * beta in table order (so the order in which the scheduler finished them
 * does not matter), then one FRI runs over the combination along the plan
 * (gs_fri_plan, proof/shape.h): the first table in join order (largest LDE,
 * lowest index) starts it with coefficient 1; every other table's DEEP word
 * is added, times a challenge lambda_t drawn when it joins, at the layer
 * whose domain is its LDE domain. Then one grinding, one set of queries on
 * the largest domain, the FRI openings once, and every table's openings at
 * q mod its own LDE size.
 *
 * The words stay on the tables' backend when all of them are on one kind of
 * backend (the device's, or the CPU); when some table fell back to the CPU
 * and others did not, the FRI runs on the CPU and the device words come
 * back through gather. A device failure inside the shared FRI is returned;
 * multi.c then moves every table to the CPU and runs it again there. */
#include <stdlib.h>
#include <string.h>

#include "gstark/merkle.h"
#include "prover/prover_internal.h"

#define HOST_CHUNK ((size_t)1 << 16) /* rows per gather when a device word comes to the host */

typedef struct {
    gs_backend *be;    /* where the FRI runs */
    int own_be;        /* be was made here (a device object): destroy it */
    gs_mem *mem;
    const gs_fri_plan *f;
    gs_buf *words;     /* f->layers + 1 words; words[0] may be a table's DEEP word */
    int word0_owned;
    gs_bcommit **trees; /* f->layers */
} fri_run;

/* Whether a table's buffers are where the FRI runs: both on the CPU, or
 * both on the device (a device buffer is a device pointer, whichever
 * backend object of the device made it). */
static int same_place(const fri_run *fr, const prover_state *st) {
    return (st->be == gs_backend_cpu()) == (fr->be == gs_backend_cpu());
}

/* Table i's DEEP word where the FRI runs: its own buffer, or (a device
 * table when the FRI runs on the CPU) a host copy in *tmp. */
static gs_status deep_word(fri_run *fr, prover_state *st, gs_buf *tmp, const gs_buf **out) {
    *out = &st->layers[0];
    if (same_place(fr, st)) return GS_OK;
    size_t N = (size_t)1 << st->s.log_size;
    GS_TRY(fr->be->iface->alloc(fr->be, fr->mem, tmp, 3 * N * sizeof(gs_fp)));
    size_t m = N < HOST_CHUNK ? N : HOST_CHUNK;
    size_t *idx = malloc(m * sizeof *idx);
    gs_fp *rows = malloc(3 * m * sizeof *rows);
    gs_status r = idx && rows ? GS_OK : GS_ERR_NOMEM;
    gs_fp *h = tmp->ptr;
    for (size_t b = 0; r == GS_OK && b < N; b += m) {
        for (size_t k = 0; k < m; k++) idx[k] = b + k;
        r = st->be->iface->gather(st->be, rows, &st->layers[0], 3, N, idx, m);
        for (size_t k = 0; r == GS_OK && k < m; k++)
            for (int c = 0; c < 3; c++) h[c * N + b + k] = rows[3 * k + c];
    }
    free(idx), free(rows);
    *out = tmp;
    return r;
}

/* Adds the DEEP words of the tables joining at layer l (their lambdas drawn
 * now, in join order) into words[l] of 2^rows_log rows. */
static gs_status join(fri_run *fr, prover_state *st, const uint32_t *order, uint32_t n, uint32_t l,
                      unsigned rows_log, gs_transcript *tr) {
    const gs_fri_plan *f = fr->f;
    for (uint32_t j = 1; j < n; j++) {
        prover_state *t = &st[order[j]];
        if (gs_fri_plan_join(f, t->s.log_size) != l) continue;
        gs_fp3 lambda = gs_transcript_squeeze_fp3(tr, "fri_join");
        gs_buf tmp = {0};
        const gs_buf *w;
        size_t rows = (size_t)1 << rows_log;
        gs_status r = deep_word(fr, t, &tmp, &w);
        if (r == GS_OK) r = fr->be->iface->add_scaled(fr->be, &fr->words[l], rows, w, rows, rows, lambda);
        if (tmp.ptr) fr->be->iface->free(fr->be, &tmp);
        GS_TRY(r);
    }
    return GS_OK;
}

/* The paths of leaves idx[0..Q) of a layer's tree, cut below its cap. */
static gs_status open_cut(gs_backend *be, const gs_bcommit *c, unsigned depth, unsigned cap,
                          gs_digest *out, const size_t *idx, size_t Q) {
    unsigned len = depth - cap;
    gs_digest *full = malloc((Q * depth + 1) * sizeof *full);
    if (!full) return GS_ERR_NOMEM;
    gs_status r = be->iface->open(be, c, full, idx, Q);
    for (size_t k = 0; r == GS_OK && k < Q; k++) memcpy(out + k * len, full + k * depth, len * sizeof *out);
    free(full);
    return r;
}

static gs_status fri_alloc(gs_shared_fri *sf, const gs_fri_plan *f) {
    size_t Q = f->queries;
    sf->log_lde = f->log_size;
    sf->num_layers = f->layers;
    sf->cap_len = (uint32_t)f->cap_len;
    sf->final_len = f->final_len;
    sf->num_queries = f->queries;
    sf->fri_row_len = (uint32_t)f->row_len;
    sf->fri_path_len = (uint32_t)f->path_len;
    sf->caps = calloc(f->cap_len + 1, sizeof *sf->caps);
    sf->final_poly = calloc(f->final_len, sizeof *sf->final_poly);
    sf->query_pos = calloc(Q, sizeof *sf->query_pos);
    sf->fri_rows = calloc(Q * f->row_len + 1, sizeof *sf->fri_rows);
    sf->fri_paths = calloc(Q * f->path_len + 1, sizeof *sf->fri_paths);
    return sf->caps && sf->final_poly && sf->query_pos && sf->fri_rows && sf->fri_paths ? GS_OK
                                                                                        : GS_ERR_NOMEM;
}

/* Commit, fold, final polynomial (the transcript as the verifier replays it). */
static gs_status fri_rounds(fri_run *fr, prover_state *st, const uint32_t *order, uint32_t n,
                            gs_shared_fri *sf, gs_transcript *tr) {
    const gs_fri_plan *f = fr->f;
    gs_backend *be = fr->be;
    prover_state *first = &st[order[0]];
    /* Layer 0: the first table's DEEP word, in place when it is where the FRI runs. */
    if (same_place(fr, first)) {
        fr->words[0] = first->layers[0];
    } else {
        const gs_buf *w;
        GS_TRY(deep_word(fr, first, &fr->words[0], &w));
        fr->word0_owned = 1;
    }
    GS_TRY(join(fr, st, order, n, 0, f->log_size, tr));
    gs_fp sh = GS_FP_GENERATOR;
    for (uint32_t l = 0; l < f->layers; l++) {
        unsigned a = f->folds[l], depth = gs_fri_plan_depth(f, l);
        GS_TRY(be->iface->commit(be, fr->mem, &fr->trees[l], f->hash, &fr->words[l], (size_t)3 << a,
                                 (size_t)1 << depth, depth));
        gs_digest *cap = sf->caps + gs_fri_plan_cap_off(f, l);
        GS_TRY(be->iface->cap(be, fr->trees[l], cap, f->cap_log[l]));
        gs_cap_absorb(tr, "fri_root", cap, f->cap_log[l]);
        gs_fp3 gamma = gs_transcript_squeeze_fp3(tr, "fri_gamma");
        GS_TRY(be->iface->alloc(be, fr->mem, &fr->words[l + 1], ((size_t)3 << depth) * sizeof(gs_fp)));
        GS_TRY(be->iface->fold(be, &fr->words[l + 1], &fr->words[l], f->lsize[l], a, sh, gamma));
        for (unsigned i = 0; i < a; i++) sh = gs_fp_sqr(sh);
        GS_TRY(join(fr, st, order, n, l + 1, depth, tr));
    }
    /* In place (with no layer, the first table's DEEP word: no longer needed,
     * the tables open their LDEs, not it). */
    GS_TRY(gs_prover_final_poly(be, sf->final_poly, f->final_len, &fr->words[f->layers],
                                f->final_log_size, sh));
    gs_transcript_absorb_fp3(tr, "fri_final", sf->final_poly, f->final_len);
    return GS_OK;
}

/* The FRI layers' openings at the drawn positions. */
static gs_status fri_open(fri_run *fr, gs_shared_fri *sf, const size_t *qs) {
    const gs_fri_plan *f = fr->f;
    gs_backend *be = fr->be;
    size_t Q = f->queries;
    size_t *leaf = malloc((Q + 1) * sizeof *leaf);
    gs_fp *rows = malloc((Q * ((size_t)3 << GS_MAX_LOG_ARITY) + 1) * sizeof *rows);
    gs_digest *paths = malloc((Q * f->log_size + 1) * sizeof *paths);
    gs_status r = leaf && rows && paths ? GS_OK : GS_ERR_NOMEM;
    size_t path_off = 0, row_off = 0;
    for (uint32_t l = 0; r == GS_OK && l < f->layers; l++) {
        unsigned depth = gs_fri_plan_depth(f, l), len = depth - f->cap_log[l];
        size_t width = (size_t)3 << f->folds[l], leaves = (size_t)1 << depth;
        for (size_t k = 0; k < Q; k++) leaf[k] = qs[k] & (leaves - 1);
        r = be->iface->gather(be, rows, &fr->words[l], width, leaves, leaf, Q);
        if (r == GS_OK) r = open_cut(be, fr->trees[l], depth, f->cap_log[l], paths, leaf, Q);
        for (size_t k = 0; r == GS_OK && k < Q; k++) {
            memcpy(sf->fri_rows + k * f->row_len + row_off, rows + k * width, width * sizeof(gs_fp));
            memcpy(sf->fri_paths + k * f->path_len + path_off, paths + k * len, len * sizeof(gs_digest));
        }
        path_off += len, row_off += width;
    }
    free(leaf), free(rows), free(paths);
    return r;
}

static void fri_run_free(fri_run *fr) {
    gs_backend *be = fr->be;
    if (!be) return;
    for (uint32_t l = 0; fr->trees && l < fr->f->layers; l++)
        if (fr->trees[l]) be->iface->commit_free(be, fr->trees[l]);
    for (uint32_t l = 0; fr->words && l <= fr->f->layers; l++)
        if (fr->words[l].ptr && (l > 0 || fr->word0_owned)) be->iface->free(be, &fr->words[l]);
    free(fr->trees), free(fr->words);
    if (fr->own_be) be->iface->destroy(be);
}

/* What a shared tree's opening reads again below its skip: the rows of the
 * tables it holds (table[m], in the build's order) from their LDEs. */
typedef struct {
    prover_state *st;
    uint32_t table[GS_MAX_TABLES];
    unsigned tree; /* GS_TREE_TRACE, _CHUNK or _AUX */
} tree_rows;

static gs_status fetch_rows(void *p, uint32_t m, const size_t *rows, size_t count, gs_digest *out) {
    const tree_rows *tr = p;
    prover_state *st = &tr->st[tr->table[m]];
    const gs_shape *s = &st->s;
    const gs_buf *buf = tr->tree == GS_TREE_TRACE ? &st->lde : tr->tree == GS_TREE_CHUNK ? &st->chunk_lde : &st->aux_lde;
    size_t w = gs_tree_width(s, tr->tree);
    gs_fp *v = malloc((count * w + 1) * sizeof *v);
    if (!v) return GS_ERR_NOMEM;
    gs_status r = st->be->iface->gather(st->be, v, buf, w, (size_t)1 << s->lde_depth, rows, count);
    for (size_t i = 0; r == GS_OK && i < count; i++) gs_merkle_leaf(s->hash, &out[i], v + i * w, w);
    free(v);
    return r;
}

/* The shared trees' roots and every query's path in each (position q mod
 * 2^depth of a tree of that depth). */
static gs_status trees_open(gs_shared_fri *sf, prover_state *st, uint32_t n, gs_mixed_tree *const *trees,
                            const size_t *qs, size_t *qt, size_t Q) {
    tree_rows *tr = malloc(sizeof *tr);
    gs_status r = tr ? GS_OK : GS_ERR_NOMEM;
    for (unsigned i = 0; r == GS_OK && i < 3; i++) {
        if (!trees[i]) continue;
        unsigned d = gs_mixed_depth(trees[i]);
        uint32_t m = 0;
        tr->st = st, tr->tree = i;
        for (uint32_t t = 0; t < n; t++) /* the build's order (multi.c's build_tree) */
            if (gs_shared_tree_holds(&st[t].s, i)) tr->table[m++] = t;
        sf->tree_roots[i] = gs_mixed_root(trees[i]);
        sf->tree_depth[i] = d;
        if (!(sf->tree_paths[i] = malloc((Q * d + 1) * sizeof(gs_digest)))) r = GS_ERR_NOMEM;
        for (size_t k = 0; r == GS_OK && k < Q; k++) qt[k] = qs[k] & (((size_t)1 << d) - 1);
        if (r == GS_OK) r = gs_mixed_open_fetch(trees[i], sf->tree_paths[i], qt, Q, fetch_rows, tr);
    }
    free(tr);
    return r;
}

gs_status gs_prover_shared_fri(prover_state *st, uint32_t n, gs_multi_proof *mp, gs_transcript *tr,
                               const gs_digest *chain, const gs_fri_plan *f, run_backend *rb,
                               gs_mem *mem, gs_mixed_tree *const *trees, gs_prove_stats *ps) {
    double t0 = gs_prover_now();
    for (uint32_t i = 0; i < n; i++) gs_transcript_absorb_digest(tr, "table_chain", &chain[i]);
    uint32_t *order = malloc(n * sizeof *order), *log_n = malloc(n * sizeof *log_n);
    gs_shared_fri *sf = calloc(1, sizeof *sf);
    size_t *qs = malloc((f->queries + 1) * sizeof *qs), *qt = malloc((f->queries + 1) * sizeof *qt);
    fri_run fr = {.mem = mem, .f = f};
    fr.words = calloc(f->layers + 2, sizeof *fr.words);
    fr.trees = calloc(f->layers + 1, sizeof *fr.trees);
    gs_status r = order && log_n && sf && qs && qt && fr.words && fr.trees ? GS_OK : GS_ERR_NOMEM;
    if (r == GS_OK) r = fri_alloc(sf, f);
    for (uint32_t i = 0; r == GS_OK && i < n; i++) log_n[i] = st[i].s.log_n;
    if (r == GS_OK) gs_fri_join_order(order, log_n, n);
    /* Where the words are: one backend kind for all, or the CPU. */
    int all_device = rb->cuda;
    for (uint32_t i = 0; i < n; i++)
        if (st[i].be == gs_backend_cpu()) all_device = 0;
    fr.be = gs_backend_cpu();
    if (r == GS_OK && all_device) {
        gs_backend *be;
        r = gs_device_backend_new(&be, rb->dev, -1);
        if (r == GS_OK) fr.be = be, fr.own_be = 1;
    }
    int64_t sp = gs_obs_begin(st[0].obs, "shared fri", -1, 0, 0);
    if (r == GS_OK) r = fri_rounds(&fr, st, order, n, sf, tr);
    double t1 = gs_prover_now();
    if (r == GS_OK) r = fr.be->iface->grind(fr.be, tr, mp->params.grinding_bits, &sf->pow_nonce);
    if (r == GS_OK) r = gs_transcript_squeeze_indices(tr, "queries", qs, f->queries, f->log_size);
    for (uint32_t k = 0; r == GS_OK && k < f->queries; k++) sf->query_pos[k] = (uint32_t)qs[k];
    if (r == GS_OK) r = fri_open(&fr, sf, qs);
    /* Every table at its reduced positions: q mod its LDE size, as a fold maps
     * position q of a domain to q mod the folded one. */
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        size_t mask = ((size_t)1 << st[i].s.log_size) - 1;
        for (uint32_t k = 0; k < f->queries; k++) qt[k] = qs[k] & mask;
        r = gs_prover_open_queries(&st[i], &mp->tables[i].table, qt);
    }
    if (r == GS_OK && trees) r = trees_open(sf, st, n, trees, qs, qt, f->queries);
    gs_obs_end(st[0].obs, sp, gs_mem_peak(mem));
    double t2 = gs_prover_now();
    if (ps) ps->fri += t1 - t0, ps->queries += t2 - t1;
    fri_run_free(&fr);
    free(order), free(log_n), free(qs), free(qt);
    if (r == GS_OK) mp->fri = sf;
    else gs_shared_fri_free(sf);
    return r;
}
