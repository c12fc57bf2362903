/* `gstark demo`: commit a synthetic trace (NTT, coset LDE, Merkle) and print
 * the timings and the root. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

enum { OPT_LOG_ROWS = 256, OPT_COLS, OPT_LOG_BLOWUP, OPT_THREADS, OPT_SEED };

static const struct option demo_opts[] = {
    {"log-rows", required_argument, NULL, OPT_LOG_ROWS},
    {"cols", required_argument, NULL, OPT_COLS},
    {"log-blowup", required_argument, NULL, OPT_LOG_BLOWUP},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* demo's failures are the library's: exit 3, as prove's. */
static int demo_fail(const char *what, gs_status s) {
    cli_err("%s: %s", what, gs_status_str(s));
    return CLI_PROVER;
}

int cli_demo(int argc, char **argv) {
    unsigned long log_rows = 20, cols = 16, log_blowup = 2, threads = 0, seed = 1;
    int c;
    while ((c = cli_getopt(argc, argv, "h", demo_opts)) != -1) {
        const char *name = cli_opt_name(demo_opts, c);
        int ok;
        switch (c) {
        case OPT_LOG_ROWS: ok = cli_parse_uint(name, optarg, 1, 26, &log_rows); break;
        case OPT_COLS: ok = cli_parse_uint(name, optarg, 1, 1024, &cols); break;
        case OPT_LOG_BLOWUP: ok = cli_parse_uint(name, optarg, 1, 4, &log_blowup); break;
        case OPT_THREADS: ok = cli_parse_uint(name, optarg, 1, 256, &threads); break;
        case OPT_SEED: ok = cli_parse_uint(name, optarg, 0, ~0ul, &seed); break;
        case 'h': cli_help_command(stdout, "demo"); return CLI_OK;
        default: return CLI_USAGE;
        }
        if (!ok) return CLI_USAGE;
    }
    if (optind < argc) {
        cli_err("unexpected argument '%s' (see 'gstark demo --help')", argv[optind]);
        return CLI_USAGE;
    }
    if (threads) gs_threads_set((unsigned)threads);
    size_t n = (size_t)1 << log_rows, big = n << log_blowup;
    gs_fp *trace = malloc(cols * n * sizeof *trace);
    gs_fp *coeffs = malloc(cols * n * sizeof *coeffs);
    gs_fp *lde = malloc(cols * big * sizeof *lde);
    if (!trace || !coeffs || !lde) {
        free(trace), free(coeffs), free(lde);
        return demo_fail("allocating the trace and its extension", GS_ERR_NOMEM);
    }
    /* A deterministic pseudorandom trace (xorshift64*, seeded). */
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < cols * n; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        trace[i] = gs_fp_from_u64(x * 0x2545F4914F6CDD1Dull);
    }
    printf("gstark %s demo: %lu columns x 2^%lu rows, blowup %lu, %u threads\n", GSTARK_VERSION,
           cols, log_rows, 1ul << log_blowup, gs_threads_get());
    printf("%-28s %10s %14s\n", "step", "ms", "ns/butterfly");
    int rc = 0;
    gs_merkle_tree *tree = NULL;
    double bfly = (double)cols * (double)(n / 2) * (double)log_rows;
    double bfly_lde = bfly + (double)cols * (double)(big / 2) * (double)(log_rows + log_blowup);
    memcpy(coeffs, trace, cols * n * sizeof *coeffs);
    double t0 = cli_now();
    gs_status s = gs_ntt_inverse_batch(coeffs, cols, (unsigned)log_rows);
    double t1 = cli_now();
    if (s != GS_OK) { rc = demo_fail("inverse NTT", s); goto out; }
    printf("%-28s %10.2f %14.3f\n", "inverse NTT (interpolate)", 1e3 * (t1 - t0), 1e9 * (t1 - t0) / bfly);
    t0 = cli_now();
    s = gs_lde_coset(lde, trace, cols, (unsigned)log_rows, (unsigned)log_blowup, GS_LDE_SHIFT,
                     GS_ORDER_BITREV);
    t1 = cli_now();
    if (s != GS_OK) { rc = demo_fail("coset LDE", s); goto out; }
    printf("%-28s %10.2f %14.3f\n", "coset LDE (bit-reversed)", 1e3 * (t1 - t0), 1e9 * (t1 - t0) / bfly_lde);
    t0 = cli_now();
    s = gs_merkle_commit(&tree, GS_HASH_KECCAK256, lde, cols, big, (unsigned)(log_rows + log_blowup));
    t1 = cli_now();
    if (s != GS_OK) { rc = demo_fail("Merkle commit", s); goto out; }
    double mb = (double)(cols * big * 8) / 1e6;
    printf("%-28s %10.2f %11.1f MB/s\n", "Merkle commit (Keccak-256)", 1e3 * (t1 - t0), mb / (t1 - t0));
    /* Open and check a few rows, as a verifier would. */
    size_t depth = gs_merkle_depth(tree), idx[4] = {0, big / 3, big / 2 + 1, big - 1};
    gs_digest *paths = malloc(4 * depth * sizeof *paths);
    gs_fp *row = malloc(cols * sizeof *row);
    gs_digest root = gs_merkle_root(tree);
    if (!paths || !row) { free(paths), free(row); rc = demo_fail("allocating paths", GS_ERR_NOMEM); goto out; }
    s = gs_merkle_open(tree, paths, idx, 4);
    for (size_t k = 0; s == GS_OK && k < 4; k++) {
        for (size_t c = 0; c < cols; c++) row[c] = lde[c * big + idx[k]];
        s = gs_merkle_verify(GS_HASH_KECCAK256, &root, (unsigned)depth, idx[k], row, cols, paths + k * depth);
    }
    free(paths), free(row);
    if (s != GS_OK) { rc = demo_fail("opening and verifying Merkle paths", s); goto out; }
    char h[65];
    cli_hex(h, &root);
    printf("merkle root %s (4 opened paths verified)\n", h);
out:
    gs_merkle_free(tree);
    free(trace), free(coeffs), free(lde);
    return rc;
}

