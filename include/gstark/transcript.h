/* The Fiat-Shamir transcript: a hash chain with domain-separation labels.
 * docs/protocol.md ("Transcript") gives the exact byte encoding that every
 * prover, backend and verifier must reproduce. */
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

/* Labels are short ASCII strings (at most 255 bytes) naming what is absorbed
 * or squeezed; they are part of the hashed bytes. */
void gs_transcript_absorb_bytes(gs_transcript *t, const char *label, const void *data, size_t len);
void gs_transcript_absorb_u64(gs_transcript *t, const char *label, uint64_t v);
void gs_transcript_absorb_fp(gs_transcript *t, const char *label, const gs_fp *v, size_t n);
void gs_transcript_absorb_fp3(gs_transcript *t, const char *label, const gs_fp3 *v, size_t n);
void gs_transcript_absorb_digest(gs_transcript *t, const char *label, const gs_digest *d);

/* Uniform challenges (rejection sampling of 64-bit words >= p). */
gs_fp gs_transcript_squeeze_fp(gs_transcript *t, const char *label);
gs_fp3 gs_transcript_squeeze_fp3(gs_transcript *t, const char *label);
/* `count` distinct indices in [0, 2^log_domain), in the order drawn.
 * GS_ERR_INVALID_ARG if count > 2^log_domain or log_domain > 63. */
gs_status gs_transcript_squeeze_indices(gs_transcript *t, const char *label, size_t *out,
                                        size_t count, unsigned log_domain);

/* child = parent with the u64 index absorbed (child may equal parent). */
void gs_transcript_fork(gs_transcript *child, const gs_transcript *parent, uint64_t index);

/* Proof of work: find the smallest nonce whose hash with the current state
 * has `bits` leading zero bits (bits <= 64; multi-threaded, deterministic),
 * then absorb it. GS_ERR_EXHAUSTED if none exists below 2^64. */
gs_status gs_transcript_grind(gs_transcript *t, unsigned bits, uint64_t *nonce);
/* Check a nonce (GS_ERR_POW if it fails) and absorb it on success. */
gs_status gs_transcript_check_pow(gs_transcript *t, unsigned bits, uint64_t nonce);

#ifdef __cplusplus
}
#endif
#endif
