/* The program table and the CPU table (docs/zkvm.md, "The AIR").
 *
 * The program table holds one row per instruction slot of the text, built
 * from the program alone: (pc, op, rd, rs1, rs2, imm, flags), all fixed
 * columns (the verifier builds them and checks the proof's openings of them:
 * gs_verify_multi_fixed), and a multiplicity column: how often the CPU
 * executed the slot. A slot that faults (an illegal word, a gap in the text)
 * has flags 0, and so has every padding row: a CPU row must carry exactly
 * one kind flag, so it cannot execute them.
 *
 * The CPU table has one row per cycle (clk = clk0 + 1, clk0 + 2, ...; the
 * memory's initial tuples have timestamp 4 clk0), then padding rows (active = 0; at least one, so
 * the run's last instruction is never the table's last row and every
 * transition constraint reaches it). */
#include <stdlib.h>
#include <string.h>

#include "zkvm/zk_air.h"
#include "zkvm/zk_cpu.h"
#include "zkvm/zkvm_int.h"

/* ---- the program's rows ---- */

static uint32_t branch_alu(unsigned op, int *neg) {
    *neg = op == ZK_BNE || op == ZK_BGE || op == ZK_BGEU;
    switch (op) {
    case ZK_BEQ: case ZK_BNE: return ZK_ALU_EQ;
    case ZK_BLT: case ZK_BGE: return ZK_ALU_SLT;
    default: return ZK_ALU_SLTU;
    }
}

static uint32_t alu_of(unsigned op) {
    switch (op) {
    case ZK_ADDI: case ZK_ADD: return ZK_ALU_ADD;
    case ZK_SUB: return ZK_ALU_SUB;
    case ZK_XORI: case ZK_XOR: return ZK_ALU_XOR;
    case ZK_ORI: case ZK_OR: return ZK_ALU_OR;
    case ZK_ANDI: case ZK_AND: return ZK_ALU_AND;
    case ZK_SLTI: case ZK_SLT: return ZK_ALU_SLT;
    case ZK_SLTIU: case ZK_SLTU: return ZK_ALU_SLTU;
    case ZK_SLLI: case ZK_SLL: return ZK_ALU_SLL;
    case ZK_SRLI: case ZK_SRL: return ZK_ALU_SRL;
    case ZK_SRAI: case ZK_SRA: return ZK_ALU_SRA;
    case ZK_MUL: return ZK_ALU_MUL;
    case ZK_MULH: return ZK_ALU_MULH;
    case ZK_MULHSU: return ZK_ALU_MULHSU;
    case ZK_MULHU: return ZK_ALU_MULHU;
    case ZK_DIV: return ZK_ALU_DIV;
    case ZK_DIVU: return ZK_ALU_DIVU;
    case ZK_REM: return ZK_ALU_REM;
    case ZK_REMU: return ZK_ALU_REMU;
    default: return 0;
    }
}

void zk_prog_row(zk_prog_row_t *r, const gs_zkvm_program *p, uint32_t slot) {
    memset(r, 0, sizeof *r);
    uint32_t pc = p->text_lo + 4 * slot, w = p->words[slot];
    zk_insn d = p->code[slot];
    unsigned op = d.op;
    r->pc = pc;
    if (op >= ZK_BAD) return; /* faults: flags 0, nothing can execute it */
    r->rd = d.rd == ZK_SINK ? 0 : d.rd;
    r->rs1 = d.rs1, r->rs2 = d.rs2;
    int writes = 1;
    if (op == ZK_LUI) {
        r->flags = ZK_F_LUI, r->imm = (uint32_t)d.imm;
    } else if (op == ZK_JAL) { /* to x0 + the target */
        r->flags = ZK_F_JUMP, r->rs1 = 0, r->imm = gs_zkvm_jump_target(w, pc);
    } else if (op == ZK_JALR) {
        r->flags = ZK_F_JUMP, r->imm = (uint32_t)d.imm;
    } else if (op == ZK_FENCE) { /* a jump to the next slot */
        r->flags = ZK_F_JUMP, r->rs1 = 0, r->imm = pc + 4, writes = 0;
    } else if (op >= ZK_BEQ && op <= ZK_BGEU) {
        int neg;
        r->op = branch_alu(op, &neg);
        r->flags = (r->op == ZK_ALU_EQ ? ZK_F_BEQ : ZK_F_BRANCH) | (neg ? ZK_F_NEG : 0u);
        r->imm = gs_zkvm_jump_target(w, pc) - pc;
        writes = 0;
    } else if (op >= ZK_LB && op <= ZK_LHU) {
        static const uint8_t ls[5] = {ZK_LS_LB, ZK_LS_LH, ZK_LS_LW, ZK_LS_LBU, ZK_LS_LHU};
        r->op = ls[op - ZK_LB], r->flags = ZK_F_LOAD, r->imm = (uint32_t)d.imm;
    } else if (op >= ZK_SB && op <= ZK_SW) {
        r->op = (uint32_t)(ZK_LS_SB + (op - ZK_SB)), r->flags = ZK_F_STORE;
        r->imm = (uint32_t)d.imm;
        writes = 0;
    } else if ((op >= ZK_ADDI && op <= ZK_SRAI) || (op >= ZK_ADD && op <= ZK_REMU)) {
        /* the immediate form reads x0 as rs2, the register form has imm 0:
         * the second operand is b + imm in both */
        if (op <= ZK_SRAI) r->rs2 = 0, r->imm = (uint32_t)d.imm;
        else r->imm = 0;
        r->op = alu_of(op);
        if (r->op == ZK_ALU_ADD) r->flags = ZK_F_ADD;
        else if (r->op == ZK_ALU_SUB) r->flags = ZK_F_ADD | ZK_F_NEG;
        else r->flags = ZK_F_ALU;
    } else if (op == ZK_ECALL) {
        /* reads a7 (the call) and a0, writes a0 (the exit code back for exit) */
        r->flags = ZK_F_ECALL, r->rs1 = 17, r->rs2 = 10, r->rd = 10;
    }
    if (writes && r->rd != 0) r->flags |= ZK_F_WR;
}

/* imm as the field element the constraints use: branches add it to the pc
 * as a signed offset, everything else is a 32-bit value. */
gs_fp zk_prog_imm_fp(const zk_prog_row_t *r) {
    if (r->flags & (ZK_F_BRANCH | ZK_F_BEQ)) {
        int32_t off = (int32_t)r->imm;
        return off < 0 ? gs_fp_neg(gs_fp_from_u64((uint64_t)(-(int64_t)off)))
                       : gs_fp_from_u64((uint64_t)off);
    }
    return gs_fp_from_u64(r->imm);
}

/* ---- the program table ---- */

enum { P_PC, P_OP, P_RD, P_RS1, P_RS2, P_IMM, P_FLAGS, P_MULT, P_COLS };

gs_air *zk_prog_air(void) {
    gs_air *a = gs_air_new("zkvm-program", P_COLS, 0);
    if (!a) return NULL;
    gs_expr v[7];
    for (uint32_t c = 0; c < 7; c++) v[c] = gs_air_col(a, c);
    gs_air_send(a, ZK_BUS_PROG, v, 7, gs_air_col(a, P_MULT));
    if (gs_air_finalize(a) != GS_OK) {
        gs_air_free(a);
        return NULL;
    }
    return a;
}

gs_status zk_prog_fill(zk_table *out, const gs_zkvm_program *p, const uint32_t *counts) {
    GS_TRY(zk_table_alloc(out, P_COLS, p->n));
    for (uint32_t s = 0; s < p->n; s++) {
        zk_prog_row_t r;
        zk_prog_row(&r, p, s);
        zk_col(out, P_PC)[s] = gs_fp_from_u64(r.pc);
        zk_col(out, P_OP)[s] = gs_fp_from_u64(r.op);
        zk_col(out, P_RD)[s] = gs_fp_from_u64(r.rd);
        zk_col(out, P_RS1)[s] = gs_fp_from_u64(r.rs1);
        zk_col(out, P_RS2)[s] = gs_fp_from_u64(r.rs2);
        zk_col(out, P_IMM)[s] = zk_prog_imm_fp(&r);
        zk_col(out, P_FLAGS)[s] = gs_fp_from_u64(r.flags);
        zk_col(out, P_MULT)[s] = gs_fp_from_u64(counts ? counts[s] : 0);
    }
    return GS_OK;
}

/* ---- the CPU table ---- */

gs_air *zk_cpu_air(void) {
    gs_air *a = gs_air_new("zkvm-cpu", CPU_COLS, ZK_CPU_NUM_PUBLIC);
    if (!a) return NULL;
#define COL(c) gs_air_col(a, (c))
#define NXT(c) gs_air_next(a, (c))
#define K(v) gs_air_const(a, gs_fp_from_u64(v))
#define ADD(x, y) gs_air_add(a, (x), (y))
#define SUB(x, y) gs_air_sub(a, (x), (y))
#define MUL(x, y) gs_air_mul(a, (x), (y))
#define F(bit) COL(CPU_F0 + (bit))
    gs_expr one = K(1), four = K(4), two32 = K((uint64_t)1 << 32), active = COL(CPU_ACTIVE);
    gs_expr f_alu = F(ZK_FB_ALU), f_add = F(ZK_FB_ADD), f_load = F(ZK_FB_LOAD),
            f_store = F(ZK_FB_STORE), f_branch = F(ZK_FB_BRANCH), f_beq = F(ZK_FB_BEQ),
            f_jump = F(ZK_FB_JUMP), f_lui = F(ZK_FB_LUI), f_wr = F(ZK_FB_WR), f_neg = F(ZK_FB_NEG);
    gs_expr e_exit = COL(CPU_E_EXIT), e_read = COL(CPU_E_READ), e_write = COL(CPU_E_WRITE);
    gs_expr pc = COL(CPU_PC), imm = COL(CPU_IMM), clk = COL(CPU_CLK);
    gs_expr va = COL(CPU_A), vb = COL(CPU_B), vc = COL(CPU_C), ch = COL(CPU_CH), t = COL(CPU_T);

    /* Booleans: the flag columns and the three system calls. The kinds
     * (the calls standing for ECALL) sum to active, so at most one is set
     * and padding rows have none; WR and NEG are zero on padding rows. The
     * fetched flags word is made of them. */
    gs_air_transition(a, MUL(active, SUB(active, one)));
    gs_expr e_sum = ADD(e_exit, ADD(e_read, e_write));
    gs_expr kinds = e_sum, flags = MUL(K((uint64_t)1 << ZK_FB_ECALL), e_sum);
    for (unsigned k = 0; k < ZK_F_COLS; k++) {
        gs_expr f = F(k);
        gs_air_transition(a, MUL(f, SUB(f, one)));
        if (k == ZK_FB_WR || k == ZK_FB_NEG) gs_air_transition(a, MUL(f, SUB(one, active)));
        else kinds = ADD(kinds, f);
        flags = ADD(flags, MUL(K((uint64_t)1 << k), f));
    }
    gs_air_transition(a, MUL(e_exit, SUB(e_exit, one)));
    gs_air_transition(a, MUL(e_read, SUB(e_read, one)));
    gs_air_transition(a, MUL(e_write, SUB(e_write, one)));
    gs_air_transition(a, SUB(kinds, active));

    /* Fetch: the row's instruction is the program's at its pc. */
    gs_expr fetch[7] = {pc, COL(CPU_OP), COL(CPU_RD), COL(CPU_RS1), COL(CPU_RS2), imm, flags};
    gs_air_receive(a, ZK_BUS_PROG, fetch, 7, active);

    /* The clock counts rows; the run starts at the start pc on clk
     * START_CLK + 1 (a whole run: the entry on clk 1), active rows come
     * first, and the table ends on a padding row. */
    gs_air_transition(a, SUB(NXT(CPU_CLK), ADD(clk, one)));
    gs_air_boundary(a, CPU_CLK, 0, ADD(gs_air_public(a, ZK_PUB_START_CLK), one));
    gs_air_boundary(a, CPU_ACTIVE, 0, one);
    gs_air_boundary(a, CPU_ACTIVE, -1, K(0));
    /* The last row is padding, but no transition reaches it (transitions
     * hold on rows 0..n-2) while its bus interactions count like any row's:
     * every flag and system-call boolean, from which each multiplicity of
     * the table is made, is pinned to 0 there, so the row sends and receives
     * nothing. (Unpinned, f_alu = -1 on it received a forged ALU tuple and
     * f_wr wrote any register after the run: found 2026-12-04.) */
    for (unsigned k = 0; k < ZK_F_COLS; k++) gs_air_boundary(a, CPU_F0 + k, -1, K(0));
    gs_air_boundary(a, CPU_E_EXIT, -1, K(0));
    gs_air_boundary(a, CPU_E_READ, -1, K(0));
    gs_air_boundary(a, CPU_E_WRITE, -1, K(0));
    gs_air_boundary(a, CPU_PC, 0, gs_air_public(a, ZK_PUB_START_PC));
    gs_air_transition(a, MUL(NXT(CPU_ACTIVE), SUB(one, active)));
    /* last: 1 on the last active row (an active row followed by padding). */
    gs_expr last = SUB(active, NXT(CPU_ACTIVE));

    /* System calls: an ecall is exit, read or write (by a7: 93, 63, 64).
     * An exit is followed by a padding row, and the last active row is an
     * exit exactly when the public EXITED is 1 (the verifier requires it
     * boolean): a run that exited ends exactly at its exit, a segment that
     * stopped on its cycle limit has none. The exit reads a0 (the exit
     * code); the last active row's clk is the cycle count at the end. */
    gs_air_transition(a, ADD(MUL(e_exit, SUB(va, K(GS_ZKVM_SYS_EXIT))),
                             ADD(MUL(e_read, SUB(va, K(GS_ZKVM_SYS_READ))),
                                 MUL(e_write, SUB(va, K(GS_ZKVM_SYS_WRITE))))));
    gs_air_transition(a, MUL(last, SUB(gs_air_public(a, ZK_PUB_EXITED), e_exit)));
    gs_air_transition(a, MUL(e_exit, NXT(CPU_ACTIVE)));
    gs_air_transition(a, MUL(e_exit, SUB(vb, gs_air_public(a, ZK_PUB_EXIT_CODE))));
    gs_air_transition(a, MUL(last, SUB(clk, gs_air_public(a, ZK_PUB_CYCLES))));
    /* read and write: (call, fd, count, clk) to the IO chip, which does the
     * call's accesses and gives the count written to a0. */
    gs_expr io[4] = {va, vb, vc, clk};
    gs_air_send(a, ZK_BUS_IO, io, 4, ADD(e_read, e_write));

    /* The next row's pc, by the current row's kind (padding rows: none).
     * Sequential kinds go to pc + 4; a branch to pc + imm when taken (taken
     * = c, the compare, or 1 - c under NEG); a jump to a + imm with bit 0
     * cleared, mod 2^32: a + imm = pc' + T + 2^32 CH, T and CH booleans (a
     * and imm are below 2^32, so the sum is an integer below 2^33 and pc',
     * which the next row fetches from the program, i.e. a multiple of 4
     * below 2^24, is determined). After the last active row comes a
     * padding row whose pc is where the run leads: the public END_PC.
     * Nothing fetches it here; the next segment's first row does.
     * A branch row holds `taken` in CH (free there): the pc rule's branch
     * term is then of degree 3, and so is the table (its quotient is 2
     * chunks, evaluated at half the LDE's points). */
    gs_expr f_br = ADD(f_branch, f_beq);
    gs_expr taken = ADD(vc, MUL(f_neg, SUB(one, MUL(K(2), vc))));
    gs_air_transition(a, MUL(f_br, SUB(ch, taken)));
    gs_expr seq = ADD(ADD(ADD(f_alu, f_add), ADD(f_load, f_store)), ADD(f_lui, e_sum));
    gs_expr npc = NXT(CPU_PC);
    gs_expr pc_rule = MUL(seq, SUB(npc, ADD(pc, four)));
    pc_rule = ADD(pc_rule, MUL(f_br, SUB(npc, ADD(ADD(pc, four), MUL(ch, SUB(imm, four))))));
    pc_rule = ADD(pc_rule, MUL(f_jump, SUB(npc, SUB(ADD(va, imm), ADD(t, MUL(two32, ch))))));
    gs_air_transition(a, pc_rule);
    gs_air_transition(a, MUL(ADD(f_add, f_jump), MUL(t, SUB(t, one))));
    gs_air_transition(a, MUL(f_jump, MUL(ch, SUB(ch, one))));
    gs_air_transition(a, MUL(last, SUB(npc, gs_air_public(a, ZK_PUB_END_PC))));

    /* The value c: lui the immediate, jumps the return address, exit a0
     * unchanged; add, addi and sub here: a +- (b + imm) with the carry or
     * borrow T and c range-checked as two 16-bit limbs (c - 2^16 CH and
     * CH), so c is the sum mod 2^32 (both operands are below 2^32 and one
     * of b and imm is 0); beq/bne's compare: c = [a = b] through T = 1 /
     * (a - b). ALU results and compares, loaded values and read/write counts
     * are the chips' (they range-check what they produce). */
    gs_air_transition(a, MUL(f_lui, SUB(vc, imm)));
    gs_air_transition(a, MUL(f_jump, SUB(vc, ADD(pc, four))));
    gs_air_transition(a, MUL(e_exit, SUB(vc, vb)));
    gs_expr op2 = ADD(vb, imm), sign = SUB(one, MUL(K(2), f_neg));
    gs_air_transition(a, MUL(f_add, SUB(SUB(vc, va), MUL(sign, SUB(op2, MUL(two32, t))))));
    gs_expr c_lo = SUB(vc, MUL(K(1u << 16), ch));
    gs_air_send(a, ZK_BUS_RANGE, &c_lo, 1, f_add);
    gs_air_send(a, ZK_BUS_RANGE, &ch, 1, f_add);
    gs_expr a_b = SUB(va, vb);
    gs_air_transition(a, MUL(f_beq, MUL(vc, a_b)));
    gs_air_transition(a, MUL(f_beq, SUB(MUL(a_b, t), SUB(one, vc))));

    /* ALU requests: (op, a, b + imm, c) for the ALU kind, (op, a, b, c)
     * for the chips' branches (the chips' compares give 0 or 1). The
     * operand is b + imm - T with T = 0 on ALU rows and T = imm on branch
     * rows (T is free on both kinds), so the tuple is linear and the
     * request shares an aux column with the load/store one (until
     * 2026-12-05 it was b + f_alu imm, of degree 2, alone in its column). */
    gs_air_transition(a, MUL(f_alu, t));
    gs_air_transition(a, MUL(f_branch, SUB(t, imm)));
    gs_expr alu[4] = {COL(CPU_OP), va, SUB(ADD(vb, imm), t), vc};
    gs_air_send(a, ZK_BUS_ALU, alu, 4, ADD(f_alu, f_branch));

    /* Loads and stores: (op, base, imm, val, res, clk) = (op, a, imm, b,
     * c, clk). The chip's row has res = 0 for a store and val = 0 for a
     * load (src/zkvm/air_ls.c), and the op, which the program fixes, says
     * which it is; so a store's c and a load's b (x0: loads name x0 as rs2)
     * are 0 wherever the bus balances. */
    gs_expr ls[6] = {COL(CPU_OP), va, imm, vb, vc, clk};
    gs_air_send(a, ZK_BUS_LS, ls, 6, ADD(f_load, f_store));

    /* Registers: rs1 at 4 clk + 0, rs2 at + 1 (every active row reads both;
     * the program names x0 for a format without them), rd at + 3 (f_wr:
     * never x0, so x0 stays 0). Each access receives the previous tuple,
     * whose timestamp is ts - 1 - (lo + 2^16 hi) with lo and hi
     * range-checked, so below ts, and sends the new one; registers are
     * writable (w = 1). */
    struct {
        unsigned reg, val_prev, val, lo, hi, slot;
        gs_expr mult;
    } acc[3] = {
        {CPU_RS1, CPU_A, CPU_A, CPU_A_LO, CPU_A_HI, ZK_TS_RS1, active},
        {CPU_RS2, CPU_B, CPU_B, CPU_B_LO, CPU_B_HI, ZK_TS_RS2, active},
        {CPU_RD, CPU_D_PREV, CPU_C, CPU_D_LO, CPU_D_HI, ZK_TS_RD, f_wr},
    };
    for (unsigned i = 0; i < 3; i++) {
        gs_expr ts = ADD(MUL(K(4), clk), K(acc[i].slot));
        gs_expr lo = COL(acc[i].lo), hi = COL(acc[i].hi);
        gs_expr ts_prev = SUB(SUB(ts, one), ADD(lo, MUL(K(1u << 16), hi)));
        gs_air_send(a, ZK_BUS_RANGE, &lo, 1, acc[i].mult);
        gs_air_send(a, ZK_BUS_RANGE, &hi, 1, acc[i].mult);
        gs_expr prev[4] = {COL(acc[i].reg), COL(acc[i].val_prev), ts_prev, one};
        gs_expr next[4] = {COL(acc[i].reg), COL(acc[i].val), ts, one};
        gs_air_receive(a, ZK_BUS_MEM, prev, 4, acc[i].mult);
        gs_air_send(a, ZK_BUS_MEM, next, 4, acc[i].mult);
    }
#undef COL
#undef NXT
#undef K
#undef ADD
#undef SUB
#undef MUL
#undef F
    if (gs_air_finalize(a) != GS_OK) {
        gs_air_free(a);
        return NULL;
    }
    return a;
}

/* ---- the CPU table's packed rows (zkvm/cpu_rows.h) ---- */

gs_status zk_cpu_packed_alloc(zk_bytes *b, const gs_zkvm_program *p, uint64_t n_active, uint64_t clk0,
                              uint32_t end_pc) {
    GS_TRY(zk_bytes_alloc(b, ZK_CPU_PACKED_BYTES(p->n, n_active)));
    zk_cpu_head *h = b->p;
    *h = (zk_cpu_head){.n_active = n_active, .clk0 = clk0, .end_pc = end_pc, .n_prog = p->n};
    zk_cpu_prog *pr = zk_cpu_progs(h);
    for (uint32_t s = 0; s < p->n; s++) {
        zk_prog_row_t r;
        zk_prog_row(&r, p, s);
        pr[s] = (zk_cpu_prog){r.pc, r.op, r.rd, r.rs1, r.rs2, r.flags, zk_prog_imm_fp(&r)};
    }
    return GS_OK;
}

/* Rows are made ZK_ROW_BLOCK at a time, column by column, and written out
 * as column runs; the block's beq/bne rows' T (a - b) inverted together
 * (Montgomery's trick: one inversion a block; 0 stays 0, as on the device). */
void zk_cpu_expand(const void *data, gs_fp *out, size_t stride, uint64_t r0, uint64_t r1, const void *ctx) {
    (void)ctx;
    const zk_cpu_head *h = data;
    const zk_cpu_prog *prog = zk_cpu_progs(h);
    const zk_cpu_rec *rec = zk_cpu_recs(h);
    _Alignas(64) gs_fp v[CPU_COLS][ZK_ROW_BLOCK];
    gs_fp t[ZK_ROW_BLOCK];
    size_t at[ZK_ROW_BLOCK];
    for (uint64_t b = r0; b < r1; b += ZK_ROW_BLOCK) {
        size_t m = r1 - b < ZK_ROW_BLOCK ? (size_t)(r1 - b) : ZK_ROW_BLOCK, nt = 0;
        for (size_t k = 0; k < m; k++) {
            uint64_t r = b + k;
            if (r < h->n_active) {
                const zk_cpu_prog *p = &prog[rec[r].slot];
                zk_cpu_row_expand(&v[0][k], ZK_ROW_BLOCK, p, &rec[r], h->clk0 + r + 1);
                if (p->flags & ZK_F_BEQ) at[nt] = k, t[nt++] = v[CPU_T][k];
            } else {
                zk_cpu_pad_expand(&v[0][k], ZK_ROW_BLOCK, h->clk0 + r + 1, h->end_pc);
            }
        }
        zk_inv_in_place(t, nt);
        for (size_t i = 0; i < nt; i++) v[CPU_T][at[i]] = t[i];
        for (unsigned c = 0; c < CPU_COLS; c++) memcpy(out + c * stride + (b - r0), v[c], m * sizeof(gs_fp));
    }
}
