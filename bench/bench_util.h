/* Shared benchmark helpers: a monotonic clock, the median of repeated runs
 * and JSON lines. Benchmarks print tables; they never decide pass or fail.
 *
 * JSON lines (--json): bench_json_start() moves the human table to stderr
 * and keeps stdout for one JSON object per result row, with stable keys:
 *   {"bench": "bench_prove", "statement": "fib lg=16 cpu",
 *    "metrics": {"prove_s": 1.23, ...}, "units": {"prove_s": "s", ...}}
 * scripts/bench-compare reads these; the statement names a row the same way
 * in every run and every build. */
#ifndef GSTARK_BENCH_UTIL_H
#define GSTARK_BENCH_UTIL_H

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n samples (sorts them in place). */
static inline double bench_median(double *s, int n) {
    qsort(s, (size_t)n, sizeof *s, bench_cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Where JSON lines go: NULL unless --json was given. */
static FILE *bench_json_out;

/* Keeps the real stdout (close-on-exec, so spawned children never write to
 * it) for JSON lines and points fd 1 at stderr for everything else. */
static inline int bench_json_start(void) {
    fflush(stdout);
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || dup2(2, 1) < 0 || !(bench_json_out = fdopen(fd, "w"))) {
        fprintf(stderr, "bench: cannot set up --json output\n");
        return 0;
    }
    return 1;
}

typedef struct {
    char buf[4096], units[2048];
    size_t n, nu;
    int fields;
} bench_jrow;

static inline void bench_jput(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
    if (*n >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k > 0) *n += (size_t)k;
}

/* A JSON string: quotes and backslashes escaped, control bytes dropped. */
static inline void bench_jstr(char *buf, size_t cap, size_t *n, const char *s) {
    bench_jput(buf, cap, n, "\"");
    for (; *s; s++)
        if (*s == '"' || *s == '\\') bench_jput(buf, cap, n, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20) bench_jput(buf, cap, n, "%c", *s);
    bench_jput(buf, cap, n, "\"");
}

static inline void bench_json_begin(bench_jrow *r, const char *bench, const char *statement) {
    r->n = r->nu = 0, r->fields = 0;
    bench_jput(r->buf, sizeof r->buf, &r->n, "{\"bench\": ");
    bench_jstr(r->buf, sizeof r->buf, &r->n, bench);
    bench_jput(r->buf, sizeof r->buf, &r->n, ", \"statement\": ");
    bench_jstr(r->buf, sizeof r->buf, &r->n, statement);
    bench_jput(r->buf, sizeof r->buf, &r->n, ", \"metrics\": {");
}

/* One metric; a value that is not finite is written as null. */
static inline void bench_json_metric(bench_jrow *r, const char *name, double v, const char *unit) {
    const char *sep = r->fields++ ? ", " : "";
    bench_jput(r->buf, sizeof r->buf, &r->n, "%s", sep);
    bench_jstr(r->buf, sizeof r->buf, &r->n, name);
    if (isfinite(v)) bench_jput(r->buf, sizeof r->buf, &r->n, ": %.9g", v);
    else bench_jput(r->buf, sizeof r->buf, &r->n, ": null");
    bench_jput(r->units, sizeof r->units, &r->nu, "%s", sep);
    bench_jstr(r->units, sizeof r->units, &r->nu, name);
    bench_jput(r->units, sizeof r->units, &r->nu, ": ");
    bench_jstr(r->units, sizeof r->units, &r->nu, unit);
}

/* Writes the row if --json is on. */
static inline void bench_json_end(bench_jrow *r) {
    if (!bench_json_out) return;
    fprintf(bench_json_out, "%s}, \"units\": {%s}}\n", r->buf, r->units);
    fflush(bench_json_out);
}

/* This thread's CPU seconds. */
static inline double bench_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* fn(arg, reps) does reps units of work. */
typedef void (*bench_work_fn)(void *arg, size_t reps);

/* Repetitions of fn that take about target_s of this thread's CPU time. */
static inline size_t bench_calibrate(bench_work_fn fn, void *arg, double target_s) {
    size_t reps = 1;
    for (;;) {
        double t0 = bench_cpu_now();
        fn(arg, reps);
        double dt = bench_cpu_now() - t0;
        if (dt >= target_s / 4 || reps > ((size_t)1 << 40)) {
            double scaled = (double)reps * target_s / (dt > 1e-9 ? dt : 1e-9);
            return scaled < 1 ? 1 : (size_t)scaled;
        }
        reps *= 4;
    }
}

#endif
