/* synth workloads: every table satisfies its AIR at many shrink factors;
 * every bus balances, checked directly (the multiset of sent tuples against
 * the received ones, by evaluating the AIR's own interaction expressions on
 * every row, independent of the generator and of LogUp) and through LogUp
 * (the tables' bus sums add to zero); a changed multiplicity or sent value
 * breaks both; shapes, the 8-row floor, degrees; determinism across runs and
 * thread counts, seeds; vm semantics the AIRs leave to fixed columns; custom
 * statements; parameter errors. Prints the preset table lists at full size. */
#include "air/air_internal.h"
#include "air/logup.h"
#include "gstark/parallel.h"
#include "gstark/synth.h"
#include "test_util.h"

#include <time.h>

static const char *const presets[3] = {"vm", "skew", "uniform"};

/* ---- interaction expressions, evaluated from the AIR's DAG ---- */

static gs_fp eval_expr(const gs_air *air, gs_expr e, const gs_fp *m, size_t n, size_t r,
                       const gs_fp *pub) {
    const gs_air_node *x = &air->nodes[e];
    switch (x->op) {
    case GS_N_COL: return m[(size_t)x->val * n + r];
    case GS_N_CONST: return (gs_fp)x->val;
    case GS_N_PUB: return pub[x->val];
    case GS_N_NEG: return gs_fp_neg(eval_expr(air, x->a, m, n, r, pub));
    case GS_N_ADD:
    case GS_N_SUB:
    case GS_N_MUL: {
        gs_fp a = eval_expr(air, x->a, m, n, r, pub), b = eval_expr(air, x->b, m, n, r, pub);
        return x->op == GS_N_ADD ? gs_fp_add(a, b) : x->op == GS_N_SUB ? gs_fp_sub(a, b)
                                                                        : gs_fp_mul(a, b);
    }
    default: /* GS_N_NEXT: interactions read the current row only */
        gs_test_failures++;
        fprintf(stderr, "interaction reads the next row\n");
        return 0;
    }
}

#define MAXW 6u /* the widest synth tuple (PROGRAM); keeps entries at 64 bytes */

typedef struct {
    uint32_t bus, width;
    gs_fp v[MAXW];
    gs_fp mult; /* + for a send, - for a receive */
} entry;

static int entry_cmp(const void *a, const void *b) {
    const entry *x = a, *y = b;
    if (x->bus != y->bus) return x->bus < y->bus ? -1 : 1;
    if (x->width != y->width) return x->width < y->width ? -1 : 1;
    for (uint32_t k = 0; k < x->width; k++)
        if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
    return 0;
}

/* The number of (bus, tuple) keys whose sends and receives differ; also
 * counts a bus carrying two widths. *traffic gets the number of nonzero
 * (row, interaction) terms. */
static size_t bus_imbalance(const gs_multi_workload *w, size_t *traffic) {
    size_t cap = 0;
    for (uint32_t t = 0; t < w->num_tables; t++)
        cap += gs_air_num_interactions(w->tables[t].air) << w->tables[t].log_n;
    entry *e = malloc((cap + 1) * sizeof *e);
    if (!e) return SIZE_MAX;
    size_t ne = 0, bad = 0;
    uint32_t width_of[64] = {0};
    for (uint32_t t = 0; t < w->num_tables; t++) {
        const gs_workload *tw = &w->tables[t];
        const gs_air *air = tw->air;
        size_t n = (size_t)1 << tw->log_n;
        for (uint32_t i = 0; i < gs_air_num_interactions(air); i++) {
            uint32_t bus, width;
            int sign;
            CHECK(gs_air_interaction(air, i, &bus, &width, &sign) == GS_OK);
            CHECK(bus < 64 && width == air->inters[i].width && width <= MAXW);
            if (width > MAXW) width = MAXW;
            if (bus < 64) {
                if (width_of[bus] && width_of[bus] != width) bad++;
                width_of[bus] = width;
            }
            for (size_t r = 0; r < n; r++) {
                gs_fp mult = eval_expr(air, air->inters[i].mult, tw->trace, n, r, tw->pub);
                if (!mult) continue;
                entry *x = &e[ne++];
                memset(x, 0, sizeof *x);
                x->bus = bus, x->width = width;
                x->mult = sign > 0 ? mult : gs_fp_neg(mult);
                for (uint32_t k = 0; k < width; k++)
                    x->v[k] = eval_expr(air, air->inters[i].values[k], tw->trace, n, r, tw->pub);
            }
        }
    }
    qsort(e, ne, sizeof *e, entry_cmp);
    for (size_t i = 0; i < ne;) {
        gs_fp sum = 0;
        size_t j = i;
        for (; j < ne && entry_cmp(&e[i], &e[j]) == 0; j++) sum = gs_fp_add(sum, e[j].mult);
        bad += sum != 0;
        i = j;
    }
    if (traffic) *traffic = ne;
    free(e);
    return bad;
}

/* The sum over tables of the LogUp bus sums for random challenges: zero
 * exactly when balanced (up to a negligible chance). 1 if zero. */
static int logup_zero(const gs_multi_workload *w) {
    gs_fp3 z = gs_test_fp3(), alpha = gs_test_fp3(), total = gs_fp3_zero();
    for (uint32_t t = 0; t < w->num_tables; t++) {
        const gs_workload *tw = &w->tables[t];
        if (!gs_air_num_interactions(tw->air)) continue; /* no aux trace */
        gs_logup L;
        if (gs_logup_layout(&L, tw->air) != GS_OK) return -1;
        gs_fp *aux = malloc(((size_t)3 * L.aux_cols << tw->log_n) * sizeof *aux);
        gs_fp3 sigma = gs_fp3_zero();
        gs_status s = aux ? gs_logup_aux_trace(aux, &sigma, &L, tw->air, tw->trace, tw->log_n,
                                              tw->pub, z, alpha)
                          : GS_ERR_NOMEM;
        free(aux);
        gs_logup_free(&L);
        if (s != GS_OK) return -1;
        total = gs_fp3_add(total, sigma);
    }
    return gs_fp3_is_zero(total);
}

static int digest_eq(const gs_air *a, const gs_air *b) {
    gs_digest x = gs_air_fingerprint(a), y = gs_air_fingerprint(b);
    return memcmp(&x, &y, sizeof x) == 0;
}

/* Same AIRs, same log_n; traces and publics equal (1) or not (0). */
static int same_traces(const gs_multi_workload *a, const gs_multi_workload *b) {
    int same = 1;
    CHECK(a->num_tables == b->num_tables);
    for (uint32_t t = 0; t < a->num_tables && t < b->num_tables; t++) {
        const gs_workload *x = &a->tables[t], *y = &b->tables[t];
        CHECK(digest_eq(x->air, y->air) && x->log_n == y->log_n);
        size_t cells = (size_t)gs_air_num_cols(x->air) << x->log_n;
        same &= memcmp(x->trace, y->trace, cells * sizeof(gs_fp)) == 0;
        uint32_t np = gs_air_num_public(x->air);
        if (np) same &= memcmp(x->pub, y->pub, np * sizeof(gs_fp)) == 0;
    }
    return same;
}

/* ---- tamper helpers ---- */

static gs_fp *cell(const gs_multi_workload *w, uint32_t t, uint32_t c, size_t r) {
    return &w->tables[t].trace[((size_t)c << w->tables[t].log_n) + r];
}

/* Adds 1 to cell (t, c, r): the bus check and LogUp must both fail; then restores. */
static void expect_break(const gs_multi_workload *w, uint32_t t, uint32_t c, size_t r) {
    gs_fp *x = cell(w, t, c, r), old = *x;
    *x = gs_fp_add(old, 1);
    size_t bad = bus_imbalance(w, NULL);
    CHECK(bad > 0 && bad != SIZE_MAX);
    CHECK(logup_zero(w) == 0);
    *x = old;
}

/* A row of column c (table t) whose value is nonzero, searching from a random row. */
static size_t nonzero_row(const gs_multi_workload *w, uint32_t t, uint32_t c) {
    size_t n = (size_t)1 << w->tables[t].log_n, r0 = gs_test_below(n);
    for (size_t k = 0; k < n; k++)
        if (*cell(w, t, c, (r0 + k) % n)) return (r0 + k) % n;
    return SIZE_MAX;
}

/* ---- expected shapes (written out independently of the library's plan) ---- */

typedef struct {
    const char *name;
    unsigned log_n, cols, degree, inters;
} shape;

static const shape vm_shapes[] = {
    {"cpu", 20, 48, 3, 12},     {"memory", 19, 12, 2, 3}, {"range", 16, 2, 1, 1},
    {"bitwise", 16, 4, 2, 1},   {"hash", 14, 400, 3, 1},  {"program", 10, 7, 1, 1},
    {"gadget0", 12, 16, 2, 2},  {"gadget1", 8, 10, 4, 2},
};

static unsigned floor_log(unsigned base, unsigned shrink) {
    return base >= shrink + 3 ? base - shrink : 3;
}

static void expected_shapes(const char *preset, shape *out, uint32_t *n) {
    if (strcmp(preset, "vm") == 0) {
        *n = 8;
        memcpy(out, vm_shapes, sizeof vm_shapes);
    } else if (strcmp(preset, "skew") == 0) {
        static const unsigned widths[8] = {9, 12, 16, 20, 24, 32, 48, 64};
        *n = 21;
        out[0] = (shape){"big", 20, 32, 3, 3};
        for (unsigned i = 1; i <= 20; i++)
            out[i] = (shape){NULL, 6 + (3 * i) % 7, widths[(i - 1) % 8], 2 + i % 3, 2};
    } else {
        *n = 8;
        for (unsigned i = 0; i < 8; i++) out[i] = (shape){NULL, 16, 16, 3, 2};
    }
}

static void check_shapes(const gs_multi_workload *w, const char *preset, unsigned shrink) {
    shape sh[64];
    uint32_t n;
    expected_shapes(preset, sh, &n);
    CHECK(w->num_tables == n && strcmp(w->name, preset) == 0);
    for (uint32_t t = 0; t < n && t < w->num_tables; t++) {
        const gs_workload *tw = &w->tables[t];
        if (sh[t].name) CHECK(strcmp(gs_air_name(tw->air), sh[t].name) == 0);
        CHECK_EQ_U64(tw->log_n, floor_log(sh[t].log_n, shrink));
        CHECK_EQ_U64(gs_air_num_cols(tw->air), sh[t].cols);
        CHECK_EQ_U64(gs_air_num_interactions(tw->air), sh[t].inters);
        CHECK(gs_air_check_degree(tw->air, 2) == GS_OK); /* blowup 4 proves every table */
        /* degree-1 tuples and multiplicities: two interactions per LogUp aux column */
        gs_logup L;
        CHECK(gs_logup_layout(&L, tw->air) == GS_OK);
        /* The AIR's degree covers its transitions and its LogUp constraints. */
        unsigned want = sh[t].degree > L.max_degree ? sh[t].degree : L.max_degree;
        CHECK_EQ_U64(gs_air_max_degree(tw->air), want);
        CHECK_EQ_U64(L.n_groups, (sh[t].inters + 1) / 2);
        CHECK(L.max_degree <= 3);
        gs_logup_free(&L);
        /* the verifier's view: the AIR without a trace */
        gs_air *a = NULL;
        unsigned log_n = 0;
        CHECK(gs_synth_table_air(&a, &log_n, preset, shrink, gs_test_u64(), t) == GS_OK);
        CHECK(a && digest_eq(a, tw->air) && log_n == tw->log_n);
        gs_air_free(a);
    }
    uint32_t nt = 0;
    CHECK(gs_synth_preset_tables(&nt, preset) == GS_OK && nt == n);
}

/* ---- vm semantics left to fixed columns, and a few independent recomputations ---- */

static void check_vm_semantics(const gs_multi_workload *w, unsigned shrink) {
    const gs_workload *cpu = &w->tables[0], *mem = &w->tables[1], *rng = &w->tables[2];
    const gs_workload *bit = &w->tables[3], *hash = &w->tables[4], *prog = &w->tables[5];
    unsigned lr = floor_log(16, shrink), lb = floor_log(16, shrink);
    uint64_t H = 1ull << lr, W = H * H;
    unsigned ly = lb / 2;
    size_t nb = (size_t)1 << bit->log_n, nr = (size_t)1 << rng->log_n;
    CHECK(nr == H);
    int bad = 0;
    for (size_t i = 0; i < nb; i++) { /* the bitwise table: all pairs, z = x AND y */
        gs_fp x = bit->trace[i], y = bit->trace[nb + i], z = bit->trace[2 * nb + i];
        bad += x != (i >> ly) || y != (i & ((1u << ly) - 1)) || z != (x & y);
    }
    CHECK(bad == 0);
    /* cpu: opcode counts, results recomputed from the operands */
    size_t n = (size_t)1 << cpu->log_n, ops[GS_SYNTH_NUM_OPS] = {0}, enabled = 0;
    const gs_fp *m = cpu->trace;
    size_t nm = (size_t)1 << mem->log_n; /* addresses: at most one new per access */
    uint64_t *memory = calloc(nm + 1, sizeof *memory);
    CHECK(memory != NULL);
    if (!memory) return;
#define CP(c, r) m[(size_t)(c) * n + (r)]
    bad = 0;
    for (size_t r = 0; r < n; r++) {
        unsigned o = 0;
        for (unsigned k = 1; k < GS_SYNTH_NUM_OPS; k++)
            if (CP(GS_SYNTH_CPU_SEL + k - 1, r)) o = k;
        ops[o]++;
        uint64_t a = CP(GS_SYNTH_CPU_A_LO, r) + H * CP(GS_SYNTH_CPU_A_HI, r);
        uint64_t b = CP(GS_SYNTH_CPU_B_LO, r) + H * CP(GS_SYNTH_CPU_B_HI, r);
        uint64_t res = CP(GS_SYNTH_CPU_R_LO, r) + H * CP(GS_SYNTH_CPU_R_HI, r);
        bad += a >= W || b >= W || res >= W;
        if (o == GS_SYNTH_OP_ADD) bad += res != ((a + b) & (W - 1));
        if (o == GS_SYNTH_OP_MUL) bad += res != ((uint64_t)((unsigned __int128)a * b % W));
        if (o == GS_SYNTH_OP_LT) bad += res != (a < b);
        if (o == GS_SYNTH_OP_AND) bad += res != (a & b);
        if (o == GS_SYNTH_OP_XOR) bad += res != (a ^ b);
        enabled += CP(GS_SYNTH_CPU_HASH_EN, r) != 0;
        if (o == GS_SYNTH_OP_LOAD || o == GS_SYNTH_OP_STORE) { /* replay memory */
            if (a > nm) {
                bad++;
            } else if (o == GS_SYNTH_OP_STORE) {
                memory[a] = b;
            } else {
                bad += res != memory[a]; /* the last store, 0 if none */
            }
        }
    }
    free(memory);
    CHECK(bad == 0);
    CHECK(ops[GS_SYNTH_OP_JMP] == n / ((size_t)1 << prog->log_n));
    if (shrink <= 6)
        for (unsigned k = 0; k < GS_SYNTH_NUM_OPS; k++) CHECK(ops[k] > 0); /* every opcode runs */
    CHECK(enabled <= ((size_t)1 << hash->log_n) - 1);
    CHECK(ops[GS_SYNTH_OP_LOAD] + ops[GS_SYNTH_OP_STORE] < ((size_t)1 << mem->log_n));
#undef CP
    /* the memory table: sorted by (addr, ts) */
    const gs_fp *mm = mem->trace;
    bad = 0;
    for (size_t i = 0; i + 1 < nm; i++) {
        gs_fp a0 = mm[i], a1 = mm[i + 1];
        gs_fp t0 = mm[GS_SYNTH_MEM_TS * nm + i], t1 = mm[GS_SYNTH_MEM_TS * nm + i + 1];
        bad += a1 < a0 || (a1 == a0 && t1 <= t0);
    }
    CHECK(bad == 0);
}

/* ---- one statement: satisfied, balanced, breakable ---- */

static double now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check_statement(const char *preset, unsigned shrink, uint64_t seed, int tamper) {
    gs_multi_workload w;
    double t0 = now();
    gs_status s = gs_synth_preset(&w, preset, shrink, seed);
    double t1 = now();
    CHECK(s == GS_OK);
    if (s != GS_OK) return;
    if (shrink < 6) {
        double cells = 0;
        for (uint32_t t = 0; t < w.num_tables; t++)
            cells += (double)gs_air_num_cols(w.tables[t].air) * (double)(1ull << w.tables[t].log_n);
        printf("%s shrink %u: generated in %.3f s (%u threads, %.1f MiB)\n", preset, shrink,
               t1 - t0, gs_threads_get(), cells * 8 / 1048576);
    }
    check_shapes(&w, preset, shrink);
    for (uint32_t t = 0; t < w.num_tables; t++) {
        uint64_t row = 0;
        uint32_t con = 0;
        gs_status c = gs_air_check_trace(w.tables[t].air, w.tables[t].trace, w.tables[t].log_n,
                                         w.tables[t].pub, &row, &con);
        if (c != GS_OK)
            fprintf(stderr, "%s shrink %u table %u (%s): row %" PRIu64 " constraint %u\n", preset,
                    shrink, t, gs_air_name(w.tables[t].air), row, con);
        CHECK(c == GS_OK);
    }
    size_t traffic = 0, bad = bus_imbalance(&w, &traffic);
    if (bad) fprintf(stderr, "%s shrink %u: %zu unbalanced tuples\n", preset, shrink, bad);
    CHECK(bad == 0);
    CHECK(traffic > 0);
    CHECK(logup_zero(&w) == 1);
    if (strcmp(preset, "vm") == 0) check_vm_semantics(&w, shrink);
    if (tamper) {
        if (strcmp(preset, "vm") == 0) {
            expect_break(&w, 2, GS_SYNTH_RANGE_MULT, gs_test_below(1u << w.tables[2].log_n));
            expect_break(&w, 0, GS_SYNTH_CPU_A_LO, gs_test_below(1u << w.tables[0].log_n));
            size_t r = nonzero_row(&w, 1, GS_SYNTH_MEM_ACTIVE);
            CHECK(r != SIZE_MAX);
            if (r != SIZE_MAX) expect_break(&w, 1, GS_SYNTH_MEM_V_LO, r);
            r = nonzero_row(&w, 0, GS_SYNTH_CPU_HASH_EN);
            if (r != SIZE_MAX) expect_break(&w, 0, GS_SYNTH_CPU_HOUT, r);
            expect_break(&w, 5, GS_SYNTH_PROG_MULT, gs_test_below(1u << w.tables[5].log_n));
        } else {
            /* table 0: provider mult; its first port's v0 on an active row */
            expect_break(&w, 0, 1, gs_test_below(1u << w.tables[0].log_n));
            uint32_t cols = gs_air_num_cols(w.tables[0].air);
            uint32_t port = strcmp(preset, "skew") == 0 ? cols - 10 : cols - 5;
            size_t r = nonzero_row(&w, 0, port + 4);
            CHECK(r != SIZE_MAX);
            if (r != SIZE_MAX) expect_break(&w, 0, port + 2, r);
        }
    }
    gs_multi_workload_free(&w);
    CHECK(w.tables == NULL && w.num_tables == 0);
}

/* Shrink 13 is the one vm size where an address reuse can be too far back for
 * the two-limb timestamp diff (cpu 128 rows, W = 64): the generator must then
 * switch to a fresh address. Few seeds meet the case, so try many. */
static void test_memory_gaps(void) {
    for (int k = 0; k < 64; k++) {
        gs_multi_workload w;
        CHECK(gs_synth_preset(&w, "vm", 13, gs_test_u64()) == GS_OK);
        if (!w.tables) continue;
        CHECK(gs_air_check_trace(w.tables[1].air, w.tables[1].trace, w.tables[1].log_n, NULL,
                                 NULL, NULL) == GS_OK);
        CHECK(bus_imbalance(&w, NULL) == 0);
        gs_multi_workload_free(&w);
    }
}

static void test_statements(void) {
    for (unsigned k = 6; k <= GS_SYNTH_MAX_SHRINK; k++)
        check_statement("vm", k, gs_test_u64(), k % 4 == 2);
    for (unsigned k = 6; k <= GS_SYNTH_MAX_SHRINK; k += 2)
        check_statement("skew", k, gs_test_u64(), k == 8);
    for (unsigned k = 7; k <= GS_SYNTH_MAX_SHRINK; k += 3)
        check_statement("uniform", k, gs_test_u64(), k == 10);
}

/* ---- determinism ---- */

static void test_determinism(void) {
    const unsigned shrink[3] = {9, 8, 10};
    for (int p = 0; p < 3; p++) {
        uint64_t seed = gs_test_u64();
        gs_multi_workload a, b, c, d;
        gs_threads_set(1);
        CHECK(gs_synth_preset(&a, presets[p], shrink[p], seed) == GS_OK);
        gs_threads_set(3);
        CHECK(gs_synth_preset(&b, presets[p], shrink[p], seed) == GS_OK);
        gs_threads_set(0);
        CHECK(gs_synth_preset(&c, presets[p], shrink[p], seed) == GS_OK);
        CHECK(gs_synth_preset(&d, presets[p], shrink[p], seed ^ 1) == GS_OK);
        CHECK(same_traces(&a, &b) == 1);
        CHECK(same_traces(&a, &c) == 1);
        CHECK(same_traces(&a, &d) == 0); /* same AIRs (checked inside), other traces */
        for (uint32_t t = 0; t < a.num_tables; t++) { /* every table with random content moves */
            const gs_workload *x = &a.tables[t], *y = &d.tables[t];
            size_t cells = (size_t)gs_air_num_cols(x->air) << x->log_n;
            int fixed = strcmp(presets[p], "vm") == 0 && (t == 2 || t == 3); /* range, bitwise */
            if (!fixed) CHECK(memcmp(x->trace, y->trace, cells * sizeof(gs_fp)) != 0);
        }
        gs_multi_workload_free(&a);
        gs_multi_workload_free(&b);
        gs_multi_workload_free(&c);
        gs_multi_workload_free(&d);
    }
}

/* ---- custom statements ---- */

static gs_synth_table tbl(const char *name, unsigned log_n, uint32_t cols, unsigned degree,
                          int provider, uint32_t ports, uint64_t target, unsigned density) {
    gs_synth_table s;
    memset(&s, 0, sizeof s);
    strcpy(s.name, name);
    s.log_n = log_n, s.cols = cols, s.degree = degree, s.provider = provider;
    s.num_ports = ports, s.density = density;
    for (uint32_t q = 0; q < ports; q++) s.targets[q] = target;
    return s;
}

static void test_custom(void) {
    gs_synth_table t[4] = {
        tbl("lonely", 5, 3, 5, 0, 0, 0, 0),       /* no bus at all */
        tbl("client", 7, 1 + 5 * 3, 2, 0, 3, 0x8 | 0x4, 256), /* 3 ports into 2 and 3 */
        tbl("lut_a", 4, 2 + 2 + 5, 3, 1, 1, 0x8, 100),
        tbl("lut_b", 6, 40, 8, 1, 0, 0, 0),
    };
    gs_multi_workload w;
    CHECK(gs_synth_custom(&w, t, 4, 1, 7) == GS_OK);
    CHECK(w.num_tables == 4 && strcmp(w.name, "custom") == 0);
    CHECK(w.tables[0].log_n == 4 && w.tables[3].log_n == 5);
    CHECK(gs_air_num_interactions(w.tables[0].air) == 0);
    CHECK(gs_air_max_degree(w.tables[3].air) == 8);
    for (uint32_t k = 0; k < 4; k++) {
        CHECK(gs_air_check_trace(w.tables[k].air, w.tables[k].trace, w.tables[k].log_n, NULL, NULL,
                                 NULL) == GS_OK);
        gs_air *a = NULL;
        unsigned log_n = 0;
        CHECK(gs_synth_custom_air(&a, &log_n, t, 4, 1, k) == GS_OK);
        CHECK(a && digest_eq(a, w.tables[k].air) && log_n == w.tables[k].log_n);
        gs_air_free(a);
    }
    CHECK(bus_imbalance(&w, NULL) == 0);
    CHECK(logup_zero(&w) == 1);
    /* client sends on every row of each of its 3 ports (density 256); the
     * providers' multiplicities add up to all the sends */
    gs_fp sel = 0, mult = 0;
    for (size_t r = 0; r < 64; r++)
        for (uint32_t q = 0; q < 3; q++) sel += *cell(&w, 1, 1 + 5 * q + 4, r);
    CHECK(sel == 192);
    for (size_t r = 0; r < 8; r++) sel += *cell(&w, 2, 8, r), mult += *cell(&w, 2, 1, r);
    for (size_t r = 0; r < 32; r++) mult += *cell(&w, 3, 1, r);
    CHECK(mult == sel && sel > 192);
    gs_multi_workload_free(&w);
    /* the preset specs rebuild the presets */
    gs_synth_table spec[GS_SYNTH_MAX_TABLES];
    uint32_t n = 0;
    CHECK(gs_synth_preset_spec(spec, &n, "uniform") == GS_OK && n == 8);
    gs_multi_workload u, v;
    CHECK(gs_synth_custom(&u, spec, n, 12, 5) == GS_OK);
    CHECK(gs_synth_preset(&v, "uniform", 12, 5) == GS_OK);
    CHECK(same_traces(&u, &v) == 1);
    gs_multi_workload_free(&u);
    gs_multi_workload_free(&v);
    CHECK(gs_synth_preset_spec(spec, &n, "skew") == GS_OK && n == 21);
    CHECK(gs_synth_preset_spec(spec, &n, "vm") == GS_ERR_INVALID_ARG && n == 0);
}

/* ---- errors ---- */

static void expect_invalid_custom(const gs_synth_table *t, uint32_t n, unsigned shrink) {
    gs_multi_workload w;
    memset(&w, 0xA5, sizeof w);
    CHECK(gs_synth_custom(&w, t, n, shrink, 1) == GS_ERR_INVALID_ARG);
    CHECK(w.tables == NULL && w.num_tables == 0);
    gs_air *a = (gs_air *)&w;
    CHECK(gs_synth_custom_air(&a, NULL, t, n, shrink, 0) == GS_ERR_INVALID_ARG && a == NULL);
}

static void test_errors(void) {
    gs_multi_workload w;
    const char *bad_names[] = {"", "VM", "vmx", "skew ", "uniformly"};
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
        memset(&w, 0xA5, sizeof w);
        CHECK(gs_synth_preset(&w, bad_names[i], 10, 1) == GS_ERR_INVALID_ARG);
        CHECK(w.tables == NULL && w.num_tables == 0);
        uint32_t n = 5;
        CHECK(gs_synth_preset_tables(&n, bad_names[i]) == GS_ERR_INVALID_ARG && n == 0);
    }
    CHECK(gs_synth_preset(&w, NULL, 10, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_synth_preset(NULL, "vm", 10, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_synth_preset(&w, "vm", GS_SYNTH_MAX_SHRINK + 1, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_synth_preset(&w, "uniform", 1000, 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_synth_preset_tables(NULL, "vm") == GS_ERR_INVALID_ARG);
    gs_air *a = (gs_air *)&w;
    unsigned log_n = 99;
    CHECK(gs_synth_table_air(&a, &log_n, "vm", 0, 1, 8) == GS_ERR_INVALID_ARG);
    CHECK(a == NULL && log_n == 0);
    CHECK(gs_synth_table_air(&a, NULL, "skew", 0, 1, 21) == GS_ERR_INVALID_ARG && a == NULL);
    CHECK(gs_synth_table_air(&a, NULL, "nope", 0, 1, 0) == GS_ERR_INVALID_ARG && a == NULL);
    CHECK(gs_synth_table_air(&a, NULL, "vm", 21, 1, 0) == GS_ERR_INVALID_ARG && a == NULL);
    CHECK(gs_synth_table_air(NULL, &log_n, "uniform", 3, 1, 7) == GS_OK && log_n == 13);

    gs_synth_table good[2] = {tbl("a", 5, 9, 2, 1, 1, 0x2, 128), tbl("b", 5, 4, 3, 1, 0, 0, 0)};
    gs_synth_table t[2];
    CHECK(gs_synth_custom(&w, good, 2, 0, 1) == GS_OK);
    gs_multi_workload_free(&w);
    expect_invalid_custom(NULL, 2, 0);
    expect_invalid_custom(good, 0, 0);
    expect_invalid_custom(good, GS_SYNTH_MAX_TABLES + 1, 0);
    expect_invalid_custom(good, 2, GS_SYNTH_MAX_SHRINK + 1);
    memcpy(t, good, sizeof t), t[0].cols = 8; /* provider + port + 1 state column */
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[1].cols = 3; /* provider needs 2 state columns */
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].degree = 1;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].degree = GS_SYNTH_MAX_DEGREE + 1;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].log_n = 2;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].log_n = GS_SYNTH_MAX_LOG_N + 1;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].density = 257;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].num_ports = GS_SYNTH_MAX_PORTS + 1, t[0].cols = 100;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].targets[0] = 0; /* a port without targets */
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].targets[0] = 0x4; /* table 2 does not exist */
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[1].provider = 0; /* the target is not a provider */
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), t[0].cols = GS_SYNTH_MAX_COLS + 1;
    expect_invalid_custom(t, 2, 0);
    memcpy(t, good, sizeof t), memset(t[0].name, 'x', sizeof t[0].name); /* unterminated */
    expect_invalid_custom(t, 2, 0);
    gs_multi_workload_free(NULL);
    memset(&w, 0, sizeof w);
    gs_multi_workload_free(&w);
}

/* ---- the table lists at full size (for the docs) ---- */

static const char *bus_name(uint32_t bus) {
    static const char *const names[] = {"?",    "MEMORY",  "RANGE", "BITWISE",
                                        "HASH", "PROGRAM", "LOOKUP"};
    return bus < 7 ? names[bus] : "?";
}

static void print_presets(void) {
    for (int p = 0; p < 3; p++) {
        uint32_t n = 0;
        CHECK(gs_synth_preset_tables(&n, presets[p]) == GS_OK);
        double cells = 0;
        printf("preset %s (shrink 0): %u tables\n", presets[p], n);
        printf("  %-8s %8s %5s %4s %6s %6s  interactions\n", "table", "rows", "cols", "deg",
               "trans", "bound");
        for (uint32_t t = 0; t < n; t++) {
            gs_air *a = NULL;
            unsigned log_n = 0;
            CHECK(gs_synth_table_air(&a, &log_n, presets[p], 0, 0, t) == GS_OK);
            if (!a) continue;
            cells += (double)gs_air_num_cols(a) * (double)(1ull << log_n);
            printf("  %-8s %6s%-2u %5u %4u %6u %6u  ", gs_air_name(a), "2^", log_n,
                   gs_air_num_cols(a), gs_air_max_degree(a), gs_air_num_transitions(a),
                   gs_air_num_boundaries(a));
            uint32_t ni = gs_air_num_interactions(a);
            for (uint32_t i = 0; i < ni;) { /* runs of equal (direction, bus) */
                uint32_t bus, width, j = i;
                int sign;
                gs_air_interaction(a, i, &bus, &width, &sign);
                for (; j < ni; j++) {
                    uint32_t b2, w2;
                    int s2;
                    gs_air_interaction(a, j, &b2, &w2, &s2);
                    if (b2 != bus || s2 != sign) break;
                }
                printf("%s%s %s/%u", i ? ", " : "", sign > 0 ? "send" : "recv", bus_name(bus),
                       width);
                if (j - i > 1) printf(" x%u", j - i);
                i = j;
            }
            printf("\n");
            gs_air_free(a);
        }
        printf("  total %.0f cells (%.1f MiB)\n", cells, cells * 8 / 1048576);
    }
}

/* --full: the presets at shrink 0..5 (satisfied, balanced; slow, several GiB),
 * printing generation times. */
static void test_full(void) {
    for (unsigned k = 0; k < 6; k++)
        for (int p = 0; p < 3; p++) check_statement(presets[p], k, gs_test_u64(), 0);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--full") == 0) {
            test_full();
            return gs_test_done();
        }
    print_presets();
    test_errors();
    test_custom();
    test_determinism();
    test_statements();
    test_memory_gaps();
    return gs_test_done();
}
