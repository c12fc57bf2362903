/* Built instead of src/cuda/device.cu when CUDA is not compiled in: every
 * entry point reports GS_ERR_NO_DEVICE (frees are no-ops). */
#include "cuda/device.h"

long gs_cuda_live_allocations(void) { return 0; }
gs_status gs_cuda_dev_mem_info(size_t *free_bytes, size_t *total_bytes) {
    (void)free_bytes, (void)total_bytes;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_set_device(int device) {
    (void)device;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_bind(int device) {
    (void)device;
    return GS_ERR_NO_DEVICE;
}
void gs_cuda_note_error(const char *text) { (void)text; }
void gs_cuda_pool_keep(size_t bytes) { (void)bytes; }
void gs_cuda_pool_trim(void) {}
gs_status gs_cuda_copy_rows_async(uint64_t *dst, size_t dst_stride, const uint64_t *src, size_t rows,
                                  size_t cols, size_t a0, size_t len, void *stream) {
    (void)dst, (void)dst_stride, (void)src, (void)rows, (void)cols, (void)a0, (void)len, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_stream_wait_mark(void *stream, void *event) {
    (void)stream, (void)event;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_mark_record(void *event, void *stream) {
    (void)event, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_stream_new(void **stream) {
    *stream = NULL;
    return GS_ERR_NO_DEVICE;
}
void gs_cuda_stream_free(void *stream) { (void)stream; }
gs_status gs_cuda_stream_wait(void *stream) {
    (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_buf_alloc(void **d_ptr, size_t bytes, void *stream) {
    (void)bytes, (void)stream;
    *d_ptr = NULL;
    return GS_ERR_NO_DEVICE;
}
void gs_cuda_buf_free(void *d_ptr, void *stream) { (void)d_ptr, (void)stream; }
gs_status gs_cuda_d2d_async(void *d_dst, const void *d_src, size_t bytes, void *stream) {
    (void)d_dst, (void)d_src, (void)bytes, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_every_async(uint64_t *d_dst, const uint64_t *d_src, size_t n, unsigned log_step,
                              void *stream) {
    (void)d_dst, (void)d_src, (void)n, (void)log_step, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_stage_new(gs_cuda_stage **out, size_t chunk) {
    (void)chunk;
    *out = NULL;
    return GS_ERR_NO_DEVICE;
}
void gs_cuda_stage_free(gs_cuda_stage *s) { (void)s; }
void gs_cuda_stage_set_host_copy(gs_cuda_stage *s, gs_cuda_host_copy_fn fn) { (void)s, (void)fn; }
gs_status gs_cuda_stage_upload(gs_cuda_stage *s, void *d_dst, const void *src, size_t bytes,
                               void *stream) {
    (void)s, (void)d_dst, (void)src, (void)bytes, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_stage_upload_async(gs_cuda_stage *s, void *d_dst, const void *src, size_t bytes,
                                     void *stream) {
    (void)s, (void)d_dst, (void)src, (void)bytes, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_stage_copies_follow(gs_cuda_stage *s, void *stream) {
    (void)s, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_stage_wait_copies(gs_cuda_stage *s) {
    (void)s;
    return GS_ERR_NO_DEVICE;
}
void *gs_cuda_stage_copy_stream(gs_cuda_stage *s) {
    (void)s;
    return NULL;
}
gs_status gs_cuda_stage_download(gs_cuda_stage *s, void *dst, const void *d_src, size_t bytes,
                                 void *stream) {
    (void)s, (void)dst, (void)d_src, (void)bytes, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_gather_rows(uint64_t *out, const uint64_t *d_m, size_t cols, size_t col_stride,
                              const size_t *idx, size_t n, void *stream) {
    (void)out, (void)d_m, (void)cols, (void)col_stride, (void)idx, (void)n, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_scale_powers(uint64_t *d_v, size_t cols, size_t len, uint64_t g, void *stream) {
    (void)d_v, (void)cols, (void)len, (void)g, (void)stream;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_mark(void **event, void *stream) {
    (void)stream;
    *event = NULL;
    return GS_ERR_NO_DEVICE;
}
gs_status gs_cuda_mark_elapsed(double *ms, void *start, void *stop) {
    (void)start, (void)stop;
    *ms = 0;
    return GS_ERR_NO_DEVICE;
}
void gs_cuda_mark_free(void *event) { (void)event; }

gs_status gs_cuda_h2d_measure(gs_cuda_h2d_rates *out, size_t bytes, size_t chunk, int reps,
                              gs_cuda_host_copy_fn copy) {
    (void)out, (void)bytes, (void)chunk, (void)reps, (void)copy;
    return GS_ERR_NO_DEVICE;
}
