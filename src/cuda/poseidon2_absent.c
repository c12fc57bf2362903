/* Built instead of src/cuda/poseidon2.cu when CUDA is not compiled in: every entry point of
 * gstark/cuda_poseidon2.h reports GS_ERR_NO_DEVICE. */
#include "cuda/mixed.h"
#include "gstark/cuda_poseidon2.h"

gs_status gs_cuda_poseidon2_hash_rows(gs_poseidon2_digest *d_out, const uint64_t *d_in,
                                      size_t n_rows, size_t row_len, size_t row_stride,
                                      size_t col_stride, void *stream) {
    (void)d_out, (void)d_in, (void)n_rows, (void)row_len, (void)row_stride, (void)col_stride,
        (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_poseidon2_compress_many(gs_poseidon2_digest *d_out,
                                          const gs_poseidon2_digest *d_in, size_t n,
                                          void *stream) {
    (void)d_out, (void)d_in, (void)n, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_poseidon2_permute_many(uint64_t *d_st, unsigned width, size_t n, void *stream) {
    (void)d_st, (void)width, (void)n, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_poseidon2_fold(uint64_t *d_level, const uint64_t *d_rows, unsigned log_rows,
                                 int fresh, void *stream) {
    (void)d_level, (void)d_rows, (void)log_rows, (void)fresh, (void)stream;
    return GS_ERR_NO_DEVICE;
}
