/* The composition of an AIR's constraints at an out-of-domain point: what
 * the verifier checks the quotient's chunks against, and what the prover
 * states as a one-chunk quotient's value there (src/verifier/verifier.c,
 * src/prover/prover.c; docs/protocol.md, "Out-of-domain check"). */
#ifndef GSTARK_AIR_OOD_H
#define GSTARK_AIR_OOD_H

#include "gstark/air.h"
#include "gstark/field.h"
#include "gstark/status.h"

/* A table's values at z and z w, and its LogUp challenges. */
typedef struct {
    const gs_fp3 *cur, *next;         /* the trace columns */
    const gs_fp3 *aux_cur, *aux_next; /* the aux columns (read only when the AIR has buses) */
    gs_fp3 bus_sum;                   /* the table's LogUp sum */
    gs_fp3 bus_z, bus_alpha;          /* the statement's LogUp challenges */
} gs_ood_values;

/* sum_k alpha^k C_k(z) / Z_k(z) over, in this order: the transition
 * constraints at (cur, next) over (z^n - 1) / (z - w^(n-1)); the boundary
 * constraints (cur[col] - value) over z - w^row; with buses, the LogUp
 * groups over z^n - 1 (air/logup.h). For a trace that
 * satisfies the AIR this is the quotient's value at z, sum_j z^(jn) Q_j(z).
 * z^n != 1 and z is no w^row (gs_draw_ood_point's rule). GS_ERR_NOMEM, or
 * the AIR's evaluation errors. */
gs_status gs_air_ood_composition(const gs_air *air, unsigned log_n, const gs_fp *pub,
                                 const gs_ood_values *v, gs_fp3 alpha, gs_fp3 z, gs_fp3 *total);

#endif
