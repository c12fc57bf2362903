/* The CUDA wiring check: one trivial kernel (element-wise Goldilocks add, the
 * shared field.h compiled for the device) and its checked launcher. Memory
 * traffic: 24 bytes per element (two reads, one write). */
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

extern "C" gs_status gs_cuda_smoke_add(int device, uint64_t *out, const uint64_t *a,
                                       const uint64_t *b, size_t n) {
    if (n == 0) return GS_OK;
    if (!out || !a || !b) return GS_ERR_INVALID_ARG;
    gs_status s = gs_cuda_check(cudaSetDevice(device), "cudaSetDevice");
    if (s != GS_OK) return s;
    uint64_t *d = NULL;
    size_t bytes = n * sizeof(uint64_t);
    s = gs_cuda_check(gs_cuda_counted_malloc((void **)&d, 3 * bytes), "cudaMalloc");
    if (s != GS_OK) return s;
    s = gs_cuda_check(cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice), "cudaMemcpy a");
    if (s == GS_OK) s = gs_cuda_check(cudaMemcpy(d + n, b, bytes, cudaMemcpyHostToDevice), "cudaMemcpy b");
    if (s == GS_OK) {
        unsigned blocks = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
        smoke_add_kernel<<<blocks, 256>>>(d + 2 * n, d, d + n, n);
        s = gs_cuda_check(cudaGetLastError(), "smoke_add_kernel launch");
    }
    if (s == GS_OK) s = gs_cuda_check(cudaMemcpy(out, d + 2 * n, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy out");
    gs_status f = gs_cuda_check(gs_cuda_counted_free(d), "cudaFree");
    return s != GS_OK ? s : f;
}
