/* A claim's statement as the store names it (docs/batch.md, "Store", "Keys"):
 * its key from a stub proof that carries only the statement fields
 * (parameters, AIR fingerprints, heights, public inputs), before proving.
 * A fib claim's public inputs follow from its start and steps, and an AIR
 * without public inputs has none to know, so those keys need no trace;
 * the others (mix, synth vm, registered AIRs) need the workload. Also a
 * bound on a claim's proof size, for reservations. */
#include <stdlib.h>
#include <string.h>

#include "batch/run_internal.h"
#include "proof/shape.h"

gs_status bp_claim_multi(int *multi, const gs_claim *c) {
    if (c->kind == GS_CLAIM_SYNTH) { /* as `gstark prove --air synth`: always multi */
        *multi = 1;
        return GS_OK;
    }
    gs_batch_shapes sh;
    GS_TRY(gs_batch_shapes_make(&sh, c, NULL, 0));
    *multi = sh.n != 1 || gs_air_num_interactions(sh.airs[0]) != 0;
    gs_batch_shapes_free(&sh);
    return GS_OK;
}

/* Fills the stub's statement fields for table t. */
static void stub_entry(gs_proof *e, const gs_params *par, const gs_air *air, unsigned log_n,
                       gs_fp *pub, uint32_t num_pub) {
    memset(e, 0, sizeof *e);
    e->params = *par;
    e->air_fingerprint = gs_air_fingerprint(air);
    e->log_n = log_n;
    e->num_public = num_pub;
    e->pub = pub;
}

/* The key over the tables' statements; pubs[t] has the AIR's count. */
static gs_status stub_key(gs_digest *key, const gs_params *par, gs_air *const *airs,
                          const unsigned *log_n, gs_fp *const *pubs, uint32_t n, int multi) {
    if (!multi) {
        gs_proof p;
        stub_entry(&p, par, airs[0], log_n[0], pubs[0], gs_air_num_public(airs[0]));
        *key = gs_store_key_proof(&p);
        return GS_OK;
    }
    gs_multi_proof mp = {.params = *par, .num_tables = n, .tables = calloc(n, sizeof(gs_proof))};
    if (!mp.tables) return GS_ERR_NOMEM;
    for (uint32_t t = 0; t < n; t++)
        stub_entry(&mp.tables[t], par, airs[t], log_n[t], pubs[t], gs_air_num_public(airs[t]));
    *key = gs_store_key_multi(&mp);
    free(mp.tables);
    return GS_OK;
}

int bp_claim_key_early(gs_digest *key, const gs_claim *c, int multi, gs_status *st) {
    gs_batch_shapes sh;
    *st = gs_batch_shapes_make(&sh, c, NULL, 0);
    if (*st != GS_OK) return 0;
    int known = 1;
    gs_fp(*fib_pub)[4] = NULL;
    gs_fp *pubs[GS_SYNTH_MAX_TABLES] = {0};
    if (c->kind == GS_CLAIM_FIB) {
        /* Table i starts where the previous one leads, and its publics are
         * (a[0], b[0], b[n-1], a[n-1]). */
        fib_pub = calloc(sh.n ? sh.n : 1, sizeof *fib_pub);
        if (!fib_pub) {
            *st = GS_ERR_NOMEM;
            gs_batch_shapes_free(&sh);
            return 0;
        }
        gs_fp x[2] = {c->w.fib.start[0], c->w.fib.start[1]};
        for (uint32_t t = 0; t < sh.n; t++) {
            gs_fp last[2];
            gs_batch_fib_advance(last, x, ((uint64_t)1 << sh.log_n[t]) - 1);
            fib_pub[t][0] = x[0], fib_pub[t][1] = x[1];
            fib_pub[t][2] = last[1], fib_pub[t][3] = last[0];
            pubs[t] = fib_pub[t];
            gs_fib_next_state(x, fib_pub[t], 4);
        }
    } else {
        for (uint32_t t = 0; t < sh.n; t++)
            if (gs_air_num_public(sh.airs[t])) known = 0;
    }
    if (known) *st = stub_key(key, &c->params, sh.airs, sh.log_n, pubs, sh.n, multi);
    free(fib_pub);
    gs_batch_shapes_free(&sh);
    return known && *st == GS_OK;
}

gs_status bp_claim_key_workload(gs_digest *key, const gs_claim *c, const gs_multi_workload *w,
                                int multi) {
    if (!w->num_tables || w->num_tables > GS_SYNTH_MAX_TABLES) return GS_ERR_INVALID_ARG;
    gs_air *airs[GS_SYNTH_MAX_TABLES];
    unsigned log_n[GS_SYNTH_MAX_TABLES];
    gs_fp *pubs[GS_SYNTH_MAX_TABLES];
    for (uint32_t t = 0; t < w->num_tables; t++) {
        airs[t] = w->tables[t].air;
        log_n[t] = w->tables[t].log_n;
        pubs[t] = w->tables[t].pub;
    }
    return stub_key(key, &c->params, airs, log_n, pubs, w->num_tables, multi);
}

gs_status gs_batch_claim_key(gs_digest *key, const gs_claim *c) {
    if (!key || !c) return GS_ERR_INVALID_ARG;
    int multi;
    GS_TRY(bp_claim_multi(&multi, c));
    gs_status s;
    if (bp_claim_key_early(key, c, multi, &s)) return GS_OK;
    if (s != GS_OK) return s;
    gs_multi_workload w;
    GS_TRY(gs_claim_workload(&w, c));
    s = bp_claim_key_workload(key, c, &w, multi);
    gs_multi_workload_free(&w);
    return s;
}

static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

/* Per table: the queries' openings (rows and paths of the trace, the
 * quotient chunks, the aux columns and every FRI layer) dominate; then the
 * out-of-domain values, the Merkle caps (roots) and the final polynomial. Aux columns are
 * not known from the AIR alone: one per interaction is an upper bound for
 * the built-in AIRs. A quarter and 4 KiB per table more for the rest. */
size_t bp_proof_estimate(const gs_claim *c) {
    gs_batch_shapes sh;
    if (gs_batch_shapes_make(&sh, c, NULL, 0) != GS_OK) return (size_t)16 << 20;
    size_t total = 4096;
    for (uint32_t t = 0; t < sh.n; t++) {
        gs_shape s;
        uint32_t cols = gs_air_num_cols(sh.airs[t]), chunks = gs_air_num_chunks(sh.airs[t]);
        if (gs_shape_make(&s, &c->params, sh.log_n[t], cols, chunks ? chunks : 1) != GS_OK) {
            total = sat_add(total, (size_t)16 << 20);
            continue;
        }
        size_t aux = gs_air_num_interactions(sh.airs[t]);
        size_t per_q = ((8 * (size_t)cols + 24 * (size_t)s.chunks + 24 * aux) << s.lde_fold) +
                       32 * (size_t)s.lde_path_len * (aux ? 3 : 2) + 8 * s.fri_row_len +
                       32 * s.fri_path_len;
        s.aux = 1; /* caps: count an aux tree always (an upper bound, as before caps) */
        size_t b = (size_t)s.queries * per_q + 48 * (size_t)cols + 24 * (size_t)s.chunks +
                   48 * aux + 32 * gs_shape_cap_len(&s) + 24 * (size_t)s.final_len +
                   8 * (size_t)gs_air_num_public(sh.airs[t]) + 512;
        total = sat_add(total, b + b / 4 + 4096);
    }
    gs_batch_shapes_free(&sh);
    return total;
}
