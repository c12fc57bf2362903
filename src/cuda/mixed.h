/* Mixed-height Merkle trees (merkle/mixed.h: one tree over matrices of
 * several heights, the shared trees of docs/protocol.md "One tree per
 * round") built on the device from the matrices' row digests, node for node
 * what gs_mixed_build_skip builds on the host: per level, the pairs below
 * (H(left || right)), then each matrix entering there in table order, its
 * row bitrev(i, log_rows) folded into node i (the first at level 0 copied
 * in, every other as node = H(node || row)). H is Keccak-256 of the 64
 * bytes or Poseidon2's compression of the two digests as elements (the
 * device's digests are canonical, so their bytes are the host's).
 *
 * All d_* are device pointers of the current device, digests of 32 bytes
 * (16-byte aligned); `stream` is a cudaStream_t; work is only enqueued.
 * GS_ERR_INVALID_ARG for a bad shape or hash (nothing enqueued),
 * GS_ERR_CUDA for a failed launch, GS_ERR_NO_DEVICE in a build without
 * CUDA. */
#ifndef GSTARK_CUDA_MIXED_H
#define GSTARK_CUDA_MIXED_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tree of n matrices, matrix t's 2^log_rows[t] row digests at
 * d_rows[t] (natural row order; log_rows <= 30), depth the largest
 * log_rows: levels skip..depth (skip <= depth) into d_nodes, level l at
 * digest 2^(D+1) - 2^(D-l'+1) with D = depth - skip and l' = l - skip (the
 * host tree's layout: 2^(D+1) - 1 digests); the levels below skip in
 * d_scratch (2^depth + 2^(depth-1) digests; NULL when skip is 0). */
gs_status gs_cuda_mixed_build(gs_hash_id id, void *d_nodes, void *d_scratch,
                              const void *const *d_rows, const unsigned *log_rows, uint32_t n,
                              unsigned skip, void *stream);

/* One matrix folded into a level of 2^log_rows nodes (Poseidon2; the
 * Keccak-256 form is merkle.cu's own): d_level[i] = fresh ?
 * d_rows[bitrev(i)] : compress(d_level[i], d_rows[bitrev(i)]). */
gs_status gs_cuda_poseidon2_fold(uint64_t *d_level, const uint64_t *d_rows, unsigned log_rows,
                                 int fresh, void *stream);

#ifdef __cplusplus
}
#endif

#endif
