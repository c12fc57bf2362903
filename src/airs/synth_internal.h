/* synth internals shared by synth.c (API, presets, plan, job runner),
 * synth_lookup.c (generic lookup tables) and synth_vm*.c (the vm tables).
 *
 * Generation runs in three phases; within a phase jobs are independent and
 * write disjoint cells, so the traces do not depend on which thread ran what:
 *   1. whatever depends on nothing: the vm execution (program, cpu, memory),
 *      lookup-table states, the fixed columns of range and bitwise;
 *   2. what reads phase 1: hash rows (inputs from the cpu), lookup ports
 *      (values from the target tables' states);
 *   3. multiplicities: each receiving table counts what was sent to it.
 * Random values come from a counter-based generator (gs_synth_rand), never
 * from a sequential stream shared between jobs. */
#ifndef GSTARK_SYNTH_INTERNAL_H
#define GSTARK_SYNTH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/synth.h"

enum {
    GS_SYNTH_K_LOOKUP, GS_SYNTH_K_CPU, GS_SYNTH_K_MEMORY, GS_SYNTH_K_RANGE, GS_SYNTH_K_BITWISE,
    GS_SYNTH_K_HASH, GS_SYNTH_K_PROGRAM
};

typedef struct gs_synth_plan {
    uint32_t n;
    unsigned shrink;
    int kind[GS_SYNTH_MAX_TABLES];
    gs_synth_table spec[GS_SYNTH_MAX_TABLES]; /* name, full log_n, cols (and lookup layout) */
    unsigned log_n[GS_SYNTH_MAX_TABLES];      /* after shrink */
} gs_synth_plan;

/* log_n after shrink: max(GS_SYNTH_MIN_LOG_N, base - shrink). */
unsigned gs_synth_shrunk(unsigned base, unsigned shrink);

/* splitmix64 of a mix of (seed, a, b): a counter-based random word. */
uint64_t gs_synth_rand(uint64_t seed, uint64_t a, uint64_t b);
/* A nonzero field constant for an AIR, from a fixed stream (never the seed). */
gs_fp gs_synth_coef(uint64_t salt, uint64_t k);

/* Dynamic job pool over gs_parallel_for: fn(ctx, j) for every j < n, jobs
 * claimed in index order (put the heaviest first). */
typedef void (*gs_synth_job_fn)(void *ctx, size_t job);
void gs_synth_run_jobs(size_t n, gs_synth_job_fn fn, void *ctx);

/* ---- lookup tables (synth_lookup.c) ---- */
gs_status gs_synth_lookup_check(const gs_synth_plan *p);
gs_status gs_synth_lookup_air(gs_air **out, const gs_synth_table *spec, uint32_t t);

typedef struct gs_synth_lookup_gen gs_synth_lookup_gen;
/* Generation state for the lookup tables of a plan (tables whose kind is
 * GS_SYNTH_K_LOOKUP); traces are allocated, AIRs built. */
gs_status gs_synth_lookup_gen_new(gs_synth_lookup_gen **out, const gs_synth_plan *plan,
                                  gs_workload *tables, uint64_t seed);
void gs_synth_lookup_gen_free(gs_synth_lookup_gen *g);
size_t gs_synth_lookup_jobs(const gs_synth_lookup_gen *g, int phase);
void gs_synth_lookup_job(gs_synth_lookup_gen *g, int phase, size_t job);

/* ---- vm tables (synth_vm.c: AIRs; synth_vm_trace.c: traces) ---- */
typedef struct gs_synth_vm_dims {
    unsigned log_cpu, log_mem, log_range, log_bit, log_hash, log_prog;
    unsigned lx, ly; /* bitwise operand bits: x < 2^lx, y < 2^ly */
    uint64_t H, W;   /* limb base (range height) and word bound H^2 */
} gs_synth_vm_dims;
void gs_synth_vm_dims_of(gs_synth_vm_dims *d, unsigned shrink);
gs_status gs_synth_vm_air(gs_air **out, int kind, unsigned shrink);
/* The hash permutation on one state (in place); all GS_SYNTH_HASH_ROUNDS + 1
 * states are written to states[16 k + j] when states is not NULL. */
void gs_synth_hash_perm(gs_fp st[GS_SYNTH_HASH_WIDTH], gs_fp *states);
gs_fp gs_synth_hash_diag(uint32_t j);
gs_fp gs_synth_hash_rc(uint32_t round, uint32_t j);

typedef struct gs_synth_vm_gen gs_synth_vm_gen;
/* Generation state for the vm tables of a plan; traces are allocated (zeroed),
 * AIRs built. Makes the program (and the program table's fixed columns). */
gs_status gs_synth_vm_gen_new(gs_synth_vm_gen **out, const gs_synth_plan *plan,
                              gs_workload *tables, uint64_t seed);
void gs_synth_vm_gen_free(gs_synth_vm_gen *g);
size_t gs_synth_vm_jobs(const gs_synth_vm_gen *g, int phase);
void gs_synth_vm_job(gs_synth_vm_gen *g, int phase, size_t job);
/* After all phases: the public inputs (the cpu's). */
void gs_synth_vm_publics(gs_synth_vm_gen *g);

#endif
