/* The verifiers. They trust nothing in the proof struct, whether it came from
 * the parser or from the caller (docs/protocol.md, "What the verifiers
 * check"): every count is checked against the shape the AIR and the
 * parameters imply, every array the shape needs must be present and every
 * field element in it canonical (< p), every opening must match its
 * commitment. A table without bus interactions must carry an empty LogUp
 * part: bus_sum exactly (0, 0, 0), aux_root all zero, no aux arrays. The
 * security minimum is the conjectured level (gs_params_security, at most
 * GS_MAX_SECURITY_BITS); asking for more than that cap is GS_ERR_INVALID_ARG. */
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
