/* Per-table memory estimates: the formulas, in one place. They mirror what
 * prover.c allocates through the backend (charged bytes) and when it frees
 * it: the table's peak is the largest of a few moments, each an upper bound
 * of what is held then (tests/test_estimate.c and tests/test_budget.c check
 * them against the measured peaks):
 *   the main commitment: coefficients, LDE and tree (on the device, a bus
 *     table's evaluations too, kept for the aux trace; and any table's
 *     evaluations until its trace check, before the tree);
 *   end of the quotient round: that; aux trace, LDE and tree; chunk
 *     coefficients; and the larger of the quotient on the LDE domain (freed
 *     once split into chunks) and the chunks' LDE and tree;
 *   the out-of-domain values (lean only, below): the chunk and aux
 *     coefficients are freed after their values, then the main coefficients
 *     are made again from the trace;
 *   on the CPU, whose out-of-domain values come from the LDEs
 *     (eval_values_at), no coefficients are held past their LDE: the aux
 *     LDE's making (main LDE and tree, aux coefficients and LDE) is a
 *     moment of its own;
 *   end of FRI: the coefficients freed; the LDEs and trees of main, aux and
 *     chunks, the DEEP word and every FRI layer with its tree.
 * Lean (a table that does not fit the budget otherwise): the main
 * coefficients are freed once the LDE is made and interpolated again from
 * the trace for the out-of-domain values, so they are not held through the
 * quotient round. */
#include <stdlib.h>

#include "air/logup.h"
#include "gstark/cuda_merkle.h"
#include "gstark/merkle.h"
#include "gstark/prover.h"
#include "merkle/merkle_internal.h"
#include "proof/shape.h"
#include "prover/prover_internal.h"

/* A tree over `cols` columns of 2^log_rows: both backends keep only its
 * upper levels (gs_merkle_skip_cpu, gs_merkle_skip_for); the device tree's
 * commit also holds a scratch of leaves for a while
 * (gs_cuda_merkle_tree_bytes_skip). */
static size_t tree_bytes(unsigned log_rows, size_t cols, int cpu) {
    if (cpu) return gs_merkle_tree_bytes_skip(log_rows, gs_merkle_skip_cpu(cols, log_rows));
    return gs_cuda_merkle_tree_bytes_skip(log_rows, gs_merkle_skip_for(cols, log_rows));
}

/* Either backend: the larger of the two, field by field. */
gs_status gs_estimate_table(gs_mem_estimate *out, const gs_air *air, unsigned log_n,
                            const gs_params *params) {
    gs_mem_estimate c;
    GS_TRY(gs_estimate_table_on(out, air, log_n, params, GS_BACKEND_CPU));
    GS_TRY(gs_estimate_table_on(&c, air, log_n, params, GS_BACKEND_CUDA));
    if (c.main_commit > out->main_commit) out->main_commit = c.main_commit;
    if (c.chain > out->chain) out->chain = c.chain;
    if (c.total > out->total) out->total = c.total;
    if (c.lean_total > out->lean_total) out->lean_total = c.lean_total;
    if (c.retained > out->retained) out->retained = c.retained;
    return GS_OK;
}

/* What committing an LDE of `cols` leaf columns holds: its tree, or with
 * shared trees its 2^lde_depth row digests. */
static size_t commit_bytes(const gs_shape *s, size_t cols, int cpu) {
    if (s->shared_trees) return sizeof(gs_digest) << s->lde_depth;
    return tree_bytes(s->lde_depth, cols, cpu);
}

static gs_status shared_on(size_t *out, const gs_air *const *airs, const unsigned *log_n, uint32_t n,
                           const gs_params *params, gs_backend_kind kind) {
    uint32_t *h = calloc(n, sizeof *h);
    gs_mem_estimate *e = calloc(n, sizeof *e);
    gs_status r = h && e ? GS_OK : GS_ERR_NOMEM;
    for (uint32_t i = 0; r == GS_OK && i < n; i++) {
        r = gs_estimate_table_on(&e[i], airs[i], log_n[i], params, kind);
        h[i] = log_n[i];
    }
    gs_fri_plan f;
    if (r == GS_OK) r = gs_fri_plan_make(&f, params, h, n);
    if (r == GS_OK)
        *out = params->shared_fri == GS_SHARED_TREES
                   ? gs_prover_trees_need(e, n, gs_estimate_shared_fri(&f, kind), f.log_size)
                   : gs_prover_shared_need(e, n, gs_estimate_shared_fri(&f, kind), NULL, NULL);
    free(h), free(e);
    return r;
}

gs_status gs_estimate_shared(size_t *out, const gs_air *const *airs, const unsigned *log_n,
                             uint32_t n, const gs_params *params, gs_backend_kind kind) {
    if (!out || !airs || !log_n || n == 0 || !params) return GS_ERR_INVALID_ARG;
    gs_params eff = gs_prover_effective_params(params);
    params = &eff;
    for (uint32_t i = 0; i < n; i++)
        if (!airs[i]) return GS_ERR_INVALID_ARG;
    if (kind != GS_BACKEND_AUTO) return shared_on(out, airs, log_n, n, params, kind);
    size_t a = 0, b = 0;
    GS_TRY(shared_on(&a, airs, log_n, n, params, GS_BACKEND_CPU));
    GS_TRY(shared_on(&b, airs, log_n, n, params, GS_BACKEND_CUDA));
    *out = a > b ? a : b;
    return GS_OK;
}

size_t gs_estimate_shared_fri(const gs_fri_plan *f, gs_backend_kind kind) {
    int cpu = kind == GS_BACKEND_CPU;
    size_t fp = sizeof(gs_fp), bytes = 0;
    /* Layer 0 is the first table's DEEP word (counted in its retained); the
     * folded words and every layer's tree are the FRI's own. The mixed case
     * (some tables on the device, some fallen back) copies a word to the
     * host: not counted (a fallback is over the device budget anyway). */
    for (uint32_t l = 0; l < f->layers; l++) {
        unsigned depth = gs_fri_plan_depth(f, l);
        bytes += 3 * ((size_t)1 << depth) * fp;
        bytes += tree_bytes(depth, (size_t)3 << f->folds[l], cpu);
    }
    return bytes;
}

gs_status gs_estimate_table_on(gs_mem_estimate *out, const gs_air *air, unsigned log_n,
                               const gs_params *params, gs_backend_kind kind) {
    if (!out || !air) return GS_ERR_INVALID_ARG;
    gs_shape s;
    GS_TRY(gs_shape_make(&s, params, log_n, gs_air_num_cols(air), gs_air_num_chunks(air)));
    gs_logup L;
    GS_TRY(gs_logup_layout(&L, air));
    size_t A = L.aux_cols;
    gs_logup_free(&L);
    size_t n = (size_t)1 << s.log_n, N = (size_t)1 << s.log_size, fp = sizeof(gs_fp);
    int cpu = kind == GS_BACKEND_CPU;
    /* The trace, aux and chunk trees: 2^lde_depth leaves of lde_fold-wide
     * rows (with coset leaves), else one a row; with shared trees the
     * table's row digests instead (held until the round's tree is built, on
     * the device with CUDA; the shared trees are the proof's, in
     * gs_prover_trees_need). */
    unsigned f = s.lde_fold;
    size_t C = s.cols, K = s.chunks, tree = commit_bytes(&s, C << f, cpu);
    /* Coefficients, LDE and tree; on the device a bus table's evaluations
     * too (kept for the aux trace), and any table's until its trace check,
     * done before the tree. */
    size_t main_coeffs = C * n * fp, evals = C * n * fp;
    size_t main_held = main_coeffs + C * N * fp + tree + (!cpu && A ? evals : 0);
    size_t before_tree = main_coeffs + C * N * fp + (cpu ? 0 : evals);
    out->main_commit = main_held > before_tree ? main_held : before_tree;
    /* The CPU takes the out-of-domain values from the LDEs (eval_values_at):
     * every set of coefficients goes once its LDE is made. */
    size_t main_kept = cpu ? C * N * fp + tree : main_held;
    size_t aux_coeffs = 3 * A * n * fp, aux_held = A ? 3 * A * N * fp + commit_bytes(&s, 3 * A << f, cpu) : 0;
    size_t aux_kept = aux_held + (cpu ? 0 : aux_coeffs);
    /* (one chunk: its values are the quotient's, its value at z the
     * composition's: no coefficients) */
    size_t chunk_coeffs = K > 1 ? 3 * K * n * fp : 0, chunk_held = 3 * K * N * fp + commit_bytes(&s, 3 * K << f, cpu);
    size_t quot = 3 * N * fp;
    size_t at_aux = main_kept + aux_coeffs + aux_held; /* the aux LDE made, its coefficients not yet gone */
    size_t at_quotient = main_kept + aux_kept + chunk_coeffs + (quot > chunk_held ? quot : chunk_held);
    if (at_aux > at_quotient) at_quotient = at_aux;
    /* The DEEP word and the FRI layers with their trees (a layer's folds run
     * in one pass: no intermediate words; layer 0 has none with coset leaves,
     * and then no word either where the DEEP word is folded as it is made,
     * deep_fold: on the CPU always, on the device when lean). */
    size_t fri = 0, deep_word = s.fri_first ? 3 * N * fp : 0;
    for (uint32_t l = s.fri_first; l <= s.layers; l++) {
        unsigned ls = l < s.layers ? gs_fri_log_size(&s, l) : s.log_size - s.folds;
        fri += 3 * ((size_t)1 << ls) * fp;
        if (l < s.layers && l >= s.fri_first)
            fri += tree_bytes(ls - gs_fri_folds(&s, l), (size_t)3 << gs_fri_folds(&s, l), cpu);
    }
    size_t at_fri_lean = C * N * fp + tree + aux_held + chunk_held + fri;
    size_t at_fri = at_fri_lean + (cpu ? 0 : deep_word);
    size_t peak = at_quotient > at_fri ? at_quotient : at_fri;
    if (out->main_commit > peak) peak = out->main_commit;
    out->chain = peak - out->main_commit;
    out->total = peak;
    size_t at_ood = C * N * fp + tree + aux_held + chunk_held + main_coeffs;
    size_t lean = at_quotient - main_coeffs; /* lean: the main coefficients not held */
    if (at_ood > lean) lean = at_ood;
    if (at_fri_lean > lean) lean = at_fri_lean;
    if (out->main_commit > lean) lean = out->main_commit;
    out->lean_total = cpu ? peak : lean; /* the CPU holds none anyway */
    out->retained = C * N * fp + tree + aux_held + chunk_held + 3 * N * fp;
    return GS_OK;
}
