/* Built instead of src/cuda/merkle.cu when CUDA is not compiled in: every
 * entry point of gstark/cuda_merkle.h reports GS_ERR_NO_DEVICE (or does
 * nothing), and so does src/cuda/mixed.h's; the tree sizes are inline
 * arithmetic in the header. */
#include "cuda/mixed.h"
#include "gstark/cuda_merkle.h"

gs_status gs_cuda_merkle_commit(gs_cuda_tree **out, const uint64_t *d_m, size_t cols,
                                size_t col_stride, unsigned log_rows, void *stream) {
    (void)d_m, (void)cols, (void)col_stride, (void)log_rows, (void)stream;
    if (out) *out = NULL;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_commit_hash(gs_cuda_tree **out, gs_hash_id id, const uint64_t *d_m,
                                     size_t cols, size_t col_stride, unsigned log_rows,
                                     void *stream) {
    (void)id, (void)d_m, (void)cols, (void)col_stride, (void)log_rows, (void)stream;
    if (out) *out = NULL;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_keccak_rows_begin(uint64_t *d_state, unsigned log_rows, void *stream) {
    (void)d_state, (void)log_rows, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_keccak_rows_absorb(uint64_t *d_state, const uint64_t *d_m, size_t cols,
                                     size_t col_stride, unsigned log_rows, unsigned pos, void *stream) {
    (void)d_state, (void)d_m, (void)cols, (void)col_stride, (void)log_rows, (void)pos, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_keccak_rows_finish(gs_digest *d_leaves, const uint64_t *d_state, unsigned log_rows,
                                     unsigned pos, void *stream) {
    (void)d_leaves, (void)d_state, (void)log_rows, (void)pos, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_commit_leaves(gs_cuda_tree **out, const gs_digest *d_leaves, unsigned log_rows,
                                       void *stream) {
    (void)d_leaves, (void)log_rows, (void)stream;
    if (out) *out = NULL;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_commit_pieces(gs_cuda_tree **out, gs_hash_id id, const uint64_t *h_m,
                                       size_t cols, size_t col_stride, unsigned log_rows,
                                       unsigned skip, uint64_t *const d_piece[2],
                                       unsigned piece_log_rows, void *stream, void *copy_stream) {
    (void)id, (void)h_m, (void)cols, (void)col_stride, (void)log_rows, (void)skip, (void)d_piece,
        (void)piece_log_rows, (void)stream, (void)copy_stream;
    if (out) *out = NULL;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_commit_skip(gs_cuda_tree **out, gs_hash_id id, const uint64_t *d_m,
                                     size_t cols, size_t col_stride, unsigned log_rows,
                                     unsigned skip, void *stream) {
    (void)id, (void)d_m, (void)cols, (void)col_stride, (void)log_rows, (void)skip, (void)stream;
    if (out) *out = NULL;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_level(const gs_cuda_tree *t, unsigned level, gs_digest *out) {
    (void)t, (void)level, (void)out;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_recommit(gs_cuda_tree *t, const uint64_t *d_m, size_t cols,
                                  size_t col_stride, void *stream) {
    (void)t, (void)d_m, (void)cols, (void)col_stride, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_root(const gs_cuda_tree *t, gs_digest *root) {
    (void)t, (void)root;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_open(const gs_cuda_tree *t, gs_digest *paths, const size_t *idx,
                              size_t n) {
    (void)t, (void)paths, (void)idx, (void)n;
    return GS_ERR_NO_DEVICE;
}

void gs_cuda_merkle_free(gs_cuda_tree *t) { (void)t; }

unsigned gs_cuda_merkle_depth(const gs_cuda_tree *t) {
    (void)t;
    return 0;
}

unsigned gs_cuda_merkle_skip(const gs_cuda_tree *t) {
    (void)t;
    return 0;
}

gs_status gs_cuda_merkle_hash_leaves(gs_digest *d_leaves, const uint64_t *d_m, size_t cols,
                                     size_t col_stride, unsigned log_rows, void *stream) {
    (void)d_leaves, (void)d_m, (void)cols, (void)col_stride, (void)log_rows, (void)stream;
    return GS_ERR_NO_DEVICE;
}

int gs_cuda_keccak_variant_count(void) { return 0; }

const char *gs_cuda_keccak_variant_name(int which) {
    (void)which;
    return "?";
}

int gs_cuda_keccak_variant_select(int which) {
    (void)which;
    return 0;
}

gs_status gs_cuda_keccak256_many(uint8_t *out, const void *in, size_t len, size_t n) {
    (void)out, (void)in, (void)len, (void)n;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_dev_alloc(void **d_ptr, size_t bytes) {
    (void)bytes;
    if (d_ptr) *d_ptr = NULL;
    return GS_ERR_NO_DEVICE;
}

void gs_cuda_merkle_dev_free(void *d_ptr) { (void)d_ptr; }

gs_status gs_cuda_merkle_dev_copy(void *dst, const void *src, size_t bytes) {
    (void)dst, (void)src, (void)bytes;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_dev_mem(size_t *free_bytes, size_t *total_bytes) {
    (void)free_bytes, (void)total_bytes;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_stream_create(void **stream) {
    if (stream) *stream = NULL;
    return GS_ERR_NO_DEVICE;
}

void gs_cuda_merkle_stream_destroy(void *stream) { (void)stream; }

gs_status gs_cuda_merkle_stream_sync(void *stream) {
    (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_event_record(void **event, void *stream) {
    (void)stream;
    if (event) *event = NULL;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_merkle_event_elapsed(double *ms, void *start, void *stop) {
    (void)ms, (void)start, (void)stop;
    return GS_ERR_NO_DEVICE;
}

void gs_cuda_merkle_event_destroy(void *event) { (void)event; }

gs_status gs_cuda_mixed_build(gs_hash_id id, void *d_nodes, void *d_scratch,
                              const void *const *d_rows, const unsigned *log_rows, uint32_t n,
                              unsigned skip, void *stream) {
    (void)id, (void)d_nodes, (void)d_scratch, (void)d_rows, (void)log_rows, (void)n, (void)skip,
        (void)stream;
    return GS_ERR_NO_DEVICE;
}
