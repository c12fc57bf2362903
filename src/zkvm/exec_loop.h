/* The interpreter loop, included twice by exec.c: with ZK_TRACED 0 it
 * defines zk_run_fast, with ZK_TRACED 1 zk_run_traced. Every instruction's
 * semantics is written once, here; the traced instance only adds the
 * recording (the REC* macros), so the two paths cannot drift apart.
 *
 * The loop runs over the pre-decoded array (8 bytes a slot, the slot index i
 * is the pc): dispatch by computed goto where the compiler has it (GNU C),
 * else by a switch. Per instruction: one limit compare, the dispatch, the
 * operation; loads and stores check alignment and range with two compares,
 * stores a third for the text; taken branches and jumps one range compare
 * (a target that is not 4-aligned was given an offset that fails it at
 * decode time). x0 is never written: decoding sends rd = x0 to a sink. */

#if ZK_TRACED
#define ZK_RUN zk_run_traced
#define REC(a, b, v) \
    (row->rs1_val = (a), row->rs2_val = (b), row->rd_val = d.rd == ZK_SINK ? 0u : (v))
#define REC_MEM(addr, before, after) \
    (row->mem_addr = (addr), row->mem_before = (before), row->mem_after = (after))
#define REC_WRITTEN(addr) (written[(addr) >> 12] = 1) /* an aligned store stays in its page */
#define ZK_BEGIN_ROW()                                                                     \
    do {                                                                                   \
        if (tr->n_steps == tr->cap_steps && zk_trace_grow(tr) != GS_OK) goto nomem;         \
        row = &tr->steps[tr->n_steps];                                                     \
        *row = (gs_zkvm_step){.pc = text_lo + 4 * i, .insn = words[i]};                   \
    } while (0)
#define ZK_END_ROW() (tr->n_steps++)
#else
#define ZK_RUN zk_run_fast
#define REC(a, b, v) ((void)0)
#define REC_MEM(addr, before, after) ((void)0)
#define REC_WRITTEN(addr) ((void)0)
#define ZK_BEGIN_ROW() ((void)0)
#define ZK_END_ROW() ((void)0)
#endif

#if defined(__GNUC__) && !defined(ZK_NO_COMPUTED_GOTO)
#define ZK_DISPATCH()              \
    do {                           \
        if (done == max) goto limit; \
        ZK_BEGIN_ROW();            \
        d = code[i];               \
        goto *labels[d.op];        \
    } while (0)
#define CASE(op) L_##op:
#define NEXT()         \
    do {               \
        done++;        \
        ZK_END_ROW();  \
        ZK_DISPATCH(); \
    } while (0)
#else
#define ZK_DISPATCH() ((void)0)
#define CASE(op) case op:
#define NEXT()        \
    {                 \
        done++;       \
        ZK_END_ROW(); \
        continue;     \
    }
#endif

#define FAULT(kind, addr)  \
    do {                   \
        fault = (kind);    \
        faddr = (addr);    \
        goto faulted;      \
    } while (0)

#define ALU_R(op, expr)                                \
    CASE(op) {                                         \
        uint32_t a = x[d.rs1], b = x[d.rs2], v = (expr); \
        x[d.rd] = v;                                   \
        REC(a, b, v);                                  \
        i++;                                           \
        NEXT();                                        \
    }
#define ALU_I(op, expr)                                      \
    CASE(op) {                                               \
        uint32_t a = x[d.rs1], b = (uint32_t)d.imm, v = (expr); \
        (void)b;                                             \
        x[d.rd] = v;                                         \
        REC(a, 0u, v);                                       \
        i++;                                                 \
        NEXT();                                              \
    }
#define BRANCH(op, cond)                                          \
    CASE(op) {                                                    \
        uint32_t a = x[d.rs1], b = x[d.rs2];                      \
        REC(a, b, 0u);                                            \
        if (cond) {                                               \
            uint32_t t = i + (uint32_t)d.imm;                     \
            if (t >= n) FAULT(GS_ZKVM_FAULT_JUMP_RANGE, 0);        \
            i = t;                                                \
        } else {                                                  \
            i++;                                                  \
        }                                                         \
        NEXT();                                                   \
    }
/* Loads: m points at the accessed bytes. */
#define LOAD(op, size, expr)                                                  \
    CASE(op) {                                                                \
        uint32_t a = x[d.rs1], addr = a + (uint32_t)d.imm;                    \
        if (addr & (size - 1)) FAULT(GS_ZKVM_FAULT_LOAD_MISALIGNED, addr);    \
        if (addr - GS_ZKVM_MEM_LO > GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO - size)  \
            FAULT(GS_ZKVM_FAULT_LOAD_RANGE, addr);                            \
        const uint8_t *m = mem + addr;                                        \
        uint32_t v = (expr);                                                  \
        x[d.rd] = v;                                                          \
        REC(a, 0u, v);                                                        \
        REC_MEM(addr, zk_ld32(mem + (addr & ~3u)), zk_ld32(mem + (addr & ~3u))); \
        i++;                                                                  \
        NEXT();                                                               \
    }
#define STORE(op, size, stmt)                                                  \
    CASE(op) {                                                                 \
        uint32_t a = x[d.rs1], b = x[d.rs2], addr = a + (uint32_t)d.imm;       \
        if (addr & (size - 1)) FAULT(GS_ZKVM_FAULT_STORE_MISALIGNED, addr);    \
        if (addr - GS_ZKVM_MEM_LO > GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO - size)   \
            FAULT(GS_ZKVM_FAULT_STORE_RANGE, addr);                            \
        if (addr - text_lo < text_len) FAULT(GS_ZKVM_FAULT_STORE_TEXT, addr);  \
        uint8_t *m = mem + addr;                                               \
        REC_WRITTEN(addr);                                                     \
        REC(a, b, 0u);                                                         \
        REC_MEM(addr, zk_ld32(mem + (addr & ~3u)), 0u);                        \
        stmt;                                                                  \
        REC_MEM(addr, row->mem_before, zk_ld32(mem + (addr & ~3u)));           \
        i++;                                                                   \
        NEXT();                                                                \
    }

static gs_status ZK_RUN(gs_zkvm_vm *vm, gs_zkvm_trace *tr, gs_zkvm_result *res, uint64_t max) {
    const gs_zkvm_program *p = vm->prog;
    const zk_insn *const code = p->code;
    const uint32_t n = p->n, text_lo = p->text_lo, text_len = 4 * p->n;
    uint8_t *const mem = vm->mem;
#if ZK_TRACED
    uint8_t *const written = vm->written;
#else
    vm->untraced = 1; /* its stores are not in written */
#endif
    uint32_t x[33];
    memcpy(x, vm->x, sizeof x);
    uint32_t i = vm->pc_index;
    uint64_t done = 0;
    gs_zkvm_fault fault = GS_ZKVM_FAULT_NONE;
    uint32_t faddr = 0;
    gs_status status = GS_OK;
    gs_zkvm_stop stop = GS_ZKVM_READY;
    zk_insn d;
#if ZK_TRACED
    const uint32_t *const words = p->words;
    gs_zkvm_step *row;
#else
    (void)tr;
#endif

#if defined(__GNUC__) && !defined(ZK_NO_COMPUTED_GOTO)
    static const void *const labels[ZK_NUM_OPS] = {
        [ZK_LUI] = &&L_ZK_LUI, [ZK_JAL] = &&L_ZK_JAL, [ZK_JALR] = &&L_ZK_JALR,
        [ZK_BEQ] = &&L_ZK_BEQ, [ZK_BNE] = &&L_ZK_BNE, [ZK_BLT] = &&L_ZK_BLT,
        [ZK_BGE] = &&L_ZK_BGE, [ZK_BLTU] = &&L_ZK_BLTU, [ZK_BGEU] = &&L_ZK_BGEU,
        [ZK_LB] = &&L_ZK_LB, [ZK_LH] = &&L_ZK_LH, [ZK_LW] = &&L_ZK_LW,
        [ZK_LBU] = &&L_ZK_LBU, [ZK_LHU] = &&L_ZK_LHU, [ZK_SB] = &&L_ZK_SB,
        [ZK_SH] = &&L_ZK_SH, [ZK_SW] = &&L_ZK_SW, [ZK_ADDI] = &&L_ZK_ADDI,
        [ZK_SLTI] = &&L_ZK_SLTI, [ZK_SLTIU] = &&L_ZK_SLTIU, [ZK_XORI] = &&L_ZK_XORI,
        [ZK_ORI] = &&L_ZK_ORI, [ZK_ANDI] = &&L_ZK_ANDI, [ZK_SLLI] = &&L_ZK_SLLI,
        [ZK_SRLI] = &&L_ZK_SRLI, [ZK_SRAI] = &&L_ZK_SRAI, [ZK_ADD] = &&L_ZK_ADD,
        [ZK_SUB] = &&L_ZK_SUB, [ZK_SLL] = &&L_ZK_SLL, [ZK_SLT] = &&L_ZK_SLT,
        [ZK_SLTU] = &&L_ZK_SLTU, [ZK_XOR] = &&L_ZK_XOR, [ZK_SRL] = &&L_ZK_SRL,
        [ZK_SRA] = &&L_ZK_SRA, [ZK_OR] = &&L_ZK_OR, [ZK_AND] = &&L_ZK_AND,
        [ZK_MUL] = &&L_ZK_MUL, [ZK_MULH] = &&L_ZK_MULH, [ZK_MULHSU] = &&L_ZK_MULHSU,
        [ZK_MULHU] = &&L_ZK_MULHU, [ZK_DIV] = &&L_ZK_DIV, [ZK_DIVU] = &&L_ZK_DIVU,
        [ZK_REM] = &&L_ZK_REM, [ZK_REMU] = &&L_ZK_REMU, [ZK_FENCE] = &&L_ZK_FENCE,
        [ZK_ECALL] = &&L_ZK_ECALL, [ZK_BAD] = &&L_ZK_BAD, [ZK_NOTEXT] = &&L_ZK_NOTEXT,
        [ZK_END] = &&L_ZK_END};
    ZK_DISPATCH();
    {
#else
    for (;;) {
        if (done == max) goto limit;
        ZK_BEGIN_ROW();
        d = code[i];
        switch (d.op) {
#endif
        CASE(ZK_LUI) {
            uint32_t v = (uint32_t)d.imm;
            x[d.rd] = v;
            REC(0u, 0u, v);
            i++;
            NEXT();
        }
        CASE(ZK_JAL) {
            uint32_t t = i + (uint32_t)d.imm;
            if (t >= n) FAULT(GS_ZKVM_FAULT_JUMP_RANGE, 0);
            uint32_t v = text_lo + 4 * i + 4;
            x[d.rd] = v;
            REC(0u, 0u, v);
            i = t;
            NEXT();
        }
        CASE(ZK_JALR) {
            uint32_t a = x[d.rs1], t = (a + (uint32_t)d.imm) & ~1u;
            if (t & 2) FAULT(GS_ZKVM_FAULT_JUMP_MISALIGNED, t);
            if (t - text_lo >= text_len) FAULT(GS_ZKVM_FAULT_JUMP_RANGE, t);
            uint32_t v = text_lo + 4 * i + 4;
            x[d.rd] = v;
            REC(a, 0u, v);
            i = (t - text_lo) >> 2;
            NEXT();
        }
        BRANCH(ZK_BEQ, a == b)
        BRANCH(ZK_BNE, a != b)
        BRANCH(ZK_BLT, zk_i32(a) < zk_i32(b))
        BRANCH(ZK_BGE, zk_i32(a) >= zk_i32(b))
        BRANCH(ZK_BLTU, a < b)
        BRANCH(ZK_BGEU, a >= b)
        LOAD(ZK_LB, 1, (uint32_t)(int32_t)(int8_t)m[0])
        LOAD(ZK_LH, 2, (uint32_t)(int32_t)(int16_t)zk_ld16(m))
        LOAD(ZK_LW, 4, zk_ld32(m))
        LOAD(ZK_LBU, 1, (uint32_t)m[0])
        LOAD(ZK_LHU, 2, zk_ld16(m))
        STORE(ZK_SB, 1, m[0] = (uint8_t)b)
        STORE(ZK_SH, 2, zk_st16(m, b))
        STORE(ZK_SW, 4, zk_st32(m, b))
        ALU_I(ZK_ADDI, a + b)
        ALU_I(ZK_SLTI, zk_i32(a) < zk_i32(b))
        ALU_I(ZK_SLTIU, a < b)
        ALU_I(ZK_XORI, a ^ b)
        ALU_I(ZK_ORI, a | b)
        ALU_I(ZK_ANDI, a & b)
        ALU_I(ZK_SLLI, a << (b & 31))
        ALU_I(ZK_SRLI, a >> (b & 31))
        ALU_I(ZK_SRAI, zk_sra(a, b))
        ALU_R(ZK_ADD, a + b)
        ALU_R(ZK_SUB, a - b)
        ALU_R(ZK_SLL, a << (b & 31))
        ALU_R(ZK_SLT, zk_i32(a) < zk_i32(b))
        ALU_R(ZK_SLTU, a < b)
        ALU_R(ZK_XOR, a ^ b)
        ALU_R(ZK_SRL, a >> (b & 31))
        ALU_R(ZK_SRA, zk_sra(a, b))
        ALU_R(ZK_OR, a | b)
        ALU_R(ZK_AND, a & b)
        ALU_R(ZK_MUL, a * b)
        ALU_R(ZK_MULH, zk_mulh(a, b))
        ALU_R(ZK_MULHSU, zk_mulhsu(a, b))
        ALU_R(ZK_MULHU, zk_mulhu(a, b))
        ALU_R(ZK_DIV, zk_div(a, b))
        ALU_R(ZK_DIVU, zk_divu(a, b))
        ALU_R(ZK_REM, zk_rem(a, b))
        ALU_R(ZK_REMU, zk_remu(a, b))
        CASE(ZK_FENCE) {
            i++;
            NEXT();
        }
        CASE(ZK_ECALL) {
            zk_ecall_info e;
            uint32_t a7 = x[17], a0 = x[10];
#if ZK_TRACED
            /* Room for its io record first: a call is never half recorded. */
            if (tr->n_io == tr->cap_io && zk_trace_grow_io(tr) != GS_OK) goto nomem;
#endif
            int r = zk_ecall(vm, x, &e);
            if (r < 0) FAULT(e.fault, e.addr);
#if ZK_TRACED
            REC(a7, a0, x[10]);
            row->rd_val = x[10];
            REC_MEM(x[11], x[12], 0u);
            if (r == 0) {
                tr->io[tr->n_io] = (gs_zkvm_io){.clk = tr->clk0 + tr->n_steps, .num = a7,
                                                .fd = a0, .buf = x[11], .len = x[12],
                                                .done = e.done, .stream_pos = e.pos};
                row->mem_after = (uint32_t)++tr->n_io;
            }
#else
            (void)a7, (void)a0;
#endif
            i++;
            if (r == 1) {
                done++;
                ZK_END_ROW();
                stop = GS_ZKVM_EXITED;
                goto out;
            }
            NEXT();
        }
        CASE(ZK_BAD) { FAULT((gs_zkvm_fault)d.imm, 0); }
        CASE(ZK_NOTEXT) { FAULT(GS_ZKVM_FAULT_FETCH, text_lo + 4 * i); }
        CASE(ZK_END) { FAULT(GS_ZKVM_FAULT_FETCH, text_lo + 4 * i); }
#if !(defined(__GNUC__) && !defined(ZK_NO_COMPUTED_GOTO))
        default: FAULT(GS_ZKVM_FAULT_ILLEGAL, 0);
        }
#endif
    }
limit:
    stop = GS_ZKVM_CYCLE_LIMIT;
    goto out;
#if ZK_TRACED
nomem:
    status = GS_ERR_NOMEM;
    stop = GS_ZKVM_CYCLE_LIMIT;
    goto out;
#endif
faulted:
    stop = GS_ZKVM_FAULT;
out:
    memcpy(vm->x, x, sizeof x);
    vm->x[0] = 0;
    vm->pc_index = i;
    vm->cycles += done;
    zk_finish(vm, res, stop, fault, faddr);
    return status;
}

#undef ZK_RUN
#undef REC
#undef REC_MEM
#undef REC_WRITTEN
#undef ZK_BEGIN_ROW
#undef ZK_END_ROW
#undef ZK_DISPATCH
#undef CASE
#undef NEXT
#undef FAULT
#undef ALU_R
#undef ALU_I
#undef BRANCH
#undef LOAD
#undef STORE
