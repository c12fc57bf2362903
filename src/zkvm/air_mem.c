/* The memory tables (docs/zkvm.md, "The AIR"): offline memory checking.
 *
 * Every access to a word (a register, 0..31, or a memory word, its byte
 * address) receives the word's previous tuple (addr, value, ts_prev, w) and
 * sends (addr, value', ts, w) with ts_prev < ts, timestamps unique per
 * access. The memory tables send each address's initial tuple at ts 4 clk0
 * (clk0: the start clk, a public; every access of the run is later) exactly once and receive its final tuple. Then the bus balances only if
 * every access reads the value the previous access to its address left: the
 * receive of the k-th access to an address needs a send with a timestamp
 * below its own, and by induction the only one left is the (k-1)-th
 * access's (or the initial tuple's for k = 1). So each address must have
 * one initial tuple: the image table holds the registers, the stream cursors (addresses
 * 32..34) and every word of
 * the program's image span (fixed columns: the verifier builds them from
 * the program), and the fresh table the words touched outside that span,
 * with strictly increasing addresses (so none twice) and each outside the
 * span (so none also in the image) and inside memory. w is carried from
 * the initial tuple through every access: 0 for the text, which a store
 * (w = 1 in both its tuples) cannot touch. */
#include <stdlib.h>
#include <string.h>

#include "zkvm/zk_cpu.h"

/* ---- the image ---- */

gs_status zk_image_make(zk_image *im, const gs_zkvm_program *p) {
    memset(im, 0, sizeof *im);
    /* The span: from the lowest segment to the end of the text or of the
     * last file bytes, whichever is higher. Zero bytes past the file bytes
     * (bss, and the guest kit's heap and stack) beyond it are fresh memory,
     * which starts at 0 too, so a program's 16 MiB data segment costs rows
     * only for the words it touches. */
    uint64_t lo = UINT64_MAX, hi = (uint64_t)p->text_lo + 4ull * p->n;
    for (size_t s = 0; s < p->nseg; s++) {
        uint64_t a = p->seg[s].vaddr & ~3u, b = ((uint64_t)p->seg[s].vaddr + p->seg[s].filesz + 3) & ~3ull;
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    if (hi <= lo) return GS_ERR_INVALID_ARG;
    im->lo = (uint32_t)lo, im->hi = (uint32_t)hi;
    im->text_lo = p->text_lo, im->text_hi = p->text_lo + 4 * p->n;
    size_t n = (size_t)(hi - lo) / 4;
    uint8_t *bytes = calloc(n, 4);
    im->words = malloc(n * sizeof *im->words);
    if (!bytes || !im->words) {
        free(bytes);
        zk_image_free(im);
        return GS_ERR_NOMEM;
    }
    for (size_t s = 0; s < p->nseg; s++)
        if (p->seg[s].filesz) memcpy(bytes + (p->seg[s].vaddr - lo), p->seg[s].data, p->seg[s].filesz);
    for (size_t i = 0; i < n; i++) im->words[i] = zk_ld32(bytes + 4 * i);
    free(bytes);
    return GS_OK;
}

void zk_image_free(zk_image *im) {
    free(im->words);
    im->words = NULL;
}

/* ---- the image table ---- */

enum { I_ADDR, I_VAL, I_W, I_VALID, I_FVAL, I_FTS, I_COLS };

static gs_air *finish(gs_air *a) {
    if (a && gs_air_finalize(a) != GS_OK) {
        gs_air_free(a);
        return NULL;
    }
    return a;
}

gs_air *zk_image_air(void) {
    gs_air *a = gs_air_new("zkvm-image", I_COLS, ZK_IMAGE_NUM_PUBLIC);
    if (!a) return NULL;
    gs_expr addr = gs_air_col(a, I_ADDR), w = gs_air_col(a, I_W), valid = gs_air_col(a, I_VALID);
    gs_expr ts0 = gs_air_mul(a, gs_air_const(a, 4), gs_air_public(a, ZK_IMAGE_PUB_CLK0));
    gs_expr init[4] = {addr, gs_air_col(a, I_VAL), ts0, w};
    gs_expr fin[4] = {addr, gs_air_col(a, I_FVAL), gs_air_col(a, I_FTS), w};
    gs_air_send(a, ZK_BUS_MEM, init, 4, valid);
    gs_air_receive(a, ZK_BUS_MEM, fin, 4, valid);
    /* The end state: the registers' and cursors' final values are publics.
     * (Their initial values are the fixed value column's first rows, which
     * the verifier builds from the start publics.) */
    for (uint32_t r = 0; r < ZK_IMAGE_REGS; r++)
        gs_air_boundary(a, I_FVAL, r, gs_air_public(a, ZK_IMAGE_PUB_END + r));
    return finish(a);
}

gs_status zk_image_fill(zk_table *out, const zk_image *im, const uint32_t *init,
                        const uint32_t *final_val, const uint64_t *final_ts) {
    const size_t R = ZK_IMAGE_REGS;
    size_t words = (im->hi - im->lo) / 4, rows = R + words;
    GS_TRY(zk_table_alloc(out, I_COLS, rows));
    for (size_t i = 0; i < rows; i++) {
        uint32_t addr = i < R ? (uint32_t)i : im->lo + 4 * (uint32_t)(i - R);
        uint32_t val = i < R ? (init ? init[i] : 0) : im->words[i - R];
        int text = i >= R && addr >= im->text_lo && addr < im->text_hi;
        zk_col(out, I_ADDR)[i] = gs_fp_from_u64(addr);
        zk_col(out, I_VAL)[i] = gs_fp_from_u64(val);
        zk_col(out, I_W)[i] = gs_fp_from_u64(text ? 0 : 1);
        zk_col(out, I_VALID)[i] = gs_fp_from_u64(1);
        if (final_val) {
            zk_col(out, I_FVAL)[i] = gs_fp_from_u64(final_val[i]);
            zk_col(out, I_FTS)[i] = gs_fp_from_u64(final_ts[i]);
        }
    }
    return GS_OK;
}

/* ---- the fresh table ---- */

/* k: the word index (address / 4). x1 and x2 put k inside one of the two
 * ranges outside the image, [MEM_LO / 4, lo / 4) (side 0) or
 * [hi / 4, MEM_TOP / 4) (side 1): x1 = k - bottom, x2 = top - k, each
 * in [0, 2^22) as a 16-bit limb and a limb below 64 (looked up as the byte
 * pair (h, 4 h), both bytes only when h < 64). d: k' - k - 1 >= 0 between
 * valid rows, as two 16-bit limbs. */
enum { F_K, F_FVAL, F_FTS, F_VALID, F_SIDE, F_DLO, F_DHI, F_X1LO, F_X1HI, F_X2LO, F_X2HI, F_COLS };

#define MEM_LO_W (GS_ZKVM_MEM_LO / 4)
#define MEM_TOP_W (GS_ZKVM_MEM_TOP / 4)

gs_air *zk_fresh_air(void) {
    gs_air *a = gs_air_new("zkvm-fresh", F_COLS, ZK_FRESH_NUM_PUBLIC);
    if (!a) return NULL;
#define COL(c) gs_air_col(a, (c))
#define K(v) gs_air_const(a, gs_fp_from_u64(v))
    gs_expr one = K(1), valid = COL(F_VALID), side = COL(F_SIDE), k = COL(F_K);
    gs_expr lo = gs_air_public(a, ZK_FRESH_PUB_LO), hi = gs_air_public(a, ZK_FRESH_PUB_HI);
    gs_air_transition(a, gs_air_mul(a, valid, gs_air_sub(a, valid, one)));
    gs_air_transition(a, gs_air_mul(a, side, gs_air_sub(a, side, one)));
    gs_air_transition(a, gs_air_mul(a, gs_air_next(a, F_VALID), gs_air_sub(a, one, valid)));
    /* transitions do not reach the last row: it is padding */
    gs_air_boundary(a, F_VALID, -1, K(0));
    /* bottom = side ? hi : MEM_LO_W; top = side ? MEM_TOP_W - 1 : lo - 1 */
    gs_expr bottom = gs_air_add(a, K(MEM_LO_W), gs_air_mul(a, side, gs_air_sub(a, hi, K(MEM_LO_W))));
    gs_expr top = gs_air_add(a, gs_air_sub(a, lo, one),
                             gs_air_mul(a, side, gs_air_sub(a, K(MEM_TOP_W), lo)));
    gs_expr x1 = gs_air_sub(a, k, bottom), x2 = gs_air_sub(a, top, k);
    gs_expr l1 = gs_air_add(a, COL(F_X1LO), gs_air_mul(a, K(1u << 16), COL(F_X1HI)));
    gs_expr l2 = gs_air_add(a, COL(F_X2LO), gs_air_mul(a, K(1u << 16), COL(F_X2HI)));
    gs_air_transition(a, gs_air_mul(a, valid, gs_air_sub(a, x1, l1)));
    gs_air_transition(a, gs_air_mul(a, valid, gs_air_sub(a, x2, l2)));
    gs_expr d = gs_air_sub(a, gs_air_sub(a, gs_air_next(a, F_K), k), one);
    gs_expr dl = gs_air_add(a, gs_air_next(a, F_DLO), gs_air_mul(a, K(1u << 16), gs_air_next(a, F_DHI)));
    gs_air_transition(a, gs_air_mul(a, gs_air_next(a, F_VALID), gs_air_sub(a, d, dl)));
    static const unsigned r16[4] = {F_DLO, F_DHI, F_X1LO, F_X2LO};
    for (unsigned i = 0; i < 4; i++) {
        gs_expr v = COL(r16[i]);
        gs_air_send(a, ZK_BUS_RANGE, &v, 1, valid);
    }
    static const unsigned r6[2] = {F_X1HI, F_X2HI};
    for (unsigned i = 0; i < 2; i++) {
        gs_expr t[4] = {K(ZK_BYTE_RANGE), COL(r6[i]), gs_air_mul(a, K(4), COL(r6[i])), K(0)};
        gs_air_send(a, ZK_BUS_BYTE, t, 4, valid);
    }
    gs_expr addr = gs_air_mul(a, K(4), k);
    gs_expr ts0 = gs_air_mul(a, K(4), gs_air_public(a, ZK_FRESH_PUB_CLK0));
    gs_expr init[4] = {addr, K(0), ts0, one};
    gs_expr fin[4] = {addr, COL(F_FVAL), COL(F_FTS), one};
    gs_air_send(a, ZK_BUS_MEM, init, 4, valid);
    gs_air_receive(a, ZK_BUS_MEM, fin, 4, valid);
#undef COL
#undef K
    return finish(a);
}

gs_status zk_fresh_fill(zk_table *out, const zk_image *im, const zk_fresh_word *w, size_t n,
                        zk_lookups *lk) {
    GS_TRY(zk_table_alloc(out, F_COLS, n + 1)); /* the last row is padding */
    uint32_t lo = im->lo / 4, hi = im->hi / 4;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = w[i].addr / 4;
        if ((w[i].addr & 3) || k < MEM_LO_W || k >= MEM_TOP_W || (k >= lo && k < hi) ||
            (i && k <= w[i - 1].addr / 4)) {
            zk_table_free(out); /* a resident prover's block goes back to it */
            return GS_ERR_INVALID_ARG;
        }
        uint32_t side = k >= hi;
        uint32_t x1 = k - (side ? hi : MEM_LO_W), x2 = (side ? MEM_TOP_W - 1 : lo - 1) - k;
        uint32_t d = i ? k - w[i - 1].addr / 4 - 1 : 0;
        uint64_t v[F_COLS] = {k, w[i].final_val, w[i].final_ts, 1, side, d & 0xffff, d >> 16,
                              x1 & 0xffff, x1 >> 16, x2 & 0xffff, x2 >> 16};
        for (unsigned c = 0; c < F_COLS; c++) zk_col(out, c)[i] = gs_fp_from_u64(v[c]);
        zk_range16(lk, d & 0xffff), zk_range16(lk, d >> 16);
        zk_range16(lk, x1 & 0xffff), zk_range16(lk, x2 & 0xffff);
        zk_byte(lk, ZK_BYTE_RANGE, x1 >> 16, 4 * (x1 >> 16));
        zk_byte(lk, ZK_BYTE_RANGE, x2 >> 16, 4 * (x2 >> 16));
    }
    return GS_OK;
}
