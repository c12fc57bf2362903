/* The memory accountant: every buffer the prover allocates through a backend
 * is charged to an account; an account may have a parent (a table's account
 * charges its device's, the CPU counting as one device). Thread-safe. */
#ifndef GSTARK_MEM_H
#define GSTARK_MEM_H

#include <stddef.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_mem gs_mem;

/* parent may be NULL. */
gs_status gs_mem_new(gs_mem **out, gs_mem *parent);
void gs_mem_free(gs_mem *m); /* NULL is a no-op */

/* Charges also go to every ancestor. NULL accounts are ignored. */
void gs_mem_charge(gs_mem *m, size_t bytes);
void gs_mem_uncharge(gs_mem *m, size_t bytes);
/* Charges `bytes` only if m's current total stays <= limit afterwards
 * (atomically: concurrent callers never overshoot together); 1 if charged,
 * 0 if not (nothing changed). */
int gs_mem_try_charge(gs_mem *m, size_t bytes, size_t limit);
size_t gs_mem_current(const gs_mem *m);
size_t gs_mem_peak(const gs_mem *m);
/* Restart peak tracking from the current value. */
void gs_mem_reset_peak(gs_mem *m);

#ifdef __cplusplus
}
#endif
#endif
