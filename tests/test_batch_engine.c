/* The batch scheduling engine (src/batch/engine.c): its scheduling semantics
 * on CPU lanes with simulated devices and small budgets.
 *
 * Units' work is simulated (a sleep of up to a few hundred microseconds).
 * The callbacks keep the test's own ledger of the bytes in use: a unit's
 * bytes are added when its callback starts and taken off before it returns,
 * inside the engine's reservation, so the ledger never exceeds what the
 * engine reserved and its peaks check the budgets independently of the
 * engine's accounting. Callbacks never call CHECK (its counters are not
 * thread-safe): they count contract violations in atomics that main checks.
 * Nothing asserts on time; orders are checked through the engine's decision
 * sequence numbers (seq_*), taken under its lock. A hang is caught by an
 * alarm that names the test. --seed N replays a failure. */
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "batch/engine.h"
#include "test_util.h"

#define MAXU 512
#define MAXL 8
#define MAXD 4

/* ---- watchdog ---- */

static const char *volatile current_test = "";

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "watchdog: test hung: ";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(1);
    const char *t = current_test;
    if (write(2, t, strlen(t)) < 0 || write(2, "\n", 1) < 0) _exit(1);
    _exit(1);
}

static void begin(const char *name) {
    current_test = name;
    printf("  %s\n", name);
    fflush(stdout);
    alarm(20);
}

/* ---- the harness: units, budgets, lanes, and callbacks that keep a ledger ---- */

typedef struct harness {
    uint32_t n, nl, nd, qcap;
    gs_engine_unit u[MAXU];
    uint32_t kids[MAXU][4];
    gs_status fail[MAXU]; /* the status execute (claims) or join returns; GS_OK: succeed */
    gs_status fail_prove[MAXU];
    gs_status fail_finish[MAXU];
    uint32_t finishers;       /* the engine's finisher threads */
    int use_finish;           /* give the engine a finish callback (claims hold host bytes to it) */
    uint32_t wait_prove_in_finish; /* finish of unit 0 waits (up to 5 s) for this many proves */
    atomic_int finish_saw;    /* ... and records whether they started */
    unsigned work_us[MAXU];
    size_t host_budget, dev_budget[MAXD];
    uint32_t lane_dev[MAXL];
    gs_engine *e;             /* for cancel_at */
    uint32_t cancel_at;       /* cancel the batch when this many proves have started (0: never) */
    int fast_exec;            /* execute does not sleep */
    int slow_report;          /* unit_done sleeps (overlapping calls would show) */
    gs_status init_fail[MAXL];

    atomic_size_t host, dev[MAXD], host_peak, dev_peak[MAXD];
    atomic_int live[MAXU];    /* 1 while an executed trace exists */
    atomic_int ok[MAXU];      /* proven or joined successfully */
    atomic_uint n_exec[MAXU], n_exec_ok[MAXU], n_prove[MAXU], n_join[MAXU], n_discard[MAXU];
    atomic_uint n_finish[MAXU];
    atomic_size_t proven_host[MAXU]; /* host bytes prove left in the ledger for finish */
    atomic_uint errors;       /* callback contract violations */
    atomic_uint proves_started, order_next;
    uint32_t order[2 * MAXU + MAXU]; /* callback order: unit | kind << 16 */
    atomic_int in_report;
    atomic_uint reported[MAXU], last_done, n_inits, n_finis, fini_mask, init_mask;
} harness;

enum { EV_EXEC = 1, EV_PROVE = 2, EV_JOIN = 3, EV_DISCARD = 4, EV_FINISH = 5 };

static void log_ev(harness *h, uint32_t u, unsigned kind) {
    unsigned i = atomic_fetch_add(&h->order_next, 1);
    if (i < sizeof h->order / sizeof h->order[0]) h->order[i] = u | kind << 16;
}

static void led_add(atomic_size_t *v, atomic_size_t *peak, size_t b) {
    size_t now = atomic_fetch_add(v, b) + b;
    size_t p = atomic_load(peak);
    while (now > p && !atomic_compare_exchange_weak(peak, &p, now)) {
    }
}

static void led_sub(atomic_size_t *v, size_t b) { atomic_fetch_sub(v, b); }

static void work(unsigned us) {
    if (!us) return;
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

/* Whether the engine runs finisher threads: some configured, and work for
 * them (a finish callback or a join). Then every execute and discard runs
 * on them (lane GS_ENGINE_NONE), and never on a lane. */
static int fins_in_force(const harness *h) {
    int joins = 0;
    for (uint32_t i = 0; i < h->n; i++) joins |= h->u[i].kind == GS_ENGINE_JOIN;
    return h->finishers && (h->use_finish || joins);
}

/* Whether a stage-1 callback (execute, discard) came on the right thread:
 * a finisher when they are in force, else a lane. */
static int stage1_lane_ok(const harness *h, uint32_t lane) {
    return fins_in_force(h) ? lane == GS_ENGINE_NONE : lane < h->nl;
}

/* Stage-2 bytes on lane l (GS_ENGINE_NONE: a finisher), as the engine
 * charges them. */
static void stage2(const harness *h, uint32_t ui, uint32_t l, size_t *host, size_t *dev) {
    const gs_engine_unit *u = &h->u[ui];
    size_t hb = u->prove_host + (u->kind == GS_ENGINE_JOIN ? u->exec_host : 0);
    if (l == GS_ENGINE_NONE || h->lane_dev[l] == GS_ENGINE_NONE) {
        *host = hb + u->prove_dev;
        *dev = 0;
    } else {
        *host = hb;
        *dev = u->prove_dev;
    }
}

static gs_status cb_init(void *ctx, uint32_t lane) {
    harness *h = ctx;
    atomic_fetch_add(&h->n_inits, 1);
    if (h->init_fail[lane] != GS_OK) return h->init_fail[lane];
    atomic_fetch_or(&h->init_mask, 1u << lane);
    return GS_OK;
}

static void cb_fini(void *ctx, uint32_t lane) {
    harness *h = ctx;
    atomic_fetch_add(&h->n_finis, 1);
    atomic_fetch_or(&h->fini_mask, 1u << lane);
}

static gs_status cb_execute(void *ctx, uint32_t ui, uint32_t lane) {
    harness *h = ctx;
    if (ui >= h->n || !stage1_lane_ok(h, lane) || h->u[ui].kind != GS_ENGINE_CLAIM) {
        atomic_fetch_add(&h->errors, 1);
        return GS_ERR_INVALID_ARG;
    }
    if (atomic_load(&h->live[ui])) atomic_fetch_add(&h->errors, 1); /* executed twice, live */
    atomic_fetch_add(&h->n_exec[ui], 1);
    log_ev(h, ui, EV_EXEC);
    led_add(&h->host, &h->host_peak, h->u[ui].exec_host);
    work(h->fast_exec ? 0 : h->work_us[ui]);
    if (h->fail[ui] != GS_OK) {
        led_sub(&h->host, h->u[ui].exec_host);
        return h->fail[ui];
    }
    atomic_store(&h->live[ui], 1);
    atomic_fetch_add(&h->n_exec_ok[ui], 1);
    return GS_OK;
}

static gs_status cb_prove(void *ctx, uint32_t ui, uint32_t lane) {
    harness *h = ctx;
    if (ui >= h->n || lane >= h->nl || h->u[ui].kind != GS_ENGINE_CLAIM) {
        atomic_fetch_add(&h->errors, 1);
        return GS_ERR_INVALID_ARG;
    }
    if (!atomic_load(&h->live[ui])) atomic_fetch_add(&h->errors, 1); /* not executed */
    atomic_fetch_add(&h->n_prove[ui], 1);
    unsigned started = atomic_fetch_add(&h->proves_started, 1) + 1;
    if (h->cancel_at && started == h->cancel_at) gs_engine_cancel(h->e);
    log_ev(h, ui, EV_PROVE);
    size_t hb, db;
    stage2(h, ui, lane, &hb, &db);
    uint32_t d = h->lane_dev[lane];
    led_add(&h->host, &h->host_peak, hb);
    if (d != GS_ENGINE_NONE) led_add(&h->dev[d], &h->dev_peak[d], db);
    work(h->work_us[ui]);
    if (d != GS_ENGINE_NONE) led_sub(&h->dev[d], db);
    atomic_store(&h->live[ui], 0); /* prove consumes the trace, success or not */
    /* With a finish stage the host bytes stay in use until finish returns. */
    if (h->fail_prove[ui] != GS_OK || !h->use_finish) led_sub(&h->host, hb + h->u[ui].exec_host);
    if (h->fail_prove[ui] != GS_OK) return h->fail_prove[ui];
    if (h->use_finish) {
        atomic_store(&h->proven_host[ui], hb + h->u[ui].exec_host);
        return GS_OK;
    }
    atomic_store(&h->ok[ui], 1);
    return GS_OK;
}

static gs_status cb_finish(void *ctx, uint32_t ui) {
    harness *h = ctx;
    if (ui >= h->n || h->u[ui].kind != GS_ENGINE_CLAIM || !h->use_finish ||
        atomic_load(&h->n_prove[ui]) != 1 || atomic_load(&h->ok[ui])) {
        atomic_fetch_add(&h->errors, 1);
        return GS_ERR_INVALID_ARG;
    }
    atomic_fetch_add(&h->n_finish[ui], 1);
    log_ev(h, ui, EV_FINISH);
    if (ui == 0 && h->wait_prove_in_finish) {
        for (int i = 0; i < 5000 && atomic_load(&h->proves_started) < h->wait_prove_in_finish; i++)
            work(1000);
        atomic_store(&h->finish_saw, atomic_load(&h->proves_started) >= h->wait_prove_in_finish);
    }
    work(h->work_us[ui] / 2);
    led_sub(&h->host, atomic_load(&h->proven_host[ui]));
    if (h->fail_finish[ui] != GS_OK) return h->fail_finish[ui];
    atomic_store(&h->ok[ui], 1);
    return GS_OK;
}

static gs_status cb_join(void *ctx, uint32_t ui, uint32_t lane) {
    harness *h = ctx;
    /* on a finisher (lane NONE) only when there are finishers and it needs no device */
    int on_fin = lane == GS_ENGINE_NONE;
    if (ui >= h->n || (!on_fin && lane >= h->nl) || h->u[ui].kind != GS_ENGINE_JOIN ||
        (on_fin && (!h->finishers || h->u[ui].prove_dev)) ||
        (!on_fin && h->finishers && !h->u[ui].prove_dev)) {
        atomic_fetch_add(&h->errors, 1);
        return GS_ERR_INVALID_ARG;
    }
    for (uint32_t k = 0; k < h->u[ui].num_children; k++)
        if (!atomic_load(&h->ok[h->u[ui].children[k]])) atomic_fetch_add(&h->errors, 1);
    atomic_fetch_add(&h->n_join[ui], 1);
    log_ev(h, ui, EV_JOIN);
    size_t hb, db;
    stage2(h, ui, lane, &hb, &db);
    uint32_t d = on_fin ? GS_ENGINE_NONE : h->lane_dev[lane];
    led_add(&h->host, &h->host_peak, hb);
    if (d != GS_ENGINE_NONE) led_add(&h->dev[d], &h->dev_peak[d], db);
    work(h->work_us[ui]);
    if (d != GS_ENGINE_NONE) led_sub(&h->dev[d], db);
    led_sub(&h->host, hb);
    if (h->fail[ui] != GS_OK) return h->fail[ui];
    atomic_store(&h->ok[ui], 1);
    return GS_OK;
}

static void cb_discard(void *ctx, uint32_t ui, uint32_t lane) {
    harness *h = ctx;
    if (ui >= h->n || !stage1_lane_ok(h, lane) || !atomic_load(&h->live[ui])) {
        atomic_fetch_add(&h->errors, 1);
        return;
    }
    atomic_fetch_add(&h->n_discard[ui], 1);
    log_ev(h, ui, EV_DISCARD);
    led_sub(&h->host, h->u[ui].exec_host);
    atomic_store(&h->live[ui], 0);
}

static void cb_unit_done(void *ctx, uint32_t ui, const gs_engine_unit_info *info) {
    harness *h = ctx;
    if (atomic_exchange(&h->in_report, 1)) atomic_fetch_add(&h->errors, 1); /* overlap */
    if (ui >= h->n || info->outcome == GS_ENGINE_PENDING) atomic_fetch_add(&h->errors, 1);
    else atomic_fetch_add(&h->reported[ui], 1);
    if (h->slow_report) work(30);
    atomic_store(&h->in_report, 0);
}

static void cb_progress(void *ctx, uint32_t done, uint32_t total) {
    harness *h = ctx;
    if (atomic_exchange(&h->in_report, 1)) atomic_fetch_add(&h->errors, 1);
    if (total != h->n || done != atomic_load(&h->last_done) + 1) atomic_fetch_add(&h->errors, 1);
    atomic_store(&h->last_done, done);
    atomic_store(&h->in_report, 0);
}

static gs_engine_callbacks callbacks(harness *h) {
    return (gs_engine_callbacks){.ctx = h,
                                 .lane_init = cb_init,
                                 .lane_fini = cb_fini,
                                 .execute = cb_execute,
                                 .prove = cb_prove,
                                 .join = cb_join,
                                 .finish = h->use_finish ? cb_finish : NULL,
                                 .discard = cb_discard,
                                 .unit_done = cb_unit_done,
                                 .progress = cb_progress};
}

static harness *harness_new(uint32_t nl, uint32_t nd, size_t host_budget) {
    harness *h = calloc(1, sizeof *h);
    if (!h) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    h->nl = nl;
    h->nd = nd;
    h->host_budget = host_budget;
    for (uint32_t l = 0; l < MAXL; l++) h->lane_dev[l] = GS_ENGINE_NONE;
    for (uint32_t d = 0; d < MAXD; d++) h->dev_budget[d] = GS_ENGINE_UNLIMITED;
    return h;
}

static uint32_t add_claim(harness *h, size_t exec_host, size_t prove_host, size_t prove_dev) {
    uint32_t i = h->n++;
    h->u[i] = (gs_engine_unit){.kind = GS_ENGINE_CLAIM,
                               .exec_host = exec_host,
                               .prove_host = prove_host,
                               .prove_dev = prove_dev};
    return i;
}

static uint32_t add_join(harness *h, const uint32_t *kids, uint32_t nk, size_t host, size_t dev) {
    uint32_t i = h->n++;
    memcpy(h->kids[i], kids, nk * sizeof *kids);
    h->u[i] = (gs_engine_unit){.kind = GS_ENGINE_JOIN,
                               .num_children = nk,
                               .children = h->kids[i],
                               .prove_host = host,
                               .prove_dev = dev};
    return i;
}

static gs_status harness_engine(harness *h) {
    gs_engine_config cfg = {.host_budget = h->host_budget,
                            .num_devices = h->nd,
                            .device_budget = h->dev_budget,
                            .num_lanes = h->nl,
                            .lane_device = h->lane_dev,
                            .queue_cap = h->qcap,
                            .finishers = h->finishers};
    gs_engine_callbacks cb = callbacks(h);
    return gs_engine_new(&h->e, &cfg, &cb, h->u, h->n);
}

static gs_engine_unit_info info_of(harness *h, uint32_t u) {
    gs_engine_unit_info in;
    memset(&in, 0, sizeof in);
    CHECK(gs_engine_unit_get(h->e, &in, u) == GS_OK);
    return in;
}

/* Whether unit i fits some lane with nothing else running (the refusal rule,
 * computed here independently). */
static int fits_alone(const harness *h, uint32_t i) {
    for (uint32_t l = 0; l < h->nl; l++) {
        size_t hb, db;
        stage2(h, i, l, &hb, &db);
        if (h->u[i].kind == GS_ENGINE_CLAIM) hb += h->u[i].exec_host;
        uint32_t d = h->lane_dev[l];
        if (hb <= h->host_budget && (d == GS_ENGINE_NONE || db <= h->dev_budget[d])) return 1;
    }
    return 0;
}

/* Whether `cause` is i or below it in the graph. */
static int depends_on(const harness *h, uint32_t i, uint32_t cause) {
    if (i == cause) return 1;
    for (uint32_t k = 0; k < h->u[i].num_children; k++)
        if (depends_on(h, h->u[i].children[k], cause)) return 1;
    return 0;
}

/* The outcomes the engine must reach, from the units alone (children have
 * lower indices here): refusals and their skips first (decided at
 * gs_engine_new, in index order), then failures at run time. */
static void expected_outcomes(const harness *h, gs_engine_outcome *want) {
    for (uint32_t i = 0; i < h->n; i++) want[i] = GS_ENGINE_PENDING;
    for (uint32_t i = 0; i < h->n; i++) {
        if (want[i] != GS_ENGINE_PENDING || fits_alone(h, i)) continue;
        want[i] = GS_ENGINE_REFUSED;
        for (uint32_t p = i + 1; p < h->n; p++)
            if (want[p] == GS_ENGINE_PENDING && depends_on(h, p, i)) want[p] = GS_ENGINE_SKIPPED;
    }
    for (uint32_t i = 0; i < h->n; i++) {
        if (want[i] != GS_ENGINE_PENDING) continue;
        const gs_engine_unit *u = &h->u[i];
        int kids_ok = 1;
        for (uint32_t k = 0; k < u->num_children; k++)
            kids_ok &= want[u->children[k]] == GS_ENGINE_DONE;
        if (!kids_ok) want[i] = GS_ENGINE_SKIPPED;
        else if (h->fail[i] != GS_OK || h->fail_prove[i] != GS_OK ||
                 (h->use_finish && h->fail_finish[i] != GS_OK))
            want[i] = GS_ENGINE_FAILED;
        else want[i] = GS_ENGINE_DONE;
    }
}

/* Every property a finished run (not cancelled) must have. */
static void check_run(harness *h) {
    gs_engine_stats st;
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(atomic_load(&h->errors), 0);
    CHECK_EQ_U64(st.pending, 0);
    CHECK_EQ_U64(st.budget_violations, 0);
    CHECK_EQ_U64(st.units, h->n);
    /* budgets, by the engine's accounting and by the ledger */
    CHECK(st.host_peak <= h->host_budget);
    CHECK(atomic_load(&h->host_peak) <= h->host_budget);
    CHECK(atomic_load(&h->host_peak) <= st.host_peak);
    CHECK_EQ_U64(atomic_load(&h->host), 0);
    for (uint32_t d = 0; d < h->nd; d++) {
        CHECK(gs_engine_device_peak(h->e, d) <= h->dev_budget[d]);
        CHECK(atomic_load(&h->dev_peak[d]) <= h->dev_budget[d]);
        CHECK(atomic_load(&h->dev_peak[d]) <= gs_engine_device_peak(h->e, d));
        CHECK_EQ_U64(atomic_load(&h->dev[d]), 0);
    }
    gs_engine_outcome want[MAXU];
    expected_outcomes(h, want);
    uint64_t discards = 0;
    uint32_t counts[6] = {0};
    for (uint32_t i = 0; i < h->n; i++) {
        gs_engine_unit_info in = info_of(h, i);
        const gs_engine_unit *u = &h->u[i];
        counts[in.outcome < 6 ? in.outcome : 0]++;
        CHECK_EQ_U64(in.outcome, want[i]);
        CHECK_EQ_U64(in.kind, u->kind);
        CHECK_EQ_U64(atomic_load(&h->reported[i]), 1);
        CHECK_EQ_U64(atomic_load(&h->live[i]), 0);
        /* every executed trace was proven or discarded, once */
        CHECK_EQ_U64(atomic_load(&h->n_exec_ok[i]),
                     atomic_load(&h->n_prove[i]) + atomic_load(&h->n_discard[i]));
        CHECK_EQ_U64(atomic_load(&h->n_discard[i]), in.cancellations);
        discards += in.cancellations;
        CHECK(atomic_load(&h->n_prove[i]) <= 1 && atomic_load(&h->n_join[i]) <= 1);
        switch (in.outcome) {
        case GS_ENGINE_DONE:
            CHECK_EQ_U64(in.status, GS_OK);
            if (u->kind == GS_ENGINE_JOIN && h->finishers && !u->prove_dev)
                CHECK(in.lane == GS_ENGINE_NONE && in.device == GS_ENGINE_NONE);
            else
                CHECK(in.lane < h->nl && in.device == h->lane_dev[in.lane]);
            CHECK(in.seq_prove > 0 && in.seq_done > in.seq_prove);
            CHECK(in.t_queued <= in.t_prove_start && in.t_prove_start <= in.t_prove_end &&
                  in.t_prove_end <= in.t_done);
            if (u->kind == GS_ENGINE_CLAIM) {
                CHECK_EQ_U64(atomic_load(&h->n_prove[i]), 1);
                CHECK(in.seq_queued < in.seq_exec && in.seq_exec < in.seq_exec_end &&
                      in.seq_exec_end < in.seq_prove);
                CHECK(in.t_queued <= in.t_exec_start && in.t_exec_start <= in.t_exec_end &&
                      in.t_exec_end <= in.t_prove_start);
                size_t hb, db;
                stage2(h, i, in.lane, &hb, &db);
                CHECK_EQ_U64(in.host_bytes, u->exec_host + hb);
                CHECK_EQ_U64(in.dev_bytes, db);
                /* finish: once, after prove, before the outcome; on a finisher
                 * when there are some (else inside prove, on the lane) */
                CHECK_EQ_U64(atomic_load(&h->n_finish[i]), h->use_finish ? 1 : 0);
                if (h->use_finish && h->finishers)
                    CHECK(in.t_prove_end <= in.t_finish_start && in.t_finish_start <= in.t_finish_end &&
                          in.t_finish_end <= in.t_done);
                else
                    CHECK(in.t_finish_start == GS_ENGINE_NO_TIME && in.finish_ns == 0);
            } else {
                CHECK_EQ_U64(atomic_load(&h->n_join[i]), 1);
                for (uint32_t k = 0; k < u->num_children; k++)
                    CHECK(info_of(h, u->children[k]).seq_done < in.seq_prove);
            }
            break;
        case GS_ENGINE_FAILED:
            CHECK_EQ_U64(in.status, h->fail[i] != GS_OK        ? h->fail[i]
                                    : h->fail_prove[i] != GS_OK ? h->fail_prove[i]
                                                                : h->fail_finish[i]);
            break;
        case GS_ENGINE_SKIPPED: {
            CHECK(in.cause < h->n);
            if (in.cause >= h->n) break;
            gs_engine_unit_info c = info_of(h, in.cause);
            CHECK(c.outcome == GS_ENGINE_FAILED || c.outcome == GS_ENGINE_REFUSED);
            CHECK_EQ_U64(in.status, c.status);
            CHECK(depends_on(h, i, in.cause));
            CHECK_EQ_U64(atomic_load(&h->n_exec[i]) + atomic_load(&h->n_join[i]), 0);
            break;
        }
        case GS_ENGINE_REFUSED:
            CHECK_EQ_U64(in.status, GS_ERR_BUDGET);
            CHECK_EQ_U64(atomic_load(&h->n_exec[i]) + atomic_load(&h->n_join[i]), 0);
            break;
        default:
            CHECK(0);
        }
    }
    CHECK_EQ_U64(discards, st.cancellations);
    CHECK_EQ_U64(counts[GS_ENGINE_DONE], st.done);
    CHECK_EQ_U64(counts[GS_ENGINE_FAILED], st.failed);
    CHECK_EQ_U64(counts[GS_ENGINE_SKIPPED], st.skipped);
    CHECK_EQ_U64(counts[GS_ENGINE_REFUSED], st.refused);
    CHECK_EQ_U64(st.cancelled, 0);
    CHECK_EQ_U64(atomic_load(&h->last_done), h->n);
    CHECK(st.queue_peak <= st.queue_cap);
    /* finishers start only when they have work: a finish or joins */
    CHECK_EQ_U64(st.finishers, fins_in_force(h) ? h->finishers : 0);
    /* lanes: every one initialised and finished once; busy counts add up */
    CHECK_EQ_U64(atomic_load(&h->n_inits), h->nl);
    CHECK_EQ_U64(atomic_load(&h->n_finis), h->nl);
    uint64_t ex = 0, pr = 0, jn = 0, dc = 0;
    for (uint32_t l = 0; l < h->nl; l++) {
        gs_engine_lane_info li;
        CHECK(gs_engine_lane_get(h->e, &li, l) == GS_OK);
        CHECK_EQ_U64(li.device, h->lane_dev[l]);
        ex += li.executed, pr += li.proven, jn += li.joined, dc += li.discarded;
    }
    uint64_t ex_t = 0, pr_t = 0, jn_t = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        if (info_of(h, i).lane == GS_ENGINE_NONE) jn += atomic_load(&h->n_join[i]); /* finishers' */
        ex_t += atomic_load(&h->n_exec[i]);
        pr_t += atomic_load(&h->n_prove[i]);
        jn_t += atomic_load(&h->n_join[i]);
    }
    /* executes and discards: all on the finishers when they are in force */
    CHECK_EQ_U64(fins_in_force(h) ? st.finisher_executed : ex, ex_t);
    CHECK_EQ_U64(fins_in_force(h) ? ex : st.finisher_executed, 0);
    CHECK_EQ_U64(pr, pr_t);
    CHECK_EQ_U64(jn, jn_t);
    CHECK_EQ_U64(fins_in_force(h) ? st.finisher_discarded : dc, discards);
    CHECK_EQ_U64(fins_in_force(h) ? dc : st.finisher_discarded, 0);
}

static void harness_free(harness *h) {
    gs_engine_free(h->e);
    free(h);
}

/* Runs a harness to the end and checks it; returns it for more checks. */
static harness *run_checked(harness *h) {
    CHECK(harness_engine(h) == GS_OK);
    if (!h->e) return h;
    CHECK(gs_engine_run(h->e) == GS_OK);
    check_run(h);
    return h;
}

/* The default balanced tree over claims lo..hi (as the manifest makes it). */
static uint32_t tree(harness *h, uint32_t lo, uint32_t hi) {
    if (hi - lo == 1) return lo;
    uint32_t mid = lo + (hi - lo + 1) / 2;
    uint32_t kids[2] = {tree(h, lo, mid), tree(h, mid, hi)};
    return add_join(h, kids, 2, 0, 0);
}

/* ---- tests ---- */

static void test_args(void) {
    begin("argument checks");
    harness *h = harness_new(2, 1, 100);
    h->lane_dev[1] = 0;
    add_claim(h, 1, 1, 1);
    add_claim(h, 1, 1, 1);
    gs_engine_callbacks cb = callbacks(h);
    gs_engine_config cfg = {.host_budget = 100,
                            .num_devices = 1,
                            .device_budget = h->dev_budget,
                            .num_lanes = 2,
                            .lane_device = h->lane_dev};
    gs_engine *e = (gs_engine *)1;
    CHECK(gs_engine_new(NULL, &cfg, &cb, h->u, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_engine_new(&e, NULL, &cb, h->u, 2) == GS_ERR_INVALID_ARG && e == NULL);
    CHECK(gs_engine_new(&e, &cfg, NULL, h->u, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_engine_new(&e, &cfg, &cb, NULL, 2) == GS_ERR_INVALID_ARG);
    gs_engine_config bad = cfg;
    bad.num_lanes = 0;
    CHECK(gs_engine_new(&e, &bad, &cb, h->u, 2) == GS_ERR_INVALID_ARG);
    bad = cfg;
    bad.device_budget = NULL;
    CHECK(gs_engine_new(&e, &bad, &cb, h->u, 2) == GS_ERR_INVALID_ARG);
    uint32_t devs[2] = {0, 1}; /* device 1 of 1 */
    bad = cfg;
    bad.lane_device = devs;
    CHECK(gs_engine_new(&e, &bad, &cb, h->u, 2) == GS_ERR_INVALID_ARG);
    gs_engine_callbacks nocb = cb;
    nocb.execute = NULL;
    CHECK(gs_engine_new(&e, &cfg, &nocb, h->u, 2) == GS_ERR_INVALID_ARG);
    nocb = cb;
    nocb.prove = NULL;
    CHECK(gs_engine_new(&e, &cfg, &nocb, h->u, 2) == GS_ERR_INVALID_ARG);
    nocb = cb;
    nocb.join = NULL; /* no joins: not needed */
    CHECK(gs_engine_new(&e, &cfg, &nocb, h->u, 2) == GS_OK);
    gs_engine_free(e);

    gs_engine_unit u[4];
    uint32_t k0[1] = {0}, k3[1] = {3}, k2[1] = {2}, kk[2] = {0, 0}, kbig[1] = {9}, kself[1] = {2};
    memcpy(u, h->u, 2 * sizeof u[0]);
    u[2] = (gs_engine_unit){.kind = GS_ENGINE_JOIN, .num_children = 1, .children = k0};
    CHECK(gs_engine_new(&e, &cfg, &nocb, u, 3) == GS_ERR_INVALID_ARG); /* join without join() */
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 3) == GS_OK);
    gs_engine_free(e);
    u[1].num_children = 1, u[1].children = k0; /* a claim with children */
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 3) == GS_ERR_INVALID_ARG);
    u[1].num_children = 0, u[1].children = NULL;
    u[2].children = kbig;
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 3) == GS_ERR_INVALID_ARG);
    u[2].children = kself;
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 3) == GS_ERR_INVALID_ARG);
    u[2].num_children = 2, u[2].children = kk; /* repeated child */
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 3) == GS_ERR_INVALID_ARG);
    u[2] = (gs_engine_unit){.kind = GS_ENGINE_JOIN, .num_children = 1, .children = k3};
    u[3] = (gs_engine_unit){.kind = GS_ENGINE_JOIN, .num_children = 1, .children = k2};
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 4) == GS_ERR_INVALID_ARG); /* a cycle */
    u[2].children = k0;
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 4) == GS_OK); /* 3 joins 2 joins 0 */
    gs_engine_free(e);
    u[3].kind = (gs_engine_kind)7;
    CHECK(gs_engine_new(&e, &cfg, &cb, u, 4) == GS_ERR_INVALID_ARG);

    /* defaults, records before a run, one run only */
    CHECK(gs_engine_new(&e, &cfg, &cb, h->u, 2) == GS_OK);
    gs_engine_stats st;
    gs_engine_stats_get(e, &st);
    CHECK_EQ_U64(st.queue_cap, 4);
    CHECK_EQ_U64(st.pending, 2);
    gs_engine_unit_info in;
    CHECK(gs_engine_unit_get(e, &in, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_engine_unit_get(e, &in, 1) == GS_OK && in.outcome == GS_ENGINE_PENDING);
    CHECK(in.t_queued == GS_ENGINE_NO_TIME && in.lane == GS_ENGINE_NONE);
    gs_engine_lane_info li;
    CHECK(gs_engine_lane_get(e, &li, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_engine_lane_get(e, &li, 1) == GS_OK && li.device == 0);
    CHECK(gs_engine_run(e) == GS_OK);
    CHECK(gs_engine_run(e) == GS_ERR_INVALID_ARG);
    gs_engine_stats_get(e, &st);
    CHECK_EQ_U64(st.done, 2);
    gs_engine_free(e);
    gs_engine_free(NULL);
    CHECK(gs_engine_run(NULL) == GS_ERR_INVALID_ARG);
    CHECK(strcmp(gs_engine_outcome_str(GS_ENGINE_SKIPPED), "skipped") == 0);

    /* no units at all */
    harness *z = harness_new(2, 0, 100);
    run_checked(z);
    harness_free(z);
    harness_free(h);
}

/* One lane: the exact order. Executed claims go before new ones, and a join
 * whose children are done before both. */
static void test_joins_first_one_lane(void) {
    begin("joins first: one lane, exact order");
    harness *h = harness_new(1, 0, GS_ENGINE_UNLIMITED);
    h->qcap = 2;
    for (int i = 0; i < 4; i++) add_claim(h, 10, 10, 10);
    uint32_t a[2] = {0, 1}, b[2] = {2, 3};
    uint32_t j4 = add_join(h, a, 2, 0, 0), j5 = add_join(h, b, 2, 0, 0);
    uint32_t c[2] = {j4, j5};
    add_join(h, c, 2, 0, 0);
    run_checked(h);
    static const uint32_t want[] = {
        0 | EV_EXEC << 16, 0 | EV_PROVE << 16, 1 | EV_EXEC << 16, 1 | EV_PROVE << 16,
        4 | EV_JOIN << 16, 2 | EV_EXEC << 16, 2 | EV_PROVE << 16, 3 | EV_EXEC << 16,
        3 | EV_PROVE << 16, 5 | EV_JOIN << 16, 6 | EV_JOIN << 16};
    CHECK_EQ_U64(atomic_load(&h->order_next), 11);
    for (unsigned i = 0; i < 11; i++) CHECK_EQ_U64(h->order[i], want[i]);
    harness_free(h);
}

/* Several lanes, memory unlimited: no claim starts executing while a join is
 * ready and not started, nor while an executed claim waits for a lane.
 * With finishers, claims execute on them while others wait for a lane (the
 * point of it); then no claim starts proving while a join is ready and not
 * started, nor ahead of an executed claim that started executing before it. */
static void test_joins_first_lanes(void) {
    begin("joins first: four lanes, decision order (finish on the lanes, then on finishers)");
    for (int rep = 0; rep < 8; rep++) {
        int fins = rep >= 4;
        harness *h = harness_new(4, 2, GS_ENGINE_UNLIMITED);
        h->use_finish = fins;
        h->finishers = fins ? 2 : 0;
        h->fast_exec = fins; /* executed claims wait for lanes */
        h->lane_dev[0] = h->lane_dev[1] = 0;
        h->lane_dev[2] = 1;
        h->qcap = (uint32_t)(1 + (rep % 4) * 3);
        h->slow_report = 1;
        uint32_t nc = 48;
        for (uint32_t i = 0; i < nc; i++) {
            add_claim(h, 1, 1, 1);
            h->work_us[i] = (unsigned)gs_test_below(200);
        }
        tree(h, 0, nc);
        run_checked(h);
        gs_engine_unit_info in[MAXU];
        for (uint32_t i = 0; i < h->n; i++) in[i] = info_of(h, i);
        for (uint32_t i = 0; i < h->n; i++)
            for (uint32_t c = 0; c < nc; c++) {
                uint64_t s = fins ? in[c].seq_prove : in[c].seq_exec;
                if (h->u[i].kind == GS_ENGINE_JOIN)
                    CHECK(!(in[i].seq_queued < s && s < in[i].seq_prove));
                else if (!fins)
                    CHECK(!(in[i].seq_exec_end < s && s < in[i].seq_prove));
                else
                    CHECK(!(in[i].seq_exec < in[c].seq_exec && in[i].seq_exec_end < s &&
                            s < in[i].seq_prove));
            }
        if (fins) { /* and some claim did execute while another waited to be proven */
            uint32_t ahead = 0;
            for (uint32_t i = 0; i < nc; i++)
                for (uint32_t c = 0; c < nc; c++)
                    ahead += in[i].seq_exec_end < in[c].seq_exec && in[c].seq_exec < in[i].seq_prove;
            CHECK(rep % 4 == 0 || ahead > 0); /* qcap 1 leaves no room to execute ahead */
        }
        harness_free(h);
    }
}

/* Random units, budgets, lanes and devices: nothing exceeds a budget (the
 * engine's peaks and the ledger's), every outcome is the expected one. */
static void test_random_budgets(void) {
    begin("budgets hold under random unit sets");
    uint64_t cancels = 0, refused = 0, failed = 0, skipped = 0;
    for (int run = 0; run < 150; run++) {
        uint32_t nl = 1 + (uint32_t)gs_test_below(5), nd = (uint32_t)gs_test_below(4);
        size_t hb = 60 + gs_test_below(200);
        harness *h = harness_new(nl, nd, hb);
        size_t dmax = 0, dmin = SIZE_MAX;
        for (uint32_t d = 0; d < nd; d++) {
            h->dev_budget[d] = 40 + gs_test_below(200);
            if (h->dev_budget[d] > dmax) dmax = h->dev_budget[d];
            if (h->dev_budget[d] < dmin) dmin = h->dev_budget[d];
        }
        if (!nd) dmax = dmin = hb / 2;
        for (uint32_t l = 0; l < nl; l++) {
            uint32_t d = (uint32_t)gs_test_below(nd + 1);
            h->lane_dev[l] = d == nd ? GS_ENGINE_NONE : d;
        }
        h->qcap = gs_test_below(3) == 0 ? 0 : 1 + (uint32_t)gs_test_below(6);
        uint32_t nc = 1 + (uint32_t)gs_test_below(40);
        uint32_t open[MAXU], nopen = 0;
        for (uint32_t i = 0; i < nc; i++) {
            open[nopen++] = add_claim(h, gs_test_below(hb * 6 / 10), gs_test_below(hb / 2),
                                      gs_test_below(dmax * 11 / 10 + 1));
        }
        while (nopen > 1 && gs_test_below(12) != 0) {
            uint32_t k = 1 + (uint32_t)gs_test_below(3), kids[4];
            if (k > nopen) k = nopen;
            for (uint32_t j = 0; j < k; j++) {
                uint32_t p = (uint32_t)gs_test_below(nopen);
                kids[j] = open[p];
                open[p] = open[--nopen];
            }
            open[nopen++] = add_join(h, kids, k, gs_test_below(hb / 4), gs_test_below(dmin / 2 + 1));
        }
        /* finish: none, on the lane, or on 1..3 finishers (which also run
         * the device-free joins, with or without a finish callback) */
        int mode = (int)gs_test_below(4);
        h->use_finish = mode != 0 && gs_test_below(5) != 0;
        h->finishers = mode >= 2 ? 1 + (uint32_t)gs_test_below(3) : 0;
        for (uint32_t i = 0; i < h->n; i++) {
            if (gs_test_below(25) == 0) h->fail[i] = GS_ERR_IO;
            if (h->u[i].kind == GS_ENGINE_CLAIM && gs_test_below(25) == 0)
                h->fail_prove[i] = GS_ERR_PROOF_OOD;
            if (h->u[i].kind == GS_ENGINE_CLAIM && gs_test_below(25) == 0)
                h->fail_finish[i] = GS_ERR_PROOF_FRI_FOLD;
            h->work_us[i] = gs_test_below(3) == 0 ? 0 : (unsigned)gs_test_below(150);
        }
        run_checked(h);
        gs_engine_stats st;
        gs_engine_stats_get(h->e, &st);
        cancels += st.cancellations, refused += st.refused;
        failed += st.failed, skipped += st.skipped;
        harness_free(h);
    }
    printf("    150 runs: %" PRIu64 " refused, %" PRIu64 " failed, %" PRIu64 " skipped, %" PRIu64
           " cancellations\n", refused, failed, skipped, cancels);
    CHECK(refused > 0 && failed > 0 && skipped > 0); /* the mix exercised every path */
}

/* Heavy host pressure: stage-1 bytes large against the budget, so executed
 * claims block each other often. Every cancellation discards once. */
static void test_pressure_discards(void) {
    begin("mutual blocks under pressure: one discard per cancelled attempt");
    uint64_t cancels = 0, cancels_fin = 0;
    for (int run = 0; run < 40; run++) {
        uint32_t nl = 3 + (uint32_t)gs_test_below(4);
        harness *h = harness_new(nl, 1, 100);
        h->dev_budget[0] = 100;
        for (uint32_t l = 0; l < nl; l++) h->lane_dev[l] = l % 2 ? 0 : GS_ENGINE_NONE;
        h->qcap = nl + (uint32_t)gs_test_below(6);
        if (run % 2) { /* executes and discards on finishers */
            h->use_finish = 1;
            h->finishers = 1 + (uint32_t)gs_test_below(3);
        }
        for (uint32_t i = 0; i < 30; i++) {
            add_claim(h, 25 + gs_test_below(21), 10 + gs_test_below(20), gs_test_below(30));
            h->work_us[i] = (unsigned)gs_test_below(120);
        }
        run_checked(h);
        gs_engine_stats st;
        gs_engine_stats_get(h->e, &st);
        cancels += st.cancellations;
        if (run % 2) cancels_fin += st.cancellations;
        CHECK_EQ_U64(st.done, 30);
        harness_free(h);
    }
    printf("    40 runs: %" PRIu64 " cancellations (%" PRIu64 " with finishers)\n", cancels,
           cancels_fin);
    CHECK(cancels > 0 && cancels_fin > 0);
}

/* Two lanes, a host budget that holds both stage 1s but then neither stage 2:
 * the youngest (B) is cancelled, A proves, B executes again and proves. */
static void test_mutual_block(void) {
    begin("mutual block: two lanes, the youngest waiter cancelled");
    harness *h = harness_new(2, 0, 100);
    h->qcap = 2;
    uint32_t a = add_claim(h, 40, 50, 0), b = add_claim(h, 40, 50, 0);
    h->work_us[a] = 50, h->work_us[b] = 300;
    run_checked(h);
    gs_engine_stats st;
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.cancellations, 1);
    CHECK_EQ_U64(st.done, 2);
    CHECK_EQ_U64(atomic_load(&h->n_discard[a]), 0);
    CHECK_EQ_U64(atomic_load(&h->n_discard[b]), 1);
    CHECK_EQ_U64(atomic_load(&h->n_exec[b]), 2);
    CHECK_EQ_U64(info_of(h, b).cancellations, 1);
    CHECK_EQ_U64(atomic_load(&h->order_next), 6);
    static const uint32_t tail[] = {1 | EV_DISCARD << 16, 0 | EV_PROVE << 16, 1 | EV_EXEC << 16,
                                    1 | EV_PROVE << 16};
    for (unsigned i = 0; i < 4; i++) CHECK_EQ_U64(h->order[2 + i], tail[i]);
    CHECK(st.host_peak == 90);
    harness_free(h);

    /* Three lanes, three stage 1s of 30 and stage 2s of 45: C is cancelled,
     * then B (A still does not fit), A proves; B and C execute again, block
     * again, and C (the youngest again) is cancelled once more. */
    h = harness_new(3, 0, 100);
    h->qcap = 3;
    for (int i = 0; i < 3; i++) add_claim(h, 30, 45, 0);
    run_checked(h);
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.cancellations, 3);
    CHECK_EQ_U64(atomic_load(&h->n_discard[0]), 0);
    CHECK_EQ_U64(atomic_load(&h->n_discard[1]), 1);
    CHECK_EQ_U64(atomic_load(&h->n_discard[2]), 2);
    CHECK(info_of(h, 0).seq_prove < info_of(h, 1).seq_prove);
    CHECK(info_of(h, 1).seq_prove < info_of(h, 2).seq_prove);
    harness_free(h);

    /* Four lanes, stage 1s of 20 and stage 2s of 25: one cancellation is
     * enough, and it is the youngest's (D), not an older waiter's. */
    h = harness_new(4, 0, 100);
    h->qcap = 4;
    for (int i = 0; i < 4; i++) add_claim(h, 20, 25, 0);
    run_checked(h);
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.cancellations, 1);
    for (uint32_t i = 0; i < 4; i++) CHECK_EQ_U64(atomic_load(&h->n_discard[i]), i == 3);
    harness_free(h);

    /* The three cases with executes and discards on finishers (and each
     * proof's host bytes held to its finish): the same victims. Finishers
     * outnumber nothing here: every stage 1 fits at once, as on the lanes. */
    static const struct {
        uint32_t lanes;
        size_t s1, s2;
        uint64_t cancels;
        uint32_t discards[4];
    } cases[] = {{2, 40, 50, 1, {0, 1}}, {3, 30, 45, 3, {0, 1, 2}}, {4, 20, 25, 1, {0, 0, 0, 1}}};
    for (unsigned k = 0; k < 3; k++) {
        h = harness_new(cases[k].lanes, 0, 100);
        h->qcap = cases[k].lanes;
        h->use_finish = 1;
        h->finishers = cases[k].lanes;
        for (uint32_t i = 0; i < cases[k].lanes; i++) {
            add_claim(h, cases[k].s1, cases[k].s2, 0);
            h->work_us[i] = 50 + 250 * i;
        }
        run_checked(h);
        gs_engine_stats_get(h->e, &st);
        CHECK_EQ_U64(st.cancellations, cases[k].cancels);
        CHECK_EQ_U64(st.finisher_discarded, cases[k].cancels);
        for (uint32_t i = 0; i < cases[k].lanes; i++)
            CHECK_EQ_U64(atomic_load(&h->n_discard[i]), cases[k].discards[i]);
        harness_free(h);
    }
}

/* A large claim among a stream of small ones: once it is in the queue, no
 * claim behind it starts before it (host, stage 1); once it is executed, no
 * claim that started executing after it is proven before it (device,
 * stage 2). */
static void test_no_starvation(void) {
    begin("a large unit is not starved by small ones (without and with finishers)");
    for (int rep = 0; rep < 6; rep++) {
        harness *h = harness_new(4, 0, 100);
        h->qcap = 8;
        h->use_finish = rep >= 3;
        h->finishers = rep >= 3 ? 2 : 0;
        uint32_t big = 6;
        for (uint32_t i = 0; i < 200; i++) {
            if (i == big) add_claim(h, 80, 20, 0);
            else add_claim(h, 10, 10, 0);
            h->work_us[i] = 20 + (unsigned)gs_test_below(100);
        }
        run_checked(h);
        uint64_t s = info_of(h, big).seq_exec;
        uint32_t overtook = 0;
        for (uint32_t i = big + 1; i < h->n; i++) overtook += info_of(h, i).seq_exec < s;
        CHECK_EQ_U64(overtook, 0);
        harness_free(h);
    }
    for (int rep = 0; rep < 6; rep++) {
        harness *h = harness_new(4, 1, GS_ENGINE_UNLIMITED);
        h->dev_budget[0] = 100;
        for (uint32_t l = 0; l < 4; l++) h->lane_dev[l] = 0;
        h->qcap = 8;
        h->use_finish = rep >= 3;
        h->finishers = rep >= 3 ? 2 : 0;
        h->fast_exec = 1; /* executed claims pile up waiting for the device */
        uint32_t big = 5;
        for (uint32_t i = 0; i < 200; i++) {
            add_claim(h, 1, 1, i == big ? 90 : 30);
            h->work_us[i] = 20 + (unsigned)gs_test_below(100);
        }
        run_checked(h);
        gs_engine_unit_info bi = info_of(h, big);
        uint32_t overtook = 0;
        for (uint32_t i = 0; i < h->n; i++) {
            gs_engine_unit_info in = info_of(h, i);
            overtook += in.seq_exec > bi.seq_exec && in.seq_prove > bi.seq_exec_end &&
                        in.seq_prove < bi.seq_prove;
        }
        CHECK_EQ_U64(overtook, 0);
        CHECK(gs_engine_device_peak(h->e, 0) <= 100);
        harness_free(h);
    }
}

/* Failures: a failed prove, a failed execute and a failed join skip their
 * dependants (with the cause and its status); the other units finish. */
static void test_failures(void) {
    begin("a failure skips its dependants, the rest finishes");
    harness *h = harness_new(3, 1, 1000);
    h->dev_budget[0] = 1000;
    h->lane_dev[1] = 0;
    for (int i = 0; i < 12; i++) add_claim(h, 10, 10, 10);
    uint32_t ka[3] = {0, 1, 2}, kb[3] = {3, 4, 5}, kc[2] = {6, 7}, kd[2] = {8, 9}, ke[2] = {10, 11};
    uint32_t ja = add_join(h, ka, 3, 1, 1), jb = add_join(h, kb, 3, 1, 1);
    uint32_t jc = add_join(h, kc, 2, 1, 1), jd = add_join(h, kd, 2, 1, 1);
    uint32_t je = add_join(h, ke, 2, 1, 1);
    uint32_t kr[4] = {ja, jb, jc, jd};
    uint32_t root = add_join(h, kr, 4, 1, 1);
    h->fail_prove[2] = GS_ERR_PROOF_OOD;
    h->fail[5] = GS_ERR_NOMEM;
    h->fail[jc] = GS_ERR_IO;
    run_checked(h);
    gs_engine_unit_info in = info_of(h, ja);
    CHECK(in.outcome == GS_ENGINE_SKIPPED && in.cause == 2 && in.status == GS_ERR_PROOF_OOD);
    in = info_of(h, jb);
    CHECK(in.outcome == GS_ENGINE_SKIPPED && in.cause == 5 && in.status == GS_ERR_NOMEM);
    in = info_of(h, jc);
    CHECK(in.outcome == GS_ENGINE_FAILED && in.status == GS_ERR_IO);
    in = info_of(h, root);
    CHECK(in.outcome == GS_ENGINE_SKIPPED && (in.cause == 2 || in.cause == 5 || in.cause == jc));
    CHECK(info_of(h, jd).outcome == GS_ENGINE_DONE && info_of(h, je).outcome == GS_ENGINE_DONE);
    CHECK(info_of(h, 5).outcome == GS_ENGINE_FAILED && atomic_load(&h->n_prove[5]) == 0);
    gs_engine_stats st;
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.done, 10 + 2);
    CHECK_EQ_U64(st.failed, 3);
    CHECK_EQ_U64(st.skipped, 3);
    harness_free(h);
}

/* Refusal at gs_engine_new: a unit too large for the host or for every
 * device; a unit that fits only the larger device runs only there; a CPU
 * lane carries the device bytes on the host. */
static void test_refused(void) {
    begin("a unit larger than every budget is refused at submission");
    harness *h = harness_new(3, 2, 100);
    h->dev_budget[0] = 50, h->dev_budget[1] = 200;
    h->lane_dev[0] = h->lane_dev[1] = 0, h->lane_dev[2] = 1;
    uint32_t c0 = add_claim(h, 10, 10, 10), c1 = add_claim(h, 10, 10, 150);
    uint32_t c2 = add_claim(h, 10, 10, 300), c3 = add_claim(h, 80, 30, 0);
    uint32_t c4 = add_claim(h, 10, 10, 10);
    uint32_t k5[2] = {c0, c1}, k6[2] = {c2, c4};
    uint32_t j5 = add_join(h, k5, 2, 0, 0), j6 = add_join(h, k6, 2, 0, 0);
    uint32_t k7[2] = {j5, j6};
    uint32_t j7 = add_join(h, k7, 2, 0, 0);
    uint32_t c8 = add_claim(h, 10, 10, 10);
    uint32_t k9[1] = {c8};
    uint32_t j9 = add_join(h, k9, 1, 0, 500);
    uint32_t k10[1] = {c3};
    uint32_t j10 = add_join(h, k10, 1, 0, 0);
    CHECK(harness_engine(h) == GS_OK);
    gs_engine_unit_info in = info_of(h, c2); /* decided before the run */
    CHECK(in.outcome == GS_ENGINE_REFUSED && in.status == GS_ERR_BUDGET);
    CHECK(info_of(h, c3).outcome == GS_ENGINE_REFUSED && info_of(h, j9).outcome == GS_ENGINE_REFUSED);
    in = info_of(h, j6);
    CHECK(in.outcome == GS_ENGINE_SKIPPED && in.cause == c2 && in.status == GS_ERR_BUDGET);
    CHECK(info_of(h, j7).cause == c2 && info_of(h, j10).cause == c3);
    CHECK(info_of(h, c0).outcome == GS_ENGINE_PENDING);
    CHECK(gs_engine_run(h->e) == GS_OK);
    check_run(h);
    CHECK(info_of(h, c1).outcome == GS_ENGINE_DONE && info_of(h, c1).device == 1);
    CHECK(info_of(h, c8).outcome == GS_ENGINE_DONE && info_of(h, c4).outcome == GS_ENGINE_DONE);
    CHECK(info_of(h, j5).outcome == GS_ENGINE_DONE);
    CHECK_EQ_U64(atomic_load(&h->n_exec[c2]) + atomic_load(&h->n_exec[c3]), 0);
    harness_free(h);

    /* A CPU lane charges device bytes to the host: 30 + 80 > 100 refuses
     * there, while a lane on a device of 100 takes it. */
    h = harness_new(1, 0, 100);
    add_claim(h, 30, 0, 80);
    run_checked(h);
    CHECK(info_of(h, 0).outcome == GS_ENGINE_REFUSED);
    harness_free(h);
    h = harness_new(1, 1, 100);
    h->dev_budget[0] = 100, h->lane_dev[0] = 0;
    add_claim(h, 30, 0, 80);
    run_checked(h);
    CHECK(info_of(h, 0).outcome == GS_ENGINE_DONE);
    harness_free(h);
}

/* gs_engine_cancel from a callback mid-batch, and before the run. */
static void test_cancel(void) {
    begin("cancelling a batch");
    /* One prove at a time fits the device, so executed claims wait in the
     * queue when the cancel comes: they must be discarded, not proven. */
    harness *h = harness_new(3, 1, 200);
    h->dev_budget[0] = 30;
    for (uint32_t l = 0; l < 3; l++) h->lane_dev[l] = 0;
    h->qcap = 6;
    h->fast_exec = 1;
    for (uint32_t i = 0; i < 40; i++) {
        add_claim(h, 20, 20, 20);
        h->work_us[i] = 50 + (unsigned)gs_test_below(100);
    }
    tree(h, 0, 40);
    h->cancel_at = 10;
    CHECK(harness_engine(h) == GS_OK);
    CHECK(gs_engine_run(h->e) == GS_ERR_CANCELLED);
    gs_engine_stats st;
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.pending, 0);
    CHECK_EQ_U64(st.done + st.cancelled, h->n);
    CHECK(st.done >= 10 && st.cancelled > 0);
    /* No callback but discard starts after the cancel: besides the prove that
     * cancelled, at most the other lanes' callbacks were under way. */
    uint32_t claims_done = 0;
    for (uint32_t i = 0; i < 40; i++) claims_done += info_of(h, i).outcome == GS_ENGINE_DONE;
    CHECK(claims_done >= 10 && claims_done <= 10 + h->nl - 1);
    CHECK_EQ_U64(atomic_load(&h->errors), 0);
    CHECK_EQ_U64(atomic_load(&h->host), 0);
    CHECK(atomic_load(&h->host_peak) <= 200 && st.host_peak <= 200);
    CHECK_EQ_U64(atomic_load(&h->last_done), h->n);
    uint64_t disc = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        gs_engine_unit_info in = info_of(h, i);
        CHECK_EQ_U64(atomic_load(&h->live[i]), 0);
        CHECK_EQ_U64(atomic_load(&h->reported[i]), 1);
        CHECK_EQ_U64(atomic_load(&h->n_exec_ok[i]),
                     atomic_load(&h->n_prove[i]) + atomic_load(&h->n_discard[i]));
        disc += atomic_load(&h->n_discard[i]);
        if (in.outcome == GS_ENGINE_DONE)
            CHECK(atomic_load(&h->n_prove[i]) + atomic_load(&h->n_join[i]) == 1);
        else
            CHECK(in.outcome == GS_ENGINE_CANCELLED && in.status == GS_ERR_CANCELLED &&
                  atomic_load(&h->n_prove[i]) + atomic_load(&h->n_join[i]) == 0);
    }
    uint64_t lane_disc = 0;
    for (uint32_t l = 0; l < h->nl; l++) {
        gs_engine_lane_info li;
        CHECK(gs_engine_lane_get(h->e, &li, l) == GS_OK);
        lane_disc += li.discarded;
    }
    CHECK_EQ_U64(lane_disc, disc);
    CHECK(disc > 0);
    harness_free(h);

    h = harness_new(2, 0, 100);
    for (int i = 0; i < 4; i++) add_claim(h, 1, 1, 0);
    tree(h, 0, 4);
    CHECK(harness_engine(h) == GS_OK);
    gs_engine_cancel(h->e);
    CHECK(gs_engine_run(h->e) == GS_ERR_CANCELLED);
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.cancelled, h->n);
    CHECK_EQ_U64(atomic_load(&h->order_next), 0);
    CHECK_EQ_U64(atomic_load(&h->n_finis), 2);
    harness_free(h);
}

/* A finisher verifies and stores while the lane proves on: once a claim's
 * prove returns, its device bytes are free, so the next claim proves on the
 * same device (whose budget holds one proof) while the first finishes. */
static void test_finish_frees_device(void) {
    begin("finish: the device is free for the next proof");
    harness *h = harness_new(1, 1, GS_ENGINE_UNLIMITED);
    h->dev_budget[0] = 100;
    h->lane_dev[0] = 0;
    h->use_finish = 1, h->finishers = 1;
    h->wait_prove_in_finish = 2; /* finish of claim 0 waits for claim 1's prove */
    add_claim(h, 10, 10, 100);
    add_claim(h, 10, 10, 100);
    run_checked(h);
    CHECK_EQ_U64(atomic_load(&h->finish_saw), 1);
    gs_engine_unit_info a = info_of(h, 0), b = info_of(h, 1);
    CHECK(b.t_prove_start < a.t_finish_end);
    harness_free(h);
}

/* ... but its host bytes stay reserved until finish returns: a host budget
 * that holds one claim's stages 1 and 2 and another's stage 1 keeps the
 * second proof waiting for the first claim's finish (the ledger, which holds
 * the bytes to the end of finish, checks the budget too). */
static void test_finish_holds_host(void) {
    begin("finish: the host bytes are held until it returns");
    for (uint32_t nfin = 0; nfin <= 2; nfin++) {
        harness *h = harness_new(2, 0, 100);
        h->use_finish = 1, h->finishers = nfin;
        for (int i = 0; i < 6; i++) {
            add_claim(h, 30, 40, 0);
            h->work_us[i] = 200;
        }
        run_checked(h);
        gs_engine_unit_info in[6];
        for (uint32_t i = 0; i < 6; i++) in[i] = info_of(h, i);
        /* stage 2 needs 70 of 100: no two claims between prove start and
         * finish end at once */
        for (uint32_t i = 0; i < 6; i++)
            for (uint32_t j = 0; j < 6; j++) {
                if (i == j) continue;
                uint64_t end_i = nfin ? in[i].t_finish_end : in[i].t_prove_end;
                CHECK(!(in[i].t_prove_start <= in[j].t_prove_start && in[j].t_prove_start < end_i));
            }
        harness_free(h);
    }
}

/* Finishers take the device-free joins, so they never wait for a lane; a
 * join that needs device bytes still runs on a lane. A failed finish fails
 * its claim and skips its join. */
static void test_finish_joins(void) {
    begin("finish: joins on finishers, a failed finish skips its join");
    harness *h = harness_new(2, 1, GS_ENGINE_UNLIMITED);
    h->lane_dev[0] = h->lane_dev[1] = 0;
    h->use_finish = 1, h->finishers = 2;
    for (int i = 0; i < 8; i++) add_claim(h, 1, 1, 1);
    uint32_t k0[2] = {0, 1}, k1[2] = {2, 3}, k2[2] = {4, 5}, k3[2] = {6, 7};
    uint32_t j0 = add_join(h, k0, 2, 1, 0), j1 = add_join(h, k1, 2, 1, 5);
    uint32_t j2 = add_join(h, k2, 2, 1, 0), j3 = add_join(h, k3, 2, 1, 0);
    h->fail_finish[5] = GS_ERR_IO;
    run_checked(h);
    CHECK(info_of(h, j0).lane == GS_ENGINE_NONE && info_of(h, j3).lane == GS_ENGINE_NONE);
    CHECK(info_of(h, j1).lane < 2);
    gs_engine_unit_info f = info_of(h, 5), s2 = info_of(h, j2);
    CHECK(f.outcome == GS_ENGINE_FAILED && f.status == GS_ERR_IO);
    CHECK(s2.outcome == GS_ENGINE_SKIPPED && s2.cause == 5 && s2.status == GS_ERR_IO);
    gs_engine_stats st;
    gs_engine_stats_get(h->e, &st);
    CHECK(st.finisher_busy_ns > 0);
    harness_free(h);
}

/* A lane whose init fails: nothing runs, the other lanes are finished. */
static void test_lane_init_failure(void) {
    begin("a lane init failure stops the run before any unit");
    harness *h = harness_new(3, 0, 100);
    h->init_fail[1] = GS_ERR_CUDA;
    for (int i = 0; i < 5; i++) add_claim(h, 1, 1, 0);
    CHECK(harness_engine(h) == GS_OK);
    CHECK(gs_engine_run(h->e) == GS_ERR_CUDA);
    CHECK_EQ_U64(atomic_load(&h->order_next), 0);
    CHECK_EQ_U64(atomic_load(&h->n_inits), 3);
    CHECK_EQ_U64(atomic_load(&h->fini_mask), 5u);
    CHECK_EQ_U64(atomic_load(&h->init_mask), 5u);
    gs_engine_lane_info li;
    CHECK(gs_engine_lane_get(h->e, &li, 1) == GS_OK && li.init_status == GS_ERR_CUDA);
    gs_engine_stats st;
    gs_engine_stats_get(h->e, &st);
    CHECK_EQ_U64(st.pending, 5);
    harness_free(h);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    signal(SIGALRM, on_alarm);
    test_args();
    test_joins_first_one_lane();
    test_joins_first_lanes();
    test_mutual_block();
    test_no_starvation();
    test_failures();
    test_refused();
    test_random_budgets();
    test_pressure_discards();
    test_cancel();
    test_lane_init_failure();
    test_finish_frees_device();
    test_finish_holds_host();
    test_finish_joins();
    alarm(0);
    return gs_test_done();
}
