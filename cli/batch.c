/* gstark batch MANIFEST --store DIR: many claims over lanes (docs/batch.md).
 * Everything that can be known wrong is checked before anything runs: the
 * options, the output paths (--metrics, --out-partition), the store path,
 * the manifest (parsed whole: a bad one is exit 2 with nothing proven or
 * written). The library plans, proves, stores and reports; the command
 * picks the streams and turns the outcome into an exit code. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

enum {
    OPT_STORE = 256, OPT_LANES, OPT_LANES_PER_DEVICE, OPT_OUT_PARTITION, OPT_REPORT, OPT_METRICS,
    OPT_JSON, OPT_THREADS, OPT_BACKEND, OPT_MEM_BUDGET, OPT_FINISHERS
};

static const struct option batch_opts[] = {
    {"store", required_argument, NULL, OPT_STORE},
    {"lanes", required_argument, NULL, OPT_LANES},
    {"lanes-per-device", required_argument, NULL, OPT_LANES_PER_DEVICE},
    {"out-partition", required_argument, NULL, OPT_OUT_PARTITION},
    {"report", no_argument, NULL, OPT_REPORT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"json", no_argument, NULL, OPT_JSON},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"mem-budget", required_argument, NULL, OPT_MEM_BUDGET},
    {"finishers", required_argument, NULL, OPT_FINISHERS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

typedef struct batch_args {
    const char *manifest, *store, *partition, *metrics, *backend;
    unsigned long lanes, per_device, threads, finishers; /* finishers: 0 default */
    size_t mem_budget;
    int report, json, quiet;
} batch_args;

static int parse(batch_args *a, int argc, char **argv) {
    int c;
    while ((c = cli_getopt(argc, argv, "qh", batch_opts)) != -1) {
        const char *name = cli_opt_name(batch_opts, c);
        int ok = 1;
        switch (c) {
        case OPT_STORE: a->store = optarg; break;
        case OPT_LANES: ok = cli_parse_uint(name, optarg, 1, GS_BATCH_MAX_LANES, &a->lanes); break;
        case OPT_LANES_PER_DEVICE:
            ok = cli_parse_uint(name, optarg, 1, GS_BATCH_MAX_LANES, &a->per_device);
            break;
        case OPT_OUT_PARTITION: a->partition = optarg; break;
        case OPT_REPORT: a->report = 1; break;
        case OPT_METRICS: a->metrics = optarg; break;
        case OPT_JSON: a->json = 1; break;
        case OPT_THREADS: ok = cli_parse_uint(name, optarg, 1, 256, &a->threads); break;
        case OPT_BACKEND: a->backend = optarg; break;
        case OPT_MEM_BUDGET: ok = cli_parse_size(name, optarg, &a->mem_budget); break;
        case OPT_FINISHERS:
            if (!strcmp(optarg, "lane")) a->finishers = GS_BATCH_FINISH_ON_LANE;
            else ok = cli_parse_uint(name, optarg, 1, GS_BATCH_MAX_LANES, &a->finishers);
            break;
        case 'q': a->quiet = 1; break;
        case 'h': cli_help_command(stdout, "batch"); return -1;
        default: return CLI_USAGE;
        }
        if (!ok) return CLI_USAGE;
    }
    if (optind >= argc) {
        cli_err("which manifest? give MANIFEST (see 'gstark batch --help')");
        return CLI_USAGE;
    }
    if (optind + 1 < argc) {
        cli_err("unexpected argument '%s' (one manifest; see 'gstark batch --help')",
                argv[optind + 1]);
        return CLI_USAGE;
    }
    a->manifest = argv[optind];
    return CLI_OK;
}

/* The store: absent (its first existing ancestor must be a writable
 * directory) or a directory. gs_store_open says more if it still fails. */
static int store_check(const char *dir) {
    struct stat st;
    if (!*dir) {
        cli_err("--store needs a directory");
        return 0;
    }
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            cli_err("--store %s: not a directory", dir);
            return 0;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            cli_err("--store %s: %s", dir, strerror(errno));
            return 0;
        }
        return 1;
    }
    if (errno != ENOENT) {
        cli_err("--store %s: %s", dir, strerror(errno));
        return 0;
    }
    char *p = strdup(dir);
    if (!p) return 0;
    int ok = 0;
    for (;;) {
        char *sl = strrchr(p, '/');
        while (sl && sl > p && sl[1] == 0) *sl = 0, sl = strrchr(p, '/'); /* trailing slashes */
        if (!sl) {
            strcpy(p, ".");
        } else if (sl == p) {
            p[1] = 0;
        } else {
            *sl = 0;
        }
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) cli_err("--store %s: %s is not a directory", dir, p);
            else if (access(p, W_OK | X_OK) != 0) cli_err("--store %s: %s: %s", dir, p, strerror(errno));
            else ok = 1;
            break;
        }
        if (errno != ENOENT || !strcmp(p, ".") || !strcmp(p, "/")) {
            cli_err("--store %s: %s: %s", dir, p, strerror(errno));
            break;
        }
    }
    free(p);
    return ok;
}

static int check(const batch_args *a, gs_backend_kind *backend) {
    if (!a->store) {
        cli_err("where do the proofs go? give --store DIR");
        return CLI_USAGE;
    }
    if (a->quiet && a->json) {
        cli_err("--quiet prints nothing: not with --json");
        return CLI_USAGE;
    }
    if (!strcmp(a->backend, "cpu")) *backend = GS_BACKEND_CPU;
    else if (!strcmp(a->backend, "cuda")) *backend = GS_BACKEND_CUDA;
    else if (!strcmp(a->backend, "auto")) *backend = GS_BACKEND_AUTO;
    else {
        cli_err("--backend is cpu, cuda or auto (got '%s')", a->backend);
        return CLI_USAGE;
    }
    if (*backend == GS_BACKEND_CUDA && !gs_cuda_device_count()) {
        cli_err("--backend cuda: %s", gs_cuda_built() ? "no CUDA device is present"
                                                      : "this build has no CUDA backend");
        return CLI_USAGE;
    }
    if (!store_check(a->store)) return CLI_USAGE;
    if (a->metrics && !cli_out_check("--metrics", a->metrics, 0)) return CLI_USAGE;
    if (a->partition) {
        struct stat st;
        if (lstat(a->partition, &st) == 0 && !S_ISREG(st.st_mode)) {
            cli_err("--out-partition %s: not a regular file (it is read back and replaced "
                    "atomically)", a->partition);
            return CLI_USAGE;
        }
        if (!cli_out_check("--out-partition", a->partition, 0)) return CLI_USAGE;
        if (a->metrics && cli_same_file(a->metrics, a->partition)) {
            cli_err("--metrics and --out-partition name the same file");
            return CLI_USAGE;
        }
    }
    const char *outs[2] = {a->metrics, a->partition};
    for (int i = 0; i < 2; i++) {
        if (outs[i] && cli_same_file(outs[i], a->manifest)) {
            cli_err("%s names the manifest", i ? "--out-partition" : "--metrics");
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static const char *outcome_name(gs_batch_outcome o) {
    switch (o) {
    case GS_BATCH_PROVEN: return "proven";
    case GS_BATCH_REUSED: return "reused";
    case GS_BATCH_FAILED: return "failed";
    case GS_BATCH_REFUSED: return "refused";
    case GS_BATCH_SKIPPED: return "skipped";
    default: return "pending";
    }
}

static void print_json(const batch_args *a, const gs_batch_result *res) {
    char root[65];
    printf("{\"manifest\":");
    cli_json_str(stdout, a->manifest);
    printf(",\"store\":");
    cli_json_str(stdout, a->store);
    if (res->has_root) {
        cli_hex(root, &res->root_key);
        printf(",\"root\":\"%s\"", root);
    } else {
        printf(",\"root\":null");
    }
    /* proven .. skipped count units: claims and joins */
    printf(",\"claims\":%u,\"joins\":%u,\"units\":%u,\"proven\":%u,\"reused\":%u,\"failed\":%u,\"refused\":%u,"
           "\"skipped\":%u,\"corrupt\":%u,\"bisected\":%u,\"lanes\":%u,\"devices\":%u,"
           "\"wall_seconds\":%.6f,\"claims_per_second\":%.3f,\"peak_rss_bytes\":%zu,\"problems\":[",
           res->claims, res->joins, res->num_units, res->proven, res->reused, res->failed, res->refused,
           res->skipped, res->corrupt, res->bisected, res->lanes, res->devices, res->wall_s,
           res->wall_s > 0 ? res->claims / res->wall_s : 0.0, res->peak_rss_bytes);
    int first = 1;
    for (uint32_t i = 0; i < res->num_units; i++) {
        const gs_batch_unit *u = &res->units[i];
        if (u->outcome == GS_BATCH_PROVEN || u->outcome == GS_BATCH_REUSED) continue;
        printf("%s{\"id\":", first ? "" : ",");
        cli_json_str(stdout, u->id);
        printf(",\"unit\":\"%s\",\"outcome\":\"%s\",\"reason\":", u->is_join ? "join" : "claim",
               outcome_name(u->outcome));
        cli_json_str(stdout, u->reason);
        printf("}");
        first = 0;
    }
    printf("]}\n");
}

/* Counts per kind of unit and outcome. */
static void count(const gs_batch_result *res, int join, gs_batch_outcome o, unsigned *n) {
    *n = 0;
    for (uint32_t i = 0; i < res->num_units; i++)
        *n += res->units[i].is_join == join && res->units[i].outcome == o;
}

static void print_human(FILE *f, const gs_batch_result *res) {
    char root[65];
    if (res->has_root) {
        cli_hex(root, &res->root_key);
        fprintf(f, "root %s\n", root);
    } else {
        fprintf(f, "root: none (the root join was not made)\n");
    }
    for (int join = 0; join < 2; join++) {
        unsigned p, r, fl, rf, sk;
        count(res, join, GS_BATCH_PROVEN, &p);
        count(res, join, GS_BATCH_REUSED, &r);
        count(res, join, GS_BATCH_FAILED, &fl);
        count(res, join, GS_BATCH_REFUSED, &rf);
        count(res, join, GS_BATCH_SKIPPED, &sk);
        fprintf(f, "%s %u: %u %s, %u reused", join ? "joins" : "claims",
                join ? res->joins : res->claims, p, join ? "made" : "proven", r);
        if (fl) fprintf(f, ", %u failed", fl);
        if (rf) fprintf(f, ", %u refused", rf);
        if (sk) fprintf(f, ", %u skipped", sk);
        fputc('\n', f);
    }
    if (res->bisected) fprintf(f, "bisected: %u manifest claims\n", res->bisected);
    if (res->corrupt) fprintf(f, "corrupt stored objects replaced: %u\n", res->corrupt);
    fprintf(f, "wall %.3f s, %.2f claims/s on %u lane%s\n", res->wall_s,
            res->wall_s > 0 ? res->claims / res->wall_s : 0.0, res->lanes, res->lanes == 1 ? "" : "s");
}

int cli_batch(int argc, char **argv) {
    batch_args a = {.backend = "auto"};
    int rc = parse(&a, argc, argv);
    if (rc != CLI_OK) return rc < 0 ? CLI_OK : rc;
    gs_backend_kind backend;
    if ((rc = check(&a, &backend)) != CLI_OK) return rc;
    char err[512] = "";
    gs_manifest *m = NULL;
    gs_status s = gs_manifest_load(&m, a.manifest, err, sizeof err);
    if (s != GS_OK) {
        cli_err("%s: %s", a.manifest, err[0] ? err : gs_status_str(s));
        return s == GS_ERR_NOMEM ? CLI_PROVER : CLI_USAGE;
    }
    char *mbuf = NULL;
    size_t mlen = 0;
    FILE *mf = a.metrics ? open_memstream(&mbuf, &mlen) : NULL;
    FILE *human = a.quiet ? NULL : a.json ? stderr : stdout;
    gs_batch_config cfg = {.manifest = m, .store_dir = a.store, .lanes = (unsigned)a.lanes,
                           .lanes_per_device = (unsigned)a.per_device, .backend = backend,
                           .mem_budget = a.mem_budget, .threads = (unsigned)a.threads,
                           .partition_file = a.partition, .log = a.quiet ? NULL : stderr,
                           .warnings = stderr, .progress = a.quiet ? NULL : stderr,
                           .progress_enabled = -1, .report = a.report ? (human ? human : NULL) : NULL,
                           .metrics = mf, .finishers = (unsigned)a.finishers};
    if (a.metrics && !mf) {
        cli_err("--metrics: out of memory");
        gs_manifest_free(m);
        return CLI_PROVER;
    }
    gs_batch_result res;
    s = gs_batch_run(&res, &cfg, err, sizeof err);
    if (mf) fclose(mf);
    if (s != GS_OK) {
        cli_err("%s", err[0] ? err : gs_status_str(s));
        /* Nothing was proven: input errors are 2; a machine that failed
         * (memory, a device while making the lanes' provers) is 3. */
        rc = s == GS_ERR_NOMEM || s == GS_ERR_CUDA || s == GS_ERR_DEVICE_MEM ? CLI_PROVER : CLI_USAGE;
    } else {
        if (a.quiet) {
            /* Errors still print: every unit that did not finish. */
            for (uint32_t i = 0; i < res.num_units; i++) {
                const gs_batch_unit *u = &res.units[i];
                if (u->outcome == GS_BATCH_FAILED || u->outcome == GS_BATCH_REFUSED)
                    cli_err("%s %s %s: %s", u->is_join ? "join" : "claim", u->id,
                            outcome_name(u->outcome), u->reason);
            }
        }
        if (a.json) print_json(&a, &res);
        else if (human) print_human(human, &res);
        rc = res.failed || res.refused || res.skipped || !res.has_root ? CLI_PROVER : CLI_OK;
        if (a.metrics) {
            int wrc = cli_out_write(a.metrics, (const uint8_t *)mbuf, mlen);
            if (wrc != CLI_OK && rc == CLI_OK) rc = wrc;
        }
    }
    free(mbuf);
    gs_batch_result_free(&res);
    gs_manifest_free(m);
    return rc;
}
