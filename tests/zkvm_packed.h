/* Random packed CPU tables (zkvm/cpu_rows.h) for the expanders' tests
 * (test_zkvm_threads: host ranges; test_cuda_zkvm: device against host):
 * program rows of every kind, with and without a write, signed branch
 * offsets; records with random values and gaps, beq/bne rows with a == b
 * (T = 0, which stays 0) and a != b; padding rows after n_active. */
#ifndef GSTARK_TEST_ZKVM_PACKED_H
#define GSTARK_TEST_ZKVM_PACKED_H

#include <stdlib.h>

#include "zkvm/zk_cpu.h"

static uint64_t zp_next(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A packed table of n_active active rows over n_prog program slots; malloc'd
 * (*bytes set). */
static void *zp_random(uint64_t seed, uint32_t n_prog, uint64_t n_active, size_t *bytes) {
    static const uint32_t kinds[] = {
        ZK_F_ALU, ZK_F_ADD, ZK_F_ADD | ZK_F_NEG, ZK_F_LOAD, ZK_F_STORE, ZK_F_BRANCH,
        ZK_F_BRANCH | ZK_F_NEG, ZK_F_BEQ, ZK_F_BEQ | ZK_F_NEG, ZK_F_JUMP, ZK_F_LUI, ZK_F_ECALL};
    static const uint32_t calls[] = {GS_ZKVM_SYS_EXIT, GS_ZKVM_SYS_READ, GS_ZKVM_SYS_WRITE, 7};
    *bytes = ZK_CPU_PACKED_BYTES(n_prog, n_active);
    zk_cpu_head *h = malloc(*bytes);
    if (!h) return NULL;
    *h = (zk_cpu_head){.n_active = n_active, .clk0 = zp_next(&seed) >> 20,
                       .end_pc = 0x10000u + 4 * n_prog, .n_prog = n_prog};
    zk_cpu_prog *pr = zk_cpu_progs(h);
    for (uint32_t s = 0; s < n_prog; s++) {
        uint64_t x = zp_next(&seed);
        zk_prog_row_t r = {.pc = 0x10000u + 4 * s, .op = (uint32_t)(x % 24), .rd = (x >> 8) & 31,
                           .rs1 = (x >> 16) & 31, .rs2 = (x >> 24) & 31, .imm = (uint32_t)(x >> 32),
                           .flags = kinds[(x >> 5) % (sizeof kinds / sizeof *kinds)]};
        if ((x >> 13) & 1 && r.rd) r.flags |= ZK_F_WR;
        pr[s] = (zk_cpu_prog){r.pc, r.op, r.rd, r.rs1, r.rs2, r.flags, zk_prog_imm_fp(&r)};
    }
    zk_cpu_rec *rec = zk_cpu_recs(h);
    for (uint64_t i = 0; i < n_active; i++) {
        uint64_t x = zp_next(&seed), y = zp_next(&seed), z = zp_next(&seed);
        zk_cpu_rec r = {.slot = (uint32_t)(x % n_prog), .a = (uint32_t)y, .b = (uint32_t)(y >> 32),
                        .c = (uint32_t)z, .d_prev = (uint32_t)(z >> 32), .gap_a = (uint32_t)(x >> 32),
                        .gap_b = (uint32_t)zp_next(&seed), .gap_d = (uint32_t)(x >> 8)};
        if ((x >> 20) % 4 == 0) r.b = r.a; /* beq/bne with a == b */
        if (pr[r.slot].flags & ZK_F_ECALL) r.a = calls[(x >> 24) % 4];
        if (!(pr[r.slot].flags & ZK_F_WR)) r.d_prev = 0, r.gap_d = 0;
        rec[i] = r;
    }
    return h;
}

#endif
