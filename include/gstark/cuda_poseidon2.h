/* Poseidon2 (Goldilocks) on the CUDA device, the same functions as gstark/poseidon2.h computes
 * on the CPU (one definition of the rounds, src/hash/poseidon2_round.h, compiled for both):
 * rows through the sponge into digests, pairs of digests through the compression, and bare
 * permutations. The device Merkle trees of Poseidon2 proofs are built with these
 * (gs_cuda_merkle_commit_hash, gstark/cuda_merkle.h).
 *
 * Memory: every pointer is memory the current device can read (and, for outputs, write): its
 * own device memory, managed memory or mapped pinned host memory; 8-byte aligned. A digest is
 * gs_poseidon2_digest (4 field elements, 32 bytes).
 *
 * Streams: `stream` is a cudaStream_t (NULL = the legacy default stream). Each call only
 * enqueues one kernel on it and returns; inputs must stay valid and unchanged, and outputs
 * unread, until that work is done.
 *
 * Errors: GS_ERR_INVALID_ARG for a NULL or misaligned pointer, memory the device cannot read,
 * or a shape whose last element's offset overflows; GS_ERR_CUDA for a failed CUDA call
 * (gs_cuda_last_error() says which); GS_ERR_NO_DEVICE without a device or in a build without
 * CUDA. n = 0 enqueues nothing and returns GS_OK. */
#ifndef GSTARK_CUDA_POSEIDON2_H
#define GSTARK_CUDA_POSEIDON2_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/poseidon2.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d_out[i] = gs_poseidon2_hash of row i: row_len elements, element j of row i at
 * d_in[i * row_stride + j * col_stride] (gs_poseidon2_hash_rows' arguments). One thread per
 * row; with row_stride = 1 (the columns of a column-major matrix) a warp's loads are
 * contiguous. d_in may be NULL when row_len is 0. d_out must not overlap d_in. */
gs_status gs_cuda_poseidon2_hash_rows(gs_poseidon2_digest *d_out, const uint64_t *d_in,
                                      size_t n_rows, size_t row_len, size_t row_stride,
                                      size_t col_stride, void *stream);

/* d_out[i] = gs_poseidon2_compress(d_in[2i], d_in[2i+1]) for i < n. Unlike the CPU call, not
 * in place: d_out must not overlap d_in (threads run in any order). */
gs_status gs_cuda_poseidon2_compress_many(gs_poseidon2_digest *d_out,
                                          const gs_poseidon2_digest *d_in, size_t n,
                                          void *stream);

/* n states of `width` (8 or 12) canonical elements, state k at d_st + k * width, permuted in
 * place. GS_ERR_INVALID_ARG for another width. */
gs_status gs_cuda_poseidon2_permute_many(uint64_t *d_st, unsigned width, size_t n, void *stream);

#ifdef __cplusplus
}
#endif
#endif
