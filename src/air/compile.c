/* DAG -> bytecode. Nodes are created children-first, so node order is a
 * topological order. One sweep marks the nodes the outputs reach, a second
 * records each node's last use, a third emits instructions in node order and
 * allocates registers: a node's register is freed right after its last use
 * (or after its STOREs if nothing uses it), and freed registers are reused
 * lowest-first, so the register count follows the DAG's liveness. */
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"

void gs_air_program_free(gs_air_program *p) {
    free(p->insns);
    free(p->consts);
    memset(p, 0, sizeof *p);
}

typedef struct {
    uint32_t *heap; /* free registers, a min-heap */
    uint32_t n, next;
} reg_pool;

static void heap_push(reg_pool *rp, uint32_t r) {
    uint32_t i = rp->n++;
    rp->heap[i] = r;
    while (i && rp->heap[(i - 1) / 2] > rp->heap[i]) {
        uint32_t p = (i - 1) / 2, t = rp->heap[p];
        rp->heap[p] = rp->heap[i], rp->heap[i] = t;
        i = p;
    }
}

static uint32_t reg_alloc(reg_pool *rp) {
    if (!rp->n) return rp->next++;
    uint32_t r = rp->heap[0], i = 0;
    rp->heap[0] = rp->heap[--rp->n];
    for (;;) {
        uint32_t l = 2 * i + 1, s = i;
        if (l < rp->n && rp->heap[l] < rp->heap[s]) s = l;
        if (l + 1 < rp->n && rp->heap[l + 1] < rp->heap[s]) s = l + 1;
        if (s == i) break;
        uint32_t t = rp->heap[s];
        rp->heap[s] = rp->heap[i], rp->heap[i] = t;
        i = s;
    }
    return r;
}

gs_status gs_air_compile_program(const gs_air *air, gs_air_program *p, const gs_expr *outs,
                                 uint32_t n_out) {
    memset(p, 0, sizeof *p);
    uint32_t nn = air->n_nodes;
    uint8_t *live = calloc(nn + 1, 1);
    uint32_t *last = calloc(nn + 1, sizeof *last), *reg = calloc(nn + 1, sizeof *reg);
    uint32_t *first_out = malloc((nn + 1) * sizeof *first_out);
    uint32_t *next_out = malloc((n_out + 1) * sizeof *next_out);
    reg_pool rp = {malloc((nn + 1) * sizeof(uint32_t)), 0, 0};
    gs_status s = GS_ERR_NOMEM;
    if (!live || !last || !reg || !first_out || !next_out || !rp.heap) goto out;
    for (uint32_t i = 0; i < nn; i++) first_out[i] = UINT32_MAX;
    for (uint32_t k = n_out; k-- > 0;) { /* per node, its outputs in order */
        live[outs[k]] = 1;
        next_out[k] = first_out[outs[k]];
        first_out[outs[k]] = k;
    }
    uint32_t n_insns = n_out, n_consts = 0;
    for (uint32_t i = nn; i-- > 0;) {
        if (!live[i]) continue;
        const gs_air_node *n = &air->nodes[i];
        n_insns++;
        if (n->op >= GS_N_ADD) live[n->a] = 1;
        if (n->op >= GS_N_ADD && n->op != GS_N_NEG) live[n->b] = 1;
        if (n->op == GS_N_CONST) n_consts++;
    }
    for (uint32_t i = 0; i < nn; i++) {
        if (!live[i]) continue;
        const gs_air_node *n = &air->nodes[i];
        if (n->op >= GS_N_ADD) last[n->a] = i;
        if (n->op >= GS_N_ADD && n->op != GS_N_NEG) last[n->b] = i;
    }
    p->insns = malloc((n_insns + 1) * sizeof *p->insns);
    p->consts = malloc((n_consts + 1) * sizeof *p->consts);
    if (!p->insns || !p->consts) goto out;
    s = GS_ERR_AIR;
    uint32_t at = 0;
    for (uint32_t i = 0; i < nn; i++) {
        if (!live[i]) continue;
        const gs_air_node *n = &air->nodes[i];
        uint32_t r = reg_alloc(&rp);
        if (r > 0xFFFF) goto out; /* more than 65536 live values */
        reg[i] = r;
        gs_air_insn in = {0, (uint16_t)r, 0, 0};
        switch (n->op) {
        case GS_N_COL: in.op = GS_OP_LOAD_CUR, in.a = (uint16_t)n->val; break;
        case GS_N_NEXT: in.op = GS_OP_LOAD_NEXT, in.a = (uint16_t)n->val; break;
        case GS_N_PUB: in.op = GS_OP_LOAD_PUB, in.a = (uint16_t)n->val; break;
        case GS_N_CONST:
            in.op = GS_OP_LOAD_CONST;
            in.a = (uint16_t)(p->n_consts & 0xFFFF), in.b = (uint16_t)(p->n_consts >> 16);
            p->consts[p->n_consts++] = n->val;
            break;
        case GS_N_ADD: in.op = GS_OP_ADD; break;
        case GS_N_SUB: in.op = GS_OP_SUB; break;
        case GS_N_MUL: in.op = GS_OP_MUL; break;
        case GS_N_NEG: in.op = GS_OP_NEG; break;
        }
        if (n->op >= GS_N_ADD) in.a = (uint16_t)reg[n->a];
        if (n->op >= GS_N_ADD && n->op != GS_N_NEG) in.b = (uint16_t)reg[n->b];
        p->insns[at++] = in;
        for (uint32_t k = first_out[i]; k != UINT32_MAX; k = next_out[k])
            p->insns[at++] = (gs_air_insn){GS_OP_STORE, (uint16_t)k, (uint16_t)r, 0};
        /* Free operands whose last use is this node (once if a == b). */
        if (n->op >= GS_N_ADD && last[n->a] == i) heap_push(&rp, reg[n->a]);
        if (n->op >= GS_N_ADD && n->op != GS_N_NEG && n->b != n->a && last[n->b] == i)
            heap_push(&rp, reg[n->b]);
        /* A consumer comes after its operands, so last[i] == 0 means that
         * nothing uses this node: it was only stored. */
        if (last[i] == 0) heap_push(&rp, r);
    }
    p->n_insns = at;
    p->n_regs = rp.next;
    p->n_out = n_out;
    s = GS_OK;
out:
    free(live), free(last), free(reg), free(first_out), free(next_out);
    free(rp.heap);
    if (s != GS_OK) gs_air_program_free(p);
    return s;
}
