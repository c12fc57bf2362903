/* examples/multi_table.c: several tables linked by a LogUp bus, proven with
 * gs_prove_multi and checked with gs_verify_multi. Walkthrough:
 * docs/multi-table.md. Public API only; exits non-zero on any unexpected result.
 *
 * The statement: "Z = X + Y for two 1024-byte little-endian integers X and Y,
 * and the carry out of the top byte is pub[0]". Every byte is shown to be a
 * byte by looking it up in a table of 0..255:
 *
 *   table 0 "bigadd", 2^10 rows, one byte position a row
 *     columns  X, Y, Z, CIN (carry in), COUT (carry out)
 *     rows     X + Y + CIN = Z + 256 COUT,  COUT a bit,  CIN' = COUT
 *     bus      sends X, Y and Z on BUS_BYTE, multiplicity 1, on every row
 *   table 1 "bytes", 2^8 rows
 *     columns  V = 0, 1, ..., 255 and M (how often V was sent)
 *     bus      receives V on BUS_BYTE with multiplicity M
 *   table 2 "fib" (the built-in gs_airs_fib), 2^6 rows, no bus: a table
 *     without interactions rides in the same proof with a zero bus sum.
 *
 * The bus balances (sends minus receives sum to zero) exactly when the sent
 * values, as a multiset, are the values 0..255 counted M times: when every X,
 * Y and Z is a byte. Without the lookup, Z = 300 and COUT = 0 would satisfy
 * every row constraint; the negative check at the end proves just that. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/airs.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/verifier.h"

#define BUS_BYTE 1u                     /* any id; both sides must use the same one */
enum { X, Y, Z, CIN, COUT, ADD_COLS };  /* bigadd columns */
enum { V, M, BYTE_COLS };               /* bytes columns */
enum { T_ADD, T_BYTES, T_FIB, NT };     /* table order: part of the statement */
#define LOG_ADD 10
#define LOG_BYTES 8                     /* 256 rows: one per byte value */
#define LOG_FIB 6
#define CHEAT_ROW 5

static gs_air *finalize(gs_air *a) {
    gs_status s = a ? gs_air_finalize(a) : GS_ERR_NOMEM;
    if (s == GS_OK) return a;
    fprintf(stderr, "AIR: %s: %s\n", gs_status_str(s), a ? gs_air_error(a) : "");
    gs_air_free(a);
    return NULL;
}

/* Transition constraints hold on rows 0..n-2 only. A relation that must hold
 * on every row is added twice: on the current row (rows 0..n-2) and on the
 * next row (rows 1..n-1). */
static void add_row_relations(gs_air *a, int next) {
    gs_expr (*col)(gs_air *, uint32_t) = next ? gs_air_next : gs_air_col;
    gs_expr cout = col(a, COUT), one = gs_air_const(a, 1);
    gs_expr lhs = gs_air_add(a, gs_air_add(a, col(a, X), col(a, Y)), col(a, CIN));
    gs_expr rhs = gs_air_add(a, col(a, Z), gs_air_mul(a, gs_air_const(a, 256), cout));
    gs_air_transition(a, gs_air_sub(a, lhs, rhs));                      /* the byte sum */
    gs_air_transition(a, gs_air_mul(a, cout, gs_air_sub(a, cout, one))); /* COUT is 0 or 1 */
}

/* Prover and verifier both build the AIRs with these functions: the
 * fingerprints (which cover the bus interactions) must match. */
static gs_air *bigadd_air(void) {
    gs_air *a = gs_air_new("bigadd", ADD_COLS, 1);
    if (!a) return NULL;
    add_row_relations(a, 0);
    add_row_relations(a, 1);
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, CIN), gs_air_col(a, COUT)));
    gs_air_boundary(a, CIN, 0, gs_air_const(a, 0));
    gs_air_boundary(a, COUT, -1, gs_air_public(a, 0));
    /* A send: a tuple (here of width 1) and a multiplicity, both expressions
     * of the current row; the constant 1 sends on every row, the last one
     * included (bus interactions, unlike transitions, cover all rows). */
    gs_expr one = gs_air_const(a, 1);
    for (uint32_t c = X; c <= Z; c++) {
        gs_expr v = gs_air_col(a, c);
        gs_air_send(a, BUS_BYTE, &v, 1, one);
    }
    return finalize(a);
}

static gs_air *bytes_air(void) {
    gs_air *a = gs_air_new("bytes", BYTE_COLS, 0);
    if (!a) return NULL;
    /* V[0] = 0 and V' = V + 1 make V the row index, 0..255 with the height
     * pinned to 2^8 (unpinned, a prover could use 2^9 rows and "bytes" up to
     * 511). M is free: the prover chooses the counts, and the bus sum makes
     * them honest. */
    gs_air_fix_height(a, LOG_BYTES);
    gs_air_boundary(a, V, 0, gs_air_const(a, 0));
    gs_air_transition(a, gs_air_sub(a, gs_air_next(a, V),
                                    gs_air_add(a, gs_air_col(a, V), gs_air_const(a, 1))));
    gs_expr v = gs_air_col(a, V);
    gs_air_receive(a, BUS_BYTE, &v, 1, gs_air_col(a, M));
    return finalize(a);
}

/* The two bus tables' witnesses, column-major. cheat_row >= 0 plays a
 * dishonest prover: on that row it writes the unreduced sum (300) into Z and
 * no carry. Every row constraint still holds; only the bus can tell. */
static void fill(gs_fp *add, gs_fp *bytes, gs_fp *pub, long cheat_row) {
    size_t n = (size_t)1 << LOG_ADD, nb = (size_t)1 << LOG_BYTES;
    gs_fp *x = add + X * n, *y = add + Y * n, *z = add + Z * n;
    gs_fp *cin = add + CIN * n, *cout = add + COUT * n, *m = bytes + M * nb;
    for (size_t v = 0; v < nb; v++) bytes[V * nb + v] = v, m[v] = 0;
    uint64_t s = 0x9e3779b97f4a7c15ull, carry = 0; /* xorshift64: the operands */
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = s & 255, y[i] = (s >> 8) & 255;
        if ((long)i == cheat_row) x[i] = 200, y[i] = 100;
        uint64_t sum = x[i] + y[i] + carry;
        cin[i] = carry;
        z[i] = (long)i == cheat_row ? sum : sum & 255;
        cout[i] = (long)i == cheat_row ? 0 : sum >> 8;
        carry = cout[i];
        const gs_fp sent[3] = {x[i], y[i], z[i]};
        for (int k = 0; k < 3; k++)
            if (sent[k] < nb) m[sent[k]] = gs_fp_add(m[sent[k]], 1); /* 300 has no row */
    }
    pub[0] = carry;
}

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); goto done; } while (0)
#define EXPECT(call, want) do { gs_status got_ = (call); if (got_ != (want)) \
    FAIL("%s: %s, expected %s", #call, gs_status_str(got_), gs_status_str(want)); } while (0)

int main(void) {
    int rc = 1;
    gs_air *add_air = bigadd_air(), *byte_air = bytes_air();
    gs_air *vairs[NT] = {bigadd_air(), bytes_air(), NULL}; /* the verifier's own */
    gs_workload fib = {0};
    gs_fp *add = malloc(ADD_COLS * sizeof(gs_fp) << LOG_ADD);
    gs_fp *bytes = malloc(BYTE_COLS * sizeof(gs_fp) << LOG_BYTES);
    gs_proof *single = NULL;
    gs_multi_proof *proof = NULL, *parsed = NULL, *bad = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    gs_fp pub[1];
    if (!add_air || !byte_air || !vairs[T_ADD] || !vairs[T_BYTES] || !add || !bytes) FAIL("setup");
    EXPECT(gs_airs_fib(&fib, LOG_FIB, 1, 1), GS_OK);
    EXPECT(gs_airs_fib_air(&vairs[T_FIB]), GS_OK);
    fill(add, bytes, pub, -1);

    /* 128 bits as in custom_air.c: 12 grinding bits (per table) and 58 queries. */
    gs_params par = gs_params_default(128);
    par.grinding_bits = 12;
    par.num_queries = (128 - par.grinding_bits + par.log_blowup - 1) / par.log_blowup;
    EXPECT(gs_params_check(&par, 128), GS_OK);

    /* A bus balances only across tables: gs_prove refuses an AIR with one. */
    EXPECT(gs_prove(&single, add_air, add, LOG_ADD, pub, &par, NULL), GS_ERR_UNSUPPORTED);

    /* The tables, in statement order. pub may be NULL for a table without
     * public inputs; air_desc is free text copied into the proof. */
    gs_table_input in[NT] = {
        [T_ADD] = {.air = add_air, .trace = add, .log_n = LOG_ADD, .pub = pub,
                   .air_desc = "bigadd"},
        [T_BYTES] = {.air = byte_air, .trace = bytes, .log_n = LOG_BYTES, .air_desc = "bytes"},
        [T_FIB] = {.air = fib.air, .trace = fib.trace, .log_n = fib.log_n, .pub = fib.pub,
                   .air_desc = "fib"},
    };
    /* Scheduler knobs (0 = default): two tables at once, a 256 MiB gate.
     * The proof bytes do not depend on either. */
    gs_prove_stats st, ts[NT];
    gs_prove_opts opts = {.stats = &st, .table_stats = ts, .tables_parallel = 2,
                          .mem_budget = (size_t)256 << 20};
    EXPECT(gs_prove_multi(&proof, in, NT, &par, &opts), GS_OK);
    printf("proved %u tables in %.3f s (peak %.2f MB charged, gate peak %.2f MB)\n",
           proof->num_tables, st.total, st.peak_bytes / 1e6, st.gate_peak_bytes / 1e6);

    /* Each table publishes its bus sum (sends minus receives, in Fp3); the
     * sums cancel. A table without interactions has no aux trace and sum 0. */
    gs_fp3 total = gs_fp3_zero();
    for (uint32_t i = 0; i < NT; i++) {
        const gs_table_proof *t = &proof->tables[i].table;
        total = gs_fp3_add(total, t->bus_sum);
        printf("  table %u %-6s 2^%-2u rows, %u aux columns, bus sum %016llx.., %.3f s\n", i,
               proof->tables[i].air_desc, proof->tables[i].log_n, t->aux_cols,
               (unsigned long long)t->bus_sum.c[0], ts[i].total);
    }
    if (!gs_fp3_is_zero(total)) FAIL("the bus sums do not cancel");
    if (proof->tables[T_FIB].table.aux_cols || !gs_fp3_is_zero(proof->tables[T_FIB].table.bus_sum))
        FAIL("the bus-free table has an aux trace or a bus sum");

    /* ---- verifier side: the bytes, its own AIRs, the statement it expects ---- */
    EXPECT(gs_multi_proof_serialize(&buf, &len, proof), GS_OK);
    EXPECT(gs_multi_proof_parse(&parsed, buf, len), GS_OK);
    /* gs_verify_multi checks the proof for the public inputs and heights it
     * carries: the caller compares the publics (and the table count) with
     * what it wants proven; the bytes table's height is pinned in its AIR. */
    if (parsed->num_tables != NT || parsed->tables[T_ADD].num_public != 1 ||
        parsed->tables[T_ADD].pub[0] != pub[0] || parsed->tables[T_BYTES].num_public != 0 ||
        parsed->tables[T_FIB].num_public != 4 ||
        memcmp(parsed->tables[T_FIB].pub, fib.pub, 4 * sizeof *fib.pub) != 0)
        FAIL("the proof is about another statement");
    EXPECT(gs_verify_multi((const gs_air *const *)vairs, NT, parsed, 128), GS_OK);
    printf("verified: %zu bytes, carry out %llu\n", len, (unsigned long long)pub[0]);

    /* ---- a dishonest witness: Z = 300 on one row ---- */
    fill(add, bytes, pub, CHEAT_ROW);
    EXPECT(gs_air_check_trace(add_air, add, LOG_ADD, pub, NULL, NULL), GS_OK); /* rows: fine */
    /* Check mode (the default) proves, then refuses an unbalanced bus. */
    EXPECT(gs_prove_multi(&bad, in, NT, &par, &opts), GS_ERR_BUS_UNBALANCED);
    /* With skip_check the proof is made; every table's own checks pass, and
     * the verifier's bus check rejects it. */
    opts.skip_check = 1;
    EXPECT(gs_prove_multi(&bad, in, NT, &par, &opts), GS_OK);
    EXPECT(gs_verify_multi((const gs_air *const *)vairs, NT, bad, 128), GS_ERR_PROOF_BUS);
    printf("Z = 300 on row %d: refused by the prover's check (%s), rejected by the verifier "
           "(%s)\n", CHEAT_ROW, gs_status_str(GS_ERR_BUS_UNBALANCED),
           gs_status_str(GS_ERR_PROOF_BUS));
    /* Nor can the bus-free table absorb the difference: its sum enters no
     * transcript, so the verifier requires it to be exactly zero. */
    gs_fp3 off = gs_fp3_zero();
    for (uint32_t i = 0; i < NT; i++) off = gs_fp3_add(off, bad->tables[i].table.bus_sum);
    bad->tables[T_FIB].table.bus_sum = gs_fp3_neg(off);
    EXPECT(gs_verify_multi((const gs_air *const *)vairs, NT, bad, 128), GS_ERR_PROOF_FORMAT);
    rc = 0;
done:
    free(buf);
    gs_proof_free(single);
    gs_multi_proof_free(proof);
    gs_multi_proof_free(parsed);
    gs_multi_proof_free(bad);
    for (int i = 0; i < NT; i++) gs_air_free(vairs[i]);
    gs_air_free(add_air);
    gs_air_free(byte_air);
    gs_workload_free(&fib);
    free(add);
    free(bytes);
    printf("%s\n", rc ? "multi_table: FAILED" : "multi_table: OK");
    return rc;
}
