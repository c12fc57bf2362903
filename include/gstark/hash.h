/* Hashing: Keccak-f[1600], Ethereum's Keccak-256 (rate 136, pad 0x01..0x80),
 * and the small hash interface that Merkle trees and the transcript use, so
 * that other hashes (BLAKE3, Poseidon2) can join behind the same calls. */
#ifndef GSTARK_HASH_H
#define GSTARK_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_KECCAK256_RATE 136u
#define GS_DIGEST_BYTES 32u

/* The permutation, 24 rounds, on 25 little-endian lanes (lane x + 5 y). Fully unrolled
 * scalar code (BMI1/BMI2 instructions where the CPU has them, chosen at run time). */
void gs_keccak_f1600(uint64_t st[25]);

/* Incremental Keccak-256. */
typedef struct gs_keccak_ctx {
    uint64_t st[25];
    size_t pos; /* bytes absorbed into the current block, < GS_KECCAK256_RATE */
} gs_keccak_ctx;

void gs_keccak256_init(gs_keccak_ctx *ctx);
void gs_keccak256_absorb(gs_keccak_ctx *ctx, const void *in, size_t len);
/* Pads, permutes and writes the digest; ctx must be re-initialised to reuse. */
void gs_keccak256_final(gs_keccak_ctx *ctx, uint8_t out[32]);
/* One-shot Keccak-256 (Ethereum's: keccak256("") = c5d2460186f7233c...). */
void gs_keccak256(uint8_t out[32], const void *in, size_t len);

/* ---- the hash interface ---- */

typedef struct gs_digest {
    uint8_t b[GS_DIGEST_BYTES];
} gs_digest;

typedef enum gs_hash_id {
    GS_HASH_KECCAK256 = 1
} gs_hash_id;

typedef struct gs_hasher {
    gs_hash_id id;
    union {
        gs_keccak_ctx keccak;
    } u;
} gs_hasher;

/* An unknown id behaves as GS_HASH_KECCAK256 (there is only one today). */
void gs_hasher_init(gs_hasher *h, gs_hash_id id);
void gs_hasher_update(gs_hasher *h, const void *in, size_t len);
void gs_hasher_final(gs_hasher *h, gs_digest *out);

void gs_hash(gs_hash_id id, gs_digest *out, const void *in, size_t len);
/* out = H(l || r): a Merkle node. out may alias l or r. */
void gs_hash_pair(gs_hash_id id, gs_digest *out, const gs_digest *l, const gs_digest *r);
/* n messages of len bytes each, message i at in + i * stride (any stride, 0 included):
 * out[i] = H(message i), exactly what gs_hash gives for each message. The bulk path: several
 * messages at once in SIMD lanes where the CPU has them (AVX-512: 8, AVX2: 4; chosen at run
 * time), the leftover few one by one. Reads only the n messages' bytes. out may overlap the
 * input as long as digest i overlaps no message k > i: e.g. halving a Merkle level in place,
 * gs_hash_many(id, lvl, lvl[0].b, 64, 64, n/2). Single-threaded: callers split work across
 * threads. */
void gs_hash_many(gs_hash_id id, gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                  size_t n);

#ifdef __cplusplus
}
#endif
#endif
