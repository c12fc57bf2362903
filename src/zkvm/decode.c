/* RV32IM decoding (once per program, into zk_insn) and disassembly (for
 * fault messages). Encodings: The RISC-V Instruction Set Manual, Volume I,
 * chapter "RV32I Base Integer Instruction Set" and "M Extension". */
#include <stdio.h>

#include "zkvm/zkvm_int.h"

static uint32_t f3(uint32_t w) { return (w >> 12) & 7; }
static uint32_t f7(uint32_t w) { return w >> 25; }
static uint32_t rdf(uint32_t w) { return (w >> 7) & 31; }
static uint32_t rs1f(uint32_t w) { return (w >> 15) & 31; }
static uint32_t rs2f(uint32_t w) { return (w >> 20) & 31; }
static int32_t imm_i(uint32_t w) { return (int32_t)w >> 20; }
static int32_t imm_s(uint32_t w) { return (int32_t)(((uint32_t)((int32_t)w >> 25) << 5) | rdf(w)); }
static int32_t imm_b(uint32_t w) {
    uint32_t v = ((w >> 8) & 0xF) << 1 | ((w >> 25) & 0x3F) << 5 | ((w >> 7) & 1) << 11;
    return (int32_t)(v | (0u - (w >> 31)) << 12);
}
static int32_t imm_j(uint32_t w) {
    uint32_t v = ((w >> 21) & 0x3FF) << 1 | ((w >> 20) & 1) << 11 | ((w >> 12) & 0xFF) << 12;
    return (int32_t)(v | (0u - (w >> 31)) << 20);
}

static zk_insn bad(gs_zkvm_fault why) {
    zk_insn d = {.op = ZK_BAD, .rd = ZK_SINK, .imm = (int32_t)why};
    return d;
}

/* Offset in words of a branch or jump, or ZK_BAD_OFFSET when the target is
 * not 4-aligned. */
static int32_t word_offset(int32_t off) {
    return (off & 3) ? ZK_BAD_OFFSET : off / 4;
}

zk_insn gs_zkvm_decode(uint32_t w, uint32_t pc) {
    /* An all-zero halfword is the spec's defined illegal instruction. */
    if ((w & 0xFFFF) == 0) return bad(GS_ZKVM_FAULT_ILLEGAL);
    if ((w & 3) != 3) return bad(GS_ZKVM_FAULT_COMPRESSED);
    zk_insn d = {.op = ZK_BAD, .rd = (uint8_t)(rdf(w) ? rdf(w) : ZK_SINK),
                 .rs1 = (uint8_t)rs1f(w), .rs2 = (uint8_t)rs2f(w), .imm = 0};
    uint32_t fn3 = f3(w), fn7 = f7(w);
    switch (w & 0x7F) {
    case 0x37: d.op = ZK_LUI, d.imm = (int32_t)(w & 0xFFFFF000u), d.rs1 = d.rs2 = 0; return d;
    case 0x17: /* auipc: its value is known here */
        d.op = ZK_LUI, d.imm = (int32_t)(pc + (w & 0xFFFFF000u)), d.rs1 = d.rs2 = 0;
        return d;
    case 0x6F: d.op = ZK_JAL, d.imm = word_offset(imm_j(w)), d.rs1 = d.rs2 = 0; return d;
    case 0x67:
        if (fn3) break;
        d.op = ZK_JALR, d.imm = imm_i(w), d.rs2 = 0;
        return d;
    case 0x63: {
        static const uint8_t ops[8] = {ZK_BEQ, ZK_BNE, ZK_BAD, ZK_BAD,
                                       ZK_BLT, ZK_BGE, ZK_BLTU, ZK_BGEU};
        if (ops[fn3] == ZK_BAD) break;
        d.op = ops[fn3], d.imm = word_offset(imm_b(w)), d.rd = ZK_SINK;
        return d;
    }
    case 0x03: {
        static const uint8_t ops[8] = {ZK_LB, ZK_LH, ZK_LW, ZK_BAD, ZK_LBU, ZK_LHU, ZK_BAD, ZK_BAD};
        if (ops[fn3] == ZK_BAD) break;
        d.op = ops[fn3], d.imm = imm_i(w), d.rs2 = 0;
        return d;
    }
    case 0x23:
        if (fn3 > 2) break;
        d.op = (uint8_t)(ZK_SB + fn3), d.imm = imm_s(w), d.rd = ZK_SINK;
        return d;
    case 0x13: {
        static const uint8_t ops[8] = {ZK_ADDI, ZK_SLLI, ZK_SLTI, ZK_SLTIU,
                                       ZK_XORI, ZK_SRLI, ZK_ORI,  ZK_ANDI};
        d.op = ops[fn3], d.imm = imm_i(w), d.rs2 = 0;
        if (fn3 == 1) {
            if (fn7) break;
            d.imm = (int32_t)rs2f(w);
        } else if (fn3 == 5) {
            if (fn7 == 0x20) d.op = ZK_SRAI;
            else if (fn7) break;
            d.imm = (int32_t)rs2f(w);
        }
        return d;
    }
    case 0x33: {
        static const uint8_t base[8] = {ZK_ADD, ZK_SLL, ZK_SLT, ZK_SLTU, ZK_XOR, ZK_SRL, ZK_OR, ZK_AND};
        if (fn7 == 0) d.op = base[fn3];
        else if (fn7 == 1) d.op = (uint8_t)(ZK_MUL + fn3);
        else if (fn7 == 0x20 && fn3 == 0) d.op = ZK_SUB;
        else if (fn7 == 0x20 && fn3 == 5) d.op = ZK_SRA;
        else break;
        return d;
    }
    case 0x0F:
        if (fn3 != 0) break; /* fence.i (Zifencei) is not part of the machine */
        d.op = ZK_FENCE, d.rd = ZK_SINK, d.rs1 = d.rs2 = 0;
        return d;
    case 0x73:
        if (w == 0x00000073u) {
            d.op = ZK_ECALL, d.rd = ZK_SINK, d.rs1 = d.rs2 = 0;
            return d;
        }
        if (w == 0x00100073u) return bad(GS_ZKVM_FAULT_EBREAK);
        return bad(GS_ZKVM_FAULT_CSR);
    default: break;
    }
    return bad(GS_ZKVM_FAULT_ILLEGAL);
}

uint32_t gs_zkvm_jump_target(uint32_t w, uint32_t pc) {
    return pc + (uint32_t)((w & 0x7F) == 0x6F ? imm_j(w) : imm_b(w));
}

/* ---- disassembly ---- */

static const char *const reg_names[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
    "a1",   "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

char *gs_zkvm_disasm(char *out, size_t cap, uint32_t w, uint32_t pc) {
    static const char *const names[ZK_NUM_OPS] = {
        [ZK_LUI] = "lui", [ZK_JAL] = "jal", [ZK_JALR] = "jalr", [ZK_BEQ] = "beq",
        [ZK_BNE] = "bne", [ZK_BLT] = "blt", [ZK_BGE] = "bge", [ZK_BLTU] = "bltu",
        [ZK_BGEU] = "bgeu", [ZK_LB] = "lb", [ZK_LH] = "lh", [ZK_LW] = "lw", [ZK_LBU] = "lbu",
        [ZK_LHU] = "lhu", [ZK_SB] = "sb", [ZK_SH] = "sh", [ZK_SW] = "sw", [ZK_ADDI] = "addi",
        [ZK_SLTI] = "slti", [ZK_SLTIU] = "sltiu", [ZK_XORI] = "xori", [ZK_ORI] = "ori",
        [ZK_ANDI] = "andi", [ZK_SLLI] = "slli", [ZK_SRLI] = "srli", [ZK_SRAI] = "srai",
        [ZK_ADD] = "add", [ZK_SUB] = "sub", [ZK_SLL] = "sll", [ZK_SLT] = "slt",
        [ZK_SLTU] = "sltu", [ZK_XOR] = "xor", [ZK_SRL] = "srl", [ZK_SRA] = "sra",
        [ZK_OR] = "or", [ZK_AND] = "and", [ZK_MUL] = "mul", [ZK_MULH] = "mulh",
        [ZK_MULHSU] = "mulhsu", [ZK_MULHU] = "mulhu", [ZK_DIV] = "div", [ZK_DIVU] = "divu",
        [ZK_REM] = "rem", [ZK_REMU] = "remu", [ZK_FENCE] = "fence", [ZK_ECALL] = "ecall"};
    if (!cap) return out;
    zk_insn d = gs_zkvm_decode(w, pc);
    const char *rd = reg_names[rdf(w)], *r1 = reg_names[rs1f(w)], *r2 = reg_names[rs2f(w)];
    const char *nm = d.op < ZK_NUM_OPS ? names[d.op] : NULL;
    uint32_t op = w & 0x7F;
    if (d.op == ZK_BAD) {
        if (d.imm == GS_ZKVM_FAULT_EBREAK) snprintf(out, cap, "ebreak");
        else if (d.imm == GS_ZKVM_FAULT_COMPRESSED) snprintf(out, cap, "compressed 0x%04x", w & 0xFFFF);
        else if (d.imm == GS_ZKVM_FAULT_CSR) snprintf(out, cap, "system 0x%08x", w);
        else snprintf(out, cap, "illegal 0x%08x", w);
    } else if (op == 0x37 || op == 0x17) {
        snprintf(out, cap, "%s %s,0x%x", op == 0x37 ? "lui" : "auipc", rd, w >> 12);
    } else if (d.op == ZK_JAL) {
        snprintf(out, cap, "jal %s,0x%x", rd, pc + (uint32_t)imm_j(w));
    } else if (d.op >= ZK_BEQ && d.op <= ZK_BGEU) {
        snprintf(out, cap, "%s %s,%s,0x%x", nm, r1, r2, pc + (uint32_t)imm_b(w));
    } else if (d.op == ZK_JALR || (d.op >= ZK_LB && d.op <= ZK_LHU)) {
        snprintf(out, cap, "%s %s,%d(%s)", nm, rd, imm_i(w), r1);
    } else if (d.op >= ZK_SB && d.op <= ZK_SW) {
        snprintf(out, cap, "%s %s,%d(%s)", nm, r2, imm_s(w), r1);
    } else if (d.op == ZK_SLLI || d.op == ZK_SRLI || d.op == ZK_SRAI) {
        snprintf(out, cap, "%s %s,%s,%u", nm, rd, r1, rs2f(w));
    } else if (d.op >= ZK_ADDI && d.op <= ZK_ANDI) {
        snprintf(out, cap, "%s %s,%s,%d", nm, rd, r1, imm_i(w));
    } else if (d.op >= ZK_ADD && d.op <= ZK_REMU) {
        snprintf(out, cap, "%s %s,%s,%s", nm, rd, r1, r2);
    } else {
        snprintf(out, cap, "%s", nm ? nm : "?");
    }
    return out;
}
