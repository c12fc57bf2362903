/* The memory accountant (include/gstark/mem.h): atomic current and peak per
 * account, charges propagated to the parents. */
#include <stdatomic.h>
#include <stdlib.h>

#include "gstark/mem.h"

struct gs_mem {
    gs_mem *parent;
    atomic_size_t current, peak;
};

gs_status gs_mem_new(gs_mem **out, gs_mem *parent) {
    gs_mem *m = calloc(1, sizeof *m);
    if (!m) return GS_ERR_NOMEM;
    m->parent = parent;
    atomic_init(&m->current, 0);
    atomic_init(&m->peak, 0);
    *out = m;
    return GS_OK;
}

void gs_mem_free(gs_mem *m) { free(m); }

void gs_mem_charge(gs_mem *m, size_t bytes) {
    for (; m; m = m->parent) {
        size_t now = atomic_fetch_add(&m->current, bytes) + bytes;
        size_t p = atomic_load(&m->peak);
        while (now > p && !atomic_compare_exchange_weak(&m->peak, &p, now)) {
        }
    }
}

int gs_mem_try_charge(gs_mem *m, size_t bytes, size_t limit) {
    if (!m) return 1;
    size_t cur = atomic_load(&m->current);
    do {
        if (bytes > limit || cur > limit - bytes) return 0;
    } while (!atomic_compare_exchange_weak(&m->current, &cur, cur + bytes));
    size_t p = atomic_load(&m->peak);
    while (cur + bytes > p && !atomic_compare_exchange_weak(&m->peak, &p, cur + bytes)) {
    }
    gs_mem_charge(m->parent, bytes);
    return 1;
}

void gs_mem_uncharge(gs_mem *m, size_t bytes) {
    for (; m; m = m->parent) atomic_fetch_sub(&m->current, bytes);
}

size_t gs_mem_current(const gs_mem *m) { return m ? atomic_load(&((gs_mem *)m)->current) : 0; }
size_t gs_mem_peak(const gs_mem *m) { return m ? atomic_load(&((gs_mem *)m)->peak) : 0; }
void gs_mem_reset_peak(gs_mem *m) {
    if (m) atomic_store(&m->peak, atomic_load(&m->current));
}
