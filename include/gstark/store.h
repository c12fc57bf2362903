/* The content-addressed proof store (docs/batch.md, "Store"): finished proofs
 * and the batch layer's join objects, each a file named by its key under a
 * store directory, published atomically (temporary file, fsync, rename, fsync
 * of the directory), so that a crash or a concurrent writer never exposes a
 * partial object, and checked on every read (header, key, Keccak-256 of the
 * whole object; a proof is parsed and its key recomputed), so that a damaged
 * object is reported as GS_ERR_CORRUPT and never trusted.
 *
 * A key names a statement, not a proof's bytes: a rerun that would prove the
 * same statement under the same parameters finds its proof by the key
 * before proving. Several threads and processes may use one store at once;
 * a gs_store is immutable after gs_store_open and may be shared by threads. */
#ifndef GSTARK_STORE_H
#define GSTARK_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/hash.h"
#include "gstark/proof.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_STORE_MAGIC "GSTOREOB" /* 8 bytes, at the start of every object */
#define GS_STORE_FORMAT 1u        /* the object header's format version */
#define GS_STORE_HEADER_BYTES 88u /* magic, format, kind, length, key, check */
/* A temporary older than this (seconds) is stale whoever wrote it. */
#define GS_STORE_STALE_SECONDS 3600

/* What an object holds. The values of the proof kinds are their file
 * format versions (GS_PROOF_VERSION, GS_PROOF_VERSION_MULTI). */
typedef enum gs_store_kind {
    GS_STORE_PROOF = 1,       /* a version-1 proof file (gs_proof_serialize) */
    GS_STORE_MULTI_PROOF = 2, /* a version-2 proof file (gs_multi_proof_serialize) */
    GS_STORE_JOIN = 3         /* a join's aggregate object: bytes the store does not interpret */
} gs_store_kind;

typedef struct gs_store gs_store;

/* Opens the store at `dir`, creating the directory (and its parents) and its
 * layout (objects/00..ff, tmp/) where missing, and removing stale temporaries
 * that crashed writers left in tmp/ (a temporary of a process on this host
 * that no longer runs, or any temporary older than GS_STORE_STALE_SECONDS).
 * GS_ERR_INVALID_ARG (errno ENOTDIR) when `dir`, one of its parents, or a
 * layout entry exists and is not a directory; GS_ERR_IO when the store cannot
 * be created or written (errno says why: EACCES, EROFS, ENOSPC, ...). */
gs_status gs_store_open(gs_store **out, const char *dir);
void gs_store_close(gs_store *s); /* NULL is a no-op */
/* The directory as given to gs_store_open. */
const char *gs_store_dir(const gs_store *s);

/* ---- keys ----
 * Keccak-256 over "gstark-store-key-v1", the proof file's format version
 * (u32, little-endian) and the proof's statement digest
 * (gs_proof_statement_digest / gs_multi_proof_statement_digest: parameters,
 * AIR fingerprints, heights and public inputs; not the commitments and not
 * air_desc, which is informative). The digest reads only the statement
 * fields, so a key can be computed before proving: fill params,
 * air_fingerprint (gs_air_fingerprint), log_n, num_public and pub of a
 * gs_proof (per table for a gs_multi_proof, with params and num_tables) and
 * leave the rest zero. */
gs_digest gs_store_key_proof(const gs_proof *p);
gs_digest gs_store_key_multi(const gs_multi_proof *p);
/* The key of a join over children with keys children[0..n): Keccak-256 over
 * "gstark-store-join-v1", the aggregate object's format version `format` (the
 * batch layer's; a new aggregate format never finds an old object) and n (u32
 * each, little-endian), then the children's keys in order. */
gs_digest gs_store_key_join(uint32_t format, const gs_digest *children, uint32_t n);
/* The same with the aggregate's flags (the batch layer's: bit 0, a
 * bisection join): 0 is gs_store_key_join's key; otherwise the flags (u32,
 * little-endian) follow n, so a bisection join and an ordinary join over the
 * same children, whose objects differ, have different keys. */
gs_digest gs_store_key_join_flags(uint32_t format, uint32_t flags, const gs_digest *children,
                                  uint32_t n);

/* ---- objects ---- */

/* Publishes data[0..len) as the object `key` of kind `kind`, replacing any
 * object already there (a damaged one included) in one atomic rename: a
 * reader sees the old object or the new one, whole. For the proof kinds the
 * payload must parse as that kind of proof file and its store key must equal
 * `key`, or nothing is written (GS_ERR_INVALID_ARG), so a reader never finds
 * an object it would refuse. GS_ERR_IO (errno set) when writing fails. */
gs_status gs_store_put(gs_store *s, const gs_digest *key, uint32_t kind, const uint8_t *data,
                       size_t len);
/* Serializes the proof and publishes it under its key, which *key receives
 * (key may be NULL). */
gs_status gs_store_put_proof(gs_store *s, gs_digest *key, const gs_proof *p);
gs_status gs_store_put_multi(gs_store *s, gs_digest *key, const gs_multi_proof *p);

/* Loads the object `key`: *kind (may be NULL) and a newly allocated copy of
 * its payload (*data, *len; free() it; not NULL even when len is 0).
 * GS_ERR_NOT_FOUND if there is none; GS_ERR_CORRUPT if it fails any check
 * (magic, format, kind, length against the file's size, key, Keccak-256 of
 * the object; for the proof kinds, the payload must parse and its store key
 * equal `key`); GS_ERR_IO or GS_ERR_NOMEM otherwise. On error *data is NULL
 * and *len 0. A corrupt object stays until gs_store_remove or a put
 * replaces it. */
gs_status gs_store_get(gs_store *s, uint32_t *kind, uint8_t **data, size_t *len,
                       const gs_digest *key);
/* Loads and parses a proof object (checked as gs_store_get checks it); an
 * object of another kind under `key` is GS_ERR_CORRUPT (each kind's keys
 * are domain-separated). The parsed proof is not verified: that is the
 * caller's (gs_verify), as for any proof read from a file. */
gs_status gs_store_get_proof(gs_store *s, gs_proof **out, const gs_digest *key);
gs_status gs_store_get_multi(gs_store *s, gs_multi_proof **out, const gs_digest *key);

/* 1 if an object file exists under `key` (not checked: gs_store_get checks),
 * 0 otherwise. */
int gs_store_has(const gs_store *s, const gs_digest *key);
/* Removes the object `key`; GS_OK also when there is none (two lanes may
 * drop the same corrupt object). A put replaces a damaged object anyway;
 * removing it first keeps a later reader from finding it should re-proving
 * fail. */
gs_status gs_store_remove(gs_store *s, const gs_digest *key);
/* The object's file name, DIR/objects/<2 hex>/<62 hex>, into buf[0..cap)
 * (NUL-terminated); GS_ERR_INVALID_ARG if it does not fit. For messages. */
gs_status gs_store_object_path(const gs_store *s, char *buf, size_t cap, const gs_digest *key);

#ifdef __cplusplus
}
#endif
#endif
