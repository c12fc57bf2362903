/* The Fibonacci AIR of tests/test_prove.c, shared by the proof-format test,
 * the proof fuzzer and its seed generator: two columns (a, b), a' = b,
 * b' = a + b; public inputs a[0], b[0] and b[n-1]. */
#ifndef GSTARK_TESTS_FIB_AIR_H
#define GSTARK_TESTS_FIB_AIR_H

#include <stdlib.h>

#include "gstark/air.h"
#include "gstark/field.h"

static inline gs_air *fib_air(void) {
    gs_air *air = gs_air_new("fib", 2, 3);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0), gs_air_col(air, 1)));
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 1),
                                      gs_air_add(air, gs_air_col(air, 0), gs_air_col(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_public(air, 0));
    gs_air_boundary(air, 1, 0, gs_air_public(air, 1));
    gs_air_boundary(air, 1, -1, gs_air_public(air, 2));
    gs_air_finalize(air);
    return air;
}

/* The column-major trace from pub[0], pub[1]; sets pub[2] to the last b. */
static inline gs_fp *fib_trace(unsigned log_n, gs_fp pub[3]) {
    size_t n = (size_t)1 << log_n;
    gs_fp *m = malloc(2 * n * sizeof *m);
    if (!m) return NULL;
    m[0] = pub[0], m[n] = pub[1];
    for (size_t i = 0; i + 1 < n; i++) m[i + 1] = m[n + i], m[n + i + 1] = gs_fp_add(m[i], m[n + i]);
    pub[2] = m[2 * n - 1];
    return m;
}

#endif
