/* The provable-security computation, open to tests (docs/protocol.md,
 * "Security"): the log2 of one table's soundness error, and the bounds on
 * what a proof does not carry (constraint count, degree, bus terms). */
#ifndef GSTARK_PROOF_SECURITY_H
#define GSTARK_PROOF_SECURITY_H

#include "gstark/proof.h"

/* Bounds from the types, so they hold for every AIR: transition and
 * boundary constraints are two uint32 counts (< 2^33 terms); interactions a
 * uint32 count of tuples of at most GS_AIR_MAX_TUPLE + 1 < 2^5 terms; the
 * degree is checked to be <= blowup + 1 <= 65. */
#define GS_SEC_LOG2_MAX_CONSTRAINTS 33.0
#define GS_SEC_LOG2_MAX_BUS_TERMS 37.0
#define GS_SEC_MAX_DEGREE 128u

/* log2 of the soundness error of one table's chain (negative); the best over
 * the proximity parameter m in 3..4096. 0.0 if the shape is out of range or
 * num_polys is 0. */
double gs_security_table_log2_error(const gs_params *p, unsigned log_n, uint32_t num_polys);

/* log2 of the soundness error of a shared-FRI proof (gs_params.shared_fri)
 * of n tables of heights log_n[t] batching num_polys[t] words each: every
 * table's chain up to its DEEP word, one line per table joining the FRI
 * after the first, the shared FRI's layers (on the largest LDE domain) and
 * one query phase; the best over m in 3..4096. 0.0 if a shape is out of
 * range, a count is 0 or n is 0. */
double gs_security_shared_log2_error(const gs_params *p, const uint32_t *log_n, const uint32_t *num_polys,
                                     uint32_t n);

/* log2(2^a + 2^b) without leaving the log domain (terms reach 2^-3000):
 * the union bound's sum of two errors given as log2. */
double gs_security_log2_add(double a, double b);

#endif
