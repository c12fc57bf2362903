/* The proof files (docs/proof-format.md gives every byte).
 *
 *   version 1, one table:
 *     "GSTARKPF" | u32 1 | section "HEAD" | section "TABL"
 *   version 2, many tables:
 *     "GSTARKPF" | u32 2 | section "MHDR" | num_tables x section "MTBL"
 *   section = 4-byte tag | u64 body length | body
 *
 * All integers are little-endian; field elements are canonical u64s. The
 * parser reads through a bounded cursor: every count is checked against the
 * shape the header implies (gs_shape_make) and against the bytes left in its
 * section before anything is allocated, so an allocation never exceeds the
 * bytes of input that fill it. The serializer writes exactly what the parser
 * reads: parse(serialize(p)) serializes to the same bytes.
 *
 * Both versions are built from the same pieces: the parameters, a table's
 * statement (fingerprint, description, height, public inputs) and its
 * sub-proof (version 1's TABL body); version 2 adds each table's LogUp part
 * after its sub-proof. */
#include <stdlib.h>
#include <string.h>

#include "gstark/proof.h"
#include "proof/shape.h"

#define MAGIC_BYTES 8u
#define SECTION_HDR 12u /* tag (4) + body length (8) */
#define PARAMS_BYTES 20u /* five u32 */
#define MAX_COLS 65536u
#define MAX_CHUNKS 65536u
#define MAX_AUX 65536u /* version 2: the parser does not know the AIR, so A is capped */
#define MAX_PUBLIC (1u << 20)
#define MAX_DESC 127u
#define FP3_BYTES 24u

/* The smallest MTBL section a valid version-2 file can hold: log N >= 2,
 * C = K = 1, no FRI layer, F = 1, Q = 1, A = 0, no description, no public
 * input. Statement 44 + sub-proof 92 + 24 (2 + 1) + 24 + (8 + 2 * 32 * 2 + 24)
 * + aux count 4 = 396, plus the section header. The parser checks
 * num_tables x this against the input before it allocates the entries. */
#define MIN_TABLE_SECTION (SECTION_HDR + 396u)

/* In memory as on the wire: the parser's "count x sizeof <= bytes left" bound
 * is then exactly "the input holds the array". */
_Static_assert(sizeof(gs_fp) == 8 && sizeof(gs_fp3) == FP3_BYTES && sizeof(gs_digest) == GS_DIGEST_BYTES,
               "proof arrays must have their wire size in memory");

static const uint8_t TAG_HEAD[4] = {'H', 'E', 'A', 'D'};
static const uint8_t TAG_TABL[4] = {'T', 'A', 'B', 'L'};
static const uint8_t TAG_MHDR[4] = {'M', 'H', 'D', 'R'};
static const uint8_t TAG_MTBL[4] = {'M', 'T', 'B', 'L'};

/* ---- sizes ---- */

/* Validates what the header implies and fills the shape: the parameters and
 * trace height must give a shape for these column and chunk counts. log_n and
 * log_blowup are bounded first so that gs_shape_make's sum cannot wrap. */
static int shape_for(gs_shape *s, const gs_params *par, uint32_t log_n, uint32_t cols,
                     uint32_t chunks) {
    if (log_n < 1 || log_n > GS_MAX_LOG_LDE || par->log_blowup < 1 || par->log_blowup > 6)
        return 0;
    if (cols < 1 || cols > MAX_COLS || chunks < 1 || chunks > MAX_CHUNKS) return 0;
    return gs_shape_make(s, par, log_n, cols, chunks) == GS_OK;
}

/* Element counts of the query arrays. With the caps above none can overflow
 * 64 bits: Q <= 1024, C, K, A <= 2^16, log N <= 30, fri_path_len < 30 * 30. */
typedef struct {
    uint64_t trace_rows, trace_paths, chunk_rows, chunk_paths, fri_rows, fri_paths;
    uint64_t aux_rows, aux_paths; /* with s->aux (version 2) */
} counts;

static counts counts_of(const gs_shape *s) {
    uint64_t Q = s->queries;
    counts c;
    c.trace_rows = Q * s->cols;
    c.trace_paths = Q * s->log_size;
    c.chunk_rows = Q * 3u * s->chunks;
    c.chunk_paths = Q * s->log_size;
    c.fri_rows = Q * s->layers * 6u;
    c.fri_paths = Q * (uint64_t)s->fri_path_len;
    c.aux_rows = Q * 3u * s->aux;
    c.aux_paths = s->aux ? Q * s->log_size : 0;
    return c;
}

/* A table's statement: fingerprint, description, height, public inputs. */
static uint64_t statement_bytes(size_t desc_len, uint32_t num_public) {
    return GS_DIGEST_BYTES + 4 + desc_len + 4 + 4 + 8 * (uint64_t)num_public;
}

static uint64_t head_body_bytes(size_t desc_len, uint32_t num_public) {
    return PARAMS_BYTES + statement_bytes(desc_len, num_public);
}

/* Version 1's TABL body. */
static uint64_t table_body_bytes(const gs_shape *s) {
    counts c = counts_of(s);
    return 4 + 4 + 2 * GS_DIGEST_BYTES + FP3_BYTES * (2 * (uint64_t)s->cols + s->chunks) + 4 +
           GS_DIGEST_BYTES * (uint64_t)s->layers + 4 + FP3_BYTES * (uint64_t)s->final_len + 8 + 4 +
           8 * (c.trace_rows + c.chunk_rows + c.fri_rows) +
           GS_DIGEST_BYTES * (c.trace_paths + c.chunk_paths + c.fri_paths);
}

/* The LogUp part (version 2): the count A, and with A > 0 the rest. */
static uint64_t logup_bytes(const gs_shape *s) {
    if (!s->aux) return 4;
    counts c = counts_of(s);
    return 4 + GS_DIGEST_BYTES + FP3_BYTES + FP3_BYTES * 2 * (uint64_t)s->aux + 8 * c.aux_rows +
           GS_DIGEST_BYTES * c.aux_paths;
}

/* ---- writing ---- */

static uint8_t *put_u32(uint8_t *w, uint32_t v) {
    for (int i = 0; i < 4; i++) w[i] = (uint8_t)(v >> (8 * i));
    return w + 4;
}

static uint8_t *put_u64(uint8_t *w, uint64_t v) {
    for (int i = 0; i < 8; i++) w[i] = (uint8_t)(v >> (8 * i));
    return w + 8;
}

static uint8_t *put_bytes(uint8_t *w, const void *b, size_t n) {
    if (n) memcpy(w, b, n);
    return w + n;
}

static uint8_t *put_fps(uint8_t *w, const gs_fp *v, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) w = put_u64(w, v[i]);
    return w;
}

static uint8_t *put_fp3s(uint8_t *w, const gs_fp3 *v, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) w = put_fps(w, v[i].c, 3);
    return w;
}

static uint8_t *put_digests(uint8_t *w, const gs_digest *d, uint64_t n) {
    return put_bytes(w, d, (size_t)n * GS_DIGEST_BYTES);
}

static uint8_t *put_section(uint8_t *w, const uint8_t tag[4], uint64_t len) {
    w = put_bytes(w, tag, 4);
    return put_u64(w, len);
}

static uint8_t *put_params(uint8_t *w, const gs_params *q) {
    w = put_u32(w, q->log_blowup);
    w = put_u32(w, q->log_final);
    w = put_u32(w, q->grinding_bits);
    w = put_u32(w, q->num_queries);
    return put_u32(w, q->log_arity);
}

static uint8_t *put_statement(uint8_t *w, const gs_proof *p, size_t desc_len) {
    w = put_bytes(w, p->air_fingerprint.b, GS_DIGEST_BYTES);
    w = put_u32(w, (uint32_t)desc_len);
    w = put_bytes(w, p->air_desc, desc_len);
    w = put_u32(w, p->log_n);
    w = put_u32(w, p->num_public);
    return put_fps(w, p->pub, p->num_public);
}

static uint8_t *put_subproof(uint8_t *w, const gs_table_proof *t, const gs_shape *s) {
    counts c = counts_of(s);
    w = put_u32(w, t->num_cols);
    w = put_u32(w, t->num_chunks);
    w = put_bytes(w, t->trace_root.b, GS_DIGEST_BYTES);
    w = put_bytes(w, t->chunk_root.b, GS_DIGEST_BYTES);
    w = put_fp3s(w, t->ood_cur, s->cols);
    w = put_fp3s(w, t->ood_next, s->cols);
    w = put_fp3s(w, t->ood_chunks, s->chunks);
    w = put_u32(w, t->num_layers);
    w = put_digests(w, t->fri_roots, s->layers);
    w = put_u32(w, t->final_len);
    w = put_fp3s(w, t->final_poly, s->final_len);
    w = put_u64(w, t->pow_nonce);
    w = put_u32(w, t->num_queries);
    w = put_fps(w, t->trace_rows, c.trace_rows);
    w = put_digests(w, t->trace_paths, c.trace_paths);
    w = put_fps(w, t->chunk_rows, c.chunk_rows);
    w = put_digests(w, t->chunk_paths, c.chunk_paths);
    w = put_fps(w, t->fri_rows, c.fri_rows);
    return put_digests(w, t->fri_paths, c.fri_paths);
}

static uint8_t *put_logup(uint8_t *w, const gs_table_proof *t, const gs_shape *s) {
    w = put_u32(w, s->aux);
    if (!s->aux) return w;
    counts c = counts_of(s);
    w = put_bytes(w, t->aux_root.b, GS_DIGEST_BYTES);
    w = put_fp3s(w, &t->bus_sum, 1);
    w = put_fp3s(w, t->ood_aux_cur, s->aux);
    w = put_fp3s(w, t->ood_aux_next, s->aux);
    w = put_fps(w, t->aux_rows, c.aux_rows);
    return put_digests(w, t->aux_paths, c.aux_paths);
}

static int canonical(const gs_fp *v, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        if (v[i] >= GS_FP_P) return 0;
    return 1;
}

/* An array the format writes must exist when it has elements. */
#define PRESENT(ptr, n) ((n) == 0 || (ptr) != NULL)

/* The statement and sub-proof of p can be written so that they parse. */
static int struct_ok(const gs_proof *p, gs_shape *s, size_t *desc_len) {
    const gs_table_proof *t = &p->table;
    const char *nul = memchr(p->air_desc, 0, sizeof p->air_desc);
    if (!nul) return 0;
    *desc_len = (size_t)(nul - p->air_desc);
    if (p->num_public > MAX_PUBLIC || !PRESENT(p->pub, p->num_public) ||
        !canonical(p->pub, p->num_public))
        return 0;
    if (!shape_for(s, &p->params, p->log_n, t->num_cols, t->num_chunks)) return 0;
    if (t->num_layers != s->layers || t->final_len != s->final_len || t->num_queries != s->queries)
        return 0;
    counts c = counts_of(s);
    if (!PRESENT(t->ood_cur, s->cols) || !PRESENT(t->ood_next, s->cols) ||
        !PRESENT(t->ood_chunks, s->chunks) || !PRESENT(t->fri_roots, s->layers) ||
        !PRESENT(t->final_poly, s->final_len) || !PRESENT(t->trace_rows, c.trace_rows) ||
        !PRESENT(t->trace_paths, c.trace_paths) || !PRESENT(t->chunk_rows, c.chunk_rows) ||
        !PRESENT(t->chunk_paths, c.chunk_paths) || !PRESENT(t->fri_rows, c.fri_rows) ||
        !PRESENT(t->fri_paths, c.fri_paths))
        return 0;
    return canonical(t->ood_cur->c, 3 * (uint64_t)s->cols) &&
           canonical(t->ood_next->c, 3 * (uint64_t)s->cols) &&
           canonical(t->ood_chunks->c, 3 * (uint64_t)s->chunks) &&
           canonical(t->final_poly->c, 3 * (uint64_t)s->final_len) &&
           canonical(t->trace_rows, c.trace_rows) && canonical(t->chunk_rows, c.chunk_rows) &&
           canonical(t->fri_rows, c.fri_rows);
}

/* The LogUp part of t can be written so that it parses; sets s->aux. With
 * A = 0 nothing but the count is written, so aux_root and bus_sum must then
 * be zero (what the parser gives back). */
static int logup_ok(const gs_table_proof *t, gs_shape *s) {
    if (t->aux_cols > MAX_AUX) return 0;
    s->aux = t->aux_cols;
    if (!s->aux) {
        static const gs_digest zero;
        return memcmp(&t->aux_root, &zero, sizeof zero) == 0 && t->bus_sum.c[0] == 0 &&
               t->bus_sum.c[1] == 0 && t->bus_sum.c[2] == 0;
    }
    counts c = counts_of(s);
    if (!t->ood_aux_cur || !t->ood_aux_next || !t->aux_rows || !t->aux_paths) return 0;
    return canonical(t->bus_sum.c, 3) && canonical(t->ood_aux_cur->c, 3 * (uint64_t)s->aux) &&
           canonical(t->ood_aux_next->c, 3 * (uint64_t)s->aux) && canonical(t->aux_rows, c.aux_rows);
}

gs_status gs_proof_serialize(uint8_t **out, size_t *len, const gs_proof *p) {
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len || !p) return GS_ERR_INVALID_ARG;
    gs_shape s;
    size_t desc_len;
    if (!struct_ok(p, &s, &desc_len)) return GS_ERR_INVALID_ARG;
    uint64_t head = head_body_bytes(desc_len, p->num_public), table = table_body_bytes(&s);
    uint64_t total = MAGIC_BYTES + 4 + SECTION_HDR + head + SECTION_HDR + table;
    if (total > SIZE_MAX) return GS_ERR_NOMEM;
    uint8_t *buf = malloc((size_t)total), *w = buf;
    if (!buf) return GS_ERR_NOMEM;

    w = put_bytes(w, GS_PROOF_MAGIC, MAGIC_BYTES);
    w = put_u32(w, GS_PROOF_VERSION);
    w = put_section(w, TAG_HEAD, head);
    w = put_params(w, &p->params);
    w = put_statement(w, p, desc_len);
    w = put_section(w, TAG_TABL, table);
    w = put_subproof(w, &p->table, &s);

    if ((uint64_t)(w - buf) != total) { /* the size formulas and the writer disagree */
        free(buf);
        return GS_ERR_INVALID_ARG;
    }
    *out = buf;
    *len = (size_t)total;
    return GS_OK;
}

gs_status gs_multi_proof_serialize(uint8_t **out, size_t *len, const gs_multi_proof *p) {
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len || !p) return GS_ERR_INVALID_ARG;
    uint32_t n = p->num_tables;
    if (n < 1 || n > GS_PROOF_MAX_TABLES || !p->tables) return GS_ERR_INVALID_ARG;
    gs_shape *s = malloc(n * sizeof *s);
    size_t *desc = malloc(n * sizeof *desc);
    uint64_t total = MAGIC_BYTES + 4 + SECTION_HDR + PARAMS_BYTES + 4;
    gs_status st = s && desc ? GS_OK : GS_ERR_NOMEM;
    for (uint32_t i = 0; st == GS_OK && i < n; i++) {
        const gs_proof *e = &p->tables[i];
        /* Every entry's params are the shared ones: the file holds them once. */
        if (memcmp(&e->params, &p->params, sizeof p->params) != 0 || !struct_ok(e, &s[i], &desc[i]) ||
            !logup_ok(&e->table, &s[i]))
            st = GS_ERR_INVALID_ARG;
        else
            total += SECTION_HDR + statement_bytes(desc[i], e->num_public) + table_body_bytes(&s[i]) +
                     logup_bytes(&s[i]);
    }
    if (st == GS_OK && total > SIZE_MAX) st = GS_ERR_NOMEM;
    uint8_t *buf = st == GS_OK ? malloc((size_t)total) : NULL, *w = buf;
    if (st == GS_OK && !buf) st = GS_ERR_NOMEM;
    if (st == GS_OK) {
        w = put_bytes(w, GS_PROOF_MAGIC, MAGIC_BYTES);
        w = put_u32(w, GS_PROOF_VERSION_MULTI);
        w = put_section(w, TAG_MHDR, PARAMS_BYTES + 4);
        w = put_params(w, &p->params);
        w = put_u32(w, n);
        for (uint32_t i = 0; i < n; i++) {
            const gs_proof *e = &p->tables[i];
            w = put_section(w, TAG_MTBL,
                            statement_bytes(desc[i], e->num_public) + table_body_bytes(&s[i]) +
                                logup_bytes(&s[i]));
            w = put_statement(w, e, desc[i]);
            w = put_subproof(w, &e->table, &s[i]);
            w = put_logup(w, &e->table, &s[i]);
        }
        if ((uint64_t)(w - buf) != total) st = GS_ERR_INVALID_ARG; /* formulas and writer disagree */
    }
    free(s), free(desc);
    if (st != GS_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *len = (size_t)total;
    return GS_OK;
}

/* ---- reading ---- */

/* A cursor that never moves past its end. */
typedef struct {
    const uint8_t *p;
    size_t left;
} rd;

static int get_bytes(rd *r, void *dst, size_t n) {
    if (r->left < n) return 0;
    if (n) memcpy(dst, r->p, n);
    r->p += n, r->left -= n;
    return 1;
}

static int get_u32(rd *r, uint32_t *v) {
    if (r->left < 4) return 0;
    *v = 0;
    for (int i = 0; i < 4; i++) *v |= (uint32_t)r->p[i] << (8 * i);
    r->p += 4, r->left -= 4;
    return 1;
}

static int get_u64(rd *r, uint64_t *v) {
    if (r->left < 8) return 0;
    *v = 0;
    for (int i = 0; i < 8; i++) *v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8, r->left -= 8;
    return 1;
}

/* A section: its tag must be `tag` and its body must fit in what is left;
 * *body covers exactly the body and r moves past it. */
static int get_section(rd *r, const uint8_t tag[4], rd *body) {
    uint8_t t[4];
    uint64_t n;
    if (!get_bytes(r, t, 4) || memcmp(t, tag, 4) != 0 || !get_u64(r, &n) || n > r->left) return 0;
    body->p = r->p, body->left = (size_t)n;
    r->p += n, r->left -= (size_t)n;
    return 1;
}

/* Allocates n elements of `size` bytes after checking that the input holds
 * them (n * size <= r->left, tested by division so it cannot overflow). At
 * least one element is allocated so that arrays are never NULL. */
static gs_status alloc_checked(void **dst, const rd *r, uint64_t n, size_t size) {
    if (n > r->left / size) return GS_ERR_PROOF_FORMAT;
    *dst = malloc(n ? (size_t)n * size : size);
    return *dst ? GS_OK : GS_ERR_NOMEM;
}

/* n canonical field elements into dst (which holds them). */
static int read_fps(rd *r, gs_fp *dst, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        if (!get_u64(r, &v) || v >= GS_FP_P) return 0;
        dst[i] = v;
    }
    return 1;
}

static gs_status get_fps(rd *r, gs_fp **dst, uint64_t n) {
    GS_TRY(alloc_checked((void **)dst, r, n, sizeof(gs_fp)));
    return read_fps(r, *dst, n) ? GS_OK : GS_ERR_PROOF_FORMAT;
}

static gs_status get_fp3s(rd *r, gs_fp3 **dst, uint64_t n) {
    GS_TRY(alloc_checked((void **)dst, r, n, sizeof(gs_fp3)));
    return read_fps(r, (gs_fp *)*dst, 3 * n) ? GS_OK : GS_ERR_PROOF_FORMAT;
}

static gs_status get_digests(rd *r, gs_digest **dst, uint64_t n) {
    GS_TRY(alloc_checked((void **)dst, r, n, sizeof(gs_digest)));
    get_bytes(r, *dst, (size_t)n * sizeof(gs_digest)); /* cannot fail: the length was checked */
    return GS_OK;
}

/* A u32 count that must equal `want`. */
static int get_count(rd *r, uint32_t *v, uint32_t want) { return get_u32(r, v) && *v == want; }

/* The parameters; they must give a shape on their own. */
static int get_params(rd *r, gs_params *q) {
    return get_u32(r, &q->log_blowup) && get_u32(r, &q->log_final) &&
           get_u32(r, &q->grinding_bits) && get_u32(r, &q->num_queries) && get_u32(r, &q->log_arity);
}

/* A table's statement, after p->params is set: fingerprint, description,
 * height (which with the parameters must give a shape), public inputs. */
static gs_status parse_statement(gs_proof *p, rd *r) {
    uint32_t desc_len;
    if (!get_bytes(r, p->air_fingerprint.b, GS_DIGEST_BYTES) || !get_u32(r, &desc_len) ||
        desc_len > MAX_DESC || !get_bytes(r, p->air_desc, desc_len) ||
        memchr(p->air_desc, 0, desc_len) != NULL || !get_u32(r, &p->log_n))
        return GS_ERR_PROOF_FORMAT;
    /* The parameters and height alone must already give a shape. */
    gs_shape s;
    if (!shape_for(&s, &p->params, p->log_n, 1, 1)) return GS_ERR_PROOF_FORMAT;
    if (!get_u32(r, &p->num_public) || p->num_public > MAX_PUBLIC) return GS_ERR_PROOF_FORMAT;
    return get_fps(r, &p->pub, p->num_public);
}

static gs_status parse_head(gs_proof *p, rd *r) {
    if (!get_params(r, &p->params)) return GS_ERR_PROOF_FORMAT;
    GS_TRY(parse_statement(p, r));
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}

/* Version 1's TABL body (without the end-of-section check); fills *s. */
static gs_status parse_subproof(gs_proof *p, rd *r, gs_shape *s) {
    gs_table_proof *t = &p->table;
    uint32_t v;
    if (!get_u32(r, &t->num_cols) || !get_u32(r, &t->num_chunks) ||
        !shape_for(s, &p->params, p->log_n, t->num_cols, t->num_chunks) ||
        !get_bytes(r, t->trace_root.b, GS_DIGEST_BYTES) ||
        !get_bytes(r, t->chunk_root.b, GS_DIGEST_BYTES))
        return GS_ERR_PROOF_FORMAT;
    counts c = counts_of(s);
    GS_TRY(get_fp3s(r, &t->ood_cur, s->cols));
    GS_TRY(get_fp3s(r, &t->ood_next, s->cols));
    GS_TRY(get_fp3s(r, &t->ood_chunks, s->chunks));
    if (!get_count(r, &v, s->layers)) return GS_ERR_PROOF_FORMAT;
    t->num_layers = v;
    GS_TRY(get_digests(r, &t->fri_roots, s->layers));
    if (!get_count(r, &v, s->final_len)) return GS_ERR_PROOF_FORMAT;
    t->final_len = v;
    GS_TRY(get_fp3s(r, &t->final_poly, s->final_len));
    if (!get_u64(r, &t->pow_nonce) || !get_count(r, &v, s->queries)) return GS_ERR_PROOF_FORMAT;
    t->num_queries = v;
    GS_TRY(get_fps(r, &t->trace_rows, c.trace_rows));
    GS_TRY(get_digests(r, &t->trace_paths, c.trace_paths));
    GS_TRY(get_fps(r, &t->chunk_rows, c.chunk_rows));
    GS_TRY(get_digests(r, &t->chunk_paths, c.chunk_paths));
    GS_TRY(get_fps(r, &t->fri_rows, c.fri_rows));
    GS_TRY(get_digests(r, &t->fri_paths, c.fri_paths));
    return GS_OK;
}

static gs_status parse_table(gs_proof *p, rd *r) {
    gs_shape s;
    GS_TRY(parse_subproof(p, r, &s));
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}

/* Version 2's LogUp part, after the sub-proof that gave *s. With A = 0 the
 * aux arrays stay NULL and aux_root, bus_sum zero. */
static gs_status parse_logup(gs_table_proof *t, rd *r, gs_shape *s) {
    if (!get_u32(r, &t->aux_cols) || t->aux_cols > MAX_AUX) return GS_ERR_PROOF_FORMAT;
    s->aux = t->aux_cols;
    if (!s->aux) return GS_OK;
    counts c = counts_of(s);
    if (!get_bytes(r, t->aux_root.b, GS_DIGEST_BYTES) || !read_fps(r, t->bus_sum.c, 3))
        return GS_ERR_PROOF_FORMAT;
    GS_TRY(get_fp3s(r, &t->ood_aux_cur, s->aux));
    GS_TRY(get_fp3s(r, &t->ood_aux_next, s->aux));
    GS_TRY(get_fps(r, &t->aux_rows, c.aux_rows));
    return get_digests(r, &t->aux_paths, c.aux_paths);
}

/* Magic and version; r moves past them. */
static int get_preamble(rd *r, uint32_t *version) {
    uint8_t magic[MAGIC_BYTES];
    return get_bytes(r, magic, MAGIC_BYTES) && memcmp(magic, GS_PROOF_MAGIC, MAGIC_BYTES) == 0 &&
           get_u32(r, version);
}

int gs_proof_file_kind(const uint8_t *buf, size_t len) {
    if (!buf) return 0;
    rd r = {buf, len};
    uint32_t version;
    if (!get_preamble(&r, &version)) return 0;
    return version == GS_PROOF_VERSION ? 1 : version == GS_PROOF_VERSION_MULTI ? 2 : 0;
}

gs_status gs_proof_parse(gs_proof **out, const uint8_t *buf, size_t len) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return GS_ERR_INVALID_ARG;
    rd r = {buf, len}, head, table;
    uint32_t version;
    if (!get_preamble(&r, &version) || version != GS_PROOF_VERSION ||
        !get_section(&r, TAG_HEAD, &head))
        return GS_ERR_PROOF_FORMAT;
    gs_proof *p = calloc(1, sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    gs_status st = parse_head(p, &head);
    if (st == GS_OK && !get_section(&r, TAG_TABL, &table)) st = GS_ERR_PROOF_FORMAT;
    if (st == GS_OK) st = parse_table(p, &table);
    if (st == GS_OK && r.left != 0) st = GS_ERR_PROOF_FORMAT; /* trailing bytes */
    if (st != GS_OK) {
        gs_proof_free(p);
        return st;
    }
    *out = p;
    return GS_OK;
}

/* One MTBL body into entry e (whose params are set). */
static gs_status parse_multi_table(gs_proof *e, rd *r) {
    gs_shape s;
    GS_TRY(parse_statement(e, r));
    GS_TRY(parse_subproof(e, r, &s));
    GS_TRY(parse_logup(&e->table, r, &s));
    return r->left == 0 ? GS_OK : GS_ERR_PROOF_FORMAT;
}

gs_status gs_multi_proof_parse(gs_multi_proof **out, const uint8_t *buf, size_t len) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return GS_ERR_INVALID_ARG;
    rd r = {buf, len}, head, table;
    uint32_t version, n;
    gs_params par;
    gs_shape s;
    if (!get_preamble(&r, &version) || version != GS_PROOF_VERSION_MULTI ||
        !get_section(&r, TAG_MHDR, &head) || !get_params(&head, &par) || !get_u32(&head, &n) ||
        head.left != 0 || !shape_for(&s, &par, 1, 1, 1) || n < 1 || n > GS_PROOF_MAX_TABLES ||
        n > r.left / MIN_TABLE_SECTION /* before the entries are allocated */)
        return GS_ERR_PROOF_FORMAT;
    gs_multi_proof *p = calloc(1, sizeof *p);
    gs_proof *tables = p ? calloc(n, sizeof *tables) : NULL;
    if (!tables) {
        free(p);
        return GS_ERR_NOMEM;
    }
    p->params = par;
    p->tables = tables;
    p->num_tables = n; /* entries not reached yet stay zeroed: gs_multi_proof_free is safe */
    gs_status st = GS_OK;
    for (uint32_t i = 0; st == GS_OK && i < n; i++) {
        tables[i].params = par;
        st = get_section(&r, TAG_MTBL, &table) ? parse_multi_table(&tables[i], &table)
                                               : GS_ERR_PROOF_FORMAT;
    }
    if (st == GS_OK && r.left != 0) st = GS_ERR_PROOF_FORMAT; /* trailing bytes */
    if (st != GS_OK) {
        gs_multi_proof_free(p);
        return st;
    }
    *out = p;
    return GS_OK;
}
