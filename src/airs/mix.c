/* The synthetic "mix" AIR (definition in gstark/airs.h) and its trace.
 *
 * Within a group of G columns the constraint of local column i multiplies the
 * window x_i .. x_{i+d-1} of the cyclically extended sequence
 * x_k = col[k mod G], k < G + d - 1. Cutting that sequence into blocks of d
 * (starting at multiples of d), a window that does not start a block is the
 * suffix product of its block from i times the prefix product of the next
 * block up to i + d - 1; one that starts a block is that block's product.
 * The AIR and the trace generator share this layout, so the windows cost
 * about three multiplications per column for any degree (five in all with the
 * two coefficients). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/airs.h"
#include "gstark/parallel.h"

#define MAXG GS_AIRS_MIX_GROUP
#define MAXX (GS_AIRS_MIX_GROUP + GS_AIRS_MIX_MAX_DEGREE - 1)

/* The k-th output (from 0) of splitmix64 seeded with `seed`. */
static uint64_t stream(uint64_t seed, uint64_t k) {
    uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A nonzero coefficient. */
static gs_fp coef(uint64_t seed, uint64_t k) {
    gs_fp v = gs_fp_from_u64(stream(seed, k));
    return v ? v : 1;
}

static int params_ok(const gs_mix_params *p) {
    return p && p->cols >= 1 && p->cols <= GS_AIRS_MIX_MAX_COLS &&
           p->degree >= GS_AIRS_MIX_MIN_DEGREE && p->degree <= GS_AIRS_MIX_MAX_DEGREE &&
           p->log_n >= 1 && p->log_n <= GS_AIRS_MIX_MAX_LOG_N;
}

static uint32_t num_groups(uint32_t cols) { return (cols + MAXG - 1) / MAXG; }

static uint32_t group_lo(uint32_t cols, uint32_t groups, uint32_t j) {
    return (uint32_t)((uint64_t)j * cols / groups);
}

static uint32_t bound_cols(uint32_t cols) {
    return cols < GS_AIRS_MIX_BOUND_COLS ? cols : GS_AIRS_MIX_BOUND_COLS;
}

/* ---- the AIR ---- */

static void build_group(gs_air *air, uint32_t lo, uint32_t G, unsigned d, uint64_t seed) {
    uint32_t len = G + d - 1;
    gs_expr x[MAXX], S[MAXX], P[MAXX];
    for (uint32_t k = 0; k < len; k++) x[k] = gs_air_col(air, lo + k % G);
    for (uint32_t b = 0; b < G; b += d) { /* suffix products inside each block */
        uint32_t e = b + d - 1;
        S[e] = x[e];
        for (uint32_t k = e; k-- > b;) S[k] = gs_air_mul(air, x[k], S[k + 1]);
    }
    for (uint32_t k = d; k < len; k++) /* prefix products inside each block after the first */
        P[k] = k % d == 0 ? x[k] : gs_air_mul(air, P[k - 1], x[k]);
    for (uint32_t i = 0; i < G; i++) {
        uint64_t c = lo + i;
        gs_expr w = i % d == 0 ? S[i] : gs_air_mul(air, S[i], P[i + d - 1]);
        gs_expr f = gs_air_mul(air, gs_air_const(air, coef(seed, 4 * c)), w);
        gs_expr prev = x[i ? i - 1 : G - 1]; /* the cyclically previous column */
        gs_expr lin = gs_air_mul(air, gs_air_const(air, coef(seed, 4 * c + 1)), prev);
        f = gs_air_add(air, f, lin);
        f = gs_air_add(air, f, gs_air_const(air, coef(seed, 4 * c + 2)));
        gs_air_transition(air, gs_air_sub(air, gs_air_next(air, (uint32_t)c), f));
    }
}

gs_status gs_airs_mix_air(gs_air **out, const gs_mix_params *p) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!params_ok(p)) return GS_ERR_INVALID_ARG;
    uint32_t C = p->cols, g = num_groups(C), K = bound_cols(C);
    gs_air *air = gs_air_new("mix", C, 3 * K);
    if (!air) return GS_ERR_NOMEM;
    for (uint32_t j = 0; j < g; j++) {
        uint32_t lo = group_lo(C, g, j), hi = group_lo(C, g, j + 1);
        build_group(air, lo, hi - lo, p->degree, p->seed);
    }
    int64_t rows[3] = {0, (int64_t)1 << (p->log_n - 1), -1};
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t i = 0; i < K; i++)
            gs_air_boundary(air, (uint32_t)((uint64_t)i * C / K), rows[r],
                            gs_air_public(air, r * K + i));
    gs_status s = gs_air_finalize(air);
    if (s != GS_OK) { /* only out of memory can happen here */
        gs_air_free(air);
        return s;
    }
    *out = air;
    return GS_OK;
}

/* ---- the trace ---- */

typedef struct {
    gs_fp *trace;
    size_t n;
    uint32_t cols, groups;
    unsigned d;
    uint64_t seed;
} mix_ctx;

/* Rows are produced in tiles of TILE rows kept in a local buffer and written
 * out column by column (whole cache lines) rather than one row at a time
 * into G columns 2^log_n apart. */
#define TILE 64u

/* Rows 1..n-1 of one group from its row 0 (already in the trace). */
static void gen_group(const mix_ctx *m, uint32_t lo, uint32_t G) {
    const unsigned d = m->d;
    const uint32_t len = G + d - 1;
    const size_t n = m->n;
    gs_fp alpha[MAXG], beta[MAXG], gamma[MAXG], x[MAXX], S[MAXX], P[MAXX];
    gs_fp tile[MAXG][TILE];
    gs_fp *col[MAXG];
    for (uint32_t i = 0; i < G; i++) {
        uint64_t c = lo + i;
        alpha[i] = coef(m->seed, 4 * c);
        beta[i] = coef(m->seed, 4 * c + 1);
        gamma[i] = coef(m->seed, 4 * c + 2);
        col[i] = m->trace + (size_t)c * n;
        x[i] = col[i][0];
    }
    for (uint32_t k = G; k < len; k++) x[k] = x[k - G];
    for (size_t r0 = 1; r0 < n; r0 += TILE) {
        size_t rows = n - r0 < TILE ? n - r0 : TILE;
        for (size_t t = 0; t < rows; t++) {
            for (uint32_t b = 0; b < G; b += d) {
                uint32_t e = b + d - 1;
                S[e] = x[e];
                for (uint32_t k = e; k-- > b;) S[k] = gs_fp_mul(x[k], S[k + 1]);
            }
            for (uint32_t k = d; k < len; k++)
                P[k] = k % d == 0 ? x[k] : gs_fp_mul(P[k - 1], x[k]);
            gs_fp nx[MAXG];
            for (uint32_t i = 0; i < G; i++) {
                gs_fp w = i % d == 0 ? S[i] : gs_fp_mul(S[i], P[i + d - 1]);
                gs_fp prev = x[i ? i - 1 : G - 1];
                gs_fp v = gs_fp_add(gs_fp_mul(alpha[i], w), gamma[i]);
                nx[i] = gs_fp_add(v, gs_fp_mul(beta[i], prev));
            }
            for (uint32_t i = 0; i < G; i++) tile[i][t] = x[i] = nx[i];
            for (uint32_t k = G; k < len; k++) x[k] = x[k - G];
        }
        for (uint32_t i = 0; i < G; i++) memcpy(col[i] + r0, tile[i], rows * sizeof(gs_fp));
    }
}

static void gen_range(void *arg, size_t b, size_t e) {
    const mix_ctx *m = arg;
    for (size_t j = b; j < e; j++) {
        uint32_t lo = group_lo(m->cols, m->groups, (uint32_t)j);
        uint32_t hi = group_lo(m->cols, m->groups, (uint32_t)j + 1);
        gen_group(m, lo, hi - lo);
    }
}

gs_status gs_airs_mix(gs_workload *out, const gs_mix_params *p) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!params_ok(p)) return GS_ERR_INVALID_ARG;
    uint32_t C = p->cols, K = bound_cols(C);
    size_t n = (size_t)1 << p->log_n;
    if (n > SIZE_MAX / sizeof(gs_fp) / C) return GS_ERR_NOMEM;
    gs_workload w = {NULL, NULL, p->log_n, NULL};
    gs_status s = gs_airs_mix_air(&w.air, p);
    if (s != GS_OK) return s;
    w.trace = malloc((size_t)C * n * sizeof *w.trace);
    w.pub = malloc(3 * K * sizeof *w.pub);
    if (!w.trace || !w.pub) {
        gs_workload_free(&w);
        return GS_ERR_NOMEM;
    }
    for (uint32_t c = 0; c < C; c++)
        w.trace[(size_t)c * n] = gs_fp_from_u64(stream(p->seed, 4 * (uint64_t)c + 3));
    mix_ctx m = {w.trace, n, C, num_groups(C), p->degree, p->seed};
    /* Keep tiny traces on one thread: a range gets at least ~2^15 cells. */
    size_t grain = (size_t)1 << 10 >> (p->log_n < 10 ? p->log_n : 10);
    gs_parallel_for(m.groups, grain, gen_range, &m);
    size_t rows[3] = {0, n / 2, n - 1};
    for (uint32_t r = 0; r < 3; r++)
        for (uint32_t i = 0; i < K; i++)
            w.pub[r * K + i] = w.trace[(size_t)((uint64_t)i * C / K) * n + rows[r]];
    *out = w;
    return GS_OK;
}
