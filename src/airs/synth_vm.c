/* The vm preset's AIRs (gstark/synth.h): cpu, memory, range, bitwise, hash,
 * program. The traces are in synth_vm_trace.c.
 *
 * Words are two limbs lo + H hi with H the range table's height, so every
 * limb a table range-checks fits the range table at every shrink; W = H^2 is
 * the word bound (2^32 at full size: a product of two words stays below p). */
#include <stdlib.h>

#include "airs/synth_internal.h"

void gs_synth_vm_dims_of(gs_synth_vm_dims *d, unsigned shrink) {
    d->log_cpu = gs_synth_shrunk(20, shrink);
    d->log_mem = gs_synth_shrunk(19, shrink);
    d->log_range = gs_synth_shrunk(16, shrink);
    d->log_bit = gs_synth_shrunk(16, shrink);
    d->log_hash = gs_synth_shrunk(14, shrink);
    d->log_prog = gs_synth_shrunk(10, shrink);
    d->lx = (d->log_bit + 1) / 2;
    d->ly = d->log_bit / 2;
    d->H = (uint64_t)1 << d->log_range;
    d->W = d->H * d->H;
}

/* ---- hash permutation: 24 rounds of x -> (diag(d) + J) x^3 + rc ---- */

gs_fp gs_synth_hash_diag(uint32_t j) { return gs_synth_coef(0x4841534844ull, j); }
gs_fp gs_synth_hash_rc(uint32_t round, uint32_t j) {
    return gs_synth_coef(0x4841534852ull, (uint64_t)round * GS_SYNTH_HASH_WIDTH + j);
}

void gs_synth_hash_perm(gs_fp st[GS_SYNTH_HASH_WIDTH], gs_fp *states) {
    enum { T = GS_SYNTH_HASH_WIDTH };
    if (states)
        for (uint32_t j = 0; j < T; j++) states[j] = st[j];
    for (uint32_t k = 0; k < GS_SYNTH_HASH_ROUNDS; k++) {
        gs_fp c[T], sum = 0;
        for (uint32_t j = 0; j < T; j++) {
            c[j] = gs_fp_mul(gs_fp_sqr(st[j]), st[j]);
            sum = gs_fp_add(sum, c[j]);
        }
        for (uint32_t j = 0; j < T; j++) {
            st[j] = gs_fp_add(gs_fp_add(gs_fp_mul(gs_synth_hash_diag(j), c[j]), sum),
                              gs_synth_hash_rc(k, j));
            if (states) states[(k + 1) * T + j] = st[j];
        }
    }
}

/* ---- builder shorthands ---- */

typedef struct {
    gs_air *a;
    gs_fp H, W;
} bld;

static gs_expr C(bld *b, uint32_t c) { return gs_air_col(b->a, c); }
static gs_expr N(bld *b, uint32_t c) { return gs_air_next(b->a, c); }
static gs_expr K(bld *b, gs_fp v) { return gs_air_const(b->a, v); }
static gs_expr add(bld *b, gs_expr x, gs_expr y) { return gs_air_add(b->a, x, y); }
static gs_expr sub(bld *b, gs_expr x, gs_expr y) { return gs_air_sub(b->a, x, y); }
static gs_expr mul(bld *b, gs_expr x, gs_expr y) { return gs_air_mul(b->a, x, y); }
static void T(bld *b, gs_expr e) { gs_air_transition(b->a, e); }
/* x (x - 1) */
static gs_expr boolean(bld *b, gs_expr x) { return mul(b, x, sub(b, x, K(b, 1))); }
/* The word lo + H hi of two columns. */
static gs_expr word(bld *b, uint32_t lo) {
    return add(b, C(b, lo), mul(b, K(b, b->H), C(b, lo + 1)));
}
static void bound0(bld *b, uint32_t col, gs_fp v) { gs_air_boundary(b->a, col, 0, K(b, v)); }

/* ---- cpu ---- */

static void cpu_air(bld *b) {
    enum { SEL = GS_SYNTH_CPU_SEL };
    gs_expr one = K(b, 1);
    gs_expr s[GS_SYNTH_NUM_OPS]; /* s[op], op >= 1 */
    gs_expr sigma = K(b, 0), opcode = K(b, 0);
    for (uint32_t op = 1; op < GS_SYNTH_NUM_OPS; op++) {
        s[op] = C(b, SEL + op - 1);
        T(b, boolean(b, s[op]));
        sigma = add(b, sigma, s[op]);
        opcode = add(b, opcode, mul(b, K(b, op), s[op]));
    }
    T(b, boolean(b, sigma)); /* at most one opcode selector */
    gs_expr clk = C(b, GS_SYNTH_CPU_CLK), pc = C(b, GS_SYNTH_CPU_PC);
    T(b, sub(b, N(b, GS_SYNTH_CPU_CLK), add(b, clk, one)));
    gs_expr s_jmp = s[GS_SYNTH_OP_JMP];
    gs_expr pc_next = add(b, mul(b, sub(b, one, s_jmp), add(b, pc, one)),
                          mul(b, s_jmp, C(b, GS_SYNTH_CPU_IMM)));
    T(b, sub(b, N(b, GS_SYNTH_CPU_PC), pc_next));
    gs_expr hash_en = C(b, GS_SYNTH_CPU_HASH_EN);
    T(b, boolean(b, hash_en));
    T(b, mul(b, hash_en, sub(b, one, s[GS_SYNTH_OP_HASH])));

    gs_expr A = word(b, GS_SYNTH_CPU_A_LO), B = word(b, GS_SYNTH_CPU_B_LO);
    gs_expr R = word(b, GS_SYNTH_CPU_R_LO), EX = word(b, GS_SYNTH_CPU_EX_LO);
    gs_expr W = K(b, b->W);
    gs_expr carry = C(b, GS_SYNTH_CPU_CARRY), r_lo = C(b, GS_SYNTH_CPU_R_LO);
    /* add: a + b = r + W carry */
    T(b, boolean(b, carry));
    T(b, mul(b, s[GS_SYNTH_OP_ADD], sub(b, add(b, A, B), add(b, R, mul(b, W, carry)))));
    /* mul: a b = r + W ex (degree 3) */
    T(b, mul(b, s[GS_SYNTH_OP_MUL], sub(b, mul(b, A, B), add(b, R, mul(b, W, EX)))));
    /* lt: r = (a < b) and a - b + W r = ex, ex range-checked */
    gs_expr s_lt = s[GS_SYNTH_OP_LT];
    T(b, mul(b, s_lt, sub(b, add(b, sub(b, A, B), mul(b, W, r_lo)), EX)));
    T(b, mul(b, s_lt, C(b, GS_SYNTH_CPU_R_HI)));
    T(b, mul(b, s_lt, boolean(b, r_lo)));
    /* and / xor through the bitwise table: a = x, b = y, r = z or x + y - 2z */
    gs_expr x = C(b, GS_SYNTH_CPU_X), y = C(b, GS_SYNTH_CPU_Y), z = C(b, GS_SYNTH_CPU_Z);
    gs_expr s_bit = add(b, s[GS_SYNTH_OP_AND], s[GS_SYNTH_OP_XOR]);
    T(b, mul(b, s_bit, sub(b, A, x)));
    T(b, mul(b, s_bit, sub(b, B, y)));
    T(b, mul(b, s[GS_SYNTH_OP_AND], sub(b, R, z)));
    gs_expr xor = sub(b, add(b, x, y), mul(b, K(b, 2), z));
    T(b, mul(b, s[GS_SYNTH_OP_XOR], sub(b, R, xor)));
    /* load: r = mv; store: mv = b */
    gs_expr s_load = s[GS_SYNTH_OP_LOAD], s_store = s[GS_SYNTH_OP_STORE];
    for (uint32_t k = 0; k < 2; k++) {
        gs_expr mv = C(b, GS_SYNTH_CPU_MV_LO + k);
        T(b, mul(b, s_load, sub(b, C(b, GS_SYNTH_CPU_R_LO + k), mv)));
        T(b, mul(b, s_store, sub(b, mv, C(b, GS_SYNTH_CPU_B_LO + k))));
    }
    /* registers: w one-hot on rd for the writing opcodes; reg_k' = reg_k + w_k (r - reg_k) */
    gs_expr s_w = add(b, add(b, add(b, s[GS_SYNTH_OP_ADD], s[GS_SYNTH_OP_MUL]), s_lt),
                      add(b, s_bit, s_load));
    gs_expr wsum = K(b, 0), wrd = K(b, 0);
    for (uint32_t k = 0; k < 8; k++) {
        gs_expr w = C(b, GS_SYNTH_CPU_W + k), reg = C(b, GS_SYNTH_CPU_REG + k);
        T(b, boolean(b, w));
        wsum = add(b, wsum, w);
        wrd = add(b, wrd, mul(b, K(b, k), w));
        T(b, sub(b, N(b, GS_SYNTH_CPU_REG + k), add(b, reg, mul(b, w, sub(b, R, reg)))));
    }
    T(b, sub(b, wsum, s_w));
    T(b, sub(b, C(b, GS_SYNTH_CPU_RD), wrd));
    /* acc' = acc + r */
    T(b, sub(b, N(b, GS_SYNTH_CPU_ACC), add(b, C(b, GS_SYNTH_CPU_ACC), R)));

    bound0(b, GS_SYNTH_CPU_CLK, 0);
    bound0(b, GS_SYNTH_CPU_PC, 0);
    bound0(b, GS_SYNTH_CPU_ACC, 0);
    for (uint32_t k = 0; k < 8; k++) bound0(b, GS_SYNTH_CPU_REG + k, 0);
    gs_air_boundary(b->a, GS_SYNTH_CPU_ACC, -1, gs_air_public(b->a, 0));

    /* interactions */
    gs_expr prog[6] = {pc, opcode, C(b, GS_SYNTH_CPU_IMM), C(b, GS_SYNTH_CPU_RD),
                       C(b, GS_SYNTH_CPU_RS1), C(b, GS_SYNTH_CPU_RS2)};
    gs_air_send(b->a, GS_SYNTH_BUS_PROGRAM, prog, 6, one);
    static const uint32_t limbs[8] = {GS_SYNTH_CPU_A_LO, GS_SYNTH_CPU_A_HI, GS_SYNTH_CPU_B_LO,
                                      GS_SYNTH_CPU_B_HI, GS_SYNTH_CPU_R_LO, GS_SYNTH_CPU_R_HI,
                                      GS_SYNTH_CPU_EX_LO, GS_SYNTH_CPU_EX_HI};
    for (uint32_t k = 0; k < 8; k++) {
        gs_expr v = C(b, limbs[k]);
        gs_air_send(b->a, GS_SYNTH_BUS_RANGE, &v, 1, one);
    }
    gs_expr bit[3] = {x, y, z};
    gs_air_send(b->a, GS_SYNTH_BUS_BITWISE, bit, 3, s_bit);
    gs_expr memt[5] = {A, C(b, GS_SYNTH_CPU_MV_LO), C(b, GS_SYNTH_CPU_MV_HI), clk, s_store};
    gs_air_send(b->a, GS_SYNTH_BUS_MEMORY, memt, 5, add(b, s_load, s_store));
    gs_expr hash[3] = {A, B, C(b, GS_SYNTH_CPU_HOUT)};
    gs_air_send(b->a, GS_SYNTH_BUS_HASH, hash, 3, hash_en);
}

/* ---- memory: the access log sorted by (addr, ts) ---- */

static void memory_air(bld *b) {
    gs_expr one = K(b, 1);
    gs_expr addr = C(b, GS_SYNTH_MEM_ADDR), ts = C(b, GS_SYNTH_MEM_TS);
    gs_expr is_write = C(b, GS_SYNTH_MEM_IS_WRITE), active = C(b, GS_SYNTH_MEM_ACTIVE);
    gs_expr nw = C(b, GS_SYNTH_MEM_NEW), same = sub(b, one, nw);
    T(b, boolean(b, is_write));
    T(b, boolean(b, active));
    T(b, boolean(b, nw));
    gs_expr daddr = sub(b, N(b, GS_SYNTH_MEM_ADDR), addr);
    T(b, mul(b, same, daddr));
    /* ordering: diff = new ? addr' - addr - 1 : ts' - ts - 1, both limbs range-checked */
    gs_expr dts = sub(b, N(b, GS_SYNTH_MEM_TS), ts);
    gs_expr want = add(b, mul(b, nw, sub(b, daddr, one)), mul(b, same, sub(b, dts, one)));
    T(b, sub(b, word(b, GS_SYNTH_MEM_DIFF_LO), want));
    /* consistency: prev' = value on the same address, 0 on a new one; reads return prev */
    for (uint32_t k = 0; k < 2; k++) {
        gs_expr v = C(b, GS_SYNTH_MEM_V_LO + k), prev = C(b, GS_SYNTH_MEM_PREV_LO + k);
        gs_expr prev_next = N(b, GS_SYNTH_MEM_PREV_LO + k);
        T(b, mul(b, same, sub(b, prev_next, v)));
        T(b, mul(b, nw, prev_next));
        T(b, mul(b, sub(b, one, is_write), sub(b, v, prev)));
    }
    /* cnt: accesses to this address before this row */
    gs_expr cnt = C(b, GS_SYNTH_MEM_CNT);
    T(b, sub(b, N(b, GS_SYNTH_MEM_CNT), mul(b, same, add(b, cnt, one))));
    bound0(b, GS_SYNTH_MEM_ADDR, 0);
    bound0(b, GS_SYNTH_MEM_PREV_LO, 0);
    bound0(b, GS_SYNTH_MEM_PREV_HI, 0);
    bound0(b, GS_SYNTH_MEM_CNT, 0);
    gs_expr t[5] = {addr, C(b, GS_SYNTH_MEM_V_LO), C(b, GS_SYNTH_MEM_V_HI), ts, is_write};
    gs_air_receive(b->a, GS_SYNTH_BUS_MEMORY, t, 5, active);
    for (uint32_t k = 0; k < 2; k++) {
        gs_expr v = C(b, GS_SYNTH_MEM_DIFF_LO + k);
        gs_air_send(b->a, GS_SYNTH_BUS_RANGE, &v, 1, one);
    }
}

/* ---- range: 0..H-1 ---- */

static void range_air(bld *b) {
    gs_expr v = C(b, GS_SYNTH_RANGE_VALUE);
    T(b, sub(b, N(b, GS_SYNTH_RANGE_VALUE), add(b, v, K(b, 1))));
    bound0(b, GS_SYNTH_RANGE_VALUE, 0);
    gs_air_boundary(b->a, GS_SYNTH_RANGE_VALUE, -1, K(b, b->H - 1));
    gs_air_receive(b->a, GS_SYNTH_BUS_RANGE, &v, 1, C(b, GS_SYNTH_RANGE_MULT));
}

/* ---- bitwise: (x, y) in row order x 2^ly + y ---- */

static void bitwise_air(bld *b, const gs_synth_vm_dims *d) {
    gs_expr one = K(b, 1);
    gs_expr x = C(b, GS_SYNTH_BIT_X), y = C(b, GS_SYNTH_BIT_Y);
    gs_expr xn = N(b, GS_SYNTH_BIT_X), yn = N(b, GS_SYNTH_BIT_Y);
    gs_expr step = sub(b, yn, add(b, y, one));   /* 0 when y' = y + 1 */
    T(b, mul(b, step, yn));                       /* y' = y + 1 or y' = 0 */
    T(b, mul(b, sub(b, xn, x), yn));              /* y' != 0: x' = x */
    T(b, mul(b, sub(b, xn, add(b, x, one)), step)); /* a wrap: x' = x + 1 */
    T(b, mul(b, step, sub(b, y, K(b, ((gs_fp)1 << d->ly) - 1)))); /* wraps only at the top */
    bound0(b, GS_SYNTH_BIT_X, 0);
    bound0(b, GS_SYNTH_BIT_Y, 0);
    gs_air_boundary(b->a, GS_SYNTH_BIT_X, -1, K(b, ((gs_fp)1 << d->lx) - 1));
    gs_air_boundary(b->a, GS_SYNTH_BIT_Y, -1, K(b, ((gs_fp)1 << d->ly) - 1));
    /* z = x AND y is a fixed column: this AIR does not constrain it (gstark has no
     * preprocessed columns yet); the generator fills it. */
    gs_expr t[3] = {x, y, C(b, GS_SYNTH_BIT_Z)};
    gs_air_receive(b->a, GS_SYNTH_BUS_BITWISE, t, 3, C(b, GS_SYNTH_BIT_MULT));
}

/* ---- hash: one permutation call a row ---- */

static void hash_air(bld *b) {
    enum { TW = GS_SYNTH_HASH_WIDTH };
    for (uint32_t j = 2; j + 1 < TW; j++) T(b, C(b, j)); /* capacity starts at 0 */
    T(b, boolean(b, C(b, TW - 1)));                       /* the call flag */
    for (uint32_t k = 0; k < GS_SYNTH_HASH_ROUNDS; k++) {
        gs_expr c[TW], sum = K(b, 0);
        for (uint32_t j = 0; j < TW; j++) {
            c[j] = gs_air_pow(b->a, C(b, k * TW + j), 3);
            sum = add(b, sum, c[j]);
        }
        for (uint32_t j = 0; j < TW; j++) {
            gs_expr f = add(b, add(b, mul(b, K(b, gs_synth_hash_diag(j)), c[j]), sum),
                            K(b, gs_synth_hash_rc(k, j)));
            T(b, sub(b, C(b, (k + 1) * TW + j), f));
        }
    }
    gs_expr t[3] = {C(b, 0), C(b, 1), C(b, GS_SYNTH_HASH_ROUNDS * TW)};
    gs_air_receive(b->a, GS_SYNTH_BUS_HASH, t, 3, C(b, TW - 1));
}

/* ---- program: the ROM, pc = row ---- */

static void program_air(bld *b) {
    T(b, sub(b, N(b, GS_SYNTH_PROG_PC), add(b, C(b, GS_SYNTH_PROG_PC), K(b, 1))));
    bound0(b, GS_SYNTH_PROG_PC, 0);
    gs_expr t[6];
    for (uint32_t k = 0; k < 6; k++) t[k] = C(b, GS_SYNTH_PROG_PC + k);
    gs_air_receive(b->a, GS_SYNTH_BUS_PROGRAM, t, 6, C(b, GS_SYNTH_PROG_MULT));
}

gs_status gs_synth_vm_air(gs_air **out, int kind, unsigned shrink) {
    *out = NULL;
    gs_synth_vm_dims d;
    gs_synth_vm_dims_of(&d, shrink);
    static const struct {
        const char *name;
        uint32_t cols, pub;
    } shape[] = {
        [GS_SYNTH_K_CPU] = {"cpu", GS_SYNTH_CPU_COLS, 1},
        [GS_SYNTH_K_MEMORY] = {"memory", GS_SYNTH_MEM_COLS, 0},
        [GS_SYNTH_K_RANGE] = {"range", GS_SYNTH_RANGE_COLS, 0},
        [GS_SYNTH_K_BITWISE] = {"bitwise", GS_SYNTH_BIT_COLS, 0},
        [GS_SYNTH_K_HASH] = {"hash", GS_SYNTH_HASH_COLS, 0},
        [GS_SYNTH_K_PROGRAM] = {"program", GS_SYNTH_PROG_COLS, 0},
    };
    if (kind < GS_SYNTH_K_CPU || kind > GS_SYNTH_K_PROGRAM) return GS_ERR_INVALID_ARG;
    bld b = {gs_air_new(shape[kind].name, shape[kind].cols, shape[kind].pub), d.H, d.W};
    if (!b.a) return GS_ERR_NOMEM;
    switch (kind) {
    case GS_SYNTH_K_CPU: cpu_air(&b); break;
    case GS_SYNTH_K_MEMORY: memory_air(&b); break;
    case GS_SYNTH_K_RANGE: range_air(&b); break;
    case GS_SYNTH_K_BITWISE: bitwise_air(&b, &d); break;
    case GS_SYNTH_K_HASH: hash_air(&b); break;
    default: program_air(&b); break;
    }
    gs_status s = gs_air_finalize(b.a);
    if (s != GS_OK) {
        gs_air_free(b.a);
        return s;
    }
    *out = b.a;
    return GS_OK;
}
