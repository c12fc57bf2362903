/* Number-theoretic transforms over Goldilocks and the coset low-degree
 * extension (LDE).
 *
 * Conventions (docs/protocol.md, "NTT and LDE"):
 * - n = 2^log_n, w_n = gs_fp_root_of_unity(log_n) (7^((p-1)/n)).
 * - Forward: natural order in and out, out[k] = sum_j v[j] * w_n^(j k):
 *   coefficients -> evaluations on <w_n>. Inverse: the exact inverse.
 * - Batches are column-major: column c of a `cols` x n matrix starts at
 *   v + c * n.
 * - LDE: from evaluations of each column on <w_n> (natural order) to its
 *   evaluations on the coset shift * <w_{nB}>, B = 2^log_blowup. With
 *   GS_ORDER_NATURAL, out[c * nB + i] = P_c(shift * w_{nB}^i); with
 *   GS_ORDER_BITREV, out[c * nB + i] = P_c(shift * w_{nB}^bitrev(i)) where
 *   bitrev reverses log_n + log_blowup bits.
 * - log_n + log_blowup <= 32 (the two-adicity); otherwise GS_ERR_INVALID_ARG.
 * - Multi-threaded (gs_parallel_for); the output never depends on the thread
 *   count. */
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
 * back: evaluations on shift * <w_n> -> coefficients. In place, batched. */
gs_status gs_ntt_forward_coset_batch(gs_fp *v, size_t cols, unsigned log_n, gs_fp shift);
gs_status gs_ntt_inverse_coset_batch(gs_fp *v, size_t cols, unsigned log_n, gs_fp shift);

/* Coset LDE of `cols` columns of subgroup evaluations `in` (2^log_n each) into
 * `out` (2^(log_n + log_blowup) each). in and out must not overlap; in is
 * left unchanged. */
gs_status gs_lde_coset(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n,
                       unsigned log_blowup, gs_fp shift, gs_order order);

/* The same from coefficients (2^log_n per column, degree < n) rather than
 * subgroup evaluations. */
gs_status gs_lde_coset_from_coeffs(gs_fp *out, const gs_fp *coeffs, size_t cols, unsigned log_n,
                                   unsigned log_blowup, gs_fp shift, gs_order order);

/* Permute each of `cols` columns of 2^log_n values into bit-reversed order
 * (an involution). */
gs_status gs_bitrev_batch(gs_fp *v, size_t cols, unsigned log_n);

#ifdef __cplusplus
}
#endif
#endif
