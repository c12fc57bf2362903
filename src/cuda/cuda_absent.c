/* Built instead of the CUDA sources when CUDA is not compiled in. */
#include "gstark/cuda.h"

int gs_cuda_built(void) { return 0; }
int gs_cuda_device_count(void) { return 0; }
const char *gs_cuda_last_error(void) { return "gstark was built without CUDA"; }

gs_status gs_cuda_smoke_add(int device, uint64_t *out, const uint64_t *a, const uint64_t *b,
                            size_t n) {
    (void)device, (void)out, (void)a, (void)b, (void)n;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_smoke_fp3(int device, uint64_t *out, const uint64_t *a, const uint64_t *b,
                            size_t n) {
    (void)device, (void)out, (void)a, (void)b, (void)n;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_host_alloc(void **out, size_t bytes) {
    if (!out || !bytes) return GS_ERR_INVALID_ARG;
    *out = NULL;
    return GS_ERR_NO_DEVICE;
}
void gs_cuda_host_free(void *p) { (void)p; }

void gs_cuda_fault_inject(gs_cuda_fault_kind kind, long n) { (void)kind, (void)n; }
long gs_cuda_fault_count(gs_cuda_fault_kind kind) {
    (void)kind;
    return 0;
}
