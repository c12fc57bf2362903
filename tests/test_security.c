/* Security levels (docs/protocol.md, "Security"):
 * - conjectured: over the whole parameter grid (log_blowup 1..6, queries
 *   1..1024, grinding 0..40) gs_params_security equals min(q * log_blowup + g,
 *   128) computed here, never above Keccak-256's collision resistance;
 * - targets: gs_params_for_security gives the smallest query count for 1..128
 *   and refuses 0 and 129..400; gs_params_check refuses a minimum above the cap;
 * - provable: below the conjectured level, falling with the domain and the
 *   batch, the multi-proof level a union bound over its tables, or with a
 *   shared FRI that FRI's own bound; and
 *   `test_security --dump` prints the provable computation over a grid for
 *   tests/security_ref.py, which recomputes it independently (CTest runs it). */
#include <math.h>

#include "gstark/gstark.h"
#include "proof/security.h"
#include "prover/prover_internal.h"
#include "test_util.h"

static void test_conjectured(void) {
    long over = 0;
    for (uint32_t lb = 1; lb <= 6; lb++)
        for (uint32_t q = 1; q <= 1024; q++)
            for (uint32_t g = 0; g <= 40; g++) {
                gs_params p = {lb, 7, g, q, 1, 0, 0, 0, 0};
                uint64_t fri = (uint64_t)q * lb + g, want = fri < 128 ? fri : 128;
                unsigned got = gs_params_security(&p);
                if (got != want) CHECK_EQ_U64(got, want);
                over += got > 128;
                /* --min-security: met exactly when the level reaches it */
                if (q % 97 == 1 && g % 10 == 0) {
                    CHECK((gs_params_check(&p, (unsigned)want) == GS_OK));
                    if (want < 128) CHECK(gs_params_check(&p, (unsigned)want + 1) == GS_ERR_PROOF_PARAMS);
                    CHECK(gs_params_check(&p, 129) == GS_ERR_INVALID_ARG);
                }
            }
    CHECK(over == 0);
    CHECK(GS_MAX_SECURITY_BITS == 128 && GS_HASH_COLLISION_BITS == 128);
    /* The field term: floor(log2 p^3) - log2(2^30) - 1. */
    CHECK_EQ_U64(GS_FIELD_SECURITY_BITS, (uint64_t)floor(3 * log2((double)GS_FP_P)) - 30 - 1);
}

static void test_targets(void) {
    for (unsigned bits = 1; bits <= 128; bits++) {
        gs_params p;
        CHECK(gs_params_for_security(&p, bits) == GS_OK);
        CHECK(gs_params_security(&p) >= bits);
        gs_params fewer = p;
        fewer.num_queries--;
        if (fewer.num_queries) CHECK(gs_params_security(&fewer) < bits);
        gs_params d = gs_params_default(bits);
        CHECK(memcmp(&d, &p, sizeof p) == 0);
    }
    gs_params p = {0};
    CHECK(gs_params_for_security(&p, 0) == GS_ERR_INVALID_ARG);
    for (unsigned bits = 129; bits <= 400; bits++) CHECK(gs_params_for_security(&p, bits) == GS_ERR_INVALID_ARG);
    CHECK(gs_params_for_security(NULL, 100) == GS_ERR_INVALID_ARG);
    gs_params d = gs_params_default(200); /* clamped */
    CHECK(gs_params_security(&d) == 128);
}

static void test_provable(void) {
    gs_params def = gs_params_default(128);
    unsigned prev = 200;
    /* From 2^6 rows on the 54 queries fit the domain; the level then falls
     * with the height (below, fewer positions exist than queries asked). */
    for (unsigned log_n = 6; log_n <= 28; log_n++) {
        unsigned b = gs_params_security_provable(&def, log_n, 16);
        CHECK(b > 0 && b <= gs_params_security(&def) && b <= prev);
        prev = b;
    }
    /* The default parameters' level: about 73 bits (issue 11's figure). */
    unsigned b18 = gs_params_security_provable(&def, 18, 10);
    CHECK(b18 >= 72 && b18 <= 74);
    CHECK(gs_params_security_provable(&def, 16, 1) >= gs_params_security_provable(&def, 16, 4000));
    CHECK(gs_params_security_provable(&def, 0, 3) == 0);
    CHECK(gs_params_security_provable(&def, 16, 0) == 0);
    for (uint32_t lb = 1; lb <= 6; lb++)
        for (uint32_t q = 1; q <= 1024; q += 37) {
            gs_params p = {lb, 7, 20, q, 1, 0, 0, 0, 0};
            unsigned pv = gs_params_security_provable(&p, 12, 20);
            CHECK(pv <= gs_params_security(&p));
        }
    /* Whole proofs: the union over tables is no better than its worst table. */
    gs_proof t[2] = {{.params = def, .log_n = 10, .table = {.num_cols = 3, .num_chunks = 2}},
                     {.params = def, .log_n = 20, .table = {.num_cols = 40, .num_chunks = 2, .aux_cols = 4}}};
    gs_multi_proof mp = {.params = def, .num_tables = 2, .tables = t};
    unsigned m = gs_multi_proof_security_provable(&mp), a = gs_proof_security_provable(&t[0]),
             c = gs_proof_security_provable(&t[1]);
    CHECK(m > 0 && m <= a && m <= c);
    CHECK(c == gs_params_security_provable(&def, 20, 2 * 40 + 2 + 2 * 4));
}

/* A shared-FRI proof's own bound (gs_security_shared_log2_error): one table
 * sharing with nobody has exactly its own table's error; each table added
 * raises it, each query added lowers it; the multi-proof level of a
 * shared-FRI proof is the bound's floor (not the union over tables). */
static void test_provable_shared(void) {
    gs_params def = gs_params_default(128);
    def.shared_fri = 1, def.coset_leaves = 0; /* the two do not combine */
    for (uint32_t log_n = 3; log_n <= 24; log_n += 7)
        for (uint32_t polys = 1; polys <= 400; polys += 133) {
            double one = gs_security_shared_log2_error(&def, &log_n, &polys, 1);
            CHECK(one < 0 && one == gs_security_table_log2_error(&def, log_n, polys));
        }
    uint32_t lg[4] = {20, 14, 14, 3}, polys[4] = {90, 7, 409, 5};
    double prev = -INFINITY;
    for (uint32_t n = 1; n <= 4; n++) {
        double e = gs_security_shared_log2_error(&def, lg, polys, n);
        CHECK(e < 0 && e > prev);
        prev = e;
        gs_params more = def;
        more.num_queries += 10;
        CHECK(gs_security_shared_log2_error(&more, lg, polys, n) < e);
    }
    uint32_t zero = 0;
    CHECK(gs_security_shared_log2_error(&def, lg, &zero, 1) == 0.0);
    CHECK(gs_security_shared_log2_error(&def, lg, polys, 0) == 0.0);
    gs_proof t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (gs_proof){.params = def, .log_n = lg[i], .table = {.num_cols = (polys[i] - 1) / 2, .num_chunks = 1}};
    gs_multi_proof mp = {.params = def, .num_tables = 4, .tables = t};
    unsigned shared = gs_multi_proof_security_provable(&mp);
    CHECK(shared == (unsigned)floor(-gs_security_shared_log2_error(&def, lg, polys, 4)));
    mp.params.shared_fri = 0;
    unsigned per_table = gs_multi_proof_security_provable(&mp);
    printf("four tables: %u bits provable with one FRI, %u with one FRI per table\n", shared, per_table);
}

/* gs_params_for_provable: the chosen parameters reach the target (by the
 * multi-table union the proof reports), one query fewer does not, the blowup
 * covers the constraint degrees and stays in the range asked, the rest of
 * the base is kept; an unreachable target says how far the search got. */
static void test_for_provable(void) {
    gs_workload fib = {0}, mix = {0};
    gs_mix_params mp = {32, 5, 12, 7}; /* degree 5: blowup 4 at least */
    CHECK(gs_airs_fib(&fib, 18, 1, 1) == GS_OK && gs_airs_mix(&mix, &mp) == GS_OK);
    const gs_air *airs[2] = {fib.air, mix.air};
    unsigned lg[2] = {fib.log_n, mix.log_n};
    gs_params base = gs_params_default(128);
    base.grinding_bits = 16, base.log_arity = 2, base.log_final = 5;
    size_t cases = 0;
    for (uint32_t n = 1; n <= 2; n++)
        for (unsigned bits = 60; bits <= 120; bits += 20)
            for (unsigned lo = 1; lo <= 3; lo++) {
                gs_params p;
                unsigned reach = 0;
                gs_status s = gs_params_for_provable(&p, bits, n == 1 ? airs + 1 : airs, n == 1 ? lg + 1 : lg, n,
                                                     &base, lo, 4, &reach);
                CHECK(s == GS_OK);
                if (s != GS_OK) continue;
                CHECK(p.log_blowup >= lo && p.log_blowup >= 2 && p.log_blowup <= 4); /* mix needs >= 2 */
                CHECK(p.grinding_bits == 16 && p.log_arity == 2 && p.log_final == 5 && p.hash == base.hash);
                CHECK(gs_params_check(&p, GS_MIN_SECURITY_BITS) == GS_OK);
                /* The level a proof of these tables reports: the union over them. */
                double e = -INFINITY, e1 = -INFINITY;
                gs_params q = p;
                q.num_queries--;
                for (uint32_t i = 2 - n; i < 2; i++) {
                    uint32_t polys = 2 * gs_air_num_cols(airs[i]) + gs_air_num_chunks(airs[i]);
                    double a = gs_security_table_log2_error(&p, lg[i], polys);
                    double b = gs_security_table_log2_error(&q, lg[i], polys);
                    e = e == -INFINITY ? a : fmax(a, e) + log2(1 + exp2(fmin(a, e) - fmax(a, e)));
                    e1 = e1 == -INFINITY ? b : fmax(b, e1) + log2(1 + exp2(fmin(b, e1) - fmax(b, e1)));
                }
                CHECK(floor(-e) >= bits);
                /* Minimal: one query fewer misses, unless the conjectured minimum set the count. */
                CHECK(floor(-e1) < bits || gs_params_security(&q) < GS_MIN_SECURITY_BITS);
                cases++;
            }
    /* With a shared FRI the target is met by the shared bound, minimally. */
    gs_params sb = base;
    sb.shared_fri = 1, sb.coset_leaves = 0;
    for (unsigned bits = 60; bits <= 120; bits += 30) {
        gs_params p;
        unsigned reach = 0;
        CHECK(gs_params_for_provable(&p, bits, airs, lg, 2, &sb, 1, 4, &reach) == GS_OK);
        CHECK(p.shared_fri == 1);
        uint32_t h[2] = {lg[0], lg[1]}, polys[2];
        for (int i = 0; i < 2; i++) polys[i] = 2 * gs_air_num_cols(airs[i]) + gs_air_num_chunks(airs[i]);
        CHECK(floor(-gs_security_shared_log2_error(&p, h, polys, 2)) >= bits);
        gs_params q = p;
        q.num_queries--;
        CHECK(floor(-gs_security_shared_log2_error(&q, h, polys, 2)) < bits ||
              gs_params_security(&q) < GS_MIN_SECURITY_BITS);
        cases++;
    }
    gs_params p;
    unsigned reach = 0;
    /* Blowup 2 only: mix's degree 5 rules out every choice. */
    CHECK(gs_params_for_provable(&p, 80, airs, lg, 2, &base, 1, 1, &reach) == GS_ERR_PROOF_PARAMS);
    CHECK(reach == 0);
    /* fib alone at blowup 2 reaches it, and the search reports at least the target. */
    CHECK(gs_params_for_provable(&p, 80, airs, lg, 1, &base, 1, 1, &reach) == GS_OK && reach >= 80);
    CHECK(gs_params_for_provable(&p, 129, airs, lg, 2, &base, 1, 4, &reach) == GS_ERR_INVALID_ARG);
    CHECK(gs_params_for_provable(&p, 80, airs, lg, 2, &base, 3, 2, &reach) == GS_ERR_INVALID_ARG);
    printf("for_provable: %zu targets met with the fewest queries\n", cases);
    gs_workload_free(&fib), gs_workload_free(&mix);
}

/* The size gs_params_for_provable ranks its choices by: within 15% of the
 * serialized proof, with one FRI per table and with a shared FRI (whose
 * tables send no FRI of their own: counting it once per table would put the
 * estimate far above the proof), at every blowup it chooses between. */
static void test_size_estimate(void) {
    gs_workload fib = {0}, mix = {0};
    gs_mix_params mp = {24, 3, 11, 5};
    CHECK(gs_airs_fib(&fib, 14, 1, 1) == GS_OK && gs_airs_mix(&mix, &mp) == GS_OK);
    const gs_air *airs[2] = {fib.air, mix.air};
    unsigned lg[2] = {fib.log_n, mix.log_n};
    gs_table_input in[2] = {{.air = fib.air, .trace = fib.trace, .log_n = fib.log_n, .pub = fib.pub},
                            {.air = mix.air, .trace = mix.trace, .log_n = mix.log_n, .pub = mix.pub}};
    for (int shared = 0; shared <= 1; shared++)
        for (unsigned lb = 1; lb <= 3; lb++) {
            gs_params p = gs_params_default(100);
            p.log_blowup = lb, p.shared_fri = (uint8_t)shared;
            p.num_queries = (100 - p.grinding_bits + lb - 1) / lb; /* 100 bits conjectured */
            if (shared) p.coset_leaves = 0;
            gs_multi_proof *mpf = NULL;
            uint8_t *bytes = NULL;
            size_t len = 0;
            gs_status s = gs_prove_multi(&mpf, in, 2, &p, NULL);
            CHECK(s == GS_OK);
            if (s == GS_OK) CHECK(gs_multi_proof_serialize(&bytes, &len, mpf) == GS_OK);
            double est = gs_params_proof_bytes(&p, airs, lg, 2);
            if (len && !(fabs(est - (double)len) <= 0.15 * (double)len))
                fprintf(stderr, "size estimate %s FRI, blowup 2^%u: %.0f against %zu bytes\n",
                        shared ? "shared" : "per-table", lb, est, len);
            CHECK(len && fabs(est - (double)len) <= 0.15 * (double)len);
            free(bytes);
            gs_multi_proof_free(mpf);
        }
    gs_workload_free(&fib), gs_workload_free(&mix);
}

/* params, log_n, polys, log2 error: the grid tests/security_ref.py checks. */
static void dump(void) {
    static const uint32_t lbs[] = {1, 2, 3, 6}, qs[] = {1, 54, 400}, gs[] = {0, 20};
    static const unsigned logns[] = {1, 16, 27};
    static const uint32_t polys[] = {1, 500};
    static const uint32_t fri[][2] = {{7, 1}, {2, 4}}; /* log_final, log_arity (a partial last layer) */
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 3; b++)
            for (size_t c = 0; c < 2; c++)
                for (size_t d = 0; d < 3; d++)
                    for (size_t e = 0; e < 2; e++)
                        for (size_t f = 0; f < 2; f++) {
                            gs_params p = {lbs[a], fri[f][0], gs[c], qs[b], fri[f][1], 0, 0, 0, 0};
                            if (logns[d] + lbs[a] > 30) continue;
                            printf("%u %u %u %u %u %u %u %.9f %u\n", p.log_blowup, p.num_queries,
                                   p.grinding_bits, logns[d], polys[e], p.log_final, p.log_arity,
                                   gs_security_table_log2_error(&p, logns[d], polys[e]),
                                   gs_params_security_provable(&p, logns[d], polys[e]));
                        }
}

/* Shared-FRI rows: "S" params, table count, (log_n, polys) per table, log2
 * error, bits. */
static void dump_shared(void) {
    static const uint32_t sets[][2][4] = {{{16, 16}, {5, 500}}, {{20, 14, 14, 3}, {90, 7, 409, 5}},
                                          {{9, 25, 12}, {3, 40, 1}}};
    static const uint32_t counts[] = {2, 4, 3}, lbs[] = {1, 3}, qs[] = {1, 54};
    static const uint32_t fri[][2] = {{7, 1}, {2, 4}};
    for (size_t k = 0; k < 3; k++)
        for (size_t a = 0; a < 2; a++)
            for (size_t b = 0; b < 2; b++)
                for (size_t f = 0; f < 2; f++) {
                    gs_params p = {lbs[a], fri[f][0], 20, qs[b], fri[f][1], 0, 0, 0, 0};
                    p.shared_fri = 1;
                    double e = gs_security_shared_log2_error(&p, sets[k][0], sets[k][1], counts[k]);
                    printf("S %u %u %u %u %u %u", p.log_blowup, p.num_queries, p.grinding_bits, p.log_final,
                           p.log_arity, counts[k]);
                    for (uint32_t t = 0; t < counts[k]; t++) printf(" %u %u", sets[k][0][t], sets[k][1][t]);
                    double bits = floor(-e);
                    printf(" %.9f %u\n", e, bits > 128 ? 128u : (unsigned)bits);
                }
}

/* gs_params_set_queries: the least count reaching the target at every
 * blowup and grinding (one fewer misses it), the documented counts at 128
 * bits, and the unreachable targets leave the parameters unchanged. */
static void test_set_queries(void) {
    for (unsigned lb = 0; lb <= 6; lb++) {
        for (unsigned g = 0; g <= 40; g += 5) {
            for (unsigned bits = 1; bits <= 160; bits++) {
                gs_params p = gs_params_default(128), before;
                p.log_blowup = lb, p.grinding_bits = g, p.num_queries = 777;
                before = p;
                gs_status s = gs_params_set_queries(&p, bits);
                int reach = bits <= GS_MAX_SECURITY_BITS && (lb > 0 || g >= bits);
                CHECK(s == (reach ? GS_OK : GS_ERR_PROOF_PARAMS));
                if (!reach) {
                    CHECK(memcmp(&p, &before, sizeof p) == 0);
                    continue;
                }
                CHECK(gs_params_security(&p) >= bits);
                gs_params fewer = p;
                fewer.num_queries--;
                if (fewer.num_queries) CHECK(gs_params_security(&fewer) < bits);
            }
        }
    }
    static const unsigned want[4][2] = {{1, 108}, {2, 54}, {3, 36}, {4, 27}}; /* log blowup, queries */
    for (int i = 0; i < 4; i++) {
        gs_params p = gs_params_default(128);
        p.log_blowup = want[i][0];
        CHECK(gs_params_set_queries(&p, 128) == GS_OK && p.num_queries == want[i][1]);
    }
    CHECK(gs_params_set_queries(NULL, 100) == GS_ERR_INVALID_ARG);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--dump")) {
        dump();
        dump_shared();
        return 0;
    }
    gs_test_init(argc, argv);
    test_conjectured();
    test_targets();
    test_set_queries();
    test_provable();
    test_provable_shared();
    test_for_provable();
    test_size_estimate();
    return gs_test_done();
}
