/* gstark prove: options, their checks (all before any proving), and the
 * single-table proofs (fib, mix); cli/multi.c proves synth and cli/zkvm.c a
 * program's run (--elf). The proof header's air_desc names the AIR and its
 * shape ("fib" or "mix cols=C degree=D log_n=N seed=S") so that verify can
 * rebuild it. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

enum {
    OPT_AIR = 256, OPT_PRESET, OPT_SHRINK, OPT_TABLES_PARALLEL, OPT_MEM_BUDGET, OPT_STRICT_BUDGET,
    OPT_REPORT, OPT_METRICS, OPT_BACKEND, OPT_NO_FALLBACK, OPT_DEVICE_MEM_BUDGET, OPT_LOG_ROWS,
    OPT_COLS, OPT_DEGREE, OPT_SEED, OPT_BLOWUP, OPT_SECURITY, OPT_QUERIES, OPT_GRINDING, OPT_FRI_ARITY,
    OPT_FINAL_DEGREE, OPT_HASH, OPT_CAP_HEIGHT, OPT_SHARED_FRI, OPT_SHARED_TREES, OPT_COSET_LEAVES, OPT_COSET_LEAVES_ALL, OPT_NO_COSET_LEAVES, OPT_PROVABLE, OPT_ALLOW_SLOW, OPT_THREADS, OPT_NO_CHECK, OPT_JSON, OPT_ELF, OPT_INPUT,
    OPT_MAX_CYCLES, OPT_TIMELINE, OPT_START, OPT_END
};

static const struct option prove_opts[] = {
    {"air", required_argument, NULL, OPT_AIR},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"shrink", required_argument, NULL, OPT_SHRINK},
    {"tables-parallel", required_argument, NULL, OPT_TABLES_PARALLEL},
    {"mem-budget", required_argument, NULL, OPT_MEM_BUDGET},
    {"strict-budget", no_argument, NULL, OPT_STRICT_BUDGET},
    {"report", no_argument, NULL, OPT_REPORT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"timeline", required_argument, NULL, OPT_TIMELINE},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"no-fallback", no_argument, NULL, OPT_NO_FALLBACK},
    {"device-mem-budget", required_argument, NULL, OPT_DEVICE_MEM_BUDGET},
    {"log-rows", required_argument, NULL, OPT_LOG_ROWS},
    {"cols", required_argument, NULL, OPT_COLS},
    {"degree", required_argument, NULL, OPT_DEGREE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"start", required_argument, NULL, OPT_START},
    {"blowup", required_argument, NULL, OPT_BLOWUP},
    {"security", required_argument, NULL, OPT_SECURITY},
    {"provable-security", required_argument, NULL, OPT_PROVABLE},
    {"queries", required_argument, NULL, OPT_QUERIES},
    {"grinding", required_argument, NULL, OPT_GRINDING},
    {"fri-arity", required_argument, NULL, OPT_FRI_ARITY},
    {"final-degree", required_argument, NULL, OPT_FINAL_DEGREE},
    {"hash", required_argument, NULL, OPT_HASH},
    {"cap-height", required_argument, NULL, OPT_CAP_HEIGHT},
    {"shared-fri", no_argument, NULL, OPT_SHARED_FRI},
    {"shared-trees", no_argument, NULL, OPT_SHARED_TREES},
    {"coset-leaves", no_argument, NULL, OPT_COSET_LEAVES},
    {"coset-leaves-all", no_argument, NULL, OPT_COSET_LEAVES_ALL},
    {"no-coset-leaves", no_argument, NULL, OPT_NO_COSET_LEAVES},
    {"allow-slow", no_argument, NULL, OPT_ALLOW_SLOW},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"no-check", no_argument, NULL, OPT_NO_CHECK},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"json", no_argument, NULL, OPT_JSON},
    {"elf", required_argument, NULL, OPT_ELF},
    {"input", required_argument, NULL, OPT_INPUT},
    {"max-cycles", required_argument, NULL, OPT_MAX_CYCLES},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* The statements: a built-in AIR (--air) or a program's run (--elf). */
enum { AIR_FIB = 1, AIR_MIX = 2, AIR_SYNTH = 4, AIR_ZKVM = 8 };
static const char *const air_names[] = {"", "fib", "mix", "", "synth", "", "", "", "--elf"};

/* The statements each statement- or scheduler-specific option applies to;
 * the rest apply to every one. */
static const struct {
    int opt;
    unsigned airs;
} applies[] = {
    {OPT_LOG_ROWS, AIR_FIB | AIR_MIX}, {OPT_COLS, AIR_MIX},         {OPT_DEGREE, AIR_MIX},
    {OPT_SEED, AIR_MIX | AIR_SYNTH},   {OPT_PRESET, AIR_SYNTH},     {OPT_SHRINK, AIR_SYNTH},
    {OPT_START, AIR_FIB},
    {OPT_PROVABLE, AIR_FIB | AIR_MIX | AIR_SYNTH | AIR_ZKVM},
    {OPT_TABLES_PARALLEL, AIR_SYNTH | AIR_ZKVM}, {OPT_REPORT, AIR_SYNTH | AIR_ZKVM},
    {OPT_METRICS, AIR_SYNTH | AIR_ZKVM}, {OPT_SHARED_FRI, AIR_SYNTH | AIR_ZKVM},
    {OPT_SHARED_TREES, AIR_SYNTH | AIR_ZKVM},
    {OPT_INPUT, AIR_ZKVM}, {OPT_MAX_CYCLES, AIR_ZKVM},
};

typedef struct prove_args {
    unsigned char given[OPT_END - 256];
    const char *air, *out, *preset, *metrics, *timeline, *backend, *elf, *input;
    gs_hash_id hash; /* --hash: the commitments' and the transcript's hash */
    unsigned long shrink, tables_parallel, log_rows, cols, degree, seed, blowup, security, queries,
        grinding, threads, max_cycles, fri_arity, final_degree, provable, cap_height;
    size_t mem_budget, dev_budget;
    unsigned long start[2]; /* --start: fib's first row */
    int strict_budget, report, no_fallback, allow_slow, no_check, shared_fri, coset_leaves;
    cli_print pr;
} prove_args;

/* --start A,B: two field elements (0..p-1), decimal. */
static int parse_start(const char *name, const char *v, unsigned long out[2]) {
    const char *comma = strchr(v, ',');
    char first[32];
    size_t len = comma ? (size_t)(comma - v) : 0;
    if (!comma || len >= sizeof first || strchr(comma + 1, ',')) {
        cli_err("%s needs two field elements A,B (fib's first row; got '%s')", name, v);
        return 0;
    }
    memcpy(first, v, len);
    first[len] = '\0';
    return cli_parse_uint(name, first, 0, GS_FP_P - 1, &out[0]) &&
           cli_parse_uint(name, comma + 1, 0, GS_FP_P - 1, &out[1]);
}

/* Parses the options; CLI_OK, or CLI_USAGE (message printed), or -1 after
 * printing the help. */
static int parse(prove_args *a, int argc, char **argv) {
    int c;
    while ((c = cli_getopt(argc, argv, "o:qvh", prove_opts)) != -1) {
        const char *name = cli_opt_name(prove_opts, c);
        if (c >= 256) a->given[c - 256] = 1;
        int ok = 1;
        switch (c) {
        case OPT_AIR: a->air = optarg; break;
        case OPT_PRESET: a->preset = optarg; break;
        case OPT_SHRINK: ok = cli_parse_uint(name, optarg, 0, GS_SYNTH_MAX_SHRINK, &a->shrink); break;
        case OPT_TABLES_PARALLEL: ok = cli_parse_uint(name, optarg, 1, 256, &a->tables_parallel); break;
        case OPT_MEM_BUDGET: ok = cli_parse_size(name, optarg, &a->mem_budget); break;
        case OPT_STRICT_BUDGET: a->strict_budget = 1; break;
        case OPT_REPORT: a->report = 1; break;
        case OPT_METRICS: a->metrics = optarg; break;
        case OPT_TIMELINE: a->timeline = optarg; break;
        case OPT_BACKEND: a->backend = optarg; break;
        case OPT_NO_FALLBACK: a->no_fallback = 1; break;
        case OPT_DEVICE_MEM_BUDGET:
            ok = cli_parse_size(name, optarg, &a->dev_budget);
            if (ok && !a->dev_budget) {
                cli_err("%s needs a size above 0", name);
                ok = 0;
            }
            break;
        case OPT_LOG_ROWS: ok = cli_parse_uint(name, optarg, 1, 30, &a->log_rows); break;
        case OPT_COLS: ok = cli_parse_uint(name, optarg, 1, GS_AIRS_MIX_MAX_COLS, &a->cols); break;
        case OPT_DEGREE:
            ok = cli_parse_uint(name, optarg, GS_AIRS_MIX_MIN_DEGREE, GS_AIRS_MIX_MAX_DEGREE,
                                &a->degree);
            break;
        case OPT_SEED: ok = cli_parse_uint(name, optarg, 0, ~0ul, &a->seed); break;
        case OPT_START: ok = parse_start(name, optarg, a->start); break;
        case OPT_BLOWUP:
            ok = cli_parse_uint(name, optarg, 2, 64, &a->blowup);
            if (ok && (a->blowup & (a->blowup - 1))) {
                cli_err("--blowup must be a power of two: 2, 4, 8, 16, 32 or 64 (got %lu)",
                        a->blowup);
                ok = 0;
            }
            break;
        case OPT_SECURITY: ok = cli_parse_uint(name, optarg, 1, 100000, &a->security); break;
        case OPT_PROVABLE: ok = cli_parse_uint(name, optarg, 1, GS_MAX_SECURITY_BITS, &a->provable); break;
        case OPT_QUERIES: ok = cli_parse_uint(name, optarg, 1, 1024, &a->queries); break;
        case OPT_GRINDING: ok = cli_parse_uint(name, optarg, 0, 40, &a->grinding); break;
        case OPT_FRI_ARITY:
            ok = cli_parse_uint(name, optarg, 2, 1ul << GS_MAX_LOG_ARITY, &a->fri_arity);
            if (ok && (a->fri_arity & (a->fri_arity - 1))) {
                cli_err("--fri-arity must be 2, 4, 8 or 16 (got %lu)", a->fri_arity);
                ok = 0;
            }
            break;
        case OPT_HASH:
            if (!strcmp(optarg, "keccak") || !strcmp(optarg, "keccak256")) {
                a->hash = GS_HASH_KECCAK256;
            } else if (!strcmp(optarg, "poseidon2")) {
                a->hash = GS_HASH_POSEIDON2;
            } else {
                cli_err("--hash is keccak or poseidon2 (got '%s')", optarg);
                ok = 0;
            }
            break;
        case OPT_CAP_HEIGHT:
            ok = cli_parse_uint(name, optarg, 0, GS_MAX_CAP_HEIGHT, &a->cap_height);
            break;
        case OPT_SHARED_FRI: a->shared_fri = a->shared_fri ? a->shared_fri : 1; break;
        case OPT_SHARED_TREES: a->shared_fri = GS_SHARED_TREES; break;
        case OPT_COSET_LEAVES: a->coset_leaves = 1; break;
        case OPT_COSET_LEAVES_ALL: a->coset_leaves = 2; break;
        case OPT_NO_COSET_LEAVES: a->coset_leaves = -1; break;
        case OPT_FINAL_DEGREE:
            ok = cli_parse_uint(name, optarg, 1, 1ul << 20, &a->final_degree);
            if (ok && (a->final_degree & (a->final_degree - 1))) {
                cli_err("--final-degree must be a power of two, 1 .. 2^20 (got %lu)", a->final_degree);
                ok = 0;
            }
            break;
        case OPT_ALLOW_SLOW: a->allow_slow = 1; break;
        case OPT_THREADS: ok = cli_parse_uint(name, optarg, 1, 256, &a->threads); break;
        case OPT_NO_CHECK: a->no_check = 1; break;
        case OPT_JSON: a->pr.json = 1; break;
        case OPT_ELF: a->elf = optarg; break;
        case OPT_INPUT: a->input = optarg; break;
        case OPT_MAX_CYCLES:
            ok = cli_parse_uint(name, optarg, 1, ~0ul, &a->max_cycles);
            if (ok && a->max_cycles > CLI_ZKVM_MAX_CYCLES) {
                cli_err("--max-cycles %lu: one proof holds at most 2^%u - 1 = %lu cycles (the "
                        "zkVM's tallest table); longer runs need segmenting, which is not built "
                        "yet", a->max_cycles, GS_ZKVM_MAX_LOG_ROWS, (unsigned long)CLI_ZKVM_MAX_CYCLES);
                ok = 0;
            }
            break;
        case 'o': a->out = optarg; break;
        case 'q': a->pr.quiet = 1; break;
        case 'v': a->pr.verbose = 1; break;
        case 'h': cli_help_command(stdout, "prove"); return -1;
        default: return CLI_USAGE;
        }
        if (!ok) return CLI_USAGE;
    }
    if (optind < argc) {
        cli_err("unexpected argument '%s' (see 'gstark prove --help')", argv[optind]);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* Everything that can be known wrong before proving. */
static int check(prove_args *a, unsigned *air) {
    *air = a->elf ? AIR_ZKVM : !strcmp(a->air, "fib") ? AIR_FIB : !strcmp(a->air, "mix") ? AIR_MIX
         : !strcmp(a->air, "synth") ? AIR_SYNTH : 0;
    if (*air == AIR_ZKVM && a->given[OPT_AIR - 256]) {
        cli_err("--elf proves a program's run: not with --air (give one statement)");
        return CLI_USAGE;
    }
    if (!*air) {
        cli_err("unknown AIR '%s' (fib, mix or synth)", a->air);
        return CLI_USAGE;
    }
    for (size_t i = 0; i < sizeof applies / sizeof applies[0]; i++) {
        if (!a->given[applies[i].opt - 256] || (applies[i].airs & *air)) continue;
        char to[48] = "";
        for (unsigned k = AIR_FIB; k <= AIR_ZKVM; k <<= 1)
            if (applies[i].airs & k)
                snprintf(to + strlen(to), sizeof to - strlen(to), "%s%s", *to ? ", " : "",
                         air_names[k]);
        const char *opt = cli_opt_name(prove_opts, applies[i].opt);
        if (*air == AIR_ZKVM)
            cli_err("%s does not apply to --elf (a program's run; it applies to %s)", opt, to);
        else if (applies[i].airs == AIR_ZKVM)
            cli_err("%s applies only to a program's run (--elf), not to --air %s", opt, a->air);
        else
            cli_err("%s does not apply to --air %s (only to %s)", opt, a->air, to);
        return CLI_USAGE;
    }
    uint32_t tables;
    if (*air == AIR_SYNTH && gs_synth_preset_tables(&tables, a->preset) != GS_OK) {
        cli_err("unknown preset '%s' (vm, skew or uniform)", a->preset);
        return CLI_USAGE;
    }
    if (*air == AIR_FIB && a->log_rows > GS_AIRS_FIB_MAX_LOG_N) {
        cli_err("--log-rows for fib is at most %u", GS_AIRS_FIB_MAX_LOG_N);
        return CLI_USAGE;
    }
    if (*air == AIR_MIX && a->log_rows > GS_AIRS_MIX_MAX_LOG_N) {
        cli_err("--log-rows for mix is at most %u", GS_AIRS_MIX_MAX_LOG_N);
        return CLI_USAGE;
    }
    if (a->pr.quiet && (a->pr.verbose || a->pr.json)) {
        cli_err("--quiet prints nothing: not with %s", a->pr.verbose ? "--verbose" : "--json");
        return CLI_USAGE;
    }
    if (!a->out) {
        cli_err("where should the proof go? give -o FILE (or -o - for standard output)");
        return CLI_USAGE;
    }
    int to_stdout = cli_out_is_stdout(a->out);
    if (to_stdout && a->pr.json) {
        cli_err("-o - and --json both want standard output: write the proof to a file");
        return CLI_USAGE;
    }
    if (*air == AIR_ZKVM && a->input && !strcmp(a->input, "-") && !strcmp(a->elf, "-")) {
        cli_err("the ELF file and the input cannot both be standard input");
        return CLI_USAGE;
    }
    if (!cli_out_check("-o", a->out, 1)) return CLI_USAGE;
    if (a->metrics && !cli_out_check("--metrics", a->metrics, 0)) return CLI_USAGE;
    if (a->timeline && !cli_out_check("--timeline", a->timeline, 0)) return CLI_USAGE;
    /* No output may be an input or another output, however the paths are
     * written ("./f.proof", a hard link): found by review, 2026-12-04, when
     * "-o prog.elf" replaced the program and "--timeline ./f.proof" the proof. */
    const char *outs[3] = {a->out, a->metrics, a->timeline}, *out_names[3] = {"-o", "--metrics", "--timeline"};
    const char *ins[2] = {*air == AIR_ZKVM ? a->elf : NULL, *air == AIR_ZKVM ? a->input : NULL},
               *in_names[2] = {"--elf", "--input"};
    for (int i = 0; i < 3; i++) {
        if (!outs[i]) continue;
        for (int j = i + 1; j < 3; j++)
            if (outs[j] && cli_same_file(outs[i], outs[j])) {
                cli_err("%s and %s name the same file", out_names[j], out_names[i]);
                return CLI_USAGE;
            }
        for (int j = 0; j < 2; j++)
            if (ins[j] && strcmp(ins[j], "-") && cli_same_file(outs[i], ins[j])) {
                cli_err("%s names the %s file %s", out_names[i], in_names[j] + 2, ins[j]);
                return CLI_USAGE;
            }
    }
    a->pr.human = a->pr.quiet ? NULL : (to_stdout || a->pr.json) ? stderr : stdout;
    if (!strcmp(a->backend, "cpu") && (a->no_fallback || a->given[OPT_DEVICE_MEM_BUDGET - 256])) {
        cli_err("%s applies to --backend cuda or auto, not cpu",
                a->no_fallback ? "--no-fallback" : "--device-mem-budget");
        return CLI_USAGE;
    }
    if (strcmp(a->backend, "cpu") && strcmp(a->backend, "cuda") && strcmp(a->backend, "auto")) {
        cli_err("--backend is cpu, cuda or auto (got '%s')", a->backend);
        return CLI_USAGE;
    }
    if (!strcmp(a->backend, "cuda") && !gs_cuda_device_count()) {
        cli_err("--backend cuda: %s", gs_cuda_built() ? "no CUDA device is present"
                                                      : "this build has no CUDA backend");
        return CLI_USAGE;
    }
    if (a->grinding > CLI_GRINDING_FAST_MAX && !a->allow_slow) {
        cli_err("--grinding %lu: the proof of work takes about 2^%lu = %.2g Keccak-256 hashes "
                "(every bit above %u doubles it); pass --allow-slow to run it anyway",
                a->grinding, a->grinding, (double)(1ull << a->grinding), CLI_GRINDING_FAST_MAX);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The parameters: the library's defaults for the security target, with the
 * blowup and grinding asked for and the least query count whose level (by
 * the library's gs_params_security) reaches the target. */
static int params(gs_params *par, const prove_args *a) {
    int sec_given = a->given[OPT_SECURITY - 256];
    if (sec_given && a->queries) {
        cli_err("--security and --queries both set the query count: give one");
        return CLI_USAGE;
    }
    if (a->provable && (sec_given || a->queries)) {
        cli_err("--provable-security chooses the query count (and the blowup): not with %s",
                sec_given ? "--security" : "--queries");
        return CLI_USAGE;
    }
    unsigned target = sec_given ? (unsigned)a->security : GS_DEFAULT_SECURITY_BITS;
    if (gs_params_for_security(par, target) != GS_OK) {
        if (target > GS_MAX_SECURITY_BITS)
            cli_err("--security %u: Keccak-256 commitments cap the claim at %u bits", target,
                    GS_MAX_SECURITY_BITS);
        else
            cli_err("--security %u: out of range", target);
        return CLI_USAGE;
    }
    if (target < GS_MIN_SECURITY_BITS) {
        cli_err("--security %u: below the verifier's minimum of %u bits", target,
                GS_MIN_SECURITY_BITS);
        return CLI_USAGE;
    }
    par->log_blowup = 0;
    while ((1ul << par->log_blowup) < a->blowup) par->log_blowup++;
    par->grinding_bits = (uint32_t)a->grinding;
    par->hash = a->hash;
    par->cap_height = (uint32_t)a->cap_height;
    par->shared_fri = (uint32_t)a->shared_fri;
    if (par->shared_fri == GS_SHARED_TREES && par->cap_height) {
        cli_err("--shared-trees and --cap-height: not together (a shared tree is sent as its root)");
        return CLI_USAGE;
    }
    /* Coset leaves are the default (gs_params_default) but give way to an
     * explicit --shared-fri; asked for with it, they are refused. */
    if (par->shared_fri && a->coset_leaves > 0) {
        cli_err("%s and --shared-fri: not together yet (the shared FRI's first layer "
                "mixes tables of several heights); choose one",
                a->coset_leaves == 2 ? "--coset-leaves-all" : "--coset-leaves");
        return CLI_USAGE;
    }
    par->coset_leaves = a->coset_leaves < 0 || par->shared_fri ? 0
                        : a->coset_leaves == 2                ? GS_COSET_LEAVES_ALL
                                                              : 1;
    if (a->fri_arity)
        for (par->log_arity = 1; (1ul << par->log_arity) < a->fri_arity; par->log_arity++) {}
    if (a->final_degree)
        for (par->log_final = 0; (1ul << par->log_final) < a->final_degree; par->log_final++) {}
    if (a->queries) {
        par->num_queries = (uint32_t)a->queries;
    } else {
        if (gs_params_set_queries(par, target) != GS_OK) {
            cli_err("--security %u cannot be reached with blowup %lu and %lu grinding bits", target,
                    a->blowup, a->grinding);
            return CLI_USAGE;
        }
    }
    if (gs_params_check(par, GS_MIN_SECURITY_BITS) != GS_OK) {
        if (gs_params_security(par) < GS_MIN_SECURITY_BITS)
            cli_err("these parameters give %u bits (conjectured), below the verifier's minimum of "
                    "%u bits: raise --queries, --blowup or --grinding", gs_params_security(par),
                    GS_MIN_SECURITY_BITS);
        else
            cli_err("these parameters are out of the range proofs allow (blowup %lu, %u queries, "
                    "%lu grinding bits)", a->blowup, par->num_queries, a->grinding);
        return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_prove_failed(gs_status s, const gs_prove_stats *st) {
    char need[32], budget[32];
    switch (s) {
    case GS_ERR_BUDGET:
        cli_size_str(need, sizeof need, st->mem_need_bytes);
        cli_size_str(budget, sizeof budget, st->mem_budget);
        cli_err("--strict-budget: a table alone needs %s (%zu bytes, input traces included), "
                "more than the memory budget of %s (%zu bytes); nothing was proven (without "
                "--strict-budget it runs over the budget, with a warning)",
                need, st->mem_need_bytes, budget, st->mem_budget);
        return CLI_USAGE;
    case GS_ERR_AIR_DEGREE:
        cli_err("a constraint's degree exceeds blowup + 1: raise --blowup");
        return CLI_USAGE;
    case GS_ERR_INVALID_ARG:
    case GS_ERR_PROOF_PARAMS:
    case GS_ERR_NO_DEVICE:
        cli_err("proving: %s", gs_status_str(s));
        return CLI_USAGE;
    default:
        cli_err("proving: %s", gs_status_str(s));
        return CLI_PROVER;
    }
}

/* mix: the least blowup its degree allows (the library's degree rule). */
static int mix_degree_check(const gs_mix_params *mp, const gs_params *par) {
    gs_air *air = NULL;
    gs_status s = gs_airs_mix_air(&air, mp);
    if (s != GS_OK) {
        cli_err("building the mix AIR: %s", gs_status_str(s));
        return s == GS_ERR_NOMEM ? CLI_PROVER : CLI_USAGE;
    }
    int rc = CLI_OK;
    if (gs_air_check_degree(air, par->log_blowup) != GS_OK) {
        unsigned lb = par->log_blowup;
        while (lb < 6 && gs_air_check_degree(air, lb) != GS_OK) lb++;
        cli_err("--degree %u needs --blowup %u or more (constraint degree <= blowup + 1)",
                mp->degree, 1u << lb);
        rc = CLI_USAGE;
    }
    gs_air_free(air);
    return rc;
}

int cli_params_provable(gs_params *par, const cli_sched *sc, const gs_air *const *airs,
                        const unsigned *log_n, uint32_t n) {
    unsigned reach = 0;
    gs_params base = *par;
    gs_status s = gs_params_for_provable(par, sc->provable, airs, log_n, n, &base, sc->provable_min_log_blowup,
                                         sc->provable_max_log_blowup, &reach);
    if (s != GS_OK) {
        cli_err("--provable-security %u cannot be reached for this statement with blowup %u..%u "
                "(at most %u bits provable with 1024 queries)",
                sc->provable, 1u << sc->provable_min_log_blowup, 1u << sc->provable_max_log_blowup, reach);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int prove_single(const prove_args *a, unsigned air, const gs_params *par,
                        const cli_sched *sc) {
    gs_workload w = {0};
    char desc[128];
    gs_mix_params mp = {(uint32_t)a->cols, (unsigned)a->degree, (unsigned)a->log_rows, a->seed};
    if (air == AIR_MIX) {
        int rc = mix_degree_check(&mp, par);
        if (rc != CLI_OK) return rc;
    }
    /* The obs carries the progress line, the prover's warnings and the
     * timeline's spans. */
    gs_obs *obs = NULL;
    gs_status s = gs_obs_new(&obs);
    if (s != GS_OK) {
        cli_err("%s", gs_status_str(s));
        return CLI_PROVER;
    }
    gs_prove_stats st = {0};
    gs_prove_opts opts = {.skip_check = a->no_check, .air_desc = desc, .stats = &st, .obs = obs,
                          .mem_budget = sc->mem_budget, .strict_budget = sc->strict_budget,
                          .backend = sc->backend, .no_fallback = sc->no_fallback,
                          .device_mem_budget = sc->device_budget};
    /* The context (on CUDA the device's set-up) is made beside the trace,
     * inside its span. */
    double t0 = cli_now();
    int64_t span = gs_obs_begin(obs, "trace", -1, 0, 0);
    gs_prover_ahead *ahead = gs_prover_ahead_start(&opts);
    if (air == AIR_FIB) {
        s = gs_airs_fib(&w, (unsigned)a->log_rows, a->start[0], a->start[1]);
        snprintf(desc, sizeof desc, "fib");
    } else {
        s = gs_airs_mix(&w, &mp);
        snprintf(desc, sizeof desc, "mix cols=%lu degree=%lu log_n=%lu seed=%lu", a->cols,
                 a->degree, a->log_rows, a->seed);
    }
    gs_obs_end(obs, span, 0);
    double t1 = cli_now();
    int rc = CLI_OK;
    if (s != GS_OK) {
        cli_err("building the trace: %s", gs_status_str(s));
        rc = s == GS_ERR_INVALID_ARG ? CLI_USAGE : CLI_PROVER;
    }
    gs_params chosen = *par;
    if (rc == CLI_OK && sc->provable) {
        rc = cli_params_provable(&chosen, sc, (const gs_air *const *)&w.air, &w.log_n, 1);
        par = &chosen;
    }
    if (rc != CLI_OK) {
        gs_prover_ahead_free(ahead);
        gs_obs_free(obs);
        gs_workload_free(&w);
        return rc;
    }
    gs_proof *proof = NULL;
    cli_hush h = {-1, NULL};
    if (a->pr.quiet) cli_hush_begin(&h, obs);
    s = gs_prove_ahead(ahead, &proof, w.air, w.trace, w.log_n, w.pub, par, &opts);
    cli_hush_end(&h, obs);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (s != GS_OK) rc = cli_prove_failed(s, &st);
    else if ((s = gs_proof_serialize(&bytes, &len, proof)) != GS_OK) {
        cli_err("serializing the proof: %s", gs_status_str(s));
        rc = CLI_PROVER;
    } else {
        rc = cli_out_write(a->out, bytes, len);
    }
    if (rc == CLI_OK) rc = cli_write_obs_files(sc, obs);
    gs_obs_free(obs);
    if (rc == CLI_OK) {
        cli_proved x = {.name = desc, .single = proof, .st = &st, .trace_s = t1 - t0,
                        .cells = (size_t)gs_air_num_cols(w.air) << w.log_n, .out = a->out,
                        .bytes = len};
        cli_print_proved(&a->pr, &x);
    }
    free(bytes);
    gs_proof_free(proof);
    gs_workload_free(&w);
    return rc;
}

int cli_prove(int argc, char **argv) {
    prove_args a = {.air = "fib", .preset = "vm", .backend = "auto", .log_rows = 16, .cols = 16,
                    .degree = 3, .seed = 1, .blowup = 4, .grinding = 20, .start = {1, 1}};
    int rc = parse(&a, argc, argv);
    if (rc != CLI_OK) return rc < 0 ? CLI_OK : rc;
    unsigned air;
    gs_params par;
    if ((rc = check(&a, &air)) != CLI_OK || (rc = params(&par, &a)) != CLI_OK) return rc;
    if (a.threads) gs_threads_set((unsigned)a.threads);
    cli_sched sc = {.tables_parallel = (unsigned)a.tables_parallel, .mem_budget = a.mem_budget,
                    .strict_budget = a.strict_budget, .report = a.report, .metrics = a.metrics,
                    .timeline = a.timeline,
                    .backend = !strcmp(a.backend, "cpu")    ? GS_BACKEND_CPU
                               : !strcmp(a.backend, "cuda") ? GS_BACKEND_CUDA
                                                            : GS_BACKEND_AUTO,
                    .no_fallback = a.no_fallback, .device_budget = a.dev_budget,
                    .provable = (unsigned)a.provable,
                    /* --blowup fixes the blowup; else up to 16 (proof size against prove time) */
                    .provable_max_log_blowup = a.given[OPT_BLOWUP - 256] ? par.log_blowup : 4,
                    .provable_min_log_blowup = a.given[OPT_BLOWUP - 256] ? par.log_blowup : 1};
    if (air == AIR_ZKVM) {
        cli_zkvm_run z = {.elf = a.elf, .input = a.input, .max_cycles = a.max_cycles};
        return cli_zkvm_prove(&z, &par, a.no_check, &sc, a.out, &a.pr);
    }
    if (air == AIR_SYNTH)
        return cli_prove_synth(a.preset, (unsigned)a.shrink, a.seed, &par, a.no_check, &sc, a.out,
                               &a.pr);
    return prove_single(&a, air, &par, &sc);
}
