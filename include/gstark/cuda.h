/* The CUDA backend's presence and its wiring check. In a build without CUDA
 * (GS_CUDA=OFF, or no nvcc) every call reports GS_ERR_NO_DEVICE. */
#ifndef GSTARK_CUDA_H
#define GSTARK_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if this build has the CUDA backend compiled in, 0 if not. */
int gs_cuda_built(void);
/* Number of usable CUDA devices (0 without CUDA, a driver or a device). */
int gs_cuda_device_count(void);
/* The text of the last CUDA error seen by this thread ("" if none). */
const char *gs_cuda_last_error(void);

/* ---- pinned host memory for traces ----
 * The CUDA backend uploads a trace that lies in page-locked ("pinned") host
 * memory in one DMA at the bus's speed (about 55 GB/s on the H200 machine);
 * a trace in ordinary (pageable) memory goes through its staging buffers,
 * a host copy that runs at about 8 GB/s there (docs/gpu.md, "Uploads").
 * Build a large trace in memory from gs_cuda_host_alloc to get the first
 * rate; the proof's bytes are the same either way. Pinning costs about as
 * much as one copy of the bytes, so allocate once and reuse the buffer for
 * proof after proof (a resident prover's traces).
 *
 * gs_cuda_host_alloc: `bytes` (> 0) of pinned memory in *out, GS_ERR_NO_DEVICE
 * without CUDA or a device, GS_ERR_CUDA when the driver refuses (too much
 * locked memory), GS_ERR_INVALID_ARG for NULL or 0. gs_cuda_host_free frees
 * it (NULL is a no-op); nothing else may free it. */
gs_status gs_cuda_host_alloc(void **out, size_t bytes);
void gs_cuda_host_free(void *p);

/* ---- fault injection (tests) ----
 * Every device allocation, copy and kernel launch that gstark makes counts
 * as one operation of its kind. gs_cuda_fault_inject(kind, n) with n > 0
 * makes the n-th operation of that kind from now on fail once, as a CUDA
 * failure would (GS_ERR_CUDA, gs_cuda_last_error() starting with
 * "injected fault"); n = 0 turns it off. The environment variable
 * GS_CUDA_FAULT=alloc:N, copy:N or launch:N does the same from the first
 * operation of the process. Without CUDA these do nothing and count 0. */
typedef enum gs_cuda_fault_kind {
    GS_CUDA_FAULT_ALLOC = 0,
    GS_CUDA_FAULT_COPY = 1,
    GS_CUDA_FAULT_LAUNCH = 2
} gs_cuda_fault_kind;
void gs_cuda_fault_inject(gs_cuda_fault_kind kind, long n);
/* Operations of `kind` counted since the process started. */
long gs_cuda_fault_count(gs_cuda_fault_kind kind);

/* Wiring check: on device `device`, out[i] = gs_fp_add(a[i], b[i]) for i < n
 * with a trivial kernel, copied back to the host. */
gs_status gs_cuda_smoke_add(int device, uint64_t *out, const uint64_t *a, const uint64_t *b,
                            size_t n);

/* The device's Fp3 arithmetic on n pairs (a and b: n Fp3 values each, value
 * i at words 3i..3i+2): out[3i..] = a_i b_i (gs_fp3_mul) and
 * out[3n + 3i..] = sum_(k < 16) a_j b_j and out[6n + 3i..] =
 * sum_(k < 16) a_j (b_j's first word), j = (i + k) mod n, the sums added
 * unreduced (gs_fp3_acc_). 9n words out. */
gs_status gs_cuda_smoke_fp3(int device, uint64_t *out, const uint64_t *a, const uint64_t *b,
                            size_t n);

#ifdef __cplusplus
}
#endif
#endif
