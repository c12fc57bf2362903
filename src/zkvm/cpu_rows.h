/* The CPU table's rows, packed and expanded (docs/zkvm.md, "Trace
 * generation"): the replay (src/zkvm/replay.c) writes each cycle's row as 32
 * bytes, and the prover makes the table's columns from them, on the host
 * (air_cpu.c) or on a CUDA device (cuda/cpu_rows.cu), through the one
 * definition of a row below, so both give the same columns. Included by C
 * and by nvcc. */
#ifndef GSTARK_ZK_CPU_ROWS_H
#define GSTARK_ZK_CPU_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/field.h"
#include "gstark/zkvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The flags word of a program row: one bit per kind, then WR (writes rd,
 * never x0) and NEG (a branch taken when the compare gives 0; an add-kind
 * row: subtract), then ECALL. Exactly one kind bit is set on an executable
 * slot. The kinds: ALU (an op of the ALU chips, register or immediate
 * form: b + imm, the form's other operand being x0 or 0), ADD (add, addi,
 * sub: done in the CPU row), LOAD, STORE, BRANCH (blt, bge, bltu, bgeu: the
 * compare by the ALU chip), BEQ (beq, bne: the compare in the CPU row),
 * JUMP (jal, jalr and fence: to a + imm with bit 0 cleared, jal and fence
 * with rs1 = x0 and the target in imm), LUI (lui, auipc) and ECALL. Every
 * bit below ZK_F_COLS is a CPU column; ECALL's is the three system-call
 * columns, which sum to it. */
enum {
    ZK_FB_ALU, ZK_FB_ADD, ZK_FB_LOAD, ZK_FB_STORE, ZK_FB_BRANCH, ZK_FB_BEQ, ZK_FB_JUMP, ZK_FB_LUI,
    ZK_FB_WR, ZK_FB_NEG, ZK_FB_ECALL
};
#define ZK_F_COLS 10u /* bits with a CPU column each: the kinds other than ECALL, then WR and NEG */
#define ZK_F_ALU (1u << ZK_FB_ALU)
#define ZK_F_ADD (1u << ZK_FB_ADD)
#define ZK_F_LOAD (1u << ZK_FB_LOAD)
#define ZK_F_STORE (1u << ZK_FB_STORE)
#define ZK_F_BRANCH (1u << ZK_FB_BRANCH)
#define ZK_F_BEQ (1u << ZK_FB_BEQ)
#define ZK_F_JUMP (1u << ZK_FB_JUMP)
#define ZK_F_LUI (1u << ZK_FB_LUI)
#define ZK_F_WR (1u << ZK_FB_WR)
#define ZK_F_NEG (1u << ZK_FB_NEG)
#define ZK_F_ECALL (1u << ZK_FB_ECALL)

/* The CPU table's columns (docs/zkvm.md, "The CPU table"). The flags f_k
 * are the bits k < ZK_F_COLS of the program's flags word; CH and T hold what
 * the row's kind needs: an add's result's high limb and its carry (or
 * borrow), beq/bne's inverse of a - b (T), a jump's carry and low bit. The
 * register accesses' previous timestamps are ts - 1 - (lo + 2^16 hi). */
enum {
    CPU_CLK, CPU_ACTIVE, CPU_PC, CPU_OP, CPU_RD, CPU_RS1, CPU_RS2, CPU_IMM,
    CPU_F0, /* ... CPU_F0 + ZK_F_COLS - 1 */
    CPU_A = CPU_F0 + ZK_F_COLS, CPU_B, CPU_C, CPU_CH, CPU_T,
    CPU_A_LO, CPU_A_HI, CPU_B_LO, CPU_B_HI, CPU_D_PREV, CPU_D_LO, CPU_D_HI,
    CPU_E_EXIT, CPU_E_READ, CPU_E_WRITE,
    CPU_COLS
};

/* The packed table (a gs_packed_trace's data): a head, the program's rows
 * (n_prog), then one record per active row (n_active); rows from n_active
 * to the table's end are padding. */
typedef struct zk_cpu_head {
    uint64_t n_active, clk0; /* row i's clk is clk0 + i + 1 */
    uint32_t end_pc, n_prog;
    uint64_t reserved;
} zk_cpu_head;

/* A program row as the CPU columns take it: imm already the field element
 * (zk_prog_imm_fp). */
typedef struct zk_cpu_prog {
    uint32_t pc, op, rd, rs1, rs2, flags;
    gs_fp imm;
} zk_cpu_prog;

/* An active row: its program slot, the values of rs1 (a), rs2 (b), the
 * result (c: the value written to rd, or the compare of a branch) and rd's
 * previous value (0 without a write), and for each of the three register
 * accesses the gap below its timestamp, ts - 1 - ts_prev (< 2^32: a table
 * has at most 2^GS_ZKVM_MAX_LOG_ROWS rows, 4 timestamps each; 0 for rd
 * without a write). */
typedef struct zk_cpu_rec {
    uint32_t slot, a, b, c, d_prev, gap_a, gap_b, gap_d;
} zk_cpu_rec;

/* The packed table's program rows and records, after its head (whose
 * n_prog is set). */
GS_HD zk_cpu_prog *zk_cpu_progs(const zk_cpu_head *h) { return (zk_cpu_prog *)(uintptr_t)(h + 1); }
GS_HD zk_cpu_rec *zk_cpu_recs(const zk_cpu_head *h) { return (zk_cpu_rec *)(zk_cpu_progs(h) + h->n_prog); }

#define ZK_CPU_PACKED_BYTES(n_prog, n_active) \
    (sizeof(zk_cpu_head) + (size_t)(n_prog) * sizeof(zk_cpu_prog) + (size_t)(n_active) * sizeof(zk_cpu_rec))

/* Every column of active row clk's values, column c at v[c * s]. T of a
 * beq/bne row is a - b here: the caller inverts it (0 stays 0). */
GS_HD void zk_cpu_row_expand(gs_fp *v, size_t s, const zk_cpu_prog *p, const zk_cpu_rec *r, uint64_t clk) {
#define V(c) v[(size_t)(c) * s]
    const uint32_t f = p->flags;
    V(CPU_CLK) = gs_fp_from_u64(clk);
    V(CPU_ACTIVE) = 1;
    V(CPU_PC) = p->pc;
    V(CPU_OP) = p->op;
    V(CPU_RD) = p->rd;
    V(CPU_RS1) = p->rs1;
    V(CPU_RS2) = p->rs2;
    V(CPU_IMM) = p->imm;
    for (unsigned k = 0; k < ZK_F_COLS; k++) V(CPU_F0 + k) = (f >> k) & 1u;
    V(CPU_A) = r->a;
    V(CPU_B) = r->b;
    V(CPU_C) = r->c;
    gs_fp ch = 0, t = 0;
    if (f & ZK_F_ADD) {
        uint64_t op2 = (uint64_t)r->b + (uint32_t)p->imm; /* one of them is 0 */
        ch = r->c >> 16;
        t = (f & ZK_F_NEG) ? r->a < op2 : ((uint64_t)r->a + op2) >> 32;
    } else if (f & ZK_F_BEQ) {
        t = gs_fp_sub(r->a, r->b);
    } else if (f & ZK_F_JUMP) {
        uint64_t sum = (uint64_t)r->a + (uint32_t)p->imm;
        t = sum & 1, ch = sum >> 32;
    } else if (f & ZK_F_BRANCH) {
        t = p->imm; /* the compare request's operand is b + imm - T */
    }
    if (f & (ZK_F_BRANCH | ZK_F_BEQ)) ch = (r->c != 0) != ((f & ZK_F_NEG) != 0); /* taken */
    V(CPU_CH) = ch;
    V(CPU_T) = t;
    V(CPU_A_LO) = r->gap_a & 0xffff;
    V(CPU_A_HI) = r->gap_a >> 16;
    V(CPU_B_LO) = r->gap_b & 0xffff;
    V(CPU_B_HI) = r->gap_b >> 16;
    V(CPU_D_PREV) = r->d_prev;
    V(CPU_D_LO) = r->gap_d & 0xffff;
    V(CPU_D_HI) = r->gap_d >> 16;
    const int ecall = (f & ZK_F_ECALL) != 0;
    V(CPU_E_EXIT) = ecall && r->a == GS_ZKVM_SYS_EXIT;
    V(CPU_E_READ) = ecall && r->a == GS_ZKVM_SYS_READ;
    V(CPU_E_WRITE) = ecall && r->a == GS_ZKVM_SYS_WRITE;
#undef V
}

/* A padding row: the clock runs on, the pc stays where the run leads, every
 * other column 0. */
GS_HD void zk_cpu_pad_expand(gs_fp *v, size_t s, uint64_t clk, uint32_t end_pc) {
    for (unsigned c = 0; c < CPU_COLS; c++) v[(size_t)c * s] = 0;
    v[(size_t)CPU_CLK * s] = gs_fp_from_u64(clk);
    v[(size_t)CPU_PC * s] = end_pc;
}

/* The packed table's expanders (gs_packed_trace: ctx unused): on the host
 * (air_cpu.c) and on a CUDA device (cpu_rows.cu; without CUDA it returns
 * -1, and no backend calls it). */
void zk_cpu_expand(const void *data, gs_fp *out, size_t stride, uint64_t r0, uint64_t r1, const void *ctx);
int zk_cpu_expand_device(const void *data, uint64_t *out, unsigned log_n, void *stream, const void *ctx);

#ifdef __cplusplus
}
#endif
#endif
