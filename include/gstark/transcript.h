/* The Fiat-Shamir transcript: a hash chain with domain-separation labels.
 * docs/protocol.md ("Transcript") gives the exact byte encoding that every
 * prover, backend and verifier must reproduce; in short (S = the 32-byte
 * state, H = the transcript's hash over bytes: Keccak-256, or Poseidon2's
 * byte mode of gstark/hash.h, the same encoding for both; u64le = 8 bytes
 * little-endian, || = concatenation):
 *
 *   init:     S = H("gstark-transcript" || u64le(|domain|) || domain)
 *   absorb:   S = H(S || tag || u64le(|label|) || label || u64le(|data|) || data)
 *             tags 0x01 bytes, 0x02 u64, 0x03 fp, 0x04 fp3, 0x05 digest,
 *             0x06 fork, 0x07 proof-of-work nonce
 *   squeeze:  block_k = H(S || kind || u64le(|label|) || label || u64le(k)),
 *             k = 0, 1, ...; word 4k + j = bytes 8j..8j+7 of block_k (LE);
 *             kinds 0x10 fp, 0x11 fp3, 0x12 indices; after the operation,
 *             having consumed W words:
 *             S = H(S || 0x20 || kind || u64le(|label|) || label || u64le(W))
 *   pow hash: H(S || 0x30 || u8 bits || u64le(nonce))
 *
 * Labels and the domain may be any length (NULL means empty); they are
 * hashed with their length. Field values are their 8-byte little-endian
 * limbs, Fp3 values c0, c1, c2. A transcript is a plain value: copying it
 * copies the chain. No function here allocates except squeeze_indices. */
#ifndef GSTARK_TRANSCRIPT_H
#define GSTARK_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_transcript {
    gs_hash_id id;
    gs_digest state; /* everything absorbed so far, chained */
} gs_transcript;

/* Start a transcript for a protocol named `domain` (e.g. "gstark-v1"). */
void gs_transcript_init(gs_transcript *t, gs_hash_id id, const char *domain);

/* Labels are strings (ASCII by convention, any length, NULL = "") naming
 * what is absorbed or squeezed; they are part of the hashed bytes. */
void gs_transcript_absorb_bytes(gs_transcript *t, const char *label, const void *data, size_t len);
void gs_transcript_absorb_u64(gs_transcript *t, const char *label, uint64_t v);
void gs_transcript_absorb_fp(gs_transcript *t, const char *label, const gs_fp *v, size_t n);
void gs_transcript_absorb_fp3(gs_transcript *t, const char *label, const gs_fp3 *v, size_t n);
void gs_transcript_absorb_digest(gs_transcript *t, const char *label, const gs_digest *d);

/* Uniform challenges (rejection sampling of 64-bit words >= p): squeeze_fp
 * takes the first word < p; squeeze_fp3 the first three (c0, c1, c2). */
gs_fp gs_transcript_squeeze_fp(gs_transcript *t, const char *label);
gs_fp3 gs_transcript_squeeze_fp3(gs_transcript *t, const char *label);
/* `count` distinct indices in [0, 2^log_domain), in the order drawn: each
 * word gives word & (2^log_domain - 1); a value already drawn is skipped.
 * GS_ERR_INVALID_ARG if count > 2^log_domain, log_domain > 63 or out is NULL
 * with count > 0; GS_ERR_NOMEM if the duplicate filter cannot be allocated.
 * On error the transcript is unchanged. count 0 still ratchets (W = 0). */
gs_status gs_transcript_squeeze_indices(gs_transcript *t, const char *label, size_t *out,
                                        size_t count, unsigned log_domain);

/* child = parent with the u64 index absorbed (tag 0x06, empty label, data
 * u64le(index)); child may equal parent. */
void gs_transcript_fork(gs_transcript *child, const gs_transcript *parent, uint64_t index);

/* Proof of work: a nonce is valid iff its pow hash, read as a big-endian
 * number (byte 0 most significant), has `bits` leading zero bits. grind finds
 * the smallest valid nonce (multi-threaded; the answer never depends on the
 * thread count), then absorbs it exactly as check_pow does (tag 0x07, empty
 * label, data u8 bits || u64le(nonce)). bits == 0 gives nonce 0.
 * GS_ERR_INVALID_ARG if bits > 64 or nonce is NULL; GS_ERR_EXHAUSTED if no
 * nonce below 2^64 is valid. */
gs_status gs_transcript_grind(gs_transcript *t, unsigned bits, uint64_t *nonce);
/* Check a nonce (GS_ERR_POW if it fails, GS_ERR_INVALID_ARG if bits > 64)
 * and absorb it on success; on failure the transcript is unchanged. */
gs_status gs_transcript_check_pow(gs_transcript *t, unsigned bits, uint64_t nonce);
/* 1 if nonce is valid for the current state, else 0 (absorbs nothing). */
int gs_transcript_pow_valid(const gs_transcript *t, unsigned bits, uint64_t nonce);

#ifdef __cplusplus
}
#endif
#endif
