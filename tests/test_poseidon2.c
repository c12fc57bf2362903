/* Poseidon2 over Goldilocks: the published test vectors of both widths; the linear layers
 * against their matrices written out; the portable permutation's lazy (128-bit) linear layers
 * against the template's canonical ones; every SIMD path this CPU has against the portable one
 * (permutations of many states, rows through the sponge with row-major and column-major
 * strides and every tail size, compressions, in place); the sponge's documented rule (length in
 * the capacity, zero-filled last block) and its length binding; the compression's rule and
 * aliasing; the digest's bytes (round trip, byte order, non-canonical elements refused).
 *
 *   test_poseidon2 [--seed N] */
#include "gstark/poseidon2.h"
#include "hash/poseidon2_consts.h"
#include "hash/poseidon2_internal.h"
#include "test_util.h"

/* The round template on gs_fp again, under other names, to reach the linear layers. */
#define P2T gs_fp
#define P2_FN static inline
#define P2_NAME(x) t_##x
#define P2_ADD(a, b) gs_fp_add(a, b)
#define P2_MUL(a, b) gs_fp_mul(a, b)
#define P2_CONST(c) ((gs_fp)(c))
#include "hash/poseidon2_round.h"

static void random_fps(gs_fp *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = gs_test_fp();
}

static int same(const gs_fp *a, const gs_fp *b, size_t n) {
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* ---- published vectors ---- */

/* HorizenLabs' reference implementation, plain_implementations/src/poseidon2/poseidon2.rs at
 * commit bb476b9c (the commit whose poseidon2_instance_goldilocks.rs holds the constants of
 * poseidon2_consts.h), test `kats` of module poseidon2_tests_goldilocks: width 12, input
 * [0, 1, ..., 11]. (Earlier commits had other width-12 constants and another vector,
 * 0xed3dbcc4ff1e8d33...; copies of that older vector circulate.) */
static const gs_fp HL_W12_RANGE[12] = {
    0x01eaef96bdf1c0c1ull, 0x1f0d2cc525b2540cull, 0x6282c1dfe1e0358dull, 0xe780d721f698e1e6ull,
    0x280c0b6f753d833bull, 0x1b942dd5023156abull, 0x43f0df3fcccb8398ull, 0xe8e8190585489025ull,
    0x56bdbf72f77ada22ull, 0x7911c32bf9dcd705ull, 0xec467926508fbe67ull, 0x6a50450ddf85a6edull};

/* Plonky3, goldilocks/src/poseidon2.rs (the version that "recreates the implementation given
 * in HorizenLabs/poseidon2" with HL_GOLDILOCKS_8_* constants and Poseidon2ExternalMatrixHL),
 * tests test_poseidon2_width_8_zeroes, _range (input 0..7) and _random. Decimal there. */
static const gs_fp P3_W8_ZEROES[8] = {
    4214787979728720400ull, 12324939279576102560ull, 10353596058419792404ull,
    15456793487362310586ull, 10065219879212154722ull, 16227496357546636742ull,
    2959271128466640042ull, 14285409611125725709ull};
static const gs_fp P3_W8_RANGE[8] = {
    14266028122062624699ull, 5353147180106052723ull, 15203350112844181434ull,
    17630919042639565165ull, 16601551015858213987ull, 10184091939013874068ull,
    16774100645754596496ull, 12047415603622314780ull};
static const gs_fp P3_W8_RANDOM_IN[8] = {
    5116996373749832116ull, 8931548647907683339ull, 17132360229780760684ull,
    11280040044015983889ull, 11957737519043010992ull, 15695650327991256125ull,
    17604752143022812942ull, 543194415197607509ull};
static const gs_fp P3_W8_RANDOM_OUT[8] = {
    1831346684315917658ull, 13497752062035433374ull, 12149460647271516589ull,
    15656333994315312197ull, 4671534937670455565ull, 3140092508031220630ull,
    4251208148861706881ull, 6973971209430822232ull};

static int g_vector_reports;

static void check_vector(const char *what, const gs_fp *got, const gs_fp *want, unsigned w) {
    for (unsigned i = 0; i < w; i++) {
        if (got[i] == want[i] || g_vector_reports++ >= 24) continue;
        fprintf(stderr, "%s: element %u is 0x%016" PRIx64 ", want 0x%016" PRIx64 "\n", what, i,
                got[i], want[i]);
    }
    CHECK(same(got, want, w));
}

static void test_vectors(void) {
    gs_fp s[12];
    for (unsigned i = 0; i < 12; i++) s[i] = i;
    gs_poseidon2_permute_w12(s);
    check_vector("w12 range", s, HL_W12_RANGE, 12);

    memset(s, 0, sizeof s);
    gs_poseidon2_permute_w8(s);
    check_vector("w8 zeroes", s, P3_W8_ZEROES, 8);
    for (unsigned i = 0; i < 8; i++) s[i] = i;
    gs_poseidon2_permute_w8(s);
    check_vector("w8 range", s, P3_W8_RANGE, 8);
    memcpy(s, P3_W8_RANDOM_IN, sizeof P3_W8_RANDOM_IN);
    gs_poseidon2_permute_w8(s);
    check_vector("w8 random", s, P3_W8_RANDOM_OUT, 8);

    /* the same vectors through every bulk path, as lanes of a group */
    for (int impl = 0; impl < GS_P2_IMPL_COUNT; impl++) {
        if (!gs_p2_available((gs_p2_impl)impl)) continue;
        gs_fp st[9 * 12];
        for (unsigned k = 0; k < 9; k++)
            for (unsigned i = 0; i < 12; i++) st[12 * k + i] = i;
        gs_p2_permute_w12_many_with((gs_p2_impl)impl, st, 9);
        for (unsigned k = 0; k < 9; k++)
            check_vector("w12 range, bulk", st + 12 * k, HL_W12_RANGE, 12);
        for (unsigned k = 0; k < 9; k++)
            for (unsigned i = 0; i < 8; i++) st[8 * k + i] = k & 1 ? P3_W8_RANDOM_IN[i] : i;
        gs_p2_permute_w8_many_with((gs_p2_impl)impl, st, 9);
        for (unsigned k = 0; k < 9; k++)
            check_vector("w8, bulk", st + 8 * k, k & 1 ? P3_W8_RANDOM_OUT : P3_W8_RANGE, 8);
    }
}

/* ---- the linear layers against their matrices (and the S-box against a power) ---- */

static const uint64_t M4[4][4] = {{5, 7, 1, 3}, {4, 6, 1, 1}, {1, 3, 5, 7}, {1, 1, 4, 6}};

/* y = M x for a w x w matrix given entry by entry. */
static void mat_vec(gs_fp *y, const gs_fp *m, const gs_fp *x, unsigned w) {
    for (unsigned i = 0; i < w; i++) {
        gs_fp acc = 0;
        for (unsigned j = 0; j < w; j++) acc = gs_fp_add(acc, gs_fp_mul(m[i * w + j], x[j]));
        y[i] = acc;
    }
}

static void test_linear_layers(void) {
    static const unsigned WIDTHS[2] = {8, 12};
    const uint64_t *diags[2] = {gs_p2_diag8, gs_p2_diag12};
    for (int wi = 0; wi < 2; wi++) {
        unsigned w = WIDTHS[wi];
        gs_fp me[144], mi[144];
        /* M_E = circ(2 M4, M4, ...): block (r, c) is M4, doubled on the diagonal blocks */
        for (unsigned i = 0; i < w; i++)
            for (unsigned j = 0; j < w; j++) {
                me[i * w + j] = M4[i % 4][j % 4] * (i / 4 == j / 4 ? 2 : 1);
                mi[i * w + j] = i == j ? gs_fp_add(1, diags[wi][i]) : 1;
            }
        for (int rep = 0; rep < 200; rep++) {
            gs_fp x[12] = {0}, y[12], want[12];
            random_fps(x, w);
            memcpy(y, x, sizeof x);
            t_external(y, w);
            mat_vec(want, me, x, w);
            CHECK(same(y, want, w));
            /* a partial round: x0 <- (x0 + c)^7, then M_I */
            gs_fp c = gs_test_fp();
            memcpy(y, x, sizeof x);
            t_partial(y, w, c, diags[wi]);
            x[0] = gs_fp_pow(gs_fp_add(x[0], c), 7);
            mat_vec(want, mi, x, w);
            CHECK(same(y, want, w));
            CHECK_EQ_U64(t_sbox(x[0]), gs_fp_pow(x[0], 7));
        }
    }
}

/* The portable permutation uses lazy (128-bit) sums in its linear layers; the template's
 * canonical form, instantiated here, must agree, on random states and on the extremes (every
 * element p - 1 makes the unreduced sums largest). */
static void test_lazy_layers(void) {
    for (int rep = 0; rep < 300; rep++) {
        gs_fp a[12], b[12];
        if (rep < 3) {
            for (int i = 0; i < 12; i++)
                a[i] = rep == 0 ? GS_FP_P - 1 : rep == 1 ? 0 : GS_FP_EPSILON;
        } else {
            random_fps(a, 12);
        }
        memcpy(b, a, sizeof a);
        gs_poseidon2_permute_w12(a);
        t_permute(b, 12, gs_p2_rc12_ext, gs_p2_rc12_int, gs_p2_diag12);
        CHECK(same(a, b, 12));
        memcpy(b, a, 8 * sizeof(gs_fp));
        gs_poseidon2_permute_w8(a);
        t_permute(b, 8, gs_p2_rc8_ext, gs_p2_rc8_int, gs_p2_diag8);
        CHECK(same(a, b, 8));
    }
}

/* ---- SIMD paths against the portable one ---- */

static void test_permute_many(void) {
    enum { MAXN = 41 };
    gs_fp in[MAXN * 12], want[MAXN * 12], got[MAXN * 12];
    for (int impl = 1; impl < GS_P2_IMPL_COUNT; impl++) {
        if (!gs_p2_available((gs_p2_impl)impl)) {
            printf("  %s: not on this CPU\n", gs_p2_name((gs_p2_impl)impl));
            continue;
        }
        size_t states = 0;
        for (size_t n = 0; n <= MAXN; n++)
            for (int rep = 0; rep < 6; rep++) {
                random_fps(in, n * 12);
                memcpy(want, in, n * 8 * sizeof(gs_fp));
                memcpy(got, in, n * 8 * sizeof(gs_fp));
                gs_p2_permute_w8_many_with(GS_P2_PORTABLE, want, n);
                gs_p2_permute_w8_many_with((gs_p2_impl)impl, got, n);
                CHECK(same(want, got, n * 8));
                memcpy(want, in, n * 12 * sizeof(gs_fp));
                memcpy(got, in, n * 12 * sizeof(gs_fp));
                gs_p2_permute_w12_many_with(GS_P2_PORTABLE, want, n);
                gs_p2_permute_w12_many_with((gs_p2_impl)impl, got, n);
                CHECK(same(want, got, n * 12));
                states += 2 * n;
            }
        printf("  %s: %zu permutations equal to the portable path\n",
               gs_p2_name((gs_p2_impl)impl), states);
    }
}

/* Rows of random values with some >= p (the sponge reduces them), row-major and column-major,
 * every row count up to 20 and many lengths. */
static void test_hash_rows(void) {
    static const size_t LENS[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 64, 100};
    enum { MAXROWS = 21, MAXLEN = 100, PADDING = 3 };
    size_t cap = (size_t)MAXROWS * (MAXLEN + PADDING) + 8;
    gs_fp *m = malloc(cap * sizeof *m);
    gs_poseidon2_digest want[MAXROWS], got[MAXROWS];
    for (size_t i = 0; i < cap; i++)
        m[i] = (i % 7 == 3) ? GS_FP_P + (gs_test_u64() % GS_FP_EPSILON) : gs_test_fp();
    size_t rows_checked = 0;
    for (int impl = 0; impl < GS_P2_IMPL_COUNT; impl++) {
        if (!gs_p2_available((gs_p2_impl)impl)) continue;
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++) {
            size_t len = LENS[li];
            for (size_t n = 0; n < MAXROWS; n++) {
                /* row-major, rows PADDING apart beyond their length */
                size_t rs = len + PADDING;
                for (size_t i = 0; i < n; i++) gs_poseidon2_hash(&want[i], m + i * rs, len);
                gs_p2_hash_rows_with((gs_p2_impl)impl, got, m, n, len, rs, 1);
                CHECK(n == 0 || memcmp(want, got, n * sizeof *got) == 0);
                /* column-major: element j of row i at m[i + j * cs] */
                size_t cs = n + PADDING;
                if (len && (len - 1) * cs + n > cap) continue;
                for (size_t i = 0; i < n; i++) {
                    gs_fp row[MAXLEN];
                    for (size_t j = 0; j < len; j++) row[j] = m[i + j * cs];
                    gs_poseidon2_hash(&want[i], row, len);
                }
                gs_p2_hash_rows_with((gs_p2_impl)impl, got, m, n, len, 1, cs);
                CHECK(n == 0 || memcmp(want, got, n * sizeof *got) == 0);
                rows_checked += 2 * n;
            }
        }
    }
    /* the public entry point takes the best path */
    gs_poseidon2_hash_rows(got, m, 16, 9, 9, 1);
    for (size_t i = 0; i < 16; i++) {
        gs_poseidon2_hash(&want[i], m + 9 * i, 9);
        CHECK(memcmp(&want[i], &got[i], sizeof want[i]) == 0);
    }
    printf("  hash_rows: %zu rows equal to gs_poseidon2_hash\n", rows_checked);
    free(m);
}

static void test_compress_many(void) {
    enum { MAXN = 37 };
    gs_poseidon2_digest in[2 * MAXN], want[MAXN], got[2 * MAXN];
    for (int impl = 0; impl < GS_P2_IMPL_COUNT; impl++) {
        if (!gs_p2_available((gs_p2_impl)impl)) continue;
        for (size_t n = 0; n <= MAXN; n++) {
            random_fps(in[0].v, 2 * n * 4);
            for (size_t i = 0; i < n; i++)
                gs_poseidon2_compress(&want[i], &in[2 * i], &in[2 * i + 1]);
            gs_p2_compress_many_with((gs_p2_impl)impl, got, in, n);
            CHECK(n == 0 || memcmp(want, got, n * sizeof *got) == 0);
            /* in place: a Merkle level halved */
            memcpy(got, in, 2 * n * sizeof *in);
            gs_p2_compress_many_with((gs_p2_impl)impl, got, got, n);
            CHECK(n == 0 || memcmp(want, got, n * sizeof *got) == 0);
        }
    }
    random_fps(in[0].v, 16 * 4);
    gs_poseidon2_compress_many(got, in, 8);
    for (size_t i = 0; i < 8; i++) {
        gs_poseidon2_compress(&want[i], &in[2 * i], &in[2 * i + 1]);
        CHECK(memcmp(&want[i], &got[i], sizeof want[i]) == 0);
    }
}

/* ---- the sponge and the compression: their documented rules ---- */

/* The rule of gstark/poseidon2.h, spelled out: zero state, element 8 = n, blocks of 8 (the last
 * zero-filled, at least one) added into elements 0..7, each followed by the permutation. */
static void sponge_rule(gs_poseidon2_digest *out, const gs_fp *in, size_t n) {
    gs_fp s[12] = {0};
    s[8] = n;
    size_t blocks = n ? (n + 7) / 8 : 1;
    for (size_t b = 0; b < blocks; b++) {
        for (size_t k = 0; k < 8; k++) {
            size_t j = 8 * b + k;
            if (j < n) s[k] = gs_fp_add(s[k], in[j] % GS_FP_P);
        }
        gs_poseidon2_permute_w12(s);
    }
    memcpy(out->v, s, 32);
}

static int digest_eq(const gs_poseidon2_digest *a, const gs_poseidon2_digest *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

static void test_sponge(void) {
    gs_fp x[40];
    gs_poseidon2_digest a, b;
    for (size_t n = 0; n <= 40; n++) {
        random_fps(x, n);
        gs_poseidon2_hash(&a, x, n);
        sponge_rule(&b, x, n);
        CHECK(digest_eq(&a, &b));
        for (int i = 0; i < 4; i++) CHECK(a.v[i] < GS_FP_P);
    }
    gs_poseidon2_hash(&a, NULL, 0);
    sponge_rule(&b, NULL, 0);
    CHECK(digest_eq(&a, &b));

    /* length binding: appending zeros never gives the same digest */
    for (int rep = 0; rep < 50; rep++) {
        size_t n = (size_t)gs_test_below(20);
        random_fps(x, n);
        memset(x + n, 0, 20 * sizeof(gs_fp));
        gs_poseidon2_hash(&a, x, n);
        for (size_t extra = 1; extra <= 9; extra++) {
            gs_poseidon2_hash(&b, x, n + extra);
            CHECK(!digest_eq(&a, &b));
        }
    }
    gs_fp one[2] = {gs_test_fp(), 0};
    gs_poseidon2_hash(&a, one, 1);
    gs_poseidon2_hash(&b, one, 2);
    CHECK(!digest_eq(&a, &b)); /* [x] vs [x, 0] */
    gs_poseidon2_hash(&a, NULL, 0);
    one[0] = 0;
    gs_poseidon2_hash(&b, one, 1);
    CHECK(!digest_eq(&a, &b)); /* [] vs [0] */
    /* a full block vs the same block and an empty continuation */
    random_fps(x, 8);
    x[8] = 0;
    gs_poseidon2_hash(&a, x, 8);
    gs_poseidon2_hash(&b, x, 9);
    CHECK(!digest_eq(&a, &b));

    /* one changed element changes the digest, wherever it is */
    random_fps(x, 17);
    gs_poseidon2_hash(&a, x, 17);
    for (size_t i = 0; i < 17; i++) {
        gs_fp keep = x[i];
        x[i] = gs_fp_add(keep, 1);
        gs_poseidon2_hash(&b, x, 17);
        CHECK(!digest_eq(&a, &b));
        x[i] = keep;
    }

    /* values >= p are taken mod p */
    for (int rep = 0; rep < 20; rep++) {
        gs_fp v[3] = {gs_test_u64() % GS_FP_EPSILON, gs_test_fp(), gs_test_fp()};
        gs_poseidon2_hash(&a, v, 3);
        v[0] += GS_FP_P;
        gs_poseidon2_hash(&b, v, 3);
        CHECK(digest_eq(&a, &b));
    }
}

static void test_compress(void) {
    for (int rep = 0; rep < 100; rep++) {
        gs_poseidon2_digest l, r, o, want;
        random_fps(l.v, 4);
        random_fps(r.v, 4);
        gs_fp s[8];
        memcpy(s, l.v, 32);
        memcpy(s + 4, r.v, 32);
        gs_poseidon2_permute_w8(s);
        for (int i = 0; i < 4; i++) want.v[i] = gs_fp_add(s[i], l.v[i]);
        gs_poseidon2_compress(&o, &l, &r);
        CHECK(digest_eq(&o, &want));
        /* order matters */
        gs_poseidon2_digest swapped;
        gs_poseidon2_compress(&swapped, &r, &l);
        CHECK(!digest_eq(&o, &swapped));
        /* out aliasing l, then r */
        gs_poseidon2_digest l2 = l, r2 = r;
        gs_poseidon2_compress(&l2, &l2, &r);
        CHECK(digest_eq(&l2, &want));
        gs_poseidon2_compress(&r2, &l, &r2);
        CHECK(digest_eq(&r2, &want));
    }
}

/* ---- digest bytes ---- */

static void test_bytes(void) {
    for (int rep = 0; rep < 200; rep++) {
        gs_poseidon2_digest d, back;
        random_fps(d.v, 4);
        gs_digest b;
        gs_poseidon2_digest_to_bytes(&b, &d);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 8; k++) CHECK(b.b[8 * i + k] == (uint8_t)(d.v[i] >> (8 * k)));
        CHECK(gs_poseidon2_digest_from_bytes(&back, &b) == GS_OK);
        CHECK(digest_eq(&d, &back));
    }
    /* non-canonical elements are refused, in every position, and nothing is written */
    static const uint64_t BAD[] = {GS_FP_P, GS_FP_P + 1, 0xFFFFFFFFFFFFFFFFull,
                                   0xFFFFFFFF00000002ull};
    for (int pos = 0; pos < 4; pos++)
        for (size_t v = 0; v < sizeof BAD / sizeof BAD[0]; v++) {
            gs_poseidon2_digest d = {{1, 2, 3, 4}}, out = {{9, 9, 9, 9}};
            gs_digest b;
            gs_poseidon2_digest_to_bytes(&b, &d);
            for (int k = 0; k < 8; k++) b.b[8 * pos + k] = (uint8_t)(BAD[v] >> (8 * k));
            CHECK(gs_poseidon2_digest_from_bytes(&out, &b) == GS_ERR_INVALID_ARG);
            CHECK(out.v[0] == 9 && out.v[1] == 9 && out.v[2] == 9 && out.v[3] == 9);
        }
    gs_poseidon2_digest edge = {{GS_FP_P - 1, 0, 1, GS_FP_EPSILON}}, back;
    gs_digest b;
    gs_poseidon2_digest_to_bytes(&b, &edge);
    CHECK(gs_poseidon2_digest_from_bytes(&back, &b) == GS_OK && digest_eq(&edge, &back));
    CHECK(gs_poseidon2_digest_from_bytes(NULL, &b) == GS_ERR_INVALID_ARG);
    CHECK(gs_poseidon2_digest_from_bytes(&back, NULL) == GS_ERR_INVALID_ARG);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_vectors();
    test_linear_layers();
    test_lazy_layers();
    test_permute_many();
    test_hash_rows();
    test_compress_many();
    test_sponge();
    test_compress();
    test_bytes();
    return gs_test_done();
}
