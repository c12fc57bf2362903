/* The AIR's internal representation: the expression DAG, the constraint
 * lists and the two compiled programs (transitions; boundary values). */
#ifndef GSTARK_AIR_INTERNAL_H
#define GSTARK_AIR_INTERNAL_H

#include "gstark/air.h"

enum {
    GS_N_COL, GS_N_NEXT, GS_N_PUB, GS_N_CONST, GS_N_ADD, GS_N_SUB, GS_N_MUL, GS_N_NEG
};

/* Bytecode: fixed 8-byte instructions.
 *   LOAD_CUR  dst, a = column        LOAD_NEXT dst, a = column
 *   LOAD_PUB  dst, a = public index  LOAD_CONST dst, a | b << 16 = pool index
 *   ADD/SUB/MUL dst, a, b (registers) NEG dst, a
 *   STORE     dst = output index, a = register */
enum {
    GS_OP_LOAD_CUR, GS_OP_LOAD_NEXT, GS_OP_LOAD_PUB, GS_OP_LOAD_CONST,
    GS_OP_ADD, GS_OP_SUB, GS_OP_MUL, GS_OP_NEG, GS_OP_STORE
};

typedef struct gs_air_insn {
    uint16_t op, dst, a, b;
} gs_air_insn;

typedef struct gs_air_program {
    gs_air_insn *insns;
    uint32_t n_insns;
    gs_fp *consts;
    uint32_t n_consts;
    uint32_t n_regs;
    uint32_t n_out;
} gs_air_program;

typedef struct gs_air_node {
    uint8_t op;
    uint8_t uses_next; /* the expression reads the next row */
    uint16_t degree;
    uint32_t a, b;
    uint64_t val; /* column, public index or constant */
} gs_air_node;

typedef struct gs_air_bound {
    uint32_t col;
    int64_t row;
    gs_expr value;
} gs_air_bound;

typedef struct gs_air_inter {
    uint32_t bus, width;
    int sign; /* +1 send, -1 receive */
    gs_expr mult;
    gs_expr values[GS_AIR_MAX_TUPLE];
} gs_air_inter;

struct gs_air {
    char name[64];
    uint32_t num_cols, num_public;
    gs_air_node *nodes;
    uint32_t n_nodes, cap_nodes;
    uint32_t *hash; /* open addressing: node index + 1, 0 = empty */
    uint32_t hash_cap;
    gs_expr *trans;
    uint32_t n_trans, cap_trans;
    gs_air_bound *bounds;
    uint32_t n_bounds, cap_bounds;
    gs_air_inter *inters;
    uint32_t n_inters, cap_inters;
    gs_status err;
    char err_msg[160];
    int finalized;
    int fixed_log_n; /* gs_air_fix_height's log_n + 1; 0: any height */
    unsigned max_degree;
    gs_air_program prog_trans, prog_bound;
    /* Per interaction i, at output offset sum_{i' < i} (1 + width_i'):
     * the multiplicity, then the tuple's values. */
    gs_air_program prog_inter;
    gs_digest fingerprint;
};

gs_status gs_air_compile_program(const gs_air *air, gs_air_program *p, const gs_expr *outs,
                                 uint32_t n_out);
void gs_air_program_free(gs_air_program *p);


#endif
