/* Whole proofs on the CUDA backend against the CPU backend: the proof bytes
 * must be identical (they never depend on the backend) for fib, mix at
 * several widths, degrees and blowups, and every synth preset at small sizes with 1, 2 and 4 tables
 * at once, with Merkle cap heights 0..10 (the caps read from the device tree's stored levels,
 * a skipping tree's included). Then failures: for every device allocation, copy and launch a
 * proof makes, the run where exactly that one fails gives the CPU's bytes
 * through the fallback (counted, with the error's text) or, with fallback
 * off, a clean GS_ERR_CUDA; a device budget too small for any table gives the
 * same bytes through the fallback or GS_ERR_DEVICE_MEM; and the device's free
 * memory is back where it started. Exits 77 where no device exists.
 *
 * The multi-table sweep fails every 3rd operation (a table's operations
 * interleave with the others', so these still reach every stage).
 *
 * Options: --seed N, --quick (fewer sizes, every 3rd fault of the single
 * table, every 9th of the multi-table statement). */
#include <string.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "cuda/device.h"
#include "merkle/mixed.h"
#include "proof/shape.h"
#include "gstark/cuda.h"
#include "gstark/gstark.h"
#include "gstark/parallel.h"
#include "test_util.h"

static int g_quick;

typedef struct {
    uint8_t *bytes;
    size_t len;
} blob;

static void blob_free(blob *b) {
    free(b->bytes);
    b->bytes = NULL;
    b->len = 0;
}

static int same_blob(const blob *a, const blob *b) {
    return a->len == b->len && a->bytes && b->bytes && memcmp(a->bytes, b->bytes, a->len) == 0;
}

static gs_prove_opts opts_for(gs_backend_kind kind, gs_prove_stats *st) {
    gs_prove_opts o = {.allow_insecure = 1, .stats = st, .backend = kind};
    return o;
}

static gs_status prove_one(blob *out, const gs_workload *w, const gs_params *par,
                           const gs_prove_opts *o) {
    gs_proof *p = NULL;
    memset(out, 0, sizeof *out);
    gs_status s = gs_prove(&p, w->air, w->trace, w->log_n, w->pub, par, o);
    if (s == GS_OK) s = gs_proof_serialize(&out->bytes, &out->len, p);
    gs_proof_free(p);
    return s;
}

static gs_status prove_many(blob *out, const gs_multi_workload *w, const gs_params *par,
                            const gs_prove_opts *o) {
    gs_table_input *in = calloc(w->num_tables, sizeof *in);
    memset(out, 0, sizeof *out);
    if (!in) return GS_ERR_NOMEM;
    for (uint32_t i = 0; i < w->num_tables; i++)
        in[i] = (gs_table_input){.air = w->tables[i].air, .trace = w->tables[i].trace,
                                 .log_n = w->tables[i].log_n, .pub = w->tables[i].pub};
    gs_multi_proof *mp = NULL;
    gs_status s = gs_prove_multi(&mp, in, w->num_tables, par, o);
    if (s == GS_OK) s = gs_multi_proof_serialize(&out->bytes, &out->len, mp);
    gs_multi_proof_free(mp);
    free(in);
    return s;
}

static gs_params small_params(unsigned log_blowup) {
    gs_params p = {log_blowup, 3, 4, 12, 1, 0, 0, 0, 0};
    return p;
}

/* One statement on both backends: equal bytes, CUDA really used. */
static void check_single(const char *what, const gs_workload *w, const gs_params *par) {
    gs_prove_stats sc = {0}, sg = {0};
    gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc), og = opts_for(GS_BACKEND_CUDA, &sg);
    og.no_fallback = 1;
    blob a, b;
    printf("  %s\n", what);
    gs_status s1 = prove_one(&a, w, par, &oc), s2 = prove_one(&b, w, par, &og);
    if (s2 != GS_OK) fprintf(stderr, "%s: cuda: %s (%s)\n", what, gs_status_str(s2), gs_cuda_last_error());
    CHECK(s1 == GS_OK && s2 == GS_OK);
    int eq = same_blob(&a, &b);
    if (!eq) fprintf(stderr, "%s: CPU and CUDA proofs differ (%zu vs %zu bytes)\n", what, a.len, b.len);
    CHECK(eq);
    CHECK(sg.backend && !strcmp(sg.backend, "cuda") && sg.device_peak_bytes > 0);
    CHECK(sg.cpu_fallbacks == 0);
    /* Each backend's estimate bounds what it charged, and the device's also
     * the device's peak (trees that skip levels, their commit's scratch). */
    gs_mem_estimate ec, eg;
    CHECK(gs_estimate_table_on(&ec, w->air, w->log_n, par, GS_BACKEND_CPU) == GS_OK);
    CHECK(gs_estimate_table_on(&eg, w->air, w->log_n, par, GS_BACKEND_CUDA) == GS_OK);
    CHECK(sc.peak_bytes <= ec.total);
    CHECK(sg.peak_bytes <= eg.total && sg.device_peak_bytes <= eg.total);
    if (sc.peak_bytes > ec.total || sg.peak_bytes > eg.total || sg.device_peak_bytes > eg.total)
        fprintf(stderr, "%s: cpu peak %zu / estimate %zu, cuda peak %zu device peak %zu / estimate %zu\n",
                what, sc.peak_bytes, ec.total, sg.peak_bytes, sg.device_peak_bytes, eg.total);
    blob_free(&a), blob_free(&b);
}

static void test_single(void) {
    int n = 0;
    for (unsigned log_n = 1; log_n <= (g_quick ? 10u : 14u); log_n++) {
        gs_workload w = {0};
        CHECK(gs_airs_fib(&w, log_n, 1, 1) == GS_OK);
        for (unsigned lb = 1; lb <= 3; lb++) {
            gs_params par = small_params(lb);
            par.log_arity = 1 + (log_n + lb) % 4; /* FRI folding by 2, 4, 8 and 16 */
            par.cap_height = (log_n + 2 * lb) % 7; /* Merkle caps 0..6, some above a tree's depth */
            par.coset_leaves = (log_n + lb / 2) % 2; /* leaves of one row or of a folding coset */
            char what[96];
            snprintf(what, sizeof what, "fib 2^%u blowup %u fold by %u cap height %u%s", log_n, 1u << lb,
                     1u << par.log_arity, par.cap_height, par.coset_leaves ? " coset leaves" : "");
            check_single(what, &w, &par);
            n++;
        }
        gs_workload_free(&w);
    }
    if (!g_quick) { /* trees of 2^21 leaves: two passes of the device's skipping commit */
        gs_workload w = {0};
        CHECK(gs_airs_fib(&w, 19, 1, 1) == GS_OK);
        gs_params par = small_params(2);
        par.log_arity = 3;
        check_single("fib 2^19 blowup 4 fold by 8", &w, &par);
        par.coset_leaves = 1;
        check_single("fib 2^19 blowup 4 fold by 8 coset leaves", &w, &par);
        n++;
        gs_workload_free(&w);
        n++;
    }
    /* A skipping tree (2^18 leaves of 2 columns: levels from 3 up kept) with
     * the largest cap, read from its stored level depth - 10. */
    gs_workload big = {0};
    CHECK(gs_airs_fib(&big, 17, 1, 1) == GS_OK);
    gs_params pbig = small_params(1);
    pbig.cap_height = GS_MAX_CAP_HEIGHT;
    check_single("fib 2^17 blowup 2 fold by 2 cap height 10", &big, &pbig);
    gs_workload_free(&big);
    n++;
    static const struct {
        uint32_t cols;
        unsigned degree, log_n, log_blowup;
    } mixes[] = {{1, 2, 3, 1}, {7, 3, 6, 1}, {16, 3, 9, 2}, {33, 5, 8, 2},
                 {64, 4, 11, 2}, {100, 9, 7, 3}, {256, 3, 10, 2}};
    for (size_t i = 0; i < sizeof mixes / sizeof mixes[0]; i++) {
        gs_mix_params mp = {mixes[i].cols, mixes[i].degree, mixes[i].log_n, 7 + i};
        gs_workload w = {0};
        CHECK(gs_airs_mix(&w, &mp) == GS_OK);
        gs_params par = small_params(mixes[i].log_blowup);
        par.log_arity = 1 + (uint32_t)(i % 4);
        par.cap_height = (uint32_t)(i % 5);
        par.coset_leaves = (uint32_t)(i % 2);
        char what[96];
        snprintf(what, sizeof what, "mix %u cols degree %u 2^%u fold by %u%s", mp.cols, mp.degree, mp.log_n,
                 1u << par.log_arity, par.coset_leaves ? " coset leaves" : "");
        check_single(what, &w, &par);
        gs_workload_free(&w);
        n++;
    }
    printf("single tables: %d statements, CPU and CUDA proofs identical\n", n);
}

/* Multi-table statements: the same bytes on both backends at k = 1, 2, 4 (coset leaves in every other case).
 * shared = 1: one FRI for all tables (params.shared_fri; the tables' DEEP words
 * are read by the shared FRI on another lane), caps 0 and 2; shared = 2: and
 * one tree per round (the rows' digests from the device, Keccak-256 and
 * Poseidon2 in turn), cap 0; else caps 0..3. */
static void test_multi(int shared) {
    static const struct {
        const char *name;
        unsigned shrink;
    } cases[] = {{"uniform", 12}, {"skew", 14}, {"vm", 12}, {"vm", 9}};
    const char *what = shared == 2 ? "shared trees" : shared ? "shared FRI" : "multi-table";
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (g_quick && cases[c].shrink < 10) continue;
        gs_multi_workload w = {0};
        CHECK(gs_synth_preset(&w, cases[c].name, cases[c].shrink, 3) == GS_OK);
        gs_params par = small_params(2);
        par.cap_height = shared == 2 ? 0 : shared ? (uint32_t)(c % 2) * 2 : (uint32_t)c;
        par.shared_fri = (uint32_t)shared;
        par.coset_leaves = shared ? 0 : (uint32_t)(c % 2); /* not with a shared FRI */
        if (shared == 2 && c % 2) par.hash = GS_HASH_POSEIDON2; /* the device's Poseidon2 row digests */
        gs_prove_stats sc = {0};
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc);
        blob ref;
        CHECK(prove_many(&ref, &w, &par, &oc) == GS_OK);
        static const unsigned ks[] = {1, 2, 4};
        for (size_t k = 0; k < 3; k++) {
            gs_prove_stats sg = {0};
            gs_prove_opts og = opts_for(GS_BACKEND_CUDA, &sg);
            og.tables_parallel = ks[k];
            og.no_fallback = 1;
            blob b;
            printf("  %s %s/%u k=%u\n", what, cases[c].name, cases[c].shrink, ks[k]);
            gs_status s = prove_many(&b, &w, &par, &og);
            if (s != GS_OK) fprintf(stderr, "%s %s/%u k=%u: %s (%s)\n", what, cases[c].name, cases[c].shrink, ks[k], gs_status_str(s), gs_cuda_last_error());
            CHECK(s == GS_OK);
            int eq = same_blob(&ref, &b);
            if (!eq) fprintf(stderr, "%s %s/%u k=%u: CPU and CUDA proofs differ\n", what, cases[c].name, cases[c].shrink, ks[k]);
            CHECK(eq);
            CHECK(sg.device_peak_bytes > 0 && sg.cpu_fallbacks == 0);
            blob_free(&b);
            n++;
        }
        blob_free(&ref);
        gs_multi_workload_free(&w);
    }
    printf("%s: %d runs (k = 1, 2, 4), CPU and CUDA proofs identical\n", what, n);
}

/* Poseidon2 proofs (params.hash): the same bytes on both backends, single tables (grinding at
 * 16 bits too: the CUDA backend grinds a Poseidon2 transcript on the host) and multi-table at
 * k = 1, 2; the proofs verify and differ from the Keccak-256 ones. */
static void test_poseidon2(void) {
    int n = 0;
    for (unsigned log_n = 2; log_n <= (g_quick ? 9u : 13u); log_n += 3) {
        gs_workload w = {0};
        CHECK(gs_airs_fib(&w, log_n, 1, 1) == GS_OK);
        gs_params par = small_params(2);
        par.hash = GS_HASH_POSEIDON2;
        if (log_n == 8) par.grinding_bits = 16;
        char what[64];
        snprintf(what, sizeof what, "poseidon2 fib 2^%u", log_n);
        check_single(what, &w, &par);
        gs_proof *p = NULL;
        gs_prove_opts og = opts_for(GS_BACKEND_CUDA, NULL);
        og.no_fallback = 1;
        CHECK(gs_prove(&p, w.air, w.trace, w.log_n, w.pub, &par, &og) == GS_OK);
        /* small_params are below the verifier's default minimum: ask for 1 bit */
        CHECK(p && p->params.hash == GS_HASH_POSEIDON2 && gs_verify(w.air, p, 1) == GS_OK);
        blob k, q;
        gs_params kp = par;
        kp.hash = GS_HASH_KECCAK256;
        CHECK(prove_one(&k, &w, &kp, &og) == GS_OK && prove_one(&q, &w, &par, &og) == GS_OK);
        CHECK(!same_blob(&k, &q));
        blob_free(&k), blob_free(&q);
        gs_proof_free(p);
        gs_workload_free(&w);
        n++;
    }
    gs_mix_params mp = {33, 3, 9, 11};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = small_params(2);
    par.hash = GS_HASH_POSEIDON2;
    check_single("poseidon2 mix 33 cols degree 3 2^9", &w, &par);
    gs_workload_free(&w);
    n++;
    gs_multi_workload mw = {0};
    CHECK(gs_synth_preset(&mw, "uniform", 12, 3) == GS_OK);
    gs_prove_stats sc = {0};
    gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc);
    blob ref;
    CHECK(prove_many(&ref, &mw, &par, &oc) == GS_OK);
    for (unsigned k = 1; k <= 2; k++) {
        gs_prove_stats sg = {0};
        gs_prove_opts og = opts_for(GS_BACKEND_CUDA, &sg);
        og.tables_parallel = k;
        og.no_fallback = 1;
        blob b;
        gs_status s = prove_many(&b, &mw, &par, &og);
        if (s != GS_OK) fprintf(stderr, "poseidon2 uniform/12 k=%u: %s (%s)\n", k, gs_status_str(s), gs_cuda_last_error());
        CHECK(s == GS_OK && same_blob(&ref, &b));
        CHECK(sg.device_peak_bytes > 0 && sg.cpu_fallbacks == 0);
        blob_free(&b);
        n++;
    }
    blob_free(&ref);
    gs_multi_workload_free(&mw);
    printf("poseidon2: %d runs, CPU and CUDA proofs identical\n", n);
}

/* A wrong witness: CUDA (whose host check runs beside the device work)
 * refuses it with the CPU's error and returns no proof. */
static void test_wrong_witness(void) {
    gs_mix_params mp = {9, 3, 8, 2};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = small_params(2);
    int n = 0;
    for (int t = 0; t < 4; t++) {
        size_t cell = (size_t)gs_test_below((size_t)9 << 8);
        w.trace[cell] = gs_fp_add(w.trace[cell], 1);
        gs_prove_stats sc = {0}, sg = {0};
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc), og = opts_for(GS_BACKEND_CUDA, &sg);
        blob a, b;
        gs_status s1 = prove_one(&a, &w, &par, &oc), s2 = prove_one(&b, &w, &par, &og);
        CHECK(s1 == GS_ERR_AIR_UNSATISFIED && s2 == s1 && !b.bytes);
        w.trace[cell] = gs_fp_sub(w.trace[cell], 1);
        n++;
    }
    gs_workload_free(&w);
    gs_multi_workload mw = {0};
    CHECK(gs_synth_preset(&mw, "vm", 13, 6) == GS_OK);
    uint32_t mw_tables = mw.num_tables;
    int refused = 0;
    for (uint32_t i = 0; i < mw.num_tables; i++) {
        gs_workload *tw = &mw.tables[i];
        size_t cell = (size_t)gs_test_below((size_t)gs_air_num_cols(tw->air) << tw->log_n);
        tw->trace[cell] = gs_fp_add(tw->trace[cell], 1);
        gs_prove_stats sc = {0}, sg = {0};
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc), og = opts_for(GS_BACKEND_CUDA, &sg);
        blob a, b;
        gs_status s1 = prove_many(&a, &mw, &par, &oc), s2 = prove_many(&b, &mw, &par, &og);
        if (s1 != s2) fprintf(stderr, "wrong witness in table %u: cpu %s, cuda %s\n", i, gs_status_str(s1), gs_status_str(s2));
        CHECK(s2 == s1 && (s1 == GS_OK ? same_blob(&a, &b) : !b.bytes));
        refused += s1 != GS_OK;
        blob_free(&a), blob_free(&b);
        tw->trace[cell] = gs_fp_sub(tw->trace[cell], 1);
        n++;
    }
    gs_multi_workload_free(&mw);
    printf("wrong witnesses: %d statements (%d of them multi-table, %d refused there), the same "
           "status on both backends\n", n, (int)mw_tables, refused);
}


/* Every operation of `kind` the statement's CUDA proof makes fails once, in
 * turn: with fallback the bytes equal ref and the failure is counted; without
 * it the proof fails with GS_ERR_CUDA. With a shared FRI a failure there
 * moves every table still on the device to the CPU: one fallback each. */
static long sweep_faults(const char *what, gs_cuda_fault_kind kind, const gs_workload *single,
                         const gs_multi_workload *multi, const gs_params *par, const blob *ref) {
    unsigned most = par->shared_fri ? multi->num_tables : 1;
    static const char *names[] = {"alloc", "copy", "launch"};
    long fired = 0, moved_all = 0, step = (g_quick ? 3 : 1) * (single ? 1 : 3);
    for (long nth = 1;; nth += step) {
        int done = 0;
        for (int fallback = 1; fallback >= 0; fallback--) {
            gs_prove_stats sg = {0};
            gs_prove_opts og = opts_for(GS_BACKEND_CUDA, &sg);
            og.no_fallback = !fallback;
            og.tables_parallel = 2;
            long before = gs_cuda_fault_count(kind);
            gs_cuda_fault_inject(kind, nth);
            blob b;
            gs_status s = single ? prove_one(&b, single, par, &og) : prove_many(&b, multi, par, &og);
            gs_cuda_fault_inject(kind, 0);
            long ops = gs_cuda_fault_count(kind) - before;
            if (ops < nth) { /* this run made fewer operations: nothing was injected */
                CHECK(s == GS_OK && same_blob(&b, ref) && sg.cpu_fallbacks == 0);
                blob_free(&b);
                done = 1;
                break;
            }
            if (fallback) {
                int ok = s == GS_OK && same_blob(&b, ref) && sg.cpu_fallbacks >= 1 &&
                         sg.cpu_fallbacks <= most &&
                         strncmp(sg.device_error, "injected fault", 14) == 0;
                if (!ok)
                    fprintf(stderr, "%s: %s fault %ld with fallback: %s, %u fallbacks, '%s'\n", what,
                            names[kind], nth, gs_status_str(s), sg.cpu_fallbacks, sg.device_error);
                CHECK(ok);
                fired++;
                moved_all += sg.cpu_fallbacks > 1;
            } else {
                if (s != GS_ERR_CUDA)
                    fprintf(stderr, "%s: %s fault %ld without fallback: %s\n", what, names[kind],
                            nth, gs_status_str(s));
                CHECK(s == GS_ERR_CUDA && b.bytes == NULL);
            }
            blob_free(&b);
        }
        if (done) break;
    }
    printf("%s: %ld injected %s failures, each a CPU-fallback proof equal to the CPU's or a clean error"
           " (%ld moved several tables)\n", what, fired, names[kind], moved_all);
    return moved_all;
}

static void test_faults(void) {
    printf("faults...\n");
    gs_mix_params mp = {12, 3, 7, 3};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = small_params(2);
    gs_prove_stats sc = {0};
    gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc);
    blob ref;
    CHECK(prove_one(&ref, &w, &par, &oc) == GS_OK);
    gs_prove_stats warm = {0};
    gs_prove_opts ow = opts_for(GS_BACKEND_CUDA, &warm);
    blob b;
    CHECK(prove_one(&b, &w, &par, &ow) == GS_OK); /* builds the cached twiddle tables */
    blob_free(&b);
    gs_multi_workload mw = {0};
    CHECK(gs_synth_preset(&mw, "vm", 13, 4) == GS_OK);
    blob mref;
    CHECK(prove_many(&mref, &mw, &par, &oc) == GS_OK);
    CHECK(prove_many(&b, &mw, &par, &ow) == GS_OK); /* and the vm's cached tables */
    blob_free(&b);
    /* What this process holds on the device (not the device's free memory,
     * which other processes move): every failure below must give back all
     * it took. */
    long live0 = gs_cuda_live_allocations();
    for (int k = 0; k < 3; k++) sweep_faults("mix 12 cols 2^7", (gs_cuda_fault_kind)k, &w, NULL, &par, &ref);

    for (int k = 0; k < 3; k++) sweep_faults("synth vm/13", (gs_cuda_fault_kind)k, NULL, &mw, &par, &mref);
    gs_params shared = par;
    shared.shared_fri = 1;
    blob sref;
    CHECK(prove_many(&sref, &mw, &shared, &oc) == GS_OK);
    long in_fri = 0; /* failures in the shared FRI itself move every table */
    for (int k = 0; k < 3; k++)
        in_fri += sweep_faults("synth vm/13, shared FRI", (gs_cuda_fault_kind)k, NULL, &mw, &shared, &sref);
    CHECK(in_fri > 0);
    blob_free(&sref);

    /* A device budget that holds no table: every table goes to the CPU. */
    gs_prove_stats sg = {0};
    gs_prove_opts og = opts_for(GS_BACKEND_CUDA, &sg);
    og.device_mem_budget = 4096;
    CHECK(prove_many(&b, &mw, &par, &og) == GS_OK);
    unsigned fell = sg.cpu_fallbacks;
    CHECK(same_blob(&b, &mref) && fell == mw.num_tables);
    blob_free(&b);
    og.no_fallback = 1;
    CHECK(prove_many(&b, &mw, &par, &og) == GS_ERR_DEVICE_MEM && b.bytes == NULL);
    printf("device budget of 4 KiB: %u of %u tables fell back, same proof; without fallback "
           "GS_ERR_DEVICE_MEM\n", fell, mw.num_tables);

    long live1 = gs_cuda_live_allocations();
    CHECK(live1 == live0);
    printf("live device allocations before and after the failures: %ld and %ld\n", live0, live1);
    blob_free(&ref), blob_free(&mref);
    gs_workload_free(&w);
    gs_multi_workload_free(&mw);
}

/* Staged transfers: round trips of odd sizes through a stage, and a copy
 * failure in the middle of each direction leaves the stage usable; with a
 * small stage and memcpy, and with the lanes' stage size and host copy
 * (gs_device_host_copy over 4 threads: pieces split unevenly). */
static void test_staging(size_t chunk, gs_cuda_host_copy_fn copy) {
    printf("staging (%zu KiB chunks, %s)...\n", chunk >> 10, copy ? "the lanes' host copy" : "memcpy");
    size_t sizes[] = {0, 1, 8, chunk - 8, chunk, chunk + 8, 5 * chunk + 24, (size_t)37 << 20};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    gs_cuda_stage *st = NULL;
    void *stream = NULL, *d = NULL;
    CHECK(gs_cuda_stage_new(&st, chunk) == GS_OK);
    if (st) gs_cuda_stage_set_host_copy(st, copy);
    CHECK(gs_cuda_stream_new(&stream) == GS_OK);
    size_t most = 0;
    for (size_t k = 0; k < ns; k++) most = sizes[k] > most ? sizes[k] : most;
    uint8_t *a = malloc(most), *b = malloc(most);
    CHECK(a && b && gs_cuda_buf_alloc(&d, most, stream) == GS_OK);
    if (!a || !b || !d || !st) return;
    unsigned threads = gs_threads_get_local();
    gs_threads_set_local(4);
    for (size_t i = 0; i < most; i++) a[i] = (uint8_t)gs_test_u64();
    for (size_t k = 0; k < ns; k++) {
        memset(b, 0, most);
        CHECK(gs_cuda_stage_upload(st, d, a, sizes[k], stream) == GS_OK);
        CHECK(gs_cuda_stage_download(st, b, d, sizes[k], stream) == GS_OK);
        CHECK(memcmp(a, b, sizes[k]) == 0);
    }
    size_t big = most;
    gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 4);
    CHECK(gs_cuda_stage_upload(st, d, a, big, stream) == GS_ERR_CUDA);
    gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 6);
    CHECK(gs_cuda_stage_download(st, b, d, big, stream) == GS_ERR_CUDA);
    gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 0);
    memset(b, 0, most);
    CHECK(gs_cuda_stage_upload(st, d, a, big, stream) == GS_OK);
    CHECK(gs_cuda_stage_download(st, b, d, big, stream) == GS_OK);
    CHECK(memcmp(a, b, big) == 0);
    gs_threads_set_local(threads);
    gs_cuda_buf_free(d, stream);
    gs_cuda_stream_free(stream);
    gs_cuda_stage_free(st);
    free(a), free(b);
    printf("staging: %zu sizes round-trip exactly; failures part-way leave the stage usable\n", ns);
}

/* A stage, a stream, a device buffer and a pinned host buffer of most bytes:
 * what test_pinned and test_pieces upload with. */
typedef struct {
    gs_cuda_stage *st;
    void *stream, *d, *pin;
} upload_rig;

static int rig_open(upload_rig *r, size_t chunk, size_t most) {
    memset(r, 0, sizeof *r);
    CHECK(gs_cuda_stage_new(&r->st, chunk) == GS_OK && gs_cuda_stream_new(&r->stream) == GS_OK);
    CHECK(gs_cuda_host_alloc(&r->pin, most) == GS_OK && r->pin);
    CHECK(r->stream && gs_cuda_buf_alloc(&r->d, most, r->stream) == GS_OK);
    return r->st && r->pin && r->d;
}

static void rig_close(upload_rig *r) {
    if (r->d) gs_cuda_buf_free(r->d, r->stream);
    if (r->stream) gs_cuda_stream_free(r->stream);
    gs_cuda_stage_free(r->st);
    gs_cuda_host_free(r->pin);
}

/* Traces in pinned host memory (gs_cuda_host_alloc) go up in one DMA: the
 * uploaded bytes are the source's at any offset and size, a copy failure is
 * reported and leaves the stage usable, and proofs from pinned traces equal
 * the CPU's from pageable ones. */
static void test_pinned(void) {
    printf("pinned uploads...\n");
    size_t chunk = (size_t)1 << 20, most = (size_t)37 << 20;
    upload_rig rig;
    uint8_t *b = malloc(most);
    CHECK(b != NULL);
    if (!rig_open(&rig, chunk, most) || !b) {
        rig_close(&rig), free(b);
        return;
    }
    gs_cuda_stage *st = rig.st;
    void *stream = rig.stream, *d = rig.d;
    uint8_t *a = rig.pin;
    for (size_t i = 0; i < most; i++) a[i] = (uint8_t)gs_test_u64();
    size_t offs[] = {0, 8, 4096 + 24}, sizes[] = {1, 8, chunk + 8, 5 * chunk + 24, most - 4096 - 24};
    for (size_t o = 0; o < 3; o++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k] < most - offs[o] ? sizes[k] : most - offs[o];
            memset(b, 0, n);
            CHECK(gs_cuda_stage_upload(st, d, a + offs[o], n, stream) == GS_OK);
            CHECK(gs_cuda_stage_download(st, b, d, n, stream) == GS_OK);
            CHECK(memcmp(a + offs[o], b, n) == 0);
        }
    gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 1);
    CHECK(gs_cuda_stage_upload(st, d, a, most, stream) == GS_ERR_CUDA);
    gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 0);
    CHECK(gs_cuda_stage_upload(st, d, a, most, stream) == GS_OK);
    CHECK(gs_cuda_stage_download(st, b, d, most, stream) == GS_OK);
    CHECK(memcmp(a, b, most) == 0);
    rig_close(&rig);
    free(b);

    /* whole proofs: a single table (two passes of the tree) and a bus statement */
    gs_workload w = {0};
    CHECK(gs_airs_fib(&w, 19, 1, 1) == GS_OK);
    gs_params par = small_params(2);
    size_t nf = (size_t)gs_air_num_cols(w.air) << w.log_n;
    gs_fp *pt = NULL;
    CHECK(gs_cuda_host_alloc((void **)&pt, nf * sizeof *pt) == GS_OK);
    if (pt) {
        memcpy(pt, w.trace, nf * sizeof *pt);
        gs_workload pw = w;
        pw.trace = pt;
        gs_prove_stats sc = {0}, sg = {0};
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc), og = opts_for(GS_BACKEND_CUDA, &sg);
        og.no_fallback = 1;
        blob x, y;
        CHECK(prove_one(&x, &w, &par, &oc) == GS_OK && prove_one(&y, &pw, &par, &og) == GS_OK);
        CHECK(same_blob(&x, &y) && sg.backend && !strcmp(sg.backend, "cuda"));
        blob_free(&x), blob_free(&y);
        gs_cuda_host_free(pt);
    }
    gs_workload_free(&w);
    gs_multi_workload mw = {0};
    CHECK(gs_synth_preset(&mw, "vm", 8, 1) == GS_OK);
    gs_multi_workload pm = mw;
    gs_workload tabs[GS_SYNTH_MAX_TABLES];
    CHECK(mw.num_tables <= GS_SYNTH_MAX_TABLES);
    int ok = 1;
    for (uint32_t i = 0; i < mw.num_tables && i < GS_SYNTH_MAX_TABLES; i++) {
        tabs[i] = mw.tables[i];
        size_t n = (size_t)gs_air_num_cols(mw.tables[i].air) << mw.tables[i].log_n;
        ok &= gs_cuda_host_alloc((void **)&tabs[i].trace, n * sizeof(gs_fp)) == GS_OK;
        if (tabs[i].trace) memcpy(tabs[i].trace, mw.tables[i].trace, n * sizeof(gs_fp));
    }
    CHECK(ok);
    pm.tables = tabs;
    if (ok) {
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, NULL), og = opts_for(GS_BACKEND_CUDA, NULL);
        og.no_fallback = 1;
        blob x, y;
        CHECK(prove_many(&x, &mw, &par, &oc) == GS_OK && prove_many(&y, &pm, &par, &og) == GS_OK);
        CHECK(same_blob(&x, &y));
        blob_free(&x), blob_free(&y);
    }
    for (uint32_t i = 0; i < mw.num_tables && i < GS_SYNTH_MAX_TABLES; i++) gs_cuda_host_free(tabs[i].trace);
    gs_multi_workload_free(&mw);
    printf("pinned uploads: exact at every offset and size; proofs equal the CPU's\n");
}

/* Check mode on the device (transitions on the uploaded trace, boundaries on
 * the host): a wrong cell in the first, a middle or the last row of narrow
 * and wide traces (the kernel's register tiers), and public inputs that break
 * only a boundary, are refused with the CPU's status; a correct trace is not. */
static void test_trace_check(void) {
    printf("device trace check...\n");
    gs_params par = small_params(1);
    static const uint32_t cols[] = {4, 64, 300, 512};
    int n = 0;
    for (int c = 0; c < 4; c++) {
        gs_mix_params mp = {cols[c], 3, 9, (uint64_t)c + 1};
        gs_workload w = {0};
        CHECK(gs_airs_mix(&w, &mp) == GS_OK);
        size_t rows = (size_t)1 << w.log_n;
        size_t at[4] = {0, rows / 2 + 3, rows - 1, (size_t)gs_test_below(rows)};
        for (int k = 0; k < 5; k++) {
            size_t cell = 0;
            if (k < 4) {
                cell = (size_t)gs_test_below(cols[c]) * rows + at[k];
                w.trace[cell] = gs_fp_add(w.trace[cell], 1);
            }
            gs_prove_opts oc = opts_for(GS_BACKEND_CPU, NULL), og = opts_for(GS_BACKEND_CUDA, NULL);
            og.no_fallback = 1;
            blob a, b;
            gs_status s1 = prove_one(&a, &w, &par, &oc), s2 = prove_one(&b, &w, &par, &og);
            if (s1 != s2) fprintf(stderr, "mix %u cols, case %d: cpu %s, cuda %s (%s)\n", cols[c], k,
                                  gs_status_str(s1), gs_status_str(s2), gs_cuda_last_error());
            CHECK(s1 == (k < 4 ? GS_ERR_AIR_UNSATISFIED : GS_OK) && s2 == s1);
            CHECK(k < 4 ? !b.bytes : same_blob(&a, &b));
            blob_free(&a), blob_free(&b);
            if (k < 4) w.trace[cell] = gs_fp_sub(w.trace[cell], 1);
            n++;
        }
        gs_workload_free(&w);
    }
    gs_workload f = {0};
    CHECK(gs_airs_fib(&f, 12, 1, 1) == GS_OK);
    uint32_t np = gs_air_num_public(f.air);
    for (uint32_t i = 0; i < np; i++) { /* each public input breaks one boundary only */
        f.pub[i] = gs_fp_add(f.pub[i], 1);
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, NULL), og = opts_for(GS_BACKEND_CUDA, NULL);
        og.no_fallback = 1;
        blob a, b;
        gs_status s1 = prove_one(&a, &f, &par, &oc), s2 = prove_one(&b, &f, &par, &og);
        CHECK(s1 == GS_ERR_AIR_UNSATISFIED && s2 == s1 && !b.bytes);
        blob_free(&a), blob_free(&b);
        f.pub[i] = gs_fp_sub(f.pub[i], 1);
        n++;
    }
    gs_workload_free(&f);
    printf("device trace check: %d traces, the CPU's status on each\n", n);
}

/* The main trace's upload in pieces on the lane's copy stream, overlapping
 * the previous pieces' NTTs (cuda_extend): uploads queued piece by piece
 * from pageable and pinned memory land exactly, a copy failure part-way
 * leaves the stage usable; whole proofs with pieces of one and of three
 * columns (an uneven last piece) equal the CPU's, for a single table and a
 * pinned trace, and a bus statement (the device keeps the evaluations) with
 * a column a piece; and check mode refuses a wrong cell read from the
 * pieces' evaluations. */
static void test_pieces(void) {
    printf("pieces...\n");
    size_t chunk = (size_t)1 << 20, most = (size_t)13 << 20, piece = 3 * chunk + 8;
    upload_rig rig;
    uint8_t *a = malloc(most), *b = malloc(most);
    CHECK(a && b);
    if (!rig_open(&rig, chunk, most) || !a || !b) {
        rig_close(&rig), free(a), free(b);
        return;
    }
    gs_cuda_stage *st = rig.st;
    void *stream = rig.stream, *d = rig.d, *pin = rig.pin;
    for (size_t i = 0; i < most; i++) a[i] = (uint8_t)gs_test_u64();
    memcpy(pin, a, most);
    for (int pinned = 0; pinned < 2; pinned++) {
        const uint8_t *src = pinned ? (const uint8_t *)pin : a;
        memset(b, 0, most);
        gs_status r = gs_cuda_stage_copies_follow(st, stream);
        for (size_t off = 0; r == GS_OK && off < most; off += piece)
            r = gs_cuda_stage_upload_async(st, (uint8_t *)d + off, src + off,
                                           most - off < piece ? most - off : piece, stream);
        CHECK(r == GS_OK && gs_cuda_stage_wait_copies(st) == GS_OK);
        CHECK(gs_cuda_stage_download(st, b, d, most, stream) == GS_OK);
        CHECK(memcmp(a, b, most) == 0);
        gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 2);
        r = GS_OK;
        for (size_t off = 0; r == GS_OK && off < most; off += piece)
            r = gs_cuda_stage_upload_async(st, (uint8_t *)d + off, src + off,
                                           most - off < piece ? most - off : piece, stream);
        CHECK(r == GS_ERR_CUDA);
        gs_cuda_fault_inject(GS_CUDA_FAULT_COPY, 0);
        memset(b, 0, most);
        CHECK(gs_cuda_stage_copies_follow(st, stream) == GS_OK);
        CHECK(gs_cuda_stage_upload_async(st, d, src, most, stream) == GS_OK &&
              gs_cuda_stage_wait_copies(st) == GS_OK);
        CHECK(gs_cuda_stage_download(st, b, d, most, stream) == GS_OK);
        CHECK(memcmp(a, b, most) == 0);
    }
    rig_close(&rig);
    free(a), free(b);

    size_t saved = gs_cuda_extend_piece_bytes;
    gs_params par = small_params(2);
    int proofs = 0;
    for (int cols_per = 1; cols_per <= 3; cols_per += 2) {
        gs_mix_params mp = {64, 3, 11, 7};
        gs_workload w = {0};
        CHECK(gs_airs_mix(&w, &mp) == GS_OK);
        size_t col = sizeof(gs_fp) << w.log_n, n = (size_t)mp.cols << w.log_n;
        gs_cuda_extend_piece_bytes = (size_t)cols_per * col;
        check_single(cols_per == 1 ? "mix 64 x 2^11, a column a piece" : "mix 64 x 2^11, three columns a piece",
                     &w, &par);
        gs_fp *pt = NULL;
        CHECK(gs_cuda_host_alloc((void **)&pt, n * sizeof *pt) == GS_OK);
        if (pt) {
            memcpy(pt, w.trace, n * sizeof *pt);
            gs_workload pw = w;
            pw.trace = pt;
            check_single("  the same from a pinned trace", &pw, &par);
            gs_cuda_host_free(pt);
        }
        size_t cell = (size_t)gs_test_below(mp.cols) * ((size_t)1 << w.log_n) + gs_test_below((size_t)1 << w.log_n);
        w.trace[cell] = gs_fp_add(w.trace[cell], 1);
        gs_prove_opts og = opts_for(GS_BACKEND_CUDA, NULL);
        og.no_fallback = 1;
        blob x;
        CHECK(prove_one(&x, &w, &par, &og) == GS_ERR_AIR_UNSATISFIED && !x.bytes);
        gs_workload_free(&w);
        gs_multi_workload mw = {0};
        CHECK(gs_synth_preset(&mw, "vm", 8, 1) == GS_OK);
        /* below a column of any of its tables: a column a piece */
        gs_cuda_extend_piece_bytes = (size_t)cols_per * sizeof(gs_fp);
        gs_prove_opts oc = opts_for(GS_BACKEND_CPU, NULL);
        blob y, z;
        CHECK(prove_many(&y, &mw, &par, &oc) == GS_OK && prove_many(&z, &mw, &par, &og) == GS_OK);
        CHECK(same_blob(&y, &z));
        blob_free(&y), blob_free(&z);
        gs_multi_workload_free(&mw);
        proofs += 4;
    }
    gs_cuda_extend_piece_bytes = saved;
    printf("pieces: queued uploads exact from pageable and pinned memory; %d proofs in pieces equal the CPU's, "
           "a wrong cell refused\n", proofs);
}

/* A table proven lean on the device (a device budget between its lean and
 * its whole estimate): with coset leaves its DEEP word is folded as it is
 * made (deep_fold), which only lean tables do on the device. The bytes are
 * the CPU's, the table went lean, and the device peak is within the lean
 * estimate; the same statement with room to spare keeps the separate
 * kernels and peaks higher. */
/* The backend's mixed_build (shared trees): every kept node equal to the host
 * build's, for both hashes, with one matrix's digests in host memory (a table on
 * the CPU): on the device, and under a device budget that holds the digests but
 * not the tree (then on the host). Nothing left allocated. */
static void test_mixed_build(void) {
    static const unsigned lr[3] = {9, 8, 9};
    const unsigned skip = 3, depth = 9;
    gs_digest *h[3];
    for (int t = 0; t < 3; t++) {
        h[t] = malloc(sizeof(gs_digest) << lr[t]);
        CHECK(h[t] != NULL);
        for (size_t i = 0; h[t] && i < ((size_t)4 << lr[t]); i++) {
            gs_fp v = gs_test_fp();
            memcpy(h[t][i / 4].b + 8 * (i % 4), &v, 8);
        }
    }
    size_t count = ((size_t)2 << (depth - skip)) - 1, digests = (sizeof(gs_digest) << 9) * 2;
    long live0 = gs_cuda_live_allocations();
    int n = 0;
    for (int hi = 0; hi < 2; hi++) {
        gs_hash_id id = hi ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256;
        gs_mixed_tree *ref = NULL;
        CHECK(gs_mixed_build_skip(&ref, id, (const gs_digest *const *)h, lr, 3, skip) == GS_OK);
        for (int b = 0; b < 2; b++) {
            /* unlimited; then room for the two device digest buffers and less than the build needs */
            size_t budget = b ? digests + 4096 : 0;
            gs_device *d = NULL;
            gs_backend *be = NULL;
            CHECK(gs_device_open(&d, GS_DEVICE_CUDA, 0, 1, budget, 0) == GS_OK);
            CHECK(d && gs_device_bind(d, 0) == GS_OK);
            if (d) gs_device_begin(d);
            CHECK(d && gs_device_backend_new(&be, d, -1) == GS_OK);
            if (!be) {
                gs_device_close(d);
                continue;
            }
            gs_buf bufs[3] = {{0}};
            const gs_buf *rows[3];
            for (int t = 0; t < 3; t++) {
                size_t bytes = sizeof(gs_digest) << lr[t];
                if (t == 1) { /* a table on the CPU: host memory */
                    bufs[t].ptr = h[t], bufs[t].bytes = bytes, bufs[t].host = 1;
                } else {
                    CHECK(be->iface->alloc(be, NULL, &bufs[t], bytes) == GS_OK && !bufs[t].host);
                    CHECK(be->iface->upload(be, &bufs[t], h[t], bytes) == GS_OK);
                }
                rows[t] = &bufs[t];
            }
            gs_mixed_tree *got = NULL;
            gs_status s = be->iface->mixed_build(be, NULL, &got, id, rows, lr, 3, skip);
            if (s != GS_OK) fprintf(stderr, "mixed_build %s budget %zu: %s (%s)\n", gs_hash_name(id), budget, gs_status_str(s), gs_cuda_last_error());
            CHECK(s == GS_OK && got && gs_mixed_depth(got) == depth && gs_mixed_skip(got) == skip);
            CHECK(got && ref && !memcmp(gs_mixed_nodes(got), gs_mixed_nodes(ref), count * sizeof(gs_digest)));
            gs_mixed_free(got);
            for (int t = 0; t < 3; t++)
                if (t != 1) be->iface->free(be, &bufs[t]);
            be->iface->destroy(be);
            /* made on the device (its operation in the busy log) only when the budget had room */
            gs_device_op *ops = NULL;
            size_t nops = 0, on_device = 0;
            CHECK(gs_device_ops(d, &ops, &nops) == GS_OK);
            for (size_t k = 0; k < nops; k++) on_device += !strcmp(ops[k].op, "mixed tree");
            free(ops);
            CHECK(on_device == (b ? 0u : 1u));
            if (b) CHECK(gs_device_peak(d) <= budget);
            gs_device_close(d);
            n++;
        }
        gs_mixed_free(ref);
    }
    CHECK(gs_cuda_live_allocations() == live0);
    for (int t = 0; t < 3; t++) free(h[t]);
    printf("mixed_build: %d builds (Keccak-256, Poseidon2; on the device, and on the host under a "
           "tight budget) equal the host's\n", n);
}

static void test_lean(void) {
    printf("lean tables on the device...\n");
    gs_workload w = {0};
    CHECK(gs_airs_fib(&w, 16, 1, 1) == GS_OK);
    gs_params par = small_params(2);
    par.coset_leaves = 1;
    gs_shape sh;
    CHECK(gs_shape_make(&sh, &par, w.log_n, gs_air_num_cols(w.air), gs_air_num_chunks(w.air)) == GS_OK);
    CHECK(sh.fri_first == 1); /* layer 0 not committed: the fused path applies */
    gs_mem_estimate e;
    CHECK(gs_estimate_table_on(&e, w.air, w.log_n, &par, GS_BACKEND_CUDA) == GS_OK);
    CHECK(e.lean_total < e.total);
    gs_prove_stats sc = {0}, sl = {0}, sw = {0};
    gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc), ol = opts_for(GS_BACKEND_CUDA, &sl),
                  ow = opts_for(GS_BACKEND_CUDA, &sw);
    ol.no_fallback = ow.no_fallback = 1;
    ol.device_mem_budget = e.lean_total + (e.total - e.lean_total) / 2;
    blob ref, lean, whole;
    CHECK(prove_one(&ref, &w, &par, &oc) == GS_OK);
    gs_status s = prove_one(&lean, &w, &par, &ol);
    if (s != GS_OK) fprintf(stderr, "lean: %s (%s)\n", gs_status_str(s), gs_cuda_last_error());
    CHECK(s == GS_OK && same_blob(&ref, &lean));
    CHECK(sl.budget_lean_tables == 1 && sl.cpu_fallbacks == 0);
    CHECK(sl.device_peak_bytes > 0 && sl.device_peak_bytes <= e.lean_total);
    CHECK(prove_one(&whole, &w, &par, &ow) == GS_OK && same_blob(&ref, &whole));
    CHECK(sw.budget_lean_tables == 0 && sw.device_peak_bytes <= e.total);
    CHECK(sw.device_peak_bytes > sl.device_peak_bytes);
    printf("lean: device peak %zu bytes (lean estimate %zu), whole %zu bytes (estimate %zu); same bytes\n",
           sl.device_peak_bytes, e.lean_total, sw.device_peak_bytes, e.total);
    blob_free(&ref), blob_free(&lean), blob_free(&whole);
    gs_workload_free(&w);
}

/* Out of core (docs/gpu.md, "Out of core"): device budgets below a table's
 * need put its large buffers in page-locked host memory, the kernels read
 * them over the bus and the NTTs of their columns run in pieces. The bytes
 * are the CPU's, nothing falls back, the device's charged peak stays within
 * its budget and some bytes did go out of core; a wrong witness is refused. Single mix tables (check
 * mode on: the uploaded evaluations out of core too) at three budgets: the
 * LDE out of core with the coefficients on the device, then both, then the
 * LDE with room for its leaves to be hashed as it is made (it is then not
 * held anywhere: less than its bytes went out of core), and on a
 * resident context twice; and bus tables at half their largest table's
 * need, with every buffer that does not fit allowed out
 * (gs_cuda_spill_min_bytes 0). A shared FRI is not in it: its tables' held
 * bytes must fit the budget together (refused up front otherwise). */
static void ooc_case(const char *what, const gs_workload *w, const gs_multi_workload *mw,
                     const gs_params *par, const blob *ref, size_t budget, unsigned k, size_t unheld) {
    gs_prove_stats sg = {0};
    gs_prove_opts og = opts_for(GS_BACKEND_CUDA, &sg);
    og.no_fallback = 1;
    og.device_mem_budget = budget;
    og.tables_parallel = k;
    blob b;
    gs_status s = w ? prove_one(&b, w, par, &og) : prove_many(&b, mw, par, &og);
    if (s != GS_OK) fprintf(stderr, "%s: %s (%s)\n", what, gs_status_str(s), sg.device_error);
    CHECK(s == GS_OK && same_blob(ref, &b));
    CHECK(sg.cpu_fallbacks == 0 && (unheld ? sg.spill_peak_bytes < unheld : sg.spill_peak_bytes > 0));
    CHECK(sg.device_peak_bytes > 0 && sg.device_peak_bytes <= budget);
    printf("  %s: budget %zu, device peak %zu, out of core %zu bytes; same bytes as the CPU\n", what,
           budget, sg.device_peak_bytes, sg.spill_peak_bytes);
    blob_free(&b);
}

static void test_out_of_core(void) {
    printf("out of core...\n");
    gs_workload w = {0};
    gs_mix_params mp = {.cols = 160, .degree = 3, .log_n = 14, .seed = 5};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = small_params(2);
    gs_prove_stats sc = {0};
    gs_prove_opts oc = opts_for(GS_BACKEND_CPU, &sc);
    blob ref;
    CHECK(prove_one(&ref, &w, &par, &oc) == GS_OK);
    /* 20 MiB of trace (checked in place), an LDE of 80 MiB, its tree 4 MiB
     * (it stores every level of a table this wide) and as much scratch.
     * The coefficients and the rows' sponges (200 bytes a row) and digests
     * (32): with room for both the leaves are hashed as the LDE is made,
     * which is then not held; 2 MiB short of that the LDE is held out of
     * core; four fifths of the trace sends the coefficients out too. */
    size_t trace = (size_t)mp.cols * sizeof(gs_fp) << mp.log_n;
    size_t tree = (size_t)64 << (mp.log_n + par.log_blowup);
    size_t lde_rows = (size_t)1 << (mp.log_n + par.log_blowup);
    size_t held = trace + 232 * lde_rows - ((size_t)2 << 20), unheld = 2 * trace + 2 * tree;
    ooc_case("mix 160 x 2^14, the LDE held out of core", &w, NULL, &par, &ref, held, 1, 0);
    ooc_case("mix 160 x 2^14, coefficients and LDE out", &w, NULL, &par, &ref, trace / 5 * 4, 1, 0);
    ooc_case("mix 160 x 2^14, the LDE not held, its leaves hashed as it is made", &w, NULL, &par, &ref,
             unheld, 1, trace << par.log_blowup);
    /* A resident context proves again from the blocks it kept. */
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CUDA, .device_mem_budget = held, .no_fallback = 1};
    gs_prover *pv = NULL;
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    for (int round = 0; pv && round < 2; round++) {
        gs_prove_stats st = {0};
        gs_prove_opts o = opts_for(GS_BACKEND_CUDA, &st);
        gs_proof *p = NULL;
        blob b = {0};
        gs_status s = gs_prover_prove(pv, &p, w.air, w.trace, w.log_n, w.pub, &par, &o);
        if (s == GS_OK) s = gs_proof_serialize(&b.bytes, &b.len, p);
        gs_proof_free(p);
        if (s != GS_OK) fprintf(stderr, "resident, round %d: %s (%s)\n", round, gs_status_str(s), st.device_error);
        CHECK(s == GS_OK && same_blob(&ref, &b) && st.spill_peak_bytes > 0 && st.cpu_fallbacks == 0);
        blob_free(&b);
    }
    gs_prover_free(pv);
    blob_free(&ref);
    /* A wrong witness with the LDE out of core (check mode then checks the
     * uploaded trace in place before its extension), with the coefficients
     * out too, and with the LDE unheld: refused as on the CPU, no proof. */
    size_t cell = (size_t)gs_test_below(mp.cols) * ((size_t)1 << mp.log_n) + gs_test_below((size_t)1 << mp.log_n);
    w.trace[cell] = gs_fp_add(w.trace[cell], 1);
    size_t budgets[3] = {held, trace / 5 * 4, unheld};
    for (int b = 0; b < 3; b++) {
        gs_prove_stats sg = {0};
        gs_prove_opts og = opts_for(GS_BACKEND_CUDA, &sg);
        og.no_fallback = 1;
        og.device_mem_budget = budgets[b];
        blob x = {0};
        CHECK(prove_one(&x, &w, &par, &og) == GS_ERR_AIR_UNSATISFIED && !x.bytes);
    }
    w.trace[cell] = gs_fp_sub(w.trace[cell], 1);
    gs_workload_free(&w);

    gs_multi_workload mw = {0};
    CHECK(gs_synth_preset(&mw, "vm", 11, 3) == GS_OK);
    CHECK(prove_many(&ref, &mw, &par, &oc) == GS_OK);
    size_t most = 0;
    for (uint32_t i = 0; i < mw.num_tables; i++) {
        gs_mem_estimate e;
        CHECK(gs_estimate_table_on(&e, mw.tables[i].air, mw.tables[i].log_n, &par, GS_BACKEND_CUDA) == GS_OK);
        if (e.total > most) most = e.total;
    }
    size_t min = gs_cuda_spill_min_bytes;
    gs_cuda_spill_min_bytes = 0;
    ooc_case("synth vm/11, k=1", NULL, &mw, &par, &ref, most / 2, 1, 0);
    ooc_case("synth vm/11, k=2", NULL, &mw, &par, &ref, most / 2, 2, 0);
    /* Shared trees hold every table whole: a budget below that is refused up
     * front (docs/multi-table.md), not proven out of core. The build's own
     * room is test_mixed_build's. */
    gs_params trees = par;
    trees.shared_fri = 2;
    gs_prove_opts ot = opts_for(GS_BACKEND_CUDA, NULL);
    ot.no_fallback = 1;
    ot.device_mem_budget = most / 2;
    blob tb = {0};
    CHECK(prove_many(&tb, &mw, &trees, &ot) == GS_ERR_BUDGET && tb.bytes == NULL);
    gs_cuda_spill_min_bytes = min;
    blob_free(&ref);
    gs_multi_workload_free(&mw);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress shows even if a run is cut short */
    gs_test_init(argc, argv);
    for (int i = 1; i < argc; i++) g_quick |= !strcmp(argv[i], "--quick");
    if (gs_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return GS_TEST_SKIP;
    }
    test_staging((size_t)1 << 20, NULL);
    test_staging(GS_DEVICE_STAGE_CHUNK, gs_device_host_copy);
    test_pinned();
    test_pieces();
    test_lean();
    test_out_of_core();
    test_single();
    test_multi(0);
    test_multi(1);
    test_multi(2);
    test_mixed_build();
    test_poseidon2();
    test_wrong_witness();
    test_trace_check();
    test_faults();
    return gs_test_done();
}
