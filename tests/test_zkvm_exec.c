/* The zkVM's executor: every RV32IM instruction against hand-computed
 * vectors and the spec's edge cases, the system calls, the faults, the
 * cycle limit and resumption, segment runs (machines started at a given
 * state, test_segments), and the fast and traced paths against each
 * other on every case and on random instruction streams (each trace is also
 * replayed against an independent model, tests/zkvm_oracle.h), and the
 * pages a machine marks written (what the prover's end-state check
 * compares: test_written_pages).
 *
 *   test_zkvm_exec [--seed N]                 the tests
 *   test_zkvm_exec --compare PROG.elf [IN]    runs an ELF on both paths and
 *                                             checks they agree, and that
 *                                             segment runs end the same
 *                                             (exit 0/1)
 *   test_zkvm_exec --write-elf KIND OUT.elf   writes a program: KIND a seed
 *                                             for a random one that faults
 *                                             nowhere and prints its
 *                                             registers and data page (the
 *                                             differential test against
 *                                             qemu-riscv32), or fault, loop,
 *                                             exit3, echo (the CLI tests) */
#include "test_util.h"
#include "util/pages.h"
#include "zkvm/zkvm_int.h"
#include "zkvm_asm.h"
#include "zkvm_oracle.h"

#define TEXT 0x10000u
#define DATA 0x20000u
#define DATA_SIZE 0x2000u
#define EXIT_SEQ 2 /* li a7, 93; ecall */

typedef struct run {
    gs_zkvm_program *p;
    gs_zkvm_vm *fast, *traced;
    gs_zkvm_trace *tr;
    gs_zkvm_result rf, rt;
} run_t;

static void run_free(run_t *r) {
    gs_zkvm_vm_free(r->fast);
    gs_zkvm_vm_free(r->traced);
    gs_zkvm_trace_free(r->tr);
    gs_zkvm_program_free(r->p);
    memset(r, 0, sizeof *r);
}

/* 1 if the two machines and results agree in everything. */
static int same_machines(const gs_zkvm_vm *a, const gs_zkvm_result *ra, const gs_zkvm_vm *b,
                         const gs_zkvm_result *rb) {
    if (ra->stop != rb->stop || ra->exit_code != rb->exit_code || ra->cycles != rb->cycles ||
        ra->fault != rb->fault || ra->fault_pc != rb->fault_pc || ra->fault_addr != rb->fault_addr ||
        strcmp(ra->msg, rb->msg)) {
        fprintf(stderr, "results differ: stop %d/%d cycles %llu/%llu fault %d/%d '%s' / '%s'\n", ra->stop,
                rb->stop, (unsigned long long)ra->cycles, (unsigned long long)rb->cycles, ra->fault,
                rb->fault, ra->msg, rb->msg);
        return 0;
    }
    if (memcmp(gs_zkvm_vm_regs(a), gs_zkvm_vm_regs(b), 32 * sizeof(uint32_t)) ||
        gs_zkvm_vm_pc(a) != gs_zkvm_vm_pc(b) || gs_zkvm_vm_cycles(a) != gs_zkvm_vm_cycles(b) ||
        gs_zkvm_vm_input_pos(a) != gs_zkvm_vm_input_pos(b)) {
        fprintf(stderr, "registers, pc, cycles or input position differ\n");
        return 0;
    }
    if (memcmp(gs_zkvm_vm_memory(a), gs_zkvm_vm_memory(b), GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO)) {
        fprintf(stderr, "memories differ\n");
        return 0;
    }
    for (unsigned fd = 1; fd <= 2; fd++) {
        size_t la, lb;
        const uint8_t *oa = gs_zkvm_vm_output(a, fd, &la), *ob = gs_zkvm_vm_output(b, fd, &lb);
        if (la != lb || (la && memcmp(oa, ob, la))) {
            fprintf(stderr, "fd %u outputs differ\n", fd);
            return 0;
        }
    }
    return 1;
}

/* Runs p on both paths from the given registers and input, checks that they
 * agree and that the trace replays; r keeps both machines for the caller. */
static void run_prog(run_t *r, gs_zkvm_program *p, const uint32_t *regs, const uint8_t *in,
                     size_t inlen, uint64_t max) {
    memset(r, 0, sizeof *r);
    r->p = p;
    CHECK(gs_zkvm_vm_new(&r->fast, p, in, inlen) == GS_OK);
    CHECK(gs_zkvm_vm_new(&r->traced, p, in, inlen) == GS_OK);
    CHECK(gs_zkvm_trace_new(&r->tr) == GS_OK);
    if (!r->fast || !r->traced || !r->tr) exit(1);
    uint32_t regs0[32] = {0};
    for (unsigned k = 1; regs && k < 32; k++) {
        regs0[k] = regs[k];
        gs_zkvm_vm_set_reg(r->fast, k, regs[k]);
        gs_zkvm_vm_set_reg(r->traced, k, regs[k]);
    }
    uint8_t *mem0 = malloc(GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO);
    if (!mem0) exit(1);
    memcpy(mem0, gs_zkvm_vm_memory(r->traced), GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO);
    CHECK(gs_zkvm_vm_run(r->fast, &r->rf, max) == GS_OK);
    CHECK(gs_zkvm_vm_run_traced(r->traced, r->tr, &r->rt, max) == GS_OK);
    CHECK(same_machines(r->fast, &r->rf, r->traced, &r->rt));
    CHECK_EQ_U64(r->tr->n_steps, r->rt.cycles);
    CHECK(zk_replay(r->tr, regs0, mem0, in, r->traced) == 0);
    free(mem0);
}

/* A program of words at TEXT (then li a7, 93; ecall) and data at DATA. */
static gs_zkvm_program *make_prog(const uint32_t *w, size_t n, const uint8_t *data, size_t dlen) {
    uint8_t *text = malloc(4 * (n + EXIT_SEQ));
    if (!text) exit(1);
    uint32_t tail[EXIT_SEQ] = {A_ADDI(17, 0, 93), A_ECALL};
    for (size_t i = 0; i < n + EXIT_SEQ; i++) {
        uint32_t v = i < n ? w[i] : tail[i - n];
        text[4 * i] = (uint8_t)v, text[4 * i + 1] = (uint8_t)(v >> 8);
        text[4 * i + 2] = (uint8_t)(v >> 16), text[4 * i + 3] = (uint8_t)(v >> 24);
    }
    gs_zkvm_segment s[2] = {
        {.vaddr = TEXT, .memsz = (uint32_t)(4 * (n + EXIT_SEQ)), .data = text,
         .filesz = (uint32_t)(4 * (n + EXIT_SEQ)), .flags = GS_ZKVM_SEG_R | GS_ZKVM_SEG_X},
        {.vaddr = DATA, .memsz = DATA_SIZE, .data = data, .filesz = (uint32_t)dlen,
         .flags = GS_ZKVM_SEG_R | GS_ZKVM_SEG_W}};
    gs_zkvm_program *p = NULL;
    char msg[160];
    gs_status st = gs_zkvm_program_new(&p, msg, sizeof msg, s, 2, TEXT);
    if (st != GS_OK) {
        fprintf(stderr, "make_prog: %s\n", msg);
        exit(1);
    }
    free(text);
    return p;
}

/* Runs words (exit appended) with x1 = a, x2 = b; returns x3. */
static uint32_t run3(uint32_t insn, uint32_t a, uint32_t b) {
    uint32_t regs[32] = {0};
    regs[1] = a, regs[2] = b;
    run_t r;
    run_prog(&r, make_prog(&insn, 1, NULL, 0), regs, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED);
    CHECK_EQ_U64(r.rf.cycles, 3);
    uint32_t v = gs_zkvm_vm_regs(r.fast)[3];
    run_free(&r);
    return v;
}

typedef struct vec {
    const char *name;
    uint32_t insn, a, b, want;
} vec;

static void test_alu(void) {
    const vec v[] = {
        {"add", A_ADD(3, 1, 2), 1, 2, 3},
        {"add wrap", A_ADD(3, 1, 2), 0xFFFFFFFF, 1, 0},
        {"add overflow", A_ADD(3, 1, 2), 0x7FFFFFFF, 1, 0x80000000},
        {"sub", A_SUB(3, 1, 2), 5, 3, 2},
        {"sub wrap", A_SUB(3, 1, 2), 0, 1, 0xFFFFFFFF},
        {"sub overflow", A_SUB(3, 1, 2), 0x80000000, 1, 0x7FFFFFFF},
        {"sll", A_SLL(3, 1, 2), 1, 31, 0x80000000},
        {"sll by 32 masked", A_SLL(3, 1, 2), 1, 32, 1},
        {"sll by 33 masked", A_SLL(3, 1, 2), 3, 33, 6},
        {"sll", A_SLL(3, 1, 2), 0xF0F0F0F0, 4, 0x0F0F0F00},
        {"slt neg<0", A_SLT(3, 1, 2), 0xFFFFFFFF, 0, 1},
        {"slt 0<neg", A_SLT(3, 1, 2), 0, 0xFFFFFFFF, 0},
        {"slt min<max", A_SLT(3, 1, 2), 0x80000000, 0x7FFFFFFF, 1},
        {"slt equal", A_SLT(3, 1, 2), 5, 5, 0},
        {"sltu big<0", A_SLTU(3, 1, 2), 0xFFFFFFFF, 0, 0},
        {"sltu 0<big", A_SLTU(3, 1, 2), 0, 0xFFFFFFFF, 1},
        {"sltu equal", A_SLTU(3, 1, 2), 5, 5, 0},
        {"xor", A_XOR(3, 1, 2), 0xFF00FF00, 0x0FF00FF0, 0xF0F0F0F0},
        {"or", A_OR(3, 1, 2), 0xFF00FF00, 0x0FF00FF0, 0xFFF0FFF0},
        {"and", A_AND(3, 1, 2), 0xFF00FF00, 0x0FF00FF0, 0x0F000F00},
        {"srl", A_SRL(3, 1, 2), 0x80000000, 31, 1},
        {"srl by 32 masked", A_SRL(3, 1, 2), 0x80000000, 32, 0x80000000},
        {"srl by 36 masked", A_SRL(3, 1, 2), 0xF0000000, 36, 0x0F000000},
        {"sra negative", A_SRA(3, 1, 2), 0x80000000, 31, 0xFFFFFFFF},
        {"sra negative 4", A_SRA(3, 1, 2), 0x80000000, 4, 0xF8000000},
        {"sra positive", A_SRA(3, 1, 2), 0x40000000, 4, 0x04000000},
        {"sra by 32 masked", A_SRA(3, 1, 2), 0x80000000, 32, 0x80000000},
        {"sra by -31 masked to 1", A_SRA(3, 1, 2), 0x80000000, 0xFFFFFFE1, 0xC0000000},
        {"mul", A_MUL(3, 1, 2), 3, 4, 12},
        {"mul -1*-1", A_MUL(3, 1, 2), 0xFFFFFFFF, 0xFFFFFFFF, 1},
        {"mul low bits", A_MUL(3, 1, 2), 0x10000, 0x10000, 0},
        {"mul min*2", A_MUL(3, 1, 2), 0x80000000, 2, 0},
        {"mulh -1*-1", A_MULH(3, 1, 2), 0xFFFFFFFF, 0xFFFFFFFF, 0},
        {"mulh min*min", A_MULH(3, 1, 2), 0x80000000, 0x80000000, 0x40000000},
        {"mulh min*1", A_MULH(3, 1, 2), 0x80000000, 1, 0xFFFFFFFF},
        {"mulh max*max", A_MULH(3, 1, 2), 0x7FFFFFFF, 0x7FFFFFFF, 0x3FFFFFFF},
        {"mulh small", A_MULH(3, 1, 2), 2, 3, 0},
        {"mulhsu -1*(2^32-1)", A_MULHSU(3, 1, 2), 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF},
        {"mulhsu min*(2^32-1)", A_MULHSU(3, 1, 2), 0x80000000, 0xFFFFFFFF, 0x80000000},
        {"mulhsu 2*2^31", A_MULHSU(3, 1, 2), 2, 0x80000000, 1},
        {"mulhsu max*(2^32-1)", A_MULHSU(3, 1, 2), 0x7FFFFFFF, 0xFFFFFFFF, 0x7FFFFFFE},
        {"mulhu", A_MULHU(3, 1, 2), 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE},
        {"mulhu 2^31*2", A_MULHU(3, 1, 2), 0x80000000, 2, 1},
        {"mulhu small", A_MULHU(3, 1, 2), 3, 4, 0},
        {"div", A_DIV(3, 1, 2), 7, 2, 3},
        {"div -7/2 truncates", A_DIV(3, 1, 2), 0xFFFFFFF9, 2, 0xFFFFFFFD},
        {"div 7/-2", A_DIV(3, 1, 2), 7, 0xFFFFFFFE, 0xFFFFFFFD},
        {"div -7/-2", A_DIV(3, 1, 2), 0xFFFFFFF9, 0xFFFFFFFE, 3},
        {"div by zero", A_DIV(3, 1, 2), 1234, 0, 0xFFFFFFFF},
        {"div 0/0", A_DIV(3, 1, 2), 0, 0, 0xFFFFFFFF},
        {"div overflow", A_DIV(3, 1, 2), 0x80000000, 0xFFFFFFFF, 0x80000000},
        {"divu", A_DIVU(3, 1, 2), 7, 2, 3},
        {"divu big", A_DIVU(3, 1, 2), 0xFFFFFFF9, 2, 0x7FFFFFFC},
        {"divu by zero", A_DIVU(3, 1, 2), 5, 0, 0xFFFFFFFF},
        {"divu min/-1", A_DIVU(3, 1, 2), 0x80000000, 0xFFFFFFFF, 0},
        {"rem", A_REM(3, 1, 2), 7, 2, 1},
        {"rem -7%2", A_REM(3, 1, 2), 0xFFFFFFF9, 2, 0xFFFFFFFF},
        {"rem 7%-2", A_REM(3, 1, 2), 7, 0xFFFFFFFE, 1},
        {"rem -7%-2", A_REM(3, 1, 2), 0xFFFFFFF9, 0xFFFFFFFE, 0xFFFFFFFF},
        {"rem by zero", A_REM(3, 1, 2), 0xFFFFFFF9, 0, 0xFFFFFFF9},
        {"rem overflow", A_REM(3, 1, 2), 0x80000000, 0xFFFFFFFF, 0},
        {"remu", A_REMU(3, 1, 2), 7, 2, 1},
        {"remu big", A_REMU(3, 1, 2), 0xFFFFFFF9, 2, 1},
        {"remu by zero", A_REMU(3, 1, 2), 5, 0, 5},
        {"remu min%-1", A_REMU(3, 1, 2), 0x80000000, 0xFFFFFFFF, 0x80000000},
        {"addi -1", A_ADDI(3, 1, -1), 1, 0, 0},
        {"addi overflow", A_ADDI(3, 1, 1), 0x7FFFFFFF, 0, 0x80000000},
        {"addi -2048", A_ADDI(3, 1, -2048), 0, 0, 0xFFFFF800},
        {"addi 2047", A_ADDI(3, 1, 2047), 0, 0, 0x7FF},
        {"slti neg<0", A_SLTI(3, 1, 0), 0xFFFFFFFF, 0, 1},
        {"slti 0<-1", A_SLTI(3, 1, -1), 0, 0, 0},
        {"sltiu 0<(unsigned)-1", A_SLTIU(3, 1, -1), 0, 0, 1},
        {"sltiu max<max", A_SLTIU(3, 1, -1), 0xFFFFFFFF, 0, 0},
        {"sltiu 5<6", A_SLTIU(3, 1, 6), 5, 0, 1},
        {"xori -1 is not", A_XORI(3, 1, -1), 0x12345678, 0, 0xEDCBA987},
        {"ori", A_ORI(3, 1, 0xFF), 0x100, 0, 0x1FF},
        {"andi sign-extended", A_ANDI(3, 1, -2048), 0xFFFFFFFF, 0, 0xFFFFF800},
        {"slli 31", A_SLLI(3, 1, 31), 1, 0, 0x80000000},
        {"srli 31", A_SRLI(3, 1, 31), 0x80000000, 0, 1},
        {"srai 31", A_SRAI(3, 1, 31), 0x80000000, 0, 0xFFFFFFFF},
        {"srai positive", A_SRAI(3, 1, 30), 0x7FFFFFFF, 0, 1},
        {"srai 0", A_SRAI(3, 1, 0), 0x80000001, 0, 0x80000001},
        {"lui", A_LUI(3, 0xFFFFF), 0, 0, 0xFFFFF000},
        {"auipc", A_AUIPC(3, 1), 0, 0, TEXT + 0x1000},
        {"auipc wraps", A_AUIPC(3, 0x80000), 0, 0, TEXT + 0x80000000u},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t got = run3(v[i].insn, v[i].a, v[i].b);
        if (got != v[i].want) {
            fprintf(stderr, "%s: 0x%08x op 0x%08x = 0x%08x, want 0x%08x\n", v[i].name, v[i].a, v[i].b,
                    got, v[i].want);
            gs_test_failures++;
        }
        gs_test_checks++;
    }
}

static void test_x0(void) {
    /* Writes to x0 are dropped, whatever writes them. */
    uint32_t w[] = {A_ADDI(0, 0, 5), A_LUI(0, 0x12345), A_LW(0, 0, 16), A_JAL(0, 4),
                    A_ADD(3, 0, 0), A_ADDI(4, 0, 0)};
    uint32_t regs[32] = {0};
    regs[16] = DATA;
    uint8_t d[4] = {1, 2, 3, 4};
    run_t r;
    run_prog(&r, make_prog(w, 6, d, 4), regs, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[0], 0);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[3], 0);
    /* the trace records 0 as x0's written value */
    CHECK_EQ_U64(r.tr->steps[0].rd_val, 0);
    CHECK_EQ_U64(r.tr->steps[2].rd_val, 0);
    run_free(&r);
}

static void test_loads_stores(void) {
    const uint8_t d[8] = {0x80, 0x7F, 0x00, 0x80, 0x78, 0x56, 0x34, 0x12};
    struct {
        uint32_t insn, want;
    } ld[] = {
        {A_LB(3, 0, 1), 0xFFFFFF80}, {A_LBU(3, 0, 1), 0x80},       {A_LB(3, 1, 1), 0x7F},
        {A_LB(3, 3, 1), 0xFFFFFF80}, {A_LH(3, 0, 1), 0x7F80},      {A_LH(3, 2, 1), 0xFFFF8000},
        {A_LHU(3, 2, 1), 0x8000},    {A_LW(3, 4, 1), 0x12345678},  {A_LW(3, 0, 1), 0x80007F80},
        {A_LBU(3, 7, 1), 0x12},      {A_LW(3, -4, 2), 0x12345678}, {A_LH(3, -2, 2), 0x1234},
    };
    for (size_t i = 0; i < sizeof ld / sizeof ld[0]; i++) {
        uint32_t regs[32] = {0};
        regs[1] = DATA, regs[2] = DATA + 8;
        run_t r;
        run_prog(&r, make_prog(&ld[i].insn, 1, d, 8), regs, NULL, 0, 100);
        CHECK(r.rf.stop == GS_ZKVM_EXITED);
        CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[3], ld[i].want);
        CHECK_EQ_U64(r.tr->steps[0].mem_addr, (regs[(ld[i].insn >> 15) & 31] + (uint32_t)((int32_t)ld[i].insn >> 20)));
        run_free(&r);
    }
    /* Stores write only their bytes, little-endian. */
    uint32_t w[] = {A_SB(2, 16, 1), A_SH(2, 22, 1), A_SW(2, 28, 1), A_SB(2, -1, 1), A_SH(0, 30, 1)};
    uint32_t regs[32] = {0};
    regs[1] = DATA + 4, regs[2] = 0x12345678;
    uint8_t init[40];
    memset(init, 0xAA, sizeof init);
    run_t r;
    run_prog(&r, make_prog(w, 5, init, sizeof init), regs, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED);
    const uint8_t *m = gs_zkvm_vm_memory(r.fast) + (DATA - GS_ZKVM_MEM_LO);
    const uint8_t want[40] = {0xAA, 0xAA, 0xAA, 0x78, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA,
                              0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA,
                              0x78, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0x78, 0x56, 0xAA, 0xAA,
                              0xAA, 0xAA, 0x78, 0x56, 0x00, 0x00, 0xAA, 0xAA, 0xAA, 0xAA};
    /* sw at DATA+32 wrote 78 56 34 12, then sh x0 at DATA+34 zeroed 34 12 */
    CHECK(memcmp(m, want, sizeof want) == 0);
    /* The trace: the word before and after the sb at DATA+20. */
    CHECK_EQ_U64(r.tr->steps[0].mem_addr, DATA + 20);
    CHECK_EQ_U64(r.tr->steps[0].mem_before, 0xAAAAAAAA);
    CHECK_EQ_U64(r.tr->steps[0].mem_after, 0xAAAAAA78);
    CHECK_EQ_U64(r.tr->steps[0].rs2_val, 0x12345678);
    CHECK_EQ_U64(r.tr->steps[0].rd_val, 0);
    run_free(&r);
}

/* Runs one instruction with x1 = a and checks the fault. */
static void expect_fault(const char *name, uint32_t insn, uint32_t a, gs_zkvm_fault f, uint32_t addr,
                         const char *text) {
    uint32_t regs[32] = {0};
    regs[1] = a, regs[2] = 0x01020304;
    uint32_t w[2] = {A_ADDI(5, 0, 1), insn};
    run_t r;
    run_prog(&r, make_prog(w, 2, NULL, 0), regs, NULL, 0, 100);
    int ok = r.rf.stop == GS_ZKVM_FAULT && r.rf.fault == f && r.rf.fault_pc == TEXT + 4 &&
             r.rf.fault_addr == addr && r.rf.cycles == 1 && strstr(r.rf.msg, "pc 0x00010004") &&
             (!text || strstr(r.rf.msg, text));
    if (!ok)
        fprintf(stderr, "%s: stop %d fault %d (%s) at 0x%08x addr 0x%08x: '%s'\n", name, r.rf.stop,
                r.rf.fault, gs_zkvm_fault_str(r.rf.fault), r.rf.fault_pc, r.rf.fault_addr, r.rf.msg);
    CHECK(ok);
    /* The faulting instruction is not counted and changes nothing. */
    CHECK_EQ_U64(gs_zkvm_vm_pc(r.fast), TEXT + 4);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[5], 1);
    /* A faulted machine stays so. */
    gs_zkvm_result again;
    CHECK(gs_zkvm_vm_run(r.fast, &again, 100) == GS_OK && again.stop == GS_ZKVM_FAULT &&
          again.cycles == 1);
    run_free(&r);
}

static void test_faults(void) {
    const uint32_t top = GS_ZKVM_MEM_TOP, lo = GS_ZKVM_MEM_LO;
    expect_fault("lh misaligned", A_LH(3, 1, 1), DATA, GS_ZKVM_FAULT_LOAD_MISALIGNED, DATA + 1, "misaligned 2-byte load");
    expect_fault("lw misaligned", A_LW(3, 2, 1), DATA, GS_ZKVM_FAULT_LOAD_MISALIGNED, DATA + 2, "4-byte");
    expect_fault("lhu misaligned", A_LHU(3, 3, 1), DATA, GS_ZKVM_FAULT_LOAD_MISALIGNED, DATA + 3, NULL);
    expect_fault("sw misaligned", A_SW(2, 1, 1), DATA, GS_ZKVM_FAULT_STORE_MISALIGNED, DATA + 1, "store");
    expect_fault("sh misaligned", A_SH(2, 3, 1), DATA, GS_ZKVM_FAULT_STORE_MISALIGNED, DATA + 3, NULL);
    expect_fault("lw null", A_LW(3, 0, 1), 0, GS_ZKVM_FAULT_LOAD_RANGE, 0, "outside memory");
    expect_fault("lw below", A_LW(3, -4, 1), lo, GS_ZKVM_FAULT_LOAD_RANGE, lo - 4, NULL);
    expect_fault("lw top", A_LW(3, 0, 1), top, GS_ZKVM_FAULT_LOAD_RANGE, top, NULL);
    expect_fault("lw wraps", A_LW(3, -4, 1), 0, GS_ZKVM_FAULT_LOAD_RANGE, 0xFFFFFFFC, NULL);
    expect_fault("lb top", A_LB(3, 0, 1), top, GS_ZKVM_FAULT_LOAD_RANGE, top, NULL);
    expect_fault("sw top", A_SW(2, 0, 1), top, GS_ZKVM_FAULT_STORE_RANGE, top, NULL);
    expect_fault("sb below", A_SB(2, -1, 1), lo, GS_ZKVM_FAULT_STORE_RANGE, lo - 1, NULL);
    expect_fault("sw text", A_SW(2, 0, 1), TEXT, GS_ZKVM_FAULT_STORE_TEXT, TEXT, "read-only text");
    expect_fault("sb last text byte", A_SB(2, 4 * 4 - 1, 1), TEXT, GS_ZKVM_FAULT_STORE_TEXT, TEXT + 15, NULL);
    expect_fault("jalr misaligned", A_JALR(3, 1, 2), TEXT, GS_ZKVM_FAULT_JUMP_MISALIGNED, TEXT + 2, NULL);
    expect_fault("jalr outside", A_JALR(3, 1, 0), DATA, GS_ZKVM_FAULT_JUMP_RANGE, DATA, "outside the text");
    expect_fault("jalr to the end", A_JALR(3, 1, 16), TEXT, GS_ZKVM_FAULT_JUMP_RANGE, TEXT + 16, NULL);
    expect_fault("jal outside", A_JAL(1, 4096), 0, GS_ZKVM_FAULT_JUMP_RANGE, TEXT + 4 + 4096, NULL);
    expect_fault("jal backwards outside", A_JAL(1, -8), 0, GS_ZKVM_FAULT_JUMP_RANGE, TEXT - 4, NULL);
    expect_fault("jal misaligned", A_JAL(1, 6), 0, GS_ZKVM_FAULT_JUMP_MISALIGNED, TEXT + 10, "not 4-byte aligned");
    expect_fault("beq misaligned", A_BEQ(0, 0, 6), 0, GS_ZKVM_FAULT_JUMP_MISALIGNED, TEXT + 10, NULL);
    expect_fault("bne outside", A_BNE(1, 0, 2048), 1, GS_ZKVM_FAULT_JUMP_RANGE, TEXT + 4 + 2048, NULL);
    expect_fault("ebreak", A_EBREAK, 0, GS_ZKVM_FAULT_EBREAK, 0, "ebreak");
    expect_fault("csrrw", 0x30001073u, 0, GS_ZKVM_FAULT_CSR, 0, "CSR");
    expect_fault("csrrs cycle", 0xC0002373u, 0, GS_ZKVM_FAULT_CSR, 0, NULL);
    expect_fault("mret", 0x30200073u, 0, GS_ZKVM_FAULT_CSR, 0, NULL);
    expect_fault("wfi", 0x10500073u, 0, GS_ZKVM_FAULT_CSR, 0, NULL);
    expect_fault("c.nop", 0x00010001u, 0, GS_ZKVM_FAULT_COMPRESSED, 0, "compressed");
    expect_fault("c.addi", 0x00000505u, 0, GS_ZKVM_FAULT_COMPRESSED, 0, NULL);
    expect_fault("zero word", 0x00000000u, 0, GS_ZKVM_FAULT_ILLEGAL, 0, "illegal instruction 0x00000000");
    expect_fault("all ones", 0xFFFFFFFFu, 0, GS_ZKVM_FAULT_ILLEGAL, 0, "illegal instruction 0xffffffff");
    expect_fault("fence.i", A_FENCE_I, 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("slli shamt 32 (RV64)", zr(1, 0, 1, 1, 3, 0x13), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("srli bad funct7", zr(0x10, 1, 1, 5, 3, 0x13), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("add bad funct7", zr(0x40, 2, 1, 0, 3, 0x33), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("xor funct7 0x20", zr(0x20, 2, 1, 4, 3, 0x33), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("branch funct3 2", zb(8, 2, 1, 2), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("ld (RV64)", zi(0, 1, 3, 3, 0x03), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("sd (RV64)", zs(0, 2, 1, 3, 0x23), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("jalr funct3 1", zi(0, 1, 1, 3, 0x67), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("addiw (RV64)", zi(1, 1, 0, 3, 0x1B), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("flw (F)", zi(0, 1, 2, 3, 0x07), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);
    expect_fault("amoadd (A)", zr(0, 2, 1, 2, 3, 0x2F), 0, GS_ZKVM_FAULT_ILLEGAL, 0, NULL);

    /* Running off the end of the text (no exit). */
    uint32_t w[2] = {A_ADDI(1, 0, 1), A_ADDI(1, 1, 1)};
    gs_zkvm_segment s = {.vaddr = TEXT, .memsz = 8, .data = (const uint8_t *)NULL, .filesz = 0,
                         .flags = GS_ZKVM_SEG_R | GS_ZKVM_SEG_X};
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
    s.data = bytes, s.filesz = 8;
    gs_zkvm_program *p = NULL;
    CHECK(gs_zkvm_program_new(&p, NULL, 0, &s, 1, TEXT) == GS_OK);
    run_t r;
    run_prog(&r, p, NULL, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_FAULT && r.rf.fault == GS_ZKVM_FAULT_FETCH && r.rf.fault_pc == TEXT + 8 &&
          r.rf.cycles == 2);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[1], 2);
    run_free(&r);
}

static void test_branches_jumps(void) {
    /* x3 = 0; b<cond> x1, x2 -> +12; x3 += 1; j +8; x3 += 2; exit:
     * x3 is 2 when taken, 1 when not. */
    struct {
        uint32_t f3;
        uint32_t a, b;
        int taken;
    } c[] = {
        {0, 5, 5, 1},           {0, 5, 6, 0},           {1, 5, 6, 1},          {1, 5, 5, 0},
        {4, 0xFFFFFFFF, 0, 1},  {4, 0, 0xFFFFFFFF, 0},  {4, 3, 3, 0},          {4, 0x80000000, 0x7FFFFFFF, 1},
        {5, 0, 0xFFFFFFFF, 1},  {5, 3, 3, 1},           {5, 0xFFFFFFFF, 0, 0}, {6, 0, 0xFFFFFFFF, 1},
        {6, 0xFFFFFFFF, 0, 0},  {6, 3, 3, 0},           {7, 0xFFFFFFFF, 0, 1}, {7, 3, 3, 1},
        {7, 0, 0xFFFFFFFF, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint32_t w[] = {A_ADDI(3, 0, 0), zb(12, 2, 1, c[i].f3), A_ADDI(3, 3, 1), A_JAL(0, 8), A_ADDI(3, 3, 2)};
        uint32_t regs[32] = {0};
        regs[1] = c[i].a, regs[2] = c[i].b;
        run_t r;
        run_prog(&r, make_prog(w, 5, NULL, 0), regs, NULL, 0, 100);
        CHECK(r.rf.stop == GS_ZKVM_EXITED);
        CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[3], c[i].taken ? 2 : 1);
        run_free(&r);
    }
    /* A backward branch: a counted loop. */
    uint32_t loop[] = {A_ADDI(1, 0, 5), A_ADDI(3, 3, 1), A_ADDI(1, 1, -1), A_BNE(1, 0, -8)};
    run_t r;
    run_prog(&r, make_prog(loop, 4, NULL, 0), NULL, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED && gs_zkvm_vm_regs(r.fast)[3] == 5);
    CHECK_EQ_U64(r.rf.cycles, 1 + 5 * 3 + 2);
    run_free(&r);
    /* A not-taken branch to a misaligned target is no fault. */
    uint32_t nt[] = {A_BNE(0, 0, 6), A_ADDI(3, 0, 7)};
    run_prog(&r, make_prog(nt, 2, NULL, 0), NULL, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED && gs_zkvm_vm_regs(r.fast)[3] == 7);
    run_free(&r);
    /* jal links pc + 4; jalr clears bit 0 of the target and links first
     * (rd = rs1 reads the old value). */
    uint32_t j[] = {A_JAL(1, 8),            /* 0x10000 -> 0x10008, x1 = 0x10004 */
                    A_ADDI(3, 0, 99),       /* skipped */
                    A_AUIPC(5, 0),          /* 0x10008: x5 = 0x10008 */
                    A_JALR(5, 5, 13),       /* 0x1000c: -> (0x10008 + 13) & ~1 = 0x10014, x5 = 0x10010 */
                    A_ADDI(3, 0, 98),       /* 0x10010 skipped */
                    A_ADDI(4, 0, 1)};       /* 0x10014 */
    run_prog(&r, make_prog(j, 6, NULL, 0), NULL, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[1], TEXT + 4);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[5], TEXT + 16);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[3], 0);
    CHECK_EQ_U64(gs_zkvm_vm_regs(r.fast)[4], 1);
    CHECK_EQ_U64(r.tr->steps[2].rs1_val, TEXT + 8); /* the jalr (the addi was skipped) */
    CHECK_EQ_U64(r.tr->steps[2].rd_val, TEXT + 16);
    CHECK_EQ_U64(r.tr->steps[3].pc, TEXT + 20);
    run_free(&r);
    /* fence is a no-op */
    uint32_t f[] = {A_ADDI(3, 0, 1), A_FENCE, A_ADDI(3, 3, 1)};
    run_prog(&r, make_prog(f, 3, NULL, 0), NULL, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED && gs_zkvm_vm_regs(r.fast)[3] == 2 && r.rf.cycles == 5);
    run_free(&r);
}

static void test_ecalls(void) {
    /* read 3, read 10 (gets 2), read at the end (0), write "hel" to 1, "lo" to 2, exit 0xFFFFFFFF */
    uint32_t w[] = {
        A_ADDI(17, 0, 63), A_ADDI(10, 0, 0), A_LUI(11, DATA >> 12), A_ADDI(12, 0, 3), A_ECALL,
        A_ADDI(20, 10, 0),
        A_ADDI(10, 0, 0), A_ADDI(11, 11, 3), A_ADDI(12, 0, 10), A_ECALL, A_ADDI(21, 10, 0),
        A_ADDI(10, 0, 0), A_ECALL, A_ADDI(22, 10, 0),
        A_ADDI(17, 0, 64), A_ADDI(10, 0, 1), A_LUI(11, DATA >> 12), A_ADDI(12, 0, 3), A_ECALL,
        A_ADDI(23, 10, 0),
        A_ADDI(10, 0, 2), A_ADDI(11, 11, 3), A_ADDI(12, 0, 2), A_ECALL,
        A_ADDI(10, 0, -1)};
    const uint8_t in[] = "hello";
    run_t r;
    run_prog(&r, make_prog(w, sizeof w / 4, NULL, 0), NULL, in, 5, 1000);
    CHECK(r.rf.stop == GS_ZKVM_EXITED && r.rf.exit_code == 0xFFFFFFFFu);
    const uint32_t *x = gs_zkvm_vm_regs(r.fast);
    CHECK(x[20] == 3 && x[21] == 2 && x[22] == 0 && x[23] == 3);
    size_t l1, l2;
    const uint8_t *o1 = gs_zkvm_vm_output(r.fast, 1, &l1), *o2 = gs_zkvm_vm_output(r.fast, 2, &l2);
    CHECK(l1 == 3 && !memcmp(o1, "hel", 3));
    CHECK(l2 == 2 && !memcmp(o2, "lo", 2));
    CHECK_EQ_U64(gs_zkvm_vm_input_pos(r.fast), 5);
    CHECK(!memcmp(gs_zkvm_vm_memory(r.fast) + DATA - GS_ZKVM_MEM_LO, "hello", 5));
    /* The io records. */
    CHECK_EQ_U64(r.tr->n_io, 5);
    CHECK(r.tr->io[1].num == 63 && r.tr->io[1].done == 2 && r.tr->io[1].len == 10 && r.tr->io[1].stream_pos == 3);
    CHECK(r.tr->io[4].num == 64 && r.tr->io[4].fd == 2 && r.tr->io[4].stream_pos == 0);
    gs_zkvm_step *last = &r.tr->steps[r.tr->n_steps - 1];
    CHECK(last->insn == A_ECALL && last->rs1_val == 93 && last->rd_val == 0xFFFFFFFFu && last->mem_after == 0);
    run_free(&r);

    /* Refused calls. */
    struct {
        const char *name;
        uint32_t a7, a0, a1, a2;
        gs_zkvm_fault f;
        uint32_t addr;
    } bad[] = {
        {"unknown ecall", 1234, 0, 0, 0, GS_ZKVM_FAULT_ECALL, 1234},
        {"openat", 56, 0, 0, 0, GS_ZKVM_FAULT_ECALL, 56},
        {"write fd 3", 64, 3, DATA, 1, GS_ZKVM_FAULT_ECALL_FD, 3},
        {"write fd 0", 64, 0, DATA, 1, GS_ZKVM_FAULT_ECALL_FD, 0},
        {"read fd 1", 63, 1, DATA, 1, GS_ZKVM_FAULT_ECALL_FD, 1},
        {"write outside", 64, 1, GS_ZKVM_MEM_TOP - 2, 4, GS_ZKVM_FAULT_ECALL_BUF, GS_ZKVM_MEM_TOP - 2},
        {"write from null", 64, 1, 0, 4, GS_ZKVM_FAULT_ECALL_BUF, 0},
        {"read into the text", 63, 0, TEXT, 4, GS_ZKVM_FAULT_ECALL_BUF, TEXT},
        {"read wraps", 63, 0, 0xFFFFFFF0u, 0x20, GS_ZKVM_FAULT_ECALL_BUF, 0xFFFFFFF0u},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t regs[32] = {0};
        regs[17] = bad[i].a7, regs[10] = bad[i].a0, regs[11] = bad[i].a1, regs[12] = bad[i].a2;
        uint32_t e = A_ECALL;
        run_prog(&r, make_prog(&e, 1, NULL, 0), regs, in, 5, 100);
        int ok = r.rf.stop == GS_ZKVM_FAULT && r.rf.fault == bad[i].f && r.rf.fault_addr == bad[i].addr &&
                 r.rf.fault_pc == TEXT && r.rf.cycles == 0;
        if (!ok) fprintf(stderr, "%s: fault %d addr 0x%x '%s'\n", bad[i].name, r.rf.fault, r.rf.fault_addr, r.rf.msg);
        CHECK(ok);
        run_free(&r);
    }
    /* A zero-length write anywhere is fine (nothing is read), and so is a
     * read whose buffer runs past memory beyond the bytes the input has
     * left (only the bytes written must be memory). */
    uint32_t regs[32] = {0};
    regs[17] = 64, regs[10] = 1, regs[11] = 0, regs[12] = 0;
    uint32_t e = A_ECALL;
    run_prog(&r, make_prog(&e, 1, NULL, 0), regs, NULL, 0, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED);
    run_free(&r);
    regs[17] = 63, regs[10] = 0, regs[11] = GS_ZKVM_MEM_TOP - 8, regs[12] = 100;
    run_prog(&r, make_prog(&e, 1, NULL, 0), regs, in, 5, 100);
    CHECK(r.rf.stop == GS_ZKVM_EXITED && r.tr->n_io == 1 && r.tr->io[0].done == 5);
    run_free(&r);
}

/* The cycle limit, and running on from it in pieces (segments) on either
 * path: the same end as one run. */
static void test_limit_resume(void) {
    uint32_t loop[] = {A_LUI(1, 1), A_ADDI(3, 3, 7), A_MUL(3, 3, 3), A_ADDI(1, 1, -1), A_BNE(1, 0, -12),
                       A_ADDI(10, 3, 0)};
    gs_zkvm_program *p = make_prog(loop, 6, NULL, 0);
    run_t whole;
    run_prog(&whole, p, NULL, NULL, 0, UINT64_MAX);
    CHECK(whole.rf.stop == GS_ZKVM_EXITED);
    CHECK_EQ_U64(whole.rf.cycles, 1 + 4096 * 4 + 3);
    gs_zkvm_vm *a, *b;
    gs_zkvm_trace *tr;
    CHECK(gs_zkvm_vm_new(&a, p, NULL, 0) == GS_OK && gs_zkvm_vm_new(&b, p, NULL, 0) == GS_OK);
    CHECK(gs_zkvm_trace_new(&tr) == GS_OK);
    gs_zkvm_result ra, rb;
    int pieces = 0;
    do {
        uint64_t k = 1 + gs_test_below(3000);
        CHECK(gs_zkvm_vm_run(a, &ra, k) == GS_OK);
        CHECK(gs_zkvm_vm_run_traced(b, tr, &rb, k) == GS_OK);
        CHECK(ra.stop == rb.stop && ra.cycles == rb.cycles);
        if (ra.stop == GS_ZKVM_CYCLE_LIMIT) CHECK(strstr(ra.msg, "cycle limit") != NULL);
        pieces++;
    } while (ra.stop == GS_ZKVM_CYCLE_LIMIT && pieces < 100000);
    CHECK(pieces > 1);
    CHECK(same_machines(a, &ra, whole.fast, &whole.rf));
    CHECK(same_machines(b, &rb, whole.fast, &whole.rf));
    CHECK_EQ_U64(tr->n_steps, whole.tr->n_steps);
    CHECK(tr->clk0 == 0 && memcmp(tr->steps, whole.tr->steps, tr->n_steps * sizeof *tr->steps) == 0);
    /* a cleared trace keeps its buffers and records the same again */
    uint64_t cap = tr->cap_steps;
    gs_zkvm_trace_clear(tr);
    CHECK(tr->n_steps == 0 && tr->n_io == 0 && tr->cap_steps == cap);
    gs_zkvm_vm *b2;
    CHECK(gs_zkvm_vm_new(&b2, p, NULL, 0) == GS_OK);
    CHECK(gs_zkvm_vm_run_traced(b2, tr, &rb, UINT64_MAX) == GS_OK && tr->cap_steps == cap);
    CHECK(tr->n_steps == whole.tr->n_steps &&
          memcmp(tr->steps, whole.tr->steps, tr->n_steps * sizeof *tr->steps) == 0);
    gs_zkvm_vm_free(b2);
    /* max 0 runs nothing */
    gs_zkvm_vm *c;
    CHECK(gs_zkvm_vm_new(&c, p, NULL, 0) == GS_OK);
    CHECK(gs_zkvm_vm_run(c, &ra, 0) == GS_OK && ra.stop == GS_ZKVM_CYCLE_LIMIT && ra.cycles == 0);
    /* a trace started mid-run takes its clock from the machine */
    gs_zkvm_trace *t2;
    CHECK(gs_zkvm_trace_new(&t2) == GS_OK);
    CHECK(gs_zkvm_vm_run(c, &ra, 100) == GS_OK);
    CHECK(gs_zkvm_vm_run_traced(c, t2, &ra, 10) == GS_OK && t2->clk0 == 100 && t2->n_steps == 10);
    CHECK(memcmp(t2->steps, whole.tr->steps + 100, 10 * sizeof *t2->steps) == 0);
    gs_zkvm_trace_free(t2);
    gs_zkvm_vm_free(c);
    gs_zkvm_vm_free(a);
    gs_zkvm_vm_free(b);
    gs_zkvm_trace_free(tr);
    run_free(&whole);
}


/* ---- segments: runs from a given state ---- */

/* Runs p from its reset state as segments of k cycles, each on a new
 * machine made from the previous one's end state and memory
 * (gs_zkvm_vm_new_at, gs_zkvm_vm_get_state), alternating the fast and the
 * traced path, and checks that the last one ends as the one run `whole`
 * did: how it stopped (exit code, fault), cycles, pc, registers, input
 * position, memory, and the segments' outputs concatenated. Each segment
 * but the last stops on its limit after exactly k cycles. Returns the
 * number of segments. */
static int run_segments(const gs_zkvm_program *p, const uint8_t *in, size_t inlen, uint64_t k,
                        const gs_zkvm_vm *whole, const gs_zkvm_result *rw) {
    gs_zkvm_state st, end, want;
    gs_zkvm_reset_state(&st, p);
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_trace *tr = NULL;
    CHECK(gs_zkvm_trace_new(&tr) == GS_OK);
    uint8_t *out[2] = {malloc(1), malloc(1)};
    size_t olen[2] = {0, 0};
    gs_zkvm_result res = {0};
    int n = 0, ok = 1;
    if (!tr || !out[0] || !out[1]) exit(1);
    for (;;) {
        gs_zkvm_vm *next = NULL;
        ok &= gs_zkvm_vm_new_at(&next, p, in, inlen, &st, vm ? gs_zkvm_vm_memory(vm) : NULL) == GS_OK;
        gs_zkvm_vm_free(vm);
        vm = next;
        if (!vm) break;
        CHECK_EQ_U64(gs_zkvm_vm_cycles(vm), st.clk);
        if (n % 2) {
            gs_zkvm_trace_clear(tr);
            ok &= gs_zkvm_vm_run_traced(vm, tr, &res, k) == GS_OK;
            ok &= tr->clk0 == st.clk && tr->n_steps == res.cycles - st.clk;
        } else {
            ok &= gs_zkvm_vm_run(vm, &res, k) == GS_OK;
        }
        n++;
        for (unsigned fd = 1; fd <= 2; fd++) {
            size_t l;
            const uint8_t *o = gs_zkvm_vm_output(vm, fd, &l);
            uint8_t *g = realloc(out[fd - 1], olen[fd - 1] + l + 1);
            if (!g) exit(1);
            if (l) memcpy(g + olen[fd - 1], o, l);
            out[fd - 1] = g, olen[fd - 1] += l;
        }
        gs_zkvm_vm_get_state(vm, &end);
        ok &= end.clk == res.cycles;
        if (res.stop != GS_ZKVM_CYCLE_LIMIT || (uint64_t)n > rw->cycles / k + 1) break;
        ok &= end.clk - st.clk == k;
        st = end;
    }
    CHECK(ok);
    CHECK(vm != NULL);
    if (vm) {
        gs_zkvm_vm_get_state(whole, &want);
        int same = res.stop == rw->stop && res.exit_code == rw->exit_code && res.cycles == rw->cycles &&
                   res.fault == rw->fault && res.fault_pc == rw->fault_pc &&
                   res.fault_addr == rw->fault_addr && !strcmp(res.msg, rw->msg) && end.pc == want.pc &&
                   end.clk == want.clk && end.input_pos == want.input_pos &&
                   !memcmp(end.regs, want.regs, sizeof end.regs) &&
                   !memcmp(gs_zkvm_vm_memory(vm), gs_zkvm_vm_memory(whole), GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO);
        for (unsigned fd = 1; fd <= 2; fd++) {
            size_t l;
            const uint8_t *o = gs_zkvm_vm_output(whole, fd, &l);
            same &= l == olen[fd - 1] && (!l || !memcmp(o, out[fd - 1], l));
        }
        if (!same)
            fprintf(stderr, "segments of %llu cycles (%d of them) end elsewhere than one run: stop %d/%d, "
                    "cycles %llu/%llu, pc 0x%08x/0x%08x\n", (unsigned long long)k, n, res.stop, rw->stop,
                    (unsigned long long)res.cycles, (unsigned long long)rw->cycles, end.pc, want.pc);
        CHECK(same);
    }
    gs_zkvm_vm_free(vm);
    gs_zkvm_trace_free(tr);
    free(out[0]), free(out[1]);
    return n;
}

/* A trace's steps come from the page cache (util/pages.h): the run of a
 * new trace after one was freed takes the freed block, already touched,
 * instead of fresh pages (what makes a resident prover's traced run cheap),
 * and records the same steps. */
static void test_trace_pages(void) {
    uint32_t loop[] = {A_LUI(1, 4), A_ADDI(3, 3, 7), A_ADDI(1, 1, -1), A_BNE(1, 0, -8), A_ADDI(10, 3, 0)};
    gs_zkvm_program *p = make_prog(loop, 5, NULL, 0);
    run_t whole;
    run_prog(&whole, p, NULL, NULL, 0, UINT64_MAX);
    CHECK(whole.rf.stop == GS_ZKVM_EXITED);
    uint64_t steps_bytes = whole.tr->n_steps * sizeof(gs_zkvm_step);
    CHECK(steps_bytes > ((uint64_t)256 << 10));
    for (int k = 0; k < 2; k++) {
        gs_pages_stats a, b;
        gs_pages_get_stats(&a);
        gs_zkvm_vm *vm;
        gs_zkvm_trace *tr;
        gs_zkvm_result r;
        CHECK(gs_zkvm_vm_new(&vm, p, NULL, 0) == GS_OK && gs_zkvm_trace_new(&tr) == GS_OK);
        CHECK(gs_zkvm_vm_run_traced(vm, tr, &r, UINT64_MAX) == GS_OK && r.stop == GS_ZKVM_EXITED);
        CHECK(tr->n_steps == whole.tr->n_steps &&
              memcmp(tr->steps, whole.tr->steps, tr->n_steps * sizeof *tr->steps) == 0);
        gs_pages_get_stats(&b);
        /* the second run (k = 1) after the first's trace was freed: reused */
        if (k == 1) CHECK(b.reused_bytes - a.reused_bytes >= steps_bytes);
        gs_zkvm_trace_free(tr);
        gs_zkvm_vm_free(vm);
    }
    run_free(&whole); /* and p */
}

/* A traced run marks the pages its stores and read calls wrote, and no
 * other; a fast run leaves every page possibly written. */
static void test_written_pages(void) {
    uint32_t w[16];
    size_t n = 0;
    w[n++] = A_LUI(1, DATA >> 12);
    w[n++] = A_ADDI(2, 0, 0x55);
    w[n++] = A_SW(2, 0x7fc, 1);           /* DATA + 0x7fc: DATA's page */
    w[n++] = A_LUI(11, (DATA + 0x1000) >> 12); /* read(0, DATA + 0x1000 + 0x7f0, 40): across a page */
    w[n++] = A_ADDI(11, 11, 0x7f0);
    w[n++] = A_ADDI(11, 11, 0x7f0);
    w[n++] = A_ADDI(10, 0, 0);
    w[n++] = A_ADDI(12, 0, 40);
    w[n++] = A_ADDI(17, 0, GS_ZKVM_SYS_READ);
    w[n++] = A_ECALL;
    gs_zkvm_program *p = make_prog(w, n, NULL, 0);
    uint8_t in[40];
    for (size_t i = 0; i < sizeof in; i++) in[i] = (uint8_t)(i + 1);
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_trace *tr = NULL;
    gs_zkvm_result r;
    CHECK(gs_zkvm_vm_new(&vm, p, in, sizeof in) == GS_OK && gs_zkvm_trace_new(&tr) == GS_OK);
    if (vm && tr) {
        CHECK(gs_zkvm_vm_run_traced(vm, tr, &r, UINT64_MAX) == GS_OK && r.stop == GS_ZKVM_EXITED);
        uint32_t buf = DATA + 0x1000 + 0xfe0, marked = 0;
        for (uint32_t pg = 0; pg < GS_ZKVM_MEM_TOP >> 12; pg++) marked += zk_vm_page_written(vm, pg);
        CHECK(zk_vm_page_written(vm, DATA >> 12) && zk_vm_page_written(vm, buf >> 12) &&
              zk_vm_page_written(vm, (buf + 39) >> 12) && (buf >> 12) != ((buf + 39) >> 12));
        CHECK(marked == 3 && !zk_vm_page_written(vm, TEXT >> 12));
    }
    gs_zkvm_trace_free(tr);
    gs_zkvm_vm_free(vm);
    CHECK(gs_zkvm_vm_new(&vm, p, in, sizeof in) == GS_OK);
    if (vm) {
        CHECK(!zk_vm_page_written(vm, 0x30));
        CHECK(gs_zkvm_vm_run(vm, &r, UINT64_MAX) == GS_OK && r.stop == GS_ZKVM_EXITED);
        CHECK(zk_vm_page_written(vm, 0x30) && zk_vm_page_written(vm, TEXT >> 12));
    }
    gs_zkvm_vm_free(vm);
    gs_zkvm_program_free(p);
}

/* Segment runs: a loop, a program that reads and writes in small pieces
 * (the input position and the outputs cross segments), segment lengths 1,
 * divisors and non-divisors of the run, and the states a machine refuses. */
static void test_segments(void) {
    uint32_t loop[] = {A_LUI(1, 1), A_ADDI(3, 3, 7), A_MUL(3, 3, 3), A_ADDI(1, 1, -1), A_BNE(1, 0, -12),
                       A_ADDI(10, 3, 0)};
    gs_zkvm_program *p = make_prog(loop, 6, NULL, 0);
    run_t whole;
    run_prog(&whole, p, NULL, NULL, 0, UINT64_MAX);
    const uint64_t cycles = whole.rf.cycles; /* 16388 */
    const uint64_t ks[] = {1000, 4096, 4097, 3000, cycles - 1, cycles, cycles + 5};
    const int want_n[] = {17, 5, 4, 6, 2, 1, 1};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        CHECK(run_segments(p, NULL, 0, ks[i], whole.fast, &whole.rf) == want_n[i]);
    /* a state in the middle, built by hand, runs on as the machine would */
    gs_zkvm_vm *a = NULL, *b = NULL;
    gs_zkvm_result ra, rb;
    CHECK(gs_zkvm_vm_new(&a, p, NULL, 0) == GS_OK && gs_zkvm_vm_run(a, &ra, 777) == GS_OK);
    gs_zkvm_state st;
    gs_zkvm_vm_get_state(a, &st);
    CHECK(st.clk == 777 && st.pc >= TEXT && st.pc < TEXT + 4 * 8 && st.regs[1] != 0);
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &st, gs_zkvm_vm_memory(a)) == GS_OK);
    CHECK(gs_zkvm_vm_run(a, &ra, UINT64_MAX) == GS_OK && gs_zkvm_vm_run(b, &rb, UINT64_MAX) == GS_OK);
    CHECK(same_machines(a, &ra, b, &rb) && same_machines(b, &rb, whole.fast, &whole.rf));
    gs_zkvm_vm_free(a), gs_zkvm_vm_free(b);
    /* refused states */
    gs_zkvm_state bad = st;
    bad.pc = st.pc + 2;
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &bad, NULL) == GS_ERR_INVALID_ARG && b == NULL);
    bad.pc = TEXT - 4;
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &bad, NULL) == GS_ERR_INVALID_ARG);
    bad.pc = TEXT + 4 * 9; /* past the slot after the text */
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &bad, NULL) == GS_ERR_INVALID_ARG);
    bad = st, bad.regs[0] = 1;
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &bad, NULL) == GS_ERR_INVALID_ARG);
    bad = st, bad.input_pos = 1;
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &bad, NULL) == GS_ERR_INVALID_ARG);
    /* the slot after the text is a state (running on faults there, as one run would) */
    bad = st, bad.pc = TEXT + 4 * 8;
    CHECK(gs_zkvm_vm_new_at(&b, p, NULL, 0, &bad, NULL) == GS_OK);
    CHECK(gs_zkvm_vm_run(b, &rb, 10) == GS_OK && rb.stop == GS_ZKVM_FAULT && rb.fault == GS_ZKVM_FAULT_FETCH);
    gs_zkvm_vm_free(b);
    run_free(&whole);

    /* read 3 bytes at a time into DATA, write them to fd 1 and a0 (the
     * count) as one byte to fd 2, until the end; exit with the last x5 */
    uint32_t rw[] = {
        A_LUI(11, DATA >> 12), A_ADDI(12, 0, 3), A_ADDI(10, 0, 0), A_ADDI(17, 0, 63), A_ECALL, /* 0..4 */
        A_BEQ(10, 0, 52),                                                                      /* 5 */
        A_ADDI(5, 10, 0), A_ADDI(12, 10, 0), A_ADDI(10, 0, 1), A_ADDI(17, 0, 64), A_ECALL,    /* 6..10 */
        A_SB(5, 3, 11), A_ADDI(11, 11, 3), A_ADDI(12, 0, 1), A_ADDI(10, 0, 2), A_ECALL,       /* 11..15 */
        A_ADDI(11, 11, -3), A_JAL(0, -64),                                                     /* 16..17 */
        A_ADDI(10, 5, 40)};                                                                    /* 18 */
    const uint8_t in[] = "segments cross reads and writes!";
    const size_t inlen = sizeof in - 1;
    p = make_prog(rw, sizeof rw / 4, NULL, 0);
    run_prog(&whole, p, NULL, in, inlen, UINT64_MAX);
    CHECK(whole.rf.stop == GS_ZKVM_EXITED && whole.rf.exit_code == 42);
    size_t l1;
    const uint8_t *o1 = gs_zkvm_vm_output(whole.fast, 1, &l1);
    CHECK(l1 == inlen && !memcmp(o1, in, inlen));
    for (uint64_t k = 1; k <= 13; k++)
        CHECK(run_segments(p, in, inlen, k, whole.fast, &whole.rf) ==
              (int)((whole.rf.cycles + k - 1) / k));
    CHECK(run_segments(p, in, inlen, whole.rf.cycles / 3 + 1, whole.fast, &whole.rf) == 3);
    run_free(&whole);
}

/* ---- random instruction streams ---- */

typedef struct wbuf {
    uint32_t *w;
    size_t n, cap;
} wbuf;

static void emit(wbuf *b, uint32_t w) {
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->w = realloc(b->w, b->cap * sizeof *b->w);
        if (!b->w) exit(1);
    }
    b->w[b->n++] = w;
}

/* General registers: all but x16 (the data base) and x17 (loop counter, a7). */
static uint32_t greg(void) {
    uint32_t r = 1 + (uint32_t)gs_test_below(29);
    return r >= 16 ? r + 2 : r;
}
static uint32_t any_rd(void) { return gs_test_below(12) ? greg() : 0; }
static uint32_t any_rs(void) { return gs_test_below(8) ? greg() : (uint32_t)gs_test_below(18); }

/* One straight-line instruction (no control flow); safe: never faults. */
static uint32_t rand_insn(int safe) {
    static const uint32_t r_ops[][2] = {{0, 0}, {0x20, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0x20, 5},
                                        {0, 6}, {0, 7},    {1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5},
                                        {1, 6}, {1, 7}};
    uint32_t kind = (uint32_t)gs_test_below(100);
    int32_t imm = (int32_t)gs_test_below(4096) - 2048;
    if (kind < 40) {
        const uint32_t *o = r_ops[gs_test_below(18)];
        return zr(o[0], any_rs(), any_rs(), o[1], any_rd(), 0x33);
    }
    if (kind < 62) {
        uint32_t f3 = (uint32_t)gs_test_below(8);
        if (f3 == 1) return A_SLLI(any_rd(), any_rs(), (uint32_t)gs_test_below(32));
        if (f3 == 5)
            return gs_test_below(2) ? A_SRAI(any_rd(), any_rs(), (uint32_t)gs_test_below(32))
                                    : A_SRLI(any_rd(), any_rs(), (uint32_t)gs_test_below(32));
        return zi(imm, any_rs(), f3, any_rd(), 0x13);
    }
    if (kind < 66) return A_LUI(any_rd(), (uint32_t)gs_test_u64() & 0xFFFFF);
    if (kind < 68) return A_AUIPC(any_rd(), (uint32_t)gs_test_u64() & 0xFFFFF);
    if (kind < 69) return A_FENCE;
    /* Memory, based on x16 (DATA + 2048): offsets cover [DATA, DATA + 4096). */
    static const uint32_t ld[5] = {0, 1, 2, 4, 5}, sizes[8] = {1, 2, 4, 1, 1, 2, 1, 1};
    int is_load = kind < 85;
    uint32_t f3 = is_load ? ld[gs_test_below(5)] : (uint32_t)gs_test_below(3);
    uint32_t size = sizes[f3];
    if (safe || gs_test_below(40)) imm &= ~(int32_t)(size - 1);
    return is_load ? zi(imm, 16, f3, any_rd(), 0x03) : zs(imm, any_rs(), 16, f3, 0x23);
}

static const uint32_t edge_values[] = {0, 1, 2, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFE, 31, 32};

/* A random program: registers set (edge values mixed in), n random pieces
 * (instructions, forward branches and jumps, bounded loops), then either
 * exit(x[rand]) or, with dump, the registers and the data page written to
 * fd 1 and exit 0. Never faults when safe. */
static void gen_program(wbuf *b, size_t n, int safe, int dump) {
    b->n = 0;
    for (uint32_t r = 1; r < 32; r++) {
        if (r == 17) continue;
        uint32_t v = r == 16 ? DATA + 2048
                             : gs_test_below(3) ? (uint32_t)gs_test_u64()
                                                : edge_values[gs_test_below(sizeof edge_values / 4)];
        uint32_t two[2];
        a_li(two, r, v);
        emit(b, two[0]), emit(b, two[1]);
    }
    size_t body_start = b->n;
    /* Pieces are generated into the body with forward targets inside it. */
    while (b->n - body_start < n) {
        uint32_t kind = (uint32_t)gs_test_below(100);
        size_t left = n - (b->n - body_start);
        if (kind < 8 && left > 6) { /* forward branch over 1..4 instructions */
            uint32_t skip = 1 + (uint32_t)gs_test_below(4);
            emit(b, zb((int32_t)(4 * (skip + 1)), any_rs(), any_rs(), (uint32_t[]){0, 1, 4, 5, 6, 7}[gs_test_below(6)]));
            for (uint32_t k = 0; k < skip; k++) emit(b, rand_insn(safe));
        } else if (kind < 10 && left > 4) { /* jal over 1..2 */
            uint32_t skip = 1 + (uint32_t)gs_test_below(2);
            emit(b, A_JAL(any_rd(), (int32_t)(4 * (skip + 1))));
            for (uint32_t k = 0; k < skip; k++) emit(b, rand_insn(safe));
        } else if (kind < 12 && left > 4) { /* auipc t; jalr rd, t, 12: skips one */
            uint32_t t = greg();
            emit(b, A_AUIPC(t, 0));
            emit(b, A_JALR(any_rd(), t, 12));
            emit(b, rand_insn(safe));
        } else if (kind < 15 && left > 10) { /* a bounded loop */
            uint32_t body = 1 + (uint32_t)gs_test_below(5);
            emit(b, A_ADDI(17, 0, 1 + (int32_t)gs_test_below(8)));
            for (uint32_t k = 0; k < body; k++) emit(b, rand_insn(safe));
            emit(b, A_ADDI(17, 17, -1));
            emit(b, A_BNE(17, 0, -(int32_t)(4 * (body + 1))));
        } else {
            emit(b, rand_insn(safe));
        }
    }
    if (!dump) {
        emit(b, A_ADDI(10, greg(), 0));
        emit(b, A_ADDI(17, 0, 93));
        emit(b, A_ECALL);
        return;
    }
    /* x17 = DATA + 0x1000; x1..x31 there; write 128 bytes, then the 4 KiB data page. */
    emit(b, A_LUI(17, (DATA + 0x1000) >> 12));
    for (uint32_t r = 1; r < 32; r++) emit(b, A_SW(r, (int32_t)(4 * r), 17));
    emit(b, A_ADDI(11, 17, 0));
    emit(b, A_ADDI(12, 0, 128));
    emit(b, A_ADDI(10, 0, 1));
    emit(b, A_ADDI(17, 0, 64));
    emit(b, A_ECALL);
    emit(b, A_LUI(11, DATA >> 12));
    emit(b, A_LUI(12, 1));
    emit(b, A_ADDI(10, 0, 1));
    emit(b, A_ECALL);
    emit(b, A_ADDI(10, 0, 0));
    emit(b, A_ADDI(17, 0, 93));
    emit(b, A_ECALL);
}

static void random_data(uint8_t *d, size_t n) {
    for (size_t i = 0; i < n; i++) d[i] = (uint8_t)gs_test_u64();
}

static void test_random_streams(void) {
    wbuf b = {0};
    uint8_t data[4096];
    int faults = 0, exits = 0, segmented = 0;
    for (int t = 0; t < 300; t++) {
        gen_program(&b, 20 + (size_t)gs_test_below(400), t % 3 == 0, t % 5 == 0);
        random_data(data, sizeof data);
        /* make_prog appends an exit the program never reaches */
        run_t r;
        run_prog(&r, make_prog(b.w, b.n, data, sizeof data), NULL, NULL, 0, 1u << 20);
        CHECK(r.rf.stop == GS_ZKVM_EXITED || r.rf.stop == GS_ZKVM_FAULT);
        if (t % 3 == 0) CHECK(r.rf.stop == GS_ZKVM_EXITED);
        faults += r.rf.stop == GS_ZKVM_FAULT;
        exits += r.rf.stop == GS_ZKVM_EXITED;
        if (t % 6 == 0) { /* as segments: of 1 cycle on short runs, else at most 21 of them */
            uint64_t c = r.rf.cycles ? r.rf.cycles : 1;
            uint64_t k = c <= 200 && t % 12 == 0 ? 1 : 1 + gs_test_below(c);
            if (k < c / 20) k = c / 20 + 1;
            run_segments(r.p, NULL, 0, k, r.fast, &r.rf);
            segmented++;
        }
        run_free(&r);
    }
    printf("random streams: %d exited, %d faulted (fast and traced agree, traces replay; %d also run as "
           "segments)\n", exits, faults, segmented);
    CHECK(exits > 100);
    free(b.w);
}

static void test_disasm(void) {
    char s[48];
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_ADDI(10, 10, -1), TEXT), "addi a0,a0,-1"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_LW(15, -4, 8), TEXT), "lw a5,-4(s0)"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_SW(1, 12, 2), TEXT), "sw ra,12(sp)"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_BNE(1, 0, -8), TEXT + 8), "bne ra,zero,0x10000"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_MULHSU(3, 1, 2), TEXT), "mulhsu gp,ra,sp"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_ECALL, TEXT), "ecall"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, 0xFFFFFFFFu, TEXT), "illegal 0xffffffff"));
    CHECK(!strcmp(gs_zkvm_disasm(s, sizeof s, A_SRAI(5, 6, 3), TEXT), "srai t0,t1,3"));
}

/* ---- modes for the shell tests ---- */

static int read_whole(const char *path, uint8_t **buf, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *buf = b, *len = n;
    return b != NULL;
}

static int compare_elf(const char *elf_path, const char *in_path) {
    uint8_t *elf = NULL, *in = NULL;
    size_t elf_len = 0, in_len = 0;
    if (!read_whole(elf_path, &elf, &elf_len) || (in_path && !read_whole(in_path, &in, &in_len))) {
        fprintf(stderr, "cannot read %s\n", elf_path);
        return 2;
    }
    gs_zkvm_program *p = NULL;
    char msg[160];
    if (gs_zkvm_load_elf(&p, msg, sizeof msg, elf, elf_len) != GS_OK) {
        fprintf(stderr, "%s: %s\n", elf_path, msg);
        return 2;
    }
    run_t r;
    run_prog(&r, p, NULL, in, in_len, UINT64_MAX);
    printf("%s: %s after %llu cycles; fast and traced agree: %s\n", elf_path,
           r.rf.stop == GS_ZKVM_EXITED ? "exited" : "stopped", (unsigned long long)r.rf.cycles,
           gs_test_failures ? "NO" : "yes");
    /* As segments from each previous end state: a third of the run and one
     * more (a non-divisor), a seventh, and single cycles on short runs. */
    uint64_t c = r.rf.cycles;
    const uint64_t ks[3] = {c / 3 + 1, c / 7 + 1, c <= 2000 ? 1 : c / 11 + 1};
    for (unsigned i = 0; i < 3; i++) {
        int n = run_segments(p, in, in_len, ks[i], r.fast, &r.rf);
        printf("  as %d segments of %llu cycles: the same end: %s\n", n, (unsigned long long)ks[i],
               gs_test_failures ? "NO" : "yes");
    }
    run_free(&r);
    free(elf);
    free(in);
    return gs_test_failures ? 1 : 0;
}

/* KIND: a seed (a random program that prints its registers and data page),
 * or "fault" (a load from address 0), "loop" (never exits), "exit3" (writes
 * "bye" to fd 2, exits 3), "echo" (copies the input to fd 1, exits 0). */
static int write_elf(const char *kind, const char *out) {
    wbuf b = {0};
    if (!strcmp(kind, "fault")) {
        emit(&b, A_ADDI(5, 0, 1)), emit(&b, A_LW(6, 0, 0));
    } else if (!strcmp(kind, "loop")) {
        emit(&b, A_ADDI(5, 5, 1)), emit(&b, A_JAL(0, -4));
    } else if (!strcmp(kind, "exit3")) {
        uint32_t li[2];
        a_li(li, 5, 0x0A657962); /* "bye\n" */
        emit(&b, li[0]), emit(&b, li[1]);
        emit(&b, A_LUI(11, DATA >> 12)), emit(&b, A_SW(5, 0, 11));
        emit(&b, A_ADDI(10, 0, 2)), emit(&b, A_ADDI(12, 0, 4)), emit(&b, A_ADDI(17, 0, 64)), emit(&b, A_ECALL);
        emit(&b, A_ADDI(10, 0, 3)), emit(&b, A_ADDI(17, 0, 93)), emit(&b, A_ECALL);
    } else if (!strcmp(kind, "echo")) {
        /* loop: a0 = read(0, DATA, 4096); if a0 == 0 exit(0); write(1, DATA, a0) */
        emit(&b, A_LUI(11, DATA >> 12)), emit(&b, A_LUI(12, 1));
        emit(&b, A_ADDI(10, 0, 0)), emit(&b, A_ADDI(17, 0, 63)), emit(&b, A_ECALL);
        emit(&b, A_BEQ(10, 0, 28));
        emit(&b, A_ADDI(12, 10, 0)), emit(&b, A_ADDI(10, 0, 1)), emit(&b, A_ADDI(17, 0, 64)), emit(&b, A_ECALL);
        emit(&b, A_LUI(12, 1)), emit(&b, A_JAL(0, -36));
        emit(&b, A_ADDI(10, 0, 0)), emit(&b, A_ADDI(17, 0, 93)), emit(&b, A_ECALL);
    } else {
        gs_test_rng_state = strtoull(kind, NULL, 0) * 0x9E3779B97F4A7C15ull + 1;
        gen_program(&b, 50 + (size_t)gs_test_below(300), 1, 1);
    }
    uint8_t *text = malloc(4 * b.n), data[4096];
    if (!text) return 2;
    for (size_t i = 0; i < b.n; i++)
        for (int k = 0; k < 4; k++) text[4 * i + (size_t)k] = (uint8_t)(b.w[i] >> (8 * k));
    random_data(data, sizeof data);
    zk_elf_seg s[2] = {{.vaddr = TEXT, .memsz = (uint32_t)(4 * b.n), .flags = 5, .data = text,
                        .filesz = (uint32_t)(4 * b.n)},
                       {.vaddr = DATA, .memsz = DATA_SIZE, .flags = 6, .data = data, .filesz = sizeof data}};
    size_t len;
    uint8_t *elf = zk_elf_write(&len, s, 2, TEXT);
    FILE *f = fopen(out, "wb");
    int ok = elf && f && fwrite(elf, 1, len, f) == len;
    if (f) ok &= fclose(f) == 0;
    free(elf);
    free(text);
    free(b.w);
    return ok ? 0 : 2;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "--compare")) return compare_elf(argv[2], argc > 3 ? argv[3] : NULL);
    if (argc == 4 && !strcmp(argv[1], "--write-elf")) return write_elf(argv[2], argv[3]);
    gs_test_init(argc, argv);
    test_alu();
    test_x0();
    test_loads_stores();
    test_faults();
    test_branches_jumps();
    test_ecalls();
    test_limit_resume();
    test_trace_pages();
    test_written_pages();
    test_segments();
    test_random_streams();
    test_disasm();
    return gs_test_done();
}
