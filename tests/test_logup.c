/* LogUp: bus interactions in the AIR builder, the aux trace and its
 * constraints. Two tables on one bus balance (their sums cancel) exactly when
 * the sent and received multisets agree; the aux trace satisfies every LogUp
 * constraint on every row; packing (within the table's
 * degree) and errors. */
#include "air/air_internal.h"
#include "air/logup.h"
#include "gstark/gstark.h"
#include "test_util.h"

#define BUS 7

/* Sender: columns (x, y, m); sends (x, y) with multiplicity m on BUS. With
 * extra_deg, also sends (x * y) with multiplicity 1 on bus BUS + 1. */
static gs_air *sender(int receive, int extra_deg) {
    gs_air *air = gs_air_new(receive ? "recv" : "send", 3, 0);
    gs_expr v[2] = {gs_air_col(air, 0), gs_air_col(air, 1)};
    if (receive) gs_air_receive(air, BUS, v, 2, gs_air_col(air, 2));
    else gs_air_send(air, BUS, v, 2, gs_air_col(air, 2));
    if (extra_deg) {
        gs_expr p = gs_air_mul(air, v[0], v[1]);
        gs_air_send(air, BUS + 1, &p, 1, gs_air_const(air, 1));
    }
    return gs_air_finalize(air) == GS_OK ? air : NULL;
}

/* The number of LogUp constraints the aux trace violates (0: it satisfies
 * every one where it must hold). */
static int aux_violations(const gs_logup *L, const gs_air *air, const gs_fp *trace, const gs_fp *aux,
                          unsigned log_n, gs_fp3 z, gs_fp3 alpha, gs_fp3 sigma) {
    size_t n = (size_t)1 << log_n;
    uint32_t A = L->aux_cols;
    gs_fp3 ap[GS_AIR_MAX_TUPLE + 1], cur[3], outs[64], ac[16], an[16], grp[16];
    gs_fp3_powers(ap, alpha, GS_AIR_MAX_TUPLE + 1);
    const gs_fp3 sigma_n = gs_logup_sigma_n(sigma, log_n);
    int bad = 0;
    for (size_t r = 0; r < n; r++) {
        for (int c = 0; c < 3; c++) cur[c] = gs_fp3_from_fp(trace[c * n + r]);
        CHECK(gs_air_eval_inter_ext(air, outs, cur, NULL) == GS_OK);
        for (uint32_t j = 0; j < A; j++) {
            size_t rn = (r + 1) % n;
            ac[j] = gs_fp3_make(aux[(3 * j) * n + r], aux[(3 * j + 1) * n + r], aux[(3 * j + 2) * n + r]);
            an[j] = gs_fp3_make(aux[(3 * j) * n + rn], aux[(3 * j + 1) * n + rn], aux[(3 * j + 2) * n + rn]);
        }
        gs_logup_constraints(L, air, grp, outs, ac, an, z, ap, sigma_n);
        for (uint32_t g = 0; g < L->n_groups; g++) bad += !gs_fp3_is_zero(grp[g]);
    }
    return bad;
}

/* The aux trace satisfies every constraint, S starts at 0, and a sigma off
 * by one breaks them (the running sum's constraint pins it). */
static void check_aux(const gs_logup *L, const gs_air *air, const gs_fp *trace, const gs_fp *aux,
                      unsigned log_n, gs_fp3 z, gs_fp3 alpha, gs_fp3 sigma) {
    size_t n = (size_t)1 << log_n, S = 3 * (size_t)(L->aux_cols - 1) * n;
    CHECK(aux_violations(L, air, trace, aux, log_n, z, alpha, sigma) == 0);
    CHECK(aux[S] == 0 && aux[S + n] == 0 && aux[S + 2 * n] == 0);
    CHECK(aux_violations(L, air, trace, aux, log_n, z, alpha, gs_fp3_add(sigma, gs_fp3_one())) > 0);
}

/* A random 3-column trace of 2^log_n rows and its aux trace under random
 * challenges (free t and aux). */
typedef struct {
    gs_fp *t, *aux;
    gs_fp3 z, alpha, sigma;
} rand_aux;

static rand_aux make_rand_aux(const gs_logup *L, const gs_air *air, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    rand_aux r = {malloc(3 * n * sizeof(gs_fp)), malloc(3 * L->aux_cols * n * sizeof(gs_fp)),
                  gs_test_fp3(), gs_test_fp3(), gs_fp3_zero()};
    CHECK(r.t && r.aux);
    if (!r.t || !r.aux) return r;
    for (size_t i = 0; i < 3 * n; i++) r.t[i] = gs_test_fp();
    CHECK(gs_logup_aux_trace(r.aux, &r.sigma, L, air, r.t, log_n, NULL, r.z, r.alpha) == GS_OK);
    return r;
}

static void test_balance(void) {
    gs_air *snd = sender(0, 0), *rcv = sender(1, 0);
    CHECK(snd && rcv);
    gs_logup Ls, Lr;
    CHECK(gs_logup_layout(&Ls, snd) == GS_OK && gs_logup_layout(&Lr, rcv) == GS_OK);
    CHECK(Ls.n_groups == 1 && Ls.aux_cols == 1 && Ls.max_degree == 2);
    for (unsigned log_n = 0; log_n <= 9; log_n++) {
        size_t n = (size_t)1 << log_n;
        /* The receiver holds the sender's tuples in another order, with the
         * multiplicities split differently: row r of the receiver is the
         * sender's row perm(r), all multiplicities equal. */
        gs_fp *ts = malloc(3 * n * sizeof *ts), *tr = malloc(3 * n * sizeof *tr);
        gs_fp *as = malloc(3 * n * sizeof *as), *ar = malloc(3 * n * sizeof *ar);
        for (size_t r = 0; r < n; r++)
            ts[r] = gs_test_below(50), ts[n + r] = gs_test_fp(), ts[2 * n + r] = gs_test_below(5);
        size_t shift = n > 1 ? 1 + gs_test_below(n - 1) : 0;
        for (size_t r = 0; r < n; r++)
            for (int c = 0; c < 3; c++) tr[c * n + r] = ts[c * n + (r + shift) % n];
        gs_fp3 z = gs_test_fp3(), alpha = gs_test_fp3(), ss, sr;
        for (unsigned t = 1; t <= 3; t += 2) {
            gs_threads_set(t);
            CHECK(gs_logup_aux_trace(as, &ss, &Ls, snd, ts, log_n, NULL, z, alpha) == GS_OK);
            CHECK(gs_logup_aux_trace(ar, &sr, &Lr, rcv, tr, log_n, NULL, z, alpha) == GS_OK);
            CHECK(gs_fp3_is_zero(gs_fp3_add(ss, sr)));
        }
        gs_threads_set(0);
        check_aux(&Ls, snd, ts, as, log_n, z, alpha, ss);
        check_aux(&Lr, rcv, tr, ar, log_n, z, alpha, sr);
        /* One changed multiplicity or value and the sums no longer cancel. */
        size_t r = gs_test_below(n);
        int col = tr[2 * n + r] && gs_test_below(2) ? 0 : 2; /* a value only where m != 0 */
        tr[col * n + r] = gs_fp_add(tr[col * n + r], 1);
        CHECK(gs_logup_aux_trace(ar, &sr, &Lr, rcv, tr, log_n, NULL, z, alpha) == GS_OK);
        CHECK(!gs_fp3_is_zero(gs_fp3_add(ss, sr)));
        free(ts), free(tr), free(as), free(ar);
    }
    gs_logup_free(&Ls), gs_logup_free(&Lr);
    gs_air_free(snd), gs_air_free(rcv);
}

static void test_packing_and_degrees(void) {
    /* Three linear interactions: one pair and one single. */
    gs_air *air = gs_air_new("three", 3, 0);
    gs_expr x = gs_air_col(air, 0), y = gs_air_col(air, 1), m = gs_air_col(air, 2);
    gs_air_send(air, 1, &x, 1, m);
    gs_air_receive(air, 2, &y, 1, gs_air_const(air, 1));
    gs_air_send(air, 3, (gs_expr[]){x, y}, 2, m);
    CHECK(gs_air_finalize(air) == GS_OK);
    CHECK(gs_air_num_interactions(air) == 3);
    gs_logup L;
    CHECK(gs_logup_layout(&L, air) == GS_OK);
    CHECK(L.n_groups == 2 && L.group_size[0] == 2 && L.group_size[1] == 1 && L.aux_cols == 2);
    CHECK(L.max_degree == 3);
    uint32_t bus, width;
    int sign;
    CHECK(gs_air_interaction(air, 1, &bus, &width, &sign) == GS_OK && bus == 2 && width == 1 && sign == -1);
    gs_logup_free(&L);
    gs_air_free(air);
    /* A degree-2 value stays alone: its constraint has degree 1 + 2. */
    air = sender(0, 1);
    CHECK(air != NULL);
    CHECK(gs_logup_layout(&L, air) == GS_OK);
    CHECK(L.n_groups == 2 && L.group_size[0] == 1 && L.group_size[1] == 1 && L.max_degree == 3);
    /* Its aux trace satisfies the constraints too. */
    rand_aux ra = make_rand_aux(&L, air, 5);
    if (ra.t && ra.aux) check_aux(&L, air, ra.t, ra.aux, 5, ra.z, ra.alpha, ra.sigma);
    free(ra.t), free(ra.aux);
    gs_logup_free(&L);
    gs_air_free(air);
}

/* Columns (x, y, m); eight interactions: four linear, one whose value is
 * x * y (degree 2), three linear; a transition of degree `deg`. */
static gs_air *budget_air(unsigned deg) {
    gs_air *air = gs_air_new("budget", 3, 0);
    gs_expr x = gs_air_col(air, 0), y = gs_air_col(air, 1), m = gs_air_col(air, 2);
    gs_expr t = x;
    for (unsigned k = 1; k < deg; k++) t = gs_air_mul(air, t, y);
    gs_air_transition(air, t); /* its degree matters here, not its value */
    gs_expr xy = gs_air_mul(air, x, y);
    for (int i = 0; i < 4; i++) gs_air_send(air, 10 + (uint32_t)i, i & 1 ? &y : &x, 1, m);
    gs_air_receive(air, 14, &xy, 1, gs_air_const(air, 1));
    for (int i = 0; i < 3; i++) gs_air_receive(air, 15 + (uint32_t)i, (gs_expr[]){x, y}, 2, m);
    return gs_air_finalize(air) == GS_OK ? air : NULL;
}

static void test_degree_budget(void) {
    /* Transitions of degree 3 or less: pairs of linear interactions, the
     * degree-2 value alone (the budget is 3). */
    static const uint32_t low[] = {2, 2, 1, 2, 1}, high[] = {3, 2, 3};
    for (unsigned deg = 1; deg <= 4; deg++) {
        gs_air *air = budget_air(deg);
        CHECK(air != NULL);
        if (!air) continue;
        gs_logup L;
        CHECK(gs_logup_layout(&L, air) == GS_OK);
        /* Degree 4: three linear interactions share a group, and the
         * degree-2 value joins one linear one (1 + 1 + 2). */
        const uint32_t *want = deg < 4 ? low : high;
        uint32_t groups = deg < 4 ? 5 : 3;
        CHECK(L.n_groups == groups && L.aux_cols == groups); /* the last group's h lives in S */
        for (uint32_t g = 0; g < L.n_groups && g < groups; g++) CHECK(L.group_size[g] == want[g]);
        CHECK(L.max_degree == (deg < 4 ? 3u : 4u));
        CHECK(gs_air_max_degree(air) == (deg < 3 ? 3u : deg));
        /* The aux trace satisfies the group constraints; one value changed
         * on one row of each aux column (each h, and S) breaks them. */
        const unsigned log_n = 4;
        const size_t n = (size_t)1 << log_n;
        rand_aux ra = make_rand_aux(&L, air, log_n);
        if (ra.t && ra.aux) {
            check_aux(&L, air, ra.t, ra.aux, log_n, ra.z, ra.alpha, ra.sigma);
            for (uint32_t g = 0; g < L.aux_cols; g++) {
                size_t at = (3 * g + gs_test_below(3)) * n + gs_test_below(n);
                ra.aux[at] = gs_fp_add(ra.aux[at], 1);
                CHECK(aux_violations(&L, air, ra.t, ra.aux, log_n, ra.z, ra.alpha, ra.sigma) > 0);
                ra.aux[at] = gs_fp_sub(ra.aux[at], 1);
            }
        }
        free(ra.t), free(ra.aux);
        gs_logup_free(&L);
        gs_air_free(air);
    }
}

static void test_errors(void) {
    gs_air *a = gs_air_new("bad", 2, 0);
    gs_expr nx = gs_air_next(a, 0);
    gs_air_send(a, 1, &nx, 1, gs_air_const(a, 1));
    CHECK(gs_air_finalize(a) == GS_ERR_AIR);
    CHECK(strstr(gs_air_error(a), "next row") != NULL);
    gs_air_free(a);
    a = gs_air_new("bad", 2, 0);
    gs_expr v[GS_AIR_MAX_TUPLE + 1];
    for (uint32_t k = 0; k <= GS_AIR_MAX_TUPLE; k++) v[k] = gs_air_col(a, 0);
    gs_air_send(a, 1, v, GS_AIR_MAX_TUPLE + 1, gs_air_const(a, 1));
    CHECK(gs_air_finalize(a) == GS_ERR_AIR);
    gs_air_free(a);
    a = gs_air_new("bad", 2, 0);
    gs_air_send(a, 1, v, 0, gs_air_const(a, 1));
    CHECK(gs_air_finalize(a) == GS_ERR_AIR);
    gs_air_free(a);
    /* Interactions alone make a valid AIR; they change the fingerprint; the
     * single-table prover leaves them to the multi-table prover. */
    gs_air *only = sender(0, 0);
    gs_air *plain = gs_air_new("send", 3, 0);
    gs_air_transition(plain, gs_air_col(plain, 0));
    gs_air *with = gs_air_new("send", 3, 0);
    gs_air_transition(with, gs_air_col(with, 0));
    gs_expr x = gs_air_col(with, 0);
    gs_air_send(with, 1, &x, 1, gs_air_const(with, 1));
    CHECK(only && gs_air_finalize(plain) == GS_OK && gs_air_finalize(with) == GS_OK);
    gs_digest d1 = gs_air_fingerprint(plain), d2 = gs_air_fingerprint(with);
    CHECK(memcmp(&d1, &d2, 32) != 0);
    gs_fp trace[24] = {0};
    gs_params par = {2, 3, 0, 40, 1, 0, 0, 0, 0};
    gs_proof *pf = NULL;
    CHECK(gs_prove(&pf, with, trace, 3, NULL, &par, NULL) == GS_ERR_UNSUPPORTED);
    gs_air_free(only), gs_air_free(plain), gs_air_free(with);
}

/* The prover's base-field fast path equals the shared definition. */
static void check_fp_path(const gs_air *air) {
    gs_logup L;
    CHECK(gs_logup_layout(&L, air) == GS_OK);
    gs_fp3 ap[GS_AIR_MAX_TUPLE + 1], cur[8], nxt[8], outs3[32];
    gs_fp outs[32 * 3];
    int bad = 0;
    for (int round = 0; round < 500; round++) {
        gs_fp3 z = gs_test_fp3(), sigma = gs_test_fp3();
        gs_fp3_powers(ap, gs_test_fp3(), GS_AIR_MAX_TUPLE + 1);
        for (uint32_t j = 0; j < L.aux_cols; j++) cur[j] = gs_test_fp3(), nxt[j] = gs_test_fp3();
        size_t stride = 1 + gs_test_below(3);
        for (uint32_t k = 0; k < L.n_outs; k++) {
            outs[k * stride] = gs_test_fp();
            outs3[k] = gs_fp3_from_fp(outs[k * stride]);
        }
        gs_fp3 g1[8], g2[8];
        gs_logup_constraints(&L, air, g1, outs3, cur, nxt, z, ap, sigma);
        gs_logup_constraints_fp(&L, air, g2, outs, stride, cur, nxt, z, ap, sigma);
        for (uint32_t g = 0; g < L.n_groups; g++) bad += !gs_fp3_eq(g1[g], g2[g]);
    }
    CHECK(bad == 0);
    gs_logup_free(&L);
}

static void test_fp_path(void) {
    gs_air *air = gs_air_new("many", 4, 0);
    gs_expr c[4];
    for (int i = 0; i < 4; i++) c[i] = gs_air_col(air, (uint32_t)i);
    gs_air_send(air, 1, c, 3, c[3]);
    gs_air_receive(air, 2, c + 1, 2, gs_air_const(air, 5));
    gs_expr sq = gs_air_mul(air, c[0], c[0]);
    gs_air_send(air, 3, &sq, 1, c[2]);
    gs_air_receive(air, 1, c, 4, c[1]);
    gs_air_send(air, 4, c + 2, 1, c[0]);
    CHECK(gs_air_finalize(air) == GS_OK);
    check_fp_path(air);
    gs_air_free(air);
    air = budget_air(4); /* groups of three and of two with a degree-2 value */
    CHECK(air != NULL);
    if (air) check_fp_path(air);
    gs_air_free(air);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_balance();
    test_packing_and_degrees();
    test_degree_budget();
    test_errors();
    test_fp_path();
    return gs_test_done();
}
