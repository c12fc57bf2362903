/* Merkle openings and their verification. A path for leaf i holds, for each
 * level l from the leaves up, the sibling (i >> l) ^ 1 of the node on the
 * way to the root. Verification hashes exactly depth pairs whatever the
 * index (the side is chosen by copying, not by branching) and compares the
 * whole root before answering. */
#include "gstark/poseidon2.h"
#include "merkle/merkle_internal.h"

#define LEAF_CHUNK 64u /* values per hasher update in gs_merkle_leaf */

gs_status gs_merkle_open(const gs_merkle_tree *t, gs_digest *paths, const size_t *idx, size_t n) {
    if (!t || (n && (!idx || (t->depth && !paths)))) return GS_ERR_INVALID_ARG;
    unsigned d = t->depth;
    for (size_t k = 0; k < n; k++)
        if ((uint64_t)idx[k] >> d) return GS_ERR_INVALID_ARG;
    for (size_t k = 0; k < n; k++) {
        size_t i = idx[k];
        for (unsigned l = 0; l < d; l++)
            paths[k * d + l] = t->nodes[gs_merkle_level_offset(d, l) + ((i >> l) ^ 1)];
    }
    return GS_OK;
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
    if (!root || !leaf || (depth && !path) || depth > GS_MERKLE_MAX_LOG_ROWS)
        return GS_ERR_INVALID_ARG;
    if ((uint64_t)idx >> depth) return GS_ERR_INVALID_ARG;
    gs_digest pair[2];
    gs_digest cur = *leaf;
    for (unsigned l = 0; l < depth; l++) {
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
