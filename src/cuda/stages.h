/* Device versions of the prover stages after the commitments (FRI fold, DEEP
 * composition, out-of-domain evaluation, proof-of-work grinding), callable
 * from C. Each computes exactly what the CPU backend computes
 * (src/backend/cpu.c: cpu_fold, cpu_deep, cpu_eval_at, cpu_grind), bit for
 * bit: field arithmetic is exact, so only the mathematics has to agree, not
 * the order of the operations. tests/test_cuda_stages.c checks it.
 *
 * All d_* are device pointers on the current device; `stream` is a
 * cudaStream_t (NULL = the legacy default stream). Layouts as in
 * src/backend/backend.h (an Fp3 column is three Fp columns c0, c1, c2), but
 * the arguments are plain: field elements, sizes and the structs below, and
 * src/backend/cuda.c adapts the backend's (gs_deep_args, gs_transcript).
 * Work is enqueued on `stream`; the functions that return host values
 * (eval_at, pow_search) synchronize the stream before returning. Temporaries are
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

#include <stddef.h>
#include <stdint.h>

#include "gstark/field.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A FRI layer's folds (cpu_fold): d_in holds 3 columns of 2^log_size over
 * shift * <w_(2^log_size)>, d_out 3 columns of 2^(log_size - folds); one
 * fold by 2 is
 *   out[j] = (lo + hi + gamma (lo - hi) / x_j) / 2,
 *   lo = in[j], hi = in[j + H], x_j = shift w^j, H = 2^(log_size - 1),
 * and the next one folds its output with gamma^2 over shift^2, folds times
 * in one pass (1 <= folds <= GS_CUDA_FOLD_MAX, folds <= log_size <= 32);
 * d_out must not overlap d_in. */
#define GS_CUDA_FOLD_MAX 4u
gs_status gs_cuda_fold(uint64_t *d_out, const uint64_t *d_in, unsigned log_size, unsigned folds,
                       gs_fp shift, gs_fp3 gamma, void *stream);

/* d_dst += c * d_src over rows 0..len-1 of two Fp3 words of 3 columns
 * (d_dst's columns dst_rows apart, d_src's src_rows apart; len <= both):
 * cpu_add_scaled, the shared FRI's join. The words must not overlap. */
gs_status gs_cuda_add_scaled(uint64_t *d_dst, size_t dst_rows, const uint64_t *d_src,
                             size_t src_rows, size_t len, gs_fp3 c, void *stream);

/* The DEEP composition's inputs (gs_deep_args, docs/protocol.md "DEEP"). */
typedef struct gs_cuda_deep_args {
    unsigned log_size; /* the LDE domain, N = 2^log_size */
    gs_fp shift;
    uint32_t cols, chunks, aux_cols;
    gs_fp3 z, zw;
    gs_fp3 k1, k2;           /* the constant parts at z and z w */
    const gs_fp3 *beta_pows; /* beta^k, k < 2 * cols + chunks + 2 * aux_cols */
    /* 0: d_trace holds the cols Fp columns t_c. 1: it holds 3 Fp columns
     * of N, the components of sum_c beta^c t_c (the extension of
     * gs_cuda_deep_combine's output), and the cols columns are not read. */
    int trace_combined;
} gs_cuda_deep_args;

/* d_out = the 3 Fp columns of sum_c beta_pows[c] d_in_c, c < cols (len
 * values a column, the columns len apart; d_out 3 columns of len): DEEP's
 * sum over the trace columns, taken of any linear image of them. Of the
 * coefficients it gives the sum's coefficients, whose extension a
 * trace_combined DEEP reads in place of the cols columns' (the out-of-core
 * tables, docs/gpu.md). beta_pows is a host array of cols values, read
 * during the call. cols = 0 gives zeros. */
gs_status gs_cuda_deep_combine(uint64_t *d_out, const uint64_t *d_in, size_t cols, size_t len,
                               const gs_fp3 *beta_pows, void *stream);

/* The DEEP word (cpu_deep) over the LDE domain shift * <w_N>, N = 2^a->log_size
 * (<= 32): d_trace a->cols Fp columns of N, d_chunks 3 * a->chunks, d_aux
 * 3 * a->aux_cols (NULL when aux_cols is 0), d_out 3 columns of N. The
 * inputs may be NULL when their column count is 0; a->beta_pows is a host
 * array (2 * cols + chunks + 2 * aux_cols values), read during the call (a
 * private copy goes to the device). z and z w must lie outside the domain
 * (always so in the protocol); if one is inside, the CPU and the device both
 * divide by zero and their outputs may differ. */
gs_status gs_cuda_deep_word(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                            const uint64_t *d_aux, const gs_cuda_deep_args *a, void *stream);

/* The DEEP word folded `folds` times (1..GS_CUDA_FOLD_MAX) with gamma over
 * a->shift, without the word (cpu_deep_fold): gs_cuda_fold of
 * gs_cuda_deep_word's output, bit for bit; d_out 3 columns of
 * 2^(a->log_size - folds). */
gs_status gs_cuda_deep_fold(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                            const uint64_t *d_aux, const gs_cuda_deep_args *a, unsigned folds,
                            gs_fp3 gamma, void *stream);

/* out[c] = sum_i d_coeffs[c * len + i] x^i for c < cols (cpu_eval_at); out is
 * host memory. cols = 0 or len = 0 touch no device (len = 0 gives zeros). */
gs_status gs_cuda_eval_at(gs_fp3 *out, const uint64_t *d_coeffs, size_t cols, size_t len,
                          gs_fp3 x, void *stream);

/* out[j * cols + c] = sum_i d_coeffs[c * len + i] x[j]^i for j < npts and
 * c < cols: the columns' values at base-field points (the openings of an
 * extension that is not held, src/backend/cuda.c); out and x are host
 * memory. cols = 0, npts = 0 or len = 0 touch no device (len = 0 gives
 * zeros). Synchronizes the stream. */
gs_status gs_cuda_eval_points(gs_fp *out, const uint64_t *d_coeffs, size_t cols, size_t len,
                              const gs_fp *x, size_t npts, void *stream);

/* The proof-of-work search: the smallest nonce n whose hash
 * Keccak-256(prefix || u64le(n)) (42 bytes), read big-endian, starts with
 * `bits` zero bits, 1 <= bits <= 64 (pow.c's rule). *found = 0 if no nonce
 * below 2^64 is valid. The transcript's pow hash has the prefix
 * S || 0x30 || u8 bits (include/gstark/transcript.h); the caller builds it.
 * Synchronizes the stream. GS_ERR_INVALID_ARG for a NULL pointer or bits
 * out of range. */
#define GS_CUDA_POW_PREFIX 34u
gs_status gs_cuda_pow_search(int *found, uint64_t *nonce, const uint8_t *prefix, unsigned bits,
                             void *stream);

/* Transitional: DEEP and grinding on the backend's types, defined in
 * src/backend/cuda.c (which adapts them to the functions above), declared
 * here only because tests/test_cuda_stages.c calls them through this header.
 * The structs are named by tag, never defined here: src/cuda/ does not
 * include the layers above it. To move to a backend header once the test
 * includes one.
 *
 * gs_cuda_deep: gs_cuda_deep_word on a gs_deep_args. gs_cuda_grind:
 * gs_transcript_grind on the device, the nonce then absorbed into t as
 * gs_transcript_grind does (through gs_transcript_check_pow, which also
 * re-checks it on the host: a nonce that fails is GS_ERR_CUDA). bits 0 gives
 * nonce 0 without touching the device; bits > 64 or a NULL t or nonce is
 * GS_ERR_INVALID_ARG; GS_ERR_EXHAUSTED if no nonce below 2^64 is valid. On
 * any error t and *nonce are unchanged. The device searches with Keccak-256's
 * pow hash only: a transcript of another hash is ground on the host
 * (gs_transcript_grind itself). */
struct gs_deep_args;
struct gs_transcript;
gs_status gs_cuda_deep(uint64_t *d_out, const uint64_t *d_trace, const uint64_t *d_chunks,
                       const uint64_t *d_aux, const struct gs_deep_args *a, void *stream);
gs_status gs_cuda_grind(struct gs_transcript *t, unsigned bits, uint64_t *nonce, void *stream);

#ifdef __cplusplus
}
#endif
#endif
