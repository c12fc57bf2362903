/* Merkle caps (gs_params.cap_height; docs/protocol.md, "Merkle trees";
 * docs/proof-format.md, "Merkle caps"):
 * - trees: the cap of height c is level d - c of the tree (a skipping tree
 *   gives the same one), every leaf's path cut below it verifies against
 *   it, a changed cap node rejects exactly the leaves under it, c > d and a
 *   path checked against another cap height are refused;
 * - proofs at cap heights 0, 1, 3, 6 and one above every tree's depth
 *   (h' = depth: the cap is the leaves, the paths are empty), every FRI
 *   arity, both hashes, single- and multi-table: they verify, round-trip
 *   byte for byte through version 3 with every per-query path restored,
 *   paths are log N - h' long, the trace cap hashes up to the h = 0 proof's
 *   trace root (the trace tree does not depend on h), the bytes are the same
 *   with 1 and 3 threads, the file is what gs_proof_table_parts counts plus
 *   the header's 8-byte end, the statement digest changes with h (h = 0:
 *   the digest of before), and the version 1/2 writers refuse h > 0;
 * - tampering: every byte of every cap and of every opening (Merkle nodes
 *   and rows) of a capped file flipped, every truncation, the cap height
 *   in the file and in the struct changed: all rejected, never accepted;
 * - a cheating prover (one cell of the trace wrong, the trace check off,
 *   the out-of-domain value forged) rejected at every arity x cap height
 *   0, 2, 5 x hash. */
#include "cheat_ood.h"
#include "fib_air.h"
#include "fuzz/multi_stmt.h"
#include "gstark/hash.h"
#include "gstark/merkle.h"
#include "gstark/parallel.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "prover/prover_internal.h"
#include "test_util.h"

static gs_air *g_fib;
static gs_air *g_airs[MULTI_STMT_TABLES];

static const gs_hash_id HASHES[2] = {GS_HASH_KECCAK256, GS_HASH_POSEIDON2};
/* 9 is above every tree of the statements below (log N <= 7). */
static const uint32_t HEIGHTS[5] = {0, 1, 3, 6, 9};

static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }

/* The root above a cap of height c: hash the levels pairwise. */
static gs_digest hash_up(gs_hash_id id, const gs_digest *cap, unsigned c) {
    gs_digest lv[1u << 10];
    memcpy(lv, cap, ((size_t)1 << c) * sizeof *lv);
    for (size_t n = (size_t)1 << c; n > 1; n /= 2)
        for (size_t j = 0; j < n / 2; j++) gs_hash_pair(id, &lv[j], &lv[2 * j], &lv[2 * j + 1]);
    return lv[0];
}

/* ---- trees ---- */

static void test_tree_caps(gs_hash_id id) {
    enum { D = 6, COLS = 3 };
    size_t n = (size_t)1 << D;
    gs_fp m[COLS << D];
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) m[i] = gs_test_fp();
    gs_merkle_tree *t = NULL, *sk = NULL;
    CHECK(gs_merkle_commit(&t, id, m, COLS, n, D) == GS_OK);
    CHECK(gs_merkle_commit_skip(&sk, id, m, COLS, n, D, 3) == GS_OK);
    if (!t || !sk) return;
    gs_digest root = gs_merkle_root(t), cap[1u << D], cap2[1u << D], paths[D << D];
    size_t idx[1u << D];
    for (size_t i = 0; i < n; i++) idx[i] = i;
    CHECK(gs_merkle_open(t, paths, idx, n) == GS_OK);
    gs_digest none;
    CHECK(gs_merkle_cap(t, &none, D + 1) == GS_ERR_INVALID_ARG);
    for (unsigned c = 0; c <= D; c++) {
        CHECK(gs_merkle_cap(t, cap, c) == GS_OK);
        /* Level D - c, read independently of gs_merkle_cap. */
        for (size_t j = 0; j < ((size_t)1 << c); j++)
            CHECK(memcmp(&cap[j], gs_merkle_node(t, D - c, j), sizeof cap[j]) == 0);
        gs_digest up = hash_up(id, cap, c);
        CHECK(memcmp(&up, &root, sizeof up) == 0);
        /* The skipping tree stores levels 3.. only: caps up to height D - 3. */
        gs_status sr = gs_merkle_cap(sk, cap2, c);
        if (c <= D - 3) CHECK(sr == GS_OK && memcmp(cap, cap2, sizeof(gs_digest) << c) == 0);
        else CHECK(sr == GS_ERR_INVALID_ARG);
        unsigned len = D - c;
        for (size_t i = 0; i < n; i++) {
            gs_fp row[COLS];
            for (int k = 0; k < COLS; k++) row[k] = m[k * n + i];
            /* The path cut below the cap: its first D - c digests. */
            CHECK(gs_merkle_verify_cap(id, cap, c, D, i, row, COLS, paths + i * D) == GS_OK);
            if (c < D) /* one level too many or too few: refused */
                CHECK(gs_merkle_verify_cap(id, cap, c + 1, D, i, row, COLS, paths + i * D) != GS_OK);
            if (c > 0)
                CHECK(gs_merkle_verify_cap(id, cap, c - 1, D, i, row, COLS, paths + i * D) != GS_OK);
        }
        CHECK(gs_merkle_verify_cap(id, cap, c, D, n, m, COLS, paths) == GS_ERR_INVALID_ARG);
        /* A changed cap node: exactly the leaves under it fail. */
        size_t j = gs_test_below((size_t)1 << c);
        cap[j].b[gs_test_below(32)] ^= 0x10;
        for (size_t i = 0; i < n; i++) {
            gs_fp row[COLS];
            for (int k = 0; k < COLS; k++) row[k] = m[k * n + i];
            gs_status r = gs_merkle_verify_cap(id, cap, c, D, i, row, COLS, paths + i * D);
            CHECK((i >> len) == j ? r == GS_ERR_MERKLE_PATH : r == GS_OK);
        }
    }
    gs_merkle_free(t), gs_merkle_free(sk);
}

/* ---- proofs ---- */

static gs_proof *prove_fib(unsigned log_n, gs_params par, unsigned threads) {
    gs_proof *pf = NULL;
    gs_status s = fib_prove(&pf, g_fib, log_n, &par, threads);
    if (s != GS_OK) fprintf(stderr, "prove fib 2^%u, cap height %u: %s\n", log_n, par.cap_height, gs_status_str(s));
    CHECK(s == GS_OK);
    return pf;
}

static gs_multi_proof *prove_multi(gs_params par, unsigned threads) {
    gs_multi_proof *mp = NULL;
    CHECK(multi_stmt_prove(&mp, 7, &par, threads) == GS_OK);
    return mp;
}

/* One table's caps and paths against the shape, computed here: the trace
 * cap hashes up to `root0` (the same statement's trace root at h = 0), the
 * root fields are empty, the parsed twin `q` carries the same caps and the
 * same per-query paths. */
static void check_table(const gs_proof *p, const gs_proof *q, const gs_digest *root0) {
    const gs_table_proof *t = &p->table, *u = &q->table;
    unsigned h = p->params.cap_height, logN = p->log_n + p->params.log_blowup, c = min_u(h, logN);
    size_t Q = t->num_queries, plen = logN - c;
    CHECK(t->cap_height == h && u->cap_height == h);
    gs_digest top = hash_up((gs_hash_id)p->params.hash, h ? t->caps : &t->trace_root, c);
    CHECK(memcmp(&top, root0, sizeof top) == 0);
    size_t caps = ((size_t)(t->aux_cols ? 3 : 2)) << c, fri_path = 0;
    size_t la = p->params.log_arity, folds = p->log_n > p->params.log_final ? p->log_n - p->params.log_final : 0;
    for (size_t l = 0; l < t->num_layers; l++) {
        size_t a = min_u((unsigned)(folds - l * la), (unsigned)la), d = logN - l * la - a;
        fri_path += d - min_u(h, (unsigned)d), caps += (size_t)1 << min_u(h, (unsigned)d);
    }
    CHECK(t->fri_path_len == fri_path);
    if (h) {
        static const gs_digest zero;
        CHECK(t->caps && u->caps && memcmp(t->caps, u->caps, caps * sizeof zero) == 0);
        CHECK(!memcmp(&t->trace_root, &zero, sizeof zero) && !memcmp(&u->chunk_root, &zero, sizeof zero));
    } else {
        CHECK(!t->caps && !u->caps);
    }
    CHECK(memcmp(t->trace_paths, u->trace_paths, Q * plen * sizeof(gs_digest)) == 0);
    CHECK(memcmp(t->chunk_paths, u->chunk_paths, Q * plen * sizeof(gs_digest)) == 0);
    CHECK(memcmp(t->fri_paths, u->fri_paths, Q * fri_path * sizeof(gs_digest)) == 0);
    if (t->aux_cols) CHECK(memcmp(t->aux_paths, u->aux_paths, Q * plen * sizeof(gs_digest)) == 0);
}

/* Everything but the commitments, openings and the header's end: the same at
 * every cap height of a statement. */
static long overhead(size_t len, const gs_proof_parts *parts, uint32_t n, const gs_params *q) {
    long tail = q->cap_height ? 8 : q->hash != GS_HASH_KECCAK256 ? 4 : 0;
    (void)n;
    return (long)len - (long)parts->total - tail;
}

static void test_single(void) {
    int n = 0;
    for (int hi = 0; hi < 2; hi++)
        for (uint32_t la = 1; la <= 4; la++) {
            gs_params par = {1, 1, 2, 78, la, HASHES[hi], 0, 0, 0};
            gs_proof *base = prove_fib(6, par, 1);
            if (!base) continue;
            uint8_t *b0 = NULL;
            size_t l0 = 0;
            CHECK(gs_proof_serialize(&b0, &l0, base) == GS_OK);
            gs_proof_parts pa0 = gs_proof_table_parts(base);
            long over0 = overhead(l0, &pa0, 1, &par);
            for (int k = 0; k < 5; k++) {
                par.cap_height = HEIGHTS[k];
                gs_proof *p = prove_fib(6, par, 1), *p3 = prove_fib(6, par, 3), *q = NULL;
                uint8_t *b = NULL, *b3 = NULL, *b2 = NULL, *v1 = NULL;
                size_t l = 0, l3 = 0, l2 = 0, lv1 = 0;
                CHECK(p && p3 && gs_verify(g_fib, p, 0) == GS_OK);
                CHECK(p && gs_proof_serialize(&b, &l, p) == GS_OK);
                CHECK(p3 && gs_proof_serialize(&b3, &l3, p3) == GS_OK);
                CHECK(l == l3 && b && b3 && memcmp(b, b3, l) == 0); /* threads do not matter */
                CHECK(gs_proof_parse(&q, b, l) == GS_OK);
                CHECK(q && gs_verify(g_fib, q, 0) == GS_OK);
                CHECK(q && gs_proof_serialize(&b2, &l2, q) == GS_OK && l2 == l && memcmp(b, b2, l) == 0);
                if (p && q) check_table(p, q, &base->table.trace_root);
                if (q) CHECK(q->params.cap_height == HEIGHTS[k]);
                /* The statement digest names the cap height (and only it here). */
                gs_digest d0 = gs_proof_statement_digest(base), d = gs_proof_statement_digest(q ? q : base);
                CHECK(HEIGHTS[k] ? memcmp(&d, &d0, sizeof d) != 0 : memcmp(&d, &d0, sizeof d) == 0);
                gs_proof_parts pa = p ? gs_proof_table_parts(p) : pa0;
                CHECK(overhead(l, &pa, 1, &par) == over0);
                /* h = 0 is the proof made without the field: the same bytes. */
                if (!HEIGHTS[k]) CHECK(l == l0 && memcmp(b, b0, l) == 0);
                gs_status s1 = p ? gs_proof_serialize_as(&v1, &lv1, p, GS_PROOF_VERSION) : GS_OK;
                CHECK(HEIGHTS[k] || la > 1 || hi ? s1 == GS_ERR_INVALID_ARG && !v1 : s1 == GS_OK);
                n++;
                free(b), free(b3), free(b2), free(v1);
                gs_proof_free(p), gs_proof_free(p3), gs_proof_free(q);
            }
            free(b0);
            gs_proof_free(base);
        }
    printf("single-table: %d proofs at cap heights 0, 1, 3, 6, 9, folds by 2..16, both hashes\n", n);
}

static void test_multi(void) {
    int n = 0;
    for (int hi = 0; hi < 2; hi++)
        for (uint32_t la = 1; la <= 4; la++) {
            gs_params par = {1, 1, 2, 78, la, HASHES[hi], 0, 0, 0};
            gs_multi_proof *base = prove_multi(par, 1);
            if (!base) continue;
            for (int k = 1; k < 5; k++) {
                par.cap_height = HEIGHTS[k];
                gs_multi_proof *p = prove_multi(par, 1), *p3 = prove_multi(par, 3), *q = NULL;
                uint8_t *b = NULL, *b3 = NULL, *b2 = NULL, *v2 = NULL;
                size_t l = 0, l3 = 0, l2 = 0, lv2 = 0;
                const gs_air *const *airs = (const gs_air *const *)g_airs;
                CHECK(p && gs_verify_multi(airs, MULTI_STMT_TABLES, p, 0) == GS_OK);
                CHECK(p && gs_multi_proof_serialize(&b, &l, p) == GS_OK);
                CHECK(p3 && gs_multi_proof_serialize(&b3, &l3, p3) == GS_OK);
                CHECK(l == l3 && b && b3 && memcmp(b, b3, l) == 0);
                CHECK(gs_multi_proof_parse(&q, b, l) == GS_OK);
                CHECK(q && gs_verify_multi(airs, MULTI_STMT_TABLES, q, 0) == GS_OK);
                CHECK(q && gs_multi_proof_serialize(&b2, &l2, q) == GS_OK && l2 == l && memcmp(b, b2, l) == 0);
                for (uint32_t i = 0; p && q && i < MULTI_STMT_TABLES; i++)
                    check_table(&p->tables[i], &q->tables[i], &base->tables[i].table.trace_root);
                CHECK(p && gs_multi_proof_serialize_as(&v2, &lv2, p, GS_PROOF_VERSION_MULTI) == GS_ERR_INVALID_ARG);
                n++;
                free(b), free(b3), free(b2), free(v2);
                gs_multi_proof_free(p), gs_multi_proof_free(p3), gs_multi_proof_free(q);
            }
            gs_multi_proof_free(base);
        }
    printf("multi-table: %d proofs at cap heights 1, 3, 6, 9, folds by 2..16, both hashes\n", n);
}

/* ---- tampering ---- */

static uint32_t rd32(const uint8_t *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }
static uint64_t rd64(const uint8_t *b) { return rd32(b) | (uint64_t)rd32(b + 4) << 32; }

/* A single-table file changed in place: refused by the parser or rejected
 * by the verifier (counted), never accepted. */
static int rejected(const uint8_t *b, size_t l, int *by_parser) { return file_rejected(g_fib, b, l, by_parser); }

static void test_tamper(gs_hash_id hash) {
    /* Blowup 8, 27 queries: a small file whose every byte is flipped. */
    gs_params par = {3, 1, 0, 27, 2, hash, 3, 0, 0};
    gs_proof *p = prove_fib(4, par, 1);
    uint8_t *b = NULL;
    size_t l = 0;
    CHECK(p && gs_proof_serialize(&b, &l, p) == GS_OK);
    if (!b) return gs_proof_free(p);
    /* HEAD, then TABL: counts, trace cap, chunk cap (2^3 digests each: log N = 7). */
    size_t head = rd64(b + 16), body = 24 + head + 12, capsz = 8 * 32;
    CHECK(rd32(b + 24 + head - 4) == 3 && rd32(b + 24 + head - 8) == (uint32_t)hash);
    CHECK(memcmp(b + body + 8, p->table.caps, 2 * capsz) == 0);
    int parser = 0, flips = (int)l - 12;
    CHECK(every_byte_accepted(g_fib, b, l, &parser) == 0); /* caps, nodes, rows, everything */
    printf("%s, cap height 3: %d single-byte flips (caps, nodes, rows, everything), %d refused by "
           "the parser, the rest by the verifier\n", gs_hash_name(hash), flips, parser);
    /* Every cap digest byte by byte: all eight values of a bit in each. */
    for (size_t i = body + 8; i < body + 8 + 2 * capsz; i++) {
        uint8_t old = b[i];
        for (int bit = 0; bit < 8; bit++) {
            b[i] = old ^ (uint8_t)(1u << bit);
            CHECK(rejected(b, l, &parser));
        }
        b[i] = old;
    }
    for (size_t cut = 0; cut < l; cut++) {
        gs_proof *q = NULL;
        CHECK(gs_proof_parse(&q, b, cut) == GS_ERR_PROOF_FORMAT && !q);
    }
    /* The cap height in the file: any other value is refused or rejected. */
    uint8_t *hf = b + 24 + head - 4;
    uint32_t others[] = {0, 1, 2, 4, 5, 6, 9, 10, 11, 0xffffffffu};
    for (size_t j = 0; j < sizeof others / sizeof others[0]; j++) {
        for (int k = 0; k < 4; k++) hf[k] = (uint8_t)(others[j] >> (8 * k));
        CHECK(rejected(b, l, &parser));
    }
    for (int k = 0; k < 4; k++) hf[k] = (uint8_t)(3u >> (8 * k));
    CHECK(!rejected(b, l, &parser));
    /* In the struct: the params' cap height alone, or the arrays' alone. */
    uint32_t keep = p->params.cap_height;
    for (uint32_t h = 0; h <= GS_MAX_CAP_HEIGHT + 1; h++) {
        if (h == keep) continue;
        p->params.cap_height = h;
        CHECK(gs_verify(g_fib, p, 0) != GS_OK);
        p->params.cap_height = keep;
        p->table.cap_height = h;
        CHECK(gs_verify(g_fib, p, 0) == GS_ERR_PROOF_FORMAT);
        p->table.cap_height = keep;
    }
    CHECK(gs_verify(g_fib, p, 0) == GS_OK);
    free(b);
    gs_proof_free(p);
}

static void test_tamper_multi(void) {
    gs_params par = {1, 1, 2, 78, 3, GS_HASH_KECCAK256, 2, 0, 0};
    gs_multi_proof *p = prove_multi(par, 1);
    uint8_t *b = NULL;
    size_t l = 0;
    CHECK(p && gs_multi_proof_serialize(&b, &l, p) == GS_OK);
    int accepted = 0;
    for (size_t cut = 0; b && cut < l; cut++) {
        gs_multi_proof *q = NULL;
        CHECK(gs_multi_proof_parse(&q, b, cut) == GS_ERR_PROOF_FORMAT && !q);
    }
    accepted = multi_flips_accepted((const gs_air *const *)g_airs, MULTI_STMT_TABLES, b, l, 2000);
    CHECK(accepted == 0);
    /* Every byte of every cap digest (aux caps included), found in the file
     * by its bytes. */
    int cap_flips = 0;
    for (uint32_t i = 0; b && p && i < MULTI_STMT_TABLES; i++) {
        const gs_table_proof *t = &p->tables[i].table;
        unsigned logN = p->tables[i].log_n + par.log_blowup, c = min_u(par.cap_height, logN);
        size_t caps = ((size_t)(t->aux_cols ? 3 : 2)) << c;
        for (uint32_t l = 0; l < t->num_layers; l++) {
            unsigned a = min_u(p->tables[i].log_n - par.log_final - l * par.log_arity, par.log_arity);
            caps += (size_t)1 << min_u(par.cap_height, logN - l * par.log_arity - a);
        }
        for (size_t d = 0; d < caps; d++) {
            uint8_t *at = NULL;
            for (size_t o = 0; !at && o + 32 <= l; o++)
                if (!memcmp(b + o, t->caps[d].b, 32)) at = b + o;
            CHECK(at != NULL);
            for (int j = 0; at && j < 32; j++) {
                uint8_t old = at[j];
                at[j] ^= (uint8_t)(1u << gs_test_below(8));
                gs_multi_proof *q = NULL;
                gs_status s = gs_multi_proof_parse(&q, b, l);
                CHECK(s != GS_OK || gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) != GS_OK);
                gs_multi_proof_free(q);
                at[j] = old;
                cap_flips++;
            }
        }
    }
    printf("multi-table, cap height 2: every truncation, 2000 random flips, %d cap-byte flips rejected\n",
           cap_flips);
    /* The MHDR's cap height (its last u32). */
    if (b) {
        uint8_t *hf = b + 24 + rd64(b + 16) - 4;
        CHECK(rd32(hf) == 2);
        hf[0] = 3;
        gs_multi_proof *q = NULL;
        gs_status s = gs_multi_proof_parse(&q, b, l);
        CHECK(s != GS_OK || gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) != GS_OK);
        gs_multi_proof_free(q);
    }
    free(b);
    gs_multi_proof_free(p);
}

static void test_limits(void) {
    gs_params par = {1, 1, 2, 78, 1, 0, GS_MAX_CAP_HEIGHT + 1, 0, 0};
    gs_fp pub[4] = {1, 1, 0, 0};
    gs_fp *m = fib_trace(4, pub);
    gs_proof *pf = NULL;
    CHECK(gs_prove(&pf, g_fib, m, 4, pub, &par, NULL) == GS_ERR_INVALID_ARG && !pf);
    CHECK(gs_params_check(&par, 80) == GS_ERR_PROOF_PARAMS);
    par.cap_height = GS_MAX_CAP_HEIGHT;
    CHECK(gs_params_check(&par, 80) == GS_OK);
    CHECK(gs_params_security(&par) == 80); /* caps do not change the level */
    free(m);
}

/* ---- a cheating prover ---- */

static void test_cheating(void) {
    static const uint32_t heights[3] = {0, 2, 5};
    int n = 0, by_kind[3] = {0, 0, 0};
    for (int hi = 0; hi < 2; hi++)
        for (uint32_t la = 1; la <= 4; la++)
            for (int k = 0; k < 3; k++) {
                gs_params par = {2, 2, 0, 40, la, HASHES[hi], heights[k], 0, 0};
                unsigned log_n = 5 + (unsigned)gs_test_below(4);
                gs_fp pub[4] = {1, 1, 0, 0};
                gs_fp *m = fib_trace(log_n, pub);
                gs_proof *pf;
                gs_status v = cheat_prove(&pf, g_fib, m, (size_t)2 << log_n, log_n, pub, &par);
                int kind = cheat_kind(v);
                CHECK(kind >= 0);
                if (kind < 0)
                    fprintf(stderr, "cheating prover (%s, fold by %u, cap height %u): %s\n",
                            gs_hash_name(HASHES[hi]), 1u << la, heights[k], gs_status_str(v));
                else by_kind[kind]++;
                CHECK(pf && file_verify(g_fib, pf) == v); /* and through the file */
                n++;
                free(m);
                gs_proof_free(pf);
            }
    printf("cheating prover: %d proofs (folds by 2..16 x cap heights 0, 2, 5 x both hashes) rejected: "
           "%d at DEEP, %d at a fold, %d at the final polynomial\n", n, by_kind[0], by_kind[1], by_kind[2]);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    g_fib = fib_air();
    CHECK(g_fib && multi_stmt_airs(g_airs) == GS_OK);
    test_tree_caps(GS_HASH_KECCAK256);
    test_tree_caps(GS_HASH_POSEIDON2);
    test_limits();
    test_single();
    test_multi();
    test_tamper(GS_HASH_KECCAK256);
    test_tamper(GS_HASH_POSEIDON2);
    test_tamper_multi();
    test_cheating();
    for (uint32_t i = 0; i < MULTI_STMT_TABLES; i++) gs_air_free(g_airs[i]);
    gs_air_free(g_fib);
    return gs_test_done();
}
