/* LogUp for one table (docs/protocol.md, "Buses"): the aux trace and its
 * constraints.
 *
 * With challenges z, alpha (Fp3), interaction i on row r has the fingerprint
 *   d_i = z - (bus_i + sum_k alpha^(k+1) v_(i,k))
 * and contributes sign_i * m_i / d_i (sign +1 send, -1 receive).
 * Interactions are packed into groups, in declaration order, each group as
 * long as its constraint's degree stays within the budget: the degree of the
 * table's transitions, and at least 3 (so two interactions with linear
 * multiplicity and values share a group; under a degree-4 table, three), at
 * most GS_LOGUP_MAX_GROUP. Aux columns (Fp3, each stored as three Fp
 * columns c0, c1, c2): h_g for each group g but the last (the sum of its
 * interactions' terms on the row), then the running sum S with S[0] = 0 and
 * S[r+1] = S[r] + t[r] - sigma / n, t[r] the row's terms over every group
 * and sigma = sum_r t[r], the table's bus sum, so S comes back to 0 after
 * the last row. Constraints, all on every row (divisor x^n - 1; the next
 * row of the last is the first):
 *   group g < G-1:  h_g * d_a - s_a m_a                         (one)
 *                   h_g * d_a * d_b - s_a m_a d_b - s_b m_b d_a (two)
 *                   h_g prod_i d_i - sum_i s_i m_i prod_(j != i) d_j
 *   group G-1:      the same with h = S' - S - sum_(g < G-1) h_g + sigma / n
 * Summed over the rows, S' - S cancels: sigma is the sum of every term.
 * (Until 2026-12-05 every group had its column, S was the inclusive sum,
 * with S' - S - sum_g h_g' on rows 0..n-2 and boundaries S[0] = sum_g
 * h_g[0], S[n-1] = sigma: one aux column more and three constraints.) */
#ifndef GSTARK_AIR_LOGUP_H
#define GSTARK_AIR_LOGUP_H

#include "gstark/air.h"

/* The most interactions one aux column sums (a degree-4 table packs 3
 * linear ones; the cap bounds the degree arithmetic's arrays). */
#define GS_LOGUP_MAX_GROUP 8

typedef struct gs_logup {
    uint32_t n_inters, n_groups;
    uint32_t aux_cols;        /* n_groups Fp3 columns (0 without interactions) */
    unsigned max_degree;      /* of the group constraints */
    uint32_t *group_first;    /* first interaction of each group */
    uint32_t *group_size;     /* 1 .. GS_LOGUP_MAX_GROUP */
    uint32_t *out_off;        /* per interaction: offset of m in the interaction program's outputs */
    uint32_t n_outs;          /* interaction program outputs per row */
} gs_logup;

/* The interaction program (per interaction: multiplicity, then the tuple)
 * over a block of rows, like gs_air_eval_block, and at one Fp3 point. */
gs_status gs_air_eval_inter_block(const gs_air *air, void *scratch, gs_fp *out, const gs_fp *m,
                                  size_t rows, size_t start, size_t count, const gs_fp *pub);
gs_status gs_air_eval_inter_ext(const gs_air *air, gs_fp3 *out, const gs_fp3 *cur,
                                const gs_fp *pub);

/* The layout for a finalized AIR (n_inters may be 0: no aux trace). */
gs_status gs_logup_layout(gs_logup *L, const gs_air *air);
/* GS_OK if every bus id carries tuples of one width across all interactions
 * of the n AIRs of a statement; GS_ERR_AIR otherwise (a tuple padded with
 * zeros has the fingerprint of the shorter one, so mixed widths on a bus
 * would let (v, 0) balance (v)). GS_ERR_NOMEM if memory runs out. */
gs_status gs_logup_check_widths(const gs_air *const *airs, uint32_t n);
void gs_logup_free(gs_logup *L);

/* The aux trace: 3 * aux_cols Fp columns of 2^log_n rows, column-major
 * (aux column j's c_i at column 3 j + i), and the bus sum. GS_ERR_EXHAUSTED
 * if some fingerprint is zero (z hit a tuple's fingerprint: the caller draws
 * no new challenge; the chance is about rows / 2^192). Multi-threaded; the
 * result does not depend on the thread count. */
gs_status gs_logup_aux_trace(gs_fp *aux, gs_fp3 *sigma, const gs_logup *L, const gs_air *air,
                             const gs_fp *trace, unsigned log_n, const gs_fp *pub, gs_fp3 z,
                             gs_fp3 alpha);

/* sigma / 2^log_n, the running sum's step (above). */
gs_fp3 gs_logup_sigma_n(gs_fp3 sigma, unsigned log_n);

/* Constraint values at one point, given the interaction outputs there (Fp3,
 * L->n_outs values: per interaction m then the tuple) and the aux columns on
 * the current and next row: out_groups[n_groups], each over x^n - 1.
 * alpha_pows holds alpha^0 .. alpha^GS_AIR_MAX_TUPLE, sigma_n is
 * gs_logup_sigma_n(sigma, log_n). One definition for the prover (per LDE
 * row) and the verifier (at z). */
void gs_logup_constraints(const gs_logup *L, const gs_air *air, gs_fp3 *out_groups,
                          const gs_fp3 *outs, const gs_fp3 *aux_cur, const gs_fp3 *aux_next,
                          gs_fp3 z, const gs_fp3 *alpha_pows, gs_fp3 sigma_n);

/* The same with base-field interaction outputs: output k of the row at
 * outs[k * stride] (the block interpreter's layout). Equal to
 * gs_logup_constraints on the embedded values; the prover's fast path. */
void gs_logup_constraints_fp(const gs_logup *L, const gs_air *air, gs_fp3 *out_groups,
                             const gs_fp *outs, size_t stride, const gs_fp3 *aux_cur,
                             const gs_fp3 *aux_next, gs_fp3 z, const gs_fp3 *alpha_pows,
                             gs_fp3 sigma_n);

#endif
