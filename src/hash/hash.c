/* The hash interface: dispatch on gs_hash_id. Only Keccak-256 exists today. */
#include "gstark/hash.h"

void gs_hasher_init(gs_hasher *h, gs_hash_id id) {
    h->id = GS_HASH_KECCAK256;
    (void)id;
    gs_keccak256_init(&h->u.keccak);
}

void gs_hasher_update(gs_hasher *h, const void *in, size_t len) {
    gs_keccak256_absorb(&h->u.keccak, in, len);
}

void gs_hasher_final(gs_hasher *h, gs_digest *out) { gs_keccak256_final(&h->u.keccak, out->b); }

void gs_hash(gs_hash_id id, gs_digest *out, const void *in, size_t len) {
    (void)id;
    gs_keccak256(out->b, in, len);
}

void gs_hash_pair(gs_hash_id id, gs_digest *out, const gs_digest *l, const gs_digest *r) {
    uint8_t buf[2 * GS_DIGEST_BYTES];
    for (unsigned i = 0; i < GS_DIGEST_BYTES; i++) {
        buf[i] = l->b[i];
        buf[GS_DIGEST_BYTES + i] = r->b[i];
    }
    gs_hash(id, out, buf, sizeof buf);
}

void gs_hash_many(gs_hash_id id, gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                  size_t n) {
    for (size_t i = 0; i < n; i++) gs_hash(id, &out[i], in + i * stride, len);
}
