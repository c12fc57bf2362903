/* Poseidon2 over Goldilocks (p = 2^64 - 2^32 + 1): the permutation of widths 8 and 12, a
 * sponge that hashes field elements to a 4-element digest, a 2-to-1 compression of digests,
 * and the digest's 32-byte form. A proof may use it for its Merkle commitments and transcript
 * (gs_params.hash = GS_HASH_POSEIDON2; the byte mode is in gstark/hash.h). docs/hash.md has the
 * construction and the rules in full.
 *
 * Permutation: the Poseidon2 paper's (eprint 2023/323) with HorizenLabs' published Goldilocks
 * instances: x^7 S-box, R_F = 8 full rounds (4 + 4), R_P = 22 partial rounds, external matrix
 * circ(2 M4, M4, ...) with M4 = [5 7 1 3; 4 6 1 1; 1 3 5 7; 1 1 4 6], internal matrix
 * J + diag(d); round constants and d from HorizenLabs' poseidon2 repository.
 *
 * Sponge (gs_poseidon2_hash): width 12, rate 8 (elements 0..7), capacity 4 (8..11). The state
 * starts as zero with element 8 = n, the input length; the input is cut into blocks of 8
 * elements, the last one zero-filled (at least one block, so n = 0 hashes one zero block); each
 * block is added into the rate and the state permuted; the digest is elements 0..3. The length
 * in the capacity makes every length its own domain, so no padding is needed: [x] and [x, 0]
 * differ. Input values >= p are reduced mod p first.
 *
 * Compression (gs_poseidon2_compress): width 8, x = l || r, out = (P(x) + x)[0..3]: the
 * permutation truncated to 4 elements with the input fed forward (without it, a preimage of
 * any output would be one inverse permutation away). Not Plonky3's TruncatedPermutation.
 *
 * Bytes: a digest is 32 bytes, element i canonical little-endian at bytes 8i..8i+7; the
 * decoder refuses a non-canonical element (>= p).
 *
 * Every function is thread-safe; the bulk ones are single-threaded (callers split work) and use
 * AVX-512 (8 states at once) or AVX2 (4) where the CPU has them, chosen at run time. */
#ifndef GSTARK_POSEIDON2_H
#define GSTARK_POSEIDON2_H

#include <stddef.h>

#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_POSEIDON2_RATE 8u        /* sponge rate, elements */
#define GS_POSEIDON2_CAPACITY 4u    /* sponge capacity, elements */
#define GS_POSEIDON2_DIGEST_ELEMS 4u

typedef struct gs_poseidon2_digest {
    gs_fp v[GS_POSEIDON2_DIGEST_ELEMS];
} gs_poseidon2_digest;

/* The permutations, in place, on canonical elements (values >= p give unspecified output). */
void gs_poseidon2_permute_w8(gs_fp st[8]);
void gs_poseidon2_permute_w12(gs_fp st[12]);

/* The sponge: *out = H(in[0..n)). in may be NULL when n is 0. */
void gs_poseidon2_hash(gs_poseidon2_digest *out, const gs_fp *in, size_t n);

/* The 2-to-1 compression (a Merkle node): out may alias l or r. */
void gs_poseidon2_compress(gs_poseidon2_digest *out, const gs_poseidon2_digest *l,
                           const gs_poseidon2_digest *r);

/* Many rows at once: out[i] = H(row i), row i having row_len elements, element j of row i at
 * in[i * row_stride + j * col_stride]. Row-major rows: row_stride = row_len (or more),
 * col_stride = 1; the rows of a column-major matrix (gstark/merkle.h's layout): row_stride = 1,
 * col_stride = the column stride. Exactly gs_poseidon2_hash of each row. out must not
 * overlap the input. */
void gs_poseidon2_hash_rows(gs_poseidon2_digest *out, const gs_fp *in, size_t n_rows,
                            size_t row_len, size_t row_stride, size_t col_stride);

/* Halving a level of a tree: out[i] = compress(in[2i], in[2i+1]) for i < n. out may equal in
 * (digest i overwrites only pairs already read), otherwise must not overlap it. */
void gs_poseidon2_compress_many(gs_poseidon2_digest *out, const gs_poseidon2_digest *in,
                                size_t n);

/* The 32-byte form (the repository's gs_digest). */
void gs_poseidon2_digest_to_bytes(gs_digest *out, const gs_poseidon2_digest *d);
/* GS_ERR_INVALID_ARG (and *out unchanged) if an element is not canonical, or a pointer NULL. */
gs_status gs_poseidon2_digest_from_bytes(gs_poseidon2_digest *out, const gs_digest *in);

#ifdef __cplusplus
}
#endif
#endif
