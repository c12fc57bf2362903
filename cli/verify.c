/* gstark verify: check a proof file, say what it proves (AIR, shape,
 * security, public inputs, statement digest), and with --expect or
 * --statement whether it proves the statement the user has in mind. A run's
 * proof (GSZKVM01) is checked against the program given with --elf
 * (cli/zkvm.c). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { OPT_MIN_SECURITY = 256, OPT_EXPECT, OPT_STATEMENT, OPT_THREADS, OPT_JSON, OPT_ELF, OPT_INPUT };

static const struct option verify_opts[] = {
    {"min-security", required_argument, NULL, OPT_MIN_SECURITY},
    {"expect", required_argument, NULL, OPT_EXPECT},
    {"statement", required_argument, NULL, OPT_STATEMENT},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"json", no_argument, NULL, OPT_JSON},
    {"elf", required_argument, NULL, OPT_ELF},
    {"input", required_argument, NULL, OPT_INPUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* What was verified, for people. */
static void print_human(FILE *f, const cli_loaded *L, const cli_table_info *info, double ms,
                        int all) {
    char name[300], sec[96], hex[65];
    cli_security_str(sec, sizeof sec, L->conjectured, L->provable);
    cli_hex(hex, &L->statement);
    if (!L->multi) {
        const gs_proof *p = L->tables;
        cli_table_name(name, sizeof name, p, info);
        fprintf(f, "valid: %s, 2^%u rows x %u columns\n", name, p->log_n, p->table.num_cols);
        fprintf(f, "  security   %s\n", sec);
        fprintf(f, "  hash       %s\n", cli_hash_name(p->params.hash));
        fprintf(f, "  public     %u input%s ", p->num_public, p->num_public == 1 ? "" : "s");
        cli_print_pub(f, p->pub, p->num_public, all);
        fputc('\n', f);
    } else {
        cli_loaded_name(name, sizeof name, L);
        /* the shared description only when every table is what it says */
        for (uint32_t i = 0; i < L->n; i++)
            if (!info[i].desc_ok)
                snprintf(name, sizeof name, "a multi-table proof not as described (each table's "
                                            "line says what it verified as)");
        fprintf(f, "valid: %s, %u tables\n", name, L->n);
        fprintf(f, "  security   %s\n", sec);
        fprintf(f, "  hash       %s\n", cli_hash_name(L->params->hash));
        for (uint32_t i = 0; i < L->n; i++) {
            const gs_proof *p = &L->tables[i];
            cli_table_name(name, sizeof name, p, &info[i]);
            fprintf(f, "  table %-4u %s: 2^%u rows x %u columns, ", i, name, p->log_n,
                    p->table.num_cols);
            if (p->num_public) {
                fprintf(f, "public ");
                cli_print_pub(f, p->pub, p->num_public, all);
            } else {
                fprintf(f, "no public inputs");
            }
            fputc('\n', f);
        }
    }
    fprintf(f, "  statement  %s\n", hex);
    fprintf(f, "  verified in %.1f ms\n", ms);
}

static void print_json(const char *path, const cli_loaded *L, gs_status s, int statement_ok,
                       double ms) {
    printf("{\"command\":\"verify\",\"file\":");
    cli_json_str(stdout, path);
    printf(",\"valid\":%s,\"statement_matches\":%s,\"accepted\":%s,\"error\":",
           s == GS_OK ? "true" : "false", statement_ok ? "true" : "false",
           s == GS_OK && statement_ok ? "true" : "false");
    if (s == GS_OK) printf("null");
    else cli_json_str(stdout, gs_status_str(s));
    printf(",\"multi\":%s,", L->multi ? "true" : "false");
    cli_json_proof(stdout, L, 0);
    printf(",\"seconds\":%.6f}\n", ms / 1e3);
}

/* --elf and --input are for a run's proof, which needs --elf; --expect's
 * keys are the built-in AIRs'. */
static int zkvm_options(int zkvm, const char *path, const char *elf, const char *input,
                        size_t nex) {
    const char *name = strcmp(path, "-") ? path : "standard input";
    if (zkvm && !elf) {
        cli_err("%s is a zkVM run's proof: give the program it must be of with --elf PROGRAM.elf",
                name);
        return CLI_USAGE;
    }
    if (zkvm && nex) {
        cli_err("--expect checks a built-in AIR's statement; %s is a zkVM run's proof (--elf and "
                "--input pin its program and input, --statement its digest)", name);
        return CLI_USAGE;
    }
    if (!zkvm && (elf || input)) {
        cli_err("%s applies to a zkVM run's proof (gstark prove --elf); %s is not one",
                elf ? "--elf" : "--input", name);
        return CLI_USAGE;
    }
    if (zkvm && !strcmp(path, "-") + !strcmp(elf, "-") + (input && !strcmp(input, "-")) > 1) {
        cli_err("only one of the proof, --elf and --input can be standard input");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_verify(int argc, char **argv) {
    unsigned long min_bits = GS_MIN_SECURITY_BITS, threads = 0;
    int quiet = 0, verbose = 0, json = 0, have_digest = 0, c;
    gs_digest want;
    const char *want_text = NULL, *elf = NULL, *input = NULL;
    cli_expect *ex = calloc((size_t)argc + 1, sizeof *ex);
    size_t nex = 0;
    int rc = ex ? CLI_OK : CLI_USAGE;
    while (rc == CLI_OK && (c = cli_getopt(argc, argv, "qvh", verify_opts)) != -1) {
        switch (c) {
        case OPT_MIN_SECURITY:
            if (!cli_parse_uint("--min-security", optarg, 1, 100000, &min_bits)) rc = CLI_USAGE;
            else if (min_bits > GS_MAX_SECURITY_BITS) {
                cli_err("--min-security %lu: Keccak-256 commitments cap the claim at %u bits, so "
                        "no proof can meet it", min_bits, GS_MAX_SECURITY_BITS);
                rc = CLI_USAGE;
            }
            break;
        case OPT_EXPECT:
            if (!cli_expect_parse(&ex[nex], optarg)) rc = CLI_USAGE;
            else nex++;
            break;
        case OPT_STATEMENT:
            if (!cli_unhex(&want, optarg)) {
                cli_err("--statement needs the 64 hex digits verify prints (got '%s')", optarg);
                rc = CLI_USAGE;
            }
            have_digest = 1, want_text = optarg;
            break;
        case OPT_THREADS:
            if (!cli_parse_uint("--threads", optarg, 1, 256, &threads)) rc = CLI_USAGE;
            break;
        case 'q': quiet = 1; break;
        case 'v': verbose = 1; break;
        case OPT_JSON: json = 1; break;
        case OPT_ELF: elf = optarg; break;
        case OPT_INPUT: input = optarg; break;
        case 'h':
            cli_help_command(stdout, "verify");
            for (size_t i = 0; i < nex; i++) cli_expect_free(&ex[i]);
            free(ex);
            return CLI_OK;
        default: rc = CLI_USAGE; break;
        }
    }
    const char *path = NULL;
    if (rc == CLI_OK) {
        if (optind + 1 != argc) {
            cli_err("give one proof file (see 'gstark verify --help')");
            rc = CLI_USAGE;
        } else if (quiet && (verbose || json)) {
            cli_err("--quiet prints nothing: not with %s", verbose ? "--verbose" : "--json");
            rc = CLI_USAGE;
        } else {
            path = argv[optind];
        }
    }
    if (rc != CLI_OK) {
        for (size_t i = 0; i < nex; i++) cli_expect_free(&ex[i]);
        free(ex);
        return rc;
    }
    if (threads) gs_threads_set((unsigned)threads);

    cli_loaded L;
    memset(&L, 0, sizeof L);
    gs_air **airs = NULL;
    cli_table_info *info = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    rc = cli_read_input("proof file", path, &buf, &len, CLI_MAX_PROOF_BYTES);
    int zkvm = rc == CLI_OK && cli_zkvm_is_proof(buf, len);
    if (rc == CLI_OK) rc = zkvm_options(zkvm, path, elf, input, nex);
    if (rc == CLI_OK && zkvm) {
        cli_print pr = {.quiet = quiet, .verbose = verbose, .json = json};
        cli_zkvm_check zc = {.elf = elf, .input = input, .min_bits = (unsigned)min_bits,
                             .statement = have_digest ? &want : NULL, .statement_text = want_text};
        rc = cli_zkvm_verify(path, buf, len, &zc, &pr);
        goto out;
    }
    if (rc == CLI_OK) rc = cli_load_buf(&L, path, buf, len, CLI_REJECTED);
    if (rc == CLI_OK) rc = cli_rebuild_airs(&airs, &info, L.tables, L.n);
    if (rc == CLI_OK) {
        double t0 = cli_now();
        gs_status s = L.multi
                          ? gs_verify_multi((const gs_air *const *)airs, L.n, L.mp, (unsigned)min_bits)
                          : gs_verify(airs[0], L.single, (unsigned)min_bits);
        double ms = 1e3 * (cli_now() - t0);
        int statement_ok = 1;
        if (s != GS_OK) {
            char name[160];
            cli_loaded_name(name, sizeof name, &L);
            fprintf(stderr, "invalid: %s (%s)\n", gs_status_str(s), name);
            rc = s == GS_ERR_NOMEM ? CLI_USAGE : CLI_REJECTED;
        } else {
            if (have_digest && memcmp(want.b, L.statement.b, sizeof want.b)) {
                char hex[65];
                cli_hex(hex, &L.statement);
                cli_err("statement mismatch: expected statement %s, the proof's is %s", want_text,
                        hex);
                rc = CLI_REJECTED;
            }
            if (rc == CLI_OK) rc = cli_expect_check(ex, nex, L.tables, L.n, info, L.multi);
            statement_ok = rc == CLI_OK;
        }
        if (json && rc != CLI_USAGE) print_json(path, &L, s, statement_ok, ms);
        else if (rc == CLI_OK && !quiet) print_human(stdout, &L, info, ms, verbose);
    }
out:
    free(buf);
    for (uint32_t i = 0; airs && i < L.n; i++) gs_air_free(airs[i]);
    free(airs);
    free(info);
    cli_loaded_free(&L);
    for (size_t i = 0; i < nex; i++) cli_expect_free(&ex[i]);
    free(ex);
    return rc;
}
