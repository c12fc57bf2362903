/* gstark inspect: a proof file's statement, parameters, security and the
 * bytes of each part, without verifying it; a run's proof (GSZKVM01) by
 * cli/zkvm.c. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { OPT_JSON = 256 };

static const struct option inspect_opts[] = {
    {"verbose", no_argument, NULL, 'v'},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static void print_single(const cli_loaded *L, int all) {
    const gs_proof *p = L->single;
    const gs_table_proof *t = &p->table;
    char fp[65], d[sizeof p->air_desc];
    cli_hex(fp, &p->air_fingerprint);
    cli_safe(d, sizeof d, p->air_desc);
    cli_parts pt;
    pt = gs_proof_table_parts(p);
    printf("  statement   %s, 2^%u rows x %u columns, %u public inputs\n", d, p->log_n,
           t->num_cols, p->num_public);
    printf("  public      ");
    cli_print_pub(stdout, p->pub, p->num_public, all);
    printf("\n  air         %s\n", fp);
    printf("  shape       %u quotient chunks, %u FRI layers, final polynomial %u coefficients, "
           "%u queries drawn\n", t->num_chunks, t->num_layers, t->final_len, t->num_queries);
    if (pt.leaf_rows_log)
        printf("  leaves      %u LDE rows a leaf (coset leaves: FRI layer 0 comes from the openings)\n",
               1u << pt.leaf_rows_log);
    printf("  part                      bytes\n");
    printf("  commitments          %10zu\n", pt.commits);
    printf("  out-of-domain values %10zu\n", pt.ood);
    printf("  final polynomial     %10zu\n", pt.final);
    printf("  trace openings       %10zu\n", pt.trace_q);
    printf("  quotient openings    %10zu\n", pt.chunk_q);
    printf("  FRI openings         %10zu\n", pt.fri_q);
    printf("  header and framing   %10zu\n", L->bytes - pt.total);
}

static void print_multi(const cli_loaded *L, int all) {
    printf("  %-5s %-40s %6s %6s %5s %6s %10s\n", "table", "statement", "rows", "cols", "aux",
           "chunks", "bytes");
    size_t sum = 0;
    for (uint32_t i = 0; i < L->n; i++) {
        const gs_proof *p = &L->tables[i];
        char d[sizeof p->air_desc];
        cli_safe(d, sizeof d, p->air_desc);
        cli_parts pt;
        pt = gs_proof_table_parts(p);
        sum += pt.total;
        printf("  %-5u %-40s   2^%-2u %6u %5u %6u %10zu\n", i, d, p->log_n, p->table.num_cols,
               p->table.aux_cols, p->table.num_chunks, pt.total);
    }
    if (L->mp && L->mp->fri) {
        const gs_shared_fri *f = L->mp->fri;
        cli_parts pt = gs_multi_proof_fri_parts(L->mp);
        sum += pt.total;
        printf("  shared FRI: %u layers, final polynomial %u coefficients, %u queries on 2^%u "
               "points\n", f->num_layers, f->final_len, f->num_queries, f->log_lde);
        printf("    commitments %zu, final polynomial %zu, openings and positions %zu, total %zu bytes\n",
               pt.commits, pt.final, pt.fri_q, pt.total);
        if (f->tree_paths[0])
            printf("    shared trees' paths: trace %zu, chunks %zu, aux %zu bytes (in the total; their "
                   "roots in the commitments)\n", pt.trace_q, pt.chunk_q, pt.aux_q);
    }
    printf("  header and framing %zu bytes\n", L->bytes - sum);
    for (uint32_t i = 0; i < L->n; i++) {
        const gs_proof *p = &L->tables[i];
        if (!p->num_public) continue;
        printf("  table %u public ", i);
        cli_print_pub(stdout, p->pub, p->num_public, all);
        printf("\n");
    }
}

int cli_inspect(int argc, char **argv) {
    int verbose = 0, json = 0, c, rc = CLI_OK;
    while (rc == CLI_OK && (c = cli_getopt(argc, argv, "vh", inspect_opts)) != -1) {
        switch (c) {
        case 'v': verbose = 1; break;
        case OPT_JSON: json = 1; break;
        case 'h': cli_help_command(stdout, "inspect"); return CLI_OK;
        default: rc = CLI_USAGE; break;
        }
    }
    if (rc != CLI_OK) return rc;
    if (optind + 1 != argc) {
        cli_err("give one proof file (see 'gstark inspect --help')");
        return CLI_USAGE;
    }
    const char *path = argv[optind];
    uint8_t *buf = NULL;
    size_t len = 0;
    rc = cli_read_input("proof file", path, &buf, &len, CLI_MAX_PROOF_BYTES);
    if (rc != CLI_OK) return rc;
    if (cli_zkvm_is_proof(buf, len)) {
        rc = cli_zkvm_inspect(path, buf, len, verbose, json);
        free(buf);
        return rc;
    }
    cli_loaded L;
    rc = cli_load_buf(&L, path, buf, len, CLI_USAGE);
    free(buf);
    if (rc != CLI_OK) {
        cli_loaded_free(&L);
        return rc;
    }
    const gs_params *q = L.params;
    if (json) {
        printf("{\"command\":\"inspect\",\"file\":");
        cli_json_str(stdout, path);
        printf(",\"bytes\":%zu,\"format_version\":%u,\"multi\":%s,", L.bytes,
               L.version, L.multi ? "true" : "false");
        cli_json_proof(stdout, &L, 1);
        printf("}\n");
    } else {
        char sec[96], hex[65];
        cli_security_str(sec, sizeof sec, L.conjectured, L.provable);
        cli_hex(hex, &L.statement);
        if (L.multi)
            printf("gstark multi-table proof, format version %u, %u tables, %zu bytes\n",
                   L.version, L.n, L.bytes);
        else
            printf("gstark proof, format version %u, %zu bytes\n", L.version, L.bytes);
        cli_print_params(q);
        printf("  hash        %s (Merkle commitments and transcript)\n", cli_hash_name(q->hash));
        printf("  security    %s\n", sec);
        printf("  digest      %s (the statement; verify --statement pins it)\n", hex);
        if (L.multi) print_multi(&L, verbose);
        else print_single(&L, verbose);
    }
    cli_loaded_free(&L);
    return CLI_OK;
}
