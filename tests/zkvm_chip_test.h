/* What the zkVM's table tests share: their proof parameters, the requester
 * and memory stand-in tables that feed a chip in isolation, and the lookup
 * counts read off a trace through the AIR's own interactions (so a trace
 * edited by hand gets the range and byte counts that best serve it). */
#ifndef GSTARK_TESTS_ZKVM_CHIP_TEST_H
#define GSTARK_TESTS_ZKVM_CHIP_TEST_H

#include <string.h>

#include "gstark/gstark.h"
#include "test_util.h"
#include "zkvm/zk_air.h"

/* blowup 4, 80 bits from queries alone */
static inline gs_params zkt_params(void) {
    gs_params p = {2, 3, 0, 40, 1, 0, 0, 0, 0};
    return p;
}

/* width tuple columns and a multiplicity column m (boolean): sends the
 * tuple on `bus` with multiplicity m. */
static inline gs_air *zkt_requester_air(const char *name, uint32_t bus, uint32_t width) {
    gs_air *a = gs_air_new(name, width + 1, 0);
    gs_expr t[GS_AIR_MAX_TUPLE], m = gs_air_col(a, width);
    for (uint32_t i = 0; i < width; i++) t[i] = gs_air_col(a, i);
    gs_air_transition(a, gs_air_mul(a, m, gs_air_sub(a, m, gs_air_const(a, 1))));
    gs_air_send(a, bus, t, width, m);
    CHECK(gs_air_finalize(a) == GS_OK);
    return a;
}

/* The memory stand-in: columns addr, init, final, ts, w, m; sends (addr,
 * init, 0, w) and receives (addr, final, ts, w), multiplicity m. */
static inline gs_air *zkt_memory_air(const char *name) {
    gs_air *a = gs_air_new(name, 6, 0);
    gs_expr c[6];
    for (uint32_t i = 0; i < 6; i++) c[i] = gs_air_col(a, i);
    gs_air_transition(a, gs_air_mul(a, c[5], gs_air_sub(a, c[5], gs_air_const(a, 1))));
    gs_expr in[4] = {c[0], c[1], gs_air_const(a, 0), c[4]};
    gs_expr out[4] = {c[0], c[2], c[3], c[4]};
    gs_air_send(a, ZK_BUS_MEM, in, 4, c[5]);
    gs_air_receive(a, ZK_BUS_MEM, out, 4, c[5]);
    CHECK(gs_air_finalize(a) == GS_OK);
    return a;
}

/* Counts one interaction if it is a send to the range or byte table whose
 * tuple the table holds (a tuple outside it can be counted nowhere;
 * multiplicities above 1000 are a field value no honest row sends). */
static inline void zkt_count(void *ctx, uint64_t row, uint32_t bus, int sign, gs_fp m,
                             const gs_fp *v, uint32_t width) {
    zk_lookups *lk = ctx;
    (void)row;
    if (sign != 1 || m == 0 || m > 1000 || width < 1) return;
    if (bus == ZK_BUS_RANGE && v[0] < (1u << 16)) lk->range16[v[0]] += (uint32_t)m;
    if (bus != ZK_BUS_BYTE || width != 4 || v[0] < 1 || v[0] >= ZK_BYTE_NUM_OPS || v[1] > 255 ||
        v[2] > 255)
        return;
    uint32_t x = (uint32_t)v[1], y = (uint32_t)v[2];
    gs_fp z = v[0] == ZK_BYTE_AND ? (x & y) : v[0] == ZK_BYTE_OR ? (x | y)
            : v[0] == ZK_BYTE_XOR ? (x ^ y) : 0;
    if (v[3] == z) lk->byte[v[0] - 1][x << 8 | y] += (uint32_t)m;
}

/* Adds the lookups table t's rows make (through air's interactions). */
static inline void zkt_recount(zk_lookups *lk, const gs_air *air, const zk_table *t) {
    CHECK(zk_each_interaction(air, t->cols, t->log_n, NULL, zkt_count, lk) == GS_OK);
}

#endif
