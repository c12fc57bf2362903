/* The timeline on CUDA (include/gstark/obs.h: device operations and
 * gs_obs_write_chrome_trace; docs/gpu.md, "Reading a timeline"). A fib
 * proof on device 0, then a synth vm proof with two tables at once, each
 * recorded in an obs:
 *   - every device operation has a known name, device 0, a lane the proof
 *     used and its table, start <= end;
 *   - the operations of one lane (one stream) do not overlap: a stream runs
 *     one thing at a time (to a microsecond of cudaEventElapsedTime's float
 *     rounding);
 *   - the clocks agree: each operation lies inside a host span of its table
 *     (the commit, or the chain / the phases after it, which read their
 *     results back), and each starts after the host span that enqueued it
 *     began (quotient in quotient, deep in deep, fold in fri, grind in
 *     queries), within TOL (the reference event is placed on the host clock
 *     to a few microseconds);
 *   - their union is the device busy time the stats report;
 *   - the written trace names the device and its lanes and carries them.
 * Exits GS_TEST_SKIP (77) where no device exists. */
#include <stdlib.h>
#include <string.h>

#include "fib_air.h"
#include "gstark/cuda.h"
#include "gstark/gstark.h"
#include "gstark/synth.h"
#include "test_util.h"

#define TOL_NS 200000ull /* 0.2 ms */
#define LANE_EPS_NS 2000ull

static const char *const known[] = {"upload", "copy", "interpolate", "lde", "commit", "gather",
                                    "trace check", "aux trace", "quotient", "ood eval", "deep", "fold",
                                    "grind"};

static int is_known(const char *op) {
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(op, known[i])) return 1;
    return 0;
}

static int cmp_start(const void *pa, const void *pb) {
    const gs_obs_device_op *a = pa, *b = pb;
    if (a->lane != b->lane) return a->lane < b->lane ? -1 : 1;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* The union of the operations' intervals, in seconds (sorted by lane then
 * start: merged by a sort of their own). */
static int cmp_u64(const void *pa, const void *pb) {
    const uint64_t *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

static double union_s(const gs_obs_device_op *ops, size_t n) {
    uint64_t *iv = malloc(2 * n * sizeof *iv);
    if (!iv) return -1;
    for (size_t i = 0; i < n; i++) iv[2 * i] = ops[i].start_ns, iv[2 * i + 1] = ops[i].end_ns;
    qsort(iv, n, 2 * sizeof *iv, cmp_u64);
    uint64_t total = 0, a = 0, b = 0;
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        if (have && iv[2 * i] <= b) {
            if (iv[2 * i + 1] > b) b = iv[2 * i + 1];
            continue;
        }
        if (have) total += b - a;
        a = iv[2 * i], b = iv[2 * i + 1], have = 1;
    }
    if (have) total += b - a;
    free(iv);
    return (double)total / 1e9;
}

/* Checks the operations of a proof recorded in o; tables and lanes: how many
 * the proof had and could use. */
static void check_ops(gs_obs *o, const gs_prove_stats *st, uint32_t tables, int32_t lanes) {
    gs_obs_device_op *ops = NULL;
    size_t n = 0;
    gs_obs_span *sp = NULL;
    size_t ns = 0;
    CHECK(gs_obs_device_ops(o, &ops, &n) == GS_OK);
    CHECK(gs_obs_snapshot(o, &sp, &ns, NULL) == GS_OK);
    CHECK(n > 0);
    printf("  %zu device operations, %zu spans, device busy %.3f ms\n", n, ns, st->device_busy * 1e3);
    int *table_seen = calloc(tables, sizeof *table_seen);
    size_t copy_ops = 0;
    for (size_t i = 0; i < n; i++) {
        const gs_obs_device_op *d = &ops[i];
        CHECK(is_known(d->op));
        /* a lane's stream, or its copy stream for the main trace's uploads */
        int copies = d->lane >= GS_OBS_COPY_LANES;
        int32_t lane = copies ? d->lane - GS_OBS_COPY_LANES : d->lane;
        CHECK(d->device == 0 && lane >= 0 && lane < lanes);
        CHECK(!copies || !strcmp(d->op, "upload"));
        copy_ops += copies;
        CHECK(d->table >= 0 && (uint32_t)d->table < tables);
        CHECK(d->start_ns <= d->end_ns);
        if (d->table >= 0 && (uint32_t)d->table < tables && table_seen) table_seen[d->table] = 1;
        /* inside a host span of its table that reads its results back */
        int inside = 0;
        for (size_t k = 0; k < ns && !inside; k++) {
            const gs_obs_span *s = &sp[k];
            if (s->table != d->table || !s->done || (s->parent >= 0 && sp[s->parent].table == s->table))
                continue; /* the table's outermost spans: commit, chain (or the phases alone) */
            inside = d->start_ns + TOL_NS >= s->start_ns && d->end_ns <= s->end_ns + TOL_NS;
        }
        if (!inside) {
            /* a single-table proof: its spans are the phases, side by side */
            uint64_t lo = UINT64_MAX, hi = 0;
            for (size_t k = 0; k < ns; k++)
                if (sp[k].table == d->table && sp[k].done) {
                    if (sp[k].start_ns < lo) lo = sp[k].start_ns;
                    if (sp[k].end_ns > hi) hi = sp[k].end_ns;
                }
            inside = lo != UINT64_MAX && d->start_ns + TOL_NS >= lo && d->end_ns <= hi + TOL_NS;
        }
        if (!inside) printf("  %s of table %d at [%llu, %llu] ns is outside its table's spans\n",
                            d->op, d->table, (unsigned long long)d->start_ns,
                            (unsigned long long)d->end_ns);
        CHECK(inside);
        /* after the host span that enqueued it began */
        static const char *const by[][2] = {
            {"quotient", "quotient"}, {"deep", "deep"}, {"fold", "fri"}, {"grind", "queries"}};
        for (size_t m = 0; m < 4; m++) {
            if (strcmp(d->op, by[m][0])) continue;
            int after = 0;
            for (size_t k = 0; k < ns && !after; k++)
                after = sp[k].table == d->table && !strcmp(sp[k].phase, by[m][1]) &&
                        d->start_ns + TOL_NS >= sp[k].start_ns;
            if (!after)
                for (size_t k = 0; k < ns; k++)
                    if (sp[k].table == d->table && !strcmp(sp[k].phase, by[m][1]))
                        printf("  %s of table %d (lane %d) at [%llu, %llu] ns starts before its %s span "
                               "[%llu, %llu]\n", d->op, d->table, d->lane, (unsigned long long)d->start_ns,
                               (unsigned long long)d->end_ns, by[m][1], (unsigned long long)sp[k].start_ns,
                               (unsigned long long)sp[k].end_ns);
            CHECK(after);
        }
    }
    for (uint32_t t = 0; table_seen && t < tables; t++) CHECK(table_seen[t]);
    free(table_seen);
    CHECK(copy_ops >= tables); /* each table's main trace, on its lane's copy stream */
    /* one stream runs one thing at a time */
    qsort(ops, n, sizeof *ops, cmp_start);
    for (size_t i = 1; i < n; i++)
        if (ops[i].lane == ops[i - 1].lane) CHECK(ops[i].start_ns + LANE_EPS_NS >= ops[i - 1].end_ns);
    /* the union is the busy time of the stats (the same intervals) */
    double u = union_s(ops, n);
    CHECK(u >= 0 && u <= st->device_busy + 1e-4 && u + 1e-4 >= st->device_busy);
    free(ops);
    free(sp);
}

static void check_trace(gs_obs *o) {
    FILE *f = tmpfile();
    CHECK(f && gs_obs_write_chrome_trace(o, f) == GS_OK);
    if (!f) return;
    long len = ftell(f);
    char *text = malloc((size_t)len + 1);
    rewind(f);
    size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
    fclose(f);
    if (!text) return;
    text[got] = 0;
    CHECK(strstr(text, "{\"name\":\"gstark cuda:0\"}") != NULL);
    CHECK(strstr(text, "{\"name\":\"cuda:0 lane 0 (stream)\"}") != NULL);
    CHECK(strstr(text, "\"cat\":\"device\",\"pid\":2,\"tid\":1,") != NULL);
    CHECK(strstr(text, "{\"ph\":\"X\",\"name\":\"lde\",\"cat\":\"device\"") != NULL);
    free(text);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    if (gs_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return GS_TEST_SKIP;
    }
    /* fib 2^14, grinding 16 bits (on the device from 16 bits up) */
    const unsigned log_n = 14;
    gs_air *air = fib_air();
    gs_fp pub[4] = {1, 1};
    gs_fp *trace = fib_trace(log_n, pub);
    CHECK(air && trace);
    gs_params par = gs_params_default(80);
    par.grinding_bits = 16;
    par.num_queries = 32; /* 32 x 2 + 16 = 80 bits: the verifier's minimum */
    gs_obs *o = NULL;
    CHECK(gs_obs_new(&o) == GS_OK);
    gs_prove_stats st = {0};
    gs_prove_opts opts = {.backend = GS_BACKEND_CUDA, .obs = o, .stats = &st, .no_fallback = 1};
    gs_proof *p = NULL;
    CHECK(gs_prove(&p, air, trace, log_n, pub, &par, &opts) == GS_OK);
    CHECK(st.backend && !strcmp(st.backend, "cuda"));
    printf("fib 2^%u on cuda:0\n", log_n);
    if (p) {
        check_ops(o, &st, 1, 1);
        gs_obs_device_op *ops = NULL;
        size_t n = 0;
        CHECK(gs_obs_device_ops(o, &ops, &n) == GS_OK);
        static const char *const want[] = {"upload", "interpolate", "lde",  "commit",
                                           "quotient", "deep",     "fold", "grind", "gather"};
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            int found = 0;
            for (size_t i = 0; i < n && !found; i++) found = !strcmp(ops[i].op, want[w]);
            if (!found) printf("  no %s operation\n", want[w]);
            CHECK(found);
        }
        free(ops);
        check_trace(o);
    }
    gs_proof_free(p);
    gs_obs_free(o);

    /* synth vm, two tables at once: lanes 0 and 1, every table tagged */
    gs_multi_workload w = {0};
    CHECK(gs_synth_preset(&w, "vm", 8, 1) == GS_OK);
    gs_table_input *in = calloc(w.num_tables, sizeof *in);
    CHECK(in != NULL);
    for (uint32_t i = 0; in && i < w.num_tables; i++)
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
    o = NULL;
    CHECK(gs_obs_new(&o) == GS_OK);
    gs_prove_stats ms = {0};
    gs_prove_opts mo = {.backend = GS_BACKEND_CUDA, .obs = o, .stats = &ms, .no_fallback = 1,
                        .tables_parallel = 2};
    par.grinding_bits = 0;
    par.num_queries = 40; /* 40 x 2 = 80 bits */
    gs_multi_proof *mp = NULL;
    if (in) CHECK(gs_prove_multi(&mp, in, w.num_tables, &par, &mo) == GS_OK);
    printf("synth vm shrink 8 (%u tables), 2 at once, on cuda:0\n", w.num_tables);
    if (mp) {
        check_ops(o, &ms, w.num_tables, 2);
        check_trace(o);
    }
    gs_multi_proof_free(mp);
    gs_obs_free(o);
    free(in);
    gs_multi_workload_free(&w);
    free(trace);
    gs_air_free(air);
    return gs_test_done();
}
