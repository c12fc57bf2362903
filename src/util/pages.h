/* Host memory that goes back to the system when freed, for the big buffers
 * the accountant charges (prover buffers, Merkle trees): so that the
 * process's RSS follows the accountant. malloc does not: glibc raises its
 * mmap threshold (up to 32 MiB) each time it frees a mapped chunk, after
 * which freed buffers of that size stay in its arenas, tens of MiB the
 * accountant no longer sees (measured by tests/test_budget.c). Allocations
 * of GS_PAGES_MIN bytes and more are pages mapped for them alone; smaller
 * ones come from malloc. Every pointer is 64-byte aligned. Internal.
 *
 * The page cache. Pages mapped fresh cost a fault each on first touch (the
 * kernel zeroes them: 20-40% of a tall narrow proof's wall time went there,
 * docs/benchmarks.md, 2026-12-03), and a proof allocates the same sizes
 * again and again (LDE, quotient, DEEP and FRI words, trees). So a freed
 * mapped block is kept, already touched, and the next allocation takes it:
 * a cached block at least as large (split: the rest stays cached), or else
 * fresh pages with the cached blocks moved over them, largest first (mremap
 * moves their page tables: only what they do not cover is ever faulted).
 * Fresh pages are made at once, a few MADV_POPULATE_WRITE calls over the
 * threads, unless GS_POPULATE=0 (docs/knobs.md): one kernel entry per
 * block piece instead of a fault per page, 15% less system time for the
 * same pages (docs/benchmarks.md, 2026-12-05).
 * Fresh pages are not advised as transparent huge pages (MADV_HUGEPAGE)
 * unless GS_HUGE_PAGES=1 (docs/knobs.md): the kernel's own policy decides. Advised, fib 2^23 on the CPU faulted
 * 36k times instead of 410k, yet its system time went from 0.75-0.95 s to
 * 7.7-10.6 s on the 2-core dev machine on 2026-12-05 (a day after it had
 * saved a fifth: docs/benchmarks.md, 2026-12-04 and 2026-12-05): how much a
 * fresh huge page costs depends on the machine's state, a 4 KiB page's
 * much less.
 * Its contents are stale, not zero: no caller may rely on fresh pages
 * being zero (built with -DGS_PAGES_POISON, every block is filled with
 * 0xA5 to check that).
 *
 * The bound, process-wide: live + cached <= high, where live is the mapped
 * bytes handed out and high the most live bytes since the last
 * gs_pages_trim. Cached blocks that would break it are unmapped. So the
 * mapped blocks' share of RSS never exceeds what the allocations themselves
 * once needed at one time: a proof's peak RSS is what it was without the
 * cache, and a memory budget that bounded the live bytes bounds these too.
 * gs_prover_free trims (every one-shot proof ends with one): what a resident
 * prover keeps between its proofs is at most its largest proof's peak, and
 * a proof on the CPU starts by capping it at its budget (gs_pages_cap). */
#ifndef GSTARK_UTIL_PAGES_H
#define GSTARK_UTIL_PAGES_H

#include <stddef.h>
#include <stdint.h>

#define GS_PAGES_MIN ((size_t)64 << 10)
#define GS_PAGES_CACHE_SLOTS 64 /* cached blocks at most; the smallest goes first */

/* NULL when out of memory (bytes 0 gives a valid, empty block). */
void *gs_pages_alloc(size_t bytes);
/* NULL is a no-op. */
void gs_pages_free(void *p);

/* Unmaps every cached block and starts high again from live. Thread-safe. */
void gs_pages_trim(void);

/* Unmaps cached blocks, smallest first, until at most `most` bytes stay
 * cached. A proof on the CPU calls it with its budget before it starts: the
 * blocks a resident prover kept from a larger proof never hold more than
 * the budget of the proof that runs now. Thread-safe. */
void gs_pages_cap(size_t most);

/* The cache's counters, in mapped bytes (page multiples, headers included). */
typedef struct {
    size_t live;          /* handed out now */
    size_t cached;        /* kept for reuse now */
    size_t high;          /* most live since the last trim: live + cached <= high */
    size_t blocks;        /* cached blocks now */
    uint64_t fresh_bytes; /* mapped fresh (mmap, or a block's growth) since start */
    uint64_t reused_bytes; /* served from cached blocks since start */
} gs_pages_stats;

void gs_pages_get_stats(gs_pages_stats *out);

/* A sparse zeroed block: pages mapped for it alone, outside the cache, so
 * only the pages touched ever cost a fault and none is zeroed by hand (a
 * machine's 16 MiB memory of which a run writes a few pages). calloc does
 * not guarantee it: once glibc has raised its mmap threshold, a 16 MiB
 * calloc is a heap chunk cleared whole, every page faulted (48 ms of a
 * resident zkVM proof's 82 ms trace phase on the 2-core dev machine,
 * docs/benchmarks.md, 2026-12-06). NULL when out of memory; free with
 * gs_zero_unmap and the same size (NULL is a no-op). */
void *gs_zero_map(size_t bytes);
void gs_zero_unmap(void *p, size_t bytes);

#endif
