/* Host memory that goes back to the system when freed, for the big buffers
 * the accountant charges (prover buffers, Merkle trees): so that the
 * process's RSS follows the accountant. malloc does not: glibc raises its
 * mmap threshold (up to 32 MiB) each time it frees a mapped chunk, after
 * which freed buffers of that size stay in its arenas, tens of MiB the
 * accountant no longer sees (measured by tests/test_budget.c). Allocations
 * of GS_PAGES_MIN bytes and more are pages mapped for them alone; smaller
 * ones come from malloc. Every pointer is 64-byte aligned. Internal. */
#ifndef GSTARK_UTIL_PAGES_H
#define GSTARK_UTIL_PAGES_H

#include <stddef.h>

#define GS_PAGES_MIN ((size_t)64 << 10)

/* NULL when out of memory (bytes 0 gives a valid, empty block). */
void *gs_pages_alloc(size_t bytes);
/* NULL is a no-op. */
void gs_pages_free(void *p);

#endif
