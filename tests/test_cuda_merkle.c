/* Device Merkle trees (gstark/cuda_merkle.h) against the CPU trees
 * (gstark/merkle.h): roots and opened paths byte for byte over many shapes
 * (log_rows 0..20 with 1, 2, 3, 8, 17, 64, 100 columns, column strides above
 * the row count, a matrix not 16-byte aligned), large ones (2^22 x 8,
 * 2^21 x 64), every Keccak code form, device Keccak-256 of single messages of
 * every length against gs_keccak256, leaf hashing alone, streams and
 * recommit, argument errors, injected allocation failures and a leak check;
 * mixed-height trees (src/cuda/mixed.h) node for node the host's, both hashes.
 * Exits GS_TEST_SKIP (77) where no device exists; CTest reports a skip.
 *
 *   test_cuda_merkle [--seed N] [--quick]   (--quick: log_rows <= 14, no large shapes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/device.h"
#include "cuda/mixed.h"
#include "gstark/cuda.h"
#include "gstark/cuda_merkle.h"
#include "gstark/hash.h"
#include "gstark/merkle.h"
#include "merkle/mixed.h"
#include "test_util.h"

static const char *g_what = ""; /* the case being run, for failure messages */
static char g_what_buf[160];

/* A failing status, with the CUDA error text. */
static int ok(gs_status s, const char *call) {
    if (s == GS_OK) return 1;
    fprintf(stderr, "[%s] %s: %s (%s)\n", g_what, call, gs_status_str(s), gs_cuda_last_error());
    return 0;
}

#define CHECK_OK(expr) CHECK(ok((expr), #expr))

/* ---- matrices: host copy and device copy ---- */

typedef struct {
    gs_fp *h;          /* host, column-major, `stride` apart */
    uint64_t *d_alloc; /* device allocation */
    uint64_t *d;       /* d_alloc + offset (offset 1 makes it 8- but not 16-byte aligned) */
    size_t cols, stride, elems;
    unsigned log_rows;
} matrix;

static int matrix_make(matrix *m, size_t cols, size_t stride, unsigned log_rows, size_t offset) {
    memset(m, 0, sizeof *m);
    m->cols = cols, m->stride = stride, m->log_rows = log_rows;
    m->elems = (cols - 1) * stride + ((size_t)1 << log_rows);
    m->h = malloc(m->elems * sizeof *m->h);
    if (!m->h) return 0;
    /* Every element random, the gaps between columns included: they must not
     * change the tree. */
    for (size_t i = 0; i < m->elems; i++) m->h[i] = gs_test_fp();
    void *d = NULL;
    if (!ok(gs_cuda_merkle_dev_alloc(&d, (m->elems + offset) * 8), "dev_alloc")) {
        free(m->h);
        m->h = NULL;
        return 0;
    }
    m->d_alloc = d;
    m->d = m->d_alloc + offset;
    if (!ok(gs_cuda_merkle_dev_copy(m->d, m->h, m->elems * 8), "dev_copy matrix")) {
        gs_cuda_merkle_dev_free(m->d_alloc);
        free(m->h);
        m->h = NULL;
        return 0;
    }
    return 1;
}

static void matrix_free(matrix *m) {
    gs_cuda_merkle_dev_free(m->d_alloc);
    free(m->h);
    memset(m, 0, sizeof *m);
}

/* ---- one shape: GPU root and paths equal the CPU's ---- */

static size_t g_cases, g_paths_checked;

/* Compares the device tree `gt` with the CPU tree `ct`: root, and the paths
 * of every leaf (small trees, so every node below the root is compared) or of
 * `n_random` random leaves plus the first, middle and last. */
static void compare_trees(const gs_merkle_tree *ct, const gs_cuda_tree *gt, size_t n_random) {
    unsigned d = gs_merkle_depth(ct);
    CHECK(gs_cuda_merkle_depth(gt) == d);
    gs_digest groot, croot = gs_merkle_root(ct);
    memset(&groot, 0xAA, sizeof groot);
    CHECK_OK(gs_cuda_merkle_root(gt, &groot));
    int root_ok = memcmp(groot.b, croot.b, sizeof croot) == 0;
    CHECK(root_ok);
    if (!root_ok) fprintf(stderr, "[%s] root differs\n", g_what);

    size_t rows = (size_t)1 << d;
    size_t n = rows <= 1024 ? rows : n_random + 3;
    size_t *idx = malloc(n * sizeof *idx);
    gs_digest *cp = malloc((n * d + 1) * sizeof *cp), *gp = malloc((n * d + 1) * sizeof *gp);
    if (!idx || !cp || !gp) {
        CHECK(!"out of host memory");
        free(idx), free(cp), free(gp);
        return;
    }
    if (rows <= 1024) {
        for (size_t i = 0; i < n; i++) idx[i] = i;
    } else {
        idx[0] = 0, idx[1] = rows / 2, idx[2] = rows - 1;
        for (size_t i = 3; i < n; i++) idx[i] = (size_t)gs_test_below(rows);
    }
    memset(gp, 0x55, (n * d + 1) * sizeof *gp);
    CHECK_OK(gs_merkle_open(ct, cp, idx, n));
    CHECK_OK(gs_cuda_merkle_open(gt, gp, idx, n));
    size_t bad = 0;
    for (size_t k = 0; k < n * d; k++) bad += memcmp(cp[k].b, gp[k].b, sizeof cp[k]) != 0;
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "[%s] %zu of %zu path digests differ\n", g_what, bad, n * d);
    /* Nothing written past the n * d digests. */
    static const uint8_t fill[32] = {0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                                     0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                                     0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                                     0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55};
    CHECK(memcmp(gp[n * d].b, fill, 32) == 0);
    g_paths_checked += n;
    free(idx), free(cp), free(gp);
}

/* Commit one shape on both sides and compare. */
static void check_shape(size_t cols, size_t stride, unsigned log_rows, size_t offset,
                        size_t n_random, void *stream) {
    snprintf(g_what_buf, sizeof g_what_buf, "%s 2^%u x %zu stride %zu offset %zu",
             gs_cuda_keccak_variant_name(gs_cuda_keccak_variant_select(-1)), log_rows, cols,
             stride, offset);
    g_what = g_what_buf;
    matrix m;
    if (!matrix_make(&m, cols, stride, log_rows, offset)) {
        CHECK(!"matrix_make");
        return;
    }
    gs_merkle_tree *ct = NULL;
    gs_cuda_tree *gt = NULL;
    CHECK_OK(gs_merkle_commit(&ct, GS_HASH_KECCAK256, m.h, cols, stride, log_rows));
    CHECK_OK(gs_cuda_merkle_commit(&gt, m.d, cols, stride, log_rows, stream));
    if (ct && gt) compare_trees(ct, gt, n_random);
    gs_cuda_merkle_free(gt);
    gs_merkle_free(ct);
    matrix_free(&m);
    g_cases++;
}

/* Trees that skip their lower levels (gs_cuda_merkle_commit_skip): for both
 * hashes, shapes of one pass and of several (2^21 rows), every skip the
 * backends use and the largest, the root, every stored level and the paths'
 * upper levels equal the CPU tree's with the same skip; the lower levels
 * are not written, and gs_merkle_low_path over the rows completes them to
 * the CPU's paths. */
static void test_skip(unsigned max_log) {
    static const unsigned logs[] = {5, 12, 16, 21};
    static const size_t widths[] = {2, 3, 24};
    static const unsigned skips[] = {1, 3, GS_CUDA_MERKLE_MAX_SKIP};
    for (int hi = 0; hi < 2; hi++)
        for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++)
            for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
                for (size_t si = 0; si < sizeof skips / sizeof skips[0]; si++) {
                    gs_hash_id id = hi ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256;
                    unsigned lr = logs[li], skip = skips[si];
                    size_t cols = widths[wi], stride = ((size_t)1 << lr) + 3;
                    if (lr > max_log || (lr == 21 && (hi || cols > 3))) continue;
                    snprintf(g_what_buf, sizeof g_what_buf, "skip %u %s 2^%u x %zu", skip,
                             hi ? "poseidon2" : "keccak", lr, cols);
                    g_what = g_what_buf;
                    matrix m;
                    if (!matrix_make(&m, cols, stride, lr, 0)) {
                        CHECK(!"matrix_make");
                        continue;
                    }
                    gs_merkle_tree *ct = NULL;
                    gs_cuda_tree *gt = NULL;
                    CHECK_OK(gs_merkle_commit_skip(&ct, id, m.h, cols, stride, lr, skip));
                    CHECK_OK(gs_cuda_merkle_commit_skip(&gt, id, m.d, cols, stride, lr, skip, NULL));
                    unsigned s = skip < lr ? skip : lr;
                    CHECK(gs_cuda_merkle_skip(gt) == s && gs_merkle_skip(ct) == s);
                    if (!ct || !gt) {
                        gs_cuda_merkle_free(gt), gs_merkle_free(ct), matrix_free(&m);
                        continue;
                    }
                    gs_digest root, croot = gs_merkle_root(ct);
                    CHECK_OK(gs_cuda_merkle_root(gt, &root));
                    CHECK(memcmp(root.b, croot.b, 32) == 0);
                    gs_digest *lv = malloc(((size_t)1 << (lr - s)) * sizeof *lv);
                    CHECK(lv != NULL);
                    for (unsigned l = s; lv && l <= lr; l++) {
                        CHECK_OK(gs_cuda_merkle_level(gt, l, lv));
                        size_t bad = 0;
                        for (size_t i = 0; i < ((size_t)1 << (lr - l)); i++)
                            bad += memcmp(lv[i].b, gs_merkle_node(ct, l, i)->b, 32) != 0;
                        CHECK(bad == 0);
                    }
                    if (s) CHECK(gs_cuda_merkle_level(gt, s - 1, lv) == GS_ERR_INVALID_ARG);
                    free(lv);
                    size_t n = 37, rows = (size_t)1 << lr;
                    size_t idx[37];
                    for (size_t k = 0; k < n; k++) idx[k] = k < 2 ? (k ? rows - 1 : 0) : gs_test_below(rows);
                    gs_digest *cp = malloc(n * lr * sizeof *cp), *gp = malloc(n * lr * sizeof *gp);
                    gs_fp *blk = malloc((cols << s) * sizeof *blk);
                    CHECK(cp && gp && blk);
                    if (cp && gp && blk) {
                        memset(gp, 0x55, n * lr * sizeof *gp);
                        CHECK_OK(gs_merkle_open_rows(ct, m.h, cols, stride, cp, idx, n));
                        CHECK_OK(gs_cuda_merkle_open(gt, gp, idx, n));
                        size_t bad = 0, written = 0;
                        for (size_t k = 0; k < n; k++) {
                            for (unsigned l = 0; l < s; l++) written += gp[k * lr + l].b[0] != 0x55 || gp[k * lr + l].b[31] != 0x55;
                            size_t base = idx[k] >> s << s;
                            for (size_t j = 0; j < ((size_t)1 << s); j++)
                                for (size_t c = 0; c < cols; c++) blk[j * cols + c] = m.h[c * stride + base + j];
                            gs_merkle_low_path(id, gp + k * lr, blk, cols, s, idx[k] - base);
                            for (unsigned l = 0; l < lr; l++) bad += memcmp(gp[k * lr + l].b, cp[k * lr + l].b, 32) != 0;
                        }
                        CHECK(bad == 0 && written == 0);
                        if (bad || written) fprintf(stderr, "[%s] %zu path digests differ, %zu written below the skip\n", g_what, bad, written);
                        g_paths_checked += n;
                    }
                    free(cp), free(gp), free(blk);
                    gs_cuda_merkle_free(gt), gs_merkle_free(ct), matrix_free(&m);
                    g_cases++;
                }
}

/* Poseidon2 trees (gs_cuda_merkle_commit_hash): the device tree equals gs_merkle_commit's
 * with GS_HASH_POSEIDON2, root and paths, and a recommit keeps the hash. */
static void test_poseidon2(unsigned max_log) {
    static const size_t cols_list[] = {1, 3, 8, 9, 16, 17, 64};
    size_t n = 0;
    for (unsigned lr = 0; lr <= max_log; lr += (lr < 4 ? 1 : 3)) {
        size_t rows = (size_t)1 << lr;
        for (size_t ci = 0; ci < sizeof cols_list / sizeof cols_list[0]; ci++) {
            size_t cols = cols_list[ci], stride = rows + (ci % 3);
            if (rows * cols > ((size_t)1 << 22)) continue; /* the CPU reference's time */
            snprintf(g_what_buf, sizeof g_what_buf, "poseidon2 2^%u x %zu stride %zu", lr, cols,
                     stride);
            g_what = g_what_buf;
            matrix m;
            if (!matrix_make(&m, cols, stride, lr, ci % 2)) {
                CHECK(!"matrix_make");
                return;
            }
            gs_merkle_tree *ct = NULL, *kt = NULL;
            gs_cuda_tree *gt = NULL;
            CHECK_OK(gs_merkle_commit(&ct, GS_HASH_POSEIDON2, m.h, cols, stride, lr));
            CHECK_OK(gs_cuda_merkle_commit_hash(&gt, GS_HASH_POSEIDON2, m.d, cols, stride, lr, NULL));
            if (ct && gt) compare_trees(ct, gt, 64);
            /* Recommit (the same matrix): still Poseidon2, not Keccak-256. */
            CHECK_OK(gs_merkle_commit(&kt, GS_HASH_KECCAK256, m.h, cols, stride, lr));
            if (gt) {
                CHECK_OK(gs_cuda_merkle_recommit(gt, m.d, cols, stride, NULL));
                gs_digest r, c = gs_merkle_root(ct), k = gs_merkle_root(kt);
                CHECK_OK(gs_cuda_merkle_root(gt, &r));
                CHECK(!memcmp(&r, &c, sizeof r) && memcmp(&r, &k, sizeof r) != 0);
            }
            gs_cuda_merkle_free(gt);
            gs_merkle_free(ct), gs_merkle_free(kt);
            matrix_free(&m);
            n++;
        }
    }
    gs_cuda_tree *t = NULL;
    CHECK(gs_cuda_merkle_commit_hash(&t, (gs_hash_id)2, NULL, 1, 1, 0, NULL) == GS_ERR_INVALID_ARG &&
          !t);
    printf("poseidon2: %zu shapes, device trees equal the CPU's\n", n);
}

/* Strides: equal to the row count, or a little or a lot more. */
static size_t pick_stride(size_t rows, unsigned k) {
    switch (k % 5) {
    case 0: return rows;
    case 1: return rows + 1;
    case 2: return rows + 3;
    case 3: return 2 * rows + 5;
    default: return rows + 64;
    }
}

static void test_shapes(unsigned max_log) {
    static const size_t cols_list[] = {1, 2, 3, 8, 17, 64, 100};
    unsigned k = 0;
    for (unsigned lr = 0; lr <= max_log; lr++) {
        size_t rows = (size_t)1 << lr;
        for (size_t ci = 0; ci < sizeof cols_list / sizeof cols_list[0]; ci++, k++) {
            size_t cols = cols_list[ci];
            if (rows * cols > ((size_t)1 << 24)) continue; /* the CPU reference's time */
            check_shape(cols, pick_stride(rows, k), lr, k % 3 == 2, 64, NULL);
        }
    }
}

/* Every other code form on shapes around each boundary (one block of 17
 * lanes and more; the tail alone; level kernels and tail). */
static void test_variants(void) {
    static const unsigned logs[] = {0, 1, 2, 7, 8, 9, 12, 15};
    static const size_t cols_list[] = {1, 16, 17, 18, 34, 64, 100};
    int nv = gs_cuda_keccak_variant_count(), def = gs_cuda_keccak_variant_select(-1);
    for (int v = 0; v < nv; v++) {
        if (v == def) continue;
        gs_cuda_keccak_variant_select(v);
        unsigned k = 0;
        for (size_t li = 0; li < sizeof logs / sizeof logs[0]; li++)
            for (size_t ci = 0; ci < sizeof cols_list / sizeof cols_list[0]; ci++, k++)
                check_shape(cols_list[ci], pick_stride((size_t)1 << logs[li], k), logs[li], k % 2,
                            32, NULL);
    }
    gs_cuda_keccak_variant_select(def);
}

static void test_large(void) {
    check_shape(8, (size_t)1 << 22, 22, 0, 1000, NULL);
    check_shape(64, ((size_t)1 << 21) + 7, 21, 1, 1000, NULL);
}

/* ---- Keccak-256 of single messages, every code form ---- */

static void test_keccak_messages(void) {
    static const uint8_t empty[32] = {
        0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d,
        0xb2, 0xdc, 0xc7, 0x03, 0xc0, 0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82,
        0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70};
    enum { NMSG = 5, MAXLEN = 10000 };
    uint8_t *in = malloc((size_t)NMSG * MAXLEN), out[NMSG * 32], ref[32];
    if (!in) {
        CHECK(!"out of host memory");
        return;
    }
    int nv = gs_cuda_keccak_variant_count(), def = gs_cuda_keccak_variant_select(-1);
    for (int v = 0; v < nv; v++) {
        gs_cuda_keccak_variant_select(v);
        snprintf(g_what_buf, sizeof g_what_buf, "keccak %s", gs_cuda_keccak_variant_name(v));
        g_what = g_what_buf;
        CHECK_OK(gs_cuda_keccak256_many(out, NULL, 0, 1));
        CHECK(memcmp(out, empty, 32) == 0);
        size_t bad = 0;
        for (size_t len = 0; len <= MAXLEN; len = len < 420 ? len + 1 : len * 3 / 2 + 7) {
            for (size_t i = 0; i < NMSG * len; i++) in[i] = (uint8_t)gs_test_u64();
            memset(out, 0, sizeof out);
            if (!ok(gs_cuda_keccak256_many(out, in, len, NMSG), "keccak256_many")) {
                CHECK(0);
                break;
            }
            for (size_t k = 0; k < NMSG; k++) {
                gs_keccak256(ref, in + k * len, len);
                if (memcmp(ref, out + 32 * k, 32) != 0) {
                    if (bad++ < 5)
                        fprintf(stderr, "[%s] length %zu message %zu differs\n", g_what, len, k);
                }
            }
        }
        CHECK(bad == 0);
        /* Many messages at once (several blocks of threads). */
        size_t n = 1000, len = 64;
        uint8_t *many = malloc(n * len), *dig = malloc(n * 32);
        if (many && dig) {
            for (size_t i = 0; i < n * len; i++) many[i] = (uint8_t)gs_test_u64();
            CHECK_OK(gs_cuda_keccak256_many(dig, many, len, n));
            size_t badn = 0;
            for (size_t k = 0; k < n; k++) {
                gs_keccak256(ref, many + k * len, len);
                badn += memcmp(ref, dig + 32 * k, 32) != 0;
            }
            CHECK(badn == 0);
        }
        free(many), free(dig);
    }
    gs_cuda_keccak_variant_select(def);
    free(in);
}

/* ---- leaf hashing alone ---- */

static void test_leaves(void) {
    g_what = "hash_leaves";
    unsigned lr = 12;
    size_t rows = (size_t)1 << lr;
    matrix m;
    if (!matrix_make(&m, 17, rows + 9, lr, 1)) {
        CHECK(!"matrix_make");
        return;
    }
    gs_merkle_tree *ct = NULL;
    CHECK_OK(gs_merkle_commit(&ct, GS_HASH_KECCAK256, m.h, m.cols, m.stride, lr));
    void *d_leaves = NULL;
    gs_digest *leaves = malloc(rows * sizeof *leaves);
    CHECK_OK(gs_cuda_merkle_dev_alloc(&d_leaves, rows * sizeof(gs_digest)));
    if (ct && d_leaves && leaves) {
        CHECK_OK(gs_cuda_merkle_hash_leaves(d_leaves, m.d, m.cols, m.stride, lr, NULL));
        CHECK_OK(gs_cuda_merkle_dev_copy(leaves, d_leaves, rows * sizeof(gs_digest)));
        size_t bad = 0;
        for (size_t i = 0; i < rows; i++)
            bad += memcmp(leaves[i].b, gs_merkle_node(ct, 0, i)->b, 32) != 0;
        CHECK(bad == 0);
        /* Argument errors. */
        CHECK(gs_cuda_merkle_hash_leaves(NULL, m.d, m.cols, m.stride, lr, NULL) ==
              GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_hash_leaves((gs_digest *)((char *)d_leaves + 8), m.d, m.cols, m.stride,
                                         lr, NULL) == GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_hash_leaves(leaves, m.d, m.cols, m.stride, lr, NULL) ==
              GS_ERR_INVALID_ARG); /* host memory */
        CHECK(gs_cuda_merkle_hash_leaves(d_leaves, m.d, 0, m.stride, lr, NULL) ==
              GS_ERR_INVALID_ARG);
    }
    gs_cuda_merkle_dev_free(d_leaves);
    free(leaves);
    gs_merkle_free(ct);
    matrix_free(&m);
}

/* ---- leaves a piece of columns at a time ---- */

/* The row sponges fed the columns in pieces of every width in `widths` in
 * turn (pieces that start and end inside a 17-value block, that fill it
 * exactly, that span several) give the CPU tree's leaves, for every Keccak
 * code form; the tree made from them has the CPU tree's root. */
static void test_absorb(void) {
    g_what = "leaves absorbed in pieces";
    unsigned lr = 10;
    size_t rows = (size_t)1 << lr;
    static const size_t cols_cases[] = {1, 16, 17, 18, 40, 77};
    static const size_t widths[] = {1, 5, 16, 17, 3, 34, 2};
    int was = gs_cuda_keccak_variant_select(-1);
    void *d_state = NULL, *d_leaves = NULL;
    gs_digest *leaves = malloc(rows * sizeof *leaves);
    CHECK_OK(gs_cuda_merkle_dev_alloc(&d_state, 25 * rows * 8));
    CHECK_OK(gs_cuda_merkle_dev_alloc(&d_leaves, rows * sizeof(gs_digest)));
    size_t runs = 0;
    for (size_t ci = 0; d_state && d_leaves && leaves && ci < sizeof cols_cases / sizeof *cols_cases; ci++) {
        matrix m;
        if (!matrix_make(&m, cols_cases[ci], rows, lr, 0)) {
            CHECK(!"matrix_make");
            break;
        }
        gs_merkle_tree *ct = NULL;
        CHECK_OK(gs_merkle_commit(&ct, GS_HASH_KECCAK256, m.h, m.cols, m.stride, lr));
        for (int v = 0; ct && v < gs_cuda_keccak_variant_count(); v++) {
            gs_cuda_keccak_variant_select(v);
            CHECK_OK(gs_cuda_keccak_rows_begin(d_state, lr, NULL));
            size_t c0 = 0, w = 0;
            while (c0 < m.cols) {
                size_t k = widths[w++ % (sizeof widths / sizeof *widths)];
                if (k > m.cols - c0) k = m.cols - c0;
                CHECK_OK(gs_cuda_keccak_rows_absorb(d_state, m.d + c0 * m.stride, k, m.stride, lr,
                                                    (unsigned)(c0 % 17), NULL));
                c0 += k;
            }
            CHECK_OK(gs_cuda_keccak_rows_finish(d_leaves, d_state, lr, (unsigned)(m.cols % 17), NULL));
            CHECK_OK(gs_cuda_merkle_dev_copy(leaves, d_leaves, rows * sizeof(gs_digest)));
            size_t bad = 0;
            for (size_t i = 0; i < rows; i++) bad += memcmp(leaves[i].b, gs_merkle_node(ct, 0, i)->b, 32) != 0;
            if (bad) fprintf(stderr, "absorb: %zu columns, form %d: %zu leaves differ\n", m.cols, v, bad);
            CHECK(bad == 0);
            gs_cuda_tree *gt = NULL;
            gs_digest root;
            CHECK_OK(gs_cuda_merkle_commit_leaves(&gt, d_leaves, lr, NULL));
            if (gt) CHECK_OK(gs_cuda_merkle_root(gt, &root));
            CHECK(gt && memcmp(root.b, gs_merkle_root(ct).b, 32) == 0);
            gs_cuda_merkle_free(gt);
            runs++;
        }
        gs_merkle_free(ct);
        matrix_free(&m);
    }
    CHECK(gs_cuda_keccak_rows_absorb(d_state, NULL, 1, rows, lr, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_keccak_rows_finish(d_leaves, d_state, lr, 17, NULL) == GS_ERR_INVALID_ARG);
    gs_cuda_keccak_variant_select(was);
    gs_cuda_merkle_dev_free(d_state);
    gs_cuda_merkle_dev_free(d_leaves);
    free(leaves);
    printf("leaves absorbed in pieces: %zu runs equal the CPU's leaves and root\n", runs);
}

/* ---- streams and recommit ---- */

static void test_streams(void) {
    g_what = "streams";
    unsigned lr = 16;
    size_t rows = (size_t)1 << lr;
    matrix a, b;
    if (!matrix_make(&a, 8, rows, lr, 0)) {
        CHECK(!"matrix_make");
        return;
    }
    if (!matrix_make(&b, 19, rows + 1, lr, 0)) {
        CHECK(!"matrix_make");
        matrix_free(&a);
        return;
    }
    gs_merkle_tree *ca = NULL, *cb = NULL;
    CHECK_OK(gs_merkle_commit(&ca, GS_HASH_KECCAK256, a.h, a.cols, a.stride, lr));
    CHECK_OK(gs_merkle_commit(&cb, GS_HASH_KECCAK256, b.h, b.cols, b.stride, lr));
    void *s = NULL;
    CHECK_OK(gs_cuda_merkle_stream_create(&s));
    gs_cuda_tree *t = NULL;
    CHECK_OK(gs_cuda_merkle_commit(&t, a.d, a.cols, a.stride, lr, s));
    if (ca && cb && s && t) {
        compare_trees(ca, t, 64);
        /* Recommit another matrix of the same depth on the stream. */
        CHECK_OK(gs_cuda_merkle_recommit(t, b.d, b.cols, b.stride, s));
        compare_trees(cb, t, 64);
        /* Wrong shapes leave the tree as it is. */
        CHECK(gs_cuda_merkle_recommit(t, b.d, b.cols, rows - 1, s) == GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_recommit(t, NULL, b.cols, b.stride, s) == GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_recommit(t, b.d, 0, b.stride, s) == GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_recommit(NULL, b.d, b.cols, b.stride, s) == GS_ERR_INVALID_ARG);
        compare_trees(cb, t, 16);
        /* Back to the first matrix on the default stream, ordered after the
         * stream's commit. */
        CHECK_OK(gs_cuda_merkle_recommit(t, a.d, a.cols, a.stride, NULL));
        compare_trees(ca, t, 16);
        /* The stream may go before the tree: root and open wait on an event. */
        CHECK_OK(gs_cuda_merkle_recommit(t, b.d, b.cols, b.stride, s));
        gs_cuda_merkle_stream_destroy(s);
        s = NULL;
        compare_trees(cb, t, 16);
    }
    gs_cuda_merkle_free(t);
    gs_cuda_merkle_stream_destroy(s);
    gs_merkle_free(ca), gs_merkle_free(cb);
    matrix_free(&a), matrix_free(&b);
}

/* ---- argument errors ---- */

static void test_args(void) {
    g_what = "arguments";
    matrix m;
    if (!matrix_make(&m, 3, 8, 3, 0)) {
        CHECK(!"matrix_make");
        return;
    }
    gs_cuda_tree *t = (gs_cuda_tree *)&m; /* must come back NULL */
    CHECK(gs_cuda_merkle_commit(NULL, m.d, 3, 8, 3, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_merkle_commit(&t, NULL, 3, 8, 3, NULL) == GS_ERR_INVALID_ARG);
    CHECK(t == NULL);
    CHECK(gs_cuda_merkle_commit(&t, m.d, 0, 8, 3, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_merkle_commit(&t, m.d, 3, 8, 31, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_merkle_commit(&t, m.d, 3, 7, 3, NULL) == GS_ERR_INVALID_ARG); /* stride < rows */
    CHECK(gs_cuda_merkle_commit(&t, (const uint64_t *)((const char *)m.d + 4), 3, 8, 3, NULL) ==
          GS_ERR_INVALID_ARG); /* misaligned */
    CHECK(gs_cuda_merkle_commit(&t, m.h, 3, 8, 3, NULL) == GS_ERR_INVALID_ARG); /* host memory */
    uint64_t on_stack[8] = {0};
    CHECK(gs_cuda_merkle_commit(&t, on_stack, 1, 8, 3, NULL) == GS_ERR_INVALID_ARG);
    /* The extent overflows. */
    CHECK(gs_cuda_merkle_commit(&t, m.d, SIZE_MAX / 8, 2, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_merkle_commit(&t, m.d, 2, SIZE_MAX / 8, 3, NULL) == GS_ERR_INVALID_ARG);
    CHECK(t == NULL);

    CHECK(gs_cuda_merkle_tree_bytes(0) == 32);
    CHECK(gs_cuda_merkle_tree_bytes(20) == (((size_t)2 << 20) - 1) * 32);
    CHECK(gs_cuda_merkle_tree_bytes(30) == (((size_t)2 << 30) - 1) * 32);
    CHECK(gs_cuda_merkle_tree_bytes(31) == 0);
    CHECK(gs_cuda_merkle_depth(NULL) == 0);
    gs_cuda_merkle_free(NULL);

    gs_digest r, paths[4];
    size_t idx[2] = {1, 8};
    CHECK(gs_cuda_merkle_root(NULL, &r) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_merkle_open(NULL, paths, idx, 1) == GS_ERR_INVALID_ARG);
    CHECK_OK(gs_cuda_merkle_commit(&t, m.d, 3, 8, 3, NULL));
    if (t) {
        CHECK(gs_cuda_merkle_root(t, NULL) == GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_open(t, paths, NULL, 1) == GS_ERR_INVALID_ARG);
        CHECK(gs_cuda_merkle_open(t, NULL, idx, 1) == GS_ERR_INVALID_ARG);
        memset(paths, 0x77, sizeof paths);
        CHECK(gs_cuda_merkle_open(t, paths, idx, 2) == GS_ERR_INVALID_ARG); /* 8 >= 2^3 */
        int untouched = 1;
        for (size_t i = 0; i < sizeof paths; i++) untouched &= ((uint8_t *)paths)[i] == 0x77;
        CHECK(untouched);
        CHECK_OK(gs_cuda_merkle_open(t, NULL, NULL, 0));
        CHECK_OK(gs_cuda_merkle_open(t, paths, idx, 1));
    }
    gs_cuda_merkle_free(t);
    t = NULL;
    /* Depth 0: the root is the leaf; paths are empty and may be NULL. */
    CHECK_OK(gs_cuda_merkle_commit(&t, m.d, 3, 1, 0, NULL));
    if (t) {
        size_t zero = 0, one = 1;
        gs_digest leaf;
        gs_merkle_leaf(GS_HASH_KECCAK256, &leaf, (gs_fp[3]){m.h[0], m.h[1], m.h[2]}, 3);
        CHECK_OK(gs_cuda_merkle_root(t, &r));
        CHECK(memcmp(r.b, leaf.b, 32) == 0);
        CHECK_OK(gs_cuda_merkle_open(t, NULL, &zero, 1));
        CHECK(gs_cuda_merkle_open(t, NULL, &one, 1) == GS_ERR_INVALID_ARG);
    }
    gs_cuda_merkle_free(t);

    /* Choosing a code form out of range changes nothing. */
    int v = gs_cuda_keccak_variant_select(-1);
    CHECK(gs_cuda_keccak_variant_select(99) == v);
    CHECK(gs_cuda_keccak_variant_select(-1) == v);
    CHECK(strcmp(gs_cuda_keccak_variant_name(99), "?") == 0);
    matrix_free(&m);
}

/* ---- allocation failures and leaks ---- */

static void test_alloc_failures(void) {
    g_what = "allocation failures";
    unsigned lr = 18;
    matrix m;
    if (!matrix_make(&m, 4, (size_t)1 << lr, lr, 0)) {
        CHECK(!"matrix_make");
        return;
    }
    size_t n = 4096;
    size_t *idx = malloc(n * sizeof *idx);
    gs_digest *paths = malloc(n * lr * sizeof *paths);
    if (!idx || !paths) {
        CHECK(!"out of host memory");
        free(idx), free(paths), matrix_free(&m);
        return;
    }
    for (size_t i = 0; i < n; i++) idx[i] = (size_t)gs_test_below((size_t)1 << lr);
    gs_digest ref;
    long live0 = 0; /* this process's live device allocations (cuda/device.h) */
    for (int round = 0; round < 21; round++) {
        if (round == 1) live0 = gs_cuda_live_allocations(); /* after a warm-up */
        gs_cuda_tree *t = (gs_cuda_tree *)&m;
        gs_cuda_fault_inject(GS_CUDA_FAULT_ALLOC, 1);
        CHECK(gs_cuda_merkle_commit(&t, m.d, m.cols, m.stride, lr, NULL) == GS_ERR_CUDA);
        CHECK(t == NULL);
        CHECK(strlen(gs_cuda_last_error()) > 0);
        CHECK_OK(gs_cuda_merkle_commit(&t, m.d, m.cols, m.stride, lr, NULL));
        if (!t) break;
        gs_digest r;
        CHECK_OK(gs_cuda_merkle_root(t, &r));
        if (round == 0) ref = r;
        CHECK(memcmp(r.b, ref.b, 32) == 0);
        gs_cuda_fault_inject(GS_CUDA_FAULT_ALLOC, 1);
        CHECK(gs_cuda_merkle_open(t, paths, idx, n) == GS_ERR_CUDA);
        CHECK_OK(gs_cuda_merkle_open(t, paths, idx, n));
        gs_cuda_merkle_free(t);
    }
    gs_cuda_fault_inject(GS_CUDA_FAULT_ALLOC, 0);
    long live1 = gs_cuda_live_allocations();
    if (live1 != live0) fprintf(stderr, "[%s] live device allocations %ld -> %ld\n", g_what, live0, live1);
    CHECK(live1 == live0);
    free(idx), free(paths);
    matrix_free(&m);
}

/* ---- mixed trees: gs_cuda_mixed_build node for node gs_mixed_build_skip's ---- */

/* One shape (n matrices of 2^lr[t] random canonical digests) with hash id
 * and skip: every kept node of the device's tree equals the host's. */
static void mixed_case(gs_hash_id id, const unsigned *lr, uint32_t n, unsigned skip) {
    unsigned depth = 0;
    for (uint32_t t = 0; t < n; t++)
        if (lr[t] > depth) depth = lr[t];
    if (skip > depth) skip = depth;
    snprintf(g_what_buf, sizeof g_what_buf, "mixed %s, %u matrices, depth %u, skip %u",
             gs_hash_name(id), n, depth, skip);
    g_what = g_what_buf;
    gs_digest *h[16];
    void *d[16];
    const void *dc[16];
    CHECK(n <= 16);
    for (uint32_t t = 0; t < n; t++) {
        size_t rows = (size_t)1 << lr[t];
        h[t] = malloc(rows * sizeof(gs_digest));
        CHECK(h[t] != NULL);
        for (size_t i = 0; i < rows * 4; i++) {
            gs_fp v = gs_test_fp(); /* canonical: a Poseidon2 digest's elements */
            memcpy(h[t][i / 4].b + 8 * (i % 4), &v, 8);
        }
        CHECK_OK(gs_cuda_merkle_dev_alloc(&d[t], rows * sizeof(gs_digest)));
        CHECK_OK(gs_cuda_merkle_dev_copy(d[t], h[t], rows * sizeof(gs_digest)));
        dc[t] = d[t];
    }
    gs_mixed_tree *ht = NULL;
    CHECK_OK(gs_mixed_build_skip(&ht, id, (const gs_digest *const *)h, lr, n, skip));
    size_t count = ((size_t)2 << (depth - skip)) - 1;
    void *nodes = NULL, *scratch = NULL;
    CHECK_OK(gs_cuda_merkle_dev_alloc(&nodes, count * sizeof(gs_digest)));
    if (skip) CHECK_OK(gs_cuda_merkle_dev_alloc(&scratch, ((size_t)3 << (depth - 1)) * sizeof(gs_digest)));
    CHECK_OK(gs_cuda_mixed_build(id, nodes, scratch, dc, lr, n, skip, NULL));
    gs_digest *got = malloc(count * sizeof *got);
    CHECK(got != NULL);
    CHECK_OK(gs_cuda_merkle_dev_copy(got, nodes, count * sizeof *got));
    const gs_digest *want = gs_mixed_nodes(ht);
    size_t bad = 0;
    for (size_t i = 0; want && i < count; i++) bad += memcmp(&got[i], &want[i], sizeof *got) != 0;
    if (bad) fprintf(stderr, "[%s] %zu of %zu nodes differ\n", g_what, bad, count);
    CHECK(want && bad == 0);
    g_cases++;
    free(got);
    gs_mixed_free(ht);
    gs_cuda_merkle_dev_free(nodes), gs_cuda_merkle_dev_free(scratch);
    for (uint32_t t = 0; t < n; t++) gs_cuda_merkle_dev_free(d[t]), free(h[t]);
}

static void test_mixed(int quick) {
    static const struct {
        uint32_t n;
        unsigned lr[8];
    } shapes[] = {
        {1, {0}},           {1, {9}},        {2, {4, 4}},         {4, {6, 3, 6, 1}},
        {6, {10, 9, 9, 7, 2, 0}}, {3, {2, 5, 5}}, {5, {18, 17, 15, 12, 17}}, {8, {22, 21, 18, 18, 16, 14, 12, 10}},
    };
    static const unsigned skips[] = {0, 1, 3, 6};
    size_t before = g_cases;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        if (quick && shapes[c].lr[0] > 16) continue;
        for (int h = 0; h < 2; h++)
            for (size_t k = 0; k < sizeof skips / sizeof skips[0]; k++) {
                if (shapes[c].lr[0] > 16 && k % 2) continue; /* the CPU reference's time */
                mixed_case(h ? GS_HASH_POSEIDON2 : GS_HASH_KECCAK256, shapes[c].lr, shapes[c].n, skips[k]);
            }
    }
    /* Arguments: a bad hash, no matrices, a NULL row array, a skip above the depth or without scratch. */
    unsigned lr[2] = {3, 2};
    void *d = NULL, *nodes = NULL;
    CHECK_OK(gs_cuda_merkle_dev_alloc(&d, 8 * sizeof(gs_digest)));
    CHECK_OK(gs_cuda_merkle_dev_alloc(&nodes, 15 * sizeof(gs_digest)));
    const void *rows[2] = {d, d}, *holes[2] = {d, NULL};
    CHECK(gs_cuda_mixed_build((gs_hash_id)2, nodes, NULL, rows, lr, 2, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_mixed_build(GS_HASH_KECCAK256, nodes, NULL, rows, lr, 0, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_mixed_build(GS_HASH_KECCAK256, nodes, NULL, holes, lr, 2, 0, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_mixed_build(GS_HASH_KECCAK256, nodes, nodes, rows, lr, 2, 4, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_mixed_build(GS_HASH_KECCAK256, nodes, NULL, rows, lr, 2, 1, NULL) == GS_ERR_INVALID_ARG);
    CHECK_OK(gs_cuda_mixed_build(GS_HASH_KECCAK256, nodes, NULL, rows, lr, 2, 0, NULL));
    gs_cuda_merkle_dev_free(d), gs_cuda_merkle_dev_free(nodes);
    printf("mixed trees: %zu shapes, device nodes equal the host's\n", g_cases - before);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    int quick = 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    if (gs_cuda_device_count() == 0) {
        printf("skipped: no CUDA device (%s)\n",
               gs_cuda_built() ? "built with CUDA" : "built without CUDA");
        return GS_TEST_SKIP;
    }
    printf("Keccak code form: %s (of %d)\n",
           gs_cuda_keccak_variant_name(gs_cuda_keccak_variant_select(-1)),
           gs_cuda_keccak_variant_count());
    test_args();
    test_keccak_messages();
    test_shapes(quick ? 14 : 20);
    test_poseidon2(quick ? 13 : 19);
    test_skip(quick ? 16 : 21);
    test_variants();
    test_leaves();
    test_absorb();
    test_streams();
    test_alloc_failures();
    test_mixed(quick);
    if (!quick) test_large();
    printf("%zu shapes compared, %zu paths\n", g_cases, g_paths_checked);
    return gs_test_done();
}
