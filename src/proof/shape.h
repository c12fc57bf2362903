/* What prover and verifier must agree on beyond the bytes of the proof:
 * the shape of a sub-proof implied by the statement, the statement's
 * transcript encoding, and the out-of-domain point rule. One definition,
 * used by both sides. */
#ifndef GSTARK_PROOF_SHAPE_H
#define GSTARK_PROOF_SHAPE_H

#include "gstark/proof.h"
#include "gstark/transcript.h"

#define GS_TRANSCRIPT_DOMAIN "gstark-v1"
#define GS_TRANSCRIPT_DOMAIN_MULTI "gstark-multi-v1"
#define GS_MAX_LOG_LDE 30u /* largest LDE domain: 2^30 rows */

typedef struct gs_shape {
    unsigned log_n, log_blowup, log_size; /* trace, blowup, LDE domain N = 2^log_size */
    uint32_t cols, chunks;
    uint32_t aux;            /* LogUp aux columns (Fp3); set by the caller, 0 by default */
    uint32_t layers;         /* committed FRI layers */
    uint32_t log_arity;      /* each layer folds 2^log_arity to 1 (the last one maybe less) */
    uint32_t folds;          /* folds by 2 over all layers: log_n - log_final, or 0 */
    uint32_t final_len;      /* coefficients of the final polynomial */
    uint32_t queries;        /* drawn: min(num_queries, N) */
    size_t fri_path_len;     /* digests per query over all layers (one path a layer, each
                                stopping below its cap) */
    size_t fri_row_len;      /* field elements per query over all layers (one leaf a layer) */
    gs_hash_id hash;         /* the commitments' and the transcript's hash (params.hash) */
    unsigned cap_height;     /* params.cap_height: h (docs/protocol.md, "Merkle caps") */
    unsigned lde_cap;        /* min(h, log_size): the cap height of the trace, chunk and aux trees */
    unsigned lde_path_len;   /* log_size - lde_cap: digests per path in those trees */
    size_t fri_cap_len;      /* digests in all FRI layers' caps */
    /* Coset leaves (params.coset_leaves, at least one FRI layer, and
     * gs_coset_pays for the table's main and chunk widths): each
     * leaf of the trace, chunk and aux trees holds 2^lde_fold rows, those
     * at j + i 2^lde_depth (i < 2^lde_fold), as the matrix read as columns
     * of 2^lde_depth rows (column c 2^lde_fold + i is rows [i M, (i + 1) M)
     * of column c, M = 2^lde_depth); FRI layer 0 is not committed
     * (fri_first = 1): its leaf values come from those openings. Without
     * them lde_fold = 0, lde_depth = log_size, fri_first = 0. */
    unsigned lde_fold, lde_depth;
    uint32_t fri_first;      /* the first committed FRI layer: 0 or 1 */
    /* params.shared_fri = GS_SHARED_TREES: the trace, chunk and aux matrices
     * are committed in the proof's shared trees (gs_shared_fri.tree_roots),
     * so the table has no roots or caps of its own (gs_shape_cap_len and the
     * files leave them out; the struct's *_root fields stay zero) and its
     * openings carry rows only (lde_path_len = 0). */
    int shared_trees;
} gs_shape;

/* The trees of a table proof, in the order of gs_table_proof.caps; FRI
 * layer l is GS_TREE_FRI + l. */
enum { GS_TREE_TRACE = 0, GS_TREE_CHUNK = 1, GS_TREE_AUX = 2, GS_TREE_FRI = 3 };

/* FRI layer l < s->layers: its word lives on a domain of 2^gs_fri_log_size
 * points; it folds gs_fri_folds times (by 2, with gamma, gamma^2, gamma^4,
 * ...), so its tree has 2^(log size - folds) leaves, leaf j holding the
 * 2^folds values at j + i 2^(log size - folds) (docs/protocol.md, "FRI"). */
static inline unsigned gs_fri_log_size(const gs_shape *s, uint32_t l) {
    return s->log_size - l * s->log_arity;
}
static inline unsigned gs_fri_folds(const gs_shape *s, uint32_t l) {
    unsigned left = s->folds - l * s->log_arity;
    return left < s->log_arity ? left : s->log_arity;
}

/* FRI layer l's tree depth (log of its leaves) and the cap height of a
 * tree of depth d: min(h, d). */
static inline unsigned gs_fri_depth(const gs_shape *s, uint32_t l) {
    return gs_fri_log_size(s, l) - gs_fri_folds(s, l);
}
static inline unsigned gs_cap_log(const gs_shape *s, unsigned depth) {
    return s->cap_height < depth ? s->cap_height : depth;
}

/* Whether coset leaves make a table's proof smaller (the rule of
 * docs/protocol.md, "Coset leaves"), from its main columns and quotient
 * chunks and s's first FRI layer (a = its folds, F = 2^a), the LDE size
 * and the query count (lq = ceil(log2 Q)): the extra rows a query opens,
 * 8 (cols + 3 chunks)(F - 1) bytes, against what it no longer opens, layer
 * 0's leaf (24 F bytes), its path below the levels the queries share
 * (log N - a - lq digests) and a levels of the trace and chunk paths (2 a
 * digests). The aux width is not in it: a file gives the aux column count
 * after the trace and chunk openings. */
int gs_coset_pays(const gs_shape *s, uint32_t cols, uint32_t chunks);

/* The elements of one leaf of the trace, chunk or aux tree of `cols`
 * columns (cols << lde_fold). */
static inline size_t gs_lde_leaf_width(const gs_shape *s, size_t cols) { return cols << s->lde_fold; }

/* A tree's depth (GS_TREE_*), and the digests of every cap of a table proof
 * (with s->aux set): the length of gs_table_proof.caps when h > 0. */
unsigned gs_tree_depth(const gs_shape *s, unsigned tree);
size_t gs_shape_cap_len(const gs_shape *s);

/* Shared trees: whether a table (its shape, aux set) has a matrix in the
 * proof's tree GS_TREE_TRACE, _CHUNK or _AUX (the aux tree: tables with
 * buses), and that matrix's width (one row a leaf: no coset leaves). */
static inline int gs_shared_tree_holds(const gs_shape *s, unsigned tree) {
    return tree != GS_TREE_AUX || s->aux != 0;
}
static inline size_t gs_tree_width(const gs_shape *s, unsigned tree) {
    return tree == GS_TREE_TRACE ? s->cols : 3 * (size_t)(tree == GS_TREE_CHUNK ? s->chunks : s->aux);
}
/* Shared trees (s[0..n) the tables' shapes, with aux set): the depth of the
 * proof's tree GS_TREE_TRACE, _CHUNK or _AUX, the largest LDE depth among the
 * tables it holds (every table; the aux tree: those with buses); 0 for an
 * aux tree without buses, or without shared trees. */
unsigned gs_shared_tree_depth(const gs_shape *s, uint32_t n, unsigned tree);
/* Whether every digest of d[0..n) is a valid one for the hash (Poseidon2:
 * canonical field elements; Keccak-256: any bytes). */
int gs_digests_ok(gs_hash_id hash, const gs_digest *d, size_t n);
/* The shared trees' part of a shared-FRI proof against its tables' shapes
 * s[0..n) (aux set): with shared trees each tree of the depth the tables
 * imply, its root and sf->num_queries paths there and valid; else (and for
 * an aux tree without buses) depth 0, a zero root and no paths. */
int gs_shared_trees_ok(const gs_shared_fri *sf, const gs_shape *s, uint32_t n);
/* A table's opened rows of tree GS_TREE_TRACE, _CHUNK or _AUX (query k's at
 * + k * *width; one row a leaf: no coset leaves). */
const gs_fp *gs_tree_rows(const gs_table_proof *t, const gs_shape *s, unsigned tree, size_t *width);

/* Tree `tree`'s cap in t (2^gs_cap_log(depth) digests): the *_root field
 * when h = 0, else its place in t->caps (NULL if caps is). */
gs_digest *gs_table_cap(const gs_table_proof *t, const gs_shape *s, unsigned tree);

/* Absorbs a cap where the root was absorbed: each of its 2^cap_log digests
 * in order under `label` (one absorb of the root when cap_log = 0). */
void gs_cap_absorb(gs_transcript *tr, const char *label, const gs_digest *cap, unsigned cap_log);

/* GS_ERR_INVALID_ARG if the parameters and sizes cannot make a proof (an
 * unknown hash id or a cap height over GS_MAX_CAP_HEIGHT included). */
gs_status gs_shape_make(gs_shape *s, const gs_params *p, unsigned log_n, uint32_t cols,
                        uint32_t chunks);

/* Absorbs the statement: AIR fingerprint, trace height, parameters, public
 * inputs (docs/protocol.md, "Transcript schedule"). A hash other than
 * Keccak-256 is absorbed after the parameters (u64 "hash"); for Keccak-256
 * nothing is, so Keccak proofs keep the bytes they had before the choice. */
void gs_statement_absorb(gs_transcript *t, const gs_proof *p);

/* The multi-table statement: params, table count, then per table its AIR
 * fingerprint, height and public inputs. */
void gs_multi_statement_absorb(gs_transcript *t, const gs_multi_proof *p);

/* Draws the out-of-domain point: squeeze until z is neither in the trace
 * domain (z^n != 1) nor in the LDE coset (z^N != shift^N). */
gs_fp3 gs_draw_ood_point(gs_transcript *t, const gs_shape *s, gs_fp shift);

/* The DEEP word's constant parts (docs/protocol.md, "DEEP"):
 * k1 = sum_c beta^c t_c(z) + sum_j beta^(2C+j) Q_j(z) + sum_j beta^(2C+K+j) A_j(z),
 * k2 = sum_c beta^(C+c) t_c(zw) + sum_j beta^(2C+K+A+j) A_j(zw). */
void gs_deep_constants(gs_fp3 *k1, gs_fp3 *k2, const gs_fp3 *beta_pows, const gs_table_proof *t);

/* The one FRI of a shared-FRI multi-table proof (params.shared_fri = 1;
 * docs/protocol.md, "One FRI for many tables"). It starts on the largest
 * LDE domain 2^log_size and folds down to the final word on
 * 2^(final_log_n + log_blowup), final_log_n = min(log_final, the smallest
 * log_n). Every table's LDE size is a layer boundary (or the final word's
 * domain): a layer folds min(arity, down to the next boundary) times. Table
 * t joins (its DEEP word is added, times its coefficient) at the layer whose
 * domain is its LDE domain: join[t] in 0..layers (layers = the final word). */
#define GS_FRI_PLAN_MAX_LAYERS 32u
typedef struct gs_fri_plan {
    unsigned log_size;        /* the largest LDE: the domain of the queries */
    unsigned final_log_size;  /* the final word's domain */
    uint32_t layers, final_len, queries;
    unsigned lsize[GS_FRI_PLAN_MAX_LAYERS], folds[GS_FRI_PLAN_MAX_LAYERS];
    unsigned cap_log[GS_FRI_PLAN_MAX_LAYERS]; /* each layer's cap height min(h, depth) */
    size_t row_len, path_len, cap_len; /* per query over all layers; digests of all caps */
    gs_hash_id hash;
} gs_fri_plan;

/* The plan for tables of heights log_n[0..n) under p (each height must give
 * a shape: gs_shape_make); GS_ERR_INVALID_ARG otherwise. */
gs_status gs_fri_plan_make(gs_fri_plan *f, const gs_params *p, const uint32_t *log_n, uint32_t n);
/* Layer l's tree depth (lsize - folds). */
static inline unsigned gs_fri_plan_depth(const gs_fri_plan *f, uint32_t l) {
    return f->lsize[l] - f->folds[l];
}
/* The layer at which a table of LDE size 2^log_size joins (layers for the
 * final word). */
uint32_t gs_fri_plan_join(const gs_fri_plan *f, unsigned log_size);
/* Layer l's cap within f's caps array. */
size_t gs_fri_plan_cap_off(const gs_fri_plan *f, uint32_t l);
/* A table's shape inside a shared-FRI proof: its own FRI parts are empty
 * (no layers, folds, final polynomial) and it answers the shared queries. */
void gs_shape_shared_table(gs_shape *s, uint32_t queries);
/* The order in which tables join the shared FRI: LDE size descending, ties
 * by table index (order[0] is the first table: coefficient 1). */
void gs_fri_join_order(uint32_t *order, const uint32_t *log_n, uint32_t n);

/* Frees everything inside a table proof and zeroes it. */
void gs_table_proof_clear(gs_table_proof *t);

#endif
