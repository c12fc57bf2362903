/* Merkle tests: every node of trees of many shapes against a naive
 * recomputation built only from one-shot gs_keccak256 (the known-answer
 * check), fixed roots computed by an independent Keccak implementation,
 * openings that verify and tampered ones that do not, thread-count
 * independence, bad arguments and allocation failures. */
#include "gstark/merkle.h"
#include "gstark/parallel.h"
#include "merkle/merkle_internal.h"
#include "test_util.h"

/* Every node of the tree, level by level (leaves first), from the
 * definition: leaf = keccak(LE limbs of the row), node = keccak(l || r). */
static gs_digest *naive_tree(const gs_fp *m, size_t cols, size_t stride, unsigned log_rows) {
    size_t n = (size_t)1 << log_rows;
    gs_digest *nodes = malloc((2 * n - 1) * sizeof *nodes);
    uint8_t *row = malloc(cols * 8);
    if (!nodes || !row) abort();
    for (size_t i = 0; i < n; i++) {
        for (size_t c = 0; c < cols; c++)
            for (int b = 0; b < 8; b++) row[8 * c + b] = (uint8_t)(m[c * stride + i] >> (8 * b));
        gs_keccak256(nodes[i].b, row, cols * 8);
    }
    size_t in = 0, out = n;
    for (size_t w = n; w > 1; w /= 2) {
        for (size_t j = 0; j < w / 2; j++) {
            uint8_t pair[64];
            memcpy(pair, nodes[in + 2 * j].b, 32);
            memcpy(pair + 32, nodes[in + 2 * j + 1].b, 32);
            gs_keccak256(nodes[out + j].b, pair, 64);
        }
        in = out;
        out += w / 2;
    }
    free(row);
    return nodes;
}

static gs_fp *random_matrix(size_t cols, size_t stride) {
    gs_fp *m = malloc(cols * stride * sizeof *m);
    if (!m) abort();
    for (size_t i = 0; i < cols * stride; i++) m[i] = gs_test_fp();
    return m;
}

static int same_digest(const gs_digest *a, const gs_digest *b) { return memcmp(a, b, 32) == 0; }

static void get_row(gs_fp *row, const gs_fp *m, size_t cols, size_t stride, size_t i) {
    for (size_t c = 0; c < cols; c++) row[c] = m[c * stride + i];
}

/* Open idx, check that it verifies, and that each kind of tampering fails. */
static void check_opening(const gs_merkle_tree *t, const gs_fp *m, size_t cols, size_t stride,
                          size_t idx, int tamper) {
    unsigned d = gs_merkle_depth(t);
    gs_digest root = gs_merkle_root(t), path[GS_MERKLE_MAX_LOG_ROWS + 1], leaf;
    gs_fp *row = malloc(cols * sizeof *row);
    if (!row) abort();
    get_row(row, m, cols, stride, idx);
    CHECK(gs_merkle_open(t, path, &idx, 1) == GS_OK);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d, idx, row, cols, path) == GS_OK);
    gs_merkle_leaf(GS_HASH_KECCAK256, &leaf, row, cols);
    CHECK(same_digest(&leaf, gs_merkle_node(t, 0, idx)));
    CHECK(gs_merkle_verify_leaf(GS_HASH_KECCAK256, &root, d, idx, &leaf, path) == GS_OK);
    for (unsigned l = 0; l < d; l++)
        CHECK(same_digest(&path[l], gs_merkle_node(t, l, (idx >> l) ^ 1)));
    if (tamper) {
        /* a changed value in the row */
        size_t c = (size_t)gs_test_below(cols);
        gs_fp keep = row[c];
        row[c] = gs_fp_add(row[c], 1 + gs_test_below(1000));
        CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d, idx, row, cols, path) ==
              GS_ERR_MERKLE_PATH);
        row[c] = keep;
        /* a changed sibling, at every level */
        for (unsigned l = 0; l < d; l++) {
            unsigned byte = (unsigned)gs_test_below(32);
            path[l].b[byte] ^= (uint8_t)(1u << gs_test_below(8));
            CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d, idx, row, cols, path) ==
                  GS_ERR_MERKLE_PATH);
            CHECK(gs_merkle_open(t, path, &idx, 1) == GS_OK);
        }
        /* a wrong index (each bit flipped in turn) */
        for (unsigned l = 0; l < d; l++)
            CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d, idx ^ ((size_t)1 << l), row, cols,
                                   path) == GS_ERR_MERKLE_PATH);
        /* a changed root */
        gs_digest bad = root;
        bad.b[gs_test_below(32)] ^= (uint8_t)(1u << gs_test_below(8));
        CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &bad, d, idx, row, cols, path) ==
              GS_ERR_MERKLE_PATH);
        /* an index out of range */
        CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d, idx + ((size_t)1 << d), row, cols,
                               path) == GS_ERR_INVALID_ARG);
        /* a shorter claimed depth does not verify either */
        if (d > 0)
            CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, d - 1, idx >> 1, row, cols, path) ==
                  GS_ERR_MERKLE_PATH);
    }
    free(row);
}

static void test_shapes(void) {
    static const size_t COLS[] = {1, 2, 7, 64};
    for (unsigned log_rows = 0; log_rows <= 12; log_rows++)
        for (size_t ci = 0; ci < sizeof COLS / sizeof COLS[0]; ci++)
            for (int pad = 0; pad < 2; pad++) {
                size_t cols = COLS[ci], n = (size_t)1 << log_rows;
                size_t stride = n + (pad ? 1 + gs_test_below(5) : 0);
                gs_fp *m = random_matrix(cols, stride);
                gs_merkle_tree *t = NULL;
                CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, cols, stride, log_rows) == GS_OK);
                if (!t) {
                    free(m);
                    continue;
                }
                CHECK_EQ_U64(gs_merkle_depth(t), log_rows);
                gs_digest *ref = naive_tree(m, cols, stride, log_rows);
                size_t at = 0, bad = 0;
                for (unsigned l = 0; l <= log_rows; l++)
                    for (size_t i = 0; i < (n >> l); i++, at++)
                        bad += !same_digest(gs_merkle_node(t, l, i), &ref[at]);
                CHECK_EQ_U64(bad, 0);
                gs_digest root = gs_merkle_root(t);
                CHECK(same_digest(&root, &ref[2 * n - 2]));
                CHECK(gs_merkle_node(t, log_rows + 1, 0) == NULL);
                CHECK(gs_merkle_node(t, 0, n) == NULL);
                CHECK(gs_merkle_node(t, log_rows, 1) == NULL);
                /* every row of small trees, a sample of large ones */
                if (n <= 64) {
                    for (size_t i = 0; i < n; i++) check_opening(t, m, cols, stride, i, i < 8);
                } else {
                    check_opening(t, m, cols, stride, 0, 1);
                    check_opening(t, m, cols, stride, n - 1, 1);
                    for (int k = 0; k < 12; k++)
                        check_opening(t, m, cols, stride, (size_t)gs_test_below(n), k < 3);
                }
                /* batch opening = single openings */
                size_t idx[5];
                gs_digest *paths = malloc(5 * (log_rows + 1) * sizeof *paths);
                for (int k = 0; k < 5; k++) idx[k] = (size_t)gs_test_below(n);
                CHECK(gs_merkle_open(t, paths, idx, 5) == GS_OK);
                for (int k = 0; k < 5; k++) {
                    gs_digest one[GS_MERKLE_MAX_LOG_ROWS + 1];
                    CHECK(gs_merkle_open(t, one, &idx[k], 1) == GS_OK);
                    CHECK(log_rows == 0 || memcmp(one, paths + k * log_rows, log_rows * 32) == 0);
                }
                /* an out-of-range index anywhere in the batch: nothing written */
                idx[3] = n;
                memset(paths, 0xAB, 5 * (log_rows + 1) * sizeof *paths);
                CHECK(gs_merkle_open(t, paths, idx, 5) == GS_ERR_INVALID_ARG);
                CHECK(paths[0].b[0] == 0xAB);
                /* the same tree from its leaves */
                gs_merkle_tree *t2 = NULL;
                CHECK(gs_merkle_commit_leaves(&t2, GS_HASH_KECCAK256, ref, log_rows) == GS_OK);
                gs_digest root2 = gs_merkle_root(t2);
                CHECK(t2 && same_digest(&root2, &root));
                gs_merkle_free(t2);
                free(paths);
                free(ref);
                gs_merkle_free(t);
                free(m);
            }
}

/* The same 2^14 x 9 matrix under 1..4 threads: identical trees. */
static void test_threads(void) {
    unsigned log_rows = 14;
    size_t cols = 9, n = (size_t)1 << log_rows;
    gs_fp *m = random_matrix(cols, n);
    gs_digest *ref = naive_tree(m, cols, n, log_rows);
    for (unsigned th = 1; th <= 4; th++) {
        gs_threads_set(th);
        gs_merkle_tree *t = NULL;
        CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, cols, n, log_rows) == GS_OK);
        if (!t) continue;
        gs_digest root = gs_merkle_root(t);
        CHECK(same_digest(&root, &ref[2 * n - 2]));
        size_t at = 0, bad = 0;
        for (unsigned l = 0; l <= log_rows; l++)
            for (size_t i = 0; i < (n >> l); i++, at++)
                bad += !same_digest(gs_merkle_node(t, l, i), &ref[at]);
        CHECK_EQ_U64(bad, 0);
        gs_merkle_tree *t2 = NULL;
        CHECK(gs_merkle_commit_leaves(&t2, GS_HASH_KECCAK256, ref, log_rows) == GS_OK);
        gs_digest root2 = gs_merkle_root(t2);
        CHECK(t2 && same_digest(&root2, &root));
        gs_merkle_free(t2);
        gs_merkle_free(t);
    }
    /* wider shapes whose subtrees split differently per thread count */
    for (unsigned th = 1; th <= 4; th++) {
        gs_threads_set(th);
        size_t c2 = 300, n2 = 1024;
        gs_fp *m2 = random_matrix(c2, n2);
        gs_digest *r2 = naive_tree(m2, c2, n2, 10);
        gs_merkle_tree *t = NULL;
        CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m2, c2, n2, 10) == GS_OK);
        gs_digest root = gs_merkle_root(t);
        CHECK(t && same_digest(&root, &r2[2 * n2 - 2]));
        gs_merkle_free(t);
        free(r2);
        free(m2);
    }
    gs_threads_set(0);
    free(ref);
    free(m);
}

/* Roots computed by an independent Keccak-256 (a from-the-spec Python
 * implementation) for m[c][i] = c * 2^32 + i + 1, col_stride = rows. */
static void test_vectors(void) {
    static const struct {
        size_t cols;
        unsigned log_rows;
        const char *root;
    } V[] = {
        {1, 0, "30f692b256e24009bcb34d0ee84da73c298afacc0924e01105e2eb0f01a87fe2"},
        {1, 3, "daeda41b878978992f5d5a60703abed5e5c24d68acfb34aba3ac9fcecd8f9176"},
        {3, 4, "15c58e84f12dd3153b94458cfff117bba545fa62678ff53b068ea07803dc244d"},
        {7, 5, "0e48978e01c6cbf1ea319b05a2f037066cd515e80581041c0ca793d2625ab21f"},
        {17, 2, "e84447e221643a96b35beb1f68ffef72fae7f71da516929c10db9471c60e5499"},
        {64, 6, "cbdb163488f8c7f502075d82965d32b56ce7ef9f02bb40ddbd07da315436e5fc"},
        {20, 8, "08ee59ba436963f5aff9fcc729517d2971c3eb331bc02743ab97ac4008ebb94c"},
    };
    for (size_t v = 0; v < sizeof V / sizeof V[0]; v++) {
        size_t n = (size_t)1 << V[v].log_rows;
        gs_fp *m = malloc(V[v].cols * n * sizeof *m);
        for (size_t c = 0; c < V[v].cols; c++)
            for (size_t i = 0; i < n; i++) m[c * n + i] = ((gs_fp)c << 32) + i + 1;
        gs_merkle_tree *t = NULL;
        CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, V[v].cols, n, V[v].log_rows) == GS_OK);
        gs_digest root = gs_merkle_root(t);
        char hex[65];
        for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", root.b[i]);
        CHECK(strcmp(hex, V[v].root) == 0);
        gs_merkle_free(t);
        free(m);
    }
}

static void test_bad_args(void) {
    gs_fp m[16] = {0};
    gs_merkle_tree *t = (gs_merkle_tree *)m; /* must be overwritten with NULL */
    CHECK(gs_merkle_commit(NULL, GS_HASH_KECCAK256, m, 1, 16, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, NULL, 1, 16, 4) == GS_ERR_INVALID_ARG);
    CHECK(t == NULL);
    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, 0, 16, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, 1, 15, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, 1, 16, 41) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, 1, 16, 100) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, SIZE_MAX, 16, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit_leaves(&t, GS_HASH_KECCAK256, NULL, 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit_leaves(&t, GS_HASH_KECCAK256, (gs_digest *)m, 41) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_commit_leaves(NULL, GS_HASH_KECCAK256, (gs_digest *)m, 1) == GS_ERR_INVALID_ARG);
    CHECK(t == NULL);
    gs_merkle_free(NULL);
    CHECK(gs_merkle_depth(NULL) == 0);
    CHECK(gs_merkle_node(NULL, 0, 0) == NULL);
    CHECK(gs_merkle_tree_bytes(41) == 0);
    CHECK(gs_merkle_tree_bytes(0) >= 32);
    CHECK(gs_merkle_tree_bytes(20) >= ((size_t)2 << 20) * 32 - 32);

    CHECK(gs_merkle_commit(&t, GS_HASH_KECCAK256, m, 1, 16, 4) == GS_OK);
    size_t idx = 16;
    gs_digest path[4], root = gs_merkle_root(t), leaf = {{0}};
    CHECK(gs_merkle_open(t, path, &idx, 1) == GS_ERR_INVALID_ARG);
    idx = SIZE_MAX;
    CHECK(gs_merkle_open(t, path, &idx, 1) == GS_ERR_INVALID_ARG);
    idx = 3;
    CHECK(gs_merkle_open(NULL, path, &idx, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_open(t, NULL, &idx, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_open(t, path, NULL, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_open(t, NULL, NULL, 0) == GS_OK);
    CHECK(gs_merkle_open(t, path, &idx, 1) == GS_OK);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, 4, 3, m, 1, path) == GS_OK);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, 4, 16, m, 1, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, 4, SIZE_MAX, m, 1, path) ==
          GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, NULL, 4, 3, m, 1, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, 4, 3, NULL, 1, path) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &root, 4, 3, m, 1, NULL) == GS_ERR_INVALID_ARG);
    /* a huge claimed depth is refused before the path is read */
    CHECK(gs_merkle_verify_leaf(GS_HASH_KECCAK256, &root, 41, 0, &leaf, path) ==
          GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_verify_leaf(GS_HASH_KECCAK256, &root, 4000, 0, &leaf, path) ==
          GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_verify_leaf(GS_HASH_KECCAK256, &root, 4, 3, NULL, path) == GS_ERR_INVALID_ARG);
    /* depth 0: the leaf is the root; no path is read */
    gs_merkle_tree *t0 = NULL;
    CHECK(gs_merkle_commit(&t0, GS_HASH_KECCAK256, m, 3, 1, 0) == GS_OK);
    gs_digest r0 = gs_merkle_root(t0);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &r0, 0, 0, m, 3, NULL) == GS_OK);
    CHECK(gs_merkle_verify(GS_HASH_KECCAK256, &r0, 0, 1, m, 3, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_merkle_open(t0, NULL, &idx, 1) == GS_ERR_INVALID_ARG); /* idx 3 >= 1 */
    idx = 0;
    CHECK(gs_merkle_open(t0, NULL, &idx, 1) == GS_OK); /* empty path */
    gs_merkle_free(t0);
    gs_merkle_free(t);
}

/* Every allocation of commit failing in turn gives GS_ERR_NOMEM and no leak
 * (ASan checks the leaks), whatever the thread count. */
/* Trees that keep only their upper levels: every kept node equal to the
 * naive tree's, the same root, paths hashed again from the rows equal to the
 * full tree's, and no way to open them without the rows. */
static void test_skip(void) {
    static const unsigned logs[] = {0, 1, 3, 7, 12};
    static const size_t colss[] = {1, 2, 3, 24, 70};
    size_t trees = 0;
    for (size_t a = 0; a < sizeof logs / sizeof logs[0]; a++)
        for (size_t b = 0; b < sizeof colss / sizeof colss[0]; b++)
            for (unsigned skip = 0; skip <= GS_MERKLE_MAX_SKIP + 1; skip++) {
                unsigned lg = logs[a];
                size_t cols = colss[b], n = (size_t)1 << lg, stride = n + 5;
                gs_fp *m = malloc(cols * stride * sizeof *m);
                for (size_t i = 0; i < cols * stride; i++) m[i] = gs_test_below(GS_FP_P);
                gs_digest *ref = naive_tree(m, cols, stride, lg);
                gs_merkle_tree *full = NULL, *t = NULL;
                CHECK(gs_merkle_commit(&full, GS_HASH_KECCAK256, m, cols, stride, lg) == GS_OK);
                CHECK(gs_merkle_commit_skip(&t, GS_HASH_KECCAK256, m, cols, stride, lg, skip) == GS_OK);
                if (!t || !full) continue;
                unsigned kept = skip > GS_MERKLE_MAX_SKIP ? GS_MERKLE_MAX_SKIP : skip;
                if (kept > lg) kept = lg;
                CHECK(gs_merkle_skip(t) == kept);
                gs_digest r1 = gs_merkle_root(t), r2 = gs_merkle_root(full);
                CHECK(same_digest(&r1, &r2));
                size_t at = 0;
                for (unsigned l = 0; l <= lg; l++)
                    for (size_t i = 0; i < (n >> l); i++, at++) {
                        const gs_digest *d = gs_merkle_node(t, l, i);
                        CHECK(l < kept ? d == NULL : d && same_digest(d, &ref[at]));
                    }
                size_t idx[6] = {0, n - 1, n / 2, gs_test_below(n), gs_test_below(n), 0};
                gs_digest *p1 = calloc(6 * lg + 1, sizeof *p1), *p2 = calloc(6 * lg + 1, sizeof *p2);
                CHECK(gs_merkle_open(full, p1, idx, 6) == GS_OK);
                CHECK(gs_merkle_open_rows(t, m, cols, stride, p2, idx, 6) == GS_OK);
                CHECK(memcmp(p1, p2, 6 * lg * sizeof *p1) == 0);
                CHECK(gs_merkle_open(t, p2, idx, 6) == (kept ? GS_ERR_INVALID_ARG : GS_OK));
                if (kept) CHECK(gs_merkle_open_rows(t, NULL, cols, stride, p2, idx, 6) == GS_ERR_INVALID_ARG);
                CHECK_EQ_U64(gs_merkle_tree_bytes_skip(lg, kept),
                             (((size_t)2 << (lg - kept)) - 1) * 32 + gs_merkle_tree_bytes(0) - 32);
                trees++;
                free(p1), free(p2), free(ref), free(m);
                gs_merkle_free(t), gs_merkle_free(full);
            }
    /* The device's rule: narrow matrices keep an eighth, wide ones all. */
    CHECK(gs_merkle_skip_for(2, 20) == 3 && gs_merkle_skip_for(3, 20) == 3 &&
          gs_merkle_skip_for(24, 20) == 3 && gs_merkle_skip_for(31, 20) == 3 &&
          gs_merkle_skip_for(32, 20) == 0);
    /* The CPU backend's own rule: an eighth up to 255 columns. */
    CHECK(gs_merkle_skip_cpu(2, 20) == 3 && gs_merkle_skip_cpu(33, 20) == 3 &&
          gs_merkle_skip_cpu(255, 20) == 3 && gs_merkle_skip_cpu(256, 20) == 0 &&
          gs_merkle_skip_cpu(33, GS_MERKLE_SKIP_MIN_LOG_ROWS - 1) == 0);
    /* Small trees keep every level (caps read stored levels). */
    CHECK(gs_merkle_skip_for(2, GS_MERKLE_SKIP_MIN_LOG_ROWS - 1) == 0 &&
          gs_merkle_skip_for(2, GS_MERKLE_SKIP_MIN_LOG_ROWS) == 3);
    printf("skip: %zu trees keeping only their upper levels match the full trees\n", trees);
}

static void test_nomem(void) {
    size_t cols = 5, n = (size_t)1 << 12;
    gs_fp *m = random_matrix(cols, n);
    gs_digest *ref = naive_tree(m, cols, n, 12);
    for (unsigned th = 1; th <= 3; th++) {
        gs_threads_set(th);
        int saw_ok = 0;
        for (long k = 1; k <= 8 && !saw_ok; k++) {
            gs_merkle_tree *t = (gs_merkle_tree *)m;
            gs_merkle_debug_fail_alloc(k);
            gs_status s = gs_merkle_commit(&t, GS_HASH_KECCAK256, m, cols, n, 12);
            gs_merkle_debug_fail_alloc(0);
            CHECK(s == GS_OK || s == GS_ERR_NOMEM);
            CHECK((s == GS_OK) == (t != NULL));
            if (s == GS_OK) {
                saw_ok = 1;
                gs_digest root = gs_merkle_root(t);
                CHECK(same_digest(&root, &ref[2 * n - 2]));
                CHECK(k >= 3); /* the tree, its nodes, then scratch */
            }
            gs_merkle_free(t);
        }
        CHECK(saw_ok);
        for (long k = 1; k <= 2; k++) {
            gs_merkle_tree *t = (gs_merkle_tree *)m;
            gs_merkle_debug_fail_alloc(k);
            CHECK(gs_merkle_commit_leaves(&t, GS_HASH_KECCAK256, ref, 12) == GS_ERR_NOMEM);
            gs_merkle_debug_fail_alloc(0);
            CHECK(t == NULL);
        }
    }
    gs_threads_set(0);
    free(ref);
    free(m);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_shapes();
    test_threads();
    test_vectors();
    test_bad_args();
    test_nomem();
    test_skip();
    return gs_test_done();
}
