/* The verifiers against proof structs edited in memory, not through the
 * parser (library users hand the verifier structs): every field of a valid
 * single-table proof (fib) and of a valid multi-table proof (two tables on a
 * bus and one without interactions) is edited in place — counts off by one,
 * values moved by one, values written in non-canonical form (v + p), digests
 * with a flipped bit, arrays replaced by NULL, arrays where the shape has
 * none — and every edit must be rejected (without a crash: CI runs this
 * under ASan/UBSan). Both proofs are edited at Merkle cap heights 0 (roots)
 * and 3 (caps: the cap array and the cap height too, and the roots, which a
 * capped proof leaves zero). Then the unbalanced-bus statement: its deficit written
 * into the bus-free table's sum, or a non-canonical zero there, is rejected;
 * and a statement whose bus carries two tuple widths is refused. */
#include "fib_air.h"
#include "fuzz/multi_stmt.h"
#include "gstark/gstark.h"
#include "prover/prover_internal.h"
#include "test_util.h"

typedef struct {
    const gs_air *air;        /* single: the AIR */
    gs_proof *p;              /* single: the proof being edited */
    gs_air *airs[MULTI_STMT_TABLES];
    gs_multi_proof *mp;       /* multi: the proof being edited */
} subject;

static gs_status verify(const subject *s) {
    if (s->mp) return gs_verify_multi((const gs_air *const *)s->airs, MULTI_STMT_TABLES, s->mp, 0);
    return gs_verify(s->air, s->p, 0);
}

static long g_edits, g_accepted;

static void expect_reject(const subject *s, const char *field, size_t i, const char *how) {
    g_edits++;
    gs_status r = verify(s);
    CHECK(r != GS_OK);
    g_accepted += r == GS_OK;
    if (r == GS_OK) fprintf(stderr, "  accepted: %s[%zu] %s\n", field, i, how);
}

/* Positions to edit in an array of n: both ends, the middle, two at random. */
static size_t positions(size_t out[5], size_t n) {
    if (!n) return 0;
    out[0] = 0, out[1] = n - 1, out[2] = n / 2, out[3] = gs_test_below(n), out[4] = gs_test_below(n);
    return 5;
}

/* v's non-canonical twin v + p where it fits in 64 bits, else another value
 * at or above p. */
static gs_fp non_canonical(gs_fp v) { return v < GS_FP_EPSILON ? v + GS_FP_P : GS_FP_P + (v & 0xffff); }

static void edit_fp(const subject *s, const char *field, gs_fp **arr, size_t n) {
    size_t pos[5], k = positions(pos, n);
    for (size_t j = 0; j < k; j++) {
        gs_fp *a = *arr, old = a[pos[j]];
        a[pos[j]] = gs_fp_add(old, 1);
        expect_reject(s, field, pos[j], "+1");
        a[pos[j]] = non_canonical(old);
        expect_reject(s, field, pos[j], "non-canonical");
        a[pos[j]] = old;
    }
    if (n) {
        gs_fp *keep = *arr;
        *arr = NULL;
        expect_reject(s, field, 0, "NULL");
        *arr = keep;
    }
}

/* Arrays are also replaced by NULL; a value embedded in the struct (passed
 * through a pointer to a local, nullable 0) cannot be. */
static void edit_fp3(const subject *s, const char *field, gs_fp3 **arr, size_t n, int nullable) {
    size_t pos[5], k = positions(pos, n);
    for (size_t j = 0; j < k; j++)
        for (int c = 0; c < 3; c++) {
            gs_fp *v = &(*arr)[pos[j]].c[c], old = *v;
            *v = gs_fp_add(old, 1);
            expect_reject(s, field, pos[j], "+1");
            *v = non_canonical(old);
            expect_reject(s, field, pos[j], "non-canonical");
            *v = old;
        }
    if (n && nullable) {
        gs_fp3 *keep = *arr;
        *arr = NULL;
        expect_reject(s, field, 0, "NULL");
        *arr = keep;
    }
}

static void edit_digests(const subject *s, const char *field, gs_digest **arr, size_t n, int nullable) {
    size_t pos[5], k = positions(pos, n);
    for (size_t j = 0; j < k; j++) {
        uint8_t *b = &(*arr)[pos[j]].b[gs_test_below(GS_DIGEST_BYTES)], bit = (uint8_t)(1u << gs_test_below(8));
        *b ^= bit;
        expect_reject(s, field, pos[j], "bit flip");
        *b ^= bit;
    }
    if (n && nullable) {
        gs_digest *keep = *arr;
        *arr = NULL;
        expect_reject(s, field, 0, "NULL");
        *arr = keep;
    }
}

static void edit_digest(const subject *s, const char *field, gs_digest *d) { edit_digests(s, field, &d, 1, 0); }

static void edit_u32(const subject *s, const char *field, uint32_t *v) {
    uint32_t old = *v, tries[3] = {old + 1, old - 1, UINT32_MAX};
    for (int j = 0; j < 3; j++) {
        if (tries[j] == old) continue;
        *v = tries[j];
        expect_reject(s, field, 0, "count changed");
    }
    *v = old;
}

/* Arrays a table without interactions must not have: any non-NULL one is
 * refused (the verifier reads nothing through them). */
static void edit_absent_aux(const subject *s, const char *field, gs_table_proof *t) {
    static gs_fp3 spare3[4];
    static gs_fp spare[12];
    static gs_digest spared[4];
    t->ood_aux_cur = spare3, expect_reject(s, field, 0, "ood_aux_cur present"), t->ood_aux_cur = NULL;
    t->ood_aux_next = spare3, expect_reject(s, field, 0, "ood_aux_next present"), t->ood_aux_next = NULL;
    t->aux_rows = spare, expect_reject(s, field, 0, "aux_rows present"), t->aux_rows = NULL;
    t->aux_paths = spared, expect_reject(s, field, 0, "aux_paths present"), t->aux_paths = NULL;
    /* Zero in non-canonical form, and any other value. */
    gs_fp3 old = t->bus_sum, bad[4] = {{{GS_FP_P, 0, 0}}, {{0, 0, GS_FP_P}}, {{1, 0, 0}}, {{0, GS_FP_P - 1, 0}}};
    for (int j = 0; j < 4; j++) t->bus_sum = bad[j], expect_reject(s, field, (size_t)j, "bus_sum of a bus-free table");
    t->bus_sum = old;
    edit_digest(s, "aux_root (bus-free)", &t->aux_root);
}

/* Every field of one table's entry (its statement and sub-proof). */
static void edit_entry(const subject *s, gs_proof *p) {
    gs_table_proof *t = &p->table;
    size_t Q = t->num_queries, C = t->num_cols, K = t->num_chunks, L = t->num_layers, A = t->aux_cols;
    /* FRI layer l folds a_l = min(arity, folds left) times: its leaves hold
     * 3 x 2^a_l elements, its tree is d_l = log N - l log_arity - a_l deep.
     * With a cap height h every path stops min(h, depth) levels below the
     * root, and every tree sends 2^min(h, depth) cap nodes. With coset
     * leaves (and a layer) the trace, chunk and aux leaves hold 2^a_0 rows,
     * their trees are log N - a_0 deep, and layer 0 is not committed. */
    size_t logN = p->log_n + p->params.log_blowup, fri_path = 0, fri_row = 0;
    size_t la = p->params.log_arity, folds = p->log_n > p->params.log_final ? p->log_n - p->params.log_final : 0;
    size_t f = p->params.coset_leaves && L ? (folds < la ? folds : la) : 0;
    if (f) { /* only where they pay: 8 (C + 3K)(2^a - 1) bytes a query against 24 2^a + 32 (2a + d0 - lq) */
        size_t lq = 0, d0 = logN - f;
        while (((size_t)1 << lq) < Q) lq++;
        if (8 * (C + 3 * K) * (((size_t)1 << f) - 1) >= 24 * ((size_t)1 << f) + 32 * (2 * f + (d0 > lq ? d0 - lq : 0)))
            f = 0;
    }
    size_t first = f ? 1 : 0;
    size_t h = p->params.cap_height, lde_cap = h < logN - f ? h : logN - f, path = logN - f - lde_cap;
    size_t caps = ((size_t)(A ? 3 : 2)) << lde_cap;
    for (size_t l = first; l < L; l++) {
        size_t a = folds - l * la < la ? folds - l * la : la, d = logN - l * la - a;
        size_t c = h < d ? h : d;
        fri_path += d - c, fri_row += (size_t)3 << a, caps += (size_t)1 << c;
    }

    edit_digest(s, "air_fingerprint", &p->air_fingerprint);
    edit_u32(s, "log_n", &p->log_n);
    edit_u32(s, "num_public", &p->num_public);
    edit_fp(s, "pub", &p->pub, p->num_public);
    char desc[sizeof p->air_desc];
    memcpy(desc, p->air_desc, sizeof desc);
    memset(p->air_desc, 'x', sizeof p->air_desc);
    expect_reject(s, "air_desc", 0, "no terminator");
    memcpy(p->air_desc, desc, sizeof desc);

    edit_u32(s, "num_cols", &t->num_cols);
    edit_u32(s, "num_chunks", &t->num_chunks);
    edit_u32(s, "num_layers", &t->num_layers);
    edit_u32(s, "final_len", &t->final_len);
    edit_u32(s, "num_queries", &t->num_queries);
    edit_u32(s, "log_lde", &t->log_lde);
    edit_u32(s, "fri_row_len", &t->fri_row_len);
    edit_u32(s, "fri_path_len", &t->fri_path_len);
    edit_u32(s, "aux_cols", &t->aux_cols);
    edit_u32(s, "cap_height", &t->cap_height);
    if (h) {
        edit_digests(s, "caps", &t->caps, caps, 1);
    } else {
        static gs_digest spare[4];
        t->caps = spare, expect_reject(s, "caps", 0, "present without a cap height"), t->caps = NULL;
    }
    edit_digest(s, "trace_root", &t->trace_root);
    edit_digest(s, "chunk_root", &t->chunk_root);
    edit_fp3(s, "ood_cur", &t->ood_cur, C, 1);
    edit_fp3(s, "ood_next", &t->ood_next, C, 1);
    edit_fp3(s, "ood_chunks", &t->ood_chunks, K, 1);
    edit_digests(s, "fri_roots", &t->fri_roots, L, 1);
    edit_fp3(s, "final_poly", &t->final_poly, t->final_len, 1);
    t->pow_nonce ^= 1, expect_reject(s, "pow_nonce", 0, "bit flip"), t->pow_nonce ^= 1;
    edit_fp(s, "trace_rows", &t->trace_rows, (Q * C) << f);
    edit_digests(s, "trace_paths", &t->trace_paths, Q * path, 1);
    edit_fp(s, "chunk_rows", &t->chunk_rows, (Q * 3 * K) << f);
    edit_digests(s, "chunk_paths", &t->chunk_paths, Q * path, 1);
    edit_fp(s, "fri_rows", &t->fri_rows, Q * fri_row);
    edit_digests(s, "fri_paths", &t->fri_paths, Q * fri_path, 1);
    /* The positions a version 3 file is indexed by: each must be the drawn one. */
    for (size_t k = 0; k < Q; k += Q / 3 + 1) {
        uint32_t old = t->query_pos[k];
        t->query_pos[k] = old ^ 1, expect_reject(s, "query_pos", k, "another position");
        t->query_pos[k] = old;
    }
    if (A) {
        edit_digest(s, "aux_root", &t->aux_root);
        gs_fp3 *bs = &t->bus_sum;
        edit_fp3(s, "bus_sum", &bs, 1, 0);
        edit_fp3(s, "ood_aux_cur", &t->ood_aux_cur, A, 1);
        edit_fp3(s, "ood_aux_next", &t->ood_aux_next, A, 1);
        edit_fp(s, "aux_rows", &t->aux_rows, (Q * 3 * A) << f);
        edit_digests(s, "aux_paths", &t->aux_paths, Q * path, 1);
    } else {
        edit_absent_aux(s, "bus-free table", t);
    }
}

static void edit_params(const subject *s, gs_params *q) {
    edit_u32(s, "log_blowup", &q->log_blowup);
    edit_u32(s, "log_final", &q->log_final);
    edit_u32(s, "grinding_bits", &q->grinding_bits);
    edit_u32(s, "num_queries", &q->num_queries);
    edit_u32(s, "log_arity", &q->log_arity);
    edit_u32(s, "cap_height", &q->cap_height);
    edit_u32(s, "coset_leaves", &q->coset_leaves);
}

/* The statement digest covers the statement (parameters, AIR, height, public
 * inputs), not the proof's commitments. */
static void check_digest(gs_proof *p, gs_params *q, gs_digest (*digest)(const void *), const void *whole) {
    gs_digest d0 = digest(whole), d;
    p->table.trace_root.b[0] ^= 1;
    d = digest(whole);
    CHECK(memcmp(&d, &d0, sizeof d) == 0);
    p->table.trace_root.b[0] ^= 1;
    uint32_t *fields[] = {&p->log_n, &q->num_queries, &q->grinding_bits};
    for (size_t i = 0; i < 3; i++) {
        (*fields[i])++;
        d = digest(whole);
        CHECK(memcmp(&d, &d0, sizeof d) != 0);
        (*fields[i])--;
    }
    p->air_fingerprint.b[31] ^= 0x80;
    d = digest(whole);
    CHECK(memcmp(&d, &d0, sizeof d) != 0);
    p->air_fingerprint.b[31] ^= 0x80;
    if (p->num_public) {
        p->pub[p->num_public - 1] ^= 1;
        d = digest(whole);
        CHECK(memcmp(&d, &d0, sizeof d) != 0);
        p->pub[p->num_public - 1] ^= 1;
    }
    d = digest(whole);
    CHECK(memcmp(&d, &d0, sizeof d) == 0);
}

static gs_digest single_digest(const void *p) { return gs_proof_statement_digest(p); }
static gs_digest multi_digest(const void *p) { return gs_multi_proof_statement_digest(p); }

static void test_single(uint32_t cap_height, uint32_t coset) {
    gs_fp pub[4] = {1, 1, 0, 0};
    unsigned log_n = 10;
    gs_air *air = fib_air();
    gs_fp *trace = fib_trace(log_n, pub);
    gs_params par = gs_params_default(80);
    par.grinding_bits = 4; /* a nonce's bit flip still fails: the queries change */
    par.num_queries = 38;
    par.cap_height = cap_height;
    par.coset_leaves = coset;
    gs_prove_opts o = {.air_desc = "fib"};
    gs_proof *p = NULL;
    CHECK(air && trace && gs_prove(&p, air, trace, log_n, pub, &par, &o) == GS_OK);
    if (!p) return;
    subject s = {.air = air, .p = p};
    CHECK(verify(&s) == GS_OK);
    long before = g_edits;
    edit_params(&s, &p->params);
    edit_entry(&s, p);
    CHECK(verify(&s) == GS_OK); /* every edit was undone */
    check_digest(p, &p->params, single_digest, p);
    gs_multi_proof one = {.params = p->params, .num_tables = 1, .tables = p};
    gs_digest ds = gs_proof_statement_digest(p), dm = gs_multi_proof_statement_digest(&one);
    CHECK(memcmp(&ds, &dm, sizeof ds) != 0); /* a one-table multi proof is another statement */
    printf("single-table, cap height %u%s: %ld edits, %ld accepted\n", cap_height,
           coset ? ", coset leaves" : "", g_edits - before, g_accepted);
    gs_proof_free(p);
    free(trace);
    gs_air_free(air);
}

static gs_multi_proof *prove_stmt(gs_multi_workload *w, uint32_t cap_height, uint32_t coset) {
    gs_table_input in[MULTI_STMT_TABLES];
    for (uint32_t i = 0; i < MULTI_STMT_TABLES; i++)
        in[i] = (gs_table_input){.air = w->tables[i].air, .trace = w->tables[i].trace,
                                 .log_n = w->tables[i].log_n, .pub = w->tables[i].pub,
                                 .air_desc = MULTI_STMT_SPEC[i].name};
    gs_prove_opts o = {.skip_check = 1};
    gs_multi_proof *mp = NULL;
    gs_params par = MULTI_STMT_PARAMS;
    par.cap_height = cap_height;
    par.coset_leaves = coset;
    CHECK(gs_prove_multi(&mp, in, MULTI_STMT_TABLES, &par, &o) == GS_OK);
    return mp;
}

static void test_multi(subject *s, uint32_t cap_height, uint32_t coset) {
    gs_multi_workload w = {0};
    CHECK(multi_stmt_workload(&w, 7) == GS_OK);
    s->mp = prove_stmt(&w, cap_height, coset);
    gs_multi_workload_free(&w);
    if (!s->mp) return;
    gs_multi_proof *mp = s->mp;
    CHECK(mp->tables[2].table.aux_cols == 0 && mp->tables[0].table.aux_cols > 0);
    CHECK(verify(s) == GS_OK);
    long before = g_edits;
    edit_params(s, &mp->params);
    for (uint32_t i = 0; i < mp->num_tables; i++) {
        edit_params(s, &mp->tables[i].params);
        edit_entry(s, &mp->tables[i]);
    }
    edit_u32(s, "num_tables", &mp->num_tables);
    gs_proof t0 = mp->tables[0];
    mp->tables[0] = mp->tables[1], mp->tables[1] = t0;
    expect_reject(s, "tables", 0, "0 and 1 swapped");
    mp->tables[1] = mp->tables[0], mp->tables[0] = t0;
    CHECK(verify(s) == GS_OK);
    for (uint32_t i = 0; i < mp->num_tables; i++) check_digest(&mp->tables[i], &mp->params, multi_digest, mp);
    printf("multi-table, cap height %u, coset leaves %u: %ld edits, %ld accepted in all\n", cap_height, coset,
           g_edits - before, g_accepted);
    gs_multi_proof_free(s->mp);
    s->mp = NULL;
}

/* The statement of issue 11: the provider's multiplicity raised by one, so the
 * bus does not balance; proven without the trace check. */
static void test_unbalanced(subject *s) {
    gs_multi_workload w = {0};
    CHECK(multi_stmt_workload(&w, 7) == GS_OK);
    if (!w.tables) return;
    w.tables[0].trace[8 + 2] = gs_fp_add(w.tables[0].trace[8 + 2], 1);
    s->mp = prove_stmt(&w, 0, 0);
    gs_multi_workload_free(&w);
    if (!s->mp) return;
    gs_multi_proof *mp = s->mp;
    CHECK(verify(s) == GS_ERR_PROOF_BUS);
    gs_fp3 deficit = gs_fp3_neg(gs_fp3_add(mp->tables[0].table.bus_sum, mp->tables[1].table.bus_sum));
    CHECK(!gs_fp3_is_zero(deficit));
    mp->tables[2].table.bus_sum = deficit;
    CHECK(verify(s) == GS_ERR_PROOF_FORMAT);
    /* The deficit moved into a table that has a bus: its sum is in the
     * transcript, so the chain no longer replays. */
    mp->tables[2].table.bus_sum = gs_fp3_zero();
    gs_fp3 keep = mp->tables[1].table.bus_sum;
    mp->tables[1].table.bus_sum = gs_fp3_add(keep, deficit);
    gs_status r = verify(s);
    CHECK(r != GS_OK && r != GS_ERR_PROOF_BUS);
    mp->tables[1].table.bus_sum = keep;
    CHECK(verify(s) == GS_ERR_PROOF_BUS);
    gs_multi_proof_free(s->mp);
    s->mp = NULL;
}

/* A table of 2^4 rows, column 0 = 0, 1, 2, ... (a counter), column 1 a
 * constant 1 multiplicity, that sends (c0) or (c0, 0) on bus 9, or receives
 * (c0). */
static gs_air *counter_air(const char *name, int sign, uint32_t width) {
    gs_air *a = gs_air_new(name, 2, 0);
    gs_expr one = gs_air_const(a, 1), zero = gs_air_const(a, 0);
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 0), gs_air_add(a, gs_air_col(a, 0), one)));
    gs_air_transition(a, gs_air_sub(a, gs_air_col(a, 1), one));
    gs_air_boundary(a, 0, 0, zero);
    gs_expr v[2] = {gs_air_col(a, 0), zero};
    if (sign > 0) gs_air_send(a, 9, v, width, gs_air_col(a, 1));
    else gs_air_receive(a, 9, v, width, gs_air_col(a, 1));
    return gs_air_finalize(a) == GS_OK ? a : (gs_air_free(a), NULL);
}

/* (v, 0) sent against (v) received balances (the padded tuple has the
 * shorter one's fingerprint), so a statement must use one width per bus. */
static void test_bus_widths(void) {
    gs_air *airs[2] = {counter_air("send2", +1, 2), counter_air("recv1", -1, 1)};
    gs_air *same = counter_air("send1", +1, 1);
    CHECK(airs[0] && airs[1] && same);
    if (!airs[0] || !airs[1] || !same) return;
    gs_fp trace[32];
    for (int r = 0; r < 16; r++) trace[r] = (gs_fp)r, trace[16 + r] = 1;
    gs_params par = MULTI_STMT_PARAMS;
    gs_prove_opts o = {.skip_check = 1};
    gs_table_input in[2] = {{.air = airs[0], .trace = trace, .log_n = 4},
                            {.air = airs[1], .trace = trace, .log_n = 4}};
    gs_multi_proof *mp = NULL;
    /* The prover refuses such a statement up front; a proof of it made by
     * another prover (here: this one with the check switched off) is refused
     * by the verifier. */
    CHECK(gs_prove_multi(&mp, in, 2, &par, &o) == GS_ERR_INVALID_ARG && !mp);
    gs_prover_debug_skip_width_check = 1;
    CHECK(gs_prove_multi(&mp, in, 2, &par, &o) == GS_OK);
    gs_prover_debug_skip_width_check = 0;
    CHECK(mp && gs_verify_multi((const gs_air *const *)airs, 2, mp, 0) == GS_ERR_PROOF_STATEMENT);
    gs_multi_proof_free(mp), mp = NULL;
    /* The same bus with one width on both sides proves and verifies. */
    gs_air *good[2] = {same, airs[1]};
    in[0].air = same;
    CHECK(gs_prove_multi(&mp, in, 2, &par, NULL) == GS_OK);
    CHECK(mp && gs_verify_multi((const gs_air *const *)good, 2, mp, 0) == GS_OK);
    gs_multi_proof_free(mp);
    gs_air_free(airs[0]), gs_air_free(airs[1]), gs_air_free(same);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    for (uint32_t coset = 0; coset < 2; coset++) {
        test_single(0, coset);
        test_single(3, coset);
    }
    subject s = {0};
    CHECK(multi_stmt_airs(s.airs) == GS_OK);
    test_multi(&s, 0, 1);
    test_multi(&s, 3, 0);
    test_unbalanced(&s);
    test_bus_widths();
    for (uint32_t i = 0; i < MULTI_STMT_TABLES; i++) gs_air_free(s.airs[i]);
    return gs_test_done();
}
