/* Lanes and devices of a batch (docs/batch.md, "Lanes and devices"): how
 * many lanes, which device each is bound to, each device's budget, the host
 * budget and the threads each lane's prover gets. A lane is one resident
 * prover; the engine runs one thread per lane. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch/run_internal.h"
#include "gstark/cuda.h"
#include "gstark/parallel.h"
#include "gstark/sched.h"
#include "gstark/size.h"

void bp_err(char *err, size_t err_len, const char *fmt, ...) {
    if (!err || !err_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

gs_status bp_sim_parse(const char *spec, unsigned *devices, size_t *budget, char *err,
                       size_t err_len) {
    const char *colon = spec ? strchr(spec, ':') : NULL;
    char num[16];
    size_t dl = colon ? (size_t)(colon - spec) : 0;
    if (!colon || dl == 0 || dl >= sizeof num) goto bad;
    memcpy(num, spec, dl);
    num[dl] = 0;
    for (size_t i = 0; i < dl; i++)
        if (num[i] < '0' || num[i] > '9') goto bad;
    unsigned long d = strtoul(num, NULL, 10);
    if (d < 1 || d > GS_BATCH_MAX_SIM_DEVICES) {
        bp_err(err, err_len, "%s=%s: the device count must be 1..%u", GS_BATCH_SIM_ENV, spec,
               GS_BATCH_MAX_SIM_DEVICES);
        return GS_ERR_INVALID_ARG;
    }
    uint64_t b;
    if (gs_size_parse(colon + 1, &b) != GS_OK || b == 0 || b == GS_SIZE_UNLIMITED ||
        b > SIZE_MAX / 2) {
        bp_err(err, err_len, "%s=%s: the budget must be a size above 0 such as 64M or 2GiB",
               GS_BATCH_SIM_ENV, spec);
        return GS_ERR_INVALID_ARG;
    }
    *devices = (unsigned)d;
    *budget = (size_t)b;
    return GS_OK;
bad:
    bp_err(err, err_len, "%s=%s: expected D:BUDGET, e.g. 2:64M (D simulated devices of BUDGET bytes each)",
           GS_BATCH_SIM_ENV, spec ? spec : "");
    return GS_ERR_INVALID_ARG;
}

gs_status bp_lanes_resolve(bp_lanes *L, const gs_batch_config *cfg, char *err, size_t err_len) {
    memset(L, 0, sizeof *L);
    unsigned per = cfg->lanes_per_device ? cfg->lanes_per_device : 1;
    if (per > GS_BATCH_MAX_LANES || cfg->lanes > GS_BATCH_MAX_LANES) {
        bp_err(err, err_len, "lanes: at most %u", GS_BATCH_MAX_LANES);
        return GS_ERR_INVALID_ARG;
    }
    const char *sim = cfg->sim_devices ? cfg->sim_devices : getenv(GS_BATCH_SIM_ENV);
    size_t sim_budget = 0;
    unsigned sim_n = 0;
    if (sim && *sim) GS_TRY(bp_sim_parse(sim, &sim_n, &sim_budget, err, err_len));

    L->host_budget = cfg->mem_budget ? cfg->mem_budget : gs_mem_budget_default();
    if (L->host_budget == GS_GATE_UNLIMITED) L->host_budget = SIZE_MAX;
    L->backend = GS_BACKEND_CPU;
    if (sim_n) {
        L->simulated = 1;
        L->num_devices = sim_n;
        for (unsigned d = 0; d < sim_n; d++) L->device_budget[d] = sim_budget;
    } else if (cfg->backend != GS_BACKEND_CPU) {
        int n = gs_cuda_device_count();
        if (n <= 0 && cfg->backend == GS_BACKEND_CUDA) {
            bp_err(err, err_len, "backend cuda: %s",
                   gs_cuda_built() ? "no CUDA device is present" : "this build has no CUDA backend");
            return GS_ERR_NO_DEVICE;
        }
        if (n > 0) {
            L->backend = GS_BACKEND_CUDA;
            L->num_devices = n > 64 ? 64u : (unsigned)n;
            /* Filled from the lanes' provers once they exist (run.c). */
            for (unsigned d = 0; d < L->num_devices; d++) L->device_budget[d] = SIZE_MAX;
        }
    }
    unsigned lanes = cfg->lanes;
    if (!lanes) {
        if (L->num_devices) {
            lanes = L->num_devices * per;
        } else if (cfg->lanes_per_device) {
            lanes = per;
        } else {
            long cores = sysconf(_SC_NPROCESSORS_ONLN);
            lanes = cores >= 8 ? (unsigned)(cores / 4) : 1;
        }
        if (lanes > GS_BATCH_MAX_LANES) lanes = GS_BATCH_MAX_LANES;
    }
    L->num_lanes = lanes;
    /* Lanes go round the devices: lane i on device i mod D. */
    for (unsigned i = 0; i < lanes; i++) {
        if (L->num_devices) {
            unsigned d = i % L->num_devices;
            L->lane_device[i] = d;
            L->lanes_on[d]++;
        } else {
            L->lane_device[i] = UINT32_MAX;
        }
    }
    unsigned threads = cfg->threads ? cfg->threads : gs_threads_get();
    L->threads_per_lane = threads / lanes ? threads / lanes : 1;
    return GS_OK;
}
