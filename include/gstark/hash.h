/* Hashing: Keccak-f[1600], Ethereum's Keccak-256 (rate 136, pad 0x01..0x80),
 * and the small hash interface that Merkle trees and the transcript use, with
 * two hashes behind it: Keccak-256 (the default) and Poseidon2 over Goldilocks
 * (gstark/poseidon2.h). docs/hash.md gives the rules in full; in short, for
 * Poseidon2:
 * - byte messages (gs_hash, gs_hasher_*, gs_hash_many; the transcript): the
 *   bytes, then 0x01, then zero bytes up to a multiple of 56; every 7 bytes
 *   little-endian are one field element (< 2^56, so always canonical); blocks
 *   of 8 elements are added into the rate (elements 0..7) of a width-12 state
 *   that starts as zero with element 9 = 1 (the byte-mode tag: the field
 *   sponge of gs_poseidon2_hash has element 9 = 0), permuted after each block;
 *   the digest is elements 0..3, each 8 bytes little-endian;
 * - a Merkle node (gs_hash_pair): gs_poseidon2_compress of the two digests
 *   read as 4 elements each (an element >= p is reduced mod p; proof parsers
 *   refuse such digests before they get here); NOT gs_hash of the 64 bytes;
 * - a Merkle leaf (gstark/merkle.h): gs_poseidon2_hash of the row's field
 *   elements as they are, no bytes in between. */
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

/* The values are the wire values of a proof's hash parameter (gs_params.hash):
 * 0 is Keccak-256, so zero-initialised parameters mean Keccak. */
typedef enum gs_hash_id {
    GS_HASH_KECCAK256 = 0,
    GS_HASH_POSEIDON2 = 1
} gs_hash_id;
#define GS_HASH_COUNT 2u /* ids are 0 .. GS_HASH_COUNT - 1 */

/* The name of a hash ("keccak256", "poseidon2"), NULL for an unknown id. */
const char *gs_hash_name(gs_hash_id id);

/* Incremental Poseidon2 over bytes (the byte mode above). */
#define GS_POSEIDON2_BYTES_BLOCK 56u /* bytes per block: 8 elements of 7 bytes */
typedef struct gs_poseidon2_bytes_ctx {
    uint64_t st[12];
    uint8_t buf[GS_POSEIDON2_BYTES_BLOCK];
    size_t pos; /* bytes in buf, < GS_POSEIDON2_BYTES_BLOCK */
} gs_poseidon2_bytes_ctx;

typedef struct gs_hasher {
    gs_hash_id id;
    union {
        gs_keccak_ctx keccak;
        gs_poseidon2_bytes_ctx p2;
    } u;
} gs_hasher;

/* An unknown id behaves as GS_HASH_KECCAK256 (callers validate ids where they
 * come from: gs_params_check refuses an unknown gs_params.hash). */
void gs_hasher_init(gs_hasher *h, gs_hash_id id);
void gs_hasher_update(gs_hasher *h, const void *in, size_t len);
void gs_hasher_final(gs_hasher *h, gs_digest *out);

void gs_hash(gs_hash_id id, gs_digest *out, const void *in, size_t len);
/* A Merkle node: Keccak-256(l || r), or the Poseidon2 compression of l and r
 * (see above). out may alias l or r. */
void gs_hash_pair(gs_hash_id id, gs_digest *out, const gs_digest *l, const gs_digest *r);
/* n byte messages of len bytes each, message i at in + i * stride (any stride, 0 included):
 * out[i] = H(message i), exactly what gs_hash gives for each message. The bulk path: several
 * messages at once in SIMD lanes where the CPU has them (AVX-512: 8, AVX2: 4; chosen at run
 * time), the leftover few one by one (Poseidon2: permutations of many states at once). Reads only the n messages' bytes. out may overlap the
 * input as long as digest i overlaps no message k > i: e.g. halving a Merkle level in place,
 * gs_hash_many(id, lvl, lvl[0].b, 64, 64, n/2) for Keccak-256 (for Poseidon2 a node is not a
 * 64-byte message: see gs_hash_pair). Single-threaded: callers split work across
 * threads. */
void gs_hash_many(gs_hash_id id, gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                  size_t n);

#ifdef __cplusplus
}
#endif
#endif
