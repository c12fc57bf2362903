/* The zkVM's shift, multiply and divide chips (src/zkvm/zk_air.h): each
 * receives (op, a, b, c) on ZK_BUS_ALU for its own ops, one request per row,
 * and proves c = op(a, b) with 16-bit limbs looked up in the range table
 * ((v) on ZK_BUS_RANGE, sent with the row's multiplicity).
 *
 * Common to the three tables:
 *  - One boolean selector per op; real = their sum is boolean (at most one
 *    op per row). The ALU receive and every range lookup have multiplicity
 *    real, so a padding row (all selectors 0) takes part in no interaction.
 *    Its other columns hold the witness of a harmless computation (all
 *    zero, or 2^0 = 1 for a power) so every constraint holds there too.
 *  - Transitions are not checked on the last row, so every selector is 0
 *    there (a boundary each): the last row is always padding, and the fill
 *    allocates one row more than it has requests.
 *  - The bus tuple is linear in the columns (LogUp packs two interactions
 *    per aux column) and every constraint has degree <= 3, so a table adds
 *    two quotient chunks, not four.
 *  - Soundness rests on one rule: every field identity is arranged so both
 *    sides are integers in [0, p) (or their difference is in (-p, p)) once
 *    the limbs are range-checked, so the identity holds over the integers.
 *    A word (w0, w1) below means w0 + 2^16 w1 with both limbs looked up, an
 *    integer in [0, 2^32). Senders guarantee a, b in [0, 2^32); the chips
 *    range-check c. */
#include <stdlib.h>

#include "zkvm/zk_air.h"

#define TWO16 ((gs_fp)1 << 16)
#define TWO32 ((gs_fp)1 << 32)

/* ---- builder shorthands ---- */
static gs_expr col(gs_air *A, uint32_t c) { return gs_air_col(A, c); }
static gs_expr cst(gs_air *A, gs_fp v) { return gs_air_const(A, v); }
static gs_expr add(gs_air *A, gs_expr x, gs_expr y) { return gs_air_add(A, x, y); }
static gs_expr sub(gs_air *A, gs_expr x, gs_expr y) { return gs_air_sub(A, x, y); }
static gs_expr mul(gs_air *A, gs_expr x, gs_expr y) { return gs_air_mul(A, x, y); }
static gs_expr scale(gs_air *A, gs_fp k, gs_expr x) { return mul(A, cst(A, k), x); }
/* x0 + 2^16 x1 from two limb columns lo, lo + 1 */
static gs_expr word(gs_air *A, uint32_t lo) { return add(A, col(A, lo), scale(A, TWO16, col(A, lo + 1))); }
static void zero(gs_air *A, gs_expr e) { gs_air_transition(A, e); }
static void boolean(gs_air *A, gs_expr e) { zero(A, mul(A, e, sub(A, e, cst(A, 1)))); }
static void range(gs_air *A, gs_expr v, gs_expr mult) { gs_air_send(A, ZK_BUS_RANGE, &v, 1, mult); }
static void range_word(gs_air *A, uint32_t lo, gs_expr mult) {
    range(A, col(A, lo), mult);
    range(A, col(A, lo + 1), mult);
}
/* The sign bit s of a word (lo, lo + 1): hi - 2^15 s is in [0, 2^15), shown
 * by looking up both it and it + 2^15 (a value v with v and v + 2^15 both
 * in [0, 2^16) is in [0, 2^15)). Then hi itself is in [0, 2^16) and s is
 * its top bit. */
static void range_signed_word(gs_air *A, uint32_t lo, uint32_t s, gs_expr mult) {
    range(A, col(A, lo), mult);
    gs_expr v = sub(A, col(A, lo + 1), scale(A, 1u << 15, col(A, s)));
    range(A, v, mult);
    range(A, add(A, v, cst(A, 1u << 15)), mult);
}
/* Selectors sel[0..n) boolean, their sum `real` boolean, all 0 on the last row. */
static gs_expr selectors(gs_air *A, uint32_t first, uint32_t n) {
    gs_expr real = cst(A, 0);
    for (uint32_t i = 0; i < n; i++) {
        boolean(A, col(A, first + i));
        gs_air_boundary(A, first + i, -1, cst(A, 0));
        real = add(A, real, col(A, first + i));
    }
    boolean(A, real);
    return real;
}
static void receive_alu(gs_air *A, gs_expr op, gs_expr a, gs_expr b, gs_expr c, gs_expr mult) {
    gs_expr t[4] = {op, a, b, c};
    gs_air_receive(A, ZK_BUS_ALU, t, 4, mult);
}
static gs_air *finish(gs_air *A) {
    if (A && gs_air_finalize(A) != GS_OK) {
        gs_air_free(A);
        return NULL;
    }
    return A;
}

/* ---- fill shorthands ---- */
/* Rows are built a block at a time and written out as column runs
 * (zk_fill_blocks): a zero is never written to the table, so a column that
 * stays 0 costs no page faults. */
static void put_word(zk_block *t, uint32_t lo, size_t row, uint32_t v) {
    zk_set(t, lo, row, v & 0xffffu);
    zk_set(t, lo + 1, row, v >> 16);
}
static void look(zk_lookups *lk, uint32_t v) {
    if (lk) zk_range16(lk, v);
}
static void look_word(zk_lookups *lk, uint32_t v) {
    look(lk, v & 0xffffu);
    look(lk, v >> 16);
}
static void look_signed_word(zk_lookups *lk, uint32_t v) {
    look(lk, v & 0xffffu);
    look(lk, (v >> 16) & 0x7fffu);
    look(lk, ((v >> 16) & 0x7fffu) + 0x8000u);
}
static int is_shift(uint32_t op) { return op >= ZK_ALU_SLL && op <= ZK_ALU_SRA; }
static int is_mul(uint32_t op) { return op >= ZK_ALU_MUL && op <= ZK_ALU_MULHU; }
static int is_div(uint32_t op) { return op >= ZK_ALU_DIV && op <= ZK_ALU_REMU; }

/* ======================= shifts: SLL SRL SRA =======================
 * sh = b mod 32 from b = sh + 32 (q0 + 2^16 q1), sh = sum s_i 2^i (s_i
 * boolean, q0, q1 looked up): the right side is an integer below
 * 32 + 2^37 < p, so it is b over the integers and sh = b mod 32.
 * pw = 2^sh = pw15 (1 + 65535 s4), pw15 = 2^(sh mod 16) = u (1 + 15 s2)
 * (1 + 255 s3), u = (1 + s0)(1 + 3 s1): three columns keep the degree at 3.
 * The core, with words x, y, w and e:
 *     x pw + (srl + sra) w = y + sll 2^32 w,   e = pw - 1 - w
 * e a word means w < pw <= 2^31, so both sides stay below 2^63 + 2^32 < p
 * and the identity holds over the integers:
 *   SLL: x = a, y = c, w = the bits shifted out: c = (a 2^sh) mod 2^32;
 *   SRL: y = a, x = c, w = the remainder: c = floor(a / 2^sh);
 *   SRA: y = a if a >= 0, else ~a = 2^32 - 1 - a, and c = x or ~x likewise
 *        (sra(a) = ~srl(~a) for negative a). ns (boolean, only with sra) says
 *        which; y1 + 2^15 sra is looked up as well, so y < 2^31 on SRA rows,
 *        which pins ns to a's sign: a = y < 2^31 or a = ~y >= 2^31.
 * a = sll x + (srl + sra) y + ns (2^32 - 1 - 2 y), c the same with x, y
 * swapped: columns of degree-2 definitions, so the receive is linear. */
enum {
    SH_SLL, SH_SRL, SH_SRA, SH_NS, SH_A, SH_C,
    SH_S0, SH_S1, SH_S2, SH_S3, SH_S4, SH_Q0, SH_Q1,
    SH_U, SH_PW15, SH_PW,
    SH_X0, SH_X1, SH_Y0, SH_Y1, SH_W0, SH_W1, SH_E0, SH_E1,
    SH_NCOLS
};
_Static_assert(SH_NCOLS <= ZK_BLOCK_COLS, "a zk_block holds every column");

gs_air *zk_shift_air(void) {
    gs_air *A = gs_air_new("zkvm-shift", SH_NCOLS, 0);
    if (!A) return NULL;
    gs_expr real = selectors(A, SH_SLL, 3);
    gs_expr sll = col(A, SH_SLL), sra = col(A, SH_SRA), ns = col(A, SH_NS);
    gs_expr right = add(A, col(A, SH_SRL), sra);
    boolean(A, ns);
    zero(A, mul(A, ns, sub(A, cst(A, 1), sra)));

    gs_expr b = scale(A, 32, word(A, SH_Q0));
    for (uint32_t i = 0; i < 5; i++) {
        boolean(A, col(A, SH_S0 + i));
        b = add(A, b, scale(A, (gs_fp)1 << i, col(A, SH_S0 + i)));
    }
    gs_expr one = cst(A, 1);
    gs_expr f[5];
    for (uint32_t i = 0; i < 5; i++)
        f[i] = add(A, one, scale(A, ((gs_fp)1 << (1u << i)) - 1, col(A, SH_S0 + i)));
    zero(A, sub(A, col(A, SH_U), mul(A, f[0], f[1])));
    zero(A, sub(A, col(A, SH_PW15), mul(A, col(A, SH_U), mul(A, f[2], f[3]))));
    gs_expr pw = col(A, SH_PW);
    zero(A, sub(A, pw, mul(A, col(A, SH_PW15), f[4])));

    gs_expr x = word(A, SH_X0), y = word(A, SH_Y0), w = word(A, SH_W0);
    zero(A, sub(A, add(A, mul(A, x, pw), mul(A, right, w)),
                add(A, y, mul(A, sll, scale(A, TWO32, w)))));
    zero(A, sub(A, word(A, SH_E0), sub(A, sub(A, pw, one), w)));

    gs_expr not_y = sub(A, cst(A, TWO32 - 1), scale(A, 2, y));
    gs_expr not_x = sub(A, cst(A, TWO32 - 1), scale(A, 2, x));
    zero(A, sub(A, col(A, SH_A), add(A, add(A, mul(A, sll, x), mul(A, right, y)), mul(A, ns, not_y))));
    zero(A, sub(A, col(A, SH_C), add(A, add(A, mul(A, sll, y), mul(A, right, x)), mul(A, ns, not_x))));

    gs_expr op = add(A, add(A, scale(A, ZK_ALU_SLL, sll), scale(A, ZK_ALU_SRL, col(A, SH_SRL))),
                     scale(A, ZK_ALU_SRA, sra));
    receive_alu(A, op, col(A, SH_A), b, col(A, SH_C), real);
    range_word(A, SH_X0, real);
    range_word(A, SH_Y0, real);
    range(A, add(A, col(A, SH_Y1), scale(A, 1u << 15, sra)), real);
    range_word(A, SH_W0, real);
    range_word(A, SH_E0, real);
    range_word(A, SH_Q0, real);
    return finish(A);
}

static void shift_row(zk_block *out, const void *ctx, size_t row, zk_lookups *lk) {
    const zk_chip_job *j = ctx;
    if (row >= j->m) { /* padding: 0 * 2^0 = 0, e = 0 */
        zk_set(out, SH_U, row, 1);
        zk_set(out, SH_PW15, row, 1);
        zk_set(out, SH_PW, row, 1);
        return;
    }
    uint32_t op = j->req[row].op, a = j->req[row].a, b = j->req[row].b;
    uint32_t sh = b & 31u, pw = 1u << sh, x, y, w, c;
    int ns = op == ZK_ALU_SRA && (a >> 31);
    if (op == ZK_ALU_SLL) {
        uint64_t prod = (uint64_t)a << sh;
        x = a, y = (uint32_t)prod, w = (uint32_t)(prod >> 32), c = y;
    } else {
        y = ns ? ~a : a;
        x = y >> sh, w = y & (pw - 1), c = ns ? ~x : x;
    }
    zk_set(out, SH_SLL + (op - ZK_ALU_SLL), row, 1);
    zk_set(out, SH_NS, row, (gs_fp)ns);
    zk_set(out, SH_A, row, a);
    zk_set(out, SH_C, row, c);
    for (uint32_t k = 0; k < 5; k++) zk_set(out, SH_S0 + k, row, (sh >> k) & 1u);
    put_word(out, SH_Q0, row, b >> 5);
    zk_set(out, SH_U, row, 1u << (sh & 3u));
    zk_set(out, SH_PW15, row, 1u << (sh & 15u));
    zk_set(out, SH_PW, row, pw);
    put_word(out, SH_X0, row, x);
    put_word(out, SH_Y0, row, y);
    put_word(out, SH_W0, row, w);
    put_word(out, SH_E0, row, pw - 1u - w);
    look_word(lk, x);
    look_word(lk, y);
    look(lk, (y >> 16) + (op == ZK_ALU_SRA ? 0x8000u : 0u));
    look_word(lk, w);
    look_word(lk, pw - 1u - w);
    look_word(lk, b >> 5);
}

static void shift_rows(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    zk_fill_blocks(((const zk_chip_job *)ctx)->out, SH_NCOLS, begin, end, shift_row, ctx, lk);
}

gs_status zk_shift_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk) {
    return zk_chip_fill(out, SH_NCOLS, req, n, is_shift, 1, lk, shift_rows);
}

/* ================ multiply: MUL MULH MULHSU MULHU ================
 * The unsigned product P = a b = (p0, p1, p2, p3) from the words a, b:
 *     a0 b0 + 2^16 (a0 b1 + a1 b0) = p0 + 2^16 p1 + 2^32 (k0 + 2^16 k1)
 *     a1 b1 + k0 + 2^16 k1         = p2 + 2^16 p3
 * with k0 looked up and k1 boolean (the true carry is below 2^17). The
 * first has both sides below 2^50, the second below 2^33, so they hold over
 * the integers, and together they say a b = P; P < 2^64 - 2^33 + 2 never
 * wraps. sa, sb are the sign bits of a, b (range_signed_word). With the
 * signed values a - 2^32 sa, b - 2^32 sb, the high word of the signed
 * product is (P_hi - sa b - sb a) mod 2^32, of the signed x unsigned one
 * (P_hi - sa b) mod 2^32. So, with ua = sa (mulh + mulhsu), ub = sb mulh:
 *     mul (P_lo - c) = 0
 *     (mulh + mulhsu + mulhu) (P_hi - ua b - ub a + 2^32 t - c) = 0
 * t in {0, 1, 2} (t (t-1) (t-2) = 0) and c a word: every term is below
 * 2^35 in size, so c is the residue mod 2^32. */
enum {
    MU_MUL, MU_MULH, MU_MULHSU, MU_MULHU,
    MU_A0, MU_A1, MU_SA, MU_B0, MU_B1, MU_SB, MU_UA, MU_UB,
    MU_P0, MU_P1, MU_P2, MU_P3, MU_K0, MU_K1, MU_T, MU_C0, MU_C1,
    MU_NCOLS
};
_Static_assert(MU_NCOLS <= ZK_BLOCK_COLS, "a zk_block holds every column");

gs_air *zk_mul_air(void) {
    gs_air *A = gs_air_new("zkvm-mul", MU_NCOLS, 0);
    if (!A) return NULL;
    gs_expr real = selectors(A, MU_MUL, 4);
    gs_expr smul = col(A, MU_MUL), mulh = col(A, MU_MULH), mulhsu = col(A, MU_MULHSU);
    gs_expr high = add(A, add(A, mulh, mulhsu), col(A, MU_MULHU));
    boolean(A, col(A, MU_SA));
    boolean(A, col(A, MU_SB));
    boolean(A, col(A, MU_K1));
    zero(A, sub(A, col(A, MU_UA), mul(A, col(A, MU_SA), add(A, mulh, mulhsu))));
    zero(A, sub(A, col(A, MU_UB), mul(A, col(A, MU_SB), mulh)));
    gs_expr t = col(A, MU_T);
    zero(A, mul(A, t, mul(A, sub(A, t, cst(A, 1)), sub(A, t, cst(A, 2)))));

    gs_expr a0 = col(A, MU_A0), a1 = col(A, MU_A1), b0 = col(A, MU_B0), b1 = col(A, MU_B1);
    gs_expr a = word(A, MU_A0), b = word(A, MU_B0), c = word(A, MU_C0);
    gs_expr k = word(A, MU_K0);
    gs_expr lo = word(A, MU_P0), hi = word(A, MU_P2);
    gs_expr mid = add(A, mul(A, a0, b1), mul(A, a1, b0));
    zero(A, sub(A, add(A, mul(A, a0, b0), scale(A, TWO16, mid)), add(A, lo, scale(A, TWO32, k))));
    zero(A, sub(A, add(A, mul(A, a1, b1), k), hi));
    zero(A, mul(A, smul, sub(A, lo, c)));
    gs_expr h = sub(A, sub(A, hi, mul(A, col(A, MU_UA), b)), mul(A, col(A, MU_UB), a));
    zero(A, mul(A, high, sub(A, add(A, h, scale(A, TWO32, t)), c)));

    gs_expr op = cst(A, 0);
    for (uint32_t i = 0; i < 4; i++) op = add(A, op, scale(A, ZK_ALU_MUL + i, col(A, MU_MUL + i)));
    receive_alu(A, op, a, b, c, real);
    range_signed_word(A, MU_A0, MU_SA, real);
    range_signed_word(A, MU_B0, MU_SB, real);
    range_word(A, MU_P0, real);
    range_word(A, MU_P2, real);
    range(A, col(A, MU_K0), real);
    range_word(A, MU_C0, real);
    return finish(A);
}

static void mul_row(zk_block *out, const void *ctx, size_t row, zk_lookups *lk) {
    const zk_chip_job *j = ctx;
    /* padding rows stay all zero (mul_rows fills [0, m) only) */
    uint32_t op = j->req[row].op, a = j->req[row].a, b = j->req[row].b;
    uint64_t P = (uint64_t)a * b;
    uint32_t a0 = a & 0xffffu, a1 = a >> 16, b0 = b & 0xffffu, b1 = b >> 16;
    uint64_t k = ((uint64_t)a0 * b0 + (((uint64_t)a0 * b1 + (uint64_t)a1 * b0) << 16)) >> 32;
    uint32_t sa = a >> 31, sb = b >> 31, ua = 0, ub = 0;
    if (op == ZK_ALU_MULH || op == ZK_ALU_MULHSU) ua = sa;
    if (op == ZK_ALU_MULH) ub = sb;
    /* h = P_hi - ua b - ub a is in (-2^33, 2^32); t lifts it into [0, 2^32) */
    int64_t h = (int64_t)(P >> 32) - (int64_t)(ua ? b : 0) - (int64_t)(ub ? a : 0);
    uint32_t t = 0;
    while (op != ZK_ALU_MUL && h < 0) h += (int64_t)TWO32, t++;
    uint32_t c = op == ZK_ALU_MUL ? (uint32_t)P : (uint32_t)h;
    zk_set(out, MU_MUL + (op - ZK_ALU_MUL), row, 1);
    put_word(out, MU_A0, row, a);
    put_word(out, MU_B0, row, b);
    zk_set(out, MU_SA, row, sa);
    zk_set(out, MU_SB, row, sb);
    zk_set(out, MU_UA, row, ua);
    zk_set(out, MU_UB, row, ub);
    put_word(out, MU_P0, row, (uint32_t)P);
    put_word(out, MU_P2, row, (uint32_t)(P >> 32));
    zk_set(out, MU_K0, row, k & 0xffffu);
    zk_set(out, MU_K1, row, k >> 16);
    zk_set(out, MU_T, row, t);
    put_word(out, MU_C0, row, c);
    look_signed_word(lk, a);
    look_signed_word(lk, b);
    look_word(lk, (uint32_t)P);
    look_word(lk, (uint32_t)(P >> 32));
    look(lk, (uint32_t)(k & 0xffffu));
    look_word(lk, c);
}

static void mul_rows(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    zk_fill_blocks(((const zk_chip_job *)ctx)->out, MU_NCOLS, begin, end, mul_row, ctx, lk);
}

gs_status zk_mul_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk) {
    return zk_chip_fill(out, MU_NCOLS, req, n, is_mul, 0, lk, mul_rows);
}

/* ================ divide: DIV DIVU REM REMU ================
 * Signed ops work on magnitudes: sgn = div + rem, na = sgn sa, nb = sgn sb
 * (sa, sb the sign bits of the words a, b), X = a + na (2^32 - 2 a) (|a|,
 * or a), and the word Y = b + nb (2^32 - 2 b) (|b|, or b): with na = 1 a
 * is >= 2^31, so X is in (0, 2^31]; Y likewise, and the identity defining
 * Y has both sides in [0, 2^32].
 * The unsigned core X = Q Y + R, words Q, R:
 *     Q1 Y1 = 0,   Q0 Y0 + R0 + 2^16 (Q0 Y1 + Q1 Y0 + R1) = X
 * The left side of the second is below 2^50 and X below 2^32, so it holds
 * over the integers, and Q Y + R is it plus 2^32 Q1 Y1 = X.
 * Y = 0 or not: zb with Y inv = 1 - zb and zb Y = 0 (zb = 1 exactly when
 * Y = 0). If Y != 0, the word D = (1 - zb)(Y - 1 - R) says R < Y, so Q, R are
 * the quotient and remainder of X by Y. If Y = 0 (b = 0): zb (Q - (2^32 - 1))
 * = 0, and the core gives R = X.
 * Results: the quotient is negative when exactly one of a, b is and b != 0:
 * xs = (na + nb - 2 na nb)(1 - zb); the remainder takes a's sign (na).
 * Flags nq, nr (boolean) with (nq - xs) Q = 0 and (nr - na) R = 0, and
 *     c = (div + divu)(Q + nq (2^32 - 2 Q)) + (rem + remu)(R + nr (2^32 - 2 R))
 * with c a word: a negated nonzero value is 2^32 - v; a zero one would be
 * 2^32, which the word c cannot hold, so the free flag of a zero result
 * must be 0. This gives truncating division with c in [0, 2^32):
 *  - b = 0: q = 2^32 - 1 (xs = 0, so nq = 0), r = R = |a| with a's sign = a;
 *  - INT_MIN / -1: X = 2^31, Y = 1, Q = 2^31, xs = 0: q = 2^31 = INT_MIN,
 *    r = 0. Both as the RISC-V spec says, with no special column. */
enum {
    DV_DIV, DV_DIVU, DV_REM, DV_REMU,
    DV_A0, DV_A1, DV_SA, DV_B0, DV_B1, DV_SB, DV_NA, DV_NB,
    DV_Y0, DV_Y1, DV_Q0, DV_Q1, DV_R0, DV_R1, DV_ZB, DV_INV, DV_D0, DV_D1,
    DV_XS, DV_NQ, DV_NR, DV_C0, DV_C1,
    DV_NCOLS
};
_Static_assert(DV_NCOLS <= ZK_BLOCK_COLS, "a zk_block holds every column");

gs_air *zk_div_air(void) {
    gs_air *A = gs_air_new("zkvm-div", DV_NCOLS, 0);
    if (!A) return NULL;
    gs_expr real = selectors(A, DV_DIV, 4);
    gs_expr sgn = add(A, col(A, DV_DIV), col(A, DV_REM));
    gs_expr quo = add(A, col(A, DV_DIV), col(A, DV_DIVU));
    gs_expr rem = add(A, col(A, DV_REM), col(A, DV_REMU));
    gs_expr one = cst(A, 1), two32 = cst(A, TWO32);
    gs_expr na = col(A, DV_NA), nb = col(A, DV_NB), zb = col(A, DV_ZB);
    boolean(A, col(A, DV_SA));
    boolean(A, col(A, DV_SB));
    zero(A, sub(A, na, mul(A, sgn, col(A, DV_SA))));
    zero(A, sub(A, nb, mul(A, sgn, col(A, DV_SB))));

    gs_expr a = word(A, DV_A0), b = word(A, DV_B0);
    gs_expr X = add(A, a, mul(A, na, sub(A, two32, scale(A, 2, a))));
    gs_expr Y = word(A, DV_Y0), Q = word(A, DV_Q0), R = word(A, DV_R0);
    zero(A, sub(A, Y, add(A, b, mul(A, nb, sub(A, two32, scale(A, 2, b))))));

    gs_expr q0 = col(A, DV_Q0), q1 = col(A, DV_Q1), y0 = col(A, DV_Y0), y1 = col(A, DV_Y1);
    zero(A, mul(A, q1, y1));
    gs_expr mid = add(A, add(A, mul(A, q0, y1), mul(A, q1, y0)), col(A, DV_R1));
    zero(A, sub(A, add(A, add(A, mul(A, q0, y0), col(A, DV_R0)), scale(A, TWO16, mid)), X));

    zero(A, sub(A, mul(A, Y, col(A, DV_INV)), sub(A, one, zb)));
    zero(A, mul(A, zb, Y));
    zero(A, mul(A, zb, sub(A, Q, cst(A, TWO32 - 1))));
    zero(A, sub(A, word(A, DV_D0), mul(A, sub(A, one, zb), sub(A, sub(A, Y, one), R))));

    gs_expr nq = col(A, DV_NQ), nr = col(A, DV_NR), xs = col(A, DV_XS);
    gs_expr sdiff = sub(A, add(A, na, nb), scale(A, 2, mul(A, na, nb)));
    zero(A, sub(A, xs, mul(A, sdiff, sub(A, one, zb))));
    boolean(A, nq);
    boolean(A, nr);
    zero(A, mul(A, sub(A, nq, xs), Q));
    zero(A, mul(A, sub(A, nr, na), R));
    gs_expr qo = add(A, Q, mul(A, nq, sub(A, two32, scale(A, 2, Q))));
    gs_expr ro = add(A, R, mul(A, nr, sub(A, two32, scale(A, 2, R))));
    gs_expr c = word(A, DV_C0);
    zero(A, sub(A, c, add(A, mul(A, quo, qo), mul(A, rem, ro))));

    gs_expr op = cst(A, 0);
    for (uint32_t i = 0; i < 4; i++) op = add(A, op, scale(A, ZK_ALU_DIV + i, col(A, DV_DIV + i)));
    receive_alu(A, op, a, b, c, real);
    range_signed_word(A, DV_A0, DV_SA, real);
    range_signed_word(A, DV_B0, DV_SB, real);
    range_word(A, DV_Y0, real);
    range_word(A, DV_Q0, real);
    range_word(A, DV_R0, real);
    range_word(A, DV_D0, real);
    range_word(A, DV_C0, real);
    return finish(A);
}

/* One row's witness (also the padding row: op 0, a = b = 0). */
static void div_row(zk_block *out, size_t row, uint32_t op, uint32_t a, uint32_t b, zk_lookups *lk) {
    int sgn = op == ZK_ALU_DIV || op == ZK_ALU_REM;
    uint32_t sa = a >> 31, sb = b >> 31, na = sgn && sa, nb = sgn && sb;
    uint32_t X = na ? 0u - a : a, Y = nb ? 0u - b : b;
    uint32_t Q = Y ? X / Y : 0xffffffffu, R = Y ? X % Y : X, D = Y ? Y - 1u - R : 0u;
    uint32_t xs = (na ^ nb) && Y, nq = Q ? xs : 0, nr = R ? na : 0;
    uint32_t qo = nq ? 0u - Q : Q, ro = nr ? 0u - R : R;
    uint32_t c = op == ZK_ALU_DIV || op == ZK_ALU_DIVU ? qo : op ? ro : 0;
    if (op) zk_set(out, DV_DIV + (op - ZK_ALU_DIV), row, 1);
    put_word(out, DV_A0, row, a);
    put_word(out, DV_B0, row, b);
    zk_set(out, DV_SA, row, sa);
    zk_set(out, DV_SB, row, sb);
    zk_set(out, DV_NA, row, na);
    zk_set(out, DV_NB, row, nb);
    put_word(out, DV_Y0, row, Y);
    put_word(out, DV_Q0, row, Q);
    put_word(out, DV_R0, row, R);
    zk_set(out, DV_ZB, row, Y == 0);
    zk_set(out, DV_INV, row, Y); /* inverted by the caller (0 stays 0) */
    put_word(out, DV_D0, row, D);
    zk_set(out, DV_XS, row, xs);
    zk_set(out, DV_NQ, row, nq);
    zk_set(out, DV_NR, row, nr);
    put_word(out, DV_C0, row, c);
    if (!op) return;
    look_signed_word(lk, a);
    look_signed_word(lk, b);
    look_word(lk, Y);
    look_word(lk, Q);
    look_word(lk, R);
    look_word(lk, D);
    look_word(lk, c);
}

static void div_one(zk_block *out, const void *ctx, size_t row, zk_lookups *lk) {
    const zk_chip_job *j = ctx;
    if (row < j->m) div_row(out, row, j->req[row].op, j->req[row].a, j->req[row].b, lk);
    else div_row(out, row, 0, 0, 0, NULL);
}

static void div_rows(void *ctx, size_t begin, size_t end, zk_lookups *lk) {
    const zk_chip_job *j = ctx;
    zk_fill_blocks(j->out, DV_NCOLS, begin, end, div_one, j, lk);
    zk_inv_in_place(zk_col(j->out, DV_INV) + begin, end - begin);
}

gs_status zk_div_fill(zk_table *out, const zk_alu_req *req, size_t n, zk_lookups *lk) {
    return zk_chip_fill(out, DV_NCOLS, req, n, is_div, 1, lk, div_rows);
}
