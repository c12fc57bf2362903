/* The device fault injector (gstark/cuda.h): per-kind operation counters and
 * a one-shot "fail the n-th" trigger, armed by a test or by GS_CUDA_FAULT. */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cuda/cuda_util.cuh"
#include "gstark/cuda.h"

namespace {

constexpr int KINDS = 3;
std::atomic<long> g_count[KINDS];
std::atomic<long> g_left[KINDS]; /* operations until the injected failure; 0 = off */
std::once_flag g_env_once;

/* GS_CUDA_FAULT=alloc:N | copy:N | launch:N */
void read_env() {
    const char *v = getenv("GS_CUDA_FAULT");
    if (!v) return;
    static const char *names[KINDS] = {"alloc:", "copy:", "launch:"};
    for (int k = 0; k < KINDS; k++) {
        size_t len = strlen(names[k]);
        if (strncmp(v, names[k], len) == 0) {
            long n = strtol(v + len, NULL, 10);
            if (n > 0) g_left[k].store(n);
            return;
        }
    }
    fprintf(stderr, "gstark: ignoring GS_CUDA_FAULT=%s (want alloc:N, copy:N or launch:N)\n", v);
}

} // namespace

gs_status gs_cuda_fault_point(int kind, const char *what) {
    std::call_once(g_env_once, read_env);
    if (kind < 0 || kind >= KINDS) return GS_OK;
    g_count[kind].fetch_add(1, std::memory_order_relaxed);
    long k = g_left[kind].load();
    while (k > 0) {
        if (g_left[kind].compare_exchange_weak(k, k - 1)) {
            if (k != 1) break;
            char msg[160];
            snprintf(msg, sizeof msg, "injected fault: %s", what);
            /* cudaErrorMemoryAllocation reads like the real failure; the
             * text names it as injected. */
            gs_status s = gs_cuda_check(cudaErrorMemoryAllocation, msg);
            return s == GS_OK ? GS_ERR_CUDA : s;
        }
    }
    return GS_OK;
}

gs_status gs_cuda_launched(const char *what) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return gs_cuda_check(e, what);
    return gs_cuda_fault_point(GS_CUDA_FAULT_LAUNCH, what);
}

extern "C" void gs_cuda_fault_inject(gs_cuda_fault_kind kind, long n) {
    std::call_once(g_env_once, read_env);
    if ((int)kind < 0 || (int)kind >= KINDS) return;
    g_left[kind].store(n > 0 ? n : 0);
}

extern "C" long gs_cuda_fault_count(gs_cuda_fault_kind kind) {
    if ((int)kind < 0 || (int)kind >= KINDS) return 0;
    return g_count[kind].load();
}

/* ---- live allocations ---- */

static std::atomic<long> g_live_allocs{0};

cudaError_t gs_cuda_counted_malloc(void **p, size_t bytes) {
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess) g_live_allocs.fetch_add(1);
    return e;
}

/* The pool keeps freed memory for the next proof (gs_cuda_pool_keep); when
 * an allocation finds the device full, what the pool keeps unused goes back
 * and the allocation is tried once more. */
cudaError_t gs_cuda_counted_malloc_async(void **p, size_t bytes, cudaStream_t s) {
    cudaError_t e = cudaMallocAsync(p, bytes, s);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        int dev = 0;
        cudaMemPool_t pool;
        if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess &&
            cudaMemPoolTrimTo(pool, 0) == cudaSuccess)
            e = cudaMallocAsync(p, bytes, s);
        if (e != cudaSuccess) (void)cudaGetLastError();
    }
    if (e == cudaSuccess) g_live_allocs.fetch_add(1);
    return e;
}

cudaError_t gs_cuda_counted_free(void *p) {
    if (p) g_live_allocs.fetch_sub(1);
    return cudaFree(p);
}

cudaError_t gs_cuda_counted_free_async(void *p, cudaStream_t s) {
    if (p) g_live_allocs.fetch_sub(1);
    return cudaFreeAsync(p, s);
}

cudaError_t gs_cuda_memcpy_landed(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    cudaError_t e = cudaMemcpy(dst, src, bytes, kind);
    return e == cudaSuccess ? cudaStreamSynchronize(cudaStreamLegacy) : e;
}

extern "C" long gs_cuda_live_allocations(void) { return g_live_allocs.load(); }
