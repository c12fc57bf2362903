/* LogUp aux trace and constraints (see logup.h for the definitions). The
 * fingerprint, the signed multiplicity and the constraints are those of
 * logup_eval.h, which the device code (src/cuda/quotient.cu) shares. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "air/logup.h"
#include "gstark/parallel.h"

void gs_logup_free(gs_logup *L) {
    free(L->group_first), free(L->group_size), free(L->out_off);
    memset(L, 0, sizeof *L);
}

/* An interaction's fingerprint degree (its values') and multiplicity degree. */
static void inter_degrees(const gs_air *air, const gs_air_inter *in, unsigned *dd, unsigned *dm) {
    unsigned d = 0;
    for (uint32_t k = 0; k < in->width; k++)
        if (air->nodes[in->values[k]].degree > d) d = air->nodes[in->values[k]].degree;
    *dd = d;
    *dm = air->nodes[in->mult].degree;
}

/* The degree of the constraint of a group of interactions first..first+size-1:
 * h prod_i d_i - sum_i s_i m_i prod_(j != i) d_j has degree
 * max(1 + sum_i dd_i, max_i (dm_i + sum_(j != i) dd_j)). */
static unsigned group_degree(const gs_air *air, uint32_t first, uint32_t size) {
    unsigned sum = 0, dd[GS_LOGUP_MAX_GROUP], dm[GS_LOGUP_MAX_GROUP];
    for (uint32_t k = 0; k < size; k++) {
        inter_degrees(air, &air->inters[first + k], &dd[k], &dm[k]);
        sum += dd[k];
    }
    unsigned deg = 1 + sum;
    for (uint32_t k = 0; k < size; k++)
        if (dm[k] + sum - dd[k] > deg) deg = dm[k] + sum - dd[k];
    return deg;
}

gs_status gs_logup_check_widths(const gs_air *const *airs, uint32_t n) {
    size_t total = 0, seen = 0;
    for (uint32_t t = 0; t < n; t++) total += airs[t]->n_inters;
    if (!total) return GS_OK;
    uint32_t(*bw)[2] = malloc(total * sizeof *bw); /* (bus, width) pairs met so far */
    if (!bw) return GS_ERR_NOMEM;
    gs_status r = GS_OK;
    for (uint32_t t = 0; r == GS_OK && t < n; t++)
        for (uint32_t i = 0; r == GS_OK && i < airs[t]->n_inters; i++) {
            const gs_air_inter *it = &airs[t]->inters[i];
            size_t k = 0;
            while (k < seen && bw[k][0] != it->bus) k++;
            if (k == seen) bw[seen][0] = it->bus, bw[seen][1] = it->width, seen++;
            else if (bw[k][1] != it->width) r = GS_ERR_AIR;
        }
    free(bw);
    return r;
}

gs_status gs_logup_layout(gs_logup *L, const gs_air *air) {
    memset(L, 0, sizeof *L);
    if (!air) return GS_ERR_INVALID_ARG; /* also called by gs_air_finalize itself */
    uint32_t n = air->n_inters;
    L->n_inters = n;
    L->group_first = malloc((n + 1) * sizeof *L->group_first);
    L->group_size = malloc((n + 1) * sizeof *L->group_size);
    L->out_off = malloc((n + 1) * sizeof *L->out_off);
    if (!L->group_first || !L->group_size || !L->out_off) {
        gs_logup_free(L);
        return GS_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        L->out_off[i] = L->n_outs;
        L->n_outs += 1 + air->inters[i].width;
    }
    /* Groups in declaration order, each as long as its constraint's degree
     * stays within the budget: the transitions' own degree, and at least 3
     * (a pair of linear interactions), so that the bus never raises the
     * composition degree beyond what a pair did. An interaction whose
     * constraint alone exceeds the budget stands alone. */
    unsigned budget = 3;
    for (uint32_t i = 0; i < air->n_trans; i++)
        if (air->nodes[air->trans[i]].degree > budget) budget = air->nodes[air->trans[i]].degree;
    for (uint32_t i = 0; i < n;) {
        uint32_t g = L->n_groups++, size = 1;
        unsigned deg = group_degree(air, i, 1);
        while (size < GS_LOGUP_MAX_GROUP && i + size < n) {
            unsigned d = group_degree(air, i, size + 1);
            if (d > budget) break;
            deg = d, size++;
        }
        L->group_first[g] = i;
        L->group_size[g] = size;
        i += size;
        if (deg > L->max_degree) L->max_degree = deg;
    }
    L->aux_cols = L->n_groups; /* the last group's h lives in S (logup.h) */
    return GS_OK;
}

/* One row for the shared LogUp definition (logup_eval.h), in two forms:
 * Fp3 interaction outputs at one point (the verifier at z) and base-field
 * outputs `stride` apart (the prover's rows, in the block interpreter's
 * layout). groups receives the group constraints (NULL when only the
 * fingerprints and multiplicities are used). */
typedef struct {
    const gs_logup *L;
    const gs_air *air;
    gs_fp3 z;
    const gs_fp3 *ap; /* alpha^0 .. alpha^GS_AIR_MAX_TUPLE */
    const gs_fp3 *outs, *cur, *next;
    gs_fp3 *groups;
} lu_ext_row;

typedef struct {
    const gs_logup *L;
    const gs_air *air;
    gs_fp3 z;
    const gs_fp3 *ap;
    const gs_fp *outs;
    size_t stride;
    const gs_fp3 *cur, *next;
    gs_fp3 *groups;
} lu_fp_row;

#define GS_LU_NAME(x) lu_ext_##x
#define GS_LU_QUAL static inline
#define GS_LU_CTX lu_ext_row
#define GS_LU_V gs_fp3
#define GS_LU_MUL(x, v) gs_fp3_mul(x, v)
#define GS_LU_NEG(v) gs_fp3_neg(v)
#define GS_LU_LIFT(v) (v)
#define GS_LU_OUT(c, k) ((c)->outs[k])
#define GS_LU_GROUPS(c) ((c)->L->n_groups)
#define GS_LU_FIRST(c, g) ((c)->L->group_first[g])
#define GS_LU_SIZE(c, g) ((c)->L->group_size[g])
#define GS_LU_OFF(c, i) ((c)->L->out_off[i])
#define GS_LU_WIDTH(c, i) ((c)->air->inters[i].width)
#define GS_LU_RECEIVES(c, i) ((c)->air->inters[i].sign < 0)
#define GS_LU_BUS(c, i) gs_fp_from_u64((c)->air->inters[i].bus)
#define GS_LU_Z(c) ((c)->z)
#define GS_LU_AP(c, k) ((c)->ap[k])
#define GS_LU_AUX(c, j) ((c)->cur[j])
#define GS_LU_AUX_NEXT(c, j) ((c)->next[j])
#define GS_LU_GROUP(c, g, v) ((c)->groups[g] = (v))
#include "air/logup_eval.h"

/* sum_(k < w) alpha^(k+1) v_(at + k) with the products added unreduced (the
 * outputs and alpha's powers are canonical) and one reduction per component. */
static inline gs_fp3 lu_fp_dot(const lu_fp_row *c, uint32_t at, uint32_t w) {
    gs_fp3_acc_ s = gs_fp3_acc_zero_();
    for (uint32_t k = 0; k < w; k++) gs_fp3_acc_mul_fp_(&s, c->ap[k + 1], c->outs[(size_t)(at + k) * c->stride]);
    return gs_fp3_acc_done_(&s);
}

#define GS_LU_NAME(x) lu_fp_##x
#define GS_LU_QUAL static inline
#define GS_LU_CTX lu_fp_row
#define GS_LU_V gs_fp
#define GS_LU_MUL(x, v) gs_fp3_mul_fp(x, v)
#define GS_LU_NEG(v) gs_fp_neg(v)
#define GS_LU_LIFT(v) gs_fp3_from_fp(v)
#define GS_LU_OUT(c, k) ((c)->outs[(size_t)(k) * (c)->stride])
#define GS_LU_GROUPS(c) ((c)->L->n_groups)
#define GS_LU_FIRST(c, g) ((c)->L->group_first[g])
#define GS_LU_SIZE(c, g) ((c)->L->group_size[g])
#define GS_LU_OFF(c, i) ((c)->L->out_off[i])
#define GS_LU_WIDTH(c, i) ((c)->air->inters[i].width)
#define GS_LU_RECEIVES(c, i) ((c)->air->inters[i].sign < 0)
#define GS_LU_BUS(c, i) gs_fp_from_u64((c)->air->inters[i].bus)
#define GS_LU_Z(c) ((c)->z)
#define GS_LU_AP(c, k) ((c)->ap[k])
#define GS_LU_AUX(c, j) ((c)->cur[j])
#define GS_LU_AUX_NEXT(c, j) ((c)->next[j])
#define GS_LU_GROUP(c, g, v) ((c)->groups[g] = (v))
#define GS_LU_DOT(c, at, w) lu_fp_dot(c, at, w)
#include "air/logup_eval.h"

typedef struct {
    const gs_logup *L;
    const gs_air *air;
    const gs_fp *trace, *pub;
    size_t n;
    gs_fp3 z, ap[GS_AIR_MAX_TUPLE + 1];
    gs_fp *aux;
    gs_fp3 *block_sums; /* per block: sum over its rows of sum_g h_g */
    gs_fp3 sigma_n;     /* sigma / n, for pass 2 */
    atomic_int err;     /* a gs_status; any worker may set it */
} aux_ctx;

static void put3(gs_fp *aux, size_t n, uint32_t col, size_t row, gs_fp3 v) {
    for (int c = 0; c < 3; c++) aux[((size_t)3 * col + c) * n + row] = v.c[c];
}

static gs_fp3 get3(const gs_fp *aux, size_t n, uint32_t col, size_t row) {
    const gs_fp *p = aux + (size_t)3 * col * n + row;
    return gs_fp3_make(p[0], p[n], p[2 * n]);
}

/* Pass 1 over blocks of rows: fingerprints, one batch inversion per block,
 * the h_g columns and each block's total. */
static void aux_range(void *arg, size_t b, size_t e) {
    aux_ctx *c = arg;
    const gs_logup *L = c->L;
    const gs_air *air = c->air;
    size_t B = GS_AIR_BLOCK, ni = L->n_inters;
    void *scratch = malloc(gs_air_scratch_size(air));
    gs_fp *outs = malloc((L->n_outs + 1) * B * sizeof *outs);
    gs_fp3 *d = malloc((ni * B + 1) * sizeof *d);
    if (!scratch || !outs || !d) {
        atomic_store(&c->err, GS_ERR_NOMEM);
        goto done;
    }
    for (size_t blk = b; blk < e; blk++) {
        size_t start = blk * B, count = c->n - start < B ? c->n - start : B;
        gs_status s = gs_air_eval_inter_block(air, scratch, outs, c->trace, c->n, start, count, c->pub);
        if (s != GS_OK) {
            atomic_store(&c->err, s);
            break;
        }
        for (size_t i = 0; i < ni; i++)
            for (size_t r = 0; r < count; r++) {
                lu_fp_row row = {.L = L, .air = air, .z = c->z, .ap = c->ap, .outs = outs + r,
                                 .stride = count};
                d[i * count + r] = lu_fp_fingerprint(&row, (uint32_t)i);
            }
        for (size_t k = 0; k < ni * count; k++)
            if (gs_fp3_is_zero(d[k])) atomic_store(&c->err, GS_ERR_EXHAUSTED);
        if (gs_fp3_batch_inv(d, d, ni * count) != GS_OK) atomic_store(&c->err, GS_ERR_NOMEM);
        gs_fp3 total = gs_fp3_zero();
        const uint32_t G = L->n_groups;
        for (size_t r = 0; r < count; r++) {
            lu_fp_row row = {.L = L, .air = air, .outs = outs + r, .stride = count};
            gs_fp3 t_r = gs_fp3_zero(); /* the row's terms, every group */
            for (uint32_t g = 0; g < G; g++) {
                gs_fp3 h = gs_fp3_zero();
                for (uint32_t t = 0; t < L->group_size[g]; t++) {
                    uint32_t i = L->group_first[g] + t;
                    h = gs_fp3_add(h, gs_fp3_mul_fp(d[(size_t)i * count + r], lu_fp_mult(&row, i)));
                }
                if (g + 1 < G) put3(c->aux, c->n, g, start + r, h);
                t_r = gs_fp3_add(t_r, h);
            }
            put3(c->aux, c->n, G - 1, start + r, t_r); /* pass 2 turns it into S */
            total = gs_fp3_add(total, t_r);
        }
        c->block_sums[blk] = total;
    }
done:
    free(scratch), free(outs), free(d);
}

/* Pass 2: the running sum S[r] = sum_(r' < r) (t[r'] - sigma / n), each
 * block starting from the blocks before it, over the row totals pass 1 left
 * in S's column. */
static void sum_range(void *arg, size_t b, size_t e) {
    aux_ctx *c = arg;
    const uint32_t S = c->L->n_groups - 1;
    size_t B = GS_AIR_BLOCK;
    for (size_t blk = b; blk < e; blk++) {
        size_t start = blk * B, count = c->n - start < B ? c->n - start : B;
        /* pass 2's input: the totals of the blocks before this one */
        gs_fp3 s = gs_fp3_sub(c->block_sums[blk], gs_fp3_mul_fp(c->sigma_n, gs_fp_from_u64(start)));
        for (size_t r = 0; r < count; r++) {
            gs_fp3 t = get3(c->aux, c->n, S, start + r);
            put3(c->aux, c->n, S, start + r, s);
            s = gs_fp3_sub(gs_fp3_add(s, t), c->sigma_n);
        }
    }
}

gs_status gs_logup_aux_trace(gs_fp *aux, gs_fp3 *sigma, const gs_logup *L, const gs_air *air,
                             const gs_fp *trace, unsigned log_n, const gs_fp *pub, gs_fp3 z,
                             gs_fp3 alpha) {
    if (!aux || !sigma || !L || !air || !trace || log_n > 40 || L->n_inters != air->n_inters ||
        !L->n_inters)
        return GS_ERR_INVALID_ARG;
    aux_ctx c = {L, air, trace, pub, (size_t)1 << log_n, z, {{{0}}}, aux, NULL, {{0}}, GS_OK};
    atomic_init(&c.err, GS_OK);
    gs_fp3_powers(c.ap, alpha, GS_AIR_MAX_TUPLE + 1);
    size_t blocks = (c.n + GS_AIR_BLOCK - 1) / GS_AIR_BLOCK;
    c.block_sums = malloc(blocks * sizeof *c.block_sums);
    if (!c.block_sums) return GS_ERR_NOMEM;
    gs_parallel_for(blocks, 8, aux_range, &c);
    gs_status err = (gs_status)atomic_load(&c.err);
    if (err == GS_OK) {
        gs_fp3 acc = gs_fp3_zero(); /* block totals -> exclusive prefixes */
        for (size_t k = 0; k < blocks; k++) {
            gs_fp3 t = c.block_sums[k];
            c.block_sums[k] = acc;
            acc = gs_fp3_add(acc, t);
        }
        c.sigma_n = gs_logup_sigma_n(acc, log_n);
        gs_parallel_for(blocks, 8, sum_range, &c);
        *sigma = acc;
    }
    free(c.block_sums);
    return err;
}

gs_fp3 gs_logup_sigma_n(gs_fp3 sigma, unsigned log_n) {
    return gs_fp3_mul_fp(sigma, gs_fp_inv(gs_fp_from_u64((uint64_t)1 << log_n)));
}

void gs_logup_constraints(const gs_logup *L, const gs_air *air, gs_fp3 *out_groups,
                          const gs_fp3 *outs, const gs_fp3 *aux_cur, const gs_fp3 *aux_next,
                          gs_fp3 z, const gs_fp3 *alpha_pows, gs_fp3 sigma_n) {
    lu_ext_row row = {.L = L, .air = air, .z = z, .ap = alpha_pows, .outs = outs,
                      .cur = aux_cur, .next = aux_next, .groups = out_groups};
    lu_ext_constraints(&row, sigma_n);
}

/* The same constraints when the interaction outputs are base-field values
 * (the prover's LDE rows): fingerprints and multiplicities use Fp3 x Fp
 * products. Tested equal to gs_logup_constraints on embedded inputs. */
void gs_logup_constraints_fp(const gs_logup *L, const gs_air *air, gs_fp3 *out_groups,
                             const gs_fp *outs, size_t stride, const gs_fp3 *aux_cur,
                             const gs_fp3 *aux_next, gs_fp3 z, const gs_fp3 *alpha_pows,
                             gs_fp3 sigma_n) {
    lu_fp_row row = {.L = L, .air = air, .z = z, .ap = alpha_pows, .outs = outs,
                     .stride = stride, .cur = aux_cur, .next = aux_next, .groups = out_groups};
    lu_fp_constraints(&row, sigma_n);
}
