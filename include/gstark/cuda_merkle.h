/* Keccak-256 Merkle trees on the CUDA device, byte-identical to the CPU trees
 * of gstark/merkle.h (docs/protocol.md, "Merkle trees"):
 * - leaf i = Keccak-256 of the row's 8-byte little-endian limbs
 *   m[0][i] .. m[cols-1][i] (cols * 8 bytes);
 * - node = Keccak-256(left || right);
 * - paths bottom-up: path[l] = node (i >> l) ^ 1 of level l (0 = leaves).
 * The matrix is column-major on the device: column c starts at
 * d_m + c * col_stride (col_stride >= 2^log_rows elements, d_m 8-byte
 * aligned, memory the current device can read: its own device memory,
 * managed memory or mapped pinned host memory). The whole tree stays on the
 * device; only the root and opened paths come back to the host.
 *
 * Streams: `stream` is a cudaStream_t (NULL = the legacy default stream).
 * Commit only enqueues work on it and returns; the matrix must stay valid
 * and unchanged until that work is done. Root and open wait for the commit
 * (through an event recorded at its end), do their small work on the
 * calling thread's per-thread default stream and return when the bytes are
 * on the host. A tree belongs to the device that was current at commit;
 * root, open and free switch to it for the call when another is current.
 *
 * Errors: GS_ERR_INVALID_ARG for a NULL pointer, a shape out of range, a
 * misaligned pointer or a d_m the device cannot read (checked with
 * cudaPointerGetAttributes; its extent cannot be checked); GS_ERR_CUDA for
 * a failed CUDA call, an allocation included (the partial tree is freed;
 * gs_cuda_last_error() says which call and why); GS_ERR_NO_DEVICE without a
 * device or in a build without CUDA. On any error *out is NULL.
 *
 * Device memory: a tree of 2^log_rows leaves holds 2^(log_rows+1) - 1
 * digests (gs_cuda_merkle_tree_bytes); open allocates 8 + 32 * depth bytes
 * per index for the call. A tree committed with a skip keeps only the
 * levels skip .. log_rows (2^(log_rows-skip+1) - 1 digests) and borrows a
 * scratch of less than 2 * 2^min(log_rows, 20) digests while it is built;
 * the levels below the skip are hashed again from the rows when a path is
 * opened (gs_merkle_low_path, on the host). */
#ifndef GSTARK_CUDA_MERKLE_H
#define GSTARK_CUDA_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_CUDA_MERKLE_MAX_LOG_ROWS 30u
#define GS_CUDA_MERKLE_MAX_SKIP 6u
#define GS_CUDA_MERKLE_PASS_LOG_ROWS 20u /* rows per pass of a skipping commit */

typedef struct gs_cuda_tree gs_cuda_tree; /* the whole tree stays on the device */

/* Commit `cols` >= 1 columns of 2^log_rows values (log_rows <= 30). */
gs_status gs_cuda_merkle_commit(gs_cuda_tree **out, const uint64_t *d_m, size_t cols,
                                size_t col_stride, unsigned log_rows, void *stream);
/* The same with the hash `id`: GS_HASH_KECCAK256 (what gs_cuda_merkle_commit
 * does) or GS_HASH_POSEIDON2, whose tree is gs_merkle_commit's with that id
 * (leaves through the Poseidon2 sponge over the field elements, nodes through
 * its compression; gstark/merkle.h), built by the kernels of
 * gstark/cuda_poseidon2.h. Recommit keeps the tree's hash. Another id is
 * GS_ERR_INVALID_ARG. Leaf hashing alone (gs_cuda_merkle_hash_leaves) and the
 * code forms below are Keccak-256's. */
gs_status gs_cuda_merkle_commit_hash(gs_cuda_tree **out, gs_hash_id id, const uint64_t *d_m,
                                     size_t cols, size_t col_stride, unsigned log_rows,
                                     void *stream);
/* The same tree keeping only the levels skip .. log_rows (skip <=
 * GS_CUDA_MERKLE_MAX_SKIP, capped at log_rows): same nodes, same root. Its
 * open writes the path levels skip and up only. */
gs_status gs_cuda_merkle_commit_skip(gs_cuda_tree **out, gs_hash_id id, const uint64_t *d_m,
                                     size_t cols, size_t col_stride, unsigned log_rows,
                                     unsigned skip, void *stream);
/* The same tree from a matrix in page-locked host memory (a buffer out of
 * core): its rows are copied on copy_stream in pieces of 2^piece_log_rows
 * (skip <= piece_log_rows <= min(log_rows, GS_CUDA_MERKLE_PASS_LOG_ROWS))
 * into d_piece[0] and d_piece[1] in turn (device buffers of cols <<
 * piece_log_rows values each; col_stride a power of 2) while `stream`
 * hashes the other one. The copies start after the work queued on stream
 * before the call; the pieces may be freed stream-ordered on stream after
 * it returns. */
gs_status gs_cuda_merkle_commit_pieces(gs_cuda_tree **out, gs_hash_id id, const uint64_t *h_m,
                                       size_t cols, size_t col_stride, unsigned log_rows,
                                       unsigned skip, uint64_t *const d_piece[2],
                                       unsigned piece_log_rows, void *stream, void *copy_stream);
/* The same into an existing tree of the same depth (log_rows of its
 * commit), reusing its device memory: no allocation, so nothing but kernels
 * is enqueued. The new commit is ordered after the tree's previous one.
 * GS_ERR_INVALID_ARG (tree unchanged) if the shape is wrong; after
 * GS_ERR_CUDA the tree's content is undefined (free it). */
gs_status gs_cuda_merkle_recommit(gs_cuda_tree *t, const uint64_t *d_m, size_t cols,
                                  size_t col_stride, void *stream);
/* Copies the 32-byte root back (waits for the commit). */
gs_status gs_cuda_merkle_root(const gs_cuda_tree *t, gs_digest *root);
/* The 2^(depth - level) nodes of a stored level (skip <= level <= depth),
 * copied back (waits for the commit); GS_ERR_INVALID_ARG for another level. */
gs_status gs_cuda_merkle_level(const gs_cuda_tree *t, unsigned level, gs_digest *out);
/* Authentication paths for n leaf indices, gathered on the device and copied
 * back at once: paths[k * depth + l] is the sibling at level l of leaf
 * idx[k], as gs_merkle_open; for a skipping tree only the levels l >= skip
 * are written. GS_ERR_INVALID_ARG if an index is out of range (then nothing
 * is written). paths may be NULL when depth is 0. */
gs_status gs_cuda_merkle_open(const gs_cuda_tree *t, gs_digest *paths, const size_t *idx,
                              size_t n);
void gs_cuda_merkle_free(gs_cuda_tree *t); /* NULL-safe; waits for the tree's pending work */
/* Device bytes (plain arithmetic, in every build): a skipping tree's stored
 * levels; those plus its commit's scratch, levels 0 .. skip-1 of one pass of
 * 2^min(log_rows, GS_CUDA_MERKLE_PASS_LOG_ROWS) rows (an upper bound of
 * what its commit holds); a whole tree of 2^log_rows leaves. 0 for a shape
 * out of range (log_rows > 30). */
static inline size_t gs_cuda_merkle_stored_bytes(unsigned log_rows, unsigned skip) {
    if (log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS || skip > GS_CUDA_MERKLE_MAX_SKIP) return 0;
    if (skip > log_rows) skip = log_rows;
    return (((size_t)2 << (log_rows - skip)) - 1) * sizeof(gs_digest);
}
static inline size_t gs_cuda_merkle_tree_bytes_skip(unsigned log_rows, unsigned skip) {
    size_t b = gs_cuda_merkle_stored_bytes(log_rows, skip);
    if (!b || !skip) return b;
    if (skip > log_rows) skip = log_rows;
    unsigned lr = log_rows < GS_CUDA_MERKLE_PASS_LOG_ROWS ? log_rows : GS_CUDA_MERKLE_PASS_LOG_ROWS;
    return b + (((size_t)2 << lr) - ((size_t)2 << (lr - skip))) * sizeof(gs_digest);
}
static inline size_t gs_cuda_merkle_tree_bytes(unsigned log_rows) {
    return gs_cuda_merkle_stored_bytes(log_rows, 0);
}
unsigned gs_cuda_merkle_depth(const gs_cuda_tree *t); /* log_rows; 0 for NULL */
unsigned gs_cuda_merkle_skip(const gs_cuda_tree *t);  /* 0 for NULL */

/* Leaf hashing a piece of columns at a time (Keccak-256): the sponge of each
 * of the 2^log_rows rows lives in d_state (25 * 2^log_rows words of device
 * memory) between the pieces. begin zeroes it; absorb takes the next `cols`
 * values of every row from d_m (column stride col_stride), pos being the
 * number of values the rows have taken so far mod 17; finish pads after
 * them (pos likewise) and writes the leaf digests into d_leaves (16-byte
 * aligned, 32 * 2^log_rows bytes): gs_cuda_merkle_hash_leaves's digests of
 * the whole rows. Enqueued on stream; GS_ERR_INVALID_ARG for a bad shape or
 * pos >= 17. */
gs_status gs_cuda_keccak_rows_begin(uint64_t *d_state, unsigned log_rows, void *stream);
gs_status gs_cuda_keccak_rows_absorb(uint64_t *d_state, const uint64_t *d_m, size_t cols,
                                     size_t col_stride, unsigned log_rows, unsigned pos, void *stream);
gs_status gs_cuda_keccak_rows_finish(gs_digest *d_leaves, const uint64_t *d_state, unsigned log_rows,
                                     unsigned pos, void *stream);
/* A Keccak-256 tree (skip 0) over 2^log_rows leaf digests already made
 * (device memory; copied into the tree, so they may be freed stream-ordered
 * on stream after the call). */
gs_status gs_cuda_merkle_commit_leaves(gs_cuda_tree **out, const gs_digest *d_leaves, unsigned log_rows,
                                       void *stream);
/* Leaf hashing alone: d_leaves[i] = leaf digest of row i, for the 2^log_rows
 * rows (device memory, 16-byte aligned, 32 * 2^log_rows bytes). Enqueued on
 * `stream` only. Same arguments and errors as commit. Feeds
 * gs_merkle_commit_leaves, and is what the benchmark compares commit with. */
gs_status gs_cuda_merkle_hash_leaves(gs_digest *d_leaves, const uint64_t *d_m, size_t cols,
                                     size_t col_stride, unsigned log_rows, void *stream);

/* ---- Keccak code forms (src/cuda/keccak.cuh says what each is) ---- */

/* Number of device Keccak code forms, and the name of form `which` ("?" if
 * out of range). */
int gs_cuda_keccak_variant_count(void);
const char *gs_cuda_keccak_variant_name(int which);
/* Chooses the code form every later launch uses (process-wide); returns the
 * previous one. An out-of-range `which` only returns the current one. All
 * forms compute the same digests; they differ in speed only. */
int gs_cuda_keccak_variant_select(int which);

/* ---- support for tests and benchmarks (C code without the CUDA headers) ---- */

/* Keccak-256 on the device of n messages of len bytes, message k at
 * in + k * len (host memory), digests to out + 32 * k (host memory).
 * Synchronous. */
gs_status gs_cuda_keccak256_many(uint8_t *out, const void *in, size_t len, size_t n);
/* Failures for tests: gs_cuda_fault_inject (gstark/cuda.h) reaches every
 * device allocation, copy and launch that commit, root and open make. */

/* Thin wrappers on the CUDA runtime (errors as above). */
gs_status gs_cuda_merkle_dev_alloc(void **d_ptr, size_t bytes); /* cudaMalloc */
void gs_cuda_merkle_dev_free(void *d_ptr);                       /* cudaFree; NULL-safe */
/* cudaMemcpy in any direction (cudaMemcpyDefault); synchronous. */
gs_status gs_cuda_merkle_dev_copy(void *dst, const void *src, size_t bytes);
gs_status gs_cuda_merkle_dev_mem(size_t *free_bytes, size_t *total_bytes); /* cudaMemGetInfo */
gs_status gs_cuda_merkle_stream_create(void **stream);  /* a non-blocking stream */
void gs_cuda_merkle_stream_destroy(void *stream);       /* NULL-safe */
gs_status gs_cuda_merkle_stream_sync(void *stream);
gs_status gs_cuda_merkle_event_record(void **event, void *stream); /* creates, records */
/* Waits for `stop`; milliseconds between the two events. */
gs_status gs_cuda_merkle_event_elapsed(double *ms, void *start, void *stop);
void gs_cuda_merkle_event_destroy(void *event); /* NULL-safe */

#ifdef __cplusplus
}
#endif
#endif
