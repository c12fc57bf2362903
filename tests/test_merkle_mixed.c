/* Mixed-height Merkle tree tests (src/merkle/mixed.h): one matrix against the
 * ordinary tree over its rows in bit-reversed order; several matrices, both
 * hashes, against a naive recursion written from the header's definition
 * (hashing with one-shot Keccak-256 or the Poseidon2 compression, not
 * gs_hash_pair); every position of small trees opened and recomputed;
 * thread-count independence; tampered paths, rows and positions; the
 * batched form against the full paths and a naive node count; bad
 * arguments. */
#include "gstark/merkle.h"
#include "gstark/parallel.h"
#include "gstark/poseidon2.h"
#include "merkle/mixed.h"
#include "test_util.h"

#define MAXN 8u /* matrices per shape at most */

static int same(const gs_digest *a, const gs_digest *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Four canonical field elements, little-endian: a digest either hash accepts as it is. */
static gs_digest rand_digest(void) {
    gs_digest d;
    for (int e = 0; e < 4; e++) {
        gs_fp v = gs_test_fp();
        for (int b = 0; b < 8; b++) d.b[8 * e + b] = (uint8_t)(v >> (8 * b));
    }
    return d;
}

static void flip(gs_digest *d) { d->b[gs_test_below(32)] ^= (uint8_t)(1u << gs_test_below(8)); }

static size_t naive_bitrev(size_t j, unsigned bits) {
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++) r |= ((j >> b) & 1) << (bits - 1 - b);
    return r;
}

/* H(l || r) without gs_hash_pair. */
static void naive_pair(gs_hash_id id, gs_digest *out, const gs_digest *l, const gs_digest *r) {
    if (id == GS_HASH_POSEIDON2) {
        gs_poseidon2_digest a, b, o;
        if (gs_poseidon2_digest_from_bytes(&a, l) != GS_OK || gs_poseidon2_digest_from_bytes(&b, r) != GS_OK)
            abort(); /* every digest here is canonical */
        gs_poseidon2_compress(&o, &a, &b);
        gs_poseidon2_digest_to_bytes(out, &o);
        return;
    }
    uint8_t m[64];
    memcpy(m, l->b, 32);
    memcpy(m + 32, r->b, 32);
    gs_keccak256(out->b, m, 64);
}

/* A shape: n matrices of 2^lr[t] rows, their row digests, depth the largest. */
typedef struct {
    gs_hash_id id;
    uint32_t n;
    unsigned lr[MAXN], depth;
    gs_digest *rows[MAXN];
    gs_digest *ref; /* the naive tree: level l at ref + off[l] */
    size_t off[GS_MIXED_MAX_DEPTH + 2];
} shape;

/* Node i of level l by the header's definition, recursively; kept in s->ref. */
static gs_digest naive_node(shape *s, unsigned l, size_t i) {
    gs_digest v;
    int have = 0;
    if (l > 0) {
        gs_digest a = naive_node(s, l - 1, 2 * i), b = naive_node(s, l - 1, 2 * i + 1);
        naive_pair(s->id, &v, &a, &b);
        have = 1;
    }
    for (uint32_t t = 0; t < s->n; t++) {
        if (s->lr[t] != s->depth - l) continue;
        const gs_digest *d = &s->rows[t][naive_bitrev(i, s->lr[t])];
        if (!have) v = *d, have = 1;
        else naive_pair(s->id, &v, &v, d);
    }
    if (!have) abort(); /* level 0 always has a matrix */
    s->ref[s->off[l] + i] = v;
    return v;
}

static void shape_init(shape *s, gs_hash_id id, const unsigned *lr, uint32_t n) {
    memset(s, 0, sizeof *s);
    s->id = id;
    s->n = n;
    for (uint32_t t = 0; t < n; t++) {
        s->lr[t] = lr[t];
        if (lr[t] > s->depth) s->depth = lr[t];
        size_t rows = (size_t)1 << lr[t];
        s->rows[t] = malloc(rows * sizeof(gs_digest));
        if (!s->rows[t]) abort();
        for (size_t j = 0; j < rows; j++) s->rows[t][j] = rand_digest();
    }
    for (unsigned l = 0; l <= s->depth; l++) s->off[l + 1] = s->off[l] + ((size_t)1 << (s->depth - l));
    s->ref = malloc(s->off[s->depth + 1] * sizeof(gs_digest));
    if (!s->ref) abort();
    naive_node(s, s->depth, 0);
}

static void shape_free(shape *s) {
    for (uint32_t t = 0; t < s->n; t++) free(s->rows[t]);
    free(s->ref);
}

static const gs_digest *ref_root(const shape *s) { return &s->ref[s->off[s->depth]]; }

/* Query q's row digests, rowd[t] = matrix t's row at q mod its height. */
static void row_digests(const shape *s, gs_digest *rowd, size_t q) {
    for (uint32_t t = 0; t < s->n; t++) rowd[t] = s->rows[t][q & (((size_t)1 << s->lr[t]) - 1)];
}

static gs_mixed_tree *build(const shape *s) {
    gs_mixed_tree *t = NULL;
    CHECK(gs_mixed_build(&t, s->id, (const gs_digest *const *)s->rows, s->lr, s->n) == GS_OK);
    return t;
}

/* 1 if q's digests and path give the root. */
static int path_ok(const shape *s, size_t q, const gs_digest *rowd, const gs_digest *path) {
    gs_digest r;
    return gs_mixed_root_of(s->id, &r, q, rowd, s->lr, s->n, path) == GS_OK && same(&r, ref_root(s));
}

/* ---- one matrix: the ordinary tree over the rows in bit-reversed order ---- */

static void test_one_matrix(void) {
    for (unsigned k = 0; k < 200; k++) {
        unsigned bits = (unsigned)gs_test_below(64);
        size_t j = (size_t)gs_test_u64();
        CHECK_EQ_U64(gs_mixed_bitrev(j, bits), naive_bitrev(j, bits));
    }
    CHECK_EQ_U64(gs_mixed_bitrev(1, 40), (size_t)1 << 39);
    for (int h = 0; h < 2; h++)
        for (unsigned lr = 0; lr <= 10; lr++) {
            gs_hash_id id = h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256;
            shape s;
            shape_init(&s, id, &lr, 1);
            size_t rows = (size_t)1 << lr;
            gs_digest *br = malloc(rows * sizeof *br), *p1 = malloc((lr + 1) * sizeof *p1),
                      *p2 = malloc((lr + 1) * sizeof *p2);
            if (!br || !p1 || !p2) abort();
            for (size_t i = 0; i < rows; i++) br[i] = s.rows[0][naive_bitrev(i, lr)];
            gs_merkle_tree *m = NULL;
            gs_mixed_tree *t = build(&s);
            CHECK(gs_merkle_commit_leaves(&m, id, br, lr) == GS_OK);
            if (t && m) {
                gs_digest a = gs_mixed_root(t), b = gs_merkle_root(m);
                CHECK(same(&a, &b));
                CHECK(same(&a, ref_root(&s)));
                CHECK_EQ_U64(gs_mixed_depth(t), lr);
                for (size_t q = 0; q < rows; q += rows > 64 ? 1 + gs_test_below(rows / 16) : 1) {
                    size_t leaf = naive_bitrev(q, lr);
                    CHECK(gs_mixed_open(t, p1, &q, 1) == GS_OK);
                    CHECK(gs_merkle_open(m, p2, &leaf, 1) == GS_OK);
                    CHECK(lr == 0 || memcmp(p1, p2, lr * sizeof *p1) == 0);
                }
            }
            gs_mixed_free(t);
            gs_merkle_free(m);
            free(br), free(p1), free(p2);
            shape_free(&s);
        }
}

/* ---- several matrices ---- */

/* Heights for a tree of depth d: the full height, 0 (one row), two equal
 * (variant 0: both full), then up to three random ones, in random order. */
static uint32_t random_heights(unsigned *lr, unsigned d, int variant) {
    uint32_t n = 4 + (uint32_t)gs_test_below(4);
    unsigned x = variant == 0 ? d : (unsigned)gs_test_below(d + 1);
    lr[0] = d, lr[1] = 0, lr[2] = x, lr[3] = x;
    for (uint32_t t = 4; t < n; t++) lr[t] = (unsigned)gs_test_below(d + 1);
    for (uint32_t t = n - 1; t > 0; t--) {
        uint32_t u = (uint32_t)gs_test_below(t + 1);
        unsigned v = lr[t];
        lr[t] = lr[u], lr[u] = v;
    }
    return n;
}

/* Every position: its path is the naive tree's siblings and it gives the
 * root; any one changed sibling, row digest or position does not (every
 * position of trees up to depth 5, an eighth of larger ones). */
static void check_every_position(const shape *s, const gs_mixed_tree *t) {
    unsigned d = s->depth;
    gs_digest path[GS_MIXED_MAX_DEPTH], rowd[MAXN];
    size_t bad_path = 0, bad_root = 0, bad_tamper = 0;
    for (size_t q = 0; q < ((size_t)1 << d); q++) {
        CHECK(gs_mixed_open(t, path, &q, 1) == GS_OK);
        size_t p = naive_bitrev(q, d);
        for (unsigned l = 0; l < d; l++) bad_path += !same(&path[l], &s->ref[s->off[l] + ((p >> l) ^ 1)]);
        row_digests(s, rowd, q);
        bad_root += !path_ok(s, q, rowd, path);
        if (d > 5 && gs_test_below(8)) continue; /* tampered: every position of trees up to 32 */
        for (unsigned l = 0; l < d; l++) {
            gs_digest keep = path[l];
            flip(&path[l]);
            bad_tamper += path_ok(s, q, rowd, path);
            path[l] = keep;
        }
        for (uint32_t u = 0; u < s->n; u++) {
            gs_digest keep = rowd[u];
            flip(&rowd[u]);
            bad_tamper += path_ok(s, q, rowd, path);
            rowd[u] = keep;
        }
        if (d) bad_tamper += path_ok(s, (q + 1) & (((size_t)1 << d) - 1), rowd, path);
        if (d) bad_tamper += path_ok(s, q ^ 1, rowd, path);
    }
    CHECK_EQ_U64(bad_path, 0);
    CHECK_EQ_U64(bad_root, 0);
    CHECK_EQ_U64(bad_tamper, 0);
}

static void test_several(void) {
    for (int h = 0; h < 2; h++)
        for (unsigned d = 0; d <= 8; d++)
            for (int variant = 0; variant < 3; variant++) {
                unsigned lr[MAXN];
                uint32_t n = random_heights(lr, d, variant);
                shape s;
                shape_init(&s, h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256, lr, n);
                gs_mixed_tree *t = build(&s);
                if (t) {
                    gs_digest r = gs_mixed_root(t);
                    CHECK(same(&r, ref_root(&s)));
                    CHECK_EQ_U64(gs_mixed_depth(t), d);
                    check_every_position(&s, t);
                }
                gs_mixed_free(t);
                shape_free(&s);
            }
}

/* Trees wide enough that a level splits across threads: the same root with
 * 1 and 4 threads, and the naive one. */
static void test_threads(void) {
    for (int h = 0; h < 2; h++) {
        unsigned lr[MAXN] = {12, 0, 11, 11, 12, 5};
        shape s;
        shape_init(&s, h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256, lr, 6);
        for (unsigned th = 1; th <= 4; th += 3) {
            gs_threads_set(th);
            gs_mixed_tree *t = build(&s);
            gs_digest r = gs_mixed_root(t);
            CHECK(t && same(&r, ref_root(&s)));
            gs_mixed_free(t);
        }
        gs_threads_set(0);
        shape_free(&s);
    }
}

/* ---- the batched form ---- */

/* The nodes the batched form must send, counted from its definition: the
 * siblings of path nodes that are not path nodes themselves. */
static size_t naive_count(const size_t *q, size_t nq, unsigned d) {
    uint8_t *on = calloc((size_t)2 << d, 1);
    if (!on) abort();
    size_t off[GS_MIXED_MAX_DEPTH + 2] = {0}, count = 0;
    for (unsigned l = 0; l <= d; l++) off[l + 1] = off[l] + ((size_t)1 << (d - l));
    for (size_t k = 0; k < nq; k++)
        for (unsigned l = 0; l <= d; l++) on[off[l] + (naive_bitrev(q[k], d) >> l)] = 1;
    for (unsigned l = 0; l < d; l++)
        for (size_t i = 0; i < ((size_t)1 << (d - l)); i++) count += on[off[l] + i] && !on[off[l] + (i ^ 1)];
    free(on);
    return count;
}

static void check_batch(const shape *s, const gs_mixed_tree *t, const size_t *q, size_t nq) {
    unsigned d = s->depth;
    size_t np = nq * d + 1;
    gs_digest *paths = malloc(np * sizeof *paths), *back = malloc(np * sizeof *back),
              *sent = malloc(np * sizeof *sent), *rowd = malloc((nq * s->n + 1) * sizeof *rowd);
    if (!paths || !back || !sent || !rowd) abort();
    for (size_t k = 0; k < nq; k++) row_digests(s, rowd + k * s->n, q[k]);
    CHECK(gs_mixed_open(t, paths, q, nq) == GS_OK);
    size_t want = gs_mixed_count(q, nq, d), got = SIZE_MAX;
    CHECK_EQ_U64(want, naive_count(q, nq, d));
    memset(sent, 0xA5, np * sizeof *sent);
    CHECK(gs_mixed_compress(sent, &got, q, nq, paths, d) == GS_OK);
    CHECK_EQ_U64(got, want);
    CHECK(want < np && sent[want].b[0] == 0xA5 && sent[want].b[31] == 0xA5); /* no more written */
    memset(back, 0, np * sizeof *back);
    CHECK(gs_mixed_expand(s->id, back, q, nq, rowd, s->lr, s->n, sent, want) == GS_OK);
    CHECK(memcmp(back, paths, nq * d * sizeof *paths) == 0);
    /* a wrong node count is refused */
    CHECK(gs_mixed_expand(s->id, back, q, nq, rowd, s->lr, s->n, sent, want + 1) == GS_ERR_INVALID_ARG);
    if (want)
        CHECK(gs_mixed_expand(s->id, back, q, nq, rowd, s->lr, s->n, sent, want - 1) == GS_ERR_INVALID_ARG);
    /* one altered sent node: some query's path no longer gives the root */
    if (want) {
        flip(&sent[gs_test_below(want)]);
        CHECK(gs_mixed_expand(s->id, back, q, nq, rowd, s->lr, s->n, sent, want) == GS_OK);
        int all_ok = 1;
        for (size_t k = 0; k < nq; k++) all_ok &= path_ok(s, q[k], rowd + k * s->n, back + k * d);
        CHECK(!all_ok);
    }
    free(paths), free(back), free(sent), free(rowd);
}

static void test_batched(void) {
    for (int h = 0; h < 2; h++)
        for (unsigned d = 0; d <= 8; d++) {
            unsigned lr[MAXN];
            uint32_t n = random_heights(lr, d, (int)(d % 3));
            shape s;
            shape_init(&s, h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256, lr, n);
            gs_mixed_tree *t = build(&s);
            if (!t) {
                shape_free(&s);
                continue;
            }
            size_t leaves = (size_t)1 << d, q[600];
            static const size_t SIZES[] = {0, 1, 2, 54};
            for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++)
                for (int rep = 0; rep < 3; rep++) {
                    for (size_t k = 0; k < SIZES[si]; k++) q[k] = (size_t)gs_test_below(leaves);
                    check_batch(&s, t, q, SIZES[si]);
                }
            /* every position, shuffled, then a few repeats */
            size_t nq = leaves + 5;
            for (size_t k = 0; k < leaves; k++) q[k] = k;
            for (size_t k = leaves - 1; k > 0; k--) {
                size_t u = (size_t)gs_test_below(k + 1), v = q[k];
                q[k] = q[u], q[u] = v;
            }
            for (size_t k = leaves; k < nq; k++) q[k] = (size_t)gs_test_below(leaves);
            check_batch(&s, t, q, nq);
            CHECK_EQ_U64(gs_mixed_count(q, leaves, d), 0); /* every sibling is a path node */

            gs_mixed_free(t);
            shape_free(&s);
        }
}

/* Expands queries qq[0..3) (row digests rowd, 3 n of them) and reports
 * whether query 2's path then gives the root. */
static int third_ok(const shape *s, const gs_mixed_tree *t, const size_t *qq, const gs_digest *rowd) {
    unsigned d = s->depth;
    gs_digest paths[3 * 8], sent[3 * 8], back[3 * 8];
    size_t c = 0;
    CHECK(d <= 8 && gs_mixed_open(t, paths, qq, 3) == GS_OK);
    CHECK(gs_mixed_compress(sent, &c, qq, 3, paths, d) == GS_OK);
    CHECK(gs_mixed_expand(s->id, back, qq, 3, rowd, s->lr, s->n, sent, c) == GS_OK);
    return path_ok(s, qq[2], rowd + 2 * s->n, back + 2 * d);
}

/* A node that expand computes takes its rows from the lowest k whose path
 * runs through it. Queries x, y, a: the leaves of x and y are siblings
 * (level 1: their parent is) of a's, so a's path holds a node computed from
 * x's or y's rows; x's rows are wrong (level 1: only those of the matrices
 * entering above the leaves, so its leaf is right), y's right. With x first
 * a's path is wrong, with y first it is right. */
static void test_first_query(void) {
    for (int h = 0; h < 2; h++) {
        unsigned lr[MAXN] = {4, 3, 0, 4, 3};
        shape s;
        shape_init(&s, h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256, lr, 5);
        gs_mixed_tree *t = build(&s);
        unsigned d = s.depth;
        for (unsigned l = 0; t && l < 2; l++)
            for (int rep = 0; rep < 4; rep++) {
                size_t pa = (size_t)gs_test_below((size_t)1 << d), px = pa ^ ((size_t)1 << l);
                size_t py = l ? px ^ 1 : px;
                size_t a = naive_bitrev(pa, d), x = naive_bitrev(px, d), y = naive_bitrev(py, d);
                gs_digest rowd[3 * MAXN];
                size_t qq[3] = {x, y, a};
                row_digests(&s, rowd, x);
                row_digests(&s, rowd + s.n, y);
                row_digests(&s, rowd + 2 * s.n, a);
                for (uint32_t u = 0; u < s.n; u++)
                    if (l == 0 || lr[u] < d) flip(&rowd[u]);
                CHECK(!third_ok(&s, t, qq, rowd));
                for (uint32_t u = 0; u < s.n; u++) { /* y first */
                    gs_digest v = rowd[u];
                    rowd[u] = rowd[s.n + u], rowd[s.n + u] = v;
                }
                qq[0] = y, qq[1] = x;
                CHECK(third_ok(&s, t, qq, rowd));
            }
        /* paths that disagree about a sent node (the top sibling, on every
         * path of two equal positions) are refused */
        if (t) {
            size_t qq[2] = {3, 3}, c = 0;
            gs_digest paths[2 * 4], sent[2 * 4];
            CHECK(gs_mixed_open(t, paths, qq, 2) == GS_OK);
            CHECK(gs_mixed_compress(sent, &c, qq, 2, paths, d) == GS_OK && c == d);
            flip(&paths[d + d - 1]);
            CHECK(gs_mixed_compress(sent, &c, qq, 2, paths, d) == GS_ERR_INVALID_ARG);
        }
        gs_mixed_free(t);
        shape_free(&s);
    }
}

/* ---- bad arguments ---- */

static void test_bad_args(void) {
    unsigned lr[3] = {3, 1, 3};
    shape s;
    shape_init(&s, GS_HASH_KECCAK256, lr, 3);
    const gs_digest *const *rows = (const gs_digest *const *)s.rows;
    gs_mixed_tree *t = (gs_mixed_tree *)&s; /* must be reset to NULL on failure */
    CHECK(gs_mixed_build(&t, s.id, rows, lr, 0) == GS_ERR_INVALID_ARG && t == NULL);
    CHECK(gs_mixed_build(NULL, s.id, rows, lr, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_build(&t, s.id, NULL, lr, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_build(&t, s.id, rows, NULL, 3) == GS_ERR_INVALID_ARG);
    const gs_digest *holed[3] = {s.rows[0], NULL, s.rows[2]};
    CHECK(gs_mixed_build(&t, s.id, holed, lr, 3) == GS_ERR_INVALID_ARG);
    unsigned big[3] = {3, GS_MIXED_MAX_DEPTH + 1, 3};
    CHECK(gs_mixed_build(&t, s.id, rows, big, 3) == GS_ERR_INVALID_ARG && t == NULL);
    CHECK_EQ_U64(gs_mixed_tree_bytes(GS_MIXED_MAX_DEPTH + 1), 0);
    CHECK(gs_mixed_tree_bytes(3) >= 15 * sizeof(gs_digest));
    CHECK_EQ_U64(gs_mixed_depth(NULL), 0);
    gs_digest z = gs_mixed_root(NULL), zero;
    memset(&zero, 0, sizeof zero);
    CHECK(same(&z, &zero));
    gs_mixed_free(NULL);

    CHECK(gs_mixed_build(&t, s.id, rows, lr, 3) == GS_OK);
    gs_digest path[8], rowd[3], r;
    size_t q[2] = {5, 8}, c = 7;
    memset(path, 0xAB, sizeof path);
    CHECK(gs_mixed_open(t, path, q, 2) == GS_ERR_INVALID_ARG); /* 8 >= 2^3 */
    CHECK(path[0].b[0] == 0xAB);                               /* nothing written */
    CHECK(gs_mixed_open(NULL, path, q, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_open(t, NULL, q, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_open(t, path, NULL, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_open(t, NULL, NULL, 0) == GS_OK);
    CHECK(gs_mixed_open(t, path, q, 1) == GS_OK);
    row_digests(&s, rowd, 5);
    CHECK(gs_mixed_root_of(s.id, &r, 5, rowd, lr, 3, path) == GS_OK && same(&r, ref_root(&s)));
    CHECK(gs_mixed_root_of(s.id, &r, 8, rowd, lr, 3, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, SIZE_MAX, rowd, lr, 3, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, 5, rowd, lr, 0, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, NULL, 5, rowd, lr, 3, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, 5, NULL, lr, 3, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, 5, rowd, NULL, 3, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, 5, rowd, lr, 3, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, 5, rowd, big, 3, path) == GS_ERR_INVALID_ARG);
    /* Without a matrix of the tree's full height the depth (the largest
     * log_rows) is smaller: q = 5 is out of range, q = 1 gives another root. */
    unsigned low[3] = {2, 1, 2};
    CHECK(gs_mixed_root_of(s.id, &r, 5, rowd, low, 3, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_root_of(s.id, &r, 1, rowd, low, 3, path) == GS_OK && !same(&r, ref_root(&s)));

    CHECK(gs_mixed_compress(path, &c, q, 2, path, 3) == GS_ERR_INVALID_ARG && c == 0);
    CHECK(gs_mixed_compress(path, &c, q, 1, path, GS_MIXED_MAX_DEPTH + 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_compress(path, NULL, q, 1, path, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_compress(NULL, &c, q, 1, path, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_compress(path, &c, NULL, 1, path, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_compress(path, &c, q, 1, NULL, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_compress(NULL, &c, NULL, 0, NULL, 3) == GS_OK && c == 0);
    CHECK_EQ_U64(gs_mixed_count(q, 2, 3), 0);
    CHECK_EQ_U64(gs_mixed_count(q, 1, GS_MIXED_MAX_DEPTH + 1), 0);
    CHECK_EQ_U64(gs_mixed_count(NULL, 1, 3), 0);
    CHECK_EQ_U64(gs_mixed_count(q, 1, 3), 3);

    gs_digest sent[3], back[3];
    CHECK(gs_mixed_compress(sent, &c, q, 1, path, 3) == GS_OK && c == 3);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, lr, 3, sent, 3) == GS_OK);
    CHECK(memcmp(back, path, sizeof back) == 0);
    CHECK(gs_mixed_expand(s.id, back, q, 2, rowd, lr, 3, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, lr, 0, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, NULL, 3, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, big, 3, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, NULL, lr, 3, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, NULL, q, 1, rowd, lr, 3, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, NULL, 1, rowd, lr, 3, sent, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, lr, 3, NULL, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, lr, 3, sent, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, back, q, 1, rowd, lr, 3, sent, SIZE_MAX) == GS_ERR_INVALID_ARG);
    CHECK(gs_mixed_expand(s.id, NULL, NULL, 0, NULL, lr, 3, NULL, 0) == GS_OK);
    gs_mixed_free(t);
    shape_free(&s);
}

/* ---- levels below a skip, made again at opening ---- */

typedef struct {
    const shape *s;
    int calls, fail; /* fail: the call that returns an error (0: none) */
} fetch_ctx;

static gs_status fetch_rows(void *p, uint32_t m, const size_t *rows, size_t count, gs_digest *out) {
    fetch_ctx *c = p;
    if (++c->calls == c->fail) return GS_ERR_IO;
    if (m >= c->s->n) return GS_ERR_INVALID_ARG;
    for (size_t i = 0; i < count; i++) {
        if (rows[i] >> c->s->lr[m]) return GS_ERR_INVALID_ARG;
        out[i] = c->s->rows[m][rows[i]];
    }
    return GS_OK;
}

/* Skips 0..5 over random shapes and both hashes: the same root as the full
 * tree, fewer bytes, and gs_mixed_open_fetch's paths are the full tree's
 * for random position sets (repeats too); gs_mixed_open refuses a skipping
 * tree; a fetch error stops the opening; one fetch per matrix entering below
 * the skip. */
static void test_skip(void) {
    int cases = 0;
    for (int h = 0; h < 2; h++)
        for (unsigned d = 0; d <= 9; d++)
            for (unsigned skip = 1; skip <= 5; skip++) {
                unsigned lr[MAXN];
                uint32_t n = random_heights(lr, d, (int)(skip % 2));
                shape s;
                shape_init(&s, h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256, lr, n);
                gs_mixed_tree *full = build(&s), *t = NULL;
                CHECK(gs_mixed_build_skip(&t, s.id, (const gs_digest *const *)s.rows, s.lr, s.n, skip) == GS_OK);
                if (!full || !t) {
                    gs_mixed_free(full), gs_mixed_free(t), shape_free(&s);
                    continue;
                }
                gs_digest rt = gs_mixed_root(t);
                CHECK(same(&rt, ref_root(&s)));
                unsigned eff = skip < d ? skip : d;
                CHECK(gs_mixed_tree_bytes_skip(d, skip) < gs_mixed_tree_bytes(d) || eff == 0);
                size_t nq = 1 + gs_test_below(60), q[64];
                for (size_t k = 0; k < nq; k++) q[k] = gs_test_below((size_t)1 << d);
                if (nq > 2) q[nq - 1] = q[0]; /* a repeat */
                gs_digest *a = malloc((nq * d + 1) * sizeof *a), *b = malloc((nq * d + 1) * sizeof *b);
                CHECK(a && b);
                fetch_ctx fc = {&s, 0, 0};
                if (a && b) {
                    CHECK(gs_mixed_open(full, a, q, nq) == GS_OK);
                    CHECK(gs_mixed_open_fetch(t, b, q, nq, fetch_rows, &fc) == GS_OK);
                    CHECK(!memcmp(a, b, nq * d * sizeof *a));
                    int below = 0;
                    for (uint32_t m = 0; m < n; m++) below += d - lr[m] < eff;
                    CHECK(fc.calls == (eff ? below : 0));
                    CHECK(eff == 0 || gs_mixed_open(t, b, q, nq) == GS_ERR_INVALID_ARG);
                    fetch_ctx bad = {&s, 0, 1};
                    CHECK(eff == 0 || gs_mixed_open_fetch(t, b, q, nq, fetch_rows, &bad) == GS_ERR_IO);
                    CHECK(eff == 0 || gs_mixed_open_fetch(t, b, q, nq, NULL, NULL) == GS_ERR_INVALID_ARG);
                }
                free(a), free(b);
                gs_mixed_free(full), gs_mixed_free(t), shape_free(&s);
                cases++;
            }
    CHECK(gs_mixed_build_scratch(10, 0) == 0 && gs_mixed_build_scratch(10, 2) == 1536 * sizeof(gs_digest));
    printf("skip: %d trees (skips 1..5, depths 0..9, both hashes): the full tree's root and paths\n", cases);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_skip();
    test_one_matrix();
    test_several();
    test_threads();
    test_batched();
    test_first_query();
    test_bad_args();
    return gs_test_done();
}
