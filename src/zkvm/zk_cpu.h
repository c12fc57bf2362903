/* The program, CPU and memory tables of the zkVM (src/zkvm/air_cpu.c,
 * air_mem.c; docs/zkvm.md, "The AIR"), for the prover's trace builder and the
 * verifier in src/zkvm/prove.c. */
#ifndef GSTARK_ZK_CPU_H
#define GSTARK_ZK_CPU_H

#include "zkvm/cpu_rows.h"
#include "zkvm/zk_air.h"
#include "zkvm/zkvm_int.h"

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

gs_air *zk_cpu_air(void);
/* The packed table's head and program rows (its records are the
 * replay's) in b, from the calling thread's arena when one is set
 * (zk_bytes_alloc); the records' room uninitialised. */
gs_status zk_cpu_packed_alloc(zk_bytes *b, const gs_zkvm_program *p, uint64_t n_active, uint64_t clk0,
                              uint32_t end_pc);

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
    double unpack; /* zk_trace_run: the CPU table's columns made from its packed rows */
    double total;
    struct gs_obs *obs;
} zk_trace_times;
gs_status zk_trace_run(zk_table *t, const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                       uint64_t max_cycles, zk_trace_times *times, char *msg, size_t msg_cap);

/* A run's tables and publics (the CPU's are the caller's: the claim). */
typedef struct zk_run_tables {
    /* t[ZK_T_CPU] is packed: its cols NULL, its rows in cpu_packed
     * (zkvm/cpu_rows.h), proven as cpu_pk, until zk_cpu_unpack. */
    zk_table t[ZK_T_NUM];
    zk_bytes cpu_packed;
    gs_packed_trace cpu_pk;
    gs_fp cpu_pub[ZK_CPU_NUM_PUBLIC], image_pub[ZK_IMAGE_NUM_PUBLIC], fresh_pub[ZK_FRESH_NUM_PUBLIC],
        io_pub[ZK_IO_NUM_PUBLIC];
} zk_run_tables;
extern const char *const zk_table_names[ZK_T_NUM]; /* their air_desc */
/* The CPU table's columns made on the host from its packed rows, which are
 * freed (for the tests' tampering, the bus debugger and zk_trace_run: the
 * prover takes the packed rows). */
gs_status zk_cpu_unpack(zk_run_tables *rt);
void zk_run_tables_free(zk_run_tables *rt);
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
