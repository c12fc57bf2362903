/* The CPU backend: buffers are host memory; bulk operations run on
 * gs_parallel_for over blocks of rows. Every row's result depends only on its
 * inputs, never on the split, so any thread count gives the same bytes. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "field/inv_lin.h"
#include "gstark/merkle.h"
#include "gstark/ntt.h"
#include "gstark/parallel.h"
#include "merkle/merkle_internal.h"
#include "util/pages.h"

#define BLOCK GS_AIR_BLOCK /* rows per block in the row-wise kernels */

/* Buffers are pages of their own (util/pages.h): freed, they leave the
 * process, so RSS follows what the accountant charges. */
static gs_status cpu_alloc(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes) {
    (void)be;
    out->ptr = gs_pages_alloc(bytes);
    out->bytes = bytes;
    out->acct = acct;
    if (!out->ptr) return GS_ERR_NOMEM;
    gs_mem_charge(acct, bytes);
    return GS_OK;
}

static void cpu_free(gs_backend *be, gs_buf *buf) {
    (void)be;
    if (buf->ptr) gs_mem_uncharge(buf->acct, buf->bytes);
    gs_pages_free(buf->ptr);
    buf->ptr = NULL;
    buf->bytes = 0;
}

static gs_status cpu_upload(gs_backend *be, gs_buf *dst, const void *src, size_t bytes) {
    (void)be;
    if (bytes > dst->bytes) return GS_ERR_INVALID_ARG;
    memcpy(dst->ptr, src, bytes);
    return GS_OK;
}

static gs_status cpu_copy(gs_backend *be, gs_buf *dst, size_t dst_off, const gs_buf *src,
                          size_t src_off, size_t n, unsigned log_step) {
    (void)be;
    size_t e = sizeof(gs_fp);
    if (n == 0) return GS_OK;
    if (!gs_copy_fits(dst, dst_off, src, src_off, n, log_step)) return GS_ERR_INVALID_ARG;
    gs_fp *d = (gs_fp *)dst->ptr + dst_off;
    const gs_fp *s = (const gs_fp *)src->ptr + src_off;
    if (log_step == 0) memcpy(d, s, n * e);
    else
        for (size_t i = 0; i < n; i++) d[i] = s[i << log_step];
    return GS_OK;
}

static gs_status cpu_interpolate(gs_backend *be, gs_buf *v, size_t cols, unsigned log_n,
                                 gs_fp shift) {
    (void)be;
    if (shift == 1) return gs_ntt_inverse_batch(v->ptr, cols, log_n);
    return gs_ntt_inverse_coset_batch(v->ptr, cols, log_n, shift);
}

static gs_status cpu_lde(gs_backend *be, gs_buf *out, const gs_buf *coeffs, size_t cols,
                         unsigned log_n, unsigned log_blowup, gs_fp shift) {
    (void)be;
    return gs_lde_coset_from_coeffs(out->ptr, coeffs->ptr, cols, log_n, log_blowup, shift,
                                    GS_ORDER_NATURAL);
}

/* A CPU commitment: the tree, what it is charged to, and the matrix it was
 * committed from (the backend interface keeps a committed matrix alive and
 * unchanged until its tree is freed), from which an opening hashes the
 * levels the tree does not keep (gs_merkle_skip_cpu). */
struct gs_bcommit {
    gs_merkle_tree *tree;
    gs_mem *acct;
    size_t bytes;
    const gs_fp *m;
    size_t cols, col_stride;
};

static gs_status cpu_commit(gs_backend *be, gs_mem *acct, gs_bcommit **out, gs_hash_id hash,
                            const gs_buf *m, size_t cols, size_t col_stride, unsigned log_rows) {
    (void)be;
    gs_bcommit *c = malloc(sizeof *c);
    if (!c) return GS_ERR_NOMEM;
    gs_status s = gs_merkle_commit_skip(&c->tree, hash, m->ptr, cols, col_stride, log_rows,
                                        gs_merkle_skip_cpu(cols, log_rows));
    if (s != GS_OK) {
        free(c);
        return s;
    }
    c->acct = acct;
    c->bytes = gs_merkle_tree_bytes_skip(log_rows, gs_merkle_skip(c->tree));
    c->m = m->ptr, c->cols = cols, c->col_stride = col_stride;
    gs_mem_charge(acct, c->bytes);
    *out = c;
    return GS_OK;
}

static gs_status cpu_cap(gs_backend *be, const gs_bcommit *c, gs_digest *out, unsigned cap_log) {
    (void)be;
    return gs_merkle_cap(c->tree, out, cap_log); /* gs_merkle_node of level depth - cap_log */
}

static gs_status cpu_open(gs_backend *be, const gs_bcommit *c, gs_digest *paths,
                          const size_t *idx, size_t n) {
    (void)be;
    return gs_merkle_open_rows(c->tree, c->m, c->cols, c->col_stride, paths, idx, n);
}

static void cpu_commit_free(gs_backend *be, gs_bcommit *c) {
    (void)be;
    if (!c) return;
    gs_mem_uncharge(c->acct, c->bytes);
    gs_merkle_free(c->tree);
    free(c);
}

static gs_status cpu_row_digests(gs_backend *be, gs_buf *out, const gs_buf *m, size_t cols,
                                 size_t col_stride, unsigned log_rows, gs_hash_id hash) {
    (void)be;
    if (log_rows >= 8 * sizeof(size_t) || !gs_rows_fit(m, cols, col_stride, (size_t)1 << log_rows) ||
        out->bytes >> log_rows < sizeof(gs_digest))
        return GS_ERR_INVALID_ARG;
    return gs_merkle_row_digests(hash, out->ptr, m->ptr, cols, col_stride, log_rows);
}

/* Every buffer is host memory here, this backend's or not. */
static gs_status cpu_mixed_build(gs_backend *be, gs_mem *acct, gs_mixed_tree **out, gs_hash_id hash,
                                 const gs_buf *const *rowd, const unsigned *log_rows, uint32_t n,
                                 unsigned skip) {
    (void)be;
    const gs_digest **rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) return GS_ERR_NOMEM;
    unsigned depth = 0;
    for (uint32_t t = 0; t < n; t++) {
        int fits = log_rows[t] <= GS_MIXED_MAX_DEPTH && rowd[t]->bytes >> log_rows[t] >= sizeof(gs_digest);
        rows[t] = fits ? rowd[t]->ptr : NULL; /* NULL: the build refuses */
        if (log_rows[t] > depth) depth = log_rows[t];
    }
    size_t scratch = gs_mixed_build_scratch(depth, skip);
    gs_mem_charge(acct, scratch);
    gs_status r = gs_mixed_build_skip(out, hash, rows, log_rows, n, skip);
    gs_mem_uncharge(acct, scratch);
    free(rows);
    return r;
}

static gs_status cpu_gather(gs_backend *be, gs_fp *out, const gs_buf *m, size_t cols,
                            size_t col_stride, const size_t *idx, size_t n) {
    (void)be;
    const gs_fp *p = m->ptr;
    size_t elems = m->bytes / sizeof(gs_fp);
    for (size_t k = 0; k < n; k++)
        for (size_t c = 0; c < cols; c++) {
            size_t at = c * col_stride + idx[k];
            if (at >= elems) return GS_ERR_INVALID_ARG;
            out[k * cols + c] = p[at];
        }
    return GS_OK;
}

/* ---- quotient ---- */

typedef struct {
    const gs_quotient_args *a;
    const gs_fp *lde, *aux;
    gs_fp *out;
    size_t N;
    gs_fp wN, wlast;       /* w_N; w_n^(n-1) */
    gs_fp3 sigma_n;        /* with LogUp: sigma / n, the running sum's step */
    gs_fp *zinv;           /* 1 / (x^n - 1) for the B values x^n takes */
    uint32_t n_groups;     /* distinct boundary rows */
    gs_fp *group_point;    /* w_n^row per group */
    uint32_t *bound_group; /* group of each boundary */
    atomic_int err;        /* a gs_status; any worker may set it */
} quot_ctx;

/* out[r] = sum_k w[k] v[k stride + r step] for r < count (w in Fp3, v in
 * Fp): each component's 128-bit products summed unreduced in la (3 count
 * accumulators) and reduced once (field.h's gs_fp_acc_): the same values
 * as reducing and adding every product. */
static void lazy_sum(gs_fp3 *out, gs_fp_acc_ *la, const gs_fp3 *w, const gs_fp *v, size_t stride,
                     size_t step, size_t nk, size_t count) {
    for (size_t i = 0; i < 3 * count; i++) la[i] = (gs_fp_acc_){0, 0};
    for (size_t k = 0; k < nk; k++) {
        const gs_fp *vk = v + k * stride;
        for (int c = 0; c < 3; c++) {
            uint64_t wc = w[k].c[c];
            gs_fp_acc_ *lc = la + (size_t)c * count;
            for (size_t r = 0; r < count; r++) gs_fp_acc_add_(&lc[r], (unsigned __int128)wc * vk[r * step]);
        }
    }
    for (size_t r = 0; r < count; r++)
        out[r] = gs_fp3_make(gs_fp_acc_done_(la[r]), gs_fp_acc_done_(la[count + r]),
                             gs_fp_acc_done_(la[2 * count + r]));
}

/* Batch inverse of count Fp values with no zeros (x is never in the trace
 * domain on the coset), Montgomery's trick. */
static void inv_block(gs_fp *v, gs_fp *tmp, size_t count) {
    gs_fp acc = 1;
    for (size_t r = 0; r < count; r++) tmp[r] = acc, acc = gs_fp_mul(acc, v[r]);
    acc = gs_fp_inv(acc);
    for (size_t r = count; r-- > 0;) {
        gs_fp x = v[r];
        v[r] = gs_fp_mul(acc, tmp[r]);
        acc = gs_fp_mul(acc, x);
    }
}

/* 1/(x - z) = (x^2 + A x + B) * minv, with x2 = x^2 and minv = 1/m(x)
 * (field/inv_lin.h). */
static gs_fp3 inv_lin_apply(const gs_inv_lin *l, gs_fp x, gs_fp x2, gs_fp minv) {
    return gs_fp3_mul_fp(gs_inv_lin_quad(l, x, x2), minv);
}

/* A block's rows: the count rows (j0 + r) << log_step of the LDE (r <
 * count), read from m (`rows` per column) at mstart + r, their next rows
 * next_step further on. */
typedef struct {
    const gs_fp *m;
    size_t rows, next_step, mstart, j0, count;
} quot_rows;

/* The LogUp constraints of a block, added to acc: every one over x^n - 1,
 * through gs_logup_constraints_fp (base-field inputs; tested equal to the
 * verifier's gs_logup_constraints). */
static gs_status quot_logup(quot_ctx *q, void *scratch, gs_fp3 *acc, const quot_rows *br) {
    const gs_quotient_args *a = q->a;
    const gs_logup *L = a->logup;
    uint32_t base = gs_air_num_transitions(a->air) + gs_air_num_boundaries(a->air), A = L->aux_cols;
    size_t B = (size_t)1 << a->log_blowup, N = q->N;
    size_t count = br->count;
    gs_fp *io = malloc(((size_t)L->n_outs + 1) * count * sizeof *io);
    gs_fp3 *cur = malloc(((size_t)A + 1) * sizeof *cur), *nxt = malloc(((size_t)A + 1) * sizeof *nxt);
    gs_fp3 *grp = malloc(((size_t)L->n_groups + 1) * sizeof *grp);
    gs_status s = io && cur && nxt && grp ? GS_OK : GS_ERR_NOMEM;
    if (s == GS_OK) s = gs_air_eval_inter_block(a->air, scratch, io, br->m, br->rows, br->mstart, count, a->pub);
    if (s == GS_OK) {
        const gs_fp3 *ap = a->alpha_pows + base;
        for (size_t r = 0; r < count; r++) {
            size_t i = (br->j0 + r) << a->log_step, in = (i + B) & (N - 1);
            for (uint32_t j = 0; j < A; j++) {
                const gs_fp *col = q->aux + (size_t)3 * j * N;
                cur[j] = gs_fp3_make(col[i], col[N + i], col[2 * N + i]);
                nxt[j] = gs_fp3_make(col[in], col[N + in], col[2 * N + in]);
            }
            gs_fp3 g = gs_fp3_zero();
            gs_logup_constraints_fp(L, a->air, grp, io + r, count, cur, nxt, a->bus_z, a->bus_alpha_pows,
                                    q->sigma_n);
            for (uint32_t k = 0; k < L->n_groups; k++) g = gs_fp3_add(g, gs_fp3_mul(ap[k], grp[k]));
            acc[r] = gs_fp3_add(acc[r], gs_fp3_mul_fp(g, q->zinv[i & (B - 1)]));
        }
    }
    free(io), free(cur), free(nxt), free(grp);
    return s;
}

/* The rows a block needs when only every 2^log_step-th row is evaluated:
 * output rows j0 .. j0 + count - 1 and their next rows (B >> log_step
 * further, mod N >> log_step) gathered into g (GR rows per column). */
#define GR (2 * BLOCK)
static void quot_gather(gs_fp *g, const quot_ctx *q, size_t j0, size_t count) {
    const gs_quotient_args *a = q->a;
    size_t n_out = q->N >> a->log_step, span = count + (((size_t)1 << a->log_blowup) >> a->log_step);
    uint32_t cols = gs_air_num_cols(a->air);
    for (uint32_t c = 0; c < cols; c++) {
        const gs_fp *col = q->lde + (size_t)c * q->N;
        gs_fp *d = g + (size_t)c * GR;
        for (size_t r = 0; r < span; r++) d[r] = col[((j0 + r) & (n_out - 1)) << a->log_step];
    }
}

static void quot_range(void *arg, size_t b, size_t e) {
    quot_ctx *q = arg;
    const gs_quotient_args *a = q->a;
    uint32_t nt = gs_air_num_transitions(a->air), nb = gs_air_num_boundaries(a->air);
    size_t B = (size_t)1 << a->log_blowup, step = (size_t)1 << a->log_step, n_out = q->N >> a->log_step;
    void *scratch = malloc(gs_air_scratch_size(a->air));
    gs_fp *cons = malloc(((size_t)nt + 1) * BLOCK * sizeof *cons);
    gs_fp *x = malloc(BLOCK * sizeof *x), *d = malloc(BLOCK * sizeof *d), *tmp = malloc(BLOCK * sizeof *tmp);
    gs_fp3 *acc = malloc(BLOCK * sizeof *acc), *gacc = malloc(BLOCK * sizeof *gacc);
    gs_fp_acc_ *la = malloc(3 * BLOCK * sizeof *la);
    /* Strided (log_step > 0): the block's rows gathered (count + B / step <= GR). */
    gs_fp *g = a->log_step ? malloc((size_t)gs_air_num_cols(a->air) * GR * sizeof *g) : NULL;
    if (!scratch || !cons || !x || !d || !tmp || !acc || !gacc || !la || (a->log_step && !g)) {
        atomic_store(&q->err, GS_ERR_NOMEM);
        goto done;
    }
    for (size_t blk = b; blk < e; blk++) {
        size_t j0 = blk * BLOCK, count = n_out - j0 < BLOCK ? n_out - j0 : BLOCK;
        quot_rows br = {q->lde, q->N, B, j0, j0, count};
        if (g) {
            quot_gather(g, q, j0, count);
            br = (quot_rows){g, GR, B >> a->log_step, 0, j0, count};
        }
        gs_status s = GS_OK;
        if (nt) s = gs_air_eval_block(a->air, scratch, cons, br.m, br.rows, br.next_step, br.mstart, count, a->pub);
        if (s != GS_OK) {
            atomic_store(&q->err, s);
            break;
        }
        gs_fp xi = gs_fp_mul(a->shift, gs_fp_pow(q->wN, j0 << a->log_step)), wstep = gs_fp_pow(q->wN, step);
        for (size_t r = 0; r < count; r++) x[r] = xi, xi = gs_fp_mul(xi, wstep);
        /* Transitions: sum_k alpha^k C_k * (x - w^(n-1)) / (x^n - 1), the
         * sum's products added unreduced (lazy_sum). */
        lazy_sum(acc, la, a->alpha_pows, cons, count, 1, nt, count);
        for (size_t r = 0; r < count; r++) {
            gs_fp f = gs_fp_mul(gs_fp_sub(x[r], q->wlast), q->zinv[((j0 + r) << a->log_step) & (B - 1)]);
            acc[r] = gs_fp3_mul_fp(acc[r], f);
        }
        /* Boundaries, one division per distinct row. */
        for (uint32_t grp = 0; grp < q->n_groups; grp++) {
            for (size_t r = 0; r < count; r++) d[r] = gs_fp_sub(x[r], q->group_point[grp]);
            inv_block(d, tmp, count);
            for (size_t r = 0; r < count; r++) gacc[r] = gs_fp3_zero();
            for (uint32_t i = 0; i < nb; i++) {
                if (q->bound_group[i] != grp) continue;
                gs_fp3 al = a->alpha_pows[nt + i];
                const gs_fp *col = br.m + (size_t)a->bound_cols[i] * br.rows + br.mstart;
                for (size_t r = 0; r < count; r++)
                    gacc[r] = gs_fp3_add(gacc[r], gs_fp3_mul_fp(al, gs_fp_sub(col[r], a->bound_vals[i])));
            }
            for (size_t r = 0; r < count; r++) acc[r] = gs_fp3_add(acc[r], gs_fp3_mul_fp(gacc[r], d[r]));
        }
        if (a->logup) {
            gs_status s2 = quot_logup(q, scratch, acc, &br);
            if (s2 != GS_OK) {
                atomic_store(&q->err, s2);
                break;
            }
        }
        for (size_t r = 0; r < count; r++)
            for (int c = 0; c < 3; c++) q->out[(size_t)c * n_out + j0 + r] = acc[r].c[c];
    }
done:
    free(scratch), free(cons), free(x), free(d), free(tmp), free(acc), free(gacc), free(la), free(g);
}

static gs_status cpu_quotient(gs_backend *be, gs_buf *out, const gs_buf *lde,
                              const gs_buf *aux_lde, const gs_quotient_args *a) {
    (void)be;
    size_t n = (size_t)1 << a->log_n, B = (size_t)1 << a->log_blowup, N = n * B;
    uint32_t nb = gs_air_num_boundaries(a->air);
    if (a->log_step > a->log_blowup || out->bytes < 3 * (N >> a->log_step) * sizeof(gs_fp) ||
        (a->log_step && BLOCK + (B >> a->log_step) > GR))
        return GS_ERR_INVALID_ARG;
    if (a->logup && (!aux_lde || aux_lde->bytes < 3 * (size_t)a->logup->aux_cols * N * sizeof(gs_fp)))
        return GS_ERR_INVALID_ARG;
    quot_ctx q = {a, lde->ptr, aux_lde ? aux_lde->ptr : NULL, out->ptr, N, gs_fp_root_of_unity(a->log_n + a->log_blowup),
                  gs_fp_pow(gs_fp_root_of_unity(a->log_n), n - 1),
                  a->logup ? gs_logup_sigma_n(a->sigma, a->log_n) : gs_fp3_zero(), NULL, 0, NULL, NULL, GS_OK};
    gs_status err = GS_OK;
    q.zinv = malloc(B * sizeof *q.zinv);
    q.group_point = malloc((nb + 1) * sizeof *q.group_point);
    q.bound_group = malloc((nb + 1) * sizeof *q.bound_group);
    if (!q.zinv || !q.group_point || !q.bound_group) {
        err = GS_ERR_NOMEM;
        goto out;
    }
    /* x^n over the coset: shift^n * w_B^j, j = i mod B. */
    gs_fp sn = gs_fp_pow(a->shift, n), wB = gs_fp_root_of_unity(a->log_blowup), t = sn;
    for (size_t j = 0; j < B; j++) q.zinv[j] = gs_fp_sub(t, 1), t = gs_fp_mul(t, wB);
    err = gs_fp_batch_inv(q.zinv, q.zinv, B);
    for (uint32_t i = 0; i < nb && err == GS_OK; i++) {
        gs_fp pt = gs_fp_pow(gs_fp_root_of_unity(a->log_n), a->bound_rows[i]);
        uint32_t g = 0;
        while (g < q.n_groups && q.group_point[g] != pt) g++;
        if (g == q.n_groups) q.group_point[q.n_groups++] = pt;
        q.bound_group[i] = g;
    }
    if (err == GS_OK) {
        atomic_init(&q.err, GS_OK);
        gs_parallel_for(((N >> a->log_step) + BLOCK - 1) / BLOCK, 16, quot_range, &q);
        err = (gs_status)atomic_load(&q.err);
    }
out:
    free(q.zinv), free(q.group_point), free(q.bound_group);
    return err;
}

static gs_status cpu_logup_aux(gs_backend *be, gs_buf *aux, gs_fp3 *sigma, const gs_logup *L,
                               const gs_air *air, const gs_fp *trace, const gs_buf *evals,
                               unsigned log_n, const gs_fp *pub, gs_fp3 z, gs_fp3 alpha) {
    (void)be;
    if (evals) trace = evals->ptr; /* the same values */
    if (aux->bytes < 3 * (size_t)L->aux_cols * ((size_t)1 << log_n) * sizeof(gs_fp))
        return GS_ERR_INVALID_ARG;
    return gs_logup_aux_trace(aux->ptr, sigma, L, air, trace, log_n, pub, z, alpha);
}

/* ---- out-of-domain evaluation ----
 * All columns are evaluated at the same point: by blocks of coefficients,
 * each block's powers x^i built once (from x^start) into a small table that
 * serves every column, each column's block a dot product: three Fp products
 * per coefficient (lazy_sum: added unreduced, one reduction per block and
 * component) instead of a full Fp3 product in Horner, and no table as long
 * as the trace (192 MiB at 2^23 rows). The blocks' sums are exact, so
 * adding them up in any order gives the same value. */

#define EVAL_BLOCK 4096

typedef struct {
    gs_fp3 *partial; /* [block * cols + col] */
    const gs_fp *coeffs;
    size_t len, cols;
    gs_fp3 x;
    atomic_int err;
} eval_ctx;

static void eval_range(void *arg, size_t b, size_t e) {
    eval_ctx *c = arg;
    gs_fp3 *pw = malloc(EVAL_BLOCK * sizeof *pw);
    if (!pw) {
        atomic_store(&c->err, GS_ERR_NOMEM);
        return;
    }
    for (size_t blk = b; blk < e; blk++) {
        size_t start = blk * EVAL_BLOCK, count = c->len - start < EVAL_BLOCK ? c->len - start : EVAL_BLOCK;
        gs_fp3 p = gs_fp3_pow(c->x, start);
        for (size_t r = 0; r < count; r++) pw[r] = p, p = gs_fp3_mul(p, c->x);
        for (size_t col = 0; col < c->cols; col++) { /* one dot product: lazy_sum of one row */
            gs_fp_acc_ la[3];
            lazy_sum(&c->partial[blk * c->cols + col], la, pw, c->coeffs + col * c->len + start, 1, 1, count, 1);
        }
    }
    free(pw);
}

static gs_status cpu_eval_at(gs_backend *be, gs_fp3 *out, const gs_buf *coeffs, size_t cols,
                             size_t len, gs_fp3 x) {
    (void)be;
    if (cols && len > coeffs->bytes / sizeof(gs_fp) / cols) return GS_ERR_INVALID_ARG;
    size_t nb = (len + EVAL_BLOCK - 1) / EVAL_BLOCK;
    eval_ctx c = {.coeffs = coeffs->ptr, .len = len, .cols = cols, .x = x};
    atomic_init(&c.err, GS_OK);
    if (nb && cols && !(c.partial = malloc(nb * cols * sizeof *c.partial))) return GS_ERR_NOMEM;
    if (nb && cols) gs_parallel_for(nb, 1, eval_range, &c);
    gs_status st = (gs_status)atomic_load(&c.err);
    for (size_t col = 0; st == GS_OK && col < cols; col++) {
        gs_fp3 r = gs_fp3_zero();
        for (size_t blk = 0; blk < nb; blk++) r = gs_fp3_add(r, c.partial[blk * cols + col]);
        out[col] = r;
    }
    free(c.partial);
    return st;
}

/* ---- out-of-domain evaluation from values ----
 * A polynomial p of degree < n from its values at x_j = s w_n^j (j < n, the
 * coset s<w_n>), by the barycentric formula:
 *   p(z)     = k sum_j p(x_j)     W_j,   W_j = x_j / (z - x_j),
 *   p(z w_n) = k sum_j p(x_{j+1}) W_j    (x_{j+1} / (z w_n - x_{j+1}) = W_j),
 * k = (z^n - s^n) / (n s^n), indices mod n. One set of weights serves every
 * column at both points; 1/(z - x_j) comes from inv_lin (an Fp inversion,
 * batched). Each block of points builds its weights, then every column's
 * block is a dot product (lazy_sum, as in eval_range); the blocks' exact
 * sums give the same values in any order, the same as eval_at on the
 * coefficients. */

typedef struct {
    gs_fp3 *partial; /* [(block * cols + col) * 2 + (0: at z, 1: at z w_n)] */
    const gs_fp *m;
    size_t n, cols, col_stride;
    unsigned log_step, log_n;
    int next; /* also at z w_n */
    gs_fp shift;
    gs_inv_lin l; /* 1/(x - z) */
    atomic_int err;
} evalv_ctx;

static void evalv_range(void *arg, size_t b, size_t e) {
    evalv_ctx *c = arg;
    gs_fp3 *W = malloc(EVAL_BLOCK * sizeof *W);
    gs_fp *x = malloc(EVAL_BLOCK * sizeof *x), *nm = malloc(EVAL_BLOCK * sizeof *nm);
    gs_fp *tmp = malloc(EVAL_BLOCK * sizeof *tmp);
    if (!W || !x || !nm || !tmp) {
        atomic_store(&c->err, GS_ERR_NOMEM);
        free(W), free(x), free(nm), free(tmp);
        return;
    }
    gs_fp wn = gs_fp_root_of_unity(c->log_n), step = (gs_fp)1 << c->log_step;
    for (size_t blk = b; blk < e; blk++) {
        size_t start = blk * EVAL_BLOCK, count = c->n - start < EVAL_BLOCK ? c->n - start : EVAL_BLOCK;
        gs_fp xi = gs_fp_mul(c->shift, gs_fp_pow(wn, start));
        for (size_t r = 0; r < count; r++, xi = gs_fp_mul(xi, wn)) x[r] = xi, nm[r] = gs_inv_lin_norm(&c->l, xi);
        inv_block(nm, tmp, count); /* never zero: z lies off the coset */
        for (size_t r = 0; r < count; r++) /* x / (z - x) = (-x / m(x)) (x^2 + A x + B) */
            W[r] = inv_lin_apply(&c->l, x[r], gs_fp_sqr(x[r]), gs_fp_neg(gs_fp_mul(x[r], nm[r])));
        /* The next point's values: the last one of the last block wraps to x_0. */
        size_t wrap = c->next && start + count == c->n;
        for (size_t col = 0; col < c->cols; col++) {
            const gs_fp *v = c->m + col * c->col_stride + (start << c->log_step);
            gs_fp3 *out = &c->partial[(blk * c->cols + col) * 2];
            gs_fp_acc_ la[3];
            lazy_sum(&out[0], la, W, v, step, 1, count, 1);
            if (!c->next) continue;
            lazy_sum(&out[1], la, W, v + step, step, 1, count - wrap, 1);
            if (wrap) out[1] = gs_fp3_add(out[1], gs_fp3_mul_fp(W[count - 1], c->m[col * c->col_stride]));
        }
    }
    free(W), free(x), free(nm), free(tmp);
}

static gs_status cpu_eval_values_at(gs_backend *be, gs_fp3 *out_z, gs_fp3 *out_zw, const gs_buf *m,
                                    size_t cols, size_t col_stride, unsigned log_step, unsigned log_n,
                                    gs_fp shift, gs_fp3 z) {
    (void)be;
    size_t n = (size_t)1 << log_n;
    if (!cols) return GS_OK;
    if (!gs_rows_fit(m, cols, col_stride, ((n - 1) << log_step) + 1)) return GS_ERR_INVALID_ARG;
    size_t nb = (n + EVAL_BLOCK - 1) / EVAL_BLOCK;
    evalv_ctx c = {.m = m->ptr, .n = n, .cols = cols, .col_stride = col_stride, .log_step = log_step,
                   .log_n = log_n, .next = out_zw != NULL, .shift = shift, .l = gs_inv_lin_make(z)};
    atomic_init(&c.err, GS_OK);
    if (!(c.partial = calloc(nb * cols * 2, sizeof *c.partial))) return GS_ERR_NOMEM;
    gs_parallel_for(nb, 1, evalv_range, &c);
    gs_status st = (gs_status)atomic_load(&c.err);
    /* k = (z^n - s^n) / (n s^n) */
    gs_fp sn = gs_fp_pow(shift, n);
    gs_fp3 k = gs_fp3_mul_fp(gs_fp3_sub(gs_fp3_pow(z, n), gs_fp3_from_fp(sn)),
                             gs_fp_inv(gs_fp_mul(gs_fp_from_u64(n), sn)));
    for (size_t col = 0; st == GS_OK && col < cols; col++) {
        gs_fp3 a = gs_fp3_zero(), b = gs_fp3_zero();
        for (size_t blk = 0; blk < nb; blk++) {
            a = gs_fp3_add(a, c.partial[(blk * cols + col) * 2]);
            b = gs_fp3_add(b, c.partial[(blk * cols + col) * 2 + 1]);
        }
        out_z[col] = gs_fp3_mul(k, a);
        if (out_zw) out_zw[col] = gs_fp3_mul(k, b);
    }
    free(c.partial);
    return st;
}

/* ---- DEEP ---- */

typedef struct {
    const gs_deep_args *a;
    const gs_fp *trace, *chunks, *aux;
    gs_fp *out;
    size_t N;
    gs_fp wN;
    gs_inv_lin l1, l2; /* for 1/(x - z) and 1/(x - z w) */
    atomic_int err; /* a gs_status; any worker may set it */
    /* sum_c beta^c t_c on the domain (3 Fp columns of N, in out), made
     * beforehand (deep_trace_sum), or NULL: summed row by row. */
    const gs_fp *sum;
} deep_ctx;

/* One worker's arrays for deep_block. */
typedef struct {
    gs_fp3 *s1, *s2, *d1, *d2, *tmp;
    gs_fp *x, *n1, *n2, *ftmp;
    gs_fp_acc_ *la; /* 3 BLOCK, for lazy_sum */
} deep_scratch;

static void deep_scratch_free(deep_scratch *w) {
    free(w->s1), free(w->s2), free(w->d1), free(w->d2), free(w->tmp);
    free(w->x), free(w->n1), free(w->n2), free(w->ftmp), free(w->la);
}

static int deep_scratch_new(deep_scratch *w) {
    *w = (deep_scratch){malloc(BLOCK * sizeof(gs_fp3)), malloc(BLOCK * sizeof(gs_fp3)),
                        malloc(BLOCK * sizeof(gs_fp3)), malloc(BLOCK * sizeof(gs_fp3)),
                        malloc(BLOCK * sizeof(gs_fp3)), malloc(BLOCK * sizeof(gs_fp)),
                        malloc(BLOCK * sizeof(gs_fp)), malloc(BLOCK * sizeof(gs_fp)),
                        malloc(BLOCK * sizeof(gs_fp)), malloc(3 * BLOCK * sizeof(gs_fp_acc_))};
    if (w->s1 && w->s2 && w->d1 && w->d2 && w->tmp && w->x && w->n1 && w->n2 && w->ftmp && w->la) return 1;
    deep_scratch_free(w);
    return 0;
}

/* The DEEP word at rows [start, start + count) (count <= BLOCK) into f;
 * xi = shift w^start, the first row's point. */
static void deep_block(const deep_ctx *q, deep_scratch *w, gs_fp xi, size_t start, size_t count,
                       gs_fp3 *f) {
    const gs_deep_args *a = q->a;
    gs_fp3 *s1 = w->s1, *s2 = w->s2, *d1 = w->d1, *d2 = w->d2, *tmp = w->tmp;
    gs_fp *x = w->x, *n1 = w->n1, *n2 = w->n2;
    for (size_t r = 0; r < count; r++) {
        x[r] = xi;
        n1[r] = gs_inv_lin_norm(&q->l1, xi);
        n2[r] = gs_inv_lin_norm(&q->l2, xi);
        s1[r] = gs_fp3_neg(a->k1);
        s2[r] = gs_fp3_neg(a->k2);
        xi = gs_fp_mul(xi, q->wN);
    }
    inv_block(n1, w->ftmp, count); /* never zero: z, z w lie outside the domain */
    inv_block(n2, w->ftmp, count);
    for (size_t r = 0; r < count; r++) {
        gs_fp x2 = gs_fp_sqr(x[r]);
        d1[r] = inv_lin_apply(&q->l1, x[r], x2, n1[r]);
        d2[r] = inv_lin_apply(&q->l2, x[r], x2, n2[r]);
    }
    /* sum_c beta^(C+c) t_c = beta^C sum_c beta^c t_c: one pass over the
     * columns serves both sums. */
    if (q->sum) {
        const gs_fp *s0 = q->sum + start, *s1c = s0 + q->N, *s2c = s1c + q->N;
        for (size_t r = 0; r < count; r++) tmp[r] = gs_fp3_make(s0[r], s1c[r], s2c[r]);
    } else {
        lazy_sum(tmp, w->la, a->beta_pows, q->trace + start, q->N, 1, a->cols, count);
    }
    gs_fp3 bC = a->beta_pows[a->cols];
    for (size_t r = 0; r < count; r++) {
        s1[r] = gs_fp3_add(s1[r], tmp[r]);
        s2[r] = gs_fp3_add(s2[r], gs_fp3_mul(bC, tmp[r]));
    }
    for (uint32_t j = 0; j < a->chunks; j++) {
        const gs_fp *c0 = q->chunks + (size_t)(3 * j) * q->N + start;
        const gs_fp *c1 = c0 + q->N, *c2 = c1 + q->N;
        gs_fp3 bj = a->beta_pows[2 * a->cols + j];
        for (size_t r = 0; r < count; r++)
            s1[r] = gs_fp3_add(s1[r], gs_fp3_mul(bj, gs_fp3_make(c0[r], c1[r], c2[r])));
    }
    /* The Fp3 aux columns at z and z w: their weights at z w are beta^A
     * times those at z (A = aux_cols), so one sum serves both. */
    if (a->aux_cols) {
        for (size_t r = 0; r < count; r++) tmp[r] = gs_fp3_zero();
        for (uint32_t j = 0; j < a->aux_cols; j++) {
            const gs_fp *c0 = q->aux + (size_t)(3 * j) * q->N + start;
            const gs_fp *c1 = c0 + q->N, *c2 = c1 + q->N;
            gs_fp3 b1 = a->beta_pows[2 * a->cols + a->chunks + j];
            for (size_t r = 0; r < count; r++)
                tmp[r] = gs_fp3_add(tmp[r], gs_fp3_mul(b1, gs_fp3_make(c0[r], c1[r], c2[r])));
        }
        gs_fp3 bA = a->beta_pows[a->aux_cols];
        for (size_t r = 0; r < count; r++) {
            s1[r] = gs_fp3_add(s1[r], tmp[r]);
            s2[r] = gs_fp3_add(s2[r], gs_fp3_mul(bA, tmp[r]));
        }
    }
    for (size_t r = 0; r < count; r++) f[r] = gs_fp3_add(gs_fp3_mul(s1[r], d1[r]), gs_fp3_mul(s2[r], d2[r]));
}

static void deep_range(void *arg, size_t b, size_t e) {
    deep_ctx *q = arg;
    deep_scratch w;
    gs_fp3 *f = malloc(BLOCK * sizeof *f);
    if (!f || !deep_scratch_new(&w)) {
        atomic_store(&q->err, GS_ERR_NOMEM);
        free(f);
        return;
    }
    gs_fp xi = gs_fp_mul(q->a->shift, gs_fp_pow(q->wN, b * BLOCK)), step = gs_fp_pow(q->wN, BLOCK);
    for (size_t blk = b; blk < e; blk++, xi = gs_fp_mul(xi, step)) {
        size_t start = blk * BLOCK, count = q->N - start < BLOCK ? q->N - start : BLOCK;
        deep_block(q, &w, xi, start, count, f);
        for (size_t r = 0; r < count; r++)
            for (int c = 0; c < 3; c++) q->out[(size_t)c * q->N + start + r] = f[r].c[c];
    }
    deep_scratch_free(&w);
    free(f);
}

/* deep_trace_sum's first step: column k's first n values (columns N apart)
 * = component k of sum_c beta^c t_c at the rows j B of the domain, j in the
 * range (in blocks). */
typedef struct {
    const deep_ctx *q;
    gs_fp *v;
    size_t n, B;
} coset_sum_ctx;

static void coset_sum_range(void *arg, size_t b, size_t e) {
    const coset_sum_ctx *c = arg;
    const deep_ctx *q = c->q;
    gs_fp_acc_ la[3 * BLOCK];
    gs_fp3 sum[BLOCK];
    for (size_t j0 = b * BLOCK; j0 < e * BLOCK && j0 < c->n; j0 += BLOCK) {
        size_t count = c->n - j0 < BLOCK ? c->n - j0 : BLOCK;
        lazy_sum(sum, la, q->a->beta_pows, q->trace + j0 * c->B, q->N, c->B, q->a->cols, count);
        for (int k = 0; k < 3; k++)
            for (size_t r = 0; r < count; r++) c->v[(size_t)k * q->N + j0 + r] = sum[r].c[k];
    }
}

/* Whether cpu_deep sums the trace columns on one coset and extends the sum
 * (deep_trace_sum) rather than row by row: with a blowup B (the columns'
 * degree < n = N / B, as every LDE the prover makes), n cols products and
 * an NTT of n and one of N per component instead of N cols products. Past
 * 1.5 log N columns. */
static int deep_sums_coset(const gs_deep_args *a) {
    return a->log_blowup > 0 && a->log_blowup <= a->log_size && 2 * (size_t)a->cols >= 3 * (size_t)a->log_size;
}

/* q->sum = sum_c beta^c t_c on the whole domain, made in q->out (3 columns
 * of N; DEEP then overwrites each row after reading it): the sum is a
 * polynomial of degree < n, so its values on the coset shift <w_n> (the
 * rows j B) give its coefficients (an inverse coset NTT of n in place), and
 * those its values on shift <w_N> (zero-padded, a coset NTT of N in place).
 * The same field values as the row-by-row sum; no memory besides the word. */
static gs_status deep_trace_sum(deep_ctx *q) {
    const gs_deep_args *a = q->a;
    unsigned log_n = a->log_size - a->log_blowup;
    size_t B = (size_t)1 << a->log_blowup, n = q->N / B;
    coset_sum_ctx c = {q, q->out, n, B};
    gs_parallel_for((n + BLOCK - 1) / BLOCK, 4, coset_sum_range, &c);
    for (int k = 0; k < 3; k++) {
        gs_fp *col = q->out + (size_t)k * q->N;
        GS_TRY(gs_ntt_inverse_coset_batch(col, 1, log_n, a->shift));
        memset(col + n, 0, (q->N - n) * sizeof *col);
        GS_TRY(gs_ntt_forward_coset_batch(col, 1, a->log_size, a->shift));
    }
    q->sum = q->out;
    return GS_OK;
}

/* The DEEP inputs' context (out: where deep_range writes the word, NULL for
 * deep_fold, which sums row by row); GS_ERR_INVALID_ARG when the aux columns
 * are missing. */
static gs_status deep_ctx_make(deep_ctx *q, gs_fp *out, const gs_buf *trace_lde,
                               const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a) {
    size_t N = (size_t)1 << a->log_size;
    if (a->aux_cols && (!aux_lde || aux_lde->bytes < 3 * (size_t)a->aux_cols * N * sizeof(gs_fp)))
        return GS_ERR_INVALID_ARG;
    *q = (deep_ctx){a, trace_lde->ptr, chunk_lde->ptr, aux_lde ? aux_lde->ptr : NULL, out, N,
                    gs_fp_root_of_unity(a->log_size), gs_inv_lin_make(a->z), gs_inv_lin_make(a->zw), GS_OK, NULL};
    atomic_init(&q->err, GS_OK);
    return out && deep_sums_coset(a) ? deep_trace_sum(q) : GS_OK;
}

static gs_status cpu_deep(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                          const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a) {
    (void)be;
    size_t N = (size_t)1 << a->log_size;
    if (out->bytes < 3 * N * sizeof(gs_fp)) return GS_ERR_INVALID_ARG;
    deep_ctx q;
    GS_TRY(deep_ctx_make(&q, out->ptr, trace_lde, chunk_lde, aux_lde, a));
    gs_parallel_for((N + BLOCK - 1) / BLOCK, 16, deep_range, &q);
    return (gs_status)atomic_load(&q.err);
}

/* ---- FRI fold ---- */

/* A fold by 2^a in one pass: output j reads the 2^a values j + t M (t <
 * 2^a, M the output length) of each column and folds them a times by 2 as
 * the layer's words would be, in registers. Round r pairs v[t] and
 * v[t + 2^(a-r-1)] at x = (shift w^j)^(2^r) w^(t M 2^r): x^-1 is
 * base^(2^r) rt[t 2^r mod 2^a] with base = shift^-1 w^-j and rt[k] =
 * w^(-k M). The same field operations as a fold by 2 repeated (the test
 * checks it), without the intermediate words. */
typedef struct {
    const gs_fp *in;
    gs_fp *out;
    size_t M;
    unsigned a;
    gs_fp shift_inv, w_inv, inv2;
    gs_fp3 gamma;
    gs_fp rt[1u << GS_MAX_LOG_ARITY];
} fold_ctx;

/* Output j's value from its 2^a inputs v (overwritten), base = shift^-1 w^-j. */
static gs_fp3 fold_one(const fold_ctx *f, gs_fp base, gs_fp3 *v) {
    size_t T = (size_t)1 << f->a;
    gs_fp x = base;
    gs_fp3 g = f->gamma;
    for (unsigned r = 0; r < f->a; r++) {
        size_t h = T >> (r + 1);
        for (size_t t = 0; t < h; t++) {
            gs_fp xinv = gs_fp_mul(x, f->rt[(t << r) & (T - 1)]);
            gs_fp3 lo = v[t], hi = v[t + h];
            v[t] = gs_fp3_mul_fp(gs_fp3_add(gs_fp3_add(lo, hi),
                                            gs_fp3_mul(g, gs_fp3_mul_fp(gs_fp3_sub(lo, hi), xinv))),
                                 f->inv2);
        }
        x = gs_fp_sqr(x), g = gs_fp3_sqr(g);
    }
    return v[0];
}

static void fold_range(void *arg, size_t b, size_t e) {
    fold_ctx *f = arg;
    size_t M = f->M, N = M << f->a, T = (size_t)1 << f->a;
    gs_fp base = gs_fp_mul(f->shift_inv, gs_fp_pow(f->w_inv, b));
    for (size_t j = b; j < e; j++) {
        gs_fp3 v[1u << GS_MAX_LOG_ARITY];
        for (size_t t = 0; t < T; t++)
            v[t] = gs_fp3_make(f->in[j + t * M], f->in[N + j + t * M], f->in[2 * N + j + t * M]);
        gs_fp3 o = fold_one(f, base, v);
        for (int c = 0; c < 3; c++) f->out[(size_t)c * M + j] = o.c[c];
        base = gs_fp_mul(base, f->w_inv);
    }
}

/* The fold's constants for folds a of a word of 2^log_size over shift. */
static void fold_setup(fold_ctx *f, gs_fp *out, const gs_fp *in, unsigned log_size, unsigned folds,
                       gs_fp shift, gs_fp3 gamma) {
    size_t M = (size_t)1 << (log_size - folds);
    *f = (fold_ctx){.in = in, .out = out, .M = M, .a = folds, .shift_inv = gs_fp_inv(shift),
                    .w_inv = gs_fp_inv(gs_fp_root_of_unity(log_size)), .inv2 = gs_fp_inv(2), .gamma = gamma};
    gs_fp wm = gs_fp_pow(f->w_inv, M);
    f->rt[0] = 1;
    for (size_t k = 1; k < ((size_t)1 << folds); k++) f->rt[k] = gs_fp_mul(f->rt[k - 1], wm);
}

static gs_status cpu_fold(gs_backend *be, gs_buf *out, const gs_buf *in, unsigned log_size,
                          unsigned folds, gs_fp shift, gs_fp3 gamma) {
    (void)be;
    if (folds == 0 || folds > GS_MAX_LOG_ARITY || folds > log_size || shift == 0) return GS_ERR_INVALID_ARG;
    size_t M = (size_t)1 << (log_size - folds);
    if (out->bytes / sizeof(gs_fp) / 3 < M || in->bytes / sizeof(gs_fp) / 3 < M << folds)
        return GS_ERR_INVALID_ARG;
    fold_ctx f;
    fold_setup(&f, out->ptr, in->ptr, log_size, folds, shift, gamma);
    gs_parallel_for(M, 4096 >> folds, fold_range, &f);
    return GS_OK;
}

/* ---- DEEP and the first fold in one pass ---- */

typedef struct {
    deep_ctx q;
    fold_ctx f;
} deep_fold_ctx;

/* Outputs by blocks of at most BLOCK: the DEEP word at rows j + t M of the
 * block's outputs j for each t (2^a blocks of rows), then each output's
 * fold. */
static void deep_fold_range(void *arg, size_t b, size_t e) {
    deep_fold_ctx *c = arg;
    const fold_ctx *f = &c->f;
    size_t M = f->M, T = (size_t)1 << f->a, per = BLOCK;
    deep_scratch w;
    gs_fp3 *vals = malloc(T * per * sizeof *vals);
    if (!vals || !deep_scratch_new(&w)) {
        atomic_store(&c->q.err, GS_ERR_NOMEM);
        free(vals);
        return;
    }
    gs_fp wN = c->q.wN, wM = gs_fp_pow(wN, M), step = gs_fp_pow(wN, per);
    gs_fp xb = gs_fp_mul(c->q.a->shift, gs_fp_pow(wN, b * per)); /* the block's first output's point */
    gs_fp base = gs_fp_mul(f->shift_inv, gs_fp_pow(f->w_inv, b * per));
    for (size_t blk = b; blk < e; blk++, xb = gs_fp_mul(xb, step)) {
        size_t jb = blk * per, count = M - jb < per ? M - jb : per;
        gs_fp xt = xb;
        for (size_t t = 0; t < T; t++, xt = gs_fp_mul(xt, wM))
            deep_block(&c->q, &w, xt, jb + t * M, count, vals + t * per);
        for (size_t r = 0; r < count; r++) {
            gs_fp3 v[1u << GS_MAX_LOG_ARITY];
            for (size_t t = 0; t < T; t++) v[t] = vals[t * per + r];
            gs_fp3 o = fold_one(f, base, v);
            for (int k = 0; k < 3; k++) f->out[(size_t)k * M + jb + r] = o.c[k];
            base = gs_fp_mul(base, f->w_inv);
        }
    }
    deep_scratch_free(&w);
    free(vals);
}

static gs_status cpu_deep_fold(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                               const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a,
                               unsigned folds, gs_fp3 gamma) {
    (void)be;
    size_t N = (size_t)1 << a->log_size;
    if (folds == 0 || folds > GS_MAX_LOG_ARITY || folds > a->log_size || a->shift == 0 ||
        out->bytes / sizeof(gs_fp) / 3 < N >> folds)
        return GS_ERR_INVALID_ARG;
    deep_fold_ctx c;
    GS_TRY(deep_ctx_make(&c.q, NULL, trace_lde, chunk_lde, aux_lde, a));
    fold_setup(&c.f, out->ptr, NULL, a->log_size, folds, a->shift, gamma);
    gs_parallel_for((c.f.M + BLOCK - 1) / BLOCK, 16 >> folds, deep_fold_range, &c);
    return (gs_status)atomic_load(&c.q.err);
}

typedef struct {
    gs_fp *dst;
    const gs_fp *src;
    size_t dst_rows, src_rows;
    gs_fp3 c;
} add_ctx;

static void add_range(void *arg, size_t b, size_t e) {
    const add_ctx *a = arg;
    for (size_t i = b; i < e; i++) {
        gs_fp3 s = gs_fp3_make(a->src[i], a->src[a->src_rows + i], a->src[2 * a->src_rows + i]);
        gs_fp3 d = gs_fp3_make(a->dst[i], a->dst[a->dst_rows + i], a->dst[2 * a->dst_rows + i]);
        d = gs_fp3_add(d, gs_fp3_mul(a->c, s));
        for (int k = 0; k < 3; k++) a->dst[k * a->dst_rows + i] = d.c[k];
    }
}

static gs_status cpu_add_scaled(gs_backend *be, gs_buf *dst, size_t dst_rows, const gs_buf *src,
                                size_t src_rows, size_t len, gs_fp3 c) {
    (void)be;
    if (!dst || !src || len > dst_rows || len > src_rows ||
        dst->bytes / sizeof(gs_fp) / 3 < dst_rows || src->bytes / sizeof(gs_fp) / 3 < src_rows)
        return GS_ERR_INVALID_ARG;
    add_ctx a = {.dst = dst->ptr, .src = src->ptr, .dst_rows = dst_rows, .src_rows = src_rows, .c = c};
    gs_parallel_for(len, 4096, add_range, &a);
    return GS_OK;
}

static gs_status cpu_grind(gs_backend *be, gs_transcript *t, unsigned bits, uint64_t *nonce) {
    (void)be;
    return gs_transcript_grind(t, bits, nonce);
}

static void cpu_destroy(gs_backend *be) { (void)be; }

static const gs_backend_iface cpu_iface = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_upload,
    .copy = cpu_copy,
    .interpolate = cpu_interpolate,
    .lde = cpu_lde,
    .deep_fold = cpu_deep_fold,
    .commit = cpu_commit,
    .cap = cpu_cap,
    .open = cpu_open,
    .commit_free = cpu_commit_free,
    .gather = cpu_gather,
    .row_digests = cpu_row_digests,
    .mixed_build = cpu_mixed_build,
    .logup_aux = cpu_logup_aux,
    .quotient = cpu_quotient,
    .eval_at = cpu_eval_at,
    .eval_values_at = cpu_eval_values_at,
    .deep = cpu_deep,
    .fold = cpu_fold,
    .add_scaled = cpu_add_scaled,
    .grind = cpu_grind,
    .destroy = cpu_destroy,
};

gs_backend *gs_backend_cpu(void) {
    static gs_backend cpu = {.iface = &cpu_iface, .ctx = NULL};
    return &cpu;
}
