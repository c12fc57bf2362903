/* The page cache of util/pages.h, through its own counters:
 *   - reuse: a freed block serves the next allocation of its size (the same
 *     pages, contents kept), a larger one is split (the rest stays cached),
 *     smaller ones are moved into the fresh range (only what they do not
 *     cover is fresh);
 *   - the bound: after every step of a random sequence, live + cached <=
 *     high, and high is the most live bytes seen since the trim; at most
 *     GS_PAGES_CACHE_SLOTS blocks;
 *   - accounting: everything freed and trimmed leaves live = cached = 0; a
 *     cap leaves at most that many bytes cached;
 *   - threads: four threads allocating, filling, checking and freeing at
 *     once never see another's bytes, and the counters add up after;
 *   - the prover: a proof takes pages from the cache (quotient words become
 *     the chunks' LDE), a resident prover's second proof maps little fresh,
 *     a prover with a small budget starts its proof with the cache capped at
 *     it, and freeing a prover (every one-shot proof does) empties the cache. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "gstark/gstark.h"
#include "test_util.h"
#include "util/pages.h"

#define MiB ((size_t)1 << 20)

/* A reused block's bytes as they were left; a poisoned build
 * (-DGS_PAGES_POISON) fills every block it hands out with 0xA5 instead. */
#ifdef GS_PAGES_POISON
#define KEPT(x) 0xA5
#else
#define KEPT(x) (x)
#endif

static gs_pages_stats stats(void) {
    gs_pages_stats s;
    gs_pages_get_stats(&s);
    return s;
}

static void check_bound(void) {
    gs_pages_stats s = stats();
    CHECK(s.live + s.cached <= s.high);
    CHECK(s.blocks <= GS_PAGES_CACHE_SLOTS);
}

static void test_reuse(void) {
    gs_pages_trim();
    gs_pages_stats s0 = stats();
    CHECK(s0.cached == 0 && s0.blocks == 0);

    /* Same size: the same block, its bytes as left. */
    uint8_t *a = gs_pages_alloc(MiB);
    CHECK(a && ((uintptr_t)a & 63) == 0);
    if (!a) return;
    memset(a, 0x5C, MiB);
    gs_pages_free(a);
    gs_pages_stats s1 = stats();
    CHECK(s1.live == s0.live && s1.cached > MiB && s1.blocks == 1);
    uint8_t *b = gs_pages_alloc(MiB);
    gs_pages_stats s2 = stats();
    CHECK(b == a);
    CHECK(b && b[0] == KEPT(0x5C) && b[MiB - 1] == KEPT(0x5C)); /* not fresh pages */
    CHECK(s2.cached == 0 && s2.fresh_bytes == s1.fresh_bytes);
    CHECK(s2.reused_bytes - s1.reused_bytes == s1.cached);
    gs_pages_free(b);

    /* Larger: split, the rest stays cached. */
    uint8_t *big = gs_pages_alloc(8 * MiB);
    CHECK(big != NULL);
    gs_pages_free(big);
    gs_pages_stats s3 = stats();
    uint8_t *small = gs_pages_alloc(2 * MiB);
    gs_pages_stats s4 = stats();
    CHECK(small == big);
    CHECK(s4.fresh_bytes == s3.fresh_bytes);
    CHECK(s4.live + s4.cached == s3.live + s3.cached); /* nothing unmapped, nothing new */
    CHECK(s4.cached >= 6 * MiB && s4.cached < 7 * MiB);
    check_bound();

    /* Smaller than asked: moved into the new range, only the rest is fresh. */
    gs_pages_free(small);
    gs_pages_trim();
    uint8_t *c = gs_pages_alloc(MiB);
    CHECK(c != NULL);
    if (c) memset(c, 0x3E, MiB);
    gs_pages_free(c);
    gs_pages_stats s5 = stats();
    uint8_t *d = gs_pages_alloc(4 * MiB);
    gs_pages_stats s6 = stats();
    CHECK(d != NULL);
    CHECK(d && d[0] == KEPT(0x3E) && d[MiB - 1] == KEPT(0x3E));
    CHECK(s6.reused_bytes - s5.reused_bytes == s5.cached);
    CHECK(s6.fresh_bytes - s5.fresh_bytes == s6.live - s5.live - s5.cached);
    if (d) memset(d, 1, 4 * MiB); /* the grown block is whole */

    /* Several smaller ones: moved into one allocation, largest first, the
     * last one split; nothing fresh. */
    gs_pages_free(d);
    gs_pages_trim();
    uint8_t *g[3] = {gs_pages_alloc(MiB), gs_pages_alloc(2 * MiB), gs_pages_alloc(3 * MiB)};
    CHECK(g[0] && g[1] && g[2]);
    for (int i = 0; i < 3; i++)
        if (g[i]) memset(g[i], 0x10 + i, (size_t)(i + 1) * MiB);
    for (int i = 0; i < 3; i++) gs_pages_free(g[i]);
    gs_pages_stats s8 = stats();
    uint8_t *h = gs_pages_alloc(11 * MiB / 2);
    gs_pages_stats s9 = stats();
    CHECK(h != NULL);
    CHECK(s9.fresh_bytes == s8.fresh_bytes);
    CHECK(s9.live + s9.cached == s8.live + s8.cached);
    CHECK(s9.cached > 0 && s9.cached < MiB && s9.blocks == 1); /* the rest of the 1 MiB one */
    /* The 3 MiB block's pages first, then the 2 MiB one's: a block is its
     * 64-byte header and bytes rounded up to whole pages. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len3 = (64 + 3 * MiB + page - 1) / page * page;
    CHECK(h && h[0] == KEPT(0x12) && h[3 * MiB - 1] == KEPT(0x12) && h[len3] == KEPT(0x11) &&
          h[len3 + 2 * MiB - 1] == KEPT(0x11));
    if (h) memset(h, 2, 11 * MiB / 2); /* the whole range is mapped */
    gs_pages_free(h);
    check_bound();
    d = NULL;

    /* The cap: at most that many bytes stay cached, smallest blocks first. */
    gs_pages_trim();
    void *e[3] = {gs_pages_alloc(MiB), gs_pages_alloc(2 * MiB), gs_pages_alloc(4 * MiB)};
    CHECK(e[0] && e[1] && e[2]);
    for (int i = 0; i < 3; i++) gs_pages_free(e[i]);
    gs_pages_cap(5 * MiB);
    gs_pages_stats s7 = stats();
    CHECK(s7.cached <= 5 * MiB && s7.cached > 4 * MiB && s7.blocks == 1); /* the 4 MiB one */
    gs_pages_cap(0);
    CHECK(stats().cached == 0);

    /* Small blocks never enter the cache. */
    gs_pages_trim();
    void *t = gs_pages_alloc(GS_PAGES_MIN - 1);
    CHECK(t && ((uintptr_t)t & 63) == 0);
    gs_pages_free(t);
    CHECK(stats().cached == 0);
    gs_pages_free(NULL);
}

static void test_bound(void) {
    gs_pages_trim();
    enum { SLOTS = 40, STEPS = 3000 };
    void *held[SLOTS] = {0};
    size_t most = stats().live;
    for (int i = 0; i < STEPS; i++) {
        size_t k = gs_test_below(SLOTS);
        if (held[k]) {
            gs_pages_free(held[k]);
            held[k] = NULL;
        } else {
            /* 64 KiB .. 4 MiB, many sizes, a few repeated often */
            size_t bytes = gs_test_below(4) == 0 ? 3 * MiB / 2
                                                 : GS_PAGES_MIN + gs_test_below(4 * MiB - GS_PAGES_MIN);
            held[k] = gs_pages_alloc(bytes);
            CHECK(held[k] != NULL);
            if (held[k]) memset(held[k], (int)k, bytes < 4096 ? bytes : 4096);
        }
        gs_pages_stats s = stats();
        if (s.live > most) most = s.live;
        CHECK(s.high == most);
        CHECK(s.live + s.cached <= s.high);
        CHECK(s.blocks <= GS_PAGES_CACHE_SLOTS);
        /* The trim in the middle starts high again from live. */
        if (i == STEPS / 2) {
            gs_pages_trim();
            s = stats();
            CHECK(s.cached == 0 && s.blocks == 0 && s.high == s.live);
            most = s.live;
        }
    }
    gs_pages_stats s = stats();
    CHECK(s.reused_bytes > 0);
    for (int k = 0; k < SLOTS; k++) gs_pages_free(held[k]);
    gs_pages_trim();
    s = stats();
    CHECK(s.live == 0 && s.cached == 0 && s.blocks == 0 && s.high == 0);
}

typedef struct {
    unsigned id;
    uint64_t rng;
    int bad;
} worker;

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static void *run_worker(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 300; i++) {
        size_t words = (GS_PAGES_MIN + next(&w->rng) % (2 * MiB)) / 8;
        uint64_t *p = gs_pages_alloc(words * 8);
        if (!p) {
            w->bad = 2;
            continue;
        }
        uint64_t tag = ((uint64_t)w->id << 32) | (uint64_t)i;
        for (size_t j = 0; j < words; j += 512) p[j] = tag ^ j;
        p[words - 1] = tag ^ (words - 1); /* the same rule as the sampled words */
        for (size_t j = 0; j < words; j += 512)
            if (p[j] != (tag ^ j)) w->bad = 1;
        if (p[words - 1] != (tag ^ (words - 1))) w->bad = 1;
        gs_pages_free(p);
    }
    return NULL;
}

static void test_threads(void) {
    gs_pages_trim();
    enum { T = 4 };
    pthread_t tid[T];
    worker w[T];
    for (unsigned t = 0; t < T; t++) {
        w[t] = (worker){t, gs_test_u64() | 1, 0};
        CHECK(pthread_create(&tid[t], NULL, run_worker, &w[t]) == 0);
    }
    for (unsigned t = 0; t < T; t++) {
        pthread_join(tid[t], NULL);
        if (w[t].bad) printf("worker %u: %s\n", t, w[t].bad == 2 ? "out of memory" : "bytes changed");
        CHECK(!w[t].bad);
    }
    gs_pages_stats s = stats();
    CHECK(s.live == 0);
    CHECK(s.cached <= s.high);
    gs_pages_trim();
    CHECK(stats().cached == 0);
}

static const gs_params g_par = {2, 3, 4, 40, 1, 0, 0, 0, 0};

static void test_prover(void) {
    gs_workload w;
    CHECK(gs_airs_fib(&w, 12, 1, 1) == GS_OK);
    gs_pages_trim();

    /* One-shot: reuses within the proof, trims at the end. */
    gs_pages_stats s0 = stats();
    gs_proof *p = NULL;
    CHECK(gs_prove(&p, w.air, w.trace, w.log_n, w.pub, &g_par, NULL) == GS_OK);
    gs_proof_free(p);
    gs_pages_stats s1 = stats();
    CHECK(s1.reused_bytes > s0.reused_bytes);
    CHECK(s1.cached == 0 && s1.live == 0);

    /* Resident: the second proof finds the first one's pages. */
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CPU};
    gs_prover *pv = NULL;
    CHECK(gs_prover_new(&pv, &cfg) == GS_OK);
    uint64_t fresh[2] = {0, 0};
    for (int k = 0; k < 2 && pv; k++) {
        gs_pages_stats a = stats();
        p = NULL;
        CHECK(gs_prover_prove(pv, &p, w.air, w.trace, w.log_n, w.pub, &g_par, NULL) == GS_OK);
        gs_proof_free(p);
        gs_pages_stats b = stats();
        fresh[k] = b.fresh_bytes - a.fresh_bytes;
        CHECK(b.live == 0 && b.cached > 0 && b.cached <= b.high);
    }
    printf("resident prover, fib 2^12: %llu bytes mapped fresh by the first proof, %llu by the second\n",
           (unsigned long long)fresh[0], (unsigned long long)fresh[1]);
    CHECK(fresh[1] * 4 <= fresh[0]);

    /* A prover with a small budget finds the cache capped at it: its proof
     * maps about as much fresh as the first one did. */
    gs_prover_cfg small = {.backend = GS_BACKEND_CPU, .mem_budget = GS_PAGES_MIN};
    gs_prover *pv2 = NULL;
    CHECK(gs_prover_new(&pv2, &small) == GS_OK);
    if (pv2) {
        gs_pages_stats a = stats();
        CHECK(a.cached > GS_PAGES_MIN);
        p = NULL;
        CHECK(gs_prover_prove(pv2, &p, w.air, w.trace, w.log_n, w.pub, &g_par, NULL) == GS_OK);
        gs_proof_free(p);
        uint64_t f = stats().fresh_bytes - a.fresh_bytes;
        printf("after a cap at %zu bytes: %llu bytes mapped fresh\n", GS_PAGES_MIN, (unsigned long long)f);
        CHECK(f * 2 >= fresh[0]);
    }
    gs_prover_free(pv2);
    gs_prover_free(pv);
    CHECK(stats().cached == 0);
    gs_workload_free(&w);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_reuse();
    test_bound();
    test_threads();
    test_prover();
    return gs_test_done();
}
