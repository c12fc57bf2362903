/* The zkVM CPU table's columns made on the device from its packed rows
 * (zkvm/cpu_rows.h): one thread a row, the row's values through
 * zk_cpu_row_expand, the host expander's definition; beq/bne's T inverted
 * on its own (the inverse is unique, so the columns equal the host's). */
#include <cuda_runtime.h>

#include "cuda/cuda_util.cuh"
#include "zkvm/cpu_rows.h"

__global__ void cpu_rows_kernel(const zk_cpu_head *h, uint64_t *out, uint64_t n) {
    const zk_cpu_prog *prog = zk_cpu_progs(h);
    const zk_cpu_rec *rec = zk_cpu_recs(h);
    const uint64_t n_active = h->n_active, clk0 = h->clk0;
    for (uint64_t r = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; r < n;
         r += (uint64_t)gridDim.x * blockDim.x) {
        gs_fp *v = out + r;
        if (r < n_active) {
            const zk_cpu_rec x = rec[r];
            const zk_cpu_prog p = prog[x.slot];
            zk_cpu_row_expand(v, n, &p, &x, clk0 + r + 1);
            if (p.flags & ZK_F_BEQ) v[(size_t)CPU_T * n] = gs_fp_inv(v[(size_t)CPU_T * n]);
        } else {
            zk_cpu_pad_expand(v, n, clk0 + r + 1, h->end_pc);
        }
    }
}

extern "C" int zk_cpu_expand_device(const void *data, uint64_t *out, unsigned log_n, void *stream,
                                    const void *ctx) {
    (void)ctx;
    const uint64_t n = (uint64_t)1 << log_n;
    const unsigned threads = 256;
    uint64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65536) blocks = 65536;
    cpu_rows_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>((const zk_cpu_head *)data,
                                                                             out, n);
    return gs_cuda_launched("the CPU table's rows") != GS_OK;
}
