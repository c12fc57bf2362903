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
 * the first failed check (GS_ERR_PROOF_*). The trace's height (proof->log_n)
 * is the prover's, bound in the transcript but checked only where `air`
 * pins it (gs_air_fix_height): compare it too when the statement's meaning
 * depends on it (fib's step count is its height). */
gs_status gs_verify(const gs_air *air, const gs_proof *proof, unsigned min_security_bits);

/* The same for a multi-table proof: airs[i] is the AIR the verifier expects
 * for table i (order and count are part of the statement). Also checks that
 * the tables' bus sums add to zero (GS_ERR_PROOF_BUS). Each table's height
 * comes from the proof: it is checked only where airs[i] pins it
 * (gs_air_fix_height), so compare every table's log_n too when a table's
 * meaning depends on its height (a lookup table counting 0..n-1). */
gs_status gs_verify_multi(const gs_air *const *airs, uint32_t n, const gs_multi_proof *proof,
                          unsigned min_security_bits);

/* A preprocessed ("fixed") column: the verifier knows all its values (a
 * program or a memory image read from an ELF file). The prover commits it as
 * an ordinary main-trace column; the verifier interpolates the values and
 * refuses the proof unless the column's out-of-domain values are that
 * polynomial at z and z w (docs/protocol.md, "Preprocessed columns"). */
typedef struct gs_fixed_col {
    uint32_t table;       /* table index in the statement (0 for gs_verify_fixed) */
    uint32_t col;         /* main-trace column of that table */
    unsigned log_n;       /* the table's height is 2^log_n */
    const gs_fp *values;  /* 2^log_n canonical values; values[i] is row i (at w^i) */
} gs_fixed_col;

/* gs_verify_multi, and also checks every fixed column against the proof's
 * out-of-domain values: GS_ERR_PROOF_FIXED if they disagree,
 * GS_ERR_PROOF_STATEMENT if the table's height is not 2^log_n. A table index
 * >= n, a column >= the AIR's column count, a (table, col) named twice, NULL
 * values (or fixed NULL with num_fixed > 0), log_n > 32 or a value >= p is
 * GS_ERR_INVALID_ARG, found before any proof check. num_fixed = 0 is exactly
 * gs_verify_multi. The values must not depend on the proof: soundness needs
 * them fixed before the proof is made (or bound into its public inputs). */
gs_status gs_verify_multi_fixed(const gs_air *const *airs, uint32_t n, const gs_multi_proof *proof,
                                const gs_fixed_col *fixed, size_t num_fixed,
                                unsigned min_security_bits);

/* The same for a single-table proof (every fixed[i].table must be 0). */
gs_status gs_verify_fixed(const gs_air *air, const gs_proof *proof, const gs_fixed_col *fixed,
                          size_t num_fixed, unsigned min_security_bits);

#ifdef __cplusplus
}
#endif
#endif
