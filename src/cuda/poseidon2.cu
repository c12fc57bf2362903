/* Poseidon2 over Goldilocks on the device (include/gstark/cuda_poseidon2.h), the same
 * permutation, sponge and compression as src/hash/poseidon2.c: the rounds come from
 * src/hash/poseidon2_round.h (instantiated here on uint64_t with field.h's gs_fp_add and
 * gs_fp_mul, which compile for the device), the constants from src/hash/poseidon2_consts.h into
 * __constant__ memory (every thread of a warp reads the same constant at the same time: one
 * broadcast).
 *
 * Kernels, one thread per item, the whole state in registers:
 *   hash_rows_kernel   thread i runs the sponge over row i: element j at
 *                      m[i * row_stride + j * col_stride], 8 elements per width-12
 *                      permutation, the length in element 8 of the initial state; writes the
 *                      4-element digest. Column-major rows (row_stride 1) make each warp load
 *                      256 contiguous bytes per element.
 *   compress_kernel    thread i: width-8 permutation of digests 2i, 2i+1, plus feed-forward.
 *   fold_kernel        thread i: the same of node i and row bitrev(i) of a matrix entering
 *                      a mixed tree's level (src/cuda/mixed.h), in place.
 *   permute_kernel<W>  thread i permutes state i in place.
 * Cost: a width-12 permutation is 8 * 12 + 22 = 118 S-boxes of 4 products each plus 22 * 12
 * products for the internal matrix (~736 64-bit modular products, each a 64 x 64 -> 128-bit
 * product from 32-bit IMADs and the Goldilocks reduction) and ~1,100 modular additions, for 8
 * input elements (64 bytes): all ALU, so the kernels are compute-bound by far (a few hundred
 * bytes of memory traffic against tens of thousands of instructions per permutation). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda/cuda_util.cuh"
#include "cuda/mixed.h"
#include "gstark/cuda_poseidon2.h"
#include "gstark/field.h"
#include "hash/poseidon2_consts.h"

static_assert(sizeof(gs_poseidon2_digest) == 32, "a digest is 4 elements");

namespace {

constexpr unsigned P2_THREADS = 128;

__constant__ uint64_t c_rc8_ext[64] = GS_P2_RC8_EXT;
__constant__ uint64_t c_rc8_int[22] = GS_P2_RC8_INT;
__constant__ uint64_t c_diag8[8] = GS_P2_DIAG8;
__constant__ uint64_t c_rc12_ext[96] = GS_P2_RC12_EXT;
__constant__ uint64_t c_rc12_int[22] = GS_P2_RC12_INT;
__constant__ uint64_t c_diag12[12] = GS_P2_DIAG12;

#define P2T uint64_t
#define P2_FN __device__ __forceinline__
#define P2_NAME(x) p2d_##x
#define P2_ADD(a, b) gs_fp_add(a, b)
#define P2_MUL(a, b) gs_fp_mul(a, b)
#define P2_CONST(c) ((uint64_t)(c))
#include "hash/poseidon2_round.h"

__global__ void __launch_bounds__(P2_THREADS)
hash_rows_kernel(uint64_t *__restrict__ out, const uint64_t *__restrict__ m, size_t n_rows,
                 size_t row_len, size_t row_stride, size_t col_stride) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_rows) return;
    uint64_t s[12];
#pragma unroll
    for (unsigned k = 0; k < 12; k++) s[k] = 0;
    s[GS_POSEIDON2_RATE] = gs_fp_from_u64((uint64_t)row_len);
    const uint64_t *row = m + i * row_stride;
    size_t j = 0;
    do {
#pragma unroll
        for (unsigned k = 0; k < GS_POSEIDON2_RATE; k++)
            if (j + k < row_len)
                s[k] = gs_fp_add(s[k], gs_fp_from_u64(__ldg(row + (j + k) * col_stride)));
        j += GS_POSEIDON2_RATE;
        p2d_permute(s, 12, c_rc12_ext, c_rc12_int, c_diag12);
    } while (j < row_len);
#pragma unroll
    for (unsigned k = 0; k < 4; k++) out[4 * i + k] = s[k];
}

__global__ void __launch_bounds__(P2_THREADS)
compress_kernel(uint64_t *__restrict__ out, const uint64_t *__restrict__ in, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t s[8], x[4];
#pragma unroll
    for (unsigned k = 0; k < 8; k++) s[k] = in[8 * i + k];
#pragma unroll
    for (unsigned k = 0; k < 4; k++) x[k] = s[k];
    p2d_permute(s, 8, c_rc8_ext, c_rc8_int, c_diag8);
#pragma unroll
    for (unsigned k = 0; k < 4; k++) out[4 * i + k] = gs_fp_add(s[k], x[k]);
}

/* Thread i: level[i] = fresh ? rows[r] : compress(level[i], rows[r]), r = bitrev(i, lr)
 * (a mixed tree's matrix entering a level, src/cuda/mixed.h). */
__global__ void __launch_bounds__(P2_THREADS)
fold_kernel(uint64_t *__restrict__ level, const uint64_t *__restrict__ rows, uint32_t n, unsigned lr,
            int fresh) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const size_t r = lr ? __brev(i) >> (32 - lr) : 0;
    uint64_t s[8], x[4];
#pragma unroll
    for (unsigned k = 0; k < 4; k++) s[4 + k] = rows[4 * r + k];
    if (fresh) {
#pragma unroll
        for (unsigned k = 0; k < 4; k++) level[4 * (size_t)i + k] = s[4 + k];
        return;
    }
#pragma unroll
    for (unsigned k = 0; k < 4; k++) x[k] = s[k] = level[4 * (size_t)i + k];
    p2d_permute(s, 8, c_rc8_ext, c_rc8_int, c_diag8);
#pragma unroll
    for (unsigned k = 0; k < 4; k++) level[4 * (size_t)i + k] = gs_fp_add(s[k], x[k]);
}

template <unsigned W>
__global__ void __launch_bounds__(P2_THREADS) permute_kernel(uint64_t *st, size_t n) {
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t s[W];
#pragma unroll
    for (unsigned k = 0; k < W; k++) s[k] = st[W * i + k];
    p2d_permute(s, W, W == 8 ? c_rc8_ext : c_rc12_ext, W == 8 ? c_rc8_int : c_rc12_int,
                W == 8 ? c_diag8 : c_diag12);
#pragma unroll
    for (unsigned k = 0; k < W; k++) st[W * i + k] = s[k];
}

/* Whether the current device can read (and write) p: its own device memory, managed memory,
 * or mapped pinned host memory at the same address; 8-byte aligned. */
gs_status check_ptr(const void *p) {
    if (!p || (uintptr_t)p % 8) return GS_ERR_INVALID_ARG;
    int device;
    GS_CUDA_TRY(cudaGetDevice(&device));
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e == cudaErrorInvalidValue) {
        (void)cudaGetLastError();
        return GS_ERR_INVALID_ARG;
    }
    if (e != cudaSuccess) return gs_cuda_check(e, "cudaPointerGetAttributes");
    switch (a.type) {
    case cudaMemoryTypeDevice: return a.device == device ? GS_OK : GS_ERR_INVALID_ARG;
    case cudaMemoryTypeManaged: return GS_OK;
    case cudaMemoryTypeHost: return a.devicePointer == p ? GS_OK : GS_ERR_INVALID_ARG;
    default: return GS_ERR_INVALID_ARG;
    }
}

/* Blocks for n threads; 0 if more than a grid's x dimension holds. */
unsigned blocks_for(size_t n) {
    size_t b = (n + P2_THREADS - 1) / P2_THREADS;
    return b > 0x7fffffffu ? 0 : (unsigned)b;
}

/* Whether a * b + c fits in SIZE_MAX / 8 (offsets in elements, as byte offsets). */
bool fits(size_t a, size_t b, size_t c) {
    const size_t lim = SIZE_MAX / 8;
    if (c > lim) return false;
    return b == 0 || a <= (lim - c) / b;
}

} // namespace

extern "C" gs_status gs_cuda_poseidon2_hash_rows(gs_poseidon2_digest *d_out, const uint64_t *d_in,
                                                 size_t n_rows, size_t row_len, size_t row_stride,
                                                 size_t col_stride, void *stream) {
    if (n_rows == 0) return GS_OK;
    /* the last element read: (n_rows - 1) row_stride + (row_len - 1) col_stride */
    if (row_len && !fits(n_rows - 1, row_stride, 0)) return GS_ERR_INVALID_ARG;
    if (row_len && !fits(row_len - 1, col_stride, (n_rows - 1) * row_stride))
        return GS_ERR_INVALID_ARG;
    if (!fits(n_rows, 4, 0)) return GS_ERR_INVALID_ARG;
    const unsigned blocks = blocks_for(n_rows);
    if (!blocks) return GS_ERR_INVALID_ARG;
    GS_TRY(check_ptr(d_out));
    if (row_len) GS_TRY(check_ptr(d_in));
    hash_rows_kernel<<<blocks, P2_THREADS, 0, (cudaStream_t)stream>>>(
        d_out[0].v, d_in, n_rows, row_len, row_stride, col_stride);
    return gs_cuda_launched("poseidon2 hash_rows kernel launch");
}

extern "C" gs_status gs_cuda_poseidon2_compress_many(gs_poseidon2_digest *d_out,
                                                     const gs_poseidon2_digest *d_in, size_t n,
                                                     void *stream) {
    if (n == 0) return GS_OK;
    if (!fits(n, 8, 0)) return GS_ERR_INVALID_ARG;
    const unsigned blocks = blocks_for(n);
    if (!blocks) return GS_ERR_INVALID_ARG;
    GS_TRY(check_ptr(d_out));
    GS_TRY(check_ptr(d_in));
    compress_kernel<<<blocks, P2_THREADS, 0, (cudaStream_t)stream>>>(d_out[0].v, d_in[0].v, n);
    return gs_cuda_launched("poseidon2 compress kernel launch");
}

extern "C" gs_status gs_cuda_poseidon2_fold(uint64_t *d_level, const uint64_t *d_rows, unsigned log_rows,
                                            int fresh, void *stream) {
    if (!d_level || !d_rows || log_rows > 30) return GS_ERR_INVALID_ARG;
    const uint32_t n = 1u << log_rows;
    fold_kernel<<<blocks_for(n), P2_THREADS, 0, (cudaStream_t)stream>>>(d_level, d_rows, n, log_rows, fresh);
    return gs_cuda_launched("poseidon2 fold kernel launch");
}

extern "C" gs_status gs_cuda_poseidon2_permute_many(uint64_t *d_st, unsigned width, size_t n,
                                                    void *stream) {
    if (width != 8 && width != 12) return GS_ERR_INVALID_ARG;
    if (n == 0) return GS_OK;
    if (!fits(n, width, 0)) return GS_ERR_INVALID_ARG;
    const unsigned blocks = blocks_for(n);
    if (!blocks) return GS_ERR_INVALID_ARG;
    GS_TRY(check_ptr(d_st));
    if (width == 8)
        permute_kernel<8><<<blocks, P2_THREADS, 0, (cudaStream_t)stream>>>(d_st, n);
    else
        permute_kernel<12><<<blocks, P2_THREADS, 0, (cudaStream_t)stream>>>(d_st, n);
    return gs_cuda_launched("poseidon2 permute kernel launch");
}
