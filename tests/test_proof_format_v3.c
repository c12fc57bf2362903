/* Proof format version 3 (docs/proof-format.md, "Version 3") and FRI
 * folding by 2^a:
 * - batched openings (src/merkle/multipath.c) against a real tree: the full
 *   paths come back from the sent nodes, and the node count is the size of
 *   the union of the paths less what the leaves give;
 * - proofs at every fold arity, single- and multi-table, with repeated query
 *   positions: byte-identical round trips, every per-query row and path
 *   restored as the prover made it, verified;
 * - version 3 is smaller than version 1 for the same proof, by exactly what
 *   gs_proof_table_parts accounts for;
 * - every truncation and random byte flips rejected; positions out of range
 *   or exchanged rejected; a version-1/2 file's struct equals a fresh
 *   proof's; kinds and versions told apart;
 * - golden files that pin version 3 and the prover's output (shared trees too).
 *
 *   test_proof_format_v3 --regen             rewrite the three golden files (one with shared trees)
 *   test_proof_format_v3 --write-seeds DIR DIR_MULTI   small version 3 proofs (fuzz seeds) */
#include <string.h>

#include "air/logup.h"
#include "fib_air.h"
#include "fuzz/multi_stmt.h"
#include "gstark/hash.h"
#include "gstark/merkle.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "merkle/multipath.h"
#include "test_io.h"
#include "test_util.h"

#ifndef GS_SOURCE_DIR
#error "GS_SOURCE_DIR must name the source tree (set by CMakeLists.txt)"
#endif
#define GOLDEN_SINGLE GS_SOURCE_DIR "/tests/golden/fib_small_v3.proof"
#define GOLDEN_MULTI GS_SOURCE_DIR "/tests/golden/multi_small_v3.proof"
#define GOLDEN_TREES GS_SOURCE_DIR "/tests/golden/multi_small_trees_v3.proof" /* shared_fri = 2 */
#define GOLDEN_V1 GS_SOURCE_DIR "/tests/golden/fib_small.proof"
/* The multi-table golden files as they were before the LogUp layout of
 * 2026-12-05 (air/logup.h): versions 2 and 3, one tree per table and shared
 * trees; kept as they are, never regenerated: the verifier names them. */
static const char *const GOLDEN_LOGUP1[] = {
    GS_SOURCE_DIR "/tests/golden/multi_small_logup1.proof",
    GS_SOURCE_DIR "/tests/golden/multi_small_v3_logup1.proof",
    GS_SOURCE_DIR "/tests/golden/multi_small_trees_v3_logup1.proof",
};

static gs_air *g_fib;
static gs_air *g_airs[MULTI_STMT_TABLES];

static gs_proof *prove_fib(unsigned log_n, gs_params par) {
    gs_proof *pf = NULL;
    gs_status s = fib_prove(&pf, g_fib, log_n, &par, 0);
    if (s != GS_OK) fprintf(stderr, "prove fib 2^%u: %s\n", log_n, gs_status_str(s));
    CHECK(s == GS_OK);
    return pf;
}

static gs_multi_proof *prove_multi(uint64_t seed, gs_params par) {
    gs_multi_proof *mp = NULL;
    CHECK(multi_stmt_prove(&mp, seed, &par, 0) == GS_OK);
    return mp;
}

/* ---- batched openings ---- */

/* Nodes a verifier cannot compute: the union of the paths' siblings less
 * the nodes on the paths themselves, counted by brute force. */
static size_t brute_count(const size_t *idx, size_t n, unsigned depth) {
    size_t count = 0;
    for (unsigned l = 0; l < depth; l++) {
        size_t width = (size_t)1 << (depth - l);
        uint8_t *on = calloc(width, 1), *need = calloc(width, 1);
        for (size_t k = 0; k < n; k++) on[idx[k] >> l] = 1, need[(idx[k] >> l) ^ 1] = 1;
        for (size_t i = 0; i < width; i++) count += need[i] && !on[i];
        free(on), free(need);
    }
    return count;
}

static void test_multipath(void) {
    const size_t cols = 3;
    size_t trials = 0;
    for (unsigned depth = 0; depth <= 10; depth++)
        for (size_t n = 1; n <= 40; n += 13) {
            size_t rows = (size_t)1 << depth;
            gs_fp *m = malloc(cols * rows * sizeof *m);
            for (size_t i = 0; i < cols * rows; i++) m[i] = gs_test_below(GS_FP_P);
            gs_merkle_tree *t = NULL;
            CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, cols, rows, depth) == GS_OK);
            size_t *idx = malloc(n * sizeof *idx), *uniq = malloc(n * sizeof *uniq);
            /* Random leaves, with repeats forced in. */
            for (size_t k = 0; k < n; k++) idx[k] = k % 3 == 2 ? idx[k - 1] : gs_test_below(rows);
            gs_digest *paths = calloc(n * depth + 1, sizeof *paths), *back = calloc(n * depth + 1, sizeof *back);
            gs_digest *nodes = calloc(n * depth + 1, sizeof *nodes), *leaves = calloc(n, sizeof *leaves);
            CHECK(gs_merkle_open(t, paths, idx, n) == GS_OK);
            size_t nu = gs_mpath_unique(uniq, idx, n);
            for (size_t j = 1; j < nu; j++) CHECK(uniq[j - 1] < uniq[j]);
            size_t count = gs_mpath_count(uniq, nu, depth);
            CHECK_EQ_U64(count, brute_count(idx, n, depth));
            CHECK(gs_mpath_compress(nodes, idx, n, paths, depth) == GS_OK);
            for (size_t j = 0; j < nu; j++) {
                gs_fp row[3];
                for (size_t c = 0; c < cols; c++) row[c] = m[c * rows + uniq[j]];
                gs_merkle_leaf(GS_HASH_KECCAK256, &leaves[j], row, cols);
            }
            CHECK(gs_mpath_expand(back, idx, n, uniq, leaves, nu, nodes, depth, GS_HASH_KECCAK256) == GS_OK);
            CHECK(memcmp(back, paths, n * depth * sizeof *paths) == 0);
            /* Two paths that disagree on a sent node are refused. */
            if (depth && n > 2 && idx[1] == idx[2]) {
                int sent = 1;
                for (size_t k = 0; k < n; k++) sent &= idx[k] != (idx[2] ^ 1);
                paths[2 * depth].b[0] ^= 1; /* query 2's leaf sibling */
                CHECK(gs_mpath_compress(nodes, idx, n, paths, depth) == (sent ? GS_ERR_INVALID_ARG : GS_OK));
            }
            trials++;
            free(idx), free(uniq), free(paths), free(back), free(nodes), free(leaves), free(m);
            gs_merkle_free(t);
        }
    printf("multipath: %zu trees, every path restored from the sent nodes\n", trials);
}

/* ---- single-table proofs ---- */

/* Everything the verifier reads, compared array by array. */
static int same_table(const gs_table_proof *a, const gs_table_proof *b, const gs_proof *p) {
    size_t Q = a->num_queries, C = a->num_cols, K = a->num_chunks, logN = p->log_n + p->params.log_blowup;
    size_t fpl = 0, frl = 0, la = p->params.log_arity;
    size_t folds = p->log_n > p->params.log_final ? p->log_n - p->params.log_final : 0;
    for (size_t l = 0; l < a->num_layers; l++) {
        size_t ar = folds - l * la < la ? folds - l * la : la;
        fpl += logN - l * la - ar, frl += (size_t)3 << ar;
    }
    return Q == b->num_queries && !memcmp(a->trace_rows, b->trace_rows, Q * C * 8) &&
           !memcmp(a->trace_paths, b->trace_paths, Q * logN * 32) &&
           !memcmp(a->chunk_rows, b->chunk_rows, Q * 3 * K * 8) &&
           !memcmp(a->chunk_paths, b->chunk_paths, Q * logN * 32) &&
           !memcmp(a->fri_rows, b->fri_rows, Q * frl * 8) &&
           !memcmp(a->fri_paths, b->fri_paths, Q * fpl * 32) &&
           (!a->aux_cols || (!memcmp(a->aux_rows, b->aux_rows, Q * 3 * a->aux_cols * 8) &&
                             !memcmp(a->aux_paths, b->aux_paths, Q * logN * 32)));
}

/* Distinct leaves among the positions in a tree of 2^depth leaves. */
static size_t distinct(const uint32_t *pos, size_t n, unsigned depth) {
    size_t d = 0, mask = ((size_t)1 << depth) - 1;
    for (size_t k = 0; k < n; k++) {
        size_t j = 0;
        while (j < k && (pos[j] & mask) != (pos[k] & mask)) j++;
        d += j == k;
    }
    return d;
}

static void test_round_trips(void) {
    static const struct {
        unsigned log_n;
        gs_params par;
    } cases[] = {
        {2, {1, 0, 0, 80, 1, 0, 0, 0, 0}},  /* N = 8 < Q: every position repeats */
        {5, {1, 1, 2, 78, 1, 0, 0, 0, 0}},  {5, {1, 1, 2, 78, 2, 0, 0, 0, 0}}, {6, {2, 0, 0, 40, 3, 0, 0, 0, 0}},
        {7, {1, 2, 2, 78, 4, 0, 0, 0, 0}},  {9, {2, 3, 0, 40, 3, 0, 0, 0, 0}}, {10, {3, 1, 0, 27, 2, 0, 0, 0, 0}},
        {12, {2, 8, 20, 54, 3, 0, 0, 0, 0}}, /* the defaults' arity and final degree */
    };
    size_t repeats = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gs_proof *p = prove_fib(cases[i].log_n, cases[i].par);
        if (!p) continue;
        CHECK(gs_verify(g_fib, p, 0) == GS_OK);
        uint8_t *b3 = NULL, *b1 = NULL, *again = NULL;
        size_t l3 = 0, l1 = 0, la = 0;
        CHECK(gs_proof_serialize(&b3, &l3, p) == GS_OK);
        CHECK(gs_proof_file_kind(b3, l3) == 1 && gs_proof_file_version(b3, l3) == 3);
        gs_proof *q = NULL;
        CHECK(gs_proof_parse(&q, b3, l3) == GS_OK);
        if (q) {
            CHECK(same_table(&p->table, &q->table, p));
            CHECK(memcmp(q->table.query_pos, p->table.query_pos, p->table.num_queries * 4) == 0);
            CHECK(gs_verify(g_fib, q, 0) == GS_OK);
            CHECK(gs_proof_serialize(&again, &la, q) == GS_OK && la == l3 && !memcmp(again, b3, l3));
        }
        /* The last FRI layer's tree, where positions share leaves most. */
        unsigned logN = cases[i].log_n + cases[i].par.log_blowup, lar = cases[i].par.log_arity;
        unsigned folds = cases[i].log_n > cases[i].par.log_final ? cases[i].log_n - cases[i].par.log_final : 0;
        if (folds) {
            unsigned last = (folds - 1) / lar, a = folds - last * lar < lar ? folds - last * lar : lar;
            repeats += distinct(p->table.query_pos, p->table.num_queries, logN - last * lar - a) <
                       p->table.num_queries;
        }
        /* Version 1 where it applies: larger by exactly what the part sizes say. */
        if (cases[i].par.log_arity == 1) {
            CHECK(gs_proof_serialize_as(&b1, &l1, p, GS_PROOF_VERSION) == GS_OK);
            gs_proof_parts v3 = gs_proof_table_parts(p);
            uint32_t *keep = p->table.query_pos;
            p->table.query_pos = NULL;
            gs_proof_parts v1 = gs_proof_table_parts(p);
            p->table.query_pos = keep;
            CHECK(l3 <= l1);
            CHECK_EQ_U64(l1 - l3, v1.total - v3.total);
            gs_proof *q1 = NULL;
            CHECK(gs_proof_parse(&q1, b1, l1) == GS_OK && q1 && !q1->table.query_pos);
            if (q1) CHECK(same_table(&p->table, &q1->table, p) && gs_verify(g_fib, q1, 0) == GS_OK);
            gs_proof_free(q1);
        } else {
            /* Versions 1 and 2 fold by 2 only. */
            CHECK(gs_proof_serialize_as(&b1, &l1, p, GS_PROOF_VERSION) == GS_ERR_INVALID_ARG);
        }
        printf("fib 2^%u, blowup %u, fold by %u, %u queries: version 3 %zu bytes%s", cases[i].log_n,
               1u << cases[i].par.log_blowup, 1u << cases[i].par.log_arity, p->table.num_queries, l3,
               l1 ? "" : "\n");
        if (l1) printf(", version 1 %zu bytes\n", l1);
        free(b3), free(b1), free(again);
        gs_proof_free(q);
        gs_proof_free(p);
    }
    CHECK(repeats >= 1); /* leaves opened by several queries were sent once and restored */
}

/* Every truncation, random flips, positions out of range or exchanged. */
static void test_tampering(void) {
    gs_proof *p = prove_fib(5, (gs_params){1, 1, 2, 78, 3, 0, 0, 0, 0});
    uint8_t *b = NULL;
    size_t len = 0;
    if (!p || gs_proof_serialize(&b, &len, p) != GS_OK) {
        CHECK(0);
        gs_proof_free(p);
        return;
    }
    size_t parse_fail = 0;
    for (size_t n = 0; n < len; n++) {
        gs_proof *q = NULL;
        gs_status s = gs_proof_parse(&q, b, n);
        parse_fail += s == GS_ERR_PROOF_FORMAT && !q;
        gs_proof_free(q);
    }
    CHECK_EQ_U64(parse_fail, len);
    long accepted = 0, by_parse = 0;
    for (int i = 0; i < 400; i++) {
        size_t at = gs_test_below(len);
        uint8_t x = (uint8_t)(1 + gs_test_below(255));
        b[at] ^= x;
        gs_proof *q = NULL;
        gs_status s = gs_proof_parse(&q, b, len);
        if (s == GS_OK) {
            if (gs_verify(g_fib, q, 0) == GS_OK) {
                accepted++;
                fprintf(stderr, "flip accepted: byte %zu ^ 0x%02x\n", at, x);
            }
        } else {
            by_parse++;
        }
        gs_proof_free(q);
        b[at] ^= x;
    }
    CHECK(accepted == 0);
    printf("tampering: %zu truncations refused by the parser; 400 flips: %ld by the parser, the rest by "
           "the verifier, %ld accepted\n", len, by_parse, accepted);
    /* The positions follow the statement (HEAD) and the sub-proof's fixed
     * part: find them as the first Q u32s equal to the proof's positions. */
    uint32_t Q = p->table.num_queries;
    size_t at = 0;
    for (size_t o = 0; o + 4 * (size_t)Q <= len && !at; o++) {
        size_t k = 0;
        while (k < Q && rd32(b + o + 4 * k) == p->table.query_pos[k]) k++;
        if (k == Q) at = o;
    }
    CHECK(at > 0);
    if (at) {
        uint32_t N = 1u << (5 + 1), keep0 = rd32(b + at), keep1 = rd32(b + at + 4);
        wr32(b + at, N); /* out of range */
        gs_proof *q = NULL;
        CHECK(gs_proof_parse(&q, b, len) == GS_ERR_PROOF_FORMAT && !q);
        if (keep0 != keep1) {
            wr32(b + at, keep1), wr32(b + at + 4, keep0); /* exchanged: well formed, not the drawn order */
            CHECK(gs_proof_parse(&q, b, len) == GS_OK);
            if (q) CHECK(gs_verify(g_fib, q, 0) == GS_ERR_PROOF_QUERIES);
            gs_proof_free(q);
        }
        wr32(b + at, keep0), wr32(b + at + 4, keep0); /* repeated: drawn positions are distinct */
        CHECK(gs_proof_parse(&q, b, len) == GS_ERR_PROOF_FORMAT && !q);
        wr32(b + at, keep0), wr32(b + at + 4, keep1);
    }
    /* Unknown versions are named, not read. */
    wr32(b + 8, 4);
    gs_proof *q = NULL;
    CHECK(gs_proof_parse(&q, b, len) == GS_ERR_PROOF_FORMAT && gs_proof_file_version(b, len) == 4 &&
          gs_proof_file_kind(b, len) == 0);
    wr32(b + 8, 3);
    CHECK(gs_proof_parse(&q, b, len) == GS_OK && gs_verify(g_fib, q, 0) == GS_OK);
    gs_proof_free(q);
    free(b);
    gs_proof_free(p);
}

/* ---- multi-table proofs ---- */

static void test_multi(void) {
    for (uint32_t la = 1; la <= 4; la++) {
        gs_params par = MULTI_STMT_PARAMS;
        par.log_arity = la;
        gs_multi_proof *mp = prove_multi(la, par);
        if (!mp) continue;
        uint8_t *b = NULL, *again = NULL;
        size_t len = 0, l2 = 0;
        CHECK(gs_multi_proof_serialize(&b, &len, mp) == GS_OK);
        CHECK(gs_proof_file_kind(b, len) == 2 && gs_proof_file_version(b, len) == 3);
        gs_multi_proof *q = NULL;
        gs_proof *single = NULL;
        CHECK(gs_proof_parse(&single, b, len) == GS_ERR_PROOF_FORMAT && !single);
        CHECK(gs_multi_proof_parse(&q, b, len) == GS_OK);
        if (q) {
            for (uint32_t i = 0; i < mp->num_tables; i++)
                CHECK(same_table(&mp->tables[i].table, &q->tables[i].table, &mp->tables[i]));
            CHECK(gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) == GS_OK);
            CHECK(gs_multi_proof_serialize(&again, &l2, q) == GS_OK && l2 == len && !memcmp(again, b, len));
        }
        free(again); /* serialize_as sets again to NULL first: the round trip's copy would leak */
        again = NULL;
        if (la > 1) CHECK(gs_multi_proof_serialize_as(&again, &l2, mp, 2) == GS_ERR_INVALID_ARG);
        printf("multi-table, fold by %u: version 3 %zu bytes\n", 1u << la, len);
        free(b), free(again);
        gs_multi_proof_free(q);
        gs_multi_proof_free(mp);
    }
}

/* ---- proofs in the LogUp layout of before 2026-12-05 are named ---- */

/* Each file still parses; the verifier refuses it for its layout (its bus
 * tables have one aux column more than their groups), before reading any
 * aux array, with the status that says so. */
static void test_logup_v1(void) {
    for (size_t f = 0; f < sizeof GOLDEN_LOGUP1 / sizeof GOLDEN_LOGUP1[0]; f++) {
        size_t len = 0;
        uint8_t *b = read_file(GOLDEN_LOGUP1[f], &len);
        CHECK(b != NULL);
        gs_multi_proof *q = NULL;
        CHECK(b && gs_multi_proof_parse(&q, b, len) == GS_OK);
        if (q) {
            uint32_t t = 0; /* a table with buses */
            while (t < q->num_tables && !q->tables[t].table.aux_cols) t++;
            CHECK(t < q->num_tables);
            gs_logup L;
            CHECK(t < q->num_tables && gs_logup_layout(&L, g_airs[t]) == GS_OK &&
                  q->tables[t].table.aux_cols == L.aux_cols + 1);
            gs_logup_free(&L);
            CHECK(gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) == GS_ERR_PROOF_LOGUP_V1);
        }
        gs_multi_proof_free(q);
        free(b);
    }
}

/* ---- version 1 still verifies ---- */

static void test_legacy(void) {
    size_t len = 0;
    uint8_t *b = read_file(GOLDEN_V1, &len);
    CHECK(b != NULL);
    gs_proof *p = NULL;
    CHECK(b && gs_proof_parse(&p, b, len) == GS_OK);
    if (p) {
        CHECK(gs_verify(g_fib, p, 0) == GS_OK);
        gs_proof *f = prove_fib(p->log_n, p->params);
        CHECK(f && same_table(&p->table, &f->table, p));
        gs_proof_free(f);
    }
    gs_proof_free(p);
    free(b);
}

/* ---- golden files ---- */

static const gs_params GOLDEN_PARAMS = {1, 1, 2, 78, 2, 0, 0, 0, 0};

static void golden(const char *path, const uint8_t *b, size_t len, int regen) {
    if (regen) {
        CHECK(write_file(path, b, len));
        printf("golden: wrote %s (%zu bytes)\n", path, len);
        return;
    }
    size_t glen = 0;
    uint8_t *g = read_file(path, &glen);
    if (!g) fprintf(stderr, "golden: cannot read %s (test_proof_format_v3 --regen writes it)\n", path);
    CHECK(g && glen == len && !memcmp(g, b, len));
    if (g && (glen != len || memcmp(g, b, len)))
        fprintf(stderr, "golden: MISMATCH: %s (%zu bytes) differs from the current prover and "
                        "serializer (%zu bytes); a deliberate format change regenerates it\n", path, glen, len);
    else if (g) printf("golden: %s matches (%zu bytes)\n", path, len);
    free(g);
}

static void test_golden(int regen) {
    gs_proof *p = prove_fib(6, GOLDEN_PARAMS);
    gs_multi_proof *mp = prove_multi(7, GOLDEN_PARAMS);
    gs_params tp = GOLDEN_PARAMS;
    tp.shared_fri = GS_SHARED_TREES;
    gs_multi_proof *tmp = prove_multi(7, tp);
    uint8_t *b = NULL, *m = NULL, *tb = NULL;
    size_t lb = 0, lm = 0, lt = 0;
    CHECK(p && gs_proof_serialize(&b, &lb, p) == GS_OK);
    CHECK(mp && gs_multi_proof_serialize(&m, &lm, mp) == GS_OK);
    CHECK(tmp && gs_multi_proof_serialize(&tb, &lt, tmp) == GS_OK);
    if (b) golden(GOLDEN_SINGLE, b, lb, regen);
    if (m) golden(GOLDEN_MULTI, m, lm, regen);
    if (tb) golden(GOLDEN_TREES, tb, lt, regen);
    /* The files verify on their own. */
    gs_proof *q = NULL;
    gs_multi_proof *mq = NULL;
    CHECK(b && gs_proof_parse(&q, b, lb) == GS_OK && gs_verify(g_fib, q, 0) == GS_OK);
    CHECK(m && gs_multi_proof_parse(&mq, m, lm) == GS_OK &&
          gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, mq, 0) == GS_OK);
    gs_proof_free(q), gs_multi_proof_free(mq);
    mq = NULL;
    CHECK(tb && gs_multi_proof_parse(&mq, tb, lt) == GS_OK &&
          gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, mq, 0) == GS_OK);
    gs_multi_proof_free(mq);
    free(b), free(m), free(tb);
    gs_proof_free(p), gs_multi_proof_free(mp), gs_multi_proof_free(tmp);
}

/* Fold by 2, 4 and 8; then the same with Merkle caps of height 2; then
 * with coset leaves (docs/protocol.md, "Coset leaves"). */
static int write_seeds(const char *dir, const char *dir_multi) {
    for (uint32_t i = 0; i < 9; i++) {
        uint32_t la = 1 + i % 3, cap = i >= 3 && i < 6 ? 2 : 0, coset = i >= 6;
        gs_params par = {1, 1, 2, 78, la, 0, cap, 0, coset};
        gs_proof *p = prove_fib(2 + la, par);
        gs_multi_proof *mp = prove_multi(la, par);
        uint8_t *b = NULL, *m = NULL;
        size_t lb = 0, lm = 0;
        char path[4096];
        const char *tag = cap ? "cap2_" : coset ? "coset_" : "";
        CHECK(p && gs_proof_serialize(&b, &lb, p) == GS_OK);
        CHECK(mp && gs_multi_proof_serialize(&m, &lm, mp) == GS_OK);
        snprintf(path, sizeof path, "%s/seed_fib_v3_%s%u.proof", dir, tag, la);
        CHECK(b && write_file(path, b, lb));
        snprintf(path, sizeof path, "%s/seed_multi_v3_%s%u.proof", dir_multi, tag, la);
        CHECK(m && write_file(path, m, lm));
        free(b), free(m);
        gs_proof_free(p), gs_multi_proof_free(mp);
    }
    return gs_test_done();
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    int regen = 0;
    const char *seeds = NULL, *seeds_multi = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--regen")) regen = 1;
        if (!strcmp(argv[i], "--write-seeds") && i + 2 < argc) seeds = argv[i + 1], seeds_multi = argv[i + 2];
    }
    g_fib = fib_air();
    CHECK(multi_stmt_airs(g_airs) == GS_OK);
    int rc;
    if (seeds) {
        rc = write_seeds(seeds, seeds_multi);
    } else {
        if (!regen) {
            test_multipath();
            test_round_trips();
            test_tampering();
            test_multi();
            test_legacy();
            test_logup_v1();
        }
        test_golden(regen);
        rc = gs_test_done();
    }
    gs_air_free(g_fib);
    for (uint32_t t = 0; t < MULTI_STMT_TABLES; t++) gs_air_free(g_airs[t]);
    return rc;
}
