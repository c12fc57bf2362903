/* Merkle openings and their verification. A path for leaf i holds, for each
 * level l from the leaves up, the sibling (i >> l) ^ 1 of the node on the
 * way to the root. Verification hashes exactly depth pairs whatever the
 * index (the side is chosen by copying, not by branching) and compares the
 * whole root before answering. */
#include <stdlib.h>

#include "gstark/poseidon2.h"
#include "merkle/merkle_internal.h"

#define LEAF_CHUNK 64u /* values per hasher update in gs_merkle_leaf */

gs_status gs_merkle_open(const gs_merkle_tree *t, gs_digest *paths, const size_t *idx, size_t n) {
    if (t && t->skip) return GS_ERR_INVALID_ARG; /* needs the rows: gs_merkle_open_rows */
    return gs_merkle_open_rows(t, NULL, 0, 0, paths, idx, n);
}

gs_status gs_merkle_open_rows(const gs_merkle_tree *t, const gs_fp *m, size_t cols, size_t col_stride,
                              gs_digest *paths, const size_t *idx, size_t n) {
    if (!t || (n && (!idx || (t->depth && !paths)))) return GS_ERR_INVALID_ARG;
    unsigned d = t->depth, s = t->skip;
    if (s && (!m || !cols || (uint64_t)col_stride < ((uint64_t)1 << d))) return GS_ERR_INVALID_ARG;
    for (size_t k = 0; k < n; k++)
        if ((uint64_t)idx[k] >> d) return GS_ERR_INVALID_ARG;
    /* The 2^s rows under the query's level-s node, hashed again
     * (gs_merkle_low_path), then the stored levels. */
    gs_fp *rows = s ? malloc((cols << s) * sizeof *rows) : NULL;
    if (s && !rows) return GS_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) {
        size_t i = idx[k], base = i >> s << s;
        if (s) {
            for (size_t j = 0; j < ((size_t)1 << s); j++)
                for (size_t c = 0; c < cols; c++) rows[j * cols + c] = m[c * col_stride + base + j];
            gs_merkle_low_path(t->id, paths + k * d, rows, cols, s, i - base);
        }
        for (unsigned l = s; l < d; l++) paths[k * d + l] = gs_merkle_level(t, l)[(i >> l) ^ 1];
    }
    free(rows);
    return GS_OK;
}

void gs_merkle_low_path(gs_hash_id id, gs_digest *path, const gs_fp *rows, size_t cols,
                        unsigned skip, size_t j) {
    /* A small tree of depth skip over the block (levels as in a stored tree). */
    gs_digest sub[2 << GS_MERKLE_MAX_SKIP];
    for (size_t r = 0; r < ((size_t)1 << skip); r++) gs_merkle_leaf(id, &sub[r], rows + r * cols, cols);
    for (unsigned l = 1; l < skip; l++) {
        gs_digest *lo = sub + gs_merkle_level_offset(skip, l - 1), *up = sub + gs_merkle_level_offset(skip, l);
        for (size_t r = 0; r < ((size_t)1 << (skip - l)); r++) gs_hash_pair(id, &up[r], &lo[2 * r], &lo[2 * r + 1]);
    }
    for (unsigned l = 0; l < skip; l++) path[l] = sub[gs_merkle_level_offset(skip, l) + ((j >> l) ^ 1)];
}

void gs_merkle_leaf(gs_hash_id id, gs_digest *out, const gs_fp *row, size_t cols) {
    if (id == GS_HASH_POSEIDON2) { /* the field elements themselves */
        gs_poseidon2_digest d;
        gs_poseidon2_hash(&d, row, cols);
        gs_poseidon2_digest_to_bytes(out, &d);
        return;
    }
    uint8_t buf[LEAF_CHUNK * 8];
    if (cols <= LEAF_CHUNK) {
        for (size_t c = 0; c < cols; c++) gs_merkle_store_le64(buf + 8 * c, row[c]);
        gs_hash(id, out, buf, cols * 8);
        return;
    }
    gs_hasher h;
    gs_hasher_init(&h, id);
    for (size_t c0 = 0; c0 < cols; c0 += LEAF_CHUNK) {
        size_t n = cols - c0 < LEAF_CHUNK ? cols - c0 : LEAF_CHUNK;
        for (size_t c = 0; c < n; c++) gs_merkle_store_le64(buf + 8 * c, row[c0 + c]);
        gs_hasher_update(&h, buf, n * 8);
    }
    gs_hasher_final(&h, out);
}

gs_status gs_merkle_verify_leaf(gs_hash_id id, const gs_digest *root, unsigned depth, size_t idx,
                                const gs_digest *leaf, const gs_digest *path) {
    return gs_merkle_verify_leaf_cap(id, root, 0, depth, idx, leaf, path);
}

gs_status gs_merkle_verify_leaf_cap(gs_hash_id id, const gs_digest *cap, unsigned cap_log,
                                    unsigned depth, size_t idx, const gs_digest *leaf,
                                    const gs_digest *path) {
    if (!cap || !leaf || depth > GS_MERKLE_MAX_LOG_ROWS || cap_log > depth ||
        (depth > cap_log && !path))
        return GS_ERR_INVALID_ARG;
    if ((uint64_t)idx >> depth) return GS_ERR_INVALID_ARG;
    unsigned len = depth - cap_log;
    const gs_digest *root = &cap[(uint64_t)idx >> len]; /* the cap node above the leaf */
    gs_digest pair[2];
    gs_digest cur = *leaf;
    for (unsigned l = 0; l < len; l++) {
        size_t right = ((uint64_t)idx >> l) & 1; /* cur is the right child */
        pair[right] = cur;
        pair[right ^ 1] = path[l];
        gs_hash_pair(id, &cur, &pair[0], &pair[1]);
    }
    uint8_t diff = 0;
    for (unsigned i = 0; i < GS_DIGEST_BYTES; i++) diff |= (uint8_t)(cur.b[i] ^ root->b[i]);
    return diff ? GS_ERR_MERKLE_PATH : GS_OK;
}

gs_status gs_merkle_verify(gs_hash_id id, const gs_digest *root, unsigned depth, size_t idx,
                           const gs_fp *row, size_t cols, const gs_digest *path) {
    if (!row && cols) return GS_ERR_INVALID_ARG;
    gs_digest leaf;
    gs_merkle_leaf(id, &leaf, row, cols);
    return gs_merkle_verify_leaf(id, root, depth, idx, &leaf, path);
}

gs_status gs_merkle_verify_cap(gs_hash_id id, const gs_digest *cap, unsigned cap_log,
                               unsigned depth, size_t idx, const gs_fp *row, size_t cols,
                               const gs_digest *path) {
    if (!row && cols) return GS_ERR_INVALID_ARG;
    gs_digest leaf;
    gs_merkle_leaf(id, &leaf, row, cols);
    return gs_merkle_verify_leaf_cap(id, cap, cap_log, depth, idx, &leaf, path);
}

gs_status gs_merkle_cap(const gs_merkle_tree *t, gs_digest *out, unsigned cap_log) {
    unsigned depth = gs_merkle_depth(t);
    if (!out || cap_log > depth) return GS_ERR_INVALID_ARG;
    for (size_t i = 0; i < (size_t)1 << cap_log; i++) {
        const gs_digest *d = gs_merkle_node(t, depth - cap_log, i);
        if (!d) return GS_ERR_INVALID_ARG; /* below the tree's skip: not stored */
        out[i] = *d;
    }
    return GS_OK;
}
