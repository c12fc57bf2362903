/* The join aggregate object, format 1 (docs/batch.md, "Joins"): what a
 * join stores under gs_store_key_join_flags(GS_BATCH_AGG_FORMAT, its flags,
 * children's keys).
 * All integers little-endian.
 *
 *   offset        size  field
 *   0             8     magic "GSAGGREG"
 *   8             4     format (1)
 *   12            4     flags: bit 0 set for a bisection join (ends present)
 *   16            4     n, the children (1..GS_JOIN_MAX_CHILDREN)
 *   20            4     boundary checks made (a bisection join: n - 1; else 0)
 *   24            32    root: the Merkle root over the children's statements
 *   56            68 n  per child: kind (u32: 1, 2 a proof, 3 a join), its key,
 *                       its statement (a proof's statement digest, a join's root)
 *   56 + 68 n     64    bisection joins only: the fib public inputs of the
 *                       chain's first table and of its last (4 u64 each)
 *
 * The Merkle tree: leaf i = Keccak-256(0x00 || kind_i (u32) || statement_i), the leaves
 * padded with 32 zero bytes to a power of two, node = Keccak-256(0x01 ||
 * left || right); one leaf is its own root. The prefixes keep a leaf from
 * passing for a node. A recursive proof can later take this object's place
 * under a new format number (a new key): the scheduler does not change. */
#include <stdlib.h>
#include <string.h>

#include "batch/run_internal.h"

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

gs_digest bp_agg_root(const bp_agg_child *child, uint32_t n) {
    gs_digest root;
    memset(&root, 0, sizeof root);
    if (!n) return root;
    size_t w = 1;
    while (w < n) w *= 2;
    gs_digest *lv = calloc(w, sizeof *lv); /* zero digests pad the level */
    if (!lv) return root;                  /* n <= 1024: 32 KiB; an all-zero root on failure */
    for (uint32_t i = 0; i < n; i++) {
        uint8_t in[37];
        in[0] = 0;
        put32(in + 1, child[i].kind);
        memcpy(in + 5, child[i].statement.b, 32);
        gs_keccak256(lv[i].b, in, sizeof in);
    }
    for (; w > 1; w /= 2) {
        for (size_t i = 0; i < w / 2; i++) {
            uint8_t in[65];
            in[0] = 1;
            memcpy(in + 1, lv[2 * i].b, 32);
            memcpy(in + 33, lv[2 * i + 1].b, 32);
            gs_keccak256(lv[i].b, in, sizeof in);
        }
    }
    root = lv[0];
    free(lv);
    return root;
}

gs_status bp_agg_encode(uint8_t **out, size_t *len, const bp_agg *a) {
    if (!out || !len || !a || !a->n || a->n > GS_JOIN_MAX_CHILDREN || !a->child)
        return GS_ERR_INVALID_ARG;
    int split = (a->flags & BP_AGG_SPLIT) != 0;
    size_t n = BP_AGG_HEAD + (size_t)BP_AGG_CHILD * a->n + (split ? BP_AGG_ENDS : 0);
    uint8_t *b = calloc(1, n);
    if (!b) return GS_ERR_NOMEM;
    memcpy(b, BP_AGG_MAGIC, 8);
    put32(b + 8, GS_BATCH_AGG_FORMAT);
    put32(b + 12, a->flags);
    put32(b + 16, a->n);
    put32(b + 20, a->checks);
    memcpy(b + 24, a->root.b, 32);
    uint8_t *p = b + BP_AGG_HEAD;
    for (uint32_t i = 0; i < a->n; i++, p += BP_AGG_CHILD) {
        put32(p, a->child[i].kind);
        memcpy(p + 4, a->child[i].key.b, 32);
        memcpy(p + 36, a->child[i].statement.b, 32);
    }
    if (split)
        for (int i = 0; i < 4; i++) put64(p + 8 * i, a->first_pub[i]), put64(p + 32 + 8 * i, a->last_pub[i]);
    *out = b;
    *len = n;
    return GS_OK;
}

gs_status bp_agg_decode(bp_agg *a, const uint8_t *buf, size_t len) {
    memset(a, 0, sizeof *a);
    if (!buf || len < BP_AGG_HEAD || memcmp(buf, BP_AGG_MAGIC, 8) != 0 ||
        get32(buf + 8) != GS_BATCH_AGG_FORMAT)
        return GS_ERR_CORRUPT;
    uint32_t flags = get32(buf + 12), n = get32(buf + 16);
    if ((flags & ~BP_AGG_SPLIT) || n < 1 || n > GS_JOIN_MAX_CHILDREN) return GS_ERR_CORRUPT;
    int split = (flags & BP_AGG_SPLIT) != 0;
    if (len != BP_AGG_HEAD + (size_t)BP_AGG_CHILD * n + (split ? BP_AGG_ENDS : 0))
        return GS_ERR_CORRUPT;
    a->flags = flags;
    a->n = n;
    a->checks = get32(buf + 20);
    if (a->checks != (split ? n - 1 : 0)) return GS_ERR_CORRUPT;
    memcpy(a->root.b, buf + 24, 32);
    a->child = calloc(n, sizeof *a->child);
    if (!a->child) return GS_ERR_NOMEM;
    const uint8_t *p = buf + BP_AGG_HEAD;
    for (uint32_t i = 0; i < n; i++, p += BP_AGG_CHILD) {
        a->child[i].kind = get32(p);
        memcpy(a->child[i].key.b, p + 4, 32);
        memcpy(a->child[i].statement.b, p + 36, 32);
        if (a->child[i].kind < GS_STORE_PROOF || a->child[i].kind > GS_STORE_JOIN) goto corrupt;
    }
    if (split) {
        for (int i = 0; i < 4; i++) {
            a->first_pub[i] = get64(p + 8 * i);
            a->last_pub[i] = get64(p + 32 + 8 * i);
            if (a->first_pub[i] >= GS_FP_P || a->last_pub[i] >= GS_FP_P) goto corrupt;
        }
    }
    gs_digest r = bp_agg_root(a->child, n);
    if (memcmp(r.b, a->root.b, 32) != 0) goto corrupt;
    return GS_OK;
corrupt:
    free(a->child);
    memset(a, 0, sizeof *a);
    return GS_ERR_CORRUPT;
}
