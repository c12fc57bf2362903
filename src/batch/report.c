/* What a batch shows (docs/batch.md, "What a batch prints"): one line per
 * finished unit on the log, a progress line on a terminal, JSON lines per
 * unit, per lane and for the pipeline, and the report that ends with the
 * table the seed benchmarks print. Every byte figure goes through
 * gs_size_format. unit_done is serialized by the engine, so nothing here
 * locks beyond the stream. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/engine.h"
#include "batch/run_internal.h"
#include "gstark/size.h"

static const char *outcome_str(gs_batch_outcome o) {
    switch (o) {
    case GS_BATCH_PROVEN: return "proven";
    case GS_BATCH_REUSED: return "reused";
    case GS_BATCH_FAILED: return "FAILED";
    case GS_BATCH_REFUSED: return "refused";
    case GS_BATCH_SKIPPED: return "skipped";
    default: return "pending";
    }
}

static void hex(char out[65], const gs_digest *d) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d->b[i]);
}

/* "12.3 ms" below a second, "1.234 s" above. */
static const char *fmt_time(char *buf, size_t cap, double s) {
    if (s < 1.0) snprintf(buf, cap, "%.1f ms", s * 1e3);
    else snprintf(buf, cap, "%.3f s", s);
    return buf;
}

/* A count with K, M, B, T (powers of 1000), as the seed tables print. */
static const char *fmt_count(char *buf, size_t cap, double v) {
    const char *u[] = {"", "K", "M", "B", "T"};
    int i = 0;
    while (v >= 1000.0 && i < 4) v /= 1000.0, i++;
    if (i == 0) snprintf(buf, cap, "%.0f", v);
    else snprintf(buf, cap, "%.2f%s", v, u[i]);
    return buf;
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static int progress_on(bp_run *r) {
    const gs_batch_config *c = r->cfg;
    if (!c->progress || !c->progress_enabled) return 0;
    return c->progress_enabled > 0 || isatty(fileno(c->progress));
}

void bp_report_clear(bp_run *r) {
    if (!r->drawn) return;
    fputs("\r\033[K", r->cfg->progress);
    fflush(r->cfg->progress);
    r->drawn = 0;
}

void bp_report_progress(bp_run *r, int final) {
    if (!progress_on(r)) return;
    if (final) {
        bp_report_clear(r);
        return;
    }
    double now = bp_now();
    if (r->drawn && now - r->last_draw < 0.1 && r->units_done < r->plan.n) return;
    r->last_draw = now;
    double el = now - r->t0;
    uint32_t total = r->plan.claims, done = r->claims_done;
    char eta[32] = "-";
    if (done && done < total) snprintf(eta, sizeof eta, "%.0f s", el * (double)(total - done) / done);
    else if (done == total) snprintf(eta, sizeof eta, "0 s");
    fprintf(r->cfg->progress, "\r\033[Kbatch: claims %" PRIu32 "/%" PRIu32 ", joins %" PRIu32
            "/%" PRIu32 " | elapsed %.1f s | eta %s", done, total, r->units_done - done,
            r->plan.joins, el, eta);
    fflush(r->cfg->progress);
    r->drawn = 1;
}

static void unit_metrics(bp_run *r, uint32_t i) {
    FILE *f = r->cfg->metrics;
    const gs_batch_unit *o = &r->res->units[i];
    char k[65] = "";
    if (o->has_key) hex(k, &o->key);
    fprintf(f, "{\"unit\":\"%s\",\"id\":", o->is_join ? "join" : "claim");
    json_str(f, o->id);
    fprintf(f, ",\"outcome\":\"%s\",\"lane\":%d,\"device\":%d,\"wait\":%.6f,\"execute\":%.6f,"
               "\"prove\":%.6f,\"verify\":%.6f,\"store\":%.6f,\"reserved_bytes\":%zu,"
               "\"object_bytes\":%zu,\"peak_bytes\":%zu,\"device_peak_bytes\":%zu,"
               "\"device_busy\":%.6f",
            o->outcome == GS_BATCH_FAILED ? "failed" : outcome_str(o->outcome), o->lane, o->device,
            o->wait_s, o->execute_s, o->prove_s, o->verify_s, o->store_s, o->reserved_bytes,
            o->object_bytes, o->peak_bytes, o->device_peak_bytes, o->device_busy_s);
    if (!o->is_join)
        fprintf(f, ",\"cells\":%" PRIu64 ",\"fft_cost\":%" PRIu64 ",\"shards\":%" PRIu32
                   ",\"need_bytes\":%zu", o->cells, o->fft_cost, o->shards, o->need_bytes);
    if (o->has_key) fprintf(f, ",\"key\":\"%s\"", k);
    if (o->corrupt_replaced) fputs(",\"corrupt_replaced\":true", f);
    if (o->reason[0]) {
        fputs(",\"reason\":", f);
        json_str(f, o->reason);
    }
    fputs("}\n", f);
}

void bp_report_unit(bp_run *r, uint32_t i) {
    const gs_batch_unit *o = &r->res->units[i];
    if (r->cfg->metrics) unit_metrics(r, i);
    FILE *f = r->cfg->log;
    if (!f) return;
    bp_report_clear(r);
    const char *what = o->is_join ? "join" : "claim";
    flockfile(f);
    if (o->outcome == GS_BATCH_PROVEN || o->outcome == GS_BATCH_REUSED) {
        char dev[24], w[24], e[24], p[24], v[24], res[GS_SIZE_BUF], obj[GS_SIZE_BUF];
        if (o->device < 0) snprintf(dev, sizeof dev, "host");
        else snprintf(dev, sizeof dev, "%d", o->device);
        if (o->lane < 0) /* a join on a finisher thread */
            fprintf(f, "%s %s %s  finisher  wait %s", what, o->id, outcome_str(o->outcome),
                    fmt_time(w, sizeof w, o->wait_s));
        else
            fprintf(f, "%s %s %s  lane %d device %s  wait %s", what, o->id, outcome_str(o->outcome),
                    o->lane, dev, fmt_time(w, sizeof w, o->wait_s));
        if (o->is_join)
            fprintf(f, "  join %s", fmt_time(p, sizeof p, o->prove_s));
        else
            fprintf(f, "  execute %s  prove %s  verify %s  reserved %s",
                    fmt_time(e, sizeof e, o->execute_s), fmt_time(p, sizeof p, o->prove_s),
                    fmt_time(v, sizeof v, o->verify_s), gs_size_format(res, o->reserved_bytes));
        fprintf(f, "  %s %s%s\n", o->is_join ? "object" : "proof",
                gs_size_format(obj, o->object_bytes),
                o->corrupt_replaced ? "  (a corrupt stored object was replaced)" : "");
    } else {
        fprintf(f, "%s %s %s: %s\n", what, o->id, outcome_str(o->outcome), o->reason);
    }
    funlockfile(f);
    fflush(f);
}

/* The per-claim table of the seed benchmarks, then the joins. */
static void report_tables(bp_run *r, FILE *f) {
    const gs_batch_result *res = r->res;
    fprintf(f, "%-24s %12s %12s %20s %10s %15s %10s %11s %9s %6s  %s\n", "claim", "execute-time",
            "prove-time", "throughput (cells/s)", "peak-ram", "peak-device-mem", "proof-size",
            "verify-time", "fft-cost", "shards", "outcome");
    for (uint32_t i = 0; i < res->num_units; i++) {
        const gs_batch_unit *o = &res->units[i];
        if (o->is_join) continue;
        char e[24], p[24], t[24], ram[GS_SIZE_BUF], dev[GS_SIZE_BUF], ps[GS_SIZE_BUF], v[24],
            fc[24];
        int ran = o->outcome == GS_BATCH_PROVEN;
        fprintf(f, "%-24s %12s %12s %20s %10s %15s %10s %11s %9s %6" PRIu32 "  %s\n", o->id,
                fmt_time(e, sizeof e, o->execute_s), ran ? fmt_time(p, sizeof p, o->prove_s) : "-",
                ran && o->prove_s > 0 ? fmt_count(t, sizeof t, (double)o->cells / o->prove_s) : "-",
                ran ? gs_size_format(ram, o->peak_bytes) : "-",
                ran && o->device_peak_bytes ? gs_size_format(dev, o->device_peak_bytes) : "-",
                o->object_bytes ? gs_size_format(ps, o->object_bytes) : "-",
                o->verify_s > 0 ? fmt_time(v, sizeof v, o->verify_s) : "-",
                fmt_count(fc, sizeof fc, (double)o->fft_cost), o->shards, outcome_str(o->outcome));
    }
    fprintf(f, "\n%-24s %8s %12s %12s  %s\n", "join", "children", "join-time", "object-size",
            "outcome");
    for (uint32_t i = 0; i < res->num_units; i++) {
        const gs_batch_unit *o = &res->units[i];
        if (!o->is_join) continue;
        const bp_node *n = &r->plan.nodes[i];
        char p[24], os[GS_SIZE_BUF];
        fprintf(f, "%-24s %8" PRIu32 " %12s %12s  %s%s\n", o->id, n->num_children,
                o->outcome == GS_BATCH_PROVEN || o->outcome == GS_BATCH_REUSED
                    ? fmt_time(p, sizeof p, o->prove_s) : "-",
                o->object_bytes ? gs_size_format(os, o->object_bytes) : "-",
                outcome_str(o->outcome), n->split ? " (bisection: boundaries checked)" : "");
    }
}

void bp_report_end(bp_run *r) {
    const gs_batch_result *res = r->res;
    gs_engine_stats es;
    gs_engine_stats_get(r->eng, &es);
    double wall = res->wall_s > 0 ? res->wall_s : 1e-9;
    double engine_wall = es.wall_ns ? (double)es.wall_ns * 1e-9 : wall;
    char root[65] = "none";
    if (res->has_root) hex(root, &res->root_key);
    FILE *m = r->cfg->metrics;
    if (m) {
        for (uint32_t l = 0; l < r->lanes.num_lanes; l++) {
            gs_engine_lane_info li;
            if (gs_engine_lane_get(r->eng, &li, l) != GS_OK) continue;
            fprintf(m, "{\"lane\":%" PRIu32 ",\"device\":%d,\"busy\":%.6f,\"busy_share\":%.4f,"
                       "\"init\":%.6f,\"executed\":%" PRIu32 ",\"proven\":%" PRIu32
                       ",\"joined\":%" PRIu32 ",\"discarded\":%" PRIu32 ",\"failed\":%" PRIu32 "}\n",
                    l, li.device == GS_ENGINE_NONE ? -1 : (int)li.device, (double)li.busy_ns * 1e-9,
                    (double)li.busy_ns * 1e-9 / engine_wall, (double)li.init_ns * 1e-9, li.executed,
                    li.proven, li.joined, li.discarded, li.failed);
        }
        for (unsigned d = 0; d < r->lanes.num_devices; d++) {
            const gs_batch_device_time *t = res->device_time ? &res->device_time[d] : NULL;
            fprintf(m, "{\"device\":%u,\"simulated\":%s,", d, r->lanes.simulated ? "true" : "false");
            if (t && t->measured)
                fprintf(m, "\"busy\":%.6f,\"span\":%.6f,\"busy_share\":%.4f}\n", t->busy_s,
                        t->span_s, t->span_s > 0 ? t->busy_s / t->span_s : 0.0);
            else
                fputs("\"busy\":null,\"span\":null,\"busy_share\":null}\n", m);
        }
        fprintf(m, "{\"pipeline\":{\"wall\":%.6f,\"setup\":%.6f,\"claims\":%" PRIu32 ",\"joins\":%" PRIu32
                   ",\"claims_per_s\":%.3f,\"proven\":%" PRIu32 ",\"reused\":%" PRIu32
                   ",\"failed\":%" PRIu32 ",\"refused\":%" PRIu32 ",\"skipped\":%" PRIu32
                   ",\"corrupt\":%" PRIu32 ",\"bisected\":%" PRIu32 ",\"lanes\":%u,\"devices\":%u"
                   ",\"peak_rss_bytes\":%zu,\"host_peak_reserved_bytes\":%zu"
                   ",\"cancellations\":%" PRIu64 ",\"root\":",
                wall, res->setup_s, res->claims, res->joins, res->claims / wall, res->proven, res->reused,
                res->failed, res->refused, res->skipped, res->corrupt, res->bisected, res->lanes,
                res->devices, res->peak_rss_bytes, es.host_peak, es.cancellations);
        if (res->has_root) fprintf(m, "\"%s\"}}\n", root);
        else fputs("null}}\n", m);
        fflush(m);
    }
    FILE *f = r->cfg->report;
    if (!f) return;
    char b1[GS_SIZE_BUF], b2[GS_SIZE_BUF];
    fprintf(f, "batch report: %" PRIu32 " claims", res->claims);
    if (res->bisected)
        fprintf(f, " (%" PRIu32 " manifest claim%s bisected)", res->bisected, res->bisected == 1 ? "" : "s");
    fprintf(f, ", %" PRIu32 " joins, %u lane%s", res->joins, res->lanes, res->lanes == 1 ? "" : "s");
    if (r->lanes.num_devices)
        fprintf(f, " on %u %sdevice%s", r->lanes.num_devices, r->lanes.simulated ? "simulated " : "",
                r->lanes.num_devices == 1 ? "" : "s");
    else
        fputs(" on the host (CPU)", f);
    fprintf(f, "; host budget %s\n\n", gs_size_format(b1, r->lanes.host_budget == SIZE_MAX
                                                             ? GS_SIZE_UNLIMITED : r->lanes.host_budget));
    report_tables(r, f);
    fprintf(f, "\npipeline total: wall %.3f s (set-up %.3f s), %.2f claims/s, peak RAM %s, root %s\n",
            wall, res->setup_s, res->claims / wall, gs_size_format(b1, res->peak_rss_bytes), root);
    fprintf(f, "units: %" PRIu32 " proven, %" PRIu32 " reused, %" PRIu32 " failed, %" PRIu32
               " refused, %" PRIu32 " skipped; %" PRIu32 " corrupt objects replaced; %" PRIu64
               " cancellations\n", res->proven, res->reused, res->failed, res->refused,
            res->skipped, res->corrupt, es.cancellations);
    /* The device busy share: the union of every lane's device work on it
     * over the engine's run; none on simulated devices (CPU provers). */
    for (unsigned d = 0; d < r->lanes.num_devices; d++) {
        size_t bud = r->lanes.device_budget[d];
        const gs_batch_device_time *t = res->device_time ? &res->device_time[d] : NULL;
        char busy[64];
        if (t && t->measured && t->span_s > 0)
            snprintf(busy, sizeof busy, "busy %.1f%% of %.3f s", 100.0 * t->busy_s / t->span_s,
                     t->span_s);
        else
            snprintf(busy, sizeof busy, "busy n/a (%s)",
                     r->lanes.simulated ? "a simulated device" : "not measured");
        fprintf(f, "device %u: %s; budget %s, peak reserved %s\n", d, busy,
                gs_size_format(b1, bud == SIZE_MAX ? GS_SIZE_UNLIMITED : bud),
                gs_size_format(b2, gs_engine_device_peak(r->eng, d)));
    }
    fprintf(f, "host: peak reserved %s\n", gs_size_format(b1, es.host_peak));
    for (uint32_t l = 0; l < r->lanes.num_lanes; l++) {
        gs_engine_lane_info li;
        if (gs_engine_lane_get(r->eng, &li, l) != GS_OK) continue;
        char dev[24];
        if (li.device == GS_ENGINE_NONE) snprintf(dev, sizeof dev, "host");
        else snprintf(dev, sizeof dev, "device %" PRIu32, li.device);
        fprintf(f, "lane %" PRIu32 " (%s): busy %.1f%% (%" PRIu32 " executed, %" PRIu32
                   " proven, %" PRIu32 " joined)\n", l, dev,
                100.0 * (double)li.busy_ns * 1e-9 / engine_wall, li.executed, li.proven, li.joined);
    }
    if (es.finishers)
        fprintf(f, "finishers (%" PRIu32 "): busy %.1f%% each on average (%" PRIu64
                   " executed; verify, store, joins)\n",
                es.finishers, 100.0 * (double)es.finisher_busy_ns * 1e-9 / engine_wall / es.finishers,
                es.finisher_executed);
    fflush(f);
}
