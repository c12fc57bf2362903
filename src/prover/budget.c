/* The memory budget's up-front rule, shared by gs_prove and gs_prove_multi
 * (docs/architecture.md, "Memory, the gate and the scheduler").
 *
 * A table needs its whole estimate (gs_estimate_table's total) while it is
 * proven. The gate keeps the tables admitted at once within the budget, and
 * the estimates bound what the tables charge (tests/test_estimate.c), so the
 * charged peak stays within the budget, except for a table whose need alone
 * exceeds it: such a table is admitted only when nothing else runs (never a
 * deadlock) and may charge up to its need. That case is known before any
 * proving, so it is decided then: refused with GS_ERR_BUDGET under
 * strict_budget, else a warning with the numbers and a count in the stats.
 * A tiny budget (1 byte) is no special case: every table is over it. */
#include <stdio.h>
#include <unistd.h>

#include "gstark/sched.h"
#include "gstark/size.h"
#include "prover/prover_internal.h"

size_t gs_mem_budget_default(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    if (f) fclose(f);
    if (!kb) { /* no /proc: the physical pages the system reports available */
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        kb = pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size / 1024 : 0;
    }
    return kb ? (size_t)(kb / 10 * 8 * 1024) : GS_GATE_UNLIMITED;
}

size_t gs_prover_budget(const gs_prove_opts *opts, const run_backend *rb) {
    if (opts->mem_budget) return opts->mem_budget;
    if (rb->cuda && rb->dev_budget) return rb->dev_budget; /* the gate meters device bytes */
    return gs_mem_budget_default();
}

gs_status gs_prover_budget_check(gs_prove_stats *ps, gs_obs *obs, const gs_mem_estimate *est,
                                 uint32_t n, size_t budget, int strict) {
    uint32_t over = 0, worst = 0;
    size_t need = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (est[i].total > need) need = est[i].total, worst = i;
        if (budget != GS_GATE_UNLIMITED && est[i].total > budget) over++;
    }
    ps->mem_budget = budget;
    ps->mem_need_bytes = need;
    ps->budget_overruns = over;
    if (!over) return GS_OK;
    if (strict) return GS_ERR_BUDGET; /* the caller reports it, with ps's numbers */
    char nb[GS_SIZE_BUF], bb[GS_SIZE_BUF];
    gs_size_format(nb, need);
    gs_size_format(bb, budget);
    gs_obs_warn(obs,
                "the memory budget %s (%zu bytes) is below what %u table%s alone: table %u "
                "needs %s (%zu bytes). %s alone, over the budget; a budget of %s or more fits "
                "every table (strict_budget refuses instead)",
                bb, budget, over, over > 1 ? "s need" : " needs", worst, nb, need,
                over > 1 ? "Each runs" : "It runs", nb);
    return GS_OK;
}

void gs_prover_budget_done(gs_prove_stats *ps, gs_obs *obs) {
    size_t b = ps->mem_budget;
    ps->budget_over_bytes = b != GS_GATE_UNLIMITED && ps->peak_bytes > b ? ps->peak_bytes - b : 0;
    gs_obs_budget nb = {.budget = b == GS_GATE_UNLIMITED ? UINT64_MAX : b,
                        .need = ps->mem_need_bytes,
                        .peak = ps->peak_bytes,
                        .overruns = ps->budget_overruns};
    gs_obs_note_budget(obs, &nb);
}
