/* The workload container and the Fibonacci AIR with its trace. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/airs.h"

void gs_workload_free(gs_workload *w) {
    if (!w) return;
    gs_air_free(w->air);
    free(w->trace);
    free(w->pub);
    memset(w, 0, sizeof *w);
}

gs_status gs_airs_fib_air(gs_air **out) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    gs_air *air = gs_air_new("fib", 2, 4);
    if (!air) return GS_ERR_NOMEM;
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0), gs_air_col(air, 1)));
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 1),
                                      gs_air_add(air, gs_air_col(air, 0), gs_air_col(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_public(air, 0));
    gs_air_boundary(air, 1, 0, gs_air_public(air, 1));
    gs_air_boundary(air, 1, -1, gs_air_public(air, 2));
    /* The whole last state is public, so a run split into consecutive
     * proofs chains: the next starts from (b[n-1], a[n-1] + b[n-1]). */
    gs_air_boundary(air, 0, -1, gs_air_public(air, 3));
    gs_status s = gs_air_finalize(air);
    if (s != GS_OK) {
        gs_air_free(air);
        return s; /* out of memory: the builder's only possible failure here */
    }
    *out = air;
    return GS_OK;
}

gs_status gs_airs_fib(gs_workload *out, unsigned log_n, gs_fp a0, gs_fp a1) {
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (log_n < 1 || log_n > GS_AIRS_FIB_MAX_LOG_N) return GS_ERR_INVALID_ARG;
    size_t n = (size_t)1 << log_n;
    if (n > SIZE_MAX / 2 / sizeof(gs_fp)) return GS_ERR_NOMEM;
    gs_workload w = {NULL, NULL, log_n, NULL};
    gs_status s = gs_airs_fib_air(&w.air);
    if (s != GS_OK) return s;
    w.trace = malloc(2 * n * sizeof *w.trace);
    w.pub = malloc(4 * sizeof *w.pub);
    if (!w.trace || !w.pub) {
        gs_workload_free(&w);
        return GS_ERR_NOMEM;
    }
    gs_fp *a = w.trace, *b = w.trace + n;
    a[0] = gs_fp_from_u64(a0);
    b[0] = gs_fp_from_u64(a1);
    for (size_t i = 0; i + 1 < n; i++) {
        a[i + 1] = b[i];
        b[i + 1] = gs_fp_add(a[i], b[i]);
    }
    w.pub[0] = a[0];
    w.pub[1] = b[0];
    w.pub[2] = b[n - 1];
    w.pub[3] = a[n - 1];
    *out = w;
    return GS_OK;
}
