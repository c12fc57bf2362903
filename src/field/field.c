/* Bulk field helpers: batch inversion with Montgomery's trick.
 *
 * Each thread inverts a contiguous chunk with one field inversion: prefix
 * products of the nonzero inputs, one inverse of the total, then a backward
 * sweep. Zeros are skipped (they map to zero and are left out of the
 * products), so one zero does not zero out the whole chunk. The inverse of a
 * nonzero element is unique, so the output never depends on the chunking. */
#include <stdlib.h>

#include "gstark/field.h"
#include "gstark/parallel.h"

#define BATCH_INV_GRAIN 4096

typedef struct {
    void *out;
    const void *in;
    void *scratch;
} batch_inv_job;

static void fp_inv_range(void *ctx, size_t b, size_t e) {
    batch_inv_job *j = ctx;
    gs_fp *out = j->out, *pre = j->scratch;
    const gs_fp *in = j->in;
    gs_fp acc = 1;
    for (size_t i = b; i < e; i++) {
        pre[i] = acc; /* product of the nonzero in[b..i) */
        if (in[i]) acc = gs_fp_mul(acc, in[i]);
    }
    gs_fp inv = gs_fp_inv(acc); /* inverse of the product of the nonzero in[b..e) */
    for (size_t i = e; i-- > b;) {
        gs_fp x = in[i];
        if (!x) {
            out[i] = 0;
            continue;
        }
        out[i] = gs_fp_mul(inv, pre[i]);
        inv = gs_fp_mul(inv, x);
    }
}

static void fp3_inv_range(void *ctx, size_t b, size_t e) {
    batch_inv_job *j = ctx;
    gs_fp3 *out = j->out, *pre = j->scratch;
    const gs_fp3 *in = j->in;
    gs_fp3 acc = gs_fp3_one();
    for (size_t i = b; i < e; i++) {
        pre[i] = acc;
        if (!gs_fp3_is_zero(in[i])) acc = gs_fp3_mul(acc, in[i]);
    }
    gs_fp3 inv = gs_fp3_inv(acc);
    for (size_t i = e; i-- > b;) {
        gs_fp3 x = in[i];
        if (gs_fp3_is_zero(x)) {
            out[i] = x;
            continue;
        }
        out[i] = gs_fp3_mul(inv, pre[i]);
        inv = gs_fp3_mul(inv, x);
    }
}

static gs_status batch_inv(void *out, const void *in, size_t n, size_t elem, gs_range_fn fn) {
    if (n == 0) return GS_OK;
    if (!out || !in) return GS_ERR_INVALID_ARG;
    /* The backward sweep reads in[i] after writing out[i+1..], so prefix
     * products live in scratch, which also makes out == in safe. */
    void *scratch = malloc(n * elem);
    if (!scratch) return GS_ERR_NOMEM;
    batch_inv_job j = {out, in, scratch};
    gs_parallel_for(n, BATCH_INV_GRAIN, fn, &j);
    free(scratch);
    return GS_OK;
}

gs_status gs_fp_batch_inv(gs_fp *out, const gs_fp *in, size_t n) {
    return batch_inv(out, in, n, sizeof(gs_fp), fp_inv_range);
}

gs_status gs_fp3_batch_inv(gs_fp3 *out, const gs_fp3 *in, size_t n) {
    return batch_inv(out, in, n, sizeof(gs_fp3), fp3_inv_range);
}

void gs_fp3_powers(gs_fp3 *out, gs_fp3 x, size_t n) {
    gs_fp3 a = gs_fp3_one();
    for (size_t i = 0; i < n; i++) out[i] = a, a = gs_fp3_mul(a, x);
}
