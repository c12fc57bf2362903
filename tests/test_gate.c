/* The memory gate (src/sched/gate.c): over-budget requests run alone, the
 * budget holds under random concurrent load, waiters wake on release, a large
 * head request is not starved by small ones, arrival order is admission order,
 * unlimited gates never block, counters are right, and gs_parse_size (the
 * size_t form of gs_size_parse).
 *
 * Every multi-threaded test runs under a watchdog: if the gate regresses into
 * a hang, the watchdog prints the test and stage that hung and exits 1, so CI
 * fails instead of stalling. Worker threads never call CHECK (the counters in
 * test_util.h are not thread-safe): they record into atomics that main checks.
 * Nothing here asserts on time; waits poll the gate's counters. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "gstark/sched.h"
#include "test_util.h"

/* ---- watchdog ---- */

#define WD_SECONDS 5

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const char *test;     /* under mu; NULL: disarmed */
    struct timespec deadline;
    int quit;
    _Atomic(const char *) stage;
    pthread_t th;
} wd = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *wd_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&wd.mu);
    while (!wd.quit) {
        if (!wd.test) {
            pthread_cond_wait(&wd.cv, &wd.mu);
            continue;
        }
        int rc = pthread_cond_timedwait(&wd.cv, &wd.mu, &wd.deadline);
        if (rc == ETIMEDOUT && wd.test) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec > wd.deadline.tv_sec ||
                (now.tv_sec == wd.deadline.tv_sec && now.tv_nsec >= wd.deadline.tv_nsec)) {
                fprintf(stderr, "watchdog: test '%s' hung for %d s at stage: %s\n", wd.test,
                        WD_SECONDS, atomic_load(&wd.stage));
                fflush(stderr);
                fflush(stdout);
                _exit(1);
            }
        }
    }
    pthread_mutex_unlock(&wd.mu);
    return NULL;
}

static void wd_start(void) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_destroy(&wd.cv);
    pthread_cond_init(&wd.cv, &a);
    pthread_condattr_destroy(&a);
    if (pthread_create(&wd.th, NULL, wd_main, NULL) != 0) {
        fprintf(stderr, "cannot start the watchdog thread\n");
        exit(1);
    }
}

static void wd_stop(void) {
    pthread_mutex_lock(&wd.mu);
    wd.quit = 1;
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
    pthread_join(wd.th, NULL);
}

static void stage(const char *s) { atomic_store(&wd.stage, s); }

static void wd_arm(const char *test) {
    pthread_mutex_lock(&wd.mu);
    clock_gettime(CLOCK_MONOTONIC, &wd.deadline);
    wd.deadline.tv_sec += WD_SECONDS;
    wd.test = test;
    stage("start");
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
    printf("  %s\n", test);
    fflush(stdout);
}

static void wd_disarm(void) {
    pthread_mutex_lock(&wd.mu);
    wd.test = NULL;
    pthread_cond_signal(&wd.cv);
    pthread_mutex_unlock(&wd.mu);
}

/* ---- helpers ---- */

static void pause_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Poll until the gate has exactly n requests blocked (the watchdog bounds it). */
static void wait_waiting(gs_gate *g, size_t n, const char *what) {
    stage(what);
    while (gs_gate_waiting(g) != n) pause_us(100);
}

static void wait_waiting_min(gs_gate *g, size_t n, const char *what) {
    stage(what);
    while (gs_gate_waiting(g) < n) pause_us(100);
}

static void wait_flag(atomic_int *f, int v, const char *what) {
    stage(what);
    while (atomic_load(f) != v) pause_us(100);
}

static pthread_t spawn(void *(*fn)(void *), void *arg) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(1);
    }
    return t;
}

/* A thread that acquires `bytes`, raises `admitted`, waits for `go`, releases. */
typedef struct {
    gs_gate *g;
    size_t bytes;
    atomic_int admitted, go;
    atomic_int *order_seq; /* optional: admission order */
    int order;
} holder;

static void *holder_main(void *p) {
    holder *h = p;
    gs_gate_acquire(h->g, h->bytes);
    if (h->order_seq) h->order = atomic_fetch_add(h->order_seq, 1);
    atomic_store(&h->admitted, 1);
    while (!atomic_load(&h->go)) pause_us(100);
    gs_gate_release(h->g, h->bytes);
    return NULL;
}

static void holder_init(holder *h, gs_gate *g, size_t bytes, atomic_int *seq) {
    h->g = g;
    h->bytes = bytes;
    atomic_init(&h->admitted, 0);
    atomic_init(&h->go, 0);
    h->order_seq = seq;
    h->order = -1;
}

/* ---- tests ---- */

/* Counters through a simple single-threaded sequence, argument edges, and an
 * over-release (a caller bug) that is clamped, not fatal. */
static void test_counters(void) {
    wd_arm("counters");
    gs_gate *g = NULL;
    CHECK(gs_gate_new(NULL, 100) == GS_ERR_INVALID_ARG);
    CHECK(gs_gate_new(&g, 100) == GS_OK && g);
    CHECK(gs_gate_budget(g) == 100);
    CHECK(gs_gate_in_use(g) == 0 && gs_gate_peak(g) == 0 && gs_gate_waiting(g) == 0);
    gs_gate_acquire(g, 30);
    CHECK(gs_gate_in_use(g) == 30 && gs_gate_peak(g) == 30);
    gs_gate_acquire(g, 50);
    CHECK(gs_gate_in_use(g) == 80 && gs_gate_peak(g) == 80);
    gs_gate_release(g, 30);
    CHECK(gs_gate_in_use(g) == 50 && gs_gate_peak(g) == 80);
    gs_gate_acquire(g, 0);
    CHECK(gs_gate_in_use(g) == 50);
    gs_gate_acquire(g, 50); /* exactly the budget */
    CHECK(gs_gate_in_use(g) == 100 && gs_gate_peak(g) == 100);
    gs_gate_release(g, 100);
    CHECK(gs_gate_in_use(g) == 0 && gs_gate_peak(g) == 100 && gs_gate_waiting(g) == 0);

    /* A blocked request shows in waiting, and leaves it when admitted. */
    gs_gate_acquire(g, 70);
    holder h;
    holder_init(&h, g, 40, NULL);
    pthread_t t = spawn(holder_main, &h);
    wait_waiting(g, 1, "counters: 40 behind 70 should block");
    CHECK(atomic_load(&h.admitted) == 0);
    CHECK(gs_gate_in_use(g) == 70);
    gs_gate_release(g, 70);
    wait_flag(&h.admitted, 1, "counters: 40 admitted after release");
    CHECK(gs_gate_waiting(g) == 0 && gs_gate_in_use(g) == 40);
    atomic_store(&h.go, 1);
    pthread_join(t, NULL);
    CHECK(gs_gate_in_use(g) == 0);

    /* Over-release: clamped to 0; the gate still works afterwards. */
    gs_gate_acquire(g, 10);
    gs_gate_release(g, 25);
    CHECK(gs_gate_in_use(g) == 0);
    gs_gate_release(g, SIZE_MAX);
    CHECK(gs_gate_in_use(g) == 0);
    gs_gate_acquire(g, 100);
    CHECK(gs_gate_in_use(g) == 100);
    gs_gate_release(g, 100);
    gs_gate_free(g);
    gs_gate_free(NULL);

    /* Budget 0: one nonzero request at a time; zero-byte ones pass when empty. */
    CHECK(gs_gate_new(&g, 0) == GS_OK);
    gs_gate_acquire(g, 0);
    gs_gate_acquire(g, 5);
    CHECK(gs_gate_in_use(g) == 5 && gs_gate_peak(g) == 5);
    gs_gate_release(g, 5);
    gs_gate_free(g);
    wd_disarm();
}

/* An over-budget request alone is admitted; while it holds, even a tiny
 * request waits; after release it proceeds. And an over-budget request that
 * arrives while something holds waits until the gate is empty. */
static void test_over_budget(void) {
    wd_arm("over-budget alone");
    gs_gate *g;
    CHECK(gs_gate_new(&g, 100) == GS_OK);
    stage("over-budget: 250 on an empty gate of 100 must not block");
    gs_gate_acquire(g, 250);
    CHECK(gs_gate_in_use(g) == 250 && gs_gate_peak(g) == 250);
    holder h;
    holder_init(&h, g, 1, NULL);
    pthread_t t = spawn(holder_main, &h);
    wait_waiting(g, 1, "over-budget: 1 byte behind 250 should block");
    CHECK(atomic_load(&h.admitted) == 0 && gs_gate_in_use(g) == 250);
    gs_gate_release(g, 250);
    wait_flag(&h.admitted, 1, "over-budget: 1 byte admitted after 250 released");
    atomic_store(&h.go, 1);
    pthread_join(t, NULL);

    gs_gate_acquire(g, 10);
    holder_init(&h, g, 250, NULL);
    t = spawn(holder_main, &h);
    wait_waiting(g, 1, "over-budget: 250 behind 10 should block");
    CHECK(atomic_load(&h.admitted) == 0);
    gs_gate_release(g, 10);
    wait_flag(&h.admitted, 1, "over-budget: 250 admitted once the gate is empty");
    CHECK(gs_gate_in_use(g) == 250);
    atomic_store(&h.go, 1);
    pthread_join(t, NULL);
    CHECK(gs_gate_in_use(g) == 0 && gs_gate_waiting(g) == 0);
    gs_gate_free(g);
    wd_disarm();
}

/* Random concurrent acquire/hold/release. `held` is the sum of bytes the
 * threads hold, raised right after acquire returns and lowered right before
 * release, so it never exceeds what the gate has admitted. */
#define RND_THREADS 8
#define RND_CYCLES 200

typedef struct {
    gs_gate *g;
    size_t budget, max_size;
    atomic_size_t *held;
    atomic_int *violations;
    uint64_t rng;
} rnd_arg;

static uint64_t rnd_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void *rnd_main(void *p) {
    rnd_arg *a = p;
    for (int i = 0; i < RND_CYCLES; i++) {
        size_t sz = 1 + (size_t)(rnd_next(&a->rng) % a->max_size);
        gs_gate_acquire(a->g, sz);
        size_t held = atomic_fetch_add(a->held, sz) + sz;
        size_t in_use = gs_gate_in_use(a->g);
        if (sz > a->budget) {
            /* Over budget: admitted only alone, and nothing joins it. */
            if (held != sz || in_use != sz) atomic_fetch_add(a->violations, 1);
        } else if (held > a->budget || in_use > a->budget) {
            atomic_fetch_add(a->violations, 1);
        }
        unsigned spin = (unsigned)(rnd_next(&a->rng) % 4);
        for (unsigned k = 0; k < spin; k++) sched_yield();
        if (rnd_next(&a->rng) % 8 == 0) pause_us(20);
        atomic_fetch_sub(a->held, sz);
        gs_gate_release(a->g, sz);
    }
    return NULL;
}

static void run_random(const char *name, size_t budget, size_t max_size) {
    wd_arm(name);
    stage(name);
    gs_gate *g;
    CHECK(gs_gate_new(&g, budget) == GS_OK);
    atomic_size_t held;
    atomic_int violations;
    atomic_init(&held, 0);
    atomic_init(&violations, 0);
    rnd_arg args[RND_THREADS];
    pthread_t th[RND_THREADS];
    for (int i = 0; i < RND_THREADS; i++) {
        args[i] = (rnd_arg){g, budget, max_size, &held, &violations, gs_test_u64()};
        th[i] = spawn(rnd_main, &args[i]);
    }
    for (int i = 0; i < RND_THREADS; i++) pthread_join(th[i], NULL);
    CHECK(atomic_load(&violations) == 0);
    CHECK(gs_gate_in_use(g) == 0 && gs_gate_waiting(g) == 0);
    if (max_size <= budget) CHECK(gs_gate_peak(g) <= budget);
    else CHECK(gs_gate_peak(g) <= max_size);
    gs_gate_free(g);
    wd_disarm();
}

/* Waiters are woken on release: several blocked requests all proceed after
 * one release, and a partial release admits a request that now fits. */
static void test_wake(void) {
    wd_arm("waiters woken on release");
    gs_gate *g;
    CHECK(gs_gate_new(&g, 10) == GS_OK);
    gs_gate_acquire(g, 10);
    holder h[3];
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        holder_init(&h[i], g, 3, NULL);
        t[i] = spawn(holder_main, &h[i]);
    }
    wait_waiting(g, 3, "wake: three 3-byte requests should block behind 10");
    for (int i = 0; i < 3; i++) CHECK(atomic_load(&h[i].admitted) == 0);
    gs_gate_release(g, 10);
    for (int i = 0; i < 3; i++) wait_flag(&h[i].admitted, 1, "wake: all three admitted after release");
    CHECK(gs_gate_in_use(g) == 9 && gs_gate_waiting(g) == 0);
    for (int i = 0; i < 3; i++) atomic_store(&h[i].go, 1);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);

    gs_gate_acquire(g, 10);
    holder_init(&h[0], g, 5, NULL);
    t[0] = spawn(holder_main, &h[0]);
    wait_waiting(g, 1, "wake: 5 should block behind 10");
    gs_gate_release(g, 5); /* partial: 5 left, 5 fit */
    wait_flag(&h[0].admitted, 1, "wake: 5 admitted after a partial release");
    CHECK(gs_gate_in_use(g) == 10);
    atomic_store(&h[0].go, 1);
    pthread_join(t[0], NULL);
    gs_gate_release(g, 5);
    CHECK(gs_gate_in_use(g) == 0);
    gs_gate_free(g);
    wd_disarm();
}

/* No starvation. Budget 100; main holds 20; NSTREAM threads cycle 10-byte
 * requests (which always fit among themselves: 20 + 4*10 <= 100). A 95-byte
 * request arrives. From then on no small request may get in ahead of it: all
 * stream threads end up blocked behind it with in_use back at 20, although
 * each of them would fit. Main releases its 20; the large request must be
 * admitted, and every small request that started after the large one was
 * queued is admitted after it (admission order from one atomic counter).
 * With the reference gate the stream keeps flowing, in_use never drops to 5,
 * the large request starves and the watchdog fails the test. */
#define NSTREAM 4
#define STREAM_LATE_TARGET 200

typedef struct {
    gs_gate *g;
    atomic_int *seq, *stop, *large_queued, *late_min_order, *late_count;
    atomic_int admissions;
} stream_arg;

static void *stream_main(void *p) {
    stream_arg *a = p;
    while (!atomic_load(a->stop)) {
        int late = atomic_load(a->large_queued); /* read before arriving */
        gs_gate_acquire(a->g, 10);
        int order = atomic_fetch_add(a->seq, 1);
        atomic_fetch_add(&a->admissions, 1);
        if (late) {
            int cur = atomic_load(a->late_min_order);
            while (order < cur && !atomic_compare_exchange_weak(a->late_min_order, &cur, order)) {
            }
            if (atomic_fetch_add(a->late_count, 1) + 1 >= STREAM_LATE_TARGET) atomic_store(a->stop, 1);
        }
        sched_yield();
        gs_gate_release(a->g, 10);
    }
    return NULL;
}

static void test_no_starvation(void) {
    wd_arm("no starvation of a large head request");
    gs_gate *g;
    CHECK(gs_gate_new(&g, 100) == GS_OK);
    atomic_int seq, stop, large_queued, late_min_order, late_count;
    atomic_init(&seq, 0);
    atomic_init(&stop, 0);
    atomic_init(&large_queued, 0);
    atomic_init(&late_min_order, 1 << 30);
    atomic_init(&late_count, 0);
    gs_gate_acquire(g, 20); /* the small requests already holding */
    stream_arg sa[NSTREAM];
    pthread_t st[NSTREAM];
    for (int i = 0; i < NSTREAM; i++) {
        sa[i] = (stream_arg){g, &seq, &stop, &large_queued, &late_min_order, &late_count, 0};
        atomic_init(&sa[i].admissions, 0);
        st[i] = spawn(stream_main, &sa[i]);
    }
    /* Let the stream flow before the large request arrives. */
    stage("starvation: stream warming up");
    for (int i = 0; i < NSTREAM; i++)
        while (atomic_load(&sa[i].admissions) < 5) pause_us(100);
    CHECK(gs_gate_waiting(g) == 0); /* small ones never wait among themselves */

    holder large;
    holder_init(&large, g, 95, &seq);
    pthread_t lt = spawn(holder_main, &large);
    /* Before it arrives nothing waits, so the first waiter is the large one
     * (the stream piles up behind it at once: poll for "at least"). */
    wait_waiting_min(g, 1, "starvation: large request should queue");
    atomic_store(&large_queued, 1);
    wait_waiting(g, 1 + NSTREAM, "starvation: every small request should queue behind the large one");
    CHECK(atomic_load(&large.admitted) == 0);
    CHECK(gs_gate_in_use(g) == 20); /* none of the small ones got in, though they fit */
    gs_gate_release(g, 20);
    wait_flag(&large.admitted, 1, "starvation: large request admitted after the holders left");
    CHECK(gs_gate_in_use(g) == 95);
    pause_us(1000); /* the stream stays blocked while the large one holds */
    CHECK(gs_gate_in_use(g) == 95);
    atomic_store(&large.go, 1);
    pthread_join(lt, NULL);
    stage("starvation: stream resumes after the large request");
    for (int i = 0; i < NSTREAM; i++) pthread_join(st[i], NULL);
    CHECK(atomic_load(&late_count) >= STREAM_LATE_TARGET);
    CHECK(large.order >= 0 && atomic_load(&late_min_order) > large.order);
    CHECK(gs_gate_in_use(g) == 0 && gs_gate_waiting(g) == 0);
    CHECK(gs_gate_peak(g) <= 100);
    gs_gate_free(g);
    wd_disarm();
}

/* FIFO: requests that arrive one after another (each spawned only once the
 * previous one is visibly queued) are admitted in that order, whatever their
 * sizes; and a small request that would fit waits behind a waiting head.
 * Order is observable two ways: with every size over half the budget, only
 * one request holds at a time, so the order each records after admission is
 * the admission order; with small sizes, what is admitted after the gate
 * opens must be exactly the longest prefix of arrivals that fits. */
#define FIFO_N 8

static void fifo_queue(gs_gate *g, holder *h, pthread_t *t, const size_t *sz, atomic_int *seq,
                       int go) {
    for (int i = 0; i < FIFO_N; i++) {
        holder_init(&h[i], g, sz[i], seq);
        atomic_store(&h[i].go, go);
        t[i] = spawn(holder_main, &h[i]);
        wait_waiting(g, (size_t)i + 1, "fifo: serialized arrival");
    }
}

static void test_fifo(void) {
    wd_arm("FIFO admission order");
    gs_gate *g;
    CHECK(gs_gate_new(&g, 100) == GS_OK);
    holder h[FIFO_N];
    pthread_t t[FIFO_N];
    size_t sz[FIFO_N];
    for (int round = 0; round < 4; round++) {
        /* One at a time: sizes 51..150 (some over the budget); each releases
         * right after it records its order. */
        atomic_int seq;
        atomic_init(&seq, 0);
        for (int i = 0; i < FIFO_N; i++) sz[i] = 51 + (size_t)gs_test_below(100);
        gs_gate_acquire(g, 100);
        fifo_queue(g, h, t, sz, &seq, 1);
        gs_gate_release(g, 100);
        stage("fifo: draining one at a time");
        for (int i = 0; i < FIFO_N; i++) pthread_join(t[i], NULL);
        for (int i = 0; i < FIFO_N; i++) CHECK(h[i].order == i);
        CHECK(gs_gate_in_use(g) == 0 && gs_gate_waiting(g) == 0);

        /* Several at a time: sizes 1..100; they hold until told to go. */
        size_t sum = 0;
        int k = 0;
        for (int i = 0; i < FIFO_N; i++) sz[i] = 1 + (size_t)gs_test_below(100);
        while (k < FIFO_N && sum + sz[k] <= 100) sum += sz[k++];
        gs_gate_acquire(g, 100);
        fifo_queue(g, h, t, sz, NULL, 0);
        gs_gate_release(g, 100);
        wait_waiting(g, (size_t)(FIFO_N - k), "fifo: the prefix that fits is admitted");
        for (int i = 0; i < k; i++) wait_flag(&h[i].admitted, 1, "fifo: prefix admitted");
        pause_us(500); /* a wrongly admitted later request would show by now */
        for (int i = k; i < FIFO_N; i++) CHECK(atomic_load(&h[i].admitted) == 0);
        CHECK(gs_gate_in_use(g) == sum);
        for (int i = 0; i < FIFO_N; i++) atomic_store(&h[i].go, 1);
        stage("fifo: draining");
        for (int i = 0; i < FIFO_N; i++) pthread_join(t[i], NULL);
        CHECK(gs_gate_in_use(g) == 0 && gs_gate_waiting(g) == 0);
    }

    /* Head reservation: 50 held, 60 waits, then 10 (which would fit) waits
     * too; both get in once 50 is released (together: their order of
     * recording would race, so only the blocking is checked). */
    gs_gate_acquire(g, 50);
    holder a, b;
    holder_init(&a, g, 60, NULL);
    holder_init(&b, g, 10, NULL);
    pthread_t ta = spawn(holder_main, &a);
    wait_waiting(g, 1, "fifo: 60 should block behind 50");
    pthread_t tb = spawn(holder_main, &b);
    wait_waiting(g, 2, "fifo: 10 should block behind the waiting 60");
    CHECK(atomic_load(&b.admitted) == 0 && gs_gate_in_use(g) == 50);
    gs_gate_release(g, 50);
    wait_flag(&a.admitted, 1, "fifo: 60 admitted");
    wait_flag(&b.admitted, 1, "fifo: 10 admitted");
    CHECK(gs_gate_in_use(g) == 70);
    atomic_store(&a.go, 1);
    atomic_store(&b.go, 1);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    gs_gate_free(g);
    wd_disarm();
}

/* Unlimited: many threads acquire huge sizes at once, all held together
 * (a barrier proves none blocked), counts saturate instead of wrapping, and
 * in_use is back at 0 once everything is released. */
#define UNL_THREADS 16

typedef struct {
    gs_gate *g;
    pthread_barrier_t *bar;
    size_t bytes;
} unl_arg;

static void *unl_main(void *p) {
    unl_arg *a = p;
    for (int r = 0; r < 50; r++) {
        gs_gate_acquire(a->g, a->bytes);
        gs_gate_acquire(a->g, 1);
        gs_gate_release(a->g, 1);
        gs_gate_release(a->g, a->bytes);
    }
    gs_gate_acquire(a->g, a->bytes);
    pthread_barrier_wait(a->bar); /* everyone holds at once */
    gs_gate_release(a->g, a->bytes);
    return NULL;
}

static void test_unlimited(void) {
    wd_arm("unlimited never blocks");
    gs_gate *g;
    CHECK(gs_gate_new(&g, GS_GATE_UNLIMITED) == GS_OK);
    CHECK(gs_gate_budget(g) == GS_GATE_UNLIMITED);
    gs_gate_acquire(g, SIZE_MAX);
    gs_gate_acquire(g, SIZE_MAX); /* saturates, does not wrap or block */
    CHECK(gs_gate_in_use(g) == SIZE_MAX && gs_gate_peak(g) == SIZE_MAX);
    gs_gate_release(g, SIZE_MAX);
    gs_gate_release(g, SIZE_MAX);
    CHECK(gs_gate_in_use(g) == 0);

    stage("unlimited: concurrent huge requests");
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, UNL_THREADS);
    unl_arg args[UNL_THREADS];
    pthread_t t[UNL_THREADS];
    for (int i = 0; i < UNL_THREADS; i++) {
        args[i] = (unl_arg){g, &bar, i % 3 == 0 ? SIZE_MAX : SIZE_MAX / 3 + (size_t)i};
        t[i] = spawn(unl_main, &args[i]);
    }
    for (int i = 0; i < UNL_THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    CHECK(gs_gate_in_use(g) == 0 && gs_gate_waiting(g) == 0);
    CHECK(gs_gate_peak(g) == SIZE_MAX);
    gs_gate_free(g);
    wd_disarm();
}

/* gs_parse_size: the accepted forms and a list of near misses. */
static void test_parse_size(void) {
    static const struct {
        const char *s;
        size_t v;
    } good[] = {
        {"0", 0},
        {"1", 1},
        {"007", 7},
        {"1048576", 1048576},
        {"1K", 1024},
        {"1k", 1024},
        {"512M", (size_t)512 << 20},
        {"512m", (size_t)512 << 20},
        {"2G", (size_t)2 << 30},
        {"3g", (size_t)3 << 30},
        {"0T", 0},
        {"0K", 0},
        {"unlimited", GS_GATE_UNLIMITED},
        {"UNLIMITED", GS_GATE_UNLIMITED},
        {"Unlimited", GS_GATE_UNLIMITED},
        {"4294967295", 4294967295u},
        {"1KB", 1000},     /* gs_size_parse's forms (tests/test_size.c has them all) */
        {"1kib", 1024},
        {"1B", 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t v = 12345;
        gs_status s = gs_parse_size(&v, good[i].s);
        if (s != GS_OK || v != good[i].v)
            fprintf(stderr, "gs_parse_size(\"%s\"): status %d value %zu\n", good[i].s, (int)s, v);
        CHECK(s == GS_OK);
        CHECK(v == good[i].v);
    }
    static const char *const bad[] = {
        "", " ", " 1", "1 ", "\t1", "1\n", "-1", "+1", "-0", "1.5G", "1.0", ".5", "1KBB",
        "1Ki", "1iB", "K", "G1", "1GG", "1P", "12x", "0x10", "1e3", "1_000", "1,000",
        "unlimitedx", "unlimite", "unlim", "infinite", "none", "-", "1 G", "1G ", "1\x80",
        "99999999999999999999999999",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t v = 12345;
        gs_status s = gs_parse_size(&v, bad[i]);
        if (s != GS_ERR_INVALID_ARG || v != 12345)
            fprintf(stderr, "gs_parse_size(\"%s\") should fail: status %d value %zu\n", bad[i],
                    (int)s, v);
        CHECK(s == GS_ERR_INVALID_ARG);
        CHECK(v == 12345); /* untouched on error */
    }
    size_t v = 0;
    CHECK(gs_parse_size(NULL, "1") == GS_ERR_INVALID_ARG);
    CHECK(gs_parse_size(&v, NULL) == GS_ERR_INVALID_ARG);
    if (SIZE_MAX == UINT64_MAX) {
        CHECK(gs_parse_size(&v, "1T") == GS_OK && v == (size_t)1 << 40);
        CHECK(gs_parse_size(&v, "2t") == GS_OK && v == (size_t)2 << 40);
        CHECK(gs_parse_size(&v, "16777215T") == GS_OK && v == (size_t)16777215 << 40);
        CHECK(gs_parse_size(&v, "18446744073709551615") == GS_OK && v == SIZE_MAX);
        CHECK(gs_parse_size(&v, "17179869183G") == GS_OK && v == (size_t)17179869183 << 30);
        v = 7;
        CHECK(gs_parse_size(&v, "18446744073709551616") == GS_ERR_INVALID_ARG && v == 7);
        CHECK(gs_parse_size(&v, "16777216T") == GS_ERR_INVALID_ARG && v == 7);
        CHECK(gs_parse_size(&v, "17179869184G") == GS_ERR_INVALID_ARG && v == 7);
        CHECK(gs_parse_size(&v, "18014398509481984K") == GS_ERR_INVALID_ARG && v == 7);
    }
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    wd_start();
    test_parse_size();
    test_counters();
    test_over_budget();
    test_wake();
    test_fifo();
    test_no_starvation();
    run_random("random load, every request fits", 100, 100);
    run_random("random load, some over budget", 100, 160);
    run_random("random load, tight budget", 8, 8);
    test_unlimited();
    wd_stop();
    return gs_test_done();
}
