/* Proving and verifying a run (docs/zkvm.md, "Proving a run"): execute with
 * the trace recorded, replay the trace into the tables' requests and
 * traces, prove them as one multi-table statement; the verifier rebuilds the
 * program's fixed columns from the program it is given. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/parallel.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "gstark/zkvm.h"
#include "zkvm/zk_cpu.h"

/* The tables' names (their air_desc), in statement order (zk_cpu.h, ZK_T_*). */
static const char *const table_names[ZK_T_NUM] = {
    "zkvm-cpu", "zkvm-program", "zkvm-image", "zkvm-fresh", "zkvm-alu", "zkvm-shift", "zkvm-mul",
    "zkvm-div", "zkvm-ls", "zkvm-io", "zkvm-stream", "zkvm-range", "zkvm-byte"};

static gs_status refuse(char *msg, size_t cap, gs_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static gs_status refuse(char *msg, size_t cap, gs_status s, const char *fmt, ...) {
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* ---- the statement's AIRs ---- */

static void airs_free(gs_air **airs) {
    for (unsigned t = 0; t < ZK_T_NUM; t++) gs_air_free(airs[t]), airs[t] = NULL;
}

static gs_status airs_make(gs_air **airs) {
    airs[ZK_T_CPU] = zk_cpu_air();
    airs[ZK_T_PROG] = zk_prog_air();
    airs[ZK_T_IMAGE] = zk_image_air();
    airs[ZK_T_FRESH] = zk_fresh_air();
    airs[ZK_T_ALU] = zk_alu_air();
    airs[ZK_T_SHIFT] = zk_shift_air();
    airs[ZK_T_MUL] = zk_mul_air();
    airs[ZK_T_DIV] = zk_div_air();
    airs[ZK_T_LS] = zk_ls_air();
    airs[ZK_T_IO] = zk_io_air();
    airs[ZK_T_STREAM] = zk_stream_air();
    airs[ZK_T_RANGE] = zk_range_air();
    airs[ZK_T_BYTE] = zk_byte_air();
    for (unsigned t = 0; t < ZK_T_NUM; t++)
        if (!airs[t]) {
            airs_free(airs);
            return GS_ERR_NOMEM;
        }
    return GS_OK;
}

/* ---- the program's fingerprint ---- */

gs_digest gs_zkvm_program_fingerprint(const gs_zkvm_program *p) {
    gs_hasher h;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    static const char tag[] = "gstark zkvm program v1";
    gs_hasher_update(&h, tag, sizeof tag);
    uint8_t hdr[16];
    zk_st32(hdr, p->entry), zk_st32(hdr + 4, p->text_lo), zk_st32(hdr + 8, p->n);
    zk_st32(hdr + 12, (uint32_t)p->nseg);
    gs_hasher_update(&h, hdr, sizeof hdr);
    for (size_t s = 0; s < p->nseg; s++) {
        uint8_t sh[12];
        zk_st32(sh, p->seg[s].vaddr), zk_st32(sh + 4, p->seg[s].memsz), zk_st32(sh + 8, p->seg[s].filesz);
        gs_hasher_update(&h, sh, sizeof sh);
        gs_hasher_update(&h, p->seg[s].data, p->seg[s].filesz);
    }
    gs_digest d;
    gs_hasher_final(&h, &d);
    return d;
}

static void digest_hash(gs_hasher *h, const char *tag, const uint8_t *b, uint64_t len) {
    uint8_t n[8];
    for (unsigned i = 0; i < 8; i++) n[i] = (uint8_t)(len >> (8 * i));
    gs_hasher_update(h, tag, strlen(tag) + 1);
    gs_hasher_update(h, n, sizeof n);
    if (len) gs_hasher_update(h, b, (size_t)len);
}

gs_digest gs_zkvm_input_digest(const uint8_t *in, uint64_t len) {
    gs_hasher h;
    gs_digest d;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    digest_hash(&h, "gstark zkvm input v1", in, len);
    gs_hasher_final(&h, &d);
    return d;
}

gs_digest gs_zkvm_output_digest(const uint8_t *out1, uint64_t len1, const uint8_t *out2,
                                uint64_t len2) {
    gs_hasher h;
    gs_digest d;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    digest_hash(&h, "gstark zkvm output v1 fd 1", out1, len1);
    digest_hash(&h, "fd 2", out2, len2);
    gs_hasher_final(&h, &d);
    return d;
}

static void put_digest(gs_fp *pub, gs_digest d) {
    for (unsigned i = 0; i < 8; i++) pub[i] = zk_ld32(d.b + 4 * i);
}

/* The CPU's publics: what the statement claims. */
static void cpu_publics(gs_fp *pub, const gs_zkvm_claim *c) {
    pub[ZK_PUB_ENTRY] = c->entry;
    pub[ZK_PUB_EXIT_CODE] = c->exit_code;
    pub[ZK_PUB_CYCLES] = gs_fp_from_u64(c->cycles);
    put_digest(pub + ZK_PUB_PROGRAM, c->program);
    put_digest(pub + ZK_PUB_INPUT, c->input);
    put_digest(pub + ZK_PUB_OUTPUT, c->output);
}

/* ---- the reference arithmetic the requests carry ---- */

static uint32_t load_ref(uint32_t op, uint32_t addr, uint32_t word) {
    uint32_t sh = 8 * (addr & 3);
    switch (op) {
    case ZK_LS_LB: return (uint32_t)(int32_t)(int8_t)(word >> sh);
    case ZK_LS_LBU: return (word >> sh) & 0xff;
    case ZK_LS_LH: return (uint32_t)(int32_t)(int16_t)(word >> sh);
    case ZK_LS_LHU: return (word >> sh) & 0xffff;
    default: return word;
    }
}

/* ---- building the traces ---- */

typedef struct {
    zk_table t[ZK_T_NUM];
    gs_fp cpu_pub[ZK_CPU_NUM_PUBLIC], fresh_pub[ZK_FRESH_NUM_PUBLIC], io_pub[ZK_IO_NUM_PUBLIC];
} run_tables;

static void tables_free(run_tables *rt) {
    for (unsigned t = 0; t < ZK_T_NUM; t++) free(rt->t[t].cols), rt->t[t].cols = NULL;
}

#define MEM_WORDS (GS_ZKVM_MEM_TOP / 4)
#define N_CELLS (ZK_CURSOR_ADDR + ZK_NUM_STREAMS) /* registers and cursors */

/* The replay's state: every register, cursor and memory word with its value
 * and last access time, and the requests for the chips. */
typedef struct {
    uint32_t x[N_CELLS];
    uint64_t x_ts[N_CELLS];
    uint8_t *mem;     /* indexed by address */
    uint64_t *mem_ts; /* per word */
    uint32_t text_lo, text_hi;
    zk_lookups *lk;
    zk_alu_req *alu;
    zk_ls_req *ls;
    zk_io_req *io;
    zk_io_word *words;
    size_t n_alu, n_ls, n_io, n_words, cap_words;
    uint32_t *in_mult;
} replay;

/* A register or cursor access at ts: its previous time. The CPU's accesses
 * also count the range lookups of ts - ts_prev - 1 (lookups = 1; the chips
 * count their own when they fill). */
static uint64_t touch(replay *rp, unsigned cell, uint64_t ts, int lookups) {
    uint64_t prev = rp->x_ts[cell], d = ts - prev - 1;
    rp->x_ts[cell] = ts;
    if (lookups) zk_range16(rp->lk, d & 0xffff), zk_range16(rp->lk, d >> 16);
    return prev;
}

/* A read or write call: its words, with the memory replayed through it. */
static gs_status io_call(replay *rp, const gs_zkvm_io *rec, const uint8_t *input, uint64_t clk) {
    uint64_t ts = 4 * clk + ZK_TS_MEM;
    zk_io_req q = {.call = rec->num, .fd = rec->fd, .buf = rec->buf, .len = rec->len,
                   .count = rec->done, .clk = clk, .pos = rec->stream_pos};
    q.buf_ts = touch(rp, 11, ts, 0);
    q.len_ts = touch(rp, 12, ts, 0);
    unsigned cur = ZK_CURSOR_ADDR + rec->fd;
    q.pos_ts = touch(rp, cur, ts, 0);
    rp->x[cur] = (uint32_t)(rec->stream_pos + rec->done);
    size_t first = rp->n_words;
    uint64_t end = (uint64_t)rec->buf + rec->done;
    for (uint64_t w = rec->buf & ~3u; rec->done && w < end; w += 4) {
        if (rp->n_words == rp->cap_words) {
            size_t cap = rp->cap_words ? 2 * rp->cap_words : 1024;
            zk_io_word *nw = realloc(rp->words, cap * sizeof *nw);
            if (!nw) return GS_ERR_NOMEM;
            rp->words = nw, rp->cap_words = cap;
        }
        zk_io_word *o = &rp->words[rp->n_words++];
        o->waddr = (uint32_t)w, o->before = zk_ld32(rp->mem + w);
        o->w = !(w >= rp->text_lo && w < rp->text_hi);
        o->ts_prev = rp->mem_ts[w / 4], rp->mem_ts[w / 4] = ts;
        if (rec->num == GS_ZKVM_SYS_READ)
            for (uint64_t b = w; b < w + 4; b++)
                if (b >= rec->buf && b < end) rp->mem[b] = input[rec->stream_pos + (b - rec->buf)];
        o->after = zk_ld32(rp->mem + w);
    }
    q.n_words = (uint32_t)(rp->n_words - first);
    q.words = (const zk_io_word *)(uintptr_t)first; /* an index until the words stop moving */
    rp->io[rp->n_io++] = q;
    return GS_OK;
}

/* The CPU rows are written in parallel, a chunk of replayed steps at a time
 * (the replay itself is sequential: each step needs the registers' state). */
#define ROW_CHUNK ((size_t)1 << 15)
typedef struct {
    zk_table *cpu;
    const zk_cpu_row_t *rows;
    uint64_t first;
} rows_job;

static void write_rows(void *ctx, size_t begin, size_t end) {
    const rows_job *j = ctx;
    for (size_t k = begin; k < end; k++) zk_cpu_set_row(j->cpu, j->first + k, &j->rows[k]);
}

/* Replays the trace into the CPU rows and the chips' requests, then fills
 * every table. */
static gs_status build(run_tables *rt, const gs_zkvm_program *p, const zk_image *im,
                       const gs_zkvm_trace *tr, const gs_zkvm_vm *vm, const gs_zkvm_claim *claim,
                       const uint8_t *input, uint64_t in_len, char *msg, size_t cap) {
    uint64_t n = tr->n_steps;
    replay rp;
    memset(&rp, 0, sizeof rp);
    rp.text_lo = im->text_lo, rp.text_hi = im->text_hi;
    gs_status s = GS_ERR_NOMEM;
    uint32_t *counts = calloc(p->n ? p->n : 1, sizeof *counts);
    zk_cpu_row_t *rows = malloc(ROW_CHUNK * sizeof *rows);
    rp.mem_ts = calloc(MEM_WORDS, sizeof *rp.mem_ts);
    rp.mem = calloc(GS_ZKVM_MEM_TOP, 1);
    rp.alu = malloc((n ? n : 1) * sizeof *rp.alu);
    rp.ls = malloc((n ? n : 1) * sizeof *rp.ls);
    rp.io = malloc((tr->n_io ? tr->n_io : 1) * sizeof *rp.io);
    rp.in_mult = calloc(in_len ? in_len : 1, sizeof *rp.in_mult);
    rp.lk = calloc(1, sizeof *rp.lk);
    if (!counts || !rows || !rp.mem_ts || !rp.mem || !rp.alu || !rp.ls || !rp.io || !rp.in_mult || !rp.lk)
        goto out;
    memcpy(rp.mem + im->lo, im->words, (size_t)(im->hi - im->lo));
    if ((s = zk_table_alloc(&rt->t[ZK_T_CPU], zk_cpu_num_cols(), n + 1)) != GS_OK) goto out;
    zk_cpu_set_clocks(&rt->t[ZK_T_CPU]);
    for (uint64_t i = 0; i < n; i++) {
        const gs_zkvm_step *st = &tr->steps[i];
        zk_cpu_row_t r = {.clk = i + 1};
        if (i % ROW_CHUNK == 0 && i) { /* the chunk before: its rows, in parallel */
            rows_job j = {&rt->t[ZK_T_CPU], rows, i - ROW_CHUNK};
            gs_parallel_for(ROW_CHUNK, 1024, write_rows, &j);
        }
        uint32_t slot = (st->pc - p->text_lo) / 4;
        zk_prog_row(&r.prog, p, slot);
        counts[slot]++;
        uint32_t f = r.prog.flags;
        uint64_t ts = 4 * r.clk;
        r.a = rp.x[r.prog.rs1], r.a_ts = touch(&rp, r.prog.rs1, ts + ZK_TS_RS1, 1);
        r.b = rp.x[r.prog.rs2], r.b_ts = touch(&rp, r.prog.rs2, ts + ZK_TS_RS2, 1);
        if (f & (ZK_F_ALU | ZK_F_ALUI)) {
            uint32_t b = (f & ZK_F_ALU) ? r.b : r.prog.imm;
            r.c = zk_alu_ref(r.prog.op, r.a, b);
            rp.alu[rp.n_alu++] = (zk_alu_req){r.prog.op, r.a, b, r.c};
        } else if (f & ZK_F_BRANCH) {
            r.r = zk_alu_ref(r.prog.op, r.a, r.b);
            rp.alu[rp.n_alu++] = (zk_alu_req){r.prog.op, r.a, r.b, r.r};
        } else if (f & (ZK_F_LOAD | ZK_F_STORE)) {
            uint32_t addr = r.a + r.prog.imm, w = addr & ~3u;
            zk_ls_req q = {.op = r.prog.op, .base = r.a, .imm = r.prog.imm, .clk = r.clk,
                           .waddr = w, .before = st->mem_before, .after = st->mem_after,
                           .ts_prev = rp.mem_ts[w / 4],
                           .w = !(w >= im->text_lo && w < im->text_hi)};
            if (f & ZK_F_LOAD) r.c = q.res = load_ref(r.prog.op, addr, st->mem_before);
            else q.val = r.b;
            rp.mem_ts[w / 4] = ts + ZK_TS_MEM;
            zk_st32(rp.mem + w, st->mem_after);
            rp.ls[rp.n_ls++] = q;
        } else if (f & ZK_F_LUI) {
            r.c = r.prog.imm;
        } else if (f & (ZK_F_JAL | ZK_F_JALR)) {
            r.c = r.prog.pc + 4;
        } else if (f & ZK_F_ECALL) {
            if (r.a == GS_ZKVM_SYS_EXIT) {
                r.c = r.b;
            } else {
                const gs_zkvm_io *rec = &tr->io[st->mem_after - 1];
                if ((s = io_call(&rp, rec, input, r.clk)) != GS_OK) goto out;
                r.c = rec->done;
            }
        }
        if (f & ZK_F_WR) {
            if (r.c != st->rd_val) { /* the replay disagrees with the executor: a bug */
                s = refuse(msg, cap, GS_ERR_AIR_UNSATISFIED, "cycle %llu, pc 0x%08x: the AIR's value of "
                           "rd 0x%08x differs from the executor's 0x%08x (a bug)",
                           (unsigned long long)r.clk, r.prog.pc, r.c, st->rd_val);
                goto out;
            }
            r.d_prev = rp.x[r.prog.rd], r.d_ts = touch(&rp, r.prog.rd, ts + ZK_TS_RD, 1);
            rp.x[r.prog.rd] = r.c;
        }
        rows[i % ROW_CHUNK] = r;
    }
    if (n) { /* the last chunk */
        rows_job j = {&rt->t[ZK_T_CPU], rows, (n - 1) / ROW_CHUNK * ROW_CHUNK};
        gs_parallel_for((size_t)(n - j.first), 1024, write_rows, &j);
    }
    for (size_t k = 0; k < rp.n_io; k++) rp.io[k].words = rp.words + (uintptr_t)rp.io[k].words;
    cpu_publics(rt->cpu_pub, claim);

    /* The memory tables: final values of the registers, cursors and image,
     * then the words touched outside the image, in address order. */
    {
        size_t words = (im->hi - im->lo) / 4, nf = 0, touched = 0;
        uint32_t *fval = malloc((N_CELLS + words) * sizeof *fval);
        uint64_t *fts = malloc((N_CELLS + words) * sizeof *fts);
        for (size_t k = 0; k < MEM_WORDS; k++) touched += rp.mem_ts[k] != 0;
        zk_fresh_word *fw = malloc((touched ? touched : 1) * sizeof *fw);
        if (!fval || !fts || !fw) {
            free(fval), free(fts), free(fw);
            s = GS_ERR_NOMEM;
            goto out;
        }
        for (unsigned r = 0; r < N_CELLS; r++) fval[r] = rp.x[r], fts[r] = rp.x_ts[r];
        for (size_t k = 0; k < words; k++) {
            uint32_t addr = im->lo + 4 * (uint32_t)k;
            fval[N_CELLS + k] = zk_ld32(rp.mem + addr), fts[N_CELLS + k] = rp.mem_ts[addr / 4];
        }
        for (size_t k = GS_ZKVM_MEM_LO / 4; k < MEM_WORDS; k++) {
            uint32_t addr = 4 * (uint32_t)k;
            if (!rp.mem_ts[k] || (addr >= im->lo && addr < im->hi)) continue;
            fw[nf++] = (zk_fresh_word){addr, zk_ld32(rp.mem + addr), rp.mem_ts[k]};
        }
        s = zk_image_fill(&rt->t[ZK_T_IMAGE], im, fval, fts);
        if (s == GS_OK) s = zk_fresh_fill(&rt->t[ZK_T_FRESH], im, fw, nf, rp.lk);
        free(fval), free(fts), free(fw);
        if (s != GS_OK) goto out;
        rt->fresh_pub[ZK_FRESH_PUB_LO] = im->lo / 4;
        rt->fresh_pub[ZK_FRESH_PUB_HI] = im->hi / 4;
        /* the replay must end where the machine did */
        if (memcmp(rp.mem + GS_ZKVM_MEM_LO, gs_zkvm_vm_memory(vm), GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO) ||
            memcmp(rp.x, gs_zkvm_vm_regs(vm), 32 * sizeof *rp.x)) {
            s = refuse(msg, cap, GS_ERR_AIR_UNSATISFIED, "the AIR's replay of the run ends in another "
                       "state than the machine's (a bug)");
            goto out;
        }
    }
    rt->io_pub[ZK_IO_PUB_IN_LEN] = gs_fp_from_u64(in_len);
    size_t len1 = 0, len2 = 0;
    const uint8_t *out1 = gs_zkvm_vm_output(vm, 1, &len1), *out2 = gs_zkvm_vm_output(vm, 2, &len2);
    /* A fill that refuses its requests is a bug in the replay or the chip. */
#define FILL(t, call)                                                                       \
    if ((s = (call)) != GS_OK) {                                                            \
        if (s != GS_ERR_NOMEM)                                                              \
            s = refuse(msg, cap, GS_ERR_AIR_UNSATISFIED,                                    \
                       "the %s table refused the run's requests (a bug): %s",               \
                       table_names[t], gs_status_str(s));                                   \
        goto out;                                                                           \
    }
    FILL(ZK_T_PROG, zk_prog_fill(&rt->t[ZK_T_PROG], p, counts));
    FILL(ZK_T_ALU, zk_alu_fill(&rt->t[ZK_T_ALU], rp.alu, rp.n_alu, rp.lk));
    FILL(ZK_T_SHIFT, zk_shift_fill(&rt->t[ZK_T_SHIFT], rp.alu, rp.n_alu, rp.lk));
    FILL(ZK_T_MUL, zk_mul_fill(&rt->t[ZK_T_MUL], rp.alu, rp.n_alu, rp.lk));
    FILL(ZK_T_DIV, zk_div_fill(&rt->t[ZK_T_DIV], rp.alu, rp.n_alu, rp.lk));
    FILL(ZK_T_LS, zk_ls_fill(&rt->t[ZK_T_LS], rp.ls, rp.n_ls, rp.lk));
    FILL(ZK_T_IO, zk_io_fill(&rt->t[ZK_T_IO], rp.io, rp.n_io, in_len, rp.lk, rp.in_mult));
    FILL(ZK_T_STREAM, zk_stream_fill(&rt->t[ZK_T_STREAM], input, in_len, out1, len1, out2, len2, rp.in_mult));
    /* last: the fixed tables count every lookup the others made */
    FILL(ZK_T_RANGE, zk_range_fill(&rt->t[ZK_T_RANGE], rp.lk));
    FILL(ZK_T_BYTE, zk_byte_fill(&rt->t[ZK_T_BYTE], rp.lk));
#undef FILL
out:
    free(counts), free(rows), free(rp.mem_ts), free(rp.mem), free(rp.alu), free(rp.ls), free(rp.io);
    free(rp.words), free(rp.in_mult), free(rp.lk);
    return s;
}

static gs_fp *pub_of(run_tables *rt, unsigned t) {
    return t == ZK_T_CPU ? rt->cpu_pub : t == ZK_T_FRESH ? rt->fresh_pub : t == ZK_T_IO ? rt->io_pub : NULL;
}

/* ---- the proof object ---- */

void gs_zkvm_proof_free(gs_zkvm_proof *zp) {
    if (!zp) return;
    gs_multi_proof_free(zp->proof);
    free(zp->input), free(zp->out[0]), free(zp->out[1]);
    free(zp);
}

static uint8_t *copy_bytes(const uint8_t *b, uint64_t len) {
    uint8_t *c = malloc(len ? (size_t)len : 1);
    if (c && len) memcpy(c, b, (size_t)len);
    return c;
}

/* ---- proving ---- */

static gs_status prove_run(gs_zkvm_proof **out, gs_zkvm_claim *claim, const gs_zkvm_program *p,
                           const uint8_t *input, size_t in_len, uint64_t max_cycles,
                           const gs_params *params, const gs_prove_opts *opts, zk_tamper_fn fn,
                           void *ctx, char *msg, size_t msg_cap) {
    if (!out || !p || (in_len && !input)) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (msg && msg_cap) msg[0] = 0;
    uint64_t limit = ((uint64_t)1 << GS_ZKVM_MAX_LOG_ROWS) - 1;
    if (!max_cycles || max_cycles > limit) max_cycles = limit;
    if (in_len > GS_ZKVM_MAX_INPUT)
        return refuse(msg, msg_cap, GS_ERR_INVALID_ARG, "the input has %zu bytes; a proof holds at most %llu",
                      in_len, (unsigned long long)GS_ZKVM_MAX_INPUT);
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_trace *tr = NULL;
    gs_air *airs[ZK_T_NUM] = {0};
    run_tables rt;
    memset(&rt, 0, sizeof rt);
    zk_image im = {0};
    gs_zkvm_result res;
    gs_zkvm_proof *zp = calloc(1, sizeof *zp);
    gs_status s = zp ? gs_zkvm_vm_new(&vm, p, input, in_len) : GS_ERR_NOMEM;
    if (s == GS_OK) s = gs_zkvm_trace_new(&tr);
    if (s == GS_OK) s = gs_zkvm_vm_run_traced(vm, tr, &res, max_cycles);
    if (s != GS_OK) goto out;
    if (res.stop == GS_ZKVM_FAULT) {
        s = refuse(msg, msg_cap, GS_ERR_INVALID_ARG, "the program faulted, so there is no run to prove: %s",
                   res.msg);
        goto out;
    }
    if (res.stop != GS_ZKVM_EXITED) {
        s = refuse(msg, msg_cap, GS_ERR_UNSUPPORTED,
                   "the run did not exit within %llu cycles: one proof holds at most 2^%u - 1 "
                   "cycles (the CPU table's largest height, one row kept for padding); longer "
                   "runs need segmenting, which is not built yet",
                   (unsigned long long)max_cycles, GS_ZKVM_MAX_LOG_ROWS);
        goto out;
    }
    size_t len1 = 0, len2 = 0;
    const uint8_t *out1 = gs_zkvm_vm_output(vm, 1, &len1), *out2 = gs_zkvm_vm_output(vm, 2, &len2);
    if ((uint64_t)len1 + len2 > GS_ZKVM_MAX_INPUT) {
        s = refuse(msg, msg_cap, GS_ERR_UNSUPPORTED, "the run wrote %zu bytes; a proof holds at most %llu",
                   len1 + len2, (unsigned long long)GS_ZKVM_MAX_INPUT);
        goto out;
    }
    gs_zkvm_claim c = {.program = gs_zkvm_program_fingerprint(p),
                       .input = gs_zkvm_input_digest(input, in_len),
                       .output = gs_zkvm_output_digest(out1, len1, out2, len2),
                       .entry = p->entry, .exit_code = res.exit_code, .cycles = tr->n_steps};
    zp->input = copy_bytes(input, in_len), zp->in_len = in_len;
    zp->out[0] = copy_bytes(out1, len1), zp->out_len[0] = len1;
    zp->out[1] = copy_bytes(out2, len2), zp->out_len[1] = len2;
    if (!zp->input || !zp->out[0] || !zp->out[1]) {
        s = GS_ERR_NOMEM;
        goto out;
    }
    if ((s = zk_image_make(&im, p)) != GS_OK) goto out;
    if ((s = airs_make(airs)) != GS_OK) goto out;
    if ((s = build(&rt, p, &im, tr, vm, &c, input, in_len, msg, msg_cap)) != GS_OK) goto out;
    if (fn) {
        gs_fp *pubs[ZK_T_NUM];
        for (unsigned t = 0; t < ZK_T_NUM; t++) pubs[t] = pub_of(&rt, t);
        fn(rt.t, pubs, ctx);
    }
    gs_table_input in[ZK_T_NUM];
    for (unsigned t = 0; t < ZK_T_NUM; t++)
        in[t] = (gs_table_input){.air = airs[t], .trace = rt.t[t].cols, .log_n = rt.t[t].log_n,
                                 .pub = pub_of(&rt, t), .air_desc = table_names[t]};
    s = gs_prove_multi(&zp->proof, in, ZK_T_NUM, params, opts);
    if (s == GS_ERR_BUS_UNBALANCED && getenv("GS_ZKVM_DEBUG")) zk_debug_buses(in, ZK_T_NUM);
    if (s != GS_OK && msg && msg_cap && !msg[0])
        snprintf(msg, msg_cap, "proving the run's tables failed: %s", gs_status_str(s));
    if (s == GS_OK && claim) *claim = c;
out:
    if (s == GS_OK) *out = zp;
    else gs_zkvm_proof_free(zp);
    tables_free(&rt);
    airs_free(airs);
    zk_image_free(&im);
    gs_zkvm_trace_free(tr);
    gs_zkvm_vm_free(vm);
    return s;
}

gs_status gs_zkvm_prove(gs_zkvm_proof **out, gs_zkvm_claim *claim, const gs_zkvm_program *p,
                        const uint8_t *input, size_t in_len, uint64_t max_cycles,
                        const gs_params *params, const gs_prove_opts *opts, char *msg,
                        size_t msg_cap) {
    return prove_run(out, claim, p, input, in_len, max_cycles, params, opts, NULL, NULL, msg, msg_cap);
}

gs_status zk_prove_tampered(gs_zkvm_proof **out, const gs_zkvm_program *p, const uint8_t *input,
                            size_t in_len, const gs_params *params, const gs_prove_opts *opts,
                            zk_tamper_fn fn, void *ctx, char *msg, size_t msg_cap) {
    return prove_run(out, NULL, p, input, in_len, 0, params, opts, fn, ctx, msg, msg_cap);
}

gs_status gs_zkvm_proof_claim(gs_zkvm_claim *out, const gs_zkvm_proof *zp) {
    if (!out || !zp || !zp->proof) return GS_ERR_INVALID_ARG;
    const gs_multi_proof *mp = zp->proof;
    if (mp->num_tables != ZK_T_NUM || mp->tables[ZK_T_CPU].num_public != ZK_CPU_NUM_PUBLIC)
        return GS_ERR_PROOF_STATEMENT;
    const gs_fp *pub = mp->tables[ZK_T_CPU].pub;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < 8; i++) {
        zk_st32(out->program.b + 4 * i, (uint32_t)pub[ZK_PUB_PROGRAM + i]);
        zk_st32(out->input.b + 4 * i, (uint32_t)pub[ZK_PUB_INPUT + i]);
        zk_st32(out->output.b + 4 * i, (uint32_t)pub[ZK_PUB_OUTPUT + i]);
    }
    out->entry = (uint32_t)pub[ZK_PUB_ENTRY];
    out->exit_code = (uint32_t)pub[ZK_PUB_EXIT_CODE];
    out->cycles = pub[ZK_PUB_CYCLES];
    return GS_OK;
}

/* ---- verifying ---- */

gs_status gs_zkvm_verify(gs_zkvm_claim *claim, const gs_zkvm_program *p, const gs_zkvm_proof *zp,
                         unsigned min_security_bits, char *msg, size_t msg_cap) {
    if (!p || !zp || !zp->proof || (zp->in_len && !zp->input) || (zp->out_len[0] && !zp->out[0]) ||
        (zp->out_len[1] && !zp->out[1]))
        return GS_ERR_INVALID_ARG;
    if (msg && msg_cap) msg[0] = 0;
    const gs_multi_proof *proof = zp->proof;
    if (proof->num_tables != ZK_T_NUM)
        return refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "a run's proof has %u tables, this one %u",
                      ZK_T_NUM, proof->num_tables);
    if (zp->in_len > GS_ZKVM_MAX_INPUT || zp->out_len[0] + zp->out_len[1] > GS_ZKVM_MAX_INPUT)
        return refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof's input or output is too large");
    gs_air *airs[ZK_T_NUM] = {0};
    zk_image im = {0};
    zk_table fx[ZK_T_NUM];
    memset(fx, 0, sizeof fx);
    zk_lookups *none = calloc(1, sizeof *none);
    gs_status s = none ? GS_OK : GS_ERR_NOMEM;
    if (s == GS_OK) s = zk_image_make(&im, p);
    if (s == GS_OK) s = airs_make(airs);
    if (s == GS_OK) s = zk_prog_fill(&fx[ZK_T_PROG], p, NULL);
    if (s == GS_OK) s = zk_image_fill(&fx[ZK_T_IMAGE], &im, NULL, NULL);
    if (s == GS_OK)
        s = zk_stream_fill(&fx[ZK_T_STREAM], zp->input, zp->in_len, zp->out[0], zp->out_len[0], zp->out[1],
                           zp->out_len[1], NULL);
    if (s == GS_OK) s = zk_range_fill(&fx[ZK_T_RANGE], none);
    if (s == GS_OK) s = zk_byte_fill(&fx[ZK_T_BYTE], none);
    if (s != GS_OK) goto out;

    /* The publics: what the program, the input and the outputs fix. */
    const gs_proof *cpu = &proof->tables[ZK_T_CPU], *fresh = &proof->tables[ZK_T_FRESH],
                   *io = &proof->tables[ZK_T_IO];
    if (cpu->num_public != ZK_CPU_NUM_PUBLIC || fresh->num_public != ZK_FRESH_NUM_PUBLIC ||
        io->num_public != ZK_IO_NUM_PUBLIC) {
        s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof's public inputs do not have a run's shape");
        goto out;
    }
    if (cpu->pub[ZK_PUB_EXIT_CODE] > UINT32_MAX || cpu->pub[ZK_PUB_CYCLES] >= ((uint64_t)1 << GS_ZKVM_MAX_LOG_ROWS)) {
        s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof's exit code or cycle count is out of range");
        goto out;
    }
    gs_zkvm_claim c = {.program = gs_zkvm_program_fingerprint(p),
                       .input = gs_zkvm_input_digest(zp->input, zp->in_len),
                       .output = gs_zkvm_output_digest(zp->out[0], zp->out_len[0], zp->out[1], zp->out_len[1]),
                       .entry = p->entry, .exit_code = (uint32_t)cpu->pub[ZK_PUB_EXIT_CODE],
                       .cycles = cpu->pub[ZK_PUB_CYCLES]};
    gs_fp want[ZK_CPU_NUM_PUBLIC];
    cpu_publics(want, &c);
    const char *which = NULL;
    if (cpu->pub[ZK_PUB_ENTRY] != want[ZK_PUB_ENTRY] ||
        memcmp(cpu->pub + ZK_PUB_PROGRAM, want + ZK_PUB_PROGRAM, 8 * sizeof *want) ||
        fresh->pub[ZK_FRESH_PUB_LO] != im.lo / 4 || fresh->pub[ZK_FRESH_PUB_HI] != im.hi / 4)
        which = "of another program (its fingerprint or entry differs from the program given)";
    else if (memcmp(cpu->pub + ZK_PUB_INPUT, want + ZK_PUB_INPUT, 8 * sizeof *want) ||
             io->pub[ZK_IO_PUB_IN_LEN] != zp->in_len)
        which = "of a run on another input than the one it carries";
    else if (memcmp(cpu->pub + ZK_PUB_OUTPUT, want + ZK_PUB_OUTPUT, 8 * sizeof *want))
        which = "of a run with another output than the one it carries";
    if (which) {
        s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof is %s", which);
        goto out;
    }

    /* Every fixed column, then the proof. */
    static const struct { unsigned table, cols; } fixed_tabs[5] = {
        {ZK_T_PROG, ZK_PROG_FIXED}, {ZK_T_IMAGE, ZK_IMAGE_FIXED}, {ZK_T_STREAM, ZK_STREAM_FIXED},
        {ZK_T_RANGE, ZK_RANGE_FIXED}, {ZK_T_BYTE, ZK_BYTE_FIXED}};
    gs_fixed_col fixed[ZK_PROG_FIXED + ZK_IMAGE_FIXED + ZK_STREAM_FIXED + ZK_RANGE_FIXED + ZK_BYTE_FIXED];
    size_t nf = 0;
    for (unsigned i = 0; i < 5; i++) {
        zk_table *t = &fx[fixed_tabs[i].table];
        for (uint32_t col = 0; col < fixed_tabs[i].cols; col++)
            fixed[nf++] = (gs_fixed_col){fixed_tabs[i].table, col, t->log_n, zk_col(t, col)};
    }
    s = gs_verify_multi_fixed((const gs_air *const *)airs, ZK_T_NUM, proof, fixed, nf, min_security_bits);
    if (s != GS_OK) {
        refuse(msg, msg_cap, s, "the proof does not verify: %s", gs_status_str(s));
        goto out;
    }
    if (claim) *claim = c;
out:
    for (unsigned t = 0; t < ZK_T_NUM; t++) free(fx[t].cols);
    free(none);
    airs_free(airs);
    zk_image_free(&im);
    return s;
}
