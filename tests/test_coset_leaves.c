/* Coset leaves (gs_params.coset_leaves; docs/protocol.md, "Coset leaves"):
 * - the rule: a wide table (mix, 64 columns) keeps one row a leaf and a
 *   committed layer 0 under coset_leaves = 1, and its proof verifies and
 *   round-trips; a narrow one (fib) takes coset leaves;
 * - the layout, computed here independently of the prover: the trace tree
 *   of a fib proof is the Merkle tree of the LDE (gs_lde_coset) read as
 *   cols 2^a columns of N / 2^a rows, each opened leaf holds the rows
 *   leaf + i N / 2^a, FRI layer 0 has no cap, no rows and no path;
 * - proofs at every fold arity, blowups 2..8, both hashes, cap heights 0
 *   and 2, single- and multi-table (buses: aux trees), a trace too short to
 *   fold: they verify, round-trip byte for byte, are the same bytes with 1
 *   and 3 threads, the statement digest names the choice, and fib 2^12 at
 *   the default arity is smaller than without it;
 * - determinism: synth vm (narrow tables with coset leaves, wide ones
 *   without) gives the same bytes over threads, tables in parallel and a
 *   memory budget that makes the tables wait;
 * - tampering: every truncation and every byte of a small file flipped,
 *   random flips of a multi-table file, the header's flag and the struct's
 *   parameter changed: rejected, never accepted;
 * - a cheating prover (one cell wrong, the trace check off, the
 *   out-of-domain value forged) rejected at every arity x cap height x hash;
 * - with a shared FRI the provers take the default's coset leaves as 0 (the
 *   same bytes as asking for 0, the proof records 0); refused: a flag other
 *   than 0 or 1, the version 1 and 2 writers; a golden file pins the format.
 *
 *   test_coset_leaves --regen    rewrite the golden file */
#include <string.h>

#include "cheat_ood.h"
#include "fib_air.h"
#include "fuzz/multi_stmt.h"
#include "gstark/airs.h"
#include "gstark/merkle.h"
#include "gstark/ntt.h"
#include "gstark/parallel.h"
#include "gstark/prover.h"
#include "gstark/synth.h"
#include "gstark/verifier.h"
#include "test_io.h"
#include "test_util.h"

#ifndef GS_SOURCE_DIR
#error "GS_SOURCE_DIR must name the source tree (set by CMakeLists.txt)"
#endif
#define GOLDEN GS_SOURCE_DIR "/tests/golden/fib_small_coset_v3.proof"

static gs_air *g_fib;
static gs_air *g_airs[MULTI_STMT_TABLES];
static const gs_hash_id HASHES[2] = {GS_HASH_KECCAK256, GS_HASH_POSEIDON2};

static gs_proof *prove_fib(unsigned log_n, gs_params par, unsigned threads) {
    gs_proof *pf = NULL;
    gs_status s = fib_prove(&pf, g_fib, log_n, &par, threads);
    if (s != GS_OK) fprintf(stderr, "prove fib 2^%u: %s\n", log_n, gs_status_str(s));
    CHECK(s == GS_OK);
    return pf;
}

static gs_status prove_multi(gs_multi_proof **mp, gs_params par, unsigned threads) {
    return multi_stmt_prove(mp, 7, &par, threads);
}

static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }

/* ---- the layout ---- */

static void test_layout(void) {
    for (uint32_t la = 1; la <= 4; la++) {
        enum { LOG_N = 7, LB = 2 };
        gs_params par = {LB, 1, 0, 40, la, GS_HASH_KECCAK256, 0, 0, 1};
        gs_proof *p = prove_fib(LOG_N, par, 1);
        if (!p) continue;
        const gs_table_proof *t = &p->table;
        unsigned logN = LOG_N + LB, a = min_u(la, LOG_N - 1), depth = logN - a;
        size_t n = (size_t)1 << LOG_N, N = (size_t)1 << logN, M = (size_t)1 << depth, F = (size_t)1 << a;
        gs_fp pub[4] = {1, 1, 0, 0};
        gs_fp *m = fib_trace(LOG_N, pub), *lde = malloc(2 * N * sizeof *lde);
        CHECK(m && lde && gs_lde_coset(lde, m, 2, LOG_N, LB, GS_FP_GENERATOR, GS_ORDER_NATURAL) == GS_OK);
        (void)n;
        /* The same memory as 2 F columns of M rows: its root is the trace root. */
        gs_merkle_tree *tree = NULL;
        CHECK(gs_merkle_commit(&tree, GS_HASH_KECCAK256, lde, 2 * F, M, depth) == GS_OK);
        if (tree) {
            gs_digest root = gs_merkle_root(tree);
            CHECK(memcmp(&root, &t->trace_root, sizeof root) == 0);
        }
        gs_merkle_free(tree);
        /* Every opened leaf: column c's rows leaf + i M at c F + i. */
        int rows_ok = 1;
        for (uint32_t k = 0; k < t->num_queries; k++) {
            size_t leaf = t->query_pos[k] & (M - 1);
            for (size_t c = 0; c < 2; c++)
                for (size_t i = 0; i < F; i++)
                    rows_ok &= t->trace_rows[k * 2 * F + c * F + i] == lde[c * N + leaf + i * M];
        }
        CHECK(rows_ok);
        /* Layer 0 sends nothing: its root is zero, the rows and paths are the
         * other layers' (each a 3 2^a-wide leaf and a path to its depth). */
        static const gs_digest zero;
        size_t row_len = 0, path_len = 0;
        unsigned folds = LOG_N - 1, ls = logN;
        for (uint32_t l = 0; l < t->num_layers; l++) {
            unsigned al = min_u(la, folds - l * la);
            if (l) row_len += (size_t)3 << al, path_len += ls - al;
            ls -= al;
        }
        CHECK(t->num_layers >= 1 && memcmp(&t->fri_roots[0], &zero, sizeof zero) == 0);
        CHECK(t->fri_row_len == row_len && t->fri_path_len == path_len);
        free(m), free(lde);
        gs_proof_free(p);
    }
}

/* ---- the rule: only where they pay ---- */

static void test_rule(void) {
    gs_mix_params mp = {64, 3, 8, 5};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = {2, 2, 2, 78, 3, 0, 0, 0, 1};
    gs_proof *p = NULL, *q = NULL;
    CHECK(gs_prove(&p, w.air, w.trace, w.log_n, w.pub, &par, NULL) == GS_OK);
    static const gs_digest zero;
    if (p) {
        /* One row a leaf (64 elements), layer 0 committed: 8 x 73 x 7 bytes
         * of extra rows a query would cost more than layer 0's opening. */
        CHECK(memcmp(&p->table.fri_roots[0], &zero, sizeof zero) != 0);
        CHECK(gs_verify(w.air, p, 0) == GS_OK);
        uint8_t *b = NULL, *b2 = NULL;
        size_t l = 0, l2 = 0;
        CHECK(gs_proof_serialize(&b, &l, p) == GS_OK && gs_proof_parse(&q, b, l) == GS_OK);
        CHECK(q && q->params.coset_leaves == 1 && gs_verify(w.air, q, 0) == GS_OK);
        CHECK(q && gs_proof_serialize(&b2, &l2, q) == GS_OK && l2 == l && !memcmp(b, b2, l));
        free(b), free(b2);
    }
    gs_proof *f = prove_fib(8, par, 1);
    CHECK(f && memcmp(&f->table.fri_roots[0], &zero, sizeof zero) == 0);
    gs_proof_free(f), gs_proof_free(p), gs_proof_free(q);
    gs_workload_free(&w);
}

/* GS_COSET_LEAVES_ALL: a table the rule keeps at one row a leaf (mix 8 x
 * 2^8: 8 (8 + 3 x 2) x 7 bytes of extra rows a query against layer 0's
 * opening) takes coset leaves too; the file keeps the choice, the statement
 * names it, a proof relabelled 1 (or 0) fails, 400 random bits flipped in
 * the file are each refused, and a cheating prover's trace is rejected. */
static void test_all(void) {
    gs_mix_params mp = {8, 3, 8, 5};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_params par = {2, 2, 2, 78, 3, 0, 0, 0, GS_COSET_LEAVES_ALL}, one = par;
    one.coset_leaves = 1;
    gs_proof *p = NULL, *p1 = NULL, *q = NULL;
    CHECK(gs_prove(&p, w.air, w.trace, w.log_n, w.pub, &par, NULL) == GS_OK);
    CHECK(gs_prove(&p1, w.air, w.trace, w.log_n, w.pub, &one, NULL) == GS_OK);
    static const gs_digest zero;
    uint8_t *b = NULL, *b2 = NULL, *b1 = NULL;
    size_t l = 0, l2 = 0, l1 = 0;
    if (p && p1) {
        CHECK(memcmp(&p->table.fri_roots[0], &zero, sizeof zero) == 0); /* layer 0 not committed */
        CHECK(memcmp(&p1->table.fri_roots[0], &zero, sizeof zero) != 0);
        CHECK(gs_proof_table_parts(p).leaf_rows_log == 3 && gs_proof_table_parts(p1).leaf_rows_log == 0);
        CHECK(gs_verify(w.air, p, 0) == GS_OK);
        CHECK(gs_proof_serialize(&b, &l, p) == GS_OK && gs_proof_parse(&q, b, l) == GS_OK);
        CHECK(q && q->params.coset_leaves == GS_COSET_LEAVES_ALL && gs_verify(w.air, q, 0) == GS_OK);
        CHECK(q && gs_proof_serialize(&b2, &l2, q) == GS_OK && l2 == l && !memcmp(b, b2, l));
        CHECK(gs_proof_serialize(&b1, &l1, p1) == GS_OK && l1 < l); /* larger, as the rule said */
        gs_digest d = gs_proof_statement_digest(p), d1 = gs_proof_statement_digest(p1);
        CHECK(memcmp(&d, &d1, sizeof d) != 0);
        for (uint32_t c = 0; c < 2; c++) { /* relabelled: another statement, another shape */
            p->params.coset_leaves = c;
            CHECK(gs_verify(w.air, p, 0) != GS_OK);
        }
        p->params.coset_leaves = GS_COSET_LEAVES_ALL;
        int by_parser = 0, accepted = 0;
        for (int k = 0; b && k < 400; k++) {
            size_t i = 12 + gs_test_below(l - 12);
            uint8_t x = (uint8_t)(1u << gs_test_below(8));
            b[i] ^= x;
            if (!file_rejected(w.air, b, l, &by_parser)) accepted++, fprintf(stderr, "accepted: byte %zu\n", i);
            b[i] ^= x;
        }
        CHECK(accepted == 0);
        printf("coset leaves for every table: mix 8 x 2^8 %zu bytes (%zu with the rule), 400 bits "
               "flipped refused (%d by the parser)\n", l, l1, by_parser);
    }
    /* A cheating prover (a wrong cell, out-of-domain values that hide it),
     * unchecked, at three random cells: rejected. */
    const size_t cells = (size_t)mp.cols << w.log_n;
    gs_fp *m = malloc(cells * sizeof *m);
    for (int r = 0; m && r < 3; r++) {
        memcpy(m, w.trace, cells * sizeof *m);
        gs_proof *pf = NULL;
        gs_status v = cheat_prove(&pf, w.air, m, cells, w.log_n, w.pub, &par);
        CHECK(pf != NULL && cheat_kind(v) >= 0);
        if (cheat_kind(v) < 0) fprintf(stderr, "cheating prover on mix 8 x 2^8: %s\n", gs_status_str(v));
        gs_proof_free(pf);
    }
    free(m);
    free(b), free(b2), free(b1);
    gs_proof_free(p), gs_proof_free(p1), gs_proof_free(q);
    gs_workload_free(&w);
}

/* ---- round trips ---- */

static void round_trip_single(gs_params par, unsigned log_n, int *count) {
    gs_proof *p = prove_fib(log_n, par, 1), *p3 = prove_fib(log_n, par, 3), *q = NULL;
    uint8_t *b = NULL, *b3 = NULL, *b2 = NULL, *v1 = NULL;
    size_t l = 0, l3 = 0, l2 = 0, lv1 = 0;
    CHECK(p && gs_verify(g_fib, p, 0) == GS_OK);
    CHECK(p && gs_proof_serialize(&b, &l, p) == GS_OK);
    CHECK(p3 && gs_proof_serialize(&b3, &l3, p3) == GS_OK);
    CHECK(b && b3 && l == l3 && memcmp(b, b3, l) == 0);
    CHECK(b && gs_proof_parse(&q, b, l) == GS_OK);
    CHECK(q && q->params.coset_leaves == 1 && gs_verify(g_fib, q, 0) == GS_OK);
    CHECK(q && gs_proof_serialize(&b2, &l2, q) == GS_OK && l2 == l && memcmp(b, b2, l) == 0);
    CHECK(p && gs_proof_serialize_as(&v1, &lv1, p, GS_PROOF_VERSION) == GS_ERR_INVALID_ARG && !v1);
    /* The digest names the choice. */
    gs_params off = par;
    off.coset_leaves = 0;
    gs_proof *p0 = prove_fib(log_n, off, 1);
    if (p && p0) {
        gs_digest d = gs_proof_statement_digest(p), d0 = gs_proof_statement_digest(p0);
        CHECK(memcmp(&d, &d0, sizeof d) != 0);
    }
    gs_proof_free(p0);
    ++*count;
    free(b), free(b3), free(b2), free(v1);
    gs_proof_free(p), gs_proof_free(p3), gs_proof_free(q);
}

static void test_single(void) {
    int n = 0;
    static const uint32_t caps[2] = {0, 2};
    for (int hi = 0; hi < 2; hi++)
        for (uint32_t la = 1; la <= 4; la++)
            for (uint32_t lb = 1; lb <= 3; lb++)
                for (int c = 0; c < 2; c++) {
                    gs_params par = {lb, 1, 2, 78, la, HASHES[hi], caps[c], 0, 1};
                    round_trip_single(par, 6, &n);
                }
    /* Too short to fold (log_n <= log_final): no layer, leaves of one row. */
    round_trip_single((gs_params){2, 3, 2, 40, 3, 0, 0, 0, 1}, 2, &n);
    printf("single-table: %d proofs (folds by 2..16, blowups 2..8, cap heights 0 and 2, both hashes, "
           "one without FRI layers)\n", n);
    /* Smaller than without: fib 2^12 at the defaults' arity and final degree. */
    gs_params on = {2, 8, 20, 54, 3, 0, 0, 0, 1}, off = on;
    off.coset_leaves = 0;
    gs_proof *a = prove_fib(12, on, 0), *b = prove_fib(12, off, 0);
    uint8_t *ba = NULL, *bb = NULL;
    size_t la = 0, lb = 0;
    CHECK(a && b && gs_proof_serialize(&ba, &la, a) == GS_OK && gs_proof_serialize(&bb, &lb, b) == GS_OK);
    CHECK(la < lb);
    printf("fib 2^12, blowup 4, fold by 8, 54 queries: %zu bytes with coset leaves, %zu without\n", la, lb);
    free(ba), free(bb);
    gs_proof_free(a), gs_proof_free(b);
}

static void test_multi(void) {
    int n = 0;
    const gs_air *const *airs = (const gs_air *const *)g_airs;
    for (int hi = 0; hi < 2; hi++)
        for (uint32_t la = 1; la <= 4; la++) {
            gs_params par = {1, 1, 2, 78, la, HASHES[hi], la == 2 ? 2 : 0, 0, 1};
            gs_multi_proof *p = NULL, *p3 = NULL, *q = NULL;
            CHECK(prove_multi(&p, par, 1) == GS_OK && prove_multi(&p3, par, 3) == GS_OK);
            uint8_t *b = NULL, *b3 = NULL, *b2 = NULL, *v2 = NULL;
            size_t l = 0, l3 = 0, l2 = 0, lv2 = 0;
            CHECK(p && gs_verify_multi(airs, MULTI_STMT_TABLES, p, 0) == GS_OK);
            CHECK(p && gs_multi_proof_serialize(&b, &l, p) == GS_OK);
            CHECK(p3 && gs_multi_proof_serialize(&b3, &l3, p3) == GS_OK);
            CHECK(b && b3 && l == l3 && memcmp(b, b3, l) == 0);
            CHECK(b && gs_multi_proof_parse(&q, b, l) == GS_OK);
            CHECK(q && q->params.coset_leaves == 1 && gs_verify_multi(airs, MULTI_STMT_TABLES, q, 0) == GS_OK);
            CHECK(q && gs_multi_proof_serialize(&b2, &l2, q) == GS_OK && l2 == l && memcmp(b, b2, l) == 0);
            CHECK(p && gs_multi_proof_serialize_as(&v2, &lv2, p, GS_PROOF_VERSION_MULTI) == GS_ERR_INVALID_ARG);
            int aux = 0;
            for (uint32_t i = 0; p && i < p->num_tables; i++) aux += p->tables[i].table.aux_cols > 0;
            CHECK(aux > 0); /* the aux trees have coset leaves too */
            n++;
            free(b), free(b3), free(b2), free(v2);
            gs_multi_proof_free(p), gs_multi_proof_free(p3), gs_multi_proof_free(q);
        }
    printf("multi-table: %d proofs (folds by 2..16, both hashes, with buses)\n", n);
}

/* ---- determinism over threads, k and budgets ---- */

static void test_determinism(void) {
    gs_multi_workload w = {0};
    CHECK(gs_synth_preset(&w, "vm", 10, 3) == GS_OK);
    gs_table_input in[GS_SYNTH_MAX_TABLES];
    const gs_air *airs[GS_SYNTH_MAX_TABLES];
    for (uint32_t i = 0; i < w.num_tables; i++) {
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
        airs[i] = w.tables[i].air;
    }
    gs_params par = gs_params_default(100);
    par.grinding_bits = 8, par.num_queries = 46;
    static const struct {
        unsigned threads, k;
        size_t budget;
    } runs[] = {{1, 1, 0}, {2, 3, 0}, {3, 3, 1}}; /* budget 1: two thirds of the gate's peak with room */
    uint8_t *ref = NULL;
    size_t lref = 0, gate_free = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        gs_prove_stats st = {0};
        size_t budget = runs[r].budget ? gate_free / 3 * 2 : 0;
        gs_prove_opts o = {.tables_parallel = runs[r].k, .mem_budget = budget, .stats = &st};
        gs_multi_proof *mp = NULL;
        gs_threads_set(runs[r].threads);
        CHECK(gs_prove_multi(&mp, in, w.num_tables, &par, &o) == GS_OK);
        gs_threads_set(0);
        uint8_t *b = NULL;
        size_t l = 0;
        CHECK(mp && gs_multi_proof_serialize(&b, &l, mp) == GS_OK);
        CHECK(mp && gs_verify_multi(airs, w.num_tables, mp, 0) == GS_OK);
        if (r == 0) {
            unsigned with = 0, without = 0; /* both kinds of table in one proof */
            for (uint32_t i = 0; mp && i < mp->num_tables; i++) {
                gs_proof_parts pt = gs_proof_table_parts(&mp->tables[i]);
                with += pt.leaf_rows_log > 0, without += pt.leaf_rows_log == 0;
            }
            CHECK(with > 0 && without > 0);
            printf("synth vm /10: %u tables with coset leaves, %u without\n", with, without);
            ref = b, lref = l, b = NULL;
        } else {
            /* The budget held the gate below what k = 3 admits with room. */
            if (!runs[r].budget) gate_free = st.gate_peak_bytes;
            else {
                CHECK(gate_free && st.gate_peak_bytes < gate_free);
                printf("gate peak %zu with room, %zu in the budget\n", gate_free, st.gate_peak_bytes);
            }
            CHECK(b && l == lref && !memcmp(b, ref, l));
        }
        free(b);
        gs_multi_proof_free(mp);
    }
    printf("synth vm /10: the same %zu bytes with 1 thread k = 1, 2 threads k = 3, 3 threads k = 3 in two "
           "thirds of the room\n", lref);
    free(ref);
    gs_multi_workload_free(&w);
}

/* ---- tampering ---- */

static int rejected(const uint8_t *b, size_t l, int *by_parser) { return file_rejected(g_fib, b, l, by_parser); }

static void test_tamper(void) {
    gs_params par = {3, 1, 0, 27, 2, GS_HASH_KECCAK256, 0, 0, 1};
    gs_proof *p = prove_fib(4, par, 1);
    uint8_t *b = NULL;
    size_t l = 0;
    CHECK(p && gs_proof_serialize(&b, &l, p) == GS_OK);
    if (!b) return gs_proof_free(p);
    int parser = 0, flips = (int)l - 12, accepted;
    CHECK(every_byte_accepted(g_fib, b, l, &parser) == 0);
    for (size_t cut = 0; cut < l; cut++) {
        gs_proof *q = NULL;
        CHECK(gs_proof_parse(&q, b, cut) == GS_ERR_PROOF_FORMAT && !q);
    }
    /* HEAD's 16-byte end: hash, cap height, shared FRI (0), coset leaves (1). */
    size_t head = rd64(b + 16);
    uint8_t *tail = b + 24 + head - 16;
    CHECK(tail[12] == 1 && tail[8] == 0);
    tail[12] = 2;
    CHECK(rejected(b, l, &parser));
    tail[12] = 0; /* 0 has its own, shorter encoding */
    CHECK(rejected(b, l, &parser));
    tail[12] = 1, tail[8] = 1; /* with a shared FRI */
    CHECK(rejected(b, l, &parser));
    tail[8] = 0;
    CHECK(!rejected(b, l, &parser));
    printf("tampering: %d single-byte flips (%d refused by the parser), every truncation, the "
           "header's flags: rejected\n", flips, parser);
    /* In the struct: the parameter alone. */
    p->params.coset_leaves = 0;
    CHECK(gs_verify(g_fib, p, 0) != GS_OK);
    p->params.coset_leaves = 2;
    CHECK(gs_verify(g_fib, p, 0) != GS_OK);
    p->params.coset_leaves = 1;
    CHECK(gs_verify(g_fib, p, 0) == GS_OK);
    free(b);
    gs_proof_free(p);

    gs_multi_proof *mp = NULL;
    CHECK(prove_multi(&mp, (gs_params){1, 1, 2, 78, 3, 0, 0, 0, 1}, 1) == GS_OK);
    CHECK(mp && gs_multi_proof_serialize(&b, &l, mp) == GS_OK);
    accepted = 0;
    for (size_t cut = 0; b && cut < l; cut += 1 + cut / 64) {
        gs_multi_proof *q = NULL;
        CHECK(gs_multi_proof_parse(&q, b, cut) == GS_ERR_PROOF_FORMAT && !q);
    }
    accepted = multi_flips_accepted((const gs_air *const *)g_airs, MULTI_STMT_TABLES, b, l, 1000);
    CHECK(accepted == 0);
    printf("multi-table: truncations and 1000 random flips rejected\n");
    free(b);
    gs_multi_proof_free(mp);
}

/* ---- a cheating prover ---- */

static void test_cheating(void) {
    static const uint32_t heights[2] = {0, 2};
    int n = 0;
    for (int hi = 0; hi < 2; hi++)
        for (uint32_t la = 1; la <= 4; la++)
            for (int k = 0; k < 2; k++) {
                gs_params par = {2, 2, 0, 40, la, HASHES[hi], heights[k], 0, 1};
                unsigned log_n = 5 + (unsigned)gs_test_below(4);
                gs_fp pub[4] = {1, 1, 0, 0};
                gs_fp *m = fib_trace(log_n, pub);
                gs_proof *pf = NULL;
                gs_status v = m ? cheat_prove(&pf, g_fib, m, (size_t)2 << log_n, log_n, pub, &par) : GS_OK;
                CHECK(cheat_kind(v) >= 0);
                if (cheat_kind(v) < 0)
                    fprintf(stderr, "cheating prover (fold by %u, cap %u): %s\n", 1u << la, heights[k],
                            gs_status_str(v));
                CHECK(pf && file_verify(g_fib, pf) == v); /* and through the file */
                n++;
                free(m);
                gs_proof_free(pf);
            }
    printf("cheating prover: %d proofs rejected (folds by 2..16 x cap heights 0, 2 x both hashes)\n", n);
}

/* ---- refused ---- */

static void test_refused(void) {
    gs_fp pub[4] = {1, 1, 0, 0};
    gs_fp *m = fib_trace(4, pub);
    gs_proof *pf = NULL;
    gs_params par = {1, 1, 2, 78, 1, 0, 0, 0, GS_COSET_LEAVES_ALL + 1};
    CHECK(m && gs_prove(&pf, g_fib, m, 4, pub, &par, NULL) == GS_ERR_INVALID_ARG && !pf);
    free(m);
    /* gs_params_default's coset leaves with a shared FRI: taken as 0. */
    gs_multi_proof *a = NULL, *b = NULL;
    CHECK(prove_multi(&a, (gs_params){1, 1, 2, 78, 1, 0, 0, 1, 1}, 1) == GS_OK);
    CHECK(prove_multi(&b, (gs_params){1, 1, 2, 78, 1, 0, 0, 1, 0}, 1) == GS_OK);
    uint8_t *ba = NULL, *bb = NULL;
    size_t la = 0, lb = 0;
    CHECK(a && b && a->params.coset_leaves == 0 && a->params.shared_fri == 1);
    CHECK(a && b && gs_multi_proof_serialize(&ba, &la, a) == GS_OK && gs_multi_proof_serialize(&bb, &lb, b) == GS_OK);
    CHECK(ba && bb && la == lb && !memcmp(ba, bb, la));
    CHECK(a && gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, a, 0) == GS_OK);
    /* A struct claiming both is refused by the verifier and the writer. */
    if (a) {
        a->params.coset_leaves = 1;
        uint8_t *bx = NULL;
        size_t lx = 0;
        CHECK(gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, a, 0) != GS_OK);
        CHECK(gs_multi_proof_serialize(&bx, &lx, a) != GS_OK && !bx);
    }
    free(ba), free(bb);
    gs_multi_proof_free(a), gs_multi_proof_free(b);
}

/* ---- golden ---- */

static void test_golden(int regen) {
    gs_proof *p = prove_fib(6, (gs_params){1, 1, 2, 78, 2, 0, 0, 0, 1}, 0);
    uint8_t *b = NULL;
    size_t l = 0;
    CHECK(p && gs_proof_serialize(&b, &l, p) == GS_OK);
    if (b && regen) {
        CHECK(write_file(GOLDEN, b, l));
        printf("golden: wrote %s (%zu bytes)\n", GOLDEN, l);
    } else if (b) {
        size_t gl = 0;
        uint8_t *g = read_file(GOLDEN, &gl);
        if (!g) fprintf(stderr, "golden: cannot read %s (test_coset_leaves --regen writes it)\n", GOLDEN);
        CHECK(g && gl == l && memcmp(g, b, l) == 0);
        gs_proof *q = NULL;
        CHECK(g && gs_proof_parse(&q, g, gl) == GS_OK && gs_verify(g_fib, q, 0) == GS_OK);
        gs_proof_free(q);
        free(g);
    }
    free(b);
    gs_proof_free(p);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    int regen = argc > 1 && !strcmp(argv[1], "--regen");
    g_fib = fib_air();
    CHECK(g_fib && multi_stmt_airs(g_airs) == GS_OK);
    test_golden(regen);
    if (!regen) {
        test_rule();
    test_all();
        test_layout();
        test_single();
        test_multi();
        test_determinism();
        test_tamper();
        test_cheating();
        test_refused();
    }
    gs_air_free(g_fib);
    for (uint32_t i = 0; i < MULTI_STMT_TABLES; i++) gs_air_free(g_airs[i]);
    return gs_test_done();
}
