/* The IO chip and the stream table (src/zkvm/air_io.c): read and write calls
 * from a reference model (the executor's semantics, src/zkvm/exec.c: read
 * returns min(len, input left), write returns len) are proven with a
 * requester table (standing in for the CPU: it sends each call on ZK_BUS_IO
 * and sets x11 and x12 just before it), a small memory table (initial and
 * final tuples of x11, x12, the cursors and the buffer words), the chip, the
 * stream table and the range and byte tables, and verified with the fixed
 * columns checked. Wrong counts, bad fds, forged or mis-sized outputs and
 * hand-edited chip traces are refused with the specific code. */
#include "gstark/gstark.h"
#include "gstark/zkvm.h"
#include "zkvm/zk_air.h"
#include "test_util.h"
#include "zkvm_chip_test.h"

/* The chip's column layout (air_io.c), for the hand edits; check_layout
 * pins the parts the edits use. */
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

/* ---- the reference model ---- */
#define NW 40                              /* buffer words */
#define BASE (GS_ZKVM_MEM_LO + 0x2000u)    /* the first buffer word */
#define MAX_CALLS 32
#define MAX_WPC 32 /* words per call */
#define IN_LEN 23
#define OUT_CAP 256

typedef struct {
    uint8_t mem[NW * 4];
    uint32_t init[NW];
    uint64_t wts[NW];
    uint32_t reg[2], reg_init[2]; /* x11, x12 */
    uint64_t reg_ts[2];
    uint64_t cur[4], cur_ts[4]; /* cursors of streams 0..2 (3: the bad fd's) */
    uint8_t in[IN_LEN];
    uint8_t out[4][OUT_CAP];
    uint64_t clk;
    zk_io_req req[MAX_CALLS];
    zk_io_word words[MAX_CALLS][MAX_WPC];
    /* the requester's register writes: old value and its timestamp */
    uint32_t old_buf[MAX_CALLS], old_len[MAX_CALLS];
    uint64_t old_buf_ts[MAX_CALLS], old_len_ts[MAX_CALLS];
    size_t n;
} model;

static uint32_t ld32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void model_init(model *m) {
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < sizeof m->mem; i++) {
        uint8_t b = (uint8_t)gs_test_u64();
        m->mem[i] = gs_test_below(2) ? b | 0x80u : b;
    }
    for (size_t i = 0; i < NW; i++) m->init[i] = ld32(m->mem + 4 * i);
    for (size_t i = 0; i < IN_LEN; i++) m->in[i] = (uint8_t)(gs_test_u64() | (i & 1 ? 0x80u : 0));
    m->reg[0] = m->reg_init[0] = 0x1234u, m->reg[1] = m->reg_init[1] = 7;
}

/* One call with the given count (the honest one: model_call). A read of a
 * byte past the input writes 0x5a; fd is used as given (the bad-fd tests). */
static zk_io_req *model_call_n(model *m, uint32_t call, uint32_t fd, uint32_t buf, uint32_t len,
                               uint32_t count) {
    CHECK(m->n < MAX_CALLS && fd < 4);
    const size_t i = m->n++;
    zk_io_req *q = &m->req[i];
    m->clk += 1 + gs_test_below(3);
    const uint64_t ts = 4 * m->clk + ZK_TS_MEM;
    m->old_buf[i] = m->reg[0], m->old_buf_ts[i] = m->reg_ts[0];
    m->old_len[i] = m->reg[1], m->old_len_ts[i] = m->reg_ts[1];
    m->reg[0] = buf, m->reg[1] = len;
    *q = (zk_io_req){.call = call, .fd = fd, .buf = buf, .len = len, .count = count,
                     .clk = m->clk, .pos = m->cur[fd], .buf_ts = 4 * m->clk,
                     .len_ts = 4 * m->clk + 1, .pos_ts = m->cur_ts[fd], .words = m->words[i]};
    m->reg_ts[0] = m->reg_ts[1] = ts;
    m->cur[fd] += count, m->cur_ts[fd] = ts;
    if (count == 0) return q;
    const uint32_t lo = buf & ~3u, hi = (buf + count - 1) & ~3u;
    for (uint32_t wa = lo; wa <= hi; wa += 4) {
        const uint32_t wi = (wa - BASE) / 4;
        CHECK(wa >= BASE && wi < NW && q->n_words < MAX_WPC);
        zk_io_word *w = &m->words[i][q->n_words++];
        w->waddr = wa, w->before = ld32(m->mem + 4 * wi), w->w = 1, w->ts_prev = m->wts[wi];
        for (uint32_t j = 0; j < 4; j++) {
            const uint32_t a = wa + j;
            if (a < buf || a >= buf + count) continue;
            const uint64_t p = q->pos + (a - buf);
            uint8_t *cell = &m->mem[a - BASE];
            if (call == 63) *cell = p < IN_LEN && fd == 0 ? m->in[p] : 0x5a;
            else if (p < OUT_CAP) m->out[fd][p] = *cell;
        }
        w->after = ld32(m->mem + 4 * wi);
        m->wts[wi] = ts;
    }
    return q;
}

static zk_io_req *model_call(model *m, uint32_t call, uint32_t fd, uint32_t buf, uint32_t len) {
    uint32_t count = len;
    if (call == 63 && fd == 0) {
        const uint64_t left = m->cur[0] < IN_LEN ? IN_LEN - m->cur[0] : 0;
        if (left < count) count = (uint32_t)left;
    }
    return model_call_n(m, call, fd, buf, len, count);
}

/* The honest run's calls; variant v changes one of them (a lie the chip
 * must refuse). */
enum {
    V_HONEST,
    V_READ_MORE_FULL,    /* the read at the end of the input returns len */
    V_READ_MORE_PARTIAL, /* the partial read returns one byte more than is left */
    V_READ_LESS,         /* the partial read returns one byte less */
    V_WRITE_SHORT,       /* the 17-byte write returns 16 */
    V_WRITE_LONG,        /* the 5-byte write returns 6 */
    V_WRITE_FD3,
    V_READ_FD1,
};
static void model_run(model *m, int v) {
    model_init(m);
    model_call(m, 63, 0, BASE + 1, 5);          /* unaligned, two words */
    model_call(m, 63, 0, BASE + 10, 0);         /* len 0 */
    if (v == V_READ_FD1) model_call_n(m, 63, 1, BASE + 13, 3, 3);
    else model_call(m, 63, 0, BASE + 13, 3);    /* inside one word */
    model_call(m, 64, 1, BASE + 1, 5);          /* the bytes just read */
    model_call(m, 64, 1, BASE + 7, 0);
    if (v == V_WRITE_FD3) model_call(m, 64, 3, BASE + 22, 1);
    else model_call(m, 64, 2, BASE + 22, 1);
    model_call(m, 64, 1, BASE + 33, 3);
    model_call(m, 64, 2, BASE + 40, 4);         /* one aligned word */
    model_call(m, 64, 1, BASE + 45, 4);         /* unaligned, two words */
    if (v == V_WRITE_LONG) model_call_n(m, 64, 2, BASE + 51, 5, 6);
    else model_call(m, 64, 2, BASE + 51, 5);
    if (v == V_WRITE_SHORT) model_call_n(m, 64, 1, BASE + 58, 17, 16);
    else model_call(m, 64, 1, BASE + 58, 17);   /* five words */
    /* the rest of the input: 15 bytes for 100 asked */
    const uint32_t left = (uint32_t)(IN_LEN - m->cur[0]);
    if (v == V_READ_MORE_PARTIAL) model_call_n(m, 63, 0, BASE + 82, 100, left + 1);
    else if (v == V_READ_LESS) model_call_n(m, 63, 0, BASE + 82, 100, left - 1);
    else model_call(m, 63, 0, BASE + 82, 100);
    if (v == V_READ_MORE_FULL) model_call_n(m, 63, 0, BASE + 120, 4, 4);
    else model_call(m, 63, 0, BASE + 120, 4);   /* at the end: 0 */
    model_call(m, 64, 1, BASE + 82, left);      /* what the partial read brought */
    model_call(m, 64, 2, BASE + 3, 2);
}

/* ---- the tables of the statement ---- */
enum { T_REQ, T_IO, T_MEM, T_STREAM, T_RANGE, T_BYTE, T_NUM };

/* The requester: (call, fd, count, clk) on ZK_BUS_IO and the writes of x11
 * (at 4 clk) and x12 (at 4 clk + 1), multiplicity m. Columns: call, fd,
 * count, clk, b_old, b_ts, b_new, l_old, l_ts, l_new, m. */
enum { R_CALL, R_FD, R_COUNT, R_CLK, R_BOLD, R_BTS, R_BNEW, R_LOLD, R_LTS, R_LNEW, R_M, R_COLS };
static gs_air *req_air(void) {
    gs_air *a = gs_air_new("io_requester", R_COLS, 0);
    gs_expr c[R_COLS];
    for (uint32_t i = 0; i < R_COLS; i++) c[i] = gs_air_col(a, i);
    const gs_expr one = gs_air_const(a, 1), m = c[R_M];
    gs_air_transition(a, gs_air_mul(a, m, gs_air_sub(a, m, one)));
    gs_air_send(a, ZK_BUS_IO, c, 4, m);
    const gs_expr ts = gs_air_mul(a, gs_air_const(a, 4), c[R_CLK]);
    const gs_expr b_in[4] = {gs_air_const(a, 11), c[R_BOLD], c[R_BTS], one};
    const gs_expr b_out[4] = {gs_air_const(a, 11), c[R_BNEW], ts, one};
    const gs_expr l_in[4] = {gs_air_const(a, 12), c[R_LOLD], c[R_LTS], one};
    const gs_expr l_out[4] = {gs_air_const(a, 12), c[R_LNEW], gs_air_add(a, ts, one), one};
    gs_air_receive(a, ZK_BUS_MEM, b_in, 4, m);
    gs_air_send(a, ZK_BUS_MEM, b_out, 4, m);
    gs_air_receive(a, ZK_BUS_MEM, l_in, 4, m);
    gs_air_send(a, ZK_BUS_MEM, l_out, 4, m);
    CHECK(gs_air_finalize(a) == GS_OK);
    return a;
}

typedef struct {
    gs_air *air[T_NUM];
} airs;

static void airs_make(airs *A) {
    A->air[T_REQ] = req_air();
    A->air[T_IO] = zk_io_air();
    A->air[T_MEM] = zkt_memory_air("io_memory");
    A->air[T_STREAM] = zk_stream_air();
    A->air[T_RANGE] = zk_range_air();
    A->air[T_BYTE] = zk_byte_air();
    for (int i = 0; i < T_NUM; i++) CHECK(A->air[i] != NULL);
}

static void airs_free(airs *A) {
    for (int i = 0; i < T_NUM; i++) gs_air_free(A->air[i]);
}

typedef struct {
    zk_table t[T_NUM];
    zk_lookups *lk;
    uint32_t in_mult[IN_LEN];
    gs_fp pub[ZK_IO_NUM_PUBLIC];
    /* the claimed outputs (what the stream table is built from) */
    uint8_t out[2][OUT_CAP + 1];
    uint64_t out_len[2];
} stmt;

static void stmt_free(stmt *s) {
    for (int i = 0; i < T_NUM; i++) free(s->t[i].cols);
    free(s->lk);
}

static gs_fp *cell(stmt *s, int t, uint32_t c, size_t row) { return &zk_col(&s->t[t], c)[row]; }

/* Fills the requester, the chip and the memory, and takes the claimed
 * outputs from the model (stmt_finish does the stream and lookup tables,
 * after the edits). */
static gs_status stmt_fill(stmt *s, const model *m) {
    memset(s, 0, sizeof *s);
    s->lk = calloc(1, sizeof *s->lk);
    if (!s->lk) return GS_ERR_NOMEM;
    s->pub[ZK_IO_PUB_IN_LEN] = IN_LEN;
    gs_status st = zk_io_fill(&s->t[T_IO], m->req, m->n, IN_LEN, s->lk, s->in_mult);
    if (st != GS_OK) return st;
    zk_table *r = &s->t[T_REQ];
    CHECK(zk_table_alloc(r, R_COLS, m->n) == GS_OK);
    for (size_t i = 0; i < m->n; i++) {
        const zk_io_req *q = &m->req[i];
        const gs_fp v[R_COLS] = {q->call, q->fd, q->count, q->clk, m->old_buf[i], m->old_buf_ts[i],
                                 q->buf, m->old_len[i], m->old_len_ts[i], q->len, 1};
        for (uint32_t c = 0; c < R_COLS; c++) zk_col(r, c)[i] = v[c];
    }
    zk_table *mt = &s->t[T_MEM];
    CHECK(zk_table_alloc(mt, 6, 2 + ZK_NUM_STREAMS + NW) == GS_OK);
    size_t row = 0;
    for (uint32_t k = 0; k < 2; k++, row++) {
        const gs_fp v[6] = {11 + k, m->reg_init[k], m->reg[k], m->reg_ts[k], 1, 1};
        for (uint32_t c = 0; c < 6; c++) zk_col(mt, c)[row] = v[c];
    }
    for (uint32_t k = 0; k < ZK_NUM_STREAMS; k++, row++) {
        const gs_fp v[6] = {ZK_CURSOR_ADDR + k, 0, m->cur[k], m->cur_ts[k], 1, 1};
        for (uint32_t c = 0; c < 6; c++) zk_col(mt, c)[row] = v[c];
    }
    for (uint32_t k = 0; k < NW; k++, row++) {
        const gs_fp v[6] = {BASE + 4 * k, m->init[k], ld32(m->mem + 4 * k), m->wts[k], 1, 1};
        for (uint32_t c = 0; c < 6; c++) zk_col(mt, c)[row] = v[c];
    }
    for (uint32_t k = 0; k < 2; k++) {
        s->out_len[k] = m->cur[k + 1] < OUT_CAP ? m->cur[k + 1] : OUT_CAP;
        memcpy(s->out[k], m->out[k + 1], s->out_len[k]);
    }
    return GS_OK;
}

static const uint8_t *model_input(const model *m) { return m->in; }

static gs_status stmt_finish(stmt *s, const model *m) {
    gs_status st = zk_stream_fill(&s->t[T_STREAM], model_input(m), IN_LEN, s->out[0], s->out_len[0],
                                  s->out[1], s->out_len[1], s->in_mult);
    if (st == GS_OK) st = zk_range_fill(&s->t[T_RANGE], s->lk);
    if (st == GS_OK) st = zk_byte_fill(&s->t[T_BYTE], s->lk);
    return st;
}

/* The verifier's fixed columns: the stream table from the input and the
 * claimed outputs, the range and byte tables' values. */
typedef struct {
    zk_table t[3];
    gs_fixed_col fc[ZK_STREAM_FIXED + ZK_RANGE_FIXED + ZK_BYTE_FIXED];
    size_t n;
} fixed;

static gs_status fixed_make(fixed *f, const stmt *s, const model *m) {
    memset(f, 0, sizeof *f);
    GS_TRY(zk_stream_fill(&f->t[0], model_input(m), IN_LEN, s->out[0], s->out_len[0], s->out[1],
                          s->out_len[1], NULL));
    GS_TRY(zk_range_fill(&f->t[1], NULL));
    GS_TRY(zk_byte_fill(&f->t[2], NULL));
    const struct {
        uint32_t table, n;
    } spec[3] = {{T_STREAM, ZK_STREAM_FIXED}, {T_RANGE, ZK_RANGE_FIXED}, {T_BYTE, ZK_BYTE_FIXED}};
    for (int k = 0; k < 3; k++)
        for (uint32_t c = 0; c < spec[k].n; c++)
            f->fc[f->n++] = (gs_fixed_col){.table = spec[k].table, .col = c,
                                           .log_n = f->t[k].log_n, .values = zk_col(&f->t[k], c)};
    return GS_OK;
}

static void fixed_free(fixed *f) {
    for (int k = 0; k < 3; k++) free(f->t[k].cols);
}

/* Proves the statement; with GS_OK verifies it too (*ver, if not NULL). */
static gs_status stmt_prove(const airs *A, stmt *s, const model *m, int skip_check, gs_status *ver) {
    gs_table_input in[T_NUM];
    for (int i = 0; i < T_NUM; i++)
        in[i] = (gs_table_input){.air = A->air[i], .trace = s->t[i].cols, .log_n = s->t[i].log_n,
                                 .pub = i == T_IO ? s->pub : NULL, .air_desc = NULL};
    gs_params par = zkt_params();
    gs_prove_opts opts = {.skip_check = skip_check};
    gs_multi_proof *mp = NULL;
    gs_status st = gs_prove_multi(&mp, in, T_NUM, &par, &opts);
    if (st == GS_OK && ver) {
        fixed f;
        *ver = fixed_make(&f, s, m);
        const gs_air *const *av = (const gs_air *const *)A->air;
        if (*ver == GS_OK) *ver = gs_verify_multi_fixed(av, T_NUM, mp, f.fc, f.n, 0);
        fixed_free(&f);
    }
    gs_multi_proof_free(mp);
    return st;
}

/* A model run through fill, an optional edit, the stream and lookup
 * tables and the prover's check. */
typedef void (*edit_fn)(stmt *s, const model *m, void *ctx);
static gs_status prove_model(const airs *A, const model *m, edit_fn edit, void *ctx) {
    stmt *s = malloc(sizeof *s);
    gs_status st = stmt_fill(s, m);
    if (st == GS_OK && edit) edit(s, m, ctx);
    if (st == GS_OK) st = stmt_finish(s, m);
    if (st == GS_OK) {
        /* a constraint refusal must be the chip's or the stream table's own */
        gs_status chip = gs_air_check_trace(A->air[T_IO], s->t[T_IO].cols, s->t[T_IO].log_n, s->pub,
                                            NULL, NULL);
        gs_status stream = gs_air_check_trace(A->air[T_STREAM], s->t[T_STREAM].cols,
                                              s->t[T_STREAM].log_n, NULL, NULL, NULL);
        st = stmt_prove(A, s, m, 0, NULL);
        CHECK((st == GS_ERR_AIR_UNSATISFIED) ==
              (chip == GS_ERR_AIR_UNSATISFIED || stream == GS_ERR_AIR_UNSATISFIED));
    }
    stmt_free(s);
    free(s);
    return st;
}

/* ---- tests ---- */

static size_t find_call(const model *m, uint32_t call, uint32_t fd, uint32_t count) {
    for (size_t i = 0; i < m->n; i++)
        if (m->req[i].call == call && m->req[i].fd == fd && m->req[i].count == count) return i;
    return SIZE_MAX;
}

/* The first row of call i in the chip's trace. */
static size_t call_row(const model *m, size_t i) {
    size_t r = 0;
    for (size_t k = 0; k < i; k++) r += 1 + m->req[k].n_words;
    return r;
}

static void check_layout(const airs *A) {
    const gs_air *io = A->air[T_IO];
    CHECK_EQ_U64(gs_air_num_cols(io), IO_COLS);
    CHECK_EQ_U64(gs_air_num_public(io), ZK_IO_NUM_PUBLIC);
    CHECK(gs_air_max_degree(io) <= 3); /* provable at blowup 2 */
    CHECK(gs_air_check_degree(io, 1) == GS_OK);
    printf("zkvm-io: %u columns, %u transitions, %u boundaries, %u interactions, degree %u\n",
           gs_air_num_cols(io), gs_air_num_transitions(io), gs_air_num_boundaries(io),
           gs_air_num_interactions(io), gs_air_max_degree(io));
    const gs_air *st = A->air[T_STREAM];
    CHECK_EQ_U64(gs_air_num_cols(st), ZK_STREAM_FIXED + 1);
    printf("zkvm-stream: %u columns, degree %u\n", gs_air_num_cols(st), gs_air_max_degree(st));

    model *m = malloc(sizeof *m);
    model_run(m, V_HONEST);
    stmt *s = malloc(sizeof *s);
    CHECK(stmt_fill(s, m) == GS_OK);
    size_t rows = 1;
    for (size_t i = 0; i < m->n; i++) rows += 1 + m->req[i].n_words;
    CHECK(((size_t)1 << s->t[T_IO].log_n) >= rows && ((size_t)1 << s->t[T_IO].log_n) < 2 * rows);
    /* the 17-byte write at BASE + 58: words BASE + 56 .. BASE + 72 */
    size_t i = find_call(m, 64, 1, 17);
    CHECK(i != SIZE_MAX && m->req[i].n_words == 5);
    size_t r = call_row(m, i);
    CHECK_EQ_U64(*cell(s, T_IO, C_H, r), 1);
    CHECK_EQ_U64(*cell(s, T_IO, C_COUNT, r), 17);
    CHECK_EQ_U64(*cell(s, T_IO, C_END, r), BASE + 75);
    CHECK_EQ_U64(*cell(s, T_IO, C_V, r + 1), 1);
    CHECK_EQ_U64(*cell(s, T_IO, C_A, r + 1), BASE + 58);
    CHECK_EQ_U64(*cell(s, T_IO, C_M0 + 1, r + 1), 0);
    CHECK_EQ_U64(*cell(s, T_IO, C_M0 + 2, r + 1), 1);
    CHECK_EQ_U64(*cell(s, T_IO, C_A, r + 5), BASE + 72);
    CHECK_EQ_U64(*cell(s, T_IO, C_M0 + 2, r + 5), 1);
    CHECK_EQ_U64(*cell(s, T_IO, C_M0 + 3, r + 5), 0);
    CHECK(gs_air_check_trace(io, s->t[T_IO].cols, s->t[T_IO].log_n, s->pub, NULL, NULL) == GS_OK);
    /* the stream table: the input, fd 1, fd 2, at least one padding row */
    CHECK(stmt_finish(s, m) == GS_OK);
    const uint64_t in1 = IN_LEN + s->out_len[0], all = in1 + s->out_len[1];
    CHECK(((uint64_t)1 << s->t[T_STREAM].log_n) > all);
    CHECK_EQ_U64(*cell(s, T_STREAM, 0, IN_LEN), 1);
    CHECK_EQ_U64(*cell(s, T_STREAM, 1, IN_LEN + 1), 1);
    CHECK_EQ_U64(*cell(s, T_STREAM, 2, IN_LEN + 1), s->out[0][1]);
    CHECK_EQ_U64(*cell(s, T_STREAM, 0, in1), 2);
    CHECK_EQ_U64(*cell(s, T_STREAM, 0, all), 3);
    CHECK_EQ_U64(*cell(s, T_STREAM, 3, all), 0);
    CHECK_EQ_U64(*cell(s, T_STREAM, 4, 5), 1); /* every input byte is read once */
    CHECK_EQ_U64(*cell(s, T_STREAM, 4, IN_LEN - 1), 1);
    CHECK(gs_air_check_trace(st, s->t[T_STREAM].cols, s->t[T_STREAM].log_n, NULL, NULL, NULL) ==
          GS_OK);
    stmt_free(s);
    /* bad requests: an unknown call, words that do not match the range */
    zk_io_req bad = m->req[0];
    zk_table t = {0};
    zk_lookups *lk = calloc(1, sizeof *lk);
    bad.call = 65;
    CHECK(zk_io_fill(&t, &bad, 1, IN_LEN, lk, NULL) == GS_ERR_INVALID_ARG);
    bad = m->req[0], bad.n_words--;
    CHECK(zk_io_fill(&t, &bad, 1, IN_LEN, lk, NULL) == GS_ERR_INVALID_ARG);
    CHECK(zk_io_fill(&t, NULL, 0, IN_LEN, lk, NULL) == GS_OK && t.log_n == ZK_MIN_LOG_N);
    free(t.cols), free(lk);
    free(s), free(m);
}

/* The model's own expectations: what fd 1 and fd 2 received. */
static void check_model(void) {
    model *m = malloc(sizeof *m);
    model_run(m, V_HONEST);
    CHECK_EQ_U64(m->cur[0], IN_LEN);
    CHECK_EQ_U64(m->cur[1], 5 + 0 + 3 + 4 + 17 + 15);
    CHECK_EQ_U64(m->cur[2], 1 + 4 + 5 + 2);
    CHECK(memcmp(m->out[1], m->in, 5) == 0);                  /* the first read, written back */
    CHECK(memcmp(m->out[1] + 29, m->in + 8, 15) == 0);        /* the partial read's */
    CHECK_EQ_U64(m->req[m->n - 3].count, 0);                  /* the read at the end */
    CHECK_EQ_U64(m->req[m->n - 4].count, 15);                 /* the partial read */
    free(m);
}

static void test_honest(const airs *A) {
    model *m = malloc(sizeof *m);
    model_run(m, V_HONEST);
    stmt *s = malloc(sizeof *s);
    CHECK(stmt_fill(s, m) == GS_OK);
    CHECK(stmt_finish(s, m) == GS_OK);
    gs_status ver = GS_ERR_INVALID_ARG;
    gs_status st = stmt_prove(A, s, m, 0, &ver);
    if (st != GS_OK) fprintf(stderr, "honest: prove: %s\n", gs_status_str(st));
    CHECK(st == GS_OK);
    if (ver != GS_OK) fprintf(stderr, "honest: verify: %s\n", gs_status_str(ver));
    CHECK(ver == GS_OK);
    printf("honest: %zu calls, %u chip rows, proved and verified\n", m->n, 1u << s->t[T_IO].log_n);
    stmt_free(s);
    free(s), free(m);
}

static void expect(const airs *A, const char *what, int variant, edit_fn edit, void *ctx,
                   gs_status want) {
    model *m = malloc(sizeof *m);
    model_run(m, variant);
    gs_status st = prove_model(A, m, edit, ctx);
    printf("%-44s %s\n", what, gs_status_str(st));
    CHECK_EQ_U64(st, want);
    free(m);
}

/* ---- edits ---- */

static void edit_forge_byte(stmt *s, const model *m, void *ctx) {
    (void)m, (void)ctx;
    s->out[0][3] ^= 0x80u; /* the claim says fd 1's byte 3 was another */
}
static void edit_longer(stmt *s, const model *m, void *ctx) {
    (void)m, (void)ctx;
    s->out[0][s->out_len[0]++] = 0x41;
}
static void edit_shorter(stmt *s, const model *m, void *ctx) {
    (void)m, (void)ctx;
    s->out_len[1]--;
}
static void edit_req_count(stmt *s, const model *m, void *ctx) { /* the requester alone */
    (void)m;
    size_t i = *(size_t *)ctx;
    *cell(s, T_REQ, R_COUNT, i) = gs_fp_add(*cell(s, T_REQ, R_COUNT, i), 1);
}

/* Removes chip rows [r, r + k) (the rows below move up; padding at the
 * end). */
static void drop_rows(stmt *s, size_t r, size_t k) {
    const size_t n = (size_t)1 << s->t[T_IO].log_n;
    for (uint32_t c = 0; c < IO_COLS; c++) {
        gs_fp *col = zk_col(&s->t[T_IO], c);
        memmove(col + r, col + r + k, (n - r - k) * sizeof *col);
        memset(col + n - k, 0, k * sizeof *col);
    }
}

/* Skips the middle word of the 17-byte write. */
static void edit_skip_word(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 64, 1, 17);
    drop_rows(s, call_row(m, i) + 3, 1);
}
/* Ends the 17-byte write one word early. */
static void edit_end_early(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 64, 1, 17);
    drop_rows(s, call_row(m, i) + 5, 1);
}
/* Repeats the second word of the 17-byte write (rows below move down; the
 * last padding row drops out). */
static void edit_repeat_word(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 64, 1, 17), r = call_row(m, i) + 2;
    const size_t n = (size_t)1 << s->t[T_IO].log_n;
    for (uint32_t c = 0; c < IO_COLS; c++) {
        gs_fp *col = zk_col(&s->t[T_IO], c);
        memmove(col + r + 1, col + r, (n - r - 1) * sizeof *col);
    }
}
/* Swaps two words of the 17-byte write (their bytes in reverse order). */
static void edit_swap_words(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 64, 1, 17), r = call_row(m, i) + 2;
    for (uint32_t c = 0; c < IO_COLS; c++) {
        gs_fp *col = zk_col(&s->t[T_IO], c), t = col[r];
        col[r] = col[r + 1], col[r + 1] = t;
    }
}
/* The partial read leaves one input byte out: its second word's last lane
 * drops from the mask, the word keeps its old byte there, and the input
 * row's multiplicity falls with it. */
static void edit_mask_hole(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 63, 0, 15), r = call_row(m, i) + 2;
    const zk_io_req *q = &m->req[i];
    CHECK_EQ_U64(*cell(s, T_IO, C_M0 + 3, r), 1);
    *cell(s, T_IO, C_M0 + 3, r) = 0;
    *cell(s, T_IO, C_X0 + 3, r) = *cell(s, T_IO, C_B0 + 3, r);
    s->in_mult[q->pos + (q->words[1].waddr + 3 - q->buf)]--;
}

/* The chip sends a byte of the 17-byte write that memory did not hold, and
 * the claimed output agrees with it. */
static void edit_forge_sent(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 64, 1, 17), r = call_row(m, i) + 2;
    const zk_io_req *q = &m->req[i];
    *cell(s, T_IO, C_X0, r) ^= 0x80u;
    s->out[0][q->pos + (q->words[1].waddr - q->buf)] ^= 0x80u;
}
/* A read into a read-only word: the chip's w on the partial read's first
 * word set to 0. */
static void edit_read_only(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t i = find_call(m, 63, 0, 15);
    *cell(s, T_IO, C_W, call_row(m, i) + 1) = 0;
}

/* The helper columns (HW = H (1 - RD), NXT = H BUF + V (A + K)) edited
 * alone: the 17-byte write's header said to be no write's, its second word
 * row's end one byte further. */
static void edit_hw(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t r = call_row(m, find_call(m, 64, 1, 17));
    CHECK_EQ_U64(*cell(s, T_IO, C_HW, r), 1);
    *cell(s, T_IO, C_HW, r) = 0;
}
/* The read from fd 1 with its header's HW set to 1, as a write's: without
 * HW's own constraint the write's rules (fd 1 or 2, count = len) would pass
 * it and the read's rules would not apply. */
static void edit_read_fd1_hw(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t r = call_row(m, find_call(m, 63, 1, 3));
    CHECK_EQ_U64(*cell(s, T_IO, C_HW, r), 0);
    *cell(s, T_IO, C_HW, r) = 1;
}
/* The 17-byte write ended a word early, its new last row's NXT set to the
 * call's END so that the end rule holds: NXT's own constraint refuses it. */
static void edit_end_early_nxt(stmt *s, const model *m, void *ctx) {
    size_t r = call_row(m, find_call(m, 64, 1, 17));
    edit_end_early(s, m, ctx);
    *cell(s, T_IO, C_NXT, r + 4) = *cell(s, T_IO, C_END, r);
}
static void edit_nxt(stmt *s, const model *m, void *ctx) {
    (void)ctx;
    size_t r = call_row(m, find_call(m, 64, 1, 17)) + 2;
    *cell(s, T_IO, C_NXT, r) = gs_fp_add(*cell(s, T_IO, C_NXT, r), 1);
}

static void test_refusals(const airs *A) {
    /* the claimed output */
    expect(A, "forged output byte", V_HONEST, edit_forge_byte, NULL, GS_ERR_BUS_UNBALANCED);
    expect(A, "chip sends a byte memory did not hold", V_HONEST, edit_forge_sent, NULL,
           GS_ERR_AIR_UNSATISFIED);
    expect(A, "read into a read-only word", V_HONEST, edit_read_only, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "claimed output one byte longer", V_HONEST, edit_longer, NULL, GS_ERR_BUS_UNBALANCED);
    expect(A, "claimed fd 2 output one byte shorter", V_HONEST, edit_shorter, NULL,
           GS_ERR_BUS_UNBALANCED);
    /* counts */
    expect(A, "read at the end returning len", V_READ_MORE_FULL, NULL, NULL, GS_ERR_BUS_UNBALANCED);
    expect(A, "read returning more than is left", V_READ_MORE_PARTIAL, NULL, NULL,
           GS_ERR_AIR_UNSATISFIED);
    expect(A, "read returning less than len, input left", V_READ_LESS, NULL, NULL,
           GS_ERR_AIR_UNSATISFIED);
    expect(A, "write returning len - 1", V_WRITE_SHORT, NULL, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "write returning len + 1", V_WRITE_LONG, NULL, NULL, GS_ERR_AIR_UNSATISFIED);
    /* fds */
    expect(A, "write to fd 3", V_WRITE_FD3, NULL, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "read from fd 1", V_READ_FD1, NULL, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "read from fd 1, its HW a write's", V_READ_FD1, edit_read_fd1_hw, NULL,
           GS_ERR_AIR_UNSATISFIED);
    /* hand-edited chip traces */
    expect(A, "chip skips a word", V_HONEST, edit_skip_word, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip ends a call a word early", V_HONEST, edit_end_early, NULL,
           GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip repeats a word", V_HONEST, edit_repeat_word, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip swaps two words", V_HONEST, edit_swap_words, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip leaves the read's last byte out", V_HONEST, edit_mask_hole, NULL,
           GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip's write header with HW = 0", V_HONEST, edit_hw, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip's word row with NXT + 1", V_HONEST, edit_nxt, NULL, GS_ERR_AIR_UNSATISFIED);
    expect(A, "chip ends a call early, NXT set to END", V_HONEST, edit_end_early_nxt, NULL,
           GS_ERR_AIR_UNSATISFIED);
    /* the requester's count disagrees with the chip's */
    model *m = malloc(sizeof *m);
    model_run(m, V_HONEST);
    size_t i = find_call(m, 64, 2, 5);
    CHECK(i != SIZE_MAX);
    free(m);
    expect(A, "requester claims count + 1", V_HONEST, edit_req_count, &i, GS_ERR_BUS_UNBALANCED);
}

/* A claimed output whose multiplicity is edited to 0 (the extra byte then
 * needs no sender): the stream table's constraint. */
static void test_output_mult(const airs *A) {
    model *m = malloc(sizeof *m);
    model_run(m, V_HONEST);
    stmt *s = malloc(sizeof *s);
    CHECK(stmt_fill(s, m) == GS_OK);
    s->out[0][s->out_len[0]++] = 0x41;
    CHECK(stmt_finish(s, m) == GS_OK);
    *cell(s, T_STREAM, 4, IN_LEN + s->out_len[0] - 1) = 0;
    gs_status st = stmt_prove(A, s, m, 0, NULL);
    printf("%-44s %s\n", "longer output, its multiplicity 0", gs_status_str(st));
    CHECK_EQ_U64(st, GS_ERR_AIR_UNSATISFIED);
    stmt_free(s);
    /* a forged output proven unchecked: the verifier refuses it */
    CHECK(stmt_fill(s, m) == GS_OK);
    s->out[0][3] ^= 0x80u;
    CHECK(stmt_finish(s, m) == GS_OK);
    gs_status ver = GS_OK;
    st = stmt_prove(A, s, m, 1, &ver);
    printf("%-44s %s\n", "forged output proven unchecked: verify", gs_status_str(ver));
    CHECK(st == GS_OK && ver != GS_OK);
    stmt_free(s);
    free(s), free(m);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    airs A;
    airs_make(&A);
    check_model();
    check_layout(&A);
    test_honest(&A);
    test_refusals(&A);
    test_output_mult(&A);
    airs_free(&A);
    return gs_test_done();
}
