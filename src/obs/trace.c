/* The timeline (include/gstark/obs.h, gs_obs_write_chrome_trace): the spans
 * of one snapshot and the device operations as a Chrome trace (the Trace
 * Event Format). Host spans go on pid 1, one thread per obs lane; device
 * operations on pid 2 + device, one thread per device lane. Times are the
 * obs's integer nanoseconds printed as microseconds with three decimals, so
 * nothing is rounded and nesting seen in the spans is nesting in the file. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/obs.h"
#include "obs/obs_internal.h"

#define HOST_PID 1
#define DEVICE_PID0 2

/* One X event before it is written: a span or (is_dev) a device
 * operation, by its index in the snapshot. */
typedef struct {
    uint64_t start, dur;
    size_t idx;
    int is_dev;
} ev;

static int cmp_ev(const void *pa, const void *pb) {
    const ev *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1; /* parents before children */
    if (a->is_dev != b->is_dev) return a->is_dev - b->is_dev;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void put_us(FILE *f, uint64_t ns) {
    fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* A metadata event naming process pid (tid < 0) or thread (pid, tid). */
static void put_name(FILE *f, int *first, int64_t pid, int64_t tid, const char *name) {
    fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"name\":\"%s\","
               "\"args\":{\"name\":",
            *first ? "" : ",", pid, tid < 0 ? 0 : tid, tid < 0 ? "process_name" : "thread_name");
    gs_obs_put_json_string(f, name);
    fputs("}}", f);
    *first = 0;
    /* sort the tracks: host first, then devices in index order, lanes in order */
    fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"name\":\"%s\","
               "\"args\":{\"sort_index\":%" PRId64 "}}",
            pid, tid < 0 ? 0 : tid, tid < 0 ? "process_sort_index" : "thread_sort_index",
            tid < 0 ? pid : tid);
}

/* 1 if v (>= 0) is among seen[0..n); else appends it (seen has room). */
static int seen_or_add(int64_t *seen, size_t *n, int64_t v) {
    for (size_t i = 0; i < *n; i++)
        if (seen[i] == v) return 1;
    seen[(*n)++] = v;
    return 0;
}

gs_status gs_obs_write_chrome_trace(const gs_obs *o, FILE *f) {
    if (!f) return GS_ERR_INVALID_ARG;
    gs_obs_span *sp = NULL;
    gs_obs_device_op *dop = NULL;
    size_t ns = 0, nd = 0;
    uint64_t now = 0;
    gs_status r = gs_obs_snapshot(o, &sp, &ns, &now);
    if (r == GS_OK) r = gs_obs_device_ops(o, &dop, &nd);
    ev *evs = ns + nd ? malloc((ns + nd) * sizeof *evs) : NULL;
    /* track keys: host lanes, devices, device (device, lane) pairs */
    int64_t *seen = ns + nd ? malloc(2 * (ns + nd) * sizeof *seen) : NULL;
    if (r == GS_OK && ns + nd && (!evs || !seen)) r = GS_ERR_NOMEM;
    if (r != GS_OK) {
        free(sp), free(dop), free(evs), free(seen);
        return r;
    }
    size_t ne = 0;
    for (size_t i = 0; i < ns; i++) {
        uint64_t b = sp[i].start_ns < now ? sp[i].start_ns : now;
        uint64_t e = sp[i].done && sp[i].end_ns < now ? sp[i].end_ns : now;
        evs[ne++] = (ev){.start = b, .dur = e > b ? e - b : 0, .idx = i, .is_dev = 0};
    }
    for (size_t i = 0; i < nd; i++)
        evs[ne++] = (ev){.start = dop[i].start_ns, .dur = dop[i].end_ns - dop[i].start_ns,
                         .idx = i, .is_dev = 1};
    if (ne) qsort(evs, ne, sizeof *evs, cmp_ev);

    fputs("{\"traceEvents\":[", f);
    int first = 1;
    /* the tracks' names, host lanes in lane order, then each device's lanes */
    size_t nseen = 0;
    char name[96];
    if (ns) put_name(f, &first, HOST_PID, -1, "gstark host");
    for (int32_t lane = 0; ns; lane++) {
        int any = 0, more = 0;
        for (size_t i = 0; i < ns; i++) any |= sp[i].worker == lane, more |= sp[i].worker > lane;
        if (any) {
            snprintf(name, sizeof name, "host thread %" PRId32, lane);
            put_name(f, &first, HOST_PID, (int64_t)lane + 1, name);
        }
        if (!more) break;
    }
    for (size_t i = 0; i < nd; i++) {
        if (seen_or_add(seen, &nseen, dop[i].device)) continue;
        int64_t pid = DEVICE_PID0 + (int64_t)(dop[i].device < 0 ? 0 : dop[i].device);
        snprintf(name, sizeof name, "gstark cuda:%" PRId32, dop[i].device);
        put_name(f, &first, pid, -1, name);
        size_t nl = 0;
        int64_t *lanes = seen + (ns + nd); /* the second half: this device's lanes */
        for (size_t j = i; j < nd; j++) {
            if (dop[j].device != dop[i].device || seen_or_add(lanes, &nl, dop[j].lane)) continue;
            if (dop[j].lane >= GS_OBS_COPY_LANES)
                snprintf(name, sizeof name, "cuda:%" PRId32 " lane %" PRId32 " (copies)",
                         dop[j].device, dop[j].lane - GS_OBS_COPY_LANES);
            else
                snprintf(name, sizeof name, "cuda:%" PRId32 " lane %" PRId32 " (stream)",
                         dop[j].device, dop[j].lane);
            put_name(f, &first, pid, (int64_t)dop[j].lane + 1, name);
        }
    }

    for (size_t k = 0; k < ne; k++) {
        const ev *e = &evs[k];
        fputs(first ? "\n{\"ph\":\"X\",\"name\":" : ",\n{\"ph\":\"X\",\"name\":", f);
        first = 0;
        if (!e->is_dev) {
            const gs_obs_span *s = &sp[e->idx];
            gs_obs_put_json_string(f, s->phase);
            fprintf(f, ",\"cat\":\"host\",\"pid\":%d,\"tid\":%" PRId64 ",\"ts\":", HOST_PID,
                    (int64_t)s->worker + 1);
            put_us(f, e->start);
            fputs(",\"dur\":", f);
            put_us(f, e->dur);
            fprintf(f,
                    ",\"args\":{\"span\":%zu,\"parent\":%" PRId64 ",\"table\":%" PRId32
                    ",\"rows\":%" PRIu64 ",\"cols\":%" PRIu32 ",\"bytes\":%" PRIu64
                    ",\"device\":%" PRId32 "%s}}",
                    e->idx, s->parent, s->table, s->rows, s->cols, s->bytes, s->device,
                    s->done ? "" : ",\"open\":true");
        } else {
            const gs_obs_device_op *d = &dop[e->idx];
            gs_obs_put_json_string(f, d->op);
            fprintf(f, ",\"cat\":\"device\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":",
                    DEVICE_PID0 + (int64_t)(d->device < 0 ? 0 : d->device), (int64_t)d->lane + 1);
            put_us(f, e->start);
            fputs(",\"dur\":", f);
            put_us(f, e->dur);
            fprintf(f, ",\"args\":{\"table\":%" PRId32 ",\"lane\":%" PRId32 "}}", d->table,
                    d->lane);
        }
    }
    fputs("\n],\"displayTimeUnit\":\"ms\"}\n", f);
    free(sp), free(dop), free(evs), free(seen);
    return ferror(f) ? GS_ERR_IO : GS_OK;
}
