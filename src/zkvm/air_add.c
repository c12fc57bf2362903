/* The add chip for ADD, SUB and EQ (src/zkvm/zk_air.h): one row per
 * request, in request order, receiving (op, a, b, c) on ZK_BUS_ALU. These
 * are most of a typical run's ALU requests (add, addi, the address and
 * counter arithmetic, beq and bne), and they need neither the bytes nor the
 * byte lookups of the ALU chip (src/zkvm/air_alu.c, 27 columns), which keeps
 * XOR OR AND SLT SLTU.
 *
 * Columns (8):
 *   0..2  sel_ADD, sel_SUB, sel_EQ   one-hot op selectors; all zero on padding rows
 *   3, 4  a, b                       the operands as the bus names them
 *   5, 6  d_lo, d_hi                 D = d_lo + 2^16 d_hi, the result c on the bus;
 *                                    16-bit limbs on ADD and SUB rows
 *   7     t                          ADD carry, SUB borrow; EQ: 1 / (a - b), or 0 when a = b
 * real = sel_ADD + sel_SUB + sel_EQ, op = ADD sel_ADD + SUB sel_SUB + EQ sel_EQ.
 *
 * Why it is sound: senders guarantee a, b in [0, 2^32) (zk_air.h), so the
 * columns a, b are those integers; every relation below has both sides far
 * below p, so it holds over the integers.
 * - Selectors boolean, real boolean: a row is one op or padding (real = 0:
 *   the receive's multiplicity is 0). The last row, which no transition
 *   reaches, has every selector 0 (boundaries).
 * - ADD: a + b = D + 2^32 t with t boolean on ADD and SUB rows and D in
 *   [0, 2^32) (d_lo, d_hi range-checked there): both sides < 2^33, so D is
 *   (a + b) mod 2^32.
 * - SUB: a - b + 2^32 t = D: the integer a - b + 2^32 t - D lies in (-2^33,
 *   2^33) and is 0, and only one borrow puts D in [0, 2^32): D = (a - b) mod
 *   2^32.
 * - EQ: (a - b) t = 1 - D and (a - b) D = 0, D any field element there: a =
 *   b gives D = 1 from the first, a != b gives D = 0 from the second. Degree 3.
 * (Until 2026-12-05 the chip had 10 columns: c, and the carry and the
 * inverse apart.) */
#include <stdlib.h>

#include "zkvm/zk_air.h"

enum {
    C_ADD, C_SUB, C_EQ, /* selectors */
    C_A, C_B, C_DLO, C_DHI, C_T,
    C_NUM
};

#define TWO32 ((gs_fp)1 << 32)

static int handled(uint32_t op) { return op == ZK_ALU_ADD || op == ZK_ALU_SUB || op == ZK_ALU_EQ; }

static gs_expr bool_c(gs_air *air, gs_expr x) {
    return gs_air_mul(air, x, gs_air_sub(air, x, gs_air_const(air, 1)));
}

gs_air *zk_add_air(void) {
    gs_air *air = gs_air_new("zkvm-add", C_NUM, 0);
    if (!air) return NULL;
    gs_expr one = gs_air_const(air, 1), two32 = gs_air_const(air, TWO32);
    gs_expr s_add = gs_air_col(air, C_ADD), s_sub = gs_air_col(air, C_SUB), s_eq = gs_air_col(air, C_EQ);
    gs_expr real = gs_air_add(air, s_add, gs_air_add(air, s_sub, s_eq));
    gs_expr op = gs_air_add(air, gs_air_mul(air, gs_air_const(air, ZK_ALU_ADD), s_add),
                            gs_air_add(air, gs_air_mul(air, gs_air_const(air, ZK_ALU_SUB), s_sub),
                                       gs_air_mul(air, gs_air_const(air, ZK_ALU_EQ), s_eq)));
    gs_expr a = gs_air_col(air, C_A), b = gs_air_col(air, C_B), t = gs_air_col(air, C_T);
    gs_expr D = gs_air_add(air, gs_air_col(air, C_DLO), gs_air_mul(air, gs_air_const(air, 1u << 16), gs_air_col(air, C_DHI)));
    gs_expr arith = gs_air_add(air, s_add, s_sub), a_minus_b = gs_air_sub(air, a, b);

    for (uint32_t k = C_ADD; k <= C_EQ; k++) {
        gs_air_transition(air, bool_c(air, gs_air_col(air, k)));
        gs_air_boundary(air, k, -1, gs_air_const(air, 0));
    }
    gs_air_transition(air, bool_c(air, real));
    gs_air_transition(air, gs_air_mul(air, arith, bool_c(air, t)));
    /* ADD: a + b = D + 2^32 t. SUB: a - b + 2^32 t = D. */
    gs_air_transition(air, gs_air_mul(air, s_add,
                                      gs_air_sub(air, gs_air_add(air, a, b), gs_air_add(air, D, gs_air_mul(air, two32, t)))));
    gs_air_transition(air, gs_air_mul(air, s_sub,
                                      gs_air_sub(air, gs_air_add(air, a_minus_b, gs_air_mul(air, two32, t)), D)));
    /* EQ: (a - b) t = 1 - D, (a - b) D = 0. */
    gs_air_transition(air, gs_air_mul(air, s_eq, gs_air_sub(air, gs_air_mul(air, a_minus_b, t), gs_air_sub(air, one, D))));
    gs_air_transition(air, gs_air_mul(air, s_eq, gs_air_mul(air, a_minus_b, D)));

    gs_expr req[4] = {op, a, b, D};
    gs_air_receive(air, ZK_BUS_ALU, req, 4, real);
    for (uint32_t i = 0; i < 2; i++) {
        gs_expr v = gs_air_col(air, C_DLO + i);
        gs_air_send(air, ZK_BUS_RANGE, &v, 1, arith);
    }
    if (gs_air_finalize(air) != GS_OK) {
        gs_air_free(air);
        return NULL;
    }
    return air;
}

/* The chip computes c itself from (op, a, b), as the ALU chip does: its
 * trace always satisfies the constraints, and a request whose c is wrong
 * leaves the ALU bus unbalanced. */
static void add_rows(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    const zk_chip_job *j = ctx;
    gs_fp *col[C_NUM];
    for (uint32_t k = 0; k < C_NUM; k++) col[k] = zk_col(j->out, k);
    for (size_t r = begin; r < end; r++) {
        uint32_t op = j->req[r].op, a = j->req[r].a, b = j->req[r].b;
        col[C_A][r] = a, col[C_B][r] = b;
        if (op == ZK_ALU_EQ) {
            col[C_EQ][r] = 1;
            col[C_DLO][r] = a == b;
            col[C_T][r] = gs_fp_sub(a, b); /* inverted below */
            continue;
        }
        uint32_t d = op == ZK_ALU_ADD ? a + b : a - b;
        col[op == ZK_ALU_ADD ? C_ADD : C_SUB][r] = 1;
        col[C_DLO][r] = d & 0xffffu, col[C_DHI][r] = d >> 16;
        col[C_T][r] = op == ZK_ALU_ADD ? (uint32_t)(((uint64_t)a + b) >> 32) : a < b;
        zk_range16(lk, d), zk_range16(lk, d >> 16);
    }
    /* EQ: 1 / (a - b), or 0; a carry or borrow (0 or 1) is its own inverse */
    zk_inv_in_place(col[C_T] + begin, end - begin);
}

gs_status zk_add_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk) {
    return zk_chip_fill(out, C_NUM, req, n, handled, 0, lk, add_rows);
}
