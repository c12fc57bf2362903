/* What the manifest parser and the claim functions share inside src/batch/. */
#ifndef GSTARK_BATCH_INTERNAL_H
#define GSTARK_BATCH_INTERNAL_H

#include "gstark/batch.h"

/* The registered builder for `name` (copied out under the registry's lock);
 * 0 if none. */
int gs_batch_registry_get(const char *name, gs_batch_air_builder *fn, void *ctx[1]);

/* The registered names, ", "-separated, into out (for error messages). */
void gs_batch_registry_names(char *out, size_t cap);

/* A fib claim's tables: the binary digits of steps + 1 above the lowest,
 * largest first; log_n[i] for i < the returned count (at most 31). *tail is
 * 1 when steps + 1 is odd (x_steps is in no table). */
uint32_t gs_batch_fib_tables(unsigned log_n[32], int *tail, uint64_t steps);

/* x_k = M^k x_0 for the fib step F(a, b) = (b, a + b). */
void gs_batch_fib_advance(gs_fp out[2], const gs_fp start[2], uint64_t k);

/* The claim's tables, AIRs and heights, without traces: airs[i] finalized and
 * owned by the caller (gs_air_free each), at most GS_SYNTH_MAX_TABLES of them
 * (fib shares one AIR: every entry points to airs[0], free only that one;
 * *shared says so). */
typedef struct gs_batch_shapes {
    uint32_t n;
    int shared;
    gs_air *airs[GS_SYNTH_MAX_TABLES];
    unsigned log_n[GS_SYNTH_MAX_TABLES];
} gs_batch_shapes;
gs_status gs_batch_shapes_make(gs_batch_shapes *out, const gs_claim *c, char *err, size_t err_len);
void gs_batch_shapes_free(gs_batch_shapes *s);

#endif
