/* Shared benchmark helpers: a monotonic clock and the median of repeated
 * runs. Benchmarks print tables; they never decide pass or fail. */
#ifndef GSTARK_BENCH_UTIL_H
#define GSTARK_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

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

#endif
