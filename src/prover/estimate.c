/* Per-table memory estimates: the formulas, in one place. They mirror what
 * prover.c allocates through the backend (charged bytes); every buffer is
 * counted as if none were freed before the table's proof ends, so each is an
 * upper bound of the measured peak (tests/test_estimate.c). */
#include "air/logup.h"
#include "gstark/merkle.h"
#include "gstark/prover.h"
#include "proof/shape.h"

gs_status gs_estimate_table(gs_mem_estimate *out, const gs_air *air, unsigned log_n,
                            const gs_params *params) {
    if (!out || !air) return GS_ERR_INVALID_ARG;
    gs_shape s;
    GS_TRY(gs_shape_make(&s, params, log_n, gs_air_num_cols(air), gs_air_num_chunks(air)));
    gs_logup L;
    GS_TRY(gs_logup_layout(&L, air));
    size_t A = L.aux_cols;
    gs_logup_free(&L);
    size_t n = (size_t)1 << s.log_n, N = (size_t)1 << s.log_size, fp = sizeof(gs_fp);
    size_t tree = gs_merkle_tree_bytes(s.log_size);
    size_t C = s.cols, K = s.chunks;
    out->main_commit = C * n * fp + C * N * fp + tree; /* coefficients, LDE, tree */
    size_t chain = 0;
    if (A) chain += 3 * A * n * fp + 3 * A * N * fp + tree; /* aux trace, LDE, tree */
    chain += 3 * N * fp;                                  /* quotient on the LDE domain */
    chain += 3 * K * n * fp + 3 * K * N * fp + tree;      /* chunks, their LDE and tree */
    size_t size = N;                                      /* DEEP word and FRI layers */
    for (uint32_t l = 0; l <= s.layers; l++, size /= 2) {
        chain += 3 * size * fp;
        if (l < s.layers) chain += gs_merkle_tree_bytes(s.log_size - 1 - l);
    }
    out->chain = chain;
    out->total = out->main_commit + chain;
    return GS_OK;
}
