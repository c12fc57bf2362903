/* A claim's workload, shapes and memory estimate; fib bisection and the fib
 * boundary check (include/gstark/batch.h, docs/batch.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/batch_internal.h"
#include "gstark/prover.h"

/* ---- fib arithmetic ---- */

uint32_t gs_batch_fib_tables(unsigned log_n[32], int *tail, uint64_t steps) {
    uint64_t rows = steps + 1;
    uint32_t n = 0;
    for (unsigned k = 63; k >= 1; k--)
        if (rows >> k & 1) log_n[n++] = k;
    *tail = (int)(rows & 1);
    return n;
}

/* 2x2 matrices over Fp, row-major. */
static void mat_mul(gs_fp r[4], const gs_fp x[4], const gs_fp y[4]) {
    gs_fp t[4] = {gs_fp_add(gs_fp_mul(x[0], y[0]), gs_fp_mul(x[1], y[2])),
                  gs_fp_add(gs_fp_mul(x[0], y[1]), gs_fp_mul(x[1], y[3])),
                  gs_fp_add(gs_fp_mul(x[2], y[0]), gs_fp_mul(x[3], y[2])),
                  gs_fp_add(gs_fp_mul(x[2], y[1]), gs_fp_mul(x[3], y[3]))};
    memcpy(r, t, sizeof t);
}

void gs_batch_fib_advance(gs_fp out[2], const gs_fp start[2], uint64_t k) {
    gs_fp acc[4] = {1, 0, 0, 1}, m[4] = {0, 1, 1, 1}; /* (a, b) -> (b, a + b) */
    for (; k; k >>= 1) {
        if (k & 1) mat_mul(acc, acc, m);
        mat_mul(m, m, m);
    }
    gs_fp a = start[0], b = start[1];
    out[0] = gs_fp_add(gs_fp_mul(acc[0], a), gs_fp_mul(acc[1], b));
    out[1] = gs_fp_add(gs_fp_mul(acc[2], a), gs_fp_mul(acc[3], b));
}

gs_status gs_claim_fib_end(gs_fp end[2], const gs_claim *c) {
    if (!end || !c || c->kind != GS_CLAIM_FIB) return GS_ERR_INVALID_ARG;
    gs_batch_fib_advance(end, c->w.fib.start, c->w.fib.steps);
    return GS_OK;
}

gs_status gs_fib_next_state(gs_fp next[2], const gs_fp *pub, uint32_t num_pub) {
    if (!next || !pub || num_pub != 4) return GS_ERR_INVALID_ARG;
    next[0] = pub[2];
    next[1] = gs_fp_add(pub[3], pub[2]);
    return GS_OK;
}

gs_status gs_fib_check_boundary(const gs_fp *first_pub, uint32_t first_num_pub,
                                const gs_fp *second_pub, uint32_t second_num_pub) {
    if (!second_pub || second_num_pub != 4) return GS_ERR_INVALID_ARG;
    gs_fp next[2];
    GS_TRY(gs_fib_next_state(next, first_pub, first_num_pub));
    return second_pub[0] == next[0] && second_pub[1] == next[1] ? GS_OK : GS_ERR_PROOF_STATEMENT;
}

/* ---- bisection ---- */

static gs_status half_id(char out[GS_CLAIM_ID_CAP], const char *id, int which) {
    size_t n = strlen(id);
    if (n + 3 > GS_CLAIM_ID_CAP) return GS_ERR_INVALID_ARG;
    char tmp[GS_CLAIM_ID_CAP];
    memcpy(tmp, id, n);
    tmp[n] = '/', tmp[n + 1] = (char)('0' + which), tmp[n + 2] = 0;
    memcpy(out, tmp, n + 3);
    return GS_OK;
}

gs_status gs_claim_split(gs_claim *first, gs_claim *second, const gs_claim *c) {
    if (!first || !second || !c || first == second) return GS_ERR_INVALID_ARG;
    if (c->kind != GS_CLAIM_FIB || c->w.fib.steps < 3) return GS_ERR_UNSUPPORTED;
    gs_claim src = *c; /* first or second may alias c */
    uint64_t rows = src.w.fib.steps + 1, r1 = 2 * (rows / 4);
    gs_claim a = src, b = src;
    GS_TRY(half_id(a.id, src.id, 0));
    GS_TRY(half_id(b.id, src.id, 1));
    a.w.fib.steps = r1 - 1;
    gs_batch_fib_advance(b.w.fib.start, src.w.fib.start, r1);
    b.w.fib.steps = rows - r1 - 1;
    *first = a;
    *second = b;
    return GS_OK;
}

/* ---- shapes ---- */

void gs_batch_shapes_free(gs_batch_shapes *s) {
    if (!s) return;
    for (uint32_t i = 0; i < (s->shared ? (s->n ? 1u : 0u) : s->n); i++) gs_air_free(s->airs[i]);
    memset(s, 0, sizeof *s);
}

static void put_err(char *err, size_t err_len, const char *msg) {
    if (err && err_len) snprintf(err, err_len, "%s", msg);
}

gs_status gs_batch_shapes_make(gs_batch_shapes *out, const gs_claim *c, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    gs_status s = GS_OK;
    switch (c->kind) {
    case GS_CLAIM_FIB: {
        unsigned log_n[32];
        int tail;
        uint32_t n = gs_batch_fib_tables(log_n, &tail, c->w.fib.steps);
        if (n > GS_SYNTH_MAX_TABLES) return GS_ERR_INVALID_ARG; /* steps <= 2^30: at most 30 */
        s = gs_airs_fib_air(&out->airs[0]);
        if (s != GS_OK) return s;
        out->shared = 1;
        out->n = n;
        for (uint32_t i = 0; i < n; i++) out->airs[i] = out->airs[0], out->log_n[i] = log_n[i];
        return GS_OK;
    }
    case GS_CLAIM_MIX:
        s = gs_airs_mix_air(&out->airs[0], &c->w.mix);
        if (s == GS_OK) out->n = 1, out->log_n[0] = c->w.mix.log_n;
        return s;
    case GS_CLAIM_SYNTH: {
        uint32_t n = 0;
        s = gs_synth_preset_tables(&n, c->w.synth.preset);
        if (s == GS_OK && n > GS_SYNTH_MAX_TABLES) s = GS_ERR_INVALID_ARG;
        for (uint32_t t = 0; s == GS_OK && t < n; t++) {
            s = gs_synth_table_air(&out->airs[t], &out->log_n[t], c->w.synth.preset,
                                   c->w.synth.shrink, c->w.synth.seed, t);
            if (s == GS_OK) out->n = t + 1;
        }
        break;
    }
    case GS_CLAIM_CUSTOM: {
        gs_workload w = {0};
        const gs_claim_custom *cu = &c->w.custom;
        char msg[256] = "";
        s = cu->build(cu->ctx, &w, cu->json, cu->json_len, 1, msg, sizeof msg);
        if (s == GS_OK && !w.air) s = GS_ERR_INVALID_ARG, snprintf(msg, sizeof msg, "the builder gave no AIR");
        if (s != GS_OK) {
            gs_workload_free(&w);
            put_err(err, err_len, msg[0] ? msg : gs_status_str(s));
            return s;
        }
        out->airs[0] = w.air; /* the trace and publics, if the builder made them anyway */
        out->log_n[0] = w.log_n;
        out->n = 1;
        w.air = NULL;
        gs_workload_free(&w);
        return GS_OK;
    }
    default: return GS_ERR_INVALID_ARG;
    }
    if (s != GS_OK) gs_batch_shapes_free(out);
    return s;
}

/* ---- the workload ---- */

static gs_status fib_workload(gs_multi_workload *out, const gs_claim_fib *f) {
    unsigned log_n[32];
    int tail;
    uint32_t n = gs_batch_fib_tables(log_n, &tail, f->steps);
    gs_multi_workload w = {.num_tables = 0, .tables = calloc(n, sizeof(gs_workload))};
    if (!w.tables) return GS_ERR_NOMEM;
    snprintf(w.name, sizeof w.name, "fib");
    gs_fp x[2] = {f->start[0], f->start[1]};
    for (uint32_t i = 0; i < n; i++) {
        gs_status s = gs_airs_fib(&w.tables[i], log_n[i], x[0], x[1]);
        if (s != GS_OK) {
            gs_multi_workload_free(&w);
            return s;
        }
        w.num_tables = i + 1;
        size_t rows = (size_t)1 << log_n[i];
        const gs_fp *a = w.tables[i].trace, *b = a + rows;
        x[0] = b[rows - 1]; /* the next table starts at F(last row) */
        x[1] = gs_fp_add(a[rows - 1], b[rows - 1]);
    }
    *out = w;
    return GS_OK;
}

static gs_status single(gs_multi_workload *out, gs_workload *t, const char *name) {
    gs_multi_workload w = {.num_tables = 1, .tables = malloc(sizeof(gs_workload))};
    if (!w.tables) {
        gs_workload_free(t);
        return GS_ERR_NOMEM;
    }
    w.tables[0] = *t;
    snprintf(w.name, sizeof w.name, "%s", name);
    *out = w;
    return GS_OK;
}

gs_status gs_claim_workload(gs_multi_workload *out, const gs_claim *c) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!c) return GS_ERR_INVALID_ARG;
    gs_workload t = {0};
    gs_status s;
    switch (c->kind) {
    case GS_CLAIM_FIB: return fib_workload(out, &c->w.fib);
    case GS_CLAIM_MIX:
        if ((s = gs_airs_mix(&t, &c->w.mix)) != GS_OK) return s;
        return single(out, &t, "mix");
    case GS_CLAIM_SYNTH:
        return gs_synth_preset(out, c->w.synth.preset, c->w.synth.shrink, c->w.synth.seed);
    case GS_CLAIM_CUSTOM: {
        const gs_claim_custom *cu = &c->w.custom;
        char msg[256] = "";
        s = cu->build(cu->ctx, &t, cu->json, cu->json_len, 0, msg, sizeof msg);
        if (s == GS_OK && (!t.air || !t.trace)) s = GS_ERR_INVALID_ARG;
        if (s != GS_OK) {
            gs_workload_free(&t);
            return s;
        }
        return single(out, &t, cu->air);
    }
    default: return GS_ERR_INVALID_ARG;
    }
}

gs_status gs_claim_air_desc(char *out, size_t cap, const gs_claim *c, uint32_t t) {
    if (!out || !cap || !c) return GS_ERR_INVALID_ARG;
    out[0] = 0;
    uint32_t tables = 1;
    if (c->kind == GS_CLAIM_FIB) {
        unsigned log_n[32];
        int tail;
        tables = gs_batch_fib_tables(log_n, &tail, c->w.fib.steps);
    } else if (c->kind == GS_CLAIM_SYNTH) {
        GS_TRY(gs_synth_preset_tables(&tables, c->w.synth.preset));
    }
    if (t >= tables) return GS_ERR_INVALID_ARG;
    int w;
    switch (c->kind) {
    case GS_CLAIM_FIB: w = snprintf(out, cap, "fib"); break;
    case GS_CLAIM_MIX:
        w = snprintf(out, cap, "mix cols=%" PRIu32 " degree=%u log_n=%u seed=%" PRIu64, c->w.mix.cols,
                     c->w.mix.degree, c->w.mix.log_n, c->w.mix.seed);
        break;
    case GS_CLAIM_SYNTH:
        w = snprintf(out, cap, "synth preset=%s shrink=%u table=%" PRIu32, c->w.synth.preset,
                     c->w.synth.shrink, t);
        break;
    case GS_CLAIM_CUSTOM: w = snprintf(out, cap, "%s", c->w.custom.air); break;
    default: return GS_ERR_INVALID_ARG;
    }
    if (w < 0 || (size_t)w >= cap) {
        out[0] = 0;
        return GS_ERR_INVALID_ARG;
    }
    return GS_OK;
}

/* ---- the estimate ---- */

static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

gs_status gs_claim_estimate(gs_claim_cost *out, const gs_claim *c) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!c) return GS_ERR_INVALID_ARG;
    gs_batch_shapes sh;
    GS_TRY(gs_batch_shapes_make(&sh, c, NULL, 0));
    gs_claim_cost k = {.tables = sh.n};
    gs_status s = GS_OK;
    for (uint32_t i = 0; i < sh.n && s == GS_OK; i++) {
        gs_mem_estimate e;
        s = gs_estimate_table(&e, sh.airs[i], sh.log_n[i], &c->params);
        if (s != GS_OK) break;
        uint64_t rows = (uint64_t)1 << sh.log_n[i], cols = gs_air_num_cols(sh.airs[i]);
        if (sh.log_n[i] > k.max_log_n) k.max_log_n = sh.log_n[i];
        k.rows += rows;
        k.cells += cols * rows;
        k.fft_cost += cols * rows * sh.log_n[i];
        k.trace_bytes = sat_add(k.trace_bytes, (size_t)(cols * rows * sizeof(gs_fp)));
        k.trace_bytes = sat_add(k.trace_bytes, gs_air_num_public(sh.airs[i]) * sizeof(gs_fp));
        if (e.total > k.prove_bytes) k.prove_bytes = e.total;
        if (e.lean_total > k.prove_lean_bytes) k.prove_lean_bytes = e.lean_total;
        k.prove_all_bytes = sat_add(k.prove_all_bytes, e.total);
    }
    /* One FRI for all tables: every table holds its retained bytes until the
     * end, so the claim needs them all at once (no lean variant). */
    if (s == GS_OK && c->params.shared_fri) {
        size_t need = 0;
        s = gs_estimate_shared(&need, (const gs_air *const *)sh.airs, sh.log_n, sh.n, &c->params,
                               GS_BACKEND_AUTO);
        if (s == GS_OK) k.prove_bytes = k.prove_lean_bytes = need;
        if (s == GS_OK && need > k.prove_all_bytes) k.prove_all_bytes = need;
    }
    gs_batch_shapes_free(&sh);
    if (s == GS_OK) *out = k;
    return s;
}
