/* The batch manifest (include/gstark/batch.h, docs/batch.md): valid manifests
 * parse with their claims, defaults and joins (the default tree's shape for
 * 1, 2, 3, 5 and 8 claims); every kind of bad manifest is refused with
 * GS_ERR_MANIFEST and a message naming the claim, join or offset; claims'
 * workloads build and their proofs verify; fib bisection chains against an
 * independent run of the recurrence; estimates are positive and grow; the
 * example manifests load. */
#include <stdlib.h>
#include <string.h>

#include "gstark/batch.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "test_util.h"

#ifndef GS_SOURCE_DIR
#define GS_SOURCE_DIR "."
#endif

static gs_manifest *parse_ok(const char *json) {
    gs_manifest *m = NULL;
    char err[512];
    gs_status s = gs_manifest_parse(&m, json, strlen(json), err, sizeof err);
    if (s != GS_OK) fprintf(stderr, "unexpected refusal: %s\n  %s\n", err, json);
    CHECK(s == GS_OK && m);
    return m;
}

/* ---- a toy AIR registered by "the library user": x' = x^d + 1, d from
 * the workload ("degree", default 3), log_rows 1..10; pub = x[0], x[n-1]. */

static unsigned json_uint(const char *json, const char *key, unsigned dflt, int *found) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *at = strstr(json, pat);
    if (found) *found = at != NULL;
    return at ? (unsigned)strtoul(at + strlen(pat), NULL, 10) : dflt;
}

static gs_air *toy_air(unsigned degree) {
    gs_air *air = gs_air_new("toy", 1, 2);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0),
                                      gs_air_add(air, gs_air_pow(air, gs_air_col(air, 0), degree),
                                                 gs_air_const(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_public(air, 0));
    gs_air_boundary(air, 0, -1, gs_air_public(air, 1));
    if (gs_air_finalize(air) != GS_OK) {
        gs_air_free(air);
        return NULL;
    }
    return air;
}

static int toy_calls;

static gs_status toy_build(void *ctx, gs_workload *out, const char *json, size_t len, int air_only,
                           char *err, size_t err_len) {
    (void)ctx;
    toy_calls++;
    memset(out, 0, sizeof *out);
    int has_rows;
    unsigned log_n = json_uint(json, "log_rows", 0, &has_rows), degree = json_uint(json, "degree", 3, NULL);
    if (strlen(json) != len || !has_rows || log_n < 1 || log_n > 10) {
        snprintf(err, err_len, "toy needs log_rows in 1..10");
        return GS_ERR_INVALID_ARG;
    }
    out->air = toy_air(degree);
    out->log_n = log_n;
    if (!out->air) return GS_ERR_NOMEM;
    if (air_only) return GS_OK;
    size_t n = (size_t)1 << log_n;
    out->trace = malloc(n * sizeof(gs_fp));
    out->pub = malloc(2 * sizeof(gs_fp));
    out->trace[0] = 5;
    for (size_t i = 0; i + 1 < n; i++) out->trace[i + 1] = gs_fp_add(gs_fp_pow(out->trace[i], degree), 1);
    out->pub[0] = out->trace[0], out->pub[1] = out->trace[n - 1];
    return GS_OK;
}

/* ---- valid manifests ---- */

static const char *MAIN =
    "{\"claims\": [\n"
    " {\"id\": \"a\", \"workload\": {\"air\": \"fib\", \"log_rows\": 12, \"start\": [1, 1]},"
    "  \"params\": {\"security\": 100, \"blowup\": 4}},\n"
    " {\"id\": \"b\", \"workload\": {\"air\": \"fib\", \"steps\": 5000, \"start\": [3, \"18446744069414584320\"]}},\n"
    " {\"id\": \"m\", \"workload\": {\"air\": \"mix\", \"cols\": 16, \"log_rows\": 10, \"degree\": 3, \"seed\": 1}},\n"
    " {\"id\": \"v\", \"workload\": {\"air\": \"synth\", \"preset\": \"vm\", \"shrink\": 6, \"seed\": 1}},\n"
    " {\"id\": \"t\", \"workload\": {\"air\": \"toy\", \"log_rows\": 4}, \"params\": {\"blowup\": 2}},\n"
    " {\"id\": \"m2\", \"workload\": {\"air\": \"mix\", \"cols\": 4, \"log_rows\": 5}}\n"
    "],\n"
    "\"joins\": [{\"id\": \"root\", \"children\": [\"j1\", \"j2\"]},\n"
    "          {\"id\": \"j1\", \"children\": [\"a\", \"b\", \"t\"]},\n"
    "          {\"id\": \"j2\", \"children\": [\"m\", \"j3\"]},\n"
    "          {\"id\": \"j3\", \"children\": [\"v\", \"m2\"]}]}\n";

static void test_valid(void) {
    gs_manifest *m = parse_ok(MAIN);
    if (!m) return;
    CHECK_EQ_U64(m->num_claims, 6);
    CHECK_EQ_U64(m->num_joins, 4);
    CHECK(!m->default_joins);
    const gs_claim *a = &m->claims[0], *b = &m->claims[1], *mx = &m->claims[2], *v = &m->claims[3];
    const gs_claim *t = &m->claims[4], *m2 = &m->claims[5];
    CHECK(!strcmp(a->id, "a") && a->kind == GS_CLAIM_FIB);
    CHECK_EQ_U64(a->w.fib.steps, 4095);
    CHECK(a->w.fib.start[0] == 1 && a->w.fib.start[1] == 1);
    CHECK_EQ_U64(a->security, 100);
    CHECK_EQ_U64(a->params.log_blowup, 2);
    CHECK_EQ_U64(a->params.num_queries, 40); /* (100 - 20 grinding) / 2 */
    CHECK(gs_params_security(&a->params) >= 100);
    CHECK(b->kind == GS_CLAIM_FIB && b->w.fib.steps == 5000);
    CHECK(b->w.fib.start[0] == 3 && b->w.fib.start[1] == GS_FP_P - 1);
    /* Defaults: 128 bits, blowup 4: what `gstark prove` uses. */
    gs_params d = gs_params_default(GS_DEFAULT_SECURITY_BITS);
    CHECK_EQ_U64(b->security, 128);
    CHECK(!memcmp(&b->params, &d, sizeof d));
    CHECK(mx->kind == GS_CLAIM_MIX && mx->w.mix.cols == 16 && mx->w.mix.log_n == 10 &&
          mx->w.mix.degree == 3 && mx->w.mix.seed == 1);
    CHECK(m2->kind == GS_CLAIM_MIX && m2->w.mix.degree == 3 && m2->w.mix.seed == 1); /* defaults */
    CHECK(v->kind == GS_CLAIM_SYNTH && !strcmp(v->w.synth.preset, "vm") && v->w.synth.shrink == 6 &&
          v->w.synth.seed == 1);
    CHECK(t->kind == GS_CLAIM_CUSTOM && !strcmp(t->w.custom.air, "toy"));
    CHECK(t->w.custom.json && !strcmp(t->w.custom.json, "{\"air\":\"toy\",\"log_rows\":4}"));
    CHECK_EQ_U64(t->params.log_blowup, 1);
    CHECK(gs_params_security(&t->params) >= 128);
    /* Joins listed root first come out children first, the root last. */
    CHECK(!strcmp(m->joins[0].id, "j1") && !strcmp(m->joins[1].id, "j3") &&
          !strcmp(m->joins[2].id, "j2") && !strcmp(m->joins[3].id, "root"));
    CHECK_EQ_U64(gs_manifest_root(m), 9);
    CHECK_EQ_U64(gs_manifest_find(m, "root"), 9);
    CHECK_EQ_U64(gs_manifest_find(m, "v"), 3);
    CHECK_EQ_U64(gs_manifest_find(m, "j2"), 8);
    CHECK_EQ_U64(gs_manifest_find(m, "nope"), GS_MANIFEST_NONE);
    CHECK(!strcmp(gs_manifest_node_id(m, 7), "j3"));
    CHECK(gs_manifest_node_id(m, 10) == NULL);
    const gs_join *j1 = &m->joins[0], *j2 = &m->joins[2], *root = &m->joins[3];
    CHECK(j1->num_children == 3 && j1->children[0] == 0 && j1->children[1] == 1 && j1->children[2] == 4);
    CHECK(j2->num_children == 2 && j2->children[0] == 2 && j2->children[1] == 7);
    CHECK(root->num_children == 2 && root->children[0] == 6 && root->children[1] == 8);
    for (uint32_t j = 0; j < m->num_joins; j++)
        for (uint32_t c = 0; c < m->joins[j].num_children; c++) CHECK(m->joins[j].children[c] < m->num_claims + j);
    /* air_desc, as the CLI writes them */
    char desc[128];
    CHECK(gs_claim_air_desc(desc, sizeof desc, a, 0) == GS_OK && !strcmp(desc, "fib"));
    CHECK(gs_claim_air_desc(desc, sizeof desc, a, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_claim_air_desc(desc, sizeof desc, mx, 0) == GS_OK &&
          !strcmp(desc, "mix cols=16 degree=3 log_n=10 seed=1"));
    CHECK(gs_claim_air_desc(desc, sizeof desc, v, 7) == GS_OK && !strcmp(desc, "synth preset=vm shrink=6 table=7"));
    CHECK(gs_claim_air_desc(desc, sizeof desc, v, 8) == GS_ERR_INVALID_ARG);
    CHECK(gs_claim_air_desc(desc, sizeof desc, b, 1) == GS_OK); /* 5001 rows: 4096 + 512 + ... */
    CHECK(gs_claim_air_desc(desc, sizeof desc, t, 0) == GS_OK && !strcmp(desc, "toy"));
    CHECK(gs_claim_air_desc(desc, 3, mx, 0) == GS_ERR_INVALID_ARG);
    CHECK(a->params.hash == GS_HASH_KECCAK256 && b->params.hash == GS_HASH_KECCAK256);
    gs_manifest_free(m);
    gs_manifest_free(NULL);
    /* params.hash: the proof's hash; "keccak" is the default's parameters exactly. */
    m = parse_ok("{\"claims\": [{\"id\": \"p\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100, \"hash\": \"poseidon2\"}},"
                 "{\"id\": \"k\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100, \"hash\": \"keccak\"}},"
                 "{\"id\": \"d\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100}}]}");
    if (m) {
        CHECK(m->claims[0].params.hash == GS_HASH_POSEIDON2);
        CHECK(m->claims[1].params.hash == GS_HASH_KECCAK256);
        CHECK(!memcmp(&m->claims[1].params, &m->claims[2].params, sizeof(gs_params)));
        gs_params p2 = m->claims[2].params;
        p2.hash = GS_HASH_POSEIDON2;
        CHECK(!memcmp(&m->claims[0].params, &p2, sizeof p2));
    }
    gs_manifest_free(m);
    /* params.cap_height: the proof's Merkle cap height, nothing else changed. */
    m = parse_ok("{\"claims\": [{\"id\": \"c\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100, \"cap_height\": 4}},"
                 "{\"id\": \"d\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100}}]}");
    if (m) {
        CHECK(m->claims[0].params.cap_height == 4 && m->claims[1].params.cap_height == 0);
        gs_params p2 = m->claims[1].params;
        p2.cap_height = 4;
        CHECK(!memcmp(&m->claims[0].params, &p2, sizeof p2));
    }
    gs_manifest_free(m);
    /* params.coset_leaves 2: every table's leaves hold folding cosets; 1 by default. */
    m = parse_ok("{\"claims\": [{\"id\": \"c\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100, \"coset_leaves\": 2}},"
                 "{\"id\": \"d\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, "
                 "\"params\": {\"security\": 100}}]}");
    if (m) {
        CHECK(m->claims[0].params.coset_leaves == GS_COSET_LEAVES_ALL && m->claims[1].params.coset_leaves == 1);
        gs_params p2 = m->claims[1].params;
        p2.coset_leaves = GS_COSET_LEAVES_ALL;
        CHECK(!memcmp(&m->claims[0].params, &p2, sizeof p2));
    }
    gs_manifest_free(m);
}

/* The tree under `node` as nested parentheses of claim indices. */
static void shape(char *out, size_t cap, const gs_manifest *m, uint32_t node) {
    if (node < m->num_claims) {
        snprintf(out + strlen(out), cap - strlen(out), "%u", node);
        return;
    }
    const gs_join *j = &m->joins[node - m->num_claims];
    snprintf(out + strlen(out), cap - strlen(out), "(");
    for (uint32_t c = 0; c < j->num_children; c++) {
        if (c) snprintf(out + strlen(out), cap - strlen(out), ",");
        shape(out, cap, m, j->children[c]);
    }
    snprintf(out + strlen(out), cap - strlen(out), ")");
}

static void test_default_tree(void) {
    static const struct {
        uint32_t n;
        const char *shape;
        const char *ids; /* the joins in order */
    } cases[] = {
        {1, "(0)", "root"},
        {2, "(0,1)", "root"},
        {3, "((0,1),2)", "root/0 root"},
        {5, "(((0,1),2),(3,4))", "root/0/0 root/0 root/1 root"},
        {8, "(((0,1),(2,3)),((4,5),(6,7)))", "root/0/0 root/0/1 root/0 root/1/0 root/1/1 root/1 root"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char json[2048] = "{\"claims\": [";
        for (uint32_t i = 0; i < cases[k].n; i++)
            snprintf(json + strlen(json), sizeof json - strlen(json),
                     "%s{\"id\": \"c%u\", \"workload\": {\"air\": \"fib\", \"log_rows\": %u}}", i ? ", " : "", i, 3 + i);
        strcat(json, "]}");
        gs_manifest *m = parse_ok(json);
        if (!m) continue;
        CHECK(m->default_joins);
        char got[256] = "", ids[256] = "";
        shape(got, sizeof got, m, gs_manifest_root(m));
        for (uint32_t j = 0; j < m->num_joins; j++)
            snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", j ? " " : "", m->joins[j].id);
        if (strcmp(got, cases[k].shape) || strcmp(ids, cases[k].ids))
            fprintf(stderr, "default tree of %u: %s [%s], expected %s [%s]\n", cases[k].n, got, ids,
                    cases[k].shape, cases[k].ids);
        CHECK(!strcmp(got, cases[k].shape));
        CHECK(!strcmp(ids, cases[k].ids));
        CHECK(!strcmp(m->joins[m->num_joins - 1].id, "root"));
        CHECK_EQ_U64(gs_manifest_find(m, "root"), gs_manifest_root(m));
        gs_manifest_free(m);
    }
}

/* ---- bad manifests ---- */

#define FIB(id) "{\"id\": \"" id "\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}}"
#define ONE(w) "{\"claims\": [{\"id\": \"c\", \"workload\": " w "}]}"
#define PAR(p) "{\"claims\": [{\"id\": \"c\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, \"params\": " p "}]}"
#define JOINS(j) "{\"claims\": [" FIB("a") ", " FIB("b") ", " FIB("c") "], \"joins\": " j "}"

static void test_bad(void) {
    static const struct {
        const char *json;
        const char *want[2]; /* substrings of the message */
    } cases[] = {
        /* JSON syntax */
        {"{\"claims\": [" FIB("a") ",, ]}", {"syntax error", "line 1, column"}},
        {"{\n  \"claims\": [\n    {\"id\": \"a\" \"workload\": {}}\n  ]\n}", {"syntax error at line 3", "byte"}},
        {"{\"claims\": [" FIB("a") "]} trailing", {"text after", "column 70 (byte 69)"}},
        {"{\"claims\": [" FIB("a") "]", {"syntax error", "byte"}},
        {"", {"empty", NULL}},
        {"[]", {"expected an object", NULL}},
        /* the manifest's keys */
        {"{}", {"missing 'claims'", NULL}},
        {"{\"claims\": []}", {"claims: empty", NULL}},
        {"{\"claims\": {}}", {"claims: expected an array", NULL}},
        {"{\"claims\": [" FIB("a") "], \"extra\": 1}", {"unknown key 'extra'", NULL}},
        {"{\"claims\": [" FIB("a") "], \"claims\": []}", {"given twice", NULL}},
        /* a claim's id */
        {"{\"claims\": [" FIB("a") ", {\"workload\": {\"air\": \"fib\", \"log_rows\": 4}}]}", {"claims[1]: missing 'id'", NULL}},
        {"{\"claims\": [" FIB("a b") "]}", {"claims[0]: id 'a b'", "letters"}},
        {"{\"claims\": [" FIB("") "]}", {"claims[0]", "1 to 64 bytes"}},
        {"{\"claims\": [{\"id\": 7}]}", {"claims[0]: id: expected a string, got a number", NULL}},
        {"{\"claims\": [" FIB("a") ", 5]}", {"claims[1]: expected an object", NULL}},
        {"{\"claims\": [" FIB("a") ", " FIB("b") ", " FIB("a") "]}", {"claim 'a': duplicate id", "claims[0] and claims[2]"}},
        /* claim keys and workloads */
        {"{\"claims\": [{\"id\": \"c\", \"workload\": {\"air\": \"fib\", \"log_rows\": 4}, \"prio\": 1}]}", {"claim 'c': unknown key 'prio'", NULL}},
        {"{\"claims\": [{\"id\": \"c\"}]}", {"claim 'c': missing 'workload'", NULL}},
        {ONE("[1]"), {"claim 'c': workload: expected an object", NULL}},
        {ONE("{\"log_rows\": 4}"), {"claim 'c': workload: missing 'air'", NULL}},
        {ONE("{\"air\": \"nope\", \"log_rows\": 4}"), {"claim 'c': workload.air: unknown AIR 'nope'", "registered: toy"}},
        {ONE("{\"air\": 3}"), {"claim 'c': workload.air: expected a string", NULL}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"colour\": 1}"), {"claim 'c': workload: unknown key 'colour'", NULL}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"log_rows\": 5}"), {"claim 'c'", "given twice"}},
        /* fib */
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"steps\": 15}"), {"claim 'c'", "one of 'log_rows' and 'steps'"}},
        {ONE("{\"air\": \"fib\", \"start\": [1, 1]}"), {"claim 'c'", "one of 'log_rows' and 'steps'"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 31}"), {"claim 'c': workload.log_rows: 31 is outside 1..30", NULL}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 0}"), {"claim 'c': workload.log_rows", "outside"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": \"12\"}"), {"claim 'c': workload.log_rows: expected an integer, got a string", NULL}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 12.5}"), {"claim 'c': workload.log_rows: expected an integer", NULL}},
        {ONE("{\"air\": \"fib\", \"log_rows\": -3}"), {"claim 'c'", "negative"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": true}"), {"claim 'c'", "got a boolean"}},
        {ONE("{\"air\": \"fib\", \"steps\": 1073741825}"), {"claim 'c': workload.steps: 1073741825 is outside 1..1073741824", NULL}},
        {ONE("{\"air\": \"fib\", \"steps\": 0}"), {"claim 'c': workload.steps", "outside"}},
        {ONE("{\"air\": \"fib\", \"steps\": 1e300}"), {"claim 'c': workload.steps", "not exact"}},
        /* numbers whose doubles were rounded to integers, and NUL escapes that cut a
         * string short (found by review, 2026-12-04: accepted as 2^52 + 2, 0, 1 and "a") */
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": [4503599627370497.5, 1]}"), {"fraction or an exponent", "column"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": [1, 1e-400]}"), {"fraction or an exponent", NULL}},
        {ONE("{\"air\": \"fib\", \"steps\": 1.0000000000000001}"), {"fraction or an exponent", NULL}},
        {ONE("{\"air\": \"fib\", \"steps\": 4.0}"), {"fraction or an exponent", NULL}},
        {"{\"claims\": [" FIB("a\\u0000zzz") "]}", {"\\u0000 (NUL)", NULL}},
        {ONE("{\"air\": \"fib\\u0000junk\", \"log_rows\": 4}"), {"\\u0000 (NUL)", NULL}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": [1]}"), {"claim 'c': workload.start", "2 integers"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": 1}"), {"claim 'c': workload.start", "got a number"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": [1, \"18446744069414584321\"]}"), {"claim 'c': workload.start[1]", "outside"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": [\"0x10\", 1]}"), {"claim 'c': workload.start[0]", "decimal digits"}},
        {ONE("{\"air\": \"fib\", \"log_rows\": 4, \"start\": [9007199254740993, 1]}"), {"claim 'c': workload.start[0]", "string of digits"}},
        /* mix */
        {ONE("{\"air\": \"mix\", \"log_rows\": 4}"), {"claim 'c': workload: mix needs 'cols'", NULL}},
        {ONE("{\"air\": \"mix\", \"cols\": 4}"), {"claim 'c': workload: mix needs 'log_rows'", NULL}},
        {ONE("{\"air\": \"mix\", \"cols\": 1025, \"log_rows\": 4}"), {"claim 'c': workload.cols: 1025 is outside 1..1024", NULL}},
        {ONE("{\"air\": \"mix\", \"cols\": 4, \"log_rows\": 27}"), {"claim 'c': workload.log_rows", "outside 1..26"}},
        {ONE("{\"air\": \"mix\", \"cols\": 4, \"log_rows\": 4, \"degree\": 1}"), {"claim 'c': workload.degree", "outside 2..17"}},
        {ONE("{\"air\": \"mix\", \"cols\": 4, \"log_rows\": 4, \"degree\": 6}"), {"claim 'c'", "degree 6 needs a blowup of 8"}},
        {ONE("{\"air\": \"mix\", \"cols\": 4, \"log_rows\": 4, \"seed\": \"18446744073709551616\"}"), {"claim 'c': workload.seed", "64 bits"}},
        {"{\"claims\": [{\"id\": \"c\", \"workload\": {\"air\": \"mix\", \"cols\": 4, \"log_rows\": 26}, \"params\": {\"blowup\": 32}}]}",
         {"claim 'c'", "exceeds the largest LDE domain"}},
        /* synth */
        {ONE("{\"air\": \"synth\"}"), {"claim 'c': workload: synth needs 'preset'", NULL}},
        {ONE("{\"air\": \"synth\", \"preset\": \"big\"}"), {"claim 'c': workload.preset: unknown preset 'big'", NULL}},
        {ONE("{\"air\": \"synth\", \"preset\": \"vm\", \"shrink\": 21}"), {"claim 'c': workload.shrink: 21 is outside 0..20", NULL}},
        {"{\"claims\": [{\"id\": \"c\", \"workload\": {\"air\": \"synth\", \"preset\": \"vm\", \"shrink\": 12}, \"params\": {\"blowup\": 2}}]}",
         {"claim 'c'", "needs a blowup of 4"}},
        /* custom */
        {ONE("{\"air\": \"toy\", \"log_rows\": 11}"), {"claim 'c': workload (air 'toy'): toy needs log_rows in 1..10", NULL}},
        {ONE("{\"air\": \"toy\", \"log_rows\": 4, \"degree\": 6}"), {"claim 'c'", "degree 6 needs a blowup of 8"}},
        /* params */
        {PAR("{\"security\": 60}"), {"claim 'c': params.security: 60 is outside 80..128", NULL}},
        {PAR("{\"security\": 129}"), {"claim 'c': params.security", "outside"}},
        {PAR("{\"blowup\": 3}"), {"claim 'c': params.blowup: 3 is not a power of two", NULL}},
        {PAR("{\"blowup\": 128}"), {"claim 'c': params.blowup", "outside 2..64"}},
        {PAR("{\"queries\": 10}"), {"claim 'c': params: unknown key 'queries'", NULL}},
        {PAR("{\"hash\": \"sha256\"}"), {"claim 'c': params.hash: 'sha256' is not keccak or poseidon2", NULL}},
        {PAR("{\"hash\": 1}"), {"claim 'c': params.hash: expected a string", NULL}},
        {PAR("{\"cap_height\": 11}"), {"claim 'c': params.cap_height", "outside 0..10"}},
        {PAR("{\"coset_leaves\": 3}"), {"claim 'c': params.coset_leaves", "outside 0..2"}},
        {PAR("7"), {"claim 'c': params: expected an object", NULL}},
        /* joins */
        {JOINS("[]"), {"joins: empty", NULL}},
        {JOINS("{}"), {"joins: expected an array", NULL}},
        {JOINS("[{\"id\": \"a\", \"children\": [\"b\", \"c\"]}]"), {"join 'a': id already used by claim", NULL}},
        {JOINS("[{\"id\": \"j\", \"children\": [\"a\"]}, {\"id\": \"j\", \"children\": [\"b\", \"c\"]}]"), {"join 'j': id already used by another join", NULL}},
        {JOINS("[{\"id\": \"j\", \"children\": [\"a\", \"b\", \"zz\"]}]"), {"join 'j': child 'zz' is not a claim or join", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": [\"a\", \"b\"]}, {\"id\": \"r\", \"children\": [\"j1\", \"b\", \"c\"]}]"),
         {"join 'r': child 'b' is already a child of join 'j1'", NULL}},
        {JOINS("[{\"id\": \"r\", \"children\": [\"a\", \"b\", \"c\", \"a\"]}]"), {"join 'r': child 'a' is already a child of join 'r'", NULL}},
        {JOINS("[{\"id\": \"r\", \"children\": [\"r\", \"a\", \"b\", \"c\"]}]"), {"join 'r': lists itself", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": [\"j2\", \"a\"]}, {\"id\": \"j2\", \"children\": [\"j3\", \"b\"]},"
               " {\"id\": \"j3\", \"children\": [\"j1\", \"c\"]}]"),
         {"joins: a cycle: 'j1' -> 'j2' -> 'j3' -> 'j1'", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": [\"a\"]}, {\"id\": \"j2\", \"children\": [\"b\", \"c\"]}]"), {"'j1' and 'j2' are both roots", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": [\"a\", \"c\"]}]"), {"claim 'b': in no join", NULL}},
        {JOINS("[{\"id\": \"j1\"}]"), {"join 'j1': missing 'children'", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": []}]"), {"join 'j1': children: a join has 1 to 1024 children", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": [\"a\", 2]}]"), {"join 'j1': children: expected ids", NULL}},
        {JOINS("[{\"id\": \"j1\", \"children\": [\"a\", \"b\", \"c\"], \"weight\": 2}]"), {"join 'j1': unknown key 'weight'", NULL}},
        {JOINS("[{\"children\": [\"a\", \"b\", \"c\"]}]"), {"joins[0]: missing 'id'", NULL}},
        {"{\"claims\": [" FIB("a") ", " FIB("root") "]}", {"claim 'root'", "default join tree"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gs_manifest *m = (gs_manifest *)&m; /* must come back NULL */
        char err[512] = "unset";
        gs_status s = gs_manifest_parse(&m, cases[k].json, strlen(cases[k].json), err, sizeof err);
        int ok = s == GS_ERR_MANIFEST && m == NULL;
        for (int w = 0; w < 2; w++)
            if (cases[k].want[w] && !strstr(err, cases[k].want[w])) ok = 0;
        if (!ok)
            fprintf(stderr, "bad manifest %zu: status %d, message '%s', wanted '%s'%s%s\n  %s\n", k, (int)s, err,
                    cases[k].want[0], cases[k].want[1] ? " and '" : "", cases[k].want[1] ? cases[k].want[1] : "",
                    cases[k].json);
        CHECK(ok);
        gs_manifest_free(s == GS_OK ? m : NULL);
    }
    /* More than GS_MANIFEST_MAX_CLAIMS claims is refused before any claim is
     * read (the elements need not even be claims). */
    size_t n = GS_MANIFEST_MAX_CLAIMS + 1, len = 0;
    char *big = malloc(2 * n + 32);
    len += (size_t)sprintf(big, "{\"claims\": [");
    for (size_t i = 0; i < n; i++) big[len++] = '0', big[len++] = i + 1 < n ? ',' : ']';
    len += (size_t)sprintf(big + len, "}");
    gs_manifest *m = NULL;
    char err[256] = "";
    CHECK(gs_manifest_parse(&m, big, len, err, sizeof err) == GS_ERR_MANIFEST && !m);
    CHECK(strstr(err, "more than 1000000 claims") != NULL);
    free(big);
    /* Arguments and files */
    CHECK(gs_manifest_parse(NULL, "{}", 2, err, sizeof err) == GS_ERR_INVALID_ARG);
    CHECK(gs_manifest_parse(&m, "{}", 2, NULL, 0) == GS_ERR_MANIFEST && !m);
    CHECK(gs_manifest_load(&m, "/nonexistent/batch.json", err, sizeof err) == GS_ERR_IO && !m);
    CHECK(strstr(err, "/nonexistent/batch.json") != NULL);
}

/* ---- the registry ---- */

static void test_registry(void) {
    CHECK(gs_batch_register_air("toy", toy_build, NULL) == GS_ERR_INVALID_ARG); /* registered in main */
    CHECK(gs_batch_register_air("fib", toy_build, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_batch_register_air("Toy", toy_build, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_batch_register_air("", toy_build, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_batch_register_air("toy2", toy_build, NULL) == GS_OK);
    const char *json = ONE("{\"air\": \"toy2\", \"log_rows\": 3}");
    gs_manifest *m = parse_ok(json);
    CHECK(gs_batch_register_air("toy2", NULL, NULL) == GS_OK);
    CHECK(gs_batch_register_air("toy2", NULL, NULL) == GS_ERR_INVALID_ARG);
    /* The parsed manifest keeps its builder; a new parse no longer finds it. */
    if (m) {
        gs_claim_cost k;
        CHECK(gs_claim_estimate(&k, &m->claims[0]) == GS_OK && k.tables == 1 && k.max_log_n == 3);
    }
    gs_manifest_free(m);
    char err[256];
    m = NULL;
    CHECK(gs_manifest_parse(&m, json, strlen(json), err, sizeof err) == GS_ERR_MANIFEST && !m);
    CHECK(strstr(err, "unknown AIR 'toy2'") != NULL);
}

/* ---- workloads prove and verify ---- */

static void prove_claim(const gs_claim *c, gs_params par) {
    gs_multi_workload w;
    gs_status s = gs_claim_workload(&w, c);
    CHECK(s == GS_OK);
    if (s != GS_OK) return;
    gs_claim_cost k;
    CHECK(gs_claim_estimate(&k, c) == GS_OK && k.tables == w.num_tables);
    int single = w.num_tables == 1 && gs_air_num_interactions(w.tables[0].air) == 0;
    char desc[128];
    if (single) {
        CHECK(gs_claim_air_desc(desc, sizeof desc, c, 0) == GS_OK);
        gs_prove_opts o = {.air_desc = desc};
        gs_proof *p = NULL;
        s = gs_prove(&p, w.tables[0].air, w.tables[0].trace, w.tables[0].log_n, w.tables[0].pub, &par, &o);
        CHECK(s == GS_OK);
        if (s == GS_OK) {
            CHECK(gs_verify(w.tables[0].air, p, 0) == GS_OK);
            CHECK(!strcmp(p->air_desc, desc));
        }
        gs_proof_free(p);
    } else {
        gs_table_input *in = calloc(w.num_tables, sizeof *in);
        const gs_air **airs = calloc(w.num_tables, sizeof *airs);
        char (*descs)[128] = calloc(w.num_tables, 128);
        for (uint32_t i = 0; i < w.num_tables; i++) {
            CHECK(gs_claim_air_desc(descs[i], 128, c, i) == GS_OK);
            in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                     .log_n = w.tables[i].log_n, .pub = w.tables[i].pub,
                                     .air_desc = descs[i]};
            airs[i] = w.tables[i].air;
        }
        gs_multi_proof *mp = NULL;
        s = gs_prove_multi(&mp, in, w.num_tables, &par, NULL);
        CHECK(s == GS_OK);
        if (s == GS_OK) CHECK(gs_verify_multi(airs, w.num_tables, mp, 0) == GS_OK);
        gs_multi_proof_free(mp);
        free(in), free(airs), free(descs);
    }
    printf("claim '%s': %u table%s (%s) proved and verified\n", c->id, w.num_tables,
           w.num_tables == 1 ? "" : "s", w.name);
    gs_multi_workload_free(&w);
}

static void test_prove(void) {
    const char *json =
        "{\"claims\": ["
        "{\"id\": \"f\", \"workload\": {\"air\": \"fib\", \"log_rows\": 5, \"start\": [2, 7]}, \"params\": {\"security\": 80}},"
        "{\"id\": \"s\", \"workload\": {\"air\": \"fib\", \"steps\": 12}},"
        "{\"id\": \"x\", \"workload\": {\"air\": \"mix\", \"cols\": 5, \"log_rows\": 4, \"degree\": 5}},"
        "{\"id\": \"v\", \"workload\": {\"air\": \"synth\", \"preset\": \"vm\", \"shrink\": 20, \"seed\": 3}},"
        "{\"id\": \"t\", \"workload\": {\"air\": \"toy\", \"log_rows\": 5}, \"params\": {\"blowup\": 2}}]}";
    gs_manifest *m = parse_ok(json);
    if (!m) return;
    /* Each under exactly its own parameters (20 bits of grinding included). */
    for (uint32_t i = 0; i < m->num_claims; i++) prove_claim(&m->claims[i], m->claims[i].params);
    /* "s": 13 rows = tables of 8 and 4 rows and x_12 in no table. */
    gs_multi_workload w;
    CHECK(gs_claim_workload(&w, &m->claims[1]) == GS_OK);
    CHECK(w.num_tables == 2 && w.tables[0].log_n == 3 && w.tables[1].log_n == 2);
    if (w.num_tables == 2) {
        gs_fp x[13][2] = {{1, 1}};
        for (int i = 0; i < 12; i++) x[i + 1][0] = x[i][1], x[i + 1][1] = gs_fp_add(x[i][0], x[i][1]);
        const gs_fp *t0 = w.tables[0].trace, *t1 = w.tables[1].trace;
        for (int i = 0; i < 8; i++) CHECK(t0[i] == x[i][0] && t0[8 + i] == x[i][1]);
        for (int i = 0; i < 4; i++) CHECK(t1[i] == x[8 + i][0] && t1[4 + i] == x[8 + i][1]);
        gs_fp end[2];
        CHECK(gs_claim_fib_end(end, &m->claims[1]) == GS_OK && end[0] == x[12][0] && end[1] == x[12][1]);
        /* the tables chain: the second starts at F(first's last row) */
        CHECK(w.tables[0].pub[3] == t0[7]); /* a[n-1] is public */
        CHECK(gs_fib_check_boundary(w.tables[0].pub, 4, w.tables[1].pub, 4) == GS_OK);
    }
    gs_multi_workload_free(&w);
    gs_manifest_free(m);
}

/* ---- bisection ---- */

static void run(gs_fp x[2], uint64_t steps) { /* the recurrence, step by step */
    for (uint64_t i = 0; i < steps; i++) {
        gs_fp a = x[0];
        x[0] = x[1];
        x[1] = gs_fp_add(a, x[1]);
    }
}

static gs_claim fib_claim(const char *id, gs_fp a, gs_fp b, uint64_t steps) {
    gs_claim c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "%s", id);
    c.kind = GS_CLAIM_FIB;
    c.w.fib.start[0] = a, c.w.fib.start[1] = b;
    c.w.fib.steps = steps;
    c.security = 128;
    c.params = gs_params_default(128);
    return c;
}

/* Splits c twice into q[4] and checks the quarters against the recurrence
 * run from c's start: q[i] starts at x_(rows before it), the quarters' rows
 * add up, and the last one ends where c ends. With traces, the quarters'
 * tables are the unsplit claim's rows, and the boundary check passes. */
static void check_quarters(const gs_claim *c, int traces) {
    gs_claim h[2], q[4];
    CHECK(gs_claim_split(&h[0], &h[1], c) == GS_OK);
    CHECK(gs_claim_split(&q[0], &q[1], &h[0]) == GS_OK);
    CHECK(gs_claim_split(&q[2], &q[3], &h[1]) == GS_OK);
    size_t idn = strlen(c->id);
    CHECK(!strncmp(q[2].id, c->id, idn) && !strcmp(q[2].id + idn, "/1/0"));
    gs_fp x[2] = {c->w.fib.start[0], c->w.fib.start[1]};
    uint64_t rows = 0;
    for (int i = 0; i < 4; i++) {
        CHECK(q[i].w.fib.start[0] == x[0] && q[i].w.fib.start[1] == x[1]);
        CHECK(!memcmp(&q[i].params, &c->params, sizeof c->params));
        run(x, q[i].w.fib.steps + 1); /* through its rows to the next quarter's start */
        rows += q[i].w.fib.steps + 1;
    }
    CHECK_EQ_U64(rows, c->w.fib.steps + 1);
    gs_fp end[2], qend[2], naive[2] = {c->w.fib.start[0], c->w.fib.start[1]};
    run(naive, c->w.fib.steps);
    CHECK(gs_claim_fib_end(end, c) == GS_OK && gs_claim_fib_end(qend, &q[3]) == GS_OK);
    CHECK(end[0] == naive[0] && end[1] == naive[1] && qend[0] == naive[0] && qend[1] == naive[1]);
    if (!traces) return;
    gs_multi_workload whole, part[4];
    CHECK(gs_claim_workload(&whole, c) == GS_OK);
    size_t at = 0, row_total = 0;
    for (uint32_t t = 0; t < whole.num_tables; t++) row_total += (size_t)1 << whole.tables[t].log_n;
    gs_fp *wa = malloc(row_total * sizeof *wa), *wb = malloc(row_total * sizeof *wb);
    for (uint32_t t = 0; t < whole.num_tables; t++) { /* the unsplit rows, in order */
        size_t n = (size_t)1 << whole.tables[t].log_n;
        memcpy(wa + at, whole.tables[t].trace, n * sizeof *wa);
        memcpy(wb + at, whole.tables[t].trace + n, n * sizeof *wb);
        at += n;
    }
    at = 0;
    const gs_workload *prev = NULL;
    int same = 1;
    for (int i = 0; i < 4; i++) {
        CHECK(gs_claim_workload(&part[i], &q[i]) == GS_OK);
        for (uint32_t t = 0; t < part[i].num_tables; t++) {
            const gs_workload *tw = &part[i].tables[t];
            size_t n = (size_t)1 << tw->log_n;
            for (size_t r = 0; r < n && at + r < row_total; r++)
                same &= tw->trace[r] == wa[at + r] && tw->trace[n + r] == wb[at + r];
            if (prev) { /* the join's check between consecutive tables */
                size_t pn = (size_t)1 << prev->log_n;
                CHECK(prev->pub[3] == prev->trace[pn - 1]); /* pub[3] = a[n-1] */
                CHECK(gs_fib_check_boundary(prev->pub, 4, tw->pub, 4) == GS_OK);
                gs_fp bad[4] = {tw->pub[0], gs_fp_add(tw->pub[1], 1), tw->pub[2], tw->pub[3]};
                CHECK(gs_fib_check_boundary(prev->pub, 4, bad, 4) == GS_ERR_PROOF_STATEMENT);
                bad[0] = gs_fp_add(tw->pub[0], 1), bad[1] = tw->pub[1];
                CHECK(gs_fib_check_boundary(prev->pub, 4, bad, 4) == GS_ERR_PROOF_STATEMENT);
                CHECK(gs_fib_check_boundary(prev->pub, 3, tw->pub, 4) == GS_ERR_INVALID_ARG);
            }
            prev = tw;
            at += n;
        }
    }
    CHECK(same);
    /* Only the last quarter can end on a row in no table (x_steps when
     * steps + 1 is odd), as the whole claim does: the tables hold the same rows. */
    CHECK_EQ_U64(at, row_total);
    for (int i = 0; i < 4; i++) gs_multi_workload_free(&part[i]);
    gs_multi_workload_free(&whole);
    free(wa), free(wb);
}

static void test_split(void) {
    /* 2^6 rows: two halves of 2^5, four quarters of 2^4 rows (15 steps). */
    gs_claim c = fib_claim("a", 1, 1, 63), h[2];
    CHECK(gs_claim_split(&h[0], &h[1], &c) == GS_OK);
    CHECK(!strcmp(h[0].id, "a/0") && !strcmp(h[1].id, "a/1"));
    CHECK(h[0].w.fib.steps == 31 && h[1].w.fib.steps == 31);
    check_quarters(&c, 1);
    c = fib_claim("b", 3, 5, 5000);
    check_quarters(&c, 1);
    for (int k = 0; k < 40; k++) { /* seeded random claims */
        uint64_t steps = 7 + gs_test_below(k < 30 ? 3000 : (uint64_t)1 << 22);
        c = fib_claim("r", gs_test_fp(), gs_test_fp(), steps);
        check_quarters(&c, k < 30);
    }
    /* in place: first aliases c */
    c = fib_claim("p", 1, 2, 9);
    CHECK(gs_claim_split(&c, &h[1], &c) == GS_OK && !strcmp(c.id, "p/0") && c.w.fib.steps == 3);
    /* what cannot be split */
    c = fib_claim("s", 1, 1, 2);
    CHECK(gs_claim_split(&h[0], &h[1], &c) == GS_ERR_UNSUPPORTED);
    c.w.fib.steps = 3;
    CHECK(gs_claim_split(&h[0], &h[1], &c) == GS_OK && h[0].w.fib.steps == 1 && h[1].w.fib.steps == 1);
    c.kind = GS_CLAIM_MIX;
    CHECK(gs_claim_split(&h[0], &h[1], &c) == GS_ERR_UNSUPPORTED);
    c = fib_claim("", 1, 1, 63);
    memset(c.id, 'x', GS_CLAIM_ID_CAP - 2);
    c.id[GS_CLAIM_ID_CAP - 2] = 0;
    CHECK(gs_claim_split(&h[0], &h[1], &c) == GS_ERR_INVALID_ARG);
    /* next state and argument checks */
    gs_fp pub[4] = {1, 2, 10, 7}, next[2];
    CHECK(gs_fib_next_state(next, pub, 4) == GS_OK && next[0] == 10 && next[1] == 17);
    CHECK(gs_fib_next_state(next, pub, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_fib_next_state(next, pub, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_fib_check_boundary(pub, 2, pub, 3) == GS_ERR_INVALID_ARG);
}

/* ---- estimates ---- */

static gs_claim_cost cost_of(const char *workload, const char *params) {
    char json[512];
    snprintf(json, sizeof json, "{\"claims\": [{\"id\": \"c\", \"workload\": %s%s%s}]}", workload,
             params ? ", \"params\": " : "", params ? params : "");
    gs_claim_cost k;
    memset(&k, 0, sizeof k);
    gs_manifest *m = parse_ok(json);
    if (m) CHECK(gs_claim_estimate(&k, &m->claims[0]) == GS_OK);
    gs_manifest_free(m);
    CHECK(k.tables > 0 && k.trace_bytes > 0 && k.prove_bytes > 0 && k.prove_all_bytes >= k.prove_bytes);
    CHECK(k.prove_lean_bytes > 0 && k.prove_lean_bytes <= k.prove_bytes);
    CHECK(k.rows > 0 && k.cells >= k.rows && k.fft_cost > 0);
    return k;
}

static void test_estimate(void) {
    gs_claim_cost f10 = cost_of("{\"air\": \"fib\", \"log_rows\": 10}", NULL);
    gs_claim_cost f12 = cost_of("{\"air\": \"fib\", \"log_rows\": 12}", NULL);
    gs_claim_cost f14 = cost_of("{\"air\": \"fib\", \"log_rows\": 14}", NULL);
    gs_claim_cost f14b = cost_of("{\"air\": \"fib\", \"log_rows\": 14}", "{\"blowup\": 16}");
    CHECK(f10.prove_bytes < f12.prove_bytes && f12.prove_bytes < f14.prove_bytes);
    CHECK(f10.trace_bytes < f12.trace_bytes && f12.trace_bytes < f14.trace_bytes);
    CHECK(f14.prove_bytes < f14b.prove_bytes && f14.trace_bytes == f14b.trace_bytes);
    CHECK_EQ_U64(f12.trace_bytes, 2 * 4096 * 8 + 4 * 8);
    CHECK(f12.tables == 1 && f12.max_log_n == 12 && f12.rows == 4096 && f12.cells == 8192);
    CHECK_EQ_U64(f12.fft_cost, 8192 * 12);
    /* one table: exactly the prover's estimate */
    gs_air *fib = NULL;
    gs_params d = gs_params_default(128);
    gs_mem_estimate e;
    CHECK(gs_airs_fib_air(&fib) == GS_OK && gs_estimate_table(&e, fib, 12, &d) == GS_OK);
    CHECK_EQ_U64(f12.prove_bytes, e.total);
    CHECK_EQ_U64(f12.prove_lean_bytes, e.lean_total);
    gs_air_free(fib);
    /* steps 5000: 5001 rows in tables of 4096, 512, 256, 128 and 8 rows */
    gs_claim_cost s = cost_of("{\"air\": \"fib\", \"steps\": 5000}", NULL);
    CHECK(s.tables == 5 && s.rows == 5000 && s.max_log_n == 12);
    CHECK(s.prove_bytes == f12.prove_bytes && s.prove_all_bytes > s.prove_bytes);
    gs_claim_cost m8 = cost_of("{\"air\": \"mix\", \"cols\": 8, \"log_rows\": 10}", NULL);
    gs_claim_cost m16 = cost_of("{\"air\": \"mix\", \"cols\": 16, \"log_rows\": 10}", NULL);
    gs_claim_cost m16d = cost_of("{\"air\": \"mix\", \"cols\": 16, \"log_rows\": 12}", NULL);
    CHECK(m8.prove_bytes < m16.prove_bytes && m16.prove_bytes < m16d.prove_bytes);
    CHECK(m8.trace_bytes < m16.trace_bytes);
    gs_claim_cost v8 = cost_of("{\"air\": \"synth\", \"preset\": \"vm\", \"shrink\": 8}", NULL);
    gs_claim_cost v6 = cost_of("{\"air\": \"synth\", \"preset\": \"vm\", \"shrink\": 6}", NULL);
    CHECK(v8.tables == 8 && v8.prove_bytes < v6.prove_bytes && v8.trace_bytes < v6.trace_bytes);
    CHECK(v6.prove_all_bytes > v6.prove_bytes);
    gs_claim_cost t4 = cost_of("{\"air\": \"toy\", \"log_rows\": 4}", NULL);
    gs_claim_cost t8 = cost_of("{\"air\": \"toy\", \"log_rows\": 8}", NULL);
    CHECK(t4.prove_bytes < t8.prove_bytes);
    /* A fib claim too tall for one proof parses (it can be bisected), and its
     * estimate says it cannot be proven as it is; its halves can. */
    const char *tall = ONE("{\"air\": \"fib\", \"log_rows\": 30}");
    gs_manifest *m = parse_ok(tall);
    if (m) {
        gs_claim_cost k;
        gs_claim h[2];
        CHECK(gs_claim_estimate(&k, &m->claims[0]) == GS_ERR_INVALID_ARG);
        CHECK(gs_claim_split(&h[0], &h[1], &m->claims[0]) == GS_OK);
        CHECK(gs_claim_split(&h[0], &h[1], &h[0]) == GS_OK); /* 2^28 rows each at blowup 4 */
        CHECK(gs_claim_estimate(&k, &h[0]) == GS_OK && k.max_log_n == 28 && k.tables == 1);
    }
    gs_manifest_free(m);
}

/* ---- the example manifests ---- */

static void test_examples(void) {
    char err[512];
    gs_manifest *m = NULL;
    gs_status s = gs_manifest_load(&m, GS_SOURCE_DIR "/examples/batch_small.json", err, sizeof err);
    if (s != GS_OK) fprintf(stderr, "batch_small.json: %s\n", err);
    CHECK(s == GS_OK && m && !m->default_joins && m->num_claims >= 4);
    gs_manifest_free(m);
    m = NULL;
    s = gs_manifest_load(&m, GS_SOURCE_DIR "/examples/batch_large.json", err, sizeof err);
    if (s != GS_OK) fprintf(stderr, "batch_large.json: %s\n", err);
    CHECK(s == GS_OK && m && m->num_claims == 1000 && m->default_joins && m->num_joins == 999);
    if (m) {
        unsigned kinds[5] = {0};
        for (uint32_t i = 0; i < m->num_claims; i++) {
            gs_claim_cost k;
            kinds[m->claims[i].kind]++;
            CHECK(gs_claim_estimate(&k, &m->claims[i]) == GS_OK);
        }
        CHECK(kinds[GS_CLAIM_FIB] > 0 && kinds[GS_CLAIM_SYNTH] > 0);
    }
    gs_manifest_free(m);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    CHECK(gs_batch_register_air("toy", toy_build, NULL) == GS_OK);
    test_valid();
    test_default_tree();
    test_bad();
    test_registry();
    test_split();
    test_estimate();
    test_prove();
    test_examples();
    CHECK(toy_calls > 0);
    return gs_test_done();
}
