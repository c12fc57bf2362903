/* The batch scheduling engine (src/batch/engine.h; docs/batch.md,
 * "Scheduling").
 *
 * One mutex guards the whole schedule. Every decision is made by dispatch(),
 * called under the lock by whichever thread changed the state (a lane that
 * finished a callback, gs_engine_run at the start, gs_engine_cancel). It
 * hands jobs to idle lanes; a lane runs its job's callback outside the lock
 * and comes back with the result. Units never hold a thread while they wait:
 * waiting is being in the queue.
 *
 * Resources are numbered: 0 is the host, 1 + d is device d. A dispatch pass
 * walks the queue in priority order with a set-aside per resource, empty at
 * the start of the pass. A unit is admitted on an idle lane when its bytes
 * fit beside what is reserved and what is set aside; otherwise its bytes are
 * set aside (on the host, and for stage 2 on the device with the most room),
 * so nothing behind it can take them: a unit is never overtaken by one that
 * would delay it. When nothing runs and nothing can be admitted, the only
 * bytes reserved are those of executed claims waiting in the queue (in the
 * order they were admitted to execute, so the oldest is first); the youngest
 * of them, never the head, is cancelled (discarded on an idle lane or a
 * finisher, requeued to execute again). The head alone always fits (units
 * that could not are refused up front), so this ends every mutual block; and
 * a cancelled claim is admitted to execute again only beside the head's
 * set-aside, after which the head fits, so it cannot block the head twice.
 *
 * Finishers (when configured) are threads beside the lanes with a FIFO of
 * their own: a claim whose prove succeeded waits there for its finish with
 * its host bytes reserved, and device-free joins, claims to execute and
 * cancelled claims' discards are admitted there (they need host bytes, not
 * an idle lane; a lane then only proves, and the queue walk goes past the
 * units that wait for a lane, their bytes set aside, to the claims to
 * execute behind them). Their jobs count as running: nothing is cancelled
 * to break a block while one is queued or runs, since each will release
 * bytes or move a claim on. */
#include "batch/engine.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum ustate {
    U_BLOCKED,    /* join: a child is not done */
    U_BACKLOG,    /* claim: not yet in the queue */
    U_QUEUED,     /* claim in the queue, to execute */
    U_EXECUTING,
    U_EXECUTED,   /* claim in the queue, executed, to prove; holds exec_host */
    U_READY,      /* join in the queue */
    U_PROVING,    /* prove or join running (a join on a finisher: admitted, maybe queued) */
    U_FINISHING,  /* claim proven, its finish queued or running on a finisher; holds host bytes */
    U_DISCARDING,
    U_FINAL
} ustate;

typedef enum job_kind { J_NONE, J_EXEC, J_PROVE, J_JOIN, J_DISCARD, J_FINISH } job_kind;

typedef struct unit {
    gs_engine_unit d;      /* children point into the engine's pool */
    ustate st;
    uint32_t pending;      /* children not done yet */
    uint32_t par_off, par_n; /* its parents: e->parents[par_off .. par_off + par_n) */
    size_t held_host, held_dev;
    uint32_t held_res;     /* the resource held_dev is on (0: none) */
    uint64_t s1_order;     /* order of its stage-1 admission: the youngest is the largest */
    uint64_t qkey;         /* order within its queue class */
    int doomed;            /* fail with GS_ERR_BUDGET once discarded (see break_deadlock) */
    gs_engine_unit_info info;
} unit;

typedef struct lane {
    gs_engine *e;
    uint32_t idx;
    uint32_t res;          /* 1 + its device, or 0 for a CPU lane */
    pthread_cond_t cv;     /* with e->mu: a job arrived, or the run finished */
    job_kind job;
    uint32_t unit;
    pthread_t th;
    int have_cv, have_thread;
    gs_engine_lane_info info;
} lane;

/* A finisher: a thread that runs claims' finish and device-free joins, off
 * the lanes. Jobs wait in a FIFO (each unit at most once in it). */
typedef struct finisher {
    gs_engine *e;
    pthread_t th;
    int have_thread;
} finisher;

struct gs_engine {
    pthread_mutex_t mu;
    pthread_cond_t cv_main;  /* with mu: lane inits, the end of the batch */
    pthread_mutex_t report_mu; /* serializes unit_done and progress */
    gs_engine_callbacks cb;
    uint32_t n, nl, nres;
    unit *u;
    uint32_t *child_pool, *parents;
    uint32_t *work;          /* a stack for propagating outcomes */
    lane *lanes;
    size_t *budget, *in_use, *peak, *aside; /* per resource */
    uint32_t *q, qlen;       /* the execution queue, in priority order */
    uint32_t qcap, inflight, queue_peak;
    uint32_t backlog;        /* the next unit index refill looks at */
    uint32_t idle, running, inited;
    finisher *fins;
    uint32_t nfin;           /* finisher threads (0: finish runs on the lane after prove) */
    uint32_t *fq, fq_head, fq_len; /* the finishers' FIFO: a ring of n entries */
    job_kind *fq_job;        /* J_FINISH or J_JOIN, by unit */
    uint32_t fin_pending;    /* finisher jobs queued or running */
    uint64_t fin_busy_ns;
    uint64_t fin_executed, fin_discarded; /* stage-1 jobs the finishers ran */
    pthread_cond_t cv_fin;   /* with mu: a finisher job arrived, or the run finished */
    uint32_t *events, nfinal, reported; /* units in the order they got outcomes */
    uint32_t counts[6];      /* by outcome */
    uint64_t seq, s1_counter, key_counter;
    uint64_t cancellations, violations;
    uint64_t t0, wall_ns;
    int ran, started, finished, stopping, swept;
    int have_mu, have_cv, have_report_mu, have_cv_fin;
};

/* ---- small helpers ---- */

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(const gs_engine *e) { return mono_ns() - e->t0; }

static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

/* Whether `need` more bytes fit resource r beside what is reserved and set aside. */
static int fits(const gs_engine *e, uint32_t r, size_t need) {
    if (e->budget[r] == GS_ENGINE_UNLIMITED) return 1;
    return sat_add(sat_add(e->in_use[r], e->aside[r]), need) <= e->budget[r];
}

/* Room left on resource r beside what is reserved and set aside. */
static size_t room(const gs_engine *e, uint32_t r) {
    if (e->budget[r] == GS_ENGINE_UNLIMITED) return SIZE_MAX;
    size_t used = sat_add(e->in_use[r], e->aside[r]);
    return used < e->budget[r] ? e->budget[r] - used : 0;
}

static void reserve(gs_engine *e, uint32_t r, size_t bytes) {
    e->in_use[r] = sat_add(e->in_use[r], bytes);
    if (e->budget[r] != GS_ENGINE_UNLIMITED && e->in_use[r] > e->budget[r]) {
        e->violations++; /* an engine bug: tests check that this stays 0 */
        assert(!"batch engine: a reservation exceeded its budget");
    }
    if (e->in_use[r] > e->peak[r]) e->peak[r] = e->in_use[r];
}

static void release(gs_engine *e, uint32_t r, size_t bytes) {
    e->in_use[r] = bytes > e->in_use[r] ? 0 : e->in_use[r] - bytes;
}

/* What stage 2 (or a join) of u needs on lane l: host bytes, and device bytes
 * on l->res (a CPU lane's are on the host). */
static void stage2_need(const unit *u, const lane *l, size_t *host, size_t *dev) {
    size_t h = u->d.prove_host;
    if (u->d.kind == GS_ENGINE_JOIN) h = sat_add(h, u->d.exec_host);
    if (l->res == 0) {
        *host = sat_add(h, u->d.prove_dev);
        *dev = 0;
    } else {
        *host = h;
        *dev = u->d.prove_dev;
    }
}

/* Whether u can ever run on lane l: with nothing else reserved, its stage 1
 * and stage 2 fit at once. */
static int feasible(const gs_engine *e, const unit *u, const lane *l) {
    size_t h, d;
    stage2_need(u, l, &h, &d);
    if (u->d.kind == GS_ENGINE_CLAIM) h = sat_add(h, u->d.exec_host);
    if (e->budget[0] != GS_ENGINE_UNLIMITED && h > e->budget[0]) return 0;
    if (l->res && e->budget[l->res] != GS_ENGINE_UNLIMITED && d > e->budget[l->res]) return 0;
    return 1;
}

/* ---- the queue: joins in the order they became ready, then executed claims
 * in the order they were admitted to execute (so the head of the waiting
 * executed claims is the oldest, and the youngest is the one cancelled), then
 * claims to execute in unit order ---- */

static int qclass(const unit *u) { return u->st == U_READY ? 0 : u->st == U_EXECUTED ? 1 : 2; }

static int qbefore(const unit *a, const unit *b) {
    int ca = qclass(a), cb = qclass(b);
    return ca != cb ? ca < cb : a->qkey < b->qkey;
}

static void q_insert(gs_engine *e, uint32_t ui) {
    unit *u = &e->u[ui];
    u->qkey = u->st == U_QUEUED ? ui : u->st == U_EXECUTED ? u->s1_order : ++e->key_counter;
    uint32_t i = e->qlen;
    while (i > 0 && qbefore(u, &e->u[e->q[i - 1]])) i--;
    memmove(e->q + i + 1, e->q + i, (size_t)(e->qlen - i) * sizeof *e->q);
    e->q[i] = ui;
    e->qlen++;
}

static void q_remove(gs_engine *e, uint32_t i) {
    memmove(e->q + i, e->q + i + 1, (size_t)(e->qlen - i - 1) * sizeof *e->q);
    e->qlen--;
}

static void stamp_queued(gs_engine *e, unit *u) {
    if (u->info.t_queued != GS_ENGINE_NO_TIME) return; /* a requeue keeps the first */
    u->info.t_queued = now_ns(e);
    u->info.seq_queued = ++e->seq;
}

/* ---- outcomes ---- */

static void set_final(gs_engine *e, uint32_t ui, gs_engine_outcome o, gs_status st,
                      uint32_t cause) {
    unit *u = &e->u[ui];
    gs_engine_unit_info *in = &u->info;
    u->st = U_FINAL;
    in->outcome = o;
    in->status = st;
    in->cause = cause;
    in->t_done = e->started ? now_ns(e) : 0;
    in->seq_done = ++e->seq;
    uint64_t end = in->t_prove_start != GS_ENGINE_NO_TIME ? in->t_prove_start : in->t_done;
    if (in->t_queued != GS_ENGINE_NO_TIME && end > in->t_queued) {
        uint64_t w = end - in->t_queued, busy = in->exec_ns + in->discard_ns;
        in->wait_ns = w > busy ? w - busy : 0;
    }
    e->events[e->nfinal++] = ui;
    e->counts[o]++;
}

/* Gives ui its outcome and the consequences to its dependants: a done unit
 * may make a join ready; any other outcome skips (or, once the batch is
 * stopping, cancels) every dependant without an outcome, transitively. */
static void finish_unit(gs_engine *e, uint32_t ui, gs_engine_outcome o, gs_status st) {
    set_final(e, ui, o, st, GS_ENGINE_NONE);
    unit *u = &e->u[ui];
    if (o == GS_ENGINE_DONE) {
        for (uint32_t k = 0; k < u->par_n; k++) {
            unit *p = &e->u[e->parents[u->par_off + k]];
            if (p->st != U_BLOCKED || --p->pending) continue;
            p->st = U_READY;
            stamp_queued(e, p);
            q_insert(e, e->parents[u->par_off + k]);
        }
        return;
    }
    uint32_t top = 0;
    e->work[top++] = ui;
    while (top) {
        const unit *c = &e->u[e->work[--top]];
        for (uint32_t k = 0; k < c->par_n; k++) {
            uint32_t pi = e->parents[c->par_off + k];
            if (e->u[pi].st == U_FINAL) continue;
            if (e->stopping)
                set_final(e, pi, GS_ENGINE_CANCELLED, GS_ERR_CANCELLED, GS_ENGINE_NONE);
            else
                set_final(e, pi, GS_ENGINE_SKIPPED, st, ui);
            e->work[top++] = pi; /* each unit is pushed once: it is final now */
        }
    }
}

/* ---- dispatch ---- */

static void give_job(gs_engine *e, lane *l, job_kind j, uint32_t ui) {
    l->job = j;
    l->unit = ui;
    e->idle--;
    e->running++;
    pthread_cond_signal(&l->cv);
}

static void give_fin(gs_engine *e, job_kind j, uint32_t ui) {
    e->fq[(e->fq_head + e->fq_len) % e->n] = ui;
    e->fq_job[ui] = j;
    e->fq_len++;
    e->fin_pending++;
    pthread_cond_signal(&e->cv_fin);
}

/* A join that runs on a finisher: there are finishers and it needs no device. */
static int fin_join(const gs_engine *e, const unit *u) {
    return e->nfin && u->d.kind == GS_ENGINE_JOIN && u->d.prove_dev == 0;
}

/* Whether u's next job needs an idle lane: with finishers, executing a
 * claim (stage 1) and device-free joins run on them instead. */
static int needs_lane(const gs_engine *e, const unit *u) {
    return !(e->nfin && u->st == U_QUEUED) && !fin_join(e, u);
}

static lane *first_idle(gs_engine *e) {
    for (uint32_t i = 0; i < e->nl; i++)
        if (e->lanes[i].job == J_NONE) return &e->lanes[i];
    return NULL;
}

/* Gives u's discard to a finisher, or to an idle lane without finishers. */
static void give_discard(gs_engine *e, uint32_t ui) {
    if (e->nfin) give_fin(e, J_DISCARD, ui);
    else give_job(e, first_idle(e), J_DISCARD, ui);
}

static void refill(gs_engine *e) {
    while (e->inflight < e->qcap && e->backlog < e->n) {
        uint32_t ui = e->backlog++;
        unit *u = &e->u[ui];
        if (u->st != U_BACKLOG) continue; /* joins, refused claims */
        u->st = U_QUEUED;
        e->inflight++;
        stamp_queued(e, u);
        q_insert(e, ui);
    }
    if (e->inflight > e->queue_peak) e->queue_peak = e->inflight;
}

/* Admits u on an idle lane if it fits; 1 if it did. */
static int try_admit(gs_engine *e, uint32_t ui) {
    unit *u = &e->u[ui];
    if (u->st == U_QUEUED) {
        lane *l = e->nfin ? NULL : first_idle(e);
        if (!fits(e, 0, u->d.exec_host) || (!e->nfin && !l)) return 0;
        reserve(e, 0, u->d.exec_host);
        u->held_host = u->d.exec_host;
        if (u->held_host > u->info.host_bytes) u->info.host_bytes = u->held_host;
        u->s1_order = ++e->s1_counter;
        u->st = U_EXECUTING;
        u->info.exec_lane = l ? l->idx : GS_ENGINE_NONE;
        u->info.seq_exec = ++e->seq;
        if (l) give_job(e, l, J_EXEC, ui);
        else give_fin(e, J_EXEC, ui);
        return 1;
    }
    if (fin_join(e, u)) {
        size_t h = sat_add(u->d.prove_host, u->d.exec_host);
        if (!fits(e, 0, h)) return 0;
        reserve(e, 0, h);
        u->held_host = h;
        u->info.host_bytes = h;
        u->info.seq_prove = ++e->seq;
        u->st = U_PROVING;
        give_fin(e, J_JOIN, ui);
        return 1;
    }
    /* stage 2 or a join: the fitting idle lane whose resource has the most room */
    lane *best = NULL;
    size_t best_room = 0;
    for (uint32_t i = 0; i < e->nl; i++) {
        lane *l = &e->lanes[i];
        if (l->job != J_NONE || !feasible(e, u, l)) continue;
        size_t h, d;
        stage2_need(u, l, &h, &d);
        if (!fits(e, 0, h) || (l->res && !fits(e, l->res, d))) continue;
        size_t r = room(e, l->res);
        if (!best || r > best_room) best = l, best_room = r;
    }
    if (!best) return 0;
    size_t h, d;
    stage2_need(u, best, &h, &d);
    reserve(e, 0, h);
    u->held_host = sat_add(u->held_host, h);
    if (best->res) reserve(e, best->res, d);
    u->held_dev = d;
    u->held_res = best->res;
    if (u->held_host > u->info.host_bytes) u->info.host_bytes = u->held_host;
    u->info.dev_bytes = d;
    u->info.lane = best->idx;
    u->info.device = best->res ? best->res - 1 : GS_ENGINE_NONE;
    u->info.seq_prove = ++e->seq;
    if (u->d.kind == GS_ENGINE_CLAIM) e->inflight--;
    u->st = U_PROVING;
    give_job(e, best, u->d.kind == GS_ENGINE_CLAIM ? J_PROVE : J_JOIN, ui);
    return 1;
}

/* u waits: set its bytes aside so that nothing behind it takes them. */
static void set_aside(gs_engine *e, const unit *u) {
    if (u->st == U_QUEUED) {
        e->aside[0] = sat_add(e->aside[0], u->d.exec_host);
        return;
    }
    const lane *t = NULL;
    size_t t_room = 0;
    for (uint32_t i = 0; i < e->nl; i++) {
        const lane *l = &e->lanes[i];
        if (!feasible(e, u, l)) continue;
        size_t r = room(e, l->res);
        if (!t || r > t_room) t = l, t_room = r;
    }
    if (!t) return; /* cannot happen: such units are refused */
    size_t h, d;
    stage2_need(u, t, &h, &d);
    e->aside[0] = sat_add(e->aside[0], h);
    if (t->res) e->aside[t->res] = sat_add(e->aside[t->res], d);
}

/* One walk down the queue; the number of units admitted. */
static uint32_t pass(gs_engine *e) {
    memset(e->aside, 0, (size_t)e->nres * sizeof *e->aside);
    uint32_t admitted = 0;
    for (uint32_t i = 0; i < e->qlen;) {
        uint32_t ui = e->q[i];
        if (e->stopping) { /* only executed claims are left: discard them */
            if (!e->nfin && e->idle == 0) break;
            e->u[ui].st = U_DISCARDING;
            q_remove(e, i);
            give_discard(e, ui);
            admitted++;
            continue;
        }
        /* Device-free joins (first in the queue) and, with finishers, the
         * claims to execute go to the finishers; the rest need an idle lane.
         * Without one, a unit that needs a lane waits with its bytes set
         * aside, so what comes behind it is admitted only beside it. */
        if (e->idle == 0 && needs_lane(e, &e->u[ui])) {
            if (!e->nfin) break; /* everything behind needs a lane too */
            set_aside(e, &e->u[ui]);
            i++;
            continue;
        }
        if (try_admit(e, ui)) {
            q_remove(e, i);
            admitted++;
            continue;
        }
        set_aside(e, &e->u[ui]);
        i++;
    }
    return admitted;
}

/* Nothing runs and nothing fits: cancel the youngest executed claim (never
 * the head), which frees its stage-1 bytes. */
static void break_deadlock(gs_engine *e) {
    uint32_t vi = GS_ENGINE_NONE;
    for (uint32_t i = 1; i < e->qlen; i++) {
        const unit *u = &e->u[e->q[i]];
        if (u->st == U_EXECUTED && (vi == GS_ENGINE_NONE || u->s1_order > e->u[e->q[vi]].s1_order))
            vi = i;
    }
    if (vi == GS_ENGINE_NONE) {
        /* Unreachable: the head fits when it alone holds bytes (the proof is in
         * the file's opening comment), and the queue is not empty while units
         * wait. Should the accounting ever be wrong, fail the head rather than
         * hang (an executed head is discarded first). */
        assert(!"batch engine: stuck with nothing to cancel");
        uint32_t hi = e->q[0];
        unit *h = &e->u[hi];
        if (h->st == U_EXECUTED) {
            vi = 0;
            h->doomed = 1;
        } else {
            q_remove(e, 0);
            if (h->st == U_QUEUED) e->inflight--;
            finish_unit(e, hi, GS_ENGINE_FAILED, GS_ERR_BUDGET);
            return;
        }
    }
    uint32_t ui = e->q[vi];
    q_remove(e, vi);
    e->u[ui].st = U_DISCARDING;
    e->u[ui].info.cancellations++;
    e->cancellations++;
    give_discard(e, ui);
}

/* Once stopping: everything that has not started gets CANCELLED; executed
 * claims stay in the queue to be discarded. */
static void stop_sweep(gs_engine *e) {
    e->swept = 1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < e->qlen; i++)
        if (e->u[e->q[i]].st == U_EXECUTED) e->q[k++] = e->q[i];
    e->qlen = k;
    for (uint32_t i = 0; i < e->n; i++) {
        unit *u = &e->u[i];
        if (u->st == U_QUEUED) e->inflight--;
        if (u->st == U_BLOCKED || u->st == U_BACKLOG || u->st == U_QUEUED || u->st == U_READY)
            finish_unit(e, i, GS_ENGINE_CANCELLED, GS_ERR_CANCELLED);
    }
    e->backlog = e->n;
}

static void dispatch(gs_engine *e) {
    if (!e->started || e->finished) return;
    if (e->stopping && !e->swept) stop_sweep(e);
    for (;;) {
        for (;;) {
            if (!e->stopping) refill(e);
            if (!pass(e) || e->idle == 0) break;
        }
        if (e->running || e->fin_pending || e->nfinal == e->n || e->stopping || !e->qlen) break;
        break_deadlock(e);
        if (e->running) break;
        /* (the unreachable fallback failed a unit: look again) */
    }
    if (e->nfinal == e->n && e->running == 0 && e->fin_pending == 0)
        pthread_cond_broadcast(&e->cv_main);
}

/* ---- lanes ---- */

/* An execute returned (on a lane or a finisher): the claim waits for a lane
 * to prove it, or fails. */
static void exec_done(gs_engine *e, uint32_t ui, gs_status st, uint64_t ta, uint64_t tb) {
    unit *u = &e->u[ui];
    gs_engine_unit_info *in = &u->info;
    in->t_exec_start = ta;
    in->t_exec_end = tb;
    in->exec_ns += tb - ta;
    in->seq_exec_end = ++e->seq;
    if (st == GS_OK) {
        u->st = U_EXECUTED;
        q_insert(e, ui);
        return;
    }
    release(e, 0, u->held_host);
    u->held_host = 0;
    e->inflight--;
    finish_unit(e, ui, GS_ENGINE_FAILED, st);
}

/* A discard returned: the claim's stage-1 bytes go back, and it executes
 * again (or, once stopping, is cancelled). */
static void discard_done(gs_engine *e, uint32_t ui, uint64_t ta, uint64_t tb) {
    unit *u = &e->u[ui];
    u->info.discard_ns += tb - ta;
    release(e, 0, u->held_host);
    u->held_host = 0;
    if (e->stopping || u->doomed) {
        e->inflight--;
        if (u->doomed) finish_unit(e, ui, GS_ENGINE_FAILED, GS_ERR_BUDGET);
        else finish_unit(e, ui, GS_ENGINE_CANCELLED, GS_ERR_CANCELLED);
    } else {
        u->st = U_QUEUED; /* back in line by its unit index */
        q_insert(e, ui);
    }
}

/* A lane's callback returned: record, release, move the unit on, dispatch. */
static void complete(gs_engine *e, lane *l, gs_status st, uint64_t ta, uint64_t tb) {
    uint32_t ui = l->unit;
    unit *u = &e->u[ui];
    gs_engine_unit_info *in = &u->info;
    job_kind j = l->job;
    l->job = J_NONE;
    e->idle++;
    e->running--;
    l->info.busy_ns += tb - ta;
    if (st != GS_OK && j != J_DISCARD) l->info.failed++;
    switch (j) {
    case J_EXEC:
        l->info.executed++;
        exec_done(e, ui, st, ta, tb);
        break;
    case J_PROVE:
    case J_JOIN:
        if (j == J_PROVE) l->info.proven++;
        else l->info.joined++;
        in->t_prove_start = ta;
        in->t_prove_end = tb;
        in->prove_ns += tb - ta;
        if (u->held_res) release(e, u->held_res, u->held_dev);
        u->held_dev = 0;
        u->held_res = 0;
        if (j == J_PROVE && st == GS_OK && e->nfin && e->cb.finish) {
            /* The device is free now; the host bytes stay until finish. */
            u->st = U_FINISHING;
            give_fin(e, J_FINISH, ui);
            break;
        }
        release(e, 0, u->held_host);
        u->held_host = 0;
        finish_unit(e, ui, st == GS_OK ? GS_ENGINE_DONE : GS_ENGINE_FAILED, st);
        break;
    case J_DISCARD:
        l->info.discarded++;
        discard_done(e, ui, ta, tb);
        break;
    case J_FINISH:
    case J_NONE:
        break;
    }
    dispatch(e);
}

/* A finisher's job returned: record; an execute or discard moves the claim
 * on as on a lane; a finish or join releases the host bytes and gives the
 * outcome; dispatch. */
static void complete_fin(gs_engine *e, job_kind j, uint32_t ui, gs_status st, uint64_t ta,
                         uint64_t tb) {
    unit *u = &e->u[ui];
    gs_engine_unit_info *in = &u->info;
    e->fin_pending--;
    e->fin_busy_ns += tb - ta;
    if (j == J_EXEC || j == J_DISCARD) {
        if (j == J_EXEC) e->fin_executed++, exec_done(e, ui, st, ta, tb);
        else e->fin_discarded++, discard_done(e, ui, ta, tb);
        dispatch(e);
        return;
    }
    if (j == J_FINISH) {
        in->t_finish_start = ta;
        in->t_finish_end = tb;
        in->finish_ns += tb - ta;
    } else {
        in->t_prove_start = ta;
        in->t_prove_end = tb;
        in->prove_ns += tb - ta;
    }
    release(e, 0, u->held_host);
    u->held_host = 0;
    finish_unit(e, ui, st == GS_OK ? GS_ENGINE_DONE : GS_ENGINE_FAILED, st);
    dispatch(e);
}

/* Reports outcomes in order, one caller at a time. A lane with finishers
 * beside it (wait = 0) reports only when no one else is: it goes back to
 * its device rather than wait, and whoever reports drains its outcomes too
 * (the finishers after each job, gs_engine_run at the end). */
static void report_drain(gs_engine *e, int wait) {
    if (!e->cb.unit_done && !e->cb.progress) return;
    if (wait) pthread_mutex_lock(&e->report_mu);
    else if (pthread_mutex_trylock(&e->report_mu) != 0) return;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        if (e->reported == e->nfinal) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        uint32_t ui = e->events[e->reported++];
        uint32_t done = e->reported;
        gs_engine_unit_info info = e->u[ui].info;
        pthread_mutex_unlock(&e->mu);
        if (e->cb.unit_done) e->cb.unit_done(e->cb.ctx, ui, &info);
        if (e->cb.progress) e->cb.progress(e->cb.ctx, done, e->n);
    }
    pthread_mutex_unlock(&e->report_mu);
}

static gs_status run_job(gs_engine *e, job_kind j, uint32_t ui, uint32_t li) {
    void *c = e->cb.ctx;
    switch (j) {
    case J_EXEC: return e->cb.execute(c, ui, li);
    case J_PROVE: {
        gs_status st = e->cb.prove(c, ui, li);
        /* Without finishers the claim finishes on its lane. */
        if (st == GS_OK && e->cb.finish && !e->nfin) st = e->cb.finish(c, ui);
        return st;
    }
    case J_JOIN: return e->cb.join(c, ui, li);
    case J_FINISH: return e->cb.finish(c, ui);
    case J_DISCARD:
        if (e->cb.discard) e->cb.discard(c, ui, li);
        return GS_OK;
    case J_NONE: break;
    }
    return GS_OK;
}

static void *lane_main(void *arg) {
    lane *l = arg;
    gs_engine *e = l->e;
    uint64_t ta = mono_ns();
    gs_status st = e->cb.lane_init ? e->cb.lane_init(e->cb.ctx, l->idx) : GS_OK;
    uint64_t tb = mono_ns();
    pthread_mutex_lock(&e->mu);
    l->info.init_status = st;
    l->info.init_ns = tb - ta;
    e->inited++;
    pthread_cond_broadcast(&e->cv_main);
    if (st != GS_OK) {
        pthread_mutex_unlock(&e->mu);
        return NULL;
    }
    for (;;) {
        while (l->job == J_NONE && !e->finished) pthread_cond_wait(&l->cv, &e->mu);
        if (l->job == J_NONE) break;
        job_kind j = l->job;
        uint32_t ui = l->unit;
        pthread_mutex_unlock(&e->mu);
        ta = now_ns(e);
        st = run_job(e, j, ui, l->idx);
        tb = now_ns(e);
        pthread_mutex_lock(&e->mu);
        complete(e, l, st, ta, tb);
        pthread_mutex_unlock(&e->mu);
        report_drain(e, e->nfin == 0);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    if (e->cb.lane_fini) e->cb.lane_fini(e->cb.ctx, l->idx);
    return NULL;
}

static void *finisher_main(void *arg) {
    finisher *f = arg;
    gs_engine *e = f->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (e->fq_len == 0 && !e->finished) pthread_cond_wait(&e->cv_fin, &e->mu);
        if (e->fq_len == 0) break;
        uint32_t ui = e->fq[e->fq_head];
        e->fq_head = (e->fq_head + 1) % e->n;
        e->fq_len--;
        job_kind j = e->fq_job[ui];
        pthread_mutex_unlock(&e->mu);
        uint64_t ta = now_ns(e);
        gs_status st = run_job(e, j, ui, GS_ENGINE_NONE);
        uint64_t tb = now_ns(e);
        pthread_mutex_lock(&e->mu);
        complete_fin(e, j, ui, st, ta, tb);
        pthread_mutex_unlock(&e->mu);
        report_drain(e, 1);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- construction ---- */

static int joins_exist(const gs_engine_unit *units, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (units[i].kind == GS_ENGINE_JOIN) return 1;
    return 0;
}

static gs_status check_args(const gs_engine_config *cfg, const gs_engine_callbacks *cb,
                            const gs_engine_unit *units, uint32_t n) {
    if (!cfg || !cb || (n && !units) || n > GS_ENGINE_MAX_UNITS) return GS_ERR_INVALID_ARG;
    if (cfg->num_lanes == 0 || cfg->num_lanes > GS_ENGINE_MAX_LANES) return GS_ERR_INVALID_ARG;
    if (cfg->finishers > GS_ENGINE_MAX_LANES) return GS_ERR_INVALID_ARG;
    if (cfg->num_devices > GS_ENGINE_MAX_DEVICES || (cfg->num_devices && !cfg->device_budget))
        return GS_ERR_INVALID_ARG;
    if (cfg->lane_device)
        for (uint32_t i = 0; i < cfg->num_lanes; i++)
            if (cfg->lane_device[i] != GS_ENGINE_NONE && cfg->lane_device[i] >= cfg->num_devices)
                return GS_ERR_INVALID_ARG;
    int claims = 0, joins = 0;
    for (uint32_t i = 0; i < n; i++) {
        const gs_engine_unit *u = &units[i];
        if (u->kind == GS_ENGINE_CLAIM) {
            claims = 1;
            if (u->num_children) return GS_ERR_INVALID_ARG;
        } else if (u->kind == GS_ENGINE_JOIN) {
            joins = 1;
            if (u->num_children && !u->children) return GS_ERR_INVALID_ARG;
            for (uint32_t k = 0; k < u->num_children; k++)
                if (u->children[k] >= n || u->children[k] == i) return GS_ERR_INVALID_ARG;
        } else {
            return GS_ERR_INVALID_ARG;
        }
    }
    if (claims && (!cb->execute || !cb->prove)) return GS_ERR_INVALID_ARG;
    if (joins && !cb->join) return GS_ERR_INVALID_ARG;
    return GS_OK;
}

/* Children lists copied, parents built, repeated children and cycles
 * refused (Kahn's order over the children counts). */
static gs_status build_graph(gs_engine *e, const gs_engine_unit *units) {
    uint32_t n = e->n;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += units[i].num_children;
    if (total > UINT32_MAX) return GS_ERR_INVALID_ARG;
    e->child_pool = malloc((total ? total : 1) * sizeof *e->child_pool);
    e->parents = malloc((total ? total : 1) * sizeof *e->parents);
    if (!e->child_pool || !e->parents) return GS_ERR_NOMEM;
    uint32_t *mark = e->work; /* scratch: the last join that listed a unit, + 1 */
    memset(mark, 0, (size_t)n * sizeof *mark);
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        unit *u = &e->u[i];
        u->d = units[i];
        u->d.children = e->child_pool + off;
        for (uint32_t k = 0; k < units[i].num_children; k++) {
            uint32_t c = units[i].children[k];
            if (mark[c] == i + 1) return GS_ERR_INVALID_ARG; /* repeated */
            mark[c] = i + 1;
            e->child_pool[off + k] = c;
            e->u[c].par_n++;
        }
        off += units[i].num_children;
        u->pending = units[i].num_children;
    }
    uint32_t poff = 0;
    for (uint32_t i = 0; i < n; i++) {
        e->u[i].par_off = poff;
        poff += e->u[i].par_n;
        e->u[i].par_n = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < e->u[i].d.num_children; k++) {
            unit *c = &e->u[e->u[i].d.children[k]];
            e->parents[c->par_off + c->par_n++] = i;
        }
    /* Kahn: mark[] now counts children not yet ordered. */
    uint32_t top = 0, seen = 0;
    uint32_t *stack = e->events; /* scratch until the run */
    for (uint32_t i = 0; i < n; i++) {
        mark[i] = e->u[i].d.num_children;
        if (!mark[i]) stack[top++] = i;
    }
    while (top) {
        const unit *c = &e->u[stack[--top]];
        seen++;
        for (uint32_t k = 0; k < c->par_n; k++) {
            uint32_t p = e->parents[c->par_off + k];
            if (--mark[p] == 0) stack[top++] = p;
        }
    }
    return seen == n ? GS_OK : GS_ERR_INVALID_ARG;
}

gs_status gs_engine_new(gs_engine **out, const gs_engine_config *cfg,
                        const gs_engine_callbacks *cb, const gs_engine_unit *units,
                        uint32_t num_units) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    GS_TRY(check_args(cfg, cb, units, num_units));
    gs_engine *e = calloc(1, sizeof *e);
    if (!e) return GS_ERR_NOMEM;
    e->n = num_units;
    e->nl = cfg->num_lanes;
    e->nres = 1 + cfg->num_devices;
    e->cb = *cb;
    e->qcap = cfg->queue_cap ? cfg->queue_cap : 2 * e->nl; /* nl <= GS_ENGINE_MAX_LANES */
    e->nfin = cb->finish || joins_exist(units, num_units) ? cfg->finishers : 0;
    size_t nn = num_units ? num_units : 1;
    e->u = calloc(nn, sizeof *e->u);
    e->work = calloc(nn, sizeof *e->work);
    e->events = calloc(nn, sizeof *e->events);
    e->q = calloc(nn, sizeof *e->q);
    e->lanes = calloc(e->nl, sizeof *e->lanes);
    e->budget = calloc(e->nres, sizeof *e->budget);
    e->in_use = calloc(e->nres, sizeof *e->in_use);
    e->peak = calloc(e->nres, sizeof *e->peak);
    e->aside = calloc(e->nres, sizeof *e->aside);
    e->fins = calloc(e->nfin ? e->nfin : 1, sizeof *e->fins);
    e->fq = calloc(nn, sizeof *e->fq);
    e->fq_job = calloc(nn, sizeof *e->fq_job);
    gs_status st = GS_ERR_NOMEM;
    if (!e->u || !e->work || !e->events || !e->q || !e->lanes || !e->budget || !e->in_use ||
        !e->peak || !e->aside || !e->fins || !e->fq || !e->fq_job)
        goto fail;
    e->have_mu = pthread_mutex_init(&e->mu, NULL) == 0;
    e->have_cv = pthread_cond_init(&e->cv_main, NULL) == 0;
    e->have_report_mu = pthread_mutex_init(&e->report_mu, NULL) == 0;
    e->have_cv_fin = pthread_cond_init(&e->cv_fin, NULL) == 0;
    if (!e->have_mu || !e->have_cv || !e->have_report_mu || !e->have_cv_fin) goto fail;
    for (uint32_t i = 0; i < e->nfin; i++) e->fins[i].e = e;
    for (uint32_t i = 0; i < e->nl; i++) {
        lane *l = &e->lanes[i];
        l->e = e;
        l->idx = i;
        uint32_t dev = cfg->lane_device ? cfg->lane_device[i] : GS_ENGINE_NONE;
        l->res = dev == GS_ENGINE_NONE ? 0 : 1 + dev;
        l->info.device = dev;
        l->info.init_status = GS_OK;
        l->have_cv = pthread_cond_init(&l->cv, NULL) == 0;
        if (!l->have_cv) goto fail;
    }
    st = build_graph(e, units);
    if (st != GS_OK) goto fail;
    e->budget[0] = cfg->host_budget;
    for (uint32_t d = 0; d < cfg->num_devices; d++) e->budget[1 + d] = cfg->device_budget[d];
    for (uint32_t i = 0; i < e->n; i++) {
        unit *u = &e->u[i];
        gs_engine_unit_info *in = &u->info;
        in->kind = u->d.kind;
        in->cause = in->exec_lane = in->lane = in->device = GS_ENGINE_NONE;
        in->t_queued = in->t_exec_start = in->t_exec_end = GS_ENGINE_NO_TIME;
        in->t_prove_start = in->t_prove_end = in->t_done = GS_ENGINE_NO_TIME;
        in->t_finish_start = in->t_finish_end = GS_ENGINE_NO_TIME;
        u->st = u->d.kind == GS_ENGINE_CLAIM ? U_BACKLOG : U_BLOCKED;
    }
    /* Refusals: a unit that fits no lane even alone; its dependants are skipped. */
    for (uint32_t i = 0; i < e->n; i++) {
        if (e->u[i].st == U_FINAL) continue;
        int ok = 0;
        for (uint32_t k = 0; k < e->nl && !ok; k++) ok = feasible(e, &e->u[i], &e->lanes[k]);
        if (!ok) finish_unit(e, i, GS_ENGINE_REFUSED, GS_ERR_BUDGET);
    }
    *out = e;
    return GS_OK;
fail:
    gs_engine_free(e);
    return st;
}

void gs_engine_free(gs_engine *e) {
    if (!e) return;
    if (e->lanes)
        for (uint32_t i = 0; i < e->nl; i++)
            if (e->lanes[i].have_cv) pthread_cond_destroy(&e->lanes[i].cv);
    if (e->have_report_mu) pthread_mutex_destroy(&e->report_mu);
    if (e->have_cv_fin) pthread_cond_destroy(&e->cv_fin);
    if (e->have_cv) pthread_cond_destroy(&e->cv_main);
    if (e->have_mu) pthread_mutex_destroy(&e->mu);
    free(e->u);
    free(e->child_pool);
    free(e->parents);
    free(e->work);
    free(e->events);
    free(e->q);
    free(e->lanes);
    free(e->budget);
    free(e->in_use);
    free(e->peak);
    free(e->aside);
    free(e->fins);
    free(e->fq);
    free(e->fq_job);
    free(e);
}

/* ---- running ---- */

/* Stops the lane and finisher threads that were started and waits for them. */
static void stop_lanes(gs_engine *e) {
    pthread_mutex_lock(&e->mu);
    e->finished = 1;
    for (uint32_t i = 0; i < e->nl; i++) pthread_cond_signal(&e->lanes[i].cv);
    pthread_cond_broadcast(&e->cv_fin);
    pthread_mutex_unlock(&e->mu);
    for (uint32_t i = 0; i < e->nl; i++)
        if (e->lanes[i].have_thread) pthread_join(e->lanes[i].th, NULL);
    for (uint32_t i = 0; i < e->nfin; i++)
        if (e->fins[i].have_thread) pthread_join(e->fins[i].th, NULL);
}

gs_status gs_engine_run(gs_engine *e) {
    if (!e) return GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    int again = e->ran;
    e->ran = 1;
    pthread_mutex_unlock(&e->mu);
    if (again) return GS_ERR_INVALID_ARG;
    uint64_t t_entry = mono_ns();
    e->t0 = t_entry; /* before any thread reads it */
    uint32_t started = 0;
    for (; started < e->nl; started++) {
        lane *l = &e->lanes[started];
        if (pthread_create(&l->th, NULL, lane_main, l) != 0) break;
        l->have_thread = 1;
    }
    uint32_t fstarted = 0;
    for (; started == e->nl && fstarted < e->nfin; fstarted++) {
        if (pthread_create(&e->fins[fstarted].th, NULL, finisher_main, &e->fins[fstarted]) != 0) break;
        e->fins[fstarted].have_thread = 1;
    }
    pthread_mutex_lock(&e->mu);
    while (e->inited < started) pthread_cond_wait(&e->cv_main, &e->mu);
    gs_status st = started < e->nl || fstarted < e->nfin ? GS_ERR_NOMEM : GS_OK;
    for (uint32_t i = 0; i < started && st == GS_OK; i++)
        if (e->lanes[i].info.init_status != GS_OK) st = e->lanes[i].info.init_status;
    if (st != GS_OK) {
        pthread_mutex_unlock(&e->mu);
        stop_lanes(e);
        e->wall_ns = mono_ns() - t_entry;
        return st;
    }
    e->idle = e->nl;
    e->started = 1;
    for (uint32_t i = 0; i < e->n; i++) { /* joins without children are ready now */
        unit *u = &e->u[i];
        if (u->st == U_BLOCKED && u->pending == 0) {
            u->st = U_READY;
            stamp_queued(e, u);
            q_insert(e, i);
        }
    }
    dispatch(e);
    pthread_mutex_unlock(&e->mu);
    report_drain(e, 1); /* refusals and their skips */
    pthread_mutex_lock(&e->mu);
    while (e->nfinal < e->n || e->running || e->fin_pending) pthread_cond_wait(&e->cv_main, &e->mu);
    int stopped = e->stopping;
    pthread_mutex_unlock(&e->mu);
    stop_lanes(e);
    report_drain(e, 1);
    pthread_mutex_lock(&e->mu);
    e->wall_ns = mono_ns() - t_entry;
    pthread_mutex_unlock(&e->mu);
    return stopped ? GS_ERR_CANCELLED : GS_OK;
}

void gs_engine_cancel(gs_engine *e) {
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    if (!e->stopping) {
        e->stopping = 1;
        dispatch(e);
    }
    pthread_mutex_unlock(&e->mu);
}

/* ---- records ---- */

gs_status gs_engine_unit_get(gs_engine *e, gs_engine_unit_info *out, uint32_t unit) {
    if (!e || !out || unit >= e->n) return GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    *out = e->u[unit].info;
    pthread_mutex_unlock(&e->mu);
    return GS_OK;
}

gs_status gs_engine_lane_get(gs_engine *e, gs_engine_lane_info *out, uint32_t lane) {
    if (!e || !out || lane >= e->nl) return GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    *out = e->lanes[lane].info;
    pthread_mutex_unlock(&e->mu);
    return GS_OK;
}

void gs_engine_stats_get(gs_engine *e, gs_engine_stats *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    out->units = e->n;
    out->done = e->counts[GS_ENGINE_DONE];
    out->failed = e->counts[GS_ENGINE_FAILED];
    out->skipped = e->counts[GS_ENGINE_SKIPPED];
    out->refused = e->counts[GS_ENGINE_REFUSED];
    out->cancelled = e->counts[GS_ENGINE_CANCELLED];
    out->pending = e->n - e->nfinal;
    out->cancellations = e->cancellations;
    out->wall_ns = e->wall_ns;
    out->host_budget = e->budget[0];
    out->host_peak = e->peak[0];
    out->budget_violations = e->violations;
    out->queue_cap = e->qcap;
    out->queue_peak = e->queue_peak;
    out->finishers = e->nfin;
    out->finisher_busy_ns = e->fin_busy_ns;
    out->finisher_executed = e->fin_executed;
    out->finisher_discarded = e->fin_discarded;
    pthread_mutex_unlock(&e->mu);
}

size_t gs_engine_device_peak(gs_engine *e, uint32_t device) {
    if (!e || device >= e->nres - 1) return 0;
    pthread_mutex_lock(&e->mu);
    size_t v = e->peak[1 + device];
    pthread_mutex_unlock(&e->mu);
    return v;
}

const char *gs_engine_outcome_str(gs_engine_outcome o) {
    switch (o) {
    case GS_ENGINE_PENDING: return "pending";
    case GS_ENGINE_DONE: return "done";
    case GS_ENGINE_FAILED: return "failed";
    case GS_ENGINE_SKIPPED: return "skipped";
    case GS_ENGINE_REFUSED: return "refused";
    case GS_ENGINE_CANCELLED: return "cancelled";
    }
    return "unknown";
}
