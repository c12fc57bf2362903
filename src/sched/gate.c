/* The memory gate: a FIFO ticket queue in front of a byte counter, under one
 * mutex and one condition variable.
 *
 * A blocking request takes the next ticket. Only the ticket equal to `head`
 * may be admitted, and only when it fits (see fits()). Admission advances
 * `head`; both admission and release broadcast, so the new head re-checks
 * whether it fits now, and everyone else goes back to sleep. The broadcast
 * wakes every waiter, which is fine for the handful of coarse requests
 * (tables, claims) the gate serves.
 *
 * Unlimited gates take no ticket and never wait: acquire and release only
 * update the counters, with saturating arithmetic. */
#include "gstark/sched.h"

#include <pthread.h>
#include <stdlib.h>

struct gs_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t budget;   /* immutable after gs_gate_new */
    size_t in_use;   /* bytes admitted now (may exceed budget: one over-budget request alone) */
    size_t peak;     /* max of in_use over time */
    size_t waiting;  /* requests blocked in gs_gate_acquire */
    uint64_t next;   /* the ticket the next request takes */
    uint64_t head;   /* the only ticket that may be admitted now */
};

gs_status gs_gate_new(gs_gate **out, size_t budget) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    gs_gate *g = calloc(1, sizeof *g);
    if (!g) return GS_ERR_NOMEM;
    if (pthread_mutex_init(&g->mu, NULL) != 0) {
        free(g);
        return GS_ERR_NOMEM;
    }
    if (pthread_cond_init(&g->cv, NULL) != 0) {
        pthread_mutex_destroy(&g->mu);
        free(g);
        return GS_ERR_NOMEM;
    }
    g->budget = budget;
    *out = g;
    return GS_OK;
}

void gs_gate_free(gs_gate *g) {
    if (!g) return;
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

/* Whether `bytes` may be admitted now (for the head). Written so that no sum
 * can overflow: in_use may exceed the budget while an over-budget request
 * runs alone, and then nothing else fits. */
static int fits(const gs_gate *g, size_t bytes) {
    if (g->in_use == 0) return 1;
    return g->in_use <= g->budget && bytes <= g->budget - g->in_use;
}

static void admit(gs_gate *g, size_t bytes) {
    g->in_use = sat_add(g->in_use, bytes);
    if (g->in_use > g->peak) g->peak = g->in_use;
}

void gs_gate_acquire(gs_gate *g, size_t bytes) {
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    if (g->budget == GS_GATE_UNLIMITED) {
        admit(g, bytes);
        pthread_mutex_unlock(&g->mu);
        return;
    }
    uint64_t ticket = g->next++;
    if (ticket != g->head || !fits(g, bytes)) {
        g->waiting++;
        do
            pthread_cond_wait(&g->cv, &g->mu);
        while (ticket != g->head || !fits(g, bytes));
        g->waiting--;
    }
    admit(g, bytes);
    g->head++;
    /* The next ticket is head now; it may fit already (e.g. a small request
     * behind one that just got in). */
    if (g->waiting) pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void gs_gate_release(gs_gate *g, size_t bytes) {
    if (!g) return;
    pthread_mutex_lock(&g->mu);
    /* Releasing more than is admitted is a caller bug; clamp rather than wrap
     * around (a wrapped in_use would block the gate forever). */
    g->in_use = bytes > g->in_use ? 0 : g->in_use - bytes;
    if (g->waiting) pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

size_t gs_gate_budget(const gs_gate *g) { return g ? g->budget : 0; }

static size_t read_locked(gs_gate *g, const size_t *field) {
    pthread_mutex_lock(&g->mu);
    size_t v = *field;
    pthread_mutex_unlock(&g->mu);
    return v;
}

size_t gs_gate_in_use(gs_gate *g) { return g ? read_locked(g, &g->in_use) : 0; }
size_t gs_gate_peak(gs_gate *g) { return g ? read_locked(g, &g->peak) : 0; }
size_t gs_gate_waiting(gs_gate *g) { return g ? read_locked(g, &g->waiting) : 0; }
