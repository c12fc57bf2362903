/* The zkVM's ALU chip (src/zkvm/air_alu.c) with the range and byte tables
 * (src/zkvm/air_lookup.c): a requester table sends (op, a, b, c) on the ALU
 * bus, the chip receives them, and the statement is proven and verified
 * (the fixed columns checked against the tables the verifier builds), for
 * the five ops it handles, XOR, OR, AND, SLT and SLTU (the CPU row does add,
 * sub and equality: test_zkvm_prove's test_cpu_arith):
 *  - every op on edge-value pairs and on random requests, c from the C
 *    arithmetic here (not the chip's);
 *  - requests for other ops are ignored; an empty request list and padding
 *    rows prove;
 *  - a wrong c sent by the requester cannot be proven (the honest chip
 *    leaves the ALU bus unbalanced), SLT's unsigned answer included;
 *  - chip traces edited by hand to claim a wrong result are refused by the
 *    constraint check, or by the lookups where the constraints alone allow
 *    it (a forged sign bit). */
#include <time.h>

#include "gstark/gstark.h"
#include "test_util.h"
#include "zkvm_chip_test.h"
#include "zkvm/zk_air.h"

/* The chip's layout (src/zkvm/air_alu.c), for the hand edits. */
enum { A_SEL = 0, A_A = 5, A_C = 17, A_DLO = 18, A_DHI = 19, A_CARRY = 20, A_SA = 21, A_R = 13 };

static uint32_t ref_alu(uint32_t op, uint32_t a, uint32_t b) {
    switch (op) {
    case ZK_ALU_XOR: return a ^ b;
    case ZK_ALU_OR: return a | b;
    case ZK_ALU_AND: return a & b;
    case ZK_ALU_SLT: return (int64_t)(int32_t)a < (int64_t)(int32_t)b ? 1u : 0u;
    case ZK_ALU_SLTU: return (uint64_t)a < (uint64_t)b ? 1u : 0u;
    default: return 0;
    }
}

typedef struct stmt {
    zk_table req, alu, range, byte;
    zk_lookups *lk;
} stmt;

static gs_air *g_airs[4]; /* requester, the chip under test, range, byte */
static int handles(uint32_t op) { return op >= ZK_ALU_XOR && op <= ZK_ALU_SLTU; }
static gs_fp *g_range_fixed, *g_byte_fixed; /* the verifier's columns */

static void stmt_free(stmt *s) {
    free(s->req.cols), free(s->alu.cols), free(s->range.cols), free(s->byte.cols), free(s->lk);
    memset(s, 0, sizeof *s);
}

/* Fills the statement: the requester sends `sent` (the handled ops only,
 * with their c as given), the chip is filled from `all`. */
static void stmt_fill(stmt *s, const zk_alu_req *sent, size_t ns, const zk_alu_req *all, size_t na) {
    memset(s, 0, sizeof *s);
    s->lk = calloc(1, sizeof *s->lk);
    CHECK(s->lk && zk_table_alloc(&s->req, 5, ns) == GS_OK);
    for (size_t i = 0; i < ns; i++) {
        const uint32_t v[5] = {sent[i].op, sent[i].a, sent[i].b, sent[i].c, 1};
        for (uint32_t k = 0; k < 5; k++) zk_col(&s->req, k)[i] = v[k];
    }
    CHECK(zk_alu_fill(&s->alu, all, na, s->lk) == GS_OK);
    zk_lookups *again = malloc(sizeof *again); /* the fill counts exactly the rows' lookups */
    memset(again, 0, sizeof *again);
    zkt_recount(again, g_airs[1], &s->alu);
    CHECK(memcmp(again, s->lk, sizeof *again) == 0);
    free(again);
}

/* The fixed tables from the counts as they stand now. */
static void stmt_tables(stmt *s) {
    free(s->range.cols), free(s->byte.cols);
    CHECK(zk_range_fill(&s->range, s->lk) == GS_OK);
    CHECK(zk_byte_fill(&s->byte, s->lk) == GS_OK);
}

static double g_prove_s;
static int g_proofs;

/* Proves (and, when that succeeds, verifies) the statement. */
static gs_status stmt_prove(stmt *s) {
    stmt_tables(s);
    const zk_table *t[4] = {&s->req, &s->alu, &s->range, &s->byte};
    gs_table_input in[4];
    for (int i = 0; i < 4; i++) in[i] = (gs_table_input){.air = g_airs[i], .trace = t[i]->cols,
                                                         .log_n = t[i]->log_n};
    gs_params par = zkt_params();
    gs_multi_proof *mp = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gs_status r = gs_prove_multi(&mp, in, 4, &par, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    g_prove_s += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    g_proofs++;
    if (r == GS_OK) {
        gs_fixed_col fx[1 + ZK_BYTE_FIXED];
        fx[0] = (gs_fixed_col){2, 0, 16, g_range_fixed};
        for (uint32_t k = 0; k < ZK_BYTE_FIXED; k++)
            fx[1 + k] = (gs_fixed_col){3, k, 16, g_byte_fixed + ((size_t)k << 16)};
        const gs_air *airs[4] = {g_airs[0], g_airs[1], g_airs[2], g_airs[3]};
        gs_status v = gs_verify_multi_fixed(airs, 4, mp, fx, 1 + ZK_BYTE_FIXED, 0);
        if (v != GS_OK) fprintf(stderr, "verify: %s\n", gs_status_str(v));
        CHECK(v == GS_OK);
    }
    gs_multi_proof_free(mp);
    return r;
}

static gs_status prove_reqs(const zk_alu_req *sent, size_t ns, const zk_alu_req *all, size_t na) {
    stmt s;
    stmt_fill(&s, sent, ns, all, na);
    gs_status r = stmt_prove(&s);
    stmt_free(&s);
    return r;
}

static const uint32_t EDGES[] = {0,          1,          2,          0x7f,       0x80,       0xff,
                                 0x100,      0xffff,     0x10000,    0x7fffffff, 0x80000000, 0x80000001,
                                 0xfffffffe, 0xffffffff, 0x12345678, 0xedcba987};
#define N_EDGES (sizeof EDGES / sizeof EDGES[0])

/* Every op on every pair of edge values, one proof. */
static void test_edges(void) {
    size_t n = 0;
    zk_alu_req *r = malloc(8 * N_EDGES * N_EDGES * sizeof *r);
    for (uint32_t op = ZK_ALU_XOR; op <= ZK_ALU_SLTU; op++)
        for (size_t i = 0; i < N_EDGES; i++)
            for (size_t j = 0; j < N_EDGES; j++)
                r[n] = (zk_alu_req){op, EDGES[i], EDGES[j], ref_alu(op, EDGES[i], EDGES[j])}, n++;
    /* a few outcomes the edges must include */
    CHECK_EQ_U64(ref_alu(ZK_ALU_SLT, 0xffffffff, 1), 1);
    CHECK_EQ_U64(ref_alu(ZK_ALU_SLTU, 0xffffffff, 1), 0);
    CHECK_EQ_U64(ref_alu(ZK_ALU_SLT, 0x7fffffff, 0x80000000), 0);
    gs_status s = prove_reqs(r, n, r, n);
    if (s != GS_OK) fprintf(stderr, "edges: %s\n", gs_status_str(s));
    CHECK(s == GS_OK);
    printf("edges: %zu requests proved and verified\n", n);
    free(r);
}

static uint32_t rand_u32(void) {
    uint64_t x = gs_test_u64();
    switch (x & 7) { /* now and then a value near an edge */
    case 0: return EDGES[(x >> 3) % N_EDGES];
    case 1: return EDGES[(x >> 3) % N_EDGES] + (uint32_t)((x >> 8) & 3) - 2;
    default: return (uint32_t)(x >> 32);
    }
}

/* Random requests, with requests for other ops mixed in (the chip ignores
 * them; the requester here sends only the chip's). */
static void test_random(void) {
    size_t na = 3000, ns = 0;
    zk_alu_req *all = malloc(na * sizeof *all), *sent = malloc(na * sizeof *sent);
    for (size_t i = 0; i < na; i++) {
        uint32_t op = gs_test_below(8) ? 1 + (uint32_t)gs_test_below(ZK_ALU_EQ)
                                       : ZK_ALU_EQ + 1 + (uint32_t)gs_test_below(ZK_ALU_NUM_OPS - 1 - ZK_ALU_EQ);
        uint32_t a = rand_u32();
        uint32_t b = gs_test_below(4) == 0 ? a : rand_u32();
        all[i] = (zk_alu_req){op, a, b, handles(op) ? ref_alu(op, a, b) : 0xdeadbeef};
        if (handles(op)) sent[ns++] = all[i];
    }
    stmt s;
    stmt_fill(&s, sent, ns, all, na);
    unsigned want_log = ZK_MIN_LOG_N;
    while (((size_t)1 << want_log) < ns) want_log++;
    CHECK(s.alu.log_n == want_log);
    gs_status r = stmt_prove(&s);
    if (r != GS_OK) fprintf(stderr, "random: %s\n", gs_status_str(r));
    CHECK(r == GS_OK);
    printf("random: %zu of %zu requests for the chip, %u rows, proved and verified\n", ns, na,
           1u << s.alu.log_n);
    stmt_free(&s);
    free(all), free(sent);
}

/* No requests: 2^ZK_MIN_LOG_N padding rows; one request: 15 padding rows. */
static void test_empty_and_padding(void) {
    stmt s;
    zk_alu_req other = {ZK_ALU_MUL, 3, 4, 12};
    stmt_fill(&s, NULL, 0, &other, 1);
    CHECK(s.alu.log_n == ZK_MIN_LOG_N);
    CHECK(gs_air_check_trace(g_airs[1], s.alu.cols, s.alu.log_n, NULL, NULL, NULL) == GS_OK);
    CHECK(stmt_prove(&s) == GS_OK);
    stmt_free(&s);
    zk_alu_req one = {ZK_ALU_SLT, 0x80000000, 0, 1};
    CHECK(prove_reqs(&one, 1, &one, 1) == GS_OK);
}

/* The requester sends a wrong c; the chip, filled from the same requests,
 * computes the right one: the ALU bus does not balance. */
static void test_wrong_c(void) {
    static const zk_alu_req base[] = {
        {ZK_ALU_XOR, 0x0f0f0f0f, 0xff00ff00, 0xf00ff00f}, {ZK_ALU_OR, 0x80000000, 1, 0x80000001},
        {ZK_ALU_AND, 0xffffffff, 0x1234, 0x1234}, {ZK_ALU_SLT, 5, 5, 0},
        {ZK_ALU_SLTU, 0, 0xffffffff, 1},
    };
    zk_alu_req mine[sizeof base / sizeof base[0]];
    size_t nb = 0;
    for (size_t k = 0; k < sizeof base / sizeof base[0]; k++)
        if (handles(base[k].op)) mine[nb++] = base[k];
    for (size_t k = 0; k < nb; k++) CHECK_EQ_U64(mine[k].c, ref_alu(mine[k].op, mine[k].a, mine[k].b));
    CHECK(prove_reqs(mine, nb, mine, nb) == GS_OK);
    for (size_t k = 0; k < nb; k++) {
        zk_alu_req bad[sizeof base / sizeof base[0]];
        memcpy(bad, mine, nb * sizeof *mine);
        bad[k].c += 1;
        gs_status r = prove_reqs(bad, nb, bad, nb);
        if (r != GS_ERR_BUS_UNBALANCED) fprintf(stderr, "wrong c, op %u: %s\n", mine[k].op, gs_status_str(r));
        CHECK(r == GS_ERR_BUS_UNBALANCED);
    }
    /* SLT answered as SLTU: -1 < 1 signed, not unsigned */
    zk_alu_req slt = {ZK_ALU_SLT, 0xffffffff, 1, ref_alu(ZK_ALU_SLTU, 0xffffffff, 1)};
    CHECK(slt.c != ref_alu(ZK_ALU_SLT, slt.a, slt.b));
    CHECK(prove_reqs(&slt, 1, &slt, 1) == GS_ERR_BUS_UNBALANCED);
}

/* A chip row edited by hand. The requester sends what the edited row
 * claims and the lookup counts are those the edited trace makes (recount),
 * so only the chip's own constraints (or its lookups' tuples, which no
 * count can balance when they are outside the tables) can object. */
typedef struct edit {
    const char *what;
    zk_alu_req req;  /* the honest request */
    uint32_t claim;  /* the c the requester and the edited row claim */
    int kind;
    gs_status want;
} edit;

enum { E_C_ONLY, E_SIGN, E_SEL2, E_CARRY_FIELD, E_SA_FIELD, E_LIMBS };

/* The chip's constraint numbers (src/zkvm/air_alu.c's order) that the two
 * non-boolean attacks below must trip, and nothing else. */
enum { CON_BOOL_CARRY = 6, CON_BOOL_SA = 7 };

/* A bit mask of the chip's transition constraints that fail on row 0. */
static uint64_t failing(stmt *s) {
    const gs_air *air = g_airs[1];
    uint32_t nt = gs_air_num_transitions(air);
    void *scratch = malloc(gs_air_scratch_size(air));
    gs_fp *out = calloc(nt, sizeof *out);
    uint64_t mask = 0;
    CHECK(nt <= 64 && gs_air_eval_block(air, scratch, out, s->alu.cols, (size_t)1 << s->alu.log_n, 1,
                                        0, 1, NULL) == GS_OK);
    for (uint32_t k = 0; k < nt && k < 64; k++) mask |= (uint64_t)(out[k] != 0) << k;
    free(scratch), free(out);
    return mask;
}

static void set(stmt *s, uint32_t col, gs_fp v) { zk_col(&s->alu, col)[0] = v; }

/* The statement of one edit: the requester claims e->claim, the chip is
 * filled honestly (its trace satisfies the constraints until edited). */
static void edit_begin(stmt *s, const edit *e) {
    CHECK_EQ_U64(e->req.c, ref_alu(e->req.op, e->req.a, e->req.b));
    zk_alu_req claimed = e->req;
    claimed.c = e->claim;
    stmt_fill(s, &claimed, 1, &e->req, 1);
    CHECK(gs_air_check_trace(g_airs[1], s->alu.cols, s->alu.log_n, NULL, NULL, NULL) == GS_OK);
}

/* After the edit: the lookup counts the edited trace makes, then the proof,
 * which must fail as e->want says. */
static void edit_end(stmt *s, const edit *e) {
    memset(s->lk, 0, sizeof *s->lk);
    zkt_recount(s->lk, g_airs[1], &s->alu);
    gs_status r = stmt_prove(s);
    if (r != e->want) fprintf(stderr, "%s: %s\n", e->what, gs_status_str(r));
    CHECK(r == e->want);
    stmt_free(s);
}

static void test_hand_edits(void) {
    static const edit cases[] = {
        {"SLTU answer flipped", {ZK_ALU_SLTU, 3, 5, 1}, 0, E_C_ONLY, GS_ERR_AIR_UNSATISFIED},
        {"SLT answer flipped", {ZK_ALU_SLT, 0xffffffff, 1, 1}, 0, E_C_ONLY, GS_ERR_AIR_UNSATISFIED},
        {"XOR c changed", {ZK_ALU_XOR, 0xff, 0x0f, 0xf0}, 0xf1, E_C_ONLY, GS_ERR_AIR_UNSATISFIED},
        {"AND c changed", {ZK_ALU_AND, 0xff, 0x0f, 0x0f}, 0x0e, E_C_ONLY, GS_ERR_AIR_UNSATISFIED},
        {"two selectors", {ZK_ALU_XOR, 1, 2, 3}, 3, E_SEL2, GS_ERR_AIR_UNSATISFIED},
        /* an answer (the borrow) or a sign that is a field element other
         * than 0 and 1 can satisfy the relation with any difference in
         * range: only the booleanity constraints stop these */
        {"SLTU answer a field element", {ZK_ALU_SLTU, 3, 5, 1}, 1, E_CARRY_FIELD, GS_ERR_AIR_UNSATISFIED},
        {"SLT sign a field element", {ZK_ALU_SLT, 0xffffffff, 1, 1}, 0, E_SA_FIELD,
         GS_ERR_AIR_UNSATISFIED},
        /* the constraints alone allow sa = 0 for a negative a (then the
         * unsigned answer follows); the sign lookup does not */
        {"SLT sign forged", {ZK_ALU_SLT, 0xffffffff, 1, 1}, 0, E_SIGN, GS_ERR_BUS_UNBALANCED},
        /* nor a3 < 128 by moving 2^31 of a into a2 (a2 is no byte then) */
        {"SLT limbs shifted", {ZK_ALU_SLT, 0xffffffff, 1, 1}, 0, E_LIMBS, GS_ERR_BUS_UNBALANCED},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const edit *e = &cases[k];
        stmt s;
        edit_begin(&s, e);
        uint32_t a = e->req.a, b = e->req.b;
        switch (e->kind) {
        case E_C_ONLY:
            set(&s, A_C, e->claim);
            if (e->req.op == ZK_ALU_SLT || e->req.op == ZK_ALU_SLTU) set(&s, A_CARRY, e->claim);
            break;
        case E_SEL2: set(&s, A_SEL + ZK_ALU_OR - ZK_ALU_XOR, 1); break;
        case E_SIGN: { /* sa = 0: a' = a + 2^31, d = a' - b' (b >= 0), answer 0 */
            uint32_t d = (uint32_t)((uint64_t)a + 0x80000000u - ((uint64_t)b + 0x80000000u));
            set(&s, A_SA, 0), set(&s, A_CARRY, 0), set(&s, A_C, 0);
            set(&s, A_DLO, d & 0xffff), set(&s, A_DHI, d >> 16);
            /* the sign tuple is now (RANGE, 2 a3, 2 b3, 0) with 2 a3 = 510 */
            CHECK(gs_air_check_trace(g_airs[1], s.alu.cols, s.alu.log_n, NULL, NULL, NULL) == GS_OK);
            break;
        }
        case E_LIMBS: { /* a3 - 128, a2 + 2^15: A unchanged, a3 < 128, sa = 0 */
            uint32_t a2 = (a >> 16) & 0xff, a3 = a >> 24, d = a - b;
            set(&s, A_A + 2, a2 + 32768), set(&s, A_A + 3, a3 - 128);
            set(&s, A_SA, 0), set(&s, A_CARRY, 0), set(&s, A_C, 0);
            set(&s, A_DLO, d & 0xffff), set(&s, A_DHI, d >> 16);
            CHECK(gs_air_check_trace(g_airs[1], s.alu.cols, s.alu.log_n, NULL, NULL, NULL) == GS_OK);
            break;
        }
        case E_CARRY_FIELD: { /* D = 7, c = carry = (D - A + B) / 2^32 in Fp */
            gs_fp k = gs_fp_mul(gs_fp_sub(gs_fp_add(7, b), a), gs_fp_inv((gs_fp)1 << 32));
            set(&s, A_CARRY, k), set(&s, A_C, k), set(&s, A_DLO, 7), set(&s, A_DHI, 0);
            zk_col(&s.req, 3)[0] = k; /* the requester claims it too */
            CHECK_EQ_U64(failing(&s), 1ull << CON_BOOL_CARRY);
            break;
        }
        case E_SA_FIELD: {
            /* sa = (2 a3 - 255) / 256, so the sign tuple is (RANGE, 255, 2 b3,
             * 0), a byte pair; then 2^32 sa = 2^25 a3 - 2^24 255 and for a =
             * -1, b = 1 the relation holds with answer 0 and D = 2^24 - 2 */
            uint32_t a3 = a >> 24, d = (1u << 24) - 2;
            set(&s, A_SA, gs_fp_mul(2 * a3 - 255, gs_fp_inv(256)));
            set(&s, A_CARRY, 0), set(&s, A_C, 0), set(&s, A_DLO, d & 0xffff), set(&s, A_DHI, d >> 16);
            CHECK_EQ_U64(failing(&s), 1ull << CON_BOOL_SA);
            break;
        }
        }
        edit_end(&s, e);
    }
    /* the R limbs and c of an XOR moved together: the byte lookup objects */
    zk_alu_req x = {ZK_ALU_XOR, 0xff, 0x0f, 0xf0}, xc = x;
    xc.c = 0xf1;
    stmt s;
    stmt_fill(&s, &xc, 1, &x, 1);
    set(&s, A_C, 0xf1), set(&s, A_R, 0xf1);
    CHECK(gs_air_check_trace(g_airs[1], s.alu.cols, s.alu.log_n, NULL, NULL, NULL) == GS_OK);
    memset(s.lk, 0, sizeof *s.lk);
    zkt_recount(s.lk, g_airs[1], &s.alu);
    CHECK(stmt_prove(&s) == GS_ERR_BUS_UNBALANCED);
    stmt_free(&s);
}

/* zk_inv_in_place (the CPU table's beq inverses, the div chip's): every
 * nonzero value becomes its inverse, zeros stay 0, across its 256-value
 * batches, with 0, 1 and p - 1 mixed in. */
static void test_inv_in_place(void) {
    enum { N = 700 };
    static gs_fp x[N], y[N];
    for (size_t i = 0; i < N; i++) {
        unsigned k = (unsigned)gs_test_below(5);
        x[i] = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? GS_FP_P - 1 : gs_test_fp();
        y[i] = x[i];
    }
    zk_inv_in_place(y, N);
    int bad = 0;
    for (size_t i = 0; i < N; i++) bad += x[i] ? gs_fp_mul(x[i], y[i]) != 1 : y[i] != 0;
    CHECK(bad == 0);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_inv_in_place();
    g_airs[0] = zkt_requester_air("alu-requester", ZK_BUS_ALU, 4);
    g_airs[1] = zk_alu_air();
    g_airs[2] = zk_range_air();
    g_airs[3] = zk_byte_air();
    for (int i = 0; i < 4; i++) CHECK(g_airs[i] != NULL);
    if (!g_airs[1] || !g_airs[2] || !g_airs[3]) return gs_test_done();
    printf("alu: %u columns, degree %u, %u interactions\n", gs_air_num_cols(g_airs[1]),
           gs_air_max_degree(g_airs[1]), gs_air_num_interactions(g_airs[1]));
    CHECK(gs_air_check_degree(g_airs[1], 2) == GS_OK);
    zk_table r0, b0;
    CHECK(zk_range_fill(&r0, NULL) == GS_OK && zk_byte_fill(&b0, NULL) == GS_OK);
    g_range_fixed = r0.cols, g_byte_fixed = b0.cols; /* the value columns come first */
    test_empty_and_padding();
    test_edges();
    test_random();
    test_wrong_c();
    test_hand_edits();
    printf("%d proofs, %.1f s proving\n", g_proofs, g_prove_s);
    free(r0.cols), free(b0.cols);
    for (int i = 0; i < 4; i++) gs_air_free(g_airs[i]);
    return gs_test_done();
}
