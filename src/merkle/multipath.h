/* Batched Merkle openings: the paths of many leaves of one tree sent as one
 * set of nodes, each node once (docs/proof-format.md, "Openings").
 *
 * For the leaf indices idx[0..n) (any order, repeats allowed) of a tree of
 * depth d, let U_0 be their distinct values, ascending, and U_(l+1) the
 * distinct values of i >> 1 for i in U_l. The nodes sent are, level l = 0
 * .. d - 1 in turn and within a level by ascending i in U_l, the sibling
 * i ^ 1 of every i in U_l whose sibling is not in U_l itself: every other
 * node a path needs is computed from the leaves. Prover and verifier agree
 * on this order, so no index travels with the nodes. */
#ifndef GSTARK_MERKLE_MULTIPATH_H
#define GSTARK_MERKLE_MULTIPATH_H

#include <stddef.h>

#include "gstark/hash.h"
#include "gstark/status.h"

/* Writes the distinct values of idx[0..n), ascending, to uniq (room for n)
 * and returns their count. */
size_t gs_mpath_unique(size_t *uniq, const size_t *idx, size_t n);

/* The number of nodes sent for the distinct leaves uniq[0..nu) (ascending)
 * of a tree of depth `depth`. */
size_t gs_mpath_count(const size_t *uniq, size_t nu, unsigned depth);

/* The nodes to send (gs_mpath_count of them, into out), taken from the full
 * paths paths[k * depth .. + depth) of leaf idx[k] (gs_merkle_open's form).
 * GS_ERR_INVALID_ARG if two paths give different digests for the same sent
 * node (paths of one tree never do), GS_ERR_NOMEM. */
gs_status gs_mpath_compress(gs_digest *out, const size_t *idx, size_t n, const gs_digest *paths,
                            unsigned depth);

/* The inverse: the full path of every idx[k] into paths (n * depth), from
 * the leaf digests leaves[j] of uniq[j] (j < nu, the distinct idx values
 * ascending) and the sent nodes (gs_mpath_count of them), hashing the
 * computed nodes with `id`. The paths are what the leaves and nodes imply:
 * checking each against the root (gs_merkle_verify) is still the
 * verifier's. GS_ERR_NOMEM. */
gs_status gs_mpath_expand(gs_digest *paths, const size_t *idx, size_t n, const size_t *uniq,
                          const gs_digest *leaves, size_t nu, const gs_digest *nodes,
                          unsigned depth, gs_hash_id id);

#endif
