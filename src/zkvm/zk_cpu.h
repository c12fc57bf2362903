/* The program, CPU and memory tables of the zkVM (src/zkvm/air_cpu.c,
 * air_mem.c; docs/zkvm.md, "The AIR"), for the prover's trace builder and the
 * verifier in src/zkvm/prove.c. */
#ifndef GSTARK_ZK_CPU_H
#define GSTARK_ZK_CPU_H

#include "zkvm/zk_air.h"
#include "zkvm/zkvm_int.h"

/* The flags word of a program row: one bit per kind, then WR (writes rd,
 * never x0) and NEG (a branch taken when the compare gives 0; an add-kind
 * row: subtract), then ECALL. Exactly one kind bit is set on an executable
 * slot. The kinds: ALU (an op of the ALU chips, register or immediate
 * form: b + imm, the form's other operand being x0 or 0), ADD (add, addi,
 * sub: done in the CPU row), LOAD, STORE, BRANCH (blt, bge, bltu, bgeu: the
 * compare by the ALU chip), BEQ (beq, bne: the compare in the CPU row),
 * JUMP (jal, jalr and fence: to a + imm with bit 0 cleared, jal and fence
 * with rs1 = x0 and the target in imm), LUI (lui, auipc) and ECALL. Every
 * bit below ZK_F_COLS is a CPU column; ECALL's is the three system-call
 * columns, which sum to it. */
enum {
    ZK_FB_ALU, ZK_FB_ADD, ZK_FB_LOAD, ZK_FB_STORE, ZK_FB_BRANCH, ZK_FB_BEQ, ZK_FB_JUMP, ZK_FB_LUI,
    ZK_FB_WR, ZK_FB_NEG, ZK_FB_ECALL
};
#define ZK_F_COLS 10u /* bits with a CPU column each: the kinds other than ECALL, then WR and NEG */
#define ZK_F_ALU (1u << ZK_FB_ALU)
#define ZK_F_ADD (1u << ZK_FB_ADD)
#define ZK_F_LOAD (1u << ZK_FB_LOAD)
#define ZK_F_STORE (1u << ZK_FB_STORE)
#define ZK_F_BRANCH (1u << ZK_FB_BRANCH)
#define ZK_F_BEQ (1u << ZK_FB_BEQ)
#define ZK_F_JUMP (1u << ZK_FB_JUMP)
#define ZK_F_LUI (1u << ZK_FB_LUI)
#define ZK_F_WR (1u << ZK_FB_WR)
#define ZK_F_NEG (1u << ZK_FB_NEG)
#define ZK_F_ECALL (1u << ZK_FB_ECALL)

/* A program row: op is the ALU op (ALU kinds, add kinds and branches) or
 * the LS op (loads, stores), else 0; imm as a u32 (branches: the signed
 * byte offset to the target; jal and fence: the target). */
typedef struct zk_prog_row_t {
    uint32_t pc, op, rd, rs1, rs2, imm, flags;
} zk_prog_row_t;

void zk_prog_row(zk_prog_row_t *r, const gs_zkvm_program *p, uint32_t slot);
gs_fp zk_prog_imm_fp(const zk_prog_row_t *r);

/* Program table: columns 0..6 fixed (pc, op, rd, rs1, rs2, imm, flags),
 * column 7 the executions of each slot (counts[slot]; NULL: zeros, which is
 * what the verifier fills the fixed columns with). */
#define ZK_PROG_FIXED 7u
gs_air *zk_prog_air(void);
gs_status zk_prog_fill(zk_table *out, const gs_zkvm_program *p, const uint32_t *counts);

/* CPU publics. The run goes from (START_PC, START_CLK) to (END_PC,
 * CYCLES): the first row fetches START_PC at clk START_CLK + 1, the last
 * active row has clk CYCLES and leads to END_PC; it is an exit (with a0 =
 * EXIT_CODE) exactly when EXITED is 1. ENTRY is the program's entry (the
 * verifier's: a whole run has START_PC = ENTRY). */
enum {
    ZK_PUB_ENTRY, ZK_PUB_EXIT_CODE, ZK_PUB_CYCLES,
    ZK_PUB_PROGRAM,               /* 8 words: the program's fingerprint, 32 bits each */
    ZK_PUB_INPUT = ZK_PUB_PROGRAM + 8, /* 8 words: the input's digest */
    ZK_PUB_OUTPUT = ZK_PUB_INPUT + 8,  /* 8 words: the outputs' digest (fd 1 and fd 2) */
    ZK_PUB_START_PC = ZK_PUB_OUTPUT + 8,
    ZK_PUB_START_CLK,
    ZK_PUB_END_PC,
    ZK_PUB_EXITED,
    ZK_CPU_NUM_PUBLIC
};
/* The largest start clk a proof may state: timestamps (4 clk + slot) stay
 * far below the field's modulus. */
#define ZK_MAX_START_CLK ((uint64_t)1 << 48)

/* The CPU table's columns (docs/zkvm.md, "The CPU table"). The flags f_k
 * are the bits k < ZK_F_COLS of the program's flags word; CH and T hold what
 * the row's kind needs: an add's result's high limb and its carry (or
 * borrow), beq/bne's inverse of a - b (T), a jump's carry and low bit. The
 * register accesses' previous timestamps are ts - 1 - (lo + 2^16 hi). */
enum {
    CPU_CLK, CPU_ACTIVE, CPU_PC, CPU_OP, CPU_RD, CPU_RS1, CPU_RS2, CPU_IMM,
    CPU_F0, /* ... CPU_F0 + ZK_F_COLS - 1 */
    CPU_A = CPU_F0 + ZK_F_COLS, CPU_B, CPU_C, CPU_CH, CPU_T,
    CPU_A_LO, CPU_A_HI, CPU_B_LO, CPU_B_HI, CPU_D_PREV, CPU_D_LO, CPU_D_HI,
    CPU_E_EXIT, CPU_E_READ, CPU_E_WRITE,
    CPU_COLS
};

typedef struct zk_cpu_row_t {
    zk_prog_row_t prog;
    uint64_t clk;
    uint32_t a, b, c; /* c: the value written to rd, or the compare of a branch */
    uint64_t a_ts, b_ts;
    uint32_t d_prev;
    uint64_t d_ts;
} zk_cpu_row_t;

gs_air *zk_cpu_air(void);
uint32_t zk_cpu_num_cols(void);
/* Rows first .. first + m - 1 (active rows: clk, active = 1, ...). */
void zk_cpu_set_rows(zk_table *t, uint64_t first, const zk_cpu_row_t *rows, size_t m);
/* Padding rows [begin, end): clk = clk0 + row + 1, pc = end_pc (where
 * the last active row leads), every other column 0 (the table comes zeroed
 * from zk_table_alloc). */
void zk_cpu_set_padding(zk_table *t, uint64_t clk0, uint32_t end_pc, uint64_t begin, uint64_t end);

/* Memory image table: columns 0..3 fixed (addr, value, w, valid), 4..5 the
 * final value and timestamp. Rows: the 32 registers and the 3 stream
 * cursors (writable; ZK_IMAGE_REGS of them), then every word of [lo, hi) (the program's image: words of the text
 * read-only, the rest writable), then padding (valid 0). Publics: the
 * start clk (initial tuples have ts = 4 clk0), the registers' and cursors'
 * initial values (the fixed value column's first rows: the verifier builds
 * them from these) and their final values (boundary constraints on the
 * final value column). */
#define ZK_IMAGE_FIXED 4u
#define ZK_IMAGE_REGS (ZK_CURSOR_ADDR + ZK_NUM_STREAMS)
enum {
    ZK_IMAGE_PUB_CLK0,
    ZK_IMAGE_PUB_START,                               /* ZK_IMAGE_REGS values */
    ZK_IMAGE_PUB_END = ZK_IMAGE_PUB_START + ZK_IMAGE_REGS, /* ZK_IMAGE_REGS values */
    ZK_IMAGE_NUM_PUBLIC = ZK_IMAGE_PUB_END + ZK_IMAGE_REGS
};
typedef struct zk_image {
    /* byte addresses, multiples of 4: from the lowest segment to the end of
     * the text or the last segment's file bytes, whichever is higher */
    uint32_t lo, hi;
    uint32_t *words;   /* (hi - lo) / 4 initial words */
    uint32_t text_lo, text_hi;
} zk_image;
gs_status zk_image_make(zk_image *im, const gs_zkvm_program *p);
void zk_image_free(zk_image *im);
gs_air *zk_image_air(void);
/* init: the initial values of the registers and cursors (ZK_IMAGE_REGS;
 * NULL: zeros); final: the final value and timestamp of every register and
 * cursor then every image word; NULL fills the fixed columns only (the
 * verifier). */
gs_status zk_image_fill(zk_table *out, const zk_image *im, const uint32_t *init,
                        const uint32_t *final_val, const uint64_t *final_ts);

/* Fresh memory table: the words the run touched outside the image, each
 * sent once with value 0 at ts 4 clk0 and received with its final value,
 * addresses strictly increasing and outside [lo, hi) (publics: lo / 4 and
 * hi / 4). */
enum { ZK_FRESH_PUB_LO, ZK_FRESH_PUB_HI, ZK_FRESH_PUB_CLK0, ZK_FRESH_NUM_PUBLIC };
typedef struct zk_fresh_word {
    uint32_t addr, final_val;
    uint64_t final_ts;
} zk_fresh_word;
gs_air *zk_fresh_air(void);
gs_status zk_fresh_fill(zk_table *out, const zk_image *im, const zk_fresh_word *w, size_t n,
                        zk_lookups *lk);

/* The tables of a run's statement, in order (src/zkvm/prove.c). */
enum {
    ZK_T_CPU, ZK_T_PROG, ZK_T_IMAGE, ZK_T_FRESH, ZK_T_ALU, ZK_T_SHIFT, ZK_T_MUL, ZK_T_DIV,
    ZK_T_LS, ZK_T_IO, ZK_T_STREAM, ZK_T_RANGE, ZK_T_BYTE, ZK_T_NUM
};

/* For the soundness tests: gs_zkvm_prove with a hook that edits the tables
 * and publics (pubs[t], NULL for tables without) after they are filled and
 * before they are proven; with opts->skip_check the prover proves whatever
 * the hook left. */
typedef void (*zk_tamper_fn)(zk_table *t, gs_fp **pubs, void *ctx);
struct gs_zkvm_proof;
struct gs_prove_opts;
/* start NULL and cycles 0: a whole run (gs_zkvm_prove); otherwise a
 * segment (gs_zkvm_prove_segment). */
gs_status zk_prove_tampered(struct gs_zkvm_proof **out, const gs_zkvm_program *p,
                            const uint8_t *input, size_t in_len, const gs_zkvm_state *start,
                            uint64_t cycles, const gs_params *params,
                            const struct gs_prove_opts *opts, zk_tamper_fn fn, void *ctx,
                            char *msg, size_t msg_cap);

/* Trace generation alone, for the benchmark and the thread-count tests
 * (src/zkvm/prove.c): runs the program with the trace recorded and fills
 * every table exactly as gs_zkvm_prove does before it proves them. t[ZK_T_NUM]
 * receives the tables (the caller frees each t[k].cols, also on failure);
 * times, if not NULL, the phases' wall seconds (exec, replay, memory and
 * fills add up to total, less the frees; state is part of replay). obs,
 * if set, receives the phases as spans (a proof's timeline). */
typedef struct zk_trace_times {
    double exec;   /* the traced run */
    double replay; /* the replay: CPU rows and the chips' requests */
    double state;  /* of which its sequential pass (registers' and words' timestamps) */
    double memory; /* the image and fresh tables, the final-state check */
    double fills;  /* the chips' and the lookup tables' fills */
    double total;
    struct gs_obs *obs;
} zk_trace_times;
gs_status zk_trace_run(zk_table *t, const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                       uint64_t max_cycles, zk_trace_times *times, char *msg, size_t msg_cap);

/* A run's tables and publics (the CPU's are the caller's: the claim). */
typedef struct zk_run_tables {
    zk_table t[ZK_T_NUM];
    gs_fp cpu_pub[ZK_CPU_NUM_PUBLIC], image_pub[ZK_IMAGE_NUM_PUBLIC], fresh_pub[ZK_FRESH_NUM_PUBLIC],
        io_pub[ZK_IO_NUM_PUBLIC];
} zk_run_tables;
extern const char *const zk_table_names[ZK_T_NUM]; /* their air_desc */
/* Replays a run's trace (vm: the machine after the run, started at
 * `start` with the program's image as memory, im: that image) into every
 * table and the image's and fresh table's publics, but not the CPU's
 * publics (src/zkvm/replay.c). The
 * tables are the same for every thread count. On failure the tables filled
 * so far are left in rt for the caller to free. */
gs_status zk_build_tables(zk_run_tables *rt, const gs_zkvm_program *p, const zk_image *im,
                          const gs_zkvm_state *start, const gs_zkvm_trace *tr,
                          const gs_zkvm_vm *vm, const uint8_t *input,
                          uint64_t in_len, zk_trace_times *tt, char *msg, size_t cap);

/* Prints the tuples that do not cancel (src/zkvm/debug.c). */
struct gs_table_input;
void zk_debug_buses(const struct gs_table_input *in, uint32_t n);

#endif
