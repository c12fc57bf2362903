/* Proving runs of RV32IM programs (docs/zkvm.md, "Proving a run"): programs
 * made with the test assembler are executed, proven and verified; the claim
 * carries the exit code and cycle count the executor reports; a proof does
 * not verify against another program; what the AIR cannot prove yet is
 * refused with the reason. Soundness of each table against a cheating
 * prover is tested per table (test_zkvm_alu, _muldiv, _ls) and here for the
 * CPU and memory tables (test_cheat_*). */
#include <stdio.h>
#include <string.h>

#include "gstark/gstark.h"
#include "gstark/zkvm.h"
#include "test_util.h"
#include "zkvm_chip_test.h"
#include "zkvm/zk_cpu.h"
#include "zkvm_asm.h"

#define TEXT GS_ZKVM_TEXT_BASE
#define DATA 0x00020000u

typedef struct {
    uint32_t w[512];
    unsigned n;
} code_t;

static void emit(code_t *c, uint32_t w) { c->w[c->n++] = w; }
static void li(code_t *c, uint32_t rd, uint32_t v) {
    a_li(c->w + c->n, rd, v);
    c->n += 2;
}
static void exit_with(code_t *c, uint32_t reg) {
    emit(c, A_ADDI(10, reg, 0));
    li(c, 17, GS_ZKVM_SYS_EXIT);
    emit(c, A_ECALL);
}

static gs_zkvm_program *program(const code_t *c, const uint8_t *data, uint32_t data_len,
                                uint32_t data_mem) {
    uint8_t text[sizeof c->w];
    for (unsigned i = 0; i < c->n; i++) {
        text[4 * i] = (uint8_t)c->w[i], text[4 * i + 1] = (uint8_t)(c->w[i] >> 8);
        text[4 * i + 2] = (uint8_t)(c->w[i] >> 16), text[4 * i + 3] = (uint8_t)(c->w[i] >> 24);
    }
    gs_zkvm_segment segs[2] = {
        {.vaddr = TEXT, .memsz = 4 * c->n, .data = text, .filesz = 4 * c->n,
         .flags = GS_ZKVM_SEG_X | GS_ZKVM_SEG_R},
        {.vaddr = DATA, .memsz = data_mem, .data = data, .filesz = data_len,
         .flags = GS_ZKVM_SEG_R | GS_ZKVM_SEG_W}};
    gs_zkvm_program *p = NULL;
    char msg[200];
    gs_status s = gs_zkvm_program_new(&p, msg, sizeof msg, segs, data_mem ? 2 : 1, TEXT);
    if (s != GS_OK) fprintf(stderr, "program: %s\n", msg);
    return p;
}

/* Runs p on the fast path for the expected claim, proves and verifies. */
static gs_zkvm_proof *prove_and_check(const gs_zkvm_program *p, const char *what) {
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_result res;
    CHECK(gs_zkvm_vm_new(&vm, p, NULL, 0) == GS_OK);
    CHECK(gs_zkvm_vm_run(vm, &res, 1u << 20) == GS_OK);
    CHECK(res.stop == GS_ZKVM_EXITED);
    gs_zkvm_vm_free(vm);

    gs_params par = zkt_params();
    gs_zkvm_proof *proof = NULL;
    gs_zkvm_claim claim, vclaim;
    char msg[400];
    gs_status s = gs_zkvm_prove(&proof, &claim, p, NULL, 0, 0, &par, NULL, msg, sizeof msg);
    if (s != GS_OK) fprintf(stderr, "%s: prove: %s (%s)\n", what, gs_status_str(s), msg);
    CHECK(s == GS_OK);
    if (s != GS_OK) return NULL;
    CHECK_EQ_U64(claim.exit_code, res.exit_code);
    CHECK_EQ_U64(claim.cycles, res.cycles);
    s = gs_zkvm_verify(&vclaim, p, proof, 80, msg, sizeof msg);
    if (s != GS_OK) fprintf(stderr, "%s: verify: %s (%s)\n", what, gs_status_str(s), msg);
    CHECK(s == GS_OK);
    CHECK_EQ_U64(vclaim.exit_code, res.exit_code);
    CHECK_EQ_U64(vclaim.cycles, res.cycles);
    CHECK(memcmp(&vclaim.program, &claim.program, sizeof claim.program) == 0);
    gs_zkvm_claim read;
    CHECK(gs_zkvm_proof_claim(&read, proof) == GS_OK && memcmp(&read, &claim, sizeof claim) == 0);
    return proof;
}

/* exit(42): the smallest run. */
static void test_exit(void) {
    code_t c = {.n = 0};
    li(&c, 5, 42);
    exit_with(&c, 5);
    gs_zkvm_program *p = program(&c, NULL, 0, 0);
    gs_zkvm_proof *proof = prove_and_check(p, "exit");

    /* Another program (a different exit code in its text) refuses it. */
    code_t c2 = {.n = 0};
    li(&c2, 5, 43);
    exit_with(&c2, 5);
    gs_zkvm_program *p2 = program(&c2, NULL, 0, 0);
    char msg[400];
    CHECK(gs_zkvm_verify(NULL, p2, proof, 80, msg, sizeof msg) == GS_ERR_PROOF_STATEMENT);

    /* A claim edited in the proof (the exit code, the cycle count) fails the
     * transcript or the constraints. */
    gs_fp keep = proof->proof->tables[0].pub[1];
    proof->proof->tables[0].pub[1] = 41;
    CHECK(gs_zkvm_verify(NULL, p, proof, 80, msg, sizeof msg) != GS_OK);
    proof->proof->tables[0].pub[1] = keep;
    keep = proof->proof->tables[0].pub[2];
    proof->proof->tables[0].pub[2] = keep + 1;
    CHECK(gs_zkvm_verify(NULL, p, proof, 80, msg, sizeof msg) != GS_OK);
    proof->proof->tables[0].pub[2] = keep;
    CHECK(gs_zkvm_verify(NULL, p, proof, 80, msg, sizeof msg) == GS_OK);
    gs_zkvm_proof_free(proof);
    gs_zkvm_program_free(p2);
    gs_zkvm_program_free(p);
}

/* A loop over an array in the data segment with a function call: loads,
 * stores of every width, branches both ways, jal/jalr, and fresh memory on
 * a stack below the top of memory. */
static void test_loop(void) {
    uint8_t data[64];
    for (unsigned i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 37 + 200);
    code_t c = {.n = 0};
    li(&c, 2, GS_ZKVM_MEM_TOP - 16);  /* sp */
    li(&c, 8, DATA);                  /* s0: the array */
    li(&c, 9, 0);                     /* s1: sum */
    li(&c, 18, 0);                    /* s2: i */
    li(&c, 19, 16);                   /* s3: n */
    /* loop: */
    unsigned loop = c.n;
    emit(&c, A_SLLI(5, 18, 2));       /* t0 = i * 4 */
    emit(&c, A_ADD(5, 5, 8));
    emit(&c, A_LW(6, 0, 5));          /* t1 = a[i] */
    emit(&c, A_LB(7, 1, 5));          /* t2 = sign-extended byte 1 */
    emit(&c, A_LHU(28, 2, 5));        /* t3 = halfword 2 */
    emit(&c, A_ADD(9, 9, 6));
    emit(&c, A_XOR(9, 9, 7));
    emit(&c, A_SUB(9, 9, 28));
    emit(&c, A_SW(9, 0, 2));          /* spill to the stack */
    emit(&c, A_ADD(0, 9, 6));         /* writes to x0 are dropped */
    emit(&c, A_LW(0, 0, 5));
    emit(&c, A_JAL(0, 4));            /* a jump that links nothing */
    emit(&c, A_SB(18, 3, 5));         /* a[i] byte 3 = i */
    emit(&c, A_SH(9, 0, 5));          /* a[i] half 0 = sum */
    unsigned call = c.n;
    emit(&c, 0);                      /* jal ra, f (patched) */
    emit(&c, A_LW(9, 0, 2));          /* reload the sum */
    emit(&c, A_ADDI(18, 18, 1));
    emit(&c, A_BLT(18, 19, -4 * (int32_t)(c.n - loop)));
    unsigned to_end = c.n;
    emit(&c, 0);                      /* beq zero, zero, end (patched) */
    for (unsigned i = 0; i < 3; i++) emit(&c, A_FENCE);
    /* f: sum = sum * n + mulhu(sum, sum * n); returns */
    c.w[call] = A_JAL(1, 4 * (int32_t)(c.n - call));
    emit(&c, A_LW(9, 0, 2));
    emit(&c, A_MUL(29, 9, 19));
    emit(&c, A_MULHU(30, 9, 29));
    emit(&c, A_ADD(9, 29, 30));
    emit(&c, A_SW(9, 0, 2));
    emit(&c, A_JALR(0, 1, 0));
    emit(&c, A_FENCE);
    /* end: */
    c.w[to_end] = A_BEQ(0, 0, 4 * (int32_t)(c.n - to_end));
    emit(&c, A_LW(6, 4, 8));
    emit(&c, A_XOR(9, 9, 6));
    exit_with(&c, 9);
    gs_zkvm_program *p = program(&c, data, sizeof data, 4096);
    CHECK(p != NULL);
    if (!p) return;
    gs_zkvm_proof_free(prove_and_check(p, "loop"));
    gs_zkvm_program_free(p);
}

/* Every ALU instruction on edge values, each result folded into the exit
 * code (the executor's value is the claim: the AIR must agree with it). */
static void test_alu_ops(void) {
    static const uint32_t vals[] = {0, 1, 2, 31, 32, 0x7fffffffu, 0x80000000u, 0xffffffffu,
                                    0xfffffffeu, 0x12345678u};
    const unsigned nv = sizeof vals / sizeof vals[0];
    uint32_t rops[18] = {A_ADD(7, 5, 6), A_SUB(7, 5, 6), A_SLL(7, 5, 6), A_SLT(7, 5, 6),
                         A_SLTU(7, 5, 6), A_XOR(7, 5, 6), A_SRL(7, 5, 6), A_SRA(7, 5, 6),
                         A_OR(7, 5, 6), A_AND(7, 5, 6), A_MUL(7, 5, 6), A_MULH(7, 5, 6),
                         A_MULHSU(7, 5, 6), A_MULHU(7, 5, 6), A_DIV(7, 5, 6), A_DIVU(7, 5, 6),
                         A_REM(7, 5, 6), A_REMU(7, 5, 6)};
    for (unsigned op = 0; op < 18; op += 6) { /* three programs, 6 ops each */
        code_t c = {.n = 0};
        li(&c, 9, 0);
        for (unsigned i = 0; i < nv; i++) {
            li(&c, 5, vals[i]);
            for (unsigned j = 0; j < nv; j += 3) {
                li(&c, 6, vals[j]);
                for (unsigned k = op; k < op + 6; k++) {
                    emit(&c, rops[k]);
                    emit(&c, A_ADD(9, 9, 7));
                    emit(&c, A_SLLI(9, 9, 1));
                }
                if (c.n > 480) break;
            }
            if (c.n > 480) break;
        }
        /* immediates and the compares of branches on the same values */
        emit(&c, A_SLTI(7, 5, -1));
        emit(&c, A_ADD(9, 9, 7));
        emit(&c, A_SLTIU(7, 5, -1));
        emit(&c, A_ADD(9, 9, 7));
        emit(&c, A_SRAI(7, 5, 31));
        emit(&c, A_XOR(9, 9, 7));
        emit(&c, A_BGEU(5, 6, 8));
        emit(&c, A_ADDI(9, 9, 1));
        emit(&c, A_BGE(5, 6, 8));
        emit(&c, A_ADDI(9, 9, 3));
        emit(&c, A_BNE(5, 5, 8));
        emit(&c, A_ADDI(9, 9, 5));
        emit(&c, A_AUIPC(7, 3));
        emit(&c, A_XOR(9, 9, 7));
        exit_with(&c, 9);
        gs_zkvm_program *p = program(&c, NULL, 0, 0);
        CHECK(p != NULL);
        if (!p) continue;
        gs_zkvm_proof_free(prove_and_check(p, "alu ops"));
        gs_zkvm_program_free(p);
    }
}

/* Reads the input in pieces into an unaligned buffer, flips bit 5 of every
 * byte, writes each piece to fd 1, then 3 bytes of the data segment to fd
 * 2, and exits with the byte count. */
static gs_zkvm_program *io_program(void) {
    static const uint8_t data[8] = {'e', 'r', 'r', '!', 0x80, 0xff, 0, 1};
    code_t c = {.n = 0};
    li(&c, 2, GS_ZKVM_MEM_TOP - 255); /* sp: an unaligned buffer */
    li(&c, 18, 0);                    /* s2: total */
    unsigned loop = c.n;
    li(&c, 10, 0);
    emit(&c, A_ADDI(11, 2, 0));
    li(&c, 12, 5);
    li(&c, 17, GS_ZKVM_SYS_READ);
    emit(&c, A_ECALL);
    unsigned to_done = c.n;
    emit(&c, 0);                      /* beq a0, zero, done (patched) */
    emit(&c, A_ADDI(9, 10, 0));       /* s1 = n */
    li(&c, 5, 0);
    unsigned xl = c.n;
    emit(&c, A_ADD(6, 2, 5));
    emit(&c, A_LBU(7, 0, 6));
    emit(&c, A_XORI(7, 7, 0x20));
    emit(&c, A_SB(7, 0, 6));
    emit(&c, A_ADDI(5, 5, 1));
    emit(&c, A_BLT(5, 9, -4 * (int32_t)(c.n - xl)));
    li(&c, 10, 1);
    emit(&c, A_ADDI(11, 2, 0));
    emit(&c, A_ADDI(12, 9, 0));
    li(&c, 17, GS_ZKVM_SYS_WRITE);
    emit(&c, A_ECALL);
    emit(&c, A_ADD(18, 18, 9));
    emit(&c, A_JAL(0, -4 * (int32_t)(c.n - loop)));
    c.w[to_done] = A_BEQ(10, 0, 4 * (int32_t)(c.n - to_done));
    li(&c, 10, 2);
    li(&c, 11, DATA + 1);
    li(&c, 12, 3);
    li(&c, 17, GS_ZKVM_SYS_WRITE);
    emit(&c, A_ECALL);
    exit_with(&c, 18);
    return program(&c, data, sizeof data, 4096);
}

/* Input and output: the run is proven with its bytes, the file form
 * round-trips, and the proof is refused against another input or output. */
static void test_io(void) {
    gs_zkvm_program *p = io_program();
    CHECK(p != NULL);
    if (!p) return;
    const char *inputs[3] = {"", "Hello, zkVM world: 0123456789 \x7f!", "abcde"};
    for (unsigned k = 0; k < 3; k++) {
        const uint8_t *in = (const uint8_t *)inputs[k];
        size_t len = strlen(inputs[k]);
        gs_params par = zkt_params();
        gs_zkvm_proof *zp = NULL;
        gs_zkvm_claim claim, vclaim;
        char msg[400];
        gs_status s = gs_zkvm_prove(&zp, &claim, p, in, len, 0, &par, NULL, msg, sizeof msg);
        if (s != GS_OK) fprintf(stderr, "io: %s (%s)\n", gs_status_str(s), msg);
        CHECK(s == GS_OK);
        if (s != GS_OK) continue;
        CHECK_EQ_U64(claim.exit_code, len);
        CHECK_EQ_U64(zp->out_len[0], len);
        for (size_t i = 0; i < len && i < zp->out_len[0]; i++) CHECK(zp->out[0][i] == (in[i] ^ 0x20));
        CHECK(zp->out_len[1] == 3 && memcmp(zp->out[1], "rr!", 3) == 0);
        uint8_t *bytes = NULL;
        size_t blen = 0;
        CHECK(gs_zkvm_proof_serialize(&bytes, &blen, zp) == GS_OK);
        gs_zkvm_proof *back = NULL;
        CHECK(gs_zkvm_proof_parse(&back, bytes, blen) == GS_OK);
        s = back ? gs_zkvm_verify(&vclaim, p, back, 80, msg, sizeof msg) : GS_ERR_INVALID_ARG;
        if (s != GS_OK) fprintf(stderr, "io verify: %s (%s)\n", gs_status_str(s), msg);
        CHECK(s == GS_OK);
        CHECK(memcmp(&vclaim, &claim, sizeof claim) == 0);
        /* truncations are refused */
        for (size_t cut = 0; cut < blen; cut += 1 + blen / 97) {
            gs_zkvm_proof *t = NULL;
            CHECK(gs_zkvm_proof_parse(&t, bytes, cut) != GS_OK);
            gs_zkvm_proof_free(t);
        }
        free(bytes);
        if (back && back->out_len[0]) { /* a forged output byte */
            back->out[0][back->out_len[0] / 2] ^= 1;
            CHECK(gs_zkvm_verify(NULL, p, back, 80, msg, sizeof msg) == GS_ERR_PROOF_STATEMENT);
            CHECK(strstr(msg, "output") != NULL);
            back->out[0][back->out_len[0] / 2] ^= 1;
        }
        if (back && back->in_len) { /* another input */
            back->input[0] ^= 1;
            CHECK(gs_zkvm_verify(NULL, p, back, 80, msg, sizeof msg) == GS_ERR_PROOF_STATEMENT);
            CHECK(strstr(msg, "input") != NULL);
            back->input[0] ^= 1;
        }
        if (back) { /* an output cut short (the digest over the lengths differs) */
            back->out_len[1]--;
            CHECK(gs_zkvm_verify(NULL, p, back, 80, msg, sizeof msg) == GS_ERR_PROOF_STATEMENT);
            back->out_len[1]++;
            CHECK(gs_zkvm_verify(NULL, p, back, 80, msg, sizeof msg) == GS_OK);
        }
        gs_zkvm_proof_free(back);
        gs_zkvm_proof_free(zp);
    }
    gs_zkvm_program_free(p);
}

/* ---- a cheating prover: one wrong value in the tables ---- */

typedef struct {
    int kind;
    const gs_zkvm_program *p;
    uint8_t forged_out[64];
    uint64_t forged_len;
} cheat;

enum {
    CH_REG, CH_MEM_FINAL, CH_SKIP, CH_REPEAT, CH_BRANCH, CH_EXIT, CH_OUT_BYTE, CH_LOAD,
    /* the start and end state (the first that apply to a segment too) */
    CH_FIRST_PC, CH_START_PC, CH_START_CLK, CH_START_REG, CH_END_PC, CH_END_REG, CH_END_REG_TRACE,
    CH_EXITED, CH_NUM
};
#define CH_STATE_FIRST CH_FIRST_PC
static const char *const cheat_names[CH_NUM] = {
    "a register value", "a memory cell's final value", "a skipped instruction",
    "a repeated instruction", "a wrong branch", "the exit code", "a forged output byte",
    "a loaded value", "the first row's pc (not the start pc)", "the start pc public",
    "the start clk publics", "a start register (public and initial value)", "the end pc public",
    "an end register public", "a register's final value (not the end public)",
    "the exited public"};

static gs_fp *cpu_cell(zk_table *t, unsigned col, uint64_t row) {
    return &t[ZK_T_CPU].cols[((size_t)col << t[ZK_T_CPU].log_n) + row];
}

/* The first CPU row whose flags have `bit`. */
static uint64_t row_with(zk_table *t, unsigned bit) {
    uint64_t n = (uint64_t)1 << t[ZK_T_CPU].log_n;
    for (uint64_t r = 0; r < n; r++)
        if (*cpu_cell(t, CPU_ACTIVE, r) == 1 && *cpu_cell(t, CPU_F0 + bit, r) == 1) return r;
    return 0;
}

static void tamper(zk_table *t, gs_fp **pubs, void *ctx) {
    cheat *ch = ctx;
    zk_table *cpu = &t[ZK_T_CPU];
    uint64_t n = (uint64_t)1 << cpu->log_n, r;
    switch (ch->kind) {
    case CH_REG: /* an add's result written to rd, one more */
        r = row_with(t, ZK_FB_ADD);
        *cpu_cell(t, CPU_C, r) = gs_fp_add(*cpu_cell(t, CPU_C, r), 1);
        break;
    case CH_MEM_FINAL: { /* the image's last data word: another final value */
        zk_table *im = &t[ZK_T_IMAGE];
        uint64_t rows = (uint64_t)1 << im->log_n;
        for (r = rows; r-- > 0;)
            if (im->cols[(3ull << im->log_n) + r] == 1) break; /* valid */
        im->cols[(4ull << im->log_n) + r] = gs_fp_add(im->cols[(4ull << im->log_n) + r], 7);
        break;
    }
    case CH_SKIP:   /* row 3 dropped: the rows after it move up */
    case CH_REPEAT: /* row 3 executed twice: the rows after it move down */
        for (unsigned c = 0; c < cpu->num_cols; c++) {
            if (c == CPU_CLK) continue;
            gs_fp *col = cpu->cols + ((size_t)c << cpu->log_n);
            if (ch->kind == CH_SKIP) memmove(col + 3, col + 4, (n - 4) * sizeof *col);
            else memmove(col + 4, col + 3, (n - 4) * sizeof *col);
        }
        break;
    case CH_BRANCH: /* a branch's compare result, and so its direction, flipped */
        r = row_with(t, ZK_FB_BEQ);
        if (!r) r = row_with(t, ZK_FB_BRANCH);
        *cpu_cell(t, CPU_C, r) = 1 - *cpu_cell(t, CPU_C, r);
        break;
    case CH_EXIT:
        pubs[ZK_T_CPU][ZK_PUB_EXIT_CODE] ^= 1;
        break;
    case CH_OUT_BYTE: { /* fd 1's first byte, in the stream table and the statement */
        zk_table *st = &t[ZK_T_STREAM];
        uint64_t rows = (uint64_t)1 << st->log_n;
        for (r = 0; r < rows && st->cols[r] != 1; r++) {}
        st->cols[(2ull << st->log_n) + r] ^= 1;
        ch->forged_out[0] ^= 1;
        gs_digest d = gs_zkvm_output_digest(ch->forged_out, ch->forged_len, (const uint8_t *)"rr!", 3);
        for (unsigned i = 0; i < 8; i++)
            pubs[ZK_T_CPU][ZK_PUB_OUTPUT + i] = (gs_fp)d.b[4 * i] | (gs_fp)d.b[4 * i + 1] << 8 |
                                               (gs_fp)d.b[4 * i + 2] << 16 | (gs_fp)d.b[4 * i + 3] << 24;
        break;
    }
    case CH_LOAD: /* a loaded value, one more, in the CPU and the LS request alike */
        r = row_with(t, ZK_FB_LOAD);
        *cpu_cell(t, CPU_C, r) = gs_fp_add(*cpu_cell(t, CPU_C, r), 1);
        break;
    case CH_FIRST_PC: /* the run starts one instruction later than its public says */
        *cpu_cell(t, CPU_PC, 0) = gs_fp_add(*cpu_cell(t, CPU_PC, 0), 4);
        break;
    case CH_START_PC: /* the trace as it is, the public one instruction later */
        pubs[ZK_T_CPU][ZK_PUB_START_PC] += 4;
        break;
    case CH_START_CLK: /* every table's start clk, consistently */
        pubs[ZK_T_CPU][ZK_PUB_START_CLK] += 1;
        pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_CLK0] += 1;
        pubs[ZK_T_FRESH][ZK_FRESH_PUB_CLK0] += 1;
        break;
    case CH_START_REG: { /* x9's start value, in the public and the image's initial value alike */
        zk_table *im = &t[ZK_T_IMAGE];
        im->cols[(1ull << im->log_n) + 9] = gs_fp_add(im->cols[(1ull << im->log_n) + 9], 1);
        pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_START + 9] += 1;
        break;
    }
    case CH_END_PC:
        pubs[ZK_T_CPU][ZK_PUB_END_PC] += 4;
        break;
    case CH_END_REG:
        pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_END + 10] ^= 1;
        break;
    case CH_END_REG_TRACE: { /* x10's final value in the image table, the public unchanged */
        zk_table *im = &t[ZK_T_IMAGE];
        im->cols[(4ull << im->log_n) + 10] = gs_fp_add(im->cols[(4ull << im->log_n) + 10], 1);
        break;
    }
    case CH_EXITED:
        pubs[ZK_T_CPU][ZK_PUB_EXITED] ^= 1;
        break;
    }
}

/* A state of io_program that its reset never leads to: at the loop head
 * (after 4 cycles: sp and s2 set) with x20 set, 7 input bytes consumed and
 * the clock far on; its memory is the program's image (the state a
 * segment proof may start from today). */
static gs_zkvm_state io_mid_state(const gs_zkvm_program *p, const uint8_t *in, size_t len) {
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_result res;
    gs_zkvm_state st;
    memset(&st, 0, sizeof st);
    CHECK(gs_zkvm_vm_new(&vm, p, in, len) == GS_OK);
    if (!vm) return st;
    CHECK(gs_zkvm_vm_run(vm, &res, 4) == GS_OK && res.stop == GS_ZKVM_CYCLE_LIMIT);
    gs_zkvm_vm_get_state(vm, &st);
    gs_zkvm_vm_free(vm);
    CHECK(st.pc == TEXT + 16 && st.regs[2] == GS_ZKVM_MEM_TOP - 255);
    st.regs[20] = 0xdeadbeef;
    st.input_pos = 7;
    st.clk = ((uint64_t)1 << 40) + 4;
    return st;
}

/* Each cheat: refused by the prover's check, and its unchecked proof
 * (skip_check) rejected by the verifier; for a whole run, then the state
 * cheats again for a segment from io_mid_state that stops on its limit. */
static void test_cheats(void) {
    gs_zkvm_program *p = io_program();
    CHECK(p != NULL);
    if (!p) return;
    const uint8_t *in = (const uint8_t *)"cheat test";
    size_t len = strlen((const char *)in);
    gs_params par = zkt_params();
    gs_zkvm_state mid = io_mid_state(p, in, len);
    for (int seg = 0; seg < 2; seg++)
        for (int k = seg ? CH_STATE_FIRST : 0; k < CH_NUM; k++) {
            cheat ch = {.kind = k, .p = p, .forged_len = len};
            for (size_t i = 0; i < len; i++) ch.forged_out[i] = in[i] ^ 0x20;
            char msg[400];
            gs_zkvm_proof *zp = NULL;
            gs_prove_opts checked = {0}, unchecked = {.skip_check = 1};
            const gs_zkvm_state *start = seg ? &mid : NULL;
            const uint64_t cycles = seg ? 30 : 0;
            gs_status s = zk_prove_tampered(&zp, p, in, len, start, cycles, &par, &checked, tamper, &ch, msg,
                                            sizeof msg);
            if (s != GS_ERR_AIR_UNSATISFIED && s != GS_ERR_BUS_UNBALANCED)
                fprintf(stderr, "cheat '%s'%s: the checked prover gave %s\n", cheat_names[k],
                        seg ? " (segment)" : "", gs_status_str(s));
            CHECK(s == GS_ERR_AIR_UNSATISFIED || s == GS_ERR_BUS_UNBALANCED);
            CHECK(zp == NULL);
            ch.forged_out[0] = in[0] ^ 0x20;
            s = zk_prove_tampered(&zp, p, in, len, start, cycles, &par, &unchecked, tamper, &ch, msg,
                                  sizeof msg);
            CHECK(s == GS_OK);
            if (s != GS_OK) continue;
            if (k == CH_OUT_BYTE) zp->out[0][0] ^= 1; /* the proof claims the forged output */
            s = seg ? gs_zkvm_verify_segment(NULL, p, zp, 80, msg, sizeof msg)
                    : gs_zkvm_verify(NULL, p, zp, 80, msg, sizeof msg);
            if (s == GS_OK) fprintf(stderr, "cheat '%s'%s was accepted\n", cheat_names[k], seg ? " (segment)" : "");
            CHECK(s != GS_OK);
            gs_zkvm_proof_free(zp);
        }
    gs_zkvm_program_free(p);
}

/* The image table's final value and timestamp columns (air_mem.c: I_FVAL,
 * I_FTS) and the program table's multiplicity (after its fixed columns). */
enum { IMG_FVAL = 4, IMG_FTS = 5, PROG_MULT = ZK_PROG_FIXED };

/* A whole run of p with its tables edited by fn: the checked prover refuses
 * it with `want`, and the proof the unchecked prover makes of it is
 * rejected by the verifier. */
static void refused(const gs_zkvm_program *p, const gs_params *par, zk_tamper_fn fn, void *ctx,
                    const char *what, gs_status want) {
    char msg[400];
    gs_zkvm_proof *zp = NULL;
    gs_prove_opts checked = {0}, unchecked = {.skip_check = 1};
    gs_status s = zk_prove_tampered(&zp, p, NULL, 0, NULL, 0, par, &checked, fn, ctx, msg, sizeof msg);
    if (s != want) fprintf(stderr, "%s: the checked prover gave %s\n", what, gs_status_str(s));
    CHECK(s == want);
    CHECK(zp == NULL);
    s = zk_prove_tampered(&zp, p, NULL, 0, NULL, 0, par, &unchecked, fn, ctx, msg, sizeof msg);
    CHECK(s == GS_OK);
    if (s != GS_OK) return;
    s = gs_zkvm_verify(NULL, p, zp, 80, msg, sizeof msg);
    if (s == GS_OK) fprintf(stderr, "%s: accepted\n", what);
    CHECK(s != GS_OK);
    gs_zkvm_proof_free(zp);
}

/* ---- the CPU table's last row: balanced forgeries through its interactions ---- */

/* The last row is padding that no transition reaches; before its flags were
 * pinned (found 2026-12-04) its bus interactions could take any
 * multiplicity. Each forgery below keeps every bus balanced and every
 * transition satisfied, so only the last row's boundaries refuse it. */
enum { LR_ALU, LR_WRITE };

static gs_fp *tab_cell(zk_table *t, unsigned tab, unsigned col, uint64_t row) {
    return &t[tab].cols[((size_t)col << t[tab].log_n) + row];
}

/* The range and byte tables' multiplicities recounted from every other
 * table's rows (through the AIRs' own interactions), after an edit. */
static void recount_lookups(zk_table *t, gs_fp **pubs) {
    gs_air *(*const make[ZK_T_NUM])(void) = {
        [ZK_T_CPU] = zk_cpu_air, [ZK_T_PROG] = zk_prog_air, [ZK_T_IMAGE] = zk_image_air,
        [ZK_T_FRESH] = zk_fresh_air, [ZK_T_ALU] = zk_alu_air, [ZK_T_SHIFT] = zk_shift_air,
        [ZK_T_MUL] = zk_mul_air, [ZK_T_DIV] = zk_div_air, [ZK_T_LS] = zk_ls_air,
        [ZK_T_IO] = zk_io_air, [ZK_T_STREAM] = zk_stream_air};
    zk_lookups *lk = calloc(1, sizeof *lk);
    CHECK(lk != NULL);
    if (!lk) return;
    for (unsigned k = 0; k < ZK_T_NUM; k++) {
        if (!make[k]) continue;
        gs_air *air = make[k]();
        CHECK(air != NULL);
        if (!air) continue;
        CHECK(zk_each_interaction(air, t[k].cols, t[k].log_n, pubs[k], zkt_count, lk) == GS_OK);
        gs_air_free(air);
    }
    zk_table r, b; /* the counts' columns: range 1, byte 5..8 */
    CHECK(zk_range_fill(&r, lk) == GS_OK && zk_byte_fill(&b, lk) == GS_OK);
    size_t rn = (size_t)1 << r.log_n, bn = (size_t)1 << b.log_n;
    memcpy(zk_col(&t[ZK_T_RANGE], 1), zk_col(&r, 1), rn * sizeof(gs_fp));
    memcpy(zk_col(&t[ZK_T_BYTE], 5), zk_col(&b, 5), 4 * bn * sizeof(gs_fp));
    free(r.cols), free(b.cols), free(lk);
}

/* The gap limbs of a register access at ts whose previous access was at
 * ts_prev (the previous timestamp is ts - 1 - (lo + 2^16 hi)). */
static void set_gap(zk_table *t, unsigned lo_col, uint64_t row, gs_fp ts, gs_fp ts_prev) {
    gs_fp d = ts - ts_prev - 1;
    *tab_cell(t, ZK_T_CPU, lo_col, row) = d & 0xffff;
    *tab_cell(t, ZK_T_CPU, lo_col + 1, row) = d >> 16;
}

static void tamper_last_row(zk_table *t, gs_fp **pubs, void *ctx) {
    int kind = *(const int *)ctx;
    zk_table *cpu = &t[ZK_T_CPU];
    uint64_t n = (uint64_t)1 << cpu->log_n, last = n - 1;
    if (kind == LR_WRITE) { /* a write of x5 = 77 after the run: a forged end register */
        gs_fp clk = *tab_cell(t, ZK_T_CPU, CPU_CLK, last), ts = gs_fp_add(gs_fp_mul(4, clk), 3);
        *tab_cell(t, ZK_T_CPU, CPU_F0 + ZK_FB_WR, last) = 1;
        *tab_cell(t, ZK_T_CPU, CPU_RD, last) = 5;
        *tab_cell(t, ZK_T_CPU, CPU_D_PREV, last) = *tab_cell(t, ZK_T_IMAGE, 4, 5);
        set_gap(t, CPU_D_LO, last, ts, *tab_cell(t, ZK_T_IMAGE, 5, 5));
        *tab_cell(t, ZK_T_CPU, CPU_C, last) = 77;
        *tab_cell(t, ZK_T_IMAGE, 4, 5) = 77;
        *tab_cell(t, ZK_T_IMAGE, 5, 5) = ts;
        pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_END + 5] = 77;
        recount_lookups(t, pubs);
        return;
    }
    /* 2 ^ 7 = 4: the xor's result and the exit code forged, the ALU chip's
     * row for (XOR, 2, 7, 5) dropped, and the last row receiving the forged
     * (XOR, 2, 7, 4) with f_alu = -1. */
    uint64_t rxor = n, rcall = n;
    for (uint64_t r = 0; r < n; r++) {
        if (*tab_cell(t, ZK_T_CPU, CPU_ACTIVE, r) != 1) continue;
        if (*tab_cell(t, ZK_T_CPU, CPU_F0 + ZK_FB_ALU, r) == 1) rxor = r;
        if (*tab_cell(t, ZK_T_CPU, CPU_E_EXIT, r) == 1) rcall = r;
    }
    CHECK(rxor < n && rcall < n);
    if (rxor >= n || rcall >= n) return;
    *tab_cell(t, ZK_T_CPU, CPU_C, rxor) = 4;
    *tab_cell(t, ZK_T_CPU, CPU_B, rcall) = 4;
    *tab_cell(t, ZK_T_CPU, CPU_D_PREV, rcall) = 4;
    *tab_cell(t, ZK_T_CPU, CPU_C, rcall) = 4;
    pubs[ZK_T_CPU][ZK_PUB_EXIT_CODE] = 4;
    *tab_cell(t, ZK_T_IMAGE, 4, 10) = 4;
    pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_END + 10] = 4;
    /* the ALU chip's row: c is its column 17 (src/zkvm/air_alu.c) */
    zk_table *alu = &t[ZK_T_ALU];
    uint64_t an = (uint64_t)1 << alu->log_n, dropped = 0;
    for (uint64_t r = 0; r < an && !dropped; r++)
        if (*tab_cell(t, ZK_T_ALU, 17, r) == 5) {
            for (unsigned c = 0; c < alu->num_cols; c++) *tab_cell(t, ZK_T_ALU, c, r) = 0;
            dropped = 1;
        }
    CHECK(dropped);
    *tab_cell(t, ZK_T_CPU, CPU_F0 + ZK_FB_ALU, last) = gs_fp_neg(1);
    *tab_cell(t, ZK_T_CPU, CPU_OP, last) = ZK_ALU_XOR;
    *tab_cell(t, ZK_T_CPU, CPU_A, last) = 2;
    *tab_cell(t, ZK_T_CPU, CPU_B, last) = 7;
    *tab_cell(t, ZK_T_CPU, CPU_C, last) = 4;
    recount_lookups(t, pubs);
}

/* li x5, 2; li x6, 7; xor x10, x5, x6; exit(x10): each forgery refused by
 * the checked prover, and its unchecked proof rejected. */
static void test_last_row(void) {
    code_t c = {0};
    li(&c, 5, 2);
    li(&c, 6, 7);
    emit(&c, A_XOR(10, 5, 6));
    li(&c, 17, GS_ZKVM_SYS_EXIT);
    emit(&c, A_ECALL);
    gs_zkvm_program *p = program(&c, NULL, 0, 0);
    CHECK(p != NULL);
    if (!p) return;
    gs_params par = zkt_params();
    static const char *const names[] = {"last row: a forged ALU result",
                                        "last row: a register written after the run"};
    /* balanced: only the boundaries refuse it */
    for (int kind = LR_ALU; kind <= LR_WRITE; kind++)
        refused(p, &par, tamper_last_row, &kind, names[kind], GS_ERR_AIR_UNSATISFIED);
    gs_zkvm_program_free(p);
}

/* ---- the CPU row's own arithmetic: add, addi, sub, beq and bne ---- */

/* li x5, 0xffffffff; li x6, 1; add x7, x5, x6; sub x8, x6, x5;
 * beq x5, x6, +4; bne x5, x5, +4; xor x9, x5, x6; xori x28, x5, 3;
 * slti x29, x6, 2; blt x6, x5, +4; exit(0). The branches' targets are their
 * next slots, so a forged compare leaves the pc rule satisfied and only the
 * compare's own constraints can refuse it; x7 and x8 are not read again, so
 * a forged result needs only its final image value and end public. */
enum { AR_PC_ADD = TEXT + 16, AR_PC_SUB = TEXT + 20, AR_PC_BEQ = TEXT + 24, AR_PC_BNE = TEXT + 28,
       AR_PC_XORI = TEXT + 36, AR_PC_BLT = TEXT + 44 };
enum { AR_ADD_C, AR_ADD_CARRY, AR_SUB_BORROW, AR_CARRY_FIELD, AR_NO_WRAP, AR_BEQ_EQUAL, AR_BNE_UNEQUAL,
       AR_BEQ_TAKEN, AR_BNE_TAKEN_FIELD, AR_ALU_T, AR_BRANCH_T, AR_NUM };
static const struct {
    const char *what;
    gs_status want; /* from the checked prover */
} arith_edits[AR_NUM] = {
    {"add: c + 1 with its limbs", GS_ERR_AIR_UNSATISFIED},
    {"add: the carry flipped", GS_ERR_AIR_UNSATISFIED},
    {"sub: the borrow flipped", GS_ERR_AIR_UNSATISFIED},
    /* a carry that is a field element other than 0 and 1 satisfies the
     * relation with any c in range: only its booleanity stops it */
    {"add: any c, the carry a field element", GS_ERR_AIR_UNSATISFIED},
    /* c = 2^32 without the wrap, carry 0: the relation holds, the high limb
     * 2^16 is no 16-bit value and the range lookup objects */
    {"add: 2^32 without the wrap", GS_ERR_BUS_UNBALANCED},
    {"beq: unequal operands claimed equal", GS_ERR_AIR_UNSATISFIED},
    {"bne: equal operands claimed unequal", GS_ERR_AIR_UNSATISFIED},
    /* CH holds a branch's taken (the CPU table of degree 3): the targets are
     * the next slots, so the pc rule holds whatever CH; only the constraint
     * (f_branch + f_beq)(CH - taken) refuses these */
    {"beq: not taken, CH claims taken", GS_ERR_AIR_UNSATISFIED},
    {"bne: not taken, CH a field element", GS_ERR_AIR_UNSATISFIED},
    /* the request's operand is b + imm - T: T pinned to 0 on ALU rows and
     * to imm on branch rows; each forgery below keeps every bus balanced
     * (the chip's row is a copy of another valid one), so only those two
     * constraints refuse it */
    {"xori: T = 2 makes it 0xffffffff ^ 1", GS_ERR_AIR_UNSATISFIED},
    {"blt: T moves the compare to 1 < 2, taken", GS_ERR_AIR_UNSATISFIED},
};

/* The ALU chip's row of op with result c (a real row: its selector set). */
static uint64_t alu_row(zk_table *t, unsigned op, gs_fp c) {
    uint64_t n = (uint64_t)1 << t[ZK_T_ALU].log_n;
    for (uint64_t r = 0; r < n; r++)
        if (t[ZK_T_ALU].cols[((size_t)(op - ZK_ALU_XOR) << t[ZK_T_ALU].log_n) + r] == 1 &&
            t[ZK_T_ALU].cols[((size_t)17 << t[ZK_T_ALU].log_n) + r] == c) /* c: column 17 */
            return r;
    CHECK(0);
    return 0;
}

/* The ALU chip's row dst made a copy of row src. */
static void alu_copy_row(zk_table *t, uint64_t dst, uint64_t src) {
    for (unsigned c = 0; c < t[ZK_T_ALU].num_cols; c++)
        t[ZK_T_ALU].cols[((size_t)c << t[ZK_T_ALU].log_n) + dst] =
            t[ZK_T_ALU].cols[((size_t)c << t[ZK_T_ALU].log_n) + src];
}

static uint64_t row_at_pc(zk_table *t, gs_fp pc) {
    uint64_t n = (uint64_t)1 << t[ZK_T_CPU].log_n;
    for (uint64_t r = 0; r < n; r++)
        if (*cpu_cell(t, CPU_ACTIVE, r) == 1 && *cpu_cell(t, CPU_PC, r) == pc) return r;
    CHECK(0);
    return 0;
}

/* rd's value forged to v on row r: its write, its final value and end public. */
static void forge_rd(zk_table *t, gs_fp **pubs, uint64_t r, gs_fp v) {
    uint64_t rd = *cpu_cell(t, CPU_RD, r);
    *cpu_cell(t, CPU_C, r) = v;
    *cpu_cell(t, CPU_CH, r) = v >> 16;
    *tab_cell(t, ZK_T_IMAGE, IMG_FVAL, rd) = v;
    pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_END + rd] = v;
}

static void tamper_arith(zk_table *t, gs_fp **pubs, void *ctx) {
    const int kind = *(const int *)ctx;
    const gs_fp two32 = (gs_fp)1 << 32;
    uint64_t r;
    switch (kind) {
    case AR_ADD_C: /* 0xffffffff + 1 = 1 */
        forge_rd(t, pubs, row_at_pc(t, AR_PC_ADD), 1);
        break;
    case AR_ADD_CARRY:
        r = row_at_pc(t, AR_PC_ADD);
        *cpu_cell(t, CPU_T, r) = 1 - *cpu_cell(t, CPU_T, r);
        break;
    case AR_SUB_BORROW:
        r = row_at_pc(t, AR_PC_SUB);
        *cpu_cell(t, CPU_T, r) = 1 - *cpu_cell(t, CPU_T, r);
        break;
    case AR_CARRY_FIELD: /* c = 5, carry = (a + b - c) / 2^32 in Fp */
        r = row_at_pc(t, AR_PC_ADD);
        forge_rd(t, pubs, r, 5);
        *cpu_cell(t, CPU_T, r) = gs_fp_mul(gs_fp_sub(two32, 5), gs_fp_inv(two32));
        break;
    case AR_NO_WRAP:
        r = row_at_pc(t, AR_PC_ADD);
        forge_rd(t, pubs, r, two32);
        *cpu_cell(t, CPU_T, r) = 0;
        break;
    case AR_BEQ_EQUAL: /* 0xffffffff = 1, with T = 0: (a - b) T = 1 - c holds */
        r = row_at_pc(t, AR_PC_BEQ);
        *cpu_cell(t, CPU_C, r) = 1;
        *cpu_cell(t, CPU_T, r) = 0;
        break;
    case AR_BNE_UNEQUAL: /* x5 != x5: c = 0, whatever T */
        r = row_at_pc(t, AR_PC_BNE);
        *cpu_cell(t, CPU_C, r) = 0;
        *cpu_cell(t, CPU_T, r) = 1;
        break;
    case AR_BEQ_TAKEN:
        r = row_at_pc(t, AR_PC_BEQ);
        CHECK(*cpu_cell(t, CPU_CH, r) == 0);
        *cpu_cell(t, CPU_CH, r) = 1;
        break;
    case AR_BNE_TAKEN_FIELD:
        r = row_at_pc(t, AR_PC_BNE);
        CHECK(*cpu_cell(t, CPU_CH, r) == 0);
        *cpu_cell(t, CPU_CH, r) = 12345;
        break;
    case AR_ALU_T: /* xori x28, x5, 3 requests (XOR, x5, 0 + 3 - 2, c): xor x9's tuple */
        r = row_at_pc(t, AR_PC_XORI);
        CHECK(*cpu_cell(t, CPU_T, r) == 0);
        *cpu_cell(t, CPU_T, r) = 2;
        forge_rd(t, pubs, r, 0xfffffffeu);
        alu_copy_row(t, alu_row(t, ZK_ALU_XOR, 0xfffffffcu), alu_row(t, ZK_ALU_XOR, 0xfffffffeu));
        break;
    case AR_BRANCH_T: /* blt x6, x5 requests (SLT, 1, 0xffffffff + imm - T, c) = slti x29's (SLT, 1, 2, 1) */
        r = row_at_pc(t, AR_PC_BLT);
        CHECK(*cpu_cell(t, CPU_T, r) == *cpu_cell(t, CPU_IMM, r));
        *cpu_cell(t, CPU_T, r) = gs_fp_add(*cpu_cell(t, CPU_IMM, r), 0xffffffffu - 2);
        *cpu_cell(t, CPU_C, r) = 1;
        *cpu_cell(t, CPU_CH, r) = 1; /* taken: to pc + imm, the next slot */
        alu_copy_row(t, alu_row(t, ZK_ALU_SLT, 0), alu_row(t, ZK_ALU_SLT, 1));
        break;
    }
    recount_lookups(t, pubs);
}

static void test_cpu_arith(void) {
    code_t c = {0};
    li(&c, 5, 0xffffffffu);
    li(&c, 6, 1);
    emit(&c, A_ADD(7, 5, 6));
    emit(&c, A_SUB(8, 6, 5));
    emit(&c, A_BEQ(5, 6, 4));
    emit(&c, A_BNE(5, 5, 4));
    emit(&c, A_XOR(9, 5, 6));
    emit(&c, A_XORI(28, 5, 3));
    emit(&c, A_SLTI(29, 6, 2));
    emit(&c, A_BLT(6, 5, 4));
    exit_with(&c, 0);
    gs_zkvm_program *p = program(&c, NULL, 0, 0);
    CHECK(p != NULL);
    if (!p) return;
    gs_zkvm_proof_free(prove_and_check(p, "cpu arithmetic"));
    gs_params par = zkt_params();
    for (int kind = 0; kind < AR_NUM; kind++)
        refused(p, &par, tamper_arith, &kind, arith_edits[kind].what, arith_edits[kind].want);
    gs_zkvm_program_free(p);
}

/* ---- a segment ending just past the text ---- */


/* Program: addi x5, x0, 1; jal x1, +4 (two words: the jal's target is
 * text_hi, where the executor faults). The honest proof is of the addi
 * alone; this adds the jal as CPU row 1, writing x1 = text_hi, with the
 * register accesses, range counts, program count and final image tuples
 * that keep every bus balanced, and claims 2 cycles ending at text_hi.
 * (Found by review, 2026-12-04: the verifier took an end pc of text_hi.) */
static void tamper_jump_past_text(zk_table *t, gs_fp **pubs, void *ctx) {
    (void)ctx;
    const uint64_t r = 1, n = (uint64_t)1 << t[ZK_T_CPU].log_n;
    const gs_fp hi = TEXT + 8;
    gs_fp x0_ts = *tab_cell(t, ZK_T_IMAGE, IMG_FTS, 0), x1_ts = *tab_cell(t, ZK_T_IMAGE, IMG_FTS, 1);
    gs_fp x1_v = *tab_cell(t, ZK_T_IMAGE, IMG_FVAL, 1), clk = *tab_cell(t, ZK_T_CPU, CPU_CLK, r);
    gs_fp ts_a = 4 * clk, ts_b = 4 * clk + 1, ts_d = 4 * clk + 3;
    /* jal x1 to text_hi: x0 + imm with imm the target */
    static const unsigned cols[] = {CPU_ACTIVE, CPU_PC, CPU_RD, CPU_IMM, CPU_F0 + ZK_FB_JUMP,
                                    CPU_F0 + ZK_FB_WR, CPU_C, CPU_D_PREV};
    const gs_fp vals[] = {1, TEXT + 4, 1, hi, 1, 1, hi, x1_v};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) *tab_cell(t, ZK_T_CPU, cols[i], r) = vals[i];
    set_gap(t, CPU_A_LO, r, ts_a, x0_ts);
    set_gap(t, CPU_B_LO, r, ts_b, ts_a);
    set_gap(t, CPU_D_LO, r, ts_d, x1_ts);
    for (uint64_t k = r + 1; k < n; k++) *tab_cell(t, ZK_T_CPU, CPU_PC, k) = hi; /* where it leads */
    *tab_cell(t, ZK_T_PROG, PROG_MULT, 1) += 1;
    *tab_cell(t, ZK_T_IMAGE, IMG_FTS, 0) = ts_b;
    *tab_cell(t, ZK_T_IMAGE, IMG_FVAL, 1) = hi;
    *tab_cell(t, ZK_T_IMAGE, IMG_FTS, 1) = ts_d;
    pubs[ZK_T_IMAGE][ZK_IMAGE_PUB_END + 1] = hi;
    pubs[ZK_T_CPU][ZK_PUB_CYCLES] = 2;
    pubs[ZK_T_CPU][ZK_PUB_END_PC] = hi;
    recount_lookups(t, pubs);
}

static void test_jump_past_text(void) {
    code_t c = {0};
    emit(&c, A_ADDI(5, 0, 1));
    emit(&c, A_JAL(1, 4));
    gs_zkvm_program *p = program(&c, NULL, 0, 0);
    CHECK(p != NULL);
    if (!p) return;
    gs_zkvm_vm *vm = NULL; /* the executor's truth: the jal faults */
    gs_zkvm_result res;
    CHECK(gs_zkvm_vm_new(&vm, p, NULL, 0) == GS_OK);
    CHECK(gs_zkvm_vm_run(vm, &res, 2) == GS_OK);
    CHECK(res.stop == GS_ZKVM_FAULT && res.cycles == 1);
    gs_zkvm_vm_free(vm);

    gs_params par = zkt_params();
    char msg[400];
    gs_zkvm_proof *zp = NULL;
    gs_prove_opts unchecked = {.skip_check = 1};
    gs_status s = zk_prove_tampered(&zp, p, NULL, 0, NULL, 1, &par, &unchecked, tamper_jump_past_text,
                                    NULL, msg, sizeof msg);
    CHECK(s == GS_OK);
    if (s == GS_OK) {
        s = gs_zkvm_verify_segment(NULL, p, zp, 80, msg, sizeof msg);
        if (s == GS_OK) fprintf(stderr, "a segment ending in a jump past the text was accepted\n");
        CHECK(s == GS_ERR_PROOF_STATEMENT);
        gs_zkvm_proof_free(zp);
    }
    gs_zkvm_program_free(p);

    /* Falling through to text_hi is no fault yet, but no segment ends there:
     * the prover refuses it; one cycle less is a segment like any other. */
    code_t d = {0};
    emit(&d, A_ADDI(5, 0, 1));
    emit(&d, A_ADDI(6, 0, 2));
    p = program(&d, NULL, 0, 0);
    CHECK(p != NULL);
    if (!p) return;
    zp = NULL;
    s = gs_zkvm_prove_segment(&zp, NULL, p, NULL, 0, NULL, 2, &par, NULL, msg, sizeof msg);
    CHECK(s == GS_ERR_INVALID_ARG && zp == NULL && strstr(msg, "just past the program's text") != NULL);
    s = gs_zkvm_prove_segment(&zp, NULL, p, NULL, 0, NULL, 1, &par, NULL, msg, sizeof msg);
    CHECK(s == GS_OK);
    if (s == GS_OK) CHECK(gs_zkvm_verify_segment(NULL, p, zp, 80, msg, sizeof msg) == GS_OK);
    gs_zkvm_proof_free(zp);
    gs_zkvm_program_free(p);
}

/* Changes one public of a valid proof (table t, index i, by delta) and
 * checks that verify (whole: gs_zkvm_verify, else _segment) rejects it,
 * then that the restored proof verifies again. */
static void reject_edited(const gs_zkvm_program *p, gs_zkvm_proof *zp, int whole, unsigned t,
                          unsigned i, gs_fp delta, const char *what) {
    char msg[400];
    gs_fp *pub = &zp->proof->tables[t].pub[i], keep = *pub;
    *pub = gs_fp_add(keep, delta);
    gs_status s = whole ? gs_zkvm_verify(NULL, p, zp, 80, msg, sizeof msg)
                        : gs_zkvm_verify_segment(NULL, p, zp, 80, msg, sizeof msg);
    if (s == GS_OK) fprintf(stderr, "an edited %s was accepted (%s)\n", what, whole ? "whole run" : "segment");
    CHECK(s != GS_OK);
    *pub = keep;
    s = whole ? gs_zkvm_verify(NULL, p, zp, 80, msg, sizeof msg)
              : gs_zkvm_verify_segment(NULL, p, zp, 80, msg, sizeof msg);
    CHECK(s == GS_OK);
}

static void reject_state_edits(const gs_zkvm_program *p, gs_zkvm_proof *zp, int whole) {
    reject_edited(p, zp, whole, ZK_T_CPU, ZK_PUB_START_PC, 4, "start pc");
    reject_edited(p, zp, whole, ZK_T_CPU, ZK_PUB_START_CLK, 1, "start clk");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_CLK0, 1, "start clk (image)");
    reject_edited(p, zp, whole, ZK_T_FRESH, ZK_FRESH_PUB_CLK0, 1, "start clk (fresh)");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_START + 5, 1, "start register x5");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_START + 20, 3, "start register x20");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_START + ZK_CURSOR_ADDR, 1, "start input position");
    reject_edited(p, zp, whole, ZK_T_CPU, ZK_PUB_END_PC, 4, "end pc");
    reject_edited(p, zp, whole, ZK_T_CPU, ZK_PUB_CYCLES, 1, "end clk");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_END + 10, 1, "end register x10");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_END + 31, 1, "end register x31");
    reject_edited(p, zp, whole, ZK_T_IMAGE, ZK_IMAGE_PUB_END + ZK_CURSOR_ADDR, 1, "end input position");
    reject_edited(p, zp, whole, ZK_T_CPU, ZK_PUB_EXITED, 1, "exited flag");
}

/* Segments: proofs of runs that start at a given state and stop on their
 * cycle limit, their claims against the executor's states, and the
 * whole-run verifier refusing them. */
static void test_segments(void) {
    gs_zkvm_program *p = io_program();
    CHECK(p != NULL);
    if (!p) return;
    const uint8_t *in = (const uint8_t *)"segments of a run";
    size_t len = strlen((const char *)in);
    gs_params par = zkt_params();
    char msg[400];
    gs_zkvm_state mid = io_mid_state(p, in, len);
    struct {
        const gs_zkvm_state *start;
        uint64_t cycles;
        int exits;
    } cases[3] = {{NULL, 37, 0}, {&mid, 45, 0}, {&mid, 0, 1}};
    for (unsigned c = 0; c < 3; c++) {
        /* what the executor says */
        gs_zkvm_vm *vm = NULL;
        gs_zkvm_result res;
        CHECK(gs_zkvm_vm_new_at(&vm, p, in, len, cases[c].start, NULL) == GS_OK);
        if (!vm) continue;
        CHECK(gs_zkvm_vm_run(vm, &res, cases[c].cycles ? cases[c].cycles : UINT64_MAX) == GS_OK);
        CHECK(res.stop == (cases[c].exits ? GS_ZKVM_EXITED : GS_ZKVM_CYCLE_LIMIT));
        gs_zkvm_state want_end, want_start;
        gs_zkvm_vm_get_state(vm, &want_end);
        if (cases[c].start) want_start = *cases[c].start;
        else gs_zkvm_reset_state(&want_start, p);

        gs_zkvm_proof *zp = NULL;
        gs_zkvm_claim claim, vclaim, read;
        gs_status s = gs_zkvm_prove_segment(&zp, &claim, p, in, len, cases[c].start, cases[c].cycles, &par,
                                            NULL, msg, sizeof msg);
        if (s != GS_OK) fprintf(stderr, "segment %u: %s (%s)\n", c, gs_status_str(s), msg);
        CHECK(s == GS_OK);
        if (s != GS_OK) {
            gs_zkvm_vm_free(vm);
            continue;
        }
        CHECK(memcmp(&claim.start, &want_start, sizeof want_start) == 0);
        CHECK(memcmp(&claim.end, &want_end, sizeof want_end) == 0);
        CHECK(claim.exited == (uint32_t)cases[c].exits && claim.cycles == want_end.clk);
        CHECK(claim.exit_code == (cases[c].exits ? res.exit_code : 0));
        size_t l1, l2;
        gs_zkvm_vm_output(vm, 1, &l1), gs_zkvm_vm_output(vm, 2, &l2);
        CHECK(zp->out_len[0] == l1 && zp->out_len[1] == l2);
        s = gs_zkvm_verify_segment(&vclaim, p, zp, 80, msg, sizeof msg);
        if (s != GS_OK) fprintf(stderr, "segment %u verify: %s (%s)\n", c, gs_status_str(s), msg);
        CHECK(s == GS_OK);
        CHECK(memcmp(&vclaim, &claim, sizeof claim) == 0);
        CHECK(gs_zkvm_proof_claim(&read, zp) == GS_OK && memcmp(&read, &claim, sizeof claim) == 0);
        /* not a whole run: refused by the whole-run verifier, with the reason */
        CHECK(gs_zkvm_verify(NULL, p, zp, 80, msg, sizeof msg) == GS_ERR_PROOF_STATEMENT);
        CHECK(strstr(msg, "segment") != NULL);
        reject_state_edits(p, zp, 0);
        gs_zkvm_proof_free(zp);
        gs_zkvm_vm_free(vm);
    }
    /* a whole run: its publics are the reset state and an exit, and an edit
     * of any state public is rejected */
    gs_zkvm_proof *zp = NULL;
    gs_zkvm_claim claim;
    CHECK(gs_zkvm_prove(&zp, &claim, p, in, len, 0, &par, NULL, msg, sizeof msg) == GS_OK);
    if (zp) {
        gs_zkvm_state reset;
        gs_zkvm_reset_state(&reset, p);
        CHECK(memcmp(&claim.start, &reset, sizeof reset) == 0 && claim.exited == 1);
        CHECK(claim.end.input_pos == len && claim.end.clk == claim.cycles);
        CHECK(gs_zkvm_verify_segment(NULL, p, zp, 80, msg, sizeof msg) == GS_OK);
        reject_state_edits(p, zp, 1);
    }
    gs_zkvm_proof_free(zp);
    /* Two segment proofs whose states chain into the whole run: the first
     * 4 cycles write no memory, so the second segment's memory is the
     * image, the one case a later segment can be proven in today (its
     * memory is not bound to the first's: docs/zkvm.md, "Segments"). */
    gs_zkvm_claim whole, c1, c2;
    gs_zkvm_proof *z1 = NULL, *z2 = NULL;
    CHECK(gs_zkvm_prove(&zp, &whole, p, in, len, 0, &par, NULL, msg, sizeof msg) == GS_OK);
    CHECK(gs_zkvm_prove_segment(&z1, &c1, p, in, len, NULL, 4, &par, NULL, msg, sizeof msg) == GS_OK);
    if (z1) {
        CHECK(!c1.exited && c1.end.clk == 4 && z1->out_len[0] == 0 && z1->out_len[1] == 0);
        CHECK(gs_zkvm_prove_segment(&z2, &c2, p, in, len, &c1.end, 0, &par, NULL, msg, sizeof msg) == GS_OK);
    }
    if (zp && z1 && z2) {
        CHECK(gs_zkvm_verify_segment(NULL, p, z1, 80, msg, sizeof msg) == GS_OK);
        CHECK(gs_zkvm_verify_segment(NULL, p, z2, 80, msg, sizeof msg) == GS_OK);
        CHECK(memcmp(&c2.start, &c1.end, sizeof c1.end) == 0);
        CHECK(memcmp(&c2.end, &whole.end, sizeof whole.end) == 0);
        CHECK(c2.exited && c2.exit_code == whole.exit_code && c2.cycles == whole.cycles);
        CHECK(z2->out_len[0] == zp->out_len[0] && !memcmp(z2->out[0], zp->out[0], (size_t)zp->out_len[0]));
        CHECK(z2->out_len[1] == zp->out_len[1] && !memcmp(z2->out[1], zp->out[1], (size_t)zp->out_len[1]));
        CHECK(memcmp(&c1.start, &whole.start, sizeof whole.start) == 0);
    }
    gs_zkvm_proof_free(zp), gs_zkvm_proof_free(z1), gs_zkvm_proof_free(z2);
    zp = NULL;
    /* a start the program cannot have, a segment that runs nothing */
    gs_zkvm_state bad = mid;
    bad.pc = TEXT + 2;
    CHECK(gs_zkvm_prove_segment(&zp, NULL, p, in, len, &bad, 10, &par, NULL, msg, sizeof msg) ==
          GS_ERR_INVALID_ARG);
    bad = mid, bad.clk = (uint64_t)1 << 50;
    CHECK(gs_zkvm_prove_segment(&zp, NULL, p, in, len, &bad, 10, &par, NULL, msg, sizeof msg) ==
          GS_ERR_INVALID_ARG);
    gs_zkvm_program_free(p);
}

/* What cannot be proven is refused with the reason. */
static void test_refusals(void) {
    gs_params par = zkt_params();
    gs_zkvm_proof *proof = NULL;
    char msg[400];
    gs_zkvm_program *p;
    /* a fault */
    code_t f = {.n = 0};
    emit(&f, A_LW(5, 0, 0));
    exit_with(&f, 5);
    p = program(&f, NULL, 0, 0);
    CHECK(gs_zkvm_prove(&proof, NULL, p, NULL, 0, 0, &par, NULL, msg, sizeof msg) == GS_ERR_INVALID_ARG);
    CHECK(proof == NULL && strstr(msg, "faulted") != NULL);
    gs_zkvm_program_free(p);
    /* a run that does not end within the limit */
    code_t l = {.n = 0};
    emit(&l, A_JAL(0, 0));
    p = program(&l, NULL, 0, 0);
    CHECK(gs_zkvm_prove(&proof, NULL, p, NULL, 0, 1000, &par, NULL, msg, sizeof msg) == GS_ERR_UNSUPPORTED);
    CHECK(proof == NULL && strstr(msg, "segment") != NULL);
    gs_zkvm_program_free(p);
}

/* gs_zkvm_prove_provable: the parameters chosen for the run's tables are the
 * proof's, reach the target and verify; an unreachable target or none is
 * refused with nothing proven. */
static void test_provable(void) {
    code_t c = {.n = 0};
    li(&c, 5, 7);
    exit_with(&c, 5);
    gs_zkvm_program *p = program(&c, NULL, 0, 0);
    gs_params base = zkt_params();
    base.grinding_bits = 4;
    gs_zkvm_provable tg = {.bits = 90};
    gs_zkvm_proof *proof = NULL;
    char msg[400];
    CHECK(gs_zkvm_prove_provable(&proof, NULL, p, NULL, 0, 0, &base, &tg, NULL, msg, sizeof msg) == GS_OK);
    CHECK(proof != NULL);
    if (proof) {
        const gs_params *q = &proof->proof->params;
        CHECK(memcmp(q, &tg.chosen, sizeof *q) == 0);
        CHECK_EQ_U64(q->grinding_bits, 4); /* the rest is the base's */
        CHECK(q->log_blowup >= 1 && q->log_blowup <= 4);
        CHECK(gs_multi_proof_security_provable(proof->proof) >= 90);
        CHECK(gs_zkvm_verify(NULL, p, proof, 80, msg, sizeof msg) == GS_OK);
    }
    gs_zkvm_proof_free(proof);
    proof = NULL;
    /* blowup 2 only, no grinding: 128 bits provable is out of reach */
    base.grinding_bits = 0;
    gs_zkvm_provable far = {.bits = 128, .min_log_blowup = 1, .max_log_blowup = 1};
    CHECK(gs_zkvm_prove_provable(&proof, NULL, p, NULL, 0, 0, &base, &far, NULL, msg, sizeof msg) ==
          GS_ERR_PROOF_PARAMS);
    CHECK(proof == NULL && strstr(msg, "cannot be reached") != NULL);
    CHECK(far.reachable > 0 && far.reachable < 128);
    CHECK(gs_zkvm_prove_provable(&proof, NULL, p, NULL, 0, 0, &base, NULL, NULL, msg, sizeof msg) ==
          GS_ERR_INVALID_ARG);
    gs_zkvm_program_free(p);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_exit();
    test_refusals();
    test_provable();
    test_loop();
    test_io();
    test_cheats();
    test_last_row();
    test_cpu_arith();
    test_jump_past_text();
    test_segments();
    test_alu_ops();
    return gs_test_done();
}
