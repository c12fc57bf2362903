/* gs_parallel_for covers [0, n) exactly once with ranges of at least the
 * grain, for any thread count; the thread knobs behave as documented. */
#include <pthread.h>
#include <stdatomic.h>

#include "gstark/parallel.h"
#include "gstark/status.h"
#include "test_util.h"

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
    for (unsigned t = 1; t <= 5; t++) {
        gs_threads_set(t);
        CHECK(gs_threads_get() == t);
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
    /* Every status has a description. */
    for (int s = 0; s <= 32; s++) {
        if (s > 14 && s < 20) continue;
        CHECK(strcmp(gs_status_str((gs_status)s), "unknown status") != 0);
    }
    for (int s = 0; s <= 13; s++) CHECK(gs_status_str((gs_status)s)[0] != '\0');
    CHECK(strcmp(gs_status_str((gs_status)999), "unknown status") == 0);
    return gs_test_done();
}
