/* synth: the public API, the presets as plans (a list of tables with their
 * kinds and shapes), the job pool and the builder that allocates every table
 * and runs the generators' phases (synth_internal.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "airs/synth_internal.h"
#include "gstark/parallel.h"

/* ---- small helpers ---- */

unsigned gs_synth_shrunk(unsigned base, unsigned shrink) {
    return base > shrink && base - shrink > GS_SYNTH_MIN_LOG_N ? base - shrink : GS_SYNTH_MIN_LOG_N;
}

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t gs_synth_rand(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t x = mix64(seed + (a + 1) * 0x9E3779B97F4A7C15ull);
    return mix64(x ^ ((b + 1) * 0xD1B54A32D192ED03ull));
}

gs_fp gs_synth_coef(uint64_t salt, uint64_t k) {
    gs_fp v = gs_fp_from_u64(gs_synth_rand(0x73796E7468ull /* "synth" */, salt, k));
    return v ? v : 1;
}

typedef struct {
    atomic_size_t next;
    size_t n;
    gs_synth_job_fn fn;
    void *ctx;
} job_pool;

static void pool_worker(void *arg, size_t b, size_t e) {
    (void)b, (void)e;
    job_pool *p = arg;
    for (;;) {
        size_t j = atomic_fetch_add(&p->next, 1);
        if (j >= p->n) return;
        p->fn(p->ctx, j);
    }
}

void gs_synth_run_jobs(size_t n, gs_synth_job_fn fn, void *ctx) {
    if (n == 0) return;
    job_pool p;
    atomic_init(&p.next, 0);
    p.n = n, p.fn = fn, p.ctx = ctx;
    size_t workers = gs_threads_get();
    if (workers > n) workers = n;
    gs_parallel_for(workers, 1, pool_worker, &p);
}

/* ---- presets ---- */

static void set_name(gs_synth_table *s, const char *name) {
    size_t len = strlen(name);
    if (len >= sizeof s->name) len = sizeof s->name - 1;
    memcpy(s->name, name, len);
    s->name[len] = '\0';
}

static void put(gs_synth_plan *p, int kind, const char *name, unsigned log_n, uint32_t cols,
                unsigned degree) {
    gs_synth_table *s = &p->spec[p->n];
    memset(s, 0, sizeof *s);
    set_name(s, name);
    s->log_n = log_n, s->cols = cols, s->degree = degree;
    p->kind[p->n++] = kind;
}

static void put_lookup(gs_synth_plan *p, const gs_synth_table *s) {
    p->spec[p->n] = *s;
    p->kind[p->n++] = GS_SYNTH_K_LOOKUP;
}

static gs_synth_table lookup_spec(const char *name, unsigned log_n, uint32_t cols,
                                  unsigned degree, uint32_t ports, unsigned density) {
    gs_synth_table s;
    memset(&s, 0, sizeof s);
    set_name(&s, name);
    s.log_n = log_n, s.cols = cols, s.degree = degree, s.provider = 1;
    s.num_ports = ports, s.density = density;
    return s;
}

#define SKEW_SMALL 20u
#define UNIFORM_N 8u

static void plan_skew(gs_synth_plan *p) {
    static const uint32_t widths[8] = {9, 12, 16, 20, 24, 32, 48, 64};
    gs_synth_table big = lookup_spec("big", 20, 32, 3, 2, 128);
    for (uint32_t i = 1; i <= SKEW_SMALL; i++) /* port 0: the first half, port 1: the rest */
        big.targets[i <= SKEW_SMALL / 2 ? 0 : 1] |= 1ull << i;
    put_lookup(p, &big);
    for (uint32_t i = 1; i <= SKEW_SMALL; i++) {
        char name[32] = "small00";
        name[5] = (char)('0' + i / 10), name[6] = (char)('0' + i % 10);
        gs_synth_table s =
            lookup_spec(name, 6 + (3 * i) % 7, widths[(i - 1) % 8], 2 + i % 3, 1, 192);
        s.targets[0] = 1ull | 1ull << (i % SKEW_SMALL + 1); /* big and the next small table */
        put_lookup(p, &s);
    }
}

static void plan_uniform(gs_synth_plan *p) {
    for (uint32_t i = 0; i < UNIFORM_N; i++) {
        char name[32] = "u0";
        name[1] = (char)('0' + i);
        gs_synth_table s = lookup_spec(name, 16, 16, 3, 1, 128);
        s.targets[0] = 1ull << ((i + 1) % UNIFORM_N); /* a ring */
        put_lookup(p, &s);
    }
}

static void plan_vm(gs_synth_plan *p) {
    put(p, GS_SYNTH_K_CPU, "cpu", 20, GS_SYNTH_CPU_COLS, 3);
    put(p, GS_SYNTH_K_MEMORY, "memory", 19, GS_SYNTH_MEM_COLS, 2);
    put(p, GS_SYNTH_K_RANGE, "range", 16, GS_SYNTH_RANGE_COLS, 1);
    put(p, GS_SYNTH_K_BITWISE, "bitwise", 16, GS_SYNTH_BIT_COLS, 2);
    put(p, GS_SYNTH_K_HASH, "hash", 14, GS_SYNTH_HASH_COLS, 3);
    put(p, GS_SYNTH_K_PROGRAM, "program", 10, GS_SYNTH_PROG_COLS, 1);
    gs_synth_table g0 = lookup_spec("gadget0", 12, 16, 2, 1, 128);
    gs_synth_table g1 = lookup_spec("gadget1", 8, 10, 4, 1, 192);
    g0.targets[0] = 1ull << 7;
    g1.targets[0] = 1ull << 6;
    put_lookup(p, &g0);
    put_lookup(p, &g1);
}

/* The plan of a preset at a shrink (shape only; checked). */
static gs_status preset_plan(gs_synth_plan *p, const char *preset, unsigned shrink) {
    memset(p, 0, sizeof *p);
    if (!preset || shrink > GS_SYNTH_MAX_SHRINK) return GS_ERR_INVALID_ARG;
    if (strcmp(preset, "vm") == 0)
        plan_vm(p);
    else if (strcmp(preset, "skew") == 0)
        plan_skew(p);
    else if (strcmp(preset, "uniform") == 0)
        plan_uniform(p);
    else
        return GS_ERR_INVALID_ARG;
    p->shrink = shrink;
    for (uint32_t t = 0; t < p->n; t++) p->log_n[t] = gs_synth_shrunk(p->spec[t].log_n, shrink);
    return gs_synth_lookup_check(p);
}

static gs_status custom_plan(gs_synth_plan *p, const gs_synth_table *tables, uint32_t n,
                             unsigned shrink) {
    memset(p, 0, sizeof *p);
    if (!tables || n < 1 || n > GS_SYNTH_MAX_TABLES || shrink > GS_SYNTH_MAX_SHRINK)
        return GS_ERR_INVALID_ARG;
    for (uint32_t t = 0; t < n; t++) put_lookup(p, &tables[t]);
    p->shrink = shrink;
    for (uint32_t t = 0; t < n; t++) {
        if (tables[t].log_n < GS_SYNTH_MIN_LOG_N || tables[t].log_n > GS_SYNTH_MAX_LOG_N)
            return GS_ERR_INVALID_ARG;
        p->log_n[t] = gs_synth_shrunk(tables[t].log_n, shrink);
    }
    return gs_synth_lookup_check(p);
}

/* ---- building ---- */

static gs_status plan_air(gs_air **out, const gs_synth_plan *p, uint32_t t) {
    if (p->kind[t] == GS_SYNTH_K_LOOKUP) return gs_synth_lookup_air(out, &p->spec[t], t);
    return gs_synth_vm_air(out, p->kind[t], p->shrink);
}

void gs_multi_workload_free(gs_multi_workload *w) {
    if (!w) return;
    if (w->tables)
        for (uint32_t t = 0; t < w->num_tables; t++) gs_workload_free(&w->tables[t]);
    free(w->tables);
    memset(w, 0, sizeof *w);
}

typedef struct {
    gs_synth_vm_gen *vm;
    gs_synth_lookup_gen *lk;
    int phase;
    size_t n_vm;
} phase_ctx;

static void phase_job(void *arg, size_t j) {
    phase_ctx *c = arg;
    if (j < c->n_vm)
        gs_synth_vm_job(c->vm, c->phase, j);
    else
        gs_synth_lookup_job(c->lk, c->phase, j - c->n_vm);
}

static gs_status build(gs_multi_workload *out, const gs_synth_plan *p, uint64_t seed,
                       const char *name) {
    gs_multi_workload w;
    memset(&w, 0, sizeof w);
    size_t len = strlen(name);
    if (len >= sizeof w.name) len = sizeof w.name - 1;
    memcpy(w.name, name, len); /* w is zeroed: NUL-terminated */
    w.tables = calloc(p->n, sizeof *w.tables);
    if (!w.tables) return GS_ERR_NOMEM;
    w.num_tables = p->n;
    gs_status s = GS_OK;
    int has_vm = 0, has_lookup = 0;
    for (uint32_t t = 0; t < p->n && s == GS_OK; t++) {
        gs_workload *tw = &w.tables[t];
        s = plan_air(&tw->air, p, t);
        if (s != GS_OK) break;
        tw->log_n = p->log_n[t];
        size_t cells = (size_t)gs_air_num_cols(tw->air) << tw->log_n;
        /* zeroed: the generators skip zero cells (untouched pages cost nothing) */
        tw->trace = calloc(cells, sizeof *tw->trace);
        uint32_t np = gs_air_num_public(tw->air);
        if (np) tw->pub = calloc(np, sizeof *tw->pub);
        if (!tw->trace || (np && !tw->pub)) s = GS_ERR_NOMEM;
        has_vm |= p->kind[t] == GS_SYNTH_K_CPU;
        has_lookup |= p->kind[t] == GS_SYNTH_K_LOOKUP;
    }
    phase_ctx c = {NULL, NULL, 0, 0};
    if (s == GS_OK && has_vm) s = gs_synth_vm_gen_new(&c.vm, p, w.tables, seed);
    if (s == GS_OK && has_lookup) s = gs_synth_lookup_gen_new(&c.lk, p, w.tables, seed);
    for (int phase = 1; s == GS_OK && phase <= 3; phase++) {
        c.phase = phase;
        c.n_vm = c.vm ? gs_synth_vm_jobs(c.vm, phase) : 0;
        size_t n_lk = c.lk ? gs_synth_lookup_jobs(c.lk, phase) : 0;
        gs_synth_run_jobs(c.n_vm + n_lk, phase_job, &c);
    }
    if (s == GS_OK && c.vm) gs_synth_vm_publics(c.vm);
    gs_synth_vm_gen_free(c.vm);
    gs_synth_lookup_gen_free(c.lk);
    if (s != GS_OK) {
        gs_multi_workload_free(&w);
        return s;
    }
    *out = w;
    return GS_OK;
}

/* ---- API ---- */

gs_status gs_synth_preset(gs_multi_workload *out, const char *preset, unsigned shrink,
                          uint64_t seed) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    gs_synth_plan *p = malloc(sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = preset_plan(p, preset, shrink);
    if (s == GS_OK) s = build(out, p, seed, preset);
    free(p);
    return s;
}

gs_status gs_synth_preset_tables(uint32_t *num_tables, const char *preset) {
    if (!num_tables) return GS_ERR_INVALID_ARG;
    *num_tables = 0;
    gs_synth_plan *p = malloc(sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = preset_plan(p, preset, 0);
    if (s == GS_OK) *num_tables = p->n;
    free(p);
    return s;
}

static gs_status table_air(gs_air **air, unsigned *log_n, const gs_synth_plan *p, uint32_t t) {
    if (t >= p->n) return GS_ERR_INVALID_ARG;
    if (air) GS_TRY(plan_air(air, p, t));
    if (log_n) *log_n = p->log_n[t];
    return GS_OK;
}

gs_status gs_synth_table_air(gs_air **air, unsigned *log_n, const char *preset, unsigned shrink,
                             uint64_t seed, uint32_t t) {
    (void)seed; /* the AIRs do not depend on it */
    if (air) *air = NULL;
    if (log_n) *log_n = 0;
    gs_synth_plan *p = malloc(sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = preset_plan(p, preset, shrink);
    if (s == GS_OK) s = table_air(air, log_n, p, t);
    free(p);
    return s;
}

gs_status gs_synth_custom(gs_multi_workload *out, const gs_synth_table *tables,
                          uint32_t num_tables, unsigned shrink, uint64_t seed) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    gs_synth_plan *p = malloc(sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = custom_plan(p, tables, num_tables, shrink);
    if (s == GS_OK) s = build(out, p, seed, "custom");
    free(p);
    return s;
}

gs_status gs_synth_custom_air(gs_air **air, unsigned *log_n, const gs_synth_table *tables,
                              uint32_t num_tables, unsigned shrink, uint32_t t) {
    if (air) *air = NULL;
    if (log_n) *log_n = 0;
    gs_synth_plan *p = malloc(sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = custom_plan(p, tables, num_tables, shrink);
    if (s == GS_OK) s = table_air(air, log_n, p, t);
    free(p);
    return s;
}

gs_status gs_synth_preset_spec(gs_synth_table *out, uint32_t *num_tables, const char *preset) {
    if (num_tables) *num_tables = 0;
    if (!out || !num_tables || !preset || strcmp(preset, "vm") == 0) return GS_ERR_INVALID_ARG;
    gs_synth_plan *p = malloc(sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status s = preset_plan(p, preset, 0);
    if (s == GS_OK) {
        memcpy(out, p->spec, p->n * sizeof *out);
        *num_tables = p->n;
    }
    free(p);
    return s;
}
