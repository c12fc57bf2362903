/* The proof files (docs/proof-format.md gives every byte).
 *
 *   version 1, one table:
 *     "GSTARKPF" | u32 1 | section "HEAD" | section "TABL"
 *   version 2, many tables:
 *     "GSTARKPF" | u32 2 | section "MHDR" | num_tables x section "MTBL"
 *   version 3, either: the same sections, told apart by the first tag;
 *     the openings batched (each distinct leaf and each Merkle node once,
 *     indexed by the query positions the file carries); a hash other than
 *     Keccak-256 (params.hash) is a u32 at the end of HEAD or MHDR, absent
 *     for Keccak-256 (so Keccak files are what they were before the choice);
 *     a cap height above 0 is a u32 after it (the hash id is then always
 *     written), each tree's cap is where its root was and the openings stop
 *     below the caps
 *   section = 4-byte tag | u64 body length | body
 *
 * All integers are little-endian; field elements are canonical u64s. The
 * parser reads through a bounded cursor: every count is checked against the
 * shape the header implies (gs_shape_make) and against the bytes left in its
 * section before anything is allocated, so an allocation never exceeds the
 * bytes of input that fill it (the expanded openings of version 3 are
 * bounded by the shape: Q x the row and path sizes). The serializer writes
 * exactly what the parser reads: parse(serialize(p)) serializes to the same
 * bytes.
 *
 * All versions are built from the same pieces: the parameters, a table's
 * statement (fingerprint, description, height, public inputs) and its
 * sub-proof; the multi-table form adds each table's LogUp part after its
 * sub-proof. Only the openings differ between versions. */
#include <stdlib.h>
#include <string.h>

#include "gstark/merkle.h"
#include "gstark/poseidon2.h"
#include "gstark/proof.h"
#include "merkle/mixed.h"
#include "merkle/multipath.h"
#include "proof/shape.h"

#define MAGIC_BYTES 8u
#define SECTION_HDR 12u /* tag (4) + body length (8) */
#define MAX_COLS 65536u
#define MAX_CHUNKS 65536u
#define MAX_AUX 65536u /* multi-table: the parser does not know the AIR, so A is capped */
#define MAX_PUBLIC (1u << 20)
#define MAX_DESC 127u
#define FP3_BYTES 24u

/* The smallest MTBL section a valid multi-table file can hold: log N >= 2,
 * C = K = 1, no FRI layer, F = 1, Q = 1, A = 0, no description, no public
 * input. Version 2: statement 44 + sub-proof 92 + 24 (2 + 1) + 24 + (8 + 2
 * * 32 * 2 + 24) + aux count 4 = 396; version 3 (one position, the rows,
 * no node counted): 44 + 92 + 72 + 24 + 4 + 32 + 4 = 272. The parser
 * checks num_tables x this against the input before it allocates. */
#define MIN_TABLE_SECTION_V2 (SECTION_HDR + 396u)
#define MIN_TABLE_SECTION_V3 (SECTION_HDR + 272u)
/* A shared-FRI table (no FRI part, no positions): statement 44 + counts 8 +
 * caps 64 + out-of-domain values 72 + aux count 4 + one trace and one chunk
 * row 32 = 224. */
#define MIN_TABLE_SECTION_SHARED (SECTION_HDR + 224u)
/* The same with shared trees (no caps): 160. */
#define MIN_TABLE_SECTION_TREES (SECTION_HDR + 160u)

/* In memory as on the wire: the parser's "count x sizeof <= bytes left" bound
 * is then exactly "the input holds the array". */
_Static_assert(sizeof(gs_fp) == 8 && sizeof(gs_fp3) == FP3_BYTES && sizeof(gs_digest) == GS_DIGEST_BYTES,
               "proof arrays must have their wire size in memory");

static const uint8_t TAG_HEAD[4] = {'H', 'E', 'A', 'D'};
static const uint8_t TAG_TABL[4] = {'T', 'A', 'B', 'L'};
static const uint8_t TAG_MHDR[4] = {'M', 'H', 'D', 'R'};
static const uint8_t TAG_MTBL[4] = {'M', 'T', 'B', 'L'};
static const uint8_t TAG_MFRI[4] = {'M', 'F', 'R', 'I'};

/* Validates what the header implies and fills the shape: the parameters and
 * trace height must give a shape for these column and chunk counts. log_n and
 * log_blowup are bounded first so that gs_shape_make's sum cannot wrap.
 * Versions 1 and 2 fold by 2 only, hash with Keccak-256 only and have no
 * Merkle caps. */
static int shape_for(gs_shape *s, const gs_params *par, uint32_t version, uint32_t log_n,
                     uint32_t cols, uint32_t chunks) {
    if (log_n < 1 || log_n > GS_MAX_LOG_LDE || par->log_blowup < 1 || par->log_blowup > 6)
        return 0;
    if (cols < 1 || cols > MAX_COLS || chunks < 1 || chunks > MAX_CHUNKS) return 0;
    if (version < GS_PROOF_VERSION_COMPACT &&
        (par->log_arity != 1 || par->hash != GS_HASH_KECCAK256 || par->cap_height != 0 ||
         par->shared_fri != 0 || par->coset_leaves != 0))
        return 0;
    return gs_shape_make(s, par, log_n, cols, chunks) == GS_OK;
}

/* Element counts of the per-query arrays in memory (what versions 1 and 2
 * write as they are). With the caps above none can overflow 64 bits: Q <=
 * 1024, C, K, A <= 2^16, log N <= 30, fri_path_len < 30 x 30. */
typedef struct {
    uint64_t trace_rows, trace_paths, chunk_rows, chunk_paths, fri_rows, fri_paths;
    uint64_t aux_rows, aux_paths; /* with s->aux */
} counts;

static counts counts_of(const gs_shape *s) {
    uint64_t Q = s->queries;
    counts c;
    c.trace_rows = Q * gs_lde_leaf_width(s, s->cols);
    c.trace_paths = Q * s->lde_path_len;
    c.chunk_rows = Q * gs_lde_leaf_width(s, 3 * (size_t)s->chunks);
    c.chunk_paths = Q * s->lde_path_len;
    c.fri_rows = Q * (uint64_t)s->fri_row_len;
    c.fri_paths = Q * (uint64_t)s->fri_path_len;
    c.aux_rows = Q * gs_lde_leaf_width(s, 3 * (size_t)s->aux);
    c.aux_paths = s->aux ? Q * s->lde_path_len : 0;
    return c;
}

/* The trees a query opens, in file order, each with its row width, depth,
 * path length (the depth less its cap height: the batched opening stops at
 * the cap, whose nodes the file already holds) and where its rows and paths
 * sit in the table proof. Every tree's leaf is q mod 2^depth (q itself for
 * the trace, chunk and aux trees without coset leaves). */
typedef struct {
    size_t width;
    unsigned depth, plen;
    gs_fp *rows;  /* row k at rows + k * stride */
    gs_digest *paths; /* path k at paths + k * pstride */
    size_t stride, pstride;
} tree_open;

/* Fills o (room for 3 + layers trees) and returns the count: trace, chunk,
 * the committed FRI layers, and the LogUp tree last when s->aux. */
static size_t trees_of(tree_open *o, const gs_table_proof *t, const gs_shape *s) {
    size_t n = 0, row_off = 0, path_off = 0;
    unsigned lp = s->lde_path_len, d = s->lde_depth;
    size_t tw = gs_lde_leaf_width(s, s->cols), cw = gs_lde_leaf_width(s, 3 * (size_t)s->chunks);
    o[n++] = (tree_open){tw, d, lp, t->trace_rows, t->trace_paths, tw, lp};
    o[n++] = (tree_open){cw, d, lp, t->chunk_rows, t->chunk_paths, cw, lp};
    for (uint32_t l = s->fri_first; l < s->layers; l++) {
        unsigned a = gs_fri_folds(s, l), depth = gs_fri_depth(s, l), len = depth - gs_cap_log(s, depth);
        o[n++] = (tree_open){(size_t)3 << a, depth, len, t->fri_rows ? t->fri_rows + row_off : NULL,
                             t->fri_paths ? t->fri_paths + path_off : NULL, s->fri_row_len,
                             s->fri_path_len};
        row_off += (size_t)3 << a, path_off += len;
    }
    if (s->aux) {
        size_t aw = gs_lde_leaf_width(s, 3 * (size_t)s->aux);
        o[n++] = (tree_open){aw, d, lp, t->aux_rows, t->aux_paths, aw, lp};
    }
    return n;
}

/* The digests of tree `tree`'s cap (1, the root, when the cap height is 0). */
static size_t cap_count(const gs_shape *s, unsigned tree) {
    if (s->shared_trees && tree < GS_TREE_FRI) return 0; /* the shared trees' roots are the MFRI's */
    return (size_t)1 << gs_cap_log(s, gs_tree_depth(s, tree));
}

/* Query k's leaf in a tree of depth d: its position mod 2^d. */
static void leaves_of(size_t *leaf, const uint32_t *pos, size_t Q, unsigned depth) {
    for (size_t k = 0; k < Q; k++) leaf[k] = pos[k] & (((size_t)1 << depth) - 1);
}

/* ---- writing ---- */

/* A growing output buffer; a failed growth sticks (ok = 0). */
typedef struct {
    uint8_t *b;
    size_t len, cap;
    int ok;
} wbuf;

static uint8_t *room(wbuf *w, size_t n) {
    if (!w->ok) return NULL;
    if (n > w->cap - w->len) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap - w->len < n) {
            if (cap > SIZE_MAX / 2) {
                w->ok = 0;
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *nb = realloc(w->b, cap);
        if (!nb) {
            w->ok = 0;
            return NULL;
        }
        w->b = nb, w->cap = cap;
    }
    uint8_t *p = w->b + w->len;
    w->len += n;
    return p;
}

static void put_bytes(wbuf *w, const void *b, size_t n) {
    uint8_t *p = room(w, n);
    if (p && n) memcpy(p, b, n);
}

static void put_u32(wbuf *w, uint32_t v) {
    uint8_t *p = room(w, 4);
    for (int i = 0; p && i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(wbuf *w, uint64_t v) {
    uint8_t *p = room(w, 8);
    for (int i = 0; p && i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_fps(wbuf *w, const gs_fp *v, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) put_u64(w, v[i]);
}

static void put_fp3s(wbuf *w, const gs_fp3 *v, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) put_fps(w, v[i].c, 3);
}

static void put_digests(wbuf *w, const gs_digest *d, uint64_t n) {
    put_bytes(w, d, (size_t)n * GS_DIGEST_BYTES);
}

/* A section header whose length end_section fills in; returns its offset. */
static size_t begin_section(wbuf *w, const uint8_t tag[4]) {
    size_t at = w->len;
    put_bytes(w, tag, 4);
    put_u64(w, 0);
    return at;
}

static void end_section(wbuf *w, size_t at) {
    if (!w->ok) return;
    uint64_t len = w->len - at - SECTION_HDR;
    for (int i = 0; i < 8; i++) w->b[at + 4 + i] = (uint8_t)(len >> (8 * i));
}

static void put_params(wbuf *w, const gs_params *q) {
    put_u32(w, q->log_blowup);
    put_u32(w, q->log_final);
    put_u32(w, q->grinding_bits);
    put_u32(w, q->num_queries);
    put_u32(w, q->log_arity);
}

/* Version 3's optional end of HEAD or MHDR: nothing for Keccak-256 without
 * caps, the hash id for another hash, the hash id (any, 0 included) and the
 * cap height with caps, those and the shared-FRI flag (1) with a shared
 * FRI, those three (the flag 0) and the coset-leaves choice (1 or 2) with
 * coset leaves. Each choice has one encoding (get_tail). Versions 1 and 2 are
 * refused such parameters before anything is written. */
static void put_tail(wbuf *w, const gs_params *q) {
    int more = q->shared_fri || q->coset_leaves;
    if (q->hash != GS_HASH_KECCAK256 || q->cap_height || more) put_u32(w, q->hash);
    if (q->cap_height || more) put_u32(w, q->cap_height);
    if (more) put_u32(w, q->shared_fri);
    if (q->coset_leaves) put_u32(w, q->coset_leaves);
}

static void put_statement(wbuf *w, const gs_proof *p, size_t desc_len) {
    put_bytes(w, p->air_fingerprint.b, GS_DIGEST_BYTES);
    put_u32(w, (uint32_t)desc_len);
    put_bytes(w, p->air_desc, desc_len);
    put_u32(w, p->log_n);
    put_u32(w, p->num_public);
    put_fps(w, p->pub, p->num_public);
}

/* Version 3's openings of one tree: the distinct leaves' rows, ascending,
 * then the Merkle nodes (merkle/multipath.h). GS_ERR_INVALID_ARG if two
 * queries of one leaf disagree. */
static gs_status put_opening(wbuf *w, const tree_open *o, const uint32_t *pos, size_t Q) {
    size_t *leaf = calloc(2 * Q + 1, sizeof *leaf), *uniq = leaf + Q;
    gs_digest *paths = malloc((Q * o->plen + 1) * sizeof *paths);
    gs_digest *nodes = malloc((Q * o->plen + 1) * sizeof *nodes);
    gs_status r = leaf && paths && nodes ? GS_OK : GS_ERR_NOMEM;
    if (r == GS_OK) {
        leaves_of(leaf, pos, Q, o->depth);
        size_t nu = gs_mpath_unique(uniq, leaf, Q);
        for (size_t j = 0; r == GS_OK && j < nu; j++) {
            const gs_fp *row = NULL;
            for (size_t k = 0; r == GS_OK && k < Q; k++) {
                if (leaf[k] != uniq[j]) continue;
                const gs_fp *e = o->rows + k * o->stride;
                if (!row) row = e;
                else if (memcmp(row, e, o->width * sizeof *row) != 0) r = GS_ERR_INVALID_ARG;
            }
            put_fps(w, row, o->width);
        }
        for (size_t k = 0; o->plen && k < Q; k++)
            memcpy(paths + k * o->plen, o->paths + k * o->pstride, o->plen * sizeof *paths);
        /* The levels below the cap: a path of plen digests, as in a tree of
         * that depth (the multipath looks only at the low plen bits). */
        if (r == GS_OK) r = gs_mpath_compress(nodes, leaf, Q, paths, o->plen);
        if (r == GS_OK) put_digests(w, nodes, gs_mpath_count(uniq, nu, o->plen));
    }
    free(leaf), free(paths), free(nodes);
    return r;
}

/* What every table's body starts with: its counts, the main and chunk
 * caps and the out-of-domain values. */
static void put_table_head(wbuf *w, const gs_table_proof *t, const gs_shape *s) {
    put_u32(w, t->num_cols);
    put_u32(w, t->num_chunks);
    put_digests(w, gs_table_cap(t, s, GS_TREE_TRACE), cap_count(s, GS_TREE_TRACE));
    put_digests(w, gs_table_cap(t, s, GS_TREE_CHUNK), cap_count(s, GS_TREE_CHUNK));
    put_fp3s(w, t->ood_cur, s->cols);
    put_fp3s(w, t->ood_next, s->cols);
    put_fp3s(w, t->ood_chunks, s->chunks);
}

/* The sub-proof without its openings, then the openings (all but the LogUp
 * tree's, which put_logup writes). */
static gs_status put_subproof(wbuf *w, const gs_table_proof *t, const gs_shape *s, uint32_t version) {
    counts c = counts_of(s);
    put_table_head(w, t, s);
    put_u32(w, t->num_layers);
    for (uint32_t l = s->fri_first; l < s->layers; l++)
        put_digests(w, gs_table_cap(t, s, GS_TREE_FRI + l), cap_count(s, GS_TREE_FRI + l));
    put_u32(w, t->final_len);
    put_fp3s(w, t->final_poly, s->final_len);
    put_u64(w, t->pow_nonce);
    put_u32(w, t->num_queries);
    if (version < GS_PROOF_VERSION_COMPACT) {
        put_fps(w, t->trace_rows, c.trace_rows);
        put_digests(w, t->trace_paths, c.trace_paths);
        put_fps(w, t->chunk_rows, c.chunk_rows);
        put_digests(w, t->chunk_paths, c.chunk_paths);
        put_fps(w, t->fri_rows, c.fri_rows);
        put_digests(w, t->fri_paths, c.fri_paths);
        return GS_OK;
    }
    for (uint32_t k = 0; k < s->queries; k++) put_u32(w, t->query_pos[k]);
    tree_open o[3 + 32];
    size_t n = trees_of(o, t, s) - (s->aux ? 1 : 0);
    for (size_t i = 0; i < n; i++) GS_TRY(put_opening(w, &o[i], t->query_pos, s->queries));
    return GS_OK;
}

static gs_status put_logup(wbuf *w, const gs_table_proof *t, const gs_shape *s, uint32_t version) {
    put_u32(w, s->aux);
    if (!s->aux) return GS_OK;
    counts c = counts_of(s);
    put_digests(w, gs_table_cap(t, s, GS_TREE_AUX), cap_count(s, GS_TREE_AUX));
    put_fp3s(w, &t->bus_sum, 1);
    put_fp3s(w, t->ood_aux_cur, s->aux);
    put_fp3s(w, t->ood_aux_next, s->aux);
    if (version < GS_PROOF_VERSION_COMPACT) {
        put_fps(w, t->aux_rows, c.aux_rows);
        put_digests(w, t->aux_paths, c.aux_paths);
        return GS_OK;
    }
    tree_open o[3 + 32];
    size_t n = trees_of(o, t, s);
    return put_opening(w, &o[n - 1], t->query_pos, s->queries);
}

static int canonical(const gs_fp *v, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (v[i] >= GS_FP_P) return 0;
    return 1;
}

/* (Digests: gs_digests_ok, proof/shape.h. With Poseidon2 a digest is 4 canonical elements, so
 * a parsed proof has one encoding, as its field elements have.) */

static int digest_zero(const gs_digest *d) {
    static const gs_digest zero;
    return memcmp(d, &zero, sizeof zero) == 0;
}

/* The caps as the file can hold them: with h > 0 the caps array is there
 * (the trees but the aux one: logup_ok checks that) with valid digests and
 * every root field is zero (the file has no roots: one struct per file);
 * with h = 0 there is no caps array. */
static int caps_ok(const gs_table_proof *t, const gs_shape *s, const gs_digest *fri_roots) {
    if (s->fri_first && fri_roots && !digest_zero(&fri_roots[0])) return 0; /* layer 0 has no root */
    if (!s->cap_height) return t->caps == NULL;
    if (!t->caps || !digest_zero(&t->trace_root) || !digest_zero(&t->chunk_root) ||
        !digest_zero(&t->aux_root))
        return 0;
    for (uint32_t l = 0; fri_roots && l < s->layers; l++)
        if (!digest_zero(&fri_roots[l])) return 0;
    return gs_digests_ok(s->hash, t->caps, 2 * ((size_t)1 << s->lde_cap) + s->fri_cap_len);
}

/* An array the format writes must exist when it has elements. */
#define PRESENT(ptr, n) ((n) == 0 || (ptr) != NULL)

/* The statement and sub-proof of p can be written so that they parse. */
static int struct_ok(const gs_proof *p, uint32_t version, gs_shape *s, size_t *desc_len,
                     const gs_shared_fri *sf) {
    const gs_table_proof *t = &p->table;
    const char *nul = memchr(p->air_desc, 0, sizeof p->air_desc);
    if (!nul) return 0;
    *desc_len = (size_t)(nul - p->air_desc);
    if (p->num_public > MAX_PUBLIC || !PRESENT(p->pub, p->num_public) ||
        !canonical(p->pub, p->num_public))
        return 0;
    if (!shape_for(s, &p->params, version, p->log_n, t->num_cols, t->num_chunks)) return 0;
    if (!sf != !p->params.shared_fri) return 0;
    if (sf) gs_shape_shared_table(s, sf->num_queries);
    if (t->num_layers != s->layers || t->final_len != s->final_len || t->num_queries != s->queries ||
        t->log_lde != s->log_size || t->fri_row_len != s->fri_row_len || t->fri_path_len != s->fri_path_len ||
        t->cap_height != s->cap_height)
        return 0;
    if (!caps_ok(t, s, t->fri_roots)) return 0;
    /* Shared trees: no roots or paths of the table's own (the file has none). */
    if (s->shared_trees && (t->trace_paths || t->chunk_paths || t->aux_paths || !digest_zero(&t->trace_root) ||
                            !digest_zero(&t->chunk_root) || !digest_zero(&t->aux_root)))
        return 0;
    counts c = counts_of(s);
    if (!PRESENT(t->ood_cur, s->cols) || !PRESENT(t->ood_next, s->cols) ||
        !PRESENT(t->ood_chunks, s->chunks) || !PRESENT(t->fri_roots, s->layers) ||
        !PRESENT(t->final_poly, s->final_len) || !PRESENT(t->trace_rows, c.trace_rows) ||
        !PRESENT(t->trace_paths, c.trace_paths) || !PRESENT(t->chunk_rows, c.chunk_rows) ||
        !PRESENT(t->chunk_paths, c.chunk_paths) || !PRESENT(t->fri_rows, c.fri_rows) ||
        !PRESENT(t->fri_paths, c.fri_paths))
        return 0;
    if (version >= GS_PROOF_VERSION_COMPACT) {
        if (!t->query_pos) return 0;
        for (uint32_t k = 0; k < s->queries; k++)
            if ((uint64_t)t->query_pos[k] >> s->log_size) return 0;
    }
    /* Shared FRI: the file holds the shared positions only; a table's are
     * them reduced to its LDE size. */
    for (uint32_t k = 0; sf && k < s->queries; k++)
        if (!sf->query_pos || t->query_pos[k] != (sf->query_pos[k] & (((uint32_t)1 << s->log_size) - 1)))
            return 0;
    return canonical((const gs_fp *)t->ood_cur, 3 * (uint64_t)s->cols) &&
           canonical((const gs_fp *)t->ood_next, 3 * (uint64_t)s->cols) &&
           canonical((const gs_fp *)t->ood_chunks, 3 * (uint64_t)s->chunks) &&
           canonical((const gs_fp *)t->final_poly, 3 * (uint64_t)s->final_len) &&
           gs_digests_ok(s->hash, &t->trace_root, 1) && gs_digests_ok(s->hash, &t->chunk_root, 1) &&
           gs_digests_ok(s->hash, t->fri_roots, s->layers) &&
           gs_digests_ok(s->hash, t->trace_paths, c.trace_paths) &&
           gs_digests_ok(s->hash, t->chunk_paths, c.chunk_paths) &&
           gs_digests_ok(s->hash, t->fri_paths, c.fri_paths) &&
           canonical(t->trace_rows, c.trace_rows) && canonical(t->chunk_rows, c.chunk_rows) &&
           canonical(t->fri_rows, c.fri_rows);
}

/* The LogUp part of t can be written so that it parses; sets s->aux. With
 * A = 0 nothing but the count is written, so aux_root and bus_sum must then
 * be zero (what the parser gives back). */
static int logup_ok(const gs_table_proof *t, gs_shape *s) {
    if (t->aux_cols > MAX_AUX) return 0;
    s->aux = t->aux_cols;
    if (!s->aux) return digest_zero(&t->aux_root) && t->bus_sum.c[0] == 0 && t->bus_sum.c[1] == 0 &&
                        t->bus_sum.c[2] == 0;
    counts c = counts_of(s);
    if (!t->ood_aux_cur || !t->ood_aux_next || !t->aux_rows || (t->aux_paths == NULL) != s->shared_trees) return 0;
    return canonical(t->bus_sum.c, 3) && canonical(t->ood_aux_cur->c, 3 * (uint64_t)s->aux) &&
           canonical(t->ood_aux_next->c, 3 * (uint64_t)s->aux) && canonical(t->aux_rows, c.aux_rows) &&
           gs_digests_ok(s->hash, gs_table_cap(t, s, GS_TREE_AUX), cap_count(s, GS_TREE_AUX)) &&
           gs_digests_ok(s->hash, t->aux_paths, c.aux_paths);
}

/* ---- the shared FRI (params.shared_fri = 1) ---- */

/* The plan from the tables' heights (GS_ERR_INVALID_ARG for heights that
 * give no shape). */
static gs_status fri_plan_of(gs_fri_plan *f, const gs_multi_proof *p) {
    uint32_t *log_n = malloc(p->num_tables * sizeof *log_n);
    if (!log_n) return GS_ERR_NOMEM;
    for (uint32_t i = 0; i < p->num_tables; i++) log_n[i] = p->tables[i].log_n;
    gs_status r = gs_fri_plan_make(f, &p->params, log_n, p->num_tables);
    free(log_n);
    return r;
}

/* The shared FRI's layers as trees to open: layer l's leaf is q mod 2^depth. */
static size_t fri_trees_of(tree_open *o, const gs_shared_fri *sf, const gs_fri_plan *f) {
    size_t row_off = 0, path_off = 0;
    for (uint32_t l = 0; l < f->layers; l++) {
        unsigned depth = gs_fri_plan_depth(f, l), len = depth - f->cap_log[l];
        o[l] = (tree_open){(size_t)3 << f->folds[l], depth, len,
                           sf->fri_rows ? sf->fri_rows + row_off : NULL,
                           sf->fri_paths ? sf->fri_paths + path_off : NULL, f->row_len, f->path_len};
        row_off += (size_t)3 << f->folds[l], path_off += len;
    }
    return f->layers;
}

/* The shared FRI part can be written so that it parses. */
static int fri_ok(const gs_shared_fri *sf, const gs_fri_plan *f) {
    uint64_t Q = f->queries;
    if (sf->log_lde != f->log_size || sf->num_layers != f->layers || sf->cap_len != f->cap_len ||
        sf->final_len != f->final_len || sf->num_queries != f->queries ||
        sf->fri_row_len != f->row_len || sf->fri_path_len != f->path_len || !sf->caps ||
        !sf->final_poly || !sf->query_pos || !PRESENT(sf->fri_rows, Q * f->row_len) ||
        !PRESENT(sf->fri_paths, Q * f->path_len))
        return 0;
    for (uint32_t k = 0; k < f->queries; k++)
        if ((uint64_t)sf->query_pos[k] >> f->log_size) return 0;
    return canonical((const gs_fp *)sf->final_poly, 3 * (uint64_t)f->final_len) &&
           canonical(sf->fri_rows, Q * f->row_len) && gs_digests_ok(f->hash, sf->caps, f->cap_len) &&
           gs_digests_ok(f->hash, sf->fri_paths, Q * f->path_len);
}

/* A table of a shared-FRI file (its MTBL body after the statement): counts,
 * caps, out-of-domain values, the LogUp part without its openings, then the
 * openings of trace, chunks and aux at the table's reduced positions. */
static gs_status put_shared_table(wbuf *w, const gs_table_proof *t, const gs_shape *s) {
    put_table_head(w, t, s);
    put_u32(w, s->aux);
    if (s->aux) {
        put_digests(w, gs_table_cap(t, s, GS_TREE_AUX), cap_count(s, GS_TREE_AUX));
        put_fp3s(w, &t->bus_sum, 1);
        put_fp3s(w, t->ood_aux_cur, s->aux);
        put_fp3s(w, t->ood_aux_next, s->aux);
    }
    tree_open o[3 + 32];
    size_t n = trees_of(o, t, s);
    for (size_t i = 0; i < n; i++) GS_TRY(put_opening(w, &o[i], t->query_pos, s->queries));
    return GS_OK;
}

/* ---- the shared trees (params.shared_fri = GS_SHARED_TREES) ---- */

/* After the layers' openings: each shared tree's root and its batched
 * paths (gs_mixed_compress: the nodes for the queries' leaves). */
static gs_status put_trees(wbuf *w, const gs_shared_fri *sf, size_t Q) {
    size_t *qt = malloc((Q + 1) * sizeof *qt);
    gs_digest *nodes = malloc((Q * GS_MIXED_MAX_DEPTH + 1) * sizeof *nodes);
    gs_status r = qt && nodes ? GS_OK : GS_ERR_NOMEM;
    for (unsigned i = 0; r == GS_OK && i < 3; i++) {
        unsigned d = sf->tree_depth[i];
        if (!d) continue;
        size_t count = 0;
        put_digests(w, &sf->tree_roots[i], 1);
        leaves_of(qt, sf->query_pos, Q, d);
        r = gs_mixed_compress(nodes, &count, qt, Q, sf->tree_paths[i], d);
        if (r == GS_OK) put_digests(w, nodes, count);
    }
    free(qt), free(nodes);
    return r;
}

/* The MFRI body: layer count and caps, final polynomial, nonce, the
 * positions, each layer's openings, the shared trees' part. */
static gs_status put_fri(wbuf *w, const gs_shared_fri *sf, const gs_fri_plan *f) {
    put_u32(w, f->layers);
    put_digests(w, sf->caps, f->cap_len);
    put_u32(w, f->final_len);
    put_fp3s(w, sf->final_poly, f->final_len);
    put_u64(w, sf->pow_nonce);
    put_u32(w, f->queries);
    for (uint32_t k = 0; k < f->queries; k++) put_u32(w, sf->query_pos[k]);
    tree_open o[GS_FRI_PLAN_MAX_LAYERS];
    size_t n = fri_trees_of(o, sf, f);
    for (size_t i = 0; i < n; i++) GS_TRY(put_opening(w, &o[i], sf->query_pos, f->queries));
    return put_trees(w, sf, f->queries);
}

/* Hands the buffer over (or frees it and reports why not). */
static gs_status finish(wbuf *w, gs_status st, uint8_t **out, size_t *len) {
    if (st == GS_OK && !w->ok) st = GS_ERR_NOMEM;
    if (st != GS_OK) {
        free(w->b);
        return st;
    }
    *out = w->b;
    *len = w->len;
    return GS_OK;
}

gs_status gs_proof_serialize_as(uint8_t **out, size_t *len, const gs_proof *p, uint32_t version) {
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len || !p || (version != GS_PROOF_VERSION && version != GS_PROOF_VERSION_COMPACT))
        return GS_ERR_INVALID_ARG;
    gs_shape s;
    size_t desc_len;
    if (p->params.shared_fri || !struct_ok(p, version, &s, &desc_len, NULL)) return GS_ERR_INVALID_ARG;
    wbuf w = {NULL, 0, 0, 1};
    put_bytes(&w, GS_PROOF_MAGIC, MAGIC_BYTES);
    put_u32(&w, version);
    size_t at = begin_section(&w, TAG_HEAD);
    put_params(&w, &p->params);
    put_statement(&w, p, desc_len);
    put_tail(&w, &p->params);
    end_section(&w, at);
    at = begin_section(&w, TAG_TABL);
    gs_status st = put_subproof(&w, &p->table, &s, version);
    end_section(&w, at);
    return finish(&w, st, out, len);
}

gs_status gs_proof_serialize(uint8_t **out, size_t *len, const gs_proof *p) {
    return gs_proof_serialize_as(out, len, p, GS_PROOF_VERSION_COMPACT);
}

gs_status gs_multi_proof_serialize_as(uint8_t **out, size_t *len, const gs_multi_proof *p,
                                      uint32_t version) {
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len || !p ||
        (version != GS_PROOF_VERSION_MULTI && version != GS_PROOF_VERSION_COMPACT))
        return GS_ERR_INVALID_ARG;
    uint32_t n = p->num_tables;
    if (n < 1 || n > GS_PROOF_MAX_TABLES || !p->tables) return GS_ERR_INVALID_ARG;
    /* Shared FRI: version 3 only, and the FRI part must be there. */
    const gs_shared_fri *sf = p->fri;
    if (!sf != !p->params.shared_fri || (sf && version < GS_PROOF_VERSION_COMPACT))
        return GS_ERR_INVALID_ARG;
    gs_shape *s = malloc(n * sizeof *s);
    size_t *desc = malloc(n * sizeof *desc);
    gs_fri_plan plan;
    gs_status st = s && desc ? GS_OK : GS_ERR_NOMEM;
    if (st == GS_OK && sf) st = fri_plan_of(&plan, p) == GS_OK && fri_ok(sf, &plan) ? GS_OK : GS_ERR_INVALID_ARG;
    for (uint32_t i = 0; st == GS_OK && i < n; i++) {
        const gs_proof *e = &p->tables[i];
        /* Every entry's params are the shared ones: the file holds them once. */
        if (memcmp(&e->params, &p->params, sizeof p->params) != 0 ||
            !struct_ok(e, version, &s[i], &desc[i], sf) || !logup_ok(&e->table, &s[i]))
            st = GS_ERR_INVALID_ARG;
    }
    if (st == GS_OK && sf && !gs_shared_trees_ok(sf, s, n)) st = GS_ERR_INVALID_ARG;
    wbuf w = {NULL, 0, 0, 1};
    if (st == GS_OK) {
        put_bytes(&w, GS_PROOF_MAGIC, MAGIC_BYTES);
        put_u32(&w, version);
        size_t at = begin_section(&w, TAG_MHDR);
        put_params(&w, &p->params);
        put_u32(&w, n);
        put_tail(&w, &p->params);
        end_section(&w, at);
        for (uint32_t i = 0; st == GS_OK && i < n; i++) {
            const gs_proof *e = &p->tables[i];
            at = begin_section(&w, TAG_MTBL);
            put_statement(&w, e, desc[i]);
            if (sf) st = put_shared_table(&w, &e->table, &s[i]);
            else st = put_subproof(&w, &e->table, &s[i], version);
            if (st == GS_OK && !sf) st = put_logup(&w, &e->table, &s[i], version);
            end_section(&w, at);
        }
        if (st == GS_OK && sf) {
            at = begin_section(&w, TAG_MFRI);
            st = put_fri(&w, sf, &plan);
            end_section(&w, at);
        }
    }
    free(s), free(desc);
    return finish(&w, st, out, len);
}

gs_status gs_multi_proof_serialize(uint8_t **out, size_t *len, const gs_multi_proof *p) {
    return gs_multi_proof_serialize_as(out, len, p, GS_PROOF_VERSION_COMPACT);
}

/* ---- sizes ---- */

/* The bytes of one tree's openings: version 3's distinct rows and nodes, or
 * Q full rows and paths. */
static size_t opening_bytes(const tree_open *o, const uint32_t *pos, size_t Q) {
    if (!pos) return Q * (o->width * 8 + (size_t)o->plen * GS_DIGEST_BYTES);
    size_t *leaf = calloc(2 * Q + 1, sizeof *leaf), *uniq = leaf + Q;
    if (!leaf) return 0;
    leaves_of(leaf, pos, Q, o->depth);
    size_t nu = gs_mpath_unique(uniq, leaf, Q);
    size_t bytes = nu * o->width * 8 + gs_mpath_count(uniq, nu, o->plen) * GS_DIGEST_BYTES;
    free(leaf);
    return bytes;
}

gs_proof_parts gs_multi_proof_fri_parts(const gs_multi_proof *p) {
    gs_proof_parts o = {0};
    gs_fri_plan f;
    if (!p || !p->fri || fri_plan_of(&f, p) != GS_OK || !fri_ok(p->fri, &f)) return o;
    size_t Q = f.queries;
    o.commits = f.cap_len * GS_DIGEST_BYTES;
    o.final = (size_t)f.final_len * FP3_BYTES;
    tree_open tr[GS_FRI_PLAN_MAX_LAYERS];
    size_t n = fri_trees_of(tr, p->fri, &f);
    o.fri_q = 4 * Q + 8; /* the positions and the nonce */
    for (size_t l = 0; l < n; l++) o.fri_q += opening_bytes(&tr[l], p->fri->query_pos, Q);
    /* Shared trees: their roots are commitments, their nodes the trace,
     * chunk and aux trees' query bytes. */
    size_t *qt = malloc((Q + 1) * sizeof *qt), *tq[3] = {&o.trace_q, &o.chunk_q, &o.aux_q};
    for (unsigned i = 0; qt && i < 3; i++) {
        unsigned d = p->fri->tree_depth[i];
        if (!d || d > GS_MIXED_MAX_DEPTH || !p->fri->tree_paths[i]) continue;
        leaves_of(qt, p->fri->query_pos, Q, d);
        o.commits += GS_DIGEST_BYTES;
        *tq[i] = gs_mixed_count(qt, Q, d) * GS_DIGEST_BYTES;
    }
    free(qt);
    o.total = o.commits + o.final + o.fri_q + o.trace_q + o.chunk_q + o.aux_q;
    return o;
}

gs_proof_parts gs_proof_table_parts(const gs_proof *p) {
    gs_proof_parts o = {0};
    const gs_table_proof *t = &p->table;
    gs_shape s;
    if (!shape_for(&s, &p->params, GS_PROOF_VERSION_COMPACT, p->log_n, t->num_cols, t->num_chunks) ||
        t->aux_cols > MAX_AUX)
        return o;
    int shared = p->params.shared_fri != 0;
    if (shared) gs_shape_shared_table(&s, t->num_queries);
    s.aux = t->aux_cols;
    size_t D = GS_DIGEST_BYTES, A = s.aux, Q = s.queries;
    o.commits = gs_shape_cap_len(&s) * D; /* every tree's cap (its root when h = 0) */
    o.ood = (2 * (size_t)s.cols + s.chunks + 2 * A + (A ? 1 : 0)) * FP3_BYTES;
    o.final = (size_t)s.final_len * FP3_BYTES;
    tree_open tr[3 + 32];
    size_t n = trees_of(tr, t, &s);
    o.trace_q = opening_bytes(&tr[0], t->query_pos, Q) + (t->query_pos && !shared ? 4 * Q : 0);
    o.chunk_q = opening_bytes(&tr[1], t->query_pos, Q);
    for (uint32_t l = s.fri_first; l < s.layers; l++)
        o.fri_q += opening_bytes(&tr[2 + l - s.fri_first], t->query_pos, Q);
    o.aux_q = A ? opening_bytes(&tr[n - 1], t->query_pos, Q) : 0;
    o.total = o.commits + o.ood + o.final + o.trace_q + o.chunk_q + o.fri_q + o.aux_q;
    o.leaf_rows_log = s.lde_fold;
    return o;
}

/* ---- reading ---- */

/* A cursor that never moves past its end. */
typedef struct {
    const uint8_t *p;
    size_t left;
} rd;

static int get_bytes(rd *r, void *dst, size_t n) {
    if (r->left < n) return 0;
    if (n) memcpy(dst, r->p, n);
    r->p += n, r->left -= n;
    return 1;
}

static int get_u32(rd *r, uint32_t *v) {
    if (r->left < 4) return 0;
    *v = 0;
    for (int i = 0; i < 4; i++) *v |= (uint32_t)r->p[i] << (8 * i);
    r->p += 4, r->left -= 4;
    return 1;
}

static int get_u64(rd *r, uint64_t *v) {
    if (r->left < 8) return 0;
    *v = 0;
    for (int i = 0; i < 8; i++) *v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8, r->left -= 8;
    return 1;
}

/* A section: its tag must be `tag` and its body must fit in what is left;
 * *body covers exactly the body and r moves past it. */
static int get_section(rd *r, const uint8_t tag[4], rd *body) {
    uint8_t t[4];
    uint64_t n;
    if (!get_bytes(r, t, 4) || memcmp(t, tag, 4) != 0 || !get_u64(r, &n) || n > r->left) return 0;
    body->p = r->p, body->left = (size_t)n;
    r->p += n, r->left -= (size_t)n;
    return 1;
}

/* Allocates n elements of `size` bytes after checking that the input holds
 * them (n * size <= r->left, tested by division so it cannot overflow). At
 * least one element is allocated so that arrays are never NULL. */
static gs_status alloc_checked(void **dst, const rd *r, uint64_t n, size_t size) {
    if (n > r->left / size) return GS_ERR_PROOF_FORMAT;
    *dst = malloc(n ? (size_t)n * size : size);
    return *dst ? GS_OK : GS_ERR_NOMEM;
}

/* n canonical field elements into dst (which holds them). */
static int read_fps(rd *r, gs_fp *dst, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        if (!get_u64(r, &v) || v >= GS_FP_P) return 0;
        dst[i] = v;
    }
    return 1;
}

static gs_status get_fps(rd *r, gs_fp **dst, uint64_t n) {
    GS_TRY(alloc_checked((void **)dst, r, n, sizeof(gs_fp)));
    return read_fps(r, *dst, n) ? GS_OK : GS_ERR_PROOF_FORMAT;
}

static gs_status get_fp3s(rd *r, gs_fp3 **dst, uint64_t n) {
    GS_TRY(alloc_checked((void **)dst, r, n, sizeof(gs_fp3)));
    return read_fps(r, (gs_fp *)*dst, 3 * n) ? GS_OK : GS_ERR_PROOF_FORMAT;
}

static gs_status get_digests(rd *r, gs_digest **dst, uint64_t n) {
    GS_TRY(alloc_checked((void **)dst, r, n, sizeof(gs_digest)));
    get_bytes(r, *dst, (size_t)n * sizeof(gs_digest)); /* cannot fail: the length was checked */
    return GS_OK;
}

/* A u32 count that must equal `want`. */
static int get_count(rd *r, uint32_t *v, uint32_t want) { return get_u32(r, v) && *v == want; }

/* The parameters; they must give a shape on their own. */
static int get_params(rd *r, gs_params *q) {
    return get_u32(r, &q->log_blowup) && get_u32(r, &q->log_final) &&
           get_u32(r, &q->grinding_bits) && get_u32(r, &q->num_queries) && get_u32(r, &q->log_arity);
}

/* A table's statement, after p->params is set: fingerprint, description,
 * height (which with the parameters must give a shape), public inputs. */
static gs_status parse_statement(gs_proof *p, rd *r, uint32_t version) {
    uint32_t desc_len;
    if (!get_bytes(r, p->air_fingerprint.b, GS_DIGEST_BYTES) || !get_u32(r, &desc_len) ||
        desc_len > MAX_DESC || !get_bytes(r, p->air_desc, desc_len) ||
        memchr(p->air_desc, 0, desc_len) != NULL || !get_u32(r, &p->log_n))
        return GS_ERR_PROOF_FORMAT;
    /* The parameters and height alone must already give a shape. */
    gs_shape s;
    if (!shape_for(&s, &p->params, version, p->log_n, 1, 1)) return GS_ERR_PROOF_FORMAT;
    if (!get_u32(r, &p->num_public) || p->num_public > MAX_PUBLIC) return GS_ERR_PROOF_FORMAT;
    return get_fps(r, &p->pub, p->num_public);
}

/* Version 3's optional end of HEAD or MHDR (put_tail; r holds what is left
 * of the body): nothing is Keccak-256 without caps; 4 bytes, a known hash
 * other than Keccak-256 (an explicit Keccak-256 would be a second encoding);
 * 8 bytes, a known hash and a cap height 1..GS_MAX_CAP_HEIGHT; 12 bytes,
 * those (any height) and shared FRI 1, or height 0 and shared trees 2; 16 bytes, those with shared FRI 0
 * and coset leaves 1 or 2. */
static int get_tail(rd *r, gs_params *q, uint32_t version) {
    q->hash = GS_HASH_KECCAK256;
    q->cap_height = 0;
    q->shared_fri = 0;
    q->coset_leaves = 0;
    if (version < GS_PROOF_VERSION_COMPACT || r->left == 0) return 1;
    if (r->left == 16) /* coset leaves: hash, cap height (any), shared FRI 0, 1 or 2 */
        return get_u32(r, &q->hash) && q->hash < GS_HASH_COUNT && get_u32(r, &q->cap_height) &&
               q->cap_height <= GS_MAX_CAP_HEIGHT && get_u32(r, &q->shared_fri) && q->shared_fri == 0 &&
               get_u32(r, &q->coset_leaves) && q->coset_leaves >= 1 &&
               q->coset_leaves <= GS_COSET_LEAVES_ALL;
    if (r->left == 4)
        return get_u32(r, &q->hash) && q->hash != GS_HASH_KECCAK256 && q->hash < GS_HASH_COUNT;
    if (r->left == 12) /* shared FRI: hash, cap height (any), 1 */
        return get_u32(r, &q->hash) && q->hash < GS_HASH_COUNT && get_u32(r, &q->cap_height) &&
               q->cap_height <= GS_MAX_CAP_HEIGHT && get_u32(r, &q->shared_fri) &&
               (q->shared_fri == 1 || (q->shared_fri == GS_SHARED_TREES && q->cap_height == 0));
    return get_u32(r, &q->hash) && q->hash < GS_HASH_COUNT && get_u32(r, &q->cap_height) &&
           q->cap_height >= 1 && q->cap_height <= GS_MAX_CAP_HEIGHT;
}

static gs_status parse_head(gs_proof *p, rd *r, uint32_t version) {
    if (!get_params(r, &p->params)) return GS_ERR_PROOF_FORMAT;
    GS_TRY(parse_statement(p, r, version));
    if (!get_tail(r, &p->params, version) || p->params.shared_fri) return GS_ERR_PROOF_FORMAT;
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}


/* Version 3's openings of one tree (put_opening's form) into the table
 * proof's per-query rows and paths, which the caller allocated. */
static gs_status get_opening(rd *r, const tree_open *o, const uint32_t *pos, size_t Q,
                             gs_hash_id hash) {
    size_t *leaf = calloc(2 * Q + 1, sizeof *leaf), *uniq = leaf + Q;
    gs_fp *rows = NULL;
    gs_digest *hashes = NULL, *nodes = NULL, *paths = malloc((Q * o->plen + 1) * sizeof *paths);
    gs_status st = leaf && paths ? GS_OK : GS_ERR_NOMEM;
    size_t nu = 0;
    if (st == GS_OK) {
        leaves_of(leaf, pos, Q, o->depth);
        nu = gs_mpath_unique(uniq, leaf, Q);
        st = alloc_checked((void **)&rows, r, (uint64_t)nu * o->width, sizeof(gs_fp));
    }
    if (st == GS_OK && !read_fps(r, rows, (uint64_t)nu * o->width)) st = GS_ERR_PROOF_FORMAT;
    size_t nn = st == GS_OK ? gs_mpath_count(uniq, nu, o->plen) : 0;
    if (st == GS_OK) st = get_digests(r, &nodes, nn);
    if (st == GS_OK && !gs_digests_ok(hash, nodes, nn)) st = GS_ERR_PROOF_FORMAT;
    if (st == GS_OK && !(hashes = malloc(nu * sizeof *hashes))) st = GS_ERR_NOMEM;
    for (size_t j = 0; st == GS_OK && j < nu; j++)
        gs_merkle_leaf(hash, &hashes[j], rows + j * o->width, o->width);
    if (st == GS_OK)
        st = gs_mpath_expand(paths, leaf, Q, uniq, hashes, nu, nodes, o->plen, hash);
    for (size_t k = 0, j; st == GS_OK && k < Q; k++) {
        for (j = 0; uniq[j] != leaf[k]; j++) {} /* present: uniq holds every leaf */
        memcpy(o->rows + k * o->stride, rows + j * o->width, o->width * sizeof *rows);
        if (o->plen) memcpy(o->paths + k * o->pstride, paths + k * o->plen, o->plen * sizeof *paths);
    }
    free(leaf), free(rows), free(hashes), free(nodes), free(paths);
    return st;
}

/* The rows of `distinct` leaves of `width` elements must be in the input. */
static int rows_fit(const rd *r, const uint32_t *pos, size_t Q, unsigned depth, uint64_t width) {
    size_t *leaf = calloc(2 * Q + 1, sizeof *leaf);
    if (!leaf) return 0;
    leaves_of(leaf, pos, Q, depth);
    size_t nu = gs_mpath_unique(leaf + Q, leaf, Q);
    free(leaf);
    return width == 0 || nu <= r->left / sizeof(gs_fp) / width;
}

/* Allocates the per-query arrays that version 3 fills from its openings.
 * The input must hold the trace and chunk rows of every distinct leaf: the
 * positions are distinct, so that is all Q rows, or with coset leaves at
 * least Q / 2^lde_fold of them (at most 16 positions share a leaf): the
 * arrays are at most 16 times the input. The FRI leaves (at most 48
 * elements) and the paths are bounded by the shape: Q <= 1024 times at
 * most 30 digests a tree. */
static gs_status alloc_openings(gs_table_proof *t, const gs_shape *s, const rd *r) {
    counts c = counts_of(s);
    if (!rows_fit(r, t->query_pos, s->queries, s->lde_depth,
                  gs_lde_leaf_width(s, s->cols) + gs_lde_leaf_width(s, 3 * (size_t)s->chunks)))
        return GS_ERR_PROOF_FORMAT;
    t->trace_rows = malloc(c.trace_rows * sizeof(gs_fp));
    t->trace_paths = malloc(c.trace_paths * sizeof(gs_digest));
    t->chunk_rows = malloc(c.chunk_rows * sizeof(gs_fp));
    t->chunk_paths = malloc(c.chunk_paths * sizeof(gs_digest));
    t->fri_rows = malloc((c.fri_rows + 1) * sizeof(gs_fp));
    t->fri_paths = malloc((c.fri_paths + 1) * sizeof(gs_digest));
    return t->trace_rows && t->trace_paths && t->chunk_rows && t->chunk_paths && t->fri_rows &&
                   t->fri_paths
               ? GS_OK
               : GS_ERR_NOMEM;
}

/* The drawn positions are distinct (gs_transcript_squeeze_indices), so a
 * file's must be: GS_ERR_PROOF_FORMAT otherwise. */
static gs_status distinct_positions(const uint32_t *pos, size_t Q) {
    size_t *idx = malloc(2 * Q * sizeof *idx);
    if (!idx) return GS_ERR_NOMEM;
    for (size_t k = 0; k < Q; k++) idx[k] = pos[k];
    size_t nu = gs_mpath_unique(idx + Q, idx, Q);
    free(idx);
    return nu == Q ? GS_OK : GS_ERR_PROOF_FORMAT;
}

/* With caps, the array for every tree's cap, the aux tree's included (its
 * count is read later): the input must hold the others. */
static gs_status alloc_caps(gs_table_proof *t, const gs_shape *s, const rd *r) {
    if (!s->cap_height) return GS_OK;
    size_t lde = (size_t)1 << s->lde_cap, n = 2 * lde + s->fri_cap_len;
    if (n > r->left / sizeof(gs_digest)) return GS_ERR_PROOF_FORMAT;
    t->caps = calloc(n + lde, sizeof(gs_digest));
    return t->caps ? GS_OK : GS_ERR_NOMEM;
}

/* Tree `tree`'s cap (its root when h = 0) into its place; valid digests. */
static int get_cap(rd *r, gs_table_proof *t, const gs_shape *s, unsigned tree) {
    gs_digest *d = gs_table_cap(t, s, tree);
    size_t n = cap_count(s, tree);
    return d && n <= r->left / sizeof *d && get_bytes(r, d, n * sizeof *d) && gs_digests_ok(s->hash, d, n);
}

/* What put_table_head wrote: counts (which, with the statement, give *s;
 * a table of a shared-FRI file has no FRI part), caps, out-of-domain values. */
static gs_status get_table_head(gs_proof *p, rd *r, gs_shape *s, uint32_t version, int shared) {
    gs_table_proof *t = &p->table;
    if (!get_u32(r, &t->num_cols) || !get_u32(r, &t->num_chunks) ||
        !shape_for(s, &p->params, version, p->log_n, t->num_cols, t->num_chunks))
        return GS_ERR_PROOF_FORMAT;
    if (shared) gs_shape_shared_table(s, 0);
    t->cap_height = s->cap_height;
    GS_TRY(alloc_caps(t, s, r));
    if (!get_cap(r, t, s, GS_TREE_TRACE) || !get_cap(r, t, s, GS_TREE_CHUNK)) return GS_ERR_PROOF_FORMAT;
    GS_TRY(get_fp3s(r, &t->ood_cur, s->cols));
    GS_TRY(get_fp3s(r, &t->ood_next, s->cols));
    return get_fp3s(r, &t->ood_chunks, s->chunks);
}

/* The TABL body (without the end-of-section check); fills *s. */
static gs_status parse_subproof(gs_proof *p, rd *r, gs_shape *s, uint32_t version) {
    gs_table_proof *t = &p->table;
    uint32_t v;
    GS_TRY(get_table_head(p, r, s, version, 0));
    counts c = counts_of(s);
    if (!get_count(r, &v, s->layers)) return GS_ERR_PROOF_FORMAT;
    t->num_layers = v;
    /* At most 30 layers: allocated whatever the input (zero with caps). */
    if (!(t->fri_roots = calloc(s->layers + 1, sizeof *t->fri_roots))) return GS_ERR_NOMEM;
    for (uint32_t l = s->fri_first; l < s->layers; l++)
        if (!get_cap(r, t, s, GS_TREE_FRI + l)) return GS_ERR_PROOF_FORMAT;
    if (!get_count(r, &v, s->final_len)) return GS_ERR_PROOF_FORMAT;
    t->final_len = v;
    GS_TRY(get_fp3s(r, &t->final_poly, s->final_len));
    if (!get_u64(r, &t->pow_nonce) || !get_count(r, &v, s->queries)) return GS_ERR_PROOF_FORMAT;
    t->num_queries = v;
    t->log_lde = s->log_size; /* implied by the header: not on the wire */
    t->fri_row_len = (uint32_t)s->fri_row_len;
    t->fri_path_len = (uint32_t)s->fri_path_len;
    if (version < GS_PROOF_VERSION_COMPACT) {
        GS_TRY(get_fps(r, &t->trace_rows, c.trace_rows));
        GS_TRY(get_digests(r, &t->trace_paths, c.trace_paths));
        GS_TRY(get_fps(r, &t->chunk_rows, c.chunk_rows));
        GS_TRY(get_digests(r, &t->chunk_paths, c.chunk_paths));
        GS_TRY(get_fps(r, &t->fri_rows, c.fri_rows));
        return get_digests(r, &t->fri_paths, c.fri_paths);
    }
    GS_TRY(alloc_checked((void **)&t->query_pos, r, s->queries, 4));
    for (uint32_t k = 0; k < s->queries; k++)
        if (!get_u32(r, &t->query_pos[k]) || (uint64_t)t->query_pos[k] >> s->log_size)
            return GS_ERR_PROOF_FORMAT;
    GS_TRY(distinct_positions(t->query_pos, s->queries));
    GS_TRY(alloc_openings(t, s, r));
    tree_open o[3 + 32];
    size_t n = trees_of(o, t, s);
    for (size_t i = 0; i < n; i++) GS_TRY(get_opening(r, &o[i], t->query_pos, s->queries, s->hash));
    return GS_OK;
}

static gs_status parse_table(gs_proof *p, rd *r, uint32_t version) {
    gs_shape s;
    GS_TRY(parse_subproof(p, r, &s, version));
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}

/* The LogUp part, after the sub-proof that gave *s. With A = 0 the aux
 * arrays stay NULL and aux_root, bus_sum zero. */
static gs_status parse_logup(gs_table_proof *t, rd *r, gs_shape *s, uint32_t version) {
    if (!get_u32(r, &t->aux_cols) || t->aux_cols > MAX_AUX) return GS_ERR_PROOF_FORMAT;
    s->aux = t->aux_cols;
    if (!s->aux) return GS_OK;
    counts c = counts_of(s);
    if (!get_cap(r, t, s, GS_TREE_AUX) || !read_fps(r, t->bus_sum.c, 3)) return GS_ERR_PROOF_FORMAT;
    GS_TRY(get_fp3s(r, &t->ood_aux_cur, s->aux));
    GS_TRY(get_fp3s(r, &t->ood_aux_next, s->aux));
    if (version < GS_PROOF_VERSION_COMPACT) {
        GS_TRY(get_fps(r, &t->aux_rows, c.aux_rows));
        return get_digests(r, &t->aux_paths, c.aux_paths);
    }
    /* The distinct leaves' rows are in the input (alloc_openings). */
    if (!rows_fit(r, t->query_pos, s->queries, s->lde_depth, gs_lde_leaf_width(s, 3 * (size_t)s->aux)))
        return GS_ERR_PROOF_FORMAT;
    t->aux_rows = malloc(c.aux_rows * sizeof(gs_fp));
    t->aux_paths = malloc(c.aux_paths * sizeof(gs_digest));
    if (!t->aux_rows || !t->aux_paths) return GS_ERR_NOMEM;
    tree_open o[3 + 32];
    size_t n = trees_of(o, t, s);
    return get_opening(r, &o[n - 1], t->query_pos, s->queries, s->hash);
}

/* Magic and version; r moves past them. */
static int get_preamble(rd *r, uint32_t *version) {
    uint8_t magic[MAGIC_BYTES];
    return get_bytes(r, magic, MAGIC_BYTES) && memcmp(magic, GS_PROOF_MAGIC, MAGIC_BYTES) == 0 &&
           get_u32(r, version);
}

/* Version 3 holds either kind: the first section's tag tells which. */
static int compact_kind(const rd *r) {
    if (r->left < 4) return 0;
    return !memcmp(r->p, TAG_HEAD, 4) ? 1 : !memcmp(r->p, TAG_MHDR, 4) ? 2 : 0;
}

int gs_proof_file_kind(const uint8_t *buf, size_t len) {
    if (!buf) return 0;
    rd r = {buf, len};
    uint32_t version;
    if (!get_preamble(&r, &version)) return 0;
    if (version == GS_PROOF_VERSION_COMPACT) return compact_kind(&r);
    return version == GS_PROOF_VERSION ? 1 : version == GS_PROOF_VERSION_MULTI ? 2 : 0;
}

uint32_t gs_proof_file_version(const uint8_t *buf, size_t len) {
    rd r = {buf, buf ? len : 0};
    uint32_t version;
    return get_preamble(&r, &version) ? version : 0;
}

gs_status gs_proof_parse(gs_proof **out, const uint8_t *buf, size_t len) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return GS_ERR_INVALID_ARG;
    rd r = {buf, len}, head, table;
    uint32_t version;
    if (!get_preamble(&r, &version) ||
        (version != GS_PROOF_VERSION && version != GS_PROOF_VERSION_COMPACT) ||
        !get_section(&r, TAG_HEAD, &head))
        return GS_ERR_PROOF_FORMAT;
    gs_proof *p = calloc(1, sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status st = parse_head(p, &head, version);
    if (st == GS_OK && !get_section(&r, TAG_TABL, &table)) st = GS_ERR_PROOF_FORMAT;
    if (st == GS_OK) st = parse_table(p, &table, version);
    if (st == GS_OK && r.left != 0) st = GS_ERR_PROOF_FORMAT; /* trailing bytes */
    if (st != GS_OK) {
        gs_proof_free(p);
        return st;
    }
    *out = p;
    return GS_OK;
}

/* One MTBL body into entry e (whose params are set). */
static gs_status parse_multi_table(gs_proof *e, rd *r, uint32_t version) {
    gs_shape s;
    GS_TRY(parse_statement(e, r, version));
    GS_TRY(parse_subproof(e, r, &s, version));
    GS_TRY(parse_logup(&e->table, r, &s, version));
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}

/* A shared-FRI table's MTBL body up to its openings (put_shared_table);
 * *s is its shape with no query yet. */
static gs_status parse_shared_head(gs_proof *e, rd *r, gs_shape *s) {
    gs_table_proof *t = &e->table;
    GS_TRY(parse_statement(e, r, GS_PROOF_VERSION_COMPACT));
    GS_TRY(get_table_head(e, r, s, GS_PROOF_VERSION_COMPACT, 1));
    t->log_lde = s->log_size;
    if (!get_u32(r, &t->aux_cols) || t->aux_cols > MAX_AUX) return GS_ERR_PROOF_FORMAT;
    s->aux = t->aux_cols;
    if (!s->aux) return GS_OK;
    if (!get_cap(r, t, s, GS_TREE_AUX) || !read_fps(r, t->bus_sum.c, 3)) return GS_ERR_PROOF_FORMAT;
    GS_TRY(get_fp3s(r, &t->ood_aux_cur, s->aux));
    return get_fp3s(r, &t->ood_aux_next, s->aux);
}

/* The per-query arrays a shared-FRI file's tables expand to, in bytes: at
 * most SHARED_EXPAND_FLOOR plus SHARED_EXPAND_RATIO times the file. Where a
 * table's reduced positions repeat, its distinct rows fill Q rows each, so
 * without this bound a crafted file of wide tables with colliding positions
 * made the parser allocate ~100x its size (found by review, 2026-12-04; an
 * honest proof expands beyond its size only for tables smaller than Q). */
#define SHARED_EXPAND_FLOOR ((uint64_t)32 << 20)
#define SHARED_EXPAND_RATIO 16u

/* A shared-FRI table's openings (after parse_shared_head), at the shared
 * positions reduced to its LDE size; the section must end there. *budget:
 * the bytes the per-query arrays may still take (SHARED_EXPAND_FLOOR). */
static gs_status parse_shared_openings(gs_proof *e, rd *r, gs_shape *s, const gs_shared_fri *sf,
                                       uint64_t *budget) {
    gs_table_proof *t = &e->table;
    size_t Q = sf->num_queries;
    gs_shape_shared_table(s, sf->num_queries);
    t->num_queries = sf->num_queries;
    if (!(t->query_pos = malloc((Q + 1) * sizeof *t->query_pos))) return GS_ERR_NOMEM;
    uint32_t mask = ((uint32_t)1 << s->log_size) - 1;
    for (size_t k = 0; k < Q; k++) t->query_pos[k] = sf->query_pos[k] & mask;
    /* The distinct rows are in the input (the positions may repeat here). */
    if (!rows_fit(r, t->query_pos, Q, s->lde_depth, (uint64_t)s->cols + 3 * (uint64_t)s->chunks + 3 * (uint64_t)s->aux))
        return GS_ERR_PROOF_FORMAT;
    counts c = counts_of(s);
    uint64_t bytes = (c.trace_rows + c.chunk_rows + c.aux_rows) * sizeof(gs_fp) +
                     (c.trace_paths + c.chunk_paths + c.aux_paths) * sizeof(gs_digest);
    if (bytes > *budget) return GS_ERR_PROOF_FORMAT;
    *budget -= bytes;
    int paths = !s->shared_trees; /* with shared trees the paths are MFRI's */
    t->trace_rows = malloc(c.trace_rows * sizeof(gs_fp) + 1);
    if (paths) t->trace_paths = malloc(c.trace_paths * sizeof(gs_digest) + 1);
    t->chunk_rows = malloc(c.chunk_rows * sizeof(gs_fp) + 1);
    if (paths) t->chunk_paths = malloc(c.chunk_paths * sizeof(gs_digest) + 1);
    if (!t->trace_rows || !t->chunk_rows || (paths && (!t->trace_paths || !t->chunk_paths))) return GS_ERR_NOMEM;
    if (s->aux) {
        t->aux_rows = malloc(c.aux_rows * sizeof(gs_fp) + 1);
        if (paths) t->aux_paths = malloc(c.aux_paths * sizeof(gs_digest) + 1);
        if (!t->aux_rows || (paths && !t->aux_paths)) return GS_ERR_NOMEM;
    }
    tree_open o[3 + 32];
    size_t n = trees_of(o, t, s);
    for (size_t i = 0; i < n; i++) GS_TRY(get_opening(r, &o[i], t->query_pos, Q, s->hash));
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}

/* The MFRI body against the plan the tables' heights give. */
static gs_status parse_fri(gs_shared_fri *sf, rd *r, const gs_fri_plan *f) {
    uint32_t v;
    sf->log_lde = f->log_size;
    sf->cap_len = (uint32_t)f->cap_len;
    sf->fri_row_len = (uint32_t)f->row_len;
    sf->fri_path_len = (uint32_t)f->path_len;
    if (!get_count(r, &v, f->layers)) return GS_ERR_PROOF_FORMAT;
    sf->num_layers = v;
    GS_TRY(get_digests(r, &sf->caps, f->cap_len));
    if (!gs_digests_ok(f->hash, sf->caps, f->cap_len) || !get_count(r, &v, f->final_len))
        return GS_ERR_PROOF_FORMAT;
    sf->final_len = v;
    GS_TRY(get_fp3s(r, &sf->final_poly, f->final_len));
    if (!get_u64(r, &sf->pow_nonce) || !get_count(r, &v, f->queries)) return GS_ERR_PROOF_FORMAT;
    sf->num_queries = v;
    GS_TRY(alloc_checked((void **)&sf->query_pos, r, f->queries, 4));
    for (uint32_t k = 0; k < f->queries; k++)
        if (!get_u32(r, &sf->query_pos[k]) || (uint64_t)sf->query_pos[k] >> f->log_size)
            return GS_ERR_PROOF_FORMAT;
    GS_TRY(distinct_positions(sf->query_pos, f->queries));
    /* At most 48 elements and 30 digests a layer per query: bounded by the shape. */
    sf->fri_rows = malloc((f->queries * f->row_len + 1) * sizeof(gs_fp));
    sf->fri_paths = malloc((f->queries * f->path_len + 1) * sizeof(gs_digest));
    if (!sf->fri_rows || !sf->fri_paths) return GS_ERR_NOMEM;
    tree_open o[GS_FRI_PLAN_MAX_LAYERS];
    size_t n = fri_trees_of(o, sf, f);
    for (size_t i = 0; i < n; i++) GS_TRY(get_opening(r, &o[i], sf->query_pos, f->queries, f->hash));
    return GS_OK;
}

/* The rest of the MFRI body with shared trees (after the tables' openings,
 * whose rows give the leaves): each tree's root and batched paths, expanded
 * into every query's full path. */
static gs_status parse_trees(gs_multi_proof *p, rd *r, const gs_shape *s) {
    gs_shared_fri *sf = p->fri;
    uint32_t n = p->num_tables;
    size_t Q = sf->num_queries;
    size_t *qt = malloc((Q + 1) * sizeof *qt);
    gs_digest *rowd = malloc((Q * n + 1) * sizeof *rowd), *nodes = NULL;
    unsigned *log_rows = malloc((n + 1) * sizeof *log_rows);
    gs_status st = qt && rowd && log_rows ? GS_OK : GS_ERR_NOMEM;
    for (unsigned tree = 0; st == GS_OK && tree < 3; tree++) {
        unsigned d = gs_shared_tree_depth(s, n, tree);
        if (!d) continue;
        uint32_t m = 0, j = 0;
        for (uint32_t i = 0; i < n; i++) m += gs_shared_tree_holds(&s[i], tree);
        for (uint32_t i = 0; i < n; i++) { /* query k's digests at rowd + k m */
            if (!gs_shared_tree_holds(&s[i], tree)) continue;
            size_t w;
            const gs_fp *rows = gs_tree_rows(&p->tables[i].table, &s[i], tree, &w);
            for (size_t k = 0; k < Q; k++) gs_merkle_leaf(s[i].hash, &rowd[k * m + j], rows + k * w, w);
            log_rows[j++] = s[i].lde_depth;
        }
        leaves_of(qt, sf->query_pos, Q, d);
        size_t count = gs_mixed_count(qt, Q, d);
        if (!get_bytes(r, &sf->tree_roots[tree], sizeof(gs_digest)) ||
            !gs_digests_ok(s[0].hash, &sf->tree_roots[tree], 1))
            st = GS_ERR_PROOF_FORMAT;
        if (st == GS_OK) st = get_digests(r, &nodes, count);
        if (st == GS_OK && !gs_digests_ok(s[0].hash, nodes, count)) st = GS_ERR_PROOF_FORMAT;
        if (st == GS_OK && !(sf->tree_paths[tree] = malloc((Q * d + 1) * sizeof(gs_digest)))) st = GS_ERR_NOMEM;
        if (st == GS_OK)
            st = gs_mixed_expand(s[0].hash, sf->tree_paths[tree], qt, Q, rowd, log_rows, m, nodes, count) == GS_OK
                     ? GS_OK
                     : GS_ERR_PROOF_FORMAT;
        if (st == GS_OK) sf->tree_depth[tree] = d;
        free(nodes);
        nodes = NULL;
    }
    free(qt), free(rowd), free(log_rows);
    return st;
}

/* The tables and the MFRI section of a shared-FRI file (after MHDR): every
 * table's head first (their heights give the plan), then the FRI part
 * (its positions index the tables' openings), then each table's openings. */
static gs_status parse_shared_multi(gs_multi_proof *p, rd *r, size_t file_len) {
    uint32_t n = p->num_tables;
    uint64_t budget = SHARED_EXPAND_FLOOR + SHARED_EXPAND_RATIO * (uint64_t)file_len;
    rd *body = malloc(n * sizeof *body);
    gs_shape *s = malloc(n * sizeof *s);
    gs_status st = body && s ? GS_OK : GS_ERR_NOMEM;
    for (uint32_t i = 0; st == GS_OK && i < n; i++) {
        p->tables[i].params = p->params;
        st = get_section(r, TAG_MTBL, &body[i]) ? parse_shared_head(&p->tables[i], &body[i], &s[i])
                                                : GS_ERR_PROOF_FORMAT;
    }
    gs_fri_plan plan;
    rd fb;
    if (st == GS_OK) st = fri_plan_of(&plan, p) == GS_OK ? GS_OK : GS_ERR_PROOF_FORMAT;
    if (st == GS_OK && !get_section(r, TAG_MFRI, &fb)) st = GS_ERR_PROOF_FORMAT;
    if (st == GS_OK && !(p->fri = calloc(1, sizeof *p->fri))) st = GS_ERR_NOMEM;
    if (st == GS_OK) st = parse_fri(p->fri, &fb, &plan);
    for (uint32_t i = 0; st == GS_OK && i < n; i++)
        st = parse_shared_openings(&p->tables[i], &body[i], &s[i], p->fri, &budget);
    if (st == GS_OK) st = parse_trees(p, &fb, s);
    if (st == GS_OK && fb.left != 0) st = GS_ERR_PROOF_FORMAT;
    free(body), free(s);
    return st;
}

gs_status gs_multi_proof_parse(gs_multi_proof **out, const uint8_t *buf, size_t len) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return GS_ERR_INVALID_ARG;
    rd r = {buf, len}, head, table;
    uint32_t version, n;
    gs_params par = {0};
    gs_shape s;
    if (!get_preamble(&r, &version) ||
        (version != GS_PROOF_VERSION_MULTI && version != GS_PROOF_VERSION_COMPACT) ||
        !get_section(&r, TAG_MHDR, &head) || !get_params(&head, &par) || !get_u32(&head, &n) ||
        !get_tail(&head, &par, version) || head.left != 0 || !shape_for(&s, &par, version, 1, 1, 1) || n < 1 ||
        n > GS_PROOF_MAX_TABLES ||
        n > r.left / (version == GS_PROOF_VERSION_MULTI ? MIN_TABLE_SECTION_V2
                      : par.shared_fri == GS_SHARED_TREES ? MIN_TABLE_SECTION_TREES
                      : par.shared_fri                  ? MIN_TABLE_SECTION_SHARED
                                                        : MIN_TABLE_SECTION_V3) /* before the entries are allocated */)
        return GS_ERR_PROOF_FORMAT;
    gs_multi_proof *p = calloc(1, sizeof *p);
    gs_proof *tables = p ? calloc(n, sizeof *tables) : NULL;
    if (!tables) {
        free(p);
        return GS_ERR_NOMEM;
    }
    p->params = par;
    p->tables = tables;
    p->num_tables = n; /* entries not reached yet stay zeroed: gs_multi_proof_free is safe */
    gs_status st = par.shared_fri ? parse_shared_multi(p, &r, len) : GS_OK;
    for (uint32_t i = 0; !par.shared_fri && st == GS_OK && i < n; i++) {
        tables[i].params = par;
        st = get_section(&r, TAG_MTBL, &table) ? parse_multi_table(&tables[i], &table, version)
                                               : GS_ERR_PROOF_FORMAT;
    }
    if (st == GS_OK && r.left != 0) st = GS_ERR_PROOF_FORMAT; /* trailing bytes */
    if (st != GS_OK) {
        gs_multi_proof_free(p);
        return st;
    }
    *out = p;
    return GS_OK;
}
