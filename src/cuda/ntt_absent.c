/* Built instead of src/cuda/ntt.cu when CUDA is not compiled in: every entry
 * point of gstark/cuda_ntt.h reports GS_ERR_NO_DEVICE. */
#include "gstark/cuda_ntt.h"

gs_status gs_cuda_ntt_forward_batch(uint64_t *d_v, size_t cols, unsigned log_n, void *stream) {
    (void)d_v, (void)cols, (void)log_n, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_ntt_inverse_batch(uint64_t *d_v, size_t cols, unsigned log_n, void *stream) {
    (void)d_v, (void)cols, (void)log_n, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_lde_coset(uint64_t *d_out, const uint64_t *d_in, size_t cols, unsigned log_n,
                            unsigned log_blowup, uint64_t shift, int bitrev_out, void *stream) {
    (void)d_out, (void)d_in, (void)cols, (void)log_n, (void)log_blowup, (void)shift;
    (void)bitrev_out, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_lde_coset_from_coeffs(uint64_t *d_out, const uint64_t *d_coeffs, size_t cols,
                                        unsigned log_n, unsigned log_blowup, uint64_t shift,
                                        int bitrev_out, void *stream) {
    (void)d_out, (void)d_coeffs, (void)cols, (void)log_n, (void)log_blowup, (void)shift;
    (void)bitrev_out, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_mem_alloc(void **d_ptr, size_t bytes) {
    (void)bytes;
    if (d_ptr) *d_ptr = 0;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_mem_free(void *d_ptr) {
    (void)d_ptr;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_mem_h2d(void *d_dst, const void *src, size_t bytes) {
    (void)d_dst, (void)src, (void)bytes;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_mem_d2h(void *dst, const void *d_src, size_t bytes) {
    (void)dst, (void)d_src, (void)bytes;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_mem_d2d(void *d_dst, const void *d_src, size_t bytes) {
    (void)d_dst, (void)d_src, (void)bytes;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_sync(void) { return GS_ERR_NO_DEVICE; }

gs_status gs_cuda_timer_create(gs_cuda_timer **timer) {
    if (timer) *timer = 0;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_timer_start(gs_cuda_timer *timer, void *stream) {
    (void)timer, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_timer_stop(gs_cuda_timer *timer, void *stream, double *ms) {
    (void)timer, (void)stream;
    if (ms) *ms = 0;
    return GS_ERR_NO_DEVICE;
}

void gs_cuda_timer_destroy(gs_cuda_timer *timer) { (void)timer; }

gs_status gs_cuda_device_info(char *name, size_t name_len, size_t *total_bytes) {
    if (name && name_len) name[0] = 0;
    if (total_bytes) *total_bytes = 0;
    return GS_ERR_NO_DEVICE;
}
