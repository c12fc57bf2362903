/* The zkVM's internals: the pre-decoded instruction form, the program and
 * machine objects, and the one definition of every instruction's arithmetic
 * that the fast and the traced paths share (exec_loop.h). */
#ifndef GSTARK_ZKVM_INT_H
#define GSTARK_ZKVM_INT_H

#include <stdint.h>
#include <string.h>

#include "gstark/zkvm.h"

/* Operations after decoding. AUIPC is folded into LUI (its value is known at
 * decode time). The last four are not instructions: slots that fault. */
enum {
    ZK_LUI, ZK_JAL, ZK_JALR,
    ZK_BEQ, ZK_BNE, ZK_BLT, ZK_BGE, ZK_BLTU, ZK_BGEU,
    ZK_LB, ZK_LH, ZK_LW, ZK_LBU, ZK_LHU,
    ZK_SB, ZK_SH, ZK_SW,
    ZK_ADDI, ZK_SLTI, ZK_SLTIU, ZK_XORI, ZK_ORI, ZK_ANDI, ZK_SLLI, ZK_SRLI, ZK_SRAI,
    ZK_ADD, ZK_SUB, ZK_SLL, ZK_SLT, ZK_SLTU, ZK_XOR, ZK_SRL, ZK_SRA, ZK_OR, ZK_AND,
    ZK_MUL, ZK_MULH, ZK_MULHSU, ZK_MULHU, ZK_DIV, ZK_DIVU, ZK_REM, ZK_REMU,
    ZK_FENCE, ZK_ECALL,
    ZK_BAD,     /* faults with imm = a gs_zkvm_fault (illegal, compressed, CSR, ebreak) */
    ZK_NOTEXT,  /* a slot in the text span outside every executable segment */
    ZK_END,     /* the slot past the last word: running into it faults */
    ZK_NUM_OPS
};

/* The register that writes to x0 go to: x0 stays 0 without a test per write. */
#define ZK_SINK 32u
/* A branch or jump offset (in words) that no text reaches: the target was
 * not 4-aligned. The slow path recovers the reason from the word. */
#define ZK_BAD_OFFSET ((int32_t)0x40000000)

/* 8 bytes. rd is ZK_SINK for x0. imm: the sign-extended immediate; LUI: the
 * value (AUIPC: pc + imm); branches and JAL: the offset in words (or
 * ZK_BAD_OFFSET); shifts: the amount. */
typedef struct zk_insn {
    uint8_t op, rd, rs1, rs2;
    int32_t imm;
} zk_insn;

struct gs_zkvm_program {
    uint32_t entry;
    uint32_t text_lo;         /* the text span [text_lo, text_lo + 4 * n) */
    uint32_t n;               /* instruction slots */
    zk_insn *code;            /* n + 1 slots (the last is ZK_END) */
    uint32_t *words;          /* n + 1 instruction words (0 where ZK_NOTEXT or ZK_END) */
    size_t nseg;
    gs_zkvm_segment seg[GS_ZKVM_MAX_SEGMENTS];
    uint8_t *bytes;           /* the segments' file bytes */
    uint64_t image_bytes;
};

typedef struct zk_buf {
    uint8_t *p;
    size_t len, cap;
} zk_buf;

struct gs_zkvm_vm {
    const gs_zkvm_program *prog;
    uint8_t *mem;             /* GS_ZKVM_MEM_TOP bytes, indexed by address */
    /* Per 4 KiB page of mem: 1 once written after the machine was made (a
     * traced run's stores, read calls, a start memory); `untraced` once a
     * fast run may have written without saying (zk_vm_page_written). */
    uint8_t *written;
    int untraced;
    uint32_t x[33];           /* x0..x31 and the sink */
    uint32_t pc_index;        /* the next instruction's slot */
    uint64_t cycles;
    gs_zkvm_result last;      /* the stop that ended the last run */
    uint8_t *input;
    size_t in_len, in_pos;
    zk_buf out[2];            /* fd 1, fd 2 */
};

/* Whether the machine may have written memory page `page` (address >> 12)
 * since it was made: every page that may differ from the program's image. */
static inline int zk_vm_page_written(const gs_zkvm_vm *vm, uint32_t page) {
    return vm->untraced || vm->written[page];
}

/* Writes the message (msg may be NULL) and returns GS_ERR_INVALID_ARG. */
gs_status gs_zkvm_refuse(char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Decodes one word at pc. */
zk_insn gs_zkvm_decode(uint32_t word, uint32_t pc);
/* The target of the branch or jal `word` at pc. */
uint32_t gs_zkvm_jump_target(uint32_t word, uint32_t pc);

/* ---- the arithmetic (one definition for both paths) ---- */
static inline int32_t zk_i32(uint32_t v) { return (int32_t)v; }
static inline uint32_t zk_sra(uint32_t a, uint32_t s) {
    s &= 31;
    return (a >> s) | ((0u - (a >> 31)) << (31 - s) << 1);
}
static inline uint32_t zk_mulh(uint32_t a, uint32_t b) {
    return (uint32_t)((uint64_t)((int64_t)zk_i32(a) * (int64_t)zk_i32(b)) >> 32);
}
static inline uint32_t zk_mulhsu(uint32_t a, uint32_t b) {
    return (uint32_t)((uint64_t)((int64_t)zk_i32(a) * (int64_t)(uint64_t)b) >> 32);
}
static inline uint32_t zk_mulhu(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * b) >> 32);
}
/* Division by zero and INT_MIN / -1 as the RISC-V spec says (no trap). */
static inline uint32_t zk_div(uint32_t a, uint32_t b) {
    if (b == 0) return 0xFFFFFFFFu;
    if (a == 0x80000000u && b == 0xFFFFFFFFu) return a;
    return (uint32_t)(zk_i32(a) / zk_i32(b));
}
static inline uint32_t zk_divu(uint32_t a, uint32_t b) { return b ? a / b : 0xFFFFFFFFu; }
static inline uint32_t zk_rem(uint32_t a, uint32_t b) {
    if (b == 0) return a;
    if (a == 0x80000000u && b == 0xFFFFFFFFu) return 0;
    return (uint32_t)(zk_i32(a) % zk_i32(b));
}
static inline uint32_t zk_remu(uint32_t a, uint32_t b) { return b ? a % b : a; }

/* Little-endian memory (the host may be either). */
static inline uint32_t zk_ld32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t zk_ld16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline void zk_st32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static inline void zk_st16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

#endif
