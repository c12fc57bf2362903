/* Security levels (docs/protocol.md, "Security"): the conjectured level the
 * parameters are chosen by, and the provable level of a proof's shape by the
 * list-decoding analysis of FRI and DEEP-ALI. Every figure is in bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proof/security.h"
#include "proof/shape.h"

gs_params gs_params_default(unsigned security_bits) {
    /* blowup 4, final degree < 256, fold by 8, Keccak-256, coset leaves */
    gs_params p = {.log_blowup = 2, .log_final = 8, .grinding_bits = 20, .num_queries = 0, .log_arity = 3,
                   .coset_leaves = 1};
    if (security_bits > GS_MAX_SECURITY_BITS) security_bits = GS_MAX_SECURITY_BITS;
    unsigned need = security_bits > p.grinding_bits ? security_bits - p.grinding_bits : 1;
    p.num_queries = (need + p.log_blowup - 1) / p.log_blowup;
    return p;
}

gs_status gs_params_for_security(gs_params *out, unsigned security_bits) {
    if (!out || security_bits == 0 || security_bits > GS_MAX_SECURITY_BITS) return GS_ERR_INVALID_ARG;
    *out = gs_params_default(security_bits);
    return GS_OK;
}

unsigned gs_params_security(const gs_params *p) {
    uint64_t bits = (uint64_t)p->num_queries * p->log_blowup + p->grinding_bits;
    if (bits > GS_FIELD_SECURITY_BITS) bits = GS_FIELD_SECURITY_BITS;
    if (bits > GS_HASH_COLLISION_BITS) bits = GS_HASH_COLLISION_BITS;
    return (unsigned)bits;
}

gs_status gs_params_set_queries(gs_params *p, unsigned security_bits) {
    if (!p) return GS_ERR_INVALID_ARG;
    gs_params q = *p;
    for (q.num_queries = 1; q.num_queries <= 1024; q.num_queries++) {
        if (gs_params_security(&q) >= security_bits) {
            p->num_queries = q.num_queries;
            return GS_OK;
        }
    }
    return GS_ERR_PROOF_PARAMS;
}

gs_status gs_params_check(const gs_params *p, unsigned min_bits) {
    if (min_bits > GS_MAX_SECURITY_BITS) return GS_ERR_INVALID_ARG;
    gs_shape s;
    if (!p || gs_shape_make(&s, p, 1, 1, 1) != GS_OK) return GS_ERR_PROOF_PARAMS;
    return gs_params_security(p) < min_bits ? GS_ERR_PROOF_PARAMS : GS_OK;
}

double gs_security_log2_add(double a, double b) {
    if (a < b) {
        double t = a;
        a = b, b = t;
    }
    if (b == -INFINITY) return a;
    return a + log2(1.0 + exp2(b - a));
}

/* The terms of the error for one proximity parameter m (docs/protocol.md,
 * "Security"), each as log2; rho = 1/blowup, |F| = p^3. */
typedef struct {
    unsigned m;
    double mh, field, log_rho, log_sqrt_rho;
    double log_alpha, log_list; /* alpha = (1 + 1/2m) sqrt(rho), l = (m + 1/2) / sqrt(rho) */
} prox;

static prox prox_make(const gs_params *p, unsigned m) {
    prox x = {.m = m, .mh = m + 0.5, .field = 3.0 * log2((double)GS_FP_P), .log_rho = -(double)p->log_blowup};
    x.log_sqrt_rho = x.log_rho / 2;
    x.log_alpha = log2(1.0 + 1.0 / (2.0 * m)) + x.log_sqrt_rho;
    x.log_list = log2(x.mh) - x.log_sqrt_rho;
    return x;
}

/* Correlated agreement for a line on a domain of 2^log_N points, list-decoding
 * regime (BCI+20 Thm 1.5): (m + 1/2)^7 / (3 rho^(3/2)) * N^2 / |F|. */
static double ca_term(const prox *x, double log_N) {
    return 7 * log2(x->mh) - log2(3.0) - 1.5 * x->log_rho + 2 * log_N - x->field;
}

/* One FRI layer folding 2^a words by powers of gamma (BCI+20 Thm 8.3): the
 * curve term (2^a - 1) times the line term, plus
 * (2m + 1)(N + 1) * 2^a / (sqrt(rho) |F|). */
static double fold_term(const prox *x, double log_N, unsigned a) {
    double e = log2(exp2(a) - 1) + ca_term(x, log_N);
    return gs_security_log2_add(e, log2(2.0 * x->m + 1) + log2(exp2(log_N) + 1) + a - x->log_sqrt_rho - x->field);
}

/* A table's chain up to its DEEP word (on its LDE domain of 2^log_N points):
 * the DEEP batching of num_polys words, the constraint combination, the
 * out-of-domain point and the LogUp challenges. */
static double chain_term(const prox *x, unsigned log_n, double log_N, uint32_t num_polys) {
    /* DEEP batching by powers of beta: a curve of degree num_polys - 1 (BCI+20 Thm 1.6). */
    double e = num_polys > 1 ? log2((double)num_polys - 1) + ca_term(x, log_N) : -INFINITY;
    /* DEEP-ALI (ethSTARK, Haboeck 2022/1216 sec. 5): over the list, the
     * constraint combination (below 2^GS_SEC_LOG2_MAX_CONSTRAINTS terms) and the
     * out-of-domain point (composition degree below GS_SEC_MAX_DEGREE * n). */
    e = gs_security_log2_add(e, x->log_list + GS_SEC_LOG2_MAX_CONSTRAINTS - x->field);
    e = gs_security_log2_add(e, x->log_list + log2((double)GS_SEC_MAX_DEGREE) + log_n - x->field);
    /* LogUp: a wrong multiset passes at a random point with probability at
     * most (terms per row * rows) / |F| for each of z and alpha. */
    return gs_security_log2_add(e, 1 + GS_SEC_LOG2_MAX_BUS_TERMS + log_n - x->field);
}

/* Query phase: each query passes a word alpha-far from the code with
 * probability at most alpha; grinding divides by 2^g. */
static double query_term(const prox *x, uint32_t queries, unsigned grinding_bits) {
    return queries * x->log_alpha - (double)grinding_bits;
}

double gs_security_table_log2_error(const gs_params *p, unsigned log_n, uint32_t num_polys) {
    gs_shape s;
    if (!p || num_polys < 1 || gs_shape_make(&s, p, log_n, 1, 1) != GS_OK) return 0.0;
    const double log_N = s.log_size; /* the LDE domain, where FRI's first word lives */
    double best = 0.0;
    for (unsigned m = 3; m <= 4096; m++) {
        prox x = prox_make(p, m);
        double e = chain_term(&x, log_n, log_N, num_polys);
        for (uint32_t l = 0; l < s.layers; l++) e = gs_security_log2_add(e, fold_term(&x, log_N, gs_fri_folds(&s, l)));
        e = gs_security_log2_add(e, query_term(&x, s.queries, p->grinding_bits));
        if (m == 3 || -e > best) best = -e;
    }
    return -best;
}

double gs_security_shared_log2_error(const gs_params *p, const uint32_t *log_n, const uint32_t *num_polys,
                                     uint32_t n) {
    if (!p || !log_n || !num_polys || n == 0) return 0.0;
    for (uint32_t t = 0; t < n; t++)
        if (num_polys[t] < 1) return 0.0;
    gs_fri_plan f;
    if (gs_fri_plan_make(&f, p, log_n, n) != GS_OK) return 0.0;
    const double log_N = f.log_size; /* the largest LDE: every FRI term is taken on it */
    double best = 0.0;
    for (unsigned m = 3; m <= 4096; m++) {
        prox x = prox_make(p, m);
        double e = -INFINITY;
        for (uint32_t t = 0; t < n; t++) e = gs_security_log2_add(e, chain_term(&x, log_n[t], log_n[t] + p->log_blowup, num_polys[t]));
        /* every table after the first joins by a fresh lambda: a line each */
        if (n > 1) e = gs_security_log2_add(e, log2((double)n - 1) + ca_term(&x, log_N));
        for (uint32_t l = 0; l < f.layers; l++) e = gs_security_log2_add(e, fold_term(&x, log_N, f.folds[l]));
        e = gs_security_log2_add(e, query_term(&x, f.queries, p->grinding_bits));
        if (m == 3 || -e > best) best = -e;
    }
    return -best;
}

static unsigned bits_of(double log2_error) {
    double bits = floor(-log2_error);
    if (!(bits > 0)) return 0;
    return bits > GS_HASH_COLLISION_BITS ? GS_HASH_COLLISION_BITS : (unsigned)bits;
}

unsigned gs_params_security_provable(const gs_params *p, unsigned log_n, uint32_t num_polys) {
    return bits_of(gs_security_table_log2_error(p, log_n, num_polys));
}

static uint32_t table_polys(const gs_table_proof *t) {
    return 2 * t->num_cols + t->num_chunks + 2 * t->aux_cols;
}

unsigned gs_proof_security_provable(const gs_proof *p) {
    if (!p) return 0;
    double e = gs_security_table_log2_error(&p->params, p->log_n, table_polys(&p->table));
    return e < 0 ? bits_of(e) : 0;
}

unsigned gs_multi_proof_security_provable(const gs_multi_proof *mp) {
    if (!mp || !mp->tables || mp->num_tables == 0) return 0;
    if (mp->params.shared_fri) { /* one FRI: the tables' chains and the shared FRI's terms */
        uint32_t *log_n = malloc(2 * (size_t)mp->num_tables * sizeof *log_n), *polys = log_n + mp->num_tables;
        if (!log_n) return 0;
        for (uint32_t i = 0; i < mp->num_tables; i++)
            log_n[i] = mp->tables[i].log_n, polys[i] = table_polys(&mp->tables[i].table);
        double e = gs_security_shared_log2_error(&mp->params, log_n, polys, mp->num_tables);
        free(log_n);
        return e < 0 ? bits_of(e) : 0;
    }
    double e = -INFINITY; /* the union bound over the tables' chains */
    for (uint32_t i = 0; i < mp->num_tables; i++) {
        const gs_proof *t = &mp->tables[i];
        double ei = gs_security_table_log2_error(&mp->params, t->log_n, table_polys(&t->table));
        if (!(ei < 0)) return 0;
        e = gs_security_log2_add(e, ei);
    }
    return bits_of(e);
}

/* ---- statement digests ---- */

static void put_u32(gs_hasher *h, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
    gs_hasher_update(h, b, 4);
}

static void put_entry(gs_hasher *h, const gs_proof *e) {
    gs_hasher_update(h, e->air_fingerprint.b, sizeof e->air_fingerprint.b);
    put_u32(h, e->log_n);
    put_u32(h, e->num_public);
    for (uint32_t i = 0; i < e->num_public; i++) {
        uint8_t b[8];
        for (int j = 0; j < 8; j++) b[j] = (uint8_t)(e->pub[i] >> (8 * j));
        gs_hasher_update(h, b, 8);
    }
}

/* A hash other than Keccak-256 is bound by a longer tag and its id: "/hash"
 * follows "gstark-statement-v1" where Keccak's digest has the kind (byte 0x01
 * or 0x02), so the two inputs never coincide, and Keccak digests are those
 * from before the choice of hash. A cap height above 0 follows the same way
 * ("/cap" and the height, after the hash's part if any), a shared FRI
 * ("/shared-fri" and 1, after those) and coset leaves ("/coset-leaves" and
 * 1, after those). The digest itself
 * is always Keccak-256. */
static void put_head(gs_hasher *h, uint32_t kind, const gs_params *q, uint32_t tables) {
    static const char tag[] = "gstark-statement-v1";
    static const char tag_hash[] = "/hash", tag_cap[] = "/cap", tag_shared[] = "/shared-fri",
                      tag_coset[] = "/coset-leaves";
    gs_hasher_init(h, GS_HASH_KECCAK256);
    gs_hasher_update(h, tag, sizeof tag - 1);
    if (q->hash != GS_HASH_KECCAK256) {
        gs_hasher_update(h, tag_hash, sizeof tag_hash - 1);
        put_u32(h, q->hash);
    }
    if (q->cap_height) { /* likewise: '/' where the kind or nothing else would be */
        gs_hasher_update(h, tag_cap, sizeof tag_cap - 1);
        put_u32(h, q->cap_height);
    }
    if (q->shared_fri) { /* the same again: one FRI for all tables (multi-table only) */
        gs_hasher_update(h, tag_shared, sizeof tag_shared - 1);
        put_u32(h, q->shared_fri);
    }
    if (q->coset_leaves) { /* and again: the trees' leaves hold folding cosets */
        gs_hasher_update(h, tag_coset, sizeof tag_coset - 1);
        put_u32(h, q->coset_leaves);
    }
    put_u32(h, kind);
    uint32_t params[5] = {q->log_blowup, q->log_final, q->grinding_bits, q->num_queries, q->log_arity};
    for (int i = 0; i < 5; i++) put_u32(h, params[i]);
    put_u32(h, tables);
}

gs_digest gs_proof_statement_digest(const gs_proof *p) {
    gs_digest d = {{0}};
    if (!p) return d;
    gs_hasher h;
    put_head(&h, GS_PROOF_VERSION, &p->params, 1);
    put_entry(&h, p);
    gs_hasher_final(&h, &d);
    return d;
}

gs_digest gs_multi_proof_statement_digest(const gs_multi_proof *mp) {
    gs_digest d = {{0}};
    if (!mp || (mp->num_tables && !mp->tables)) return d;
    gs_hasher h;
    put_head(&h, GS_PROOF_VERSION_MULTI, &mp->params, mp->num_tables);
    for (uint32_t i = 0; i < mp->num_tables; i++) put_entry(&h, &mp->tables[i]);
    gs_hasher_final(&h, &d);
    return d;
}
