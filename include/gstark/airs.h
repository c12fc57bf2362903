/* Built-in AIRs and their trace generators: a workload is a finalized AIR,
 * a trace that satisfies it and the matching public inputs.
 *
 *  - fib: the Fibonacci recurrence over two columns (degree 1);
 *  - mix: a synthetic AIR of configurable width and constraint degree with a
 *    pseudorandom trace, for exercising wide traces, multi-chunk quotients and
 *    boundary constraints on several rows.
 *
 * Every function returns GS_ERR_INVALID_ARG for bad parameters (NULL
 * pointers included) and GS_ERR_NOMEM if an allocation fails; on any error
 * nothing is allocated and an output workload is left zeroed. The AIRs are
 * pure functions of their parameters: the same parameters always give the
 * same AIR (the same gs_air_fingerprint) and the same trace. */
#ifndef GSTARK_AIRS_H
#define GSTARK_AIRS_H

#include <stdint.h>

#include "gstark/air.h"
#include "gstark/field.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_workload {
    gs_air *air;    /* finalized */
    gs_fp *trace;   /* column-major: column c at trace + c * 2^log_n */
    unsigned log_n; /* 2^log_n rows */
    gs_fp *pub;     /* public inputs, gs_air_num_public(air) values */
} gs_workload;

/* Frees the AIR, the trace and the public inputs and zeroes *w. NULL, or a
 * zeroed workload, is a no-op. */
void gs_workload_free(gs_workload *w);

/* ---- fib ----
 * Columns a (0) and b (1). Transitions, on every row but the last:
 *   a' - b = 0,  b' - (a + b) = 0.
 * Public inputs (4): pub[0] = a[0], pub[1] = b[0], pub[2] = b[n-1],
 * pub[3] = a[n-1] (the whole last state, so consecutive proofs of one run
 * chain); the boundary constraints are, in this order, a[0] = pub[0],
 * b[0] = pub[1], b[-1] = pub[2], a[-1] = pub[3]. The AIR does not depend on
 * log_n. */
#define GS_AIRS_FIB_MAX_LOG_N 30u

/* log_n in 1..GS_AIRS_FIB_MAX_LOG_N; a0 and a1 are reduced mod p. */
gs_status gs_airs_fib(gs_workload *out, unsigned log_n, gs_fp a0, gs_fp a1);
gs_status gs_airs_fib_air(gs_air **out);

/* ---- mix ----
 * C = cols, d = degree, n = 2^log_n, s = seed.
 *
 * Constants. u(k) = splitmix64 finalizer of (s + (k + 1) * 0x9E3779B97F4A7C15)
 * (the k-th output of splitmix64 seeded with s), f(k) = u(k) reduced mod p,
 * and f*(k) = f(k) with 0 replaced by 1. For column c:
 *   alpha_c = f*(4c), beta_c = f*(4c + 1), gamma_c = f*(4c + 2);
 *   the first row is T[c][0] = f(4c + 3).
 *
 * Groups. The columns split into g = ceil(C / GS_AIRS_MIX_GROUP) groups of
 * consecutive columns, group j = [lo_j, lo_{j+1}) with lo_j = floor(j C / g),
 * so each group holds G_j in 1..GS_AIRS_MIX_GROUP columns. Constraints only
 * couple columns of the same group (so the trace of each group can be
 * generated on its own thread).
 *
 * Transitions (one per column, in column order), on every row but the last:
 * for column c = lo_j + i of group j, with x_k = cur[lo_j + (k mod G_j)],
 *   next[c] - (alpha_c * x_i x_{i+1} ... x_{i+d-1} + beta_c * x_{i+G_j-1} + gamma_c) = 0,
 * i.e. a product of d cyclically consecutive columns of the group (factors
 * repeat when G_j < d) plus the cyclically previous column of the group (the
 * column itself when G_j = 1) plus a constant. Every transition has degree
 * exactly d. The products are built from shared block prefix/suffix products
 * (blocks of d along the cyclically extended group): about 5 multiplications
 * per constraint in all, whatever d is.
 *
 * Boundaries. K = min(C, GS_AIRS_MIX_BOUND_COLS) columns b_i = floor(i C / K),
 * i < K, each constrained on rows 0, n/2 (the non-negative index 2^(log_n-1))
 * and -1 (the last row). Public inputs (3K), in boundary order:
 *   pub[i] = T[b_i][0], pub[K + i] = T[b_i][n/2], pub[2K + i] = T[b_i][n-1].
 * The AIR depends on log_n only through the row n/2. */
#define GS_AIRS_MIX_MAX_COLS 1024u
#define GS_AIRS_MIX_MIN_DEGREE 2u
#define GS_AIRS_MIX_MAX_DEGREE 17u
#define GS_AIRS_MIX_MAX_LOG_N 26u
#define GS_AIRS_MIX_GROUP 32u
#define GS_AIRS_MIX_BOUND_COLS 8u

typedef struct gs_mix_params {
    uint32_t cols;   /* 1..GS_AIRS_MIX_MAX_COLS */
    unsigned degree; /* 2..17: constraint degree (a prover refuses degree > blowup + 1) */
    unsigned log_n;  /* 1..GS_AIRS_MIX_MAX_LOG_N */
    uint64_t seed;   /* sets the constants and the first row */
} gs_mix_params;

/* The AIR and a satisfying trace. Multi-threaded (gs_parallel_for over the
 * groups); the result does not depend on the thread count. */
gs_status gs_airs_mix(gs_workload *out, const gs_mix_params *p);
/* The AIR alone (no trace) for the parameters, e.g. for a verifier. */
gs_status gs_airs_mix_air(gs_air **out, const gs_mix_params *p);

#ifdef __cplusplus
}
#endif
#endif
