/* gs_parallel_for covers [0, n) exactly once with ranges of at least the
 * grain, for any thread count, under a shared count too (chunks taken in
 * turn); the thread knobs behave as documented, the shared count
 * (util/parallel_share.h) included, and a loop running under a share that
 * rises takes more threads before it ends. */
#include <time.h>
#include <pthread.h>
#include <stdatomic.h>

#include "gstark/parallel.h"
#include "gstark/status.h"
#include "test_util.h"
#include "util/parallel_share.h"

typedef struct {
    atomic_uchar *hits;
    size_t grain, n;
    atomic_int short_ranges;
} cover_ctx;

static void mark(void *p, size_t b, size_t e) {
    cover_ctx *c = p;
    if (e - b < c->grain && !(b == 0 && e == c->n)) atomic_fetch_add(&c->short_ranges, 1);
    for (size_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
}

/* The count every range of a loop saw (the threads it started read it). */
typedef struct {
    atomic_uint min_seen, max_seen;
} seen_ctx;

static void see(void *p, size_t b, size_t e) {
    (void)b, (void)e;
    seen_ctx *c = p;
    unsigned t = gs_threads_get(), v;
    while ((v = atomic_load(&c->min_seen)) > t && !atomic_compare_exchange_weak(&c->min_seen, &v, t)) {}
    while ((v = atomic_load(&c->max_seen)) < t && !atomic_compare_exchange_weak(&c->max_seen, &v, t)) {}
}

/* A shared count is read at every loop, by the loop's threads too; 0 in it
 * falls back to the fixed counts; gs_threads_set_local removes it. */
static void test_share(void) {
    gs_threads_set(2);
    atomic_uint share;
    atomic_init(&share, 3);
    gs_threads_set_local_share(&share);
    CHECK(gs_threads_get_local_share() == &share);
    CHECK(gs_threads_get() == 3);
    seen_ctx c;
    atomic_init(&c.min_seen, 1000), atomic_init(&c.max_seen, 0);
    gs_parallel_for(90, 1, see, &c);
    CHECK(atomic_load(&c.min_seen) == 3 && atomic_load(&c.max_seen) == 3);
    atomic_store(&share, 5); /* raised while the worker runs: its next loop takes it */
    atomic_init(&c.min_seen, 1000), atomic_init(&c.max_seen, 0);
    gs_parallel_for(90, 1, see, &c);
    CHECK(atomic_load(&c.min_seen) == 5 && atomic_load(&c.max_seen) == 5);
    atomic_store(&share, 0);
    CHECK(gs_threads_get() == 2);
    atomic_store(&share, 4);
    gs_threads_set_local(1); /* a fixed count replaces the share */
    CHECK(gs_threads_get_local_share() == NULL);
    CHECK(gs_threads_get() == 1);
    gs_threads_set_local(0);
    gs_threads_set(0);
}

/* A loop whose first range raises the share from 1 to 4: the ranges after
 * it run on more than one thread (each range waits 2 ms, so the threads the
 * caller starts have chunks left to take), and every index is covered once. */
typedef struct {
    atomic_uint *share;
    atomic_uchar *hits;
    pthread_t ids[64];
    atomic_uint nids;
} grow_ctx;

static void grow(void *p, size_t b, size_t e) {
    grow_ctx *c = p;
    atomic_store(c->share, 4);
    pthread_t me = pthread_self();
    unsigned k = atomic_fetch_add(&c->nids, 1);
    if (k < 64) c->ids[k] = me;
    for (size_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
}

static void test_grow(void) {
    gs_threads_set(4);
    atomic_uint share;
    atomic_init(&share, 1);
    gs_threads_set_local_share(&share);
    grow_ctx c = {.share = &share, .hits = calloc(160, 1)};
    atomic_init(&c.nids, 0);
    gs_parallel_for(160, 1, grow, &c);
    int bad = 0, other = 0;
    for (size_t i = 0; i < 160; i++) bad += c.hits[i] != 1;
    unsigned ranges = atomic_load(&c.nids);
    for (unsigned k = 1; k < ranges && k < 64; k++) other |= !pthread_equal(c.ids[k], c.ids[0]);
    CHECK(bad == 0);
    CHECK(ranges > 1);
    CHECK(other); /* threads joined the running loop */
    gs_threads_set_local_share(NULL);
    gs_threads_set(0);
    free(c.hits);
}

static void *local_override(void *arg) {
    (void)arg;
    gs_threads_set_local(3);
    unsigned got = gs_threads_get();
    return (void *)(size_t)got;
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    static const size_t ns[] = {0, 1, 2, 7, 64, 1000, 12345};
    static const size_t grains[] = {0, 1, 3, 64, 5000};
    atomic_uint share;
    for (unsigned t = 1; t <= 10; t++) {
        /* 1..5: the fixed count; 6..10: a share of 1..5 (under a process count of 3) */
        gs_threads_set(t <= 5 ? t : 3);
        if (t > 5) atomic_init(&share, t - 5), gs_threads_set_local_share(&share);
        CHECK(gs_threads_get() == (t <= 5 ? t : t - 5));
        for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
            for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
                size_t n = ns[a];
                cover_ctx c = {calloc(n + 1, 1), grains[g] ? grains[g] : 1, n, 0};
                gs_parallel_for(n, grains[g], mark, &c);
                int bad = 0;
                for (size_t i = 0; i < n; i++) bad += c.hits[i] != 1;
                CHECK(bad == 0);
                CHECK(atomic_load(&c.short_ranges) == 0);
                free(c.hits);
            }
        gs_threads_set_local_share(NULL);
    }
    /* The per-thread override wins on its thread only. */
    gs_threads_set(2);
    pthread_t th;
    void *res = NULL;
    CHECK(pthread_create(&th, NULL, local_override, NULL) == 0);
    pthread_join(th, &res);
    CHECK((size_t)res == 3);
    CHECK(gs_threads_get() == 2);
    gs_threads_set(0);
    CHECK(gs_threads_get() >= 1);
    test_share();
    test_grow();
    /* Every status has a description. */
    for (int s = 0; s <= 32; s++) {
        if (s > 14 && s < 20) continue;
        CHECK(strcmp(gs_status_str((gs_status)s), "unknown status") != 0);
    }
    for (int s = 0; s <= 13; s++) CHECK(gs_status_str((gs_status)s)[0] != '\0');
    CHECK(strcmp(gs_status_str((gs_status)999), "unknown status") == 0);
    return gs_test_done();
}
