/* The multi-table proof file, version 2 (docs/proof-format.md): byte-identical
 * round trips of the synth presets (and the parsed proofs verify); every
 * truncation, random byte flips, swapped, dropped and altered table sections
 * and crafted malformed fields rejected (by the parser, or by the verifier
 * where the bytes are well formed); inconsistent structs refused by the
 * serializer; gs_proof_file_kind; and a small golden file.
 *
 *   test_proof_format_multi --regen             rewrite tests/golden/multi_small.proof
 *   test_proof_format_multi --write-seeds DIR   write small valid v2 proofs (fuzz seeds) */
#include "fuzz/multi_stmt.h"
#include "gstark/gstark.h"
#include "test_io.h"
#include "test_util.h"

#ifndef GS_SOURCE_DIR
#error "GS_SOURCE_DIR must name the source tree (set by CMakeLists.txt)"
#endif
#define GOLDEN_PATH GS_SOURCE_DIR "/tests/golden/multi_small.proof"
#define GOLDEN_V1_PATH GS_SOURCE_DIR "/tests/golden/fib_small.proof"
#define GOLDEN_SEED 7u

static gs_air *g_airs[MULTI_STMT_TABLES]; /* the small statement's AIRs */
static gs_multi_proof g_sentinel;         /* parse must reset *out, even from a non-NULL value */
static gs_proof g_single_sentinel;
static uint8_t g_byte_sentinel;

/* ---- proving ---- */

static gs_multi_proof *prove_workload(const gs_multi_workload *w, gs_params par,
                                      const char *const *descs) {
    gs_table_input *in = calloc(w->num_tables, sizeof *in);
    if (!in) return NULL;
    for (uint32_t i = 0; i < w->num_tables; i++)
        in[i] = (gs_table_input){.air = w->tables[i].air, .trace = w->tables[i].trace,
                                 .log_n = w->tables[i].log_n, .pub = w->tables[i].pub,
                                 .air_desc = descs ? descs[i] : NULL};
    gs_multi_proof *mp = NULL;
    gs_status s = gs_prove_multi(&mp, in, w->num_tables, &par, NULL);
    if (s != GS_OK) fprintf(stderr, "prove %s: %s\n", w->name, gs_status_str(s));
    CHECK(s == GS_OK);
    free(in);
    return mp;
}

/* The small statement proved with seed `seed`. */
static gs_multi_proof *small_proof(uint64_t seed) {
    static const char *const descs[MULTI_STMT_TABLES] = {"custom prov", "custom user", NULL};
    gs_multi_workload w = {0};
    gs_status s = multi_stmt_workload(&w, seed);
    CHECK(s == GS_OK);
    gs_multi_proof *mp = s == GS_OK ? prove_workload(&w, MULTI_STMT_PARAMS, descs) : NULL;
    gs_multi_workload_free(&w);
    return mp;
}

static uint8_t *to_bytes(const gs_multi_proof *p, size_t *len) {
    uint8_t *b = NULL;
    gs_status s = gs_multi_proof_serialize_as(&b, len, p, GS_PROOF_VERSION_MULTI);
    if (s != GS_OK) fprintf(stderr, "serialize: %s\n", gs_status_str(s));
    CHECK(s == GS_OK);
    return b;
}

/* ---- the layout, computed here from docs/proof-format.md ---- */

#define MAX_T 64u
typedef struct {
    size_t C, K, L, F, Q, logN, R, A, d, P;
    size_t sec, body, fingerprint, desc_len, log_n, num_public, pub, num_cols, ood_cur, num_layers,
        final_len, nonce, num_queries, trace_rows, aux_cols, aux_root, bus_sum, ood_aux_cur,
        ood_aux_next, aux_rows, aux_paths, end;
} tlayout;

typedef struct {
    size_t mhdr, params, num_tables, n, end;
    tlayout t[MAX_T];
} layout;

static layout layout_of(const gs_multi_proof *p) {
    layout o;
    memset(&o, 0, sizeof o);
    o.mhdr = 12;
    o.params = o.mhdr + 12;
    o.num_tables = o.params + 20;
    o.n = p->num_tables;
    size_t at = o.num_tables + 4;
    for (size_t i = 0; i < o.n && i < MAX_T; i++) {
        const gs_proof *e = &p->tables[i];
        const gs_table_proof *t = &e->table;
        tlayout *x = &o.t[i];
        x->C = t->num_cols, x->K = t->num_chunks, x->L = t->num_layers, x->F = t->final_len;
        x->Q = t->num_queries, x->A = t->aux_cols, x->logN = e->log_n + p->params.log_blowup;
        x->R = 0;
        for (size_t l = 0; l < x->L; l++) x->R += x->logN - 1 - l;
        x->d = strlen(e->air_desc), x->P = e->num_public;
        x->sec = at;
        x->body = at + 12;
        x->fingerprint = x->body;
        x->desc_len = x->fingerprint + 32;
        x->log_n = x->desc_len + 4 + x->d;
        x->num_public = x->log_n + 4;
        x->pub = x->num_public + 4;
        x->num_cols = x->pub + 8 * x->P;
        x->ood_cur = x->num_cols + 72;
        x->num_layers = x->ood_cur + 24 * (2 * x->C + x->K);
        x->final_len = x->num_layers + 4 + 32 * x->L;
        x->nonce = x->final_len + 4 + 24 * x->F;
        x->num_queries = x->nonce + 8;
        x->trace_rows = x->num_queries + 4;
        /* T = 92 + 24 (2C + K) + 32 L + 24 F + Q (8 C + 64 log N + 24 K + 48 L + 32 R) */
        size_t T = 92 + 24 * (2 * x->C + x->K) + 32 * x->L + 24 * x->F +
                   x->Q * (8 * x->C + 64 * x->logN + 24 * x->K + 48 * x->L + 32 * x->R);
        x->aux_cols = x->num_cols + T;
        x->aux_root = x->aux_cols + 4;
        x->bus_sum = x->aux_root + 32;
        x->ood_aux_cur = x->bus_sum + 24;
        x->ood_aux_next = x->ood_aux_cur + 24 * x->A;
        x->aux_rows = x->ood_aux_next + 24 * x->A;
        x->aux_paths = x->aux_rows + 24 * x->Q * x->A;
        x->end = x->A ? x->aux_paths + 32 * x->Q * x->logN : x->aux_cols + 4;
        at = x->end;
    }
    o.end = at;
    return o;
}

/* The bytes agree with the layout: tags, section lengths, counts, total. */
static int layout_matches(const layout *o, const uint8_t *b, size_t len, const gs_multi_proof *p) {
    int ok = len == o->end && memcmp(b, "GSTARKPF", 8) == 0 && rd32(b + 8) == 2 &&
             memcmp(b + o->mhdr, "MHDR", 4) == 0 && rd64(b + o->mhdr + 4) == 24 &&
             rd32(b + o->params) == p->params.log_blowup &&
             rd32(b + o->params + 12) == p->params.num_queries && rd32(b + o->num_tables) == o->n;
    for (size_t i = 0; ok && i < o->n; i++) {
        const tlayout *x = &o->t[i];
        const gs_table_proof *t = &p->tables[i].table;
        ok = memcmp(b + x->sec, "MTBL", 4) == 0 && rd64(b + x->sec + 4) == x->end - x->body &&
             memcmp(b + x->fingerprint, p->tables[i].air_fingerprint.b, 32) == 0 &&
             rd32(b + x->desc_len) == x->d && rd32(b + x->log_n) == p->tables[i].log_n &&
             rd32(b + x->num_public) == x->P && rd32(b + x->num_cols) == x->C &&
             rd32(b + x->num_cols + 4) == x->K && rd32(b + x->num_layers) == x->L &&
             rd32(b + x->final_len) == x->F && rd64(b + x->nonce) == t->pow_nonce &&
             rd32(b + x->num_queries) == x->Q && rd32(b + x->aux_cols) == x->A;
        if (ok && x->A)
            ok = memcmp(b + x->aux_root, t->aux_root.b, 32) == 0 &&
                 rd64(b + x->bus_sum) == t->bus_sum.c[0] && rd64(b + x->bus_sum + 16) == t->bus_sum.c[2] &&
                 rd64(b + x->ood_aux_next) == t->ood_aux_next[0].c[0] &&
                 rd64(b + x->aux_rows) == t->aux_rows[0] &&
                 memcmp(b + x->aux_paths, t->aux_paths, 32) == 0;
    }
    return ok;
}

/* Parse, then verify against `airs` if it parsed. Returns the first failure
 * (GS_OK if accepted); *parsed tells which stage decided. */
static gs_status judge(const uint8_t *b, size_t len, gs_air *const *airs, uint32_t n, int *parsed) {
    gs_multi_proof *p = &g_sentinel;
    gs_status s = gs_multi_proof_parse(&p, b, len);
    *parsed = s == GS_OK;
    if (s != GS_OK) {
        CHECK(p == NULL);
        CHECK(s == GS_ERR_PROOF_FORMAT);
        return s;
    }
    s = gs_verify_multi((const gs_air *const *)airs, n, p, 0);
    gs_multi_proof_free(p);
    return s;
}

/* The aux parts of two proofs are equal (the parser fills the right fields). */
static int same_logup(const gs_multi_proof *a, const gs_multi_proof *b) {
    if (a->num_tables != b->num_tables) return 0;
    for (uint32_t i = 0; i < a->num_tables; i++) {
        const gs_table_proof *s = &a->tables[i].table, *t = &b->tables[i].table;
        size_t A = s->aux_cols, Q = s->num_queries, logN = a->tables[i].log_n + a->params.log_blowup;
        if (memcmp(&a->tables[i].params, &b->params, sizeof b->params) != 0 ||
            s->aux_cols != t->aux_cols || memcmp(&s->aux_root, &t->aux_root, 32) != 0 ||
            !gs_fp3_eq(s->bus_sum, t->bus_sum))
            return 0;
        if (A && (memcmp(s->ood_aux_cur, t->ood_aux_cur, A * sizeof(gs_fp3)) != 0 ||
                  memcmp(s->ood_aux_next, t->ood_aux_next, A * sizeof(gs_fp3)) != 0 ||
                  memcmp(s->aux_rows, t->aux_rows, Q * 3 * A * sizeof(gs_fp)) != 0 ||
                  memcmp(s->aux_paths, t->aux_paths, Q * logN * sizeof(gs_digest)) != 0))
            return 0;
        if (!A && (t->ood_aux_cur || t->ood_aux_next || t->aux_rows || t->aux_paths)) return 0;
    }
    return 1;
}

/* ---- round trips of the presets ---- */

static void test_round_trip(void) {
    static const struct {
        const char *name;
        unsigned shrink;
    } presets[] = {{"uniform", 12}, {"skew", 14}, {"vm", 12}};
    for (size_t c = 0; c < sizeof presets / sizeof presets[0]; c++) {
        gs_multi_workload w = {0};
        CHECK(gs_synth_preset(&w, presets[c].name, presets[c].shrink, 5) == GS_OK);
        const gs_air **airs = calloc(w.num_tables ? w.num_tables : 1, sizeof *airs);
        for (uint32_t i = 0; i < w.num_tables; i++) airs[i] = w.tables[i].air;
        for (uint32_t g = 0; g <= 4; g++) {
            gs_params par = {2, 3, g, 40, 1, 0, 0, 0, 0}; /* blowup 4, 80 bits + grinding */
            gs_multi_proof *p = prove_workload(&w, par, NULL);
            if (!p) continue;
            size_t len1 = 0, len2 = 0;
            uint8_t *b1 = to_bytes(p, &len1);
            layout o = layout_of(p);
            CHECK(b1 && o.n <= MAX_T && layout_matches(&o, b1, len1, p));
            CHECK(b1 && gs_proof_file_kind(b1, len1) == 2);
            gs_multi_proof *q = NULL;
            CHECK(b1 && gs_multi_proof_parse(&q, b1, len1) == GS_OK);
            uint8_t *b2 = q ? to_bytes(q, &len2) : NULL;
            CHECK(b2 && len1 == len2 && memcmp(b1, b2, len1) == 0);
            if (q) {
                gs_status v = gs_verify_multi(airs, w.num_tables, q, 0);
                if (v != GS_OK)
                    fprintf(stderr, "round trip %s g%u: parsed proof: %s\n", presets[c].name, g,
                            gs_status_str(v));
                CHECK(v == GS_OK);
                CHECK(memcmp(&q->params, &par, sizeof par) == 0);
                CHECK(same_logup(p, q));
            }
            /* A version-2 file is not a version-1 proof. */
            gs_proof *single = &g_single_sentinel;
            CHECK(b1 && gs_proof_parse(&single, b1, len1) == GS_ERR_PROOF_FORMAT && single == NULL);
            if (g == 0 || g == 4)
                printf("round trip: %s shrink %u, grinding %u: %u tables, %zu bytes\n",
                       presets[c].name, presets[c].shrink, g, p->num_tables, len1);
            free(b1), free(b2);
            gs_multi_proof_free(q), gs_multi_proof_free(p);
        }
        free(airs);
        gs_multi_workload_free(&w);
    }
}

/* ---- damaged inputs (the small statement) ---- */

static void test_truncations(void) {
    gs_multi_proof *p = small_proof(1);
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_multi_proof_free(p);
        return;
    }
    long by_parse = 0, by_verify = 0, accepted = 0;
    for (size_t n = 0; n < len; n++) {
        /* A copy of exactly n bytes, so that ASan sees any read past it. */
        uint8_t *c = malloc(n ? n : 1);
        memcpy(c, b, n);
        int parsed;
        gs_status s = judge(n ? c : NULL, n, g_airs, MULTI_STMT_TABLES, &parsed);
        if (s == GS_OK) accepted++;
        else if (parsed) by_verify++;
        else by_parse++;
        free(c);
    }
    printf("truncations: %zu prefixes: %ld rejected by the parser, %ld by the verifier, %ld accepted\n",
           len, by_parse, by_verify, accepted);
    CHECK(accepted == 0);
    CHECK(by_verify == 0); /* every section is length-prefixed */
    int parsed;
    CHECK(judge(b, len, g_airs, MULTI_STMT_TABLES, &parsed) == GS_OK);
    free(b);
    gs_multi_proof_free(p);
}

/* The field a byte offset falls in, for messages. */
static const char *field_at(const layout *o, size_t off, size_t *table) {
    *table = 0;
    if (off < o->mhdr) return off < 8 ? "magic" : "version";
    if (off < o->params) return "MHDR section header";
    if (off < o->num_tables) return "params";
    if (off < o->num_tables + 4) return "num_tables";
    for (size_t i = 0; i < o->n; i++) {
        const tlayout *x = &o->t[i];
        if (off >= x->end) continue;
        *table = i;
        const struct { size_t at; const char *name; } f[] = {
            {x->sec, "MTBL section header"}, {x->fingerprint, "air_fingerprint"},
            {x->desc_len, "air_desc"}, {x->log_n, "log_n"}, {x->num_public, "num_public"},
            {x->pub, "pub"}, {x->num_cols, "counts and roots"}, {x->ood_cur, "ood values"},
            {x->num_layers, "fri roots"}, {x->final_len, "final poly"}, {x->nonce, "pow_nonce"},
            {x->num_queries, "num_queries"}, {x->trace_rows, "openings"}, {x->aux_cols, "aux_cols"},
            {x->aux_root, "aux_root"}, {x->bus_sum, "bus_sum"}, {x->ood_aux_cur, "ood_aux"},
            {x->aux_rows, "aux_rows"}, {x->aux_paths, "aux_paths"}};
        const char *name = "?";
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
            if (off >= f[k].at) name = f[k].name;
        return name;
    }
    return "past the end";
}

static void test_flips(void) {
    gs_multi_proof *p = small_proof(2);
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_multi_proof_free(p);
        return;
    }
    layout o = layout_of(p);
    long by_parse = 0, by_verify = 0, accepted = 0;
    long verify_codes[64] = {0};
    for (int i = 0; i < 500; i++) {
        size_t pos = gs_test_below(len);
        uint8_t x = (uint8_t)(1 + gs_test_below(255));
        b[pos] ^= x;
        int parsed;
        gs_status s = judge(b, len, g_airs, MULTI_STMT_TABLES, &parsed);
        if (s == GS_OK) {
            size_t t;
            const char *f = field_at(&o, pos, &t);
            accepted++;
            fprintf(stderr, "flip accepted: byte %zu (table %zu, %s) ^ 0x%02x\n", pos, t, f, x);
        } else if (parsed) {
            by_verify++;
            if ((unsigned)s < 64) verify_codes[s]++;
        } else {
            by_parse++;
        }
        b[pos] ^= x;
    }
    printf("flips: 500 single-byte flips of a %zu-byte proof: %ld rejected by the parser, "
           "%ld by the verifier, %ld accepted\n",
           len, by_parse, by_verify, accepted);
    for (int c = 0; c < 64; c++)
        if (verify_codes[c]) printf("  verifier: %ld x %s\n", verify_codes[c], gs_status_str((gs_status)c));
    CHECK(accepted == 0);
    free(b);
    gs_multi_proof_free(p);
}

/* The file with table sections `order[0..m)` of b, in that order, and the
 * count set to m. */
static uint8_t *reassemble(const uint8_t *b, const layout *o, const uint32_t *order, uint32_t m,
                           size_t *out_len) {
    size_t first = o->t[0].sec, n = first;
    for (uint32_t k = 0; k < m; k++) n += o->t[order[k]].end - o->t[order[k]].sec;
    uint8_t *c = malloc(n);
    memcpy(c, b, first);
    wr32(c + o->num_tables, m);
    size_t at = first;
    for (uint32_t k = 0; k < m; k++) {
        const tlayout *x = &o->t[order[k]];
        memcpy(c + at, b + x->sec, x->end - x->sec);
        at += x->end - x->sec;
    }
    *out_len = n;
    return c;
}

static void test_tables(void) {
    gs_multi_proof *p = small_proof(3);
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_multi_proof_free(p);
        return;
    }
    layout o = layout_of(p);
    CHECK(o.n == 3 && o.t[0].A > 0 && o.t[1].A > 0 && o.t[2].A == 0);
    int parsed;
    gs_status s;
    /* Two table sections swapped: well formed, so the verifier decides; with
     * the AIRs in the original order and in the swapped order. */
    for (uint32_t x = 0; x < 3; x++)
        for (uint32_t y = x + 1; y < 3; y++) {
            uint32_t order[3] = {0, 1, 2};
            order[x] = y, order[y] = x;
            size_t n;
            uint8_t *c = reassemble(b, &o, order, 3, &n);
            gs_air *swapped[3] = {g_airs[order[0]], g_airs[order[1]], g_airs[order[2]]};
            gs_status s1 = judge(c, n, g_airs, 3, &parsed);
            CHECK(s1 != GS_OK && parsed);
            gs_status s2 = judge(c, n, swapped, 3, &parsed);
            CHECK(s2 != GS_OK && parsed);
            printf("swap tables %u <-> %u: %s (AIRs in order), %s (AIRs swapped too)\n", x, y,
                   gs_status_str(s1), gs_status_str(s2));
            free(c);
        }
    /* One table section dropped and the count fixed up: verified against all
     * the AIRs and against the remaining ones. */
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t order[2], m = 0;
        for (uint32_t i = 0; i < 3; i++)
            if (i != k) order[m++] = i;
        size_t n;
        uint8_t *c = reassemble(b, &o, order, 2, &n);
        gs_air *rest[2] = {g_airs[order[0]], g_airs[order[1]]};
        gs_status s1 = judge(c, n, g_airs, 3, &parsed);
        CHECK(s1 == GS_ERR_PROOF_STATEMENT && parsed);
        gs_status s2 = judge(c, n, rest, 2, &parsed);
        CHECK(s2 != GS_OK && parsed);
        printf("drop table %u: %s (all AIRs), %s (the other two)\n", k, gs_status_str(s1),
               gs_status_str(s2));
        /* Without the count fixed up, the parser refuses it. */
        wr32(c + o.num_tables, 3);
        CHECK(judge(c, n, g_airs, 3, &parsed) == GS_ERR_PROOF_FORMAT);
        free(c);
    }
    /* A table section repeated in place of another. */
    {
        uint32_t order[3] = {0, 0, 2};
        size_t n;
        uint8_t *c = reassemble(b, &o, order, 3, &n);
        CHECK(judge(c, n, g_airs, 3, &parsed) != GS_OK && parsed);
        free(c);
    }
    /* A bus sum changed, alone and compensated in another table (the total
     * still cancels); an aux root changed. */
    {
        const tlayout *t0 = &o.t[0], *t1 = &o.t[1];
        uint64_t v0 = rd64(b + t0->bus_sum), v1 = rd64(b + t1->bus_sum + 8);
        wr64(b + t0->bus_sum, gs_fp_add(v0, 1));
        s = judge(b, len, g_airs, 3, &parsed);
        printf("bus sum of table 0 + 1: %s\n", gs_status_str(s));
        CHECK(s != GS_OK && parsed); /* the sum is in the transcript: the chain breaks first */
        wr64(b + t0->bus_sum + 8, gs_fp_add(rd64(b + t0->bus_sum + 8), 5));
        wr64(b + t1->bus_sum + 8, gs_fp_sub(v1, 5));
        wr64(b + t0->bus_sum, v0);
        s = judge(b, len, g_airs, 3, &parsed);
        printf("bus sums of tables 0 and 1 moved by +-5 (total unchanged): %s\n", gs_status_str(s));
        CHECK(s != GS_OK && parsed);
        wr64(b + t0->bus_sum + 8, gs_fp_sub(rd64(b + t0->bus_sum + 8), 5));
        wr64(b + t1->bus_sum + 8, v1);
        b[t1->aux_root + 7] ^= 1;
        s = judge(b, len, g_airs, 3, &parsed);
        printf("aux root of table 1 changed: %s\n", gs_status_str(s));
        CHECK(s != GS_OK && parsed);
        b[t1->aux_root + 7] ^= 1;
        /* ood_aux_cur and ood_aux_next exchanged. */
        size_t A = t0->A;
        uint8_t *tmp = malloc(24 * A);
        memcpy(tmp, b + t0->ood_aux_cur, 24 * A);
        memcpy(b + t0->ood_aux_cur, b + t0->ood_aux_next, 24 * A);
        memcpy(b + t0->ood_aux_next, tmp, 24 * A);
        s = judge(b, len, g_airs, 3, &parsed);
        printf("ood_aux_cur <-> ood_aux_next of table 0: %s\n", gs_status_str(s));
        CHECK(s != GS_OK && parsed);
        memcpy(b + t0->ood_aux_next, b + t0->ood_aux_cur, 24 * A);
        memcpy(b + t0->ood_aux_cur, tmp, 24 * A);
        free(tmp);
    }
    CHECK(judge(b, len, g_airs, 3, &parsed) == GS_OK); /* every change was undone */
    free(b);
    gs_multi_proof_free(p);
}

/* Crafted fields, each of which the parser alone must refuse. */
static void test_malformed(void) {
    gs_multi_proof *p = small_proof(4);
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_multi_proof_free(p);
        return;
    }
    layout o = layout_of(p);
    const tlayout *t0 = &o.t[0], *t2 = &o.t[2];
    uint8_t *c = malloc(len + 16);
    int n_cases = 0;
#define MALFORMED(what, edit, clen)                                                     \
    do {                                                                              \
        memcpy(c, b, len);                                                            \
        size_t n_ = (clen);                                                           \
        edit;                                                                         \
        gs_multi_proof *q_ = &g_sentinel;                                             \
        gs_status s_ = gs_multi_proof_parse(&q_, c, n_);                              \
        if (s_ != GS_ERR_PROOF_FORMAT) fprintf(stderr, "malformed %s: %s\n", what, gs_status_str(s_)); \
        CHECK(s_ == GS_ERR_PROOF_FORMAT && q_ == NULL);                               \
        if (s_ == GS_OK) gs_multi_proof_free(q_);                                     \
        n_cases++;                                                                    \
    } while (0)
    size_t sec0 = t0->end - t0->body, sec2 = t2->end - t2->body;
    MALFORMED("empty", (void)0, 0);
    MALFORMED("magic", c[1] = 's', len);
    MALFORMED("version 1", wr32(c + 8, 1), len);
    MALFORMED("version 3", wr32(c + 8, 3), len);
    MALFORMED("MHDR tag", c[o.mhdr] = 'H', len);
    MALFORMED("MHDR tag HEAD", memcpy(c + o.mhdr, "HEAD", 4), len);
    MALFORMED("MHDR length 25", wr64(c + o.mhdr + 4, 25), len);
    MALFORMED("MHDR length 23", wr64(c + o.mhdr + 4, 23), len);
    MALFORMED("MHDR length huge", wr64(c + o.mhdr + 4, UINT64_MAX), len);
    MALFORMED("log_blowup 0", wr32(c + o.params, 0), len);
    MALFORMED("log_blowup 7", wr32(c + o.params, 7), len);
    MALFORMED("log_final 0 (layers change)", wr32(c + o.params + 4, 0), len);
    MALFORMED("grinding 41", wr32(c + o.params + 8, 41), len);
    MALFORMED("num_queries 0", wr32(c + o.params + 12, 0), len);
    MALFORMED("num_queries 1025", wr32(c + o.params + 12, 1025), len);
    MALFORMED("num_queries 15 (fewer drawn)", wr32(c + o.params + 12, 15), len);
    MALFORMED("log_arity 2", wr32(c + o.params + 16, 2), len);
    MALFORMED("num_tables 0", wr32(c + o.num_tables, 0), len);
    MALFORMED("num_tables 2 (trailing section)", wr32(c + o.num_tables, 2), len);
    MALFORMED("num_tables 4", wr32(c + o.num_tables, 4), len);
    MALFORMED("num_tables 4096 (past the input)", wr32(c + o.num_tables, 4096), len);
    MALFORMED("num_tables 4097 (over the cap)", wr32(c + o.num_tables, 4097), len);
    MALFORMED("num_tables 2^32 - 1", wr32(c + o.num_tables, UINT32_MAX), len);
    MALFORMED("num_tables 3, only the header", (void)0, o.t[0].sec);
    MALFORMED("MTBL tag (table 1)", c[o.t[1].sec] = 'm', len);
    MALFORMED("MTBL tag TABL (table 0)", memcpy(c + t0->sec, "TABL", 4), len);
    MALFORMED("MTBL length + 1 (table 0)", wr64(c + t0->sec + 4, sec0 + 1), len);
    MALFORMED("MTBL length - 1 (table 0)", wr64(c + t0->sec + 4, sec0 - 1), len);
    MALFORMED("MTBL length huge (table 0)", wr64(c + t0->sec + 4, (uint64_t)1 << 62), len);
    MALFORMED("MTBL length + 1 (last table)", wr64(c + t2->sec + 4, sec2 + 1), len);
    MALFORMED("MTBL length - 1 (last table)", wr64(c + t2->sec + 4, sec2 - 1), len);
    MALFORMED("trailing byte", c[len] = 0, len + 1);
    MALFORMED("trailing MTBL section", (memcpy(c + len, c + t0->sec, 12), wr64(c + len + 4, 0)), len + 12);
    MALFORMED("air_desc length 128", wr32(c + t0->desc_len, 128), len);
    MALFORMED("air_desc NUL inside", c[t0->desc_len + 6] = 0, len);
    MALFORMED("log_n 0 (table 2)", wr32(c + t2->log_n, 0), len);
    MALFORMED("log_n 5 (table 2)", wr32(c + t2->log_n, 5), len);
    MALFORMED("log_n 2^32 - 1 (table 0)", wr32(c + t0->log_n, UINT32_MAX), len);
    MALFORMED("num_public 2^20 + 1", wr32(c + t0->num_public, (1u << 20) + 1), len);
    MALFORMED("num_public 2^20 (past the section)", wr32(c + t0->num_public, 1u << 20), len);
    MALFORMED("num_cols 0", wr32(c + t0->num_cols, 0), len);
    MALFORMED("num_cols + 1", wr32(c + t0->num_cols, (uint32_t)t0->C + 1), len);
    MALFORMED("num_chunks 65537", wr32(c + t0->num_cols + 4, 65537), len);
    MALFORMED("ood_cur c0 = p", wr64(c + t0->ood_cur, GS_FP_P), len);
    MALFORMED("num_layers + 1", wr32(c + t0->num_layers, (uint32_t)t0->L + 1), len);
    MALFORMED("final_len - 1", wr32(c + t0->final_len, (uint32_t)t0->F - 1), len);
    MALFORMED("num_queries - 1", wr32(c + t0->num_queries, (uint32_t)t0->Q - 1), len);
    MALFORMED("trace_rows[0] = p", wr64(c + t0->trace_rows, GS_FP_P), len);
    MALFORMED("aux_cols + 1", wr32(c + t0->aux_cols, (uint32_t)t0->A + 1), len);
    MALFORMED("aux_cols - 1", wr32(c + t0->aux_cols, (uint32_t)t0->A - 1), len);
    MALFORMED("aux_cols 0 (aux part left over)", wr32(c + t0->aux_cols, 0), len);
    MALFORMED("aux_cols 1 where 0 (table 2)", wr32(c + t2->aux_cols, 1), len);
    MALFORMED("aux_cols 65536 (past the section)", wr32(c + t0->aux_cols, 65536), len);
    MALFORMED("aux_cols 65537 (over the cap)", wr32(c + t0->aux_cols, 65537), len);
    MALFORMED("aux_cols 2^32 - 1", wr32(c + t0->aux_cols, UINT32_MAX), len);
    MALFORMED("bus_sum c0 = p", wr64(c + t0->bus_sum, GS_FP_P), len);
    MALFORMED("bus_sum c2 = 2^64 - 1", wr64(c + t0->bus_sum + 16, UINT64_MAX), len);
    MALFORMED("ood_aux_cur c1 = p", wr64(c + t0->ood_aux_cur + 8, GS_FP_P), len);
    MALFORMED("ood_aux_next[last] c2 = p", wr64(c + t0->aux_rows - 8, GS_FP_P), len);
    MALFORMED("aux_rows[0] = p", wr64(c + t0->aux_rows, GS_FP_P), len);
    MALFORMED("aux_rows[last] = 2^64 - 1", wr64(c + t0->aux_paths - 8, UINT64_MAX), len);
    MALFORMED("aux_paths one byte short",
              (memmove(c + t0->end - 1, b + t0->end, len - t0->end), wr64(c + t0->sec + 4, sec0 - 1)),
              len - 1);
    printf("malformed: %d crafted inputs rejected by the parser\n", n_cases);
    /* Caller errors. */
    gs_multi_proof *q = NULL;
    CHECK(gs_multi_proof_parse(&q, NULL, 5) == GS_ERR_INVALID_ARG && q == NULL);
    CHECK(gs_multi_proof_parse(NULL, b, len) == GS_ERR_INVALID_ARG);
    /* The unchanged copy parses and verifies; descriptions are kept, entries
     * carry the shared params. */
    CHECK(gs_multi_proof_parse(&q, b, len) == GS_OK && q);
    if (q) {
        CHECK(strcmp(q->tables[0].air_desc, "custom prov") == 0 &&
              strcmp(q->tables[2].air_desc, "") == 0);
        for (uint32_t i = 0; i < q->num_tables; i++)
            CHECK(memcmp(&q->tables[i].params, &MULTI_STMT_PARAMS, sizeof MULTI_STMT_PARAMS) == 0);
        CHECK(gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) == GS_OK);
    }
    gs_multi_proof_free(q);
    free(c);
    free(b);
    gs_multi_proof_free(p);
}

/* Structs the serializer must refuse: what it would write could not parse. */
static void test_serialize_invalid(void) {
    gs_multi_proof *p = small_proof(5);
    if (!p) return;
    gs_table_proof *t0 = &p->tables[0].table, *t2 = &p->tables[2].table;
    uint8_t *b = &g_byte_sentinel;
    size_t len = 7;
    CHECK(gs_multi_proof_serialize(NULL, &len, p) == GS_ERR_INVALID_ARG);
    CHECK(gs_multi_proof_serialize(&b, NULL, p) == GS_ERR_INVALID_ARG);
    CHECK(gs_multi_proof_serialize(&b, &len, NULL) == GS_ERR_INVALID_ARG && b == NULL && len == 0);
    int n_cases = 0;
#define INVALID(what, field, bad)                                                      \
    do {                                                                             \
        __typeof__(field) keep_ = (field);                                           \
        (field) = (bad);                                                             \
        b = &g_byte_sentinel, len = 7;                                               \
        gs_status s_ = gs_multi_proof_serialize_as(&b, &len, p, GS_PROOF_VERSION_MULTI);                        \
        if (s_ != GS_ERR_INVALID_ARG) fprintf(stderr, "serialize %s: %s\n", what, gs_status_str(s_)); \
        CHECK(s_ == GS_ERR_INVALID_ARG && b == NULL && len == 0);                    \
        if (s_ == GS_OK) free(b);                                                    \
        (field) = keep_;                                                             \
        n_cases++;                                                                   \
    } while (0)
    gs_fp3 one = gs_fp3_one();
    gs_digest d1 = {{1}};
    INVALID("num_tables 0", p->num_tables, 0);
    INVALID("num_tables 4097", p->num_tables, GS_PROOF_MAX_TABLES + 1);
    INVALID("tables NULL", p->tables, NULL);
    INVALID("shared log_blowup 0", p->params.log_blowup, 0);
    INVALID("shared grinding differs from the entries'", p->params.grinding_bits, 3);
    INVALID("entry 1 num_queries differs", p->tables[1].params.num_queries, 79);
    INVALID("entry 2 log_n 0", p->tables[2].log_n, 0);
    INVALID("entry 0 num_cols 0", t0->num_cols, 0);
    INVALID("entry 0 fri_paths NULL", t0->fri_paths, NULL);
    INVALID("entry 2 trace_rows NULL", t2->trace_rows, NULL);
    INVALID("aux_cols 65537", t0->aux_cols, 65537);
    INVALID("ood_aux_cur NULL", t0->ood_aux_cur, NULL);
    INVALID("ood_aux_next NULL", t0->ood_aux_next, NULL);
    INVALID("aux_rows NULL", t0->aux_rows, NULL);
    INVALID("aux_paths NULL", t0->aux_paths, NULL);
    INVALID("bus_sum c1 = p", t0->bus_sum.c[1], GS_FP_P);
    INVALID("ood_aux_cur[0] c0 = p", t0->ood_aux_cur[0].c[0], GS_FP_P);
    INVALID("ood_aux_next[last] c2 = 2^64 - 1", t0->ood_aux_next[t0->aux_cols - 1].c[2], UINT64_MAX);
    INVALID("aux_rows[last] = p", t0->aux_rows[t0->num_queries * 3 * t0->aux_cols - 1], GS_FP_P);
    INVALID("aux_cols 0 with a bus sum", t2->bus_sum, one);
    INVALID("aux_cols 0 with an aux root", t2->aux_root, d1);
    /* An entry's air_desc without a terminating NUL in its 128 bytes. */
    {
        char keep[sizeof p->tables[1].air_desc];
        memcpy(keep, p->tables[1].air_desc, sizeof keep);
        memset(p->tables[1].air_desc, 'x', sizeof keep);
        b = &g_byte_sentinel, len = 7;
        CHECK(gs_multi_proof_serialize(&b, &len, p) == GS_ERR_INVALID_ARG && b == NULL && len == 0);
        memcpy(p->tables[1].air_desc, keep, sizeof keep);
        n_cases++;
    }
    printf("serialize: %d inconsistent structs refused\n", n_cases);
    /* With A = 0 the aux arrays are ignored (even if present). */
    {
        gs_fp3 *keep = t2->ood_aux_cur;
        t2->ood_aux_cur = &one;
        size_t n1 = 0, n2 = 0;
        uint8_t *b1 = to_bytes(p, &n1);
        t2->ood_aux_cur = keep;
        uint8_t *b2 = to_bytes(p, &n2);
        CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
        free(b1), free(b2);
    }
    gs_multi_proof_free(p);
}

/* ---- hand-made structs: the smallest tables, and the most tables ---- */

/* A table of the smallest shape: log_n 1, C = K = 1, no FRI layer, Q = 1;
 * all arrays zero (canonical) and shared by every entry that copies it. */
static void minimal_table(gs_proof *e, const gs_params *par, uint32_t aux) {
    static gs_fp3 f3[4];
    static gs_fp fp[8];
    static gs_digest dg[4];
    memset(e, 0, sizeof *e);
    e->params = *par;
    e->log_n = 1;
    gs_table_proof *t = &e->table;
    t->num_cols = t->num_chunks = 1;
    t->num_layers = 0, t->final_len = 2, t->num_queries = 1;
    t->log_lde = 2, t->fri_row_len = t->fri_path_len = 0; /* the lengths the shape gives */
    t->ood_cur = t->ood_next = t->ood_chunks = t->final_poly = f3;
    t->trace_rows = t->chunk_rows = fp;
    t->trace_paths = t->chunk_paths = dg;
    t->aux_cols = aux;
    if (aux) {
        t->ood_aux_cur = t->ood_aux_next = f3;
        t->aux_rows = fp;
        t->aux_paths = dg;
        t->bus_sum.c[1] = 5;
        t->aux_root.b[0] = 9;
    }
}

static void test_minimal(void) {
    const gs_params par = {1, 1, 0, 1, 1, 0, 0, 0, 0}; /* log N = 2, L = 0, F = 2, Q = 1 */
    gs_proof *tables = calloc(GS_PROOF_MAX_TABLES + 1, sizeof *tables);
    if (!tables) return;
    for (uint32_t i = 0; i <= GS_PROOF_MAX_TABLES; i++) minimal_table(&tables[i], &par, i % 2);
    static const uint32_t counts[] = {1, 2, 7, GS_PROOF_MAX_TABLES};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        gs_multi_proof mp = {par, counts[c], tables, NULL};
        size_t len = 0, len2 = 0;
        uint8_t *b = to_bytes(&mp, &len), *b2 = NULL;
        /* 48 bytes of preamble and header; a table section is 12 + 44 + 372
         * + 4 (the aux count) bytes, and 32 + 24 + 48 + 24 + 64 more with A = 1. */
        size_t want = 48 + (size_t)counts[c] * 432 + (size_t)(counts[c] / 2) * 192;
        CHECK_EQ_U64(len, want);
        gs_multi_proof *q = NULL;
        CHECK(b && gs_multi_proof_parse(&q, b, len) == GS_OK);
        if (q) {
            b2 = to_bytes(q, &len2);
            CHECK(b2 && len2 == len && memcmp(b, b2, len) == 0);
            CHECK(q->num_tables == counts[c] && gs_fp3_eq(q->tables[counts[c] > 1].table.bus_sum,
                                                            tables[counts[c] > 1].table.bus_sum));
        }
        /* One byte less, or one table more claimed, is refused. */
        gs_multi_proof *r = &g_sentinel;
        CHECK(b && gs_multi_proof_parse(&r, b, len - 1) == GS_ERR_PROOF_FORMAT && r == NULL);
        if (b && counts[c] < GS_PROOF_MAX_TABLES) {
            wr32(b + 44, counts[c] + 1);
            r = &g_sentinel;
            CHECK(gs_multi_proof_parse(&r, b, len) == GS_ERR_PROOF_FORMAT && r == NULL);
        }
        free(b), free(b2);
        gs_multi_proof_free(q);
        if (c + 1 == sizeof counts / sizeof counts[0])
            printf("minimal tables: %u tables in %zu bytes round-trip\n", counts[c], len);
    }
    gs_multi_proof over = {par, GS_PROOF_MAX_TABLES + 1, tables, NULL};
    uint8_t *b = &g_byte_sentinel;
    size_t len = 7;
    CHECK(gs_multi_proof_serialize(&b, &len, &over) == GS_ERR_INVALID_ARG && b == NULL && len == 0);
    free(tables);
}

/* ---- file kinds, and version 1 against the version-2 parser ---- */

static void test_kinds(void) {
    size_t l1 = 0, l2 = 0;
    uint8_t *v1 = read_file(GOLDEN_V1_PATH, &l1);
    gs_multi_proof *p = small_proof(6);
    uint8_t *v2 = p ? to_bytes(p, &l2) : NULL;
    CHECK(v1 && l1 > 12 && v2);
    if (v1 && v2) {
        CHECK(gs_proof_file_kind(v1, l1) == 1);
        CHECK(gs_proof_file_kind(v2, l2) == 2);
        CHECK(gs_proof_file_kind(v1, 12) == 1); /* only magic and version are looked at */
        CHECK(gs_proof_file_kind(v2, 12) == 2);
        CHECK(gs_proof_file_kind(v1, 11) == 0);
        CHECK(gs_proof_file_kind(v2, 0) == 0);
        CHECK(gs_proof_file_kind(NULL, 100) == 0);
        /* A version-1 file is not a multi-table proof, and the reverse. */
        gs_multi_proof *q = &g_sentinel;
        CHECK(gs_multi_proof_parse(&q, v1, l1) == GS_ERR_PROOF_FORMAT && q == NULL);
        gs_proof *s = &g_single_sentinel;
        CHECK(gs_proof_parse(&s, v2, l2) == GS_ERR_PROOF_FORMAT && s == NULL);
        /* A version-1 file relabelled as version 2, and the reverse. */
        uint8_t *c1 = malloc(l1), *c2 = malloc(l2);
        memcpy(c1, v1, l1), memcpy(c2, v2, l2);
        wr32(c1 + 8, 2), wr32(c2 + 8, 1);
        CHECK(gs_proof_file_kind(c1, l1) == 2 && gs_proof_file_kind(c2, l2) == 1);
        q = &g_sentinel;
        CHECK(gs_multi_proof_parse(&q, c1, l1) == GS_ERR_PROOF_FORMAT && q == NULL);
        s = &g_single_sentinel;
        CHECK(gs_proof_parse(&s, c2, l2) == GS_ERR_PROOF_FORMAT && s == NULL);
        /* Junk. */
        wr32(c1 + 8, GS_PROOF_VERSION_COMPACT + 1);
        CHECK(gs_proof_file_kind(c1, l1) == 0 && gs_proof_file_version(c1, l1) == GS_PROOF_VERSION_COMPACT + 1);
        wr32(c1 + 8, 0);
        CHECK(gs_proof_file_kind(c1, l1) == 0);
        c2[0] = 'g';
        CHECK(gs_proof_file_kind(c2, l2) == 0);
        uint8_t junk[16] = {0};
        memcpy(junk, "GSTARKPX", 8), wr32(junk + 8, 1);
        CHECK(gs_proof_file_kind(junk, sizeof junk) == 0);
        memcpy(junk, "GSTARKPF", 8);
        CHECK(gs_proof_file_kind(junk, sizeof junk) == 1);
        free(c1), free(c2);
    }
    free(v1), free(v2);
    gs_multi_proof_free(p);
}

/* ---- the golden file ---- */

static void test_golden(int regen) {
    gs_multi_proof *p = small_proof(GOLDEN_SEED);
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_multi_proof_free(p);
        return;
    }
    if (regen) {
        int ok = write_file(GOLDEN_PATH, b, len);
        if (ok) printf("golden: wrote %s (%zu bytes)\n", GOLDEN_PATH, len);
        else fprintf(stderr, "golden: cannot write %s\n", GOLDEN_PATH);
        CHECK(ok);
    }
    size_t glen = 0;
    uint8_t *g = read_file(GOLDEN_PATH, &glen);
    if (!g) {
        fprintf(stderr,
                "golden: cannot read %s.\n"
                "  It pins the version-2 format and the multi-table prover's output for the\n"
                "  statement of tests/fuzz/multi_stmt.h (seed %u). If a change is intended,\n"
                "  regenerate it with `test_proof_format_multi --regen` and commit it.\n",
                GOLDEN_PATH, GOLDEN_SEED);
        CHECK(0);
    } else {
        /* The committed file still parses, round-trips and verifies. */
        gs_multi_proof *q = NULL;
        gs_status s = gs_multi_proof_parse(&q, g, glen);
        size_t rlen = 0;
        uint8_t *r = s == GS_OK ? to_bytes(q, &rlen) : NULL;
        CHECK(r && rlen == glen && memcmp(r, g, glen) == 0);
        free(r);
        if (s == GS_OK) s = gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0);
        if (s != GS_OK) fprintf(stderr, "golden: %s does not verify: %s\n", GOLDEN_PATH, gs_status_str(s));
        CHECK(s == GS_OK);
        gs_multi_proof_free(q);
        if (glen != len || memcmp(g, b, len) != 0) {
            layout o = layout_of(p);
            size_t i = 0, t;
            while (i < len && i < glen && g[i] == b[i]) i++;
            const char *f = field_at(&o, i, &t);
            fprintf(stderr,
                    "golden: MISMATCH: %s has %zu bytes, the current prover and serializer give %zu;\n"
                    "  first difference at byte %zu (table %zu, %s). Either the format, the protocol\n"
                    "  or the prover's output changed. If that is intended, bump the format version\n"
                    "  where the format changed, then run `test_proof_format_multi --regen`.\n",
                    GOLDEN_PATH, glen, len, i, t, f);
            CHECK(0);
        } else {
            printf("golden: %s matches (%zu bytes)\n", GOLDEN_PATH, glen);
        }
    }
    free(g);
    free(b);
    gs_multi_proof_free(p);
}

/* Small valid version-2 proofs of the fuzzer's statement (tests/fuzz/run.sh). */
static int write_seeds(const char *dir) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
        gs_multi_proof *p = small_proof(seed);
        size_t len = 0;
        uint8_t *b = p ? to_bytes(p, &len) : NULL;
        char path[4096];
        snprintf(path, sizeof path, "%s/seed_multi_%u.proof", dir, (unsigned)seed);
        int ok = b && write_file(path, b, len);
        if (ok) printf("wrote %s (%zu bytes)\n", path, len);
        else fprintf(stderr, "cannot write %s\n", path);
        CHECK(ok);
        free(b);
        gs_multi_proof_free(p);
    }
    return gs_test_done();
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    int regen = 0;
    const char *seed_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--regen") == 0) regen = 1;
        if (strcmp(argv[i], "--write-seeds") == 0 && i + 1 < argc) seed_dir = argv[i + 1];
    }
    if (multi_stmt_airs(g_airs) != GS_OK) {
        fprintf(stderr, "cannot build the statement's AIRs\n");
        return 1;
    }
    int rc;
    if (seed_dir) {
        rc = write_seeds(seed_dir);
    } else {
        test_round_trip();
        test_truncations();
        test_flips();
        test_tables();
        test_malformed();
        test_serialize_invalid();
        test_minimal();
        test_kinds();
        test_golden(regen);
        rc = gs_test_done();
    }
    for (uint32_t t = 0; t < MULTI_STMT_TABLES; t++) gs_air_free(g_airs[t]);
    return rc;
}
