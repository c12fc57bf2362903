/* Preprocessed ("fixed") columns in the verifiers (docs/protocol.md,
 * "Preprocessed columns"): argument checks, the height check against the
 * proof, and the out-of-domain check inside a table's chain. */
#ifndef GSTARK_VERIFIER_FIXED_H
#define GSTARK_VERIFIER_FIXED_H

#include "gstark/verifier.h"

/* GS_ERR_INVALID_ARG unless every entry names a distinct (table, col) with
 * table < n, col < gs_air_num_cols(airs[table]), log_n <= 32 and 2^log_n
 * canonical values. Nothing of the proof is read. */
gs_status gs_fixed_check_args(const gs_air *const *airs, uint32_t n, const gs_fixed_col *fixed,
                              size_t num_fixed);

/* GS_ERR_PROOF_STATEMENT unless each entry's table has height 2^log_n
 * (tables[table].log_n == log_n). After gs_fixed_check_args. */
gs_status gs_fixed_check_heights(const gs_proof *tables, const gs_fixed_col *fixed,
                                 size_t num_fixed);

/* For the entries of table `table`: GS_ERR_PROOF_FIXED unless ood_cur[col]
 * and ood_next[col] of `p` are the interpolant of the values at z and zw.
 * After both checks above. */
gs_status gs_fixed_check_ood(const gs_proof *p, uint32_t table, const gs_fixed_col *fixed,
                             size_t num_fixed, gs_fp3 z, gs_fp3 zw);

#endif
