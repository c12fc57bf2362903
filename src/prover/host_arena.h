/* The host blocks a resident prover keeps for traces (host_arena.c;
 * gs_prover_host_alloc in gstark/prover.h). Internal. */
#ifndef GSTARK_PROVER_HOST_ARENA_H
#define GSTARK_PROVER_HOST_ARENA_H

#include <stddef.h>

#include "gstark/status.h"

typedef struct gs_host_arena gs_host_arena;

/* pinned: try page-locked blocks (a CUDA context). GS_ERR_NOMEM. */
gs_status gs_host_arena_new(gs_host_arena **out, int pinned);
/* Releases every block, in use or not. NULL is a no-op. */
void gs_host_arena_free(gs_host_arena *a);
/* `bytes` (> 0) zeroed bytes, 64-byte aligned: a cached block or a new one.
 * GS_ERR_INVALID_ARG, GS_ERR_NOMEM. Thread-safe. */
gs_status gs_host_arena_alloc(gs_host_arena *a, void **out, size_t bytes);
/* p (from alloc, in use) goes back to the cache; GS_ERR_INVALID_ARG for
 * anything else. Thread-safe. */
gs_status gs_host_arena_release(gs_host_arena *a, void *p);
/* Bytes held in all, of them pinned, of them in use (each may be NULL). */
void gs_host_arena_stats(gs_host_arena *a, size_t *total, size_t *pinned, size_t *used);

#endif
