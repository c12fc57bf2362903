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
#include "gstark/parallel.h"
#include "gstark/prover.h"

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

/* A fib proof of 2^log_n rows from a0 = a1 = 1 into *pf, with `threads`
 * worker threads (0: the default, which is restored after). */
static inline gs_status fib_prove(gs_proof **pf, const gs_air *air, unsigned log_n, const gs_params *par,
                                  unsigned threads) {
    gs_fp pub[4] = {1, 1, 0, 0};
    gs_fp *m = fib_trace(log_n, pub);
    *pf = NULL;
    gs_threads_set(threads);
    gs_status s = m ? gs_prove(pf, air, m, log_n, pub, par, NULL) : GS_ERR_NOMEM;
    gs_threads_set(0);
    free(m);
    return s;
}

#endif
