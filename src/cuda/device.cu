/* Device plumbing for the CUDA backend (src/cuda/device.h). */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cuda_util.cuh"
#include "cuda/device.h"
#include "gstark/cuda.h"
#include "gstark/field.h"

namespace {

cudaStream_t as_stream(void *s) { return (cudaStream_t)s; }

/* Clears a non-sticky error left by a failed call so that it is not
 * reported again by the next launch check. */
gs_status checked(cudaError_t e, const char *what) {
    if (e != cudaSuccess) (void)cudaGetLastError();
    return gs_cuda_check(e, what);
}

__global__ void gather_kernel(uint64_t *out, const uint64_t *m, size_t cols, size_t stride,
                              const uint64_t *idx, size_t n) {
    size_t total = n * cols;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        size_t k = t / cols, c = t % cols;
        out[t] = m[c * stride + idx[k]];
    }
}

__global__ void every_kernel(uint64_t *dst, const uint64_t *src, size_t n, unsigned log_step) {
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n;
         j += (size_t)gridDim.x * blockDim.x)
        dst[j] = src[j << log_step];
}

constexpr unsigned SCALE_RUN = 32; /* consecutive powers per thread */

__global__ void scale_kernel(uint64_t *v, size_t cols, size_t len, uint64_t g) {
    size_t runs = (len + SCALE_RUN - 1) / SCALE_RUN;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < runs;
         t += (size_t)gridDim.x * blockDim.x) {
        size_t i0 = t * SCALE_RUN, end = i0 + SCALE_RUN < len ? i0 + SCALE_RUN : len;
        gs_fp p0 = gs_fp_pow(g, i0);
        for (size_t c = 0; c < cols; c++) {
            uint64_t *col = v + c * len;
            gs_fp p = p0;
            for (size_t i = i0; i < end; i++) col[i] = gs_fp_mul(col[i], p), p = gs_fp_mul(p, g);
        }
    }
}

unsigned grid_for(size_t work, unsigned threads) {
    size_t b = (work + threads - 1) / threads;
    return b == 0 ? 1 : b > 65535u * 16 ? 65535u * 16 : (unsigned)b;
}

} // namespace

extern "C" gs_status gs_cuda_dev_mem_info(size_t *free_bytes, size_t *total_bytes) {
    return checked(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
}

extern "C" gs_status gs_cuda_set_device(int device) {
    return checked(cudaSetDevice(device), "cudaSetDevice");
}

extern "C" gs_status gs_cuda_bind(int device) {
    int cur = -1;
    GS_TRY(checked(cudaGetDevice(&cur), "cudaGetDevice"));
    if (cur == device) return GS_OK;
    return checked(cudaSetDevice(device), "cudaSetDevice");
}

extern "C" void gs_cuda_pool_keep(size_t bytes) {
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
        uint64_t now = 0, want = bytes; /* the attribute is a 64-bit value */
        if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &now) == cudaSuccess &&
            now < want)
            (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &want);
    }
    (void)cudaGetLastError();
}

extern "C" void gs_cuda_pool_trim(void) {
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
        (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
}

extern "C" gs_status gs_cuda_stream_new(void **stream) {
    cudaStream_t s = NULL;
    *stream = NULL;
    GS_TRY(checked(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"));
    *stream = s;
    return GS_OK;
}

extern "C" void gs_cuda_stream_free(void *stream) {
    if (!stream) return;
    (void)cudaStreamSynchronize(as_stream(stream));
    (void)cudaStreamDestroy(as_stream(stream));
    (void)cudaGetLastError();
}

extern "C" gs_status gs_cuda_stream_wait(void *stream) {
    return checked(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize");
}

extern "C" gs_status gs_cuda_mark(void **event, void *stream) {
    cudaEvent_t e = NULL;
    *event = NULL;
    GS_TRY(checked(cudaEventCreate(&e), "cudaEventCreate (mark)"));
    gs_status r = checked(cudaEventRecord(e, as_stream(stream)), "cudaEventRecord (mark)");
    if (r != GS_OK) {
        (void)cudaEventDestroy(e);
        return r;
    }
    *event = e;
    return GS_OK;
}

extern "C" gs_status gs_cuda_mark_record(void *event, void *stream) {
    return checked(cudaEventRecord((cudaEvent_t)event, as_stream(stream)), "cudaEventRecord (mark)");
}

extern "C" gs_status gs_cuda_stream_wait_mark(void *stream, void *event) {
    return checked(cudaStreamWaitEvent(as_stream(stream), (cudaEvent_t)event, 0), "cudaStreamWaitEvent (mark)");
}

extern "C" gs_status gs_cuda_mark_elapsed(double *ms, void *start, void *stop) {
    float f = 0;
    GS_TRY(checked(cudaEventSynchronize((cudaEvent_t)stop), "cudaEventSynchronize (mark)"));
    GS_TRY(checked(cudaEventElapsedTime(&f, (cudaEvent_t)start, (cudaEvent_t)stop),
                   "cudaEventElapsedTime"));
    *ms = f;
    return GS_OK;
}

extern "C" void gs_cuda_mark_free(void *event) {
    if (event) (void)cudaEventDestroy((cudaEvent_t)event);
}

extern "C" gs_status gs_cuda_buf_alloc(void **d_ptr, size_t bytes, void *stream) {
    *d_ptr = NULL;
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, "cudaMallocAsync (backend buffer)"));
    void *p = NULL;
    GS_TRY(checked(gs_cuda_counted_malloc_async(&p, bytes ? bytes : 8, as_stream(stream)), "cudaMallocAsync"));
    *d_ptr = p;
    return GS_OK;
}

extern "C" void gs_cuda_buf_free(void *d_ptr, void *stream) {
    if (!d_ptr) return;
    if (gs_cuda_counted_free_async(d_ptr, as_stream(stream)) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" gs_status gs_cuda_d2d_async(void *d_dst, const void *d_src, size_t bytes,
                                       void *stream) {
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (device to device)"));
    return checked(cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDefault,
                                   as_stream(stream)),
                   "cudaMemcpyAsync (device to device)");
}

extern "C" gs_status gs_cuda_copy_rows_async(uint64_t *dst, size_t dst_stride, const uint64_t *src,
                                             size_t rows, size_t cols, size_t a0, size_t len,
                                             void *stream) {
    if (!dst || !src || !rows || (rows & (rows - 1)) || dst_stride < len) return GS_ERR_INVALID_ARG;
    for (size_t done = 0; done < len;) {
        size_t at = (a0 + done) & (rows - 1), k = rows - at < len - done ? rows - at : len - done;
        GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpy2DAsync (rows)"));
        GS_TRY(checked(cudaMemcpy2DAsync(dst + done, dst_stride * sizeof *dst, src + at,
                                         rows * sizeof *src, k * sizeof *src, cols, cudaMemcpyDefault,
                                         as_stream(stream)),
                       "cudaMemcpy2DAsync (rows)"));
        done += k;
    }
    return GS_OK;
}

extern "C" gs_status gs_cuda_every_async(uint64_t *d_dst, const uint64_t *d_src, size_t n,
                                         unsigned log_step, void *stream) {
    if (log_step == 0) return gs_cuda_d2d_async(d_dst, d_src, n * sizeof *d_dst, stream);
    if (n == 0) return GS_OK;
    every_kernel<<<grid_for(n, 256), 256, 0, as_stream(stream)>>>(d_dst, d_src, n, log_step);
    return gs_cuda_launched("every_kernel launch");
}

/* ---- staging ---- */

struct gs_cuda_stage {
    size_t chunk;
    void *buf[2];        /* pinned host memory */
    cudaEvent_t done[2]; /* recorded after the last DMA that used buf[i] */
    cudaStream_t copy;   /* gs_cuda_stage_upload_async's stream */
    cudaEvent_t handoff; /* orders the copy stream and the lane's stream */
    gs_cuda_host_copy_fn host_copy; /* NULL: memcpy */
};

extern "C" void gs_cuda_stage_set_host_copy(gs_cuda_stage *s, gs_cuda_host_copy_fn fn) {
    if (s) s->host_copy = fn;
}

static void host_copy(const gs_cuda_stage *s, void *dst, const void *src, size_t len) {
    if (s->host_copy) s->host_copy(dst, src, len);
    else memcpy(dst, src, len);
}

extern "C" void gs_cuda_stage_free(gs_cuda_stage *s) {
    if (!s) return;
    for (int i = 0; i < 2; i++) {
        if (s->done[i]) {
            (void)cudaEventSynchronize(s->done[i]);
            (void)cudaEventDestroy(s->done[i]);
        }
        if (s->buf[i]) (void)cudaFreeHost(s->buf[i]);
    }
    if (s->copy) {
        (void)cudaStreamSynchronize(s->copy);
        (void)cudaStreamDestroy(s->copy);
    }
    if (s->handoff) (void)cudaEventDestroy(s->handoff);
    (void)cudaGetLastError();
    free(s);
}

extern "C" gs_status gs_cuda_stage_new(gs_cuda_stage **out, size_t chunk) {
    *out = NULL;
    if (chunk == 0) return GS_ERR_INVALID_ARG;
    gs_cuda_stage *s = (gs_cuda_stage *)calloc(1, sizeof *s);
    if (!s) return GS_ERR_NOMEM;
    s->chunk = chunk;
    gs_status r = GS_OK;
    for (int i = 0; r == GS_OK && i < 2; i++) {
        r = gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, "cudaMallocHost (staging)");
        if (r == GS_OK) r = checked(cudaMallocHost(&s->buf[i], chunk), "cudaMallocHost (staging)");
        if (r == GS_OK)
            r = checked(cudaEventCreateWithFlags(&s->done[i], cudaEventDisableTiming),
                        "cudaEventCreate (staging)");
    }
    if (r == GS_OK)
        r = checked(cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking), "cudaStreamCreate (copies)");
    if (r == GS_OK)
        r = checked(cudaEventCreateWithFlags(&s->handoff, cudaEventDisableTiming),
                    "cudaEventCreate (copies)");
    if (r != GS_OK) {
        gs_cuda_stage_free(s);
        return r;
    }
    *out = s;
    return GS_OK;
}

/* Waits until neither staging buffer has a copy in flight. */
static void stage_drain(gs_cuda_stage *s) {
    for (int i = 0; i < 2; i++) (void)cudaEventSynchronize(s->done[i]);
    (void)cudaGetLastError();
}

/* Whether [p, p + bytes) starts in page-locked host memory (cudaHostAlloc or
 * registered): the DMA engine reads it directly. */
static int is_pinned(const void *p) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* Pageable src through the staging pair on st: the host copies a chunk into
 * one buffer while the other's DMA runs. Returns when the last chunk is
 * queued; on an error, when no chunk is in flight. */
static gs_status staged_copy(gs_cuda_stage *s, void *d_dst, const void *src, size_t bytes,
                             cudaStream_t st) {
    gs_status r = GS_OK;
    for (size_t off = 0, k = 0; r == GS_OK && off < bytes; off += s->chunk, k++) {
        int b = (int)(k & 1);
        size_t len = bytes - off < s->chunk ? bytes - off : s->chunk;
        /* The buffer's previous DMA must be done before it is overwritten. */
        r = checked(cudaEventSynchronize(s->done[b]), "cudaEventSynchronize (staging)");
        if (r != GS_OK) break;
        host_copy(s, s->buf[b], (const char *)src + off, len);
        r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (staged upload)");
        if (r == GS_OK)
            r = checked(cudaMemcpyAsync((char *)d_dst + off, s->buf[b], len,
                                        cudaMemcpyHostToDevice, st),
                        "cudaMemcpyAsync (staged upload)");
        if (r == GS_OK) r = checked(cudaEventRecord(s->done[b], st), "cudaEventRecord (staging)");
    }
    if (r != GS_OK) stage_drain(s);
    return r;
}

extern "C" gs_status gs_cuda_stage_upload(gs_cuda_stage *s, void *d_dst, const void *src,
                                          size_t bytes, void *stream) {
    if (!s || (bytes && (!d_dst || !src))) return GS_ERR_INVALID_ARG;
    if (bytes && is_pinned(src)) {
        /* One DMA from the source itself, then a wait for the stream, so that
         * src may be reused on return, as after a staged upload (the device
         * has nothing else to do on this stream before the data is there). */
        gs_status r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (pinned upload)");
        if (r == GS_OK)
            r = checked(cudaMemcpyAsync(d_dst, src, bytes, cudaMemcpyHostToDevice, as_stream(stream)),
                        "cudaMemcpyAsync (pinned upload)");
        gs_status w = checked(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize (pinned upload)");
        return r != GS_OK ? r : w;
    }
    return staged_copy(s, d_dst, src, bytes, as_stream(stream));
}

extern "C" void *gs_cuda_stage_copy_stream(gs_cuda_stage *s) { return s ? (void *)s->copy : NULL; }

/* `to` waits (on the device) for what is queued on `from` now. */
static gs_status hand_off(gs_cuda_stage *s, cudaStream_t from, cudaStream_t to) {
    GS_TRY(checked(cudaEventRecord(s->handoff, from), "cudaEventRecord (copies)"));
    return checked(cudaStreamWaitEvent(to, s->handoff, 0), "cudaStreamWaitEvent (copies)");
}

extern "C" gs_status gs_cuda_stage_upload_async(gs_cuda_stage *s, void *d_dst, const void *src,
                                                size_t bytes, void *stream) {
    if (!s || (bytes && (!d_dst || !src))) return GS_ERR_INVALID_ARG;
    cudaStream_t st = as_stream(stream);
    gs_status r = GS_OK;
    if (bytes && is_pinned(src)) {
        r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (pinned upload)");
        if (r == GS_OK)
            r = checked(cudaMemcpyAsync(d_dst, src, bytes, cudaMemcpyHostToDevice, s->copy),
                        "cudaMemcpyAsync (pinned upload)");
    } else if (r == GS_OK) {
        r = staged_copy(s, d_dst, src, bytes, s->copy);
    }
    if (r == GS_OK) r = hand_off(s, s->copy, st);
    if (r != GS_OK) (void)gs_cuda_stage_wait_copies(s);
    return r;
}

extern "C" gs_status gs_cuda_stage_copies_follow(gs_cuda_stage *s, void *stream) {
    if (!s) return GS_ERR_INVALID_ARG;
    return hand_off(s, as_stream(stream), s->copy);
}

extern "C" gs_status gs_cuda_stage_wait_copies(gs_cuda_stage *s) {
    if (!s) return GS_ERR_INVALID_ARG;
    gs_status r = checked(cudaStreamSynchronize(s->copy), "cudaStreamSynchronize (copies)");
    stage_drain(s);
    return r;
}

extern "C" gs_status gs_cuda_stage_download(gs_cuda_stage *s, void *dst, const void *d_src,
                                            size_t bytes, void *stream) {
    if (!s || (bytes && (!dst || !d_src))) return GS_ERR_INVALID_ARG;
    size_t chunks = (bytes + s->chunk - 1) / s->chunk;
    gs_status r = GS_OK;
    /* DMA chunk k + 1 runs while the host copies chunk k out of the stage. */
    for (size_t k = 0; r == GS_OK && k < chunks + 1; k++) {
        if (k < chunks) {
            int b = (int)(k & 1);
            size_t off = k * s->chunk, len = bytes - off < s->chunk ? bytes - off : s->chunk;
            r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (staged download)");
            if (r == GS_OK)
                r = checked(cudaMemcpyAsync(s->buf[b], (const char *)d_src + off, len,
                                            cudaMemcpyDeviceToHost, as_stream(stream)),
                            "cudaMemcpyAsync (staged download)");
            if (r == GS_OK)
                r = checked(cudaEventRecord(s->done[b], as_stream(stream)),
                            "cudaEventRecord (staging)");
        }
        if (r == GS_OK && k > 0) {
            int b = (int)((k - 1) & 1);
            size_t off = (k - 1) * s->chunk, len = bytes - off < s->chunk ? bytes - off : s->chunk;
            r = checked(cudaEventSynchronize(s->done[b]), "cudaEventSynchronize (staging)");
            if (r == GS_OK) host_copy(s, (char *)dst + off, s->buf[b], len);
        }
    }
    if (r != GS_OK) stage_drain(s);
    return r;
}

/* ---- host-to-device bandwidth (bench_gpu) ---- */

static double wall_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

extern "C" gs_status gs_cuda_h2d_measure(gs_cuda_h2d_rates *out, size_t bytes, size_t chunk,
                                         int reps, gs_cuda_host_copy_fn copy) {
    if (!out || bytes == 0 || chunk == 0 || chunk > bytes || reps < 1) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    char *host = (char *)malloc(bytes), *pinned = NULL;
    void *dev = NULL;
    gs_cuda_stage *st = NULL;
    cudaStream_t s = NULL;
    gs_status r = host ? GS_OK : GS_ERR_NOMEM;
    if (r == GS_OK) {
        for (size_t i = 0; i < bytes; i++) host[i] = (char)(i * 131u + 7u); /* touched, resident */
        r = checked(cudaMalloc(&dev, bytes), "cudaMalloc (h2d)");
    }
    if (r == GS_OK) r = checked(cudaMallocHost((void **)&pinned, bytes), "cudaMallocHost (h2d)");
    if (r == GS_OK) memcpy(pinned, host, bytes);
    if (r == GS_OK) r = checked(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    if (r == GS_OK) r = gs_cuda_stage_new(&st, chunk);
    double best[4] = {1e300, 1e300, 1e300, 1e300}, reg = 1e300, best_copy = 1e300;
    for (int k = 0; r == GS_OK && k < reps; k++) {
        double t0 = wall_ms();
        r = checked(gs_cuda_memcpy_landed(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (pageable)");
        double t1 = wall_ms();
        if (r == GS_OK) r = checked(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (pinned)");
        double t2 = wall_ms();
        if (r == GS_OK) r = gs_cuda_stage_upload(st, dev, host, bytes, s);
        if (r == GS_OK) r = checked(cudaStreamSynchronize(s), "cudaStreamSynchronize (staged)");
        double t3 = wall_ms();
        if (r == GS_OK && copy) {
            gs_cuda_stage_set_host_copy(st, copy);
            double c0 = wall_ms();
            r = gs_cuda_stage_upload(st, dev, host, bytes, s);
            if (r == GS_OK) r = checked(cudaStreamSynchronize(s), "cudaStreamSynchronize (staged)");
            double c1 = wall_ms() - c0;
            if (c1 < best_copy) best_copy = c1;
            gs_cuda_stage_set_host_copy(st, NULL);
        }
        double t3r = wall_ms();
        if (r == GS_OK) r = checked(cudaHostRegister(host, bytes, cudaHostRegisterDefault), "cudaHostRegister");
        double t4 = wall_ms();
        if (r == GS_OK) r = checked(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (registered)");
        double t5 = wall_ms();
        if (r == GS_OK) r = checked(cudaHostUnregister(host), "cudaHostUnregister");
        double t6 = wall_ms();
        double v[4] = {t1 - t0, t2 - t1, t3 - t2, t5 - t4};
        for (int j = 0; j < 4; j++)
            if (v[j] < best[j]) best[j] = v[j];
        if ((t4 - t3r) + (t6 - t5) < reg) reg = (t4 - t3r) + (t6 - t5);
    }
    if (r == GS_OK) {
        double *o[4] = {&out->pageable_gbs, &out->pinned_gbs, &out->staged_gbs, &out->registered_gbs};
        for (int j = 0; j < 4; j++) *o[j] = (double)bytes / (best[j] * 1e-3) / 1e9;
        out->register_ms = reg;
        if (copy) out->staged_copy_gbs = (double)bytes / (best_copy * 1e-3) / 1e9;
    }
    gs_cuda_stage_free(st);
    if (s) (void)cudaStreamDestroy(s);
    if (pinned) (void)cudaFreeHost(pinned);
    if (dev) (void)cudaFree(dev);
    free(host);
    return r;
}

/* ---- small kernels ---- */

extern "C" gs_status gs_cuda_gather_rows(uint64_t *out, const uint64_t *d_m, size_t cols,
                                         size_t col_stride, const size_t *idx, size_t n,
                                         void *stream) {
    if (n == 0 || cols == 0) return GS_OK;
    if (!out || !d_m || !idx) return GS_ERR_INVALID_ARG;
    cudaStream_t st = as_stream(stream);
    size_t idx_bytes = n * sizeof(uint64_t), out_bytes = n * cols * sizeof(uint64_t);
    uint64_t *scratch = NULL;
    GS_TRY(gs_cuda_buf_alloc((void **)&scratch, idx_bytes + out_bytes, stream));
    uint64_t *d_idx = scratch, *d_out = scratch + n;
    gs_status r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (gather indices)");
    if (r == GS_OK) {
        static_assert(sizeof(size_t) == sizeof(uint64_t), "size_t is 64-bit");
        r = checked(cudaMemcpyAsync(d_idx, idx, idx_bytes, cudaMemcpyHostToDevice, st),
                    "cudaMemcpyAsync (gather indices)");
    }
    if (r == GS_OK) {
        gather_kernel<<<grid_for(n * cols, 256), 256, 0, st>>>(d_out, d_m, cols, col_stride, d_idx, n);
        r = gs_cuda_launched("gather_kernel launch");
    }
    if (r == GS_OK) r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (gathered rows)");
    if (r == GS_OK)
        r = checked(cudaMemcpyAsync(out, d_out, out_bytes, cudaMemcpyDeviceToHost, st),
                    "cudaMemcpyAsync (gathered rows)");
    gs_cuda_buf_free(scratch, stream);
    gs_status w = checked(cudaStreamSynchronize(st), "cudaStreamSynchronize (gather)");
    return r != GS_OK ? r : w;
}

extern "C" gs_status gs_cuda_scale_powers(uint64_t *d_v, size_t cols, size_t len, uint64_t g,
                                          void *stream) {
    if (cols == 0 || len == 0) return GS_OK;
    if (!d_v) return GS_ERR_INVALID_ARG;
    size_t runs = (len + SCALE_RUN - 1) / SCALE_RUN;
    scale_kernel<<<grid_for(runs, 256), 256, 0, as_stream(stream)>>>(d_v, cols, len, g);
    return gs_cuda_launched("scale_kernel launch");
}
