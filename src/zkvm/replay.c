/* A run's tables from its trace (docs/zkvm.md, "Proving a run"): the replay
 * that turns the executor's steps into CPU rows and the chips' requests,
 * the memory tables, then every chip's fill.
 *
 * The replay runs in two passes so that only a thin part is sequential:
 *  1. sequential, a few loads and stores per step: the registers' values
 *     (from the steps' rd values) and last access times, each memory word's
 *     last access time and value (loads and stores, read and write calls),
 *     the program slots' execution counts, and at every CHUNK-th step a
 *     snapshot of the registers and of where the chunk's requests start;
 *  2. in parallel, chunk by chunk from its snapshot: each step's CPU row
 *     (values, the previous access times, the range lookups of the gaps),
 *     its ALU, shift, mul, div or load/store request, and the check that
 *     the value the AIR writes to rd is the executor's.
 * Every row and request depends only on the step and the state before it,
 * and the lookup counts are sums, so the tables do not depend on how the
 * chunks are spread over threads (DESIGN.md section 2). The fills are
 * parallel too (zk_parallel_lookups). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gstark/obs.h"
#include "gstark/parallel.h"
#include "util/pages.h"
#include "zkvm/zk_cpu.h"

const char *const zk_table_names[ZK_T_NUM] = {
    "zkvm-cpu", "zkvm-program", "zkvm-image", "zkvm-fresh", "zkvm-alu", "zkvm-shift",
    "zkvm-mul", "zkvm-div", "zkvm-ls", "zkvm-io", "zkvm-stream", "zkvm-range", "zkvm-byte"};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static gs_status bug(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static gs_status bug(char *msg, size_t cap, const char *fmt, ...) {
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return GS_ERR_AIR_UNSATISFIED;
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

/* The ALU chips, by op (ZK_ALU_*): each gets its own request array. (Add,
 * sub and equality are the CPU row's: nothing sends them.) */
enum { CH_ALU, CH_SHIFT, CH_MUL, CH_DIV, CH_NUM };
static unsigned chip_of(uint32_t op) {
    return op <= ZK_ALU_EQ ? CH_ALU : op <= ZK_ALU_SRA ? CH_SHIFT : op <= ZK_ALU_MULHU ? CH_MUL : CH_DIV;
}

#define MEM_WORDS (GS_ZKVM_MEM_TOP / 4)
#define N_CELLS (ZK_CURSOR_ADDR + ZK_NUM_STREAMS) /* registers and cursors */
#define CHUNK ((uint64_t)1 << 13)               /* steps per replay chunk */

/* Where a chunk of steps starts: the registers and where its requests go. */
typedef struct {
    uint32_t x[N_CELLS];
    uint64_t x_ts[N_CELLS];
    size_t n_chip[CH_NUM], n_ls;
} chunk_start;

/* The replay's state: every register, cursor and memory word with its value
 * and last access time, and the requests for the chips. */
typedef struct {
    uint32_t x[N_CELLS];
    uint64_t x_ts[N_CELLS];
    uint8_t *mem;      /* indexed by address */
    uint64_t *mem_ts;  /* per word; 0: never accessed (its last access is the initial tuple's, ts0) */
    uint64_t clk0, ts0; /* the start clk, the initial tuples' timestamp 4 clk0 */
    uint64_t *touched; /* per word, a bit: accessed (the fresh table's words, in order) */
    uint32_t text_lo, text_hi;
    zk_prog_row_t *prog; /* the program's rows, per slot */
    uint32_t *counts;    /* executions per slot */
    chunk_start *starts;
    zk_alu_req *chip[CH_NUM];
    zk_ls_req *ls;
    zk_io_req *io;
    zk_io_word *words;
    size_t n_chip[CH_NUM], n_ls, n_io, n_words, cap_words;
    uint32_t *in_mult;
    zk_lookups *lk;
} replay;

static void replay_free(replay *rp) {
    gs_zero_unmap(rp->mem, GS_ZKVM_MEM_TOP);
    free(rp->mem_ts), free(rp->touched), free(rp->prog), free(rp->counts);
    free(rp->starts), free(rp->ls), free(rp->io), free(rp->words), free(rp->in_mult), free(rp->lk);
    for (unsigned c = 0; c < CH_NUM; c++) free(rp->chip[c]);
}

static inline void mem_touch(replay *rp, uint32_t w, uint64_t ts, uint64_t *prev) {
    uint64_t *mt = &rp->mem_ts[w / 4];
    if (!*mt) rp->touched[w / 256] |= (uint64_t)1 << (w / 4 % 64);
    *prev = *mt ? *mt : rp->ts0, *mt = ts;
}

/* A register or cursor access at ts by the IO chip: its previous time. */
static uint64_t touch(replay *rp, unsigned cell, uint64_t ts) {
    uint64_t prev = rp->x_ts[cell];
    rp->x_ts[cell] = ts;
    return prev;
}

/* A read or write call: its words, with the memory replayed through it. */
static gs_status io_call(replay *rp, const gs_zkvm_io *rec, const uint8_t *input, uint64_t clk) {
    uint64_t ts = 4 * clk + ZK_TS_MEM;
    zk_io_req q = {.call = rec->num, .fd = rec->fd, .buf = rec->buf, .len = rec->len,
                   .count = rec->done, .clk = clk, .pos = rec->stream_pos};
    q.buf_ts = touch(rp, 11, ts);
    q.len_ts = touch(rp, 12, ts);
    unsigned cur = ZK_CURSOR_ADDR + rec->fd;
    q.pos_ts = touch(rp, cur, ts);
    rp->x[cur] = (uint32_t)(rec->stream_pos + rec->done);
    size_t first = rp->n_words;
    uint64_t end = (uint64_t)rec->buf + rec->done;
    for (uint64_t w = rec->buf & ~3u; rec->done && w < end; w += 4) {
        if (w >= GS_ZKVM_MEM_TOP) return GS_ERR_AIR_UNSATISFIED;
        if (rp->n_words == rp->cap_words) {
            size_t cap = rp->cap_words ? 2 * rp->cap_words : 1024;
            zk_io_word *nw = realloc(rp->words, cap * sizeof *nw);
            if (!nw) return GS_ERR_NOMEM;
            rp->words = nw, rp->cap_words = cap;
        }
        zk_io_word *o = &rp->words[rp->n_words++];
        o->waddr = (uint32_t)w, o->before = zk_ld32(rp->mem + w);
        o->w = !(w >= rp->text_lo && w < rp->text_hi);
        mem_touch(rp, (uint32_t)w, ts, &o->ts_prev);
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

/* Pass 1: the state's thin sequential part (see the top of the file). */
static gs_status replay_state(replay *rp, const gs_zkvm_program *p, const gs_zkvm_trace *tr,
                              const uint8_t *input, char *msg, size_t cap) {
    const uint64_t n = tr->n_steps;
    for (uint64_t i = 0; i < n; i++) {
        const gs_zkvm_step *st = &tr->steps[i];
        if (i % CHUNK == 0) {
            chunk_start *cs = &rp->starts[i / CHUNK];
            memcpy(cs->x, rp->x, sizeof rp->x), memcpy(cs->x_ts, rp->x_ts, sizeof rp->x_ts);
            memcpy(cs->n_chip, rp->n_chip, sizeof rp->n_chip), cs->n_ls = rp->n_ls;
        }
        uint32_t slot = (st->pc - p->text_lo) / 4;
        const uint64_t clk = rp->clk0 + i + 1;
        if (st->pc < p->text_lo || slot >= p->n)
            return bug(msg, cap, "cycle %llu: pc 0x%08x outside the text (a bug)", (unsigned long long)clk, st->pc);
        const zk_prog_row_t *pr = &rp->prog[slot];
        const uint32_t f = pr->flags;
        const uint64_t ts = 4 * clk;
        rp->counts[slot]++;
        rp->x_ts[pr->rs1] = ts + ZK_TS_RS1;
        rp->x_ts[pr->rs2] = ts + ZK_TS_RS2;
        if (f & (ZK_F_ALU | ZK_F_BRANCH)) {
            rp->n_chip[chip_of(pr->op)]++;
        } else if (f & (ZK_F_LOAD | ZK_F_STORE)) {
            uint32_t w = (rp->x[pr->rs1] + pr->imm) & ~3u;
            if (w >= GS_ZKVM_MEM_TOP)
                return bug(msg, cap, "cycle %llu, pc 0x%08x: the replay's address 0x%08x is outside memory "
                           "(a bug)", (unsigned long long)clk, st->pc, w);
            mem_touch(rp, w, ts + ZK_TS_MEM, &rp->ls[rp->n_ls++].ts_prev);
            zk_st32(rp->mem + w, st->mem_after);
        } else if ((f & ZK_F_ECALL) && rp->x[17] != GS_ZKVM_SYS_EXIT) {
            if (st->mem_after == 0 || st->mem_after > tr->n_io)
                return bug(msg, cap, "cycle %llu: a call without its record (a bug)", (unsigned long long)clk);
            gs_status s = io_call(rp, &tr->io[st->mem_after - 1], input, clk);
            if (s == GS_ERR_AIR_UNSATISFIED)
                return bug(msg, cap, "cycle %llu: a call's buffer outside memory (a bug)", (unsigned long long)clk);
            if (s != GS_OK) return s;
        }
        if (f & ZK_F_WR) rp->x[pr->rd] = st->rd_val, rp->x_ts[pr->rd] = ts + ZK_TS_RD;
    }
    return GS_OK;
}

/* Pass 2: chunks of steps from their snapshots. */
typedef struct {
    const replay *rp;
    const gs_zkvm_trace *tr;
    zk_cpu_rec *rec; /* the CPU table's packed rows */
    uint64_t n;
    uint64_t *bad; /* per chunk: 1 + the first step whose rd value differs, or 0 */
    uint32_t *bad_c;
} rows_job;

/* A register access's gap below its timestamp ts (< 2^32: see zk_cpu_rec),
 * whose two 16-bit limbs are range-checked. */
static inline uint32_t gap(zk_lookups *lk, uint64_t ts, uint64_t ts_prev) {
    uint32_t d = (uint32_t)(ts - ts_prev - 1);
    zk_range16(lk, d & 0xffff), zk_range16(lk, d >> 16);
    return d;
}

static void replay_chunk(const rows_job *j, size_t c, zk_lookups *lk) {
    const replay *rp = j->rp;
    const chunk_start *cs = &rp->starts[c];
    uint32_t x[N_CELLS];
    uint64_t x_ts[N_CELLS];
    size_t nc[CH_NUM], nls = cs->n_ls;
    memcpy(x, cs->x, sizeof x), memcpy(x_ts, cs->x_ts, sizeof x_ts), memcpy(nc, cs->n_chip, sizeof nc);
    const uint64_t i0 = c * CHUNK, i1 = i0 + CHUNK < j->n ? i0 + CHUNK : j->n;
    for (uint64_t i = i0; i < i1; i++) {
        const gs_zkvm_step *st = &j->tr->steps[i];
        const uint32_t slot = (st->pc - rp->text_lo) / 4;
        const zk_prog_row_t *pr = &rp->prog[slot];
        const uint64_t clk = rp->clk0 + i + 1, ts = 4 * clk;
        const uint32_t f = pr->flags;
        zk_cpu_rec r = {.slot = slot, .a = x[pr->rs1], .b = x[pr->rs2]};
        r.gap_a = gap(lk, ts + ZK_TS_RS1, x_ts[pr->rs1]), x_ts[pr->rs1] = ts + ZK_TS_RS1;
        r.gap_b = gap(lk, ts + ZK_TS_RS2, x_ts[pr->rs2]), x_ts[pr->rs2] = ts + ZK_TS_RS2;
        if (f & (ZK_F_ALU | ZK_F_ADD | ZK_F_BRANCH | ZK_F_BEQ)) {
            /* b + imm for the ALU and add kinds (one of them is 0), b for compares */
            uint32_t bv = r.b + ((f & (ZK_F_ALU | ZK_F_ADD)) ? pr->imm : 0);
            r.c = zk_alu_ref(pr->op, r.a, bv);
            if (f & (ZK_F_ALU | ZK_F_BRANCH)) { /* a chip's request */
                unsigned ch = chip_of(pr->op);
                rp->chip[ch][nc[ch]++] = (zk_alu_req){pr->op, r.a, bv, r.c};
            } else if (f & ZK_F_ADD) { /* in the row, c's limbs range-checked */
                zk_range16(lk, r.c & 0xffff), zk_range16(lk, r.c >> 16);
            }
        } else if (f & (ZK_F_LOAD | ZK_F_STORE)) {
            uint32_t addr = r.a + pr->imm, w = addr & ~3u;
            zk_ls_req *q = &rp->ls[nls++];
            const uint64_t ts_prev = q->ts_prev; /* pass 1's */
            *q = (zk_ls_req){.op = pr->op, .base = r.a, .imm = pr->imm, .clk = clk, .waddr = w,
                             .before = st->mem_before, .after = st->mem_after, .ts_prev = ts_prev,
                             .w = !(w >= rp->text_lo && w < rp->text_hi)};
            if (f & ZK_F_LOAD) r.c = q->res = load_ref(pr->op, addr, st->mem_before);
            else q->val = r.b;
        } else if (f & ZK_F_LUI) {
            r.c = pr->imm;
        } else if (f & ZK_F_JUMP) {
            r.c = pr->pc + 4;
        } else if (f & ZK_F_ECALL) {
            if (r.a == GS_ZKVM_SYS_EXIT) {
                r.c = r.b;
            } else { /* the IO chip accesses a1 and a2 at ts + ZK_TS_MEM */
                r.c = j->tr->io[st->mem_after - 1].done;
                x_ts[11] = x_ts[12] = ts + ZK_TS_MEM;
            }
        }
        if (f & ZK_F_WR) {
            if (r.c != st->rd_val) { /* the replay disagrees with the executor: a bug */
                j->bad[c] = i + 1, j->bad_c[c] = r.c; /* the step's index + 1 */
                return;
            }
            r.d_prev = x[pr->rd];
            r.gap_d = gap(lk, ts + ZK_TS_RD, x_ts[pr->rd]), x_ts[pr->rd] = ts + ZK_TS_RD;
            x[pr->rd] = r.c;
        }
        j->rec[i] = r;
    }
}

static void replay_chunks(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    for (size_t c = begin; c < end; c++) replay_chunk(ctx, c, lk);
}

/* Replays the trace into the CPU table's packed rows and the chips' requests. */
static gs_status replay_run(replay *rp, zk_run_tables *rt, const gs_zkvm_program *p, const zk_image *im,
                            const gs_zkvm_state *start, uint32_t end_pc, const gs_zkvm_trace *tr,
                            const uint8_t *input, uint64_t in_len, double *state_s, char *msg,
                            size_t cap) {
    const uint64_t n = tr->n_steps, chunks = (n + CHUNK - 1) / CHUNK;
    rp->text_lo = im->text_lo, rp->text_hi = im->text_hi;
    /* The start state: registers, the input cursor (the output cursors
     * start at 0: a run's output is what it writes), every initial tuple at
     * ts0. */
    if (tr->clk0 != start->clk)
        return bug(msg, cap, "the trace starts at clk %llu, the state at %llu (a bug)",
                   (unsigned long long)tr->clk0, (unsigned long long)start->clk);
    rp->clk0 = start->clk, rp->ts0 = 4 * start->clk;
    memcpy(rp->x, start->regs, sizeof start->regs);
    rp->x[0] = 0;
    rp->x[ZK_CURSOR_ADDR] = (uint32_t)start->input_pos;
    for (unsigned c = 0; c < N_CELLS; c++) rp->x_ts[c] = rp->ts0;
    rp->prog = malloc((p->n ? p->n : 1) * sizeof *rp->prog);
    rp->counts = calloc(p->n ? p->n : 1, sizeof *rp->counts);
    rp->starts = malloc((chunks ? chunks : 1) * sizeof *rp->starts);
    rp->mem_ts = calloc(MEM_WORDS, sizeof *rp->mem_ts);
    rp->touched = calloc(MEM_WORDS / 64, sizeof *rp->touched);
    rp->mem = gs_zero_map(GS_ZKVM_MEM_TOP);
    rp->ls = malloc((n ? n : 1) * sizeof *rp->ls);
    rp->io = malloc((tr->n_io ? tr->n_io : 1) * sizeof *rp->io);
    rp->in_mult = calloc(in_len ? in_len : 1, sizeof *rp->in_mult);
    rp->lk = calloc(1, sizeof *rp->lk);
    if (!rp->prog || !rp->counts || !rp->starts || !rp->mem_ts || !rp->touched || !rp->mem || !rp->ls ||
        !rp->io || !rp->in_mult || !rp->lk)
        return GS_ERR_NOMEM;
    for (uint32_t s = 0; s < p->n; s++) zk_prog_row(&rp->prog[s], p, s);
    memcpy(rp->mem + im->lo, im->words, (size_t)(im->hi - im->lo));
    double t0 = now_s();
    GS_TRY(replay_state(rp, p, tr, input, msg, cap));
    *state_s = now_s() - t0;
    for (unsigned c = 0; c < CH_NUM; c++)
        if (!(rp->chip[c] = malloc((rp->n_chip[c] ? rp->n_chip[c] : 1) * sizeof *rp->chip[c])))
            return GS_ERR_NOMEM;
    /* The table's rows: packed (its expanders write every cell), with
     * room for one padding row at least. */
    zk_table *cpu = &rt->t[ZK_T_CPU];
    cpu->cols = NULL, cpu->num_cols = CPU_COLS, cpu->log_n = zk_log_rows(n + 1);
    if (cpu->log_n > GS_ZKVM_MAX_LOG_ROWS)
        return bug(msg, cap, "%llu cycles over the CPU table's 2^%u rows (a bug)", (unsigned long long)n,
                   GS_ZKVM_MAX_LOG_ROWS);
    GS_TRY(zk_cpu_packed_alloc(&rt->cpu_packed, p, n, rp->clk0, end_pc));
    rt->cpu_pk = (gs_packed_trace){.data = rt->cpu_packed.p, .bytes = rt->cpu_packed.bytes,
                                   .expand = zk_cpu_expand, .expand_device = zk_cpu_expand_device};
    uint64_t *bad = calloc(chunks ? chunks : 1, sizeof *bad);
    uint32_t *bad_c = calloc(chunks ? chunks : 1, sizeof *bad_c);
    if (!bad || !bad_c) {
        free(bad), free(bad_c);
        return GS_ERR_NOMEM;
    }
    const zk_cpu_head *h = rt->cpu_packed.p;
    zk_cpu_rec *rec = zk_cpu_recs(h);
    rows_job j = {.rp = rp, .tr = tr, .rec = rec, .n = n, .bad = bad, .bad_c = bad_c};
    zk_parallel_lookups((size_t)chunks, 1, rp->lk, replay_chunks, &j);
    gs_status s = GS_OK;
    for (uint64_t c = 0; c < chunks && s == GS_OK; c++)
        if (bad[c]) { /* the first one, whatever the threads did */
            const gs_zkvm_step *st = &tr->steps[bad[c] - 1];
            s = bug(msg, cap, "cycle %llu, pc 0x%08x: the AIR's value of rd 0x%08x differs from the "
                    "executor's 0x%08x (a bug)", (unsigned long long)(rp->clk0 + bad[c]), st->pc, bad_c[c],
                    st->rd_val);
        }
    free(bad), free(bad_c);
    for (size_t k = 0; k < rp->n_io; k++) rp->io[k].words = rp->words + (uintptr_t)rp->io[k].words;
    return s;
}

/* ---- the memory tables ---- */

/* Whether the replay's memory ends as the machine's: compared on the pages
 * either may have written (the machine's written pages, the words the
 * replay touched); every other page holds the program's image in both.
 * (The whole 16 MiB compared cost 5-8 ms, mostly faults mapping the zero
 * page under pages neither touched.) */
static int memory_agrees(const replay *rp, const gs_zkvm_vm *vm) {
    const uint8_t *m = gs_zkvm_vm_memory(vm) - GS_ZKVM_MEM_LO; /* indexed by address */
    const size_t words_per_page = 4096 / 4 / 64; /* touched bitmap words */
    for (uint32_t pg = GS_ZKVM_MEM_LO >> 12; pg < GS_ZKVM_MEM_TOP >> 12; pg++) {
        int w = zk_vm_page_written(vm, pg);
        for (size_t k = 0; !w && k < words_per_page; k++) w = rp->touched[pg * words_per_page + k] != 0;
        if (w && memcmp(rp->mem + ((size_t)pg << 12), m + ((size_t)pg << 12), 4096)) return 0;
    }
    return 1;
}

/* The final values of the registers, cursors and image, then the words
 * touched outside the image, in address order; the replay must end where
 * the machine did. */
static gs_status memory_tables(zk_run_tables *rt, const replay *rp, const zk_image *im,
                               const gs_zkvm_state *start, const gs_zkvm_vm *vm, char *msg,
                               size_t cap) {
    if (!memory_agrees(rp, vm) || memcmp(rp->x, gs_zkvm_vm_regs(vm), 32 * sizeof *rp->x))
        return bug(msg, cap, "the AIR's replay of the run ends in another state than the machine's (a bug)");
    size_t words = (im->hi - im->lo) / 4, nf = 0, touched = 0;
    for (size_t k = 0; k < MEM_WORDS / 64; k++) touched += (size_t)__builtin_popcountll(rp->touched[k]);
    uint32_t *fval = malloc((N_CELLS + words) * sizeof *fval);
    uint64_t *fts = malloc((N_CELLS + words) * sizeof *fts);
    zk_fresh_word *fw = malloc((touched ? touched : 1) * sizeof *fw);
    gs_status s = GS_ERR_NOMEM;
    if (fval && fts && fw) {
        for (unsigned r = 0; r < N_CELLS; r++) fval[r] = rp->x[r], fts[r] = rp->x_ts[r];
        for (size_t k = 0; k < words; k++) {
            uint32_t addr = im->lo + 4 * (uint32_t)k;
            uint64_t ts = rp->mem_ts[addr / 4];
            fval[N_CELLS + k] = zk_ld32(rp->mem + addr), fts[N_CELLS + k] = ts ? ts : rp->ts0;
        }
        for (size_t k = 0; k < MEM_WORDS / 64; k++)
            for (uint64_t bits = rp->touched[k]; bits; bits &= bits - 1) {
                uint32_t addr = 4 * (uint32_t)(64 * k + (size_t)__builtin_ctzll(bits));
                if (addr >= im->lo && addr < im->hi) continue;
                fw[nf++] = (zk_fresh_word){addr, zk_ld32(rp->mem + addr), rp->mem_ts[addr / 4]};
            }
        uint32_t init[N_CELLS] = {0};
        memcpy(init, start->regs, sizeof start->regs);
        init[0] = 0;
        init[ZK_CURSOR_ADDR] = (uint32_t)start->input_pos;
        rt->image_pub[ZK_IMAGE_PUB_CLK0] = gs_fp_from_u64(start->clk);
        for (unsigned r = 0; r < N_CELLS; r++) {
            rt->image_pub[ZK_IMAGE_PUB_START + r] = init[r];
            rt->image_pub[ZK_IMAGE_PUB_END + r] = rp->x[r];
        }
        s = zk_image_fill(&rt->t[ZK_T_IMAGE], im, init, fval, fts);
        if (s == GS_OK) s = zk_fresh_fill(&rt->t[ZK_T_FRESH], im, fw, nf, rp->lk);
    }
    free(fval), free(fts), free(fw);
    rt->fresh_pub[ZK_FRESH_PUB_LO] = im->lo / 4;
    rt->fresh_pub[ZK_FRESH_PUB_HI] = im->hi / 4;
    rt->fresh_pub[ZK_FRESH_PUB_CLK0] = gs_fp_from_u64(start->clk);
    return s;
}

/* ---- everything ---- */

gs_status zk_cpu_unpack(zk_run_tables *rt) {
    zk_table *t = &rt->t[ZK_T_CPU];
    if (t->cols || !rt->cpu_packed.p) return GS_OK;
    GS_TRY(zk_table_alloc_dense(t, CPU_COLS, (uint64_t)1 << t->log_n));
    gs_packed_trace_expand(&rt->cpu_pk, t->cols, t->log_n);
    zk_bytes_free(&rt->cpu_packed);
    memset(&rt->cpu_pk, 0, sizeof rt->cpu_pk);
    return GS_OK;
}

void zk_run_tables_free(zk_run_tables *rt) {
    for (unsigned t = 0; t < ZK_T_NUM; t++) zk_table_free(&rt->t[t]);
    zk_bytes_free(&rt->cpu_packed);
}

gs_status zk_build_tables(zk_run_tables *rt, const gs_zkvm_program *p, const zk_image *im,
                          const gs_zkvm_state *start, const gs_zkvm_trace *tr,
                          const gs_zkvm_vm *vm, const uint8_t *input,
                          uint64_t in_len, zk_trace_times *tt, char *msg, size_t cap) {
    double t0 = now_s(), t1 = t0, t2 = t0, state_s = 0;
    gs_obs *obs = tt ? tt->obs : NULL;
    replay rp;
    memset(&rp, 0, sizeof rp);
    int64_t span = gs_obs_begin(obs, "replay", -1, 0, 0);
    gs_status s = replay_run(&rp, rt, p, im, start, gs_zkvm_vm_pc(vm), tr, input, in_len,
                             &state_s, msg, cap);
    gs_obs_end(obs, span, 0);
    t1 = now_s();
    span = gs_obs_begin(obs, "memory tables", -1, 0, 0);
    if (s == GS_OK) s = memory_tables(rt, &rp, im, start, vm, msg, cap);
    gs_obs_end(obs, span, 0);
    t2 = now_s();
    if (s != GS_OK) goto out;
    span = gs_obs_begin(obs, "fills", -1, 0, 0);
    rt->io_pub[ZK_IO_PUB_IN_LEN] = gs_fp_from_u64(in_len);
    size_t len1 = 0, len2 = 0;
    const uint8_t *out1 = gs_zkvm_vm_output(vm, 1, &len1), *out2 = gs_zkvm_vm_output(vm, 2, &len2);
    /* A fill that refuses its requests is a bug in the replay or the chip. */
#define FILL(t, call)                                                                       \
    if ((s = (call)) != GS_OK) {                                                            \
        if (s != GS_ERR_NOMEM)                                                              \
            s = bug(msg, cap, "the %s table refused the run's requests (a bug): %s",        \
                    zk_table_names[t], gs_status_str(s));                                   \
        goto out;                                                                           \
    }
    FILL(ZK_T_PROG, zk_prog_fill(&rt->t[ZK_T_PROG], p, rp.counts));
    FILL(ZK_T_ALU, zk_alu_fill(&rt->t[ZK_T_ALU], rp.chip[CH_ALU], rp.n_chip[CH_ALU], rp.lk));
    FILL(ZK_T_SHIFT, zk_shift_fill(&rt->t[ZK_T_SHIFT], rp.chip[CH_SHIFT], rp.n_chip[CH_SHIFT], rp.lk));
    FILL(ZK_T_MUL, zk_mul_fill(&rt->t[ZK_T_MUL], rp.chip[CH_MUL], rp.n_chip[CH_MUL], rp.lk));
    FILL(ZK_T_DIV, zk_div_fill(&rt->t[ZK_T_DIV], rp.chip[CH_DIV], rp.n_chip[CH_DIV], rp.lk));
    FILL(ZK_T_LS, zk_ls_fill(&rt->t[ZK_T_LS], rp.ls, rp.n_ls, rp.lk));
    FILL(ZK_T_IO, zk_io_fill(&rt->t[ZK_T_IO], rp.io, rp.n_io, in_len, rp.lk, rp.in_mult));
    FILL(ZK_T_STREAM, zk_stream_fill(&rt->t[ZK_T_STREAM], input, in_len, out1, len1, out2, len2, rp.in_mult));
    /* last: the fixed tables count every lookup the others made */
    FILL(ZK_T_RANGE, zk_range_fill(&rt->t[ZK_T_RANGE], rp.lk));
    FILL(ZK_T_BYTE, zk_byte_fill(&rt->t[ZK_T_BYTE], rp.lk));
#undef FILL
out:
    gs_obs_end(obs, span, 0); /* a no-op when ended */
    if (tt) tt->replay = t1 - t0, tt->state = state_s, tt->memory = t2 - t1, tt->fills = now_s() - t2;
    replay_free(&rp);
    return s;
}
