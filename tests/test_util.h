/* Shared test helpers: a seeded RNG (--seed N replays a failure), checks that
 * report file:line and keep counting, and the skip exit code for GPU tests.
 * Every test main calls gs_test_init(argc, argv) first and returns
 * gs_test_done() last. */
#ifndef GSTARK_TEST_UTIL_H
#define GSTARK_TEST_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/field.h"

#define GS_TEST_SKIP 77

static uint64_t gs_test_rng_state;
static uint64_t gs_test_seed_value = 0x9E3779B97F4A7C15ull;
static int gs_test_failures;
static long gs_test_checks;

/* splitmix64 */
static inline uint64_t gs_test_u64(void) {
    uint64_t z = (gs_test_rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform below bound (bound > 0); the slight bias is irrelevant for tests. */
static inline uint64_t gs_test_below(uint64_t bound) { return gs_test_u64() % bound; }

/* A random canonical field element, with edge values mixed in now and then. */
static inline gs_fp gs_test_fp(void) {
    static const gs_fp edges[] = {0, 1, 2, GS_FP_P - 1, GS_FP_P - 2, 1ull << 32, (1ull << 32) - 1,
                                  1ull << 63, GS_FP_EPSILON + 1};
    uint64_t r = gs_test_u64();
    if ((r & 15) == 0) return edges[(r >> 4) % (sizeof edges / sizeof edges[0])];
    return gs_fp_from_u64(gs_test_u64());
}

static inline gs_fp3 gs_test_fp3(void) {
    gs_fp3 r;
    r.c[0] = gs_test_fp();
    r.c[1] = gs_test_fp();
    r.c[2] = gs_test_fp();
    return r;
}

/* Parses --seed N (decimal or 0x hex); prints the seed so any run replays. */
static inline void gs_test_init(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--seed") == 0) gs_test_seed_value = strtoull(argv[i + 1], NULL, 0);
    gs_test_rng_state = gs_test_seed_value;
    printf("%s: seed 0x%016" PRIx64 " (replay with --seed 0x%" PRIx64 ")\n", argv[0],
           gs_test_seed_value, gs_test_seed_value);
}

#define CHECK(cond)                                                                  \
    do {                                                                             \
        gs_test_checks++;                                                            \
        if (!(cond)) {                                                               \
            gs_test_failures++;                                                      \
            if (gs_test_failures <= 20)                                              \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* Checks that two u64 values are equal and prints both when they are not. */
#define CHECK_EQ_U64(a, b)                                                                   \
    do {                                                                                     \
        uint64_t gs_a_ = (uint64_t)(a), gs_b_ = (uint64_t)(b);                               \
        gs_test_checks++;                                                                    \
        if (gs_a_ != gs_b_) {                                                                \
            gs_test_failures++;                                                              \
            if (gs_test_failures <= 20)                                                      \
                fprintf(stderr, "%s:%d: %s == %s failed: 0x%016" PRIx64 " != 0x%016" PRIx64 "\n", \
                        __FILE__, __LINE__, #a, #b, gs_a_, gs_b_);                           \
        }                                                                                    \
    } while (0)

/* 1 if the n values agree; else prints the first difference (its column of
 * col_len values and row) and how many differ, and returns 0. For device
 * results against the CPU's ("cpu" is want, "gpu" is got). */
static inline int gs_test_same_values(const char *desc, const uint64_t *want, const uint64_t *got,
                                      size_t n, size_t col_len) {
    for (size_t i = 0; i < n; i++) {
        if (want[i] == got[i]) continue;
        size_t bad = 0;
        for (size_t k = i; k < n; k++) bad += want[k] != got[k];
        fprintf(stderr,
                "MISMATCH %s: column %zu row %zu: cpu 0x%016" PRIx64 " gpu 0x%016" PRIx64
                " (%zu of %zu values differ)\n",
                desc, i / col_len, i % col_len, want[i], got[i], bad, n);
        return 0;
    }
    return 1;
}

static inline int gs_test_done(void) {
    if (gs_test_failures) {
        fprintf(stderr, "FAILED: %d of %ld checks (seed 0x%016" PRIx64 ")\n", gs_test_failures,
                gs_test_checks, gs_test_seed_value);
        return 1;
    }
    printf("ok: %ld checks\n", gs_test_checks);
    return 0;
}

#endif
