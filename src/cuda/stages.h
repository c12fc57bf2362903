/* Device versions of the prover stages after the commitments (FRI fold, DEEP
 * composition, out-of-domain evaluation, proof-of-work grinding), callable
 * from C. Each computes exactly what the CPU backend computes
 * (src/backend/cpu.c: cpu_fold, cpu_deep, cpu_eval_at, cpu_grind), bit for
 * bit: field arithmetic is exact, so only the mathematics has to agree, not
 * the order of the operations. tests/test_cuda_stages.c checks it.
 *
 * All d_* are device pointers on the current device; `stream` is a
 * cudaStream_t (NULL = the legacy default stream). Layouts as in
 * src/backend/backend.h (an Fp3 column is three Fp columns c0, c1, c2).
 * Work is enqueued on `stream`; the functions that return host values
 * (eval_at, grind) synchronize the stream before returning. Temporaries are
 * stream-ordered (cudaMallocAsync / cudaFreeAsync on `stream`) and are
 * released on every path, errors included.
 *
 * Errors: GS_ERR_INVALID_ARG for a NULL pointer or a shape out of range
 * (nothing is enqueued then); GS_ERR_CUDA when a CUDA call fails, with the
 * text in gs_cuda_last_error(); GS_ERR_NO_DEVICE without a device or in a
 * build without CUDA; GS_ERR_NOMEM when a small host copy cannot be made
 * (deep). */
#ifndef GSTARK_CUDA_STAGES_H
#define GSTARK_CUDA_STAGES_H

#include "backend/backend.h" /* gs_deep_args, gs_fp, gs_fp3, gs_transcript */

#ifdef __cplusplus
extern "C" {
#endif

/* One FRI fold (cpu_fold): d_in holds 3 columns of 2^log_size over
 * shift * <w_(2^log_size)>, d_out 3 columns of 2^(log_size - 1):
 *   out[j] = (lo + hi + gamma (lo - hi) / x_j) / 2,
 *   lo = in[j], hi = in[j + H], x_j = shift w^j, H = 2^(log_size - 1).
 * 1 <= log_size <= 32; d_out must not overlap d_in. */
gs_status gs_cuda_fold(uint64_t *d_out, const uint64_t *d_in, unsigned log_size, gs_fp shift,
                       gs_fp3 gamma, void *stream);

/* The DEEP word (cpu_deep) over the LDE domain shift * <w_N>, N = 2^a->log_size
 * (<= 32): d_trace a->cols Fp columns of N, d_chunks 3 * a->chunks, d_aux
 * 3 * a->aux_cols (NULL when aux_cols is 0), d_out 3 columns of N. The
 * inputs may be NULL when their column count is 0; a->beta_pows is a host
 * array (2 * cols + chunks + 2 * aux_cols values), read during the call (a
 * private copy goes to the device). z and z w must lie outside the domain
 * (always so in the protocol); if one is inside, the CPU and the device both
 * divide by zero and their outputs may differ. */
gs_status gs_cuda_deep(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                       const uint64_t *d_aux, const gs_deep_args *a, void *stream);

/* out[c] = sum_i d_coeffs[c * len + i] x^i for c < cols (cpu_eval_at); out is
 * host memory. cols = 0 or len = 0 touch no device (len = 0 gives zeros). */
gs_status gs_cuda_eval_at(gs_fp3 *out, const uint64_t *d_coeffs, size_t cols, size_t len,
                          gs_fp3 x, void *stream);

/* gs_transcript_grind on the device: the smallest nonce whose pow hash has
 * `bits` leading zero bits, then absorbed into t as gs_transcript_grind does
 * (through gs_transcript_check_pow, which also re-checks the nonce on the
 * host). bits 0 gives nonce 0 without touching the device; bits > 64 or a
 * NULL t or nonce is GS_ERR_INVALID_ARG; GS_ERR_EXHAUSTED if no nonce below
 * 2^64 is valid. On any error t and *nonce are unchanged. */
gs_status gs_cuda_grind(gs_transcript *t, unsigned bits, uint64_t *nonce, void *stream);

#ifdef __cplusplus
}
#endif
#endif
