/* Shared by the CUDA sources: turning cudaError_t into gs_status while
 * keeping the CUDA error text for gs_cuda_last_error() (smoke.cu owns it). */
#ifndef GSTARK_CUDA_UTIL_CUH
#define GSTARK_CUDA_UTIL_CUH

#include <cuda_runtime.h>

#include "gstark/cuda.h"
#include "gstark/status.h"

/* Records "what: <CUDA error text>" as this thread's last CUDA error and maps
 * the error to GS_ERR_NO_DEVICE or GS_ERR_CUDA; GS_OK for cudaSuccess. */
gs_status gs_cuda_check(cudaError_t e, const char *what);

#define GS_CUDA_TRY(call)                                       \
    do {                                                        \
        gs_status gs_cuda_s_ = gs_cuda_check((call), #call);    \
        if (gs_cuda_s_ != GS_OK) return gs_cuda_s_;             \
    } while (0)


/* One device operation of `kind` (GS_CUDA_FAULT_ALLOC, _COPY or _LAUNCH) is
 * about to happen: counts it and returns GS_ERR_CUDA (recording
 * "injected fault: what") when the fault injector picked it, else GS_OK.
 * Call it before every cudaMalloc*, cudaMemcpy* and kernel launch. */
gs_status gs_cuda_fault_point(int kind, const char *what);

/* After a kernel launch: the fault point for it, then cudaGetLastError. */
gs_status gs_cuda_launched(const char *what);

/* Every device allocation gstark makes goes through these four (same
 * arguments and results as the CUDA calls they wrap): they keep a process-wide
 * count of live allocations (gs_cuda_live_allocations, cuda/device.h), so a
 * leak check counts what this process holds rather than the device's free
 * memory, which other processes move. Freeing NULL is not counted. */
cudaError_t gs_cuda_counted_malloc(void **p, size_t bytes);
cudaError_t gs_cuda_counted_malloc_async(void **p, size_t bytes, cudaStream_t s);
cudaError_t gs_cuda_counted_free(void *p);
cudaError_t gs_cuda_counted_free_async(void *p, cudaStream_t s);

/* cudaMemcpy that has landed when it returns. A cudaMemcpy from pageable
 * host memory to the device returns once the bytes are staged, before the
 * DMA to the destination completes, and it runs on the legacy default
 * stream, which gstark's streams (all cudaStreamNonBlocking) do not wait
 * for: a kernel launched on one of them right after could read the
 * destination before the bytes arrive. This waits for the legacy stream,
 * so whatever stream reads dst next sees the bytes. Use it for every
 * synchronous copy into memory another stream reads (the twiddle and scale
 * tables, the test and benchmark upload helpers). */
cudaError_t gs_cuda_memcpy_landed(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
#endif
