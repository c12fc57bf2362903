/* Number-theoretic transforms over Goldilocks and the coset low-degree
 * extension (LDE).
 *
 * Conventions (docs/protocol.md, "NTT and LDE"):
 * - n = 2^log_n, w_n = gs_fp_root_of_unity(log_n) (7^((p-1)/n)).
 * - Forward: natural order in and out, out[k] = sum_j v[j] * w_n^(j k):
 *   coefficients -> evaluations on <w_n>. Inverse: the exact inverse,
 *   v[j] = n^-1 sum_k out[k] * w_n^(-j k).
 * - Batches are column-major: column c of a `cols` x n matrix starts at
 *   v + c * n.
 * - bitrev_b(i) reverses the b low bits of i: bit t of i becomes bit b-1-t
 *   (bitrev_0(0) = 0).
 * - LDE: from evaluations of each column on <w_n> (natural order) to its
 *   evaluations on the coset shift * <w_{nB}>, B = 2^log_blowup. P_c is the
 *   polynomial of degree < n with P_c(w_n^k) = in[c * n + k] (for
 *   gs_lde_coset_from_coeffs: P_c(X) = sum_j coeffs[c * n + j] X^j). With
 *   GS_ORDER_NATURAL, out[c * nB + i] = P_c(shift * w_{nB}^i); with
 *   GS_ORDER_BITREV, out[c * nB + i] = P_c(shift * w_{nB}^bitrev(i)) where
 *   bitrev reverses log_n + log_blowup bits.
 * - log_n + log_blowup <= 32 (the two-adicity); otherwise GS_ERR_INVALID_ARG.
 * - Multi-threaded (gs_parallel_for); the output never depends on the thread
 *   count (nor on whether the AVX-512 or the portable kernels run).
 *
 * Arguments and errors: log_n 0..32 (0: one value, every transform is the
 * identity); log_n > 32 -> GS_ERR_INVALID_ARG. A NULL pointer with cols > 0
 * -> GS_ERR_INVALID_ARG (cols = 0 does nothing and accepts NULL). Field
 * inputs must be canonical (< p); so must shift (else GS_ERR_INVALID_ARG).
 * GS_ERR_NOMEM when temporary memory cannot be allocated: the in-place
 * transforms allocate everything before touching the data, so it is then
 * unchanged; after a failed LDE the output is unspecified (the input is never
 * written). Calls on disjoint data may run concurrently from any threads.
 *
 * Memory: besides their inputs and outputs, all functions take only a
 * scratch block per thread (64 KiB for 2^20 points, 4 MiB at most) and a few
 * small tables per call; twiddles are cached per size for the life of the
 * process (1.5 MiB at most in all). */
#ifndef GSTARK_NTT_H
#define GSTARK_NTT_H

#include <stddef.h>

#include "gstark/field.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default coset shift: the multiplicative generator. */
#define GS_LDE_SHIFT ((gs_fp)GS_FP_GENERATOR)

typedef enum gs_order {
    GS_ORDER_NATURAL = 0,
    GS_ORDER_BITREV = 1
} gs_order;

gs_status gs_ntt_forward(gs_fp *v, unsigned log_n);
gs_status gs_ntt_inverse(gs_fp *v, unsigned log_n);

/* `cols` columns of 2^log_n values, column-major, in place. */
gs_status gs_ntt_forward_batch(gs_fp *v, size_t cols, unsigned log_n);
gs_status gs_ntt_inverse_batch(gs_fp *v, size_t cols, unsigned log_n);

/* Coefficients -> evaluations on the coset shift * <w_n> (natural order), and
 * back: evaluations on shift * <w_n> -> coefficients. In place, batched.
 * Forward: out[k] = sum_j v[j] (shift w_n^k)^j (shift = 0 is allowed: every
 * output is v[0]). Inverse: its inverse; shift must be nonzero. */
gs_status gs_ntt_forward_coset_batch(gs_fp *v, size_t cols, unsigned log_n, gs_fp shift);
gs_status gs_ntt_inverse_coset_batch(gs_fp *v, size_t cols, unsigned log_n, gs_fp shift);

/* Coset LDE of `cols` columns of subgroup evaluations `in` (2^log_n each) into
 * `out` (2^(log_n + log_blowup) each). in and out must not overlap
 * (GS_ERR_INVALID_ARG if they do); in is left unchanged. order must be
 * GS_ORDER_NATURAL or GS_ORDER_BITREV. */
gs_status gs_lde_coset(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n,
                       unsigned log_blowup, gs_fp shift, gs_order order);

/* The same from coefficients (2^log_n per column, degree < n) rather than
 * subgroup evaluations. */
gs_status gs_lde_coset_from_coeffs(gs_fp *out, const gs_fp *coeffs, size_t cols, unsigned log_n,
                                   unsigned log_blowup, gs_fp shift, gs_order order);

/* Evaluate interpolants at one point of Fp3 (barycentric form over the
 * subgroup, src/ntt/eval.c): for c < ncols, cols[c] holds 2^log_n values with
 * cols[c][k] at w_n^k, and out[c] = P_c(x) where P_c is the polynomial of
 * degree < n with P_c(w_n^k) = cols[c][k]. One batched inversion serves all
 * columns. x may lie in <w_n> (out[c] is then the value at that row).
 * log_n 0..32; a NULL pointer (ncols > 0), a non-canonical value or a
 * non-canonical x -> GS_ERR_INVALID_ARG; GS_ERR_NOMEM for the 2^log_n Fp3
 * weights. ncols = 0 does nothing. */
gs_status gs_ntt_eval_at(gs_fp3 *out, const gs_fp *const *cols, size_t ncols, unsigned log_n,
                         gs_fp3 x);

/* Permute each of `cols` columns of 2^log_n values into bit-reversed order
 * (an involution): v'[c * n + i] = v[c * n + bitrev_{log_n}(i)]. */
gs_status gs_bitrev_batch(gs_fp *v, size_t cols, unsigned log_n);

#ifdef __cplusplus
}
#endif
#endif
