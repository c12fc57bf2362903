/* The memory budget's up-front rule, shared by gs_prove and gs_prove_multi
 * (docs/architecture.md, "Memory, the gate and the scheduler").
 *
 * The budget covers what a proof holds: on the host, the input traces (the
 * caller's, resident for the whole proof) and everything the prover charges;
 * on CUDA, the device bytes. A table needs the inputs and its whole estimate
 * (gs_estimate_table's total) while it is proven. The gate admits tables
 * within the budget less the inputs, and the estimates bound what the tables
 * charge (tests/test_estimate.c), so inputs + charged peak stay within the
 * budget. A table whose whole estimate does not fit is proven lean (its main
 * coefficients made again from the trace for the out-of-domain values
 * instead of held: gs_mem_estimate.lean_total, a little more work for a
 * smaller peak). The exception is a table whose need alone exceeds the
 * budget even so: such a table is
 * admitted only when nothing else runs (never a deadlock) and may charge up
 * to its need. That case is known before any proving, so it is decided then:
 * refused with GS_ERR_BUDGET under strict_budget, else a warning with the
 * numbers and a count in the stats. A tiny budget (1 byte) is no special
 * case: every table is over it. */
#include <stdio.h>

#include "gstark/sched.h"
#include "gstark/size.h"
#include "prover/prover_internal.h"

/* The host rule itself is the device object's (src/backend/device.c). */
size_t gs_mem_budget_default(void) { return gs_host_default_budget(); }

static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

size_t gs_prover_shared_need(const gs_mem_estimate *est, uint32_t n, size_t fri_bytes,
                             size_t *held, size_t *extra) {
    size_t h = 0, x = fri_bytes;
    for (uint32_t i = 0; i < n; i++) {
        h = sat_add(h, est[i].retained);
        if (est[i].total - est[i].retained > x) x = est[i].total - est[i].retained;
    }
    if (held) *held = h;
    if (extra) *extra = x;
    return sat_add(h, x);
}

size_t gs_prover_trees_bytes(unsigned log_size) {
    return 3 * gs_mixed_tree_bytes_skip(log_size, GS_SHARED_TREE_SKIP) +
           gs_mixed_build_scratch(log_size, GS_SHARED_TREE_SKIP);
}

size_t gs_prover_trees_need(const gs_mem_estimate *est, uint32_t n, size_t fri_bytes, unsigned log_size) {
    size_t x = sat_add(fri_bytes, gs_prover_trees_bytes(log_size));
    for (uint32_t i = 0; i < n; i++) x = sat_add(x, est[i].total);
    return x;
}

size_t gs_prover_input_bytes(const gs_table_input *t, uint32_t n, const run_backend *rb) {
    if (rb->cuda) return 0; /* the budget meters device bytes; the traces are on the host */
    size_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        if (t[i].air && t[i].log_n < sizeof(size_t) * 8 - 4) /* a packed one: and its expansion */
            sum = sat_add(sat_add(sum, (size_t)gs_air_num_cols(t[i].air) * sizeof(gs_fp) << t[i].log_n),
                          t[i].packed ? t[i].packed->bytes : 0);
    return sum;
}

size_t gs_prover_gate_budget(const gs_prove_stats *ps) {
    size_t b = ps->mem_budget, in = ps->input_bytes;
    if (b == GS_GATE_UNLIMITED) return b;
    return b > in ? b - in : 0; /* 0: one table at a time, each over the budget */
}

gs_status gs_prover_budget_check(gs_prove_stats *ps, gs_obs *obs, gs_mem_estimate *est,
                                 int *lean, uint32_t n, size_t budget, size_t inputs, int strict,
                                 int cuda) {
    uint32_t over = 0, worst = 0, leaned = 0;
    size_t most = 0;
    for (uint32_t i = 0; i < n; i++) {
        lean[i] = budget != GS_GATE_UNLIMITED && sat_add(inputs, est[i].total) > budget &&
                  est[i].lean_total < est[i].total;
        if (lean[i]) { /* what it needs from now on: the gate admits it with this */
            est[i].total = est[i].lean_total;
            est[i].chain = est[i].total - est[i].main_commit;
            leaned++;
        }
        if (est[i].total > most) most = est[i].total, worst = i;
        if (budget != GS_GATE_UNLIMITED && sat_add(inputs, est[i].total) > budget) over++;
    }
    size_t need = sat_add(inputs, most);
    ps->mem_budget = budget;
    ps->input_bytes = inputs;
    ps->mem_need_bytes = need;
    ps->budget_overruns = over;
    ps->budget_lean_tables = leaned;
    if (!over) return GS_OK;
    if (strict) return GS_ERR_BUDGET; /* the caller reports it, with ps's numbers */
    char nb[GS_SIZE_BUF], bb[GS_SIZE_BUF], tb[GS_SIZE_BUF], ib[GS_SIZE_BUF];
    gs_size_format(nb, need);
    gs_size_format(bb, budget);
    gs_size_format(tb, most);
    gs_size_format(ib, inputs);
    char with[96] = "";
    if (inputs)
        snprintf(with, sizeof with, ": %s of its own%s, %s of input traces", tb,
                 lean[worst] ? " proven lean" : "", ib);
    else if (lean[worst])
        snprintf(with, sizeof with, ", proven lean");
    gs_obs_warn(obs,
                "the memory budget %s (%zu bytes) is below what %u table%s alone: table %u "
                "needs %s (%zu bytes%s). %s alone, %s; a budget of at least %zu "
                "bytes fits every table (strict_budget refuses instead)",
                bb, budget, over, over > 1 ? "s need" : " needs", worst, nb, need, with,
                over > 1 ? "Each runs" : "It runs",
                cuda ? "out of core where the device budget cannot hold its buffers" : "over the budget",
                need);
    return GS_OK;
}

void gs_prover_budget_done(gs_prove_stats *ps, gs_obs *obs) {
    if (!ps->mem_budget) return; /* the run stopped before the check */
    size_t b = ps->mem_budget, held = sat_add(ps->input_bytes, ps->peak_bytes);
    ps->budget_over_bytes = b != GS_GATE_UNLIMITED && held > b ? held - b : 0;
    gs_obs_budget nb = {.budget = b == GS_GATE_UNLIMITED ? UINT64_MAX : b,
                        .inputs = ps->input_bytes,
                        .need = ps->mem_need_bytes,
                        .peak = ps->peak_bytes,
                        .overruns = ps->budget_overruns,
                        .lean = ps->budget_lean_tables};
    gs_obs_note_budget(obs, &nb);
}
