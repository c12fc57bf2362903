/* Without CUDA: no device expander (no backend calls it). */
#include "zkvm/cpu_rows.h"

int zk_cpu_expand_device(const void *data, uint64_t *out, unsigned log_n, void *stream, const void *ctx) {
    (void)data, (void)out, (void)log_n, (void)stream, (void)ctx;
    return -1;
}
