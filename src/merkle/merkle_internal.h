/* Internals shared by the Merkle sources (and visible to tests through the
 * src/ include path; not public API). */
#ifndef GS_MERKLE_INTERNAL_H
#define GS_MERKLE_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "gstark/merkle.h"

/* Every node of the levels skip..depth, lowest first: level l (2^(depth -
 * l) nodes) starts at gs_merkle_level_offset(depth - skip, l - skip), so the
 * two children of node j of level l+1 are the 64 contiguous bytes of nodes
 * 2j, 2j+1 of level l. The levels below skip (the leaves first) are not
 * kept: an opening hashes them again from the rows (gs_merkle_open_rows). */
struct gs_merkle_tree {
    gs_hash_id id;
    unsigned depth, skip;
    gs_digest *nodes;
};

/* The skip the CPU backend commits with: 3 for a matrix of fewer than 256
 * columns (an opening hashes at most 8 rows of under 2 KiB again), 0 for a
 * wider one (its tree, 64 bytes a row, is at most 1/32 of it) and for trees
 * under 2^GS_MERKLE_SKIP_MIN_LOG_ROWS leaves. It keeps an eighth of more
 * trees than gs_merkle_skip_for, the device's rule, which keeps every level
 * from 32 columns (the device hashes such matrices' leaves as it extends
 * them): a zkVM CPU table's 33-column main and aux trees at 2^22 LDE rows,
 * 256 MiB each whole, hold 32 MiB. */
static inline unsigned gs_merkle_skip_cpu(size_t cols, unsigned log_rows) {
    return log_rows >= GS_MERKLE_SKIP_MIN_LOG_ROWS && cols < 256 ? 3 : 0;
}

/* Level l (>= t->skip) of a tree. */
static inline gs_digest *gs_merkle_level(const struct gs_merkle_tree *t, unsigned l);

_Static_assert(sizeof(gs_digest) == GS_DIGEST_BYTES, "gs_digest must be exactly its bytes");

static inline size_t gs_merkle_level_offset(unsigned depth, unsigned level) {
    return ((size_t)2 << depth) - ((size_t)2 << (depth - level));
}

static inline gs_digest *gs_merkle_level(const struct gs_merkle_tree *t, unsigned l) {
    return t->nodes + gs_merkle_level_offset(t->depth - t->skip, l - t->skip);
}

static inline void gs_merkle_store_le64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* Allocation used by the Merkle code, with a fault injector for tests:
 * after gs_merkle_debug_fail_alloc(n) with n > 0, the n-th allocation from
 * then on fails (once); 0 turns it off. */
void *gs_merkle_alloc(size_t size);
void gs_merkle_debug_fail_alloc(long n);

#endif
