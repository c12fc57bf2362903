/* The proof file (docs/proof-format.md): byte-identical round trips of real
 * proofs; every truncation, random byte flips, swapped parts and crafted
 * malformed fields rejected (by the parser, or by the verifier where the
 * bytes are well formed); inconsistent structs refused by the serializer;
 * and a golden file that pins the format and the prover's output.
 *
 *   test_proof_format --regen             rewrite tests/golden/fib_small.proof
 *   test_proof_format --write-seeds DIR   write small valid proofs (fuzz seeds) */
#include "fib_air.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "test_io.h"
#include "test_util.h"

#ifndef GS_SOURCE_DIR
#error "GS_SOURCE_DIR must name the source tree (set by CMakeLists.txt)"
#endif
#define GOLDEN_PATH GS_SOURCE_DIR "/tests/golden/fib_small.proof"

/* The golden statement: fib, log_n 4, a0 = a1 = 1; 80-bit parameters. */
static const gs_params GOLDEN_PARAMS = {1, 2, 2, 78, 1, 0, 0, 0, 0};
#define GOLDEN_LOG_N 4u

static gs_air *g_air;
static gs_proof g_sentinel; /* parse must reset *out, even from a non-NULL value */
static uint8_t g_byte_sentinel;

static gs_proof *prove_fib(unsigned log_n, gs_fp a0, gs_fp a1, gs_params par, const char *desc) {
    gs_fp pub[4] = {a0, a1, 0, 0};
    gs_fp *m = fib_trace(log_n, pub);
    gs_prove_opts o = {.air_desc = desc};
    gs_proof *pf = NULL;
    gs_status s = m ? gs_prove(&pf, g_air, m, log_n, pub, &par, &o) : GS_ERR_NOMEM;
    if (s != GS_OK) fprintf(stderr, "prove fib log_n %u: %s\n", log_n, gs_status_str(s));
    CHECK(s == GS_OK);
    free(m);
    return pf;
}

static uint8_t *to_bytes(const gs_proof *p, size_t *len) {
    uint8_t *b = NULL;
    gs_status s = gs_proof_serialize_as(&b, len, p, GS_PROOF_VERSION);
    if (s != GS_OK) fprintf(stderr, "serialize: %s\n", gs_status_str(s));
    CHECK(s == GS_OK);
    return b;
}

/* ---- the layout, computed here independently of src/proof/serialize.c ---- */

typedef struct {
    size_t C, K, L, F, Q, logN, fpl;
    size_t params, fingerprint, desc_len, log_n, num_public, pub;
    size_t head, table, num_cols, num_chunks, trace_root, chunk_root, ood_cur, ood_next, ood_chunks,
        num_layers, fri_roots, final_len, final_poly, nonce, num_queries, trace_rows, trace_paths,
        chunk_rows, chunk_paths, fri_rows, fri_paths, end;
} layout;

static layout layout_of(const gs_proof *p) {
    const gs_table_proof *t = &p->table;
    layout o;
    o.C = t->num_cols, o.K = t->num_chunks, o.L = t->num_layers, o.F = t->final_len;
    o.Q = t->num_queries, o.logN = p->log_n + p->params.log_blowup, o.fpl = 0;
    for (size_t l = 0; l < o.L; l++) o.fpl += o.logN - 1 - l;
    size_t d = strlen(p->air_desc);
    o.head = 12;                 /* after magic and version */
    o.params = o.head + 12;      /* after tag and length */
    o.fingerprint = o.params + 20;
    o.desc_len = o.fingerprint + 32;
    o.log_n = o.desc_len + 4 + d;
    o.num_public = o.log_n + 4;
    o.pub = o.num_public + 4;
    o.table = o.pub + 8 * (size_t)p->num_public;
    o.num_cols = o.table + 12;
    o.num_chunks = o.num_cols + 4;
    o.trace_root = o.num_chunks + 4;
    o.chunk_root = o.trace_root + 32;
    o.ood_cur = o.chunk_root + 32;
    o.ood_next = o.ood_cur + 24 * o.C;
    o.ood_chunks = o.ood_next + 24 * o.C;
    o.num_layers = o.ood_chunks + 24 * o.K;
    o.fri_roots = o.num_layers + 4;
    o.final_len = o.fri_roots + 32 * o.L;
    o.final_poly = o.final_len + 4;
    o.nonce = o.final_poly + 24 * o.F;
    o.num_queries = o.nonce + 8;
    o.trace_rows = o.num_queries + 4;
    o.trace_paths = o.trace_rows + 8 * o.Q * o.C;
    o.chunk_rows = o.trace_paths + 32 * o.Q * o.logN;
    o.chunk_paths = o.chunk_rows + 24 * o.Q * o.K;
    o.fri_rows = o.chunk_paths + 32 * o.Q * o.logN;
    o.fri_paths = o.fri_rows + 48 * o.Q * o.L;
    o.end = o.fri_paths + 32 * o.Q * o.fpl;
    return o;
}

/* The field a byte offset falls in, for messages. */
static const char *field_at(const layout *o, size_t off) {
    const struct { size_t at; const char *name; } f[] = {
        {0, "magic"}, {8, "version"}, {o->head, "HEAD section header"}, {o->params, "params"},
        {o->fingerprint, "air_fingerprint"}, {o->desc_len, "air_desc"}, {o->log_n, "log_n"},
        {o->num_public, "num_public"}, {o->pub, "pub"}, {o->table, "TABL section header"},
        {o->num_cols, "num_cols"}, {o->num_chunks, "num_chunks"}, {o->trace_root, "trace_root"},
        {o->chunk_root, "chunk_root"}, {o->ood_cur, "ood_cur"}, {o->ood_next, "ood_next"},
        {o->ood_chunks, "ood_chunks"}, {o->num_layers, "num_layers"}, {o->fri_roots, "fri_roots"},
        {o->final_len, "final_len"}, {o->final_poly, "final_poly"}, {o->nonce, "pow_nonce"},
        {o->num_queries, "num_queries"}, {o->trace_rows, "trace_rows"},
        {o->trace_paths, "trace_paths"}, {o->chunk_rows, "chunk_rows"},
        {o->chunk_paths, "chunk_paths"}, {o->fri_rows, "fri_rows"}, {o->fri_paths, "fri_paths"},
        {o->end, "past the end"}};
    const char *name = "magic";
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (off >= f[i].at) name = f[i].name;
    return name;
}

static void swap_bytes(uint8_t *b, size_t x, size_t y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint8_t t = b[x + i];
        b[x + i] = b[y + i], b[y + i] = t;
    }
}

/* Parse, then verify if it parsed. Returns the first failure (GS_OK if
 * accepted); *parsed tells which stage decided. */
static gs_status judge(const uint8_t *b, size_t len, int *parsed) {
    gs_proof *p = &g_sentinel;
    gs_status s = gs_proof_parse(&p, b, len);
    *parsed = s == GS_OK;
    if (s != GS_OK) {
        CHECK(p == NULL);
        CHECK(s == GS_ERR_PROOF_FORMAT);
        return s;
    }
    s = gs_verify(g_air, p, 0);
    gs_proof_free(p);
    return s;
}

/* ---- round trips ---- */

static void test_round_trip(void) {
    static const struct {
        unsigned log_n;
        gs_params par;
        const char *desc;
    } cases[] = {
        {1, {1, 2, 2, 78, 1, 0, 0, 0, 0}, NULL},
        {3, {1, 1, 2, 78, 1, 0, 0, 0, 0}, "fib"},
        {4, {1, 2, 2, 78, 1, 0, 0, 0, 0}, NULL},
        {5, {2, 3, 4, 38, 1, 0, 0, 0, 0}, "fib a0=3 a1=5"},
        {6, {3, 0, 0, 27, 1, 0, 0, 0, 0}, NULL},
        {8, {2, 7, 8, 36, 1, 0, 0, 0, 0},
         "a description of exactly 127 bytes: ..............................................."
         "........................................"},
        {9, {1, 3, 0, 80, 1, 0, 0, 0, 0}, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gs_proof *p = prove_fib(cases[i].log_n, 3, 5, cases[i].par, cases[i].desc);
        if (!p) continue;
        size_t len1 = 0, len2 = 0;
        uint8_t *b1 = to_bytes(p, &len1);
        gs_proof *q = NULL;
        CHECK(b1 && gs_proof_parse(&q, b1, len1) == GS_OK);
        uint8_t *b2 = q ? to_bytes(q, &len2) : NULL;
        CHECK(b2 && len1 == len2 && memcmp(b1, b2, len1) == 0);
        layout o = layout_of(p);
        CHECK_EQ_U64(o.end, len1);
        if (q) {
            gs_status v = gs_verify(g_air, q, 0);
            if (v != GS_OK) fprintf(stderr, "round trip %zu: parsed proof: %s\n", i, gs_status_str(v));
            CHECK(v == GS_OK);
            CHECK(strcmp(q->air_desc, cases[i].desc ? cases[i].desc : "") == 0);
            CHECK(memcmp(&q->params, &p->params, sizeof p->params) == 0);
            CHECK(q->table.pow_nonce == p->table.pow_nonce);
        }
        printf("round trip: log_n %u, blowup 2^%u, %u queries, %u layers: %zu bytes\n",
               cases[i].log_n, cases[i].par.log_blowup, p->table.num_queries, p->table.num_layers,
               len1);
        free(b1), free(b2);
        gs_proof_free(q), gs_proof_free(p);
    }
}

/* ---- damaged inputs ---- */

/* A small proof with FRI layers: fib log_n 3, blowup 2, two layers. */
static gs_proof *small_proof(void) { return prove_fib(3, 1, 1, (gs_params){1, 1, 2, 78, 1, 0, 0, 0, 0}, NULL); }

static void test_truncations(void) {
    gs_proof *p = small_proof();
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_proof_free(p);
        return;
    }
    long by_parse = 0, by_verify = 0, accepted = 0;
    for (size_t n = 0; n < len; n++) {
        /* A copy of exactly n bytes, so that ASan sees any read past it. */
        uint8_t *c = malloc(n ? n : 1);
        memcpy(c, b, n);
        int parsed;
        gs_status s = judge(n ? c : NULL, n, &parsed);
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
    CHECK(judge(b, len, &parsed) == GS_OK);
    free(b);
    gs_proof_free(p);
}

static void test_flips(void) {
    gs_proof *p = small_proof();
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_proof_free(p);
        return;
    }
    layout o = layout_of(p);
    long by_parse = 0, by_verify = 0, accepted = 0;
    long verify_codes[32] = {0};
    for (int i = 0; i < 500; i++) {
        size_t pos = gs_test_below(len);
        uint8_t x = (uint8_t)(1 + gs_test_below(255));
        b[pos] ^= x;
        int parsed;
        gs_status s = judge(b, len, &parsed);
        if (s == GS_OK) {
            accepted++;
            fprintf(stderr, "flip accepted: byte %zu (%s) ^ 0x%02x\n", pos, field_at(&o, pos), x);
        } else if (parsed) {
            by_verify++;
            if ((unsigned)s < 32) verify_codes[s]++;
        } else {
            by_parse++;
        }
        b[pos] ^= x;
    }
    printf("flips: 500 single-byte flips of a %zu-byte proof: %ld rejected by the parser, "
           "%ld by the verifier, %ld accepted\n",
           len, by_parse, by_verify, accepted);
    for (int c = 0; c < 32; c++)
        if (verify_codes[c]) printf("  verifier: %ld x %s\n", verify_codes[c], gs_status_str((gs_status)c));
    CHECK(accepted == 0);
    free(b);
    gs_proof_free(p);
}

/* Parts of a valid proof exchanged: well formed, so the verifier must catch
 * them, except where the exchange breaks the structure. */
static void test_swaps(void) {
    gs_proof *p = small_proof();
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_proof_free(p);
        return;
    }
    layout o = layout_of(p);
    CHECK(o.Q >= 2 && o.L >= 2 && o.F >= 2);
    struct {
        const char *what;
        size_t x, y, n;
        int parse_fails;
    } sw[] = {
        {"trace_root <-> chunk_root", o.trace_root, o.chunk_root, 32, 0},
        {"ood_cur <-> ood_next", o.ood_cur, o.ood_next, 24 * o.C, 0},
        {"ood_cur[0] <-> ood_cur[1]", o.ood_cur, o.ood_cur + 24, 24, 0},
        {"fri_roots[0] <-> fri_roots[1]", o.fri_roots, o.fri_roots + 32, 32, 0},
        {"final_poly[0] <-> final_poly[1]", o.final_poly, o.final_poly + 24, 24, 0},
        {"trace_paths <-> chunk_paths", o.trace_paths, o.chunk_paths, 32 * o.Q * o.logN, 0},
        {"trace row of query 0 <-> query 1", o.trace_rows, o.trace_rows + 8 * o.C, 8 * o.C, 0},
        {"trace path of query 0 <-> query 1", o.trace_paths, o.trace_paths + 32 * o.logN,
         32 * o.logN, 0},
        {"chunk row of query 0 <-> query 1", o.chunk_rows, o.chunk_rows + 24 * o.K, 24 * o.K, 0},
        {"fri rows of query 0 <-> query 1", o.fri_rows, o.fri_rows + 48 * o.L, 48 * o.L, 0},
        {"fri paths of query 0 <-> query 1", o.fri_paths, o.fri_paths + 32 * o.fpl, 32 * o.fpl, 0},
        {"fri layer 0 leaf <-> layer 1 leaf (query 0)", o.fri_rows, o.fri_rows + 48, 48, 0},
        {"num_cols <-> num_chunks", o.num_cols, o.num_chunks, 4, 0},
        {"log_n <-> num_layers", o.log_n, o.num_layers, 4, 1},
        {"num_layers <-> num_queries", o.num_layers, o.num_queries, 4, 1},
    };
    for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
        if (memcmp(b + sw[i].x, b + sw[i].y, sw[i].n) == 0) {
            fprintf(stderr, "swap %s: the two parts are equal\n", sw[i].what);
            CHECK(0);
            continue;
        }
        swap_bytes(b, sw[i].x, sw[i].y, sw[i].n);
        int parsed;
        gs_status s = judge(b, len, &parsed);
        printf("swap %s: %s by the %s\n", sw[i].what, gs_status_str(s), parsed ? "verifier" : "parser");
        CHECK(s != GS_OK);
        if (sw[i].parse_fails) CHECK(!parsed);
        swap_bytes(b, sw[i].x, sw[i].y, sw[i].n);
    }
    /* Whole openings of queries 0 and 1 exchanged, array by array. */
    {
        size_t parts[][2] = {{o.trace_rows, 8 * o.C},   {o.trace_paths, 32 * o.logN},
                             {o.chunk_rows, 24 * o.K},  {o.chunk_paths, 32 * o.logN},
                             {o.fri_rows, 48 * o.L},    {o.fri_paths, 32 * o.fpl}};
        for (size_t i = 0; i < 6; i++) swap_bytes(b, parts[i][0], parts[i][0] + parts[i][1], parts[i][1]);
        int parsed;
        gs_status s = judge(b, len, &parsed);
        printf("swap whole openings of queries 0 and 1: %s\n", gs_status_str(s));
        CHECK(s != GS_OK && parsed);
        for (size_t i = 0; i < 6; i++) swap_bytes(b, parts[i][0], parts[i][0] + parts[i][1], parts[i][1]);
    }
    /* The sections in the other order. */
    {
        uint8_t *c = malloc(len);
        size_t head_len = o.table - o.head, table_len = len - o.table;
        memcpy(c, b, o.head);
        memcpy(c + o.head, b + o.table, table_len);
        memcpy(c + o.head + table_len, b + o.head, head_len);
        int parsed;
        CHECK(judge(c, len, &parsed) == GS_ERR_PROOF_FORMAT && !parsed);
        free(c);
    }
    int parsed;
    CHECK(judge(b, len, &parsed) == GS_OK); /* every swap was undone */
    free(b);
    gs_proof_free(p);
}

/* Crafted fields, each of which the parser alone must refuse. */
static void test_malformed(void) {
    gs_proof *p = prove_fib(3, 1, 1, (gs_params){1, 1, 2, 78, 1, 0, 0, 0, 0}, "fib");
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_proof_free(p);
        return;
    }
    layout o = layout_of(p);
    uint8_t *c = malloc(len + 16);
    int n_cases = 0;
#define MALFORMED(what, edit, clen)                                                     \
    do {                                                                              \
        memcpy(c, b, len);                                                            \
        size_t n_ = (clen);                                                           \
        edit;                                                                         \
        gs_proof *q_ = &g_sentinel;                                                   \
        gs_status s_ = gs_proof_parse(&q_, c, n_);                                    \
        if (s_ != GS_ERR_PROOF_FORMAT) fprintf(stderr, "malformed %s: %s\n", what, gs_status_str(s_)); \
        CHECK(s_ == GS_ERR_PROOF_FORMAT && q_ == NULL);                               \
        if (s_ == GS_OK) gs_proof_free(q_);                                           \
        n_cases++;                                                                    \
    } while (0)
    MALFORMED("empty", (void)0, 0);
    MALFORMED("magic", c[0] = 'g', len);
    MALFORMED("magic, last byte", c[7] ^= 0x20, len);
    MALFORMED("version 0", wr32(c + 8, 0), len);
    MALFORMED("version 2", wr32(c + 8, 2), len);
    MALFORMED("HEAD tag", c[o.head] = 'h', len);
    MALFORMED("HEAD length huge", wr64(c + o.head + 4, UINT64_MAX), len);
    MALFORMED("HEAD length + 1", wr64(c + o.head + 4, o.table - o.params + 1), len);
    MALFORMED("HEAD length - 1", wr64(c + o.head + 4, o.table - o.params - 1), len);
    MALFORMED("TABL tag", c[o.table + 3] = 'X', len);
    MALFORMED("TABL length huge", wr64(c + o.table + 4, (uint64_t)1 << 62), len);
    MALFORMED("TABL length + 1", wr64(c + o.table + 4, len - o.num_cols + 1), len);
    MALFORMED("TABL length - 1", wr64(c + o.table + 4, len - o.num_cols - 1), len);
    MALFORMED("trailing byte", c[len] = 0, len + 1);
    MALFORMED("trailing section", (memcpy(c + len, c + o.head, 12), wr64(c + len + 4, 0)), len + 12);
    MALFORMED("log_blowup 0", wr32(c + o.params, 0), len);
    MALFORMED("log_blowup 7", wr32(c + o.params, 7), len);
    MALFORMED("log_final 2 (layers change)", wr32(c + o.params + 4, 2), len);
    MALFORMED("log_final huge", wr32(c + o.params + 4, UINT32_MAX), len);
    MALFORMED("grinding 41", wr32(c + o.params + 8, 41), len);
    MALFORMED("num_queries 0", wr32(c + o.params + 12, 0), len);
    MALFORMED("num_queries 1025", wr32(c + o.params + 12, 1025), len);
    MALFORMED("num_queries 15 (fewer drawn)", wr32(c + o.params + 12, 15), len);
    MALFORMED("log_arity 2", wr32(c + o.params + 16, 2), len);
    MALFORMED("air_desc length 128", wr32(c + o.desc_len, 128), len);
    MALFORMED("air_desc length huge", wr32(c + o.desc_len, UINT32_MAX), len);
    MALFORMED("air_desc NUL inside", c[o.desc_len + 5] = 0, len);
    MALFORMED("log_n 0", wr32(c + o.log_n, 0), len);
    MALFORMED("log_n 2", wr32(c + o.log_n, 2), len);
    MALFORMED("log_n 30 (+ blowup > 30)", wr32(c + o.log_n, 30), len);
    MALFORMED("log_n 2^32 - 1", wr32(c + o.log_n, UINT32_MAX), len);
    MALFORMED("num_public 2^20 (past the input)", wr32(c + o.num_public, 1u << 20), len);
    MALFORMED("num_public 2^20 + 1 (over the cap)", wr32(c + o.num_public, (1u << 20) + 1), len);
    MALFORMED("num_public 2^32 - 1", wr32(c + o.num_public, UINT32_MAX), len);
    MALFORMED("num_public 2", wr32(c + o.num_public, 2), len);
    MALFORMED("pub[0] = p", wr64(c + o.pub, GS_FP_P), len);
    MALFORMED("pub[2] = 2^64 - 1", wr64(c + o.pub + 16, UINT64_MAX), len);
    MALFORMED("num_cols 0", wr32(c + o.num_cols, 0), len);
    MALFORMED("num_cols 3", wr32(c + o.num_cols, 3), len);
    MALFORMED("num_cols 65537", wr32(c + o.num_cols, 65537), len);
    MALFORMED("num_cols 2^32 - 1", wr32(c + o.num_cols, UINT32_MAX), len);
    MALFORMED("num_chunks 0", wr32(c + o.num_chunks, 0), len);
    MALFORMED("num_chunks 65536 (past the input)", wr32(c + o.num_chunks, 65536), len);
    MALFORMED("num_chunks 2^31", wr32(c + o.num_chunks, 1u << 31), len);
    MALFORMED("ood_cur c0 = p", wr64(c + o.ood_cur, GS_FP_P), len);
    MALFORMED("ood_next c2 = p + 1", wr64(c + o.ood_next + 16, GS_FP_P + 1), len);
    MALFORMED("ood_chunks c1 = 2^64 - 1", wr64(c + o.ood_chunks + 8, UINT64_MAX), len);
    MALFORMED("num_layers + 1", wr32(c + o.num_layers, (uint32_t)o.L + 1), len);
    MALFORMED("num_layers 0", wr32(c + o.num_layers, 0), len);
    MALFORMED("num_layers 2^32 - 1", wr32(c + o.num_layers, UINT32_MAX), len);
    MALFORMED("final_len - 1", wr32(c + o.final_len, (uint32_t)o.F - 1), len);
    MALFORMED("final_len 2^32 - 1", wr32(c + o.final_len, UINT32_MAX), len);
    MALFORMED("final_poly[1] c0 = p", wr64(c + o.final_poly + 24, GS_FP_P), len);
    MALFORMED("num_queries - 1", wr32(c + o.num_queries, (uint32_t)o.Q - 1), len);
    MALFORMED("num_queries 2^32 - 1", wr32(c + o.num_queries, UINT32_MAX), len);
    MALFORMED("trace_rows[0] = p", wr64(c + o.trace_rows, GS_FP_P), len);
    MALFORMED("chunk_rows[last] = p", wr64(c + o.chunk_paths - 8, GS_FP_P), len);
    MALFORMED("fri_rows[3] = 2^64 - 1", wr64(c + o.fri_rows + 24, UINT64_MAX), len);
    MALFORMED("fri_paths one byte short", wr64(c + o.table + 4, len - o.num_cols - 1), len - 1);
    printf("malformed: %d crafted inputs rejected by the parser\n", n_cases);
    /* NULL with a length is a caller error, not a malformed proof. */
    gs_proof *q = NULL;
    CHECK(gs_proof_parse(&q, NULL, 5) == GS_ERR_INVALID_ARG && q == NULL);
    CHECK(gs_proof_parse(NULL, b, len) == GS_ERR_INVALID_ARG);
    /* The unchanged copy parses and verifies; the description is kept. */
    CHECK(gs_proof_parse(&q, b, len) == GS_OK && q && strcmp(q->air_desc, "fib") == 0);
    if (q) CHECK(gs_verify(g_air, q, 0) == GS_OK);
    gs_proof_free(q);
    free(c);
    free(b);
    gs_proof_free(p);
}

/* Structs the serializer must refuse: what it would write could not parse. */
static void test_serialize_invalid(void) {
    gs_proof *p = small_proof();
    if (!p) return;
    gs_table_proof *t = &p->table;
    uint8_t *b = &g_byte_sentinel;
    size_t len = 7;
    CHECK(gs_proof_serialize(NULL, &len, p) == GS_ERR_INVALID_ARG);
    CHECK(gs_proof_serialize(&b, NULL, p) == GS_ERR_INVALID_ARG);
    CHECK(gs_proof_serialize(&b, &len, NULL) == GS_ERR_INVALID_ARG && b == NULL && len == 0);
    int n_cases = 0;
#define INVALID(what, field, bad)                                                      \
    do {                                                                             \
        __typeof__(field) keep_ = (field);                                           \
        (field) = (bad);                                                             \
        b = &g_byte_sentinel, len = 7;                                               \
        gs_status s_ = gs_proof_serialize_as(&b, &len, p, GS_PROOF_VERSION);                              \
        if (s_ != GS_ERR_INVALID_ARG) fprintf(stderr, "serialize %s: %s\n", what, gs_status_str(s_)); \
        CHECK(s_ == GS_ERR_INVALID_ARG && b == NULL && len == 0);                    \
        if (s_ == GS_OK) free(b);                                                    \
        (field) = keep_;                                                             \
        n_cases++;                                                                   \
    } while (0)
    INVALID("log_n 0", p->log_n, 0);
    INVALID("log_n 2^32 - 1", p->log_n, UINT32_MAX);
    INVALID("log_blowup 0", p->params.log_blowup, 0);
    INVALID("log_arity 2", p->params.log_arity, 2);
    INVALID("num_queries 0", p->params.num_queries, 0);
    INVALID("num_public 2^20 + 1", p->num_public, (1u << 20) + 1);
    INVALID("pub NULL", p->pub, NULL);
    INVALID("pub[1] = p", p->pub[1], GS_FP_P);
    INVALID("num_cols 0", t->num_cols, 0);
    INVALID("num_cols 65537", t->num_cols, 65537);
    INVALID("num_chunks 0", t->num_chunks, 0);
    INVALID("num_layers + 1", t->num_layers, t->num_layers + 1);
    INVALID("final_len + 1", t->final_len, t->final_len + 1);
    INVALID("num_queries - 1", t->num_queries, t->num_queries - 1);
    INVALID("ood_cur NULL", t->ood_cur, NULL);
    INVALID("ood_next NULL", t->ood_next, NULL);
    INVALID("ood_chunks NULL", t->ood_chunks, NULL);
    INVALID("fri_roots NULL", t->fri_roots, NULL);
    INVALID("final_poly NULL", t->final_poly, NULL);
    INVALID("trace_rows NULL", t->trace_rows, NULL);
    INVALID("trace_paths NULL", t->trace_paths, NULL);
    INVALID("chunk_rows NULL", t->chunk_rows, NULL);
    INVALID("chunk_paths NULL", t->chunk_paths, NULL);
    INVALID("fri_rows NULL", t->fri_rows, NULL);
    INVALID("fri_paths NULL", t->fri_paths, NULL);
    INVALID("ood_next[1].c[2] = p", t->ood_next[1].c[2], GS_FP_P);
    INVALID("final_poly[0].c[1] = 2^64 - 1", t->final_poly[0].c[1], UINT64_MAX);
    INVALID("trace_rows[3] = p", t->trace_rows[3], GS_FP_P);
    INVALID("chunk_rows[0] = p", t->chunk_rows[0], GS_FP_P);
    INVALID("fri_rows[5] = p", t->fri_rows[5], GS_FP_P);
    /* air_desc without a terminating NUL in its 128 bytes. */
    {
        char keep[sizeof p->air_desc];
        memcpy(keep, p->air_desc, sizeof keep);
        memset(p->air_desc, 'x', sizeof p->air_desc);
        b = &g_byte_sentinel, len = 7;
        CHECK(gs_proof_serialize(&b, &len, p) == GS_ERR_INVALID_ARG && b == NULL);
        memcpy(p->air_desc, keep, sizeof keep);
        n_cases++;
    }
    printf("serialize: %d inconsistent structs refused\n", n_cases);
    /* With no FRI layers the FRI arrays may be NULL. */
    gs_proof *z = prove_fib(2, 1, 1, (gs_params){1, 2, 2, 78, 1, 0, 0, 0, 0}, NULL);
    if (z) {
        CHECK(z->table.num_layers == 0);
        free(z->table.fri_roots), free(z->table.fri_rows), free(z->table.fri_paths);
        z->table.fri_roots = NULL, z->table.fri_rows = NULL, z->table.fri_paths = NULL;
        size_t n = 0;
        uint8_t *zb = to_bytes(z, &n);
        gs_proof *q = NULL;
        CHECK(zb && gs_proof_parse(&q, zb, n) == GS_OK);
        if (q) CHECK(gs_verify(g_air, q, 0) == GS_OK);
        gs_proof_free(q);
        free(zb);
    }
    gs_proof_free(z);
    gs_proof_free(p);
}

/* ---- the golden file ---- */

static void test_golden(int regen) {
    gs_proof *p = prove_fib(GOLDEN_LOG_N, 1, 1, GOLDEN_PARAMS, NULL);
    size_t len = 0;
    uint8_t *b = p ? to_bytes(p, &len) : NULL;
    if (!b) {
        gs_proof_free(p);
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
                "  It pins the proof format and the prover's output for fib log_n %u, a0 = a1 = 1,\n"
                "  params {1, 2, 2, 78, 1}. If the change is intended (a new format version or a\n"
                "  protocol change), regenerate it with `test_proof_format --regen` and commit it.\n",
                GOLDEN_PATH, GOLDEN_LOG_N);
        CHECK(0);
    } else {
        /* The committed file still parses and verifies, whatever the prover does now. */
        gs_proof *q = NULL;
        gs_status s = gs_proof_parse(&q, g, glen);
        if (s == GS_OK) s = gs_verify(g_air, q, 0);
        if (s != GS_OK) fprintf(stderr, "golden: %s does not verify: %s\n", GOLDEN_PATH, gs_status_str(s));
        CHECK(s == GS_OK);
        gs_proof_free(q);
        if (glen != len || memcmp(g, b, len) != 0) {
            layout o = layout_of(p);
            size_t i = 0;
            while (i < len && i < glen && g[i] == b[i]) i++;
            fprintf(stderr,
                    "golden: MISMATCH: %s has %zu bytes, the current prover and serializer give %zu;\n"
                    "  first difference at byte %zu (%s). Either the format, the protocol or the\n"
                    "  prover's output changed. If that is intended, bump GS_PROOF_VERSION where the\n"
                    "  format changed, then run `test_proof_format --regen` and commit the file.\n",
                    GOLDEN_PATH, glen, len, i, field_at(&o, i));
            CHECK(0);
        } else {
            printf("golden: %s matches (%zu bytes)\n", GOLDEN_PATH, glen);
        }
    }
    free(g);
    free(b);
    gs_proof_free(p);
}

/* Small valid proofs for the fuzzer's corpus (tests/fuzz/run.sh). */
static int write_seeds(const char *dir) {
    static const struct {
        unsigned log_n;
        gs_params par;
    } seeds[] = {
        {1, {1, 0, 0, 80, 1, 0, 0, 0, 0}},
        {2, {1, 1, 2, 78, 1, 0, 0, 0, 0}},
        {3, {1, 1, 2, 78, 1, 0, 0, 0, 0}},
        {3, {2, 0, 0, 40, 1, 0, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        gs_proof *p = prove_fib(seeds[i].log_n, 1, 2, seeds[i].par, NULL);
        size_t len = 0;
        uint8_t *b = p ? to_bytes(p, &len) : NULL;
        char path[4096];
        snprintf(path, sizeof path, "%s/seed_fib_%zu.proof", dir, i);
        int ok = b && write_file(path, b, len);
        if (ok) printf("wrote %s (%zu bytes)\n", path, len);
        else fprintf(stderr, "cannot write %s\n", path);
        CHECK(ok);
        free(b);
        gs_proof_free(p);
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
    g_air = fib_air();
    int rc;
    if (seed_dir) {
        rc = write_seeds(seed_dir);
    } else {
        test_round_trip();
        test_truncations();
        test_flips();
        test_swaps();
        test_malformed();
        test_serialize_invalid();
        test_golden(regen);
        rc = gs_test_done();
    }
    gs_air_free(g_air);
    return rc;
}
