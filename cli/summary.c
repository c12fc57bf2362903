/* What gstark prove prints once the proof is written: a human summary (on
 * stdout, or stderr when stdout carries the proof or the JSON) or one JSON
 * object on stdout. */
#include <stdint.h>
#include <string.h>

#include "cli.h"

static void human(FILE *f, const cli_proved *x, const cli_loaded *L, int all) {
    const gs_params *q = L->params;
    const gs_prove_stats *st = x->st;
    char sec[96], hex[65], b1[32], b2[32];
    cli_security_str(sec, sizeof sec, L->conjectured, L->provable);
    cli_hex(hex, &L->statement);
    if (L->multi)
        fprintf(f, "proved %s: %u tables, %zu cells\n", x->name, L->n, x->cells);
    else
        fprintf(f, "proved %s: %u columns x 2^%u rows\n", x->name, L->tables->table.num_cols,
                L->tables->log_n);
    if (x->extra) x->extra(f, 0, x->extra_ctx);
    fprintf(f, "  security   %s; blowup %u, %u queries, %u grinding bits\n", sec,
            1u << q->log_blowup, q->num_queries, q->grinding_bits);
    fprintf(f, "  hash       %s\n", cli_hash_name(q->hash));
    fprintf(f, "  statement  %s\n", hex);
    for (uint32_t i = 0; i < L->n && (all || !x->extra); i++) {
        const gs_proof *p = &L->tables[i];
        if (L->multi && !p->num_public) continue;
        if (L->multi) fprintf(f, "  table %u public ", i);
        else fprintf(f, "  public     ");
        cli_print_pub(f, p->pub, p->num_public, all);
        fputc('\n', f);
    }
    if (L->multi)
        fprintf(f, "  trace %.3f s, prove %.3f s (check %.3f, commit %.3f, then summed over "
                   "tables: quotient %.3f, ood %.3f, deep %.3f, fri %.3f, queries %.3f), "
                   "%.2f Mcells/s\n",
                x->trace_s, st->total, st->check, st->commit, st->quotient, st->ood, st->deep,
                st->fri, st->queries, (double)x->cells / st->total / 1e6);
    else
        fprintf(f, "  trace %.3f s, prove %.3f s (commit %.3f, quotient %.3f, ood %.3f, deep "
                   "%.3f, fri %.3f, queries %.3f), %.2f Mcells/s\n",
                x->trace_s, st->total, st->commit, st->quotient, st->ood, st->deep, st->fri,
                st->queries, (double)x->cells / st->total / 1e6);
    cli_size_str(b1, sizeof b1, st->peak_bytes);
    cli_size_str(b2, sizeof b2, st->input_bytes);
    fprintf(f, "  memory     peak %s charged + %s of input traces", b1, b2);
    if (L->multi) {
        cli_size_str(b1, sizeof b1, st->gate_peak_bytes);
        fprintf(f, ", gate peak %s", b1);
    }
    cli_size_str(b1, sizeof b1, st->mem_budget);
    fprintf(f, ", budget %s", b1);
    if (st->budget_overruns) {
        cli_size_str(b1, sizeof b1, st->mem_need_bytes);
        cli_size_str(b2, sizeof b2, st->budget_over_bytes);
        fprintf(f, "; %u table%s over it (the largest needs %s alone), %s over", st->budget_overruns,
                st->budget_overruns == 1 ? "" : "s", b1, b2);
    }
    fputc('\n', f);
    cli_print_backend(f, st);
    fprintf(f, "  wrote %s (%zu bytes)\n", cli_out_is_stdout(x->out) ? "standard output" : x->out,
            x->bytes);
}

static void json(const cli_proved *x, const cli_loaded *L) {
    const gs_prove_stats *st = x->st;
    printf("{\"command\":\"prove\",\"name\":");
    cli_json_str(stdout, x->name);
    printf(",\"output\":");
    cli_json_str(stdout, x->out);
    printf(",\"bytes\":%zu,\"multi\":%s,", x->bytes, L->multi ? "true" : "false");
    cli_json_proof(stdout, L, 1);
    printf(",\"cells\":%zu,\"trace_seconds\":%.6f,\"prove_seconds\":%.6f,\"phases\":{\"check\":"
           "%.6f,\"commit\":%.6f,\"quotient\":%.6f,\"ood\":%.6f,\"deep\":%.6f,\"fri\":%.6f,"
           "\"queries\":%.6f},\"peak_bytes\":%zu,\"gate_peak_bytes\":%zu,\"backend\":",
           x->cells, x->trace_s, st->total, st->check, st->commit, st->quotient, st->ood,
           st->deep, st->fri, st->queries, st->peak_bytes, st->gate_peak_bytes);
    cli_json_str(stdout, st->backend ? st->backend : "");
    printf(",\"device_peak_bytes\":%zu,\"spill_peak_bytes\":%zu,\"cpu_fallbacks\":%u,\"mem_budget\":",
           st->device_peak_bytes, st->spill_peak_bytes, st->cpu_fallbacks);
    if (st->mem_budget == SIZE_MAX) printf("null");
    else printf("%zu", st->mem_budget);
    printf(",\"input_bytes\":%zu,\"mem_need_bytes\":%zu,\"budget_overruns\":%u,"
           "\"budget_over_bytes\":%zu",
           st->input_bytes, st->mem_need_bytes, st->budget_overruns, st->budget_over_bytes);
    if (x->extra) x->extra(stdout, 1, x->extra_ctx);
    printf("}\n");
}

void cli_print_proved(const cli_print *pr, const cli_proved *x) {
    cli_loaded L;
    cli_loaded_view(&L, x->single, x->mp, x->bytes);
    if (pr->json) json(x, &L);
    else if (pr->human) human(pr->human, x, &L, pr->verbose);
}
