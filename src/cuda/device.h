/* Device plumbing for the CUDA backend (src/backend/cuda.c), callable from C:
 * stream-ordered buffers, streams, chunked transfers through reused pinned
 * staging buffers, and the small kernels the backend needs besides the NTT
 * and Merkle ones (row gather, power scaling). Every device allocation, copy
 * and launch passes a fault point (gstark/cuda.h). Errors: GS_ERR_CUDA with
 * gs_cuda_last_error(), GS_ERR_NO_DEVICE without a device or CUDA,
 * GS_ERR_INVALID_ARG, GS_ERR_NOMEM for host memory. `stream` is a
 * cudaStream_t. */
#ifndef GSTARK_CUDA_DEVICE_H
#define GSTARK_CUDA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device allocations this process holds through gstark now (every
 * device allocation and free in src/cuda goes through the counted wrappers of
 * cuda_util.cuh). Leak checks compare it before and after: unlike the
 * device's free memory, no other process moves it. 0 without CUDA. */
long gs_cuda_live_allocations(void);

/* Free and total bytes of the current device (cudaMemGetInfo). */
gs_status gs_cuda_dev_mem_info(size_t *free_bytes, size_t *total_bytes);
gs_status gs_cuda_set_device(int device);
/* Makes `device` the calling thread's current device, calling cudaSetDevice
 * only when it is not already (CUDA's current device is per thread: every
 * thread that works for a device binds it first; src/backend/device.h). */
gs_status gs_cuda_bind(int device);
/* Records `text` as the calling thread's last CUDA error
 * (gs_cuda_last_error), for failures found outside a CUDA call. */
void gs_cuda_note_error(const char *text);

/* The current device's stream-ordered allocator pool: keep at least `bytes`
 * of freed memory for later allocations instead of returning it at each
 * synchronization (the release threshold is only ever raised); trim gives
 * back what the pool holds unused. Best effort (errors are dropped). */
void gs_cuda_pool_keep(size_t bytes);
void gs_cuda_pool_trim(void);

gs_status gs_cuda_stream_new(void **stream); /* non-blocking */
void gs_cuda_stream_free(void *stream);      /* waits for its work; NULL-safe */
gs_status gs_cuda_stream_wait(void *stream); /* cudaStreamSynchronize */

/* Timing marks: an event recorded on stream now (created here; timing on). */
gs_status gs_cuda_mark(void **event, void *stream);
/* Records an existing mark again, on stream now. */
gs_status gs_cuda_mark_record(void *event, void *stream);
/* Work queued on stream after the call waits for the mark's last record. */
gs_status gs_cuda_stream_wait_mark(void *stream, void *event);
/* Milliseconds between two marks (waits for the second); frees neither. */
gs_status gs_cuda_mark_elapsed(double *ms, void *start, void *stop);
void gs_cuda_mark_free(void *event); /* NULL-safe */

/* Stream-ordered device memory (cudaMallocAsync / cudaFreeAsync on stream). */
gs_status gs_cuda_buf_alloc(void **d_ptr, size_t bytes, void *stream);
void gs_cuda_buf_free(void *d_ptr, void *stream); /* NULL-safe */
/* Device-to-device copy enqueued on stream; either side may also be
 * page-locked host memory (cudaMemcpyDefault: a buffer out of core). */
gs_status gs_cuda_d2d_async(void *d_dst, const void *d_src, size_t bytes, void *stream);
/* Rows a0 .. a0 + len - 1, taken mod `rows` (a power of 2), of `cols`
 * columns of `rows` at src into dst, column stride dst_stride >= len: 2D
 * copies on stream (the copy engines; either side may be page-locked host
 * memory). The row pieces of buffers out of core. */
gs_status gs_cuda_copy_rows_async(uint64_t *dst, size_t dst_stride, const uint64_t *src, size_t rows,
                                  size_t cols, size_t a0, size_t len, void *stream);
/* d_dst[j] = d_src[j << log_step] for j < n, enqueued on stream. */
gs_status gs_cuda_every_async(uint64_t *d_dst, const uint64_t *d_src, size_t n, unsigned log_step,
                              void *stream);

/* Two pinned host buffers of `chunk` bytes and an event for each: large
 * transfers go through them chunk by chunk, the host copy of one chunk
 * overlapping the DMA of the other. One stage serves one thread at a time. */
typedef struct gs_cuda_stage gs_cuda_stage;
gs_status gs_cuda_stage_new(gs_cuda_stage **out, size_t chunk);
/* How the stage copies between pageable memory and its pinned buffers: fn
 * (NULL: memcpy on the calling thread). One thread's memcpy (about 6 GB/s)
 * is what bounds a staged upload, not the bus, so the backend gives a copy
 * split over the lane's threads (gs_device_host_copy). */
typedef void (*gs_cuda_host_copy_fn)(void *dst, const void *src, size_t len);
void gs_cuda_stage_set_host_copy(gs_cuda_stage *s, gs_cuda_host_copy_fn fn);
/* Waits for copies still in flight, then frees. NULL-safe. */
void gs_cuda_stage_free(gs_cuda_stage *s);
/* Host -> device on stream: pageable memory through the stage, returning
 * when the last chunk is queued; pinned memory (gs_cuda_host_alloc, or
 * registered) in one DMA from src, returning when it is done. Either way src
 * may be reused at once. On an error part-way it waits for the chunks in
 * flight before returning, so the stage is idle. */
gs_status gs_cuda_stage_upload(gs_cuda_stage *s, void *d_dst, const void *src, size_t bytes,
                               void *stream);
/* Host -> device on the stage's own copy stream, so that it overlaps the
 * work on `stream`: what is queued on stream after the call waits for it.
 * It does not wait for what is queued on stream before (so a series of
 * uploads runs ahead of the work on their pieces): call
 * gs_cuda_stage_copies_follow first when d_dst was allocated or used on
 * stream. Pinned src: one DMA, queued; pageable src: through the staging
 * pair, returning when the last chunk is queued. src must stay unchanged
 * until gs_cuda_stage_wait_copies returns. On an error the copies in flight
 * are waited for first. */
gs_status gs_cuda_stage_upload_async(gs_cuda_stage *s, void *d_dst, const void *src, size_t bytes,
                                     void *stream);
/* The copies queued next start after what is queued on stream now. */
gs_status gs_cuda_stage_copies_follow(gs_cuda_stage *s, void *stream);
/* Waits until every copy queued on the stage is done. */
gs_status gs_cuda_stage_wait_copies(gs_cuda_stage *s);
/* The stage's copy stream (for timing marks). */
void *gs_cuda_stage_copy_stream(gs_cuda_stage *s);
/* Host-to-device bandwidth, for bench_gpu: `bytes` (>= chunk) copied, best
 * of `reps` runs, in GB/s: from pageable memory with cudaMemcpy, from pinned
 * memory (the bus's floor), from pageable memory through a stage of `chunk`
 * bytes (memcpy, and with `copy` as the stage's host copy when it is not
 * NULL: what the backend's upload does), and from pageable memory pinned
 * in place with cudaHostRegister (register_ms: registering and releasing
 * it, which that path pays once per buffer). Synchronous; uses the current
 * device. */
typedef struct gs_cuda_h2d_rates {
    double pageable_gbs, pinned_gbs, staged_gbs, registered_gbs, register_ms;
    double staged_copy_gbs; /* staged with the stage's host copy set to `copy` (0 without) */
} gs_cuda_h2d_rates;
gs_status gs_cuda_h2d_measure(gs_cuda_h2d_rates *out, size_t bytes, size_t chunk, int reps,
                              gs_cuda_host_copy_fn copy);
/* Device -> host (pageable) through the stage, after the work queued on
 * stream; returns when every byte is in dst (or, on an error, when no copy is
 * in flight any more). */
gs_status gs_cuda_stage_download(gs_cuda_stage *s, void *dst, const void *d_src, size_t bytes,
                                 void *stream);

/* Rows to the host: out[k * cols + c] = m[c * col_stride + idx[k]] for k < n
 * (every index < col_stride checked by the caller); synchronous. */
gs_status gs_cuda_gather_rows(uint64_t *out, const uint64_t *d_m, size_t cols, size_t col_stride,
                              const size_t *idx, size_t n, void *stream);
/* v[c * len + i] *= g^i for `cols` columns of `len` (coefficients of P(g y)
 * -> those of P(y) with g = shift^-1). */
gs_status gs_cuda_scale_powers(uint64_t *d_v, size_t cols, size_t len, uint64_t g, void *stream);

#ifdef __cplusplus
}
#endif
#endif
