/* The zkVM's shift, multiply and divide chips (src/zkvm/air_muldiv.c):
 * a requester table sends (op, a, b, c) on ZK_BUS_ALU and the chips, with
 * the range and byte tables, are proven with gs_prove_multi and verified
 * with gs_verify_multi_fixed. Every op on edge values (shift amounts 0, 1,
 * 31, 32, 33, 2^32 - 1; division by zero; INT_MIN / -1; negative operands)
 * and on random requests, c from the reference (zkvm_int.h). Refusals: a
 * requester's wrong c (the bus does not balance), and hand-edited chip
 * traces claiming a wrong c that satisfy the field identities but need a
 * limb outside the range table (GS_ERR_BUS_UNBALANCED; the AIR check alone
 * passes, so the lookups are what catches them) or break a constraint
 * (GS_ERR_AIR_UNSATISFIED). Empty request lists, ignored ops and a request
 * on the last row. */
#include <time.h>

#include "gstark/gstark.h"
#include "test_util.h"
#include "zkvm_chip_test.h"
#include "zkvm/zk_air.h"
#include "zkvm/zkvm_int.h"

/* Column layouts of the chips (private to air_muldiv.c): the attacks name
 * the columns they edit, and each checks first that the column holds the
 * honest value it expects, so a layout change there fails here loudly. */
enum { SH_SLL, SH_SRL, SH_SRA, SH_NS, SH_A, SH_C, SH_S0, SH_S1, SH_S2, SH_S3, SH_S4, SH_Q0, SH_Q1,
       SH_U, SH_PW15, SH_PW, SH_X0, SH_X1, SH_Y0, SH_Y1, SH_W0, SH_W1, SH_E0, SH_E1 };
enum { MU_MUL, MU_MULH, MU_MULHSU, MU_MULHU, MU_A0, MU_A1, MU_SA, MU_B0, MU_B1, MU_SB, MU_UA,
       MU_UB, MU_P0, MU_P1, MU_P2, MU_P3, MU_K0, MU_K1, MU_T, MU_C0, MU_C1 };
enum { DV_DIV, DV_DIVU, DV_REM, DV_REMU, DV_A0, DV_A1, DV_SA, DV_B0, DV_B1, DV_SB, DV_NA, DV_NB,
       DV_Y0, DV_Y1, DV_Q0, DV_Q1, DV_R0, DV_R1, DV_ZB, DV_INV, DV_D0, DV_D1, DV_XS, DV_NQ, DV_NR,
       DV_C0, DV_C1 };

/* The statement's tables, in order. */
enum { T_REQ, T_SHIFT, T_MUL, T_DIV, T_RANGE, T_BYTE, T_NUM };
static gs_air *airs[T_NUM];

static uint32_t reference(uint32_t op, uint32_t a, uint32_t b) {
    switch (op) {
    case ZK_ALU_SLL: return a << (b & 31);
    case ZK_ALU_SRL: return a >> (b & 31);
    case ZK_ALU_SRA: return zk_sra(a, b);
    case ZK_ALU_MUL: return a * b;
    case ZK_ALU_MULH: return zk_mulh(a, b);
    case ZK_ALU_MULHSU: return zk_mulhsu(a, b);
    case ZK_ALU_MULHU: return zk_mulhu(a, b);
    case ZK_ALU_DIV: return zk_div(a, b);
    case ZK_ALU_DIVU: return zk_divu(a, b);
    case ZK_ALU_REM: return zk_rem(a, b);
    case ZK_ALU_REMU: return zk_remu(a, b);
    }
    return 0;
}

static zk_alu_req rq(uint32_t op, uint32_t a, uint32_t b, uint32_t c) {
    return (zk_alu_req){.op = op, .a = a, .b = b, .c = c};
}

typedef struct stmt {
    zk_table t[T_NUM];
    zk_lookups *lk;
} stmt;

static void stmt_free(stmt *s) {
    for (int i = 0; i < T_NUM; i++) free(s->t[i].cols);
    free(s->lk);
}

/* Fills every table for the requests (req[i].c is what the requester
 * sends); the lookup tables are left for stmt_lookups, after any edits. */
static void stmt_fill(stmt *s, const zk_alu_req *req, size_t n) {
    memset(s, 0, sizeof *s);
    s->lk = calloc(1, sizeof *s->lk);
    CHECK(zk_table_alloc(&s->t[T_REQ], 5, n + 1) == GS_OK);
    for (size_t i = 0; i < n; i++) {
        zk_col(&s->t[T_REQ], 0)[i] = req[i].op;
        zk_col(&s->t[T_REQ], 1)[i] = req[i].a;
        zk_col(&s->t[T_REQ], 2)[i] = req[i].b;
        zk_col(&s->t[T_REQ], 3)[i] = req[i].c;
        zk_col(&s->t[T_REQ], 4)[i] = 1;
    }
    CHECK(zk_shift_fill(&s->t[T_SHIFT], req, n, s->lk) == GS_OK);
    CHECK(zk_mul_fill(&s->t[T_MUL], req, n, s->lk) == GS_OK);
    CHECK(zk_div_fill(&s->t[T_DIV], req, n, s->lk) == GS_OK);
}

static void stmt_lookups(stmt *s) {
    CHECK(zk_range_fill(&s->t[T_RANGE], s->lk) == GS_OK);
    CHECK(zk_byte_fill(&s->t[T_BYTE], s->lk) == GS_OK);
}

/* The AIR check of one table. */
static gs_status check_table(stmt *s, int t) {
    uint64_t row = 0;
    uint32_t con = 0;
    return gs_air_check_trace(airs[t], s->t[t].cols, s->t[t].log_n, NULL, &row, &con);
}

/* Proves the statement's first n tables; when that succeeds, verifies it
 * (the fixed columns of the lookup tables from their fill with no counts).
 * The chips make no byte lookups, so the refusals leave the byte table out
 * (n = T_BYTE): half the time, the same verdict. */
static gs_status stmt_prove_n(stmt *s, uint32_t n) {
    gs_table_input in[T_NUM];
    for (uint32_t i = 0; i < n; i++)
        in[i] = (gs_table_input){.air = airs[i], .trace = s->t[i].cols, .log_n = s->t[i].log_n};
    gs_params par = zkt_params();
    gs_multi_proof *mp = NULL;
    gs_status st = gs_prove_multi(&mp, in, n, &par, NULL);
    if (st == GS_OK) {
        zk_table rf = {0}, bf = {0};
        CHECK(zk_range_fill(&rf, NULL) == GS_OK && zk_byte_fill(&bf, NULL) == GS_OK);
        gs_fixed_col fx[1 + ZK_BYTE_FIXED];
        fx[0] = (gs_fixed_col){.table = T_RANGE, .col = 0, .log_n = rf.log_n, .values = zk_col(&rf, 0)};
        for (uint32_t c = 0; c < ZK_BYTE_FIXED; c++)
            fx[1 + c] = (gs_fixed_col){.table = T_BYTE, .col = c, .log_n = bf.log_n, .values = zk_col(&bf, c)};
        size_t nfx = n > T_BYTE ? 1 + ZK_BYTE_FIXED : 1;
        gs_status v = gs_verify_multi_fixed((const gs_air *const *)airs, n, mp, fx, nfx, 0);
        if (v != GS_OK) fprintf(stderr, "verify: %s\n", gs_status_str(v));
        CHECK(v == GS_OK);
        free(rf.cols), free(bf.cols);
    }
    gs_multi_proof_free(mp);
    return st;
}
static gs_status stmt_prove(stmt *s) { return stmt_prove_n(s, T_NUM); }
static gs_status stmt_refuse(stmt *s) { return stmt_prove_n(s, T_BYTE); }

static const uint32_t edges[] = {0, 1, 2, 3, 7, 31, 32, 33, 0x7fffffffu, 0x80000000u, 0x80000001u,
                                 0xfffffffeu, 0xffffffffu, 0xfffffff9u, 0x12345678u};
#define NEDGE (sizeof edges / sizeof edges[0])

static uint32_t rand_word(void) {
    uint64_t r = gs_test_u64();
    if ((r & 7) == 0) return edges[(r >> 3) % NEDGE];
    if ((r & 7) == 1) return (uint32_t)(r >> 32) & 0xffu; /* small */
    if ((r & 7) == 2) return 0u - ((uint32_t)(r >> 32) & 0xffu); /* small negative */
    return (uint32_t)(r >> 32);
}

/* Every op on every pair of edge values and on random requests: the chips'
 * constraints hold, and the statement proves and verifies. */
static void test_honest(void) {
    size_t cap = 11 * NEDGE * NEDGE + 3000, n = 0;
    zk_alu_req *req = calloc(cap, sizeof *req);
    for (uint32_t op = ZK_ALU_SLL; op <= ZK_ALU_REMU; op++)
        for (size_t i = 0; i < NEDGE; i++)
            for (size_t j = 0; j < NEDGE; j++)
                req[n++] = rq(op, edges[i], edges[j], reference(op, edges[i], edges[j]));
    while (n < cap) {
        uint32_t op = ZK_ALU_SLL + (uint32_t)gs_test_below(ZK_ALU_REMU - ZK_ALU_SLL + 1);
        uint32_t a = rand_word(), b = rand_word();
        req[n++] = rq(op, a, b, reference(op, a, b));
    }
    /* spot values against the spec, independent of zkvm_int.h */
    CHECK_EQ_U64(reference(ZK_ALU_DIV, 0x80000000u, 0xffffffffu), 0x80000000u);
    CHECK_EQ_U64(reference(ZK_ALU_REM, 0x80000000u, 0xffffffffu), 0);
    CHECK_EQ_U64(reference(ZK_ALU_DIV, 5, 0), 0xffffffffu);
    CHECK_EQ_U64(reference(ZK_ALU_REMU, 5, 0), 5);
    CHECK_EQ_U64(reference(ZK_ALU_REM, 0xfffffff9u, 2), 0xffffffffu); /* -7 % 2 = -1 */
    CHECK_EQ_U64(reference(ZK_ALU_DIV, 0xfffffff9u, 2), 0xfffffffdu); /* -7 / 2 = -3 */
    CHECK_EQ_U64(reference(ZK_ALU_SRA, 0x80000000u, 33), 0xc0000000u);
    CHECK_EQ_U64(reference(ZK_ALU_MULHSU, 0xffffffffu, 0xffffffffu), 0xffffffffu);

    stmt s;
    stmt_fill(&s, req, n);
    stmt_lookups(&s);
    for (int t = T_SHIFT; t <= T_DIV; t++) CHECK(check_table(&s, t) == GS_OK);
    CHECK(gs_air_max_degree(airs[T_SHIFT]) <= 3 && gs_air_max_degree(airs[T_MUL]) <= 3 &&
          gs_air_max_degree(airs[T_DIV]) <= 3);
    gs_status st = stmt_prove(&s);
    if (st != GS_OK) fprintf(stderr, "honest: %s\n", gs_status_str(st));
    CHECK(st == GS_OK);
    printf("%zu requests: shift 2^%u, mul 2^%u, div 2^%u rows; proved and verified\n", n,
           s.t[T_SHIFT].log_n, s.t[T_MUL].log_n, s.t[T_DIV].log_n);
    stmt_free(&s);

    /* a wrong c from the requester, per op: the chips fill honestly and the
     * ALU bus does not balance */
    for (uint32_t op = ZK_ALU_SLL; op <= ZK_ALU_REMU; op++) {
        zk_alu_req r[2] = {rq(op, 0x80000000u, 0xffffffffu, 0), rq(op, 1234567u, 33u, 0)};
        for (int k = 0; k < 2; k++) r[k].c = reference(op, r[k].a, r[k].b);
        r[1].c ^= 1u << (op % 32);
        stmt_fill(&s, r, 2);
        stmt_lookups(&s);
        CHECK(stmt_refuse(&s) == GS_ERR_BUS_UNBALANCED);
        stmt_free(&s);
    }
    free(req);
}

/* Many random requests, no proof: every chip's c column is the reference
 * value, its trace satisfies its AIR, and its fill counted one range lookup
 * per lookup its rows send (11 per shift row, 13 per mul row, 16 per div). */
static void test_wide(void) {
    size_t n = 40000;
    zk_alu_req *req = calloc(n, sizeof *req);
    size_t per_op[ZK_ALU_NUM_OPS] = {0};
    for (size_t i = 0; i < n; i++) {
        uint32_t op = ZK_ALU_ADD + (uint32_t)gs_test_below(ZK_ALU_NUM_OPS - 1);
        req[i] = rq(op, rand_word(), rand_word(), 0);
        per_op[op]++;
    }
    stmt s;
    stmt_fill(&s, req, n);
    size_t rows[T_NUM] = {0};
    for (size_t i = 0; i < n; i++) {
        uint32_t op = req[i].op, want = reference(op, req[i].a, req[i].b);
        int t = op < ZK_ALU_SLL ? -1 : op <= ZK_ALU_SRA ? T_SHIFT : op <= ZK_ALU_MULHU ? T_MUL : T_DIV;
        if (t < 0) continue;
        size_t r = rows[t]++;
        gs_fp c = t == T_SHIFT ? zk_col(&s.t[t], SH_C)[r]
                  : t == T_MUL ? zk_col(&s.t[t], MU_C0)[r] + (zk_col(&s.t[t], MU_C1)[r] << 16)
                               : zk_col(&s.t[t], DV_C0)[r] + (zk_col(&s.t[t], DV_C1)[r] << 16);
        if (c != want)
            fprintf(stderr, "op %u a 0x%08x b 0x%08x: chip 0x%" PRIx64 ", reference 0x%08x\n", op,
                    req[i].a, req[i].b, c, want);
        CHECK(c == want);
    }
    for (int t = T_SHIFT; t <= T_DIV; t++) {
        CHECK(rows[t] < ((size_t)1 << s.t[t].log_n));
        CHECK(check_table(&s, t) == GS_OK);
    }
    uint64_t looked = 0;
    for (uint32_t v = 0; v < (1u << 16); v++) looked += s.lk->range16[v];
    CHECK_EQ_U64(looked, 11 * rows[T_SHIFT] + 13 * rows[T_MUL] + 16 * rows[T_DIV]);
    for (uint32_t op = 0; op + 1 < ZK_BYTE_NUM_OPS; op++)
        for (uint32_t v = 0; v < (1u << 16); v++) CHECK(s.lk->byte[op][v] == 0);
    printf("%zu random requests (%zu shift, %zu mul, %zu div): chip values and constraints ok\n", n,
           rows[T_SHIFT], rows[T_MUL], rows[T_DIV]);
    stmt_free(&s);
    free(req);
}

/* No requests, and requests only for ops no chip here handles: all padding. */
static void test_empty(void) {
    stmt s;
    stmt_fill(&s, NULL, 0);
    stmt_lookups(&s);
    CHECK(s.t[T_SHIFT].log_n == ZK_MIN_LOG_N && s.t[T_MUL].log_n == ZK_MIN_LOG_N &&
          s.t[T_DIV].log_n == ZK_MIN_LOG_N);
    CHECK(stmt_prove(&s) == GS_OK);
    stmt_free(&s);

    /* ignored ops take no row; the row count follows the handled ones */
    zk_alu_req r[40];
    for (int i = 0; i < 40; i++) r[i] = rq(ZK_ALU_ADD + (uint32_t)(i % 8), 1, 2, 3);
    r[7] = rq(ZK_ALU_MUL, 6, 7, 42);
    zk_table t = {0};
    zk_lookups *lk = calloc(1, sizeof *lk);
    CHECK(zk_mul_fill(&t, r, 40, lk) == GS_OK && t.log_n == ZK_MIN_LOG_N);
    CHECK(zk_col(&t, MU_MUL)[0] == 1 && zk_col(&t, MU_C0)[0] == 42);
    for (uint32_t row = 1; row < 16; row++) CHECK(zk_col(&t, MU_MUL)[row] == 0);
    free(t.cols), free(lk);
    /* a table exactly full of requests still gets a padding row (2^5 rows) */
    zk_alu_req full[16];
    for (int i = 0; i < 16; i++) full[i] = rq(ZK_ALU_DIVU, 100, (uint32_t)i, 0);
    CHECK(zk_div_fill(&t, full, 16, NULL) == GS_OK && t.log_n == ZK_MIN_LOG_N + 1);
    free(t.cols);
}

/* ---- hand-edited chip traces ---- */
static gs_fp get(stmt *s, int t, uint32_t c) { return zk_col(&s->t[t], c)[0]; }
/* Writes a value on row 0 and moves its range-table count: the attacker
 * keeps every lookup count consistent; a value outside [0, 2^16) has no row
 * to count it, and that is all that can stop it. */
static void set(stmt *s, int t, uint32_t c, gs_fp v, int looked_up) {
    gs_fp old = get(s, t, c);
    if (looked_up) {
        if (old < (1u << 16)) s->lk->range16[old]--;
        if (v < (1u << 16)) s->lk->range16[v]++;
    }
    zk_col(&s->t[t], c)[0] = v;
}
static void set_word(stmt *s, int t, uint32_t lo, uint32_t v) {
    set(s, t, lo, v & 0xffffu, 1);
    set(s, t, lo + 1, v >> 16, 1);
}
static gs_fp fneg(gs_fp v) { return gs_fp_neg(v); }

/* One request whose requester claims c; edit() rewrites the chip's row 0.
 * want_check: gs_air_check_trace of that chip; want_prove: the statement. */
static void attack(const char *what, uint32_t op, uint32_t a, uint32_t b, uint32_t c,
                   void (*edit)(stmt *), gs_status want_check, gs_status want_prove) {
    int t = op <= ZK_ALU_SRA ? T_SHIFT : op <= ZK_ALU_MULHU ? T_MUL : T_DIV;
    zk_alu_req r = rq(op, a, b, c);
    stmt s;
    CHECK(c != reference(op, a, b));
    stmt_fill(&s, &r, 1);
    edit(&s);
    stmt_lookups(&s);
    gs_status ck = check_table(&s, t), pr = stmt_refuse(&s);
    if (ck != want_check || pr != want_prove)
        fprintf(stderr, "attack %s: check %s, prove %s\n", what, gs_status_str(ck), gs_status_str(pr));
    CHECK(ck == want_check);
    CHECK(pr == want_prove);
    stmt_free(&s);
}

/* MULHU(3, 5) = 0 claimed as 0xffffffff: the product taken as 15 + p =
 * 0xffffffff_00000010 (the 64-bit product wrapped by p): limbs p0 = 16,
 * p2 = p3 = 0xffff; the carry k0 = 2^32 - 1 makes both identities hold in
 * the field, and k0 is no 16-bit value. */
static void edit_mul_wrap(stmt *s) {
    CHECK(get(s, T_MUL, MU_P0) == 15 && get(s, T_MUL, MU_MULHU) == 1);
    set(s, T_MUL, MU_P0, 16, 1);
    set(s, T_MUL, MU_P2, 0xffff, 1);
    set(s, T_MUL, MU_P3, 0xffff, 1);
    set(s, T_MUL, MU_K0, 0xffffffffu, 1);
    set_word(s, T_MUL, MU_C0, 0xffffffffu);
}
/* MULH(-1, 1) = -1 claimed as 0: a's sign bit cleared (a1 - 2^15 sa =
 * 0xffff, and that + 2^15 is no 16-bit value). */
static void edit_mul_sign(stmt *s) {
    CHECK(get(s, T_MUL, MU_SA) == 1 && get(s, T_MUL, MU_UA) == 1 && get(s, T_MUL, MU_T) == 1);
    s->lk->range16[0x7fff]--, s->lk->range16[0xffff]--; /* a1 - 2^15 sa, + 2^15 */
    s->lk->range16[0xffff]++;                             /* the new a1 - 0; + 2^15 fits nowhere */
    set(s, T_MUL, MU_SA, 0, 0);
    set(s, T_MUL, MU_UA, 0, 0);
    set(s, T_MUL, MU_T, 0, 0);
    set_word(s, T_MUL, MU_C0, 0);
}
/* MUL(3, 5) claimed as 16 with only c changed: a constraint fails. */
static void edit_mul_c(stmt *s) { set_word(s, T_MUL, MU_C0, 16); }

/* DIVU(10, 3): Q = 2, R = 4 >= 3, so D = Y - 1 - R = -2. */
static void edit_div_big_r(stmt *s) {
    CHECK(get(s, T_DIV, DV_Q0) == 3 && get(s, T_DIV, DV_R0) == 1 && get(s, T_DIV, DV_D0) == 1);
    set_word(s, T_DIV, DV_Q0, 2);
    set_word(s, T_DIV, DV_R0, 4);
    set(s, T_DIV, DV_D0, fneg(2), 1);
    set_word(s, T_DIV, DV_C0, 2);
}
/* The same with D left as it was: the D identity fails. */
static void edit_div_big_r_d(stmt *s) {
    set_word(s, T_DIV, DV_Q0, 2);
    set_word(s, T_DIV, DV_R0, 4);
    set_word(s, T_DIV, DV_C0, 2);
}
/* DIVU(10, 3): q one too big, Q = 4, with r adjusted: R = -2 = p - 2 (then
 * D = 3 - 1 - R = 4 is a fine word). */
static void edit_div_q_plus(stmt *s) {
    set_word(s, T_DIV, DV_Q0, 4);
    set(s, T_DIV, DV_R0, fneg(2), 1);
    set_word(s, T_DIV, DV_D0, 4);
    set_word(s, T_DIV, DV_C0, 4);
}
/* REMU(10, 3) = 1 claimed as 4 (Q = 2, R = 4, D = -2). */
static void edit_rem_big_r(stmt *s) {
    set_word(s, T_DIV, DV_Q0, 2);
    set_word(s, T_DIV, DV_R0, 4);
    set(s, T_DIV, DV_D0, fneg(2), 1);
    set_word(s, T_DIV, DV_C0, 4);
}
/* DIV(-7, 2) = -3 claimed as 3: the quotient's sign flag cleared. */
static void edit_div_sign(stmt *s) {
    CHECK(get(s, T_DIV, DV_NQ) == 1 && get(s, T_DIV, DV_XS) == 1);
    set(s, T_DIV, DV_NQ, 0, 0);
    set_word(s, T_DIV, DV_C0, 3);
}
/* DIV(5, 0) = -1 claimed as 0 with Q = 0 and nothing else changed. */
static void edit_div_zero(stmt *s) {
    CHECK(get(s, T_DIV, DV_ZB) == 1);
    set_word(s, T_DIV, DV_Q0, 0);
    set_word(s, T_DIV, DV_C0, 0);
}
/* SRL(100, 2) = 25 claimed as 24 with remainder 4 = pow: e = pow - 1 - r = -1. */
static void edit_srl_r(stmt *s) {
    CHECK(get(s, T_SHIFT, SH_PW) == 4 && get(s, T_SHIFT, SH_X0) == 25 && get(s, T_SHIFT, SH_E0) == 3);
    set_word(s, T_SHIFT, SH_X0, 24);
    set_word(s, T_SHIFT, SH_W0, 4);
    set(s, T_SHIFT, SH_E0, fneg(1), 1);
    set(s, T_SHIFT, SH_C, 24, 0);
}
/* SLL(1, 0) = 1 claimed as 2: x pw = y + 2^32 w needs w = -1 / 2^32 mod p. */
static void edit_sll_wrap(stmt *s) {
    CHECK(get(s, T_SHIFT, SH_PW) == 1 && get(s, T_SHIFT, SH_Y0) == 1);
    gs_fp w = fneg(gs_fp_inv((gs_fp)1 << 32));
    set_word(s, T_SHIFT, SH_Y0, 2);
    set(s, T_SHIFT, SH_W0, w, 1);
    set(s, T_SHIFT, SH_E0, fneg(w), 1);
    set(s, T_SHIFT, SH_C, 2, 0);
}
/* SRA(0x80000000, 1) claimed as the logical 0x40000000: ns cleared, so
 * y = a = 2^31 and y1 + 2^15 = 2^16 is no 16-bit value. */
static void edit_sra_ns(stmt *s) {
    CHECK(get(s, T_SHIFT, SH_NS) == 1 && get(s, T_SHIFT, SH_SRA) == 1);
    set(s, T_SHIFT, SH_NS, 0, 0);
    set_word(s, T_SHIFT, SH_Y0, 0x80000000u);
    set_word(s, T_SHIFT, SH_X0, 0x40000000u);
    set_word(s, T_SHIFT, SH_W0, 0);
    set_word(s, T_SHIFT, SH_E0, 1);
    s->lk->range16[0x7fff + 0x8000]--; /* the old y1 + 2^15; the new one fits nowhere */
    set(s, T_SHIFT, SH_C, 0x40000000u, 0);
}
/* SLL(1, 33) = 2 claimed as 1: the shift amount taken as 0 with q = 33 / 32
 * mod p, which makes b's decomposition hold in the field but is no 16-bit
 * limb. */
static void edit_sll_amount(stmt *s) {
    CHECK(get(s, T_SHIFT, SH_Q0) == 1 && get(s, T_SHIFT, SH_S0) == 1 && get(s, T_SHIFT, SH_E0) == 1);
    set(s, T_SHIFT, SH_S0, 0, 0);
    set(s, T_SHIFT, SH_U, 1, 0);
    set(s, T_SHIFT, SH_PW15, 1, 0);
    set(s, T_SHIFT, SH_PW, 1, 0);
    set_word(s, T_SHIFT, SH_Y0, 1);
    set_word(s, T_SHIFT, SH_E0, 0);
    set(s, T_SHIFT, SH_Q0, gs_fp_mul(33, gs_fp_inv(32)), 1);
    set(s, T_SHIFT, SH_C, 1, 0);
}
/* The same with q left at 1: the constraints hold, but the b the chip
 * receives is 0 + 32 q = 32, not the 33 that was sent. */
static void edit_sll_amount_q(stmt *s) {
    set(s, T_SHIFT, SH_S0, 0, 0);
    set(s, T_SHIFT, SH_U, 1, 0);
    set(s, T_SHIFT, SH_PW15, 1, 0);
    set(s, T_SHIFT, SH_PW, 1, 0);
    set_word(s, T_SHIFT, SH_Y0, 1);
    set_word(s, T_SHIFT, SH_E0, 0);
    set(s, T_SHIFT, SH_C, 1, 0);
}

/* A request on the last row, where no transition is checked: even a copy
 * of an honest row is refused there, by the selectors' boundaries. */
static void test_last_row(void) {
    static const struct {
        int t;
        uint32_t op;
        gs_status (*fill)(zk_table *, const zk_alu_req *, size_t, zk_lookups *);
    } chips[] = {{T_SHIFT, ZK_ALU_SRA, zk_shift_fill}, {T_MUL, ZK_ALU_MULH, zk_mul_fill},
                 {T_DIV, ZK_ALU_REM, zk_div_fill}};
    for (size_t k = 0; k < sizeof chips / sizeof chips[0]; k++) {
        zk_alu_req r = rq(chips[k].op, 0xfffffff9u, 2, 0);
        zk_table t = {0};
        CHECK(chips[k].fill(&t, &r, 1, NULL) == GS_OK);
        CHECK(gs_air_check_trace(airs[chips[k].t], t.cols, t.log_n, NULL, NULL, NULL) == GS_OK);
        size_t last = ((size_t)1 << t.log_n) - 1;
        for (uint32_t c = 0; c < t.num_cols; c++) zk_col(&t, c)[last] = zk_col(&t, c)[0];
        uint64_t row = 0;
        uint32_t con = 0;
        CHECK(gs_air_check_trace(airs[chips[k].t], t.cols, t.log_n, NULL, &row, &con) ==
              GS_ERR_AIR_UNSATISFIED);
        CHECK(row == last && con >= gs_air_num_transitions(airs[chips[k].t]));
        free(t.cols);
    }
}

static void test_attacks(void) {
    const gs_status OK = GS_OK, UNSAT = GS_ERR_AIR_UNSATISFIED, UNBAL = GS_ERR_BUS_UNBALANCED;
    attack("mulhu product wrapped by p", ZK_ALU_MULHU, 3, 5, 0xffffffffu, edit_mul_wrap, OK, UNBAL);
    attack("mulh sign bit cleared", ZK_ALU_MULH, 0xffffffffu, 1, 0, edit_mul_sign, OK, UNBAL);
    attack("mul c alone", ZK_ALU_MUL, 3, 5, 16, edit_mul_c, UNSAT, UNSAT);
    attack("divu remainder >= divisor", ZK_ALU_DIVU, 10, 3, 2, edit_div_big_r, OK, UNBAL);
    attack("divu remainder >= divisor, d kept", ZK_ALU_DIVU, 10, 3, 2, edit_div_big_r_d, UNSAT, UNSAT);
    attack("divu q + 1, r - divisor", ZK_ALU_DIVU, 10, 3, 4, edit_div_q_plus, OK, UNBAL);
    attack("remu remainder >= divisor", ZK_ALU_REMU, 10, 3, 4, edit_rem_big_r, OK, UNBAL);
    attack("div quotient sign", ZK_ALU_DIV, 0xfffffff9u, 2, 3, edit_div_sign, UNSAT, UNSAT);
    attack("div by zero, q = 0", ZK_ALU_DIV, 5, 0, 0, edit_div_zero, UNSAT, UNSAT);
    attack("srl remainder = pow", ZK_ALU_SRL, 100, 2, 24, edit_srl_r, OK, UNBAL);
    attack("sll wrapped by p", ZK_ALU_SLL, 1, 0, 2, edit_sll_wrap, OK, UNBAL);
    attack("sra as srl", ZK_ALU_SRA, 0x80000000u, 1, 0x40000000u, edit_sra_ns, OK, UNBAL);
    attack("sll amount 0 for b = 33", ZK_ALU_SLL, 1, 33, 1, edit_sll_amount, OK, UNBAL);
    attack("sll amount 0 for b = 33, q kept", ZK_ALU_SLL, 1, 33, 1, edit_sll_amount_q, OK, UNBAL);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define TIMED(call)                                                  \
    do {                                                             \
        double t0_ = now();                                          \
        call;                                                        \
        printf("%-16s %6.2f s\n", #call, now() - t0_);               \
    } while (0)

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    airs[T_REQ] = zkt_requester_air("test-alu-requester", ZK_BUS_ALU, 4);
    airs[T_SHIFT] = zk_shift_air();
    airs[T_MUL] = zk_mul_air();
    airs[T_DIV] = zk_div_air();
    airs[T_RANGE] = zk_range_air();
    airs[T_BYTE] = zk_byte_air();
    for (int i = 0; i < T_NUM; i++) CHECK(airs[i] != NULL);
    if (gs_test_failures) return gs_test_done();
    TIMED(test_wide());
    TIMED(test_empty());
    TIMED(test_last_row());
    TIMED(test_attacks());
    TIMED(test_honest());
    for (int i = 0; i < T_NUM; i++) gs_air_free(airs[i]);
    return gs_test_done();
}
