/* NTT and coset LDE on a CUDA device: the device counterparts of gstark/ntt.h,
 * with exactly its conventions and outputs (bit for bit):
 * - n = 2^log_n, w_n = gs_fp_root_of_unity(log_n); forward: natural order in
 *   and out, out[k] = sum_j v[j] w_n^(j k); inverse: its exact inverse
 *   (including the 1/n);
 * - batches are column-major: column c of `cols` columns starts at v + c * n;
 * - LDE: from evaluations on <w_n> (gs_cuda_lde_coset) or from coefficients
 *   (gs_cuda_lde_coset_from_coeffs) to the evaluations on shift * <w_{nB}>,
 *   B = 2^log_blowup, column c at out + c * nB; bitrev_out = 0 (GS_ORDER_NATURAL):
 *   out[c nB + i] = P_c(shift w_{nB}^i); bitrev_out = 1 (GS_ORDER_BITREV):
 *   out[c nB + i] = P_c(shift w_{nB}^bitrev(i)), bitrev over log_n + log_blowup bits.
 *
 * Every pointer named d_* is a device pointer on the calling thread's current
 * device (cudaSetDevice). `stream` is a cudaStream_t (NULL: the default
 * stream); the work is queued on it and the call returns without waiting, so
 * read the results after synchronizing that stream. Inputs must be canonical
 * field elements (< p), as on the CPU.
 *
 * Errors: GS_ERR_INVALID_ARG for what the CPU functions reject (log_n > 32,
 * log_n + log_blowup > 32, shift >= p, bitrev_out other than 0 or 1, a NULL
 * pointer with cols > 0, a size overflow, overlapping in/out of an LDE);
 * cols = 0 does nothing and accepts NULL. GS_ERR_NO_DEVICE without a CUDA
 * device (or in a build without CUDA); GS_ERR_CUDA when a CUDA call fails,
 * with the CUDA error text in gs_cuda_last_error(). Nothing ever falls back to
 * the CPU.
 *
 * Memory: the transforms work in place (NTT) or inside `d_out` (LDE) and
 * allocate no device memory per call, except that the first call on a device
 * builds its twiddle tables (about 1.1 MiB, kept for the life of the process)
 * and the first LDE with a given (shift, log_n, input kind) builds a small
 * power table of shift (at most 1 MiB, kept; up to 64 such tables per device,
 * beyond which a table is made per call with stream-ordered allocation).
 * Calls from several host threads, on several streams, are safe. */
#ifndef GSTARK_CUDA_NTT_H
#define GSTARK_CUDA_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In place, `cols` columns of 2^log_n values each (column stride 2^log_n). */
gs_status gs_cuda_ntt_forward_batch(uint64_t *d_v, size_t cols, unsigned log_n, void *stream);
gs_status gs_cuda_ntt_inverse_batch(uint64_t *d_v, size_t cols, unsigned log_n, void *stream);

/* Coset LDE of subgroup evaluations d_in (2^log_n per column) into d_out
 * (2^(log_n + log_blowup) per column); d_in is left unchanged and must not
 * overlap d_out. */
gs_status gs_cuda_lde_coset(uint64_t *d_out, const uint64_t *d_in, size_t cols, unsigned log_n,
                            unsigned log_blowup, uint64_t shift, int bitrev_out, void *stream);

/* The same from coefficients (2^log_n per column, degree < 2^log_n). */
gs_status gs_cuda_lde_coset_from_coeffs(uint64_t *d_out, const uint64_t *d_coeffs, size_t cols,
                                        unsigned log_n, unsigned log_blowup, uint64_t shift,
                                        int bitrev_out, void *stream);

/* ---- small device helpers for tests and benchmarks (plain C callers) ----
 * All act on the current device; errors as above. */

/* cudaMalloc / cudaFree. *d_ptr is NULL after a failure. */
gs_status gs_cuda_mem_alloc(void **d_ptr, size_t bytes);
gs_status gs_cuda_mem_free(void *d_ptr);

/* Synchronous copies (cudaMemcpy): host to device, device to host, device to
 * device. */
gs_status gs_cuda_mem_h2d(void *d_dst, const void *src, size_t bytes);
gs_status gs_cuda_mem_d2h(void *dst, const void *d_src, size_t bytes);
gs_status gs_cuda_mem_d2d(void *d_dst, const void *d_src, size_t bytes);

/* cudaDeviceSynchronize: waits for all queued work; reports errors that
 * kernels raised while running. */
gs_status gs_cuda_sync(void);

/* GPU-side timing with a pair of CUDA events on `stream` (NULL: default):
 * start records the first event, stop records the second, waits for it and
 * returns the elapsed milliseconds. */
typedef struct gs_cuda_timer gs_cuda_timer;
gs_status gs_cuda_timer_create(gs_cuda_timer **timer);
gs_status gs_cuda_timer_start(gs_cuda_timer *timer, void *stream);
gs_status gs_cuda_timer_stop(gs_cuda_timer *timer, void *stream, double *ms);
void gs_cuda_timer_destroy(gs_cuda_timer *timer);

/* Name and memory of the current device, for reports ("" and 0 on failure). */
gs_status gs_cuda_device_info(char *name, size_t name_len, size_t *total_bytes);

#ifdef __cplusplus
}
#endif
#endif
