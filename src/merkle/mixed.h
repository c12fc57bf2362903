/* One Merkle tree over matrices of several heights (docs/protocol.md, "One
 * tree per round"): what a multi-table proof with params.shared_fri =
 * GS_SHARED_TREES commits each round's matrices of every table with, so a
 * query's path is sent once for all tables instead of once per table.
 *
 * Inputs: n matrices, matrix t of 2^log_rows[t] rows, given as its row
 * digests d_t[j] (j the row index, natural order: gs_merkle_leaf of row j);
 * depth = the largest log_rows. The tree has 2^depth leaves; node i of level
 * l (0 = leaves) covers leaves i 2^l .. (i + 1) 2^l - 1. Matrix t enters at
 * level depth - log_rows[t], its row j at node bitrev(j, log_rows[t]) there:
 * the rows in bit-reversed order, so that the rows a query reads, position q
 * of the largest domain and q mod 2^log_rows[t] of each smaller one (FRI's
 * folding maps j to j mod N/2), lie on one path: leaf P = bitrev(q, depth)
 * and its ancestors P >> (depth - log_rows[t]).
 *
 * Node value, in table index order t = 0..n-1 among the matrices entering
 * at that level:
 * - level 0: the first entering matrix's row digest, then for each further
 *   one node = H(node || d_t[row]) (gs_hash_pair);
 * - level l > 0: node = H(left child || right child), then for each entering
 *   matrix node = H(node || d_t[row]).
 * At least one matrix has log_rows = depth (level 0 has an entering
 * matrix). With one matrix this is the ordinary tree (gstark/merkle.h) over
 * the row digests in bit-reversed order.
 *
 * A path for position q: depth sibling digests, path[l] = node (P >> l) ^ 1
 * of level l, P = bitrev(q, depth). The verifier recomputes the root from
 * the query's row digests of every matrix (each at q mod its height) and the
 * path. */
#ifndef GSTARK_MERKLE_MIXED_H
#define GSTARK_MERKLE_MIXED_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/hash.h"
#include "gstark/status.h"

#define GS_MIXED_MAX_DEPTH 40u
#define GS_MIXED_MAX_SKIP 6u

typedef struct gs_mixed_tree gs_mixed_tree;

/* The bit reversal of the low `bits` bits of j (bits <= 63). */
size_t gs_mixed_bitrev(size_t j, unsigned bits);

/* Builds the tree (all levels kept: 2^(depth + 1) - 1 digests) from the row
 * digests rows[t][0 .. 2^log_rows[t]) of matrices t < n. The row arrays are
 * read, not kept. Runs on gs_threads_get() threads (gs_parallel_for).
 * GS_ERR_INVALID_ARG: n == 0, a NULL array, a log_rows above
 * GS_MIXED_MAX_DEPTH; GS_ERR_NOMEM. */
gs_status gs_mixed_build(gs_mixed_tree **out, gs_hash_id id, const gs_digest *const *rows,
                         const unsigned *log_rows, uint32_t n);
void gs_mixed_free(gs_mixed_tree *t); /* NULL is a no-op */
/* The same tree keeping only the levels skip..depth (skip <=
 * GS_MIXED_MAX_SKIP, capped at the depth): 2^(depth - skip + 1) - 1 digests
 * instead of 2^(depth + 1) - 1, the lower levels made again from the rows
 * when a path is opened (gs_mixed_open_fetch). Same nodes, same root. The
 * build holds gs_mixed_build_scratch bytes for the levels below the skip
 * while it runs. */
gs_status gs_mixed_build_skip(gs_mixed_tree **out, gs_hash_id id, const gs_digest *const *rows,
                              const unsigned *log_rows, uint32_t n, unsigned skip);

/* A tree of that shape (levels skip..depth kept, as gs_mixed_build_skip
 * keeps them) whose nodes another builder fills (the CUDA backend builds on
 * the device and copies them in): gs_mixed_nodes gives the 2^(depth - skip
 * + 1) - 1 digests, level l at gs_merkle_level_offset(depth - skip, l -
 * skip) (merkle/merkle_internal.h), zero until written. Same errors as the
 * build. */
gs_status gs_mixed_alloc(gs_mixed_tree **out, gs_hash_id id, const unsigned *log_rows, uint32_t n,
                         unsigned skip);
gs_digest *gs_mixed_nodes(gs_mixed_tree *t);
/* The levels below the skip a tree of that shape keeps none of (the
 * skip, capped at the depth): what a builder writes from level skip up. */
unsigned gs_mixed_skip(const gs_mixed_tree *t);

/* Bytes gs_mixed_build holds for a largest height of 2^depth rows; the
 * same with a skip, and the scratch of such a build (0 without a skip). */
size_t gs_mixed_tree_bytes(unsigned depth);
size_t gs_mixed_tree_bytes_skip(unsigned depth, unsigned skip);
size_t gs_mixed_build_scratch(unsigned depth, unsigned skip);

unsigned gs_mixed_depth(const gs_mixed_tree *t);
gs_digest gs_mixed_root(const gs_mixed_tree *t);

/* The paths of positions q[0..nq) (each < 2^depth): paths[k * depth + l] as
 * above. GS_ERR_INVALID_ARG for a position out of range (nothing written)
 * or a tree built with a skip. */
gs_status gs_mixed_open(const gs_mixed_tree *t, gs_digest *paths, const size_t *q, size_t nq);
/* The same for any tree: the levels below its skip are made again from the
 * row digests fetch gives: fetch(ctx, m, rows, count, out) writes the leaf
 * digests of rows rows[0..count) of matrix m (its index among the build's
 * matrices) to out[0..count); it is called once per matrix that enters
 * below the skip, and its status stops the opening. */
typedef gs_status (*gs_mixed_fetch_fn)(void *ctx, uint32_t m, const size_t *rows, size_t count,
                                       gs_digest *out);
gs_status gs_mixed_open_fetch(const gs_mixed_tree *t, gs_digest *paths, const size_t *q, size_t nq,
                              gs_mixed_fetch_fn fetch, void *ctx);

/* The root that one query's digests imply: rowd[t] is matrix t's row
 * digest at q mod 2^log_rows[t], path the query's depth siblings (depth =
 * the largest log_rows: the caller passes the matrices the tree was built
 * from). Into *root; GS_ERR_INVALID_ARG for bad shapes (n = 0, a NULL
 * array, a log_rows above GS_MIXED_MAX_DEPTH, q >= 2^depth). The caller
 * compares the root. */
gs_status gs_mixed_root_of(gs_hash_id id, gs_digest *root, size_t q, const gs_digest *rowd,
                           const unsigned *log_rows, uint32_t n, const gs_digest *path);

/* Batched form (the node order of merkle/multipath.h over the leaves
 * P_k = bitrev(q_k, depth)): gs_mixed_compress takes full paths (as
 * gs_mixed_open gives) to the nodes to send, gs_mpath_count of them for the
 * distinct P_k; gs_mixed_expand is the inverse given every query's row
 * digests rowd[k * n + t] (matrix t at q_k mod its height): it recomputes the
 * nodes the sent ones do not give, each from the first query (lowest k)
 * whose path runs through it, and writes every query's full path. Checking
 * each query's path (gs_mixed_root_of against the root) is still the
 * verifier's: it also catches two queries that disagree about a shared
 * node. GS_ERR_INVALID_ARG (shapes, or for compress two paths that disagree),
 * GS_ERR_NOMEM. */
gs_status gs_mixed_compress(gs_digest *out, size_t *count, const size_t *q, size_t nq,
                            const gs_digest *paths, unsigned depth);
gs_status gs_mixed_expand(gs_hash_id id, gs_digest *paths, const size_t *q, size_t nq,
                          const gs_digest *rowd, const unsigned *log_rows, uint32_t n,
                          const gs_digest *nodes, size_t num_nodes);
/* The number of nodes the batched form of positions q[0..nq) sends for a
 * tree of the given depth (what gs_mixed_compress writes). */
size_t gs_mixed_count(const size_t *q, size_t nq, unsigned depth);

#endif
