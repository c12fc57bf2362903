/* An independent model of RV32IM for the zkVM's tests: runs two paths of
 * the executor against each other and replays a trace against the spec.
 *
 * zk_replay checks every step of a trace the way the AIR will: the register
 * values it claims to read are the ones last written, loads and stores agree
 * with a replayed memory (word before, word after), the value written is the
 * spec's function of the values read (computed here, written from the spec,
 * not shared with src/zkvm/), and the next step's pc is the one the
 * instruction leads to. At the end the replayed registers and memory must be
 * the machine's. */
#ifndef GSTARK_TESTS_ZKVM_ORACLE_H
#define GSTARK_TESTS_ZKVM_ORACLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/zkvm.h"

static inline int32_t zo_s(uint32_t v) { return (int32_t)v; }

/* rd's value from rs values for OP, OP-IMM, LUI, AUIPC, JAL, JALR; *ok = 0
 * for other opcodes. */
static inline uint32_t zo_alu(uint32_t w, uint32_t pc, uint32_t a, uint32_t b, int *ok) {
    uint32_t op = w & 0x7F, f3 = (w >> 12) & 7, f7 = w >> 25;
    int32_t imm = (int32_t)w >> 20;
    *ok = 1;
    if (op == 0x37) return w & 0xFFFFF000u;
    if (op == 0x17) return pc + (w & 0xFFFFF000u);
    if (op == 0x6F || op == 0x67) return pc + 4;
    if (op == 0x13) {
        b = (uint32_t)imm;
        if (f3 == 1 || f3 == 5) b &= 31;
        if (f3 == 5 && f7 == 0x20) f7 = 0x20; else f7 = 0;
    }
    if (op != 0x13 && op != 0x33) {
        *ok = 0;
        return 0;
    }
    if (op == 0x33 && f7 == 1) {
        int64_t sa = zo_s(a), sb = zo_s(b);
        switch (f3) {
        case 0: return a * b;
        case 1: return (uint32_t)((uint64_t)(sa * sb) >> 32);
        case 2: return (uint32_t)((uint64_t)(sa * (int64_t)b) >> 32);
        case 3: return (uint32_t)(((uint64_t)a * b) >> 32);
        case 4: return b == 0 ? 0xFFFFFFFFu : (sa == INT32_MIN && sb == -1) ? a : (uint32_t)(sa / sb);
        case 5: return b == 0 ? 0xFFFFFFFFu : a / b;
        case 6: return b == 0 ? a : (sa == INT32_MIN && sb == -1) ? 0 : (uint32_t)(sa % sb);
        default: return b == 0 ? a : a % b;
        }
    }
    switch (f3) {
    case 0: return (op == 0x33 && f7 == 0x20) ? a - b : a + b;
    case 1: return a << (b & 31);
    case 2: return zo_s(a) < zo_s(b);
    case 3: return a < b;
    case 4: return a ^ b;
    case 5: {
        uint32_t s = b & 31, r = a >> s;
        if (f7 == 0x20 && (a >> 31) && s) r |= ~(0xFFFFFFFFu >> s);
        return r;
    }
    case 6: return a | b;
    default: return a & b;
    }
}

static inline int zo_reads_rs1(uint32_t op) {
    return op == 0x67 || op == 0x63 || op == 0x03 || op == 0x23 || op == 0x13 || op == 0x33;
}
static inline int zo_reads_rs2(uint32_t op) { return op == 0x63 || op == 0x23 || op == 0x33; }

static inline uint32_t zo_word(const uint8_t *mem, uint32_t addr) {
    const uint8_t *p = mem + (addr & ~3u) - GS_ZKVM_MEM_LO;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Replays tr from the machine state `regs0` / `mem0` (a copy of the memory
 * window, modified in place) and `input`; compares the end with vm. Returns
 * 0 or prints the first disagreement and returns 1. */
static inline int zk_replay(const gs_zkvm_trace *tr, const uint32_t regs0[32], uint8_t *mem,
                            const uint8_t *input, const gs_zkvm_vm *vm) {
    uint32_t R[32];
    memcpy(R, regs0, sizeof R);
    R[0] = 0;
    size_t out_pos[3] = {0, 0, 0};
#define ZO_FAIL(...)                                                              \
    do {                                                                          \
        fprintf(stderr, "replay: step %llu pc 0x%08x insn 0x%08x: ",               \
                (unsigned long long)k, s->pc, s->insn);                           \
        fprintf(stderr, __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                      \
        return 1;                                                                 \
    } while (0)
    for (uint64_t k = 0; k < tr->n_steps; k++) {
        const gs_zkvm_step *s = &tr->steps[k];
        uint32_t w = s->insn, op = w & 0x7F, f3 = (w >> 12) & 7;
        uint32_t rd = (w >> 7) & 31, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31;
        uint32_t a = zo_reads_rs1(op) ? R[rs1] : 0, b = zo_reads_rs2(op) ? R[rs2] : 0;
        uint32_t next = s->pc + 4, v = 0;
        int writes = 0, ok;
        if (w == 0x73) {
            if (s->rs1_val != R[17] || s->rs2_val != R[10] || s->mem_addr != R[11] ||
                s->mem_before != R[12])
                ZO_FAIL("ecall arguments differ from the registers");
            uint32_t num = R[17];
            if (num == GS_ZKVM_SYS_EXIT) {
                if (s->rd_val != R[10] || s->mem_after != 0) ZO_FAIL("exit record");
            } else {
                if (s->mem_after == 0 || s->mem_after > tr->n_io) ZO_FAIL("no io record");
                const gs_zkvm_io *io = &tr->io[s->mem_after - 1];
                if (io->clk != tr->clk0 + k || io->num != num || io->fd != R[10] ||
                    io->buf != R[11] || io->len != R[12] || s->rd_val != io->done || io->done > io->len)
                    ZO_FAIL("io record disagrees");
                if (num == GS_ZKVM_SYS_READ) {
                    if (io->done) memcpy(mem + io->buf - GS_ZKVM_MEM_LO, input + io->stream_pos, io->done);
                } else {
                    size_t len;
                    const uint8_t *o = gs_zkvm_vm_output(vm, io->fd, &len);
                    if (io->fd > 2 || io->stream_pos != out_pos[io->fd] || io->stream_pos + io->done > len ||
                        (io->done && memcmp(o + io->stream_pos, mem + io->buf - GS_ZKVM_MEM_LO, io->done)))
                        ZO_FAIL("written bytes are not the memory's");
                    out_pos[io->fd] += io->done;
                }
                R[10] = s->rd_val;
            }
        } else {
            if (s->rs1_val != a || s->rs2_val != b)
                ZO_FAIL("read rs1 %u = 0x%08x, rs2 %u = 0x%08x; recorded 0x%08x, 0x%08x", rs1, a, rs2, b,
                        s->rs1_val, s->rs2_val);
            if (op == 0x03 || op == 0x23) {
                uint32_t addr = a + (uint32_t)(op == 0x03 ? (int32_t)w >> 20
                                                          : ((int32_t)w >> 25) * 32 + (int32_t)rd);
                uint32_t before = zo_word(mem, addr), sh = 8 * (addr & 3);
                if (s->mem_addr != addr || s->mem_before != before)
                    ZO_FAIL("memory: address 0x%08x word 0x%08x; recorded 0x%08x, 0x%08x", addr, before,
                            s->mem_addr, s->mem_before);
                if (op == 0x03) {
                    uint32_t x = before >> sh;
                    v = f3 == 0 ? (uint32_t)(int32_t)(int8_t)x : f3 == 1 ? (uint32_t)(int32_t)(int16_t)x
                        : f3 == 4 ? (x & 0xFF) : f3 == 5 ? (x & 0xFFFF) : x;
                    writes = 1;
                    if (s->mem_after != before) ZO_FAIL("a load changed memory");
                } else {
                    uint32_t mask = f3 == 0 ? 0xFFu : f3 == 1 ? 0xFFFFu : 0xFFFFFFFFu;
                    uint32_t after = (before & ~(mask << sh)) | ((b & mask) << sh);
                    if (s->mem_after != after) ZO_FAIL("store: word after 0x%08x, recorded 0x%08x", after, s->mem_after);
                    uint8_t *p = mem + (addr & ~3u) - GS_ZKVM_MEM_LO;
                    p[0] = (uint8_t)after, p[1] = (uint8_t)(after >> 8), p[2] = (uint8_t)(after >> 16),
                    p[3] = (uint8_t)(after >> 24);
                }
            } else if (op == 0x63) {
                int taken = f3 == 0 ? a == b : f3 == 1 ? a != b : f3 == 4 ? zo_s(a) < zo_s(b)
                          : f3 == 5 ? zo_s(a) >= zo_s(b) : f3 == 6 ? a < b : a >= b;
                uint32_t off = ((w >> 8) & 0xF) << 1 | ((w >> 25) & 0x3F) << 5 | ((w >> 7) & 1) << 11 |
                               (0u - (w >> 31)) << 12;
                if (taken) next = s->pc + off;
            } else if (op != 0x0F) {
                v = zo_alu(w, s->pc, a, b, &ok);
                if (!ok) ZO_FAIL("not an instruction the trace may hold");
                writes = 1;
                if (op == 0x6F)
                    next = s->pc + (((w >> 21) & 0x3FF) << 1 | ((w >> 20) & 1) << 11 |
                                    ((w >> 12) & 0xFF) << 12 | (0u - (w >> 31)) << 20);
                if (op == 0x67) next = (a + (uint32_t)((int32_t)w >> 20)) & ~1u;
            }
            uint32_t want = writes && rd ? v : 0;
            if (s->rd_val != want) ZO_FAIL("rd value 0x%08x, recorded 0x%08x", want, s->rd_val);
            if (writes && rd) R[rd] = v;
        }
        if (k + 1 < tr->n_steps && tr->steps[k + 1].pc != next)
            ZO_FAIL("next pc 0x%08x, the trace goes to 0x%08x", next, tr->steps[k + 1].pc);
    }
#undef ZO_FAIL
    if (memcmp(R, gs_zkvm_vm_regs(vm), sizeof R)) {
        fprintf(stderr, "replay: the registers differ at the end\n");
        return 1;
    }
    if (memcmp(mem, gs_zkvm_vm_memory(vm), GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO)) {
        fprintf(stderr, "replay: the memory differs at the end\n");
        return 1;
    }
    return 0;
}

#endif
