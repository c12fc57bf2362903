/* The load/store chip (src/zkvm/air_ls.c): requests from a reference model of
 * a small memory (the executor's semantics: lb/lh sign-extend, lbu/lhu
 * zero-extend, sb/sh replace bytes, little-endian) are proven with a
 * requester table, a stand-in memory table (initial and final tuples), the
 * range and byte tables, and verified. Wrong loads, stale reads, stores to
 * read-only words, misaligned and register-space accesses and hand-edited
 * chip traces are refused with the specific code. */
#include "gstark/gstark.h"
#include "gstark/zkvm.h"
#include "zkvm/zk_air.h"
#include "test_util.h"
#include "zkvm_chip_test.h"

/* The chip's column layout (air_ls.c), for the hand edits; check_layout
 * pins it against a filled trace. */
enum {
    C_LB, C_LH, C_LW, C_LBU, C_LHU, C_SB, C_SH, C_SW,
    C_BASE, C_IMM, C_VAL, C_RES, C_CLK,
    C_CARRY, C_ALO, C_AHI, C_O0, C_O1,
    C_B0, C_B1, C_B2, C_B3, C_W, C_AFTER, C_DLO, C_DHI,
    C_V0, C_V1, C_VHI,
    C_HLO, C_HHI, C_BSEL, C_P, C_S, C_X,
    LS_COLS
};

/* ---- the reference model ---- */
#define MAX_WORDS 12
#define MAX_REQ 512
typedef struct {
    uint32_t addr[MAX_WORDS], init[MAX_WORDS], val[MAX_WORDS], w[MAX_WORDS];
    uint64_t ts[MAX_WORDS];
    size_t n_words;
    uint64_t clk;
    zk_ls_req req[MAX_REQ];
    size_t n;
} model;

static const uint32_t k_init[8] = {0x8081ff7fu, 0x7f80ff01u, 0xdeadbeefu, 0x01234567u,
                                   0xffffffffu, 0x00000080u, 0x80ff7f80u, 0xff7f8000u};
#define RO_FIRST 6 /* words 6 and 7 are read-only (text) */

static void model_init(model *m) {
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < 8; i++) {
        m->addr[i] = GS_ZKVM_MEM_LO + 4 * (uint32_t)i;
        m->init[i] = m->val[i] = k_init[i];
        m->w[i] = i < RO_FIRST;
    }
    m->n_words = 8;
}

static size_t model_add_word(model *m, uint32_t addr, uint32_t v, uint32_t w) {
    size_t i = m->n_words++;
    m->addr[i] = addr, m->init[i] = m->val[i] = v, m->w[i] = w, m->ts[i] = 0;
    return i;
}

/* A misaligned access (which the executor faults on) is modelled at the
 * offset rounded down to its size: the most plausible lie, which only the
 * chip's alignment constraints refuse. */
static uint32_t size_of(uint32_t op) {
    return op == ZK_LS_LW || op == ZK_LS_SW ? 4 : op == ZK_LS_LH || op == ZK_LS_LHU || op == ZK_LS_SH ? 2 : 1;
}

static uint32_t load_ref(uint32_t op, uint32_t word, uint32_t off) {
    off &= ~(size_of(op) - 1);
    uint32_t v = word >> (8 * off);
    switch (op) {
    case ZK_LS_LB: return (uint32_t)(int32_t)(int8_t)(uint8_t)v;
    case ZK_LS_LBU: return v & 0xffu;
    case ZK_LS_LH: return (uint32_t)(int32_t)(int16_t)(uint16_t)v;
    case ZK_LS_LHU: return v & 0xffffu;
    default: return v;
    }
}

static uint32_t store_ref(uint32_t op, uint32_t word, uint32_t off, uint32_t val) {
    uint32_t mask = op == ZK_LS_SB ? 0xffu : op == ZK_LS_SH ? 0xffffu : 0xffffffffu;
    off &= ~(size_of(op) - 1);
    if (op == ZK_LS_SW) return val;
    return (word & ~(mask << (8 * off))) | ((val & mask) << (8 * off));
}

/* One access to word wi at byte offset off (not checked: the refusal tests
 * make misaligned ones). The model applies it whatever the word's w. */
static zk_ls_req *model_access(model *m, uint32_t op, size_t wi, uint32_t off, uint32_t val) {
    zk_ls_req *q = &m->req[m->n++];
    m->clk += 1 + gs_test_below(3);
    const uint32_t addr = m->addr[wi] + off;
    int32_t imm = (int32_t)gs_test_below(4096) - 2048; /* negative ones carry */
    q->op = op, q->imm = (uint32_t)imm, q->base = addr - (uint32_t)imm, q->clk = m->clk;
    q->waddr = m->addr[wi], q->before = m->val[wi], q->ts_prev = m->ts[wi], q->w = m->w[wi];
    if (op >= ZK_LS_SB) {
        q->val = val, q->res = 0;
        q->after = store_ref(op, q->before, off, val);
    } else {
        q->val = 0, q->res = load_ref(op, q->before, off);
        q->after = q->before;
    }
    m->val[wi] = q->after, m->ts[wi] = 4 * q->clk + ZK_TS_MEM;
    return q;
}

static uint32_t signy(void) { /* a 32-bit value, often with sign bits set */
    uint32_t v = (uint32_t)gs_test_u64();
    if (gs_test_below(2)) v |= 0x80808080u;
    return v;
}

/* The honest run: a fixed chain on word 1, every (op, offset) once, then
 * random accesses to a few words (long ts_prev chains). */
static void model_honest(model *m) {
    model_init(m);
    model_access(m, ZK_LS_LW, 1, 0, 0);
    model_access(m, ZK_LS_SW, 1, 0, 0x89abcdefu);
    model_access(m, ZK_LS_SH, 1, 2, 0x1234f00du);
    model_access(m, ZK_LS_LB, 1, 3, 0);
    model_access(m, ZK_LS_LW, 1, 0, 0);
    static const uint32_t offs[9][4] = {{0}, {0, 1, 2, 3}, {0, 2}, {0}, {0, 1, 2, 3},
                                        {0, 2}, {0, 1, 2, 3}, {0, 2}, {0}};
    static const uint32_t n_offs[9] = {0, 4, 2, 1, 4, 2, 4, 2, 1};
    size_t k = 0;
    for (uint32_t op = ZK_LS_LB; op <= ZK_LS_SW; op++)
        for (uint32_t i = 0; i < n_offs[op]; i++, k++) {
            size_t wi = op >= ZK_LS_SB ? k % RO_FIRST : k % 8;
            model_access(m, op, wi, offs[op][i], signy());
        }
    for (int i = 0; i < 24; i++) {
        uint32_t op = ZK_LS_LB + (uint32_t)gs_test_below(8);
        size_t wi = gs_test_below(3);
        if (op < ZK_LS_SB && gs_test_below(4) == 0) wi = RO_FIRST + gs_test_below(2);
        uint32_t n_off = n_offs[op];
        model_access(m, op, wi, offs[op][gs_test_below(n_off)], signy());
    }
}

/* ---- the tables of the statement ---- */
enum { T_REQ, T_LS, T_MEM, T_RANGE, T_BYTE, T_NUM };

typedef struct {
    gs_air *air[T_NUM];
    zk_table fixed[2]; /* the verifier's range and byte tables (all counts zero) */
} airs;

static void airs_make(airs *A) {
    CHECK(zk_range_fill(&A->fixed[0], NULL) == GS_OK);
    CHECK(zk_byte_fill(&A->fixed[1], NULL) == GS_OK);
    A->air[T_REQ] = zkt_requester_air("ls_requester", ZK_BUS_LS, 6);
    A->air[T_LS] = zk_ls_air();
    A->air[T_MEM] = zkt_memory_air("ls_memory");
    A->air[T_RANGE] = zk_range_air();
    A->air[T_BYTE] = zk_byte_air();
    for (int i = 0; i < T_NUM; i++) CHECK(A->air[i] != NULL);
}

static void airs_free(airs *A) {
    for (int i = 0; i < T_NUM; i++) gs_air_free(A->air[i]);
    free(A->fixed[0].cols), free(A->fixed[1].cols);
}

typedef struct {
    zk_table t[T_NUM];
    zk_lookups *lk;
} stmt;

static void stmt_free(stmt *s) {
    for (int i = 0; i < T_NUM; i++) free(s->t[i].cols);
    free(s->lk);
}

/* Fills every table but the fixed ones (stmt_finish does those, after the
 * hand edits). */
static gs_status stmt_fill(stmt *s, const model *m) {
    memset(s, 0, sizeof *s);
    s->lk = calloc(1, sizeof *s->lk);
    if (!s->lk) return GS_ERR_NOMEM;
    gs_status st = zk_ls_fill(&s->t[T_LS], m->req, m->n, s->lk);
    if (st != GS_OK) return st;
    zk_table *r = &s->t[T_REQ];
    CHECK(zk_table_alloc(r, 7, m->n) == GS_OK);
    for (size_t i = 0; i < m->n; i++) {
        const zk_ls_req *q = &m->req[i];
        const gs_fp v[7] = {q->op, q->base, q->imm, q->val, q->res, q->clk, 1};
        for (uint32_t c = 0; c < 7; c++) zk_col(r, c)[i] = v[c];
    }
    zk_table *mt = &s->t[T_MEM];
    CHECK(zk_table_alloc(mt, 6, m->n_words) == GS_OK);
    for (size_t i = 0; i < m->n_words; i++) {
        const gs_fp v[6] = {m->addr[i], m->init[i], m->val[i], m->ts[i], m->w[i], 1};
        for (uint32_t c = 0; c < 6; c++) zk_col(mt, c)[i] = v[c];
    }
    return GS_OK;
}

static gs_status stmt_finish(stmt *s) {
    gs_status st = zk_range_fill(&s->t[T_RANGE], s->lk);
    if (st == GS_OK) st = zk_byte_fill(&s->t[T_BYTE], s->lk);
    return st;
}

/* Proves the statement; with GS_OK verifies it too (*ver, if not NULL),
 * the fixed tables' value columns checked against the verifier's. */
static gs_status stmt_prove(const airs *A, stmt *s, int skip_check, gs_status *ver) {
    gs_table_input in[T_NUM];
    for (int i = 0; i < T_NUM; i++)
        in[i] = (gs_table_input){.air = A->air[i], .trace = s->t[i].cols, .log_n = s->t[i].log_n,
                                 .pub = NULL, .air_desc = NULL};
    gs_params par = zkt_params();
    gs_prove_opts opts = {.skip_check = skip_check};
    gs_multi_proof *mp = NULL;
    gs_status st = gs_prove_multi(&mp, in, T_NUM, &par, &opts);
    if (st == GS_OK && ver) {
        const gs_air *const *av = (const gs_air *const *)A->air;
        gs_fixed_col fx[ZK_RANGE_FIXED + ZK_BYTE_FIXED];
        size_t nf = 0;
        for (uint32_t k = 0; k < ZK_RANGE_FIXED; k++)
            fx[nf++] = (gs_fixed_col){.table = T_RANGE, .col = k, .log_n = A->fixed[0].log_n,
                                      .values = zk_col((zk_table *)&A->fixed[0], k)};
        for (uint32_t k = 0; k < ZK_BYTE_FIXED; k++)
            fx[nf++] = (gs_fixed_col){.table = T_BYTE, .col = k, .log_n = A->fixed[1].log_n,
                                      .values = zk_col((zk_table *)&A->fixed[1], k)};
        *ver = gs_verify_multi_fixed(av, T_NUM, mp, fx, nf, 0);
    }
    gs_multi_proof_free(mp);
    return st;
}

/* A model run through fill, an optional edit of the filled tables, the
 * fixed tables and the prover's check. */
typedef void (*edit_fn)(stmt *s, const model *m, void *ctx);
static gs_status prove_model(const airs *A, const model *m, edit_fn edit, void *ctx) {
    stmt s;
    gs_status st = stmt_fill(&s, m);
    if (st == GS_OK && edit) edit(&s, m, ctx);
    int same = 0;
    if (st == GS_OK) {
        zk_lookups *rows = calloc(1, sizeof *rows);
        zkt_recount(rows, A->air[T_LS], &s.t[T_LS]);
        same = memcmp(rows, s.lk, sizeof *rows) == 0;
        free(s.lk);
        s.lk = rows;
        st = stmt_finish(&s);
    }
    if (st == GS_OK) {
        /* a constraint refusal must be the chip's own; a bus refusal must
         * come with every chip constraint holding */
        gs_status chip = gs_air_check_trace(A->air[T_LS], s.t[T_LS].cols, s.t[T_LS].log_n, NULL,
                                            NULL, NULL);
        st = stmt_prove(A, &s, 0, NULL);
        CHECK((st == GS_ERR_AIR_UNSATISFIED) == (chip == GS_ERR_AIR_UNSATISFIED));
        /* for valid requests the fill's counts are exactly the rows' lookups */
        if (!edit && st == GS_OK) CHECK(same);
    }
    stmt_free(&s);
    return st;
}

static gs_fp *cell(stmt *s, int t, uint32_t c, size_t row) { return &zk_col(&s->t[t], c)[row]; }

/* ---- tests ---- */

/* The column layout the edits assume, the padding rows, the row count. */
static void check_layout(const airs *A) {
    CHECK_EQ_U64(gs_air_num_cols(A->air[T_LS]), LS_COLS);
    CHECK(gs_air_max_degree(A->air[T_LS]) <= 3);
    printf("zk_ls: %u columns, %u transitions, %u boundaries, %u interactions, degree %u\n",
           gs_air_num_cols(A->air[T_LS]), gs_air_num_transitions(A->air[T_LS]),
           gs_air_num_boundaries(A->air[T_LS]), gs_air_num_interactions(A->air[T_LS]),
           gs_air_max_degree(A->air[T_LS]));
    model m;
    model_init(&m);
    for (int i = 0; i < 15; i++) model_access(&m, ZK_LS_LH, 0, 2, 0);
    stmt s;
    CHECK(stmt_fill(&s, &m) == GS_OK);
    CHECK_EQ_U64(s.t[T_LS].log_n, 4); /* 15 requests and the padding row */
    CHECK_EQ_U64(*cell(&s, T_LS, C_LH, 14), 1);
    CHECK_EQ_U64(*cell(&s, T_LS, C_RES, 14), m.req[14].res);
    CHECK_EQ_U64(*cell(&s, T_LS, C_HHI, 14), 0x80);
    CHECK_EQ_U64(*cell(&s, T_LS, C_S, 14), 1);
    CHECK_EQ_U64(*cell(&s, T_LS, C_X, 14), 0);
    CHECK_EQ_U64(*cell(&s, T_LS, C_P, 15), 1);
    CHECK(gs_air_check_trace(A->air[T_LS], s.t[T_LS].cols, 4, NULL, NULL, NULL) == GS_OK);
    /* the last row must be padding: a real row there is refused */
    *cell(&s, T_LS, C_LH, 15) = 1;
    CHECK(gs_air_check_trace(A->air[T_LS], s.t[T_LS].cols, 4, NULL, NULL, NULL) ==
          GS_ERR_AIR_UNSATISFIED);
    stmt_free(&s);
    model_access(&m, ZK_LS_LW, 0, 0, 0);
    CHECK(stmt_fill(&s, &m) == GS_OK);
    CHECK_EQ_U64(s.t[T_LS].log_n, 5);
    stmt_free(&s);
    zk_ls_req bad = m.req[0];
    bad.op = 9;
    zk_table t = {0};
    zk_lookups *lk = calloc(1, sizeof *lk);
    CHECK(zk_ls_fill(&t, &bad, 1, lk) == GS_ERR_INVALID_ARG);
    free(t.cols), free(lk);
}

/* Many random requests (every op, offset, carry and sign pattern) satisfy
 * the chip's constraints: no proof, the constraint check only. */
static void check_random_constraints(const airs *A) {
    model *m = malloc(sizeof *m);
    model_init(m);
    for (int i = 0; i < MAX_REQ; i++) {
        static const uint32_t align[9] = {0, 1, 2, 4, 1, 2, 1, 2, 4};
        uint32_t op = ZK_LS_LB + (uint32_t)gs_test_below(8);
        size_t wi = op >= ZK_LS_SB ? gs_test_below(RO_FIRST) : gs_test_below(8);
        uint32_t off = (uint32_t)gs_test_below(4 / align[op]) * align[op];
        model_access(m, op, wi, off, signy());
    }
    stmt s;
    CHECK(stmt_fill(&s, m) == GS_OK);
    uint64_t row = 0;
    uint32_t con = 0;
    gs_status st = gs_air_check_trace(A->air[T_LS], s.t[T_LS].cols, s.t[T_LS].log_n, NULL, &row, &con);
    if (st != GS_OK) fprintf(stderr, "random: row %" PRIu64 " constraint %u\n", row, con);
    CHECK(st == GS_OK);
    stmt_free(&s);
    free(m);
}

static void test_honest(const airs *A) {
    model m;
    model_honest(&m);
    stmt s;
    CHECK(stmt_fill(&s, &m) == GS_OK);
    CHECK(stmt_finish(&s) == GS_OK);
    gs_status ver = GS_ERR_INVALID_ARG;
    gs_status st = stmt_prove(A, &s, 0, &ver);
    if (st != GS_OK) fprintf(stderr, "honest: prove: %s\n", gs_status_str(st));
    CHECK(st == GS_OK);
    if (ver != GS_OK) fprintf(stderr, "honest: verify: %s\n", gs_status_str(ver));
    CHECK(ver == GS_OK);
    printf("honest: %zu requests on %zu words proved and verified\n", m.n, m.n_words);
    stmt_free(&s);
}

static size_t find_req(const model *m, int (*pred)(const zk_ls_req *)) {
    for (size_t i = 0; i < m->n; i++)
        if (pred(&m->req[i])) return i;
    return SIZE_MAX;
}
static uint32_t req_off(const zk_ls_req *q) { return (q->base + q->imm) & 3u; }
static int is_neg_lb(const zk_ls_req *q) { return q->op == ZK_LS_LB && (q->res >> 31); }
static int is_neg_lbu(const zk_ls_req *q) { return q->op == ZK_LS_LBU && (q->res >> 7); }
static int is_neg_lh(const zk_ls_req *q) { return q->op == ZK_LS_LH && (q->res >> 31); }
static int is_neg_lhu(const zk_ls_req *q) { return q->op == ZK_LS_LHU && (q->res >> 15); }
static int is_load(const zk_ls_req *q) { return q->op < ZK_LS_SB; }

static void edit_req_res(stmt *s, const model *m, void *ctx) { /* the requester alone */
    (void)m;
    size_t i = *(size_t *)ctx;
    gs_fp *r = cell(s, T_REQ, 4, i);
    *r = gs_fp_add(*r, 1);
}

static void edit_chip_and_req_res(stmt *s, const model *m, void *ctx) {
    (void)m;
    size_t i = *(size_t *)ctx;
    *cell(s, T_LS, C_RES, i) = gs_fp_add(*cell(s, T_LS, C_RES, i), 1);
    *cell(s, T_REQ, 4, i) = *cell(s, T_LS, C_RES, i);
}

/* A negative byte read as positive: s = 0, x = the whole top byte, res
 * zero-extended in the chip and the requester. Only the 7-bit check on x
 * stands in the way. */
static void edit_sign(stmt *s, const model *m, void *ctx) {
    size_t i = *(size_t *)ctx;
    const zk_ls_req *q = &m->req[i];
    uint32_t zext = q->res & 0xffu;
    /* (a_hi - 1, 2 T) has no row in the byte table to count */
    *cell(s, T_LS, C_S, i) = 0;
    *cell(s, T_LS, C_X, i) = zext;
    *cell(s, T_LS, C_RES, i) = zext;
    *cell(s, T_REQ, 4, i) = zext;
}

/* A sign that is no bit: x' = x + 1 and s = (T - x') / 128 satisfy the sign
 * equation and the 7-bit check; res follows s. */
static void edit_sign_frac(stmt *s, const model *m, void *ctx) {
    (void)m;
    size_t i = *(size_t *)ctx;
    uint32_t x = (uint32_t)*cell(s, T_LS, C_X, i);
    uint32_t top = (uint32_t)*cell(s, T_LS, C_BSEL, i), x2 = x + 1;
    gs_fp sv = gs_fp_mul(gs_fp_sub(top, x2), gs_fp_inv(128));
    gs_fp res = gs_fp_add(top, gs_fp_mul(sv, 0xffffff00u));
    *cell(s, T_LS, C_S, i) = sv, *cell(s, T_LS, C_X, i) = x2;
    *cell(s, T_LS, C_RES, i) = res, *cell(s, T_REQ, 4, i) = res;
}

static void test_wrong_loads(const airs *A) {
    model m;
    model_honest(&m);
    size_t i = find_req(&m, is_load);
    CHECK(i != SIZE_MAX);

    /* res + 1 claimed by the CPU and written by the chip: the res constraint */
    model bad = m;
    bad.req[i].res++;
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_AIR_UNSATISFIED);
    /* ... and proven anyway (check off): the verifier refuses */
    stmt s;
    CHECK(stmt_fill(&s, &bad) == GS_OK);
    CHECK(stmt_finish(&s) == GS_OK);
    gs_status ver = GS_OK;
    gs_status st = stmt_prove(A, &s, 1, &ver);
    CHECK(st == GS_OK);
    printf("wrong res proven unchecked: verify says %s\n", gs_status_str(ver));
    CHECK(st == GS_OK && ver != GS_OK);
    stmt_free(&s);
    /* res + 1 claimed by the CPU, the chip honest: the LS bus */
    CHECK_EQ_U64(prove_model(A, &m, edit_req_res, &i), GS_ERR_BUS_UNBALANCED);
    /* a hand-edited chip trace (and requester) claiming res + 1 */
    CHECK_EQ_U64(prove_model(A, &m, edit_chip_and_req_res, &i), GS_ERR_AIR_UNSATISFIED);
    CHECK(prove_model(A, &m, NULL, NULL) == GS_OK);

    /* sign- and zero-extension swapped */
    int (*const preds[4])(const zk_ls_req *) = {is_neg_lb, is_neg_lbu, is_neg_lh, is_neg_lhu};
    for (int k = 0; k < 4; k++) {
        size_t j = find_req(&m, preds[k]);
        CHECK(j != SIZE_MAX);
        if (j == SIZE_MAX) continue;
        bad = m;
        zk_ls_req *q = &bad.req[j];
        switch (q->op) {
        case ZK_LS_LB: q->res &= 0xffu; break;
        case ZK_LS_LBU: q->res |= 0xffffff00u; break;
        case ZK_LS_LH: q->res &= 0xffffu; break;
        default: q->res |= 0xffff0000u; break;
        }
        CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_AIR_UNSATISFIED);
    }
    size_t j = find_req(&m, is_neg_lb);
    if (j != SIZE_MAX) {
        CHECK_EQ_U64(prove_model(A, &m, edit_sign, &j), GS_ERR_BUS_UNBALANCED);
        CHECK_EQ_U64(prove_model(A, &m, edit_sign_frac, &j), GS_ERR_AIR_UNSATISFIED);
    }
    /* a load claiming a nonzero val */
    bad = m;
    bad.req[i].val = 0x1234;
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_AIR_UNSATISFIED);
}

/* A load whose ts_prev points before the word's last store, reading the
 * value that store overwrote. */
static void test_stale_read(const airs *A) {
    model m;
    model_honest(&m);
    /* the fixed chain on word 1: LW, SW, SH, LB, LW; the final LW (index 4)
     * re-reads what the SW wrote, at the SW's timestamp */
    model bad = m;
    zk_ls_req *q = &bad.req[4];
    const zk_ls_req *sw = &m.req[1], *sh = &m.req[2];
    CHECK(q->op == ZK_LS_LW && sw->op == ZK_LS_SW && sh->op == ZK_LS_SH);
    CHECK(sh->before != sh->after);
    q->ts_prev = 4 * sw->clk + ZK_TS_MEM;
    q->before = q->after = q->res = sw->after;
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_BUS_UNBALANCED);
    /* even older: the initial value at ts 0 */
    bad = m;
    q = &bad.req[4];
    q->ts_prev = 0, q->before = q->after = q->res = m.init[1];
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_BUS_UNBALANCED);
    /* a timestamp from the future (ts_prev = ts) */
    bad = m;
    q = &bad.req[4];
    q->ts_prev = 4 * q->clk + ZK_TS_MEM;
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_BUS_UNBALANCED);

    /* a read from the future: a load at clk c reads what a store at a later
     * clk wrote, the chain on the word reordered (store first, then the
     * load). Every memory tuple balances; only ts - ts_prev - 1 >= 0 fails. */
    bad = m;
    size_t wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x0badf00du, 1);
    zk_ls_req *ld = model_access(&bad, ZK_LS_LW, wi, 0, 0);
    const uint64_t t_ld = 4 * ld->clk + ZK_TS_MEM;
    zk_ls_req *st = model_access(&bad, ZK_LS_SW, wi, 0, 0xcafe8001u);
    CHECK(prove_model(A, &bad, NULL, NULL) == GS_OK);
    st->ts_prev = 0;
    ld->ts_prev = 4 * st->clk + ZK_TS_MEM;
    ld->before = ld->after = ld->res = st->after;
    bad.ts[wi] = t_ld;
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_BUS_UNBALANCED);
}

static void edit_w(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    *cell(s, T_LS, C_W, m->n - 1) = 1;
}

static void edit_after(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1; /* the last access to its word: the memory's final value follows */
    gs_fp v = *cell(s, T_LS, C_AFTER, i) ^ 0x00010000u;
    *cell(s, T_LS, C_AFTER, i) = v;
    for (size_t k = 0; k < m->n_words; k++)
        if (m->addr[k] == m->req[i].waddr) *cell(s, T_MEM, 2, k) = v;
}

static void test_stores(const airs *A) {
    model m;
    model_honest(&m);
    /* a store to a read-only word: the memory sends it with w = 0 */
    model bad = m;
    model_access(&bad, ZK_LS_SB, RO_FIRST, 1, 0x5a);
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_AIR_UNSATISFIED);
    CHECK_EQ_U64(prove_model(A, &bad, edit_w, NULL), GS_ERR_BUS_UNBALANCED);
    bad = m;
    model_access(&bad, ZK_LS_SW, RO_FIRST + 1, 0, 0x12345678u);
    CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_AIR_UNSATISFIED);
    /* a store that also changes a byte it does not address */
    bad = m;
    model_access(&bad, ZK_LS_SB, 2, 0, 0xa5);
    CHECK(prove_model(A, &bad, NULL, NULL) == GS_OK);
    CHECK_EQ_U64(prove_model(A, &bad, edit_after, NULL), GS_ERR_AIR_UNSATISFIED);
}

/* A misaligned word access claimed at offset 0: waddr = addr is no
 * memory word. */
static void edit_unaligned(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    const uint32_t b0 = m->req[i].before & 0xffu, b1 = (m->req[i].before >> 8) & 0xffu;
    *cell(s, T_LS, C_O0, i) = 0, *cell(s, T_LS, C_O1, i) = 0;
    *cell(s, T_LS, C_HLO, i) = b0, *cell(s, T_LS, C_HHI, i) = b1, *cell(s, T_LS, C_BSEL, i) = b0;
    *cell(s, T_LS, C_P, i) = 1;
    *cell(s, T_LS, C_RES, i) = *cell(s, T_REQ, 4, i) = m->req[i].before;
}

static void test_alignment(const airs *A) {
    model m;
    model_honest(&m);
    static const struct {
        uint32_t op, off;
    } cases[] = {{ZK_LS_LW, 1}, {ZK_LS_LW, 2}, {ZK_LS_LW, 3}, {ZK_LS_LH, 1},
                 {ZK_LS_LHU, 3}, {ZK_LS_SW, 2}, {ZK_LS_SH, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        model bad = m;
        model_access(&bad, cases[k].op, 0, cases[k].off, 0x4321u);
        CHECK(req_off(&bad.req[bad.n - 1]) == cases[k].off);
        CHECK_EQ_U64(prove_model(A, &bad, NULL, NULL), GS_ERR_AIR_UNSATISFIED);
    }
    model bad = m;
    model_access(&bad, ZK_LS_LW, 0, 1, 0);
    CHECK_EQ_U64(prove_model(A, &bad, edit_unaligned, NULL), GS_ERR_BUS_UNBALANCED);
}

/* Registers are memory-bus addresses 0..31: a load from address 4 would
 * find register 4's tuple if the memory had it; the chip refuses it. */
static void test_register_space(const airs *A) {
    model m;
    model_honest(&m);
    size_t r = model_add_word(&m, 4, 0x11223344u, 1);
    CHECK(prove_model(A, &m, NULL, NULL) == GS_OK);
    model_access(&m, ZK_LS_LW, r, 0, 0);
    CHECK_EQ_U64(prove_model(A, &m, NULL, NULL), GS_ERR_BUS_UNBALANCED);
}

/* ---- forgeries: each satisfies every chip constraint but one and keeps
 * every bus balanced (the lookups counted from the edited rows), so that
 * one constraint alone refuses it ---- */

static size_t ls_row_of(const model *m, uint32_t op, int (*ok)(const zk_ls_req *)) {
    for (size_t i = 0; i < m->n; i++)
        if (m->req[i].op == op && (!ok || ok(&m->req[i]))) return i;
    return SIZE_MAX;
}

static void set_res(stmt *s, size_t i, gs_fp res) {
    *cell(s, T_LS, C_RES, i) = res, *cell(s, T_REQ, 4, i) = res;
}

/* LBU returning another byte of the word (bsel not the byte at off) */
static void forge_bsel(stmt *s, const model *m, void *ctx) {
    size_t i = *(size_t *)ctx;
    uint32_t off = req_off(&m->req[i]), other = (m->req[i].before >> (8 * ((off + 1) & 3))) & 0xffu;
    *cell(s, T_LS, C_BSEL, i) = other;
    set_res(s, i, other);
}

/* LHU with a high byte one more than the word's */
static void forge_hhi(stmt *s, const model *m, void *ctx) {
    (void)m;
    size_t i = *(size_t *)ctx;
    *cell(s, T_LS, C_HHI, i) += 1;
    set_res(s, i, gs_fp_add(*cell(s, T_LS, C_RES, i), 256));
}
static int hhi_small(const zk_ls_req *q) { return (q->res >> 8) < 255; }

/* LB of a negative byte read as positive, s = 0 against the sign equation
 * (x and its lookup unchanged) */
static void forge_sign_eq(stmt *s, const model *m, void *ctx) {
    size_t i = *(size_t *)ctx;
    *cell(s, T_LS, C_S, i) = 0;
    set_res(s, i, m->req[i].res & 0xffu);
}

/* SB (the last access to its word) writing at 2^(8 off + 8) */
static void forge_p(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    const zk_ls_req *q = &m->req[i];
    gs_fp p2 = gs_fp_mul(*cell(s, T_LS, C_P, i), 256);
    gs_fp delta = gs_fp_sub(q->val & 0xffu, *cell(s, T_LS, C_BSEL, i));
    gs_fp after = gs_fp_add(q->before, gs_fp_mul(delta, p2));
    *cell(s, T_LS, C_P, i) = p2, *cell(s, T_LS, C_AFTER, i) = after;
    for (size_t k = 0; k < m->n_words; k++)
        if (m->addr[k] == q->waddr) *cell(s, T_MEM, 2, k) = after;
}

/* A load the CPU addresses at word X (ctx) served from word Y (the model's
 * word): addr = Y with a carry that is no bit */
static void forge_carry(stmt *s, const model *m, void *ctx) {
    size_t i = m->n - 1;
    const zk_ls_req *q = &m->req[i];
    uint32_t x = *(uint32_t *)ctx, y = q->waddr;
    uint64_t sum = (uint64_t)q->base + q->imm;
    CHECK(x >> 16 == y >> 16);
    *cell(s, T_LS, C_ALO, i) = y & 0xffffu;
    *cell(s, T_LS, C_CARRY, i) =
        gs_fp_mul(gs_fp_sub(gs_fp_from_u64(sum), y), gs_fp_inv((gs_fp)1 << 32));
}

/* Two ops on one row: LB + LH flags read as op 3 (LW), multiplicity 2 on
 * every interaction, the requester and the memory sending twice. The word
 * is 0x00001010 at the last request; res = bsel + H = 0x1020 where LW
 * gives 0x1010. */
static void forge_two_ops(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    *cell(s, T_LS, C_LW, i) = 0, *cell(s, T_LS, C_LB, i) = 1, *cell(s, T_LS, C_LH, i) = 1;
    *cell(s, T_LS, C_X, i) = 0x10, *cell(s, T_LS, C_S, i) = 0;
    set_res(s, i, 0x1020);
    /* the requester's second row, the memory's second word */
    for (uint32_t c = 0; c < 7; c++) *cell(s, T_REQ, c, m->n) = *cell(s, T_REQ, c, i);
    for (uint32_t c = 0; c < 6; c++) *cell(s, T_MEM, c, m->n_words) = *cell(s, T_MEM, c, m->n_words - 1);
}

/* LHU with a low byte one more than the word's (bsel follows it) */
static void forge_hlo(stmt *s, const model *m, void *ctx) {
    (void)m;
    size_t i = *(size_t *)ctx;
    *cell(s, T_LS, C_HLO, i) += 1, *cell(s, T_LS, C_BSEL, i) += 1;
    set_res(s, i, gs_fp_add(*cell(s, T_LS, C_RES, i), 1));
}
static int hlo_small(const zk_ls_req *q) { return (q->res & 0xffu) < 255 && req_off(q) == 0; }

/* LHU at offset 0 with flags LW = 2, LB = -1: sel = 1 and op = 5, res = 2
 * before - (the LB result) */
static void forge_flags(stmt *s, const model *m, void *ctx) {
    size_t i = *(size_t *)ctx;
    const zk_ls_req *q = &m->req[i];
    uint32_t b0 = q->before & 0xffu, sgn = b0 >> 7, x = b0 & 0x7fu;
    *cell(s, T_LS, C_LHU, i) = 0, *cell(s, T_LS, C_LW, i) = 2, *cell(s, T_LS, C_LB, i) = GS_FP_P - 1;
    *cell(s, T_LS, C_S, i) = sgn, *cell(s, T_LS, C_X, i) = x;
    gs_fp lb = gs_fp_add(b0, gs_fp_mul(sgn, 0xffffff00u));
    set_res(s, i, gs_fp_sub(gs_fp_mul(2, q->before), lb));
}
static int at_off0(const zk_ls_req *q) { return req_off(q) == 0; }

/* LB at offset 2 (the last request, word 0x99ff2010) with o0 = 2, o1 = 0:
 * bsel = 2 b1 - b0 = 0x30 where the byte is 0x99 */
static void forge_o0(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    *cell(s, T_LS, C_O0, i) = 2, *cell(s, T_LS, C_O1, i) = 0;
    *cell(s, T_LS, C_HLO, i) = 0x10, *cell(s, T_LS, C_HHI, i) = 0x20, *cell(s, T_LS, C_BSEL, i) = 0x30;
    *cell(s, T_LS, C_P, i) = 511;
    *cell(s, T_LS, C_S, i) = 0, *cell(s, T_LS, C_X, i) = 0x30;
    set_res(s, i, 0x30);
}

/* LBU at offset 1 (the last request, word 0x10307710) with o0 = 0, o1 =
 * 1/2: h_lo = (b0 + b2) / 2 = 0x20 where the byte is 0x77 */
static void forge_o1(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    gs_fp half = gs_fp_inv(2);
    *cell(s, T_LS, C_O0, i) = 0, *cell(s, T_LS, C_O1, i) = half;
    *cell(s, T_LS, C_HLO, i) = 0x20, *cell(s, T_LS, C_BSEL, i) = 0x20;
    *cell(s, T_LS, C_HHI, i) = gs_fp_add(0x77, gs_fp_mul(half, gs_fp_sub(0x10, 0x77)));
    *cell(s, T_LS, C_P, i) = gs_fp_add(1, gs_fp_mul(half, 65535));
    set_res(s, i, 0x20);
}

/* ---- forgeries the lookups alone refuse (every constraint holds) ---- */

/* The register-space load (the last request, addr 4) with a_hi = 1 and
 * a_lo = 4 - 2^16: a_hi passes its check, a_lo is no 16-bit limb */
static void forge_alo(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    *cell(s, T_LS, C_AHI, i) = 1, *cell(s, T_LS, C_ALO, i) = gs_fp_sub(4, 1u << 16);
}

/* LBU at offset 0 with b0 + 256 and b1 - 1: the same word, res + 256 */
static void forge_bytes(stmt *s, const model *m, void *ctx) {
    size_t i = *(size_t *)ctx;
    uint32_t b = m->req[i].before, b0 = b & 0xffu, b1 = (b >> 8) & 0xffu;
    *cell(s, T_LS, C_B0, i) = b0 + 256, *cell(s, T_LS, C_B1, i) = b1 - 1;
    *cell(s, T_LS, C_HLO, i) = b0 + 256, *cell(s, T_LS, C_BSEL, i) = b0 + 256;
    *cell(s, T_LS, C_HHI, i) = b1 - 1;
    set_res(s, i, b0 + 256);
}
static int b1_nonzero(const zk_ls_req *q) { return req_off(q) == 0 && ((q->before >> 8) & 0xffu); }

/* SB (the last access to its word, offset 0) with v0 + 256 and v1 - 1: the
 * same val, a byte of 256 more written (carrying into the next byte) */
static void forge_val_bytes(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = m->n - 1;
    const zk_ls_req *q = &m->req[i];
    uint32_t v0 = q->val & 0xffu, v1 = (q->val >> 8) & 0xffu;
    *cell(s, T_LS, C_V0, i) = v0 + 256, *cell(s, T_LS, C_V1, i) = v1 - 1;
    gs_fp after = q->after + 256;
    *cell(s, T_LS, C_AFTER, i) = after;
    for (size_t k = 0; k < m->n_words; k++)
        if (m->addr[k] == q->waddr) *cell(s, T_MEM, 2, k) = after;
}

/* SB (the last access to its word, offset 0) writing v0 + 1 instead of
 * val's low byte; with *ctx, v_hi = (val - v0 - 2^8 v1) / 2^16 keeps val's
 * decomposition (and is no 16-bit limb) */
static void forge_val_low(stmt *s, const model *m, void *ctx) {
    size_t i = m->n - 1;
    const zk_ls_req *q = &m->req[i];
    uint32_t v0 = (q->val & 0xffu) + 1, v1 = (q->val >> 8) & 0xffu;
    *cell(s, T_LS, C_V0, i) = v0;
    if (*(int *)ctx)
        *cell(s, T_LS, C_VHI, i) =
            gs_fp_mul(gs_fp_sub(q->val, v0 + 256 * v1), gs_fp_inv(1u << 16));
    gs_fp after = q->after + 1;
    *cell(s, T_LS, C_AFTER, i) = after;
    for (size_t k = 0; k < m->n_words; k++)
        if (m->addr[k] == q->waddr) *cell(s, T_MEM, 2, k) = after;
}

/* The read from the future (the load at index *ctx) with the whole negative
 * gap in d_lo and d_hi = 0 */
static void forge_dlo(stmt *s, const model *m, void *ctx) {
    size_t i = *(size_t *)ctx;
    (void)m;
    gs_fp d = *cell(s, T_LS, C_DLO, i) + (*cell(s, T_LS, C_DHI, i) << 16);
    *cell(s, T_LS, C_DLO, i) = d, *cell(s, T_LS, C_DHI, i) = 0;
}

static void test_lookup_forgeries(const airs *A) {
    model m;
    model_honest(&m);
    model bad = m;
    size_t r = model_add_word(&bad, 4, 0x11223344u, 1);
    model_access(&bad, ZK_LS_LW, r, 0, 0);
    CHECK_EQ_U64(prove_model(A, &bad, forge_alo, NULL), GS_ERR_BUS_UNBALANCED);

    size_t i = ls_row_of(&m, ZK_LS_LBU, b1_nonzero);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_U64(prove_model(A, &m, forge_bytes, &i), GS_ERR_BUS_UNBALANCED);

    bad = m;
    size_t wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x8899aabbu, 1);
    model_access(&bad, ZK_LS_SB, wi, 0, 0x0000017fu);
    CHECK_EQ_U64(prove_model(A, &bad, forge_val_bytes, NULL), GS_ERR_BUS_UNBALANCED);
    int keep = 0;
    CHECK_EQ_U64(prove_model(A, &bad, forge_val_low, &keep), GS_ERR_AIR_UNSATISFIED);
    keep = 1;
    CHECK_EQ_U64(prove_model(A, &bad, forge_val_low, &keep), GS_ERR_BUS_UNBALANCED);

    bad = m;
    wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x0badf00du, 1);
    zk_ls_req *ld = model_access(&bad, ZK_LS_LW, wi, 0, 0);
    const uint64_t t_ld = 4 * ld->clk + ZK_TS_MEM;
    zk_ls_req *st = model_access(&bad, ZK_LS_SW, wi, 0, 0xcafe8001u);
    st->ts_prev = 0;
    ld->ts_prev = 4 * st->clk + ZK_TS_MEM;
    ld->before = ld->after = ld->res = st->after;
    bad.ts[wi] = t_ld;
    i = (size_t)(ld - bad.req);
    CHECK_EQ_U64(prove_model(A, &bad, forge_dlo, &i), GS_ERR_BUS_UNBALANCED);
}

static void test_forgeries(const airs *A) {
    model m;
    model_honest(&m);
    size_t i = ls_row_of(&m, ZK_LS_LBU, NULL);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_U64(prove_model(A, &m, forge_bsel, &i), GS_ERR_AIR_UNSATISFIED);
    i = ls_row_of(&m, ZK_LS_LHU, hhi_small);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_U64(prove_model(A, &m, forge_hhi, &i), GS_ERR_AIR_UNSATISFIED);
    i = ls_row_of(&m, ZK_LS_LB, is_neg_lb);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_U64(prove_model(A, &m, forge_sign_eq, &i), GS_ERR_AIR_UNSATISFIED);

    model bad = m;
    size_t wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x8899aabbu, 1);
    model_access(&bad, ZK_LS_SB, wi, 1, 0x1e);
    CHECK_EQ_U64(prove_model(A, &bad, forge_p, NULL), GS_ERR_AIR_UNSATISFIED);

    bad = m;
    model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x01020304u, 1);
    wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x44, 0x05060708u, 1);
    zk_ls_req *q = model_access(&bad, ZK_LS_LW, wi, 0, 0);
    uint32_t x = GS_ZKVM_MEM_LO + 0x40;
    q->base = x - q->imm; /* the CPU's address: word X */
    CHECK_EQ_U64(prove_model(A, &bad, forge_carry, &x), GS_ERR_AIR_UNSATISFIED);

    i = ls_row_of(&m, ZK_LS_LHU, hlo_small);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_U64(prove_model(A, &m, forge_hlo, &i), GS_ERR_AIR_UNSATISFIED);
    i = ls_row_of(&m, ZK_LS_LHU, at_off0);
    CHECK(i != SIZE_MAX);
    CHECK_EQ_U64(prove_model(A, &m, forge_flags, &i), GS_ERR_AIR_UNSATISFIED);

    bad = m;
    wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x99ff2010u, 1);
    model_access(&bad, ZK_LS_LB, wi, 2, 0);
    CHECK_EQ_U64(prove_model(A, &bad, forge_o0, NULL), GS_ERR_AIR_UNSATISFIED);
    bad = m;
    wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x10307710u, 1);
    model_access(&bad, ZK_LS_LBU, wi, 1, 0);
    CHECK_EQ_U64(prove_model(A, &bad, forge_o1, NULL), GS_ERR_AIR_UNSATISFIED);

    bad = m;
    wi = model_add_word(&bad, GS_ZKVM_MEM_LO + 0x40, 0x00001010u, 1);
    model_access(&bad, ZK_LS_LW, wi, 0, 0);
    CHECK(bad.n_words < 16 && (bad.n & (bad.n - 1)) != 0); /* room for the second rows */
    CHECK_EQ_U64(prove_model(A, &bad, forge_two_ops, NULL), GS_ERR_AIR_UNSATISFIED);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    airs A;
    airs_make(&A);
    check_layout(&A);
    check_random_constraints(&A);
    test_honest(&A);
    test_wrong_loads(&A);
    test_stale_read(&A);
    test_stores(&A);
    test_alignment(&A);
    test_register_space(&A);
    test_forgeries(&A);
    test_lookup_forgeries(&A);
    airs_free(&A);
    return gs_test_done();
}
