/* Host blocks kept between uses. Two users:
 * - a resident prover's host memory for traces (gs_prover_host_alloc,
 *   gstark/prover.h): a trace built there costs no page faults after the
 *   first proof and, on a CUDA context, lies in page-locked memory that the
 *   backend uploads in one DMA (gstark/cuda.h; docs/gpu.md, "Uploads")
 *   instead of through its staging copies, which run at about 8 GB/s on the
 *   H200 machine;
 * - a CUDA device's out-of-core buffers (gs_device_spill_alloc), which the
 *   device reads and writes over the bus, so page-locked or nothing.
 *
 * A request takes the smallest free block that holds it (sizes are rounded
 * up to 2 MiB so that tables of nearly equal size share blocks), else a new
 * one: pinned (cudaHostAlloc) as the arena's mode asks, ordinary pages when
 * pinning is refused and the mode allows them. Blocks are zeroed on the way
 * out when asked, in parallel. A freed block stays cached until the arena
 * is freed or the limit needs its bytes; at most ARENA_MAX_BLOCKS exist at
 * once (a request beyond that is GS_ERR_NOMEM). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/cuda.h"
#include "gstark/parallel.h"
#include "backend/host_arena.h"
#include "util/pages.h"

#define ARENA_ROUND ((size_t)2 << 20)
#define ARENA_MAX_BLOCKS 256u

typedef struct {
    void *p;
    size_t bytes;
    int used, pinned;
} block;

struct gs_host_arena {
    pthread_mutex_t mu;
    gs_arena_pin pin;
    size_t limit, held;
    block b[ARENA_MAX_BLOCKS];
    unsigned n;
};

gs_status gs_host_arena_new(gs_host_arena **out, gs_arena_pin pin, size_t limit) {
    gs_host_arena *a = calloc(1, sizeof *a);
    if (!a) return GS_ERR_NOMEM;
    if (pthread_mutex_init(&a->mu, NULL)) {
        free(a);
        return GS_ERR_NOMEM;
    }
    a->pin = pin;
    a->limit = limit;
    *out = a;
    return GS_OK;
}

static void block_release(block *b) {
    if (b->pinned) gs_cuda_host_free(b->p);
    else gs_pages_free(b->p);
}

void gs_host_arena_free(gs_host_arena *a) {
    if (!a) return;
    for (unsigned i = 0; i < a->n; i++) block_release(&a->b[i]);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

typedef struct {
    unsigned char *p;
    size_t bytes;
} zero_job;

static void zero_range(void *ctx, size_t b, size_t e) {
    const zero_job *j = ctx;
    size_t lo = b * ARENA_ROUND, hi = e * ARENA_ROUND < j->bytes ? e * ARENA_ROUND : j->bytes;
    memset(j->p + lo, 0, hi - lo);
}

/* Releases the unused blocks (under the lock). */
static void drop_unused(gs_host_arena *a) {
    unsigned k = 0;
    for (unsigned i = 0; i < a->n; i++) {
        if (a->b[i].used) {
            a->b[k++] = a->b[i];
            continue;
        }
        a->held -= a->b[i].bytes;
        block_release(&a->b[i]);
    }
    a->n = k;
}

/* Whether a new block of `want` bytes stays within the limit. */
static int fits(const gs_host_arena *a, size_t want) {
    return !a->limit || (a->held <= a->limit && want <= a->limit - a->held);
}

gs_status gs_host_arena_alloc(gs_host_arena *a, void **out, size_t bytes, int zero) {
    if (!a || !out || !bytes || bytes > SIZE_MAX - ARENA_ROUND) return GS_ERR_INVALID_ARG;
    *out = NULL;
    size_t want = (bytes + ARENA_ROUND - 1) / ARENA_ROUND * ARENA_ROUND;
    pthread_mutex_lock(&a->mu);
    block *best = NULL;
    for (unsigned i = 0; i < a->n; i++)
        if (!a->b[i].used && a->b[i].bytes >= want && (!best || a->b[i].bytes < best->bytes))
            best = &a->b[i];
    if (!best && !fits(a, want)) drop_unused(a);
    if (!best && a->n < ARENA_MAX_BLOCKS && fits(a, want)) {
        block nb = {.bytes = want};
        /* A refused pin (the locked-memory limit, no device) leaves a trace
         * block pageable: slower uploads, the same proof. */
        if (a->pin != GS_ARENA_PAGES && gs_cuda_host_alloc(&nb.p, want) == GS_OK) nb.pinned = 1;
        else if (a->pin != GS_ARENA_PINNED) nb.p = gs_pages_alloc(want);
        if (nb.p) {
            a->b[a->n] = nb;
            a->held += want;
            best = &a->b[a->n++];
        }
    }
    if (best) best->used = 1;
    pthread_mutex_unlock(&a->mu);
    if (!best) return GS_ERR_NOMEM;
    if (zero) {
        zero_job j = {best->p, bytes};
        gs_parallel_for((bytes + ARENA_ROUND - 1) / ARENA_ROUND, 8, zero_range, &j);
    }
    *out = best->p;
    return GS_OK;
}

gs_status gs_host_arena_release(gs_host_arena *a, void *p) {
    if (!a || !p) return GS_ERR_INVALID_ARG;
    gs_status s = GS_ERR_INVALID_ARG;
    pthread_mutex_lock(&a->mu);
    for (unsigned i = 0; i < a->n; i++)
        if (a->b[i].p == p && a->b[i].used) {
            a->b[i].used = 0;
            s = GS_OK;
            break;
        }
    pthread_mutex_unlock(&a->mu);
    return s;
}

void gs_host_arena_stats(gs_host_arena *a, size_t *total, size_t *pinned, size_t *used) {
    size_t t = 0, pn = 0, u = 0;
    if (a) {
        pthread_mutex_lock(&a->mu);
        for (unsigned i = 0; i < a->n; i++) {
            t += a->b[i].bytes;
            if (a->b[i].pinned) pn += a->b[i].bytes;
            if (a->b[i].used) u += a->b[i].bytes;
        }
        pthread_mutex_unlock(&a->mu);
    }
    if (total) *total = t;
    if (pinned) *pinned = pn;
    if (used) *used = u;
}
