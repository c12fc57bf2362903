/* Parameters for a provable security target (gs_params_for_provable): for
 * each blowup the AIRs allow, the least query count whose provable level
 * (docs/protocol.md, "Security": the union bound over the tables, or a
 * shared FRI's own bound, as gs_multi_proof_security_provable computes it)
 * reaches the target, and of
 * those the one whose version 3 proof is estimated smallest. */
#include <math.h>
#include <stdlib.h>

#include "air/logup.h"
#include "gstark/prover.h"
#include "proof/security.h"
#include "proof/shape.h"
#include "prover/prover_internal.h"

typedef struct {
    unsigned log_n;
    uint32_t cols, chunks, aux;
} table_shape;

static uint32_t polys_of(const table_shape *t) { return 2 * t->cols + t->chunks + 2 * t->aux; }

/* The provable bits of a proof of these tables with p (0: out of range), as
 * gs_multi_proof_security_provable computes them: the union over the tables,
 * or with a shared FRI its own bound (log_n and polys: n entries of scratch). */
static unsigned provable_bits(const gs_params *p, const table_shape *t, uint32_t n, uint32_t *log_n,
                              uint32_t *polys) {
    double e = -INFINITY;
    if (p->shared_fri) {
        for (uint32_t i = 0; i < n; i++) log_n[i] = t[i].log_n, polys[i] = polys_of(&t[i]);
        e = gs_security_shared_log2_error(p, log_n, polys, n);
        if (!(e < 0)) return 0;
    } else {
        for (uint32_t i = 0; i < n; i++) {
            double ei = gs_security_table_log2_error(p, t[i].log_n, polys_of(&t[i]));
            if (!(ei < 0)) return 0;
            e = gs_security_log2_add(e, ei);
        }
    }
    double bits = floor(-e);
    if (!(bits > 0)) return 0;
    return bits > GS_HASH_COLLISION_BITS ? GS_HASH_COLLISION_BITS : (unsigned)bits;
}

/* Digests a batched opening of q leaves of a tree of depth d with a cap of
 * height c sends, about: the paths share their top log2 q levels, and stop
 * below the cap's c. */
static double nodes(double q, unsigned d, unsigned c) {
    if (c >= d) return 0;
    double shared = log2(q) > c ? log2(q) : c;
    return d > shared ? q * (d - shared) : q;
}

/* The version 3 proof's bytes, estimated from its shape (the openings
 * dominate: rows once per query, Merkle nodes once per batched tree). With a
 * shared FRI the tables keep their trees and rows and answer the plan's
 * queries, and the FRI's layers, final polynomial and caps are counted once
 * (log_n: n entries of scratch). */
static double proof_bytes(const gs_params *p, const table_shape *t, uint32_t n, uint32_t *log_n) {
    double total = 64;
    gs_fri_plan plan = {0};
    if (p->shared_fri) {
        for (uint32_t i = 0; i < n; i++) log_n[i] = t[i].log_n;
        if (gs_fri_plan_make(&plan, p, log_n, n) != GS_OK) return INFINITY;
        double q = plan.queries;
        for (uint32_t l = 0; l < plan.layers; l++)
            total += q * 8.0 * (3u << plan.folds[l]) +
                     32 * nodes(q, gs_fri_plan_depth(&plan, l), plan.cap_log[l]);
        total += 24.0 * plan.final_len + 32.0 * (double)plan.cap_len + 4 * q;
        /* Shared trees: one path per round for all tables (the aux tree
         * counted always), at the largest LDE's depth. */
        if (p->shared_fri == GS_SHARED_TREES) total += 3 * 32 * (nodes(q, plan.log_size, 0) + 1);
    }
    for (uint32_t i = 0; i < n; i++) {
        gs_shape s;
        if (gs_shape_make(&s, p, t[i].log_n, t[i].cols, t[i].chunks) != GS_OK) return INFINITY;
        if (p->shared_fri) gs_shape_shared_table(&s, plan.queries);
        double q = s.queries;
        total += q * (8.0 * t[i].cols + 24.0 * t[i].chunks + 24.0 * t[i].aux) * (1u << s.lde_fold);
        if (!p->shared_fri) total += 4 * q;
        if (!s.shared_trees) total += 32 * nodes(q, s.lde_depth, s.lde_cap) * (t[i].aux ? 3 : 2);
        for (uint32_t l = s.fri_first; l < s.layers; l++) {
            unsigned d = gs_fri_depth(&s, l);
            total += q * 8.0 * (3u << gs_fri_folds(&s, l)) + 32 * nodes(q, d, gs_cap_log(&s, d));
        }
        s.aux = 1; /* the caps (roots), an aux tree counted always as before caps */
        total += 24.0 * (s.final_len + 2 * t[i].cols + t[i].chunks + 2 * t[i].aux) +
                 32.0 * (double)gs_shape_cap_len(&s);
    }
    return total;
}

/* What the estimates need of a table: its height, columns, quotient chunks
 * and aux columns (GS_ERR_INVALID_ARG for a NULL AIR). */
static gs_status shape_of(table_shape *t, const gs_air *air, unsigned log_n) {
    if (!air) return GS_ERR_INVALID_ARG;
    gs_logup L;
    GS_TRY(gs_logup_layout(&L, air));
    *t = (table_shape){log_n, gs_air_num_cols(air), gs_air_num_chunks(air), L.aux_cols};
    gs_logup_free(&L);
    return GS_OK;
}

double gs_params_proof_bytes(const gs_params *p, const gs_air *const *airs, const unsigned *log_n,
                             uint32_t n) {
    table_shape *t = calloc(n ? n : 1, sizeof *t);
    uint32_t *scratch = calloc(n ? n : 1, sizeof *scratch);
    double r = t && scratch ? 0 : INFINITY;
    for (uint32_t i = 0; r == 0 && i < n; i++)
        if (shape_of(&t[i], airs[i], log_n[i]) != GS_OK) r = INFINITY;
    if (r == 0) r = proof_bytes(p, t, n, scratch);
    free(t), free(scratch);
    return r;
}

gs_status gs_params_for_provable(gs_params *out, unsigned bits, const gs_air *const *airs,
                                 const unsigned *log_n, uint32_t n, const gs_params *base,
                                 unsigned min_log_blowup, unsigned max_log_blowup,
                                 unsigned *reachable) {
    if (reachable) *reachable = 0;
    if (!out || !airs || !log_n || !base || n == 0 || bits == 0 || bits > GS_MAX_SECURITY_BITS ||
        min_log_blowup < 1 || max_log_blowup > 6 || min_log_blowup > max_log_blowup)
        return GS_ERR_INVALID_ARG;
    table_shape *t = calloc(n, sizeof *t);
    uint32_t *scratch = calloc(2 * (size_t)n, sizeof *scratch);
    if (!t || !scratch) {
        free(t), free(scratch);
        return GS_ERR_NOMEM;
    }
    gs_status r = GS_OK;
    unsigned min_lb = min_log_blowup;
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        r = shape_of(&t[i], airs[i], log_n[i]);
        if (r != GS_OK) break;
        /* The blowup must cover the constraint degree. */
        while (min_lb <= max_log_blowup && gs_air_check_degree(airs[i], min_lb) != GS_OK) min_lb++;
    }
    double best = INFINITY;
    unsigned most = 0;
    for (unsigned lb = min_lb; r == GS_OK && lb <= max_log_blowup; lb++) {
        gs_params p = *base;
        p.log_blowup = lb;
        p.num_queries = 1024;
        unsigned top = provable_bits(&p, t, n, scratch, scratch + n);
        if (top > most) most = top;
        if (top < bits) continue;
        /* The level grows with the query count: the least that reaches it,
         * and no fewer than the verifier's conjectured minimum needs. */
        uint32_t lo = 1, hi = 1024;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            p.num_queries = mid;
            if (provable_bits(&p, t, n, scratch, scratch + n) >= bits) hi = mid;
            else lo = mid + 1;
        }
        p.num_queries = lo;
        while (p.num_queries < 1024 && gs_params_security(&p) < GS_MIN_SECURITY_BITS) p.num_queries++;
        if (gs_params_check(&p, GS_MIN_SECURITY_BITS) != GS_OK) continue;
        double size = proof_bytes(&p, t, n, scratch);
        if (size < best) best = size, *out = p;
    }
    free(t), free(scratch);
    if (reachable) *reachable = most;
    if (r != GS_OK) return r;
    return best < INFINITY ? GS_OK : GS_ERR_PROOF_PARAMS;
}
