/* Generic lookup tables (gstark/synth.h, "custom statements"): a
 * pseudorandom state of configurable width and degree, an optional provider
 * part (row index and multiplicity: other tables look its rows up) and send
 * ports that look rows of other tables up on the LOOKUP bus.
 *
 * Phase 1 runs one job per state group (rows are sequential inside a group,
 * groups are independent); phase 2 fills the provider index and the ports in
 * row chunks (a port reads its target's state, finished in phase 1); phase 3
 * is one job that counts every active port row into its target's mult. */
#include <stdlib.h>
#include <string.h>

#include "airs/synth_internal.h"

#define PORT_COLS 5u
#define CHUNK ((size_t)1 << 13)

static uint32_t prov_cols(const gs_synth_table *s) { return s->provider ? 2u : 0u; }

/* The state width, or 0 if the layout does not fit. */
static uint32_t state_cols(const gs_synth_table *s) {
    uint32_t fixed = prov_cols(s) + PORT_COLS * s->num_ports;
    uint32_t need = fixed + (s->provider ? 2u : 1u);
    return s->cols >= need ? s->cols - fixed : 0;
}

static uint32_t num_groups(uint32_t S) { return (S + GS_SYNTH_GROUP - 1) / GS_SYNTH_GROUP; }
static uint32_t group_lo(uint32_t S, uint32_t g, uint32_t j) {
    return (uint32_t)((uint64_t)j * S / g);
}

static uint64_t rkey(uint32_t t, uint32_t what, uint32_t i) {
    return (uint64_t)t << 32 | (uint64_t)what << 16 | i;
}

gs_status gs_synth_lookup_check(const gs_synth_plan *p) {
    for (uint32_t t = 0; t < p->n; t++) {
        if (p->kind[t] != GS_SYNTH_K_LOOKUP) continue;
        const gs_synth_table *s = &p->spec[t];
        if (!memchr(s->name, '\0', sizeof s->name) || s->degree < 2 ||
            s->degree > GS_SYNTH_MAX_DEGREE || s->num_ports > GS_SYNTH_MAX_PORTS ||
            s->density > 256 || s->cols > GS_SYNTH_MAX_COLS || state_cols(s) == 0)
            return GS_ERR_INVALID_ARG;
        for (uint32_t q = 0; q < s->num_ports; q++) {
            uint64_t m = s->targets[q];
            if (!m || (p->n < 64 && m >> p->n)) return GS_ERR_INVALID_ARG;
            for (uint32_t j = 0; j < p->n; j++)
                if (m >> j & 1 && (p->kind[j] != GS_SYNTH_K_LOOKUP || !p->spec[j].provider))
                    return GS_ERR_INVALID_ARG;
        }
    }
    return GS_OK;
}

/* ---- the AIR ---- */

static void build_group(gs_air *air, uint32_t t, uint32_t base, uint32_t lo, uint32_t G,
                        unsigned d) {
    gs_expr x[GS_SYNTH_GROUP];
    for (uint32_t i = 0; i < G; i++) x[i] = gs_air_col(air, base + lo + i);
    for (uint32_t i = 0; i < G; i++) {
        uint64_t c = lo + i; /* state index */
        gs_expr prod = x[i];
        for (unsigned k = 1; k < d; k++) prod = gs_air_mul(air, prod, x[(i + k) % G]);
        gs_expr f = gs_air_mul(air, gs_air_const(air, gs_synth_coef(t + 1, 3 * c)), prod);
        gs_expr lin = gs_air_mul(air, gs_air_const(air, gs_synth_coef(t + 1, 3 * c + 1)),
                                 x[(i + G - 1) % G]);
        f = gs_air_add(air, gs_air_add(air, f, lin),
                       gs_air_const(air, gs_synth_coef(t + 1, 3 * c + 2)));
        gs_air_transition(air, gs_air_sub(air, gs_air_next(air, base + lo + i), f));
    }
}

gs_status gs_synth_lookup_air(gs_air **out, const gs_synth_table *s, uint32_t t) {
    *out = NULL;
    uint32_t P = prov_cols(s), S = state_cols(s), g = num_groups(S);
    gs_air *air = gs_air_new(s->name, s->cols, 0);
    if (!air) return GS_ERR_NOMEM;
    if (s->provider) {
        gs_expr idx = gs_air_col(air, 0);
        gs_expr one = gs_air_const(air, 1);
        gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0), gs_air_add(air, idx, one)));
        gs_air_boundary(air, 0, 0, gs_air_const(air, 0));
        gs_expr tuple[4] = {gs_air_const(air, (gs_fp)t + 1), idx, gs_air_col(air, P),
                            gs_air_col(air, P + 1)};
        gs_air_receive(air, GS_SYNTH_BUS_LOOKUP, tuple, 4, gs_air_col(air, 1));
    }
    for (uint32_t j = 0; j < g; j++) {
        uint32_t lo = group_lo(S, g, j), hi = group_lo(S, g, j + 1);
        build_group(air, t, P, lo, hi - lo, s->degree);
    }
    for (uint32_t q = 0; q < s->num_ports; q++) {
        uint32_t c = P + S + PORT_COLS * q;
        gs_expr sel = gs_air_col(air, c + 4);
        gs_air_transition(air, gs_air_mul(air, sel, gs_air_sub(air, sel, gs_air_const(air, 1))));
        gs_expr tuple[4] = {gs_air_col(air, c), gs_air_col(air, c + 1), gs_air_col(air, c + 2),
                            gs_air_col(air, c + 3)};
        gs_air_send(air, GS_SYNTH_BUS_LOOKUP, tuple, 4, sel);
    }
    gs_status st = gs_air_finalize(air);
    if (st != GS_OK) {
        gs_air_free(air);
        return st;
    }
    *out = air;
    return GS_OK;
}

/* ---- the traces ---- */

typedef struct {
    uint32_t t, lo, hi;
    uint64_t weight;
} state_job;

typedef struct {
    uint32_t t;
    size_t r0, r1;
} port_job;

struct gs_synth_lookup_gen {
    const gs_synth_plan *p;
    gs_workload *tables;
    uint64_t seed;
    state_job *sj;
    size_t n_sj;
    port_job *pj;
    size_t n_pj;
    int count; /* phase 3 has its one job */
    /* targets[t][q]: the target list of port q of table t, n_targets its length */
    uint8_t (*targets)[GS_SYNTH_MAX_PORTS][GS_SYNTH_MAX_TABLES];
    uint8_t (*n_targets)[GS_SYNTH_MAX_PORTS];
};

static int by_weight(const void *a, const void *b) {
    const state_job *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void gs_synth_lookup_gen_free(gs_synth_lookup_gen *g) {
    if (!g) return;
    free(g->sj);
    free(g->pj);
    free(g->targets);
    free(g->n_targets);
    free(g);
}

gs_status gs_synth_lookup_gen_new(gs_synth_lookup_gen **out, const gs_synth_plan *p,
                                  gs_workload *tables, uint64_t seed) {
    *out = NULL;
    gs_synth_lookup_gen *g = calloc(1, sizeof *g);
    if (!g) return GS_ERR_NOMEM;
    g->p = p, g->tables = tables, g->seed = seed;
    size_t n_sj = 0, n_pj = 0;
    for (uint32_t t = 0; t < p->n; t++) {
        if (p->kind[t] != GS_SYNTH_K_LOOKUP) continue;
        n_sj += num_groups(state_cols(&p->spec[t]));
        n_pj += (((size_t)1 << p->log_n[t]) + CHUNK - 1) / CHUNK;
        g->count |= p->spec[t].provider;
    }
    g->sj = malloc(n_sj * sizeof *g->sj);
    g->pj = malloc(n_pj * sizeof *g->pj);
    g->targets = calloc(p->n, sizeof *g->targets);
    g->n_targets = calloc(p->n, sizeof *g->n_targets);
    if (!g->sj || !g->pj || !g->targets || !g->n_targets) {
        gs_synth_lookup_gen_free(g);
        return GS_ERR_NOMEM;
    }
    for (uint32_t t = 0; t < p->n; t++) {
        if (p->kind[t] != GS_SYNTH_K_LOOKUP) continue;
        const gs_synth_table *s = &p->spec[t];
        size_t n = (size_t)1 << p->log_n[t];
        uint32_t S = state_cols(s), ng = num_groups(S);
        for (uint32_t j = 0; j < ng; j++) {
            uint32_t lo = group_lo(S, ng, j), hi = group_lo(S, ng, j + 1);
            g->sj[g->n_sj++] = (state_job){t, lo, hi, (uint64_t)n * (hi - lo) * s->degree};
        }
        for (size_t r = 0; r < n; r += CHUNK)
            g->pj[g->n_pj++] = (port_job){t, r, r + CHUNK < n ? r + CHUNK : n};
        for (uint32_t q = 0; q < s->num_ports; q++)
            for (uint32_t j = 0; j < p->n; j++)
                if (s->targets[q] >> j & 1) g->targets[t][q][g->n_targets[t][q]++] = (uint8_t)j;
    }
    qsort(g->sj, g->n_sj, sizeof *g->sj, by_weight);
    *out = g;
    return GS_OK;
}

size_t gs_synth_lookup_jobs(const gs_synth_lookup_gen *g, int phase) {
    return phase == 1 ? g->n_sj : phase == 2 ? g->n_pj : (size_t)g->count;
}

/* Rows 0..n-1 of one state group. */
static void gen_state(const gs_synth_lookup_gen *g, const state_job *j) {
    const gs_synth_table *s = &g->p->spec[j->t];
    size_t n = (size_t)1 << g->p->log_n[j->t];
    uint32_t G = j->hi - j->lo, base = prov_cols(s) + j->lo;
    unsigned d = s->degree;
    gs_fp alpha[GS_SYNTH_GROUP], beta[GS_SYNTH_GROUP], gamma[GS_SYNTH_GROUP];
    gs_fp x[GS_SYNTH_GROUP], nx[GS_SYNTH_GROUP];
    gs_fp *col[GS_SYNTH_GROUP];
    for (uint32_t i = 0; i < G; i++) {
        uint64_t c = j->lo + i;
        alpha[i] = gs_synth_coef(j->t + 1, 3 * c);
        beta[i] = gs_synth_coef(j->t + 1, 3 * c + 1);
        gamma[i] = gs_synth_coef(j->t + 1, 3 * c + 2);
        col[i] = g->tables[j->t].trace + (size_t)(base + i) * n;
        x[i] = col[i][0] = gs_fp_from_u64(gs_synth_rand(g->seed, rkey(j->t, 1, (uint32_t)c), 0));
    }
    for (size_t r = 1; r < n; r++) {
        for (uint32_t i = 0; i < G; i++) {
            gs_fp prod = x[i];
            for (unsigned k = 1; k < d; k++) prod = gs_fp_mul(prod, x[(i + k) % G]);
            gs_fp v = gs_fp_add(gs_fp_mul(alpha[i], prod), gs_fp_mul(beta[i], x[(i + G - 1) % G]));
            nx[i] = gs_fp_add(v, gamma[i]);
        }
        for (uint32_t i = 0; i < G; i++) col[i][r] = x[i] = nx[i];
    }
}

/* The provider index and the ports of rows r0..r1-1. */
static void gen_ports(const gs_synth_lookup_gen *g, const port_job *j) {
    const gs_synth_plan *p = g->p;
    const gs_synth_table *s = &p->spec[j->t];
    size_t n = (size_t)1 << p->log_n[j->t];
    gs_fp *m = g->tables[j->t].trace;
    if (s->provider)
        for (size_t r = j->r0; r < j->r1; r++) m[r] = r;
    uint32_t base = prov_cols(s) + state_cols(s);
    for (uint32_t q = 0; q < s->num_ports; q++) {
        gs_fp *c = m + (size_t)(base + PORT_COLS * q) * n;
        uint32_t cnt = g->n_targets[j->t][q];
        for (size_t r = j->r0; r < j->r1; r++) {
            uint64_t u = gs_synth_rand(g->seed, rkey(j->t, 2, q), r);
            gs_fp tag = 0, key = 0, v0 = 0, v1 = 0, sel = 0;
            if ((u & 255) < s->density) {
                uint32_t tgt = g->targets[j->t][q][(u >> 8) % cnt];
                size_t nt = (size_t)1 << p->log_n[tgt];
                size_t k = gs_synth_rand(g->seed, rkey(j->t, 3, q), r) & (nt - 1);
                const gs_fp *tm = g->tables[tgt].trace;
                tag = tgt + 1, key = k, sel = 1;
                v0 = tm[2 * nt + k], v1 = tm[3 * nt + k]; /* state columns 0 and 1 */
            }
            c[r] = tag, c[n + r] = key, c[2 * n + r] = v0, c[3 * n + r] = v1, c[4 * n + r] = sel;
        }
    }
}

/* Every provider's mult: the number of active port rows that look each row up. */
static void gen_counts(const gs_synth_lookup_gen *g) {
    const gs_synth_plan *p = g->p;
    for (uint32_t t = 0; t < p->n; t++)
        if (p->kind[t] == GS_SYNTH_K_LOOKUP && p->spec[t].provider)
            memset(g->tables[t].trace + ((size_t)1 << p->log_n[t]), 0,
                   ((size_t)1 << p->log_n[t]) * sizeof(gs_fp));
    for (uint32_t t = 0; t < p->n; t++) {
        if (p->kind[t] != GS_SYNTH_K_LOOKUP) continue;
        const gs_synth_table *s = &p->spec[t];
        size_t n = (size_t)1 << p->log_n[t];
        uint32_t base = prov_cols(s) + state_cols(s);
        for (uint32_t q = 0; q < s->num_ports; q++) {
            const gs_fp *c = g->tables[t].trace + (size_t)(base + PORT_COLS * q) * n;
            for (size_t r = 0; r < n; r++) {
                if (c[4 * n + r] != 1) continue;
                uint32_t tgt = (uint32_t)c[r] - 1;
                size_t nt = (size_t)1 << p->log_n[tgt];
                gs_fp *mult = g->tables[tgt].trace + nt + c[n + r];
                *mult = gs_fp_add(*mult, 1);
            }
        }
    }
}

void gs_synth_lookup_job(gs_synth_lookup_gen *g, int phase, size_t job) {
    if (phase == 1)
        gen_state(g, &g->sj[job]);
    else if (phase == 2)
        gen_ports(g, &g->pj[job]);
    else
        gen_counts(g);
}
