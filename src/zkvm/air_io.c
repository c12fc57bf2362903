/* The IO chip and the stream table (src/zkvm/zk_air.h, ZK_BUS_IO and
 * ZK_BUS_STREAM): the read (63) and write (64) system calls.
 *
 * IO chip rows. A call is a header row (H) followed by one word row (V) per
 * memory word its bytes touch, in increasing address order; padding rows
 * (H = V = 0) take part in nothing. Columns (39):
 *   H, V, RD (1: read, 0: write), FD, CLK        flags and the call
 *   BUF, LEN, POS, COUNT                          header: x11, x12, the cursor, the result
 *   END = BUF + COUNT, DELTA = POS - BUF          header, copied onto the word rows
 *   G0L G0H, G1L G1H, G2L G2H                     timestamp gaps (16-bit limbs)
 *   S1L S1H, S2L S2H                              read: LEN - COUNT, in_len - POS - COUNT
 *   A, WL, WH, W                                  word: first byte moved, address limbs, w
 *   B0..B3, X0..X3, M0..M3                        word: bytes before, bytes after, lane mask
 *   HW = H (1 - RD), NXT (below)                  helpers that keep the degree at 3
 * With ts = 4 CLK + ZK_TS_MEM, WADDR = WL + 2^16 WH, K = M0 + .. + M3,
 * E_j = M_j (1 - M_(j-1)) (a run of the mask starts at lane j; M_(-1) = 0),
 * FIRST = sum j E_j, a header receives (64 - RD, FD, COUNT, CLK) on ZK_BUS_IO
 * and makes three accesses on ZK_BUS_MEM, each a receive (addr, v, ts - 1 -
 * gap, 1) and a send (addr, v', ts, 1):
 *   x11: (11, BUF) -> (11, BUF), gap G0; x12: (12, LEN) -> (12, LEN), gap G1;
 *   cursor: (32 + FD, POS) -> (32 + FD, POS + COUNT), gap G2;
 * a word row receives (WADDR, sum 2^8j B_j, ts - 1 - G0, W) and sends
 * (WADDR, sum 2^8j X_j, ts, W), and sends (FD, DELTA + WADDR + j, X_j) on
 * ZK_BUS_STREAM with multiplicity M_j for each lane j. Lookups: G0L, G0H
 * (H + V), G1*, G2*, S1*, S2* (H), WL, WH - 1 (V) on ZK_BUS_RANGE; (RANGE,
 * B0, B1), (RANGE, B2, B3), (RANGE, X0, X1), (RANGE, X2, X3) (V) on
 * ZK_BUS_BYTE. Every tuple value and multiplicity is linear (the LogUp
 * groups pack in pairs, degree 3), and so is every constraint: the
 * products a header's rules and the chaining need are the columns HW = H
 * (1 - RD) (a write's header; H RD = H - HW is a read's) and NXT, pinned by
 * HW - H (1 - RD) = 0 and NXT - (H BUF + V (A + K)) = 0 (degree 2), so the
 * chip proves at blowup 2 like the other tables. (Until 2026-12-06 those
 * products were written out, and the chip had degree 4.)
 *
 * Soundness, per constraint family. Senders guarantee that register values
 * (BUF, LEN) are 32-bit; in_len < 2^32 is the verifier's; all the sums below
 * are integers far below p (at most a few times 2^34), so equalities of them
 * hold over the integers.
 *  - flags: H, V, H + V, RD, M_j boolean; M_j (1 - V) = 0 (a mask only on
 *    word rows). Boundaries: V = 0 on the first row; H, V and every M_j = 0
 *    on the last row, which single-row constraints do not reach: it is
 *    padding, so every multiplicity (H, V, H + V, M_j) is 0 there and the
 *    transition into it (checked) ends the last call.
 *  - the call: (H - HW) FD = 0 and HW (FD - 1)(FD - 2) = 0: a read uses
 *    fd 0, a write fd 1 or 2. The IO tuple carries call = 64 - RD, so a
 *    request with another call number, fd, count or clk finds no header.
 *    Each header consumes one request (multiplicity H = 1) and every request
 *    needs one: no call is dropped or repeated.
 *  - registers and cursor: the three gaps are two 16-bit limbs each, so
 *    ts_prev < ts (offline memory checking, air_mem.c): BUF, LEN and POS are
 *    the values x11, x12 and the cursor hold at the call, and the cursor is
 *    left at POS + COUNT. x11 and x12 are sent back unchanged.
 *  - count: a write has COUNT = LEN (HW (COUNT - LEN) = 0). A read has
 *    S1 = LEN - COUNT, S2 = in_len - POS - COUNT ((H - HW)(...) = 0) with S1,
 *    S2 in [0, 2^32) by their limbs, and (H - HW) S1 S2 = 0. POS <= in_len:
 *    cursor 32 starts at 0 and only read headers write it (fd 0 <=> read),
 *    each with POS + COUNT = in_len - S2 <= in_len. So with c = LEN - S1 (an
 *    integer in (-2^32, 2^32)), S2 = in_len - POS - c holds over the
 *    integers; S1 S2 = 0 in the field makes one of them 0, i.e. c = LEN or
 *    c = in_len - POS, both >= 0; and c <= LEN, c <= in_len - POS. So COUNT
 *    = min(LEN, in_len - POS), and the new cursor stays <= in_len. (The
 *    write cursors grow by at most 2^32 per call: no wrap.)
 *  - the word rows of a call: V' (1 - H - V) = 0: a word row follows the
 *    header or a word row, never padding (and not row 0); V' copies RD, FD,
 *    CLK, END, DELTA onto it, so all of a call's rows share its header's.
 *    The call's rows run from its header to the first row with V' = 0.
 *  - the mask: M_j boolean with no hole (M_i M_k (1 - M_j) = 0 for i < j <
 *    k) and V (1 - sum E_j) = 0: one run, nonempty, lanes FIRST .. FIRST + K
 *    - 1, so K >= 1. V (A - WADDR - FIRST) = 0: the row moves the bytes at
 *    addresses [A, A + K), inside its word.
 *  - chaining: with the column NXT = H BUF + V (A + K) (one past the row's
 *    last byte; BUF on the header), V' (A' - NXT) = 0: each word row starts where the
 *    previous row stopped. V V' (WADDR' - WADDR - 4) = 0: consecutive word
 *    rows touch consecutive words, so A' = WADDR' + FIRST' = WADDR + FIRST +
 *    K with FIRST + K <= 4 forces FIRST' = 0 and FIRST + K = 4 (every run
 *    but the call's last ends at lane 3, every run but its first starts at
 *    lane 0). The first word: A' = BUF = WADDR' + FIRST', WADDR' is a word
 *    address of the memory (aligned: the memory tables send tuples at
 *    aligned addresses only, above the registers and cursors) so WADDR' =
 *    BUF - BUF mod 4. So the bytes moved are [BUF, NXT) of the call's last
 *    row, each once, in address order: none skipped, repeated or
 *    reordered, and each word touched once (one access per word).
 *  - the end: (H + V)(1 - V')(NXT - END) = 0: the call's last row ends at
 *    END = BUF + COUNT (H (END - BUF - COUNT) = 0). NXT grows by K >= 1 per
 *    word row, so the call cannot stop before END (early) nor move past it
 *    (late: it would never come back to END, and the last row of the table
 *    is padding, so every call does end). COUNT = 0: no word rows.
 *  - word addresses: WL, WH - 1 16-bit, so WADDR in [2^16, 2^32 + 2^16):
 *    never a register or cursor (addresses 0..34); the memory tables hold no
 *    word at or above GS_ZKVM_MEM_TOP, so one there finds no tuple.
 *  - the word: B_j are bytes (looked up in pairs), so before = sum 2^8j B_j
 *    is the word's decomposition. (1 - RD M_j)(X_j - B_j) = 0: a write
 *    sends the word back unchanged (any w); a read changes only the masked
 *    lanes, and V RD (W - 1) = 0: only a writable word (a read-only text
 *    word has w = 0 in every tuple). X_j are bytes (looked up), so after is
 *    a 32-bit word.
 *  - the stream: lane j's byte goes to position DELTA + WADDR + j = POS +
 *    (addr - BUF) of stream FD, so the bytes of [BUF, BUF + COUNT) are
 *    positions POS .. POS + COUNT - 1, in address order; the stream table
 *    holds each (stream, pos, byte) of the input and the claimed outputs. A
 *    read writes X_j = the input byte at that position (its receive must
 *    find the input's row); a write sends X_j = B_j, the memory's byte.
 *    Consecutive calls on one stream continue at the cursor, so a stream's
 *    positions are sent once each, 0 .. its final cursor - 1.
 *
 * Stream table: columns stream, pos, byte, is_output (fixed: the verifier
 * builds them from the input and the claimed outputs) and the multiplicity
 * mult; it receives (stream, pos, byte) with multiplicity mult, and
 * is_output (mult - 1) = 0 (every claimed output byte is sent by exactly
 * one IO row; with the chip's positions 0 .. cursor - 1 once each, the
 * claimed output is exactly what was written, no longer or shorter). The
 * fill always leaves at least one padding row, the last row (the
 * constraint does not reach it; a boundary pins its is_output to 0). */
#include <stdlib.h>

#include "zkvm/zk_air.h"

enum {
    C_H, C_V, C_RD, C_FD, C_CLK,
    C_BUF, C_LEN, C_POS, C_COUNT, C_END, C_DELTA,
    C_G0L, C_G0H, C_G1L, C_G1H, C_G2L, C_G2H,
    C_S1L, C_S1H, C_S2L, C_S2H,
    C_A, C_WL, C_WH, C_W,
    C_B0, C_X0 = C_B0 + 4, C_M0 = C_X0 + 4,
    C_HW = C_M0 + 4, C_NXT,
    IO_COLS
};

#define CALL_READ 63u
#define CALL_WRITE 64u
#define REG_BUF 11u
#define REG_LEN 12u

typedef struct {
    gs_air *a;
} bld;

static gs_expr col(bld *b, uint32_t c) { return gs_air_col(b->a, c); }
static gs_expr nxt(bld *b, uint32_t c) { return gs_air_next(b->a, c); }
static gs_expr cst(bld *b, gs_fp v) { return gs_air_const(b->a, v); }
static gs_expr add(bld *b, gs_expr x, gs_expr y) { return gs_air_add(b->a, x, y); }
static gs_expr sub(bld *b, gs_expr x, gs_expr y) { return gs_air_sub(b->a, x, y); }
static gs_expr mul(bld *b, gs_expr x, gs_expr y) { return gs_air_mul(b->a, x, y); }
static gs_expr mul3(bld *b, gs_expr x, gs_expr y, gs_expr z) { return mul(b, mul(b, x, y), z); }
static gs_expr scale(bld *b, gs_fp k, gs_expr x) { return mul(b, cst(b, k), x); }
static void zero(bld *b, gs_expr e) { gs_air_transition(b->a, e); }
static void boolean(bld *b, gs_expr e) { zero(b, mul(b, e, sub(b, e, cst(b, 1)))); }
static gs_expr pair16(bld *b, uint32_t lo) { /* col lo + 2^16 col (lo + 1) */
    return add(b, col(b, lo), scale(b, 1u << 16, col(b, lo + 1)));
}
static gs_expr word(bld *b, uint32_t c0) { /* sum 2^(8j) col(c0 + j) */
    gs_expr e = col(b, c0);
    for (uint32_t j = 1; j < 4; j++) e = add(b, e, scale(b, (gs_fp)1 << (8 * j), col(b, c0 + j)));
    return e;
}
static gs_air *finish(gs_air *a) {
    if (a && gs_air_finalize(a) != GS_OK) {
        gs_air_free(a);
        return NULL;
    }
    return a;
}

/* A register or cursor access of the header: receive (addr, v, ts - 1 -
 * gap, 1), send (addr, v2, ts, 1), multiplicity H. */
static void reg_access(bld *b, gs_expr addr, gs_expr v, gs_expr v2, uint32_t gap_lo, gs_expr ts) {
    const gs_expr one = cst(b, 1), h = col(b, C_H);
    const gs_expr in[4] = {addr, v, sub(b, sub(b, ts, one), pair16(b, gap_lo)), one};
    const gs_expr out[4] = {addr, v2, ts, one};
    gs_air_receive(b->a, ZK_BUS_MEM, in, 4, h);
    gs_air_send(b->a, ZK_BUS_MEM, out, 4, h);
}

gs_air *zk_io_air(void) {
    bld B = {gs_air_new("zkvm-io", IO_COLS, ZK_IO_NUM_PUBLIC)};
    bld *b = &B;
    if (!b->a) return NULL;
    const gs_expr one = cst(b, 1);
    const gs_expr h = col(b, C_H), v = col(b, C_V), hv = add(b, h, v), rd = col(b, C_RD);
    const gs_expr fd = col(b, C_FD), clk = col(b, C_CLK), buf = col(b, C_BUF), len = col(b, C_LEN);
    const gs_expr pos = col(b, C_POS), count = col(b, C_COUNT), end = col(b, C_END);
    const gs_expr in_len = gs_air_public(b->a, ZK_IO_PUB_IN_LEN);
    const gs_expr v_next = nxt(b, C_V);
    gs_expr m[4], e[4];
    for (uint32_t j = 0; j < 4; j++) m[j] = col(b, C_M0 + j);
    for (uint32_t j = 0; j < 4; j++) e[j] = j ? mul(b, m[j], sub(b, one, m[j - 1])) : m[0];
    const gs_expr k = add(b, add(b, m[0], m[1]), add(b, m[2], m[3]));
    const gs_expr runs = add(b, add(b, e[0], e[1]), add(b, e[2], e[3]));
    const gs_expr first = add(b, e[1], add(b, scale(b, 2, e[2]), scale(b, 3, e[3])));
    const gs_expr waddr = pair16(b, C_WL);
    const gs_expr a_ = col(b, C_A);

    /* flags; first and last rows */
    boolean(b, h);
    boolean(b, v);
    boolean(b, hv);
    boolean(b, rd);
    for (uint32_t j = 0; j < 4; j++) {
        boolean(b, m[j]);
        zero(b, mul(b, m[j], sub(b, one, v)));
        gs_air_boundary(b->a, C_M0 + j, -1, cst(b, 0));
    }
    gs_air_boundary(b->a, C_V, 0, cst(b, 0));
    gs_air_boundary(b->a, C_H, -1, cst(b, 0));
    gs_air_boundary(b->a, C_V, -1, cst(b, 0));

    /* the call: fd by call, count; hw a write's header, hr = h - hw a read's */
    const gs_expr hw = col(b, C_HW), hr = sub(b, h, hw);
    zero(b, sub(b, hw, mul(b, h, sub(b, one, rd))));
    zero(b, mul(b, hr, fd));
    zero(b, mul3(b, hw, sub(b, fd, one), sub(b, fd, cst(b, 2))));
    zero(b, mul(b, hw, sub(b, count, len)));
    const gs_expr s1 = pair16(b, C_S1L), s2 = pair16(b, C_S2L);
    zero(b, mul(b, hr, sub(b, sub(b, len, count), s1)));
    zero(b, mul(b, hr, sub(b, sub(b, sub(b, in_len, pos), count), s2)));
    zero(b, mul3(b, hr, s1, s2));
    zero(b, mul(b, h, sub(b, end, add(b, buf, count))));
    zero(b, mul(b, h, sub(b, col(b, C_DELTA), sub(b, pos, buf))));

    /* word rows follow their call; the call's values carried */
    zero(b, mul(b, v_next, sub(b, one, hv)));
    static const uint32_t carried[] = {C_RD, C_FD, C_CLK, C_END, C_DELTA};
    for (size_t i = 0; i < sizeof carried / sizeof carried[0]; i++)
        zero(b, mul(b, v_next, sub(b, nxt(b, carried[i]), col(b, carried[i]))));

    /* the mask: one contiguous nonempty run at A */
    static const uint32_t holes[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    for (uint32_t i = 0; i < 4; i++)
        zero(b, mul3(b, m[holes[i][0]], m[holes[i][2]], sub(b, one, m[holes[i][1]])));
    zero(b, mul(b, v, sub(b, one, runs)));
    zero(b, mul(b, v, sub(b, a_, add(b, waddr, first))));

    /* chaining and the end */
    const gs_expr nxt_addr = col(b, C_NXT);
    zero(b, sub(b, nxt_addr, add(b, mul(b, h, buf), mul(b, v, add(b, a_, k)))));
    zero(b, mul(b, v_next, sub(b, nxt(b, C_A), nxt_addr)));
    const gs_expr waddr_next = add(b, nxt(b, C_WL), scale(b, 1u << 16, nxt(b, C_WH)));
    zero(b, mul3(b, v, v_next, sub(b, waddr_next, add(b, waddr, cst(b, 4)))));
    zero(b, mul3(b, hv, sub(b, one, v_next), sub(b, nxt_addr, end)));

    /* the word: writes change nothing, reads only masked lanes of writable words */
    zero(b, mul3(b, v, rd, sub(b, col(b, C_W), one)));
    for (uint32_t j = 0; j < 4; j++)
        zero(b, mul(b, sub(b, one, mul(b, rd, m[j])), sub(b, col(b, C_X0 + j), col(b, C_B0 + j))));

    /* interactions: the request, the header's accesses */
    const gs_expr io[4] = {sub(b, cst(b, CALL_WRITE), rd), fd, count, clk};
    gs_air_receive(b->a, ZK_BUS_IO, io, 4, h);
    const gs_expr ts = add(b, scale(b, 4, clk), cst(b, ZK_TS_MEM));
    reg_access(b, cst(b, REG_BUF), buf, buf, C_G0L, ts);
    reg_access(b, cst(b, REG_LEN), len, len, C_G1L, ts);
    reg_access(b, add(b, cst(b, ZK_CURSOR_ADDR), fd), pos, add(b, pos, count), C_G2L, ts);
    /* the word access and its bytes */
    const gs_expr w = col(b, C_W);
    const gs_expr w_in[4] = {waddr, word(b, C_B0), sub(b, sub(b, ts, one), pair16(b, C_G0L)), w};
    const gs_expr w_out[4] = {waddr, word(b, C_X0), ts, w};
    gs_air_receive(b->a, ZK_BUS_MEM, w_in, 4, v);
    gs_air_send(b->a, ZK_BUS_MEM, w_out, 4, v);
    const gs_expr base = add(b, col(b, C_DELTA), waddr);
    for (uint32_t j = 0; j < 4; j++) {
        const gs_expr t[3] = {fd, add(b, base, cst(b, j)), col(b, C_X0 + j)};
        gs_air_send(b->a, ZK_BUS_STREAM, t, 3, m[j]);
    }
    /* lookups */
    const struct {
        gs_expr val, mult;
    } ranges[] = {
        {col(b, C_G0L), hv}, {col(b, C_G0H), hv}, {col(b, C_G1L), h}, {col(b, C_G1H), h},
        {col(b, C_G2L), h},  {col(b, C_G2H), h},  {col(b, C_S1L), h}, {col(b, C_S1H), h},
        {col(b, C_S2L), h},  {col(b, C_S2H), h},  {col(b, C_WL), v},
        {sub(b, col(b, C_WH), one), v},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        gs_air_send(b->a, ZK_BUS_RANGE, &ranges[i].val, 1, ranges[i].mult);
    const gs_expr rop = cst(b, ZK_BYTE_RANGE), z = cst(b, 0);
    static const uint32_t pairs[4] = {C_B0, C_B0 + 2, C_X0, C_X0 + 2};
    for (uint32_t i = 0; i < 4; i++) {
        const gs_expr t[4] = {rop, col(b, pairs[i]), col(b, pairs[i] + 1), z};
        gs_air_send(b->a, ZK_BUS_BYTE, t, 4, v);
    }
    return finish(b->a);
}

/* Two 16-bit limbs of a field value (a value >= 2^32, e.g. a negative
 * difference, gets a high limb outside the range table). */
static void limbs16(gs_fp *lo, gs_fp *hi, gs_fp x, zk_lookups *lk) {
    *lo = x & 0xffffu, *hi = x >> 16;
    zk_range16(lk, (uint32_t)(x & 0xffffu));
    zk_range16(lk, (uint32_t)((x >> 16) & 0xffffu));
}

static gs_fp gap(uint64_t clk, uint64_t ts_prev) { /* ts - 1 - ts_prev in the field */
    const gs_fp ts = gs_fp_add(gs_fp_mul(4, gs_fp_from_u64(clk)), ZK_TS_MEM);
    return gs_fp_sub(gs_fp_sub(ts, gs_fp_from_u64(ts_prev)), 1);
}

/* The words a call touches, as zk_air.h describes them. */
static int words_ok(const zk_io_req *q) {
    if (q->count == 0) return q->n_words == 0;
    const uint64_t lo = q->buf & ~3ull, hi = ((uint64_t)q->buf + q->count - 1) & ~3ull;
    if (q->n_words != (hi - lo) / 4 + 1 || !q->words) return 0;
    for (uint32_t i = 0; i < q->n_words; i++)
        if (q->words[i].waddr != lo + 4ull * i) return 0;
    return 1;
}

/* The fill writes the requests as given (an fd the call may not use, a
 * count other than the rule's, a write that changes its word: the AIR
 * refuses them); only a call number other than 63 and 64 or words that do
 * not match [buf, buf + count) are refused here (GS_ERR_INVALID_ARG). */
gs_status zk_io_fill(zk_table *out, const zk_io_req *req, size_t n, uint64_t in_len,
                     zk_lookups *lk, uint32_t *in_mult) {
    uint64_t rows = 1; /* the last row is padding */
    for (size_t i = 0; i < n; i++) {
        if ((req[i].call != CALL_READ && req[i].call != CALL_WRITE) || !words_ok(&req[i]))
            return GS_ERR_INVALID_ARG;
        rows += 1 + (uint64_t)req[i].n_words;
    }
    GS_TRY(zk_table_alloc(out, IO_COLS, rows));
    gs_fp *c[IO_COLS];
    for (uint32_t k = 0; k < IO_COLS; k++) c[k] = zk_col(out, k);
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        const zk_io_req *q = &req[i];
        const int rd = q->call == CALL_READ;
        const gs_fp buf = q->buf, count = q->count, pos = gs_fp_from_u64(q->pos);
        const gs_fp end = gs_fp_add(buf, count), delta = gs_fp_sub(pos, buf);
        const gs_fp fd = q->fd, clk = gs_fp_from_u64(q->clk);
        c[C_H][r] = 1, c[C_RD][r] = rd, c[C_FD][r] = fd, c[C_CLK][r] = clk;
        c[C_BUF][r] = buf, c[C_LEN][r] = q->len, c[C_POS][r] = pos, c[C_COUNT][r] = count;
        c[C_END][r] = end, c[C_DELTA][r] = delta, c[C_HW][r] = !rd, c[C_NXT][r] = buf;
        limbs16(&c[C_G0L][r], &c[C_G0H][r], gap(q->clk, q->buf_ts), lk);
        limbs16(&c[C_G1L][r], &c[C_G1H][r], gap(q->clk, q->len_ts), lk);
        limbs16(&c[C_G2L][r], &c[C_G2H][r], gap(q->clk, q->pos_ts), lk);
        gs_fp s1 = 0, s2 = 0;
        if (rd) {
            s1 = gs_fp_sub(q->len, count);
            s2 = gs_fp_sub(gs_fp_sub(gs_fp_from_u64(in_len), pos), count);
        }
        limbs16(&c[C_S1L][r], &c[C_S1H][r], s1, lk);
        limbs16(&c[C_S2L][r], &c[C_S2H][r], s2, lk);
        r++;
        const uint64_t lo = q->buf, hi = (uint64_t)q->buf + q->count; /* bytes [lo, hi) */
        for (uint32_t k = 0; k < q->n_words; k++, r++) {
            const zk_io_word *wd = &q->words[k];
            c[C_V][r] = 1, c[C_RD][r] = rd, c[C_FD][r] = fd, c[C_CLK][r] = clk;
            c[C_END][r] = end, c[C_DELTA][r] = delta;
            /* the bytes the row moves: [A, NXT), its word's within [lo, hi) */
            c[C_A][r] = wd->waddr > lo ? wd->waddr : lo;
            c[C_NXT][r] = (uint64_t)wd->waddr + 4 < hi ? (uint64_t)wd->waddr + 4 : hi;
            c[C_WL][r] = wd->waddr & 0xffffu, c[C_WH][r] = wd->waddr >> 16;
            c[C_W][r] = wd->w;
            limbs16(&c[C_G0L][r], &c[C_G0H][r], gap(q->clk, wd->ts_prev), lk);
            zk_range16(lk, wd->waddr & 0xffffu);
            zk_range16(lk, (uint32_t)(gs_fp_sub(wd->waddr >> 16, 1) & 0xffffu));
            uint32_t bb[4], xb[4];
            for (uint32_t j = 0; j < 4; j++) {
                const uint64_t addr = (uint64_t)wd->waddr + j;
                bb[j] = (wd->before >> (8 * j)) & 0xffu, xb[j] = (wd->after >> (8 * j)) & 0xffu;
                c[C_B0 + j][r] = bb[j], c[C_X0 + j][r] = xb[j];
                const int in = addr >= lo && addr < hi;
                c[C_M0 + j][r] = in;
                const uint64_t p = q->pos + (addr - lo);
                if (in && rd && in_mult && q->fd == 0 && p < in_len) in_mult[p]++;
            }
            zk_byte(lk, ZK_BYTE_RANGE, bb[0], bb[1]);
            zk_byte(lk, ZK_BYTE_RANGE, bb[2], bb[3]);
            zk_byte(lk, ZK_BYTE_RANGE, xb[0], xb[1]);
            zk_byte(lk, ZK_BYTE_RANGE, xb[2], xb[3]);
        }
    }
    return GS_OK;
}

/* ---- the stream table ---- */

enum { S_STREAM, S_POS, S_BYTE, S_OUT, S_MULT, S_COLS };

gs_air *zk_stream_air(void) {
    gs_air *a = gs_air_new("zkvm-stream", S_COLS, 0);
    if (!a) return NULL;
    const gs_expr is_out = gs_air_col(a, S_OUT), mult = gs_air_col(a, S_MULT);
    gs_air_transition(a, gs_air_mul(a, is_out, gs_air_sub(a, mult, gs_air_const(a, 1))));
    gs_air_boundary(a, S_OUT, -1, gs_air_const(a, 0));
    const gs_expr t[3] = {gs_air_col(a, S_STREAM), gs_air_col(a, S_POS), gs_air_col(a, S_BYTE)};
    gs_air_receive(a, ZK_BUS_STREAM, t, 3, mult);
    return finish(a);
}

gs_status zk_stream_fill(zk_table *out, const uint8_t *in, uint64_t in_len, const uint8_t *out1,
                         uint64_t len1, const uint8_t *out2, uint64_t len2,
                         const uint32_t *in_mult) {
    if ((in_len && !in) || (len1 && !out1) || (len2 && !out2)) return GS_ERR_INVALID_ARG;
    if (in_len > ((uint64_t)1 << 40) || len1 > ((uint64_t)1 << 40) || len2 > ((uint64_t)1 << 40))
        return GS_ERR_INVALID_ARG;
    /* one padding row at least: the last row, which the constraint skips */
    GS_TRY(zk_table_alloc(out, S_COLS, in_len + len1 + len2 + 1));
    const uint64_t rows = (uint64_t)1 << out->log_n;
    gs_fp *c[S_COLS];
    for (uint32_t k = 0; k < S_COLS; k++) c[k] = zk_col(out, k);
    const uint8_t *src[ZK_NUM_STREAMS] = {in, out1, out2};
    const uint64_t len[ZK_NUM_STREAMS] = {in_len, len1, len2};
    uint64_t r = 0;
    for (uint32_t s = 0; s < ZK_NUM_STREAMS; s++)
        for (uint64_t p = 0; p < len[s]; p++, r++) {
            c[S_STREAM][r] = s, c[S_POS][r] = p, c[S_BYTE][r] = src[s][p];
            c[S_OUT][r] = s != 0;
            c[S_MULT][r] = s == 0 ? (in_mult ? in_mult[p] : 0) : 1;
        }
    for (; r < rows; r++) c[S_STREAM][r] = ZK_NUM_STREAMS;
    return GS_OK;
}
