/* synth: generated multi-table statements (several AIRs talking over buses)
 * with satisfying traces, for testing and benchmarking the multi-table
 * prover. docs/benchmarks.md describes the presets in prose.
 *
 * A statement is a list of tables (gs_workload: a finalized AIR with its bus
 * interactions, a trace, log_n and public inputs). It is valid when every
 * table satisfies its AIR and, on every bus, the multiset of sent tuples
 * (with multiplicities) equals the multiset of received ones.
 *
 * Presets ("vm", "skew", "uniform"; tables and layouts below) and custom
 * statements of generic lookup tables (gs_synth_custom). Every height is
 * given at full size as 2^log_n rows; `shrink` K divides it by 2^K but never
 * below 2^GS_SYNTH_MIN_LOG_N rows, so tests stay small and benchmarks go
 * large with the same shapes. Every statement is satisfiable at every shrink.
 *
 * Determinism: the AIRs depend on (preset, shrink) only, never on the seed
 * (the same gs_air_fingerprint for every seed); the traces and public inputs
 * depend on (preset, shrink, seed) only, not on the thread count.
 *
 * Errors: GS_ERR_INVALID_ARG for a NULL pointer, an unknown preset name, a
 * shrink above GS_SYNTH_MAX_SHRINK or a bad custom table; GS_ERR_NOMEM when
 * an allocation fails. On any error nothing stays allocated and an output
 * is left zeroed (or NULL). */
#ifndef GSTARK_SYNTH_H
#define GSTARK_SYNTH_H

#include <stdint.h>

#include "gstark/air.h"
#include "gstark/airs.h"
#include "gstark/field.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_SYNTH_MIN_LOG_N 3u   /* the 8-row floor */
#define GS_SYNTH_MAX_SHRINK 20u /* every preset table is at the floor by then */

typedef struct gs_multi_workload {
    uint32_t num_tables;
    gs_workload *tables; /* each: finalized AIR (with its interactions), trace, log_n, pub */
    char name[32];       /* the preset name, or "custom" */
} gs_multi_workload;

/* Frees every table and the array and zeroes *w. NULL, or a zeroed
 * multi-workload, is a no-op. */
void gs_multi_workload_free(gs_multi_workload *w);

/* ---- buses ----
 * Every bus carries tuples of one width. Multiplicities and tuple values are
 * degree-1 expressions of the current row (columns, constants and their
 * linear combinations), so two interactions can share one LogUp aux column. */
#define GS_SYNTH_BUS_MEMORY 1u  /* (addr, value_lo, value_hi, timestamp, is_write) */
#define GS_SYNTH_BUS_RANGE 2u   /* (v): 0 <= v < range table height */
#define GS_SYNTH_BUS_BITWISE 3u /* (x, y, x AND y) */
#define GS_SYNTH_BUS_HASH 4u    /* (in0, in1, out): out = hash(in0, in1) */
#define GS_SYNTH_BUS_PROGRAM 5u /* (pc, opcode, imm, rd, rs1, rs2) */
#define GS_SYNTH_BUS_LOOKUP 6u  /* (tag, key, v0, v1): row `key` of table tag - 1 */

/* ---- presets ----
 * The statement for `preset` at the given shrink and seed. */
gs_status gs_synth_preset(gs_multi_workload *out, const char *preset, unsigned shrink,
                          uint64_t seed);
/* The number of tables of a preset (the same at every shrink). */
gs_status gs_synth_preset_tables(uint32_t *num_tables, const char *preset);
/* The finalized AIR of table t and its log_n (either output may be NULL), built
 * without any trace: what a verifier needs. `seed` is accepted for symmetry
 * with gs_synth_preset; the AIRs do not depend on it. */
gs_status gs_synth_table_air(gs_air **air, unsigned *log_n, const char *preset, unsigned shrink,
                             uint64_t seed, uint32_t t);

/* ---- vm: shaped like a small zkVM ----
 * Tables (full-size heights; H = range table height = 2^max(3, 16 - K) and
 * W = H^2: a "word" is two limbs lo + H hi, each range-checked):
 *   0 cpu      2^20 x 48  executes a looping program, one instruction a row
 *   1 memory   2^19 x 12  the access log sorted by (addr, timestamp)
 *   2 range    2^16 x 2   values 0..H-1 with multiplicities
 *   3 bitwise  2^16 x 4   all (x, y) pairs, x < 2^ceil(L/2), y < 2^floor(L/2)
 *                         (L = log2 of its height: bytes at full size)
 *   4 hash     2^14 x 400 a 24-round x^3 permutation, one call a row (degree 3)
 *   5 program  2^10 x 7   the program (ROM) with execution counts
 *   6 gadget0  2^12 x 16  generic lookup table, degree 2 (custom-table layout)
 *   7 gadget1  2^8  x 10  generic lookup table, degree 4; gadget0 and gadget1
 *                         look each other up on the LOOKUP bus */
#define GS_SYNTH_VM_TABLES 8u
enum { /* cpu columns */
    GS_SYNTH_CPU_CLK = 0,
    GS_SYNTH_CPU_PC = 1,
    GS_SYNTH_CPU_SEL = 2, /* 9 opcode selectors: column 1 + opcode (below) */
    GS_SYNTH_CPU_HASH_EN = 11, /* the hash call is made (multiplicity on HASH) */
    GS_SYNTH_CPU_IMM = 12,
    GS_SYNTH_CPU_RD = 13,
    GS_SYNTH_CPU_RS1 = 14,
    GS_SYNTH_CPU_RS2 = 15,
    GS_SYNTH_CPU_A_LO = 16, /* operand a (also the memory address) */
    GS_SYNTH_CPU_A_HI = 17,
    GS_SYNTH_CPU_B_LO = 18, /* operand b */
    GS_SYNTH_CPU_B_HI = 19,
    GS_SYNTH_CPU_R_LO = 20, /* result r */
    GS_SYNTH_CPU_R_HI = 21,
    GS_SYNTH_CPU_CARRY = 22, /* add: a + b = r + W carry */
    GS_SYNTH_CPU_EX_LO = 23, /* mul: the high word of a b; lt: a - b + W r */
    GS_SYNTH_CPU_EX_HI = 24,
    GS_SYNTH_CPU_X = 25, /* bitwise operands and x AND y */
    GS_SYNTH_CPU_Y = 26,
    GS_SYNTH_CPU_Z = 27,
    GS_SYNTH_CPU_MV_LO = 28, /* the memory value loaded or stored */
    GS_SYNTH_CPU_MV_HI = 29,
    GS_SYNTH_CPU_HOUT = 30, /* hash(a, b) */
    GS_SYNTH_CPU_REG = 31,  /* 8 registers */
    GS_SYNTH_CPU_W = 39,    /* 8 write flags, one-hot on rd for writing opcodes */
    GS_SYNTH_CPU_ACC = 47,  /* running sum of the results */
    GS_SYNTH_CPU_COLS = 48
};
enum { /* opcodes; opcode 0 is nop (no selector set) */
    GS_SYNTH_OP_NOP, GS_SYNTH_OP_ADD, GS_SYNTH_OP_MUL, GS_SYNTH_OP_LT, GS_SYNTH_OP_AND,
    GS_SYNTH_OP_XOR, GS_SYNTH_OP_LOAD, GS_SYNTH_OP_STORE, GS_SYNTH_OP_JMP, GS_SYNTH_OP_HASH,
    GS_SYNTH_NUM_OPS
};
enum { /* memory columns */
    GS_SYNTH_MEM_ADDR, GS_SYNTH_MEM_V_LO, GS_SYNTH_MEM_V_HI, GS_SYNTH_MEM_TS,
    GS_SYNTH_MEM_IS_WRITE, GS_SYNTH_MEM_ACTIVE, GS_SYNTH_MEM_NEW, GS_SYNTH_MEM_DIFF_LO,
    GS_SYNTH_MEM_DIFF_HI, GS_SYNTH_MEM_PREV_LO, GS_SYNTH_MEM_PREV_HI, GS_SYNTH_MEM_CNT,
    GS_SYNTH_MEM_COLS
};
enum { GS_SYNTH_RANGE_VALUE, GS_SYNTH_RANGE_MULT, GS_SYNTH_RANGE_COLS };
enum { GS_SYNTH_BIT_X, GS_SYNTH_BIT_Y, GS_SYNTH_BIT_Z, GS_SYNTH_BIT_MULT, GS_SYNTH_BIT_COLS };
enum { /* program columns */
    GS_SYNTH_PROG_PC, GS_SYNTH_PROG_OP, GS_SYNTH_PROG_IMM, GS_SYNTH_PROG_RD, GS_SYNTH_PROG_RS1,
    GS_SYNTH_PROG_RS2, GS_SYNTH_PROG_MULT, GS_SYNTH_PROG_COLS
};
/* hash: state k (0..24) word j (0..15) in column 16 k + j; the call flag
 * (its multiplicity on HASH) is word 15 of state 0. */
#define GS_SYNTH_HASH_WIDTH 16u
#define GS_SYNTH_HASH_ROUNDS 24u
#define GS_SYNTH_HASH_COLS (GS_SYNTH_HASH_WIDTH * (GS_SYNTH_HASH_ROUNDS + 1))

/* ---- custom statements of generic lookup tables ("skew", "uniform") ----
 * Table t (index in the statement) has C columns:
 *   provider (optional): column 0 = idx (the row index), column 1 = mult;
 *   state:  S = C - (provider ? 2 : 0) - 5 ports columns, split into groups of
 *           at most 8 consecutive columns; within a group of G columns local
 *           column i satisfies, on every row but the last,
 *             next[i] = alpha_i x_i x_{i+1} ... x_{i+d-1} + beta_i x_{i-1} + gamma_i
 *           (indices mod G, d = degree factors, constants fixed per (t, column));
 *   ports:  5 columns each: tag, key, v0, v1, sel (sel boolean).
 * Interactions: a provider receives (t + 1, idx, state[0], state[1]) on
 * LOOKUP with multiplicity mult; port p sends (tag, key, v0, v1) with
 * multiplicity sel. On each row a port is active with probability
 * density / 256 and then looks up a uniformly random row of one of its
 * targets (chosen uniformly among the set bits of targets[p]). */
#define GS_SYNTH_MAX_TABLES 64u
#define GS_SYNTH_MAX_PORTS 4u
#define GS_SYNTH_MAX_LOG_N 26u
#define GS_SYNTH_MAX_COLS 1024u
#define GS_SYNTH_MAX_DEGREE 8u
#define GS_SYNTH_GROUP 8u

typedef struct gs_synth_table {
    char name[32];      /* the AIR name (NUL-terminated) */
    unsigned log_n;     /* full-size height: GS_SYNTH_MIN_LOG_N..GS_SYNTH_MAX_LOG_N */
    uint32_t cols;      /* up to GS_SYNTH_MAX_COLS; at least what the layout needs */
    unsigned degree;    /* of the state transitions: 2..GS_SYNTH_MAX_DEGREE */
    int provider;       /* nonzero: receives lookups (needs 2 state columns) */
    uint32_t num_ports; /* 0..GS_SYNTH_MAX_PORTS */
    uint64_t targets[GS_SYNTH_MAX_PORTS]; /* per port, bit j: table j (a provider) */
    unsigned density;   /* 0..256 */
} gs_synth_table;

gs_status gs_synth_custom(gs_multi_workload *out, const gs_synth_table *tables,
                          uint32_t num_tables, unsigned shrink, uint64_t seed);
gs_status gs_synth_custom_air(gs_air **air, unsigned *log_n, const gs_synth_table *tables,
                              uint32_t num_tables, unsigned shrink, uint32_t t);

/* The table list of the skew and uniform presets (the vm is not expressible
 * as custom tables): *num_tables entries are written to out (at least
 * GS_SYNTH_MAX_TABLES entries). GS_ERR_INVALID_ARG for "vm". */
gs_status gs_synth_preset_spec(gs_synth_table *out, uint32_t *num_tables, const char *preset);

#ifdef __cplusplus
}
#endif
#endif
