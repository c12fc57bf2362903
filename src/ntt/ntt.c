/* NTT, inverse NTT, coset NTTs, coset LDE and bit reversal (gstark/ntt.h).
 *
 * Algorithm (docs/architecture.md, "NTT"): a transform of N = 2^K points,
 * K >= 6, is a four-step (Bailey) transform over the N1 x N2 row-major view
 * of the column (N1 = 2^ceil(K/2), N2 = 2^floor(K/2)):
 *   decimation in frequency (natural -> bit-reversed, in place):
 *     1. DIF of every matrix column (gathered 8 columns at a time into a
 *        scratch block of N1 x 8 values), multiplied on the way back by the
 *        inter-step twiddle w_N^(k1 j2);
 *     2. DIF of every matrix row (8 rows at a time, transposed into scratch).
 *   decimation in time (natural -> natural, rows out of place):
 *     1. DIT of the rows of the bit-reversed input: row group c takes matrix
 *        rows rev(8c .. 8c+7), whose bit-reversed entries are 8 adjacent
 *        source values, so the permutation costs nothing; twiddle on the way
 *        out;
 *     2. DIT of every matrix column.
 * Sub-transforms run on 8 lanes at once (one AVX-512 vector per scratch row)
 * with radix-4 butterflies and cached per-size stage twiddles.
 *
 * The in-place transforms (natural order in and out) are the DIF followed by
 * an in-place bit reversal (8x8 tiles, swapped in pairs). (The DIT through a
 * temporary column needs no bit reversal but makes two strided column passes
 * instead of one: measured slower, and it needs the extra memory.)
 * The LDE: the DIT (inverse) turns the evaluations into coefficients in the
 * first n values of each output column, then a DIF of size nB reads those n
 * values as a zero-padded column (its first log B stages only multiply),
 * giving bit-reversed order; natural order adds the in-place bit reversal.
 * Diagonal scalings (1/n, the coset powers shift^j) are folded into the
 * inter-step twiddles or into row loads and stores, never a separate pass.
 *
 * Threads: many columns are spread over threads whole (a column per task);
 * the columns left over, or a single big column, are split inside each step
 * (its groups are independent). Every value is computed by the same
 * operations whatever the split, so the output never depends on the thread
 * count. All memory is allocated before any data is touched. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/ntt.h"
#include "gstark/parallel.h"
#include "ntt/ntt_internal.h"
#include "util/parallel_share.h"

/* ------------------------------------------------------------------ */
/* kernel choice                                                       */

static atomic_int g_kernel_mode;

int gs_ntt_set_kernel_mode(int mode) { return atomic_exchange(&g_kernel_mode, mode); }

static const ntt_kernels *kernels(void) {
#if defined(GS_NTT_HAVE_AVX512)
    if (atomic_load(&g_kernel_mode) == 0 && __builtin_cpu_supports("avx512f"))
        return &gs_ntt_kernels_avx512;
#endif
    return &gs_ntt_kernels_portable;
}

const char *gs_ntt_kernel_name(void) { return kernels()->name; }

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

/* 2^-K */
static gs_fp inv_pow2(unsigned K) { return gs_fp_pow((GS_FP_P + 1) / 2, K); }

static void fill_geom(gs_fp *out, size_t n, gs_fp a, gs_fp r) {
    if (!n) return;
    out[0] = a;
    for (size_t i = 1; i < n; i++) out[i] = gs_fp_mul(out[i - 1], r);
}

/* Direct transforms below NTT_MIN_FOURSTEP: radix-2 DIT after a bit
 * reversal, natural order in and out. */
static void small_bitrev(gs_fp *x, unsigned K) {
    size_t n = (size_t)1 << K;
    for (size_t i = 0; i < n; i++) {
        size_t j = gs_ntt_rev(i, K);
        if (i < j) {
            gs_fp t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
}

static void small_ntt(gs_fp *x, unsigned K, int inv, gs_fp shift, const gs_fp *const *tw) {
    size_t n = (size_t)1 << K;
    if (!inv && shift != 1) {
        gs_fp f = 1;
        for (size_t i = 0; i < n; i++, f = gs_fp_mul(f, shift)) x[i] = gs_fp_mul(x[i], f);
    }
    small_bitrev(x, K);
    for (unsigned s = 0; s < K; s++) {
        size_t h = (size_t)1 << s;
        for (size_t blk = 0; blk < n; blk += 2 * h)
            for (size_t j = 0; j < h; j++) {
                gs_fp u = x[blk + j], v = gs_fp_mul(x[blk + j + h], tw[s][j]);
                x[blk + j] = gs_fp_add(u, v);
                x[blk + j + h] = gs_fp_sub(u, v);
            }
    }
    if (inv) {
        gs_fp f = inv_pow2(K), si = gs_fp_inv(shift);
        for (size_t i = 0; i < n; i++, f = gs_fp_mul(f, si)) x[i] = gs_fp_mul(x[i], f);
    }
}

/* ------------------------------------------------------------------ */
/* passes and their execution                                          */

enum { PASS_DIF, PASS_DIT, PASS_BITREV };

/* Where a pass reads or writes column c: p + c * stride. */
typedef struct ntt_buf {
    gs_fp *p;
    size_t stride;
} ntt_buf;

static gs_fp *buf_at(const ntt_buf *b, size_t col) { return b->p ? b->p + col * b->stride : NULL; }

typedef struct ntt_pass {
    int kind;
    ntt_plan pl;
    /* PASS_DIF: src -> dst (columns), dst (rows), dst (bit reversal);
     * PASS_DIT: src -> mid (rows), mid -> dst (columns); PASS_BITREV: dst */
    ntt_buf src, mid, dst;
    int bitrev_after; /* PASS_DIF: bit-reverse dst afterwards */
    gs_fp *tables;    /* owned */
} ntt_pass;

static int pass_nsteps(const ntt_pass *ps) {
    if (ps->kind == PASS_BITREV) return 1;
    return ps->kind == PASS_DIF && ps->bitrev_after ? 3 : 2;
}

static size_t pass_groups(const ntt_pass *ps, int step) {
    const ntt_plan *p = &ps->pl;
    if (ps->kind == PASS_BITREV || step == 2) return (size_t)1 << (p->K - 6);
    if (ps->kind == PASS_DIF) return step == 0 ? p->N2 / NTT_LANES : p->N1 / NTT_LANES;
    return step == 0 ? p->N1 / NTT_LANES : p->N2 / NTT_LANES;
}

/* Groups [g0, g1) of a step; task `part` of `parts` for the bit reversal,
 * which interleaves its groups instead (see ntt_kernels.bitrev). */
static void run_step(const ntt_kernels *k, const ntt_pass *ps, int step, size_t col, size_t g0,
                     size_t g1, size_t part, size_t parts, gs_fp *S) {
    gs_fp *src = buf_at(&ps->src, col), *mid = buf_at(&ps->mid, col), *dst = buf_at(&ps->dst, col);
    if (ps->kind == PASS_BITREV || step == 2) {
        k->bitrev(dst, ps->pl.K, part, pass_groups(ps, step), parts);
    } else if (ps->kind == PASS_DIF) {
        if (step == 0)
            k->dif_cols(&ps->pl, dst, src, g0, g1, S);
        else
            k->dif_rows(&ps->pl, dst, g0, g1, S);
    } else {
        if (step == 0)
            k->dit_rows(&ps->pl, mid, src, g0, g1, S);
        else
            k->dit_cols(&ps->pl, dst, mid, g0, g1, S);
    }
}

typedef struct exec_ctx {
    const ntt_kernels *k;
    const ntt_pass *passes;
    int npass;
    size_t P; /* tasks (scratch buffers) */
    gs_fp **scratch;
    /* whole-column phase: columns [0, ncp) split over the P tasks */
    size_t ncp;
    /* split phase: one step of one column */
    size_t col;
    int pass, step;
    size_t ngroups, parts;
} exec_ctx;

static void run_column(const exec_ctx *e, size_t col, gs_fp *S) {
    for (int pi = 0; pi < e->npass; pi++) {
        const ntt_pass *ps = &e->passes[pi];
        for (int st = 0; st < pass_nsteps(ps); st++)
            run_step(e->k, ps, st, col, 0, pass_groups(ps, st), 0, 1, S);
    }
}

static void whole_task(void *arg, size_t b, size_t end) {
    const exec_ctx *e = arg;
    for (size_t i = b; i < end; i++) {
        size_t c0 = i * e->ncp / e->P, c1 = (i + 1) * e->ncp / e->P;
        for (size_t c = c0; c < c1; c++) run_column(e, c, e->scratch ? e->scratch[i] : NULL);
    }
}

static void split_task(void *arg, size_t b, size_t end) {
    const exec_ctx *e = arg;
    for (size_t i = b; i < end; i++) {
        size_t g0 = i * e->ngroups / e->parts, g1 = (i + 1) * e->ngroups / e->parts;
        run_step(e->k, &e->passes[e->pass], e->step, e->col, g0, g1, i, e->parts,
                 e->scratch ? e->scratch[i] : NULL);
    }
}

/* Work below which a call stays on one thread (thread start-up is tens of
 * microseconds), and the column size from which one column is split. */
#define PAR_MIN_WORK ((size_t)1 << 15)
#define SPLIT_MIN_N ((size_t)1 << 13)

/* Run the passes over `cols` columns of col_len values. scratch_rows: rows
 * of 8 values needed per task. */
static gs_status execute(const ntt_pass *passes, int npass, size_t cols, size_t col_len,
                         size_t scratch_rows) {
    if (cols == 0) return GS_OK;
    exec_ctx e;
    memset(&e, 0, sizeof e);
    e.k = kernels();
    e.passes = passes;
    e.npass = npass;
    size_t T = gs_threads_tasks();
    if (T < 1) T = 1;
    if (T > 256) T = 256;
    if (cols * col_len < PAR_MIN_WORK) T = 1;
    /* Columns go whole to tasks in rounds of T; the rest are split (unless
     * they are small, then they go whole too, unevenly). */
    size_t ncp = cols >= T ? cols / T * T : 0;
    if (col_len < SPLIT_MIN_N) ncp = cols;
    size_t P = T;
    if (ncp && ncp < P) P = ncp;
    e.P = P;
    e.ncp = ncp;

    gs_fp *sblock = NULL, *sptr[256];
    if (scratch_rows) {
        sblock = gs_ntt_alloc(P * scratch_rows * NTT_LANES * sizeof(gs_fp), 1);
        if (!sblock) return GS_ERR_NOMEM;
        for (size_t i = 0; i < P; i++) sptr[i] = sblock + i * scratch_rows * NTT_LANES;
        e.scratch = sptr;
    }

    if (ncp) {
        if (P > 1)
            gs_parallel_for(P, 1, whole_task, &e);
        else
            whole_task(&e, 0, 1);
    }
    for (size_t c = ncp; c < cols; c++) {
        for (int pi = 0; pi < npass; pi++) {
            for (int st = 0; st < pass_nsteps(&passes[pi]); st++) {
                e.col = c;
                e.pass = pi;
                e.step = st;
                e.ngroups = pass_groups(&passes[pi], st);
                e.parts = P < e.ngroups ? P : e.ngroups;
                if (e.parts > 1)
                    gs_parallel_for(e.parts, 1, split_task, &e);
                else
                    run_step(e.k, &passes[pi], st, c, 0, e.ngroups, 0, 1,
                             e.scratch ? e.scratch[0] : NULL);
            }
        }
    }
    free(sblock);
    return GS_OK;
}

/* ------------------------------------------------------------------ */
/* pass construction                                                   */

static gs_status plan_init(ntt_plan *pl, unsigned K, int inv, unsigned logB) {
    memset(pl, 0, sizeof *pl);
    pl->K = K;
    pl->K2 = K / 2;
    pl->K1 = K - pl->K2;
    pl->N1 = (size_t)1 << pl->K1;
    pl->N2 = (size_t)1 << pl->K2;
    pl->logB = logB;
    pl->inv = inv;
    for (unsigned s = 0; s < pl->K1; s++) {
        pl->tw[s] = gs_ntt_stage_table(inv, s);
        pl->tw3[s] = gs_ntt_stage_table3(inv, s);
        if (!pl->tw[s] || !pl->tw3[s]) return GS_ERR_NOMEM;
    }
    return GS_OK;
}

static gs_fp root(unsigned K, int inv) {
    gs_fp w = gs_fp_root_of_unity(K);
    return inv ? gs_fp_inv(w) : w;
}

/* DIF pass: natural -> bit-reversed (then natural if bitrev_after).
 * Source value j = j1 N2 + j2 is multiplied by rho0 rho^j1 (if rowf) and
 * alpha gamma^j2; matrix row k1 of the column step by beta^k1; output
 * position (r, t) of the row step by sigma^rev(t) (if sigma != 1). The source
 * has N >> logB values (zero padding). */
static gs_status make_dif(ntt_pass *ps, unsigned K, int inv, unsigned logB, gs_fp alpha,
                          gs_fp gamma, gs_fp beta, int rowf, gs_fp rho, gs_fp sigma) {
    memset(ps, 0, sizeof *ps);
    ps->kind = PASS_DIF;
    GS_TRY(plan_init(&ps->pl, K, inv, logB));
    ntt_plan *pl = &ps->pl;
    size_t N2 = pl->N2;
    ps->tables = gs_ntt_alloc((sigma != 1 ? 3 : 2) * N2 * sizeof(gs_fp), 0);
    if (!ps->tables) return GS_ERR_NOMEM;
    gs_fp *cv0 = ps->tables, *cb = cv0 + N2;
    fill_geom(cv0, N2, alpha, gamma);
    /* lane j2, step k1: alpha gamma^j2 (beta w^j2)^k1 */
    fill_geom(cb, N2, beta, root(K, inv));
    pl->cv0 = cv0;
    pl->cb = cb;
    pl->rowf = rowf;
    pl->rho0 = 1;
    pl->rho = rho;
    if (sigma != 1) {
        gs_fp *f = cb + N2, acc = 1;
        for (size_t k2 = 0; k2 < N2; k2++, acc = gs_fp_mul(acc, sigma)) f[gs_ntt_rev(k2, pl->K2)] = acc;
        pl->ftab = f;
    }
    return GS_OK;
}

/* DIT pass (natural -> natural; the row step must not write its source).
 * Output row k1 is multiplied by rho^k1 (if rowf); lane idx step t by
 * alpha (beta w^idx)^t, i.e. output column j2 by alpha beta^j2. */
static gs_status make_dit(ntt_pass *ps, unsigned K, int inv, gs_fp alpha, gs_fp beta, int rowf,
                          gs_fp rho) {
    memset(ps, 0, sizeof *ps);
    ps->kind = PASS_DIT;
    GS_TRY(plan_init(&ps->pl, K, inv, 0));
    ntt_plan *pl = &ps->pl;
    size_t N1 = pl->N1;
    ps->tables = gs_ntt_alloc(2 * N1 * sizeof(gs_fp), 0);
    if (!ps->tables) return GS_ERR_NOMEM;
    gs_fp *cv0 = ps->tables, *cb = cv0 + N1;
    fill_geom(cv0, N1, alpha, 1);
    fill_geom(cb, N1, beta, root(K, inv));
    pl->cv0 = cv0;
    pl->cb = cb;
    pl->rowf = rowf;
    pl->rho0 = 1;
    pl->rho = rho;
    return GS_OK;
}

static void free_passes(ntt_pass *ps, int n) {
    for (int i = 0; i < n; i++) free(ps[i].tables);
}

/* ------------------------------------------------------------------ */
/* in-place transforms                                                 */

typedef struct small_ctx {
    gs_fp *v;
    size_t stride;
    unsigned K;
    int inv;
    gs_fp shift;
    const gs_fp *const *tw;
    int bitrev_only;
} small_ctx;

static void small_task(void *arg, size_t b, size_t e) {
    const small_ctx *c = arg;
    for (size_t i = b; i < e; i++) {
        if (c->bitrev_only)
            small_bitrev(c->v + i * c->stride, c->K);
        else
            small_ntt(c->v + i * c->stride, c->K, c->inv, c->shift, c->tw);
    }
}

static gs_status small_batch(gs_fp *v, size_t cols, size_t stride, unsigned K, int inv, gs_fp shift,
                             int bitrev_only) {
    const gs_fp *tw[NTT_MIN_FOURSTEP];
    for (unsigned s = 0; s < K; s++) {
        tw[s] = gs_ntt_stage_table(inv, s);
        if (!tw[s]) return GS_ERR_NOMEM;
    }
    small_ctx c = {v, stride, K, inv, shift, tw, bitrev_only};
    gs_parallel_for(cols, PAR_MIN_WORK >> K, small_task, &c);
    return GS_OK;
}

/* Natural order in and out, `cols` columns at v + c * stride. Forward:
 * evaluations on shift * <w_N> of coefficients; inverse: the coefficients
 * back from such evaluations. shift = 1: the plain transforms. The
 * decimation-in-frequency pass in place, then an in-place bit reversal.
 * (A decimation-in-time pass through a temporary column avoids the bit
 * reversal but makes two strided passes instead of one: slower.) */
static gs_status ntt_inplace(gs_fp *v, size_t cols, size_t stride, unsigned K, int inv,
                             gs_fp shift) {
    if (cols == 0) return GS_OK;
    if (K < NTT_MIN_FOURSTEP) return small_batch(v, cols, stride, K, inv, shift, 0);
    const size_t N = (size_t)1 << K, N1 = (size_t)1 << (K - K / 2), N2 = (size_t)1 << (K / 2);
    ntt_pass ps;
    gs_status st;
    if (!inv) {
        st = make_dif(&ps, K, 0, 0, 1, shift, 1, shift != 1, gs_fp_pow(shift, N2), 1);
    } else {
        gs_fp si = gs_fp_inv(shift);
        st = make_dif(&ps, K, 1, 0, inv_pow2(K), 1, si, 0, 1, shift != 1 ? gs_fp_pow(si, N1) : 1);
    }
    if (st == GS_OK) {
        ps.src = (ntt_buf){v, stride};
        ps.dst = (ntt_buf){v, stride};
        ps.bitrev_after = 1;
        st = execute(&ps, 1, cols, N, N1);
    }
    free_passes(&ps, 1);
    return st;
}

static gs_status check_args(const gs_fp *v, size_t cols, unsigned log_n) {
    if (log_n > GS_FP_TWO_ADICITY) return GS_ERR_INVALID_ARG;
    if (cols && !v) return GS_ERR_INVALID_ARG;
    if (cols > SIZE_MAX / sizeof(gs_fp) >> log_n) return GS_ERR_INVALID_ARG;
    return GS_OK;
}

gs_status gs_ntt_forward(gs_fp *v, unsigned log_n) { return gs_ntt_forward_batch(v, 1, log_n); }

gs_status gs_ntt_inverse(gs_fp *v, unsigned log_n) { return gs_ntt_inverse_batch(v, 1, log_n); }

gs_status gs_ntt_forward_batch(gs_fp *v, size_t cols, unsigned log_n) {
    GS_TRY(check_args(v, cols, log_n));
    return ntt_inplace(v, cols, (size_t)1 << log_n, log_n, 0, 1);
}

gs_status gs_ntt_inverse_batch(gs_fp *v, size_t cols, unsigned log_n) {
    GS_TRY(check_args(v, cols, log_n));
    return ntt_inplace(v, cols, (size_t)1 << log_n, log_n, 1, 1);
}

gs_status gs_ntt_forward_coset_batch(gs_fp *v, size_t cols, unsigned log_n, gs_fp shift) {
    GS_TRY(check_args(v, cols, log_n));
    if (shift >= GS_FP_P) return GS_ERR_INVALID_ARG;
    return ntt_inplace(v, cols, (size_t)1 << log_n, log_n, 0, shift);
}

gs_status gs_ntt_inverse_coset_batch(gs_fp *v, size_t cols, unsigned log_n, gs_fp shift) {
    GS_TRY(check_args(v, cols, log_n));
    if (shift == 0 || shift >= GS_FP_P) return GS_ERR_INVALID_ARG;
    return ntt_inplace(v, cols, (size_t)1 << log_n, log_n, 1, shift);
}

static gs_status bitrev_inplace(gs_fp *v, size_t cols, size_t stride, unsigned K) {
    if (cols == 0 || K == 0) return GS_OK;
    if (K < NTT_MIN_FOURSTEP) return small_batch(v, cols, stride, K, 0, 1, 1);
    ntt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.kind = PASS_BITREV;
    ps.pl.K = K;
    ps.dst = (ntt_buf){v, stride};
    return execute(&ps, 1, cols, (size_t)1 << K, 0);
}

gs_status gs_bitrev_batch(gs_fp *v, size_t cols, unsigned log_n) {
    GS_TRY(check_args(v, cols, log_n));
    return bitrev_inplace(v, cols, (size_t)1 << log_n, log_n);
}

/* ------------------------------------------------------------------ */
/* coset low-degree extension                                          */

typedef struct copy_ctx {
    gs_fp *out;
    const gs_fp *in;
    size_t n, N;
} copy_ctx;

static void copy_pad_task(void *arg, size_t b, size_t e) {
    const copy_ctx *c = arg;
    for (size_t i = b; i < e; i++) {
        memcpy(c->out + i * c->N, c->in + i * c->n, c->n * sizeof(gs_fp));
        memset(c->out + i * c->N + c->n, 0, (c->N - c->n) * sizeof(gs_fp));
    }
}

static int ranges_overlap(const void *a, size_t abytes, const void *b, size_t bbytes) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + bbytes && y < x + abytes;
}

static gs_status lde(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n, unsigned log_b,
                     gs_fp shift, gs_order order, int from_coeffs) {
    if (log_n > GS_FP_TWO_ADICITY || log_b > GS_FP_TWO_ADICITY ||
        log_n + log_b > GS_FP_TWO_ADICITY)
        return GS_ERR_INVALID_ARG;
    if (order != GS_ORDER_NATURAL && order != GS_ORDER_BITREV) return GS_ERR_INVALID_ARG;
    if (shift >= GS_FP_P) return GS_ERR_INVALID_ARG;
    if (cols == 0) return GS_OK;
    if (!out || !in) return GS_ERR_INVALID_ARG;
    const unsigned K = log_n + log_b;
    const size_t n = (size_t)1 << log_n, N = (size_t)1 << K;
    if (cols > SIZE_MAX / sizeof(gs_fp) / N) return GS_ERR_INVALID_ARG;
    if (ranges_overlap(out, cols * N * sizeof(gs_fp), in, cols * n * sizeof(gs_fp)))
        return GS_ERR_INVALID_ARG;

    if (log_n < NTT_MIN_FOURSTEP || log_b > log_n) {
        /* Generic path (small or extreme blowups): coefficients, zero
         * padding, a coset transform of the full size. */
        copy_ctx cc = {out, in, n, N};
        gs_parallel_for(cols, PAR_MIN_WORK / N + 1, copy_pad_task, &cc);
        if (!from_coeffs) GS_TRY(ntt_inplace(out, cols, N, log_n, 1, 1));
        GS_TRY(ntt_inplace(out, cols, N, K, 0, shift));
        if (order == GS_ORDER_BITREV) GS_TRY(bitrev_inplace(out, cols, N, K));
        return GS_OK;
    }

    /* Evaluations -> coefficients times shift^j / n, natural order, into
     * the first n values of each output column (a DIT pass: rows from `in`
     * into the output, columns in place); then the zero-padded DIF of size
     * N in place in the output (its source: those n values, or `coeffs`
     * directly), which yields bit-reversed order; natural order takes an
     * in-place bit reversal on top. */
    const size_t N2 = (size_t)1 << (K / 2), N1 = N >> (K / 2);
    const size_t n2 = (size_t)1 << (log_n / 2);
    gs_fp *inp = (gs_fp *)(uintptr_t)in; /* only ever read */
    ntt_pass ps[2];
    int np = 0;
    gs_status st = GS_OK;
    memset(ps, 0, sizeof ps);
    if (!from_coeffs) {
        st = make_dit(&ps[0], log_n, 1, inv_pow2(log_n), shift, shift != 1, gs_fp_pow(shift, n2));
        ps[0].src = (ntt_buf){inp, n};
        ps[0].mid = (ntt_buf){out, N};
        ps[0].dst = (ntt_buf){out, N};
        np = 1;
    }
    if (st == GS_OK) {
        ntt_pass *q = &ps[np++];
        if (from_coeffs) {
            st = make_dif(q, K, 0, log_b, 1, shift, 1, shift != 1, gs_fp_pow(shift, N2), 1);
            q->src = (ntt_buf){inp, n};
        } else {
            st = make_dif(q, K, 0, log_b, 1, 1, 1, 0, 1, 1);
            q->src = (ntt_buf){out, N};
        }
        q->dst = (ntt_buf){out, N};
        q->bitrev_after = order == GS_ORDER_NATURAL;
    }
    if (st == GS_OK) st = execute(ps, np, cols, N, N1);
    free_passes(ps, np);
    return st;
}

gs_status gs_lde_coset(gs_fp *out, const gs_fp *in, size_t cols, unsigned log_n,
                       unsigned log_blowup, gs_fp shift, gs_order order) {
    return lde(out, in, cols, log_n, log_blowup, shift, order, 0);
}

gs_status gs_lde_coset_from_coeffs(gs_fp *out, const gs_fp *coeffs, size_t cols, unsigned log_n,
                                   unsigned log_blowup, gs_fp shift, gs_order order) {
    return lde(out, coeffs, cols, log_n, log_blowup, shift, order, 1);
}
