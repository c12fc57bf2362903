/* gs_pages_alloc (pages.h): every block starts with a 64-byte header that
 * holds its size (and, for a mapped block, its mapped length), so the free
 * needs no size and knows how it was made. The cache is a small array of
 * (base, length) under one mutex: a proof makes tens of big allocations, not
 * millions, so a search over 64 slots and a lock are noise next to the pages
 * they save. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mremap */
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gstark/parallel.h"
#include "util/pages.h"

#define HEADER 64

typedef struct {
    uint8_t *base;
    size_t len;
} block;

static struct {
    pthread_mutex_t lock;
    size_t page;
    block slot[GS_PAGES_CACHE_SLOTS];
    size_t n, live, cached, high;
    uint64_t fresh, reused;
    int huge; /* GS_HUGE_PAGES=1: fresh blocks advised MADV_HUGEPAGE; -1 until the environment is read */
    int populate; /* GS_POPULATE=0: fresh pages left to their first touch (read with huge) */
} C = {.lock = PTHREAD_MUTEX_INITIALIZER, .huge = -1};

/* Callers hold C.lock. */
static block take(size_t i) {
    block b = C.slot[i];
    C.slot[i] = C.slot[--C.n];
    C.cached -= b.len;
    return b;
}

/* Unmaps cached block i. */
static void drop(size_t i) {
    block b = take(i);
    munmap(b.base, b.len);
}

static size_t smallest(void) {
    size_t s = 0;
    for (size_t i = 1; i < C.n; i++)
        if (C.slot[i].len < C.slot[s].len) s = i;
    return s;
}

/* Unmaps cached blocks, smallest first, until live + cached <= high. */
static void keep_bound(void) {
    if (C.live > C.high) C.high = C.live;
    while (C.n && C.live + C.cached > C.high) drop(smallest());
}

static void put(block b) {
    if (C.n == GS_PAGES_CACHE_SLOTS) {
        size_t s = smallest();
        if (C.slot[s].len >= b.len) {
            munmap(b.base, b.len);
            return;
        }
        drop(s);
    }
    C.slot[C.n++] = b;
    C.cached += b.len;
}

/* Fills [base, base + len) (fresh, untouched pages) with cached blocks,
 * largest first: mremap moves their page tables over the fresh range, so
 * their touched pages serve the allocation and the range's own are never
 * faulted. The last block used may be split (its rest stays cached). A
 * block mremap refuses to move stays cached (kernels before 6.17 move one
 * mapping at a time, and a block an earlier fill made is several; or the
 * process is at its mapping limit): the range's own pages serve instead.
 * Returns the bytes filled. */
static size_t fill(uint8_t *base, size_t len) {
    block own[GS_PAGES_CACHE_SLOTS];
    size_t n = C.n, filled = 0;
    for (size_t i = 0; i < n; i++) own[i] = C.slot[i];
    C.n = 0;
    C.cached = 0;
    for (size_t k = 0; k < n; k++) {
        size_t big = k; /* selection sort, largest first: n <= 64 */
        for (size_t i = k + 1; i < n; i++)
            if (own[i].len > own[big].len) big = i;
        block b = own[big];
        own[big] = own[k];
        size_t take = b.len < len - filled ? b.len : len - filled;
        if (take && mremap(b.base, take, take, MREMAP_MAYMOVE | MREMAP_FIXED, base + filled) != MAP_FAILED) {
            filled += take;
            b.base += take, b.len -= take;
        }
        if (b.len) put(b);
    }
    return filled;
}

/* A mapped block of len bytes (a multiple of the page size): a cached one
 * split, or fresh pages filled with cached blocks; *fresh: where its
 * fresh, untouched pages start (len: none). */
static uint8_t *map_block(size_t len, size_t *fresh) {
    *fresh = len;
    size_t fit = SIZE_MAX;
    for (size_t i = 0; i < C.n; i++) {
        size_t l = C.slot[i].len;
        if (l >= len && (fit == SIZE_MAX || l < C.slot[fit].len)) fit = i;
    }
    uint8_t *base;
    if (fit != SIZE_MAX) {
        block b = take(fit);
        if (b.len > len) put((block){b.base + len, b.len - len});
        base = b.base;
        C.reused += len;
    } else {
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        base = m;
        if (C.huge < 0) {
            const char *e = getenv("GS_HUGE_PAGES");
            C.huge = e && !strcmp(e, "1");
            e = getenv("GS_POPULATE");
            C.populate = !(e && !strcmp(e, "0"));
        }
#ifdef MADV_HUGEPAGE
        if (C.huge) (void)madvise(base, len, MADV_HUGEPAGE);
#endif
        size_t filled = fill(base, len);
        C.reused += filled;
        C.fresh += len - filled;
        if (C.populate) *fresh = filled;
    }
#ifdef GS_PAGES_POISON /* a test build: stale bytes must never be read as zeros */
    memset(base, 0xA5, len);
#endif
    C.live += len;
    keep_bound();
    return base;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define POPULATE_PIECE ((size_t)4 << 20)

typedef struct {
    uint8_t *p;
    size_t len;
} range;

static void populate_pieces(void *ctx, size_t begin, size_t end) {
    const range *r = ctx;
    size_t lo = begin * POPULATE_PIECE, hi = end * POPULATE_PIECE;
    if (hi > r->len) hi = r->len;
    (void)madvise(r->p + lo, hi - lo, MADV_POPULATE_WRITE); /* refused: faulted on touch */
}

/* Faults a block's fresh pages in now, a few calls over the threads,
 * instead of one fault per page on first touch (the kernel's entry and exit
 * per page were 15% of a tall narrow proof's system time). */
static void populate(uint8_t *p, size_t len) {
    range r = {p, len};
    gs_parallel_for((len + POPULATE_PIECE - 1) / POPULATE_PIECE, 4, populate_pieces, &r);
}

void *gs_pages_alloc(size_t bytes) {
    if (bytes > SIZE_MAX / 2) return NULL;
    size_t total = HEADER + ((bytes + 63) & ~(size_t)63);
    uint8_t *base;
    if (bytes >= GS_PAGES_MIN) {
        pthread_mutex_lock(&C.lock);
        if (!C.page) C.page = (size_t)sysconf(_SC_PAGESIZE);
        size_t len = (total + C.page - 1) / C.page * C.page, fresh;
        base = map_block(len, &fresh);
        pthread_mutex_unlock(&C.lock);
        if (!base) return NULL;
        if (fresh < len) populate(base + fresh, len - fresh);
        ((size_t *)base)[1] = len;
    } else {
        base = aligned_alloc(64, total);
        if (!base) return NULL;
    }
    *(size_t *)base = bytes;
    return base + HEADER;
}

void gs_pages_free(void *p) {
    if (!p) return;
    uint8_t *base = (uint8_t *)p - HEADER;
    size_t bytes = *(size_t *)base;
    if (bytes < GS_PAGES_MIN) {
        free(base);
        return;
    }
    size_t len = ((size_t *)base)[1];
    pthread_mutex_lock(&C.lock);
    C.live -= len;
    put((block){base, len}); /* live + cached unchanged: the bound holds */
    pthread_mutex_unlock(&C.lock);
}

void gs_pages_trim(void) {
    pthread_mutex_lock(&C.lock);
    while (C.n) drop(C.n - 1);
    C.high = C.live;
    pthread_mutex_unlock(&C.lock);
}

void gs_pages_cap(size_t most) {
    pthread_mutex_lock(&C.lock);
    while (C.n && C.cached > most) drop(smallest());
    pthread_mutex_unlock(&C.lock);
}

void gs_pages_get_stats(gs_pages_stats *out) {
    pthread_mutex_lock(&C.lock);
    *out = (gs_pages_stats){.live = C.live, .cached = C.cached, .high = C.high, .blocks = C.n,
                            .fresh_bytes = C.fresh, .reused_bytes = C.reused};
    pthread_mutex_unlock(&C.lock);
}

void *gs_zero_map(size_t bytes) {
    void *m = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

void gs_zero_unmap(void *p, size_t bytes) {
    if (p) munmap(p, bytes ? bytes : 1);
}
