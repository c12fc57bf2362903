/* Merkle trees over the rows of a column-major matrix of field values.
 *
 * Layout (docs/protocol.md, "Merkle trees"):
 * - one leaf per row: leaf i = H(row i), the row being the 8-byte
 *   little-endian limbs of m[0][i], m[1][i], ..., m[cols-1][i] (cols * 8
 *   bytes; values are canonical by the field contract and are hashed as they
 *   are, so a non-canonical value never matches a canonical commitment);
 * - node = H(left || right) (64 bytes in);
 * with Poseidon2 (id GS_HASH_POSEIDON2, gstark/hash.h): leaf i =
 * gs_poseidon2_hash of the row's field elements (no bytes; a value >= p is
 * reduced, so callers check canonicity, as the proof parser does), node =
 * gs_poseidon2_compress(left, right) (gs_hash_pair), digests in their
 * 32-byte form;
 * - the number of rows is a power of two, 2^depth; a path for leaf i is the
 *   depth sibling digests from the leaf level up to (excluding) the root:
 *   path[l] is node (i >> l) ^ 1 of level l (level 0 = leaves).
 * Commit is multi-threaded; the tree never depends on the thread count. */
#ifndef GSTARK_MERKLE_H
#define GSTARK_MERKLE_H

#include <stddef.h>

#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_MERKLE_MAX_LOG_ROWS 40u

typedef struct gs_merkle_tree gs_merkle_tree;

/* Commit `cols` columns of 2^log_rows values; column c starts at
 * m + c * col_stride (col_stride >= 2^log_rows). cols >= 1, log_rows <= 40.
 * The tree keeps every node (2 * 2^log_rows - 1 digests); m is not kept.
 * On any error *out is NULL: GS_ERR_INVALID_ARG for a NULL pointer or an
 * argument out of range, GS_ERR_NOMEM if memory runs out. */
gs_status gs_merkle_commit(gs_merkle_tree **out, gs_hash_id id, const gs_fp *m, size_t cols,
                           size_t col_stride, unsigned log_rows);
/* The same tree keeping only the levels skip..log_rows (skip is capped at
 * GS_MERKLE_MAX_SKIP and at log_rows): 2^(log_rows - skip + 1) - 1 digests
 * instead of 2^(log_rows + 1) - 1, the lower levels hashed again from the
 * rows when a path is opened (gs_merkle_open_rows). Same nodes, same root. */
#define GS_MERKLE_MAX_SKIP 6u
/* The skip the CUDA backend commits with for a matrix of `cols` columns and
 * 2^log_rows rows: 3 for a matrix of fewer than 32 columns (less than 256
 * bytes a row; the kept levels, 8 bytes a row, are at most an eighth of it),
 * else 0 (a tree of 64 bytes a row is at most a quarter of such a matrix, and
 * the device hashes the leaves of such matrices as it extends them, which
 * needs every level). The CPU backend skips 3 levels up to 255 columns. An
 * opening then hashes at most 8 rows again. A tree of fewer than
 * 2^GS_MERKLE_SKIP_MIN_LOG_ROWS leaves keeps every level, so every level at
 * or above depth - (GS_MERKLE_SKIP_MIN_LOG_ROWS - 3) of any tree is stored. */
#define GS_MERKLE_SKIP_MIN_LOG_ROWS 16u
unsigned gs_merkle_skip_for(size_t cols, unsigned log_rows);
gs_status gs_merkle_commit_skip(gs_merkle_tree **out, gs_hash_id id, const gs_fp *m, size_t cols,
                                size_t col_stride, unsigned log_rows, unsigned skip);
/* The same tree from 2^log_rows precomputed leaf digests (a backend that
 * hashed the rows itself, or leaves that are not plain rows). */
gs_status gs_merkle_commit_leaves(gs_merkle_tree **out, gs_hash_id id, const gs_digest *leaves,
                                  unsigned log_rows);
void gs_merkle_free(gs_merkle_tree *t); /* NULL is a no-op */

/* The leaves alone: out[i] = the leaf digest of row i (as the trees above
 * hash it) for i < 2^log_rows of the matrix m (column c at m + c *
 * col_stride), on gs_threads_get() threads. GS_ERR_INVALID_ARG, GS_ERR_NOMEM. */
gs_status gs_merkle_row_digests(gs_hash_id id, gs_digest *out, const gs_fp *m, size_t cols,
                                size_t col_stride, unsigned log_rows);

/* Bytes a tree of 2^log_rows leaves holds (for memory budgets), 0 if
 * log_rows > GS_MERKLE_MAX_LOG_ROWS. Commit allocates this plus per-thread
 * scratch of a few hundred KiB. */
size_t gs_merkle_tree_bytes(unsigned log_rows);
size_t gs_merkle_tree_bytes_skip(unsigned log_rows, unsigned skip); /* for gs_merkle_commit_skip */

gs_digest gs_merkle_root(const gs_merkle_tree *t);
unsigned gs_merkle_depth(const gs_merkle_tree *t);
/* Node i of level `level` (0 = leaves, depth = root), or NULL if out of
 * range or not stored (below the skip). Level l holds 2^(depth - l) nodes,
 * stored contiguously. */
const gs_digest *gs_merkle_node(const gs_merkle_tree *t, unsigned level, size_t i);
unsigned gs_merkle_skip(const gs_merkle_tree *t); /* levels not stored (0 for gs_merkle_commit) */

/* Authentication paths for n leaf indices: paths[k * depth + l] is the
 * sibling at level l (0 = leaves) of leaf idx[k]. GS_ERR_INVALID_ARG if an
 * index is out of range (then nothing is written). */
gs_status gs_merkle_open(const gs_merkle_tree *t, gs_digest *paths, const size_t *idx, size_t n);
/* The same for any tree, given the matrix it was committed from (needed when
 * levels were skipped; ignored otherwise): GS_ERR_INVALID_ARG also for a
 * skipping tree without the matrix, GS_ERR_NOMEM. */
gs_status gs_merkle_open_rows(const gs_merkle_tree *t, const gs_fp *m, size_t cols, size_t col_stride,
                              gs_digest *paths, const size_t *idx, size_t n);

/* The lower part of a path when the levels below `skip` are not stored:
 * `rows` holds the 2^skip rows under one level-skip node, row-major
 * (rows[j * cols + c]); path[l] for l < skip receives the sibling at level
 * l of the block's leaf j (j < 2^skip, skip <= GS_MERKLE_MAX_SKIP). The
 * levels from skip up come from the stored tree. */
void gs_merkle_low_path(gs_hash_id id, gs_digest *path, const gs_fp *rows, size_t cols,
                        unsigned skip, size_t j);

/* The leaf digest of one row of `cols` values. */
void gs_merkle_leaf(gs_hash_id id, gs_digest *out, const gs_fp *row, size_t cols);

/* GS_OK if `leaf` at index idx with `path` (depth digests) hashes to root,
 * GS_ERR_MERKLE_PATH if not, GS_ERR_INVALID_ARG if idx >= 2^depth, depth >
 * GS_MERKLE_MAX_LOG_ROWS or a pointer is NULL. Reads exactly depth digests
 * of path and always hashes depth pairs (work independent of idx). */
gs_status gs_merkle_verify_leaf(gs_hash_id id, const gs_digest *root, unsigned depth, size_t idx,
                                const gs_digest *leaf, const gs_digest *path);
/* The same starting from the row's values. */
gs_status gs_merkle_verify(gs_hash_id id, const gs_digest *root, unsigned depth, size_t idx,
                           const gs_fp *row, size_t cols, const gs_digest *path);

/* Merkle caps (docs/protocol.md, "Merkle caps"): a tree of depth d with cap
 * height c <= d is committed to by the 2^c nodes of its level d - c, left to
 * right; a path stops below them (d - c digests) and its top must equal
 * cap[idx >> (d - c)]. c = 0 is the root and the functions above.
 * gs_merkle_cap copies a tree's cap into out (2^c digests); GS_ERR_INVALID_ARG
 * if c > depth or the level is not stored (below the tree's skip). The
 * verifiers read exactly d - c digests of path and hash d - c pairs;
 * GS_ERR_INVALID_ARG also for c > depth. */
gs_status gs_merkle_cap(const gs_merkle_tree *t, gs_digest *out, unsigned cap_log);
gs_status gs_merkle_verify_leaf_cap(gs_hash_id id, const gs_digest *cap, unsigned cap_log,
                                    unsigned depth, size_t idx, const gs_digest *leaf,
                                    const gs_digest *path);
gs_status gs_merkle_verify_cap(gs_hash_id id, const gs_digest *cap, unsigned cap_log,
                               unsigned depth, size_t idx, const gs_fp *row, size_t cols,
                               const gs_digest *path);

#ifdef __cplusplus
}
#endif
#endif
