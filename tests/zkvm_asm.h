/* RV32IM instruction encoders and a small ELF32 writer, for the zkVM's tests,
 * fuzz seeds and benchmark: programs made in C, without the cross toolchain.
 * Encodings from the RISC-V unprivileged spec (RV32I, M). */
#ifndef GSTARK_TESTS_ZKVM_ASM_H
#define GSTARK_TESTS_ZKVM_ASM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline uint32_t zr(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return f7 << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 | (rd & 31) << 7 | op;
}
static inline uint32_t zi(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return ((uint32_t)imm & 0xFFF) << 20 | (rs1 & 31) << 15 | f3 << 12 | (rd & 31) << 7 | op;
}
static inline uint32_t zs(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op) {
    uint32_t u = (uint32_t)imm;
    return ((u >> 5) & 0x7F) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | f3 << 12 | (u & 31) << 7 | op;
}
static inline uint32_t zb(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3) {
    uint32_t u = (uint32_t)off;
    return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3F) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 |
           f3 << 12 | ((u >> 1) & 0xF) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}
static inline uint32_t zj(int32_t off, uint32_t rd) {
    uint32_t u = (uint32_t)off;
    return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3FF) << 21 | ((u >> 11) & 1) << 20 |
           ((u >> 12) & 0xFF) << 12 | (rd & 31) << 7 | 0x6F;
}

/* Mnemonics (rd, rs1, rs2 / imm in assembler order). */
#define A_LUI(rd, imm20) (((uint32_t)(imm20) << 12) | ((rd) & 31) << 7 | 0x37)
#define A_AUIPC(rd, imm20) (((uint32_t)(imm20) << 12) | ((rd) & 31) << 7 | 0x17)
#define A_JAL(rd, off) zj(off, rd)
#define A_JALR(rd, rs1, imm) zi(imm, rs1, 0, rd, 0x67)
#define A_BEQ(a, b, off) zb(off, b, a, 0)
#define A_BNE(a, b, off) zb(off, b, a, 1)
#define A_BLT(a, b, off) zb(off, b, a, 4)
#define A_BGE(a, b, off) zb(off, b, a, 5)
#define A_BLTU(a, b, off) zb(off, b, a, 6)
#define A_BGEU(a, b, off) zb(off, b, a, 7)
#define A_LB(rd, imm, rs1) zi(imm, rs1, 0, rd, 0x03)
#define A_LH(rd, imm, rs1) zi(imm, rs1, 1, rd, 0x03)
#define A_LW(rd, imm, rs1) zi(imm, rs1, 2, rd, 0x03)
#define A_LBU(rd, imm, rs1) zi(imm, rs1, 4, rd, 0x03)
#define A_LHU(rd, imm, rs1) zi(imm, rs1, 5, rd, 0x03)
#define A_SB(rs2, imm, rs1) zs(imm, rs2, rs1, 0, 0x23)
#define A_SH(rs2, imm, rs1) zs(imm, rs2, rs1, 1, 0x23)
#define A_SW(rs2, imm, rs1) zs(imm, rs2, rs1, 2, 0x23)
#define A_ADDI(rd, rs1, imm) zi(imm, rs1, 0, rd, 0x13)
#define A_SLTI(rd, rs1, imm) zi(imm, rs1, 2, rd, 0x13)
#define A_SLTIU(rd, rs1, imm) zi(imm, rs1, 3, rd, 0x13)
#define A_XORI(rd, rs1, imm) zi(imm, rs1, 4, rd, 0x13)
#define A_ORI(rd, rs1, imm) zi(imm, rs1, 6, rd, 0x13)
#define A_ANDI(rd, rs1, imm) zi(imm, rs1, 7, rd, 0x13)
#define A_SLLI(rd, rs1, sh) zr(0, sh, rs1, 1, rd, 0x13)
#define A_SRLI(rd, rs1, sh) zr(0, sh, rs1, 5, rd, 0x13)
#define A_SRAI(rd, rs1, sh) zr(0x20, sh, rs1, 5, rd, 0x13)
/* R-type: funct7 and funct3 of each (index: add sub sll slt sltu xor srl sra or and, mul..remu). */
#define A_ADD(rd, a, b) zr(0, b, a, 0, rd, 0x33)
#define A_SUB(rd, a, b) zr(0x20, b, a, 0, rd, 0x33)
#define A_SLL(rd, a, b) zr(0, b, a, 1, rd, 0x33)
#define A_SLT(rd, a, b) zr(0, b, a, 2, rd, 0x33)
#define A_SLTU(rd, a, b) zr(0, b, a, 3, rd, 0x33)
#define A_XOR(rd, a, b) zr(0, b, a, 4, rd, 0x33)
#define A_SRL(rd, a, b) zr(0, b, a, 5, rd, 0x33)
#define A_SRA(rd, a, b) zr(0x20, b, a, 5, rd, 0x33)
#define A_OR(rd, a, b) zr(0, b, a, 6, rd, 0x33)
#define A_AND(rd, a, b) zr(0, b, a, 7, rd, 0x33)
#define A_MUL(rd, a, b) zr(1, b, a, 0, rd, 0x33)
#define A_MULH(rd, a, b) zr(1, b, a, 1, rd, 0x33)
#define A_MULHSU(rd, a, b) zr(1, b, a, 2, rd, 0x33)
#define A_MULHU(rd, a, b) zr(1, b, a, 3, rd, 0x33)
#define A_DIV(rd, a, b) zr(1, b, a, 4, rd, 0x33)
#define A_DIVU(rd, a, b) zr(1, b, a, 5, rd, 0x33)
#define A_REM(rd, a, b) zr(1, b, a, 6, rd, 0x33)
#define A_REMU(rd, a, b) zr(1, b, a, 7, rd, 0x33)
#define A_FENCE 0x0FF0000Fu
#define A_FENCE_I 0x0000100Fu
#define A_ECALL 0x00000073u
#define A_EBREAK 0x00100073u

/* li rd, v: lui + addi (two words). */
static inline void a_li(uint32_t *w, uint32_t rd, uint32_t v) {
    uint32_t lo = v & 0xFFF, hi = (v + 0x800) >> 12;
    w[0] = A_LUI(rd, hi & 0xFFFFF);
    w[1] = A_ADDI(rd, rd, (int32_t)(lo << 20) >> 20);
}

/* ---- ELF32 writer ---- */
typedef struct zk_elf_seg {
    uint32_t vaddr, memsz, flags; /* PF_X 1, PF_W 2, PF_R 4 */
    const uint8_t *data;
    uint32_t filesz;
} zk_elf_seg;

/* A static RV32 executable: the header, the program headers, then each
 * segment's bytes at a 4 KiB-aligned offset congruent to its address (as
 * qemu and Linux want). Returns a malloc'd buffer and its length. */
static inline uint8_t *zk_elf_write(size_t *len, const zk_elf_seg *segs, size_t n, uint32_t entry) {
    size_t off = 0x1000, total;
    size_t *offs = malloc((n ? n : 1) * sizeof *offs);
    if (!offs) return NULL;
    for (size_t i = 0; i < n; i++) {
        off = (off + 0xFFF) & ~(size_t)0xFFF;
        off += segs[i].vaddr & 0xFFF;
        offs[i] = off;
        off += segs[i].filesz;
    }
    total = off;
    uint8_t *b = calloc(1, total);
    if (!b) {
        free(offs);
        return NULL;
    }
#define ZK_P16(p, v) ((p)[0] = (uint8_t)(v), (p)[1] = (uint8_t)((v) >> 8))
#define ZK_P32(p, v) (ZK_P16(p, v), ZK_P16((p) + 2, (v) >> 16))
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 1, b[5] = 1, b[6] = 1;
    ZK_P16(b + 16, 2u);   /* ET_EXEC */
    ZK_P16(b + 18, 243u); /* EM_RISCV */
    ZK_P32(b + 20, 1u);
    ZK_P32(b + 24, entry);
    ZK_P32(b + 28, 52u);  /* phoff */
    ZK_P16(b + 40, 52u);
    ZK_P16(b + 42, 32u);
    ZK_P16(b + 44, (uint32_t)n);
    ZK_P16(b + 46, 40u);
    for (size_t i = 0; i < n; i++) {
        uint8_t *ph = b + 52 + 32 * i;
        ZK_P32(ph, 1u);
        ZK_P32(ph + 4, (uint32_t)offs[i]);
        ZK_P32(ph + 8, segs[i].vaddr);
        ZK_P32(ph + 12, segs[i].vaddr);
        ZK_P32(ph + 16, segs[i].filesz);
        ZK_P32(ph + 20, segs[i].memsz);
        ZK_P32(ph + 24, segs[i].flags);
        ZK_P32(ph + 28, 0x1000u);
        if (segs[i].filesz) memcpy(b + offs[i], segs[i].data, segs[i].filesz);
    }
#undef ZK_P16
#undef ZK_P32
    free(offs);
    *len = total;
    return b;
}

#endif
