/* Branch-free Fp add and multiply for the trace generators: the same
 * results as gs_fp_add / gs_fp_mul (canonical in, canonical out), but on
 * pseudorandom values the branches of those mispredict about half the time,
 * which dominated the generator's cost. Host only. */
#ifndef GSTARK_AIRS_FP_BF_H
#define GSTARK_AIRS_FP_BF_H

#include <stdint.h>

#include "gstark/field.h"

static inline gs_fp gs_airs_fp_add(gs_fp a, gs_fp b) {
    uint64_t s = a + b;
    s += (0 - (uint64_t)(s < a)) & GS_FP_EPSILON; /* carry: a + b - p, already < p */
    return s - ((0 - (uint64_t)(s >= GS_FP_P)) & GS_FP_P);
}

/* hi * 2^64 + lo with 2^64 = 2^32 - 1 and 2^96 = -1 (mod p). */
static inline gs_fp gs_airs_fp_mul(gs_fp a, gs_fp b) {
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t hi_hi = hi >> 32, hi_lo = hi & 0xFFFFFFFFull;
    uint64_t t0 = lo - hi_hi;
    t0 -= (0 - (uint64_t)(lo < hi_hi)) & GS_FP_EPSILON;
    uint64_t t1 = hi_lo * GS_FP_EPSILON;
    uint64_t r = t0 + t1;
    r += (0 - (uint64_t)(r < t1)) & GS_FP_EPSILON;
    return r - ((0 - (uint64_t)(r >= GS_FP_P)) & GS_FP_P);
}

#endif
