/* Keccak benchmarks, single thread:
 *   1. Keccak-f[1600] permutations per second, per scalar form (and the reference loops);
 *   2. Keccak-256 (gs_keccak256, one shot) against OpenSSL's SHA3-256 (EVP, context reused)
 *      on the same buffers, samples interleaved, with the ratio gstark / OpenSSL;
 *   3. gs_hash_many on 64-byte and 512-byte messages, per multi-message path.
 * Every figure is the median of several timed samples, each timed in the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) so that time spent descheduled on a busy machine is not counted;
 * the stream table also gives the ratio of the best samples. Usage:
 * bench_keccak [--samples N] [--json].
 *
 * --json: one JSON object per row on stdout (the tables go to stderr); see
 * bench_util.h. Statements: "perm <form>" (mperm_s, ns_per_perm),
 * "keccak256 <size> <form>" (mb_s, openssl_mb_s, ratio_to_openssl,
 * best_ratio_to_openssl: gstark's MB/s over OpenSSL's) and
 * "hash_many <len>B <path>" (mb_s, mhashes_s, speedup over the portable path). */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/hash.h"
#include "hash/keccak_internal.h"

static int SAMPLES = 15;
static volatile uint8_t sink;

static void json_perm(const char *form, double t) {
    char stmt[64];
    snprintf(stmt, sizeof stmt, "perm %s", form);
    bench_jrow r;
    bench_json_begin(&r, "bench_keccak", stmt);
    bench_json_metric(&r, "mperm_s", 1 / t / 1e6, "Mperm/s");
    bench_json_metric(&r, "ns_per_perm", t * 1e9, "ns");
    bench_json_end(&r);
}

/* ---- permutations ---- */

typedef struct {
    void (*perm)(uint64_t st[25]);
} perm_arg;

static void run_perm(void *p, size_t reps) {
    perm_arg *a = p;
    uint64_t st[25] = {1};
    for (size_t i = 0; i < reps; i++) a->perm(st);
    sink ^= (uint8_t)st[0];
}

static double time_fn(bench_work_fn fn, void *arg, size_t reps) {
    double s[64];
    for (int i = 0; i < SAMPLES; i++) {
        double t0 = bench_cpu_now();
        fn(arg, reps);
        s[i] = bench_cpu_now() - t0;
    }
    return bench_median(s, SAMPLES) / (double)reps;
}

static void bench_permutations(void) {
    static const char *NAMES[GS_KECCAK_SCALAR_COUNT] = {"portable", "bmi1+bmi2"};
    printf("Keccak-f[1600] permutations (scalar, one state)\n");
    printf("  %-22s %14s %12s\n", "form", "perm/s", "ns/perm");
    int saved = gs_keccak_scalar_select(0);
    perm_arg a = {gs_keccak_f1600_ref};
    double t = time_fn(run_perm, &a, bench_calibrate(run_perm, &a, 0.05));
    printf("  %-22s %14.0f %12.1f\n", "reference loops", 1 / t, t * 1e9);
    json_perm("reference", t);
    for (int form = 0; form < GS_KECCAK_SCALAR_COUNT; form++) {
        if (!gs_keccak_scalar_available(form)) {
            printf("  %-22s %14s\n", NAMES[form], "(not on this CPU)");
            continue;
        }
        gs_keccak_scalar_select(form);
        a.perm = gs_keccak_f1600;
        t = time_fn(run_perm, &a, bench_calibrate(run_perm, &a, 0.05));
        printf("  %-22s %14.0f %12.1f\n", NAMES[form], 1 / t, t * 1e9);
        json_perm(NAMES[form], t);
    }
    gs_keccak_scalar_select(saved);
}

/* ---- one stream: gstark Keccak-256 vs OpenSSL SHA3-256 ---- */

typedef struct {
    const uint8_t *buf;
    size_t len;
    EVP_MD_CTX *ctx;
    const EVP_MD *md;
} stream_arg;

static void run_gstark(void *p, size_t reps) {
    stream_arg *a = p;
    uint8_t d[32];
    for (size_t i = 0; i < reps; i++) gs_keccak256(d, a->buf, a->len);
    sink ^= d[0];
}

static void run_openssl(void *p, size_t reps) {
    stream_arg *a = p;
    uint8_t d[32];
    unsigned n;
    for (size_t i = 0; i < reps; i++) {
        EVP_DigestInit_ex(a->ctx, a->md, NULL);
        EVP_DigestUpdate(a->ctx, a->buf, a->len);
        EVP_DigestFinal_ex(a->ctx, d, &n);
    }
    sink ^= d[0];
}

static void bench_stream(const char *form_name) {
    static const size_t SIZES[] = {64, 136, 1024, 64 << 10, 16 << 20};
    size_t maxlen = 16 << 20;
    uint8_t *buf = malloc(maxlen);
    EVP_MD *md = EVP_MD_fetch(NULL, "SHA3-256", NULL);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!buf || !md || !ctx) {
        printf("  (allocation or EVP_MD_fetch failed)\n");
        goto done;
    }
    for (size_t i = 0; i < maxlen; i++) buf[i] = (uint8_t)(i * 131 + (i >> 8));
    printf("\nKeccak-256 one stream (gstark, scalar form %s) vs OpenSSL %s SHA3-256, MB/s\n",
           form_name, OpenSSL_version(OPENSSL_VERSION_STRING));
    printf("  %-10s %12s %12s %8s %11s\n", "size", "gstark", "openssl", "ratio", "best ratio");
    for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
        stream_arg a = {buf, SIZES[s], ctx, md};
        size_t rg = bench_calibrate(run_gstark, &a, 0.03), ro = bench_calibrate(run_openssl, &a, 0.03);
        /* interleave the samples so that background load hits both alike */
        double sg[64], so[64];
        for (int i = 0; i < SAMPLES; i++) {
            double t0 = bench_cpu_now();
            run_gstark(&a, rg);
            double t1 = bench_cpu_now();
            run_openssl(&a, ro);
            double t2 = bench_cpu_now();
            sg[i] = (t1 - t0) / (double)rg;
            so[i] = (t2 - t1) / (double)ro;
        }
        double bg = sg[0], bo = so[0];
        for (int i = 1; i < SAMPLES; i++) {
            if (sg[i] < bg) bg = sg[i];
            if (so[i] < bo) bo = so[i];
        }
        double tg = bench_median(sg, SAMPLES), to = bench_median(so, SAMPLES);
        double mg = (double)SIZES[s] / tg / 1e6, mo = (double)SIZES[s] / to / 1e6;
        char label[32];
        if (SIZES[s] >= (1u << 20))
            snprintf(label, sizeof label, "%zu MiB", SIZES[s] >> 20);
        else if (SIZES[s] >= 1024)
            snprintf(label, sizeof label, "%zu KiB", SIZES[s] >> 10);
        else
            snprintf(label, sizeof label, "%zu B", SIZES[s]);
        printf("  %-10s %12.1f %12.1f %8.2f %11.2f\n", label, mg, mo, mg / mo, bo / bg);
        char stmt[80];
        snprintf(stmt, sizeof stmt, "keccak256 %s %s", label, form_name);
        bench_jrow r;
        bench_json_begin(&r, "bench_keccak", stmt);
        bench_json_metric(&r, "mb_s", mg, "MB/s");
        bench_json_metric(&r, "openssl_mb_s", mo, "MB/s");
        bench_json_metric(&r, "ratio_to_openssl", mg / mo, "x");
        bench_json_metric(&r, "best_ratio_to_openssl", bo / bg, "x");
        bench_json_end(&r);
    }
done:
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    free(buf);
}

/* ---- many messages ---- */

typedef struct {
    gs_keccak_many_impl impl;
    gs_digest *out;
    const uint8_t *in;
    size_t len, n;
} many_arg;

static void run_many(void *p, size_t reps) {
    many_arg *a = p;
    for (size_t i = 0; i < reps; i++)
        gs_keccak256_many_with(a->impl, a->out, a->in, a->len, a->len, a->n);
    sink ^= a->out[0].b[0];
}

static void bench_many(void) {
    static const size_t LENS[] = {64, 512};
    enum { N = 4096 };
    uint8_t *in = malloc(N * 512);
    gs_digest *out = malloc(N * sizeof *out);
    if (!in || !out) {
        printf("  (allocation failed)\n");
        free(in);
        free(out);
        return;
    }
    for (size_t i = 0; i < (size_t)N * 512; i++) in[i] = (uint8_t)(i * 7 + (i >> 9));
    printf("\ngs_hash_many, %d messages per call (gs_hash_many uses %s)\n", N,
           gs_keccak_many_name(gs_keccak_many_best()));
    printf("  %-8s %-12s %12s %14s %9s\n", "msg", "path", "MB/s", "hashes/s", "speedup");
    for (size_t l = 0; l < sizeof LENS / sizeof LENS[0]; l++) {
        double base = 0;
        for (int impl = 0; impl < GS_KECCAK_MANY_COUNT; impl++) {
            if (!gs_keccak_many_available((gs_keccak_many_impl)impl)) {
                printf("  %-8zu %-12s %12s\n", LENS[l],
                       gs_keccak_many_name((gs_keccak_many_impl)impl), "(not on this CPU)");
                continue;
            }
            many_arg a = {(gs_keccak_many_impl)impl, out, in, LENS[l], N};
            double t = time_fn(run_many, &a, bench_calibrate(run_many, &a, 0.05));
            double hps = (double)N / t;
            if (impl == 0) base = hps;
            printf("  %-8zu %-12s %12.1f %14.0f %8.2fx\n", LENS[l],
                   gs_keccak_many_name((gs_keccak_many_impl)impl), hps * (double)LENS[l] / 1e6, hps,
                   base > 0 ? hps / base : 0.0);
            char stmt[64];
            snprintf(stmt, sizeof stmt, "hash_many %zuB %s", LENS[l], gs_keccak_many_name((gs_keccak_many_impl)impl));
            bench_jrow r;
            bench_json_begin(&r, "bench_keccak", stmt);
            bench_json_metric(&r, "mb_s", hps * (double)LENS[l] / 1e6, "MB/s");
            bench_json_metric(&r, "mhashes_s", hps / 1e6, "Mhashes/s");
            if (impl > 0 && base > 0) bench_json_metric(&r, "speedup", hps / base, "x");
            bench_json_end(&r);
        }
    }
    free(in);
    free(out);
}

int main(int argc, char **argv) {
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
            SAMPLES = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            fprintf(stderr, "usage: bench_keccak [--samples N] [--json]\n");
            return 2;
        }
    }
    if (json && !bench_json_start()) return 1;
    if (SAMPLES < 1) SAMPLES = 1;
    if (SAMPLES > 64) SAMPLES = 64;
    printf("bench_keccak: median of %d samples, single thread\n\n", SAMPLES);
    bench_permutations();
    static const char *NAMES[GS_KECCAK_SCALAR_COUNT] = {"portable", "bmi1+bmi2"};
    int saved = gs_keccak_scalar_select(0);
    for (int form = GS_KECCAK_SCALAR_COUNT - 1; form >= 0; form--) {
        if (!gs_keccak_scalar_available(form)) continue;
        gs_keccak_scalar_select(form);
        bench_stream(NAMES[form]);
    }
    gs_keccak_scalar_select(saved);
    bench_many();
    return 0;
}
