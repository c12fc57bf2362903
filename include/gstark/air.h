/* AIR builder: describe a table's constraints in C, compile them once into a
 * flat bytecode, evaluate them.
 *
 * An AIR has `num_cols` main columns over Fp and `num_public` public inputs.
 * Expressions are built from the current row (gs_air_col), the next row
 * (gs_air_next), public inputs, constants, +, -, * and small powers; equal
 * sub-expressions are shared (hash-consing), so the expressions form a DAG.
 *  - transition constraints: C(row, next row) = 0 on every row but the last;
 *  - boundary constraints: column `col` equals `value` (an expression of
 *    public inputs and constants) on row `row` (row >= 0 counts from the first
 *    row, row < 0 from the end: -1 is the last row).
 * Builder calls never fail loudly: an error (bad column, out of memory, a
 * column in a boundary value, ...) is remembered and reported by
 * gs_air_finalize, which compiles the AIR. Once finalized it is read-only and
 * may be shared by threads.
 *
 * Degrees: columns have degree 1, publics and constants 0; a transition
 * constraint of degree d (counted as at least 1) needs d <= blowup + 1; the
 * quotient is split into max(D - 1, 1) chunks of degree < n, D the largest
 * transition degree. */
#ifndef GSTARK_AIR_H
#define GSTARK_AIR_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_air gs_air;
typedef uint32_t gs_expr;
#define GS_EXPR_INVALID UINT32_MAX

#define GS_AIR_MAX_COLS 4096u
#define GS_AIR_MAX_PUBLIC 4096u
#define GS_AIR_MAX_POW 64u

/* NULL if out of memory or the shape is out of range (cols 1..GS_AIR_MAX_COLS,
 * publics 0..GS_AIR_MAX_PUBLIC). name is copied (at most 63 bytes kept). */
gs_air *gs_air_new(const char *name, uint32_t num_cols, uint32_t num_public);
void gs_air_free(gs_air *air); /* NULL is a no-op */

gs_expr gs_air_col(gs_air *air, uint32_t col);  /* current row */
gs_expr gs_air_next(gs_air *air, uint32_t col); /* next row */
gs_expr gs_air_public(gs_air *air, uint32_t idx);
gs_expr gs_air_const(gs_air *air, gs_fp v); /* v reduced mod p */
gs_expr gs_air_add(gs_air *air, gs_expr a, gs_expr b);
gs_expr gs_air_sub(gs_air *air, gs_expr a, gs_expr b);
gs_expr gs_air_mul(gs_air *air, gs_expr a, gs_expr b);
gs_expr gs_air_neg(gs_air *air, gs_expr a);
gs_expr gs_air_pow(gs_air *air, gs_expr a, unsigned e); /* 0 <= e <= GS_AIR_MAX_POW */

void gs_air_transition(gs_air *air, gs_expr c);
void gs_air_boundary(gs_air *air, uint32_t col, int64_t row, gs_expr value);

/* Bus interactions (LogUp; docs/protocol.md, "Buses"). On every row, a send
 * adds mult / (z - (bus + sum_k alpha^(k+1) values[k])) to the bus's running
 * sum and a receive subtracts it; z and alpha are challenges drawn after all
 * main traces are committed. A statement is valid when every bus sums to zero
 * over all tables. values[0..width) and mult are expressions of the current
 * row only (no next-row references); 1 <= width <= GS_AIR_MAX_TUPLE. The
 * same bus id must carry tuples of the same width everywhere (gs_verify_multi
 * refuses a statement that mixes widths on a bus). */
#define GS_AIR_MAX_TUPLE 16u
void gs_air_send(gs_air *air, uint32_t bus, const gs_expr *values, uint32_t width, gs_expr mult);
void gs_air_receive(gs_air *air, uint32_t bus, const gs_expr *values, uint32_t width,
                    gs_expr mult);

/* Pins the table's height to 2^log_n rows (log_n <= 32). The provers refuse
 * a trace of another height (GS_ERR_INVALID_ARG) and the verifiers a proof of
 * another height (GS_ERR_PROOF_STATEMENT). A table whose meaning depends on
 * its height needs this, or a boundary constraint that does the same: a
 * lookup table whose rows count 0..n-1 (V[0] = 0, V' = V + 1) holds every
 * value below a height the prover chooses otherwise. The height is bound in
 * the proof's statement but checked against nothing unless the AIR pins it
 * or the caller compares each table's log_n. Not part of the fingerprint:
 * the verifier checks its own AIR's pin. Before gs_air_finalize; a builder
 * error otherwise (as for a bad log_n). */
void gs_air_fix_height(gs_air *air, unsigned log_n);

/* Compile to bytecode. Returns the first builder error if there was one
 * (and the AIR stays unusable), GS_ERR_AIR_EMPTY without constraints. */
gs_status gs_air_finalize(gs_air *air);
/* A description of the first builder error, or "" (static storage per AIR). */
const char *gs_air_error(const gs_air *air);

/* ---- queries on a finalized AIR ---- */
const char *gs_air_name(const gs_air *air);
uint32_t gs_air_num_cols(const gs_air *air);
uint32_t gs_air_num_public(const gs_air *air);
uint32_t gs_air_num_transitions(const gs_air *air);
uint32_t gs_air_num_boundaries(const gs_air *air);
uint32_t gs_air_num_interactions(const gs_air *air);
/* The height gs_air_fix_height pinned (its log_n), or -1 when any goes. */
int gs_air_fixed_log_n(const gs_air *air);
/* Interaction i: its bus, tuple width and direction (+1 send, -1 receive). */
gs_status gs_air_interaction(const gs_air *air, uint32_t i, uint32_t *bus, uint32_t *width,
                             int *sign);
/* Largest constraint degree (at least 1): transitions and, with bus
 * interactions, the LogUp constraints (src/air/logup.h). */
unsigned gs_air_max_degree(const gs_air *air);
/* Quotient chunks: max(max_degree - 1, 1). */
unsigned gs_air_num_chunks(const gs_air *air);
/* GS_ERR_AIR_DEGREE if some constraint's degree exceeds 2^log_blowup + 1. */
gs_status gs_air_check_degree(const gs_air *air, unsigned log_blowup);
/* GS_ERR_INVALID_ARG if the AIR pins its height (gs_air_fix_height) to
 * another than 2^log_n rows; the provers and verifiers check with it. */
gs_status gs_air_check_height(const gs_air *air, unsigned log_n);
/* Boundary constraint i: its column and row (resolved against a trace of
 * 2^log_n rows; GS_ERR_INVALID_ARG if the row falls outside). */
gs_status gs_air_boundary_at(const gs_air *air, uint32_t i, unsigned log_n, uint32_t *col,
                             uint64_t *row);
/* The boundary values for the given public inputs: out[i] for boundary i. */
gs_status gs_air_boundary_values(const gs_air *air, gs_fp *out, const gs_fp *pub);
/* A digest of the compiled bytecode and shape: two AIRs with the same
 * fingerprint have the same constraints. */
gs_digest gs_air_fingerprint(const gs_air *air);

/* ---- evaluation ---- */

/* Transition constraints over a block of rows of a column-major matrix with
 * `rows` rows per column (a power of two; column c at m + c * rows): for r in
 * [0, count), row i = start + r and next row (i + next_step) mod rows;
 * out[k * count + r] = C_k. start + count <= rows, count <= GS_AIR_BLOCK.
 * `scratch` holds gs_air_scratch_size(air) bytes, one per concurrent caller. */
#define GS_AIR_BLOCK 64u
size_t gs_air_scratch_size(const gs_air *air);
gs_status gs_air_eval_block(const gs_air *air, void *scratch, gs_fp *out, const gs_fp *m,
                            size_t rows, size_t next_step, size_t start, size_t count,
                            const gs_fp *pub);

/* Transition constraints at one point of the extension: cur[c], next[c] the
 * column values there; out[k] = C_k. For the verifier's out-of-domain check. */
gs_status gs_air_eval_ext(const gs_air *air, gs_fp3 *out, const gs_fp3 *cur, const gs_fp3 *next,
                          const gs_fp *pub);

/* Check a trace of 2^log_n rows (column-major, column c at m + c * 2^log_n):
 * every transition on rows 0..n-2 and every boundary. GS_ERR_AIR_UNSATISFIED
 * with the first failing row and constraint written to *bad_row / *bad_con
 * (boundary constraints numbered after the transitions); either may be NULL. */
gs_status gs_air_check_trace(const gs_air *air, const gs_fp *m, unsigned log_n, const gs_fp *pub,
                             uint64_t *bad_row, uint32_t *bad_con);
/* The boundary constraints alone, as gs_air_check_trace checks them (the
 * CUDA backend checks the transitions on the device). */
gs_status gs_air_check_boundaries(const gs_air *air, const gs_fp *m, unsigned log_n,
                                  const gs_fp *pub, uint64_t *bad_row, uint32_t *bad_con);
/* The same with the trace's cells read through `cell` (a trace that is not
 * held as columns: a packed one, gstark/prover.h). */
typedef gs_fp (*gs_air_cell_fn)(const void *ctx, uint32_t col, uint64_t row, unsigned log_n);
gs_status gs_air_check_boundaries_by(const gs_air *air, gs_air_cell_fn cell, const void *ctx,
                                     unsigned log_n, const gs_fp *pub, uint64_t *bad_row,
                                     uint32_t *bad_con);

#ifdef __cplusplus
}
#endif
#endif
