/* The load/store chip (src/zkvm/zk_air.h, ZK_BUS_LS): one row per request
 * (op, base, imm, val, res, clk), one memory access per row.
 *
 * Columns (35): eight one-hot op flags (f_op in column op - 1; sel = their
 * sum), the request (base, imm, val, res, clk), the address (carry, a_lo,
 * a_hi, o0, o1), the word before (bytes b0..b3), w, the word after, the
 * timestamp gap (d_lo, d_hi), val's low bytes and high half (v0, v1, v_hi),
 * the selected half (h_lo, h_hi) and byte (bsel), p = 2^(8 off), and the
 * sign split of the top byte (s, x). With
 *   addr = a_lo + 2^16 a_hi, off = o0 + 2 o1, waddr = addr - off,
 *   before = b0 + 2^8 b1 + 2^16 b2 + 2^24 b3, H = h_lo + 2^8 h_hi,
 *   ts = 4 clk + ZK_TS_MEM, ts_prev = ts - 1 - d_lo - 2^16 d_hi,
 *   L = the five load flags, S = the three store flags,
 * a row receives (op, base, imm, val, res, clk) on ZK_BUS_LS, receives
 * (waddr, before, ts_prev, w) and sends (waddr, after, ts, w) on ZK_BUS_MEM,
 * all with multiplicity sel; it looks up a_lo, d_lo, d_hi (sel) and v_hi (S)
 * on ZK_BUS_RANGE and (RANGE, b0, b1), (RANGE, b2, b3), (RANGE, a_hi - 1,
 * 2 x) (sel) and (RANGE, v0, v1) (S) on ZK_BUS_BYTE. Every tuple value is
 * linear, so the eleven interactions pack into six LogUp groups; the
 * largest constraint degree is 3 (the packed LogUp groups' degree too).
 *
 * Soundness, per constraint family (the senders guarantee base, val are
 * 32-bit and imm a sign-extended 12-bit immediate, so base + imm < 2^33):
 *  - flags: each boolean and sel = sum boolean, so a row is padding (no
 *    interaction: every multiplicity is a sum of flags) or exactly one op,
 *    and op = sum k f_k is the op the LS tuple carries. Transitions skip the
 *    last row, so a boundary pins every flag to 0 there: the last row is
 *    padding and its unchecked constraints cannot matter.
 *  - address: base + imm = addr + 2^32 carry, carry boolean, a_lo 16-bit,
 *    a_hi - 1 a byte. Both sides are integers far below p, so the equation
 *    holds over the integers and addr, in [2^16, 2^24 + 2^16), is (base +
 *    imm) mod 2^32. a_hi >= 1 keeps the access off the registers (memory
 *    bus addresses 0..31); the memory tables hold no word at or above
 *    GS_ZKVM_MEM_TOP, so a larger addr finds no tuple there.
 *  - offset and alignment: o0, o1 boolean; (LW + SW + LH + LHU + SH) o0 = 0
 *    and (LW + SW) o1 = 0. waddr = addr - off is received from the memory,
 *    whose tuples all carry aligned addresses (each chain of accesses to an
 *    address starts at a memory table's initial tuple: timestamps strictly
 *    increase along it), so off = addr mod 4 is forced, and a misaligned
 *    access breaks an alignment constraint (or, with off != addr mod 4,
 *    finds no memory tuple).
 *  - timestamps: d_lo, d_hi 16-bit, so ts - ts_prev - 1 is in [0, 2^32):
 *    the access reads the tuple its word's previous access sent, at ts_prev
 *    < ts (a stale read consumes a tuple that a later access also consumes,
 *    and the bus does not balance).
 *  - before: its bytes are range-checked in pairs, so b0..b3 are its
 *    little-endian bytes (the memory holds 32-bit words only).
 *  - selection: h_lo = b0 + o1 (b2 - b0), h_hi = b1 + o1 (b3 - b1),
 *    bsel = h_lo + o0 (h_hi - h_lo), p = (1 + 255 o0)(1 + 65535 o1): with
 *    boolean offsets these are the bytes of the half at 2 o1, the byte at
 *    off and 2^(8 off), each a byte (or a power of two) by construction.
 *  - sign: s boolean; LB (bsel - 128 s - x) + LH (h_hi - 128 s - x) = 0 and
 *    2 x a byte. The top byte T (bsel or h_hi) is a byte, so x = T - 128 s
 *    lies in [-128, 256) and 2 x is a byte only for x in [0, 128): s is T's
 *    top bit. (Other rows leave s, x unused; the fill writes 0.)
 *  - res: res = LW before + (LB + LBU) bsel + (LH + LHU) H + s (LB
 *    0xffffff00 + LH 0xffff0000): the selected byte / half, zero- or
 *    sign-extended, and 0 on stores and padding.
 *  - val: val = v0 + 2^8 v1 + 2^16 v_hi with v0, v1 bytes and v_hi 16-bit
 *    (checked on stores: val is 32-bit, so these are its bytes and high
 *    half), and L val = 0.
 *  - after: after = before + SW (val - before) + SB (v0 - bsel) p + SH (v0 +
 *    2^8 v1 - H)(1 + 65535 o1): loads send the word they read; a store
 *    replaces exactly the addressed byte / half / word with val's low one,
 *    so after is a 32-bit word (its other bytes are before's, range-checked)
 *    without further checks.
 *  - w: S (w - 1) = 0: a store receives and sends w = 1, so a read-only
 *    word (the memory sends it with w = 0) cannot be stored to; a load's w
 *    is whatever the memory holds and goes back unchanged. */
#include <stdlib.h>

#include "zkvm/zk_air.h"

enum {
    C_LB, C_LH, C_LW, C_LBU, C_LHU, C_SB, C_SH, C_SW, /* flag of op k in column k - 1 */
    C_BASE, C_IMM, C_VAL, C_RES, C_CLK,
    C_CARRY, C_ALO, C_AHI, C_O0, C_O1,
    C_B0, C_B1, C_B2, C_B3, C_W, C_AFTER, C_DLO, C_DHI,
    C_V0, C_V1, C_VHI,
    C_HLO, C_HHI, C_BSEL, C_P, C_S, C_X,
    LS_COLS
};

typedef struct {
    gs_air *a;
} bld;

static gs_expr col(bld *b, uint32_t c) { return gs_air_col(b->a, c); }
static gs_expr cst(bld *b, gs_fp v) { return gs_air_const(b->a, v); }
static gs_expr add(bld *b, gs_expr x, gs_expr y) { return gs_air_add(b->a, x, y); }
static gs_expr sub(bld *b, gs_expr x, gs_expr y) { return gs_air_sub(b->a, x, y); }
static gs_expr mul(bld *b, gs_expr x, gs_expr y) { return gs_air_mul(b->a, x, y); }
static gs_expr scale(bld *b, gs_fp k, gs_expr x) { return mul(b, cst(b, k), x); }
static gs_expr sum(bld *b, const uint32_t *cols, size_t n) {
    gs_expr e = col(b, cols[0]);
    for (size_t i = 1; i < n; i++) e = add(b, e, col(b, cols[i]));
    return e;
}
static void zero(bld *b, gs_expr e) { gs_air_transition(b->a, e); }
static void boolean(bld *b, gs_expr e) { zero(b, mul(b, e, sub(b, e, cst(b, 1)))); }
/* x + 2^8 y (+ 2^16 z + 2^24 t) */
static gs_expr limbs(bld *b, const uint32_t *cols, size_t n, unsigned bits) {
    gs_expr e = col(b, cols[0]);
    for (size_t i = 1; i < n; i++) e = add(b, e, scale(b, (gs_fp)1 << (bits * i), col(b, cols[i])));
    return e;
}

gs_air *zk_ls_air(void) {
    bld B = {gs_air_new("zkvm-ls", LS_COLS, 0)};
    bld *b = &B;
    if (!b->a) return NULL;
    static const uint32_t flags[] = {C_LB, C_LH, C_LW, C_LBU, C_LHU, C_SB, C_SH, C_SW};
    static const uint32_t loads[] = {C_LB, C_LH, C_LW, C_LBU, C_LHU};
    static const uint32_t stores[] = {C_SB, C_SH, C_SW};
    static const uint32_t word_a[] = {C_ALO, C_AHI}, word_b[] = {C_B0, C_B1, C_B2, C_B3};
    static const uint32_t word_d[] = {C_DLO, C_DHI}, word_v[] = {C_V0, C_V1};
    static const uint32_t half[] = {C_HLO, C_HHI};
    const gs_expr one = cst(b, 1);
    const gs_expr sel = sum(b, flags, 8), L = sum(b, loads, 5), S = sum(b, stores, 3);
    gs_expr f[8];
    for (unsigned k = 0; k < 8; k++) f[k] = col(b, flags[k]);

    /* flags, offsets, carry, sign: booleans; the last row is padding */
    for (unsigned k = 0; k < 8; k++) {
        boolean(b, f[k]);
        gs_air_boundary(b->a, flags[k], -1, cst(b, 0));
    }
    boolean(b, sel);
    boolean(b, col(b, C_CARRY));
    boolean(b, col(b, C_O0));
    boolean(b, col(b, C_O1));
    boolean(b, col(b, C_S));

    /* address: base + imm = addr + 2^32 carry */
    const gs_expr addr = limbs(b, word_a, 2, 16);
    zero(b, sub(b, add(b, col(b, C_BASE), col(b, C_IMM)),
                add(b, addr, scale(b, (gs_fp)1 << 32, col(b, C_CARRY)))));
    const gs_expr off = add(b, col(b, C_O0), scale(b, 2, col(b, C_O1)));
    const gs_expr waddr = sub(b, addr, off);

    /* alignment */
    const gs_expr words = add(b, f[C_LW], f[C_SW]);
    const gs_expr halves = add(b, add(b, f[C_LH], f[C_LHU]), f[C_SH]);
    zero(b, mul(b, add(b, words, halves), col(b, C_O0)));
    zero(b, mul(b, words, col(b, C_O1)));

    /* selection of the half, the byte and 2^(8 off) */
    const gs_expr o0 = col(b, C_O0), o1 = col(b, C_O1);
    const gs_expr b0 = col(b, C_B0), b1 = col(b, C_B1), b2 = col(b, C_B2), b3 = col(b, C_B3);
    const gs_expr hlo = col(b, C_HLO), hhi = col(b, C_HHI), bsel = col(b, C_BSEL);
    zero(b, sub(b, hlo, add(b, b0, mul(b, o1, sub(b, b2, b0)))));
    zero(b, sub(b, hhi, add(b, b1, mul(b, o1, sub(b, b3, b1)))));
    zero(b, sub(b, bsel, add(b, hlo, mul(b, o0, sub(b, hhi, hlo)))));
    const gs_expr half_shift = add(b, one, scale(b, 65535, o1)); /* 2^(16 o1) */
    zero(b, sub(b, col(b, C_P), mul(b, add(b, one, scale(b, 255, o0)), half_shift)));

    /* sign of the top byte */
    const gs_expr s = col(b, C_S), x = col(b, C_X);
    const gs_expr s128x = add(b, scale(b, 128, s), x);
    zero(b, add(b, mul(b, f[C_LB], sub(b, bsel, s128x)), mul(b, f[C_LH], sub(b, hhi, s128x))));

    /* res */
    const gs_expr before = limbs(b, word_b, 4, 8), H = limbs(b, half, 2, 8);
    gs_expr res = mul(b, f[C_LW], before);
    res = add(b, res, mul(b, add(b, f[C_LB], f[C_LBU]), bsel));
    res = add(b, res, mul(b, add(b, f[C_LH], f[C_LHU]), H));
    res = add(b, res, mul(b, s, add(b, scale(b, 0xffffff00u, f[C_LB]), scale(b, 0xffff0000u, f[C_LH]))));
    zero(b, sub(b, col(b, C_RES), res));

    /* val */
    const gs_expr val = col(b, C_VAL), vlow = limbs(b, word_v, 2, 8);
    zero(b, sub(b, val, add(b, vlow, scale(b, 1u << 16, col(b, C_VHI)))));
    zero(b, mul(b, L, val));

    /* after */
    gs_expr after = before;
    after = add(b, after, mul(b, f[C_SW], sub(b, val, before)));
    after = add(b, after, mul(b, mul(b, f[C_SB], sub(b, col(b, C_V0), bsel)), col(b, C_P)));
    after = add(b, after, mul(b, mul(b, f[C_SH], sub(b, vlow, H)), half_shift));
    zero(b, sub(b, col(b, C_AFTER), after));

    /* w */
    zero(b, mul(b, S, sub(b, col(b, C_W), one)));

    /* interactions */
    gs_expr op = f[0];
    for (unsigned k = 1; k < 8; k++) op = add(b, op, scale(b, k + 1, f[k]));
    const gs_expr ls[6] = {op, col(b, C_BASE), col(b, C_IMM), val, col(b, C_RES), col(b, C_CLK)};
    gs_air_receive(b->a, ZK_BUS_LS, ls, 6, sel);
    const gs_expr ts = add(b, scale(b, 4, col(b, C_CLK)), cst(b, ZK_TS_MEM));
    const gs_expr ts_prev = sub(b, sub(b, ts, one), limbs(b, word_d, 2, 16));
    const gs_expr w = col(b, C_W);
    const gs_expr m_in[4] = {waddr, before, ts_prev, w};
    const gs_expr m_out[4] = {waddr, col(b, C_AFTER), ts, w};
    gs_air_receive(b->a, ZK_BUS_MEM, m_in, 4, sel);
    gs_air_send(b->a, ZK_BUS_MEM, m_out, 4, sel);
    const struct {
        uint32_t c;
        int store;
    } ranges[] = {{C_ALO, 0}, {C_DLO, 0}, {C_DHI, 0}, {C_VHI, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        gs_expr v = col(b, ranges[i].c);
        gs_air_send(b->a, ZK_BUS_RANGE, &v, 1, ranges[i].store ? S : sel);
    }
    const gs_expr rop = cst(b, ZK_BYTE_RANGE), z = cst(b, 0);
    const gs_expr pairs[4][2] = {{b0, b1},
                                 {b2, b3},
                                 {sub(b, col(b, C_AHI), one), scale(b, 2, x)},
                                 {col(b, C_V0), col(b, C_V1)}};
    for (unsigned i = 0; i < 4; i++) {
        const gs_expr t[4] = {rop, pairs[i][0], pairs[i][1], z};
        gs_air_send(b->a, ZK_BUS_BYTE, t, 4, i == 3 ? S : sel);
    }
    if (gs_air_finalize(b->a) != GS_OK) {
        gs_air_free(b->a);
        return NULL;
    }
    return b->a;
}

typedef struct {
    const zk_ls_req *req;
    size_t n;
    zk_table *out;
} ls_job;

/* Rows go out in blocks (zk_fill_blocks): a zero is never written to the
 * table, so a column that stays 0 (the flags of ops a program never uses,
 * the offsets of word accesses) costs no page faults. */
_Static_assert(LS_COLS <= ZK_BLOCK_COLS, "a zk_block holds every column");
#define SET(col, v) zk_set(blk, (col), r, (v))

static void ls_row(zk_block *blk, const void *ctx, size_t r, zk_lookups *lk) {
    const ls_job *j = ctx;
    if (r >= j->n) { /* padding: p = 2^0 */
        SET(C_P, 1);
        return;
    }
    const zk_ls_req *q = &j->req[r];
    const uint32_t op = q->op;
    const int store = op >= ZK_LS_SB;
    SET(op - 1, 1);
    SET(C_BASE, q->base), SET(C_IMM, q->imm), SET(C_VAL, q->val);
    SET(C_RES, q->res), SET(C_CLK, gs_fp_from_u64(q->clk));

    const uint64_t sum = (uint64_t)q->base + q->imm;
    const uint32_t addr = (uint32_t)sum, off = addr & 3u;
    SET(C_CARRY, sum >> 32);
    SET(C_ALO, addr & 0xffffu), SET(C_AHI, addr >> 16);
    SET(C_O0, off & 1u), SET(C_O1, off >> 1);

    uint32_t by[4];
    for (unsigned k = 0; k < 4; k++) by[k] = (q->before >> (8 * k)) & 0xffu;
    for (unsigned k = 0; k < 4; k++) SET(C_B0 + k, by[k]);
    SET(C_W, q->w), SET(C_AFTER, q->after);
    /* the gap as a field element: a ts_prev >= ts wraps, and its high
     * part falls outside the range table */
    const gs_fp ts = gs_fp_add(gs_fp_mul(4, gs_fp_from_u64(q->clk)), ZK_TS_MEM);
    const gs_fp d = gs_fp_sub(gs_fp_sub(ts, gs_fp_from_u64(q->ts_prev)), 1);
    SET(C_DLO, d & 0xffffu), SET(C_DHI, d >> 16);

    SET(C_V0, q->val & 0xffu), SET(C_V1, (q->val >> 8) & 0xffu);
    SET(C_VHI, q->val >> 16);

    const uint32_t hlo = by[off & 2u], hhi = by[(off & 2u) + 1];
    const uint32_t bsel = by[off];
    SET(C_HLO, hlo), SET(C_HHI, hhi), SET(C_BSEL, bsel);
    SET(C_P, (gs_fp)1 << (8 * off));
    uint32_t top = op == ZK_LS_LB ? bsel : op == ZK_LS_LH ? hhi : 0;
    SET(C_S, top >> 7), SET(C_X, top & 0x7fu);

    zk_range16(lk, addr & 0xffffu);
    zk_range16(lk, (uint32_t)(d & 0xffffu));
    zk_range16(lk, (uint32_t)(d >> 16));
    zk_byte(lk, ZK_BYTE_RANGE, by[0], by[1]);
    zk_byte(lk, ZK_BYTE_RANGE, by[2], by[3]);
    zk_byte(lk, ZK_BYTE_RANGE, (addr >> 16) - 1, 2 * (top & 0x7fu));
    if (store) {
        zk_range16(lk, q->val >> 16);
        zk_byte(lk, ZK_BYTE_RANGE, q->val, q->val >> 8);
    }
}

static void ls_rows(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    zk_fill_blocks(((const ls_job *)ctx)->out, LS_COLS, begin, end, ls_row, ctx, lk);
}

#undef SET

gs_status zk_ls_fill(zk_table *out, const zk_ls_req *req, size_t n, zk_lookups *lk) {
    for (size_t i = 0; i < n; i++)
        if (req[i].op < ZK_LS_LB || req[i].op > ZK_LS_SW) return GS_ERR_INVALID_ARG;
    /* one row more than the requests: the last row is padding */
    gs_status st = zk_table_alloc(out, LS_COLS, (uint64_t)n + 1);
    if (st != GS_OK) return st;
    ls_job j = {.req = req, .n = n, .out = out};
    zk_parallel_lookups((size_t)1 << out->log_n, ZK_FILL_GRAIN, lk, ls_rows, &j);
    return GS_OK;
}
