/* Proof objects and parameters. */
#include <stdlib.h>

#include "gstark/proof.h"
#include "proof/shape.h"

gs_params gs_params_default(unsigned security_bits) {
    gs_params p = {2, 7, 20, 0, 1};
    if (security_bits > 160) security_bits = 160;
    unsigned need = security_bits > p.grinding_bits ? security_bits - p.grinding_bits : 1;
    p.num_queries = (need + p.log_blowup - 1) / p.log_blowup;
    return p;
}

unsigned gs_params_security(const gs_params *p) {
    uint64_t bits = (uint64_t)p->num_queries * p->log_blowup + p->grinding_bits;
    return bits > 160 ? 160 : (unsigned)bits;
}

gs_status gs_params_check(const gs_params *p, unsigned min_bits) {
    gs_shape s;
    if (gs_shape_make(&s, p, 1, 1, 1) != GS_OK) return GS_ERR_PROOF_PARAMS;
    return gs_params_security(p) < min_bits ? GS_ERR_PROOF_PARAMS : GS_OK;
}

void gs_table_proof_clear(gs_table_proof *t) {
    free(t->ood_cur), free(t->ood_next), free(t->ood_chunks), free(t->fri_roots);
    free(t->final_poly), free(t->trace_rows), free(t->trace_paths), free(t->chunk_rows);
    free(t->chunk_paths), free(t->fri_rows), free(t->fri_paths);
    free(t->ood_aux_cur), free(t->ood_aux_next), free(t->aux_rows), free(t->aux_paths);
    *t = (gs_table_proof){0};
}

void gs_proof_free(gs_proof *p) {
    if (!p) return;
    gs_table_proof_clear(&p->table);
    free(p->pub);
    free(p);
}

void gs_multi_proof_free(gs_multi_proof *p) {
    if (!p) return;
    for (uint32_t i = 0; p->tables && i < p->num_tables; i++) {
        gs_table_proof_clear(&p->tables[i].table);
        free(p->tables[i].pub);
    }
    free(p->tables);
    free(p);
}
