/* The device object (src/backend/device.h): kind and index, the device
 * accountant and budget, the busy log, the fallback rule, the CUDA lanes and
 * the thread binding; and the process-wide windows over each CUDA device's
 * timeline. Plain C: the CUDA calls are behind src/cuda/device.h
 * (which reports GS_ERR_NO_DEVICE in a build without CUDA). */
#include "backend/device.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/host_arena.h"
#include "cuda/device.h"
#include "gstark/cuda.h"
#include "gstark/parallel.h"
#include "gstark/sched.h"

/* Freed device memory the CUDA allocator's pool keeps for the next
 * allocation instead of returning it at each synchronization: at least
 * this, and up to the device's budget, so that a resident context's proofs
 * allocate without mapping memory again (mapping synth vm /0's 4.4 GB took
 * about 32 ms of a 165 ms proof on the H200, the device idle meanwhile). An
 * allocation that finds the device full gives the pool's unused memory back
 * and tries again (gs_cuda_counted_malloc_async); gs_device_close trims it. */
#define POOL_KEEP ((size_t)256 << 20)

/* The device's busy intervals over one proof: every CUDA backend object
 * adds its operations' intervals, timed from one reference event recorded
 * when the proof begins; the union of the intervals (work overlapping on
 * several lanes counted once) is the time the device had work. */
typedef struct {
    void *ref;
    pthread_mutex_t mu;
    gs_device_op *ops; /* intervals in ms after ref, with their names */
    size_t n, cap;
} busy_log;

typedef struct {
    void *stream;
    gs_cuda_stage *stage;
} lane;

struct gs_device {
    gs_device_kind kind;
    int index;
    uint64_t id; /* unique in the process: what a thread's binding names */
    int allow_fallback;
    size_t budget;
    gs_mem *acct;
    /* out of core: page-locked blocks kept between proofs, and the bytes of
     * them in use (its peak restarts with each proof) */
    gs_host_arena *spill;
    gs_mem *spill_acct;
    busy_log *busy;
    lane lanes[GS_DEVICE_MAX_LANES]; /* lane w: created and used by the thread bound to it */
};

static atomic_uint_fast64_t g_next_id = 1;

/* The calling thread's binding: a device id (0: none) and a lane. */
static _Thread_local struct {
    uint64_t id;
    unsigned lane;
} t_bound;

/* ---- budget rules ---- */

size_t gs_device_budget_rule(size_t free_bytes, unsigned share) {
    return free_bytes / 10 * 9 / (share ? share : 1);
}

size_t gs_host_budget_rule(size_t available_bytes) { return available_bytes / 10 * 8; }

size_t gs_host_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    if (f) fclose(f);
    if (kb) return kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
    /* no /proc: the physical pages the system reports available */
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return 0;
    return (size_t)pages * (size_t)size;
}

/* ---- busy log ---- */

static busy_log *busy_new(void) {
    busy_log *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    if (gs_cuda_mark(&l->ref, NULL) != GS_OK) {
        free(l);
        return NULL;
    }
    pthread_mutex_init(&l->mu, NULL);
    return l;
}

static void busy_free(busy_log *l) {
    if (!l) return;
    gs_cuda_mark_free(l->ref);
    pthread_mutex_destroy(&l->mu);
    free(l->ops);
    free(l);
}

static void busy_add(busy_log *l, const gs_device_mark *m, double start, double end) {
    pthread_mutex_lock(&l->mu);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        gs_device_op *ops = realloc(l->ops, cap * sizeof *ops);
        if (ops) l->ops = ops, l->cap = cap;
    }
    if (l->n < l->cap)
        l->ops[l->n++] = (gs_device_op){.op = m->op ? m->op : "device",
                                        .lane = m->lane,
                                        .table = m->table,
                                        .start_ms = start,
                                        .end_ms = end};
    pthread_mutex_unlock(&l->mu);
}

static int cmp_start(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gs_device_busy_union(double *iv, size_t n, double lo, double hi) {
    if (!iv || !n || !(hi > lo)) return 0;
    qsort(iv, n, 2 * sizeof *iv, cmp_start);
    double total = 0, a0 = 0, b0 = 0;
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        /* clipping keeps the starts in order: max(a, lo) grows with a */
        double a = iv[2 * i] < lo ? lo : iv[2 * i], b = iv[2 * i + 1] > hi ? hi : iv[2 * i + 1];
        if (!(b > a)) continue;
        if (have && a <= b0) {
            if (b > b0) b0 = b;
            continue;
        }
        if (have) total += b0 - a0;
        a0 = a, b0 = b, have = 1;
    }
    if (have) total += b0 - a0;
    return total;
}

static double busy_seconds(busy_log *l) {
    if (!l) return 0;
    pthread_mutex_lock(&l->mu);
    double *iv = l->n ? malloc(2 * l->n * sizeof *iv) : NULL;
    for (size_t i = 0; iv && i < l->n; i++)
        iv[2 * i] = l->ops[i].start_ms, iv[2 * i + 1] = l->ops[i].end_ms;
    double ms = iv ? gs_device_busy_union(iv, l->n, -HUGE_VAL, HUGE_VAL) : 0;
    pthread_mutex_unlock(&l->mu);
    free(iv);
    return ms / 1e3;
}

gs_status gs_device_ops(gs_device *d, gs_device_op **ops, size_t *n) {
    *ops = NULL, *n = 0;
    busy_log *l = d ? d->busy : NULL;
    if (!l) return GS_OK;
    pthread_mutex_lock(&l->mu);
    gs_device_op *a = l->n ? malloc(l->n * sizeof *a) : NULL;
    size_t cnt = a ? l->n : 0;
    if (a) memcpy(a, l->ops, cnt * sizeof *a);
    int lost = l->n && !a;
    pthread_mutex_unlock(&l->mu);
    if (lost) return GS_ERR_NOMEM;
    *ops = a, *n = cnt;
    return GS_OK;
}

/* ---- the windows: one per CUDA device index, process-wide ---- */

typedef struct {
    int open;
    int lost;   /* an interval could not be timed or kept: the window reports an error */
    void *ref;  /* the reference event, on the window's device */
    double *iv; /* start, end pairs in ms after ref */
    size_t n, cap;
} window;

static pthread_mutex_t g_win_mu = PTHREAD_MUTEX_INITIALIZER;
static window g_win[GS_DEVICE_MAX_WINDOWS];

static void window_reset(window *w) {
    gs_cuda_mark_free(w->ref);
    free(w->iv);
    memset(w, 0, sizeof *w);
}

gs_status gs_device_window_begin(int index) {
    int count = gs_cuda_device_count();
    if (count <= 0) return GS_ERR_NO_DEVICE;
    if (index < 0 || index >= count || (unsigned)index >= GS_DEVICE_MAX_WINDOWS)
        return GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&g_win_mu);
    window *w = &g_win[index];
    gs_status r = w->open ? GS_ERR_UNSUPPORTED : gs_cuda_bind(index);
    if (r == GS_OK) r = gs_cuda_mark(&w->ref, NULL); /* an event of device `index` */
    if (r == GS_OK) w->open = 1;
    else if (!w->open) window_reset(w);
    pthread_mutex_unlock(&g_win_mu);
    return r;
}

gs_status gs_device_window_end(int index, double *busy_s, double *span_s) {
    if (busy_s) *busy_s = 0;
    if (span_s) *span_s = 0;
    if (gs_cuda_device_count() <= 0) return GS_ERR_NO_DEVICE;
    if (!busy_s || !span_s || index < 0 || (unsigned)index >= GS_DEVICE_MAX_WINDOWS)
        return GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&g_win_mu);
    window *w = &g_win[index];
    if (!w->open) {
        pthread_mutex_unlock(&g_win_mu);
        return GS_ERR_INVALID_ARG;
    }
    void *end = NULL;
    double span = 0;
    gs_status r = gs_cuda_bind(index);
    if (r == GS_OK) r = gs_cuda_mark(&end, NULL);
    if (r == GS_OK) r = gs_cuda_mark_elapsed(&span, w->ref, end); /* waits for the end event */
    if (r == GS_OK && w->lost) r = GS_ERR_CUDA;
    if (r == GS_OK && !(span >= 0)) r = GS_ERR_CUDA;
    if (r == GS_OK) {
        *busy_s = gs_device_busy_union(w->iv, w->n, 0, span) / 1e3;
        *span_s = span / 1e3;
    }
    gs_cuda_mark_free(end);
    window_reset(w);
    pthread_mutex_unlock(&g_win_mu);
    return r;
}

/* Adds the marks' intervals to the window open on `index`, if one is.
 * iv: their times after `ref` (start, end pairs; NAN where the busy log
 * could not time one), or NULL: time each against the window's reference.
 * With iv, one reading (the window's reference to ref) places them all on
 * the window's time base. The lock keeps the window's reference event alive
 * while it is read. */
static void window_add(int index, const gs_device_mark *marks, const double *iv, void *ref,
                       size_t n) {
    if (index < 0 || (unsigned)index >= GS_DEVICE_MAX_WINDOWS || n < 1) return;
    pthread_mutex_lock(&g_win_mu);
    window *w = &g_win[index];
    double off = 0;
    if (w->open && !w->lost && iv && gs_cuda_mark_elapsed(&off, w->ref, ref) != GS_OK) w->lost = 1;
    for (size_t i = 0; w->open && !w->lost && i < n; i++) {
        double a = 0, b = 0;
        if (iv) {
            a = off + iv[2 * i], b = off + iv[2 * i + 1];
            if (isnan(a) || isnan(b)) w->lost = 1;
        } else if (gs_cuda_mark_elapsed(&b, w->ref, marks[i].end) != GS_OK ||
                   gs_cuda_mark_elapsed(&a, w->ref, marks[i].start) != GS_OK) {
            w->lost = 1;
        }
        if (w->lost) break;
        if (w->n == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 1024;
            double *iv = realloc(w->iv, 2 * cap * sizeof *iv);
            if (!iv) {
                w->lost = 1;
                break;
            }
            w->iv = iv, w->cap = cap;
        }
        w->iv[2 * w->n] = a, w->iv[2 * w->n + 1] = b, w->n++;
    }
    pthread_mutex_unlock(&g_win_mu);
}

void gs_device_busy_add(gs_device *d, gs_device_mark *marks, size_t n) {
    busy_log *l = d ? d->busy : NULL;
    /* each mark timed once, against the busy log's reference; the window
     * reuses the times (without them it times the marks itself) */
    double *iv = l && n ? malloc(2 * n * sizeof *iv) : NULL;
    for (size_t i = 0; l && i < n; i++) {
        double a = 0, b = 0;
        if (gs_cuda_mark_elapsed(&b, l->ref, marks[i].end) == GS_OK &&
            gs_cuda_mark_elapsed(&a, l->ref, marks[i].start) == GS_OK)
            busy_add(l, &marks[i], a, b);
        else
            a = b = NAN;
        if (iv) iv[2 * i] = a, iv[2 * i + 1] = b;
    }
    if (d && d->kind == GS_DEVICE_CUDA) window_add(d->index, marks, iv, iv ? l->ref : NULL, n);
    free(iv);
    for (size_t i = 0; marks && i < n; i++) {
        gs_cuda_mark_free(marks[i].start);
        gs_cuda_mark_free(marks[i].end);
        marks[i].start = marks[i].end = NULL;
    }
}

/* ---- the object ---- */

static void lanes_free(gs_device *d) {
    for (unsigned w = 0; w < GS_DEVICE_MAX_LANES; w++) {
        gs_cuda_stage_free(d->lanes[w].stage); /* waits for copies in flight */
        gs_cuda_stream_free(d->lanes[w].stream);
        d->lanes[w].stage = NULL, d->lanes[w].stream = NULL;
    }
}

void gs_device_close(gs_device *d) {
    if (!d) return;
    if (d->kind == GS_DEVICE_CUDA) {
        (void)gs_cuda_set_device(d->index);
        lanes_free(d);
        busy_free(d->busy);
        /* What the allocator's pool kept of our memory goes back (memory
         * other objects on the device still use stays theirs). */
        gs_cuda_pool_trim();
        gs_host_arena_free(d->spill); /* the lanes' work that read it is done */
    }
    if (t_bound.id == d->id) gs_device_unbind();
    gs_mem_free(d->acct);
    gs_mem_free(d->spill_acct);
    free(d);
}

gs_status gs_device_open(gs_device **out, gs_device_kind kind, int index, unsigned share,
                         size_t budget, int allow_fallback) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (kind != GS_DEVICE_CPU && kind != GS_DEVICE_CUDA) return GS_ERR_INVALID_ARG;
    if (kind == GS_DEVICE_CUDA) {
        int count = gs_cuda_device_count();
        if (count == 0) return GS_ERR_NO_DEVICE;
        if (index < 0 || index >= count || share > GS_DEVICE_MAX_SHARE) return GS_ERR_INVALID_ARG;
    }
    gs_device *d = calloc(1, sizeof *d);
    if (!d) return GS_ERR_NOMEM;
    d->kind = kind;
    d->index = kind == GS_DEVICE_CUDA ? index : -1;
    d->id = atomic_fetch_add(&g_next_id, 1);
    d->allow_fallback = allow_fallback != 0;
    gs_status r = gs_device_bind(d, 0);
    if (r == GS_OK && kind == GS_DEVICE_CUDA) {
        d->budget = budget;
        if (!d->budget) {
            size_t free_bytes = 0, total = 0;
            r = gs_cuda_dev_mem_info(&free_bytes, &total);
            d->budget = gs_device_budget_rule(free_bytes, share);
        }
        if (r == GS_OK) r = gs_mem_new(&d->acct, NULL);
        if (r == GS_OK) r = gs_mem_new(&d->spill_acct, NULL);
        if (r == GS_OK) {
            size_t host = gs_host_default_budget();
            r = gs_host_arena_new(&d->spill, GS_ARENA_PINNED,
                                  host == GS_GATE_UNLIMITED ? 0 : host / (share ? share : 1));
        }
        if (r == GS_OK) {
            d->busy = busy_new(); /* timing only: NULL when it cannot be made */
            gs_cuda_pool_keep(d->budget > POOL_KEEP ? d->budget : POOL_KEEP);
        }
    }
    gs_device_unbind(); /* bound for the calls above only */
    if (r != GS_OK) {
        gs_device_close(d);
        return r;
    }
    *out = d;
    return GS_OK;
}

gs_device_kind gs_device_kind_of(const gs_device *d) { return d->kind; }
const char *gs_device_name(const gs_device *d) {
    return d->kind == GS_DEVICE_CUDA ? "cuda" : "cpu";
}
int gs_device_index(const gs_device *d) { return d->index; }
size_t gs_device_budget(const gs_device *d) { return d->budget; }
gs_mem *gs_device_account(gs_device *d) { return d ? d->acct : NULL; }

size_t gs_host_default_budget(void) {
    size_t avail = gs_host_available_bytes();
    return avail ? gs_host_budget_rule(avail) : GS_GATE_UNLIMITED;
}

size_t gs_device_default_mem_budget(const gs_device *d) {
    if (d->kind == GS_DEVICE_CUDA && d->budget) return d->budget; /* the gate meters device bytes */
    return gs_host_default_budget();
}

int gs_status_is_device(gs_status s) {
    return s == GS_ERR_CUDA || s == GS_ERR_DEVICE_MEM || s == GS_ERR_NO_DEVICE;
}

int gs_device_allows_fallback(const gs_device *d) { return d->allow_fallback; }

int gs_device_may_fall_back(const gs_device *d, gs_status r) {
    return d->allow_fallback && gs_status_is_device(r);
}

gs_status gs_device_bind(gs_device *d, unsigned lane) {
    t_bound.id = 0;
    if (!d || lane >= GS_DEVICE_MAX_LANES) return GS_ERR_INVALID_ARG;
    if (d->kind == GS_DEVICE_CUDA) GS_TRY(gs_cuda_bind(d->index));
    t_bound.id = d->id, t_bound.lane = lane;
    return GS_OK;
}

void gs_device_unbind(void) { t_bound.id = 0, t_bound.lane = 0; }

typedef struct {
    char *dst;
    const char *src;
} copy_job;

static void copy_range(void *ctx, size_t b, size_t e) {
    copy_job *j = ctx;
    memcpy(j->dst + b, j->src + b, e - b);
}

void gs_device_host_copy(void *dst, const void *src, size_t len) {
    copy_job j = {dst, src};
    gs_parallel_for(len, (size_t)2 << 20, copy_range, &j);
}

gs_status gs_device_lane(gs_device *d, void **stream, gs_cuda_stage **stage, unsigned *lane_index) {
    *stream = NULL, *stage = NULL;
    if (!d || d->kind != GS_DEVICE_CUDA || t_bound.id != d->id) {
        gs_cuda_note_error("CUDA work on a thread not bound to its device");
        return GS_ERR_CUDA;
    }
    lane *l = &d->lanes[t_bound.lane];
    if (!l->stage) {
        gs_status r = l->stream ? GS_OK : gs_cuda_stream_new(&l->stream);
        if (r == GS_OK) r = gs_cuda_stage_new(&l->stage, GS_DEVICE_STAGE_CHUNK);
        if (r != GS_OK) return r; /* a stream made stays for the next try */
        gs_cuda_stage_set_host_copy(l->stage, gs_device_host_copy);
    }
    *stream = l->stream, *stage = l->stage;
    if (lane_index) *lane_index = t_bound.lane;
    return GS_OK;
}

void gs_device_begin(gs_device *d) {
    gs_mem_reset_peak(d->acct);
    gs_mem_reset_peak(d->spill_acct);
    busy_log *l = d->busy;
    if (!l) return;
    pthread_mutex_lock(&l->mu);
    l->n = 0;
    double zero = 0;
    /* Recorded, then waited for (its elapsed time to itself waits for it). */
    if (gs_cuda_mark_record(l->ref, NULL) != GS_OK ||
        gs_cuda_mark_elapsed(&zero, l->ref, l->ref) != GS_OK) { /* timing only: lose it */
        pthread_mutex_unlock(&l->mu);
        busy_free(l);
        d->busy = NULL;
        return;
    }
    pthread_mutex_unlock(&l->mu);
}

size_t gs_device_peak(const gs_device *d) { return gs_mem_peak(d->acct); }

gs_status gs_device_spill_alloc(gs_device *d, void **p, size_t bytes) {
    *p = NULL;
    if (!d->spill) return GS_ERR_DEVICE_MEM;
    if (gs_host_arena_alloc(d->spill, p, bytes, 0) != GS_OK) {
        char m[128];
        snprintf(m, sizeof m, "out of core: %zu bytes of page-locked host memory refused", bytes);
        gs_cuda_note_error(m);
        return GS_ERR_DEVICE_MEM;
    }
    gs_mem_charge(d->spill_acct, bytes);
    return GS_OK;
}

void gs_device_spill_free(gs_device *d, void *p, size_t bytes) {
    if (!p) return;
    (void)gs_host_arena_release(d->spill, p);
    gs_mem_uncharge(d->spill_acct, bytes);
}

size_t gs_device_spill_peak(const gs_device *d) { return d->spill_acct ? gs_mem_peak(d->spill_acct) : 0; }
double gs_device_busy_seconds(gs_device *d) { return busy_seconds(d->busy); }

gs_status gs_device_backend_new(gs_backend **out, gs_device *d, int32_t table) {
    if (d->kind == GS_DEVICE_CPU) {
        *out = gs_backend_cpu();
        return GS_OK;
    }
    return gs_backend_cuda_new(out, d, table);
}
