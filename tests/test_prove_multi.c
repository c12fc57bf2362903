/* Multi-table proofs: every synth preset at a small size proves and
 * verifies; unbalanced buses are refused by the check and rejected by the
 * verifier; swapped, dropped or altered tables are rejected; the per-table
 * chains can run in any order and give the same proof. */
#include "gstark/gstark.h"
#include "prover/prover_internal.h"
#include "test_util.h"

static gs_params params(void) {
    gs_params p = {2, 3, 0, 40, 1, 0, 0, 0, 0}; /* blowup 4, 80 bits from queries alone */
    return p;
}

static gs_table_input *inputs(const gs_multi_workload *w) {
    gs_table_input *in = calloc(w->num_tables, sizeof *in);
    for (uint32_t i = 0; i < w->num_tables; i++)
        in[i] = (gs_table_input){.air = w->tables[i].air, .trace = w->tables[i].trace,
                                 .log_n = w->tables[i].log_n, .pub = w->tables[i].pub};
    return in;
}

static const gs_air **airs_of(const gs_multi_workload *w) {
    const gs_air **a = calloc(w->num_tables, sizeof *a);
    for (uint32_t i = 0; i < w->num_tables; i++) a[i] = w->tables[i].air;
    return a;
}

static void test_presets(void) {
    static const struct {
        const char *name;
        unsigned shrink;
    } cases[] = {{"uniform", 12}, {"skew", 14}, {"vm", 12}, {"vm", 10}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gs_multi_workload w = {0};
        CHECK(gs_synth_preset(&w, cases[c].name, cases[c].shrink, 5) == GS_OK);
        gs_table_input *in = inputs(&w);
        const gs_air **airs = airs_of(&w);
        gs_params par = params();
        gs_multi_proof *mp = NULL;
        gs_status s = gs_prove_multi(&mp, in, w.num_tables, &par, NULL);
        if (s != GS_OK) fprintf(stderr, "%s/%u: prove: %s\n", cases[c].name, cases[c].shrink, gs_status_str(s));
        CHECK(s == GS_OK);
        if (s == GS_OK) {
            gs_status v = gs_verify_multi(airs, w.num_tables, mp, 0);
            if (v != GS_OK) fprintf(stderr, "%s/%u: verify: %s\n", cases[c].name, cases[c].shrink, gs_status_str(v));
            CHECK(v == GS_OK);
            uint32_t with_buses = 0;
            for (uint32_t i = 0; i < mp->num_tables; i++) with_buses += mp->tables[i].table.aux_cols > 0;
            CHECK(with_buses > 1);
            printf("%s shrink %u: %u tables (%u on buses) proved and verified\n", cases[c].name,
                   cases[c].shrink, mp->num_tables, with_buses);
        }
        gs_multi_proof_free(mp);
        free(in), free(airs);
        gs_multi_workload_free(&w);
    }
}

/* The provider multiplicity of one table raised by one: the bus no longer
 * balances, but every table still satisfies its own constraints. */
static void test_unbalanced(void) {
    gs_multi_workload w = {0};
    CHECK(gs_synth_preset(&w, "uniform", 12, 9) == GS_OK);
    gs_table_input *in = inputs(&w);
    const gs_air **airs = airs_of(&w);
    gs_params par = params();
    /* Find a row whose multiplicity column can change without breaking the
     * table's own constraints: try the last column of table 0. */
    gs_workload *t0 = &w.tables[0];
    size_t n = (size_t)1 << t0->log_n;
    uint32_t cols = gs_air_num_cols(t0->air);
    int found = 0;
    for (uint32_t c = 0; c < cols && !found; c++) {
        gs_fp *cell = &t0->trace[(size_t)c * n + n / 2];
        gs_fp old = *cell;
        *cell = gs_fp_add(old, 1);
        if (gs_air_check_trace(t0->air, t0->trace, t0->log_n, t0->pub, NULL, NULL) == GS_OK) {
            gs_multi_proof *mp = NULL;
            gs_status s = gs_prove_multi(&mp, in, w.num_tables, &par, NULL);
            if (s == GS_ERR_BUS_UNBALANCED) {
                found = 1;
                gs_prove_opts o = {.skip_check = 1};
                CHECK(gs_prove_multi(&mp, in, w.num_tables, &par, &o) == GS_OK);
                CHECK(mp && gs_verify_multi(airs, w.num_tables, mp, 0) == GS_ERR_PROOF_BUS);
            }
            gs_multi_proof_free(mp);
        }
        *cell = old;
    }
    CHECK(found);
    free(in), free(airs);
    gs_multi_workload_free(&w);
}

static int same_table(const gs_proof *a, const gs_proof *b) {
    uint8_t *x = NULL, *y = NULL;
    size_t lx = 0, ly = 0;
    int same = gs_proof_serialize(&x, &lx, a) == GS_OK && gs_proof_serialize(&y, &ly, b) == GS_OK &&
               lx == ly && memcmp(x, y, lx) == 0;
    free(x), free(y);
    const gs_table_proof *s = &a->table, *t = &b->table;
    size_t Q = s->num_queries, A = s->aux_cols;
    same = same && s->aux_cols == t->aux_cols && memcmp(&s->aux_root, &t->aux_root, 32) == 0 &&
           gs_fp3_eq(s->bus_sum, t->bus_sum);
    if (same && A)
        same = memcmp(s->ood_aux_cur, t->ood_aux_cur, A * sizeof(gs_fp3)) == 0 &&
               memcmp(s->ood_aux_next, t->ood_aux_next, A * sizeof(gs_fp3)) == 0 &&
               memcmp(s->aux_rows, t->aux_rows, Q * 3 * A * sizeof(gs_fp)) == 0 &&
               memcmp(s->aux_paths, t->aux_paths, Q * (a->log_n + a->params.log_blowup) * 32) == 0;
    return same;
}

static void test_order_and_tampering(void) {
    gs_multi_workload w = {0};
    CHECK(gs_synth_preset(&w, "skew", 15, 3) == GS_OK);
    uint32_t n = w.num_tables;
    gs_table_input *in = inputs(&w);
    const gs_air **airs = airs_of(&w);
    gs_params par = params();
    par.grinding_bits = 4;
    gs_multi_proof *ref = NULL, *other = NULL;
    CHECK(gs_prove_multi(&ref, in, n, &par, NULL) == GS_OK);
    CHECK(ref && gs_verify_multi(airs, n, ref, 0) == GS_OK);
    /* Reverse and shuffled chain orders, other thread counts: same proof. */
    uint32_t *order = malloc(n * sizeof *order);
    for (int round = 0; round < 3 && ref; round++) {
        for (uint32_t i = 0; i < n; i++) order[i] = round == 0 ? n - 1 - i : i;
        if (round > 0)
            for (uint32_t i = n - 1; i > 0; i--) {
                uint32_t j = (uint32_t)gs_test_below(i + 1), t = order[i];
                order[i] = order[j], order[j] = t;
            }
        gs_prover_debug_table_order = order;
        gs_threads_set(round + 1);
        CHECK(gs_prove_multi(&other, in, n, &par, NULL) == GS_OK);
        gs_prover_debug_table_order = NULL;
        gs_threads_set(0);
        int same = other != NULL;
        for (uint32_t i = 0; same && i < n; i++) same = same_table(&ref->tables[i], &other->tables[i]);
        CHECK(same);
        gs_multi_proof_free(other);
        other = NULL;
    }
    free(order);
    if (ref) {
        /* Swap two tables' sub-proofs. */
        gs_proof tmp = ref->tables[0];
        ref->tables[0] = ref->tables[1], ref->tables[1] = tmp;
        CHECK(gs_verify_multi(airs, n, ref, 0) != GS_OK);
        tmp = ref->tables[0], ref->tables[0] = ref->tables[1], ref->tables[1] = tmp;
        CHECK(gs_verify_multi(airs, n, ref, 0) == GS_OK);
        /* Drop the last table (count and statement change). */
        ref->num_tables = n - 1;
        CHECK(gs_verify_multi(airs, n - 1, ref, 0) != GS_OK);
        CHECK(gs_verify_multi(airs, n, ref, 0) == GS_ERR_PROOF_STATEMENT);
        ref->num_tables = n;
        /* One table's bus sum changed. */
        gs_fp3 keep = ref->tables[2].table.bus_sum;
        ref->tables[2].table.bus_sum.c[1] = gs_fp_add(keep.c[1], 1);
        CHECK(gs_verify_multi(airs, n, ref, 0) != GS_OK);
        ref->tables[2].table.bus_sum = keep;
        /* An aux opening changed. */
        ref->tables[0].table.aux_rows[1] = gs_fp_add(ref->tables[0].table.aux_rows[1], 1);
        CHECK(gs_verify_multi(airs, n, ref, 0) == GS_ERR_PROOF_AUX_PATH);
        ref->tables[0].table.aux_rows[1] = gs_fp_sub(ref->tables[0].table.aux_rows[1], 1);
        CHECK(gs_verify_multi(airs, n, ref, 0) == GS_OK);
        /* A table's proof checked as a single-table proof is refused. */
        CHECK(gs_verify(airs[0], &ref->tables[0], 0) == GS_ERR_PROOF_STATEMENT);
    }
    gs_multi_proof_free(ref);
    free(in), free(airs);
    gs_multi_workload_free(&w);
}

/* Tables of very different heights in one proof: 2^3 next to 2^14 (the
 * 2^22 case is in bench_prove --air heights). */
static void test_heights(void) {
    gs_synth_table spec[2] = {
        {"tall", 14, 12, 3, 1, 1, {1u << 1}, 128},
        {"tiny", 3, 12, 2, 1, 1, {1u << 0}, 200},
    };
    gs_multi_workload w = {0};
    CHECK(gs_synth_custom(&w, spec, 2, 0, 11) == GS_OK);
    CHECK(w.num_tables == 2 && w.tables[0].log_n == 14 && w.tables[1].log_n == 3);
    gs_table_input *in = inputs(&w);
    const gs_air **airs = airs_of(&w);
    gs_params par = params();
    gs_multi_proof *mp = NULL;
    CHECK(gs_prove_multi(&mp, in, 2, &par, NULL) == GS_OK);
    CHECK(mp && gs_verify_multi(airs, 2, mp, 0) == GS_OK);
    if (mp) CHECK(mp->tables[0].table.aux_cols > 0 && mp->tables[1].table.aux_cols > 0);
    gs_multi_proof_free(mp);
    free(in), free(airs);
    gs_multi_workload_free(&w);
}

/* ---- a lookup table's height: the prover's choice unless the AIR pins it ---- */

enum { BUS_RANGE = 7 };

/* One public v, sent once on the range bus (row 0: S = 1, else 0). */
static gs_air *claim_air(void) {
    gs_air *a = gs_air_new("claim", 2, 1); /* X = v on row 0, S the send's multiplicity */
    gs_air_boundary(a, 0, 0, gs_air_public(a, 0));
    gs_air_boundary(a, 1, 0, gs_air_const(a, 1));
    gs_air_transition(a, gs_air_next(a, 1)); /* S = 0 below row 0 */
    gs_expr x = gs_air_col(a, 0);
    gs_air_send(a, BUS_RANGE, &x, 1, gs_air_col(a, 1));
    CHECK(gs_air_finalize(a) == GS_OK);
    return a;
}

/* V[0] = 0, V' = V + 1: the values 0..n-1, received with counts M. Pinned
 * to 2^pin rows when pin >= 0. */
static gs_air *range_air(int pin) {
    gs_air *a = gs_air_new("range", 2, 0);
    gs_air_boundary(a, 0, 0, gs_air_const(a, 0));
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, 0), gs_air_add(a, gs_air_col(a, 0), gs_air_const(a, 1))));
    gs_expr v = gs_air_col(a, 0);
    gs_air_receive(a, BUS_RANGE, &v, 1, gs_air_col(a, 1));
    if (pin >= 0) gs_air_fix_height(a, (unsigned)pin);
    CHECK(gs_air_finalize(a) == GS_OK);
    return a;
}

/* "v < 256" meant with a 2^8-row range table: v = 300 proves with a table of
 * 2^9 rows, and gs_verify_multi accepts it (the height is the statement's,
 * which the caller must compare); pinned with gs_air_fix_height, the prover
 * refuses that trace and the verifier that proof (found by review,
 * 2026-12-04: the docs' recipe compared counts and publics only). */
static void test_pinned_height(void) {
    gs_air *claim = claim_air(), *loose = range_air(-1), *pinned = range_air(8);
    CHECK(gs_air_fixed_log_n(loose) == -1 && gs_air_fixed_log_n(pinned) == 8);
    CHECK(gs_air_check_height(loose, 9) == GS_OK && gs_air_check_height(pinned, 8) == GS_OK &&
          gs_air_check_height(pinned, 9) == GS_ERR_INVALID_ARG);
    gs_digest f_loose = gs_air_fingerprint(loose), f_pinned = gs_air_fingerprint(pinned);
    CHECK(memcmp(&f_loose, &f_pinned, sizeof f_loose) == 0); /* the pin is the verifier's, not the fingerprint's */
    const unsigned log_claim = 2, log_range = 9;
    gs_fp pub = 300, claim_tr[2 << 2] = {0}, *range_tr = calloc((size_t)2 << log_range, sizeof(gs_fp));
    CHECK(range_tr != NULL);
    if (!range_tr) return;
    for (unsigned r = 0; r < (1u << log_claim); r++) claim_tr[r] = pub; /* X: v on every row */
    claim_tr[(1u << log_claim) + 0] = 1;                               /* S on row 0 */
    for (uint32_t r = 0; r < (1u << log_range); r++) range_tr[r] = r;
    range_tr[(1u << log_range) + pub] = 1; /* M: 300 received once */
    gs_params par = params();
    gs_table_input in[2] = {{.air = claim, .trace = claim_tr, .log_n = log_claim,
                            .pub = &pub}, {.air = loose, .trace = range_tr, .log_n = log_range}};
    gs_multi_proof *mp = NULL;
    CHECK(gs_prove_multi(&mp, in, 2, &par, NULL) == GS_OK);
    const gs_air *v_loose[2] = {claim, loose}, *v_pinned[2] = {claim, pinned};
    if (mp) {
        CHECK(gs_verify_multi(v_loose, 2, mp, 0) == GS_OK); /* the pitfall: heights unchecked */
        CHECK(mp->tables[1].log_n == log_range);
        CHECK(gs_verify_multi(v_pinned, 2, mp, 0) == GS_ERR_PROOF_STATEMENT);
    }
    gs_multi_proof_free(mp);
    mp = NULL;
    in[1].air = pinned;
    CHECK(gs_prove_multi(&mp, in, 2, &par, NULL) == GS_ERR_INVALID_ARG && mp == NULL);
    /* the pinned height itself proves and verifies (v = 200 < 256) */
    pub = 200;
    for (unsigned r = 0; r < (1u << log_claim); r++) claim_tr[r] = pub;
    memset(range_tr + (1u << 8), 0, (1u << 8) * sizeof(gs_fp)); /* M of a 2^8 table */
    range_tr[(1u << 8) + pub] = 1;
    in[1].log_n = 8;
    CHECK(gs_prove_multi(&mp, in, 2, &par, NULL) == GS_OK);
    if (mp) CHECK(gs_verify_multi(v_pinned, 2, mp, 0) == GS_OK);
    gs_multi_proof_free(mp);
    /* pinning after finalize, or past 2^32, is a builder error */
    gs_air *late = range_air(-1);
    gs_air_fix_height(late, 8);
    CHECK(gs_air_fixed_log_n(late) == -1 && strstr(gs_air_error(late), "after gs_air_finalize") != NULL);
    gs_air *big = gs_air_new("big", 1, 0);
    gs_air_fix_height(big, 33);
    gs_air_transition(big, gs_air_col(big, 0));
    CHECK(gs_air_finalize(big) == GS_ERR_AIR);
    gs_air_free(late), gs_air_free(big);
    free(range_tr);
    gs_air_free(claim), gs_air_free(loose), gs_air_free(pinned);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_presets();
    test_unbalanced();
    test_order_and_tampering();
    test_heights();
    test_pinned_height();
    return gs_test_done();
}
