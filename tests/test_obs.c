/* Observability (include/gstark/obs.h): span nesting across threads, lanes,
 * the report's exact sums (against a brute-force attribution), the metrics
 * lines, the timeline (Chrome trace: exact times, tracks, order, escaping),
 * progress silence, warnings and the budget note, NULL no-ops, and
 * concurrent use (run under TSan). */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "gstark/obs.h"
#include "test_util.h"

#define MS 1000000ull

/* ---- a settable clock ---- */

static _Atomic uint64_t fake_ns;
static uint64_t fake_clock(void *ctx) {
    (void)ctx;
    return atomic_load(&fake_ns);
}
static void at(uint64_t ns) { atomic_store(&fake_ns, ns); }

/* ---- helpers ---- */

static size_t file_size(FILE *f) {
    fflush(f);
    long n = ftell(f);
    return n < 0 ? 0 : (size_t)n;
}

/* The whole of f (rewound), NUL-terminated; free() it. */
static char *slurp(FILE *f) {
    size_t n = file_size(f);
    char *b = malloc(n + 1);
    rewind(f);
    size_t got = fread(b, 1, n, f);
    b[got] = 0;
    return b;
}

/* A span begun on a thread of its own, which then exits with it open. */
typedef struct {
    gs_obs *o;
    const char *phase;
    int32_t table;
    int64_t under, id;
} solo_arg;

static void *solo_main(void *p) {
    solo_arg *a = p;
    a->id = gs_obs_begin_under(a->o, a->under, a->phase, a->table, 0, 0);
    return NULL;
}

static int64_t begin_on_new_thread(gs_obs *o, const char *phase, int32_t table) {
    solo_arg a = {o, phase, table, -1, -1};
    pthread_t th;
    if (pthread_create(&th, NULL, solo_main, &a) != 0) return -1;
    pthread_join(th, NULL);
    return a.id;
}

static gs_obs_span get(const gs_obs *o, int64_t id) {
    gs_obs_span s;
    memset(&s, 0, sizeof s);
    CHECK(gs_obs_span_get(o, id, &s) == GS_OK);
    return s;
}

/* ---- NULL is a no-op ---- */

static void test_null(void) {
    FILE *f = tmpfile();
    CHECK(gs_obs_begin(NULL, "x", 0, 1, 1) == -1);
    CHECK(gs_obs_begin_under(NULL, 3, "x", -1, 1, 1) == -1);
    gs_obs_end(NULL, 0, 5);
    gs_obs_end(NULL, -1, 5);
    gs_obs_set_device(NULL, 0, 1);
    CHECK(gs_obs_span_count(NULL) == 0);
    CHECK(gs_obs_elapsed_ns(NULL) == 0);
    gs_obs_span sp;
    CHECK(gs_obs_span_get(NULL, 0, &sp) == GS_ERR_INVALID_ARG);
    CHECK(gs_obs_report(NULL, f) == GS_OK);
    CHECK(gs_obs_write_metrics(NULL, f) == GS_OK);
    gs_obs_progress_init(NULL, 10, 1);
    gs_obs_progress_init_file(NULL, 10, f, 1);
    gs_obs_progress_note(NULL, 1, 1);
    gs_obs_progress_add(NULL, 1, 1);
    gs_obs_progress_done(NULL);
    gs_obs_summary s;
    CHECK(gs_obs_summarize(NULL, &s) == GS_OK);
    CHECK(s.n_phases == 0 && s.n_tables == 0 && s.total_ns == 0);
    gs_obs_summary_free(&s);
    gs_obs_summary_free(NULL);
    gs_obs_free(NULL);
    CHECK(file_size(f) == 0);
    fclose(f);

    /* Bad ids on a real recorder are ignored too. */
    gs_obs *o;
    CHECK(gs_obs_new(&o) == GS_OK);
    CHECK(gs_obs_begin(o, NULL, 0, 0, 0) == -1);
    gs_obs_end(o, -1, 0);
    gs_obs_end(o, 7, 0);
    int64_t a = gs_obs_begin(o, "a", -1, 0, 0);
    CHECK(a == 0);
    gs_obs_end(o, a, 9);
    gs_obs_end(o, a, 11); /* twice: the first end stands */
    CHECK(get(o, a).bytes == 9);
    CHECK(gs_obs_span_get(o, 1, &sp) == GS_ERR_INVALID_ARG);
    CHECK(gs_obs_new(NULL) == GS_ERR_INVALID_ARG);
    gs_obs_free(o);
}

/* ---- nesting across worker threads ---- */

#define NEST_THREADS 4
#define NEST_ITERS 3
#define NEST_MAX 64

typedef struct {
    gs_obs *o;
    pthread_barrier_t *bar;
    int32_t table;
    int64_t main_span;
    int64_t ids[NEST_MAX], want_parent[NEST_MAX];
    int n;
    int64_t under_id, under_child;
} nest_arg;

static int64_t nbegin(nest_arg *a, const char *phase, int64_t parent) {
    int64_t id = gs_obs_begin(a->o, phase, a->table, 64, 3);
    if (a->n < NEST_MAX) {
        a->ids[a->n] = id;
        a->want_parent[a->n] = parent;
        a->n++;
    }
    return id;
}

static void *nest_main(void *p) {
    nest_arg *a = p;
    /* A span hung under the main thread's span, with a local child. */
    a->under_id = gs_obs_begin_under(a->o, a->main_span, "chain", a->table, 0, 0);
    a->under_child = gs_obs_begin(a->o, "inside chain", a->table, 0, 0);
    gs_obs_end(a->o, a->under_child, 0);
    gs_obs_end(a->o, a->under_id, 0);
    for (int it = 0; it < NEST_ITERS; it++) {
        int64_t outer = nbegin(a, "outer", -1);
        if (it == 0 && a->bar) pthread_barrier_wait(a->bar); /* all threads hold a span open */
        int64_t mid = nbegin(a, "mid", outer);
        int64_t in1 = nbegin(a, "inner", mid);
        gs_obs_end(a->o, in1, 1);
        int64_t in2 = nbegin(a, "inner", mid);
        int64_t deep = nbegin(a, "deep", in2);
        gs_obs_end(a->o, deep, 2);
        gs_obs_end(a->o, in2, 3);
        gs_obs_end(a->o, mid, 4);
        if (it == 0 && a->bar) pthread_barrier_wait(a->bar);
        gs_obs_end(a->o, outer, 5);
    }
    return NULL;
}

/* Spans on one lane are nested (one an ancestor of the other) or disjoint. */
static int lane_ok(const gs_obs_span *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (a[i].worker != a[j].worker) continue;
            uint64_t ie = a[i].end_ns, je = a[j].end_ns;
            int disjoint = ie <= a[j].start_ns || je <= a[i].start_ns;
            int anc = 0;
            for (int64_t p = a[j].parent; p >= 0; p = a[p].parent)
                if ((size_t)p == i) anc = 1;
            if (!disjoint && !anc) return 0;
        }
    return 1;
}

static void test_nesting(void) {
    gs_obs *o;
    CHECK(gs_obs_new(&o) == GS_OK);
    int64_t prove = gs_obs_begin(o, "prove", -1, 0, 0);
    CHECK(prove == 0);
    CHECK(get(o, prove).worker == 0); /* the first thread to record */

    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, NEST_THREADS);
    nest_arg args[NEST_THREADS];
    pthread_t th[NEST_THREADS];
    for (int t = 0; t < NEST_THREADS; t++) {
        memset(&args[t], 0, sizeof args[t]);
        args[t].o = o;
        args[t].bar = &bar;
        args[t].table = t;
        args[t].main_span = prove;
        CHECK(pthread_create(&th[t], NULL, nest_main, &args[t]) == 0);
    }
    /* Meanwhile the main thread nests its own span under "prove". */
    int64_t sub = gs_obs_begin(o, "main sub", -1, 0, 0);
    gs_obs_end(o, sub, 0);
    for (int t = 0; t < NEST_THREADS; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    gs_obs_end(o, prove, 0);

    CHECK(get(o, sub).parent == prove);
    CHECK(get(o, sub).worker == 0);
    int32_t workers[NEST_THREADS];
    for (int t = 0; t < NEST_THREADS; t++) {
        nest_arg *a = &args[t];
        CHECK(a->n == 5 * NEST_ITERS);
        gs_obs_span first = get(o, a->ids[0]);
        workers[t] = first.worker;
        CHECK(first.worker != 0);
        for (int k = 0; k < a->n; k++) {
            gs_obs_span s = get(o, a->ids[k]);
            CHECK(s.done);
            CHECK(s.table == t && s.rows == 64 && s.cols == 3 && s.device == -1);
            CHECK(s.parent == a->want_parent[k]); /* top-level spans: not under another thread's */
            CHECK(s.worker == first.worker);
            CHECK(s.start_ns <= s.end_ns);
            if (s.parent >= 0) {
                gs_obs_span p = get(o, s.parent);
                CHECK(p.worker == s.worker);
                CHECK(p.start_ns <= s.start_ns && s.end_ns <= p.end_ns);
            }
        }
        /* Explicit cross-thread parent; local nesting inside it. */
        gs_obs_span u = get(o, a->under_id), uc = get(o, a->under_child);
        CHECK(u.parent == prove);
        CHECK(u.worker == first.worker && u.worker != 0);
        CHECK(uc.parent == a->under_id && uc.worker == u.worker);
    }
    /* All four threads held spans open at once: four distinct lanes. */
    for (int t = 0; t < NEST_THREADS; t++)
        for (int u = t + 1; u < NEST_THREADS; u++) CHECK(workers[t] != workers[u]);

    /* More rounds of fresh threads reuse the lanes of the exited ones. */
    for (int round = 0; round < 3; round++) {
        for (int t = 0; t < NEST_THREADS; t++) {
            memset(&args[t], 0, sizeof args[t]);
            args[t].o = o;
            args[t].table = 10 + t;
            args[t].main_span = -1;
            CHECK(pthread_create(&th[t], NULL, nest_main, &args[t]) == 0);
        }
        for (int t = 0; t < NEST_THREADS; t++) pthread_join(th[t], NULL);
    }
    gs_obs_span *all;
    size_t n;
    uint64_t now;
    CHECK(gs_obs_snapshot(o, &all, &n, &now) == GS_OK);
    CHECK(n == (size_t)gs_obs_span_count(o));
    int32_t maxw = 0;
    for (size_t i = 0; i < n; i++) {
        if (all[i].worker > maxw) maxw = all[i].worker;
        CHECK(all[i].done && all[i].end_ns <= now);
        if (i) CHECK(all[i - 1].start_ns <= all[i].start_ns); /* ids in start order */
    }
    CHECK(maxw <= NEST_THREADS);
    CHECK(lane_ok(all, n));
    free(all);
    gs_obs_free(o);
}

/* ---- the report: a fixed scenario ---- */

/* Fills the recorder along a fake timeline (ms):
 *   check [2,9) with a nested sub [5,7); commits A [10,50) from a thread;
 *   chains B [30,80) from another; table 0: quotient [60,70) holding fold
 *   [65,68), fri [70,78); table 1: quotient [66,75) from a third thread (it
 *   takes A's lane: A's thread exited and A is closed); commits [85,90);
 *   queries from 95, still open at 100. */
typedef struct {
    int64_t check, sub, A, B, q0, fold, q1, fri, commits2, queries;
} scenario;

static gs_obs *build_scenario(scenario *sc) {
    gs_obs *o;
    at(1000 * MS);
    CHECK(gs_obs_new_with_clock(&o, fake_clock, NULL) == GS_OK);
    at(1002 * MS);
    sc->check = gs_obs_begin(o, "check", -1, 0, 0);
    at(1005 * MS);
    sc->sub = gs_obs_begin(o, "sub", -1, 0, 0);
    at(1007 * MS);
    gs_obs_end(o, sc->sub, 0);
    at(1009 * MS);
    gs_obs_end(o, sc->check, 0);
    at(1010 * MS);
    sc->A = begin_on_new_thread(o, "commits", -1);
    at(1030 * MS);
    sc->B = begin_on_new_thread(o, "chains", -1);
    at(1050 * MS);
    gs_obs_end(o, sc->A, 1000);
    at(1060 * MS);
    sc->q0 = gs_obs_begin(o, "quotient", 0, 1024, 8);
    at(1065 * MS);
    sc->fold = gs_obs_begin(o, "fold", 0, 1024, 8);
    at(1066 * MS);
    sc->q1 = begin_on_new_thread(o, "quotient", 1);
    at(1068 * MS);
    gs_obs_end(o, sc->fold, 0);
    at(1070 * MS);
    gs_obs_end(o, sc->q0, 4096);
    sc->fri = gs_obs_begin(o, "fri", 0, 1024, 8);
    gs_obs_set_device(o, sc->fri, 1);
    at(1075 * MS);
    gs_obs_end(o, sc->q1, 0);
    at(1078 * MS);
    gs_obs_end(o, sc->fri, 0);
    at(1080 * MS);
    gs_obs_end(o, sc->B, 0);
    at(1085 * MS);
    sc->commits2 = gs_obs_begin(o, "commits", -1, 0, 0);
    at(1090 * MS);
    gs_obs_end(o, sc->commits2, 24);
    at(1095 * MS);
    sc->queries = gs_obs_begin(o, "queries", -1, 0, 0);
    at(1100 * MS);
    return o;
}

static const gs_obs_row *find_row(const gs_obs_row *r, size_t n, int32_t table, const char *phase) {
    for (size_t i = 0; i < n; i++)
        if (r[i].table == table && strcmp(r[i].phase, phase) == 0) return &r[i];
    return NULL;
}

/* Parses the phase block of a printed report: the rows' milliseconds summed,
 * the printed total, the number of rows. Returns 0 on a format error. */
static int parse_report(const char *text, uint64_t *sum_ms, uint64_t *total_ms, uint64_t *wall_ms,
                        int *rows) {
    unsigned long long ws, wf;
    if (sscanf(text, "timing report: wall %llu.%3llu s", &ws, &wf) != 2) return 0;
    *wall_ms = ws * 1000 + wf;
    const char *line = strchr(text, '\n');
    if (!line) return 0;
    line = strchr(line + 1, '\n'); /* skip the column heads */
    *sum_ms = 0;
    *rows = 0;
    while (line && line[1]) {
        line++;
        char name[256];
        unsigned long long s, frac;
        /* Names in these tests have no spaces except where noted; read the
         * seconds as the first token of the form N.NNN after the name. */
        const char *p = line;
        while (*p == ' ') p++;
        const char *q = p;
        while (*q && *q != '\n' && !(q[0] == ' ' && q[1] == ' ')) q++;
        size_t len = (size_t)(q - p);
        if (len >= sizeof name) return 0;
        memcpy(name, p, len);
        name[len] = 0;
        if (sscanf(q, " %llu.%3llu", &s, &frac) != 2) return 0;
        if (strcmp(name, "total") == 0) {
            *total_ms = s * 1000 + frac;
            return 1;
        }
        *sum_ms += s * 1000 + frac;
        (*rows)++;
        line = strchr(line, '\n');
    }
    return 0;
}

static void test_report_fixed(void) {
    scenario sc;
    gs_obs *o = build_scenario(&sc);
    CHECK(get(o, sc.check).worker == 0);
    CHECK(get(o, sc.sub).parent == sc.check);
    CHECK(get(o, sc.A).parent == -1 && get(o, sc.B).parent == -1);
    CHECK(get(o, sc.A).worker == 1 && get(o, sc.B).worker == 2);
    CHECK(get(o, sc.q1).worker == get(o, sc.A).worker); /* lane of an exited thread, reused */
    CHECK(get(o, sc.q0).parent == -1 && get(o, sc.fold).parent == sc.q0);
    CHECK(get(o, sc.fri).device == 1);
    CHECK(!get(o, sc.queries).done);

    gs_obs_summary s;
    CHECK(gs_obs_summarize(o, &s) == GS_OK);
    CHECK_EQ_U64(s.total_ns, 100 * MS);
    static const char *names[] = {"check", "commits", "chains", "queries", "other"};
    static const uint64_t want[] = {7, 45, 30, 5, 13};
    static const uint32_t spans[] = {1, 2, 1, 1, 0};
    CHECK(s.n_phases == 5);
    uint64_t sum = 0;
    for (size_t i = 0; i < s.n_phases && i < 5; i++) {
        CHECK(strcmp(s.phases[i].phase, names[i]) == 0);
        CHECK_EQ_U64(s.phases[i].ns, want[i] * MS);
        CHECK(s.phases[i].spans == spans[i]);
        CHECK(s.phases[i].table == -1);
        sum += s.phases[i].ns;
    }
    CHECK_EQ_U64(sum, s.total_ns);
    if (s.n_phases > 1) CHECK_EQ_U64(s.phases[1].bytes, 1024);

    CHECK(s.n_by_phase == 3);
    const gs_obs_row *r = find_row(s.by_phase, s.n_by_phase, -1, "quotient");
    CHECK(r && r->ns == 19 * MS && r->spans == 2 && r->rows == 1024 && r->cols == 8);
    r = find_row(s.by_phase, s.n_by_phase, -1, "fold");
    CHECK(r && r->ns == 3 * MS);
    r = find_row(s.by_phase, s.n_by_phase, -1, "fri");
    CHECK(r && r->ns == 8 * MS);
    CHECK(s.n_tables == 4);
    if (s.n_tables == 4) {
        CHECK(s.tables[0].table == 0 && strcmp(s.tables[0].phase, "quotient") == 0 &&
              s.tables[0].ns == 10 * MS && s.tables[0].bytes == 4096);
        CHECK(s.tables[1].table == 0 && strcmp(s.tables[1].phase, "fold") == 0);
        CHECK(s.tables[2].table == 0 && strcmp(s.tables[2].phase, "fri") == 0);
        CHECK(s.tables[3].table == 1 && s.tables[3].ns == 9 * MS);
    }
    CHECK(s.n_table_totals == 2);
    if (s.n_table_totals == 2) {
        CHECK(s.table_totals[0].table == 0 && s.table_totals[0].ns == 18 * MS &&
              s.table_totals[0].spans == 2);
        CHECK(s.table_totals[1].table == 1 && s.table_totals[1].ns == 9 * MS);
    }
    gs_obs_summary_free(&s);
    CHECK(s.phases == NULL && s.n_phases == 0);

    FILE *f = tmpfile();
    CHECK(gs_obs_report(o, f) == GS_OK);
    char *text = slurp(f);
    fclose(f);
    uint64_t sum_ms = 0, total_ms = 1, wall_ms = 2;
    int rows = 0;
    CHECK(parse_report(text, &sum_ms, &total_ms, &wall_ms, &rows));
    CHECK(rows == 5);
    CHECK_EQ_U64(sum_ms, 100);
    CHECK_EQ_U64(total_ms, 100);
    CHECK_EQ_U64(wall_ms, 100);
    CHECK(strstr(text, "summed over concurrent tables: may exceed wall time") != NULL);
    CHECK(strstr(text, "  commits ") != NULL);
    CHECK(strstr(text, "0.045") != NULL);
    if (gs_test_failures) fputs(text, stderr);
    free(text);
    gs_obs_free(o);
}

/* ---- the report: random overlapping top-level spans vs brute force ---- */

#define RAND_UNIT 777777ull /* not a whole millisecond: exercises the rounding */

static void test_report_random(void) {
    static const char *names[] = {"alpha", "beta", "gamma"};
    for (int trial = 0; trial < 60; trial++) {
        enum { K = 6, T = 120 };
        int k = 1 + (int)gs_test_below(K);
        uint64_t b[K], e[K];
        int ph[K];
        int64_t id[K];
        for (int i = 0; i < k; i++) {
            b[i] = gs_test_below(T);
            e[i] = b[i] + gs_test_below(T - b[i] + 1);
            ph[i] = (int)gs_test_below(3);
            id[i] = -1;
        }
        int open_last = (int)gs_test_below(2); /* leave one span open */
        at(0);
        gs_obs *o;
        CHECK(gs_obs_new_with_clock(&o, fake_clock, NULL) == GS_OK);
        /* Events in time order; at equal times, begins (in index order) first. */
        for (uint64_t t = 0; t <= T; t++) {
            at(t * RAND_UNIT);
            for (int i = 0; i < k; i++)
                if (b[i] == t) id[i] = begin_on_new_thread(o, names[ph[i]], -1);
            for (int i = 0; i < k; i++)
                if (e[i] == t && !(open_last && i == k - 1)) gs_obs_end(o, id[i], 0);
        }
        uint64_t now_u = T + 1 + gs_test_below(20);
        at(now_u * RAND_UNIT);
        if (open_last) e[k - 1] = now_u;
        /* Brute force: each unit interval goes to the earliest-begun span covering it. */
        uint64_t want[3] = {0, 0, 0}, other = 0;
        for (uint64_t x = 0; x < now_u; x++) {
            int best = -1;
            for (int i = 0; i < k; i++)
                if (b[i] <= x && x + 1 <= e[i] && (best < 0 || id[i] < id[best])) best = i;
            if (best < 0)
                other++;
            else
                want[ph[best]]++;
        }
        gs_obs_summary s;
        CHECK(gs_obs_summarize(o, &s) == GS_OK);
        CHECK_EQ_U64(s.total_ns, now_u * RAND_UNIT);
        uint64_t sum = 0;
        for (size_t i = 0; i < s.n_phases; i++) sum += s.phases[i].ns;
        CHECK_EQ_U64(sum, s.total_ns);
        for (int p = 0; p < 3; p++) {
            const gs_obs_row *r = find_row(s.phases, s.n_phases, -1, names[p]);
            uint64_t got = r ? r->ns : 0;
            CHECK_EQ_U64(got, want[p] * RAND_UNIT);
        }
        CHECK_EQ_U64(s.phases[s.n_phases - 1].ns, other * RAND_UNIT);
        CHECK(strcmp(s.phases[s.n_phases - 1].phase, "other") == 0);
        gs_obs_summary_free(&s);

        FILE *f = tmpfile();
        CHECK(gs_obs_report(o, f) == GS_OK);
        char *text = slurp(f);
        fclose(f);
        uint64_t sum_ms = 0, total_ms = 1, wall_ms = 2;
        int rows = 0;
        CHECK(parse_report(text, &sum_ms, &total_ms, &wall_ms, &rows));
        CHECK_EQ_U64(sum_ms, total_ms); /* the printed rows add up to the printed total */
        CHECK_EQ_U64(total_ms, (now_u * RAND_UNIT + MS / 2) / MS);
        CHECK_EQ_U64(wall_ms, total_ms);
        free(text);
        gs_obs_free(o);
    }
}

/* ---- metrics lines ---- */

typedef struct {
    int n;
    char key[16][16];
    char val[16][64];
} jline;

/* A small checker for one line {"k":v,...}\n with integer, decimal or string
 * values. Returns 0 if malformed. */
static int parse_jline(const char *s, jline *out) {
    out->n = 0;
    if (*s++ != '{') return 0;
    for (;;) {
        if (out->n == 16 || *s++ != '"') return 0;
        size_t k = 0;
        while (*s && *s != '"') {
            if (k + 1 >= sizeof out->key[0]) return 0;
            out->key[out->n][k++] = *s++;
        }
        out->key[out->n][k] = 0;
        if (*s++ != '"' || *s++ != ':') return 0;
        size_t v = 0;
        char *val = out->val[out->n];
        if (*s == '"') {
            s++;
            while (*s != '"') {
                if (!*s || (unsigned char)*s < 0x20 || v + 2 >= sizeof out->val[0]) return 0;
                if (*s == '\\') {
                    s++;
                    if (*s != '"' && *s != '\\' && *s != 'u') return 0;
                    if (*s == 'u') {
                        for (int h = 1; h <= 4; h++)
                            if (!strchr("0123456789abcdef", s[h])) return 0;
                        s += 4;
                        val[v++] = '?';
                        s++;
                        continue;
                    }
                }
                val[v++] = *s++;
            }
            s++;
        } else {
            if (*s == '-') val[v++] = *s++;
            if (*s < '0' || *s > '9') return 0;
            while ((*s >= '0' && *s <= '9') || *s == '.') {
                if (v + 1 >= sizeof out->val[0]) return 0;
                val[v++] = *s++;
            }
            if (val[v - 1] == '.') return 0;
        }
        val[v] = 0;
        out->n++;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s++ != '}') return 0;
        return *s == '\n' && s[1] == 0;
    }
}

static void test_metrics(void) {
    static const char *keys[] = {"span",  "parent", "table",  "phase", "rows",   "cols",
                                 "bytes", "worker", "device", "start", "seconds"};
    scenario sc;
    gs_obs *o = build_scenario(&sc);
    FILE *f = tmpfile();
    CHECK(gs_obs_write_metrics(o, f) == GS_OK);
    char *text = slurp(f);
    fclose(f);
    int lines = 0;
    long last = -1;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        CHECK(nl != NULL);
        if (!nl) break;
        char save = nl[1];
        nl[1] = 0;
        jline j;
        int ok = parse_jline(line, &j);
        CHECK(ok);
        nl[1] = save;
        line = nl + 1;
        if (!ok) continue;
        lines++;
        CHECK(j.n == 11);
        for (int i = 0; i < j.n && i < 11; i++) CHECK(strcmp(j.key[i], keys[i]) == 0);
        long id = strtol(j.val[0], NULL, 10);
        CHECK(id > last); /* span-id order */
        last = id;
        gs_obs_span sp = get(o, id);
        CHECK(strcmp(j.val[3], sp.phase) == 0);
        CHECK(strtoll(j.val[1], NULL, 10) == sp.parent);
        CHECK(strtol(j.val[2], NULL, 10) == sp.table);
        CHECK(strtoull(j.val[6], NULL, 10) == sp.bytes);
        CHECK(strtol(j.val[7], NULL, 10) == sp.worker);
        if (id == sc.A) {
            CHECK(strcmp(j.val[9], "0.010000000") == 0);
            CHECK(strcmp(j.val[10], "0.040000000") == 0);
            CHECK(strcmp(j.val[6], "1000") == 0);
        }
        if (id == sc.fri) CHECK(strcmp(j.val[8], "1") == 0);
        if (id == sc.q0) CHECK(strcmp(j.val[4], "1024") == 0 && strcmp(j.val[5], "8") == 0);
    }
    CHECK(lines == (int)gs_obs_span_count(o) - 1); /* all but the open "queries" */
    free(text);
    gs_obs_free(o);

    /* Names are escaped. */
    CHECK(gs_obs_new(&o) == GS_OK);
    gs_obs_end(o, gs_obs_begin(o, "we\"ird\\\n", 2, 1, 1), 0);
    f = tmpfile();
    CHECK(gs_obs_write_metrics(o, f) == GS_OK);
    text = slurp(f);
    fclose(f);
    jline j;
    CHECK(parse_jline(text, &j));
    CHECK(strcmp(j.val[3], "we\"ird\\?") == 0);
    free(text);
    gs_obs_free(o);
}

/* ---- progress ---- */

static void drive_progress(gs_obs *o) {
    for (uint32_t i = 1; i <= 4; i++) {
        at(atomic_load(&fake_ns) + 150 * MS);
        gs_obs_progress_note(o, i, i - 1);
    }
    gs_obs_progress_add(o, 0, 1);
    gs_obs_progress_done(o);
}

static void test_progress(void) {
    gs_obs *o;
    at(0);
    CHECK(gs_obs_new_with_clock(&o, fake_clock, NULL) == GS_OK);

    /* Disabled, and "auto" on a file and on a pipe: nothing written. */
    FILE *f = tmpfile();
    gs_obs_progress_init_file(o, 4, f, 0);
    drive_progress(o);
    CHECK(file_size(f) == 0);
    gs_obs_progress_init_file(o, 4, f, -1);
    drive_progress(o);
    CHECK(file_size(f) == 0);
    fclose(f);
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "w");
    gs_obs_progress_init_file(o, 4, w, -1);
    drive_progress(o);
    fclose(w);
    char buf[64];
    CHECK(read(fds[0], buf, sizeof buf) == 0); /* EOF, no bytes */
    close(fds[0]);
    /* stderr in this test runs under ctest (not a terminal) or a console;
     * only exercise the call when it cannot draw. */
    if (!isatty(2)) {
        gs_obs_progress_init(o, 4, -1);
        drive_progress(o);
    }

    /* Enabled: redrawn in place, at most every 100 ms. */
    f = tmpfile();
    at(10000 * MS);
    gs_obs_progress_init_file(o, 4, f, 1); /* draws 0/4 at once */
    gs_obs_progress_note(o, 1, 0);         /* same instant: not drawn */
    at(10050 * MS);
    gs_obs_progress_note(o, 2, 0); /* 50 ms later: not drawn */
    at(10150 * MS);
    gs_obs_progress_note(o, 2, 1); /* drawn: 2 committed, 1 proven */
    gs_obs_progress_note(o, 1, 0); /* lower counts are ignored */
    at(10300 * MS);
    gs_obs_progress_add(o, 1, 1); /* drawn: 3, 2 */
    gs_obs_progress_done(o);
    gs_obs_progress_note(o, 4, 4); /* after done: silent */
    char *text = slurp(f);
    fclose(f);
    int cr = 0;
    for (char *p = text; *p; p++) cr += *p == '\r';
    CHECK(cr == 3 + 2); /* three draws, and the clearing */
    CHECK(strstr(text, "tables committed 0/4, proven 0/4") != NULL);
    CHECK(strstr(text, "committed 1/4") == NULL);
    CHECK(strstr(text, "committed 2/4, proven 1/4 | elapsed 10s | eta") != NULL);
    CHECK(strstr(text, "committed 3/4, proven 2/4") != NULL);
    CHECK(strchr(text, '\n') == NULL);
    size_t len = strlen(text);
    CHECK(len > 1 && text[len - 1] == '\r');
    free(text);
    gs_obs_free(o);
}

/* ---- warnings and the budget note ---- */

static void test_warnings(void) {
    gs_obs *o;
    at(0);
    CHECK(gs_obs_new_with_clock(&o, fake_clock, NULL) == GS_OK);
    /* NULL no-ops. */
    gs_obs_warn(NULL, "x %d", 1);
    gs_obs_set_warning_stream(NULL, NULL);
    gs_obs_note_budget(NULL, NULL);
    gs_obs_budget b;
    CHECK(gs_obs_warning_count(NULL) == 0 && gs_obs_warning(NULL, 0) == NULL);
    CHECK(gs_obs_budget_get(NULL, &b) == 0 && gs_obs_budget_get(o, &b) == 0);
    CHECK(gs_obs_warning(o, 0) == NULL);

    /* Written at once with the prefix, clearing a progress line on the same
     * stream (redrawn at the next note), and kept. */
    FILE *f = tmpfile();
    gs_obs_set_warning_stream(o, f);
    at(1000 * MS);
    gs_obs_progress_init_file(o, 2, f, 1);
    gs_obs_warn(o, "table %d needs %s", 3, "1 GiB");
    at(1001 * MS); /* sooner than the redraw period: redrawn because it was cleared */
    gs_obs_progress_note(o, 1, 0);
    gs_obs_progress_done(o);
    char *text = slurp(f);
    fclose(f);
    const char *w = strstr(text, "gstark: warning: table 3 needs 1 GiB\n");
    CHECK(w != NULL);
    CHECK(w && w > text && w[-1] == '\r');                      /* the line was cleared first */
    CHECK(w && strstr(w, "tables committed 1/2") != NULL);      /* and drawn again after */
    free(text);
    CHECK(gs_obs_warning_count(o) == 1);
    CHECK(gs_obs_warning(o, 0) && strcmp(gs_obs_warning(o, 0), "table 3 needs 1 GiB") == 0);
    CHECK(gs_obs_warning(o, 1) == NULL);

    /* A NULL stream: kept, written nowhere; long text is cut at 511 bytes. */
    gs_obs_set_warning_stream(o, NULL);
    char big[700];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    gs_obs_warn(o, "%s \"quoted\"", big);
    CHECK(gs_obs_warning_count(o) == 2);
    CHECK(gs_obs_warning(o, 1) && strlen(gs_obs_warning(o, 1)) == 511);

    /* The report and the metrics: budget lines, counters, warnings. */
    gs_obs_budget nb = {.budget = (uint64_t)1 << 30, .inputs = (uint64_t)100 << 20,
                        .need = (uint64_t)1200 << 20, .peak = (uint64_t)1000 << 20, .overruns = 1,
                        .lean = 1};
    gs_obs_note_budget(o, &nb);
    CHECK(gs_obs_budget_get(o, &b) == 1 && b.need == nb.need && b.overruns == 1);
    f = tmpfile();
    CHECK(gs_obs_report(o, f) == GS_OK);
    text = slurp(f);
    fclose(f);
    CHECK(strstr(text, "memory: budget 1 GiB, inputs 100 MiB + charged peak 1000 MiB, largest "
                       "table alone 1.17 GiB\n") != NULL);
    CHECK(strstr(text, "budget overruns 1 ") != NULL && strstr(text, ", 76 MiB over the budget\n"));
    CHECK(strstr(text, "  warning: table 3 needs 1 GiB\n") != NULL);
    CHECK(strstr(text, "memory: 1 table proven lean for the budget") != NULL);
    free(text);
    f = tmpfile();
    CHECK(gs_obs_write_metrics(o, f) == GS_OK);
    text = slurp(f);
    fclose(f);
    CHECK(strstr(text, "{\"counter\":\"mem_budget\",\"value\":1073741824}\n") != NULL);
    CHECK(strstr(text, "{\"counter\":\"mem_input_bytes\",\"value\":104857600}\n") != NULL);
    CHECK(strstr(text, "{\"counter\":\"mem_need_bytes\",\"value\":1258291200}\n") != NULL);
    CHECK(strstr(text, "{\"counter\":\"mem_peak_bytes\",\"value\":1048576000}\n") != NULL);
    CHECK(strstr(text, "{\"counter\":\"budget_overruns\",\"value\":1}\n") != NULL);
    CHECK(strstr(text, "{\"counter\":\"budget_lean_tables\",\"value\":1}\n") != NULL);
    CHECK(strstr(text, "{\"counter\":\"budget_over_bytes\",\"value\":79691776}\n") != NULL);
    CHECK(strstr(text, "{\"warning\":\"table 3 needs 1 GiB\"}\n") != NULL);
    CHECK(strstr(text, "aaaa \\\"quoted\\\"") == NULL); /* cut before the quotes */
    free(text);

    /* Unlimited: no mem_budget line, nothing over. */
    nb.budget = UINT64_MAX;
    nb.overruns = nb.lean = 0;
    gs_obs_note_budget(o, &nb);
    f = tmpfile();
    CHECK(gs_obs_write_metrics(o, f) == GS_OK);
    CHECK(gs_obs_report(o, f) == GS_OK);
    text = slurp(f);
    fclose(f);
    CHECK(strstr(text, "\"mem_budget\"") == NULL);
    CHECK(strstr(text, "{\"counter\":\"budget_over_bytes\",\"value\":0}\n") != NULL);
    CHECK(strstr(text, "memory: budget unlimited, ") != NULL && !strstr(text, "budget overruns"));
    CHECK(!strstr(text, "proven lean"));
    free(text);
    gs_obs_free(o);
}

/* ---- the timeline (Chrome trace) ---- */

/* The event of f's text whose "name" is name and whose fields include
 * `has` (a substring of the event's line), or NULL. Events are one a line. */
static const char *trace_event(const char *text, const char *name, const char *has) {
    char key[96];
    snprintf(key, sizeof key, "\"name\":\"%s\"", name);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[512];
        if (len < sizeof buf) {
            memcpy(buf, line, len);
            buf[len] = 0;
            if (strstr(buf, key) && (!has || strstr(buf, has))) return line;
        }
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

static void test_chrome_trace(void) {
    /* NULL: an empty trace */
    FILE *f = tmpfile();
    CHECK(gs_obs_write_chrome_trace(NULL, f) == GS_OK);
    char *text = slurp(f);
    fclose(f);
    CHECK(strcmp(text, "{\"traceEvents\":[\n],\"displayTimeUnit\":\"ms\"}\n") == 0);
    free(text);
    CHECK(gs_obs_write_chrome_trace(NULL, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_obs_add_device_ops(NULL, NULL, 3) == GS_OK);
    CHECK(gs_obs_device_op_count(NULL) == 0);

    at(1000);
    gs_obs *o;
    CHECK(gs_obs_new_with_clock(&o, fake_clock, NULL) == GS_OK);
    at(1000 + 1 * MS);
    int64_t top = gs_obs_begin(o, "main commits", -1, 0, 0);
    at(1000 + 1 * MS + 1);
    int64_t c0 = gs_obs_begin(o, "commit", 0, 1024, 2);
    at(1000 + 3 * MS + 500);
    gs_obs_end(o, c0, 77);
    /* a worker thread's span under top, still open when the trace is written */
    solo_arg a = {o, "commit\"q\"", 1, top, -1};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, solo_main, &a) == 0);
    pthread_join(th, NULL);
    at(1000 + 5 * MS);
    gs_obs_end(o, top, 0);

    gs_obs_device_op ops[3] = {
        {.op = "lde", .device = 0, .lane = 1, .table = 0, .start_ns = 2 * MS, .end_ns = 2 * MS + 250},
        {.op = "upload", .device = 0, .lane = 0, .table = 0, .start_ns = 1500 * 1000, .end_ns = 1600 * 1000},
        {.op = "fold", .device = 2, .lane = 0, .table = -1, .start_ns = 9, .end_ns = 3}, /* end < start */
    };
    gs_obs_device_op bad = {.op = NULL};
    CHECK(gs_obs_add_device_ops(o, &bad, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_obs_add_device_ops(o, ops, 3) == GS_OK);
    CHECK(gs_obs_device_op_count(o) == 3);
    gs_obs_device_op *got = NULL;
    size_t n = 0;
    CHECK(gs_obs_device_ops(o, &got, &n) == GS_OK && n == 3);
    if (got && n == 3) {
        CHECK(strcmp(got[0].op, "lde") == 0 && got[0].op != ops[0].op); /* copied */
        CHECK(got[1].start_ns == 1500 * 1000 && got[1].end_ns == 1600 * 1000 && got[1].lane == 0);
        CHECK(got[2].start_ns == 9 && got[2].end_ns == 9 && got[2].table == -1);
    }
    free(got);
    /* the device ops are not spans: the report and the metrics do not see them */
    CHECK(gs_obs_span_count(o) == 3);

    at(1000 + 6 * MS);
    f = tmpfile();
    CHECK(gs_obs_write_chrome_trace(o, f) == GS_OK);
    text = slurp(f);
    fclose(f);
    CHECK(strncmp(text, "{\"traceEvents\":[", 16) == 0);
    CHECK(strstr(text, "\n],\"displayTimeUnit\":\"ms\"}\n") != NULL);
    /* tracks named */
    CHECK(trace_event(text, "process_name", "\"pid\":1,\"tid\":0,") &&
          trace_event(text, "process_name", "{\"name\":\"gstark host\"}"));
    CHECK(trace_event(text, "thread_name", "{\"name\":\"host thread 0\"}"));
    CHECK(trace_event(text, "thread_name", "\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"host thread 1\"}"));
    CHECK(trace_event(text, "process_name", "\"pid\":2,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"gstark cuda:0\"}"));
    CHECK(trace_event(text, "process_name", "{\"name\":\"gstark cuda:2\"}"));
    CHECK(trace_event(text, "thread_name", "\"pid\":2,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"cuda:0 lane 1 (stream)\"}"));
    CHECK(trace_event(text, "thread_name", "\"pid\":4,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"cuda:2 lane 0 (stream)\"}"));
    /* spans: microseconds with nanosecond decimals, args */
    CHECK(trace_event(text, "main commits",
                      "\"cat\":\"host\",\"pid\":1,\"tid\":1,\"ts\":1000.000,\"dur\":4000.000,"
                      "\"args\":{\"span\":0,\"parent\":-1,\"table\":-1,"));
    CHECK(trace_event(text, "commit",
                      "\"ts\":1000.001,\"dur\":2000.499,\"args\":{\"span\":1,\"parent\":0,"
                      "\"table\":0,\"rows\":1024,\"cols\":2,\"bytes\":77,\"device\":-1}}"));
    /* the open span on the worker's lane: escaped, up to the moment of writing */
    CHECK(trace_event(text, "commit\\\"q\\\"",
                      "\"tid\":2,\"ts\":3000.500,\"dur\":2999.500,\"args\":{\"span\":2,\"parent\":0,"
                      "\"table\":1,"));
    CHECK(trace_event(text, "commit\\\"q\\\"", "\"open\":true}}"));
    /* device operations */
    CHECK(trace_event(text, "lde", "\"cat\":\"device\",\"pid\":2,\"tid\":2,\"ts\":2000.000,"
                                   "\"dur\":0.250,\"args\":{\"table\":0,\"lane\":1}}"));
    CHECK(trace_event(text, "upload", "\"pid\":2,\"tid\":1,\"ts\":1500.000,\"dur\":100.000,"));
    CHECK(trace_event(text, "fold", "\"pid\":4,\"tid\":1,\"ts\":0.009,\"dur\":0.000,"
                                    "\"args\":{\"table\":-1,\"lane\":0}}"));
    /* sorted by start, parents before children: fold, main commits, commit, upload, lde, open */
    const char *order[] = {"fold", "main commits", "commit", "upload", "lde", "commit\\\"q\\\""};
    const char *prev = text;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *e = trace_event(text, order[i], "\"ph\":\"X\"");
        CHECK(e && e > prev);
        if (e) prev = e;
    }
    /* metadata first, then the X events */
    CHECK(strstr(text, "{\"ph\":\"X\"") > strstr(text, "thread_name"));
    free(text);
    /* the metrics are unchanged by device operations: one line per finished span */
    f = tmpfile();
    CHECK(gs_obs_write_metrics(o, f) == GS_OK);
    text = slurp(f);
    fclose(f);
    CHECK(!strstr(text, "lde") && !strstr(text, "upload"));
    free(text);
    gs_obs_free(o);
}

/* ---- concurrent use (the point of running under TSan) ---- */

#define STRESS_THREADS 8
#define STRESS_ITERS 200

typedef struct {
    gs_obs *o;
    int32_t table;
} stress_arg;

static void *stress_main(void *p) {
    stress_arg *a = p;
    static const char *ph[] = {"commit", "quotient", "fri"};
    for (int i = 0; i < STRESS_ITERS; i++) {
        int64_t s = gs_obs_begin(a->o, ph[i % 3], a->table, (uint64_t)i, 2);
        int64_t c = gs_obs_begin(a->o, "inner", a->table, 0, 0);
        gs_obs_set_device(a->o, c, i & 1);
        gs_obs_end(a->o, c, 1);
        gs_obs_end(a->o, s, 2);
        if (i % 50 == 0) {
            gs_obs_progress_add(a->o, 1, 0);
            gs_obs_device_op d = {.op = ph[i % 3], .device = 0, .lane = a->table, .table = a->table,
                                  .start_ns = (uint64_t)i, .end_ns = (uint64_t)i + 1};
            (void)gs_obs_add_device_ops(a->o, &d, 1); /* counted after the join */
        }
        if (i % 50 == 49) gs_obs_progress_add(a->o, 0, 1);
    }
    return NULL;
}

static void test_stress(void) {
    gs_obs *o;
    CHECK(gs_obs_new(&o) == GS_OK);
    FILE *pf = tmpfile();
    gs_obs_progress_init_file(o, STRESS_THREADS * 4, pf, 1);
    int64_t top = gs_obs_begin(o, "table chains", -1, 0, 0);
    pthread_t th[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    for (int t = 0; t < STRESS_THREADS; t++) {
        args[t] = (stress_arg){o, t};
        CHECK(pthread_create(&th[t], NULL, stress_main, &args[t]) == 0);
    }
    FILE *sink = tmpfile();
    for (int r = 0; r < 20; r++) {
        CHECK(gs_obs_report(o, sink) == GS_OK);
        CHECK(gs_obs_write_metrics(o, sink) == GS_OK);
        CHECK(gs_obs_write_chrome_trace(o, sink) == GS_OK);
        gs_obs_summary s;
        CHECK(gs_obs_summarize(o, &s) == GS_OK);
        uint64_t sum = 0;
        for (size_t i = 0; i < s.n_phases; i++) sum += s.phases[i].ns;
        CHECK_EQ_U64(sum, s.total_ns);
        gs_obs_summary_free(&s);
    }
    for (int t = 0; t < STRESS_THREADS; t++) pthread_join(th[t], NULL);
    gs_obs_end(o, top, 0);
    gs_obs_progress_done(o);
    fclose(sink);
    fclose(pf);

    gs_obs_span *all;
    size_t n;
    CHECK(gs_obs_snapshot(o, &all, &n, NULL) == GS_OK);
    CHECK(n == 1 + 2 * STRESS_THREADS * STRESS_ITERS);
    CHECK(gs_obs_device_op_count(o) == STRESS_THREADS * (STRESS_ITERS / 50));
    for (size_t i = 0; i < n; i++) {
        CHECK(all[i].done);
        if (all[i].parent >= 0) {
            const gs_obs_span *p = &all[all[i].parent];
            CHECK(p->worker == all[i].worker && p->table == all[i].table);
            CHECK(strcmp(all[i].phase, "inner") == 0);
        }
    }
    CHECK(lane_ok(all, n));
    free(all);
    gs_obs_summary s;
    CHECK(gs_obs_summarize(o, &s) == GS_OK);
    CHECK(s.n_table_totals == STRESS_THREADS);
    for (size_t i = 0; i < s.n_table_totals; i++) CHECK(s.table_totals[i].spans == STRESS_ITERS);
    gs_obs_summary_free(&s);
    gs_obs_free(o);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_null();
    test_nesting();
    test_report_fixed();
    test_report_random();
    test_metrics();
    test_progress();
    test_warnings();
    test_chrome_trace();
    test_stress();
    return gs_test_done();
}
