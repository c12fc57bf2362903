/* gstark prove / verify / inspect for the built-in AIRs. The proof header's
 * air_desc names the AIR and its shape ("fib" or "mix cols=C degree=D
 * log_n=N seed=S"); verify rebuilds it from there and the verifier checks
 * the fingerprint, so a description that lies cannot make a proof pass. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_PROOF_BYTES ((size_t)1 << 30)

/* Rebuilds the AIR a proof names; GS_ERR_PROOF_STATEMENT if unknown. */
static gs_status air_from_desc(gs_air **air, const char *desc) {
    if (!strcmp(desc, "fib")) return gs_airs_fib_air(air);
    unsigned cols, degree, log_n;
    uint64_t seed;
    int used = 0;
    if (sscanf(desc, "mix cols=%u degree=%u log_n=%u seed=%" SCNu64 "%n", &cols, &degree, &log_n,
               &seed, &used) == 4 && desc[used] == '\0') {
        gs_mix_params mp = {cols, degree, log_n, seed};
        gs_status s = gs_airs_mix_air(air, &mp);
        return s == GS_ERR_INVALID_ARG ? GS_ERR_PROOF_STATEMENT : s;
    }
    return GS_ERR_PROOF_STATEMENT;
}

int cli_prove(int argc, char **argv) {
    const char *air_name = "fib", *out = NULL, *preset = "vm", *budget_arg = NULL, *metrics = NULL;
    const char *backend = "auto", *dev_budget_arg = NULL;
    int report = 0, no_fallback = 0;
    unsigned long shrink = 0, tables_parallel = 0;
    unsigned long log_rows = 16, cols = 16, degree = 3, seed = 1, blowup = 4, security = 128,
                  queries = 0, grinding = 20, threads = 0;
    int no_check = 0;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
        if (!strcmp(o, "--no-check")) {
            no_check = 1;
            continue;
        }
        if (!strcmp(o, "--report")) {
            report = 1;
            continue;
        }
        if (!strcmp(o, "--no-fallback")) {
            no_fallback = 1;
            continue;
        }
        if (!strcmp(o, "--air")) ok = v != NULL, air_name = v;
        else if (!strcmp(o, "-o")) ok = v != NULL, out = v;
        else if (!strcmp(o, "--preset")) ok = v != NULL, preset = v;
        else if (!strcmp(o, "--shrink")) ok = cli_parse_uint(o, v, 0, 20, &shrink);
        else if (!strcmp(o, "--tables-parallel")) ok = cli_parse_uint(o, v, 1, 256, &tables_parallel);
        else if (!strcmp(o, "--mem-budget")) ok = v != NULL, budget_arg = v;
        else if (!strcmp(o, "--metrics")) ok = v != NULL, metrics = v;
        else if (!strcmp(o, "--backend")) ok = v != NULL, backend = v;
        else if (!strcmp(o, "--device-mem-budget")) ok = v != NULL, dev_budget_arg = v;
        else if (!strcmp(o, "--log-rows")) ok = cli_parse_uint(o, v, 1, 26, &log_rows);
        else if (!strcmp(o, "--cols")) ok = cli_parse_uint(o, v, 1, 1024, &cols);
        else if (!strcmp(o, "--degree")) ok = cli_parse_uint(o, v, 2, 17, &degree);
        else if (!strcmp(o, "--seed")) ok = cli_parse_uint(o, v, 0, ~0ul, &seed);
        else if (!strcmp(o, "--blowup")) ok = cli_parse_uint(o, v, 2, 64, &blowup);
        else if (!strcmp(o, "--security")) ok = cli_parse_uint(o, v, 1, 160, &security);
        else if (!strcmp(o, "--queries")) ok = cli_parse_uint(o, v, 1, 1024, &queries);
        else if (!strcmp(o, "--grinding")) ok = cli_parse_uint(o, v, 0, 40, &grinding);
        else if (!strcmp(o, "--threads")) ok = cli_parse_uint(o, v, 1, 256, &threads);
        else {
            fprintf(stderr, "gstark prove: unknown option %s\n", o);
            cli_usage(stderr);
            return CLI_USAGE;
        }
        if (!ok) {
            if (!v) fprintf(stderr, "gstark prove: %s needs a value\n", o);
            return CLI_USAGE;
        }
        i++;
    }
    if (!out) {
        fprintf(stderr, "gstark prove: -o FILE is required\n");
        return CLI_USAGE;
    }
    if (blowup & (blowup - 1)) {
        fprintf(stderr, "gstark prove: --blowup must be a power of two (2..64)\n");
        return CLI_USAGE;
    }
    if (threads) gs_threads_set((unsigned)threads);
    gs_params par = gs_params_default((unsigned)security);
    par.log_blowup = 0;
    while ((1ul << par.log_blowup) < blowup) par.log_blowup++;
    par.grinding_bits = (uint32_t)grinding;
    if (queries) par.num_queries = (uint32_t)queries;
    else {
        unsigned need = security > grinding ? (unsigned)(security - grinding) : 1;
        par.num_queries = (need + par.log_blowup - 1) / par.log_blowup;
        if (par.num_queries > 1024) par.num_queries = 1024;
    }

    size_t budget = 0, dev_budget = 0;
    if (budget_arg && gs_parse_size(&budget, budget_arg) != GS_OK) {
        fprintf(stderr, "gstark prove: --mem-budget needs a size such as 512M, 2G, 1048576 or "
                        "unlimited (got %s)\n", budget_arg);
        return CLI_USAGE;
    }
    if (dev_budget_arg && (gs_parse_size(&dev_budget, dev_budget_arg) != GS_OK || !dev_budget)) {
        fprintf(stderr, "gstark prove: --device-mem-budget needs a size such as 512M, 2G or "
                        "unlimited (got %s)\n", dev_budget_arg);
        return CLI_USAGE;
    }
    gs_backend_kind kind = GS_BACKEND_AUTO;
    if (!strcmp(backend, "cpu")) kind = GS_BACKEND_CPU;
    else if (!strcmp(backend, "cuda")) kind = GS_BACKEND_CUDA;
    else if (strcmp(backend, "auto")) {
        fprintf(stderr, "gstark prove: --backend is cpu, cuda or auto (got %s)\n", backend);
        return CLI_USAGE;
    }
    if (kind == GS_BACKEND_CUDA && !gs_cuda_device_count()) {
        fprintf(stderr, "gstark prove: --backend cuda: %s\n",
                gs_cuda_built() ? "no CUDA device is present" : "this build has no CUDA backend");
        return CLI_USAGE;
    }
    cli_sched sc = {(unsigned)tables_parallel, budget, report, metrics, kind, no_fallback,
                    dev_budget};
    if ((report || metrics) && strcmp(air_name, "synth")) {
        fprintf(stderr, "gstark prove: --report and --metrics apply to --air synth\n");
        return CLI_USAGE;
    }
    if (!strcmp(air_name, "synth")) {
        return cli_prove_synth(preset, (unsigned)shrink, seed, &par, no_check, &sc, out);
    }
    gs_workload w = {0};
    char desc[128];
    double t0 = cli_now();
    gs_status s;
    if (!strcmp(air_name, "fib")) {
        s = gs_airs_fib(&w, (unsigned)log_rows, 1, 1);
        snprintf(desc, sizeof desc, "fib");
    } else if (!strcmp(air_name, "mix")) {
        gs_mix_params mp = {(uint32_t)cols, (unsigned)degree, (unsigned)log_rows, seed};
        s = gs_airs_mix(&w, &mp);
        snprintf(desc, sizeof desc, "mix cols=%lu degree=%lu log_n=%lu seed=%lu", cols, degree,
                 log_rows, seed);
    } else {
        fprintf(stderr, "gstark prove: unknown AIR '%s' (fib, mix or synth)\n", air_name);
        return CLI_USAGE;
    }
    if (s != GS_OK) return s == GS_ERR_INVALID_ARG ? (cli_fail("building the trace", s), CLI_USAGE)
                                                   : cli_fail("building the trace", s);
    double t1 = cli_now();
    gs_prove_stats st;
    gs_prove_opts opts = {.skip_check = no_check, .air_desc = desc, .stats = &st,
                          .backend = sc.backend, .no_fallback = sc.no_fallback,
                          .device_mem_budget = sc.device_budget};
    gs_proof *proof = NULL;
    s = gs_prove(&proof, w.air, w.trace, w.log_n, w.pub, &par, &opts);
    if (s != GS_OK) {
        gs_workload_free(&w);
        if (s == GS_ERR_AIR_DEGREE)
            fprintf(stderr, "gstark prove: degree %lu needs a blowup of at least %lu\n", degree,
                    degree - 1);
        return cli_fail("proving", s);
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    s = gs_proof_serialize(&bytes, &len, proof);
    if (s == GS_OK) s = cli_write_atomic(out, bytes, len);
    int rc = CLI_OK;
    if (s == GS_ERR_IO) {
        fprintf(stderr, "gstark prove: writing %s: %s\n", out, strerror(errno));
        rc = CLI_USAGE;
    } else if (s != GS_OK) {
        rc = cli_fail("serializing the proof", s);
    } else {
        size_t cells = (size_t)gs_air_num_cols(w.air) << w.log_n;
        printf("proved %s: %u columns x 2^%u rows, %u-bit security (blowup %u, %u queries, %u "
               "grinding bits)\n",
               desc, gs_air_num_cols(w.air), w.log_n, gs_params_security(&par),
               1u << par.log_blowup, par.num_queries, par.grinding_bits);
        printf("  trace %.3f s, prove %.3f s (commit %.3f, quotient %.3f, ood %.3f, deep %.3f, "
               "fri %.3f, queries %.3f), %.2f Mcells/s\n",
               t1 - t0, st.total, st.commit, st.quotient, st.ood, st.deep, st.fri, st.queries,
               (double)cells / st.total / 1e6);
        cli_print_backend(&st);
        printf("  wrote %s (%zu bytes)\n", out, len);
    }
    free(bytes);
    gs_proof_free(proof);
    gs_workload_free(&w);
    return rc;
}

/* Reads a proof file; prints why not. */
static int read_proof(const char *path, uint8_t **buf, size_t *len) {
    gs_status s = cli_read_file(path, buf, len, MAX_PROOF_BYTES);
    if (s != GS_OK) {
        fprintf(stderr, "gstark: reading %s: %s\n", path,
                s == GS_ERR_IO ? strerror(errno) : gs_status_str(s));
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* Parses a single-table proof; prints why not. */
static int load_proof(const char *path, const uint8_t *buf, size_t len, gs_proof **proof) {
    return cli_parse_result(path, gs_proof_parse(proof, buf, len));
}

int cli_verify(int argc, char **argv) {
    const char *path = NULL;
    unsigned long min_bits = GS_MIN_SECURITY_BITS, threads = 0;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--min-security")) {
            if (!cli_parse_uint(o, v, 1, 160, &min_bits)) return CLI_USAGE;
            i++;
        } else if (!strcmp(o, "--threads")) {
            if (!cli_parse_uint(o, v, 1, 256, &threads)) return CLI_USAGE;
            i++;
        } else if (o[0] == '-' || path) {
            fprintf(stderr, "gstark verify: unexpected argument %s\n", o);
            return CLI_USAGE;
        } else {
            path = o;
        }
    }
    if (!path) {
        fprintf(stderr, "gstark verify: which proof file?\n");
        return CLI_USAGE;
    }
    if (threads) gs_threads_set((unsigned)threads);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = read_proof(path, &buf, &len);
    if (rc != CLI_OK) return rc;
    if (gs_proof_file_kind(buf, len) == 2) {
        rc = cli_verify_multi(path, buf, len, (unsigned)min_bits);
        free(buf);
        return rc;
    }
    gs_proof *proof = NULL;
    rc = load_proof(path, buf, len, &proof);
    free(buf);
    if (rc != CLI_OK) return rc;
    gs_air *air = NULL;
    double t0 = cli_now();
    gs_status s = air_from_desc(&air, proof->air_desc);
    if (s == GS_OK) s = gs_verify(air, proof, (unsigned)min_bits);
    double t1 = cli_now();
    if (s == GS_OK) {
        printf("valid: %s, 2^%u rows, %u-bit security, verified in %.1f ms\n", proof->air_desc,
               proof->log_n, gs_params_security(&proof->params), 1e3 * (t1 - t0));
    } else {
        fprintf(stderr, "invalid: %s (%s)\n", gs_status_str(s), proof->air_desc);
        rc = s == GS_ERR_NOMEM ? CLI_USAGE : CLI_INVALID;
    }
    gs_air_free(air);
    gs_proof_free(proof);
    return rc;
}

int cli_inspect(int argc, char **argv) {
    if (argc != 1 || argv[0][0] == '-') {
        fprintf(stderr, "gstark inspect: give one proof file\n");
        return CLI_USAGE;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = read_proof(argv[0], &buf, &len);
    if (rc != CLI_OK) return rc;
    if (gs_proof_file_kind(buf, len) == 2) {
        rc = cli_inspect_multi(argv[0], buf, len);
        free(buf);
        return rc;
    }
    gs_proof *p = NULL;
    rc = load_proof(argv[0], buf, len, &p);
    free(buf);
    if (rc != CLI_OK) return rc;
    const gs_table_proof *t = &p->table;
    const gs_params *q = &p->params;
    char fp[65];
    cli_hex(fp, &p->air_fingerprint);
    cli_parts parts;
    cli_table_parts(&parts, p);
    size_t commits = parts.commits, ood = parts.ood, final = parts.final, trace_q = parts.trace_q,
           chunk_q = parts.chunk_q, fri_q = parts.fri_q;
    printf("gstark proof, format version %u, %zu bytes\n", GS_PROOF_VERSION, len);
    printf("  statement   %s, 2^%u rows x %u columns, %u public inputs\n", p->air_desc, p->log_n,
           t->num_cols, p->num_public);
    printf("  air         %s\n", fp);
    printf("  parameters  blowup %u, %u queries, %u grinding bits, final degree < %u, fold by %u\n",
           1u << q->log_blowup, q->num_queries, q->grinding_bits, 1u << q->log_final,
           1u << q->log_arity);
    printf("  security    %u bits (queries x log2(blowup) + grinding, capped at 160)\n",
           gs_params_security(q));
    printf("  shape       %u quotient chunks, %u FRI layers, final polynomial %u coefficients, "
           "%u queries drawn\n", t->num_chunks, t->num_layers, t->final_len, t->num_queries);
    printf("  part                      bytes\n");
    printf("  commitments          %10zu\n", commits);
    printf("  out-of-domain values %10zu\n", ood);
    printf("  final polynomial     %10zu\n", final);
    printf("  trace openings       %10zu\n", trace_q);
    printf("  quotient openings    %10zu\n", chunk_q);
    printf("  FRI openings         %10zu\n", fri_q);
    printf("  header and framing   %10zu\n", len - commits - ood - final - trace_q - chunk_q - fri_q);
    gs_proof_free(p);
    return CLI_OK;
}
