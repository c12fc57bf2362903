/* NTT and coset LDE tests: the transforms against a naive O(n^2) DFT for
 * every log size 0..10 (forward, inverse, coset variants, batched); round
 * trips up to 2^20; the LDE against Horner evaluation of the polynomial at
 * the coset points (both entry points, both output orders, blowups 1..8 and
 * beyond, odd column counts, random and default shifts); bit reversal
 * against its definition; independence from the thread count; the AVX-512
 * kernels against the portable ones; argument errors. */
#include <pthread.h>

#include "gstark/ntt.h"
#include "gstark/parallel.h"
#include "ntt/ntt_internal.h"
#include "test_util.h"

static gs_fp *alloc_fp(size_t n) {
    gs_fp *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static gs_fp *random_vec(size_t n) {
    gs_fp *p = alloc_fp(n);
    for (size_t i = 0; i < n; i++) p[i] = gs_test_fp();
    return p;
}

static gs_fp *dup_vec(const gs_fp *v, size_t n) {
    gs_fp *p = alloc_fp(n);
    memcpy(p, v, n * sizeof *p);
    return p;
}

static int same(const gs_fp *a, const gs_fp *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

static size_t rev_bits(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

/* out[k] = scale * sum_j in[j] * (shift_j ...): the naive DFT with root w,
 * after multiplying in[j] by pre^j, then each output by post^k * scale. */
static void naive_dft(gs_fp *out, const gs_fp *in, size_t n, gs_fp w, gs_fp pre, gs_fp scale,
                      gs_fp post) {
    gs_fp wk = 1, postk = scale;
    for (size_t k = 0; k < n; k++) {
        gs_fp acc = 0, x = 1, pj = 1; /* x = w^(jk), pj = pre^j */
        for (size_t j = 0; j < n; j++) {
            acc = gs_fp_add(acc, gs_fp_mul(gs_fp_mul(in[j], pj), x));
            x = gs_fp_mul(x, wk);
            pj = gs_fp_mul(pj, pre);
        }
        out[k] = gs_fp_mul(acc, postk);
        wk = gs_fp_mul(wk, w);
        postk = gs_fp_mul(postk, post);
    }
}

static gs_fp horner(const gs_fp *c, size_t n, gs_fp x) {
    gs_fp acc = 0;
    for (size_t i = n; i-- > 0;) acc = gs_fp_add(gs_fp_mul(acc, x), c[i]);
    return acc;
}

static gs_fp inv_n(unsigned log_n) { return gs_fp_inv(gs_fp_pow(2, log_n)); }

/* ---- against the naive DFT ---- */

static void test_naive(void) {
    for (unsigned log_n = 0; log_n <= 10; log_n++) {
        size_t n = (size_t)1 << log_n;
        const size_t cols = log_n <= 6 ? 3 : 2;
        gs_fp w = gs_fp_root_of_unity(log_n), wi = gs_fp_inv(w);
        gs_fp shift = gs_test_fp();
        if (shift == 0) shift = 5;
        gs_fp *x = random_vec(cols * n), *ref = alloc_fp(n);

        gs_fp *y = dup_vec(x, cols * n);
        CHECK(gs_ntt_forward_batch(y, cols, log_n) == GS_OK);
        for (size_t c = 0; c < cols; c++) {
            naive_dft(ref, x + c * n, n, w, 1, 1, 1);
            CHECK(same(ref, y + c * n, n));
        }
        /* single-column entry point */
        gs_fp *z = dup_vec(x, n);
        CHECK(gs_ntt_forward(z, log_n) == GS_OK);
        CHECK(same(z, y, n));

        memcpy(y, x, cols * n * sizeof *y);
        CHECK(gs_ntt_inverse_batch(y, cols, log_n) == GS_OK);
        for (size_t c = 0; c < cols; c++) {
            naive_dft(ref, x + c * n, n, wi, 1, inv_n(log_n), 1);
            CHECK(same(ref, y + c * n, n));
        }
        memcpy(z, x, n * sizeof *z);
        CHECK(gs_ntt_inverse(z, log_n) == GS_OK);
        CHECK(same(z, y, n));

        /* coset forward: out[k] = sum_j x_j (shift w^k)^j */
        memcpy(y, x, cols * n * sizeof *y);
        CHECK(gs_ntt_forward_coset_batch(y, cols, log_n, shift) == GS_OK);
        for (size_t c = 0; c < cols; c++) {
            naive_dft(ref, x + c * n, n, w, shift, 1, 1);
            CHECK(same(ref, y + c * n, n));
        }
        /* coset inverse: c_j = shift^-j / n sum_k y_k w^-jk */
        memcpy(y, x, cols * n * sizeof *y);
        CHECK(gs_ntt_inverse_coset_batch(y, cols, log_n, shift) == GS_OK);
        for (size_t c = 0; c < cols; c++) {
            naive_dft(ref, x + c * n, n, wi, 1, inv_n(log_n), gs_fp_inv(shift));
            CHECK(same(ref, y + c * n, n));
        }
        /* the default shift */
        memcpy(y, x, n * sizeof *y);
        CHECK(gs_ntt_forward_coset_batch(y, 1, log_n, GS_LDE_SHIFT) == GS_OK);
        naive_dft(ref, x, n, w, GS_LDE_SHIFT, 1, 1);
        CHECK(same(ref, y, n));
        free(x);
        free(y);
        free(z);
        free(ref);
    }
}

/* Independent facts: the transform of a delta at j is k -> w^(jk); of a
 * constant c is (n c, 0, 0, ...). */
static void test_structure(void) {
    unsigned sizes[] = {3, 6, 7, 12, 16};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        unsigned log_n = sizes[si];
        size_t n = (size_t)1 << log_n;
        gs_fp *v = alloc_fp(n);
        size_t j = gs_test_below(n);
        memset(v, 0, n * sizeof *v);
        v[j] = 1;
        CHECK(gs_ntt_forward(v, log_n) == GS_OK);
        gs_fp w = gs_fp_pow(gs_fp_root_of_unity(log_n), j), x = 1;
        int ok = 1;
        for (size_t k = 0; k < n; k++, x = gs_fp_mul(x, w)) ok &= v[k] == x;
        CHECK(ok);
        gs_fp c = gs_test_fp();
        for (size_t k = 0; k < n; k++) v[k] = c;
        CHECK(gs_ntt_forward(v, log_n) == GS_OK);
        CHECK_EQ_U64(v[0], gs_fp_mul(c, (gs_fp)n % GS_FP_P));
        ok = 1;
        for (size_t k = 1; k < n; k++) ok &= v[k] == 0;
        CHECK(ok);
        /* all p - 1: canonical outputs throughout */
        for (size_t k = 0; k < n; k++) v[k] = GS_FP_P - 1;
        CHECK(gs_ntt_inverse(v, log_n) == GS_OK);
        CHECK_EQ_U64(v[0], GS_FP_P - 1);
        ok = 1;
        for (size_t k = 1; k < n; k++) ok &= v[k] == 0;
        CHECK(ok);
        free(v);
    }
}

/* ---- round trips ---- */

static void test_roundtrip(void) {
    for (unsigned log_n = 0; log_n <= 20; log_n++) {
        if (log_n > 14 && log_n % 2 && log_n != 19) continue; /* keep it fast */
        size_t n = (size_t)1 << log_n;
        size_t cols = log_n <= 12 ? 3 : 1;
        gs_fp *x = random_vec(cols * n), *y = dup_vec(x, cols * n);
        CHECK(gs_ntt_forward_batch(y, cols, log_n) == GS_OK);
        CHECK(gs_ntt_inverse_batch(y, cols, log_n) == GS_OK);
        CHECK(same(x, y, cols * n));
        if (log_n <= 16) {
            gs_fp s = gs_test_fp() | 1;
            if (s >= GS_FP_P) s = 3;
            CHECK(gs_ntt_inverse_coset_batch(y, cols, log_n, s) == GS_OK);
            CHECK(gs_ntt_forward_coset_batch(y, cols, log_n, s) == GS_OK);
            CHECK(same(x, y, cols * n));
        }
        free(x);
        free(y);
    }
}

/* ---- bit reversal ---- */

static void test_bitrev(void) {
    for (unsigned log_n = 0; log_n <= 14; log_n++) {
        size_t n = (size_t)1 << log_n, cols = 3;
        gs_fp *x = random_vec(cols * n), *y = dup_vec(x, cols * n);
        CHECK(gs_bitrev_batch(y, cols, log_n) == GS_OK);
        int ok = 1;
        for (size_t c = 0; c < cols; c++)
            for (size_t i = 0; i < n; i++) ok &= y[c * n + i] == x[c * n + rev_bits(i, log_n)];
        CHECK(ok);
        CHECK(gs_bitrev_batch(y, cols, log_n) == GS_OK);
        CHECK(same(x, y, cols * n));
        free(x);
        free(y);
    }
    for (unsigned k = 0; k < 40; k++) CHECK_EQ_U64(gs_ntt_rev(k * 977 + 13, 17), rev_bits(k * 977 + 13, 17));
}

/* ---- LDE ---- */

/* Check `samples` entries (all if 0) of an LDE output against Horner. */
static void check_lde(const gs_fp *out, const gs_fp *coeffs, size_t cols, unsigned log_n,
                      unsigned log_b, gs_fp shift, gs_order order, size_t samples) {
    size_t n = (size_t)1 << log_n, N = n << log_b;
    unsigned K = log_n + log_b;
    gs_fp w = gs_fp_root_of_unity(K);
    int ok = 1, printed = 0;
    for (size_t c = 0; c < cols; c++) {
        size_t cnt = samples && samples < N ? samples : N;
        for (size_t s = 0; s < cnt; s++) {
            size_t i = cnt == N ? s : (s < 2 ? s * (N - 1) : gs_test_below(N));
            size_t e = order == GS_ORDER_BITREV ? rev_bits(i, K) : i;
            gs_fp x = gs_fp_mul(shift, gs_fp_pow(w, e));
            gs_fp want = horner(coeffs + c * n, n, x);
            if (out[c * N + i] != want) {
                ok = 0;
                if (printed++ < 3 && gs_test_failures < 5)
                    fprintf(stderr, "lde mismatch: log_n %u log_b %u order %d col %zu i %zu\n",
                            log_n, log_b, (int)order, c, i);
            }
        }
    }
    CHECK(ok);
}

static void lde_case(unsigned log_n, unsigned log_b, size_t cols, gs_fp shift, size_t samples) {
    size_t n = (size_t)1 << log_n, N = n << log_b;
    gs_fp *coeffs = random_vec(cols * n);
    /* evaluations on <w_n>: the forward transform (checked against the
     * naive DFT above) */
    gs_fp *evals = dup_vec(coeffs, cols * n);
    CHECK(gs_ntt_forward_batch(evals, cols, log_n) == GS_OK);
    gs_fp *evals_copy = dup_vec(evals, cols * n), *coeffs_copy = dup_vec(coeffs, cols * n);
    gs_fp *out = alloc_fp(cols * N), *out2 = alloc_fp(cols * N);
    for (int o = 0; o < 2; o++) {
        gs_order order = o ? GS_ORDER_BITREV : GS_ORDER_NATURAL;
        for (size_t i = 0; i < cols * N; i++) out[i] = out2[i] = 0xDEADBEEFull;
        CHECK(gs_lde_coset(out, evals, cols, log_n, log_b, shift, order) == GS_OK);
        check_lde(out, coeffs, cols, log_n, log_b, shift, order, samples);
        CHECK(gs_lde_coset_from_coeffs(out2, coeffs, cols, log_n, log_b, shift, order) == GS_OK);
        CHECK(same(out, out2, cols * N));
        CHECK(same(evals, evals_copy, cols * n)); /* inputs untouched */
        CHECK(same(coeffs, coeffs_copy, cols * n));
    }
    free(coeffs);
    free(evals);
    free(evals_copy);
    free(coeffs_copy);
    free(out);
    free(out2);
}

static void test_lde(void) {
    static const size_t colset[] = {1, 3, 7};
    /* every size 0..10 with blowups 1, 2, 4, 8, all points checked for the
     * small ones */
    for (unsigned log_n = 0; log_n <= 10; log_n++)
        for (unsigned log_b = 0; log_b <= 3; log_b++) {
            size_t cols = colset[(log_n + log_b) % 3];
            gs_fp shift = (log_n + log_b) % 2 ? GS_LDE_SHIFT : gs_test_fp();
            lde_case(log_n, log_b, cols, shift, log_n <= 6 ? 0 : 48);
        }
    /* odd column counts at a mid size */
    for (size_t ci = 0; ci < 3; ci++) lde_case(12, 2, colset[ci], GS_LDE_SHIFT, 40);
    /* blowups beyond the size, shift 1 (the subgroup itself), shift 0 */
    lde_case(3, 6, 2, GS_LDE_SHIFT, 0);
    lde_case(7, 9, 1, gs_test_fp(), 64);
    lde_case(9, 1, 3, 1, 64);
    lde_case(8, 2, 1, 0, 16);
    /* larger: one column 2^16 -> 2^18 */
    lde_case(16, 2, 1, GS_LDE_SHIFT, 24);
    lde_case(13, 3, 2, gs_test_fp(), 24);
}

/* ---- thread-count independence ---- */

typedef enum { OP_FWD, OP_INV, OP_FWD_COSET, OP_INV_COSET, OP_LDE_NAT, OP_LDE_BR, OP_LDEC_NAT,
               OP_LDEC_BR, OP_BITREV, OP_COUNT } op_kind;

static gs_status run_op(op_kind op, gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n,
                        unsigned log_b, gs_fp shift) {
    size_t n = (size_t)1 << log_n;
    switch (op) {
    case OP_FWD: memcpy(out, in, cols * n * sizeof *out); return gs_ntt_forward_batch(out, cols, log_n);
    case OP_INV: memcpy(out, in, cols * n * sizeof *out); return gs_ntt_inverse_batch(out, cols, log_n);
    case OP_FWD_COSET:
        memcpy(out, in, cols * n * sizeof *out);
        return gs_ntt_forward_coset_batch(out, cols, log_n, shift);
    case OP_INV_COSET:
        memcpy(out, in, cols * n * sizeof *out);
        return gs_ntt_inverse_coset_batch(out, cols, log_n, shift);
    case OP_LDE_NAT: return gs_lde_coset(out, in, cols, log_n, log_b, shift, GS_ORDER_NATURAL);
    case OP_LDE_BR: return gs_lde_coset(out, in, cols, log_n, log_b, shift, GS_ORDER_BITREV);
    case OP_LDEC_NAT:
        return gs_lde_coset_from_coeffs(out, in, cols, log_n, log_b, shift, GS_ORDER_NATURAL);
    case OP_LDEC_BR:
        return gs_lde_coset_from_coeffs(out, in, cols, log_n, log_b, shift, GS_ORDER_BITREV);
    case OP_BITREV: memcpy(out, in, cols * n * sizeof *out); return gs_bitrev_batch(out, cols, log_n);
    default: return GS_ERR_INVALID_ARG;
    }
}

static int is_lde(op_kind op) { return op >= OP_LDE_NAT && op <= OP_LDEC_BR; }

/* The same op with 1, 2, 3, 4 threads and (where available) both kernel
 * sets gives the same bits. */
static void test_independence(void) {
    struct {
        size_t cols;
        unsigned log_n, log_b;
    } cases[] = {{5, 14, 2}, {1, 20, 0}, {1, 16, 2}, {3, 13, 3}, {2, 17, 1}, {9, 8, 1}};
    int have_simd = strcmp(gs_ntt_kernel_name(), "portable") != 0;
    printf("kernels: %s\n", gs_ntt_kernel_name());
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        size_t cols = cases[ci].cols, n = (size_t)1 << cases[ci].log_n;
        unsigned log_b = cases[ci].log_b;
        gs_fp *in = random_vec(cols * n);
        gs_fp shift = gs_test_fp();
        if (shift == 0) shift = GS_LDE_SHIFT;
        size_t outn = cols * (n << log_b);
        gs_fp *ref = alloc_fp(outn), *got = alloc_fp(outn);
        for (int op = 0; op < OP_COUNT; op++) {
            /* the single 2^20 column: only the plain transforms, to keep the
             * test quick under sanitizers */
            if (cases[ci].log_n == 20 && op != OP_FWD && op != OP_INV && op != OP_BITREV) continue;
            size_t len = is_lde((op_kind)op) ? outn : cols * n;
            gs_threads_set(1);
            CHECK(run_op((op_kind)op, ref, in, cols, cases[ci].log_n, log_b, shift) == GS_OK);
            for (unsigned t = 2; t <= 4; t++) {
                gs_threads_set(t);
                CHECK(run_op((op_kind)op, got, in, cols, cases[ci].log_n, log_b, shift) == GS_OK);
                if (!same(ref, got, len))
                    fprintf(stderr, "thread mismatch: case %zu op %d threads %u\n", ci, op, t);
                CHECK(same(ref, got, len));
            }
            if (have_simd) {
                gs_threads_set(2);
                int prev = gs_ntt_set_kernel_mode(1);
                CHECK(strcmp(gs_ntt_kernel_name(), "portable") == 0);
                CHECK(run_op((op_kind)op, got, in, cols, cases[ci].log_n, log_b, shift) == GS_OK);
                gs_ntt_set_kernel_mode(prev);
                if (!same(ref, got, len))
                    fprintf(stderr, "kernel mismatch: case %zu op %d\n", ci, op);
                CHECK(same(ref, got, len));
            }
        }
        gs_threads_set(0);
        free(in);
        free(ref);
        free(got);
    }
}

/* The portable kernels alone against the naive DFT as well (the test above
 * only compares them with the SIMD ones where those exist). */
static void test_portable_naive(void) {
    int prev = gs_ntt_set_kernel_mode(1);
    for (unsigned log_n = 6; log_n <= 9; log_n++) {
        size_t n = (size_t)1 << log_n;
        gs_fp *x = random_vec(n), *y = dup_vec(x, n), *ref = alloc_fp(n);
        CHECK(gs_ntt_forward(y, log_n) == GS_OK);
        naive_dft(ref, x, n, gs_fp_root_of_unity(log_n), 1, 1, 1);
        CHECK(same(ref, y, n));
        free(x);
        free(y);
        free(ref);
    }
    lde_case(8, 2, 3, GS_LDE_SHIFT, 32);
    gs_ntt_set_kernel_mode(prev);
}

/* ---- concurrent first use of the twiddle caches ---- */

typedef struct {
    unsigned log_n;
    uint64_t seed;
    int ok;
} conc_job;

static void *conc_worker(void *arg) {
    conc_job *j = arg;
    size_t n = (size_t)1 << j->log_n;
    gs_fp *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *o = malloc(4 * n * sizeof *o);
    j->ok = 0;
    if (!x || !y || !o) goto out;
    uint64_t r = j->seed;
    for (size_t i = 0; i < n; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (r >> 1) % GS_FP_P;
    }
    memcpy(y, x, n * sizeof *y);
    gs_threads_set_local(1 + (unsigned)(j->seed % 2));
    j->ok = gs_ntt_forward(y, j->log_n) == GS_OK && gs_ntt_inverse(y, j->log_n) == GS_OK &&
            same(x, y, n) &&
            gs_lde_coset(o, x, 1, j->log_n, 2, GS_LDE_SHIFT, GS_ORDER_BITREV) == GS_OK;
out:
    free(x);
    free(y);
    free(o);
    return NULL;
}

/* Runs first, so the stage tables are built while several threads race for
 * them; afterwards the same transforms single-threaded give the same bits. */
static void test_concurrent_first_use(void) {
    enum { NT = 6 };
    pthread_t th[NT];
    conc_job jobs[NT];
    int started[NT];
    for (int i = 0; i < NT; i++) jobs[i] = (conc_job){(unsigned)(10 + i % 3 * 3), gs_test_u64(), 0};
    for (int i = 0; i < NT; i++) started[i] = pthread_create(&th[i], NULL, conc_worker, &jobs[i]) == 0;
    for (int i = 0; i < NT; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            conc_worker(&jobs[i]);
    }
    for (int i = 0; i < NT; i++) CHECK(jobs[i].ok == 1);
}

/* ---- allocation failure ---- */

/* Every allocation the module makes fails in turn (the fault-injection hook
 * of ntt_internal.h): each call reports GS_ERR_NOMEM and leaves its data as
 * it was, until enough allocations succeed and the result is right. */
typedef gs_status (*nomem_op)(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n);

static gs_status nm_fwd(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    (void)in;
    return gs_ntt_forward_batch(out, cols, log_n);
}
static gs_status nm_inv_coset(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    (void)in;
    return gs_ntt_inverse_coset_batch(out, cols, log_n, 11);
}
static gs_status nm_lde_nat(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    return gs_lde_coset(out, in, cols, log_n, 2, GS_LDE_SHIFT, GS_ORDER_NATURAL);
}
static gs_status nm_lde_br(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    return gs_lde_coset(out, in, cols, log_n, 1, GS_LDE_SHIFT, GS_ORDER_BITREV);
}
static gs_status nm_ldec_nat(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    return gs_lde_coset_from_coeffs(out, in, cols, log_n, 3, 5, GS_ORDER_NATURAL);
}
static gs_status nm_lde_small(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    (void)log_n;
    return gs_lde_coset(out, in, cols, 3, 4, GS_LDE_SHIFT, GS_ORDER_BITREV); /* generic path */
}
static gs_status nm_bitrev(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n) {
    (void)in;
    return gs_bitrev_batch(out, cols, log_n);
}

static void test_nomem(void) {
    static const struct {
        nomem_op op;
        int in_place;
        unsigned log_b;
    } ops[] = {{nm_fwd, 1, 0},     {nm_inv_coset, 1, 0}, {nm_lde_nat, 0, 2},
               {nm_lde_br, 0, 1},  {nm_ldec_nat, 0, 3},  {nm_lde_small, 0, 4},
               {nm_bitrev, 1, 0}};
    const unsigned log_n = 12;
    const size_t cols = 3, n = (size_t)1 << log_n;
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        size_t outn = ops[oi].in_place ? cols * n : cols * (n << ops[oi].log_b);
        gs_fp *in = random_vec(cols * n), *ref = random_vec(outn), *out = alloc_fp(outn);
        if (ops[oi].in_place) memcpy(ref, in, cols * n * sizeof *ref);
        gs_fp *orig = dup_vec(ref, outn);
        CHECK(ops[oi].op(ref, in, cols, log_n) == GS_OK);
        /* all allocations from the k-th on fail: GS_ERR_NOMEM, data kept */
        int done = 0, failures = 0;
        for (long k = 0; k < 64 && !done; k++) {
            memcpy(out, orig, outn * sizeof *out);
            gs_threads_set(1 + (unsigned)(k % 2));
            gs_ntt_fail_allocs(k, -1);
            gs_status st = ops[oi].op(out, in, cols, log_n);
            gs_ntt_fail_allocs(-1, 0);
            if (st == GS_OK) {
                CHECK(same(out, ref, outn));
                done = 1;
            } else {
                failures++;
                CHECK(st == GS_ERR_NOMEM);
                /* the generic LDE path works in stages on the output; every
                 * other call fails before touching it */
                if (ops[oi].op != nm_lde_small) CHECK(same(out, orig, outn));
            }
        }
        CHECK(done);
        if (ops[oi].op != nm_bitrev) CHECK(failures >= 2); /* tables, then scratch */
        /* only the k-th allocation fails: the call either reports
         * GS_ERR_NOMEM (data kept) or, where it can do without that
         * allocation, gives the right result */
        for (long k = 0; k < 8; k++) {
            memcpy(out, orig, outn * sizeof *out);
            gs_ntt_fail_allocs(k, 1);
            gs_status st = ops[oi].op(out, in, cols, log_n);
            gs_ntt_fail_allocs(-1, 0);
            CHECK(st == GS_OK || st == GS_ERR_NOMEM);
            if (st == GS_OK) CHECK(same(out, ref, outn));
            if (st == GS_ERR_NOMEM && ops[oi].op != nm_lde_small) CHECK(same(out, orig, outn));
        }
        gs_threads_set(0);
        free(in);
        free(ref);
        free(out);
        free(orig);
    }
}

/* ---- errors ---- */

static void test_errors(void) {
    gs_fp buf[64] = {0}, out[256];
    CHECK(gs_ntt_forward(buf, 33) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_inverse(buf, 33) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_forward_batch(buf, 1, 40) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_inverse_batch(buf, 2, 33) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_forward_coset_batch(buf, 1, 33, 7) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_inverse_coset_batch(buf, 1, 33, 7) == GS_ERR_INVALID_ARG);
    CHECK(gs_bitrev_batch(buf, 1, 33) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_forward(NULL, 3) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_inverse(NULL, 0) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_forward_batch(NULL, 2, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_inverse_batch(NULL, 1, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_forward_coset_batch(NULL, 1, 4, 7) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_inverse_coset_batch(NULL, 1, 4, 7) == GS_ERR_INVALID_ARG);
    CHECK(gs_bitrev_batch(NULL, 1, 4) == GS_ERR_INVALID_ARG);
    /* zero columns: nothing to do, NULL allowed */
    CHECK(gs_ntt_forward_batch(NULL, 0, 10) == GS_OK);
    CHECK(gs_bitrev_batch(NULL, 0, 10) == GS_OK);
    /* the inverse coset needs an invertible, canonical shift */
    CHECK(gs_ntt_inverse_coset_batch(buf, 1, 4, 0) == GS_ERR_INVALID_ARG);
    CHECK(gs_ntt_forward_coset_batch(buf, 1, 4, GS_FP_P) == GS_ERR_INVALID_ARG);
    /* log_n 0 is the identity */
    buf[0] = 12345;
    CHECK(gs_ntt_forward(buf, 0) == GS_OK);
    CHECK_EQ_U64(buf[0], 12345);
    CHECK(gs_ntt_inverse(buf, 0) == GS_OK);
    CHECK_EQ_U64(buf[0], 12345);

    CHECK(gs_lde_coset(out, buf, 1, 30, 3, 7, GS_ORDER_NATURAL) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(out, buf, 1, 3, 30, 7, GS_ORDER_NATURAL) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(out, buf, 1, 33, 0, 7, GS_ORDER_BITREV) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset_from_coeffs(out, buf, 1, 20, 13, 7, GS_ORDER_BITREV) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset_from_coeffs(out, buf, 1, 1, 0xFFFFFFFFu, 7, GS_ORDER_BITREV) ==
          GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(NULL, buf, 1, 3, 1, 7, GS_ORDER_NATURAL) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(out, NULL, 1, 3, 1, 7, GS_ORDER_NATURAL) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset_from_coeffs(NULL, buf, 2, 3, 1, 7, GS_ORDER_BITREV) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset_from_coeffs(out, NULL, 2, 3, 1, 7, GS_ORDER_BITREV) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(out, buf, 1, 3, 1, 7, (gs_order)5) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(out, buf, 1, 3, 1, GS_FP_P + 3, GS_ORDER_NATURAL) == GS_ERR_INVALID_ARG);
    /* overlapping input and output */
    CHECK(gs_lde_coset(buf, buf + 8, 1, 3, 1, 7, GS_ORDER_NATURAL) == GS_ERR_INVALID_ARG);
    CHECK(gs_lde_coset(NULL, NULL, 0, 3, 1, 7, GS_ORDER_NATURAL) == GS_OK);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_concurrent_first_use();
    test_errors();
    test_naive();
    test_structure();
    test_bitrev();
    test_roundtrip();
    test_lde();
    test_portable_naive();
    test_independence();
    test_nomem();
    return gs_test_done();
}
