/* Field tests: Goldilocks and Fp3 against an independent reference (128-bit
 * integer arithmetic with '%', which the library itself never uses),
 * algebraic laws, edge values, group structure, inverses, Frobenius, and
 * batch inversion with zeros, aliasing and any thread count. */
#include "gstark/field.h"
#include "gstark/parallel.h"
#include "test_util.h"

typedef unsigned __int128 u128;

static gs_fp ref_add(gs_fp a, gs_fp b) { return (gs_fp)(((u128)a + b) % GS_FP_P); }
static gs_fp ref_sub(gs_fp a, gs_fp b) { return (gs_fp)(((u128)a + GS_FP_P - b) % GS_FP_P); }
static gs_fp ref_mul(gs_fp a, gs_fp b) { return (gs_fp)(((u128)a * b) % GS_FP_P); }

static const gs_fp EDGES[] = {0,           1,           2,           GS_FP_P - 1, GS_FP_P - 2,
                              1ull << 32,  (1ull << 32) - 1, (1ull << 32) + 1, 1ull << 63,
                              (1ull << 63) - 1, GS_FP_EPSILON, GS_FP_P >> 1, 0xFFFFFFFEull << 32};
#define NEDGES (sizeof EDGES / sizeof EDGES[0])

static void test_against_reference(void) {
    for (size_t i = 0; i < NEDGES; i++)
        for (size_t j = 0; j < NEDGES; j++) {
            gs_fp a = EDGES[i], b = EDGES[j];
            CHECK_EQ_U64(gs_fp_add(a, b), ref_add(a, b));
            CHECK_EQ_U64(gs_fp_sub(a, b), ref_sub(a, b));
            CHECK_EQ_U64(gs_fp_mul(a, b), ref_mul(a, b));
        }
    for (int i = 0; i < 200000; i++) {
        gs_fp a = gs_test_fp(), b = gs_test_fp();
        CHECK_EQ_U64(gs_fp_add(a, b), ref_add(a, b));
        CHECK_EQ_U64(gs_fp_sub(a, b), ref_sub(a, b));
        CHECK_EQ_U64(gs_fp_mul(a, b), ref_mul(a, b));
        CHECK_EQ_U64(gs_fp_neg(a), ref_sub(0, a));
        CHECK_EQ_U64(gs_fp_sqr(a), ref_mul(a, a));
    }
    /* Products whose 128-bit value exercises every reduction branch:
     * hi_hi > lo (borrow) and t0 + t1 carrying. */
    for (int i = 0; i < 100000; i++) {
        uint64_t hi = gs_test_u64(), lo = gs_test_u64() >> (gs_test_u64() & 63);
        u128 x = ((u128)hi << 64) | lo;
        CHECK_EQ_U64(gs_fp_reduce128(hi, lo), (uint64_t)(x % GS_FP_P));
    }
    CHECK_EQ_U64(gs_fp_reduce128(~0ull, ~0ull), (uint64_t)((~(u128)0) % GS_FP_P));
    CHECK_EQ_U64(gs_fp_from_u64(~0ull), (~0ull) % GS_FP_P);
    CHECK_EQ_U64(gs_fp_from_u64(GS_FP_P), 0);
}

static void test_laws(void) {
    for (int i = 0; i < 20000; i++) {
        gs_fp a = gs_test_fp(), b = gs_test_fp(), c = gs_test_fp();
        CHECK_EQ_U64(gs_fp_add(a, b), gs_fp_add(b, a));
        CHECK_EQ_U64(gs_fp_mul(a, b), gs_fp_mul(b, a));
        CHECK_EQ_U64(gs_fp_add(gs_fp_add(a, b), c), gs_fp_add(a, gs_fp_add(b, c)));
        CHECK_EQ_U64(gs_fp_mul(gs_fp_mul(a, b), c), gs_fp_mul(a, gs_fp_mul(b, c)));
        CHECK_EQ_U64(gs_fp_mul(a, gs_fp_add(b, c)), gs_fp_add(gs_fp_mul(a, b), gs_fp_mul(a, c)));
        CHECK_EQ_U64(gs_fp_add(a, gs_fp_neg(a)), 0);
        CHECK_EQ_U64(gs_fp_sub(a, b), gs_fp_add(a, gs_fp_neg(b)));
        CHECK_EQ_U64(gs_fp_mul(a, 1), a);
        CHECK_EQ_U64(gs_fp_mul(a, 0), 0);
        CHECK(gs_fp_add(a, b) < GS_FP_P && gs_fp_mul(a, b) < GS_FP_P && gs_fp_sub(a, b) < GS_FP_P);
    }
}

static void test_pow_inv(void) {
    CHECK_EQ_U64(gs_fp_inv(0), 0);
    CHECK_EQ_U64(gs_fp_inv(1), 1);
    CHECK_EQ_U64(gs_fp_inv(GS_FP_P - 1), GS_FP_P - 1);
    for (size_t i = 0; i < NEDGES; i++)
        if (EDGES[i]) CHECK_EQ_U64(gs_fp_mul(EDGES[i], gs_fp_inv(EDGES[i])), 1);
    for (int i = 0; i < 2000; i++) {
        gs_fp a = gs_test_fp();
        uint64_t e = gs_test_below(64);
        gs_fp r = 1;
        for (uint64_t k = 0; k < e; k++) r = ref_mul(r, a);
        CHECK_EQ_U64(gs_fp_pow(a, e), r);
        if (a) {
            CHECK_EQ_U64(gs_fp_mul(a, gs_fp_inv(a)), 1);
            CHECK_EQ_U64(gs_fp_pow(a, GS_FP_P - 1), 1); /* Fermat */
        }
        uint64_t e1 = gs_test_u64() >> 1, e2 = gs_test_u64() >> 1;
        CHECK_EQ_U64(gs_fp_mul(gs_fp_pow(a, e1), gs_fp_pow(a, e2)), gs_fp_pow(a, e1 + e2));
    }
}

static void test_group_structure(void) {
    /* 2 is not a cube, so x^3 - 2 is irreducible and Fp3 is a field. */
    CHECK(gs_fp_pow(2, (GS_FP_P - 1) / 3) != 1);
    /* p - 1 = 2^32 * 3 * 5 * 17 * 257 * 65537; 7 generates Fp* iff
     * 7^((p-1)/q) != 1 for each prime q. */
    static const uint64_t primes[] = {2, 3, 5, 17, 257, 65537};
    uint64_t prod = 1ull << 32;
    for (int i = 1; i < 6; i++) prod *= primes[i];
    CHECK_EQ_U64(prod, GS_FP_P - 1);
    for (int i = 0; i < 6; i++) CHECK(gs_fp_pow(GS_FP_GENERATOR, (GS_FP_P - 1) / primes[i]) != 1);
    /* The 2^k-th root has order exactly 2^k, and squares to the 2^(k-1)-th. */
    CHECK_EQ_U64(gs_fp_root_of_unity(0), 1);
    for (unsigned k = 1; k <= GS_FP_TWO_ADICITY; k++) {
        gs_fp w = gs_fp_root_of_unity(k);
        CHECK_EQ_U64(gs_fp_pow(w, 1ull << k), 1);
        CHECK_EQ_U64(gs_fp_pow(w, 1ull << (k - 1)), GS_FP_P - 1);
        CHECK_EQ_U64(gs_fp_sqr(w), gs_fp_root_of_unity(k - 1));
    }
    CHECK_EQ_U64(gs_fp_root_of_unity(33), 0);
    /* The Frobenius constants are the cube roots of unity from 2. */
    CHECK_EQ_U64(GS_FP3_FROB1, gs_fp_pow(2, (GS_FP_P - 1) / 3));
    CHECK_EQ_U64(GS_FP3_FROB2, gs_fp_sqr(GS_FP3_FROB1));
}

/* Schoolbook product in Z[w] reduced by w^3 = 2, through the reference. */
static gs_fp3 ref_fp3_mul(gs_fp3 a, gs_fp3 b) {
    gs_fp t[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t[i + j] = ref_add(t[i + j], ref_mul(a.c[i], b.c[j]));
    return gs_fp3_make(ref_add(t[0], ref_mul(2, t[3])), ref_add(t[1], ref_mul(2, t[4])), t[2]);
}

static int fp3_eq(gs_fp3 a, gs_fp3 b) { return gs_fp3_eq(a, b); }

/* Components at the edges (the host product sums up to five 128-bit
 * products before it reduces: the largest sums come from p - 1 and 2^64 -
 * 2^32 style values), every component drawn from them. */
static void test_fp3_edges(void) {
    static const gs_fp E[] = {0, 1, 2, GS_FP_P - 1, GS_FP_P - 2, 0xFFFFFFFFull, 0x100000000ull,
                              0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, GS_FP_P - 0x100000000ull};
    const size_t ne = sizeof E / sizeof E[0];
    for (int i = 0; i < 20000; i++) {
        gs_fp3 a = gs_fp3_make(E[gs_test_below(ne)], E[gs_test_below(ne)], E[gs_test_below(ne)]);
        gs_fp3 b = gs_fp3_make(E[gs_test_below(ne)], E[gs_test_below(ne)], E[gs_test_below(ne)]);
        CHECK(gs_fp3_eq(gs_fp3_mul(a, b), ref_fp3_mul(a, b)));
    }
    gs_fp3 m = gs_fp3_make(GS_FP_P - 1, GS_FP_P - 1, GS_FP_P - 1);
    CHECK(gs_fp3_eq(gs_fp3_mul(m, m), ref_fp3_mul(m, m)));
}

static void test_fp3(void) {
    gs_fp3 zero = gs_fp3_zero(), one = gs_fp3_one();
    gs_fp3 w = gs_fp3_make(0, 1, 0);
    CHECK(fp3_eq(gs_fp3_mul(w, gs_fp3_mul(w, w)), gs_fp3_from_fp(2)));
    CHECK(fp3_eq(gs_fp3_inv(zero), zero));
    CHECK(fp3_eq(gs_fp3_inv(one), one));
    for (int i = 0; i < 20000; i++) {
        gs_fp3 a = gs_test_fp3(), b = gs_test_fp3(), c = gs_test_fp3();
        gs_fp s = gs_test_fp();
        CHECK(fp3_eq(gs_fp3_mul(a, b), ref_fp3_mul(a, b)));
        CHECK(fp3_eq(gs_fp3_sqr(a), ref_fp3_mul(a, a)));
        CHECK(fp3_eq(gs_fp3_mul(a, b), gs_fp3_mul(b, a)));
        CHECK(fp3_eq(gs_fp3_mul(gs_fp3_mul(a, b), c), gs_fp3_mul(a, gs_fp3_mul(b, c))));
        CHECK(fp3_eq(gs_fp3_mul(a, gs_fp3_add(b, c)),
                     gs_fp3_add(gs_fp3_mul(a, b), gs_fp3_mul(a, c))));
        CHECK(fp3_eq(gs_fp3_sub(gs_fp3_add(a, b), b), a));
        CHECK(fp3_eq(gs_fp3_add(a, gs_fp3_neg(a)), zero));
        CHECK(fp3_eq(gs_fp3_mul_fp(a, s), gs_fp3_mul(a, gs_fp3_from_fp(s))));
        CHECK(fp3_eq(gs_fp3_add(gs_fp3_from_fp(s), gs_fp3_from_fp(a.c[0])),
                     gs_fp3_from_fp(gs_fp_add(s, a.c[0]))));
        if (!gs_fp3_is_zero(a)) CHECK(fp3_eq(gs_fp3_mul(a, gs_fp3_inv(a)), one));
    }
    for (int i = 0; i < 300; i++) {
        gs_fp3 a = gs_test_fp3(), b = gs_test_fp3();
        gs_fp3 f1 = gs_fp3_frobenius(a), f2 = gs_fp3_frobenius(f1);
        /* The Frobenius map is x -> x^p, has order 3 and is multiplicative. */
        CHECK(fp3_eq(f1, gs_fp3_pow(a, GS_FP_P)));
        CHECK(fp3_eq(gs_fp3_frobenius(f2), a));
        CHECK(fp3_eq(gs_fp3_frobenius(gs_fp3_mul(a, b)), gs_fp3_mul(f1, gs_fp3_frobenius(b))));
        /* The norm a * a^p * a^(p^2) lies in Fp, and the inverse is
         * a^p * a^(p^2) / norm. */
        gs_fp3 conj = gs_fp3_mul(f1, f2), norm = gs_fp3_mul(a, conj);
        CHECK(norm.c[1] == 0 && norm.c[2] == 0);
        if (!gs_fp3_is_zero(a)) CHECK(fp3_eq(gs_fp3_inv(a), gs_fp3_mul_fp(conj, gs_fp_inv(norm.c[0]))));
        uint64_t e = gs_test_below(20);
        gs_fp3 r = one;
        for (uint64_t k = 0; k < e; k++) r = gs_fp3_mul(r, a);
        CHECK(fp3_eq(gs_fp3_pow(a, e), r));
    }
}

static void test_batch_inv(void) {
    static const size_t sizes[] = {0, 1, 2, 3, 17, 4095, 4096, 4097, 100003};
    static const unsigned threads[] = {1, 2, 3};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        gs_fp *in = malloc((n + 1) * sizeof *in), *out = malloc((n + 1) * sizeof *out);
        gs_fp3 *in3 = malloc((n + 1) * sizeof *in3), *out3 = malloc((n + 1) * sizeof *out3);
        for (size_t i = 0; i < n; i++) {
            int zero = gs_test_below(8) == 0; /* zeros scattered, also at the ends */
            in[i] = zero ? 0 : gs_test_fp();
            in3[i] = zero ? gs_fp3_zero() : gs_test_fp3();
        }
        for (size_t ti = 0; ti < 3; ti++) {
            gs_threads_set(threads[ti]);
            CHECK(gs_fp_batch_inv(out, in, n) == GS_OK);
            CHECK(gs_fp3_batch_inv(out3, in3, n) == GS_OK);
            int bad = 0;
            for (size_t i = 0; i < n; i++) {
                bad += out[i] != gs_fp_inv(in[i]);
                bad += !gs_fp3_eq(out3[i], gs_fp3_inv(in3[i]));
            }
            CHECK(bad == 0);
        }
        /* In place. */
        for (size_t i = 0; i < n; i++) out[i] = in[i];
        CHECK(gs_fp_batch_inv(out, out, n) == GS_OK);
        int bad = 0;
        for (size_t i = 0; i < n; i++) bad += out[i] != gs_fp_inv(in[i]);
        CHECK(bad == 0);
        free(in), free(out), free(in3), free(out3);
    }
    gs_threads_set(0);
    /* All zeros. */
    gs_fp z[5] = {0, 0, 0, 0, 0}, zo[5] = {1, 1, 1, 1, 1};
    CHECK(gs_fp_batch_inv(zo, z, 5) == GS_OK);
    for (int i = 0; i < 5; i++) CHECK_EQ_U64(zo[i], 0);
    CHECK(gs_fp_batch_inv(NULL, z, 5) == GS_ERR_INVALID_ARG);
    CHECK(gs_fp3_batch_inv(NULL, NULL, 0) == GS_OK);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_against_reference();
    test_laws();
    test_pow_inv();
    test_group_structure();
    test_fp3();
    test_fp3_edges();
    test_batch_inv();
    return gs_test_done();
}
