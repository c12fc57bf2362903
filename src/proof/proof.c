/* Proof objects (parameters and security levels: security.c). */
#include <stdlib.h>

#include "gstark/proof.h"
#include "proof/shape.h"

void gs_table_proof_clear(gs_table_proof *t) {
    free(t->ood_cur), free(t->ood_next), free(t->ood_chunks), free(t->fri_roots);
    free(t->final_poly), free(t->trace_rows), free(t->trace_paths), free(t->chunk_rows);
    free(t->chunk_paths), free(t->fri_rows), free(t->fri_paths), free(t->query_pos);
    free(t->ood_aux_cur), free(t->ood_aux_next), free(t->aux_rows), free(t->aux_paths);
    free(t->caps);
    *t = (gs_table_proof){0};
}

void gs_shared_fri_free(gs_shared_fri *f) {
    if (!f) return;
    free(f->caps), free(f->final_poly), free(f->query_pos), free(f->fri_rows), free(f->fri_paths);
    for (int i = 0; i < 3; i++) free(f->tree_paths[i]);
    free(f);
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
    gs_shared_fri_free(p->fri);
    free(p);
}
