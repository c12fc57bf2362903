/* Test hooks into the prover. Production code never sets them. */
#ifndef GSTARK_PROVER_INTERNAL_H
#define GSTARK_PROVER_INTERNAL_H

#include "gstark/air.h"
#include "gstark/proof.h"

/* Called after the out-of-domain values are computed and before they are
 * absorbed; may rewrite them (a cheating prover, for soundness tests). */
typedef void (*gs_prover_ood_hook)(const gs_air *air, const gs_proof *p, gs_table_proof *t,
                                   gs_fp3 alpha, gs_fp3 z);
extern gs_prover_ood_hook gs_prover_debug_ood;

/* If set, gs_prove_multi runs the per-table chains in this order (a
 * permutation of 0..n-1) instead of index order: proofs must not change. */
extern const uint32_t *gs_prover_debug_table_order;

#endif
