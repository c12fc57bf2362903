/* A proof file as verify and inspect see it: single- or multi-table, with
 * the statement digest and both security levels asked of the library. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_load(cli_loaded *L, const char *path, int malformed) {
    memset(L, 0, sizeof *L);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = cli_read_input("proof file", path, &buf, &len, CLI_MAX_PROOF_BYTES);
    if (rc != CLI_OK) return rc;
    rc = cli_load_buf(L, path, buf, len, malformed);
    free(buf);
    return rc;
}

int cli_load_buf(cli_loaded *L, const char *path, const uint8_t *buf, size_t len, int malformed) {
    memset(L, 0, sizeof *L);
    const char *name = strcmp(path, "-") ? path : "standard input";
    L->bytes = len;
    uint32_t version = gs_proof_file_version(buf, len);
    if (version > GS_PROOF_VERSION_COMPACT) {
        cli_err("%s: proof format version %u is newer than this gstark reads (versions 1 to %u)",
                name, version, GS_PROOF_VERSION_COMPACT);
        return malformed;
    }
    L->multi = gs_proof_file_kind(buf, len) == 2;
    gs_status s = L->multi ? gs_multi_proof_parse(&L->mp, buf, len)
                           : gs_proof_parse(&L->single, buf, len);
    int rc = cli_parse_result(name, s);
    if (rc != CLI_OK) return rc == CLI_REJECTED ? malformed : rc;
    cli_loaded_view(L, L->single, L->mp, len);
    L->version = version;
    return CLI_OK;
}

void cli_loaded_view(cli_loaded *L, gs_proof *single, gs_multi_proof *mp, size_t bytes) {
    memset(L, 0, sizeof *L);
    L->single = single, L->mp = mp, L->bytes = bytes, L->multi = mp != NULL;
    if (mp) {
        L->tables = mp->tables, L->n = mp->num_tables, L->params = &mp->params;
        L->statement = gs_multi_proof_statement_digest(mp);
        L->provable = gs_multi_proof_security_provable(mp);
    } else {
        L->tables = single, L->n = 1, L->params = &single->params;
        L->statement = gs_proof_statement_digest(single);
        L->provable = gs_proof_security_provable(single);
    }
    L->conjectured = gs_params_security(L->params);
}

void cli_loaded_free(cli_loaded *L) {
    gs_proof_free(L->single);
    gs_multi_proof_free(L->mp);
    memset(L, 0, sizeof *L);
}

void cli_loaded_name(char *out, size_t cap, const cli_loaded *L) {
    const char *d = L->tables[0].air_desc;
    size_t keep = strlen(d);
    if (L->multi) {
        /* The words every table's description shares ("synth preset=vm
         * shrink=4" of "synth preset=vm shrink=4 table=I"). */
        int differ = 0;
        for (uint32_t i = 1; i < L->n; i++) {
            size_t k = 0;
            while (k < keep && L->tables[i].air_desc[k] == d[k]) k++;
            keep = k;
            differ |= strcmp(L->tables[i].air_desc, d) != 0;
        }
        if (differ) {
            while (keep && d[keep - 1] != ' ') keep--;
            while (keep && d[keep - 1] == ' ') keep--;
        }
    }
    char tmp[sizeof L->tables[0].air_desc];
    memcpy(tmp, d, keep);
    tmp[keep] = '\0';
    cli_safe(out, cap, keep ? tmp : "(no description)");
}

void cli_json_proof(FILE *f, const cli_loaded *L, int parts) {
    const gs_params *q = L->params;
    char hex[65];
    fprintf(f, "\"tables\":[");
    for (uint32_t i = 0; i < L->n; i++) {
        const gs_proof *p = &L->tables[i];
        cli_hex(hex, &p->air_fingerprint);
        fprintf(f, "%s{\"air_desc\":", i ? "," : "");
        cli_json_str(f, p->air_desc);
        fprintf(f, ",\"fingerprint\":\"%s\",\"log_rows\":%u,\"cols\":%u,\"aux_cols\":%u,"
                   "\"public\":", hex, p->log_n, p->table.num_cols, p->table.aux_cols);
        cli_json_pub(f, p->pub, p->num_public);
        if (parts) {
            cli_parts pt;
            pt = gs_proof_table_parts(p);
            fprintf(f, ",\"chunks\":%u,\"fri_layers\":%u,\"queries_drawn\":%u,\"leaf_rows\":%u,\"bytes\":%zu",
                    p->table.num_chunks, p->table.num_layers, p->table.num_queries, 1u << pt.leaf_rows_log,
                    pt.total);
        }
        fputc('}', f);
    }
    cli_hex(hex, &L->statement);
    fprintf(f, "],\"security_bits\":%u,\"provable_bits\":%u,\"params\":{\"blowup\":%u,"
               "\"queries\":%u,\"grinding_bits\":%u,\"log_final\":%u,\"fold\":%u,"
               "\"hash\":\"%s\",\"cap_height\":%u,\"coset_leaves\":%u},\"statement\":\"%s\"",
            L->conjectured, L->provable, 1u << q->log_blowup, q->num_queries, q->grinding_bits,
            q->log_final, 1u << q->log_arity, cli_hash_name(q->hash), q->cap_height, q->coset_leaves, hex);
    if (L->mp && L->mp->fri) { /* one FRI for all tables: its shape and bytes */
        const gs_shared_fri *sf = L->mp->fri;
        fprintf(f, ",\"shared_fri\":{\"layers\":%u,\"final_len\":%u,\"queries_drawn\":%u,\"bytes\":%zu}",
                sf->num_layers, sf->final_len, sf->num_queries, gs_multi_proof_fri_parts(L->mp).total);
    }
}
