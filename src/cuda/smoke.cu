/* The CUDA wiring check: trivial kernels (element-wise Goldilocks add; the
 * Fp3 product and unreduced sums of products) over the shared field.h
 * compiled for the device, and their checked launchers. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "gstark/cuda.h"
#include "gstark/field.h"
#include "cuda/cuda_util.cuh"
#include "cuda/device.h"

static __thread char g_last_error[256];

gs_status gs_cuda_check(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return GS_OK;
    snprintf(g_last_error, sizeof g_last_error, "%s: %s", what, cudaGetErrorString(e));
    return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ? GS_ERR_NO_DEVICE
                                                                       : GS_ERR_CUDA;
}

extern "C" int gs_cuda_built(void) { return 1; }

extern "C" int gs_cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    return n;
}

extern "C" const char *gs_cuda_last_error(void) { return g_last_error; }

extern "C" gs_status gs_cuda_host_alloc(void **out, size_t bytes) {
    if (!out || !bytes) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (gs_cuda_device_count() == 0) return GS_ERR_NO_DEVICE;
    gs_status s = gs_cuda_check(cudaHostAlloc(out, bytes, cudaHostAllocPortable), "cudaHostAlloc");
    if (s != GS_OK) *out = NULL;
    return s;
}

extern "C" void gs_cuda_host_free(void *p) {
    if (p) (void)cudaFreeHost(p);
}

extern "C" void gs_cuda_note_error(const char *text) {
    snprintf(g_last_error, sizeof g_last_error, "%s", text);
}

static __global__ void smoke_add_kernel(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                        size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = gs_fp_add(a[i], b[i]);
}

static __device__ gs_fp3 smoke_ld3(const uint64_t *v, size_t i) {
    return gs_fp3_make(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
}

static __device__ void smoke_st3(uint64_t *v, size_t i, gs_fp3 x) {
    v[3 * i] = x.c[0], v[3 * i + 1] = x.c[1], v[3 * i + 2] = x.c[2];
}

static __global__ void smoke_fp3_kernel(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        smoke_st3(out, i, gs_fp3_mul(smoke_ld3(a, i), smoke_ld3(b, i)));
        gs_fp3_acc_ s = gs_fp3_acc_zero_(), t = gs_fp3_acc_zero_();
        for (size_t k = 0; k < 16; k++) {
            size_t j = (i + k) % n;
            gs_fp3_acc_mul_(&s, smoke_ld3(a, j), smoke_ld3(b, j));
            gs_fp3_acc_mul_fp_(&t, smoke_ld3(a, j), b[3 * j]);
        }
        smoke_st3(out + 3 * n, i, gs_fp3_acc_done_(&s));
        smoke_st3(out + 6 * n, i, gs_fp3_acc_done_(&t));
    }
}

/* in_words words of a and of b up, kernel k over n items, out_words back. */
static gs_status smoke_run(int device, uint64_t *out, size_t out_words, const uint64_t *a,
                           const uint64_t *b, size_t in_words, size_t n,
                           void (*k)(uint64_t *, const uint64_t *, const uint64_t *, size_t)) {
    gs_status s = gs_cuda_check(cudaSetDevice(device), "cudaSetDevice");
    if (s != GS_OK) return s;
    uint64_t *d = NULL;
    size_t in_bytes = in_words * sizeof(uint64_t), out_bytes = out_words * sizeof(uint64_t);
    s = gs_cuda_check(gs_cuda_counted_malloc((void **)&d, 2 * in_bytes + out_bytes), "cudaMalloc");
    if (s != GS_OK) return s;
    s = gs_cuda_check(cudaMemcpy(d, a, in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy a");
    if (s == GS_OK) s = gs_cuda_check(cudaMemcpy(d + in_words, b, in_bytes, cudaMemcpyHostToDevice), "cudaMemcpy b");
    if (s == GS_OK) {
        unsigned blocks = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
        k<<<blocks, 256>>>(d + 2 * in_words, d, d + in_words, n);
        s = gs_cuda_check(cudaGetLastError(), "smoke kernel launch");
    }
    if (s == GS_OK)
        s = gs_cuda_check(cudaMemcpy(out, d + 2 * in_words, out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy out");
    gs_status f = gs_cuda_check(gs_cuda_counted_free(d), "cudaFree");
    return s != GS_OK ? s : f;
}

extern "C" gs_status gs_cuda_smoke_add(int device, uint64_t *out, const uint64_t *a,
                                       const uint64_t *b, size_t n) {
    if (n == 0) return GS_OK;
    if (!out || !a || !b) return GS_ERR_INVALID_ARG;
    return smoke_run(device, out, n, a, b, n, n, smoke_add_kernel);
}

extern "C" gs_status gs_cuda_smoke_fp3(int device, uint64_t *out, const uint64_t *a,
                                       const uint64_t *b, size_t n) {
    if (n == 0) return GS_OK;
    if (!out || !a || !b) return GS_ERR_INVALID_ARG;
    return smoke_run(device, out, 9 * n, a, b, 3 * n, n, smoke_fp3_kernel);
}
