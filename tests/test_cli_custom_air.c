/* Proof files the gstark command cannot or need not rebuild, for the CLI
 * tests (tests/cli_statement_test.sh):
 *   test_cli_custom_air single FILE   a proof of an AIR of its own ("sqchain")
 *   test_cli_custom_air multi FILE    a two-table statement of custom synth tables
 *   test_cli_custom_air misnamed FILE a fib proof whose air_desc says "sqchain"
 *   test_cli_custom_air mixheight FILE a 2^10-row proof of the mix AIR made for
 *                                     2^8 rows (its middle boundary at row 128),
 *                                     described as that AIR ("log_n=8")
 * Without arguments (as a CTest test) it proves each in memory and checks
 * that the library verifies them against their own AIRs, so the files the
 * CLI tests use are known-valid proofs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/gstark.h"

#define LOG_N 6

/* sqchain: one column, x' = x^2 + 1, x[0] = pub[0], x[-1] = pub[1]. */
static gs_air *sqchain_air(void) {
    gs_air *air = gs_air_new("sqchain", 1, 2);
    if (!air) return NULL;
    gs_expr x = gs_air_col(air, 0);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0),
                                      gs_air_add(air, gs_air_mul(air, x, x), gs_air_const(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_public(air, 0));
    gs_air_boundary(air, 0, -1, gs_air_public(air, 1));
    if (gs_air_finalize(air) != GS_OK) {
        gs_air_free(air);
        return NULL;
    }
    return air;
}

static gs_params params(void) {
    gs_params p = gs_params_default(80);
    p.grinding_bits = 4;
    p.num_queries = 38; /* 38 * 2 + 4 = 80 bits */
    return p;
}

/* The single-table proof: of sqchain, or (misnamed) of fib labelled sqchain. */
static gs_status prove_single(gs_proof **out, gs_air **air_out, int misnamed) {
    gs_params par = params();
    gs_prove_opts o = {.air_desc = "sqchain log_n=6"};
    if (misnamed) {
        gs_workload w = {0};
        gs_status s = gs_airs_fib(&w, LOG_N, 1, 1);
        if (s == GS_OK) s = gs_prove(out, w.air, w.trace, w.log_n, w.pub, &par, &o);
        *air_out = w.air;
        w.air = NULL;
        gs_workload_free(&w);
        return s;
    }
    size_t n = (size_t)1 << LOG_N;
    gs_fp *t = malloc(n * sizeof *t), pub[2] = {3, 0};
    gs_air *air = sqchain_air();
    *air_out = air;
    if (!t || !air) {
        free(t);
        return GS_ERR_NOMEM;
    }
    t[0] = pub[0];
    for (size_t i = 1; i < n; i++) t[i] = gs_fp_add(gs_fp_mul(t[i - 1], t[i - 1]), 1);
    pub[1] = t[n - 1];
    gs_status s = gs_prove(out, air, t, LOG_N, pub, &par, &o);
    free(t);
    return s;
}

static gs_status prove_multi(gs_multi_proof **out, gs_multi_workload *w) {
    gs_synth_table S[2] = {
        {.name = "prov", .log_n = 3, .cols = 4, .degree = 2, .provider = 1},
        {.name = "user", .log_n = 3, .cols = 8, .degree = 2, .num_ports = 1, .targets = {1},
         .density = 128}};
    gs_status s = gs_synth_custom(w, S, 2, 0, 7);
    if (s != GS_OK) return s;
    gs_table_input in[2];
    for (int i = 0; i < 2; i++)
        in[i] = (gs_table_input){.air = w->tables[i].air, .trace = w->tables[i].trace,
                                 .log_n = w->tables[i].log_n, .pub = w->tables[i].pub,
                                 .air_desc = i ? "custom user" : "custom prov"};
    gs_params par = params();
    return gs_prove_multi(out, in, 2, &par, NULL);
}

static int write_file(const char *path, const uint8_t *b, size_t len) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "test_cli_custom_air: cannot write %s\n", path);
    return ok;
}

/* The mix AIR of 2^8 rows on the 2^10-row mix trace, its publics from rows
 * 0, 128 and 1023: valid for that AIR, yet not the statement "mix ...
 * log_n=8" names (found by review, 2026-12-04: the CLI verified it). */
static gs_status prove_mixheight(gs_proof **out, gs_air **air_out) {
    gs_mix_params big = {4, 3, 10, 1}, small = {4, 3, 8, 1};
    gs_workload w = {0};
    gs_status s = gs_airs_mix(&w, &big);
    if (s == GS_OK) s = gs_airs_mix_air(air_out, &small);
    if (s == GS_OK) {
        const size_t n = (size_t)1 << 10, rows[3] = {0, 128, n - 1};
        gs_fp pub[12];
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < 4; i++) pub[r * 4 + i] = w.trace[i * n + rows[r]];
        gs_params par;
        gs_params_for_security(&par, 128);
        gs_prove_opts o = {.air_desc = "mix cols=4 degree=3 log_n=8 seed=1"};
        s = gs_prove(out, *air_out, w.trace, 10, pub, &par, &o);
    }
    gs_workload_free(&w);
    return s;
}

int main(int argc, char **argv) {
    int write = argc == 3, fails = 0;
    const char *what[] = {"single", "multi", "misnamed", "mixheight"};
    for (int k = 0; k < 4; k++) {
        if (write && strcmp(argv[1], what[k])) continue;
        uint8_t *bytes = NULL;
        size_t len = 0;
        gs_status s, v = GS_ERR_INVALID_ARG;
        if (k == 1) {
            gs_multi_workload w = {0};
            gs_multi_proof *mp = NULL;
            s = prove_multi(&mp, &w);
            if (s == GS_OK) {
                const gs_air *airs[2] = {w.tables[0].air, w.tables[1].air};
                v = gs_verify_multi(airs, 2, mp, 0);
                s = gs_multi_proof_serialize(&bytes, &len, mp);
            }
            gs_multi_proof_free(mp);
            gs_multi_workload_free(&w);
        } else {
            gs_proof *p = NULL;
            gs_air *air = NULL;
            s = k == 3 ? prove_mixheight(&p, &air) : prove_single(&p, &air, k == 2);
            if (s == GS_OK) {
                v = gs_verify(air, p, 0);
                s = gs_proof_serialize(&bytes, &len, p);
            }
            gs_proof_free(p);
            gs_air_free(air);
        }
        if (s != GS_OK || v != GS_OK) {
            fprintf(stderr, "FAIL: %s: prove/serialize %s, verify %s\n", what[k], gs_status_str(s),
                    gs_status_str(v));
            fails++;
        } else if (write && !write_file(argv[2], bytes, len)) {
            fails++;
        } else if (!write) {
            printf("ok: %s proof, %zu bytes, verified by the library\n", what[k], len);
        }
        free(bytes);
    }
    if (write && strcmp(argv[1], "single") && strcmp(argv[1], "multi") && strcmp(argv[1], "misnamed") &&
        strcmp(argv[1], "mixheight")) {
        fprintf(stderr, "usage: test_cli_custom_air [single|multi|misnamed|mixheight FILE]\n");
        return 2;
    }
    if (argc != 1 && !write) {
        fprintf(stderr, "usage: test_cli_custom_air [single|multi|misnamed|mixheight FILE]\n");
        return 2;
    }
    return fails ? 1 : 0;
}
