/* The zkVM's two fixed lookup tables (src/zkvm/zk_air.h): the 16-bit range
 * table and the byte table. Their value columns are preprocessed: the
 * verifier builds them (the fill functions with all counts zero) and checks
 * them against the proof (gs_verify_multi_fixed), so no constraint has to pin
 * them down; the multiplicity columns are the lookup counts the chips made
 * while filling. A receive with multiplicity m balances m sends of the row's
 * tuple, so a tuple outside the table cannot be sent at all.
 *
 * Range (2^16 rows): v, m; receives (v) on ZK_BUS_RANGE with multiplicity m.
 * v' = v + 1 and v = 0 on the first row also hold (cheap, and they make the
 * column's shape plain in the AIR itself).
 * Byte (2^16 rows, row = x * 256 + y): x, y, x & y, x | y, x ^ y, then the
 * multiplicities of AND, OR, XOR and RANGE; receives (AND, x, y, x & y),
 * (OR, x, y, x | y), (XOR, x, y, x ^ y) and (RANGE, x, y, 0) on ZK_BUS_BYTE. */
#include "zkvm/zk_air.h"

#define LOOKUP_LOG_N 16u
#define LOOKUP_ROWS (1u << LOOKUP_LOG_N)

static gs_air *finish(gs_air *air) {
    if (air && gs_air_finalize(air) != GS_OK) {
        gs_air_free(air);
        return NULL;
    }
    return air;
}

gs_air *zk_range_air(void) {
    gs_air *air = gs_air_new("zkvm-range", 2, 0);
    if (!air) return NULL;
    gs_expr v = gs_air_col(air, 0);
    gs_air_transition(air, gs_air_sub(air, gs_air_next(air, 0), gs_air_add(air, v, gs_air_const(air, 1))));
    gs_air_boundary(air, 0, 0, gs_air_const(air, 0));
    gs_air_receive(air, ZK_BUS_RANGE, &v, 1, gs_air_col(air, 1));
    return finish(air);
}

gs_status zk_range_fill(zk_table *out, const zk_lookups *lk) {
    gs_status s = zk_table_alloc(out, 2, LOOKUP_ROWS);
    if (s != GS_OK) return s;
    gs_fp *v = zk_col(out, 0), *m = zk_col(out, 1);
    for (uint32_t r = 0; r < LOOKUP_ROWS; r++) {
        v[r] = r;
        m[r] = lk ? lk->range16[r] : 0;
    }
    return GS_OK;
}

gs_air *zk_byte_air(void) {
    gs_air *air = gs_air_new("zkvm-byte", ZK_BYTE_FIXED + ZK_BYTE_NUM_OPS - 1, 0);
    if (!air) return NULL;
    gs_expr x = gs_air_col(air, 0), y = gs_air_col(air, 1);
    for (unsigned op = ZK_BYTE_AND; op < ZK_BYTE_NUM_OPS; op++) {
        /* AND, OR, XOR: z in columns 2, 3, 4; RANGE: z = 0 */
        gs_expr z = op == ZK_BYTE_RANGE ? gs_air_const(air, 0) : gs_air_col(air, 1 + op);
        gs_expr t[4] = {gs_air_const(air, op), x, y, z};
        gs_air_receive(air, ZK_BUS_BYTE, t, 4, gs_air_col(air, ZK_BYTE_FIXED + op - 1));
    }
    return finish(air);
}

gs_status zk_byte_fill(zk_table *out, const zk_lookups *lk) {
    gs_status s = zk_table_alloc(out, ZK_BYTE_FIXED + ZK_BYTE_NUM_OPS - 1, LOOKUP_ROWS);
    if (s != GS_OK) return s;
    gs_fp *c[ZK_BYTE_FIXED + ZK_BYTE_NUM_OPS - 1];
    for (uint32_t k = 0; k < out->num_cols; k++) c[k] = zk_col(out, k);
    for (uint32_t r = 0; r < LOOKUP_ROWS; r++) {
        uint32_t x = r >> 8, y = r & 0xffu;
        c[0][r] = x, c[1][r] = y, c[2][r] = x & y, c[3][r] = x | y, c[4][r] = x ^ y;
        for (unsigned op = 0; op < ZK_BYTE_NUM_OPS - 1; op++)
            c[ZK_BYTE_FIXED + op][r] = lk ? lk->byte[op][r] : 0;
    }
    return GS_OK;
}
