/* Merkle commit: hash the rows of a column-major matrix into leaves, then
 * reduce level by level to the root, keeping every node.
 *
 * Work split. The leaves are cut into 2^(depth-h) subtrees of 2^h rows. One
 * gs_parallel_for over subtrees does, per subtree, all the leaf hashing and
 * the reduction of its h lowest levels, so a thread streams through its own
 * rows once and its levels stay in cache (h is chosen so a subtree holds a
 * few hundred KiB of input). The remaining depth - h levels are reduced one
 * level at a time, split across threads only where a level is wide enough.
 * Every node is a function of its children alone, so the tree does not
 * depend on h, the tile size or the thread count.
 *
 * Leaves. Rows are gathered a tile at a time (64..512 rows, ~128 KiB): the
 * tile of each column (a contiguous run of 8-byte values) is written into a
 * row-major buffer of little-endian limbs, then gs_hash_many hashes the
 * tile's rows (cols * 8 bytes each). The gather also prefetches the next
 * tile of each column, so the matrix streams in from memory while the
 * current tile is hashed (the hashing is compute-bound). Memory traffic is
 * one read of the matrix and one write of the tree (32 bytes per node);
 * the tile buffer stays in L2.
 *
 * Cost: Keccak-256 permutations per row = ceil((cols * 8 + 1) / 136) for the
 * leaf plus ~1 for the node above it (64-byte messages take one).
 *
 * Poseidon2 (gstark/hash.h): the same split, without the gather. A tile's
 * rows go straight from the column-major matrix into the sponge
 * (gs_poseidon2_hash_rows with row stride 1 and the column stride: field
 * elements, no bytes), and each level is one gs_poseidon2_compress_many.
 * Both write their digests as 4 u64 elements into the nodes, which on a
 * little-endian host are the digests' bytes (a big-endian host converts).
 * Cost per row: max(1, ceil(cols / 8)) width-12 permutations for the leaf
 * plus ~1 width-8 permutation for the node above it. */
#include <stdatomic.h>
#include <stdlib.h>

#include "gstark/parallel.h"
#include "gstark/poseidon2.h"
#include "merkle/merkle_internal.h"
#include "util/pages.h"
#include "util/parallel_share.h"

#define TILE_BYTES (128u * 1024u)     /* target size of a gathered tile */
#define SUBTREE_BYTES (256u * 1024u)  /* target input bytes per subtree */
#define LEVEL_GRAIN 1024u             /* nodes per thread when splitting a level */

static atomic_long g_fail_alloc;

void gs_merkle_debug_fail_alloc(long n) { atomic_store(&g_fail_alloc, n > 0 ? n : 0); }

/* 1 if the test hook says this allocation fails. */
static int fail_injected(void) {
    long k = atomic_load(&g_fail_alloc);
    while (k > 0) {
        if (atomic_compare_exchange_weak(&g_fail_alloc, &k, k - 1)) return k == 1;
    }
    return 0;
}

void *gs_merkle_alloc(size_t size) {
    if (fail_injected()) return NULL;
    if (size == 0) size = 1;
    if (size > SIZE_MAX - 63) return NULL;
    return aligned_alloc(64, (size + 63) & ~(size_t)63);
}

size_t gs_merkle_tree_bytes_skip(unsigned log_rows, unsigned skip) {
    if (log_rows > GS_MERKLE_MAX_LOG_ROWS) return 0;
    if (skip > log_rows) skip = log_rows;
    uint64_t n = ((uint64_t)2 << (log_rows - skip)) - 1;
    if (n > SIZE_MAX / GS_DIGEST_BYTES) return 0; /* 32-bit hosts */
    return (size_t)n * GS_DIGEST_BYTES + sizeof(struct gs_merkle_tree);
}

size_t gs_merkle_tree_bytes(unsigned log_rows) { return gs_merkle_tree_bytes_skip(log_rows, 0); }

unsigned gs_merkle_skip_for(size_t cols, unsigned log_rows) {
    return log_rows >= GS_MERKLE_SKIP_MIN_LOG_ROWS && cols < 32 ? 3 : 0;
}

static gs_status tree_new(gs_merkle_tree **out, gs_hash_id id, unsigned log_rows, unsigned skip) {
    if (gs_merkle_tree_bytes_skip(log_rows, skip) == 0) return GS_ERR_NOMEM;
    gs_merkle_tree *t = gs_merkle_alloc(sizeof *t);
    if (!t) return GS_ERR_NOMEM;
    t->id = id;
    t->depth = log_rows;
    t->skip = skip;
    /* The nodes are pages of their own (util/pages.h): a freed tree leaves
     * the process, so RSS follows what the accountant charges for it. */
    size_t bytes = (((size_t)2 << (log_rows - skip)) - 1) * sizeof(gs_digest);
    t->nodes = fail_injected() ? NULL : gs_pages_alloc(bytes);
    if (!t->nodes) {
        free(t);
        return GS_ERR_NOMEM;
    }
    *out = t;
    return GS_OK;
}

void gs_merkle_free(gs_merkle_tree *t) {
    if (!t) return;
    gs_pages_free(t->nodes);
    free(t);
}

/* ---- the parallel build ---- */

typedef struct {
    gs_hash_id id;
    const gs_fp *m; /* NULL: leaves are already in level 0 */
    size_t cols, stride, rowbytes;
    unsigned depth, h; /* subtrees of 2^h leaves */
    unsigned skip;     /* levels below it are not stored (skip <= h) */
    const gs_merkle_tree *tree; /* its nodes are written */
    size_t tile;       /* rows per gathered tile, divides 2^h */
    unsigned level; /* for reduce_range: the level being written */
    gs_digest *row_out; /* gs_merkle_row_digests: the digests */
    atomic_int nomem;
} build_ctx;

/* Rows [row0, row0 + n) of the matrix as row-major little-endian limbs.
 * With `prefetch`, the next n rows of every column are requested into the
 * cache on the way, so they arrive while this tile is being hashed. */
static void gather(uint8_t *buf, const build_ctx *c, size_t row0, size_t n, int prefetch) {
    for (size_t col = 0; col < c->cols; col++) {
        const gs_fp *src = c->m + col * c->stride + row0;
        uint8_t *dst = buf + col * 8;
        if (prefetch)
            for (size_t r = 0; r < n; r += 8) __builtin_prefetch(src + n + r, 0, 2);
        for (size_t r = 0; r < n; r++) gs_merkle_store_le64(dst + r * c->rowbytes, src[r]);
    }
}

_Static_assert(sizeof(gs_poseidon2_digest) == sizeof(gs_digest), "a Poseidon2 digest is 32 bytes");

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define P2_NATIVE_BYTES 1 /* a gs_poseidon2_digest in memory is its 32-byte form */
#else
#define P2_NATIVE_BYTES 0
#endif

/* Digests the Poseidon2 bulk calls wrote as elements, into their byte form. */
static void p2_to_bytes(gs_digest *d, size_t n) {
    for (size_t i = 0; !P2_NATIVE_BYTES && i < n; i++) {
        gs_poseidon2_digest e;
        memcpy(&e, &d[i], sizeof e);
        gs_poseidon2_digest_to_bytes(&d[i], &e);
    }
}

/* out[i] = node(in[2i], in[2i + 1]) for i < n, with the tree's hash. */
static void pairs(const build_ctx *c, gs_digest *out, const gs_digest *in, size_t n) {
    if (c->id == GS_HASH_POSEIDON2) {
        if (P2_NATIVE_BYTES)
            gs_poseidon2_compress_many((gs_poseidon2_digest *)(void *)out,
                                       (const gs_poseidon2_digest *)(const void *)in, n);
        else
            for (size_t i = 0; i < n; i++) gs_hash_pair(c->id, &out[i], &in[2 * i], &in[2 * i + 1]);
        return;
    }
    gs_hash_many(c->id, out, (const uint8_t *)in, 2 * GS_DIGEST_BYTES, 2 * GS_DIGEST_BYTES, n);
}

/* The leaf digests of rows [row0, row0 + c->tile) into out: Poseidon2 from
 * the columns, Keccak-256 from the rows gathered into buf (a tile of
 * c->rowbytes rows; with `prefetch` the next tile is requested on the way). */
static void hash_tile(const build_ctx *c, uint8_t *buf, gs_digest *out, size_t row0, int prefetch) {
    if (c->id == GS_HASH_POSEIDON2) {
        gs_poseidon2_hash_rows((gs_poseidon2_digest *)(void *)out, c->m + row0, c->tile, c->cols, 1, c->stride);
        p2_to_bytes(out, c->tile);
        return;
    }
    gather(buf, c, row0, c->tile, prefetch);
    gs_hash_many(c->id, out, buf, c->rowbytes, c->rowbytes, c->tile);
}

/* Nodes [b, e) of level `level` (stored) from their children in level - 1. */
static void reduce(const build_ctx *c, unsigned level, size_t b, size_t e) {
    pairs(c, gs_merkle_level(c->tree, level) + b, gs_merkle_level(c->tree, level - 1) + 2 * b, e - b);
}

/* Subtree s's levels 0..h: a level below skip lives in the thread's scratch
 * (laid out as a tree of depth h), the others in the tree. */
static gs_digest *sub_level(const build_ctx *c, gs_digest *scratch, size_t s, unsigned l) {
    if (l < c->skip) return scratch + gs_merkle_level_offset(c->h, l);
    return gs_merkle_level(c->tree, l) + (s << (c->h - l));
}

static void build_subtrees(void *p, size_t b, size_t e) {
    build_ctx *c = p;
    uint8_t *buf = NULL;
    gs_digest *scratch = NULL;
    int p2 = c->id == GS_HASH_POSEIDON2;
    if (c->m && !p2) buf = gs_merkle_alloc(c->tile * c->rowbytes);
    if (c->skip) scratch = gs_merkle_alloc(((size_t)2 << c->h) * sizeof(gs_digest));
    if ((c->m && !p2 && !buf) || (c->skip && !scratch)) {
        atomic_store(&c->nomem, 1);
        free(buf), free(scratch);
        return;
    }
    size_t rows = (size_t)1 << c->h;
    for (size_t s = b; s < e; s++) {
        size_t row0 = s << c->h;
        gs_digest *leaves = sub_level(c, scratch, s, 0);
        for (size_t r = 0; c->m && r < rows; r += c->tile)
            hash_tile(c, buf, leaves + r, row0 + r, r + c->tile < rows || s + 1 < e);
        for (unsigned l = 1; l <= c->h; l++)
            pairs(c, sub_level(c, scratch, s, l), sub_level(c, scratch, s, l - 1), (size_t)1 << (c->h - l));
    }
    free(buf), free(scratch);
}

static void reduce_range(void *p, size_t b, size_t e) {
    build_ctx *c = p;
    reduce(c, c->level, b, e);
}

static unsigned floor_log2(size_t x) {
    unsigned l = 0;
    while (x >>= 1) l++;
    return l;
}

/* Rows per gathered tile (log2): ~TILE_BYTES of rows, 64..512 rows, never
 * more than the 2^log_rows there are. */
static unsigned tile_log(size_t rowbytes, unsigned log_rows) {
    size_t t = TILE_BYTES / rowbytes;
    unsigned l = t ? floor_log2(t) : 0;
    if (l < 6) l = 6;
    if (l > 9) l = 9;
    return l > log_rows ? log_rows : l;
}

static gs_status build(build_ctx *c) {
    unsigned d = c->depth;
    unsigned log_tile = 0, h;
    if (c->m) {
        log_tile = tile_log(c->rowbytes, d);
        /* Subtree: ~SUBTREE_BYTES of input (or of leaf digests), at most
         * 2^14 leaves (512 KiB of digests), at least one tile. */
        size_t sub = SUBTREE_BYTES / c->rowbytes;
        h = sub ? floor_log2(sub) : 0;
    } else {
        h = floor_log2(SUBTREE_BYTES / GS_DIGEST_BYTES);
    }
    if (h > 14) h = 14;
    if (h < log_tile) h = log_tile;
    if (h > d) h = d;
    /* Enough subtrees for every thread, as long as each keeps a whole tile. */
    unsigned threads = gs_threads_tasks();
    while (h > log_tile && h > c->skip && d - h < 16 && ((size_t)1 << (d - h)) < threads) h--;
    c->h = h;
    c->tile = (size_t)1 << log_tile;

    gs_parallel_for((size_t)1 << (d - h), 1, build_subtrees, c);
    if (atomic_load(&c->nomem)) return GS_ERR_NOMEM;
    for (unsigned l = h + 1; l <= d; l++) {
        c->level = l;
        gs_parallel_for((size_t)1 << (d - l), LEVEL_GRAIN, reduce_range, c);
    }
    return GS_OK;
}

/* Tiles [b, e) of gs_merkle_row_digests. */
static void hash_tiles(void *p, size_t b, size_t e) {
    build_ctx *c = p;
    int p2 = c->id == GS_HASH_POSEIDON2;
    uint8_t *buf = p2 ? NULL : gs_merkle_alloc(c->tile * c->rowbytes);
    if (!p2 && !buf) {
        atomic_store(&c->nomem, 1);
        return;
    }
    for (size_t t = b; t < e; t++) hash_tile(c, buf, c->row_out + t * c->tile, t * c->tile, t + 1 < e);
    free(buf);
}

gs_status gs_merkle_row_digests(gs_hash_id id, gs_digest *out, const gs_fp *m, size_t cols,
                                size_t col_stride, unsigned log_rows) {
    if (!out || !m || cols == 0 || log_rows > GS_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    if ((uint64_t)col_stride < ((uint64_t)1 << log_rows)) return GS_ERR_INVALID_ARG;
    if (cols > SIZE_MAX / 8 / 512) return GS_ERR_INVALID_ARG;
    build_ctx c = {.id = id, .m = m, .cols = cols, .stride = col_stride, .rowbytes = cols * 8,
                   .row_out = out};
    atomic_init(&c.nomem, 0);
    unsigned log_tile = tile_log(c.rowbytes, log_rows);
    c.tile = (size_t)1 << log_tile;
    gs_parallel_for((size_t)1 << (log_rows - log_tile), 1, hash_tiles, &c);
    return atomic_load(&c.nomem) ? GS_ERR_NOMEM : GS_OK;
}

gs_status gs_merkle_commit_skip(gs_merkle_tree **out, gs_hash_id id, const gs_fp *m, size_t cols,
                                size_t col_stride, unsigned log_rows, unsigned skip) {
    if (out) *out = NULL;
    if (!out || !m || cols == 0 || log_rows > GS_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    if ((uint64_t)col_stride < ((uint64_t)1 << log_rows)) return GS_ERR_INVALID_ARG;
    if (cols > SIZE_MAX / 8 / 512) return GS_ERR_INVALID_ARG; /* a tile's bytes overflow */
    /* Never more than a subtree's first tile (64 rows) below the stored levels. */
    if (skip > GS_MERKLE_MAX_SKIP) skip = GS_MERKLE_MAX_SKIP;
    if (skip > log_rows) skip = log_rows;
    gs_merkle_tree *t;
    GS_TRY(tree_new(&t, id, log_rows, skip));
    build_ctx c = {.id = id, .m = m, .cols = cols, .stride = col_stride, .rowbytes = cols * 8,
                   .depth = log_rows, .skip = skip, .tree = t};
    atomic_init(&c.nomem, 0);
    gs_status s = build(&c);
    if (s != GS_OK) {
        gs_merkle_free(t);
        return s;
    }
    *out = t;
    return GS_OK;
}

gs_status gs_merkle_commit(gs_merkle_tree **out, gs_hash_id id, const gs_fp *m, size_t cols,
                           size_t col_stride, unsigned log_rows) {
    return gs_merkle_commit_skip(out, id, m, cols, col_stride, log_rows, 0);
}

gs_status gs_merkle_commit_leaves(gs_merkle_tree **out, gs_hash_id id, const gs_digest *leaves,
                                  unsigned log_rows) {
    if (out) *out = NULL;
    if (!out || !leaves || log_rows > GS_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    gs_merkle_tree *t;
    GS_TRY(tree_new(&t, id, log_rows, 0));
    memcpy(t->nodes, leaves, ((size_t)1 << log_rows) * sizeof(gs_digest));
    build_ctx c = {.id = id, .m = NULL, .depth = log_rows, .tree = t};
    atomic_init(&c.nomem, 0);
    gs_status s = build(&c);
    if (s != GS_OK) {
        gs_merkle_free(t);
        return s;
    }
    *out = t;
    return GS_OK;
}

/* ---- accessors ---- */

gs_digest gs_merkle_root(const gs_merkle_tree *t) {
    gs_digest z;
    if (!t) {
        memset(&z, 0, sizeof z);
        return z;
    }
    return *gs_merkle_level(t, t->depth);
}

unsigned gs_merkle_depth(const gs_merkle_tree *t) { return t ? t->depth : 0; }

const gs_digest *gs_merkle_node(const gs_merkle_tree *t, unsigned level, size_t i) {
    if (!t || level > t->depth || level < t->skip || (uint64_t)i >= ((uint64_t)1 << (t->depth - level)))
        return NULL;
    return gs_merkle_level(t, level) + i;
}

unsigned gs_merkle_skip(const gs_merkle_tree *t) { return t ? t->skip : 0; }
