/* Built instead of src/cuda/stages.cu when CUDA is not compiled in: every
 * entry point of src/cuda/stages.h defined in src/cuda/ reports
 * GS_ERR_NO_DEVICE. */
#include "cuda/stages.h"

gs_status gs_cuda_fold(uint64_t *d_out, const uint64_t *d_in, unsigned log_size, unsigned folds,
                       gs_fp shift, gs_fp3 gamma, void *stream) {
    (void)d_out, (void)d_in, (void)log_size, (void)folds, (void)shift, (void)gamma, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_add_scaled(uint64_t *d_dst, size_t dst_rows, const uint64_t *d_src,
                             size_t src_rows, size_t len, gs_fp3 c, void *stream) {
    (void)d_dst, (void)dst_rows, (void)d_src, (void)src_rows, (void)len, (void)c, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_deep_word(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                            const uint64_t *d_aux, const gs_cuda_deep_args *a, void *stream) {
    (void)d_out, (void)d_trace, (void)d_chunks, (void)d_aux, (void)a, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_deep_fold(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                            const uint64_t *d_aux, const gs_cuda_deep_args *a, unsigned folds,
                            gs_fp3 gamma, void *stream) {
    (void)d_out, (void)d_trace, (void)d_chunks, (void)d_aux, (void)a, (void)folds, (void)gamma,
        (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_deep_combine(uint64_t *d_out, const uint64_t *d_in, size_t cols, size_t len,
                               const gs_fp3 *beta_pows, void *stream) {
    (void)d_out, (void)d_in, (void)cols, (void)len, (void)beta_pows, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_eval_at(gs_fp3 *out, const uint64_t *d_coeffs, size_t cols, size_t len,
                          gs_fp3 x, void *stream) {
    (void)out, (void)d_coeffs, (void)cols, (void)len, (void)x, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_eval_points(gs_fp *out, const uint64_t *d_coeffs, size_t cols, size_t len,
                              const gs_fp *x, size_t npts, void *stream) {
    (void)out, (void)d_coeffs, (void)cols, (void)len, (void)x, (void)npts, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_pow_search(int *found, uint64_t *nonce, const uint8_t *prefix, unsigned bits,
                             void *stream) {
    (void)found, (void)nonce, (void)prefix, (void)bits, (void)stream;
    return GS_ERR_NO_DEVICE;
}
