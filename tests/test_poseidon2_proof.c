/* Poseidon2 as a proof's hash (gs_params.hash = GS_HASH_POSEIDON2; docs/hash.md, "Poseidon2 in
 * proofs"):
 * - the byte mode of the hash interface against its rule written out here (7-byte elements,
 *   0x01 padding, the byte-mode tag), incremental = one-shot at every split, gs_hash_many =
 *   gs_hash (in place too), gs_hash_pair = the compression; Keccak-256 unchanged;
 * - Merkle trees: every node equals the tree built here from gs_poseidon2_hash and
 *   gs_poseidon2_compress, the same at every thread count, openings verify, a changed row does
 *   not;
 * - the transcript: grinding finds the smallest nonce whatever the thread count;
 * - proofs: verify, round-trip byte for byte through version 3 (the hash id at the end of
 *   HEAD / MHDR), are refused as version 1; the same bytes at every thread count, table
 *   parallelism and memory budget; rejected with the hash id changed (unknown id:
 *   GS_ERR_PROOF_PARAMS); an explicit Keccak id, an unknown id, a non-canonical digest and a
 *   dropped id refused; truncations and byte flips rejected by the parser or the verifier. */
#include <string.h>

#include "fib_air.h"
#include "fuzz/multi_stmt.h"
#include "gstark/hash.h"
#include "gstark/merkle.h"
#include "gstark/parallel.h"
#include "gstark/poseidon2.h"
#include "gstark/prover.h"
#include "gstark/transcript.h"
#include "gstark/verifier.h"
#include "test_io.h"
#include "test_util.h"

/* ---- the byte mode ---- */

/* The rule of gstark/hash.h, written out on its own: width-12 state, element 9 = 1, the message
 * then 0x01 then zeros to a multiple of 56 bytes, 7 bytes little-endian per element, blocks of 8
 * elements added into elements 0..7, a permutation after each, digest elements 0..3. */
static void ref_bytes(gs_digest *out, const uint8_t *msg, size_t len) {
    size_t padded = (len / 56 + 1) * 56;
    uint8_t *buf = calloc(padded, 1);
    memcpy(buf, msg, len);
    buf[len] = 0x01;
    gs_fp st[12] = {0};
    st[9] = 1;
    for (size_t b = 0; b < padded; b += 56) {
        for (unsigned j = 0; j < 8; j++) {
            uint64_t e = 0;
            for (unsigned i = 0; i < 7; i++) e |= (uint64_t)buf[b + 7 * j + i] << (8 * i);
            st[j] = gs_fp_add(st[j], e);
        }
        gs_poseidon2_permute_w12(st);
    }
    for (unsigned i = 0; i < 4; i++) wr64(out->b + 8 * i, st[i]);
    free(buf);
}

static void test_byte_mode(void) {
    uint8_t msg[300];
    int n = 0;
    for (size_t len = 0; len <= 200; len++) {
        for (size_t i = 0; i < len; i++) msg[i] = (uint8_t)gs_test_u64();
        if (len % 3 == 0)
            for (size_t i = 0; i < len; i++) msg[i] = 0xFF; /* all-ones: elements near 2^56 */
        gs_digest want, got;
        ref_bytes(&want, msg, len);
        gs_hash(GS_HASH_POSEIDON2, &got, msg, len);
        CHECK(memcmp(&want, &got, sizeof got) == 0);
        /* Incremental, cut at random points; a hasher copied midway (as the transcript's
         * squeeze does) finishes the same. */
        gs_hasher h, copy;
        gs_hasher_init(&h, GS_HASH_POSEIDON2);
        size_t at = 0;
        while (at < len) {
            size_t step = 1 + gs_test_below(70);
            if (step > len - at) step = len - at;
            gs_hasher_update(&h, msg + at, step);
            at += step;
        }
        copy = h;
        gs_hasher_final(&h, &got);
        CHECK(memcmp(&want, &got, sizeof got) == 0);
        gs_hasher_final(&copy, &got);
        CHECK(memcmp(&want, &got, sizeof got) == 0);
        /* Keccak-256 of the same bytes differs (the id is honoured). */
        gs_digest k;
        gs_hash(GS_HASH_KECCAK256, &k, msg, len);
        CHECK(memcmp(&k, &got, sizeof k) != 0);
        n++;
    }
    /* Padding and domain: "" vs "\0", x vs x || 0, a full block vs the block plus 0. */
    gs_digest a, b;
    memset(msg, 0, sizeof msg);
    gs_hash(GS_HASH_POSEIDON2, &a, msg, 0);
    gs_hash(GS_HASH_POSEIDON2, &b, msg, 1);
    CHECK(memcmp(&a, &b, sizeof a) != 0);
    gs_hash(GS_HASH_POSEIDON2, &a, msg, 56);
    gs_hash(GS_HASH_POSEIDON2, &b, msg, 57);
    CHECK(memcmp(&a, &b, sizeof a) != 0);
    /* The byte tag: "" (one block, elements [1, 0, ...]: the pad byte) is not the state the
     * same block gives without the tag. */
    gs_fp st[12] = {1};
    gs_poseidon2_permute_w12(st);
    gs_hash(GS_HASH_POSEIDON2, &a, msg, 0);
    CHECK(rd64(a.b) != st[0] || rd64(a.b + 8) != st[1]);
    st[0] = 1, st[9] = 1;
    for (int i = 1; i < 12; i++) st[i] = i == 9;
    gs_poseidon2_permute_w12(st);
    CHECK(rd64(a.b) == st[0] && rd64(a.b + 8) == st[1] && rd64(a.b + 16) == st[2] &&
          rd64(a.b + 24) == st[3]);

    /* gs_hash_many = gs_hash, any stride, tails of every size. */
    static const size_t lens[] = {0, 1, 42, 55, 56, 57, 64, 111, 112, 113};
    static const size_t counts[] = {1, 7, 64, 65, 130};
    uint8_t *buf = malloc(130 * 130);
    gs_digest out[130], one_d;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            size_t len = lens[li], cnt = counts[ci], stride = len + gs_test_below(9);
            for (size_t i = 0; i < cnt * stride; i++) buf[i] = (uint8_t)gs_test_u64();
            gs_hash_many(GS_HASH_POSEIDON2, out, buf, len, stride, cnt);
            int same = 1;
            for (size_t i = 0; i < cnt; i++) {
                gs_hash(GS_HASH_POSEIDON2, &one_d, buf + i * stride, len);
                same &= memcmp(&one_d, &out[i], sizeof one_d) == 0;
            }
            CHECK(same);
        }
    /* In place, halving a level of 64-byte messages. */
    gs_digest lvl[100], want[50];
    for (size_t i = 0; i < 100; i++)
        for (size_t j = 0; j < 32; j++) lvl[i].b[j] = (uint8_t)gs_test_u64();
    for (size_t i = 0; i < 50; i++) gs_hash(GS_HASH_POSEIDON2, &want[i], lvl[2 * i].b, 64);
    gs_hash_many(GS_HASH_POSEIDON2, lvl, lvl[0].b, 64, 64, 50);
    CHECK(memcmp(lvl, want, sizeof want) == 0);
    free(buf);

    /* A node: the compression of the two digests as elements; out may alias an input. */
    for (int t = 0; t < 50; t++) {
        gs_poseidon2_digest l, r, c;
        for (int i = 0; i < 4; i++) l.v[i] = gs_test_fp(), r.v[i] = gs_test_fp();
        gs_poseidon2_compress(&c, &l, &r);
        gs_digest lb, rb, cb, got;
        gs_poseidon2_digest_to_bytes(&lb, &l);
        gs_poseidon2_digest_to_bytes(&rb, &r);
        gs_poseidon2_digest_to_bytes(&cb, &c);
        gs_hash_pair(GS_HASH_POSEIDON2, &got, &lb, &rb);
        CHECK(memcmp(&got, &cb, sizeof got) == 0);
        gs_hash_pair(GS_HASH_POSEIDON2, &rb, &lb, &rb);
        CHECK(memcmp(&rb, &cb, sizeof rb) == 0);
        /* Not the byte hash of the 64 bytes (that is Keccak's node, not Poseidon2's). */
        uint8_t two[64];
        memcpy(two, lb.b, 32);
        gs_poseidon2_digest_to_bytes(&rb, &r);
        memcpy(two + 32, rb.b, 32);
        gs_hash(GS_HASH_POSEIDON2, &got, two, 64);
        CHECK(memcmp(&got, &cb, sizeof got) != 0);
        /* Keccak-256's node is still H(l || r). */
        gs_digest kp, kh;
        gs_hash_pair(GS_HASH_KECCAK256, &kp, &lb, &rb);
        gs_hash(GS_HASH_KECCAK256, &kh, two, 64);
        CHECK(memcmp(&kp, &kh, sizeof kp) == 0);
    }
    gs_digest k0;
    gs_hash(GS_HASH_KECCAK256, &k0, NULL, 0);
    CHECK(k0.b[0] == 0xc5 && k0.b[1] == 0xd2 && k0.b[2] == 0x46 && k0.b[3] == 0x01);
    CHECK(GS_HASH_KECCAK256 == 0 && GS_HASH_POSEIDON2 == 1);
    CHECK(!strcmp(gs_hash_name(GS_HASH_KECCAK256), "keccak256") &&
          !strcmp(gs_hash_name(GS_HASH_POSEIDON2), "poseidon2") && !gs_hash_name((gs_hash_id)2));
    printf("byte mode: %d lengths match the rule, one-shot = incremental = many\n", n);
}

/* ---- Merkle trees ---- */

/* The whole tree built here from the primitive: nodes[level offset + i], leaves first. */
static gs_poseidon2_digest *ref_tree(const gs_fp *m, size_t cols, size_t stride, unsigned d) {
    size_t rows = (size_t)1 << d;
    gs_poseidon2_digest *t = malloc(((size_t)2 << d) * sizeof *t);
    gs_fp *row = malloc(cols * sizeof *row);
    for (size_t i = 0; i < rows; i++) {
        for (size_t c = 0; c < cols; c++) row[c] = m[c * stride + i];
        gs_poseidon2_hash(&t[i], row, cols);
    }
    size_t in = 0, out = rows;
    for (unsigned l = 1; l <= d; l++) {
        size_t n = rows >> l;
        for (size_t i = 0; i < n; i++) gs_poseidon2_compress(&t[out + i], &t[in + 2 * i], &t[in + 2 * i + 1]);
        in = out, out += n;
    }
    free(row);
    return t;
}

static void test_merkle(void) {
    static const struct {
        unsigned log_rows;
        size_t cols, pad;
    } cases[] = {{0, 1, 0}, {1, 3, 1}, {3, 8, 0}, {5, 9, 3}, {7, 17, 0}, {10, 24, 5}, {12, 3, 0}, {14, 20, 1}};
    int checked = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned d = cases[k].log_rows;
        size_t rows = (size_t)1 << d, cols = cases[k].cols, stride = rows + cases[k].pad;
        gs_fp *m = malloc(cols * stride * sizeof *m);
        for (size_t i = 0; i < cols * stride; i++) m[i] = gs_test_fp();
        gs_poseidon2_digest *ref = ref_tree(m, cols, stride, d);
        gs_digest root0 = {{0}};
        static const unsigned threads[] = {1, 2, 3, 8};
        for (size_t ti = 0; ti < 4; ti++) {
            gs_threads_set(threads[ti]);
            gs_merkle_tree *t = NULL;
            CHECK(gs_merkle_commit(&t, GS_HASH_POSEIDON2, m, cols, stride, d) == GS_OK);
            gs_threads_set(0);
            if (!t) continue;
            int same = 1;
            size_t at = 0;
            for (unsigned l = 0; l <= d; l++)
                for (size_t i = 0; i < (rows >> l); i++, at++) {
                    gs_digest want;
                    gs_poseidon2_digest_to_bytes(&want, &ref[at]);
                    same &= memcmp(gs_merkle_node(t, l, i), &want, sizeof want) == 0;
                }
            CHECK(same);
            gs_digest root = gs_merkle_root(t);
            if (ti == 0) root0 = root;
            CHECK(memcmp(&root, &root0, sizeof root) == 0);
            if (ti == 0) {
                /* Openings verify; a changed value does not. */
                gs_digest *path = malloc((d + 1) * sizeof *path);
                gs_fp *row = malloc(cols * sizeof *row);
                for (int q = 0; q < 8; q++) {
                    size_t idx = gs_test_below(rows);
                    for (size_t c = 0; c < cols; c++) row[c] = m[c * stride + idx];
                    CHECK(gs_merkle_open(t, path, &idx, 1) == GS_OK);
                    CHECK(gs_merkle_verify(GS_HASH_POSEIDON2, &root, d, idx, row, cols, path) == GS_OK);
                    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d, idx, row, cols, path) ==
                          GS_ERR_MERKLE_PATH);
                    size_t c = gs_test_below(cols);
                    row[c] = gs_fp_add(row[c], 1);
                    CHECK(gs_merkle_verify(GS_HASH_POSEIDON2, &root, d, idx, row, cols, path) ==
                          GS_ERR_MERKLE_PATH);
                    if (d) {
                        row[c] = gs_fp_sub(row[c], 1);
                        path[gs_test_below(d)].b[0] ^= 1;
                        CHECK(gs_merkle_verify(GS_HASH_POSEIDON2, &root, d, idx, row, cols, path) ==
                              GS_ERR_MERKLE_PATH);
                    }
                }
                /* From the leaves: the same tree. */
                gs_digest *leaves = malloc(rows * sizeof *leaves);
                for (size_t i = 0; i < rows; i++) gs_poseidon2_digest_to_bytes(&leaves[i], &ref[i]);
                gs_merkle_tree *t2 = NULL;
                CHECK(gs_merkle_commit_leaves(&t2, GS_HASH_POSEIDON2, leaves, d) == GS_OK);
                gs_digest r2 = gs_merkle_root(t2);
                CHECK(t2 && memcmp(&r2, &root, sizeof r2) == 0);
                /* Keccak-256 commits the same matrix to another root. */
                gs_merkle_tree *tk = NULL;
                CHECK(gs_merkle_commit(&tk, GS_HASH_KECCAK256, m, cols, stride, d) == GS_OK);
                gs_digest rk = gs_merkle_root(tk);
                CHECK(tk && memcmp(&rk, &root, sizeof rk) != 0);
                gs_merkle_free(t2), gs_merkle_free(tk);
                free(leaves), free(path), free(row);
            }
            gs_merkle_free(t);
            checked++;
        }
        free(ref), free(m);
    }
    printf("merkle: %d Poseidon2 trees equal to the reference at 1, 2, 3 and 8 threads\n", checked);
}

/* ---- the transcript ---- */

static void test_transcript(void) {
    gs_transcript a, b, k;
    gs_transcript_init(&a, GS_HASH_POSEIDON2, "test");
    gs_transcript_init(&k, GS_HASH_KECCAK256, "test");
    CHECK(memcmp(&a.state, &k.state, sizeof a.state) != 0);
    gs_fp v[5] = {1, 2, 3, 4, 5};
    gs_transcript_absorb_fp(&a, "v", v, 5);
    b = a;
    gs_fp3 x = gs_transcript_squeeze_fp3(&a, "x"), y = gs_transcript_squeeze_fp3(&b, "x");
    CHECK(gs_fp3_eq(x, y));
    for (unsigned bits = 1; bits <= 10; bits += 3) {
        uint64_t n1 = 0, n3 = 0;
        gs_transcript t1 = a, t3 = a;
        gs_threads_set(1);
        CHECK(gs_transcript_grind(&t1, bits, &n1) == GS_OK);
        gs_threads_set(3);
        CHECK(gs_transcript_grind(&t3, bits, &n3) == GS_OK);
        gs_threads_set(0);
        CHECK(n1 == n3 && memcmp(&t1.state, &t3.state, sizeof t1.state) == 0);
        int smallest = gs_transcript_pow_valid(&a, bits, n1);
        for (uint64_t j = 0; j < n1; j++) smallest &= !gs_transcript_pow_valid(&a, bits, j);
        CHECK(smallest);
        gs_transcript c = a;
        CHECK(gs_transcript_check_pow(&c, bits, n1) == GS_OK);
        CHECK(memcmp(&c.state, &t1.state, sizeof c.state) == 0);
    }
    printf("transcript: Poseidon2 grinding finds the smallest nonce at 1 and 3 threads\n");
}

/* ---- proofs ---- */

static gs_air *g_fib;
static gs_air *g_airs[MULTI_STMT_TABLES];

static gs_params p2_params(uint32_t log_arity) {
    gs_params p = {.log_blowup = 1, .log_final = 1, .grinding_bits = 2, .num_queries = 78,
                   .log_arity = log_arity, .hash = GS_HASH_POSEIDON2};
    return p;
}

static gs_proof *prove_fib(unsigned log_n, gs_params par, const gs_prove_opts *o) {
    gs_fp pub[4] = {1, 1, 0, 0};
    gs_fp *m = fib_trace(log_n, pub);
    gs_proof *pf = NULL;
    gs_status s = m ? gs_prove(&pf, g_fib, m, log_n, pub, &par, o) : GS_ERR_NOMEM;
    if (s != GS_OK) fprintf(stderr, "prove fib 2^%u: %s\n", log_n, gs_status_str(s));
    CHECK(s == GS_OK);
    free(m);
    return pf;
}

static uint8_t *ser(const gs_proof *p, size_t *len) {
    uint8_t *b = NULL;
    *len = 0;
    CHECK(p && gs_proof_serialize(&b, len, p) == GS_OK);
    return b;
}

/* Parses and verifies: GS_OK only if both accept. */
static gs_status parse_verify(const uint8_t *b, size_t len) {
    gs_proof *p = NULL;
    gs_status s = gs_proof_parse(&p, b, len);
    if (s == GS_OK) s = gs_verify(g_fib, p, 0);
    gs_proof_free(p);
    return s;
}

/* Offset of the end of the HEAD body (12-byte preamble, 12-byte section header). */
static size_t head_end(const uint8_t *b) { return 24 + (size_t)rd64(b + 16); }

static void test_single(void) {
    int n = 0;
    for (uint32_t la = 1; la <= 4; la++)
        for (unsigned log_n = 3; log_n <= 9; log_n += 3) {
            gs_proof *p = prove_fib(log_n, p2_params(la), NULL);
            if (!p) continue;
            CHECK(p->params.hash == GS_HASH_POSEIDON2);
            CHECK(gs_verify(g_fib, p, 0) == GS_OK);
            size_t len, len2;
            uint8_t *b = ser(p, &len);
            gs_proof *q = NULL;
            CHECK(gs_proof_parse(&q, b, len) == GS_OK);
            CHECK(q && q->params.hash == GS_HASH_POSEIDON2 && gs_verify(g_fib, q, 0) == GS_OK);
            uint8_t *b2 = q ? ser(q, &len2) : NULL;
            CHECK(b2 && len2 == len && memcmp(b, b2, len) == 0);
            /* The id is the last u32 of HEAD. */
            CHECK(rd32(b + head_end(b) - 4) == GS_HASH_POSEIDON2);
            /* Versions 1 and 2 are Keccak-only. */
            uint8_t *v1 = NULL;
            size_t v1len = 0;
            CHECK(la > 1 || gs_proof_serialize_as(&v1, &v1len, p, GS_PROOF_VERSION) == GS_ERR_INVALID_ARG);
            free(v1);
            /* The hash id changed: Keccak-256 does not verify, an unknown id is refused. */
            p->params.hash = GS_HASH_KECCAK256;
            gs_status v = gs_verify(g_fib, p, 0);
            CHECK(v != GS_OK);
            p->params.hash = 7;
            CHECK(gs_verify(g_fib, p, 0) == GS_ERR_PROOF_PARAMS);
            p->params.hash = GS_HASH_POSEIDON2;
            /* The same statement under Keccak-256: another proof, another statement digest. */
            gs_params kp = p2_params(la);
            kp.hash = GS_HASH_KECCAK256;
            gs_proof *k = prove_fib(log_n, kp, NULL);
            if (k) {
                size_t klen;
                uint8_t *kb = ser(k, &klen);
                CHECK(memcmp(&k->table.trace_root, &p->table.trace_root, 32) != 0);
                gs_digest dk = gs_proof_statement_digest(k), dp = gs_proof_statement_digest(p);
                CHECK(memcmp(&dk, &dp, sizeof dk) != 0);
                /* A Keccak HEAD has no id: 4 bytes shorter. */
                CHECK(kb && head_end(kb) + 4 == head_end(b));
                free(kb);
            }
            gs_proof_free(k);
            gs_proof_free(q), gs_proof_free(p);
            free(b), free(b2);
            n++;
        }
    printf("single table: %d Poseidon2 proofs (folds by 2..16) verify and round-trip\n", n);
}

/* The file's hash field and digests, edited. */
static void test_file_edits(void) {
    gs_proof *p = prove_fib(5, p2_params(2), NULL);
    if (!p) return;
    size_t len;
    uint8_t *b = ser(p, &len), *e = malloc(len);
    CHECK(parse_verify(b, len) == GS_OK);
    size_t at = head_end(b) - 4;
    static const uint32_t bad[] = {GS_HASH_KECCAK256, 2, 0xFFFFFFFFu};
    for (size_t i = 0; i < 3; i++) {
        memcpy(e, b, len);
        wr32(e + at, bad[i]);
        gs_proof *q = NULL;
        CHECK(gs_proof_parse(&q, e, len) == GS_ERR_PROOF_FORMAT);
        gs_proof_free(q);
    }
    /* The id dropped (HEAD 4 bytes shorter): a Keccak-256 proof that does not verify. */
    memcpy(e, b, at);
    memcpy(e + at, b + at + 4, len - at - 4);
    wr64(e + 16, rd64(b + 16) - 4);
    gs_proof *q = NULL;
    CHECK(gs_proof_parse(&q, e, len - 4) == GS_OK);
    CHECK(q && q->params.hash == GS_HASH_KECCAK256 && gs_verify(g_fib, q, 0) != GS_OK);
    gs_proof_free(q);
    /* A non-canonical digest (the trace root's first element set >= p) is malformed. */
    size_t tabl = head_end(b) + 12, root = tabl + 8;
    memcpy(e, b, len);
    uint64_t v = rd64(e + root);
    CHECK(v < GS_FP_P);
    v = GS_FP_P + (v & 0xFFFF); /* >= p, < 2^64 */
    {
        wr64(e + root, v);
        q = NULL;
        CHECK(gs_proof_parse(&q, e, len) == GS_ERR_PROOF_FORMAT);
        gs_proof_free(q);
        /* The serializer refuses to write it. */
        gs_proof *r = NULL;
        CHECK(gs_proof_parse(&r, b, len) == GS_OK);
        if (r) {
            wr64(r->table.trace_root.b, v);
            uint8_t *o = NULL;
            size_t olen;
            CHECK(gs_proof_serialize(&o, &olen, r) == GS_ERR_INVALID_ARG);
            CHECK(gs_verify(g_fib, r, 0) == GS_ERR_PROOF_FORMAT);
            free(o);
        }
        gs_proof_free(r);
    }
    /* Truncations (a spread of lengths, all of the last 64) and single-bit flips. */
    int cut = 0;
    for (size_t l = 0; l < len; l += (l + 64 >= len) ? 1 : 37) {
        CHECK(parse_verify(b, l) != GS_OK);
        cut++;
    }
    int by_parser = 0, by_verifier = 0;
    for (int f = 0; f < 300; f++) {
        memcpy(e, b, len);
        size_t i = gs_test_below(len);
        e[i] ^= (uint8_t)(1u << gs_test_below(8));
        gs_proof *pf = NULL;
        gs_status s = gs_proof_parse(&pf, e, len);
        if (s != GS_OK) {
            by_parser++;
        } else {
            gs_status w = gs_verify(g_fib, pf, 0);
            if (w != GS_OK) by_verifier++;
            else fprintf(stderr, "flip of byte %zu accepted\n", i);
            CHECK(w != GS_OK);
        }
        gs_proof_free(pf);
    }
    printf("file: hash ids 0, 2, 2^32-1 and a non-canonical root refused; %d truncations and "
           "300 flips rejected (%d by the parser, %d by the verifier)\n", cut, by_parser, by_verifier);
    free(b), free(e);
    gs_proof_free(p);
}

/* One statement proven under several thread counts and budgets: the same bytes. */
static void test_determinism_single(void) {
    gs_params par = p2_params(3);
    par.grinding_bits = 6;
    gs_proof *ref = prove_fib(10, par, NULL);
    size_t rlen;
    uint8_t *rb = ser(ref, &rlen);
    int runs = 0;
    static const unsigned threads[] = {1, 2, 5};
    for (size_t ti = 0; ti < 3; ti++)
        for (int lean = 0; lean < 2; lean++) {
            gs_threads_set(threads[ti]);
            gs_prove_opts o = {.mem_budget = lean ? 4096 : 0};
            gs_proof *p = prove_fib(10, par, &o);
            gs_threads_set(0);
            size_t len;
            uint8_t *b = ser(p, &len);
            CHECK(b && len == rlen && memcmp(b, rb, len) == 0);
            free(b);
            gs_proof_free(p);
            runs++;
        }
    CHECK(ref && gs_verify(g_fib, ref, 0) == GS_OK);
    free(rb);
    gs_proof_free(ref);
    printf("determinism: a Poseidon2 proof, %d runs (threads 1, 2, 5; budgets unlimited and 4 "
           "KiB), identical bytes\n", runs);
}

static uint8_t *prove_multi_bytes(size_t *len, const gs_params *par, const gs_prove_opts *o) {
    gs_multi_workload w = {0};
    gs_multi_proof *mp = NULL;
    uint8_t *b = NULL;
    *len = 0;
    gs_status s = multi_stmt_workload(&w, 5);
    gs_table_input in[MULTI_STMT_TABLES];
    for (uint32_t i = 0; s == GS_OK && i < w.num_tables; i++)
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
    if (s == GS_OK) s = gs_prove_multi(&mp, in, w.num_tables, par, o);
    if (s == GS_OK) s = gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, mp, 0);
    if (s == GS_OK) s = gs_multi_proof_serialize(&b, len, mp);
    if (s != GS_OK) fprintf(stderr, "multi: %s\n", gs_status_str(s));
    CHECK(s == GS_OK);
    gs_multi_proof_free(mp);
    gs_multi_workload_free(&w);
    return b;
}

static void test_multi(void) {
    gs_params par = MULTI_STMT_PARAMS;
    par.hash = GS_HASH_POSEIDON2;
    size_t rlen;
    uint8_t *rb = prove_multi_bytes(&rlen, &par, NULL);
    if (!rb) return;
    /* MHDR: 5 params, the table count, the id (28 bytes). */
    CHECK(rd64(rb + 16) == 28 && rd32(rb + 24 + 24) == GS_HASH_POSEIDON2);
    gs_multi_proof *q = NULL;
    CHECK(gs_multi_proof_parse(&q, rb, rlen) == GS_OK);
    CHECK(q && q->params.hash == GS_HASH_POSEIDON2 &&
          gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) == GS_OK);
    if (q) {
        uint8_t *b2 = NULL;
        size_t l2 = 0;
        CHECK(gs_multi_proof_serialize(&b2, &l2, q) == GS_OK && l2 == rlen && !memcmp(b2, rb, rlen));
        free(b2);
        uint8_t *v2 = NULL;
        CHECK(gs_multi_proof_serialize_as(&v2, &l2, q, GS_PROOF_VERSION_MULTI) == GS_ERR_INVALID_ARG);
        free(v2);
        for (uint32_t i = 0; i < q->num_tables; i++) q->tables[i].params.hash = GS_HASH_KECCAK256;
        q->params.hash = GS_HASH_KECCAK256;
        CHECK(gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) != GS_OK);
        for (uint32_t i = 0; i < q->num_tables; i++) q->tables[i].params.hash = 5;
        q->params.hash = 5;
        CHECK(gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, q, 0) ==
              GS_ERR_PROOF_PARAMS);
    }
    gs_multi_proof_free(q);
    /* An explicit Keccak id in MHDR is a second encoding: refused. */
    uint8_t *e = malloc(rlen);
    memcpy(e, rb, rlen);
    wr32(e + 48, GS_HASH_KECCAK256);
    q = NULL;
    CHECK(gs_multi_proof_parse(&q, e, rlen) == GS_ERR_PROOF_FORMAT);
    gs_multi_proof_free(q);
    free(e);
    int runs = 0;
    static const unsigned threads[] = {1, 3};
    static const unsigned ks[] = {1, 2, 3};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t ki = 0; ki < 3; ki++) {
            gs_threads_set(threads[ti]);
            gs_prove_opts o = {.tables_parallel = ks[ki], .mem_budget = ki == 2 ? 64 * 1024 : 0};
            size_t len;
            uint8_t *b = prove_multi_bytes(&len, &par, &o);
            gs_threads_set(0);
            CHECK(b && len == rlen && memcmp(b, rb, len) == 0);
            free(b);
            runs++;
        }
    printf("multi-table: a Poseidon2 proof round-trips and verifies; %d runs (threads 1, 3; "
           "tables at once 1, 2, 3; a 64 KiB budget), identical bytes\n", runs);
    free(rb);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_byte_mode();
    test_merkle();
    test_transcript();
    g_fib = fib_air();
    CHECK(multi_stmt_airs(g_airs) == GS_OK);
    test_single();
    test_file_edits();
    test_determinism_single();
    test_multi();
    gs_air_free(g_fib);
    for (uint32_t i = 0; i < MULTI_STMT_TABLES; i++) gs_air_free(g_airs[i]);
    return gs_test_done();
}
