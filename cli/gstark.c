/* The gstark command. Uses only the public API (include/gstark). Every
 * failure prints a message on stderr and exits non-zero; nothing else in
 * gstark exits. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gstark/gstark.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gstark <command> [options]\n"
            "\n"
            "commands:\n"
            "  demo      commit a synthetic trace: NTT, coset LDE and Merkle timings, the root\n"
            "  version   print the version and the build's features\n"
            "  help      this text\n"
            "\n"
            "demo options:\n"
            "  --log-rows N     trace height 2^N (default 20, 1..26)\n"
            "  --cols N         trace width (default 16, 1..1024)\n"
            "  --log-blowup N   LDE blowup 2^N (default 2, 1..4)\n"
            "  --threads N      worker threads (default: GS_THREADS or all cores)\n"
            "  --seed N         trace seed (default 1)\n");
}

static int die(const char *what, gs_status s) {
    fprintf(stderr, "gstark: %s: %s\n", what, gs_status_str(s));
    return 1;
}

/* Parses a decimal integer option value within [lo, hi]. */
static int parse_uint(const char *opt, const char *v, unsigned long lo, unsigned long hi,
                      unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long x = v ? strtoul(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || x < lo || x > hi || v[0] == '-') {
        fprintf(stderr, "gstark: %s needs an integer in %lu..%lu (got %s)\n", opt, lo, hi,
                v ? v : "nothing");
        return 0;
    }
    *out = x;
    return 1;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void hex(char out[65], const gs_digest *d) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d->b[i]);
}

static int cmd_demo(int argc, char **argv) {
    unsigned long log_rows = 20, cols = 16, log_blowup = 2, threads = 0, seed = 1;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok;
        if (!strcmp(o, "--log-rows")) ok = parse_uint(o, v, 1, 26, &log_rows);
        else if (!strcmp(o, "--cols")) ok = parse_uint(o, v, 1, 1024, &cols);
        else if (!strcmp(o, "--log-blowup")) ok = parse_uint(o, v, 1, 4, &log_blowup);
        else if (!strcmp(o, "--threads")) ok = parse_uint(o, v, 1, 256, &threads);
        else if (!strcmp(o, "--seed")) ok = parse_uint(o, v, 0, ~0ul, &seed);
        else {
            fprintf(stderr, "gstark demo: unknown option %s\n", o);
            usage(stderr);
            return 2;
        }
        if (!ok) return 2;
        i++;
    }
    if (threads) gs_threads_set((unsigned)threads);
    size_t n = (size_t)1 << log_rows, big = n << log_blowup;
    gs_fp *trace = malloc(cols * n * sizeof *trace);
    gs_fp *coeffs = malloc(cols * n * sizeof *coeffs);
    gs_fp *lde = malloc(cols * big * sizeof *lde);
    if (!trace || !coeffs || !lde) {
        free(trace), free(coeffs), free(lde);
        return die("allocating the trace and its extension", GS_ERR_NOMEM);
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
    double t0 = now();
    gs_status s = gs_ntt_inverse_batch(coeffs, cols, (unsigned)log_rows);
    double t1 = now();
    if (s != GS_OK) { rc = die("inverse NTT", s); goto out; }
    printf("%-28s %10.2f %14.3f\n", "inverse NTT (interpolate)", 1e3 * (t1 - t0), 1e9 * (t1 - t0) / bfly);
    t0 = now();
    s = gs_lde_coset(lde, trace, cols, (unsigned)log_rows, (unsigned)log_blowup, GS_LDE_SHIFT,
                     GS_ORDER_BITREV);
    t1 = now();
    if (s != GS_OK) { rc = die("coset LDE", s); goto out; }
    printf("%-28s %10.2f %14.3f\n", "coset LDE (bit-reversed)", 1e3 * (t1 - t0), 1e9 * (t1 - t0) / bfly_lde);
    t0 = now();
    s = gs_merkle_commit(&tree, GS_HASH_KECCAK256, lde, cols, big, (unsigned)(log_rows + log_blowup));
    t1 = now();
    if (s != GS_OK) { rc = die("Merkle commit", s); goto out; }
    double mb = (double)(cols * big * 8) / 1e6;
    printf("%-28s %10.2f %11.1f MB/s\n", "Merkle commit (Keccak-256)", 1e3 * (t1 - t0), mb / (t1 - t0));
    /* Open and check a few rows, as a verifier would. */
    size_t depth = gs_merkle_depth(tree), idx[4] = {0, big / 3, big / 2 + 1, big - 1};
    gs_digest *paths = malloc(4 * depth * sizeof *paths);
    gs_fp *row = malloc(cols * sizeof *row);
    gs_digest root = gs_merkle_root(tree);
    if (!paths || !row) { free(paths), free(row); rc = die("allocating paths", GS_ERR_NOMEM); goto out; }
    s = gs_merkle_open(tree, paths, idx, 4);
    for (size_t k = 0; s == GS_OK && k < 4; k++) {
        for (size_t c = 0; c < cols; c++) row[c] = lde[c * big + idx[k]];
        s = gs_merkle_verify(GS_HASH_KECCAK256, &root, (unsigned)depth, idx[k], row, cols, paths + k * depth);
    }
    free(paths), free(row);
    if (s != GS_OK) { rc = die("opening and verifying Merkle paths", s); goto out; }
    char h[65];
    hex(h, &root);
    printf("merkle root %s (4 opened paths verified)\n", h);
out:
    gs_merkle_free(tree);
    free(trace), free(coeffs), free(lde);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "demo")) return cmd_demo(argc - 2, argv + 2);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("gstark %s (CUDA backend %s, %d device(s))\n", GSTARK_VERSION,
               gs_cuda_built() ? "built" : "not built", gs_cuda_device_count());
        return 0;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "gstark: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
