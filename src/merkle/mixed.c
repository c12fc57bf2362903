/* One Merkle tree over matrices of several heights (mixed.h gives the node
 * values and the path layout).
 *
 * Build: level by level from the leaves, each level one gs_parallel_for over
 * node ranges; a node is a function of its children and of the rows that
 * enter there, so the tree does not depend on the thread count. Per level:
 * the pairs below, then each entering matrix's rows folded in, both in
 * chunks of contiguous 64-byte (node, digest) messages. Cost: one hash per
 * node plus one per entering row (less the level-0 matrix copied in); the
 * tree is 32 bytes a node, 2^(depth + 1) - 1 nodes.
 *
 * Keccak-256 hashes a chunk with gs_hash_many (SIMD lanes). Poseidon2 goes
 * node by node through gs_hash_pair: the bulk compression takes canonical
 * elements only, and the row digests (a level-0 node may be one) are the
 * caller's, which gs_hash_pair reduces.
 *
 * The batched form is merkle/multipath.h's over the leaves bitrev(q, depth);
 * expanding it differs from gs_mpath_expand only in the rows folded into
 * each node recomputed from a query's path. */
#include "merkle/mixed.h"

#include <stdlib.h>
#include <string.h>

#include "gstark/parallel.h"
#include "merkle/merkle_internal.h"
#include "merkle/multipath.h"
#include "util/pages.h"

#define CHUNK 64u         /* (node, digest) messages hashed at once */
#define LEVEL_GRAIN 1024u /* nodes per thread when splitting a level */

struct gs_mixed_tree {
    gs_hash_id id;
    unsigned depth, skip;
    gs_digest *nodes; /* level l >= skip at gs_merkle_level_offset(depth - skip, l - skip) */
    uint32_t n;       /* the matrices' heights, for gs_mixed_open_fetch */
    unsigned *log_rows;
};

size_t gs_mixed_bitrev(size_t j, unsigned bits) {
    if (bits == 0) return 0;
    if (bits > 64) bits = 64;
    uint64_t x = (uint64_t)j;
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    x = ((x >> 8) & 0x00FF00FF00FF00FFull) | ((x & 0x00FF00FF00FF00FFull) << 8);
    x = ((x >> 16) & 0x0000FFFF0000FFFFull) | ((x & 0x0000FFFF0000FFFFull) << 16);
    x = (x >> 32) | (x << 32);
    return (size_t)(x >> (64 - bits));
}

/* out[i] = H(in[2i] || in[2i + 1]) for i < n; out does not overlap in. */
static void pairs(gs_hash_id id, gs_digest *out, const gs_digest *in, size_t n) {
    if (id == GS_HASH_POSEIDON2)
        for (size_t i = 0; i < n; i++) gs_hash_pair(id, &out[i], &in[2 * i], &in[2 * i + 1]);
    else
        gs_hash_many(id, out, in[0].b, 2 * GS_DIGEST_BYTES, 2 * GS_DIGEST_BYTES, n);
}

/* Folds into *node the digests rowd[t] of the matrices of 2^lr rows, in
 * table order; with `fresh` (a leaf) the first of them is the node itself. */
static void fold_rows(gs_hash_id id, gs_digest *node, int fresh, const gs_digest *rowd,
                      const unsigned *log_rows, uint32_t n, unsigned lr) {
    for (uint32_t t = 0; t < n; t++) {
        if (log_rows[t] != lr) continue;
        if (fresh) *node = rowd[t], fresh = 0;
        else gs_hash_pair(id, node, node, &rowd[t]);
    }
}

/* The largest log_rows, or -1 for a bad shape (n == 0, a NULL array, one
 * above GS_MIXED_MAX_DEPTH). */
static int depth_of(const unsigned *log_rows, uint32_t n) {
    if (!n || !log_rows) return -1;
    unsigned d = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (log_rows[t] > GS_MIXED_MAX_DEPTH) return -1;
        if (log_rows[t] > d) d = log_rows[t];
    }
    return (int)d;
}

/* 1 if q[0..nq) are positions of a tree of that depth. */
static int positions_ok(const size_t *q, size_t nq, unsigned depth) {
    if (depth > GS_MIXED_MAX_DEPTH || (nq && !q)) return 0;
    for (size_t k = 0; k < nq; k++)
        if ((uint64_t)q[k] >> depth) return 0;
    return 1;
}

/* Room for 3 nq indices, the first nq the leaves bitrev(q_k, depth), the
 * next nq their distinct values ascending (*nu of them). NULL: no memory. */
static size_t *leaves_of(const size_t *q, size_t nq, unsigned depth, size_t *nu) {
    if (nq > SIZE_MAX / (3 * sizeof(size_t))) return NULL;
    size_t *p = malloc((nq ? 3 * nq : 1) * sizeof *p);
    if (!p) return NULL;
    for (size_t k = 0; k < nq; k++) p[k] = gs_mixed_bitrev(q[k], depth);
    *nu = gs_mpath_unique(p + nq, p, nq);
    return p;
}

/* ---- the tree ---- */

size_t gs_mixed_tree_bytes_skip(unsigned depth, unsigned skip) {
    if (depth > GS_MIXED_MAX_DEPTH) return 0;
    if (skip > depth) skip = depth;
    uint64_t n = ((uint64_t)2 << (depth - skip)) - 1;
    if (n > (SIZE_MAX - sizeof(gs_mixed_tree)) / GS_DIGEST_BYTES) return 0; /* 32-bit hosts */
    return (size_t)n * GS_DIGEST_BYTES + sizeof(gs_mixed_tree);
}

size_t gs_mixed_tree_bytes(unsigned depth) { return gs_mixed_tree_bytes_skip(depth, 0); }

size_t gs_mixed_build_scratch(unsigned depth, unsigned skip) {
    if (depth > GS_MIXED_MAX_DEPTH || !skip || !depth) return 0;
    return (((size_t)1 << depth) + ((size_t)1 << (depth - 1))) * GS_DIGEST_BYTES;
}

typedef struct {
    const gs_mixed_tree *tree;
    const gs_digest *const *rows;
    const unsigned *log_rows;
    uint32_t n;
    unsigned level; /* being written, into out, from below (level - 1) */
    gs_digest *out;
    const gs_digest *below;
} build_ctx;

static gs_digest *level_of(const gs_mixed_tree *t, unsigned l) {
    return t->nodes + gs_merkle_level_offset(t->depth - t->skip, l - t->skip);
}

/* Nodes [b, e) of c->level. */
static void build_range(void *p, size_t b, size_t e) {
    const build_ctx *c = p;
    gs_hash_id id = c->tree->id;
    unsigned l = c->level, lr = c->tree->depth - l;
    gs_digest *out = c->out;
    if (l) pairs(id, out + b, c->below + 2 * b, e - b);
    int fresh = l == 0;
    for (uint32_t t = 0; t < c->n; t++) {
        if (c->log_rows[t] != lr) continue;
        const gs_digest *d = c->rows[t];
        if (fresh) {
            for (size_t i = b; i < e; i++) out[i] = d[gs_mixed_bitrev(i, lr)];
            fresh = 0;
            continue;
        }
        gs_digest msg[2 * CHUNK];
        for (size_t i = b; i < e; i += CHUNK) {
            size_t w = e - i < CHUNK ? e - i : CHUNK;
            for (size_t j = 0; j < w; j++)
                msg[2 * j] = out[i + j], msg[2 * j + 1] = d[gs_mixed_bitrev(i + j, lr)];
            pairs(id, out + i, msg, w);
        }
    }
}

gs_status gs_mixed_alloc(gs_mixed_tree **out, gs_hash_id id, const unsigned *log_rows, uint32_t n,
                         unsigned skip) {
    if (out) *out = NULL;
    int d = depth_of(log_rows, n);
    if (!out || d < 0 || skip > GS_MIXED_MAX_SKIP) return GS_ERR_INVALID_ARG;
    if (skip > (unsigned)d) skip = (unsigned)d;
    if (!gs_mixed_tree_bytes_skip((unsigned)d, skip)) return GS_ERR_NOMEM;
    gs_mixed_tree *t = calloc(1, sizeof *t);
    if (t) {
        t->id = id, t->depth = (unsigned)d, t->skip = skip, t->n = n;
        t->log_rows = malloc(n * sizeof *t->log_rows);
        t->nodes = gs_pages_alloc((((size_t)2 << (d - skip)) - 1) * sizeof(gs_digest));
    }
    if (!t || !t->log_rows || !t->nodes) {
        gs_mixed_free(t);
        return GS_ERR_NOMEM;
    }
    memcpy(t->log_rows, log_rows, n * sizeof *log_rows);
    *out = t;
    return GS_OK;
}

gs_digest *gs_mixed_nodes(gs_mixed_tree *t) { return t ? t->nodes : NULL; }

unsigned gs_mixed_skip(const gs_mixed_tree *t) { return t ? t->skip : 0; }

gs_status gs_mixed_build_skip(gs_mixed_tree **out, gs_hash_id id, const gs_digest *const *rows,
                              const unsigned *log_rows, uint32_t n, unsigned skip) {
    if (out) *out = NULL;
    if (!out || !rows) return GS_ERR_INVALID_ARG;
    for (uint32_t t = 0; log_rows && t < n; t++)
        if (!rows[t]) return GS_ERR_INVALID_ARG;
    gs_mixed_tree *t = NULL;
    GS_TRY(gs_mixed_alloc(&t, id, log_rows, n, skip));
    skip = t->skip;
    /* Levels below skip live in two scratch levels in turn (even ones in
     * low[0], 2^d nodes; odd ones in low[1], 2^(d-1)). */
    gs_digest *low[2] = {NULL, NULL};
    if (skip) {
        low[0] = malloc(((size_t)1 << t->depth) * sizeof(gs_digest));
        low[1] = malloc(((size_t)1 << (t->depth - 1)) * sizeof(gs_digest));
        if (!low[0] || !low[1]) {
            free(low[0]), free(low[1]);
            gs_mixed_free(t);
            return GS_ERR_NOMEM;
        }
    }
    build_ctx c = {.tree = t, .rows = rows, .log_rows = log_rows, .n = n};
    for (unsigned l = 0; l <= t->depth; l++) {
        c.level = l;
        c.below = c.out;
        c.out = l < skip ? low[l & 1] : level_of(t, l);
        gs_parallel_for((size_t)1 << (t->depth - l), LEVEL_GRAIN, build_range, &c);
    }
    free(low[0]), free(low[1]);
    *out = t;
    return GS_OK;
}

gs_status gs_mixed_build(gs_mixed_tree **out, gs_hash_id id, const gs_digest *const *rows,
                         const unsigned *log_rows, uint32_t n) {
    return gs_mixed_build_skip(out, id, rows, log_rows, n, 0);
}

void gs_mixed_free(gs_mixed_tree *t) {
    if (!t) return;
    gs_pages_free(t->nodes);
    free(t->log_rows);
    free(t);
}

unsigned gs_mixed_depth(const gs_mixed_tree *t) { return t ? t->depth : 0; }

gs_digest gs_mixed_root(const gs_mixed_tree *t) {
    gs_digest z;
    if (!t) {
        memset(&z, 0, sizeof z);
        return z;
    }
    return *level_of(t, t->depth);
}

gs_status gs_mixed_open(const gs_mixed_tree *t, gs_digest *paths, const size_t *q, size_t nq) {
    if (!t || t->skip || !positions_ok(q, nq, t->depth) || (nq && t->depth && !paths))
        return GS_ERR_INVALID_ARG;
    unsigned d = t->depth;
    for (size_t k = 0; k < nq; k++) {
        size_t p = gs_mixed_bitrev(q[k], d);
        for (unsigned l = 0; l < d; l++) paths[k * d + l] = level_of(t, l)[(p >> l) ^ 1];
    }
    return GS_OK;
}

/* The levels below the skip of block bi into blk (level l's 2^(s - l)
 * nodes at blk + gs_merkle_level_offset(s, l)), from dig[m]: the entering
 * matrices' digests of the blocks, block bi's at dig[m] + bi 2^(s - e), e
 * the matrix's level; one (room for a digest per matrix) is scratch. */
static void low_block(const gs_mixed_tree *t, gs_digest *blk, gs_digest *const *dig, size_t bi,
                      gs_digest *one) {
    unsigned s = t->skip, D = t->depth;
    for (unsigned l = 0; l < s; l++) {
        gs_digest *lv = blk + gs_merkle_level_offset(s, l);
        size_t w = (size_t)1 << (s - l);
        for (size_t j = 0; j < w; j++) {
            if (l) {
                const gs_digest *lo = blk + gs_merkle_level_offset(s, l - 1);
                gs_hash_pair(t->id, &lv[j], &lo[2 * j], &lo[2 * j + 1]);
            }
            for (uint32_t m = 0; m < t->n; m++)
                if (D - t->log_rows[m] == l) one[m] = dig[m][bi * w + j];
            fold_rows(t->id, &lv[j], l == 0, one, t->log_rows, t->n, D - l);
        }
    }
}

gs_status gs_mixed_open_fetch(const gs_mixed_tree *t, gs_digest *paths, const size_t *q, size_t nq,
                              gs_mixed_fetch_fn fetch, void *ctx) {
    if (t && !t->skip) return gs_mixed_open(t, paths, q, nq);
    if (!t || !fetch || !positions_ok(q, nq, t->depth) || (nq && !paths)) return GS_ERR_INVALID_ARG;
    unsigned s = t->skip, D = t->depth;
    size_t nu = 0, *p = leaves_of(q, nq, D, &nu), nb = 0;
    /* The distinct blocks (leaves >> s), ascending: uniq's prefixes. */
    size_t *blocks = p ? malloc((nu + 1) * sizeof *blocks) : NULL;
    for (size_t j = 0; blocks && j < nu; j++)
        if (!nb || blocks[nb - 1] != p[nq + j] >> s) blocks[nb++] = p[nq + j] >> s;
    gs_digest **dig = blocks ? calloc(t->n + 1, sizeof *dig) : NULL;
    size_t *rows = dig ? malloc((nb << s) * sizeof *rows + 1) : NULL;
    gs_digest *blk = rows ? malloc(((size_t)2 << s) * sizeof *blk) : NULL;
    gs_digest *one = blk ? malloc(t->n * sizeof *one) : NULL;
    gs_status r = one ? GS_OK : GS_ERR_NOMEM;
    /* Each matrix entering below the skip: its rows in every block, one fetch. */
    for (uint32_t m = 0; r == GS_OK && m < t->n; m++) {
        unsigned lr = t->log_rows[m];
        if (D - lr >= s) continue;
        size_t w = (size_t)1 << (s - (D - lr));
        for (size_t bi = 0; bi < nb; bi++)
            for (size_t j = 0; j < w; j++) rows[bi * w + j] = gs_mixed_bitrev((blocks[bi] * w) + j, lr);
        if (!(dig[m] = malloc(nb * w * sizeof(gs_digest) + 1))) r = GS_ERR_NOMEM;
        if (r == GS_OK) r = fetch(ctx, m, rows, nb * w, dig[m]);
    }
    for (size_t bi = 0; r == GS_OK && bi < nb; bi++) {
        low_block(t, blk, dig, bi, one);
        for (size_t k = 0; k < nq; k++) {
            if (p[k] >> s != blocks[bi]) continue;
            for (unsigned l = 0; l < D; l++) {
                size_t sib = (p[k] >> l) ^ 1;
                paths[k * D + l] = l < s ? blk[gs_merkle_level_offset(s, l) + sib - (blocks[bi] << (s - l))]
                                         : level_of(t, l)[sib];
            }
        }
    }
    for (uint32_t m = 0; dig && m < t->n; m++) free(dig[m]);
    free(p), free(blocks), free(dig), free(rows), free(blk), free(one);
    return r;
}

/* ---- verifying one query ---- */

gs_status gs_mixed_root_of(gs_hash_id id, gs_digest *root, size_t q, const gs_digest *rowd,
                           const unsigned *log_rows, uint32_t n, const gs_digest *path) {
    int d = depth_of(log_rows, n);
    if (!root || !rowd || d < 0 || (d && !path) || (uint64_t)q >> d) return GS_ERR_INVALID_ARG;
    size_t p = gs_mixed_bitrev(q, (unsigned)d);
    gs_digest cur;
    fold_rows(id, &cur, 1, rowd, log_rows, n, (unsigned)d);
    for (unsigned l = 0; l < (unsigned)d; l++) {
        if ((p >> l) & 1) gs_hash_pair(id, &cur, &path[l], &cur);
        else gs_hash_pair(id, &cur, &cur, &path[l]);
        fold_rows(id, &cur, 0, rowd, log_rows, n, (unsigned)d - l - 1);
    }
    *root = cur;
    return GS_OK;
}

/* ---- the batched form ---- */

size_t gs_mixed_count(const size_t *q, size_t nq, unsigned depth) {
    if (!positions_ok(q, nq, depth)) return 0;
    size_t nu = 0, *p = leaves_of(q, nq, depth, &nu);
    if (!p) return 0;
    size_t count = gs_mpath_count(p + nq, nu, depth);
    free(p);
    return count;
}

gs_status gs_mixed_compress(gs_digest *out, size_t *count, const size_t *q, size_t nq,
                            const gs_digest *paths, unsigned depth) {
    if (count) *count = 0;
    if (!count || !positions_ok(q, nq, depth) || (nq && depth && (!out || !paths)))
        return GS_ERR_INVALID_ARG;
    size_t nu = 0, *p = leaves_of(q, nq, depth, &nu);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = gs_mpath_compress(out, p, nq, paths, depth);
    if (s == GS_OK) *count = gs_mpath_count(p + nq, nu, depth);
    free(p);
    return s;
}

/* A known node of one level: index, digest, and the lowest query whose path
 * runs through it (NONE for a sent node). */
typedef struct {
    size_t i, k;
    gs_digest d;
} xnode;
#define NONE SIZE_MAX

static int cmp_xnode(const void *key, const void *elem) {
    size_t x = *(const size_t *)key, y = ((const xnode *)elem)->i;
    return (x > y) - (x < y);
}

gs_status gs_mixed_expand(gs_hash_id id, gs_digest *paths, const size_t *q, size_t nq,
                          const gs_digest *rowd, const unsigned *log_rows, uint32_t n,
                          const gs_digest *nodes, size_t num_nodes) {
    int dd = depth_of(log_rows, n);
    if (dd < 0 || !positions_ok(q, nq, (unsigned)dd) || (nq && !rowd) || (nq && dd && !paths) ||
        (num_nodes && !nodes))
        return GS_ERR_INVALID_ARG;
    unsigned d = (unsigned)dd;
    size_t nu = 0, *p = leaves_of(q, nq, d, &nu);
    if (!p) return GS_ERR_NOMEM;
    const size_t *uniq = p + nq;
    if (num_nodes != gs_mpath_count(uniq, nu, d)) {
        free(p);
        return GS_ERR_INVALID_ARG;
    }
    /* cur: the level's nodes on some path (at most nu); full: with the sent siblings. */
    int fits = nu < SIZE_MAX / (2 * sizeof(xnode)); /* no product below overflows */
    xnode *cur = fits ? malloc((nu ? nu : 1) * sizeof *cur) : NULL;
    xnode *full = fits ? malloc((2 * nu + 1) * sizeof *full) : NULL;
    if (!cur || !full) {
        free(p), free(cur), free(full);
        return GS_ERR_NOMEM;
    }
    for (size_t j = 0; j < nu; j++) cur[j].i = uniq[j], cur[j].k = NONE;
    for (size_t k = 0; k < nq; k++) { /* ascending k: the first query to reach a leaf keeps it */
        xnode *e = bsearch(&p[k], cur, nu, sizeof *cur, cmp_xnode);
        if (e->k == NONE) e->k = k;
    }
    for (size_t j = 0; j < nu; j++) fold_rows(id, &cur[j].d, 1, rowd + cur[j].k * n, log_rows, n, d);
    size_t m = nu, used = 0; /* the loop takes exactly gs_mpath_count nodes, checked above */
    for (unsigned l = 0; l < d; l++) {
        size_t f = 0;
        for (size_t j = 0; j < m; j++) {
            size_t v = cur[j].i;
            int known = (v & 1) ? j && cur[j - 1].i == (v ^ 1) : j + 1 < m && cur[j + 1].i == (v ^ 1);
            xnode sent = {.i = v ^ 1, .k = NONE};
            if (!known) sent.d = nodes[used++];
            if (!known && (v & 1)) full[f++] = sent;
            full[f++] = cur[j];
            if (!known && !(v & 1)) full[f++] = sent;
        }
        for (size_t k = 0; k < nq; k++) {
            size_t sib = (p[k] >> l) ^ 1;
            const xnode *e = bsearch(&sib, full, f, sizeof *full, cmp_xnode);
            paths[k * d + l] = e->d; /* present: every path's node is in cur */
        }
        for (size_t j = 0; j < f; j += 2) {
            xnode *up = &cur[j / 2];
            up->i = full[j].i >> 1;
            up->k = full[j].k < full[j + 1].k ? full[j].k : full[j + 1].k;
            gs_hash_pair(id, &up->d, &full[j].d, &full[j + 1].d);
            fold_rows(id, &up->d, 0, rowd + up->k * n, log_rows, n, d - l - 1);
        }
        m = f / 2;
    }
    free(p), free(cur), free(full);
    return GS_OK;
}
