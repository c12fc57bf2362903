/* A run's tables and proof do not depend on the host thread count
 * (DESIGN.md section 2; src/zkvm/replay.c): trace generation (the replay's
 * chunks, the chips' parallel fills and their per-thread lookup counts) and
 * the proof bytes are compared for 1, 2 and 3 threads, on runs long enough
 * to cross many replay chunks and to split every large fill: a Fibonacci
 * loop, a memory loop (loads, stores, mul) and a mixed program that reads
 * its input, writes output every 256 iterations, and runs every chip (byte
 * and halfword accesses, shifts, mul, div and rem with zero divisors,
 * compares). Thread count 1 is the serial result. The proofs made on one
 * resident prover (gs_zkvm_prove_on: the tables in its host memory, which
 * comes back dirty from the previous program's tables) have the same bytes.
 * The CPU table's packed rows expand to the same columns in any split of
 * its rows (the prover's threads take ranges of them), each row as the row
 * alone gives it but beq/bne's T, the inverse of a - b (and no other value
 * inverted, whatever the values: the device inverts only those), the other
 * branches' T their imm, and padding rows that carry only the clock and the
 * end pc. */
#include <stdio.h>
#include <string.h>

#include "gstark/gstark.h"
#include "gstark/parallel.h"
#include "gstark/zkvm.h"
#include "test_util.h"
#include "zkvm/zk_cpu.h"
#include "zkvm_chip_test.h"
#include "zkvm_packed.h"
#include "../bench/zkvm_programs.h"

/* The mixed loop: n iterations over the input bytes (read at the start into
 * DATA + 0x400), a write of 16 bytes every 256 iterations, exit(acc). */
static gs_zkvm_program *mixed_loop(uint32_t n) {
    uint32_t w[64];
    size_t i = 0;
    a_li(w + i, 5, n), i += 2;
    w[i++] = A_LUI(6, DATA >> 12);
    w[i++] = A_ADDI(17, 0, GS_ZKVM_SYS_READ); /* read(0, DATA + 0x400, 256) */
    w[i++] = A_ADDI(10, 0, 0);
    w[i++] = A_ADDI(11, 6, 0x400);
    w[i++] = A_ADDI(12, 0, 256);
    w[i++] = A_ECALL;
    w[i++] = A_ADDI(8, 0, 7);
    const size_t loop = i;
    w[i++] = A_ANDI(13, 5, 255);
    w[i++] = A_ADD(14, 13, 6);
    w[i++] = A_LBU(7, 0x400, 14);
    w[i++] = A_ADD(8, 8, 7);
    w[i++] = A_SLLI(9, 8, 3);
    w[i++] = A_SRA(15, 9, 7);
    w[i++] = A_MUL(16, 8, 9);
    w[i++] = A_MULH(18, 16, 15);
    w[i++] = A_DIVU(19, 16, 13); /* idx 0: division by zero */
    w[i++] = A_REM(20, 18, 7);   /* input byte 0: likewise */
    w[i++] = A_XOR(8, 8, 19);
    w[i++] = A_SRL(21, 20, 13);
    w[i++] = A_SLTU(22, 21, 8);
    w[i++] = A_ADD(8, 8, 22);
    w[i++] = A_ANDI(23, 13, 0xFC);
    w[i++] = A_ADD(23, 23, 6);
    w[i++] = A_SW(20, 0, 23);
    w[i++] = A_LH(24, 2, 23);
    w[i++] = A_SB(24, 1, 23);
    w[i++] = A_LB(25, 1, 23);
    w[i++] = A_ADD(8, 8, 25);
    const size_t skip_at = i;
    w[i++] = 0; /* bne x13, x0, skip (below) */
    w[i++] = A_ADDI(17, 0, GS_ZKVM_SYS_WRITE); /* write(1, DATA, 16) */
    w[i++] = A_ADDI(10, 0, 1);
    w[i++] = A_ADDI(11, 6, 0);
    w[i++] = A_ADDI(12, 0, 16);
    w[i++] = A_ECALL;
    w[skip_at] = A_BNE(13, 0, (int32_t)(4 * (i - skip_at)));
    w[i++] = A_ADDI(5, 5, -1);
    w[i] = A_BNE(5, 0, -(int32_t)(4 * (i - loop))), i++;
    w[i++] = A_ADDI(10, 8, 0);
    w[i++] = A_ADDI(17, 0, GS_ZKVM_SYS_EXIT);
    w[i++] = A_ECALL;
    return from_words(w, i);
}

typedef struct {
    const char *name;
    gs_zkvm_program *p;
    uint8_t in[256];
    size_t in_len;
} prog_case;

/* zk_trace_run's tables for each thread count, each against 1 thread's. */
static void check_tables(const prog_case *pc) {
    static const unsigned threads[] = {1, 2, 3};
    zk_table ref[ZK_T_NUM];
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        gs_threads_set(threads[k]);
        zk_table t[ZK_T_NUM];
        char msg[300];
        gs_status s = zk_trace_run(t, pc->p, pc->in, pc->in_len, 0, NULL, msg, sizeof msg);
        CHECK(s == GS_OK);
        if (s != GS_OK) fprintf(stderr, "%s: %s\n", pc->name, msg);
        for (unsigned i = 0; i < ZK_T_NUM; i++) {
            if (k == 0) {
                ref[i] = t[i];
                continue;
            }
            int same = s == GS_OK && t[i].num_cols == ref[i].num_cols && t[i].log_n == ref[i].log_n &&
                       !memcmp(t[i].cols, ref[i].cols, ((size_t)t[i].num_cols << t[i].log_n) * sizeof(gs_fp));
            CHECK(same);
            if (!same) fprintf(stderr, "%s: table %s differs with %u threads\n", pc->name, zk_table_names[i], threads[k]);
            free(t[i].cols);
        }
    }
    uint64_t cells = 0;
    for (unsigned i = 0; i < ZK_T_NUM; i++) cells += (uint64_t)ref[i].num_cols << ref[i].log_n, free(ref[i].cols);
    printf("%-6s tables (%llu cells) equal for 1, 2, 3 threads\n", pc->name, (unsigned long long)cells);
    gs_threads_set(0);
}

static gs_prover *g_pv; /* the resident prover all cases share */

static uint8_t *proof_on(const prog_case *pc, gs_prover *pv, size_t *len) {
    gs_params par = zkt_params();
    gs_zkvm_proof *zp = NULL;
    gs_prove_opts opts = {0};
    char msg[300];
    gs_status s = gs_zkvm_prove_on(pv, &zp, NULL, pc->p, pc->in, pc->in_len, 0, &par, &opts, msg, sizeof msg);
    CHECK(s == GS_OK);
    if (s != GS_OK) fprintf(stderr, "%s on a resident prover: %s\n", pc->name, msg);
    uint8_t *b = NULL;
    *len = 0;
    if (s == GS_OK) CHECK(gs_zkvm_proof_serialize(&b, len, zp) == GS_OK);
    gs_zkvm_proof_free(zp);
    return b;
}

/* The proof bytes for each thread count and on the resident prover, each
 * against 1 thread's one-shot proof; ref (when not NULL) keeps it. */
static void check_proofs(const prog_case *pc, uint8_t **ref_out, size_t *ref_len_out) {
    static const unsigned threads[] = {1, 3, 2};
    gs_params par = zkt_params();
    uint8_t *ref = NULL;
    size_t ref_len = 0;
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        gs_threads_set(threads[k]);
        gs_zkvm_proof *zp = NULL;
        gs_zkvm_claim claim;
        gs_prove_opts opts = {0};
        char msg[300];
        gs_status s = gs_zkvm_prove(&zp, &claim, pc->p, pc->in, pc->in_len, 0, &par, &opts, msg, sizeof msg);
        CHECK(s == GS_OK);
        if (s != GS_OK) {
            fprintf(stderr, "%s: %s\n", pc->name, msg);
            continue;
        }
        CHECK(gs_zkvm_verify(NULL, pc->p, zp, 0, msg, sizeof msg) == GS_OK);
        uint8_t *b = NULL;
        size_t len = 0;
        CHECK(gs_zkvm_proof_serialize(&b, &len, zp) == GS_OK);
        if (k == 0) {
            ref = b, ref_len = len;
            printf("%-6s %llu cycles, exit code %u: proof of %zu bytes", pc->name,
                   (unsigned long long)claim.cycles, claim.exit_code, len);
        } else {
            int same = len == ref_len && !memcmp(b, ref, len);
            CHECK(same);
            if (!same) fprintf(stderr, "%s: proof bytes differ with %u threads\n", pc->name, threads[k]);
            free(b);
        }
        gs_zkvm_proof_free(zp);
    }
    gs_threads_set(0);
    size_t len = 0;
    uint8_t *b = proof_on(pc, g_pv, &len);
    CHECK(b && ref && len == ref_len && !memcmp(b, ref, len));
    free(b);
    printf(", the same bytes for 1, 2, 3 threads and on a resident prover\n");
    *ref_out = ref, *ref_len_out = ref_len;
}

static void check_unpack_ranges(uint64_t seed, uint64_t n_active, unsigned log_n) {
    const size_t n = (size_t)1 << log_n;
    size_t bytes;
    void *pk = zp_random(seed, 57, n_active, &bytes);
    gs_fp *whole = malloc(CPU_COLS * n * sizeof *whole), *split = malloc(CPU_COLS * n * sizeof *split);
    CHECK(pk && whole && split);
    if (!pk || !whole || !split) goto out;
    zk_cpu_expand(pk, whole, n, 0, n, NULL);
    /* ranges of random lengths, most not multiples of ZK_ROW_BLOCK */
    for (size_t r0 = 0, r1; r0 < n; r0 = r1) {
        r1 = r0 + 1 + (size_t)(gs_test_u64() % 700);
        if (r1 > n) r1 = n;
        zk_cpu_expand(pk, split + r0, n, r0, r1, NULL);
    }
    CHECK(!memcmp(whole, split, CPU_COLS * n * sizeof *whole));
    const zk_cpu_head *h = pk;
    const zk_cpu_prog *prog = zk_cpu_progs(h);
    const zk_cpu_rec *rec = zk_cpu_recs(h);
    size_t bad = 0, beq = 0;
    for (size_t r = 0; r < n; r++) {
        gs_fp t = whole[CPU_T * n + r], clk = whole[CPU_CLK * n + r];
        bad += clk != h->clk0 + r + 1;
        if (r >= n_active) {
            bad += whole[CPU_PC * n + r] != h->end_pc || whole[CPU_ACTIVE * n + r] != 0 || t != 0;
            continue;
        }
        const zk_cpu_prog *p = &prog[rec[r].slot];
        gs_fp one[CPU_COLS]; /* the row alone: every column but beq/bne's T as written */
        zk_cpu_row_expand(one, 1, p, &rec[r], h->clk0 + r + 1);
        for (unsigned c = 0; c < CPU_COLS; c++)
            bad += (c != CPU_T || !(p->flags & ZK_F_BEQ)) && whole[c * n + r] != one[c];
        gs_fp d = gs_fp_sub(rec[r].a, rec[r].b);
        if (p->flags & ZK_F_BEQ) beq++, bad += d ? gs_fp_mul(t, d) != 1 : t != 0;
        if (p->flags & ZK_F_BRANCH) bad += t != p->imm;
        bad += whole[CPU_ACTIVE * n + r] != 1 || whole[CPU_PC * n + r] != p->pc;
    }
    CHECK(bad == 0 && beq > 0);
    printf("packed CPU rows, %llu active of %zu, %zu beq/bne rows: %s\n", (unsigned long long)n_active, n,
           beq, bad ? "WRONG columns" : "the same columns in any split");
out:
    free(pk), free(whole), free(split);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    check_unpack_ranges(gs_test_u64(), 3001, 12);
    check_unpack_ranges(gs_test_u64(), 1u << 12, 13);
    /* about 2^14.5 cycles each: 3 replay chunks (2^13 cycles) or more, and
     * fills of more than 2 ZK_FILL_GRAIN rows */
    /* proofs: fib and mixed; tables only (fast): mem, and a mixed run long
     * enough to split the shift, mul and div fills too */
    prog_case cases[4] = {{.name = "fib", .p = fib_loop(4500)},
                          {.name = "mixed", .p = mixed_loop(800), .in_len = 200},
                          {.name = "mem", .p = mem_loop(2000)},
                          {.name = "mixed+", .p = mixed_loop(4200), .in_len = 200}};
    for (size_t i = 0; i < 200; i++) cases[1].in[i] = cases[3].in[i] = (uint8_t)gs_test_u64();
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CPU};
    CHECK(gs_prover_new(&g_pv, &cfg) == GS_OK);
    uint8_t *ref[2] = {NULL, NULL};
    size_t ref_len[2] = {0, 0};
    for (size_t c = 0; c < 4; c++) {
        CHECK(cases[c].p != NULL);
        if (!cases[c].p) continue;
        check_tables(&cases[c]);
        if (c < 2) check_proofs(&cases[c], &ref[c], &ref_len[c]);
    }
    /* fib again, its tables now in the blocks the mixed run's left dirty:
     * nothing new allocated, the same bytes */
    gs_prover_info before, after;
    gs_prover_get_info(&before, g_pv);
    size_t len = 0;
    uint8_t *b = cases[0].p ? proof_on(&cases[0], g_pv, &len) : NULL;
    gs_prover_get_info(&after, g_pv);
    CHECK(b && ref[0] && len == ref_len[0] && !memcmp(b, ref[0], len));
    CHECK(before.host_bytes > 0 && after.host_bytes == before.host_bytes && after.host_pinned_bytes == 0);
    printf("fib again on the resident prover: the same bytes, %zu host bytes held before and after\n",
           after.host_bytes);
    free(b), free(ref[0]), free(ref[1]);
    gs_prover_free(g_pv);
    for (size_t c = 0; c < 4; c++) gs_zkvm_program_free(cases[c].p);
    return gs_test_done();
}
