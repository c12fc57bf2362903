#include "proof/shape.h"

#include <string.h>

#include "gstark/poseidon2.h"

int gs_coset_pays(const gs_shape *s, uint32_t cols, uint32_t chunks) {
    unsigned a = gs_fri_folds(s, 0), d0 = s->log_size - a, lq = 0;
    while (((uint64_t)1 << lq) < s->queries) lq++;
    uint64_t F = (uint64_t)1 << a, W = (uint64_t)cols + 3 * (uint64_t)chunks;
    uint64_t added = 8 * W * (F - 1);
    uint64_t saved = 24 * F + 32 * (2 * (uint64_t)a + (d0 > lq ? d0 - lq : 0));
    return added < saved;
}

gs_status gs_shape_make(gs_shape *s, const gs_params *p, unsigned log_n, uint32_t cols,
                        uint32_t chunks) {
    if (!p || p->log_blowup < 1 || p->log_blowup > 6 || p->log_arity < 1 || p->log_arity > GS_MAX_LOG_ARITY || p->log_final > 20 ||
        p->num_queries < 1 || p->num_queries > 1024 || p->grinding_bits > 40 || log_n < 1 ||
        log_n > GS_MAX_LOG_LDE - p->log_blowup /* log_blowup <= 6 here */ || cols < 1 || chunks < 1 ||
        p->hash >= GS_HASH_COUNT || p->cap_height > GS_MAX_CAP_HEIGHT || p->shared_fri > GS_SHARED_TREES ||
        (p->shared_fri == GS_SHARED_TREES && p->cap_height) || p->coset_leaves > GS_COSET_LEAVES_ALL ||
        (p->coset_leaves && p->shared_fri))
        return GS_ERR_INVALID_ARG;
    s->hash = (gs_hash_id)p->hash;
    s->log_n = log_n;
    s->log_blowup = p->log_blowup;
    s->log_size = log_n + p->log_blowup;
    s->cols = cols;
    s->chunks = chunks;
    s->aux = 0;
    s->log_arity = p->log_arity;
    s->folds = log_n > p->log_final ? log_n - p->log_final : 0;
    s->layers = (s->folds + p->log_arity - 1) / p->log_arity;
    s->final_len = 1u << (log_n - s->folds);
    size_t N = (size_t)1 << s->log_size;
    s->queries = p->num_queries < N ? p->num_queries : (uint32_t)N;
    s->cap_height = p->cap_height;
    s->fri_first = p->coset_leaves && s->layers &&
                   (p->coset_leaves == GS_COSET_LEAVES_ALL || gs_coset_pays(s, cols, chunks));
    s->lde_fold = s->fri_first ? gs_fri_folds(s, 0) : 0;
    s->lde_depth = s->log_size - s->lde_fold;
    s->lde_cap = gs_cap_log(s, s->lde_depth);
    s->shared_trees = p->shared_fri == GS_SHARED_TREES;
    /* With one tree per round the paths are the shared FRI's, not the table's. */
    s->lde_path_len = s->shared_trees ? 0 : s->lde_depth - s->lde_cap;
    s->fri_path_len = s->fri_row_len = s->fri_cap_len = 0;
    for (uint32_t l = s->fri_first; l < s->layers; l++) {
        unsigned depth = gs_fri_depth(s, l), c = gs_cap_log(s, depth);
        s->fri_path_len += depth - c;
        s->fri_cap_len += (size_t)1 << c;
        s->fri_row_len += (size_t)3 << gs_fri_folds(s, l);
    }
    return GS_OK;
}

unsigned gs_tree_depth(const gs_shape *s, unsigned tree) {
    return tree >= GS_TREE_FRI ? gs_fri_depth(s, tree - GS_TREE_FRI) : s->lde_depth;
}

size_t gs_shape_cap_len(const gs_shape *s) {
    size_t lde = s->shared_trees ? 0 : (size_t)1 << s->lde_cap;
    return (s->aux ? 3 : 2) * lde + s->fri_cap_len;
}

gs_digest *gs_table_cap(const gs_table_proof *t, const gs_shape *s, unsigned tree) {
    gs_table_proof *m = (gs_table_proof *)t; /* as strchr: the caller's constness */
    if (!s->cap_height) {
        switch (tree) {
        case GS_TREE_TRACE: return &m->trace_root;
        case GS_TREE_CHUNK: return &m->chunk_root;
        case GS_TREE_AUX: return &m->aux_root;
        default: return m->fri_roots ? &m->fri_roots[tree - GS_TREE_FRI] : NULL;
        }
    }
    if (!m->caps) return NULL;
    size_t lde = (size_t)1 << s->lde_cap, off;
    if (tree == GS_TREE_TRACE) off = 0;
    else if (tree == GS_TREE_CHUNK) off = lde;
    else if (tree == GS_TREE_AUX) off = 2 * lde + s->fri_cap_len;
    else {
        off = 2 * lde;
        for (uint32_t l = s->fri_first; l < tree - GS_TREE_FRI; l++) off += (size_t)1 << gs_cap_log(s, gs_fri_depth(s, l));
    }
    return m->caps + off;
}

void gs_cap_absorb(gs_transcript *tr, const char *label, const gs_digest *cap, unsigned cap_log) {
    for (size_t i = 0; i < (size_t)1 << cap_log; i++) gs_transcript_absorb_digest(tr, label, &cap[i]);
}

void gs_statement_absorb(gs_transcript *t, const gs_proof *p) {
    gs_transcript_absorb_digest(t, "air", &p->air_fingerprint);
    gs_transcript_absorb_u64(t, "log_n", p->log_n);
    const gs_params *q = &p->params;
    gs_fp params[5] = {q->log_blowup, q->log_final, q->grinding_bits, q->num_queries, q->log_arity};
    gs_transcript_absorb_fp(t, "params", params, 5);
    if (q->hash != GS_HASH_KECCAK256) gs_transcript_absorb_u64(t, "hash", q->hash);
    if (q->cap_height) gs_transcript_absorb_u64(t, "cap_height", q->cap_height);
    if (q->coset_leaves) gs_transcript_absorb_u64(t, "coset_leaves", q->coset_leaves);
    gs_transcript_absorb_fp(t, "public", p->pub, p->num_public);
}

void gs_multi_statement_absorb(gs_transcript *t, const gs_multi_proof *p) {
    const gs_params *q = &p->params;
    gs_fp params[5] = {q->log_blowup, q->log_final, q->grinding_bits, q->num_queries, q->log_arity};
    gs_transcript_absorb_fp(t, "params", params, 5);
    if (q->hash != GS_HASH_KECCAK256) gs_transcript_absorb_u64(t, "hash", q->hash);
    if (q->cap_height) gs_transcript_absorb_u64(t, "cap_height", q->cap_height);
    if (q->shared_fri) gs_transcript_absorb_u64(t, "shared_fri", q->shared_fri);
    if (q->coset_leaves) gs_transcript_absorb_u64(t, "coset_leaves", q->coset_leaves);
    gs_transcript_absorb_u64(t, "tables", p->num_tables);
    for (uint32_t i = 0; i < p->num_tables; i++) {
        const gs_proof *e = &p->tables[i];
        gs_transcript_absorb_digest(t, "air", &e->air_fingerprint);
        gs_transcript_absorb_u64(t, "log_n", e->log_n);
        gs_transcript_absorb_fp(t, "public", e->pub, e->num_public);
    }
}

gs_fp3 gs_draw_ood_point(gs_transcript *t, const gs_shape *s, gs_fp shift) {
    gs_fp3 cN = gs_fp3_from_fp(gs_fp_pow(shift, (uint64_t)1 << s->log_size)), one = gs_fp3_one();
    for (;;) {
        gs_fp3 z = gs_transcript_squeeze_fp3(t, "ood_z");
        gs_fp3 zn = z;
        for (unsigned i = 0; i < s->log_n; i++) zn = gs_fp3_sqr(zn);
        gs_fp3 zN = zn;
        for (unsigned i = s->log_n; i < s->log_size; i++) zN = gs_fp3_sqr(zN);
        if (!gs_fp3_eq(zn, one) && !gs_fp3_eq(zN, cN)) return z;
    }
}


void gs_deep_constants(gs_fp3 *k1, gs_fp3 *k2, const gs_fp3 *beta_pows, const gs_table_proof *t) {
    uint32_t C = t->num_cols, K = t->num_chunks, A = t->aux_cols;
    gs_fp3 a = gs_fp3_zero(), b = gs_fp3_zero();
    for (uint32_t c = 0; c < C; c++) {
        a = gs_fp3_add(a, gs_fp3_mul(beta_pows[c], t->ood_cur[c]));
        b = gs_fp3_add(b, gs_fp3_mul(beta_pows[C + c], t->ood_next[c]));
    }
    for (uint32_t j = 0; j < K; j++) a = gs_fp3_add(a, gs_fp3_mul(beta_pows[2 * C + j], t->ood_chunks[j]));
    for (uint32_t j = 0; j < A; j++) {
        a = gs_fp3_add(a, gs_fp3_mul(beta_pows[2 * C + K + j], t->ood_aux_cur[j]));
        b = gs_fp3_add(b, gs_fp3_mul(beta_pows[2 * C + K + A + j], t->ood_aux_next[j]));
    }
    *k1 = a;
    *k2 = b;
}

gs_status gs_fri_plan_make(gs_fri_plan *f, const gs_params *p, const uint32_t *log_n, uint32_t n) {
    if (!f || !p || !log_n || n == 0) return GS_ERR_INVALID_ARG;
    unsigned lo = 64, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        gs_shape s;
        GS_TRY(gs_shape_make(&s, p, log_n[i], 1, 1));
        if (log_n[i] < lo) lo = log_n[i];
        if (log_n[i] > hi) hi = log_n[i];
    }
    unsigned lf = p->log_final < lo ? p->log_final : lo;
    f->hash = (gs_hash_id)p->hash;
    f->log_size = hi + p->log_blowup;
    f->final_log_size = lf + p->log_blowup;
    f->final_len = 1u << lf;
    size_t N = (size_t)1 << f->log_size;
    f->queries = p->num_queries < N ? p->num_queries : (uint32_t)N;
    f->layers = 0;
    f->row_len = f->path_len = f->cap_len = 0;
    unsigned ls = f->log_size;
    while (ls > f->final_log_size) {
        unsigned next = f->final_log_size; /* the largest boundary below ls */
        for (uint32_t i = 0; i < n; i++) {
            unsigned t = log_n[i] + p->log_blowup;
            if (t < ls && t > next) next = t;
        }
        unsigned a = ls - next < p->log_arity ? ls - next : p->log_arity;
        if (f->layers >= GS_FRI_PLAN_MAX_LAYERS) return GS_ERR_INVALID_ARG;
        uint32_t l = f->layers++;
        f->lsize[l] = ls, f->folds[l] = a;
        unsigned depth = ls - a;
        f->cap_log[l] = p->cap_height < depth ? p->cap_height : depth;
        f->row_len += (size_t)3 << a;
        f->path_len += depth - f->cap_log[l];
        f->cap_len += (size_t)1 << f->cap_log[l];
        ls -= a;
    }
    return GS_OK;
}

uint32_t gs_fri_plan_join(const gs_fri_plan *f, unsigned log_size) {
    for (uint32_t l = 0; l < f->layers; l++)
        if (f->lsize[l] == log_size) return l;
    return f->layers;
}

size_t gs_fri_plan_cap_off(const gs_fri_plan *f, uint32_t l) {
    size_t off = 0;
    for (uint32_t i = 0; i < l && i < f->layers; i++) off += (size_t)1 << f->cap_log[i];
    return off;
}

void gs_shape_shared_table(gs_shape *s, uint32_t queries) {
    s->layers = 0, s->folds = 0, s->final_len = 0;
    s->fri_path_len = s->fri_row_len = s->fri_cap_len = 0;
    s->queries = queries;
}

void gs_fri_join_order(uint32_t *order, const uint32_t *log_n, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a; b > 0 && log_n[order[b]] > log_n[order[b - 1]]; b--) {
            uint32_t t = order[b];
            order[b] = order[b - 1], order[b - 1] = t;
        }
}

unsigned gs_shared_tree_depth(const gs_shape *s, uint32_t n, unsigned tree) {
    unsigned d = 0;
    for (uint32_t i = 0; s[0].shared_trees && i < n; i++)
        if (gs_shared_tree_holds(&s[i], tree) && s[i].lde_depth > d) d = s[i].lde_depth;
    return d;
}

const gs_fp *gs_tree_rows(const gs_table_proof *t, const gs_shape *s, unsigned tree, size_t *width) {
    *width = gs_tree_width(s, tree);
    return tree == GS_TREE_TRACE ? t->trace_rows : tree == GS_TREE_CHUNK ? t->chunk_rows : t->aux_rows;
}

int gs_digests_ok(gs_hash_id hash, const gs_digest *d, size_t n) {
    for (size_t i = 0; hash == GS_HASH_POSEIDON2 && i < n; i++) {
        gs_poseidon2_digest e;
        if (gs_poseidon2_digest_from_bytes(&e, &d[i]) != GS_OK) return 0;
    }
    return 1;
}

int gs_shared_trees_ok(const gs_shared_fri *sf, const gs_shape *s, uint32_t n) {
    static const gs_digest zero;
    for (unsigned i = 0; i < 3; i++) {
        unsigned d = gs_shared_tree_depth(s, n, i);
        if (sf->tree_depth[i] != d || !sf->tree_paths[i] != !d) return 0;
        if (!d && memcmp(&sf->tree_roots[i], &zero, sizeof zero) != 0) return 0;
        if (d && (!gs_digests_ok(s[0].hash, &sf->tree_roots[i], 1) ||
                  !gs_digests_ok(s[0].hash, sf->tree_paths[i], (size_t)sf->num_queries * d)))
            return 0;
    }
    return 1;
}
