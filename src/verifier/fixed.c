/* Preprocessed columns: the verifier knows a column's 2^log_n values, so it
 * knows the polynomial P of degree < n the honest prover committed, and
 * refuses a proof whose out-of-domain values of that column are not P(z) and
 * P(z w). DEEP binds the committed column to those values, and z is drawn
 * after the commitment, so a different column passes with probability at
 * most (n - 1) / |Fp3| per list element (docs/protocol.md, "Preprocessed
 * columns"). The values are evaluated with gs_ntt_eval_at (barycentric form,
 * one batched inversion per point for all of a table's fixed columns). */
#include <stdlib.h>

#include "gstark/ntt.h"
#include "verifier/fixed.h"

gs_status gs_fixed_check_args(const gs_air *const *airs, uint32_t n, const gs_fixed_col *fixed,
                              size_t num_fixed) {
    if (num_fixed && !fixed) return GS_ERR_INVALID_ARG;
    for (size_t i = 0; i < num_fixed; i++) {
        const gs_fixed_col *f = &fixed[i];
        if (f->table >= n || !airs[f->table] || f->col >= gs_air_num_cols(airs[f->table]) ||
            f->log_n > GS_FP_TWO_ADICITY || !f->values)
            return GS_ERR_INVALID_ARG;
        for (size_t j = 0; j < i; j++)
            if (fixed[j].table == f->table && fixed[j].col == f->col) return GS_ERR_INVALID_ARG;
        size_t rows = (size_t)1 << f->log_n;
        for (size_t k = 0; k < rows; k++)
            if (f->values[k] >= GS_FP_P) return GS_ERR_INVALID_ARG;
    }
    return GS_OK;
}

gs_status gs_fixed_check_heights(const gs_proof *tables, const gs_fixed_col *fixed,
                                 size_t num_fixed) {
    for (size_t i = 0; i < num_fixed; i++)
        if (tables[fixed[i].table].log_n != fixed[i].log_n) return GS_ERR_PROOF_STATEMENT;
    return GS_OK;
}

gs_status gs_fixed_check_ood(const gs_proof *p, uint32_t table, const gs_fixed_col *fixed,
                             size_t num_fixed, gs_fp3 z, gs_fp3 zw) {
    size_t k = 0;
    for (size_t i = 0; i < num_fixed; i++) k += fixed[i].table == table;
    if (!k) return GS_OK;
    const gs_fp **cols = malloc(k * sizeof *cols);
    uint32_t *idx = malloc(k * sizeof *idx);
    gs_fp3 *at_z = malloc(2 * k * sizeof *at_z), *at_zw = at_z ? at_z + k : NULL;
    gs_status r = cols && idx && at_z ? GS_OK : GS_ERR_NOMEM;
    for (size_t i = 0, j = 0; r == GS_OK && i < num_fixed; i++)
        if (fixed[i].table == table) cols[j] = fixed[i].values, idx[j++] = fixed[i].col;
    /* Every entry of this table has log_n == p->log_n (gs_fixed_check_heights). */
    if (r == GS_OK) r = gs_ntt_eval_at(at_z, cols, k, p->log_n, z);
    if (r == GS_OK) r = gs_ntt_eval_at(at_zw, cols, k, p->log_n, zw);
    for (size_t j = 0; r == GS_OK && j < k; j++)
        if (!gs_fp3_eq(p->table.ood_cur[idx[j]], at_z[j]) || !gs_fp3_eq(p->table.ood_next[idx[j]], at_zw[j]))
            r = GS_ERR_PROOF_FIXED;
    free(cols), free(idx), free(at_z);
    return r;
}
