/* The verifiers. They replay the transcript, check the constraints at the
 * out-of-domain point against the quotient chunks, the preprocessed columns
 * the caller knows at that point (verifier/fixed.c), and for every query:
 * the trace and chunk openings, the DEEP value, each FRI fold and the final
 * polynomial. They need proof/, never prover/. */
#include <stdlib.h>
#include <string.h>

#include "air/logup.h"
#include "air/ood.h"
#include "gstark/merkle.h"
#include "gstark/poseidon2.h"
#include "gstark/verifier.h"
#include "proof/shape.h"
#include "merkle/mixed.h"
#include "verifier/fixed.h"

static int fp_ok(const gs_fp *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] >= GS_FP_P) return 0;
    return 1;
}

static int fp3_ok(const gs_fp3 *v, size_t n) { return fp_ok((const gs_fp *)v, 3 * n); }

static int fp3_zero_canonical(gs_fp3 v) { return v.c[0] == 0 && v.c[1] == 0 && v.c[2] == 0; }

static int digest_is_zero(const gs_digest *d) {
    for (size_t i = 0; i < sizeof d->b; i++)
        if (d->b[i]) return 0;
    return 1;
}

/* Shape and canonical values: everything the statement implies. */
static gs_status check_shape(const gs_air *air, const gs_proof *p, gs_shape *s, uint32_t shared_q) {
    const gs_table_proof *t = &p->table;
    if (!memchr(p->air_desc, 0, sizeof p->air_desc)) return GS_ERR_PROOF_FORMAT;
    gs_digest fp = gs_air_fingerprint(air);
    if (memcmp(&fp, &p->air_fingerprint, sizeof fp) != 0 || p->num_public != gs_air_num_public(air) ||
        t->num_cols != gs_air_num_cols(air) || t->num_chunks != gs_air_num_chunks(air) ||
        gs_air_check_height(air, p->log_n) != GS_OK)
        return GS_ERR_PROOF_STATEMENT;
    if (gs_shape_make(s, &p->params, p->log_n, t->num_cols, t->num_chunks) != GS_OK)
        return GS_ERR_PROOF_PARAMS;
    /* Shared FRI: the table answers the shared queries and has no FRI part. */
    if (shared_q) {
        gs_shape_shared_table(s, shared_q);
        if (t->fri_roots || t->final_poly || t->fri_rows || t->fri_paths) return GS_ERR_PROOF_FORMAT;
    }
    if (gs_air_check_degree(air, p->params.log_blowup) != GS_OK) return GS_ERR_PROOF_PARAMS;
    for (uint32_t i = 0; i < gs_air_num_boundaries(air); i++) {
        uint32_t col;
        uint64_t row;
        if (gs_air_boundary_at(air, i, p->log_n, &col, &row) != GS_OK) return GS_ERR_PROOF_STATEMENT;
    }
    gs_logup L;
    GS_TRY(gs_logup_layout(&L, air));
    s->aux = L.aux_cols;
    gs_logup_free(&L);
    /* One aux column more than the groups: a proof made before 2026-12-05's
     * LogUp layout (air/logup.h), named for what it is; nothing is read. */
    if (s->aux && t->aux_cols == s->aux + 1) return GS_ERR_PROOF_LOGUP_V1;
    if (t->num_layers != s->layers || t->final_len != s->final_len || t->num_queries != s->queries ||
        t->aux_cols != s->aux || t->log_lde != s->log_size || t->fri_row_len != s->fri_row_len ||
        t->fri_path_len != s->fri_path_len || t->cap_height != s->cap_height)
        return GS_ERR_PROOF_FORMAT;
    /* With caps the roots are not sent: their fields must be empty (one
     * struct per file), and every cap must be there. */
    if (s->cap_height && (!t->caps || !digest_is_zero(&t->trace_root) ||
                          !digest_is_zero(&t->chunk_root) || !digest_is_zero(&t->aux_root) ||
                          !gs_digests_ok(s->hash, t->caps, gs_shape_cap_len(s))))
        return GS_ERR_PROOF_FORMAT;
    for (uint32_t l = 0; s->cap_height && t->fri_roots && l < s->layers; l++)
        if (!digest_is_zero(&t->fri_roots[l])) return GS_ERR_PROOF_FORMAT;
    /* Coset leaves: layer 0 has no root (a file gives a zero one). */
    if (s->fri_first && t->fri_roots && !digest_is_zero(&t->fri_roots[0])) return GS_ERR_PROOF_FORMAT;
    if (!s->cap_height && t->caps) return GS_ERR_PROOF_FORMAT;
    /* Shared trees: the table's rows are in the proof's trees, it has no
     * roots of its own (and its path arrays are not read). */
    if (s->shared_trees && (!digest_is_zero(&t->trace_root) || !digest_is_zero(&t->chunk_root) ||
                            !digest_is_zero(&t->aux_root) || t->trace_paths || t->chunk_paths ||
                            t->aux_paths))
        return GS_ERR_PROOF_FORMAT;
    int paths = !s->shared_trees; /* required with a table's own trees, absent with shared ones */
    /* A table without interactions adds nothing to any bus: its LogUp part
     * must be empty (the sum exactly zero, in canonical form), or a forged
     * sum there could cancel other tables' imbalance. */
    if (!s->aux && (!fp3_zero_canonical(t->bus_sum) || !digest_is_zero(&t->aux_root) ||
                    t->ood_aux_cur || t->ood_aux_next || t->aux_rows || t->aux_paths))
        return GS_ERR_PROOF_FORMAT;
    if (s->aux && (!t->ood_aux_cur || !t->ood_aux_next || !t->aux_rows || (paths && !t->aux_paths) ||
                   !fp3_ok(&t->bus_sum, 1) || !fp3_ok(t->ood_aux_cur, s->aux) ||
                   !fp3_ok(t->ood_aux_next, s->aux) ||
                   !fp_ok(t->aux_rows, s->queries * gs_lde_leaf_width(s, 3 * (size_t)s->aux))))
        return GS_ERR_PROOF_FORMAT;
    size_t Q = s->queries;
    if ((p->num_public && !p->pub) || !t->ood_cur || !t->ood_next || !t->ood_chunks ||
        (s->layers && !t->fri_roots) || (!shared_q && !t->final_poly) || !t->trace_rows ||
        (paths && !t->trace_paths) || !t->chunk_rows || (paths && !t->chunk_paths) ||
        (s->layers && (!t->fri_rows || !t->fri_paths)))
        return GS_ERR_PROOF_FORMAT;
    if (!fp_ok(p->pub, p->num_public) || !fp3_ok(t->ood_cur, s->cols) ||
        !fp3_ok(t->ood_next, s->cols) || !fp3_ok(t->ood_chunks, s->chunks) ||
        !fp3_ok(t->final_poly, s->final_len) || !fp_ok(t->trace_rows, Q * gs_lde_leaf_width(s, s->cols)) ||
        !fp_ok(t->chunk_rows, Q * gs_lde_leaf_width(s, 3 * (size_t)s->chunks)) ||
        !fp_ok(t->fri_rows, Q * s->fri_row_len))
        return GS_ERR_PROOF_FORMAT;
    if (!gs_digests_ok(s->hash, &t->trace_root, 1) || !gs_digests_ok(s->hash, &t->chunk_root, 1) ||
        !gs_digests_ok(s->hash, t->fri_roots, s->layers) ||
        !gs_digests_ok(s->hash, t->trace_paths, Q * s->lde_path_len) ||
        !gs_digests_ok(s->hash, t->chunk_paths, Q * s->lde_path_len) ||
        !gs_digests_ok(s->hash, t->fri_paths, Q * s->fri_path_len) ||
        (s->aux && (!gs_digests_ok(s->hash, &t->aux_root, 1) ||
                    !gs_digests_ok(s->hash, t->aux_paths, Q * s->lde_path_len))))
        return GS_ERR_PROOF_FORMAT;
    return GS_OK;
}

/* The statement's LogUp challenges (a table without buses may have none). */
typedef struct {
    gs_fp3 z, alpha;
} bus_challenges;

/* The composition at z from the constraints (air/ood.h), against sum_j
 * z^(j n) Q_j(z). */
static gs_status check_ood(const gs_air *air, const gs_proof *p, const gs_shape *s, gs_fp3 alpha,
                           gs_fp3 z, const bus_challenges *bc) {
    const gs_table_proof *t = &p->table;
    gs_ood_values v = {t->ood_cur, t->ood_next, t->ood_aux_cur, t->ood_aux_next, t->bus_sum,
                       bc ? bc->z : gs_fp3_zero(), bc ? bc->alpha : gs_fp3_zero()};
    gs_fp3 total, chunks = gs_fp3_zero(), zjn = gs_fp3_one();
    GS_TRY(gs_air_ood_composition(air, s->log_n, p->pub, &v, alpha, z, &total));
    gs_fp3 zn = gs_fp3_pow(z, (uint64_t)1 << s->log_n);
    for (uint32_t j = 0; j < s->chunks; j++)
        chunks = gs_fp3_add(chunks, gs_fp3_mul(zjn, t->ood_chunks[j])), zjn = gs_fp3_mul(zjn, zn);
    return gs_fp3_eq(total, chunks) ? GS_OK : GS_ERR_PROOF_OOD;
}

typedef struct {
    gs_fp3 z, zw, k1, k2;
    gs_fp3 *beta_pows;
    gs_fp3 *gammas;
} query_ctx;

/* Query k of a table at its position q: the openings of its trees, at the
 * leaf q mod M (M = 2^lde_depth), and the DEEP values at the leaf's
 * 2^lde_fold points x_(leaf + i M), i < 2^lde_fold, into out[i] (out[0]
 * is x_q's without coset leaves). */
static gs_status table_value(const gs_proof *p, const gs_shape *s, const query_ctx *qc, size_t k,
                             size_t q, gs_fp3 *out) {
    const gs_table_proof *t = &p->table;
    gs_fp shift = GS_FP_GENERATOR;
    size_t F = (size_t)1 << s->lde_fold, M = (size_t)1 << s->lde_depth, leaf = q & (M - 1);
    size_t tw = gs_lde_leaf_width(s, s->cols), cw = gs_lde_leaf_width(s, 3 * (size_t)s->chunks);
    size_t aw = gs_lde_leaf_width(s, 3 * (size_t)s->aux);
    const gs_fp *trow = t->trace_rows + k * tw, *crow = t->chunk_rows + k * cw;
    unsigned plen = s->lde_path_len, cl = s->lde_cap, d = s->lde_depth;
    const gs_fp *arow = s->aux ? t->aux_rows + k * aw : NULL;
    /* (With shared trees verify_shared checks the rows against the trees.) */
    if (!s->shared_trees &&
        gs_merkle_verify_cap(s->hash, gs_table_cap(t, s, GS_TREE_TRACE), cl, d, leaf, trow, tw,
                             t->trace_paths + k * plen) != GS_OK)
        return GS_ERR_PROOF_TRACE_PATH;
    if (!s->shared_trees &&
        gs_merkle_verify_cap(s->hash, gs_table_cap(t, s, GS_TREE_CHUNK), cl, d, leaf, crow, cw,
                             t->chunk_paths + k * plen) != GS_OK)
        return GS_ERR_PROOF_CHUNK_PATH;
    if (!s->shared_trees && s->aux &&
        gs_merkle_verify_cap(s->hash, gs_table_cap(t, s, GS_TREE_AUX), cl, d, leaf, arow, aw,
                             t->aux_paths + k * plen) != GS_OK)
        return GS_ERR_PROOF_AUX_PATH;
    /* DEEP at each point i of the leaf: (S1(x) - K1) / (x - z) + (S2(x) - K2)
     * / (x - z w); column c's value there is the leaf's element c F + i. */
    gs_fp w = gs_fp_root_of_unity(s->log_size);
    for (size_t i = 0; i < F; i++) {
        gs_fp3 x = gs_fp3_from_fp(gs_fp_mul(shift, gs_fp_pow(w, leaf + i * M)));
        gs_fp3 s1 = gs_fp3_neg(qc->k1), s2 = gs_fp3_neg(qc->k2);
        for (uint32_t c = 0; c < s->cols; c++) {
            s1 = gs_fp3_add(s1, gs_fp3_mul_fp(qc->beta_pows[c], trow[c * F + i]));
            s2 = gs_fp3_add(s2, gs_fp3_mul_fp(qc->beta_pows[s->cols + c], trow[c * F + i]));
        }
        for (uint32_t j = 0; j < s->chunks; j++)
            s1 = gs_fp3_add(s1, gs_fp3_mul(qc->beta_pows[2 * s->cols + j],
                                           gs_fp3_make(crow[3 * j * F + i], crow[(3 * j + 1) * F + i],
                                                       crow[(3 * j + 2) * F + i])));
        for (uint32_t j = 0; j < s->aux; j++) {
            gs_fp3 v = gs_fp3_make(arow[3 * j * F + i], arow[(3 * j + 1) * F + i], arow[(3 * j + 2) * F + i]);
            s1 = gs_fp3_add(s1, gs_fp3_mul(qc->beta_pows[2 * s->cols + s->chunks + j], v));
            s2 = gs_fp3_add(s2, gs_fp3_mul(qc->beta_pows[2 * s->cols + s->chunks + s->aux + j], v));
        }
        out[i] = gs_fp3_add(gs_fp3_mul(s1, gs_fp3_inv(gs_fp3_sub(x, qc->z))),
                            gs_fp3_mul(s2, gs_fp3_inv(gs_fp3_sub(x, qc->zw))));
    }
    return GS_OK;
}

/* The 2^a values v of a leaf (leaf + i M on shift * <w_(2^log_size)>)
 * folded a times by 2 with gamma, gamma^2, ...: the next word's value at
 * position leaf, in v[0]. */
static void refold(gs_fp3 *v, unsigned a, size_t leaf, size_t M, unsigned log_size, gs_fp sh,
                   gs_fp3 g) {
    size_t width = (size_t)1 << a;
    gs_fp inv2 = gs_fp_inv(2);
    /* After j folds v[i] is the value at leaf + i M on shift^(2^j) <w_(N_l / 2^j)>;
     * it pairs with v[i + half], half the domain away. */
    for (unsigned j = 0; j < a; j++, log_size--, sh = gs_fp_sqr(sh), g = gs_fp3_sqr(g)) {
        size_t half = width >> (j + 1);
        gs_fp w = gs_fp_root_of_unity(log_size);
        for (size_t i = 0; i < half; i++) {
            gs_fp xi = gs_fp_mul(sh, gs_fp_pow(w, leaf + i * M));
            gs_fp3 lo = v[i], hi = v[i + half];
            gs_fp3 odd = gs_fp3_mul(g, gs_fp3_mul_fp(gs_fp3_sub(lo, hi), gs_fp_inv(xi)));
            v[i] = gs_fp3_mul_fp(gs_fp3_add(gs_fp3_add(lo, hi), odd), inv2);
        }
    }
}

/* One query: openings, DEEP value, folds, final polynomial. */
static gs_status check_query(const gs_proof *p, const gs_shape *s, const query_ctx *qc, size_t k,
                             size_t q) {
    const gs_table_proof *t = &p->table;
    gs_fp shift = GS_FP_GENERATOR;
    gs_fp3 v[1u << GS_MAX_LOG_ARITY];
    GS_TRY(table_value(p, s, qc, k, q, v));
    gs_fp3 val = v[0];
    size_t pos = q;
    gs_fp sh = shift;
    /* Coset leaves: layer 0's leaf is the openings' DEEP values; refolded
     * into layer 1's value at the leaf's position. */
    if (s->fri_first) {
        size_t M = (size_t)1 << s->lde_depth;
        refold(v, s->lde_fold, q & (M - 1), M, s->log_size, sh, qc->gammas[0]);
        for (unsigned j = 0; j < s->lde_fold; j++) sh = gs_fp_sqr(sh);
        val = v[0];
        pos = q & (M - 1);
    }
    /* FRI: at layer l (domain N_l = 2^gs_fri_log_size, a = gs_fri_folds) the
     * position is q mod N_l; its leaf, q mod M with M = N_l / 2^a, holds the
     * 2^a values at leaf + i M, which fold a times by 2 (gamma, gamma^2, ...)
     * into the next layer's value at the position leaf. */
    const gs_fp *row = t->fri_rows + k * s->fri_row_len;
    const gs_digest *path = t->fri_paths + k * s->fri_path_len;
    for (uint32_t l = s->fri_first; l < s->layers; l++) {
        unsigned log_size = gs_fri_log_size(s, l), a = gs_fri_folds(s, l), depth = log_size - a;
        unsigned cap = gs_cap_log(s, depth);
        size_t width = (size_t)1 << a, M = (size_t)1 << depth, leaf = pos & (M - 1);
        if (gs_merkle_verify_cap(s->hash, gs_table_cap(t, s, GS_TREE_FRI + l), cap, depth, leaf, row,
                                 3 * width, path) != GS_OK)
            return GS_ERR_PROOF_FRI_PATH;
        for (size_t i = 0; i < width; i++) v[i] = gs_fp3_make(row[i], row[width + i], row[2 * width + i]);
        if (!gs_fp3_eq(v[pos >> depth], val)) return l ? GS_ERR_PROOF_FRI_FOLD : GS_ERR_PROOF_DEEP;
        path += depth - cap, row += 3 * width;
        refold(v, a, leaf, M, log_size, sh, qc->gammas[l]);
        for (unsigned j = 0; j < a; j++) sh = gs_fp_sqr(sh);
        val = v[0];
        pos = leaf;
    }
    gs_fp3 xf = gs_fp3_from_fp(gs_fp_mul(sh, gs_fp_pow(gs_fp_root_of_unity(s->log_size - s->folds), pos)));
    gs_fp3 pv = gs_fp3_zero();
    for (uint32_t i = t->final_len; i-- > 0;) pv = gs_fp3_add(gs_fp3_mul(pv, xf), t->final_poly[i]);
    if (!gs_fp3_eq(pv, val)) return s->layers ? GS_ERR_PROOF_FRI_FINAL : GS_ERR_PROOF_DEEP;
    return GS_OK;
}

/* The caller's preprocessed columns, and which table this chain is. */
typedef struct {
    const gs_fixed_col *cols;
    size_t num;
    uint32_t table;
} fixed_ctx;

/* A table's transcript from its aux root to beta (after its main root):
 * qc's z, z w and beta powers (allocated here, with room for the gammas),
 * *alpha. */
static gs_status chain_head(const gs_proof *p, const gs_shape *sp, gs_transcript *tr,
                            const gs_digest *roots, query_ctx *qc, gs_fp3 *alpha) {
    gs_shape s = *sp;
    const gs_table_proof *t = &p->table;
    if (s.aux) {
        if (roots) gs_transcript_absorb_digest(tr, "aux_root", &roots[GS_TREE_AUX]);
        else gs_cap_absorb(tr, "aux_root", gs_table_cap(t, &s, GS_TREE_AUX), s.lde_cap);
        gs_transcript_absorb_fp3(tr, "bus_sum", &t->bus_sum, 1);
    }
    *alpha = gs_transcript_squeeze_fp3(tr, "alpha");
    if (roots) gs_transcript_absorb_digest(tr, "chunk_root", &roots[GS_TREE_CHUNK]);
    else gs_cap_absorb(tr, "chunk_root", gs_table_cap(t, &s, GS_TREE_CHUNK), s.lde_cap);
    qc->z = gs_draw_ood_point(tr, &s, GS_FP_GENERATOR);
    qc->zw = gs_fp3_mul_fp(qc->z, gs_fp_root_of_unity(s.log_n));
    gs_transcript_absorb_fp3(tr, "ood_cur", t->ood_cur, s.cols);
    gs_transcript_absorb_fp3(tr, "ood_next", t->ood_next, s.cols);
    gs_transcript_absorb_fp3(tr, "ood_chunks", t->ood_chunks, s.chunks);
    if (s.aux) {
        gs_transcript_absorb_fp3(tr, "ood_aux_cur", t->ood_aux_cur, s.aux);
        gs_transcript_absorb_fp3(tr, "ood_aux_next", t->ood_aux_next, s.aux);
    }
    gs_fp3 beta = gs_transcript_squeeze_fp3(tr, "beta");
    size_t nbeta = 2 * (size_t)s.cols + s.chunks + 2 * (size_t)s.aux;
    qc->beta_pows = malloc((nbeta + 1) * sizeof *qc->beta_pows);
    qc->gammas = malloc((s.layers + 1) * sizeof *qc->gammas);
    if (!qc->beta_pows || !qc->gammas) return GS_ERR_NOMEM;
    gs_fp3_powers(qc->beta_pows, beta, nbeta);
    return GS_OK;
}

/* One table's checks inside its transcript (after its main root). */
static gs_status verify_chain(const gs_air *air, const gs_proof *p, const gs_shape *sp,
                              gs_transcript *tr, const bus_challenges *bc, const fixed_ctx *fx) {
    gs_shape s = *sp;
    const gs_table_proof *t = &p->table;
    if (p->params.shared_fri) return GS_ERR_PROOF_PARAMS;
    query_ctx qc = {0};
    gs_fp3 alpha = gs_fp3_zero();
    size_t *qs = malloc((s.queries + 1) * sizeof *qs);
    gs_status r = qs ? chain_head(p, &s, tr, NULL, &qc, &alpha) : GS_ERR_NOMEM;
    if (r == GS_OK) {
        for (uint32_t l = 0; l < s.layers; l++) {
            if (l >= s.fri_first) /* coset leaves: layer 0 is not committed */
                gs_cap_absorb(tr, "fri_root", gs_table_cap(t, &s, GS_TREE_FRI + l),
                              gs_cap_log(&s, gs_fri_depth(&s, l)));
            qc.gammas[l] = gs_transcript_squeeze_fp3(tr, "fri_gamma");
        }
        gs_transcript_absorb_fp3(tr, "fri_final", t->final_poly, s.final_len);
        if (gs_transcript_check_pow(tr, p->params.grinding_bits, t->pow_nonce) != GS_OK)
            r = GS_ERR_PROOF_POW;
    }
    if (r == GS_OK) r = gs_transcript_squeeze_indices(tr, "queries", qs, s.queries, s.log_size);
    if (r == GS_OK) r = check_ood(air, p, &s, alpha, qc.z, bc);
    if (r == GS_OK) r = gs_fixed_check_ood(p, fx->table, fx->cols, fx->num, qc.z, qc.zw);
    if (r == GS_OK) gs_deep_constants(&qc.k1, &qc.k2, qc.beta_pows, t);
    /* A version 3 file is indexed by the positions it carries: they must be
     * the drawn ones. */
    for (size_t k = 0; r == GS_OK && t->query_pos && k < s.queries; k++)
        if (t->query_pos[k] != qs[k]) r = GS_ERR_PROOF_QUERIES;
    for (size_t k = 0; r == GS_OK && k < s.queries; k++) r = check_query(p, &s, &qc, k, qs[k]);
    free(qc.beta_pows), free(qc.gammas), free(qs);
    return r;
}

/* The shared FRI's shape against the plan the tables' heights give. */
static int fri_shape_ok(const gs_shared_fri *sf, const gs_fri_plan *f) {
    size_t Q = f->queries;
    if (sf->log_lde != f->log_size || sf->num_layers != f->layers || sf->cap_len != f->cap_len ||
        sf->final_len != f->final_len || sf->num_queries != f->queries ||
        sf->fri_row_len != f->row_len || sf->fri_path_len != f->path_len || !sf->caps ||
        !sf->final_poly || !sf->query_pos || (f->layers && (!sf->fri_rows || !sf->fri_paths)))
        return 0;
    return fp3_ok(sf->final_poly, f->final_len) && fp_ok(sf->fri_rows, Q * f->row_len) &&
           gs_digests_ok(f->hash, sf->caps, f->cap_len) && gs_digests_ok(f->hash, sf->fri_paths, Q * f->path_len);
}

/* The shared FRI for query k at position q (of the largest domain), given
 * every table's DEEP value there (val[t], each at q mod its LDE size) and
 * its coefficient lam[t] (1 for the first in join order): the combination
 * the prover committed, layer by layer, with every table added where it
 * joins, refolded, and the final polynomial. */
static gs_status shared_query(const gs_shared_fri *sf, const gs_fri_plan *f, const gs_fp3 *gammas,
                              const uint32_t *join, const gs_fp3 *lam, const gs_fp3 *val, uint32_t n,
                              size_t k, size_t q) {
    gs_fp3 acc = gs_fp3_zero(), v[1u << GS_MAX_LOG_ARITY];
    for (uint32_t t = 0; t < n; t++)
        if (join[t] == 0) acc = gs_fp3_add(acc, gs_fp3_mul(lam[t], val[t]));
    const gs_fp *row = sf->fri_rows + k * f->row_len;
    const gs_digest *path = sf->fri_paths + k * f->path_len;
    size_t pos = q;
    gs_fp sh = GS_FP_GENERATOR;
    for (uint32_t l = 0; l < f->layers; l++) {
        if (l)
            for (uint32_t t = 0; t < n; t++)
                if (join[t] == l) acc = gs_fp3_add(acc, gs_fp3_mul(lam[t], val[t]));
        unsigned a = f->folds[l], depth = gs_fri_plan_depth(f, l), cap = f->cap_log[l];
        size_t width = (size_t)1 << a, M = (size_t)1 << depth, leaf = pos & (M - 1);
        if (gs_merkle_verify_cap(f->hash, sf->caps + gs_fri_plan_cap_off(f, l), cap, depth, leaf, row,
                                 3 * width, path) != GS_OK)
            return GS_ERR_PROOF_FRI_PATH;
        for (size_t i = 0; i < width; i++) v[i] = gs_fp3_make(row[i], row[width + i], row[2 * width + i]);
        if (!gs_fp3_eq(v[pos >> depth], acc)) return l ? GS_ERR_PROOF_FRI_FOLD : GS_ERR_PROOF_DEEP;
        path += depth - cap, row += 3 * width;
        refold(v, a, leaf, M, f->lsize[l], sh, gammas[l]);
        for (unsigned j = 0; j < a; j++) sh = gs_fp_sqr(sh);
        acc = v[0];
        pos = leaf;
    }
    for (uint32_t t = 0; t < n; t++)
        if (join[t] == f->layers && (f->layers || join[t] != 0)) acc = gs_fp3_add(acc, gs_fp3_mul(lam[t], val[t]));
    gs_fp3 xf = gs_fp3_from_fp(gs_fp_mul(sh, gs_fp_pow(gs_fp_root_of_unity(f->final_log_size), pos)));
    gs_fp3 pv = gs_fp3_zero();
    for (uint32_t i = f->final_len; i-- > 0;) pv = gs_fp3_add(gs_fp3_mul(pv, xf), sf->final_poly[i]);
    if (!gs_fp3_eq(pv, acc)) return f->layers ? GS_ERR_PROOF_FRI_FINAL : GS_ERR_PROOF_DEEP;
    return GS_OK;
}

/* Query k (position q of the largest domain) in the shared trees: each
 * table's opened rows (at q mod its LDE size), hashed as leaves, and the
 * query's path must give the tree's root. */
static gs_status check_trees(const gs_multi_proof *mp, const gs_shape *s, size_t k, size_t q) {
    static const gs_status err[3] = {GS_ERR_PROOF_TRACE_PATH, GS_ERR_PROOF_CHUNK_PATH,
                                     GS_ERR_PROOF_AUX_PATH};
    const gs_shared_fri *sf = mp->fri;
    uint32_t n = mp->num_tables;
    gs_digest *rowd = malloc(n * sizeof *rowd);
    unsigned *log_rows = malloc(n * sizeof *log_rows);
    gs_status r = rowd && log_rows ? GS_OK : GS_ERR_NOMEM;
    for (unsigned tree = 0; r == GS_OK && tree < 3; tree++) {
        unsigned d = sf->tree_depth[tree];
        uint32_t m = 0;
        for (uint32_t i = 0; d && i < n; i++) {
            if (!gs_shared_tree_holds(&s[i], tree)) continue;
            size_t w;
            const gs_fp *rows = gs_tree_rows(&mp->tables[i].table, &s[i], tree, &w);
            gs_merkle_leaf(s[i].hash, &rowd[m], rows + k * w, w);
            log_rows[m++] = s[i].lde_depth;
        }
        if (!d) continue;
        gs_digest root;
        if (gs_mixed_root_of(s[0].hash, &root, q & (((size_t)1 << d) - 1), rowd, log_rows, m,
                             sf->tree_paths[tree] + k * d) != GS_OK ||
            memcmp(&root, &sf->tree_roots[tree], sizeof root) != 0)
            r = err[tree];
    }
    free(rowd), free(log_rows);
    return r;
}

/* A shared-FRI proof's chains (after the bus challenges; tr is the multi
 * transcript): every table's fork to beta and its out-of-domain checks,
 * the forks' states absorbed in table order, the shared FRI's transcript
 * (lambdas, layer caps, gammas, final polynomial), the proof of work, the
 * queries, then every query over every table and the FRI. */
static gs_status verify_shared(const gs_air *const *airs, uint32_t n, const gs_multi_proof *mp,
                               const gs_shape *s, const gs_fri_plan *f, gs_transcript *tr,
                               const bus_challenges *bc, const gs_fixed_col *fixed, size_t num_fixed) {
    const gs_shared_fri *sf = mp->fri;
    query_ctx *qc = calloc(n, sizeof *qc);
    gs_digest *chain = malloc(n * sizeof *chain);
    uint32_t *order = malloc(n * sizeof *order), *join = malloc(n * sizeof *join);
    uint32_t *log_n = malloc(n * sizeof *log_n);
    gs_fp3 *lam = malloc(n * sizeof *lam), *val = malloc(n * sizeof *val);
    gs_fp3 *gammas = malloc((f->layers + 1) * sizeof *gammas);
    size_t *qs = malloc((f->queries + 1) * sizeof *qs);
    gs_status r = qc && chain && order && join && log_n && lam && val && gammas && qs ? GS_OK : GS_ERR_NOMEM;
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        const gs_proof *p = &mp->tables[i];
        gs_transcript fork;
        gs_transcript_fork(&fork, tr, i);
        gs_fp3 alpha = gs_fp3_zero();
        r = chain_head(p, &s[i], &fork, s[i].shared_trees ? sf->tree_roots : NULL, &qc[i], &alpha);
        chain[i] = fork.state;
        if (r == GS_OK) r = check_ood(airs[i], p, &s[i], alpha, qc[i].z, bc);
        if (r == GS_OK) r = gs_fixed_check_ood(p, i, fixed, num_fixed, qc[i].z, qc[i].zw);
        if (r == GS_OK) gs_deep_constants(&qc[i].k1, &qc[i].k2, qc[i].beta_pows, &p->table);
        log_n[i] = p->log_n;
    }
    if (r == GS_OK) {
        for (uint32_t i = 0; i < n; i++) gs_transcript_absorb_digest(tr, "table_chain", &chain[i]);
        gs_fri_join_order(order, log_n, n);
        for (uint32_t i = 0; i < n; i++) join[i] = gs_fri_plan_join(f, s[i].log_size);
        lam[order[0]] = gs_fp3_one();
        /* The lambdas of a layer's joiners are drawn before its commitment
         * (after the previous layer's gamma), in join order. */
        for (uint32_t l = 0; l <= f->layers; l++) {
            for (uint32_t j = 1; j < n; j++)
                if (join[order[j]] == l) lam[order[j]] = gs_transcript_squeeze_fp3(tr, "fri_join");
            if (l == f->layers) break;
            gs_cap_absorb(tr, "fri_root", sf->caps + gs_fri_plan_cap_off(f, l), f->cap_log[l]);
            gammas[l] = gs_transcript_squeeze_fp3(tr, "fri_gamma");
        }
        gs_transcript_absorb_fp3(tr, "fri_final", sf->final_poly, f->final_len);
        if (gs_transcript_check_pow(tr, mp->params.grinding_bits, sf->pow_nonce) != GS_OK)
            r = GS_ERR_PROOF_POW;
    }
    if (r == GS_OK) r = gs_transcript_squeeze_indices(tr, "queries", qs, f->queries, f->log_size);
    for (size_t k = 0; r == GS_OK && k < f->queries; k++)
        if (sf->query_pos[k] != qs[k]) r = GS_ERR_PROOF_QUERIES;
    /* Every table's positions are the shared ones reduced to its LDE size. */
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        const gs_table_proof *t = &mp->tables[i].table;
        size_t mask = ((size_t)1 << s[i].log_size) - 1;
        for (size_t k = 0; r == GS_OK && t->query_pos && k < f->queries; k++)
            if (t->query_pos[k] != (qs[k] & mask)) r = GS_ERR_PROOF_QUERIES;
    }
    for (size_t k = 0; r == GS_OK && k < f->queries; k++) {
        if (s[0].shared_trees) r = check_trees(mp, s, k, qs[k]);
        for (uint32_t i = 0; r == GS_OK && i < n; i++)
            r = table_value(&mp->tables[i], &s[i], &qc[i], k, qs[k] & (((size_t)1 << s[i].log_size) - 1),
                            &val[i]);
        if (r == GS_OK) r = shared_query(sf, f, gammas, join, lam, val, n, k, qs[k]);
    }
    for (uint32_t i = 0; qc && i < n; i++) free(qc[i].beta_pows), free(qc[i].gammas);
    free(qc), free(chain), free(order), free(join), free(log_n), free(lam), free(val), free(gammas), free(qs);
    return r;
}

/* GS_ERR_INVALID_ARG for a minimum no proof can meet (above
 * GS_MAX_SECURITY_BITS), GS_ERR_PROOF_PARAMS for parameters out of range or
 * below it. */
static gs_status check_params(const gs_params *p, unsigned min_security_bits) {
    gs_status r = gs_params_check(p, min_security_bits ? min_security_bits : GS_MIN_SECURITY_BITS);
    return r == GS_OK || r == GS_ERR_INVALID_ARG ? r : GS_ERR_PROOF_PARAMS;
}

gs_status gs_verify_fixed(const gs_air *air, const gs_proof *p, const gs_fixed_col *fixed,
                          size_t num_fixed, unsigned min_security_bits) {
    if (!air || !p) return GS_ERR_INVALID_ARG;
    GS_TRY(gs_fixed_check_args(&air, 1, fixed, num_fixed));
    GS_TRY(check_params(&p->params, min_security_bits));
    /* A bus balances only across the tables of a multi-table proof. */
    if (gs_air_num_interactions(air)) return GS_ERR_PROOF_STATEMENT;
    gs_shape s;
    if (p->params.shared_fri) return GS_ERR_PROOF_PARAMS; /* a multi-table parameter */
    GS_TRY(check_shape(air, p, &s, 0));
    GS_TRY(gs_fixed_check_heights(p, fixed, num_fixed));
    gs_transcript tr;
    gs_transcript_init(&tr, (gs_hash_id)p->params.hash, GS_TRANSCRIPT_DOMAIN);
    gs_statement_absorb(&tr, p);
    gs_cap_absorb(&tr, "trace_root", gs_table_cap(&p->table, &s, GS_TREE_TRACE), s.lde_cap);
    fixed_ctx fx = {fixed, num_fixed, 0};
    return verify_chain(air, p, &s, &tr, NULL, &fx);
}

gs_status gs_verify(const gs_air *air, const gs_proof *p, unsigned min_security_bits) {
    return gs_verify_fixed(air, p, NULL, 0, min_security_bits);
}

gs_status gs_verify_multi(const gs_air *const *airs, uint32_t n, const gs_multi_proof *mp,
                          unsigned min_security_bits) {
    return gs_verify_multi_fixed(airs, n, mp, NULL, 0, min_security_bits);
}

gs_status gs_verify_multi_fixed(const gs_air *const *airs, uint32_t n, const gs_multi_proof *mp,
                                const gs_fixed_col *fixed, size_t num_fixed,
                                unsigned min_security_bits) {
    if (!airs || !mp) return GS_ERR_INVALID_ARG;
    GS_TRY(gs_fixed_check_args(airs, n, fixed, num_fixed));
    GS_TRY(check_params(&mp->params, min_security_bits));
    if (mp->num_tables != n || n == 0 || !mp->tables) return GS_ERR_PROOF_STATEMENT;
    gs_shape *s = malloc(n * sizeof *s);
    if (!s) return GS_ERR_NOMEM;
    gs_status r = GS_OK;
    /* Shared FRI: its plan from the tables' heights, its part against it. */
    int shared = mp->params.shared_fri != 0;
    gs_fri_plan plan = {0};
    if (shared != (mp->fri != NULL)) r = GS_ERR_PROOF_FORMAT;
    for (uint32_t i = 0; r == GS_OK && shared && i < n; i++)
        if (!airs[i]) r = GS_ERR_INVALID_ARG;
    if (r == GS_OK && shared) {
        uint32_t *log_n = malloc(n * sizeof *log_n);
        if (!log_n) r = GS_ERR_NOMEM;
        for (uint32_t i = 0; r == GS_OK && i < n; i++) log_n[i] = mp->tables[i].log_n;
        if (r == GS_OK && gs_fri_plan_make(&plan, &mp->params, log_n, n) != GS_OK) r = GS_ERR_PROOF_PARAMS;
        free(log_n);
        if (r == GS_OK && !fri_shape_ok(mp->fri, &plan)) r = GS_ERR_PROOF_FORMAT;
    }
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        if (!airs[i]) r = GS_ERR_INVALID_ARG;
        else if (memcmp(&mp->tables[i].params, &mp->params, sizeof mp->params) != 0) r = GS_ERR_PROOF_PARAMS;
        else r = check_shape(airs[i], &mp->tables[i], &s[i], shared ? plan.queries : 0);
    }
    /* The statement itself: one tuple width per bus over all its tables. */
    if (r == GS_OK) {
        gs_status w = gs_logup_check_widths(airs, n);
        if (w != GS_OK) r = w == GS_ERR_NOMEM ? w : GS_ERR_PROOF_STATEMENT;
    }
    if (r == GS_OK && shared && !gs_shared_trees_ok(mp->fri, s, n)) r = GS_ERR_PROOF_FORMAT;
    if (r == GS_OK) r = gs_fixed_check_heights(mp->tables, fixed, num_fixed);
    gs_transcript tr;
    gs_transcript_init(&tr, (gs_hash_id)mp->params.hash, GS_TRANSCRIPT_DOMAIN_MULTI);
    if (r == GS_OK) gs_multi_statement_absorb(&tr, mp);
    if (r == GS_OK && s[0].shared_trees) gs_transcript_absorb_digest(&tr, "trace_root", &mp->fri->tree_roots[GS_TREE_TRACE]);
    for (uint32_t i = 0; r == GS_OK && !s[0].shared_trees && i < n; i++)
        gs_cap_absorb(&tr, "trace_root", gs_table_cap(&mp->tables[i].table, &s[i], GS_TREE_TRACE),
                      s[i].lde_cap);
    bus_challenges bc = {gs_fp3_zero(), gs_fp3_zero()};
    if (r == GS_OK) {
        bc.z = gs_transcript_squeeze_fp3(&tr, "bus_z");
        bc.alpha = gs_transcript_squeeze_fp3(&tr, "bus_alpha");
    }
    gs_fp3 total = gs_fp3_zero();
    if (r == GS_OK && shared) {
        r = verify_shared(airs, n, mp, s, &plan, &tr, &bc, fixed, num_fixed);
        for (uint32_t i = 0; r == GS_OK && i < n; i++) total = gs_fp3_add(total, mp->tables[i].table.bus_sum);
    }
    for (uint32_t i = 0; r == GS_OK && !shared && i < n; i++) {
        gs_transcript fork;
        gs_transcript_fork(&fork, &tr, i);
        fixed_ctx fx = {fixed, num_fixed, i};
        r = verify_chain(airs[i], &mp->tables[i], &s[i], &fork, &bc, &fx);
        total = gs_fp3_add(total, mp->tables[i].table.bus_sum);
    }
    if (r == GS_OK && !gs_fp3_is_zero(total)) r = GS_ERR_PROOF_BUS;
    free(s);
    return r;
}
