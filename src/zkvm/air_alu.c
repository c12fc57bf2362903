/* The ALU chip for XOR OR AND SLT SLTU (src/zkvm/zk_air.h): one row per
 * request, in request order, receiving (op, a, b, c) on ZK_BUS_ALU. (Add,
 * sub and equality are the CPU row's own: src/zkvm/air_cpu.c.)
 *
 * Columns (23):
 *   0..4   sel_XOR .. sel_SLTU  one-hot op selectors (column op - ZK_ALU_XOR);
 *                             all zero on padding rows
 *   5..8   a0..a3             bytes of a, a = sum a_i 256^i
 *   9..12  b0..b3             bytes of b
 *   13..16 r0..r3             bytes of c for XOR/OR/AND; 0 on other rows
 *   17     c                  the result on the bus
 *   18, 19 d_lo, d_hi         16-bit limbs of the compare's difference d
 *   20     carry              SLT/SLTU: the answer (the difference's borrow)
 *   21, 22 sa, sb             SLT: the sign bits of a and b
 * A = sum a_i 256^i, B, R likewise, D = d_lo + 2^16 d_hi, real = sum sel.
 *
 * Why it is sound: senders guarantee a, b in [0, 2^32) (zk_air.h), so A and
 * B are the integers the bus names whatever the limbs hold; every relation
 * below has both sides far below p, so it holds over the integers. */
#include <stdlib.h>

#include "zkvm/zk_air.h"

enum {
    C_SEL = 0, /* + op - ZK_ALU_XOR */
    C_A = 5,
    C_B = 9,
    C_R = 13,
    C_C = 17,
    C_DLO = 18,
    C_DHI = 19,
    C_CARRY = 20,
    C_SA = 21,
    C_SB = 22,
    C_NUM = 23
};

#define ALU_FIRST ZK_ALU_XOR
#define ALU_LAST ZK_ALU_SLTU
#define TWO32 ((gs_fp)1 << 32)

static int handled(uint32_t op) { return op >= ALU_FIRST && op <= ALU_LAST; }

/* sum_k w_k * col(c0 + k) for k < n */
static gs_expr lin(gs_air *air, uint32_t c0, uint32_t n, gs_fp w) {
    gs_expr s = gs_air_const(air, 0), f = gs_air_const(air, 1);
    for (uint32_t k = 0; k < n; k++) {
        s = gs_air_add(air, s, gs_air_mul(air, f, gs_air_col(air, c0 + k)));
        f = gs_air_mul(air, f, gs_air_const(air, w));
    }
    return s;
}

static gs_expr bool_c(gs_air *air, gs_expr x) {
    return gs_air_mul(air, x, gs_air_sub(air, x, gs_air_const(air, 1)));
}

gs_air *zk_alu_air(void) {
    gs_air *air = gs_air_new("zkvm-alu", C_NUM, 0);
    if (!air) return NULL;
    gs_expr sel[ALU_LAST + 1], two32 = gs_air_const(air, TWO32);
    gs_expr real = gs_air_const(air, 0), op = gs_air_const(air, 0);
    for (uint32_t k = ALU_FIRST; k <= ALU_LAST; k++) {
        sel[k] = gs_air_col(air, C_SEL + k - ALU_FIRST);
        real = gs_air_add(air, real, sel[k]);
        op = gs_air_add(air, op, gs_air_mul(air, gs_air_const(air, k), sel[k]));
    }
    gs_expr A = lin(air, C_A, 4, 256), B = lin(air, C_B, 4, 256), R = lin(air, C_R, 4, 256);
    gs_expr c = gs_air_col(air, C_C), carry = gs_air_col(air, C_CARRY);
    gs_expr D = lin(air, C_DLO, 2, 1u << 16);
    gs_expr sa = gs_air_col(air, C_SA), sb = gs_air_col(air, C_SB);
    gs_expr bitwise = gs_air_add(air, sel[ZK_ALU_XOR], gs_air_add(air, sel[ZK_ALU_OR], sel[ZK_ALU_AND]));
    gs_expr cmp = gs_air_add(air, sel[ZK_ALU_SLT], sel[ZK_ALU_SLTU]);
    gs_expr A_minus_B = gs_air_sub(air, A, B);

    /* Selectors: each boolean and at most one set, so a row is one op
     * (real = 1) or padding (real = 0, every multiplicity below 0). The
     * relations are gated by their op's selector. Degree 2. */
    for (uint32_t k = ALU_FIRST; k <= ALU_LAST; k++) gs_air_transition(air, bool_c(air, sel[k]));
    gs_air_transition(air, bool_c(air, real));
    /* Transition constraints do not reach the last row: it must be padding
     * (every selector 0 there), or its request would go unchecked. */
    for (uint32_t k = ALU_FIRST; k <= ALU_LAST; k++)
        gs_air_boundary(air, C_SEL + k - ALU_FIRST, -1, gs_air_const(air, 0));
    gs_air_transition(air, bool_c(air, carry));
    gs_air_transition(air, bool_c(air, sa));
    gs_air_transition(air, bool_c(air, sb));

    /* The compare's difference d: d_lo, d_hi are looked up in the range
     * table on SLT and SLTU rows, so D is in [0, 2^32). SLTU: A - B + 2^32
     * carry = D with carry = c: the integer A - B + 2^32 c - D lies in
     * (-2^33, 2^33) and is 0; D >= 0 forces c = 1 when a < b, D < 2^32
     * forces c = 0 when a >= b. Degree 2. */
    gs_expr sub_rel = gs_air_sub(air, gs_air_add(air, A_minus_B, gs_air_mul(air, two32, carry)), D);
    gs_air_transition(air, gs_air_mul(air, sel[ZK_ALU_SLTU], sub_rel));
    gs_air_transition(air, gs_air_mul(air, cmp, gs_air_sub(air, c, carry)));

    /* SLT compares a' = a xor 2^31 = A + 2^31 - 2^32 sa with b' the same way
     * (signed order is the unsigned order of the flipped words), so as SLTU:
     * A - B + 2^32 (carry - sa + sb) = D. sa must be a's top bit: on SLT rows
     * a_i, b_i are looked up as bytes (RANGE, a_i, b_i, 0), which with
     * A < 2^32 makes a3 a's top byte, and (RANGE, 2 a3 - 256 sa, 2 b3 -
     * 256 sb, 0) with sa boolean and a3 in [0, 256) holds only for sa =
     * [a3 >= 128] (sa = 0: 2 a3 < 256; sa = 1: 0 <= 2 a3 - 256). Degree 2. */
    gs_expr flip = gs_air_mul(air, two32, gs_air_sub(air, sb, sa));
    gs_air_transition(air, gs_air_mul(air, sel[ZK_ALU_SLT], gs_air_add(air, sub_rel, flip)));

    /* XOR/OR/AND: (op, a_i, b_i, r_i) in the byte table for i = 0..3 makes
     * a_i, b_i bytes (so a_i, b_i are a's and b's bytes) and r_i = a_i op b_i,
     * and c = R. The same four lookups are the byte checks of SLT (op
     * RANGE, r_i = 0 there). Degree 2 for c = R; the lookups' tuples and
     * multiplicities are linear. */
    gs_air_transition(air, gs_air_mul(air, bitwise, gs_air_sub(air, c, R)));
    gs_expr bop = gs_air_add(air,
                             gs_air_add(air, gs_air_mul(air, gs_air_const(air, ZK_BYTE_AND), sel[ZK_ALU_AND]),
                                        gs_air_mul(air, gs_air_const(air, ZK_BYTE_OR), sel[ZK_ALU_OR])),
                             gs_air_add(air, gs_air_mul(air, gs_air_const(air, ZK_BYTE_XOR), sel[ZK_ALU_XOR]),
                                        gs_air_mul(air, gs_air_const(air, ZK_BYTE_RANGE), sel[ZK_ALU_SLT])));
    gs_expr byte_mult = gs_air_add(air, bitwise, sel[ZK_ALU_SLT]);

    /* Interactions: the request, then the lookups. */
    gs_expr req[4] = {op, A, B, c};
    gs_air_receive(air, ZK_BUS_ALU, req, 4, real);
    for (uint32_t i = 0; i < 4; i++) {
        gs_expr t[4] = {bop, gs_air_col(air, C_A + i), gs_air_col(air, C_B + i), gs_air_col(air, C_R + i)};
        gs_air_send(air, ZK_BUS_BYTE, t, 4, byte_mult);
    }
    gs_expr d_mult = cmp;
    for (uint32_t i = 0; i < 2; i++) {
        gs_expr v = gs_air_col(air, C_DLO + i);
        gs_air_send(air, ZK_BUS_RANGE, &v, 1, d_mult);
    }
    gs_expr k256 = gs_air_const(air, 256), two = gs_air_const(air, 2);
    gs_expr sign[4] = {
        gs_air_const(air, ZK_BYTE_RANGE),
        gs_air_sub(air, gs_air_mul(air, two, gs_air_col(air, C_A + 3)), gs_air_mul(air, k256, sa)),
        gs_air_sub(air, gs_air_mul(air, two, gs_air_col(air, C_B + 3)), gs_air_mul(air, k256, sb)),
        gs_air_const(air, 0)};
    gs_air_send(air, ZK_BUS_BYTE, sign, 4, sel[ZK_ALU_SLT]);

    if (gs_air_finalize(air) != GS_OK) {
        gs_air_free(air);
        return NULL;
    }
    return air;
}

/* The chip computes c itself from (op, a, b): its trace always satisfies
 * the constraints, and a request whose c is wrong leaves the ALU bus
 * unbalanced. Rows are filled in parallel parts (zk_parallel_lookups). */
/* Rows go out in blocks (zk_fill_blocks): a zero is never written to the
 * table, so a column that stays 0 costs no page faults. */
_Static_assert(C_NUM <= ZK_BLOCK_COLS, "a zk_block holds every column");
#define SET(c, v) zk_set(blk, (c), r, (v))

static void alu_row(zk_block *blk, const void *ctx, size_t r, zk_lookups *lk) {
    const zk_chip_job *j = ctx;
    uint32_t op = j->req[r].op, a = j->req[r].a, b = j->req[r].b;
    uint32_t c = zk_alu_ref(op, a, b), d = 0, carry = 0;
    SET(C_SEL + op - ALU_FIRST, 1);
    for (uint32_t k = 0; k < 4; k++) {
        SET(C_A + k, (a >> (8 * k)) & 0xffu);
        SET(C_B + k, (b >> (8 * k)) & 0xffu);
    }
    SET(C_C, c);
    switch (op) {
    case ZK_ALU_SLTU: d = a - b, carry = c; break;
    case ZK_ALU_SLT: {
        uint32_t sa = a >> 31, sb = b >> 31;
        d = (a ^ 0x80000000u) - (b ^ 0x80000000u), carry = c;
        SET(C_SA, sa);
        SET(C_SB, sb);
        for (uint32_t k = 0; k < 4; k++) zk_byte(lk, ZK_BYTE_RANGE, a >> (8 * k), b >> (8 * k));
        zk_byte(lk, ZK_BYTE_RANGE, 2 * (a >> 24) - 256 * sa, 2 * (b >> 24) - 256 * sb);
        break;
    }
    default: { /* XOR OR AND */
        unsigned bop = op == ZK_ALU_AND ? ZK_BYTE_AND : op == ZK_ALU_OR ? ZK_BYTE_OR : ZK_BYTE_XOR;
        for (uint32_t k = 0; k < 4; k++) {
            SET(C_R + k, (c >> (8 * k)) & 0xffu);
            zk_byte(lk, bop, a >> (8 * k), b >> (8 * k));
        }
    }
    }
    if (op == ZK_ALU_SLT || op == ZK_ALU_SLTU) {
        SET(C_DLO, d & 0xffffu);
        SET(C_DHI, d >> 16);
        zk_range16(lk, d), zk_range16(lk, d >> 16);
    }
    SET(C_CARRY, carry);
}

static void alu_rows(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    zk_fill_blocks(((const zk_chip_job *)ctx)->out, C_NUM, begin, end, alu_row, ctx, lk);
}

#undef SET

gs_status zk_alu_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk) {
    return zk_chip_fill(out, C_NUM, req, n, handled, 0, lk, alu_rows);
}
