/* The timing report and the metrics lines (include/gstark/obs.h), computed
 * from one snapshot of the spans (gs_obs_snapshot), so a report taken while
 * workers still record is consistent with itself. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/obs.h"
#include "gstark/size.h"
#include "obs/obs_internal.h"

#define NS_PER_MS UINT64_C(1000000)

static uint64_t span_end(const gs_obs_span *s, uint64_t now) {
    uint64_t e = s->done ? s->end_ns : now;
    return e < now ? e : now;
}

static uint64_t span_ns(const gs_obs_span *s, uint64_t now) {
    uint64_t b = s->start_ns < now ? s->start_ns : now, e = span_end(s, now);
    return e > b ? e - b : 0;
}

typedef struct {
    uint64_t start;
    size_t id;
} by_start;

static int cmp_by_start(const void *pa, const void *pb) {
    const by_start *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

typedef struct {
    int32_t table;
    uint32_t rank; /* the phase's place among the by_phase rows */
    size_t id;
} by_table;

static int cmp_by_table(const void *pa, const void *pb) {
    const by_table *a = pa, *b = pb;
    if (a->table != b->table) return a->table < b->table ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The row for `phase` in rows[0..*n) (phases are interned: compare pointers),
 * appended if absent. rows has room for one more. */
static gs_obs_row *row_for(gs_obs_row *rows, size_t *n, const char *phase, int32_t table) {
    for (size_t i = 0; i < *n; i++)
        if (rows[i].phase == phase && rows[i].table == table) return &rows[i];
    gs_obs_row *r = &rows[(*n)++];
    memset(r, 0, sizeof *r);
    r->phase = phase;
    r->table = table;
    return r;
}

static void row_add(gs_obs_row *r, const gs_obs_span *s, uint64_t ns) {
    r->spans++;
    r->ns += ns;
    if (s->rows > r->rows) r->rows = s->rows;
    if (s->cols > r->cols) r->cols = s->cols;
    r->bytes += s->bytes;
}

void gs_obs_summary_free(gs_obs_summary *s) {
    if (!s) return;
    free(s->phases);
    free(s->by_phase);
    free(s->tables);
    free(s->table_totals);
    memset(s, 0, sizeof *s);
}

gs_status gs_obs_summarize(const gs_obs *o, gs_obs_summary *out) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!o) return GS_OK;
    gs_obs_span *a = NULL;
    size_t n = 0;
    uint64_t now = 0;
    GS_TRY(gs_obs_snapshot(o, &a, &n, &now));
    out->total_ns = now;

    size_t cap = n + 1;
    by_start *top = malloc(cap * sizeof *top);
    by_table *tab = malloc(cap * sizeof *tab);
    out->phases = malloc(cap * sizeof *out->phases);
    out->by_phase = malloc(cap * sizeof *out->by_phase);
    out->tables = malloc(cap * sizeof *out->tables);
    out->table_totals = malloc(cap * sizeof *out->table_totals);
    if (!top || !tab || !out->phases || !out->by_phase || !out->tables || !out->table_totals) {
        free(top);
        free(tab);
        free(a);
        gs_obs_summary_free(out);
        return GS_ERR_NOMEM;
    }

    /* Phase rows. Each instant is charged to the earliest-begun top-level
     * span covering it. With the spans in start order, the earlier ones
     * cover [start_i, F) of span i, F being the furthest end so far, so span
     * i owns [max(start_i, F), end_i). The rest of [0, now) is "other". */
    size_t nt = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].table < 0 && a[i].parent < 0) top[nt++] = (by_start){a[i].start_ns, i};
    qsort(top, nt, sizeof *top, cmp_by_start);
    uint64_t frontier = 0, charged = 0;
    for (size_t k = 0; k < nt; k++) {
        const gs_obs_span *s = &a[top[k].id];
        uint64_t b = s->start_ns > frontier ? s->start_ns : frontier, e = span_end(s, now);
        uint64_t own = e > b ? e - b : 0;
        if (e > frontier) frontier = e;
        row_add(row_for(out->phases, &out->n_phases, s->phase, -1), s, own);
        charged += own;
    }
    gs_obs_row *other = &out->phases[out->n_phases++];
    memset(other, 0, sizeof *other);
    other->phase = "other";
    other->table = -1;
    other->ns = now - charged; /* charged <= now: the owned pieces are disjoint in [0, now) */

    /* Table spans: summed per phase over all tables, then per (table, phase). */
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].table < 0) continue;
        gs_obs_row *r = row_for(out->by_phase, &out->n_by_phase, a[i].phase, -1);
        row_add(r, &a[i], span_ns(&a[i], now));
        tab[nb++] = (by_table){a[i].table, (uint32_t)(r - out->by_phase), i};
    }
    qsort(tab, nb, sizeof *tab, cmp_by_table);
    for (size_t k = 0; k < nb; k++) {
        const gs_obs_span *s = &a[tab[k].id];
        int32_t t = tab[k].table;
        uint64_t d = span_ns(s, now);
        if (k == 0 || tab[k - 1].table != t || tab[k - 1].rank != tab[k].rank) {
            gs_obs_row *r = &out->tables[out->n_tables++];
            memset(r, 0, sizeof *r);
            r->phase = s->phase;
            r->table = t;
        }
        row_add(&out->tables[out->n_tables - 1], s, d);
        if (k == 0 || tab[k - 1].table != t) {
            gs_obs_row *r = &out->table_totals[out->n_table_totals++];
            memset(r, 0, sizeof *r);
            r->phase = "total";
            r->table = t;
        }
        gs_obs_row *tt = &out->table_totals[out->n_table_totals - 1];
        /* The table's outermost spans: no parent, or a parent of another table. */
        int outer = s->parent < 0 || (size_t)s->parent >= n || a[s->parent].table != t;
        if (outer) {
            tt->spans++;
            tt->ns += d;
            tt->bytes += s->bytes;
        }
        if (s->rows > tt->rows) tt->rows = s->rows;
        if (s->cols > tt->cols) tt->cols = s->cols;
    }
    free(top);
    free(tab);
    free(a);
    return GS_OK;
}

/* Milliseconds for the rows, rounded (largest remainders) so that they add
 * up to round(total / 1 ms). The rows' ns add up to total_ns. */
static uint64_t round_ms(const gs_obs_row *rows, size_t n, uint64_t total_ns, uint64_t *ms) {
    uint64_t total_ms = (total_ns + NS_PER_MS / 2) / NS_PER_MS, sum = 0;
    for (size_t i = 0; i < n; i++) sum += ms[i] = rows[i].ns / NS_PER_MS;
    for (uint64_t deficit = total_ms > sum ? total_ms - sum : 0; deficit > 0; deficit--) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            if (ms[i] * NS_PER_MS > rows[i].ns) continue; /* already rounded up */
            uint64_t rem = rows[i].ns - ms[i] * NS_PER_MS;
            if (best == n || rem > rows[best].ns - ms[best] * NS_PER_MS) best = i;
        }
        if (best == n) break;
        ms[best]++;
    }
    return total_ms;
}

static int name_width(const gs_obs_row *rows, size_t n, int least) {
    int w = least;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(rows[i].phase);
        if (l > (size_t)w) w = l > 200 ? 200 : (int)l;
    }
    return w;
}

static double secs(uint64_t ns) { return (double)ns / 1e9; }

/* How far inputs + charged peak went over the budget (0: within it). */
static uint64_t budget_excess(const gs_obs_budget *b) {
    uint64_t held = b->inputs + b->peak < b->inputs ? UINT64_MAX : b->inputs + b->peak;
    return b->budget != UINT64_MAX && held > b->budget ? held - b->budget : 0;
}

/* The budget line (if a budget was noted), its overrun line, the warnings. */
static void report_budget(const gs_obs *o, FILE *f) {
    gs_obs_budget b;
    if (gs_obs_budget_get(o, &b)) {
        char bud[GS_SIZE_BUF], in[GS_SIZE_BUF], peak[GS_SIZE_BUF], need[GS_SIZE_BUF];
        char over[GS_SIZE_BUF];
        fprintf(f, "  memory: budget %s, inputs %s + charged peak %s, largest table alone %s\n",
                gs_size_format(bud, b.budget), gs_size_format(in, b.inputs),
                gs_size_format(peak, b.peak), gs_size_format(need, b.need));
        if (b.lean)
            fprintf(f, "  memory: %" PRIu32 " table%s proven lean for the budget (main trace "
                       "coefficients made again for the out-of-domain values)\n",
                    b.lean, b.lean == 1 ? "" : "s");
        uint64_t excess = budget_excess(&b);
        if (b.overruns || excess)
            fprintf(f, "  memory: budget overruns %" PRIu32 " (tables that need more than the "
                       "budget alone, run alone), %s over the budget\n",
                    b.overruns, gs_size_format(over, excess));
    }
    for (size_t i = 0, n = gs_obs_warning_count(o); i < n; i++) {
        const char *w = gs_obs_warning(o, i);
        if (w) fprintf(f, "  warning: %s\n", w);
    }
}

gs_status gs_obs_report(const gs_obs *o, FILE *f) {
    if (!f) return GS_ERR_INVALID_ARG;
    if (!o) return GS_OK;
    gs_obs_summary s;
    GS_TRY(gs_obs_summarize(o, &s));
    uint64_t *ms = malloc(s.n_phases * sizeof *ms);
    uint64_t *cell = malloc((s.n_by_phase ? s.n_by_phase : 1) * sizeof *cell);
    if (!ms || !cell) {
        free(ms);
        free(cell);
        gs_obs_summary_free(&s);
        return GS_ERR_NOMEM;
    }
    char bb[GS_SIZE_BUF];
    uint64_t total_ms = round_ms(s.phases, s.n_phases, s.total_ns, ms);
    int w = name_width(s.phases, s.n_phases, 12);
    fprintf(f, "timing report: wall %" PRIu64 ".%03" PRIu64 " s\n", total_ms / 1000,
            total_ms % 1000);
    fprintf(f, "  %-*s %10s %6s %6s %10s\n", w, "phase", "seconds", "%", "spans", "bytes");
    for (size_t i = 0; i < s.n_phases; i++) {
        const gs_obs_row *r = &s.phases[i];
        double pct = s.total_ns ? 100.0 * (double)r->ns / (double)s.total_ns : 0.0;
        gs_size_format(bb, r->bytes);
        if (r->spans)
            fprintf(f, "  %-*s %6" PRIu64 ".%03" PRIu64 " %6.1f %6u %10s\n", w, r->phase,
                    ms[i] / 1000, ms[i] % 1000, pct, r->spans, bb);
        else
            fprintf(f, "  %-*s %6" PRIu64 ".%03" PRIu64 " %6.1f %6s %10s\n", w, r->phase,
                    ms[i] / 1000, ms[i] % 1000, pct, "-", "-");
    }
    fprintf(f, "  %-*s %6" PRIu64 ".%03" PRIu64 " %6.1f\n", w, "total", total_ms / 1000,
            total_ms % 1000, 100.0);
    if (gs_obs_fallbacks(o))
        fprintf(f, "  cpu fallbacks: %u table(s) proven on the CPU after a device failure\n",
                gs_obs_fallbacks(o));
    report_budget(o, f);

    if (s.n_by_phase) {
        w = name_width(s.by_phase, s.n_by_phase, 12);
        fprintf(f, "table phases (summed over concurrent tables: may exceed wall time)\n");
        fprintf(f, "  %-*s %10s %6s %10s\n", w, "phase", "seconds", "spans", "bytes");
        for (size_t i = 0; i < s.n_by_phase; i++) {
            const gs_obs_row *r = &s.by_phase[i];
            gs_size_format(bb, r->bytes);
            fprintf(f, "  %-*s %10.3f %6u %10s\n", w, r->phase, secs(r->ns), r->spans, bb);
        }
        fprintf(f, "per table (seconds summed over concurrent tables: may exceed wall time)\n");
        fprintf(f, "  %6s %10s %6s", "table", "rows", "cols");
        for (size_t p = 0; p < s.n_by_phase; p++) {
            size_t l = strlen(s.by_phase[p].phase);
            fprintf(f, " %*s", l > 10 ? (int)(l > 200 ? 200 : l) : 10, s.by_phase[p].phase);
        }
        fprintf(f, " %10s\n", "total");
        size_t k = 0;
        for (size_t t = 0; t < s.n_table_totals; t++) {
            const gs_obs_row *tt = &s.table_totals[t];
            for (size_t p = 0; p < s.n_by_phase; p++) cell[p] = UINT64_MAX;
            for (; k < s.n_tables && s.tables[k].table == tt->table; k++)
                for (size_t p = 0; p < s.n_by_phase; p++)
                    if (s.by_phase[p].phase == s.tables[k].phase) cell[p] = s.tables[k].ns;
            fprintf(f, "  %6" PRId32 " %10" PRIu64 " %6u", tt->table, tt->rows, tt->cols);
            for (size_t p = 0; p < s.n_by_phase; p++) {
                size_t l = strlen(s.by_phase[p].phase);
                int cw = l > 10 ? (int)(l > 200 ? 200 : l) : 10;
                if (cell[p] == UINT64_MAX)
                    fprintf(f, " %*s", cw, "-");
                else
                    fprintf(f, " %*.3f", cw, secs(cell[p]));
            }
            fprintf(f, " %10.3f\n", secs(tt->ns));
        }
    }
    free(ms);
    free(cell);
    gs_obs_summary_free(&s);
    return ferror(f) ? GS_ERR_IO : GS_OK;
}

void gs_obs_put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void put_secs(FILE *f, uint64_t ns) {
    fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000), ns % UINT64_C(1000000000));
}

static void put_counter(FILE *f, const char *name, uint64_t v) {
    fprintf(f, "{\"counter\":\"%s\",\"value\":%" PRIu64 "}\n", name, v);
}

gs_status gs_obs_write_metrics(const gs_obs *o, FILE *f) {
    if (!f) return GS_ERR_INVALID_ARG;
    if (!o) return GS_OK;
    gs_obs_span *a = NULL;
    size_t n = 0;
    GS_TRY(gs_obs_snapshot(o, &a, &n, NULL));
    for (size_t i = 0; i < n; i++) {
        const gs_obs_span *s = &a[i];
        if (!s->done) continue;
        fprintf(f, "{\"span\":%zu,\"parent\":%" PRId64 ",\"table\":%" PRId32 ",\"phase\":", i,
                s->parent, s->table);
        gs_obs_put_json_string(f, s->phase);
        fprintf(f,
                ",\"rows\":%" PRIu64 ",\"cols\":%" PRIu32 ",\"bytes\":%" PRIu64
                ",\"worker\":%" PRId32 ",\"device\":%" PRId32 ",\"start\":",
                s->rows, s->cols, s->bytes, s->worker, s->device);
        put_secs(f, s->start_ns);
        fputs(",\"seconds\":", f);
        put_secs(f, s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0);
        fputs("}\n", f);
    }
    free(a);
    if (gs_obs_fallbacks(o)) fprintf(f, "{\"counter\":\"cpu_fallbacks\",\"value\":%u}\n", gs_obs_fallbacks(o));
    gs_obs_budget b;
    if (gs_obs_budget_get(o, &b)) {
        if (b.budget != UINT64_MAX) put_counter(f, "mem_budget", b.budget);
        put_counter(f, "mem_input_bytes", b.inputs);
        put_counter(f, "mem_need_bytes", b.need);
        put_counter(f, "mem_peak_bytes", b.peak);
        put_counter(f, "budget_lean_tables", b.lean);
        put_counter(f, "budget_overruns", b.overruns);
        put_counter(f, "budget_over_bytes", budget_excess(&b));
    }
    for (size_t i = 0, nw = gs_obs_warning_count(o); i < nw; i++) {
        const char *w = gs_obs_warning(o, i);
        if (!w) continue;
        fputs("{\"warning\":", f);
        gs_obs_put_json_string(f, w);
        fputs("}\n", f);
    }
    return ferror(f) ? GS_ERR_IO : GS_OK;
}
