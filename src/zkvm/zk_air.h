/* The zkVM's tables (docs/zkvm.md, "The AIR"): the buses that link them, the
 * tuples each bus carries, and the interface every table ("chip") follows.
 *
 * A run's proof is one multi-table statement (gs_prove_multi). The CPU table
 * has one row per cycle; it fetches each instruction from the program table,
 * reads and writes registers on the memory bus, and hands everything else to
 * a chip through a bus: ALU operations (ZK_BUS_ALU), loads and stores
 * (ZK_BUS_LS). Chips check 32-bit arithmetic with limbs looked up in two
 * fixed tables (the 16-bit range table and the byte table), whose columns the
 * verifier knows (preprocessed columns: gs_verify_multi_fixed).
 *
 * Contract of a chip that receives requests on a bus: for every row it
 * accepts, the relation the bus names holds over the integers (below), for
 * every input the senders can send. Senders guarantee that the inputs they
 * name as 32-bit are in [0, 2^32) (register values are range-checked where
 * they are produced; immediates come from the program table, which the
 * verifier builds); a chip range-checks every value it produces.
 *
 * Filling: a chip's fill function gets the requests in cycle order and
 * writes its trace (column-major, 2^log_n rows, log_n >= ZK_MIN_LOG_N, padding
 * rows satisfy every constraint and take part in no interaction) and adds
 * the lookups its rows make to the shared counts. Traces are deterministic
 * functions of the requests. */
#ifndef GSTARK_ZK_AIR_H
#define GSTARK_ZK_AIR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "gstark/air.h"
#include "gstark/field.h"
#include "gstark/status.h"

/* ---- buses (ids are part of each tuple's fingerprint) ---- */
enum {
    /* (pc, alu_op, rd, rs1, rs2, imm, flags): the program table provides one
     * tuple per instruction slot; the CPU receives the one at its pc. */
    ZK_BUS_PROG = 1,
    /* (addr, value, ts, w): offline memory checking over 32-bit words.
     * Registers are addresses 0..31, memory words their byte address (a
     * multiple of 4, inside [GS_ZKVM_MEM_LO, GS_ZKVM_MEM_TOP)). Every access
     * receives the previous (addr, value, ts_prev, w) with ts_prev < ts and
     * sends (addr, value', ts, w); the memory tables send each address's
     * initial tuple (ts 4 clk0, clk0 the start clk) once and receive its final one. w = 1: writable
     * (registers, data, fresh memory), 0: read-only (the text); a store
     * sends and receives with w the constant 1. */
    ZK_BUS_MEM = 2,
    /* (v): 0 <= v < 2^16 (the range table). */
    ZK_BUS_RANGE = 3,
    /* (op, x, y, z), x and y bytes: the byte table (ZK_BYTE_*). */
    ZK_BUS_BYTE = 4,
    /* (op, a, b, c): c = op(a, b) on 32-bit values (ZK_ALU_*). */
    ZK_BUS_ALU = 5,
    /* (op, base, imm, val, res, clk): a load or store at cycle clk (ZK_LS_*);
     * the chip makes the memory access at ts = 4 clk + ZK_TS_MEM. */
    ZK_BUS_LS = 6,
    /* (call, fd, count, clk): the CPU's read (call 63) or write (64) system
     * call at cycle clk returned count; the IO chip receives it and does
     * the call's accesses (below). */
    ZK_BUS_IO = 7,
    /* (stream, pos, byte): byte number pos of stream 0 (the input), 1 (what
     * fd 1 received) or 2 (fd 2) is byte; the IO chip sends one per byte
     * moved, the stream table (fixed: the input and the claimed outputs)
     * receives. */
    ZK_BUS_STREAM = 8,
};

/* The stream cursors: memory addresses ZK_CURSOR_ADDR + stream (above the
 * registers, below every memory word) hold the bytes consumed from the
 * input and written to fd 1 and fd 2, writable; initially (image table) the
 * start state's input position and 0 for the outputs (a run's output is
 * what it writes). */
#define ZK_CURSOR_ADDR 32u
#define ZK_NUM_STREAMS 3u

/* Timestamps: the accesses of cycle clk happen at 4 clk + slot, in this
 * order (rd = rs1 reads the old value and writes the new one). The memory's
 * initial tuples have ts 4 clk0 (clk0: the start clk, 0 for a whole run),
 * so the first cycle is clk0 + 1 (the CPU's clk column starts there). */
enum { ZK_TS_RS1 = 0, ZK_TS_RS2 = 1, ZK_TS_MEM = 2, ZK_TS_RD = 3 };

/* ALU operations, c = op(a, b) with a, b, c in [0, 2^32):
 * ADD/SUB mod 2^32; XOR/OR/AND bitwise; SLT/SLTU: 1 if a < b (signed /
 * unsigned) else 0; EQ: 1 if a == b else 0; SLL/SRL/SRA: shift a by b mod
 * 32; MUL: low word of a * b; MULH/MULHSU/MULHU: high word of the signed x
 * signed / signed x unsigned / unsigned product; DIV/DIVU/REM/REMU as the
 * RISC-V spec says, division by zero and INT_MIN / -1 included (gs_zkvm's
 * zk_div and friends in zkvm_int.h are the reference). */
enum {
    ZK_ALU_ADD = 1, ZK_ALU_SUB, ZK_ALU_XOR, ZK_ALU_OR, ZK_ALU_AND,
    ZK_ALU_SLT, ZK_ALU_SLTU, ZK_ALU_EQ,
    ZK_ALU_SLL, ZK_ALU_SRL, ZK_ALU_SRA,
    ZK_ALU_MUL, ZK_ALU_MULH, ZK_ALU_MULHSU, ZK_ALU_MULHU,
    ZK_ALU_DIV, ZK_ALU_DIVU, ZK_ALU_REM, ZK_ALU_REMU,
    ZK_ALU_NUM_OPS
};

/* Byte table operations on (op, x, y, z), x, y in [0, 256): AND/OR/XOR z =
 * x op y; RANGE z = 0 (both x and y are bytes). */
enum { ZK_BYTE_AND = 1, ZK_BYTE_OR, ZK_BYTE_XOR, ZK_BYTE_RANGE, ZK_BYTE_NUM_OPS };

/* Loads and stores on (op, base, imm, val, res, clk): the byte address is
 * addr = (base + imm) mod 2^32; a load reads the word holding addr and res
 * is the loaded value (sign- or zero-extended), val is 0; a store writes the
 * low byte / halfword / word of val at addr and res is 0. The access must be
 * aligned to its size (the memory tables' addresses make an unaligned or
 * out-of-range word impossible; the chip checks the offset's alignment). */
enum { ZK_LS_LB = 1, ZK_LS_LH, ZK_LS_LW, ZK_LS_LBU, ZK_LS_LHU, ZK_LS_SB, ZK_LS_SH, ZK_LS_SW };

#define ZK_MIN_LOG_N 4u /* the smallest table height, 2^4 rows */

/* ---- what the chips share while filling ---- */
/* Lookup counts: the fixed tables' multiplicity columns. */
typedef struct zk_lookups {
    uint32_t range16[1u << 16];
    uint32_t byte[ZK_BYTE_NUM_OPS - 1][1u << 16]; /* [op - 1][x * 256 + y] */
} zk_lookups;

static inline void zk_range16(zk_lookups *lk, uint32_t v) { lk->range16[v & 0xffffu]++; }
static inline void zk_byte(zk_lookups *lk, unsigned op, uint32_t x, uint32_t y) {
    lk->byte[op - 1][(x & 0xffu) << 8 | (y & 0xffu)]++;
}

/* Filling in parallel: fn(ctx, begin, end, lk_part) runs over contiguous
 * parts of [0, n) at once (at most gs_threads_get() parts, each at least
 * grain long; n < 2 grain: one part, the caller's lk), each part counting
 * its lookups in its own zeroed zk_lookups, which are then added to lk (NULL:
 * no counts). A fill whose rows depend only on their requests, and whose
 * counts are sums, gives the same trace and counts for every thread count. */
#define ZK_MAX_PARTS 64u
#define ZK_FILL_GRAIN 4096u /* rows: smaller fills stay on one thread */
typedef void (*zk_part_fn)(void *ctx, size_t begin, size_t end, zk_lookups *lk);
void zk_parallel_lookups(size_t n, size_t grain, zk_lookups *lk, zk_part_fn fn, void *ctx);
/* x[i] = 1 / x[i] for nonzero x[i] (zeros stay 0), a few inversions in all. */
void zk_inv_in_place(gs_fp *x, size_t n);

/* A table's trace: column-major, cols x 2^log_n, from calloc, or from a
 * resident prover's host memory when `owner` is set (zk_table_free frees
 * either). */
typedef struct zk_table {
    gs_fp *cols;
    uint32_t num_cols;
    unsigned log_n;
    struct gs_prover *owner;
    int zeroed; /* every cell 0 until written (zk_table_zeroed) */
} zk_table;

/* Allocates a zeroed trace of `cols` columns with at least `rows` rows
 * (2^log_n, log_n >= ZK_MIN_LOG_N): from the calling thread's arena when
 * one is set (zk_table_arena), else calloc. */
gs_status zk_table_alloc(zk_table *t, uint32_t cols, uint64_t rows);
/* The same for a writer of every cell: in an arena the table holds what the
 * block's last user left (calloc'd, it is zero as above). */
gs_status zk_table_alloc_dense(zk_table *t, uint32_t cols, uint64_t rows);
/* Whether t's cells are all 0 until written (calloc'd, or zeroed by the
 * arena): a writer may skip zeros. */
static inline int zk_table_zeroed(const zk_table *t) { return t->zeroed; }
void zk_table_free(zk_table *t); /* cols NULL: no-op; cols is NULL after */
/* Bytes from the calling thread's arena when one is set (zk_table_arena),
 * else malloc; not zeroed. */
typedef struct zk_bytes {
    void *p;
    size_t bytes;
    struct gs_prover *owner;
} zk_bytes;
gs_status zk_bytes_alloc(zk_bytes *b, size_t bytes);
void zk_bytes_free(zk_bytes *b); /* p NULL: no-op */
/* The log2 of a table's height for `rows` rows: at least ZK_MIN_LOG_N; 41
 * when more than 2^40. */
unsigned zk_log_rows(uint64_t rows);
/* Makes pv (NULL: none) the arena of the calling thread's zk_table_alloc
 * calls: a resident prover's tables are built in its host memory
 * (gs_prover_host_alloc: pinned on CUDA, kept between proofs). */
void zk_table_arena(struct gs_prover *pv);
static inline gs_fp *zk_col(zk_table *t, uint32_t c) { return t->cols + ((size_t)c << t->log_n); }

/* Writing rows in blocks: a table's rows are built ZK_ROW_BLOCK at a time in
 * a small column-major buffer (column c's k values at buf + c ZK_ROW_BLOCK)
 * and written out a column run at a time, so each column gets a contiguous
 * run instead of one scattered store per row and column. zk_put_rows writes
 * rows [r0, r0 + k) of cols columns:
 * - in a zeroed table (zk_table_zeroed) a run of zeros is not written, so a
 *   column that stays 0 on fresh pages costs no page faults;
 * - in a resident prover's memory (reused, already mapped) a whole run to a
 *   64-byte-aligned place goes out with non-temporal stores: four full cache
 *   lines written without being read first (an ordinary store reads each
 *   line before it writes it). On fresh pages, whose fault has the kernel
 *   zero them through the cache anyway, they were slower (docs/benchmarks.md,
 *   2026-12-05), so those get ordinary stores.
 * After a writer's last zk_put_rows, zk_put_done (a store fence), before
 * anyone reads the table. */
#define ZK_ROW_BLOCK 32u
#if defined(__SSE2__)
static inline void zk_put_run_(gs_fp *dst, const gs_fp *src, size_t k, int stream) {
    if (stream && k == ZK_ROW_BLOCK && ((uintptr_t)dst & 63) == 0) {
        for (size_t i = 0; i < ZK_ROW_BLOCK; i += 2)
            _mm_stream_si128((__m128i *)(dst + i), _mm_loadu_si128((const __m128i *)(src + i)));
    } else {
        memcpy(dst, src, k * sizeof *dst);
    }
}
static inline void zk_put_done(void) { _mm_sfence(); }
#else
static inline void zk_put_run_(gs_fp *dst, const gs_fp *src, size_t k, int stream) {
    (void)stream;
    memcpy(dst, src, k * sizeof *dst);
}
static inline void zk_put_done(void) {}
#endif
/* Inline: a call per block cost the one-shot CPU rows 12% (measured). */
static inline void zk_put_rows(zk_table *t, const gs_fp *buf, uint32_t cols, size_t r0, size_t k) {
    size_t n = (size_t)1 << t->log_n;
    int stream = t->owner != NULL, all = !zk_table_zeroed(t);
    for (uint32_t c = 0; c < cols; c++) {
        const gs_fp *v = buf + (size_t)c * ZK_ROW_BLOCK;
        gs_fp any = 0;
        for (size_t i = 0; i < k; i++) any |= v[i];
        if (any || all) zk_put_run_(t->cols + c * n + r0, v, k, stream);
    }
}
/* The chips' rows, a block at a time: column c of row r at v[c][r - r0]
 * (zk_set), every cell 0 until set. */
#define ZK_BLOCK_COLS 40u /* at least every chip's column count */
typedef struct {
    size_t r0;
    gs_fp v[ZK_BLOCK_COLS][ZK_ROW_BLOCK];
} zk_block;
static inline void zk_set(zk_block *b, uint32_t c, size_t r, gs_fp v) { b->v[c][r - b->r0] = v; }
typedef void (*zk_row_fn)(zk_block *b, const void *ctx, size_t r, zk_lookups *lk);
/* Rows [begin, end) of t's cols columns through fn(b, ctx, r, lk), a block at
 * a time (blocks after the first start on a whole run), each written out by
 * zk_put_rows; zk_put_done at the end. Inline, so fn inlines too. */
static inline void zk_fill_blocks(zk_table *t, uint32_t cols, size_t begin, size_t end, zk_row_fn fn,
                                  const void *ctx, zk_lookups *lk) {
    zk_block b;
    for (b.r0 = begin; b.r0 < end;) {
        size_t r1 = (b.r0 / ZK_ROW_BLOCK + 1) * ZK_ROW_BLOCK;
        if (r1 > end) r1 = end;
        memset(b.v, 0, cols * sizeof b.v[0]);
        for (size_t r = b.r0; r < r1; r++) fn(&b, ctx, r, lk);
        zk_put_rows(t, &b.v[0][0], cols, b.r0, r1 - b.r0);
        b.r0 = r1;
    }
    zk_put_done();
}

/* c = op(a, b) for every ZK_ALU_* op: the executor's arithmetic
 * (zkvm_int.h), what the replay puts in a request and the ALU chip in its
 * rows (src/zkvm/air_util.c). */
uint32_t zk_alu_ref(uint32_t op, uint32_t a, uint32_t b);

typedef struct zk_alu_req {
    uint32_t op, a, b, c;
} zk_alu_req;

/* An ALU-bus chip's fill (the ALU, shift, mul and div chips): a table
 * of `cols` columns and m + 1 rows (the last row padding), m the requests
 * whose op `handled` accepts, and fn run over its rows by
 * zk_parallel_lookups with a zk_chip_job: rows [0, m), or every row with
 * all_rows (fn writes the padding rows' witness itself). GS_ERR_NOMEM. */
typedef struct zk_chip_job {
    zk_table *out;
    const zk_alu_req *req; /* the m handled requests, in order */
    size_t m;
} zk_chip_job;
gs_status zk_chip_fill(zk_table *out, uint32_t cols, const zk_alu_req *req, size_t n,
                       int (*handled)(uint32_t op), int all_rows, zk_lookups *lk, zk_part_fn fn);

typedef struct zk_ls_req {
    uint32_t op, base, imm, val, res;
    uint64_t clk;
    /* the word access: its aligned address, the word before and after, and
     * the previous access's timestamp and w (from the memory replay) */
    uint32_t waddr, before, after;
    uint64_t ts_prev;
    uint32_t w;
} zk_ls_req;

/* A read or write call (the IO chip's request). The chip reads a1 (buf,
 * register 11) and a2 (len, register 12) and updates the cursor of stream
 * fd (read: fd 0; write: 1 or 2) from pos to pos + count, all at ts = 4 clk
 * + ZK_TS_MEM (distinct addresses, so one timestamp serves them all), then
 * moves count bytes between [buf, buf + count) and the stream from pos:
 * one access per word touched (read: w = 1 and the word's bytes in the
 * range replaced by input bytes; write: the word unchanged, its bytes in the
 * range sent to the stream). count: write = len; read = min(len, in_len -
 * pos) (in_len: the input's length, a public of the IO table). */
typedef struct zk_io_word {
    uint32_t waddr, before, after, w;
    uint64_t ts_prev;
} zk_io_word;
typedef struct zk_io_req {
    uint32_t call, fd, buf, len, count;
    uint64_t clk, pos;
    uint64_t buf_ts, len_ts, pos_ts; /* previous accesses of x11, x12 and the cursor */
    const zk_io_word *words;         /* the words touched, by increasing address */
    uint32_t n_words;
} zk_io_req;

/* Calls fn for every interaction on every row of a table (trace column-
 * major, 2^log_n rows): its bus, sign (+1 send, -1 receive), multiplicity
 * and tuple, as the prover evaluates them (src/zkvm/debug.c). For
 * diagnostics and the tests' lookup recounts. */
typedef void (*zk_inter_fn)(void *ctx, uint64_t row, uint32_t bus, int sign, gs_fp m,
                            const gs_fp *v, uint32_t width);
gs_status zk_each_interaction(const gs_air *air, const gs_fp *trace, unsigned log_n,
                              const gs_fp *pub, zk_inter_fn fn, void *ctx);

/* ---- the chips: AIR (built and finalized; NULL if out of memory) and fill ---- */
/* The fixed tables (src/zkvm/air_lookup.c). Range: column 0 is v = the row
 * index (fixed), column 1 its multiplicity; 2^16 rows. Byte: columns 0..4
 * are x, y, x & y, x | y, x ^ y with row = x * 256 + y (fixed), columns
 * 5..8 the multiplicities of AND, OR, XOR, RANGE; 2^16 rows. The verifier
 * takes the fixed columns from the fill functions with all counts zero. */
#define ZK_RANGE_FIXED 1u
#define ZK_BYTE_FIXED 5u
gs_air *zk_range_air(void);
gs_status zk_range_fill(zk_table *out, const zk_lookups *lk);
gs_air *zk_byte_air(void);
gs_status zk_byte_fill(zk_table *out, const zk_lookups *lk);

/* ALU chips: each handles a set of ops and ignores requests for others. */
gs_air *zk_alu_air(void); /* XOR OR AND SLT SLTU (src/zkvm/air_alu.c) */
gs_status zk_alu_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk);
gs_air *zk_shift_air(void); /* SLL SRL SRA (src/zkvm/air_muldiv.c) */
gs_status zk_shift_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk);
gs_air *zk_mul_air(void); /* MUL MULH MULHSU MULHU */
gs_status zk_mul_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk);
gs_air *zk_div_air(void); /* DIV DIVU REM REMU */
gs_status zk_div_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk);

/* Loads and stores (src/zkvm/air_ls.c). */
gs_air *zk_ls_air(void);
gs_status zk_ls_fill(zk_table *out, const zk_ls_req *req, size_t n, zk_lookups *lk);

/* System calls read and write (src/zkvm/air_io.c): the IO chip, one public
 * (the input's length: ZK_IO_PUB_IN_LEN). in_mult[pos] counts the reads of
 * input byte pos (the stream table's multiplicities of stream 0). */
enum { ZK_IO_PUB_IN_LEN, ZK_IO_NUM_PUBLIC };
gs_air *zk_io_air(void);
gs_status zk_io_fill(zk_table *out, const zk_io_req *req, size_t n, uint64_t in_len,
                     zk_lookups *lk, uint32_t *in_mult);
/* The stream table: columns 0..3 fixed (stream, pos, byte, is_output),
 * column 4 the multiplicity: free on the input's rows (in_mult), 1 on every
 * output row (a constraint: each claimed output byte written exactly once),
 * 0 on padding rows (stream 3). Rows: the input, then fd 1's bytes, then fd
 * 2's. in_mult NULL: zeros (the verifier's fixed columns). */
#define ZK_STREAM_FIXED 4u
gs_air *zk_stream_air(void);
gs_status zk_stream_fill(zk_table *out, const uint8_t *in, uint64_t in_len, const uint8_t *out1,
                         uint64_t len1, const uint8_t *out2, uint64_t len2,
                         const uint32_t *in_mult);

#endif
