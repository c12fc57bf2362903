/* The verifier for one AIR table. It trusts nothing in the proof: every
 * count is checked against the shape the statement implies, every value for
 * canonical form, every opening against its commitment. */
#ifndef GSTARK_VERIFIER_H
#define GSTARK_VERIFIER_H

#include "gstark/air.h"
#include "gstark/proof.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GS_OK if `proof` proves a trace satisfying `air` for the public inputs it
 * carries (callers compare those with what they expect), with parameters of
 * at least min_security_bits (0: GS_MIN_SECURITY_BITS). Otherwise the code of
 * the first failed check (GS_ERR_PROOF_*). */
gs_status gs_verify(const gs_air *air, const gs_proof *proof, unsigned min_security_bits);

/* The same for a multi-table proof: airs[i] is the AIR the verifier expects
 * for table i (order and count are part of the statement). Also checks that
 * the tables' bus sums add to zero (GS_ERR_PROOF_BUS). */
gs_status gs_verify_multi(const gs_air *const *airs, uint32_t n, const gs_multi_proof *proof,
                          unsigned min_security_bits);

#ifdef __cplusplus
}
#endif
#endif
