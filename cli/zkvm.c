/* The zkVM's proofs from the command line: gstark prove --elf (a program's
 * run, executed and proven by gs_zkvm_prove), and verify and inspect on the
 * file that makes ("GSZKVM01": the input, the two outputs, the tables'
 * multi-table proof). verify checks a run's proof against the program the
 * user gives (--elf), never against anything the file says of its program,
 * and prints what it proves: the program's fingerprint, the input, the
 * output (fd 1's bytes on stdout, fd 2's on stderr, as gstark run does),
 * the exit code and the cycle count (docs/zkvm.md, "Proving from the
 * command line"). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_zkvm_is_proof(const uint8_t *buf, size_t len) {
    return len >= 8 && !memcmp(buf, "GSZKVM01", 8);
}

int cli_zkvm_load(gs_zkvm_program **p, const char *path) {
    *p = NULL;
    uint8_t *elf = NULL;
    size_t len = 0;
    int rc = cli_read_input("ELF file", path, &elf, &len, GS_ZKVM_MAX_ELF_BYTES);
    if (rc != CLI_OK) return rc;
    char msg[256];
    gs_status s = gs_zkvm_load_elf(p, msg, sizeof msg, elf, len);
    free(elf);
    if (s == GS_OK) return CLI_OK;
    const char *name = strcmp(path, "-") ? path : "standard input";
    if (s == GS_ERR_INVALID_ARG) cli_err("%s: not a program for the zkVM: %s", name, msg);
    else cli_err("%s: %s", name, gs_status_str(s));
    return CLI_USAGE;
}

/* ---- what a run's proof states ---- */

/* A state: pc, clk, input position and the registers (all zero, or their
 * digest; each with verbose). */
static void state_human(FILE *f, int w, const char *label, const gs_zkvm_state *s, const char *how,
                        int verbose) {
    int zero = 1;
    for (unsigned r = 0; r < 32; r++) zero &= s->regs[r] == 0;
    char h[65];
    gs_digest d = gs_zkvm_regs_digest(s->regs);
    cli_hex(h, &d);
    fprintf(f, "  %-*s pc 0x%08" PRIx32 " at clk %" PRIu64 "%s, input at byte %" PRIu64
               ", registers %s%s\n",
            w, label, s->pc, s->clk, how, s->input_pos, zero ? "all zero" : "digest ", zero ? "" : h);
    for (unsigned r = 0; verbose && !zero && r < 32; r += 4)
        fprintf(f, "  %-*s x%-2u %08" PRIx32 "  x%-2u %08" PRIx32 "  x%-2u %08" PRIx32 "  x%-2u %08" PRIx32
                   "\n",
                w, "", r, s->regs[r], r + 1, s->regs[r + 1], r + 2, s->regs[r + 2], r + 3, s->regs[r + 3]);
}

static void states_human(FILE *f, int w, const gs_zkvm_claim *c, int verbose) {
    int reset = c->start.pc == c->entry && c->start.clk == 0 && c->start.input_pos == 0;
    for (unsigned r = 0; r < 32; r++) reset &= c->start.regs[r] == 0;
    char how[64];
    if (c->exited) snprintf(how, sizeof how, " (exited with code %" PRIu32 ")", c->exit_code);
    else snprintf(how, sizeof how, " (stopped: not an exit)");
    state_human(f, w, "start", &c->start, reset ? " (the reset state)" : "", verbose);
    state_human(f, w, "end", &c->end, how, verbose);
}

static void state_json(FILE *f, const char *key, const gs_zkvm_state *s) {
    char h[65];
    gs_digest d = gs_zkvm_regs_digest(s->regs);
    cli_hex(h, &d);
    fprintf(f, ",\"%s\":{\"pc\":%" PRIu32 ",\"clk\":%" PRIu64 ",\"input_pos\":%" PRIu64
               ",\"regs_digest\":\"%s\",\"regs\":[",
            key, s->pc, s->clk, s->input_pos, h);
    for (unsigned r = 0; r < 32; r++) fprintf(f, "%s%" PRIu32, r ? "," : "", s->regs[r]);
    fprintf(f, "]}");
}

static void claim_human(FILE *f, const gs_zkvm_claim *c, const gs_zkvm_proof *zp, int verbose) {
    char h[65];
    cli_hex(h, &c->program);
    fprintf(f, "  program    %s (entry 0x%08" PRIx32 ")\n", h, c->entry);
    cli_hex(h, &c->input);
    fprintf(f, "  input      %" PRIu64 " bytes, digest %s\n", zp->in_len, h);
    cli_hex(h, &c->output);
    fprintf(f, "  output     %" PRIu64 " bytes to fd 1, %" PRIu64 " to fd 2, digest %s\n",
            zp->out_len[0], zp->out_len[1], h);
    states_human(f, 10, c, verbose);
}

/* ,"run":{...}: the claim, and with `bytes` the output's bytes as strings. */
static void claim_json(FILE *f, const gs_zkvm_claim *c, const gs_zkvm_proof *zp, int bytes) {
    char hp[65], hi[65], ho[65];
    cli_hex(hp, &c->program), cli_hex(hi, &c->input), cli_hex(ho, &c->output);
    fprintf(f, ",\"run\":{\"program\":\"%s\",\"entry\":%" PRIu32 ",\"exit_code\":%" PRIu32
               ",\"cycles\":%" PRIu64 ",\"input_bytes\":%" PRIu64 ",\"input_digest\":\"%s\","
               "\"output_bytes\":%" PRIu64 ",\"stderr_bytes\":%" PRIu64 ",\"output_digest\":\"%s\"",
            hp, c->entry, c->exit_code, c->cycles, zp->in_len, hi, zp->out_len[0], zp->out_len[1],
            ho);
    fprintf(f, ",\"exited\":%s", c->exited ? "true" : "false");
    state_json(f, "start", &c->start);
    state_json(f, "end", &c->end);
    if (bytes) {
        fprintf(f, ",\"output\":");
        cli_json_bytes(f, zp->out[0], (size_t)zp->out_len[0]);
        fprintf(f, ",\"stderr\":");
        cli_json_bytes(f, zp->out[1], (size_t)zp->out_len[1]);
    }
    fputc('}', f);
}

/* ---- gstark prove --elf ---- */

typedef struct proved_run {
    const gs_zkvm_claim *claim;
    const gs_zkvm_proof *zp;
    double wall; /* running and proving, seconds */
} proved_run;

static void proved_extra(FILE *f, int json, const void *ctx) {
    const proved_run *r = ctx;
    if (json) {
        claim_json(f, r->claim, r->zp, 0);
        fprintf(f, ",\"wall_seconds\":%.6f", r->wall);
        return;
    }
    fprintf(f, "  run        exit code %" PRIu32 " after %" PRIu64 " cycles; %.0f cycles/s proven "
               "(%.3f s, running and proving)\n",
            r->claim->exit_code, r->claim->cycles,
            r->wall > 0 ? (double)r->claim->cycles / r->wall : 0.0, r->wall);
    claim_human(f, r->claim, r->zp, 0);
}

/* A failed gs_zkvm_prove: the library's reason when it gave one. A run
 * that cannot be proven (a fault, too many cycles, too much input or
 * output) and parameter errors are the user's side (exit 2); the rest are
 * the prover's (exit 3). */
static int prove_failed(gs_status s, const gs_prove_stats *st, const char *msg) {
    if (s == GS_ERR_BUDGET || !msg[0]) return cli_prove_failed(s, st);
    cli_err("%s", msg);
    switch (s) {
    case GS_ERR_INVALID_ARG:
    case GS_ERR_UNSUPPORTED:
    case GS_ERR_PROOF_PARAMS:
    case GS_ERR_NO_DEVICE:
    case GS_ERR_AIR_DEGREE: return CLI_USAGE;
    default: return CLI_PROVER;
    }
}

int cli_zkvm_prove(const cli_zkvm_run *z, const gs_params *par, int no_check,
                   const cli_sched *sc, const char *out, const cli_print *pr) {
    gs_zkvm_program *prog = NULL;
    uint8_t *input = NULL, *bytes = NULL;
    size_t in_len = 0, len = 0;
    gs_zkvm_proof *zp = NULL;
    gs_obs *obs = NULL;
    int rc = cli_zkvm_load(&prog, z->elf);
    if (rc == CLI_OK && z->input)
        rc = cli_read_input("input", z->input, &input, &in_len, CLI_ZKVM_MAX_INPUT_READ);
    if (rc != CLI_OK) goto out;

    gs_status s = gs_obs_new(&obs);
    gs_prove_stats st = {0};
    gs_prove_opts opts = {.skip_check = no_check, .stats = &st, .obs = obs,
                          .tables_parallel = sc->tables_parallel, .mem_budget = sc->mem_budget,
                          .strict_budget = sc->strict_budget, .backend = sc->backend,
                          .no_fallback = sc->no_fallback, .device_mem_budget = sc->device_budget};
    gs_zkvm_claim claim;
    char msg[512] = "";
    cli_hush h = {-1, NULL};
    if (s == GS_OK && pr->quiet) cli_hush_begin(&h, obs);
    double t0 = cli_now();
    const uint64_t max_cycles = z->max_cycles ? z->max_cycles : CLI_ZKVM_MAX_CYCLES;
    /* --provable-security: the blowup and queries chosen for the run's tables */
    gs_zkvm_provable tg = {.bits = sc->provable, .min_log_blowup = sc->provable_min_log_blowup,
                           .max_log_blowup = sc->provable_max_log_blowup};
    if (s == GS_OK && sc->provable)
        s = gs_zkvm_prove_provable(&zp, &claim, prog, input, in_len, max_cycles, par, &tg, &opts, msg,
                                   sizeof msg);
    else if (s == GS_OK)
        s = gs_zkvm_prove(&zp, &claim, prog, input, in_len, max_cycles, par, &opts, msg, sizeof msg);
    double wall = cli_now() - t0;
    cli_hush_end(&h, obs);
    if (s != GS_OK) {
        rc = prove_failed(s, &st, msg);
    } else if ((s = gs_zkvm_proof_serialize(&bytes, &len, zp)) != GS_OK) {
        cli_err("serializing the proof: %s", gs_status_str(s));
        rc = CLI_PROVER;
    } else {
        rc = cli_out_write(out, bytes, len);
    }
    if (rc == CLI_OK) rc = cli_write_obs_files(sc, obs);
    if (rc == CLI_OK) {
        char name[300], safe[256];
        cli_safe(safe, sizeof safe, strcmp(z->elf, "-") ? z->elf : "standard input");
        snprintf(name, sizeof name, "zkvm run of %s", safe);
        size_t cells = 0;
        for (uint32_t i = 0; i < zp->proof->num_tables; i++)
            cells += (size_t)zp->proof->tables[i].table.num_cols << zp->proof->tables[i].log_n;
        proved_run r = {.claim = &claim, .zp = zp, .wall = wall};
        /* Running the program and building the traces: everything before
         * the tables' proof. */
        double trace_s = wall > st.total ? wall - st.total : 0;
        cli_proved x = {.name = name, .mp = zp->proof, .st = &st, .trace_s = trace_s,
                        .cells = cells, .out = out, .bytes = len, .extra = proved_extra,
                        .extra_ctx = &r};
        cli_print_proved(pr, &x);
        if (sc->report) {
            FILE *f = pr->human ? pr->human : cli_out_is_stdout(out) || pr->json ? stderr : stdout;
            gs_obs_report(obs, f);
        }
    }
out:
    gs_obs_free(obs);
    free(bytes);
    gs_zkvm_proof_free(zp);
    free(input);
    gs_zkvm_program_free(prog);
    return rc;
}

/* ---- gstark verify on a run's proof ---- */

static void verify_human(FILE *f, const char *elf, const gs_zkvm_claim *c,
                         const gs_zkvm_proof *zp, const cli_loaded *L, double ms, int all) {
    char sec[96], hex[65], name[256];
    cli_safe(name, sizeof name, strcmp(elf, "-") ? elf : "standard input");
    cli_security_str(sec, sizeof sec, L->conjectured, L->provable);
    cli_hex(hex, &L->statement);
    fprintf(f, "valid: a run of %s: exit code %" PRIu32 " after %" PRIu64 " cycles\n", name,
            c->exit_code, c->cycles);
    claim_human(f, c, zp, all);
    fprintf(f, "  proof      %u tables, %zu bytes\n", L->n, L->bytes);
    for (uint32_t i = 0; all && i < L->n; i++) {
        const gs_proof *p = &L->tables[i];
        char d[sizeof p->air_desc];
        cli_safe(d, sizeof d, p->air_desc);
        fprintf(f, "  table %-4u %s: 2^%u rows x %u columns\n", i, d, p->log_n, p->table.num_cols);
    }
    fprintf(f, "  security   %s\n", sec);
    fprintf(f, "  hash       %s\n", cli_hash_name(L->params->hash));
    fprintf(f, "  statement  %s\n", hex);
    fprintf(f, "  verified in %.1f ms\n", ms);
}

/* Writes the run's output: fd 1's bytes on stdout, exactly; fd 2's on
 * stderr. */
static int write_streams(const gs_zkvm_proof *zp) {
    size_t n1 = (size_t)zp->out_len[0], n2 = (size_t)zp->out_len[1];
    if ((n1 && fwrite(zp->out[0], 1, n1, stdout) != n1) || fflush(stdout) != 0) {
        cli_err("writing the output: %s", strerror(errno));
        return CLI_USAGE;
    }
    if (n2) fwrite(zp->out[1], 1, n2, stderr);
    return CLI_OK;
}

int cli_zkvm_verify(const char *path, const uint8_t *buf, size_t len, const cli_zkvm_check *c,
                    const cli_print *pr) {
    const char *name = strcmp(path, "-") ? path : "standard input";
    gs_zkvm_program *prog = NULL;
    gs_zkvm_proof *zp = NULL;
    uint8_t *input = NULL;
    size_t in_len = 0;
    /* The verifier's own program and input first: a usage error is one
     * whatever the proof. */
    int rc = cli_zkvm_load(&prog, c->elf);
    if (rc == CLI_OK && c->input)
        rc = cli_read_input("input", c->input, &input, &in_len, CLI_ZKVM_MAX_INPUT_READ);
    if (rc == CLI_OK) rc = cli_parse_result(name, gs_zkvm_proof_parse(&zp, buf, len));
    if (rc != CLI_OK) {
        free(input);
        gs_zkvm_program_free(prog);
        return rc;
    }
    cli_loaded L;
    cli_loaded_view(&L, NULL, zp->proof, len);
    gs_zkvm_claim claim;
    memset(&claim, 0, sizeof claim);
    char reason[600] = "";
    gs_status s = GS_OK;
    double ms = 0;
    int statement_ok = 1, checked = 0;
    if (c->input && (in_len != zp->in_len || (in_len && memcmp(input, zp->input, in_len)))) {
        char want[65], got[65];
        gs_digest dw = gs_zkvm_input_digest(input, in_len);
        gs_digest dg = gs_zkvm_input_digest(zp->input, zp->in_len);
        cli_hex(want, &dw), cli_hex(got, &dg);
        snprintf(reason, sizeof reason,
                 "input mismatch: the proof is of a run on %" PRIu64 " bytes of input (digest "
                 "%s), --input has %zu bytes (digest %s)",
                 zp->in_len, got, in_len, want);
        statement_ok = 0;
        rc = CLI_REJECTED;
    } else {
        char msg[512] = "";
        double t0 = cli_now();
        s = gs_zkvm_verify(&claim, prog, zp, c->min_bits, msg, sizeof msg);
        ms = 1e3 * (cli_now() - t0);
        checked = 1;
        if (s != GS_OK) {
            snprintf(reason, sizeof reason, "%s", msg[0] ? msg : gs_status_str(s));
            rc = s == GS_ERR_NOMEM || s == GS_ERR_INVALID_ARG ? CLI_USAGE : CLI_REJECTED;
        } else if (c->statement && memcmp(c->statement->b, L.statement.b, sizeof L.statement.b)) {
            char hex[65];
            cli_hex(hex, &L.statement);
            snprintf(reason, sizeof reason,
                     "statement mismatch: expected statement %s, the proof's is %s",
                     c->statement_text, hex);
            statement_ok = 0;
            rc = CLI_REJECTED;
        }
    }
    if (pr->json && rc != CLI_USAGE) {
        printf("{\"command\":\"verify\",\"file\":");
        cli_json_str(stdout, path);
        /* valid: null when the proof was not checked (its input already
         * differed from --input). */
        printf(",\"valid\":%s,\"statement_matches\":%s,\"accepted\":%s,\"error\":",
               !checked ? "null" : s == GS_OK ? "true" : "false",
               statement_ok && s != GS_ERR_PROOF_STATEMENT ? "true" : "false",
               rc == CLI_OK ? "true" : "false");
        if (reason[0]) cli_json_str(stdout, reason);
        else printf("null");
        printf(",\"multi\":true,\"zkvm\":true,");
        cli_json_proof(stdout, &L, 0);
        if (rc == CLI_OK) claim_json(stdout, &claim, zp, 1);
        printf(",\"seconds\":%.6f}\n", ms / 1e3);
    } else if (rc != CLI_OK) {
        if (reason[0] && rc == CLI_REJECTED) fprintf(stderr, "rejected: %s\n", reason);
        else if (reason[0]) cli_err("%s", reason);
    } else if (!pr->quiet) {
        rc = write_streams(zp);
        if (rc == CLI_OK) verify_human(stderr, c->elf, &claim, zp, &L, ms, pr->verbose);
    }
    gs_zkvm_proof_free(zp);
    free(input);
    gs_zkvm_program_free(prog);
    return rc;
}

/* ---- gstark inspect on a run's proof ---- */

int cli_zkvm_inspect(const char *path, const uint8_t *buf, size_t len, int verbose, int json) {
    const char *name = strcmp(path, "-") ? path : "standard input";
    gs_zkvm_proof *zp = NULL;
    int rc = cli_parse_result(name, gs_zkvm_proof_parse(&zp, buf, len));
    if (rc != CLI_OK) return rc == CLI_REJECTED ? CLI_USAGE : rc;
    cli_loaded L;
    cli_loaded_view(&L, NULL, zp->proof, len);
    /* The digests of the bytes the file carries: what the proof states of
     * its input and output if it verifies (inspect does not verify). */
    gs_digest din = gs_zkvm_input_digest(zp->input, zp->in_len);
    gs_digest dout = gs_zkvm_output_digest(zp->out[0], zp->out_len[0], zp->out[1], zp->out_len[1]);
    char hi[65], ho[65], hs[65], hp[65], sec[96];
    cli_hex(hi, &din), cli_hex(ho, &dout), cli_hex(hs, &L.statement);
    gs_zkvm_claim claim = {0}; /* what the proof claims (not verified) */
    int has_claim = gs_zkvm_proof_claim(&claim, zp) == GS_OK;
    cli_hex(hp, &claim.program);
    const gs_params *q = L.params;
    size_t sum = 0;
    if (json) {
        printf("{\"command\":\"inspect\",\"file\":");
        cli_json_str(stdout, path);
        printf(",\"bytes\":%zu,\"format\":\"GSZKVM01\",\"multi\":true,\"zkvm\":true,", len);
        cli_json_proof(stdout, &L, 1);
        printf(",\"run\":{\"input_bytes\":%" PRIu64 ",\"input_digest\":\"%s\",\"output_bytes\":%" PRIu64
               ",\"stderr_bytes\":%" PRIu64 ",\"output_digest\":\"%s\"",
               zp->in_len, hi, zp->out_len[0], zp->out_len[1], ho);
        if (has_claim) {
            printf(",\"claimed_exit_code\":%" PRIu32 ",\"claimed_cycles\":%" PRIu64
                   ",\"claimed_program\":\"%s\",\"claimed_exited\":%s", claim.exit_code, claim.cycles, hp,
                   claim.exited ? "true" : "false");
            state_json(stdout, "claimed_start", &claim.start);
            state_json(stdout, "claimed_end", &claim.end);
        }
        printf("}}\n");
        goto out;
    }
    cli_security_str(sec, sizeof sec, L.conjectured, L.provable);
    printf("gstark zkVM run proof (GSZKVM01), %u tables, %zu bytes\n", L.n, len);
    cli_print_params(q);
    printf("  hash        %s (Merkle commitments and transcript)\n", cli_hash_name(q->hash));
    printf("  security    %s\n", sec);
    printf("  digest      %s (the statement; verify --statement pins it)\n", hs);
    printf("  input       %" PRIu64 " bytes, digest %s\n", zp->in_len, hi);
    printf("  output      %" PRIu64 " bytes to fd 1, %" PRIu64 " to fd 2, digest %s\n",
           zp->out_len[0], zp->out_len[1], ho);
    if (has_claim) {
        if (claim.exited)
            printf("  claims      exit code %" PRIu32 " after %" PRIu64 " cycles, program %s\n",
                   claim.exit_code, claim.cycles, hp);
        else
            printf("  claims      no exit: stopped after %" PRIu64 " cycles, program %s\n", claim.cycles, hp);
        states_human(stdout, 11, &claim, verbose);
    }
    printf("  %-5s %-16s %6s %6s %5s %6s %10s\n", "table", "name", "rows", "cols", "aux", "public",
           "bytes");
    for (uint32_t i = 0; i < L.n; i++) {
        const gs_proof *p = &L.tables[i];
        char d[sizeof p->air_desc];
        cli_safe(d, sizeof d, p->air_desc);
        cli_parts pt;
        pt = gs_proof_table_parts(p);
        sum += pt.total;
        printf("  %-5u %-16s   2^%-2u %6u %5u %6u %10zu\n", i, d, p->log_n, p->table.num_cols,
               p->table.aux_cols, p->num_public, pt.total);
    }
    printf("  input, output, header and framing %zu bytes\n", len - sum);
    for (uint32_t i = 0; i < L.n; i++) {
        const gs_proof *p = &L.tables[i];
        if (!p->num_public) continue;
        char d[sizeof p->air_desc];
        cli_safe(d, sizeof d, p->air_desc);
        printf("  %s public ", d);
        cli_print_pub(stdout, p->pub, p->num_public, verbose);
        printf("\n");
    }
    printf("  (not verified: 'gstark verify %s --elf PROGRAM' checks it against the program)\n",
           name);
out:
    gs_zkvm_proof_free(zp);
    return CLI_OK;
}
