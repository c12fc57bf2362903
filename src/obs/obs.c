/* Span recording (include/gstark/obs.h). One mutex guards the span array,
 * the lanes and the phase names; the clock is read under it, so span ids
 * are in the order of their start times.
 *
 * Lanes: every thread that records gets a heap "tag" (alive flag plus a
 * reference count) kept in a thread-local pointer and in a pthread key whose
 * destructor clears the alive flag when the thread exits. A lane holds a
 * reference to its owner's tag, so the tag outlives the thread as long as a
 * lane names it, and a dead owner can be recognised and its idle lane
 * handed to a new thread. Each lane keeps the stack of its open spans as a
 * linked list through span_rec.lane_prev. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gstark/obs.h"

typedef struct thread_tag thread_tag;

typedef struct {
    uint32_t phase; /* index into gs_obs.phases */
    int32_t table, worker, device;
    int64_t parent, lane_prev; /* lane_prev: the lane's innermost open span before this one */
    uint64_t rows, bytes, start, end;
    uint32_t cols;
    int32_t done;
} span_rec;

typedef struct {
    uint32_t op; /* index into gs_obs.phases */
    int32_t device, lane, table;
    uint64_t start, end;
} dev_rec;

typedef struct {
    thread_tag *owner; /* holds a reference */
    int64_t top;       /* innermost open span, -1: idle */
} obs_lane;

struct gs_obs {
    pthread_mutex_t mu; /* spans, lanes, phases */
    gs_obs_clock_fn clock;
    void *clock_ctx;
    uint64_t t0;
    span_rec *spans;
    size_t n_spans, cap_spans;
    obs_lane *lanes;
    size_t n_lanes, cap_lanes;
    char **phases; /* interned names: one pointer per distinct name */
    size_t n_phases, cap_phases;
    /* progress */
    pthread_mutex_t pmu;
    FILE *pf;
    int pon, pdrawn;
    uint32_t ptotal, pcommitted, pproven;
    uint64_t pt0, plast;
    size_t plen;
    atomic_uint fallbacks;
    /* warnings and the budget note, under mu; the stream is written under pmu */
    char **warnings;
    size_t n_warnings, cap_warnings;
    FILE *wf;
    int budget_set;
    gs_obs_budget budget;
    /* device operations (under mu): op is an index into phases */
    dev_rec *dops;
    size_t n_dops, cap_dops;
};

/* ---- thread tags ---- */

struct thread_tag {
    atomic_int alive;
    atomic_int refs;
};

static pthread_key_t g_tag_key;
static pthread_once_t g_tag_once = PTHREAD_ONCE_INIT;
static int g_tag_key_ok;
static _Thread_local thread_tag *t_tag;

static void tag_ref(thread_tag *t) { atomic_fetch_add(&t->refs, 1); }

static void tag_unref(thread_tag *t) {
    if (atomic_fetch_sub(&t->refs, 1) == 1) free(t);
}

static void tag_thread_exit(void *p) {
    thread_tag *t = p;
    atomic_store(&t->alive, 0);
    if (t_tag == t) t_tag = NULL;
    tag_unref(t);
}

static void tag_key_init(void) {
    g_tag_key_ok = pthread_key_create(&g_tag_key, tag_thread_exit) == 0;
}

/* The calling thread's tag, or NULL when out of memory. Without the key
 * (pthread_key_create failed) a thread is never seen to exit and its lane is
 * never reused: still correct, only less compact. */
static thread_tag *my_tag(void) {
    if (t_tag) return t_tag;
    pthread_once(&g_tag_once, tag_key_init);
    thread_tag *t = malloc(sizeof *t);
    if (!t) return NULL;
    atomic_init(&t->alive, 1);
    /* The thread's own reference, dropped by the key's destructor at exit
     * (never, if the key could not be set). */
    atomic_init(&t->refs, 1);
    if (g_tag_key_ok) (void)pthread_setspecific(g_tag_key, t);
    t_tag = t;
    return t;
}

/* ---- the recorder ---- */

static uint64_t mono_ns(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(const gs_obs *o) {
    uint64_t t = o->clock(o->clock_ctx);
    return t > o->t0 ? t - o->t0 : 0;
}

gs_status gs_obs_new_with_clock(gs_obs **out, gs_obs_clock_fn fn, void *ctx) {
    if (!out || !fn) return GS_ERR_INVALID_ARG;
    *out = NULL;
    gs_obs *o = calloc(1, sizeof *o);
    if (!o) return GS_ERR_NOMEM;
    if (pthread_mutex_init(&o->mu, NULL) != 0) {
        free(o);
        return GS_ERR_NOMEM;
    }
    if (pthread_mutex_init(&o->pmu, NULL) != 0) {
        pthread_mutex_destroy(&o->mu);
        free(o);
        return GS_ERR_NOMEM;
    }
    o->clock = fn;
    o->clock_ctx = ctx;
    o->t0 = fn(ctx);
    o->wf = stderr;
    *out = o;
    return GS_OK;
}

gs_status gs_obs_new(gs_obs **out) { return gs_obs_new_with_clock(out, mono_ns, NULL); }

void gs_obs_free(gs_obs *o) {
    if (!o) return;
    for (size_t i = 0; i < o->n_lanes; i++) tag_unref(o->lanes[i].owner);
    for (size_t i = 0; i < o->n_phases; i++) free(o->phases[i]);
    for (size_t i = 0; i < o->n_warnings; i++) free(o->warnings[i]);
    free(o->warnings);
    free(o->dops);
    free(o->lanes);
    free(o->phases);
    free(o->spans);
    pthread_mutex_destroy(&o->pmu);
    pthread_mutex_destroy(&o->mu);
    free(o);
}

uint64_t gs_obs_elapsed_ns(const gs_obs *o) { return o ? now_ns(o) : 0; }

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 1;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* Under o->mu. The index of `name` among the interned phase names, or -1. */
static int64_t intern_phase(gs_obs *o, const char *name) {
    for (size_t i = 0; i < o->n_phases; i++)
        if (o->phases[i] == name || strcmp(o->phases[i], name) == 0) return (int64_t)i;
    if (!grow((void **)&o->phases, &o->cap_phases, o->n_phases + 1, sizeof *o->phases)) return -1;
    size_t len = strlen(name);
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, name, len + 1);
    o->phases[o->n_phases] = copy;
    return (int64_t)o->n_phases++;
}

/* Under o->mu. The calling thread's lane: its own; else an idle lane whose
 * thread has exited (lowest first); else a new one. -1 when out of memory. */
static int64_t find_lane(gs_obs *o, thread_tag *me) {
    for (size_t i = 0; i < o->n_lanes; i++)
        if (o->lanes[i].owner == me) return (int64_t)i;
    for (size_t i = 0; i < o->n_lanes; i++) {
        obs_lane *l = &o->lanes[i];
        if (l->top < 0 && !atomic_load(&l->owner->alive)) {
            tag_unref(l->owner);
            tag_ref(me);
            l->owner = me;
            return (int64_t)i;
        }
    }
    if (!grow((void **)&o->lanes, &o->cap_lanes, o->n_lanes + 1, sizeof *o->lanes)) return -1;
    tag_ref(me);
    o->lanes[o->n_lanes].owner = me;
    o->lanes[o->n_lanes].top = -1;
    return (int64_t)o->n_lanes++;
}

int64_t gs_obs_begin_under(gs_obs *o, int64_t parent, const char *phase, int32_t table,
                           uint64_t rows, uint32_t cols) {
    if (!o || !phase) return -1;
    thread_tag *me = my_tag();
    if (!me) return -1;
    int64_t id = -1;
    pthread_mutex_lock(&o->mu);
    int64_t lane = find_lane(o, me);
    int64_t ph = lane >= 0 ? intern_phase(o, phase) : -1;
    if (ph >= 0 && grow((void **)&o->spans, &o->cap_spans, o->n_spans + 1, sizeof *o->spans)) {
        obs_lane *l = &o->lanes[lane];
        id = (int64_t)o->n_spans++;
        span_rec *s = &o->spans[id];
        memset(s, 0, sizeof *s);
        s->phase = (uint32_t)ph;
        s->table = table < 0 ? -1 : table;
        s->worker = (int32_t)lane;
        s->device = -1;
        s->rows = rows;
        s->cols = cols;
        if (l->top >= 0)
            s->parent = l->top;
        else
            s->parent = parent >= 0 && parent < id ? parent : -1;
        s->lane_prev = l->top;
        l->top = id;
        s->start = now_ns(o);
    }
    pthread_mutex_unlock(&o->mu);
    return id;
}

int64_t gs_obs_begin(gs_obs *o, const char *phase, int32_t table, uint64_t rows, uint32_t cols) {
    return gs_obs_begin_under(o, -1, phase, table, rows, cols);
}

void gs_obs_end(gs_obs *o, int64_t span, uint64_t bytes_charged) {
    if (!o || span < 0) return;
    pthread_mutex_lock(&o->mu);
    if ((uint64_t)span < o->n_spans && !o->spans[span].done) {
        span_rec *s = &o->spans[span];
        s->end = now_ns(o);
        s->done = 1;
        s->bytes = bytes_charged;
        /* Pop every closed span off the top of the lane's stack. */
        obs_lane *l = &o->lanes[s->worker];
        while (l->top >= 0 && o->spans[l->top].done) l->top = o->spans[l->top].lane_prev;
    }
    pthread_mutex_unlock(&o->mu);
}

void gs_obs_set_device(gs_obs *o, int64_t span, int32_t device) {
    if (!o || span < 0) return;
    pthread_mutex_lock(&o->mu);
    if ((uint64_t)span < o->n_spans) o->spans[span].device = device < 0 ? -1 : device;
    pthread_mutex_unlock(&o->mu);
}

int64_t gs_obs_span_count(const gs_obs *o) {
    if (!o) return 0;
    gs_obs *m = (gs_obs *)o; /* the mutex is not part of the observable state */
    pthread_mutex_lock(&m->mu);
    int64_t n = (int64_t)m->n_spans;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static void fill_span(const gs_obs *o, const span_rec *s, gs_obs_span *out) {
    out->phase = o->phases[s->phase];
    out->table = s->table;
    out->worker = s->worker;
    out->device = s->device;
    out->done = s->done;
    out->parent = s->parent;
    out->rows = s->rows;
    out->bytes = s->bytes;
    out->cols = s->cols;
    out->start_ns = s->start;
    out->end_ns = s->done ? s->end : 0;
}

gs_status gs_obs_span_get(const gs_obs *o, int64_t id, gs_obs_span *out) {
    if (!o || !out || id < 0) return GS_ERR_INVALID_ARG;
    gs_obs *m = (gs_obs *)o;
    gs_status r = GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&m->mu);
    if ((uint64_t)id < m->n_spans) {
        fill_span(m, &m->spans[id], out);
        r = GS_OK;
    }
    pthread_mutex_unlock(&m->mu);
    return r;
}

gs_status gs_obs_snapshot(const gs_obs *o, gs_obs_span **out, size_t *n, uint64_t *now) {
    if (!out || !n) return GS_ERR_INVALID_ARG;
    *out = NULL;
    *n = 0;
    if (now) *now = 0;
    if (!o) return GS_OK;
    gs_obs *m = (gs_obs *)o;
    pthread_mutex_lock(&m->mu);
    size_t cnt = m->n_spans;
    gs_obs_span *a = cnt ? malloc(cnt * sizeof *a) : NULL;
    if (a || !cnt) {
        for (size_t i = 0; i < cnt; i++) fill_span(m, &m->spans[i], &a[i]);
        if (now) *now = now_ns(m);
    }
    pthread_mutex_unlock(&m->mu);
    if (cnt && !a) return GS_ERR_NOMEM;
    *out = a;
    *n = cnt;
    return GS_OK;
}

/* ---- progress ---- */

#define PROGRESS_PERIOD_NS 100000000ull /* at most 10 redraws a second */

static void fmt_dur(char *buf, size_t cap, uint64_t ns) {
    uint64_t s = (ns + 500000000ull) / 1000000000ull;
    if (s < 60)
        snprintf(buf, cap, "%us", (unsigned)s);
    else if (s < 3600)
        snprintf(buf, cap, "%um%02us", (unsigned)(s / 60), (unsigned)(s % 60));
    else
        snprintf(buf, cap, "%uh%02um%02us", (unsigned)(s / 3600), (unsigned)(s / 60 % 60),
                 (unsigned)(s % 60));
}

/* Under o->pmu, with o->pon set. */
static void progress_draw(gs_obs *o, uint64_t t) {
    char el[32], eta[32], line[192];
    fmt_dur(el, sizeof el, t);
    uint32_t N = o->ptotal;
    double f = N ? ((double)o->pcommitted + 2.0 * (double)o->pproven) / (3.0 * (double)N) : 0.0;
    if (f > 1.0) f = 1.0;
    uint64_t run = t > o->pt0 ? t - o->pt0 : 0;
    if (f >= 1.0)
        snprintf(eta, sizeof eta, "0s");
    else if (f <= 0.0 || run == 0)
        snprintf(eta, sizeof eta, "?");
    else
        fmt_dur(eta, sizeof eta, (uint64_t)((double)run * (1.0 - f) / f));
    int len =
        snprintf(line, sizeof line, "tables committed %u/%u, proven %u/%u | elapsed %s | eta %s",
                 o->pcommitted, N, o->pproven, N, el, eta);
    if (len < 0) return;
    if ((size_t)len >= sizeof line) len = (int)sizeof line - 1;
    fprintf(o->pf, "\r%s", line);
    for (size_t i = (size_t)len; i < o->plen; i++) fputc(' ', o->pf); /* wipe a longer old line */
    fflush(o->pf);
    o->plen = (size_t)len;
    o->pdrawn = 1;
    o->plast = t;
}

static void progress_maybe_draw(gs_obs *o) {
    uint64_t t = now_ns(o);
    if (!o->pdrawn || t - o->plast >= PROGRESS_PERIOD_NS) progress_draw(o, t);
}

void gs_obs_progress_init_file(gs_obs *o, uint32_t tables_total, FILE *f, int enabled) {
    if (!o) return;
    int on = 0;
    if (f) {
        if (enabled < 0) {
            int fd = fileno(f);
            on = fd >= 0 && isatty(fd);
        } else {
            on = enabled != 0;
        }
    }
    pthread_mutex_lock(&o->pmu);
    o->pf = f;
    o->pon = on;
    o->pdrawn = 0;
    o->plen = 0;
    o->ptotal = tables_total;
    o->pcommitted = o->pproven = 0;
    o->pt0 = now_ns(o);
    if (on) progress_draw(o, o->pt0);
    pthread_mutex_unlock(&o->pmu);
}

void gs_obs_progress_init(gs_obs *o, uint32_t tables_total, int enabled) {
    gs_obs_progress_init_file(o, tables_total, stderr, enabled);
}

void gs_obs_progress_note(gs_obs *o, uint32_t committed, uint32_t proven) {
    if (!o) return;
    pthread_mutex_lock(&o->pmu);
    if (committed > o->pcommitted) o->pcommitted = committed;
    if (proven > o->pproven) o->pproven = proven;
    if (o->pon) progress_maybe_draw(o);
    pthread_mutex_unlock(&o->pmu);
}

void gs_obs_progress_add(gs_obs *o, uint32_t committed, uint32_t proven) {
    if (!o) return;
    pthread_mutex_lock(&o->pmu);
    o->pcommitted += committed;
    o->pproven += proven;
    if (o->pon) progress_maybe_draw(o);
    pthread_mutex_unlock(&o->pmu);
}

void gs_obs_progress_done(gs_obs *o) {
    if (!o) return;
    pthread_mutex_lock(&o->pmu);
    if (o->pon && o->pdrawn) {
        fputc('\r', o->pf);
        for (size_t i = 0; i < o->plen; i++) fputc(' ', o->pf);
        fputc('\r', o->pf);
        fflush(o->pf);
    }
    o->pon = 0;
    o->pdrawn = 0;
    o->plen = 0;
    pthread_mutex_unlock(&o->pmu);
}

void gs_obs_count_fallback(gs_obs *o) {
    if (o) atomic_fetch_add(&o->fallbacks, 1);
}

unsigned gs_obs_fallbacks(const gs_obs *o) {
    return o ? atomic_load(&((gs_obs *)o)->fallbacks) : 0;
}

/* ---- warnings and the budget note ---- */

void gs_obs_set_warning_stream(gs_obs *o, FILE *f) {
    if (!o) return;
    pthread_mutex_lock(&o->pmu);
    o->wf = f;
    pthread_mutex_unlock(&o->pmu);
}

void gs_obs_warn(gs_obs *o, const char *fmt, ...) {
    if (!o || !fmt) return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (len < 0) return;
    pthread_mutex_lock(&o->mu);
    char *copy = strdup(text);
    if (copy && grow((void **)&o->warnings, &o->cap_warnings, o->n_warnings + 1, sizeof *o->warnings))
        o->warnings[o->n_warnings++] = copy;
    else
        free(copy); /* out of memory: the stream below still says it */
    pthread_mutex_unlock(&o->mu);
    pthread_mutex_lock(&o->pmu);
    if (o->wf) {
        if (o->pon && o->pdrawn && o->pf == o->wf) { /* clear the progress line; it is redrawn */
            fputc('\r', o->pf);
            for (size_t i = 0; i < o->plen; i++) fputc(' ', o->pf);
            fputc('\r', o->pf);
            o->pdrawn = 0;
            o->plen = 0;
        }
        fprintf(o->wf, "gstark: warning: %s\n", text);
        fflush(o->wf);
    }
    pthread_mutex_unlock(&o->pmu);
}

size_t gs_obs_warning_count(const gs_obs *o) {
    if (!o) return 0;
    gs_obs *m = (gs_obs *)o;
    pthread_mutex_lock(&m->mu);
    size_t n = m->n_warnings;
    pthread_mutex_unlock(&m->mu);
    return n;
}

const char *gs_obs_warning(const gs_obs *o, size_t i) {
    if (!o) return NULL;
    gs_obs *m = (gs_obs *)o;
    pthread_mutex_lock(&m->mu);
    const char *w = i < m->n_warnings ? m->warnings[i] : NULL;
    pthread_mutex_unlock(&m->mu);
    return w;
}

void gs_obs_note_budget(gs_obs *o, const gs_obs_budget *b) {
    if (!o || !b) return;
    pthread_mutex_lock(&o->mu);
    o->budget = *b;
    o->budget_set = 1;
    pthread_mutex_unlock(&o->mu);
}

int gs_obs_budget_get(const gs_obs *o, gs_obs_budget *out) {
    if (!o || !out) return 0;
    gs_obs *m = (gs_obs *)o;
    pthread_mutex_lock(&m->mu);
    int set = m->budget_set;
    if (set) *out = m->budget;
    pthread_mutex_unlock(&m->mu);
    return set;
}

/* ---- device operations ---- */

gs_status gs_obs_add_device_ops(gs_obs *o, const gs_obs_device_op *ops, size_t n) {
    if (!o) return GS_OK;
    if (!ops && n) return GS_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        if (!ops[i].op) return GS_ERR_INVALID_ARG;
    gs_status r = GS_OK;
    pthread_mutex_lock(&o->mu);
    if (!grow((void **)&o->dops, &o->cap_dops, o->n_dops + n, sizeof *o->dops)) r = GS_ERR_NOMEM;
    for (size_t i = 0; r == GS_OK && i < n; i++) {
        int64_t ph = intern_phase(o, ops[i].op);
        if (ph < 0) {
            r = GS_ERR_NOMEM;
            break;
        }
        const gs_obs_device_op *d = &ops[i];
        o->dops[o->n_dops++] = (dev_rec){.op = (uint32_t)ph,
                                         .device = d->device < 0 ? -1 : d->device,
                                         .lane = d->lane < 0 ? -1 : d->lane,
                                         .table = d->table < 0 ? -1 : d->table,
                                         .start = d->start_ns,
                                         .end = d->end_ns > d->start_ns ? d->end_ns : d->start_ns};
    }
    pthread_mutex_unlock(&o->mu);
    return r;
}

size_t gs_obs_device_op_count(const gs_obs *o) {
    if (!o) return 0;
    gs_obs *m = (gs_obs *)o;
    pthread_mutex_lock(&m->mu);
    size_t n = m->n_dops;
    pthread_mutex_unlock(&m->mu);
    return n;
}

gs_status gs_obs_device_ops(const gs_obs *o, gs_obs_device_op **out, size_t *n) {
    if (!out || !n) return GS_ERR_INVALID_ARG;
    *out = NULL;
    *n = 0;
    if (!o) return GS_OK;
    gs_obs *m = (gs_obs *)o;
    pthread_mutex_lock(&m->mu);
    size_t cnt = m->n_dops;
    gs_obs_device_op *a = cnt ? malloc(cnt * sizeof *a) : NULL;
    for (size_t i = 0; a && i < cnt; i++) {
        const dev_rec *d = &m->dops[i];
        a[i] = (gs_obs_device_op){.op = m->phases[d->op],
                                  .device = d->device,
                                  .lane = d->lane,
                                  .table = d->table,
                                  .start_ns = d->start,
                                  .end_ns = d->end};
    }
    pthread_mutex_unlock(&m->mu);
    if (cnt && !a) return GS_ERR_NOMEM;
    *out = a;
    *n = cnt;
    return GS_OK;
}
