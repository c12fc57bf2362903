/* The proof: parameters, statement and the single-table sub-proof, as plain
 * structs, and the versioned binary file format (docs/proof-format.md). A
 * parsed proof is untrusted: the parser checks every length against
 * the remaining input and every count against the shape it implies before it
 * allocates; the verifier then checks everything else. */
#ifndef GSTARK_PROOF_H
#define GSTARK_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_PROOF_MAGIC "GSTARKPF" /* 8 bytes */
#define GS_PROOF_VERSION 1u       /* a single-table proof file (gs_proof) */
#define GS_PROOF_VERSION_MULTI 2u /* a multi-table proof file (gs_multi_proof) */
#define GS_PROOF_VERSION_COMPACT 3u /* either, openings batched (what the serializers write) */
#define GS_PROOF_MAX_TABLES 4096u /* tables in a version-2 file (as GS_MAX_TABLES, prover.h) */

/* Protocol parameters, all written in the proof header. */
typedef struct gs_params {
    uint32_t log_blowup;    /* LDE blowup 2^log_blowup; 1..6, default 2 (blowup 4) */
    uint32_t log_final;     /* FRI stops when the degree bound is <= 2^log_final; default 7 */
    uint32_t grinding_bits; /* proof of work before the queries; 0..40, default 20 */
    uint32_t num_queries;   /* FRI queries; 1..1024 */
    uint32_t log_arity;     /* FRI folding arity 2^log_arity: 1..GS_MAX_LOG_ARITY (2..16) */
    /* The hash of every Merkle commitment and of the transcript, a gs_hash_id:
     * GS_HASH_KECCAK256 (0, the default: zero-initialised parameters mean
     * Keccak-256) or GS_HASH_POSEIDON2 (1); any other value is refused. Version
     * 1 and 2 files are Keccak-256 only. */
    uint32_t hash;
    /* Merkle caps: every commitment is sent as the 2^h' nodes of its tree's
     * level depth - h', h' = min(cap_height, depth), and every path stops
     * below them (docs/protocol.md, "Merkle caps"); 0 (the default) sends
     * the root, as before caps existed. 0..GS_MAX_CAP_HEIGHT; version 3
     * files only. */
    uint32_t cap_height;
    /* One FRI for all tables of a multi-table proof (docs/multi-table.md,
     * "One FRI for many tables"): 0 (the default) runs a FRI, grinding and
     * queries per table, as before the choice existed; 1 combines every
     * table's DEEP word into one FRI with one grinding and one set of
     * queries (gs_multi_proof.fri). Bound in the statement only when not 0;
     * version 3 multi-table files only; gs_prove refuses it
     * (GS_ERR_INVALID_ARG: one table has nothing to share). 2
     * (GS_SHARED_TREES) shares the commitments too: every table's trace, its
     * quotient chunks and its aux columns are committed in one Merkle tree
     * per round over all tables (docs/protocol.md, "One tree per round"), so
     * a query's path is sent once per round instead of once per table and
     * round; cap_height must then be 0. */
    uint32_t shared_fri;
    /* Coset leaves (docs/protocol.md, "Coset leaves"): 0 (the default) hashes
     * one row of the LDE domain per leaf of the trace, aux and quotient
     * trees and commits the DEEP word as FRI layer 0, as before the choice
     * existed; 1 makes every leaf of those trees hold the 2^a rows that FRI's
     * first layer folds together (a = that layer's folds), so the verifier
     * computes the DEEP word's values on a whole folding coset from the
     * openings and layer 0 is not committed: smaller proofs, fewer hashes.
     * Only for the tables whose proof that makes smaller (gs_coset_pays,
     * from the statement); 2 (GS_COSET_LEAVES_ALL) for every table with a
     * FRI layer, also the wide ones, whose proofs it makes larger but whose
     * trees then hash a leaf per 2^a rows and no layer 0 (faster provers).
     * Bound in the statement when not 0; version 3 files only. With
     * shared_fri = 1 the provers take it as 0 (the two do not combine yet) and
     * the proof records 0; a proof struct claiming both is refused. */
    uint32_t coset_leaves;
} gs_params;

#define GS_SHARED_TREES 2u /* gs_params.shared_fri: one FRI and one tree per round */
#define GS_COSET_LEAVES_ALL 2u /* gs_params.coset_leaves: every table with a FRI layer */
#define GS_MAX_LOG_ARITY 4u /* FRI folds by at most 16 */
#define GS_MAX_CAP_HEIGHT 10u /* a cap of at most 1024 nodes: always stored by both backends */
#define GS_MIN_SECURITY_BITS 80u /* the verifier refuses proofs below this */
#define GS_DEFAULT_SECURITY_BITS 128u
/* Collision resistance of the commitment hash (Keccak-256: 256 / 2 bits).
 * A Merkle commitment binds only up to it, so no claim exceeds it. */
#define GS_HASH_COLLISION_BITS 128u
/* The extension-field term of the conjectured level: floor(log2 |Fp3|) = 191,
 * less log2 of the largest LDE domain (2^30) and one bit for the union over
 * the out-of-domain and batching draws (docs/protocol.md, "Security"). */
#define GS_FIELD_SECURITY_BITS 160u
/* The largest level a proof can claim: min(field term, hash term). */
#define GS_MAX_SECURITY_BITS 128u

/* Default parameters for a security target in bits, clamped to
 * 1..GS_MAX_SECURITY_BITS (gs_params_for_security refuses instead). */
gs_params gs_params_default(unsigned security_bits);
/* Default parameters reaching `security_bits` (conjectured); GS_ERR_INVALID_ARG
 * for 0 or a target above GS_MAX_SECURITY_BITS (Keccak-256's collision
 * resistance: no query count can raise a claim past it). */
gs_status gs_params_for_security(gs_params *out, unsigned security_bits);
/* Conjectured security of the parameters in bits (docs/protocol.md):
 *   bits = min(num_queries * log_blowup + grinding_bits,   FRI term
 *              GS_FIELD_SECURITY_BITS,                      field term
 *              GS_HASH_COLLISION_BITS)                      commitment term
 * Each query lets a word far from low degree pass with probability about
 * 1/blowup (the ethSTARK conjecture); grinding adds its work. This is the
 * number --security, --min-security and gs_params_check speak of. */
unsigned gs_params_security(const gs_params *p);
/* Sets p->num_queries to the least count (1..1024) whose conjectured level
 * (gs_params_security) reaches `security_bits` with p's blowup and grinding,
 * as `gstark prove` and batch manifests choose it; GS_ERR_PROOF_PARAMS, p
 * unchanged, when no count reaches it (the target above the field or hash
 * term, or blowup 1 without enough grinding); GS_ERR_INVALID_ARG for NULL. */
gs_status gs_params_set_queries(gs_params *p, unsigned security_bits);
/* Provable security in bits of one table of height 2^log_n whose DEEP
 * combination batches `num_polys` polynomials (2C + K + 2A), by the
 * list-decoding analysis of FRI and DEEP-ALI (BCI+20 Thm 8.3 with the
 * ethSTARK and Haboeck bounds; formula in docs/protocol.md, "Security"),
 * capped at GS_HASH_COLLISION_BITS. 0 if the shape is out of range. */
unsigned gs_params_security_provable(const gs_params *p, unsigned log_n, uint32_t num_polys);
/* GS_OK if the parameters are in range and give at least `min_bits`
 * (conjectured); GS_ERR_INVALID_ARG if min_bits > GS_MAX_SECURITY_BITS (no
 * proof can meet it), GS_ERR_PROOF_PARAMS otherwise. */
gs_status gs_params_check(const gs_params *p, unsigned min_bits);

/* The table's sub-proof. Shapes (all derived from the statement and checked):
 * N = 2^(log_n + log_blowup) LDE rows, C main columns, K quotient chunks,
 * L = FRI layers, Q = queries actually drawn (min(num_queries, N)). */
typedef struct gs_table_proof {
    uint32_t num_cols;   /* C */
    uint32_t num_chunks; /* K */
    gs_digest trace_root, chunk_root;
    gs_fp3 *ood_cur;    /* C: each column at z */
    gs_fp3 *ood_next;   /* C: each column at z * w */
    gs_fp3 *ood_chunks; /* K: each quotient chunk at z */
    uint32_t num_layers;  /* L */
    gs_digest *fri_roots; /* L */
    uint32_t final_len;   /* coefficients of the final polynomial */
    gs_fp3 *final_poly;   /* final_len, lowest degree first */
    uint64_t pow_nonce;
    uint32_t num_queries;   /* Q */
    gs_fp *trace_rows;      /* Q x C */
    gs_digest *trace_paths; /* Q x (log N - h'): paths stop below the cap (cap_height below) */
    gs_fp *chunk_rows;      /* Q x 3K (chunk j's coefficients c0, c1, c2 at 3j..3j+2) */
    gs_digest *chunk_paths; /* Q x (log N - h') */
    gs_fp *fri_rows;        /* Q x sum over layers of 3 x 2^a_l: each layer's leaf (a_l its folds) */
    gs_digest *fri_paths;   /* Q x sum over layers l of (log N_l - a_l - h'_l) */
    /* The lengths of the per-query arrays, as the shape gives them (the
     * verifier and the serializer refuse a struct whose arrays were made for
     * another shape, before reading them): log N (the depth of every tree
     * over the LDE), and per query the FRI leaves' elements and paths'
     * digests; cap_height (below) gives the rest. */
    uint32_t log_lde, fri_row_len, fri_path_len;
    uint32_t *query_pos;    /* Q: the drawn positions; what version 3 files are indexed by
                               (NULL in a proof parsed from a version 1 or 2 file) */
    /* LogUp (multi-table proofs only; A = 0 and these empty otherwise). */
    uint32_t aux_cols;      /* A: aux columns in Fp3 */
    gs_digest aux_root;
    gs_fp3 bus_sum;         /* this table's contribution to its buses */
    gs_fp3 *ood_aux_cur;    /* A: each aux column at z */
    gs_fp3 *ood_aux_next;   /* A: each aux column at z * w */
    gs_fp *aux_rows;        /* Q x 3A */
    gs_digest *aux_paths;   /* Q x (log N - h') */
    /* Merkle caps. cap_height: the params' cap height h these arrays were
     * made for (refused otherwise, before anything is read). With h = 0 each
     * tree's root is in its *_root field and caps is NULL. With h > 0 the
     * *_root fields are zero, every path above holds log N - min(h, log N)
     * digests (FRI: fri_path_len, the sum over the layers of their depth
     * less their cap height), and caps holds every tree's cap in the order
     * trace, chunk, FRI layers 0..L-1, aux (when A > 0), each the 2^h' nodes
     * of its level depth - h' (h' = min(h, depth)), left to right. */
    uint32_t cap_height;
    gs_digest *caps;
} gs_table_proof;

typedef struct gs_proof {
    gs_params params;
    gs_digest air_fingerprint;
    char air_desc[128];  /* how to rebuild the AIR (e.g. "mix cols=64 degree=3 seed=1"); informative */
    uint32_t log_n;      /* trace height 2^log_n */
    uint32_t num_public;
    gs_fp *pub;
    gs_table_proof table;
} gs_proof;

void gs_proof_free(gs_proof *p); /* NULL is a no-op; frees everything inside */

/* Many tables in one proof (docs/protocol.md, "Many tables"): one entry per
 * table, in statement order, each with its own statement (AIR fingerprint,
 * height, public inputs) and sub-proof; params are shared (every entry's
 * params equal these). */
/* The one FRI of a multi-table proof with params.shared_fri = 1
 * (docs/protocol.md, "One FRI for many tables"). Its shape follows from the
 * tables' heights (the layer plan, proof/shape.h gs_fri_plan): the queries
 * are drawn on the largest LDE domain 2^log_lde, each table opens its trees
 * at q mod its own LDE size, and the tables' sub-proofs then carry no FRI
 * part (num_layers = final_len = 0, no FRI rows, paths or nonce; their
 * query_pos hold the reduced positions). */
typedef struct gs_shared_fri {
    uint32_t log_lde;      /* the largest table's LDE domain: the queries' */
    uint32_t num_layers;   /* L */
    gs_digest *caps;       /* every layer's cap in layer order (2^min(h, depth) digests each; the root when h = 0) */
    uint32_t cap_len;      /* digests in caps */
    uint32_t final_len;
    gs_fp3 *final_poly;    /* final_len, lowest degree first */
    uint64_t pow_nonce;
    uint32_t num_queries;  /* Q = min(num_queries, 2^log_lde) */
    uint32_t *query_pos;   /* Q distinct positions < 2^log_lde */
    uint32_t fri_row_len, fri_path_len; /* per query, over all layers */
    gs_fp *fri_rows;       /* Q x fri_row_len */
    gs_digest *fri_paths;  /* Q x fri_path_len (each path stops below its layer's cap) */
    /* shared_fri = GS_SHARED_TREES only (else zero and NULL): the roots of the
     * trees that hold every table's trace, quotient chunks and aux columns,
     * indexed GS_TREE_TRACE (0), GS_TREE_CHUNK (1), GS_TREE_AUX (2; zero and
     * no paths when no table has a bus), and each query's path in each:
     * tree_paths[i][k * tree_depth[i] + l], tree_depth[i] the largest LDE
     * depth among the tables it holds (query k's leaf there:
     * gs_mixed_bitrev(query_pos[k] mod 2^depth, depth)). */
    gs_digest tree_roots[3];
    uint32_t tree_depth[3];
    gs_digest *tree_paths[3];
} gs_shared_fri;

typedef struct gs_multi_proof {
    gs_params params;
    uint32_t num_tables;
    gs_proof *tables;
    gs_shared_fri *fri; /* params.shared_fri = 1 only; NULL otherwise */
} gs_multi_proof;

void gs_multi_proof_free(gs_multi_proof *p); /* NULL is a no-op */
void gs_shared_fri_free(gs_shared_fri *f);  /* NULL is a no-op; frees f itself */

/* Provable security of a proof in bits (see gs_params_security_provable):
 * the union bound over its tables' soundness errors, from the shapes the
 * proof carries. 0 for a shape out of range. */
unsigned gs_proof_security_provable(const gs_proof *p);
unsigned gs_multi_proof_security_provable(const gs_multi_proof *p);

/* The statement a proof makes, as one digest a user can pin (gstark verify
 * --statement): Keccak-256 over the same encoding the transcript absorbs
 * first (parameters, AIR fingerprint, height and public inputs per table;
 * docs/protocol.md, "Statement digest"). Two proofs of the same statement
 * under the same parameters have the same digest. */
gs_digest gs_proof_statement_digest(const gs_proof *p);
gs_digest gs_multi_proof_statement_digest(const gs_multi_proof *p);

/* Serialize to a newly allocated buffer (*out, *len); free() it. Writes
 * version 3 (GS_PROOF_VERSION_COMPACT: each distinct opened leaf and each
 * Merkle node once, indexed by the query positions, so p->table.query_pos
 * must be set, as the prover sets it). */
gs_status gs_proof_serialize(uint8_t **out, size_t *len, const gs_proof *p);
/* The same in a chosen version: GS_PROOF_VERSION (1, full paths per query,
 * readable by older verifiers; FRI folding by 2 only) or
 * GS_PROOF_VERSION_COMPACT; GS_ERR_INVALID_ARG otherwise (also for version 1
 * with params.cap_height > 0: caps exist in version 3 only). */
gs_status gs_proof_serialize_as(uint8_t **out, size_t *len, const gs_proof *p, uint32_t version);
/* Parse; GS_ERR_PROOF_FORMAT on any malformed input, never a read past
 * buf[len) and never an allocation larger than the input justifies. */
gs_status gs_proof_parse(gs_proof **out, const uint8_t *buf, size_t len);

/* The multi-table file (version 3, or 2 with _as; docs/proof-format.md): the params once,
 * then per table its statement, sub-proof and LogUp part. Serialize returns
 * GS_ERR_INVALID_ARG for a struct it could not write so that it parses (as
 * gs_proof_serialize, and also: num_tables outside 1..GS_PROOF_MAX_TABLES, an
 * entry whose params differ from the shared ones, aux_cols over its cap or
 * with missing or non-canonical aux arrays, or aux_cols == 0 with a nonzero
 * aux_root or bus_sum). Parse has gs_proof_parse's guarantees; every parsed
 * entry's params equal the shared ones, and a table with aux_cols == 0 has
 * NULL aux arrays and zero aux_root and bus_sum. A version-1 file given to
 * gs_multi_proof_parse, or a version-2 file given to gs_proof_parse, is
 * GS_ERR_PROOF_FORMAT. */
gs_status gs_multi_proof_serialize(uint8_t **out, size_t *len, const gs_multi_proof *p);
gs_status gs_multi_proof_serialize_as(uint8_t **out, size_t *len, const gs_multi_proof *p,
                                      uint32_t version); /* 2 (cap height 0 only) or GS_PROOF_VERSION_COMPACT */
gs_status gs_multi_proof_parse(gs_multi_proof **out, const uint8_t *buf, size_t len);

/* The bytes a table's sub-proof takes in a file, by part: the commitments,
 * the out-of-domain values (and bus sum), the final polynomial, and the
 * openings of each tree (rows and Merkle nodes). Version 3 sizes when the
 * proof has its query positions, version 1/2 sizes otherwise. Statements,
 * counts and section headers are not counted. Zero for a shape out of range. */
typedef struct gs_proof_parts {
    size_t commits, ood, final, trace_q, chunk_q, fri_q, aux_q, total;
    /* log2 of the LDE rows in a leaf of the trace, chunk and aux trees: 0
     * for one row, a > 0 for coset leaves (params.coset_leaves where they
     * pay; FRI layer 0 is then not in the file) */
    unsigned leaf_rows_log;
} gs_proof_parts;
gs_proof_parts gs_proof_table_parts(const gs_proof *p);
/* The bytes the shared FRI takes in a version 3 file, by part: the layer
 * caps (commits), the final polynomial, and the openings with the query
 * positions (fri_q); with shared trees also their roots (in commits) and
 * their batched paths (trace_q, chunk_q, aux_q); zero when p has none. */
gs_proof_parts gs_multi_proof_fri_parts(const gs_multi_proof *p);

/* 1 for a single-table proof file (version 1, or 3 with a HEAD section
 * first), 2 for a multi-table one (version 2, or 3 with MHDR first), 0
 * otherwise (only magic, version and that tag are looked at). */
int gs_proof_file_kind(const uint8_t *buf, size_t len);
/* The version field of a file with gstark's magic (any value, so that a
 * caller can name a version it cannot read); 0 without the magic. */
uint32_t gs_proof_file_version(const uint8_t *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
