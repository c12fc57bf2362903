/* Host blocks kept between uses (host_arena.c): a resident prover's trace
 * memory (gs_prover_host_alloc in gstark/prover.h) and a CUDA device's
 * out-of-core buffers (gs_device_spill_alloc in backend/device.h). Internal. */
#ifndef GSTARK_BACKEND_HOST_ARENA_H
#define GSTARK_BACKEND_HOST_ARENA_H

#include <stddef.h>

#include "gstark/status.h"

typedef struct gs_host_arena gs_host_arena;

typedef enum gs_arena_pin {
    GS_ARENA_PAGES = 0,      /* ordinary pages */
    GS_ARENA_TRY_PINNED = 1, /* page-locked (CUDA), else ordinary pages */
    GS_ARENA_PINNED = 2      /* page-locked or nothing: memory a device reads */
} gs_arena_pin;

/* limit: most bytes held at once, cached blocks included (0: none).
 * GS_ERR_NOMEM. */
gs_status gs_host_arena_new(gs_host_arena **out, gs_arena_pin pin, size_t limit);
/* Releases every block, in use or not. NULL is a no-op. */
void gs_host_arena_free(gs_host_arena *a);
/* `bytes` (> 0) bytes, 64-byte aligned, zeroed when `zero`: a cached block
 * or a new one (unused cached blocks are released first when a new one
 * would pass the limit). GS_ERR_INVALID_ARG, GS_ERR_NOMEM (no memory, the
 * limit, or a GS_ARENA_PINNED block that cannot be locked). Thread-safe. */
gs_status gs_host_arena_alloc(gs_host_arena *a, void **out, size_t bytes, int zero);
/* p (from alloc, in use) goes back to the cache; GS_ERR_INVALID_ARG for
 * anything else. Thread-safe. */
gs_status gs_host_arena_release(gs_host_arena *a, void *p);
/* Bytes held in all, of them pinned, of them in use (each may be NULL). */
void gs_host_arena_stats(gs_host_arena *a, size_t *total, size_t *pinned, size_t *used);

#endif
