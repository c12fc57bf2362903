/* The bytecode interpreters. The CPU block interpreter runs each
 * instruction over GS_AIR_BLOCK rows at once: registers are rows of the
 * scratch matrix, so dispatch is paid once per block and the inner loops are
 * plain array arithmetic. The extension interpreter evaluates one point (the
 * verifier's out-of-domain check). The trace checker runs the block
 * interpreter on the trace itself. */
#include <pthread.h>
#include <stdlib.h>

#include "air/air_internal.h"
#include "gstark/parallel.h"

/* Enough registers for every program of the AIR. */
size_t gs_air_scratch_size(const gs_air *air) {
    uint32_t r = air->prog_trans.n_regs;
    if (air->prog_inter.n_regs > r) r = air->prog_inter.n_regs;
    return (size_t)(r + 1) * GS_AIR_BLOCK * sizeof(gs_fp);
}

static gs_status run_block(const gs_air *air, const gs_air_program *p, void *scratch, gs_fp *out,
                           const gs_fp *m, size_t rows, size_t next_step, size_t start,
                           size_t count, const gs_fp *pub) {
    if (!air || !air->finalized || !scratch || !out || !m || count > GS_AIR_BLOCK ||
        rows == 0 || (rows & (rows - 1)) || start + count > rows ||
        (air->num_public && !pub))
        return GS_ERR_INVALID_ARG;
    gs_fp(*R)[GS_AIR_BLOCK] = scratch;
    size_t mask = rows - 1;
    for (uint32_t k = 0; k < p->n_insns; k++) {
        const gs_air_insn in = p->insns[k];
        gs_fp *d = R[in.dst];
        const gs_fp *a = R[in.a], *b = R[in.b];
        switch (in.op) {
        case GS_OP_LOAD_CUR: {
            const gs_fp *col = m + (size_t)in.a * rows + start;
            for (size_t r = 0; r < count; r++) d[r] = col[r];
            break;
        }
        case GS_OP_LOAD_NEXT: {
            const gs_fp *col = m + (size_t)in.a * rows;
            for (size_t r = 0; r < count; r++) d[r] = col[(start + r + next_step) & mask];
            break;
        }
        case GS_OP_LOAD_PUB:
            for (size_t r = 0; r < count; r++) d[r] = pub[in.a];
            break;
        case GS_OP_LOAD_CONST: {
            gs_fp c = p->consts[in.a | (uint32_t)in.b << 16];
            for (size_t r = 0; r < count; r++) d[r] = c;
            break;
        }
        case GS_OP_ADD:
            for (size_t r = 0; r < count; r++) d[r] = gs_fp_add(a[r], b[r]);
            break;
        case GS_OP_SUB:
            for (size_t r = 0; r < count; r++) d[r] = gs_fp_sub(a[r], b[r]);
            break;
        case GS_OP_MUL:
            for (size_t r = 0; r < count; r++) d[r] = gs_fp_mul(a[r], b[r]);
            break;
        case GS_OP_NEG:
            for (size_t r = 0; r < count; r++) d[r] = gs_fp_neg(a[r]);
            break;
        case GS_OP_STORE: {
            gs_fp *o = out + (size_t)in.dst * count;
            for (size_t r = 0; r < count; r++) o[r] = a[r];
            break;
        }
        }
    }
    return GS_OK;
}

gs_status gs_air_eval_block(const gs_air *air, void *scratch, gs_fp *out, const gs_fp *m,
                            size_t rows, size_t next_step, size_t start, size_t count,
                            const gs_fp *pub) {
    return run_block(air, air ? &air->prog_trans : NULL, scratch, out, m, rows, next_step, start,
                     count, pub);
}

gs_status gs_air_eval_inter_block(const gs_air *air, void *scratch, gs_fp *out, const gs_fp *m,
                                  size_t rows, size_t start, size_t count, const gs_fp *pub) {
    return run_block(air, air ? &air->prog_inter : NULL, scratch, out, m, rows, 0, start, count,
                     pub);
}

/* One point over Fp3; loads come from cur/next (Fp3) or pub/consts (Fp). */
static gs_status eval_point(const gs_air_program *p, gs_fp3 *out, const gs_fp3 *cur,
                            const gs_fp3 *next, const gs_fp *pub) {
    gs_fp3 *R = malloc((p->n_regs + 1) * sizeof *R);
    if (!R) return GS_ERR_NOMEM;
    for (uint32_t k = 0; k < p->n_insns; k++) {
        const gs_air_insn in = p->insns[k];
        switch (in.op) {
        case GS_OP_LOAD_CUR: R[in.dst] = cur[in.a]; break;
        case GS_OP_LOAD_NEXT: R[in.dst] = next[in.a]; break;
        case GS_OP_LOAD_PUB: R[in.dst] = gs_fp3_from_fp(pub[in.a]); break;
        case GS_OP_LOAD_CONST: R[in.dst] = gs_fp3_from_fp(p->consts[in.a | (uint32_t)in.b << 16]); break;
        case GS_OP_ADD: R[in.dst] = gs_fp3_add(R[in.a], R[in.b]); break;
        case GS_OP_SUB: R[in.dst] = gs_fp3_sub(R[in.a], R[in.b]); break;
        case GS_OP_MUL: R[in.dst] = gs_fp3_mul(R[in.a], R[in.b]); break;
        case GS_OP_NEG: R[in.dst] = gs_fp3_neg(R[in.a]); break;
        case GS_OP_STORE: out[in.dst] = R[in.a]; break;
        }
    }
    free(R);
    return GS_OK;
}

gs_status gs_air_eval_ext(const gs_air *air, gs_fp3 *out, const gs_fp3 *cur, const gs_fp3 *next,
                          const gs_fp *pub) {
    if (!air || !air->finalized || (air->n_trans && !out) || !cur || !next ||
        (air->num_public && !pub))
        return GS_ERR_INVALID_ARG;
    return eval_point(&air->prog_trans, out, cur, next, pub);
}

gs_status gs_air_eval_inter_ext(const gs_air *air, gs_fp3 *out, const gs_fp3 *cur,
                                const gs_fp *pub) {
    if (!air || !air->finalized || !cur || (air->num_public && !pub)) return GS_ERR_INVALID_ARG;
    if (!air->n_inters) return GS_OK;
    return eval_point(&air->prog_inter, out, cur, cur, pub);
}

gs_status gs_air_boundary_values(const gs_air *air, gs_fp *out, const gs_fp *pub) {
    if (!air || !air->finalized || (air->n_bounds && !out) || (air->num_public && !pub))
        return GS_ERR_INVALID_ARG;
    if (!air->n_bounds) return GS_OK;
    gs_fp3 *v = malloc(air->n_bounds * sizeof *v);
    if (!v) return GS_ERR_NOMEM;
    gs_fp3 dummy = gs_fp3_zero(); /* the program reads no columns */
    gs_status s = eval_point(&air->prog_bound, v, &dummy, &dummy, pub);
    for (uint32_t i = 0; s == GS_OK && i < air->n_bounds; i++) out[i] = v[i].c[0];
    free(v);
    return s;
}

typedef struct {
    const gs_air *air;
    const gs_fp *m, *pub;
    size_t rows;
    pthread_mutex_t lock;
    uint64_t bad_row;
    uint32_t bad_con;
    gs_status err;
} check_ctx;

static void note_bad(check_ctx *c, uint64_t row, uint32_t con, gs_status s) {
    pthread_mutex_lock(&c->lock);
    /* Keep the first (row, constraint) so the report is deterministic. */
    if (c->err == GS_OK || row < c->bad_row || (row == c->bad_row && con < c->bad_con))
        c->bad_row = row, c->bad_con = con, c->err = s;
    pthread_mutex_unlock(&c->lock);
}

static void check_range(void *arg, size_t b, size_t e) {
    check_ctx *c = arg;
    const gs_air *air = c->air;
    uint32_t nt = air->n_trans;
    void *scratch = malloc(gs_air_scratch_size(air));
    gs_fp *out = malloc(((size_t)nt + 1) * GS_AIR_BLOCK * sizeof *out);
    if (!scratch || !out) {
        note_bad(c, 0, 0, GS_ERR_NOMEM);
        goto done;
    }
    /* Blocks of rows; range indices count blocks. */
    for (size_t blk = b; blk < e; blk++) {
        size_t start = blk * GS_AIR_BLOCK, count = c->rows - 1 - start;
        if (count > GS_AIR_BLOCK) count = GS_AIR_BLOCK;
        gs_status s = gs_air_eval_block(air, scratch, out, c->m, c->rows, 1, start, count, c->pub);
        if (s != GS_OK) {
            note_bad(c, start, 0, s);
            break;
        }
        for (size_t r = 0; r < count; r++)
            for (uint32_t k = 0; k < nt; k++)
                if (out[(size_t)k * count + r]) {
                    note_bad(c, start + r, k, GS_ERR_AIR_UNSATISFIED);
                    goto done; /* later rows in this range cannot be earlier */
                }
    }
done:
    free(scratch);
    free(out);
}

gs_status gs_air_check_trace(const gs_air *air, const gs_fp *m, unsigned log_n, const gs_fp *pub,
                             uint64_t *bad_row, uint32_t *bad_con) {
    if (!air || !air->finalized || !m || log_n > 40 || (air->num_public && !pub))
        return GS_ERR_INVALID_ARG;
    check_ctx c = {air, m, pub, (size_t)1 << log_n, PTHREAD_MUTEX_INITIALIZER, 0, 0, GS_OK};
    size_t blocks = (c.rows - 1 + GS_AIR_BLOCK - 1) / GS_AIR_BLOCK;
    if (air->n_trans) gs_parallel_for(blocks, 16, check_range, &c);
    pthread_mutex_destroy(&c.lock);
    if (c.err == GS_OK) return gs_air_check_boundaries(air, m, log_n, pub, bad_row, bad_con);
    if (bad_row) *bad_row = c.bad_row;
    if (bad_con) *bad_con = c.bad_con;
    return c.err;
}

static gs_fp matrix_cell(const void *ctx, uint32_t col, uint64_t row, unsigned log_n) {
    return ((const gs_fp *)ctx)[((size_t)col << log_n) + row];
}

gs_status gs_air_check_boundaries(const gs_air *air, const gs_fp *m, unsigned log_n,
                                  const gs_fp *pub, uint64_t *bad_row, uint32_t *bad_con) {
    if (!m) return GS_ERR_INVALID_ARG;
    return gs_air_check_boundaries_by(air, matrix_cell, m, log_n, pub, bad_row, bad_con);
}

gs_status gs_air_check_boundaries_by(const gs_air *air, gs_air_cell_fn cell, const void *ctx,
                                     unsigned log_n, const gs_fp *pub, uint64_t *bad_row,
                                     uint32_t *bad_con) {
    if (!air || !air->finalized || !cell || log_n > 40 || (air->num_public && !pub))
        return GS_ERR_INVALID_ARG;
    if (bad_row) *bad_row = 0;
    if (bad_con) *bad_con = 0;
    if (!air->n_bounds) return GS_OK;
    gs_fp *v = malloc(air->n_bounds * sizeof *v);
    if (!v) return GS_ERR_NOMEM;
    gs_status s = gs_air_boundary_values(air, v, pub);
    for (uint32_t i = 0; s == GS_OK && i < air->n_bounds; i++) {
        uint32_t col;
        uint64_t row;
        s = gs_air_boundary_at(air, i, log_n, &col, &row);
        if (s == GS_OK && cell(ctx, col, row, log_n) != v[i]) {
            if (bad_row) *bad_row = row;
            if (bad_con) *bad_con = air->n_trans + i;
            s = GS_ERR_AIR_UNSATISFIED;
        }
    }
    free(v);
    return s;
}
