/* Helpers shared by the zkVM's tables (src/zkvm/zk_air.h). */
#include <stdlib.h>

#include "zkvm/zk_air.h"

gs_status zk_table_alloc(zk_table *t, uint32_t cols, uint64_t rows) {
    unsigned log_n = ZK_MIN_LOG_N;
    while (log_n < 40 && ((uint64_t)1 << log_n) < rows) log_n++;
    if (((uint64_t)1 << log_n) < rows || cols == 0) return GS_ERR_INVALID_ARG;
    t->cols = calloc((size_t)cols << log_n, sizeof(gs_fp));
    if (!t->cols) return GS_ERR_NOMEM;
    t->num_cols = cols, t->log_n = log_n;
    return GS_OK;
}
