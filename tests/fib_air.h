/* The built-in Fibonacci AIR (src/airs/fib.c: two columns (a, b), a' = b,
 * b' = a + b; public inputs a[0], b[0], b[n-1] and a[n-1]) and a raw trace for it
 * that tests may corrupt, shared by the prover tests, the proof-format test
 * and the proof fuzzer. */
#ifndef GSTARK_TESTS_FIB_AIR_H
#define GSTARK_TESTS_FIB_AIR_H

#include <stdlib.h>

#include "gstark/air.h"
#include "gstark/airs.h"
#include "gstark/field.h"

static inline gs_air *fib_air(void) {
    gs_air *air = NULL;
    return gs_airs_fib_air(&air) == GS_OK ? air : NULL;
}

/* The column-major trace from pub[0], pub[1]; sets pub[2] and pub[3] to the
 * last b and a. */
static inline gs_fp *fib_trace(unsigned log_n, gs_fp pub[4]) {
    size_t n = (size_t)1 << log_n;
    gs_fp *m = malloc(2 * n * sizeof *m);
    if (!m) return NULL;
    m[0] = pub[0], m[n] = pub[1];
    for (size_t i = 0; i + 1 < n; i++) m[i + 1] = m[n + i], m[n + i + 1] = gs_fp_add(m[i], m[n + i]);
    pub[2] = m[2 * n - 1];
    pub[3] = m[n - 1];
    return m;
}

#endif
