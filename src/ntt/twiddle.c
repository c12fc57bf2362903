/* Cached stage twiddles. Table s holds w_{2^(s+1)}^j for j < 2^s (forward)
 * or its inverse powers; every butterfly stage of half-size 2^s of any
 * sub-transform uses table s, because w_{2^(s+1)} = gs_fp_root_of_unity(s+1)
 * does not depend on the transform size. The radix-4 butterflies also use
 * w_{2^(s+1)}^(3j) for j < 2^(s-1) (table3). One table per (kind, direction,
 * log size): built on first use under a mutex, published with a release
 * store, read lock-free with an acquire load, kept for the process lifetime
 * (so a pointer handed out is valid forever). All of them together take
 * 1.5 MiB at most. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ntt/ntt_internal.h"

static atomic_long g_fail_skip = -1, g_fail_count;

void gs_ntt_fail_allocs(long k, long count) {
    atomic_store(&g_fail_count, count);
    atomic_store(&g_fail_skip, k < 0 ? -1 : k);
}

void *gs_ntt_alloc(size_t bytes, int align) {
    if (atomic_load_explicit(&g_fail_skip, memory_order_relaxed) >= 0) {
        long k = atomic_fetch_sub(&g_fail_skip, 1);
        if (k <= 0) {
            atomic_store(&g_fail_skip, 0); /* stay in the failing window */
            long c = atomic_load(&g_fail_count);
            if (c == 0) {
                atomic_store(&g_fail_skip, -1);
            } else {
                if (c > 0) atomic_store(&g_fail_count, c - 1);
                return NULL;
            }
        }
    }
    if (!align) return malloc(bytes ? bytes : 1);
    size_t b = (bytes + 63) & ~(size_t)63;
    if (b < bytes) return NULL;
    return aligned_alloc(64, b ? b : 64);
}

static _Atomic(gs_fp *) g_stage[2][2][NTT_MAX_SUB]; /* [kind][inverse][s] */
static pthread_mutex_t g_stage_lock = PTHREAD_MUTEX_INITIALIZER;

/* kind 0: w^j, j < 2^s; kind 1: w^(3j), j < 2^(s-1) (one entry for s = 0) */
static const gs_fp *table(int kind, int inverse, unsigned s) {
    if (s >= NTT_MAX_SUB) return NULL;
    inverse = inverse ? 1 : 0;
    gs_fp *t = atomic_load_explicit(&g_stage[kind][inverse][s], memory_order_acquire);
    if (t) return t;
    pthread_mutex_lock(&g_stage_lock);
    t = atomic_load_explicit(&g_stage[kind][inverse][s], memory_order_relaxed);
    if (!t) {
        size_t len = kind == 0 ? (size_t)1 << s : s ? (size_t)1 << (s - 1) : 1;
        t = gs_ntt_alloc(len * sizeof *t, 0);
        if (t) {
            gs_fp w = gs_fp_root_of_unity(s + 1);
            if (inverse) w = gs_fp_inv(w);
            if (kind == 1) w = gs_fp_mul(gs_fp_mul(w, w), w);
            t[0] = 1;
            for (size_t j = 1; j < len; j++) t[j] = gs_fp_mul(t[j - 1], w);
            atomic_store_explicit(&g_stage[kind][inverse][s], t, memory_order_release);
        }
    }
    pthread_mutex_unlock(&g_stage_lock);
    return t;
}

const gs_fp *gs_ntt_stage_table(int inverse, unsigned s) { return table(0, inverse, s); }

const gs_fp *gs_ntt_stage_table3(int inverse, unsigned s) { return table(1, inverse, s); }
