/* The prover stages after the commitments, on the device (src/cuda/stages.h):
 * FRI fold, DEEP composition, out-of-domain evaluation and proof-of-work
 * grinding, each equal bit for bit to the CPU backend's (src/backend/cpu.c).
 * Field arithmetic is exact, so the kernels only have to compute the same
 * mathematics; they are free to reorder sums and share inversions.
 *
 * fold_kernel<A>: a FRI layer's A folds by 2 in one pass, one output row
 *   per thread step (grid-stride). Row j reads the 2^A values j + t M of
 *   each of the three Fp columns and folds them in registers: a fold pairs
 *   lo and hi and gives (lo + hi + gamma (lo - hi) x^-1) / 2, the next one
 *   pairs those with gamma^2. x^-1 = base^(2^r) rt[...] with base =
 *   shift^-1 w^-j a running product: each thread starts from one gs_fp_pow
 *   and steps by w^-(threads in the grid). 24 2^A bytes read and 24 written
 *   per output row, no intermediate word: memory-bound.
 *
 * deep_kernel: rows are dealt out in tiles of DEEP_ROWS x THREADS; a thread
 *   takes DEEP_ROWS rows THREADS apart (every load is a coalesced warp
 *   load) and walks the columns once for all of them:
 *     s1 = sum_c b_c t_c - k1 + sum_j b_(2C+j) chunk_j + sum_j b'_j aux_j,
 *     s2 = b_C sum_c b_c t_c - k2 + b_A sum_j b'_j aux_j (b''_j = b_A b'_j,
 *          A = aux_cols: one aux sum serves both),
 *   as cpu_deep. 1/(x - z) = q(x) / m(x) with q quadratic over Fp3 and m the
 *   norm cubic over Fp (field/inv_lin.h, shared with the CPU), so the row value is
 *     f = (s1 q1 m2 + s2 q2 m1) / (m1 m2)
 *   with a single Fp denominator per row, and the thread's DEEP_ROWS
 *   denominators share one gs_fp_inv (Montgomery's trick): ~130 Fp products
 *   for the inversion per DEEP_ROWS rows instead of per row. Per row:
 *   8 (cols + 3 chunks + 3 aux) bytes read, 24 written, ~3 cols + 9 chunks
 *   + 9 aux + ~99 Fp products: compute-bound on the integer pipe (64-bit
 *   products are several 32-bit multiply-adds each).
 *
 * eval_*_kernel: out[c] = sum_i a_(c,i) x^i as a two-level reduction. The
 *   index range is cut into nseg segments of `seg` (a multiple of THREADS)
 *   and the columns into groups of EVAL_COLS; block (s, g) takes segment s
 *   of group g: thread t starts at x^(s seg + t) = pw[s] pw'[t] (two small
 *   power tables built by eval_pows_kernel) and steps by x^THREADS, adding
 *   x^i a_(c,i) to EVAL_COLS register accumulators (one power serves
 *   EVAL_COLS columns); the block reduces them (warp shuffles, then shared
 *   memory) to one partial sum per column and segment, and eval_final_kernel
 *   adds the segments. Reads each coefficient once (8 bytes, coalesced
 *   along i) for 3 Fp products; nseg is chosen so that ~EVAL_TARGET_BLOCKS
 *   blocks exist and each thread has at least EVAL_MIN_STEPS steps.
 *
 * pts_*_kernel: the same two-level reduction at many base-field points
 *   (gs_cuda_eval_points): block (s, g) takes segment s for a group of
 *   PTS_POINTS points and PTS_COLS columns; a thread keeps one power per
 *   point (x_j^(s seg + t), stepping by x_j^THREADS) and PTS_POINTS x
 *   PTS_COLS Fp accumulators, so each coefficient read serves PTS_POINTS
 *   points and each power PTS_COLS columns: about 1.25 Fp products per
 *   coefficient and point.
 *
 * grind_kernel: one launch, nonce n handled by thread n mod T (T threads,
 *   as many as the device holds at once), each thread in increasing order.
 *   A valid nonce goes into `best` with atomicMin; a thread stops when its
 *   next nonce exceeds `best`. Every nonce below the final `best` has been
 *   hashed by its thread and rejected (a thread only stops past a value
 *   `best` had, which is never below the final one), so the answer is the
 *   smallest valid nonce, deterministically. One Keccak-f[1600] per nonce
 *   (the 42-byte message fits one block); ~3.5 G nonces/s on an H200. The
 *   34-byte prefix is the caller's (the transcript's encoding stays in
 *   src/transcript; src/backend/cuda.c builds it). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field/inv_lin.h"
#include "cuda/cuda_util.cuh"
#include "cuda/keccak.cuh"
#include "cuda/stages.h"
#include "gstark/cuda.h"
#include "gstark/field.h"

static_assert(sizeof(gs_fp3) == 24, "an Fp3 value is three limbs on host and device alike");

namespace {

constexpr unsigned THREADS = 256;
constexpr unsigned WARPS = THREADS / 32;
constexpr size_t FOLD_MAX_BLOCKS = 4096;
constexpr unsigned DEEP_ROWS = 4; /* rows per thread sharing one inversion */
constexpr size_t DEEP_MAX_BLOCKS = 1024; /* ~4 waves of 2 blocks per SM on an H200 */
constexpr unsigned EVAL_COLS = 8;          /* columns per block (register accumulators) */
constexpr size_t EVAL_MIN_STEPS = 8;       /* indices per thread at least */
constexpr size_t EVAL_TARGET_BLOCKS = 2048;
constexpr size_t EVAL_MAX_SEGS = 1024;
constexpr unsigned EVAL_MAX_GROUPS = 65535; /* grid y; more groups loop */
constexpr unsigned FINAL_MAX_BLOCKS = 65535;
constexpr unsigned PTS_POINTS = 6; /* eval_points: points per block (register powers) */
constexpr unsigned PTS_COLS = 4;   /* eval_points: columns per block */
constexpr unsigned GRIND_THREADS = 256;
/* The Keccak code form of keccak.cuh: "shf-loop", the one merkle.cu
 * measured fastest on the H200, and a twelfth of the unrolled form's code. */
constexpr int GRIND_FORM = 1;

cudaStream_t as_stream(void *s) { return (cudaStream_t)s; }

/* gs_cuda_check, clearing the non-sticky error a failed call leaves behind
 * so that the next launch check does not report it again. */
gs_status checked(cudaError_t e, const char *what) {
    if (e != cudaSuccess) (void)cudaGetLastError();
    return gs_cuda_check(e, what);
}

gs_status dev_alloc(void **p, size_t bytes, cudaStream_t s, const char *what) {
    *p = NULL;
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, what));
    void *q = NULL;
    GS_TRY(checked(gs_cuda_counted_malloc_async(&q, bytes ? bytes : 8, s), what));
    *p = q;
    return GS_OK;
}

/* Stream-ordered: the memory goes back after the work queued before it. */
void dev_free(void *p, cudaStream_t s) {
    if (p && gs_cuda_counted_free_async(p, s) != cudaSuccess) (void)cudaGetLastError();
}

void CUDART_CB free_host(void *p) { free(p); }

/* free(p) once the work queued on s so far is done (at once if none of it
 * uses p). */
void free_host_after(void *p, int in_use, cudaStream_t s) {
    if (!in_use) {
        free(p);
        return;
    }
    if (cudaLaunchHostFunc(s, free_host, p) != cudaSuccess) {
        (void)cudaGetLastError();
        (void)cudaStreamSynchronize(s);
        free(p);
    }
}

gs_status copy_async(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                     cudaStream_t s, const char *what) {
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_COPY, what));
    return checked(cudaMemcpyAsync(dst, src, bytes, kind, s), what);
}

__host__ __device__ __forceinline__ size_t min_size(size_t a, size_t b) { return a < b ? a : b; }
size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* ---- block reductions ---- */

__device__ __forceinline__ gs_fp3 warp_sum(gs_fp3 v) {
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1) {
        gs_fp3 o;
#pragma unroll
        for (int e = 0; e < 3; e++)
            o.c[e] = __shfl_down_sync(0xffffffffu, (unsigned long long)v.c[e], off);
        v = gs_fp3_add(v, o);
    }
    return v; /* lane 0 holds the warp's sum */
}

/* ---- fold ---- */

struct fold_params {
    uint64_t *out;
    const uint64_t *in;
    size_t M;                         /* output rows */
    gs_fp shift_inv, w_inv, step_inv; /* step_inv = w^-(threads in the grid) */
    gs_fp inv2;
    gs_fp3 gamma;
    gs_fp rt[1u << GS_CUDA_FOLD_MAX]; /* rt[k] = w^(-k M) */
};

/* Folds the 2^A values v[t] of one output row by A rounds of 2 in registers;
 * x is the row's base (x^-1 of the first round's pair is x rt[t]); v[0] ends
 * holding the result. */
template <unsigned A>
__device__ __forceinline__ void fold_registers(gs_fp3 *v, gs_fp x, const fold_params &p) {
    constexpr unsigned T = 1u << A;
    gs_fp3 g = p.gamma;
#pragma unroll
    for (unsigned r = 0; r < A; r++) {
        const unsigned h = T >> (r + 1);
#pragma unroll
        for (unsigned t = 0; t < h; t++) {
            const gs_fp xinv = gs_fp_mul(x, p.rt[(t << r) & (T - 1)]);
            const gs_fp3 lo = v[t], hi = v[t + h];
            v[t] = gs_fp3_mul_fp(gs_fp3_add(gs_fp3_add(lo, hi),
                                            gs_fp3_mul(g, gs_fp3_mul_fp(gs_fp3_sub(lo, hi), xinv))),
                                 p.inv2);
        }
        x = gs_fp_sqr(x);
        g = gs_fp3_sqr(g);
    }
}

/* Output j from the 2^A values j + t M of each column, folded A times by 2
 * in registers (cpu_fold says why x^-1 is base^(2^r) rt[t 2^r mod 2^A]). */
template <unsigned A>
__global__ void __launch_bounds__(THREADS) fold_kernel(const fold_params p) {
    constexpr unsigned T = 1u << A;
    const size_t M = p.M, N = M << A;
    const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint64_t *__restrict__ in = p.in;
    gs_fp base = gs_fp_mul(p.shift_inv, gs_fp_pow(p.w_inv, first));
    for (size_t j = first; j < M; j += stride) {
        gs_fp3 v[T];
#pragma unroll
        for (unsigned t = 0; t < T; t++)
            v[t] = gs_fp3_make(__ldg(in + j + t * M), __ldg(in + N + j + t * M),
                               __ldg(in + 2 * N + j + t * M));
        fold_registers<A>(v, base, p);
#pragma unroll
        for (int c = 0; c < 3; c++) p.out[(size_t)c * M + j] = v[0].c[c];
        base = gs_fp_mul(base, p.step_inv);
    }
}

/* ---- add_scaled (the shared FRI's join): 48 bytes read, 24 written and
 * one Fp3 product per row ---- */

__global__ void __launch_bounds__(THREADS)
add_scaled_kernel(uint64_t *dst, size_t dst_rows, const uint64_t *src, size_t src_rows, size_t len,
                  gs_fp3 c) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len; i += stride) {
        const gs_fp3 s = gs_fp3_make(src[i], src[src_rows + i], src[2 * src_rows + i]);
        gs_fp3 d = gs_fp3_make(dst[i], dst[dst_rows + i], dst[2 * dst_rows + i]);
        d = gs_fp3_add(d, gs_fp3_mul(c, s));
#pragma unroll
        for (int k = 0; k < 3; k++) dst[(size_t)k * dst_rows + i] = d.c[k];
    }
}

/* ---- DEEP ---- */

struct deep_params {
    uint64_t *out;
    const uint64_t *trace, *chunks, *aux;
    /* Device copies of the weights: of the trace columns (beta^c, or 1, X,
     * X^2 for the 3 components of a combined sum), of the chunks and of
     * the aux columns at z. */
    const gs_fp3 *beta, *beta_chunks, *beta_aux;
    size_t N;
    uint32_t cols, n_chunks, aux_cols; /* cols: the columns of trace (3 when combined) */
    gs_fp3 bC; /* beta^C, C the table's columns: the trace's weights at z w over those at z */
    gs_fp shift, w;
    gs_fp w_block; /* w^THREADS: between a thread's rows in a tile */
    gs_fp w_tile;  /* w^(gridDim.x DEEP_ROWS THREADS): between its tiles */
    gs_fp3 k1, k2;
    gs_fp3 bA; /* beta^aux_cols: the aux columns' weights at z w over those at z */
    gs_inv_lin l1, l2; /* for 1/(x - z) and 1/(x - z w) */
};

/* acc[r] += sum_j b[j] col_j(first + r step) for r < R over n Fp3 columns
 * at c (three Fp columns of N words each): the DEEP kernels' sums over the
 * quotient chunks and the aux columns. Rows at N and past are left out. */
template <unsigned R>
__device__ __forceinline__ void fp3_cols_sum(gs_fp3 *acc, const gs_fp3 *b, const uint64_t *c, uint32_t n,
                                             size_t N, size_t first, size_t step) {
    for (uint32_t j = 0; j < n; j++) {
        const gs_fp3 bj = b[j];
        const uint64_t *c0 = c + (size_t)3 * j * N + first;
#pragma unroll
        for (unsigned r = 0; r < R; r++) {
            const size_t o = (size_t)r * step;
            if (first + o < N)
                acc[r] = gs_fp3_add(acc[r], gs_fp3_mul(bj, gs_fp3_make(__ldg(c0 + o), __ldg(c0 + N + o),
                                                                       __ldg(c0 + 2 * N + o))));
        }
    }
}

__global__ void __launch_bounds__(THREADS, 2) deep_kernel(const deep_params p) {
    const size_t N = p.N, tile = (size_t)DEEP_ROWS * THREADS;
    const size_t first = blockIdx.x * tile + threadIdx.x;
    gs_fp x0 = gs_fp_mul(p.shift, gs_fp_pow(p.w, first));
    for (size_t base = first; base < N; base += (size_t)gridDim.x * tile) {
        /* This thread's rows: base + k THREADS, k < DEEP_ROWS. */
        gs_fp3 s1[DEEP_ROWS], s2[DEEP_ROWS];
        {
            gs_fp3_acc_ la[DEEP_ROWS]; /* the products unreduced, one reduction per component */
#pragma unroll
            for (unsigned k = 0; k < DEEP_ROWS; k++) la[k] = gs_fp3_acc_zero_();
            for (uint32_t c = 0; c < p.cols; c++) {
                const gs_fp3 b = p.beta[c];
                const uint64_t *col = p.trace + (size_t)c * N + base;
#pragma unroll
                for (unsigned k = 0; k < DEEP_ROWS; k++)
                    if (base + k * THREADS < N) gs_fp3_acc_mul_fp_(&la[k], b, __ldg(col + k * THREADS));
            }
#pragma unroll
            for (unsigned k = 0; k < DEEP_ROWS; k++) s1[k] = gs_fp3_acc_done_(&la[k]);
        }
        /* sum_c beta^(C+c) t_c = beta^C sum_c beta^c t_c, as on the CPU. */
#pragma unroll
        for (unsigned k = 0; k < DEEP_ROWS; k++) {
            s2[k] = gs_fp3_sub(gs_fp3_mul(p.bC, s1[k]), p.k2);
            s1[k] = gs_fp3_sub(s1[k], p.k1);
        }
        fp3_cols_sum<DEEP_ROWS>(s1, p.beta_chunks, p.chunks, p.n_chunks, N, base, THREADS);
        if (p.aux_cols) { /* Fp3 aux columns at z and z w: one sum, times beta^A at z w */
            gs_fp3 as[DEEP_ROWS];
#pragma unroll
            for (unsigned k = 0; k < DEEP_ROWS; k++) as[k] = gs_fp3_zero();
            fp3_cols_sum<DEEP_ROWS>(as, p.beta_aux, p.aux, p.aux_cols, N, base, THREADS);
#pragma unroll
            for (unsigned k = 0; k < DEEP_ROWS; k++) {
                s1[k] = gs_fp3_add(s1[k], as[k]);
                s2[k] = gs_fp3_add(s2[k], gs_fp3_mul(p.bA, as[k]));
            }
        }
        /* f = (s1 q1 m2 + s2 q2 m1) / (m1 m2): numerators into s1, the
         * denominators' prefix products into pre. Rows past N count as 1. */
        gs_fp den[DEEP_ROWS], pre[DEEP_ROWS], acc = 1, x = x0;
#pragma unroll
        for (unsigned k = 0; k < DEEP_ROWS; k++) {
            const gs_fp n1 = gs_inv_lin_norm(&p.l1, x), n2 = gs_inv_lin_norm(&p.l2, x), x2 = gs_fp_sqr(x);
            s1[k] = gs_fp3_add(gs_fp3_mul_fp(gs_fp3_mul(s1[k], gs_inv_lin_quad(&p.l1, x, x2)), n2),
                               gs_fp3_mul_fp(gs_fp3_mul(s2[k], gs_inv_lin_quad(&p.l2, x, x2)), n1));
            den[k] = base + k * THREADS < N ? gs_fp_mul(n1, n2) : 1;
            pre[k] = acc;
            acc = gs_fp_mul(acc, den[k]);
            x = gs_fp_mul(x, p.w_block);
        }
        gs_fp inv = gs_fp_inv(acc); /* 1 / (den[0] ... den[DEEP_ROWS-1]) */
#pragma unroll
        for (int k = DEEP_ROWS - 1; k >= 0; k--) {
            const gs_fp dinv = gs_fp_mul(inv, pre[k]); /* 1 / den[k] */
            inv = gs_fp_mul(inv, den[k]);
            const size_t row = base + (size_t)k * THREADS;
            if (row < N) {
                const gs_fp3 f = gs_fp3_mul_fp(s1[k], dinv);
#pragma unroll
                for (int c = 0; c < 3; c++) p.out[(size_t)c * N + row] = f.c[c];
            }
        }
        x0 = gs_fp_mul(x0, p.w_tile);
    }
}

/* DEEP and the first FRI layer's folds in one pass (cpu_deep_fold): a
 * thread takes outputs j, reads rows j + t M (t < 2^A; for each t the warp's
 * loads are coalesced), makes their DEEP values DEEP_ROWS at a time with one
 * inversion each, and folds them in registers as fold_kernel does. The word
 * itself is never written. p.w_block is w^M (between a thread's rows),
 * p.w_tile w^(threads in the grid) (between its outputs). Two blocks per SM
 * (128 registers, a few spilled) measured faster than one block with 255
 * registers (fib 2^26 on the H200: 0.101 against 0.114 s for DEEP and FRI). */
template <unsigned A>
__global__ void __launch_bounds__(THREADS, 2) deep_fold_kernel(const deep_params p, const fold_params f) {
    constexpr unsigned T = 1u << A;
    constexpr unsigned R = T < DEEP_ROWS ? T : DEEP_ROWS; /* rows sharing one inversion */
    const size_t N = p.N, M = f.M;
    const size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    gs_fp x0 = gs_fp_mul(p.shift, gs_fp_pow(p.w, first));
    gs_fp base = gs_fp_mul(f.shift_inv, gs_fp_pow(f.w_inv, first));
    for (size_t j = first; j < M; j += stride) {
        gs_fp3 s1[T];
        gs_fp x = x0;
        /* R rows at a time: rows j + (h + t) M, t < R. */
#pragma unroll
        for (unsigned h = 0; h < T; h += R) {
            gs_fp3 s2[R];
            {
                gs_fp3_acc_ la[R]; /* the products unreduced, one reduction per component */
#pragma unroll
                for (unsigned t = 0; t < R; t++) la[t] = gs_fp3_acc_zero_();
                for (uint32_t c = 0; c < p.cols; c++) {
                    const gs_fp3 b = p.beta[c];
                    const uint64_t *col = p.trace + (size_t)c * N + j + (size_t)h * M;
#pragma unroll
                    for (unsigned t = 0; t < R; t++) gs_fp3_acc_mul_fp_(&la[t], b, __ldg(col + t * M));
                }
#pragma unroll
                for (unsigned t = 0; t < R; t++) s1[h + t] = gs_fp3_acc_done_(&la[t]);
            }
#pragma unroll
            for (unsigned t = 0; t < R; t++) {
                s2[t] = gs_fp3_sub(gs_fp3_mul(p.bC, s1[h + t]), p.k2);
                s1[h + t] = gs_fp3_sub(s1[h + t], p.k1);
            }
            const size_t row = j + (size_t)h * M;
            fp3_cols_sum<R>(s1 + h, p.beta_chunks, p.chunks, p.n_chunks, N, row, M);
            if (p.aux_cols) { /* one sum for z and z w, as in deep_kernel */
                gs_fp3 as[R];
#pragma unroll
                for (unsigned t = 0; t < R; t++) as[t] = gs_fp3_zero();
                fp3_cols_sum<R>(as, p.beta_aux, p.aux, p.aux_cols, N, row, M);
#pragma unroll
                for (unsigned t = 0; t < R; t++) {
                    s1[h + t] = gs_fp3_add(s1[h + t], as[t]);
                    s2[t] = gs_fp3_add(s2[t], gs_fp3_mul(p.bA, as[t]));
                }
            }
            gs_fp den[R], pre[R], acc = 1;
#pragma unroll
            for (unsigned t = 0; t < R; t++) {
                const gs_fp n1 = gs_inv_lin_norm(&p.l1, x), n2 = gs_inv_lin_norm(&p.l2, x), x2 = gs_fp_sqr(x);
                s1[h + t] = gs_fp3_add(gs_fp3_mul_fp(gs_fp3_mul(s1[h + t], gs_inv_lin_quad(&p.l1, x, x2)), n2),
                                       gs_fp3_mul_fp(gs_fp3_mul(s2[t], gs_inv_lin_quad(&p.l2, x, x2)), n1));
                den[t] = gs_fp_mul(n1, n2);
                pre[t] = acc;
                acc = gs_fp_mul(acc, den[t]);
                x = gs_fp_mul(x, p.w_block);
            }
            gs_fp inv = gs_fp_inv(acc);
#pragma unroll
            for (int t = (int)R - 1; t >= 0; t--) {
                const gs_fp dinv = gs_fp_mul(inv, pre[t]);
                inv = gs_fp_mul(inv, den[t]);
                s1[h + t] = gs_fp3_mul_fp(s1[h + t], dinv);
            }
        }
        fold_registers<A>(s1, base, f);
#pragma unroll
        for (int c = 0; c < 3; c++) f.out[(size_t)c * M + j] = s1[0].c[c];
        x0 = gs_fp_mul(x0, p.w_tile);
        base = gs_fp_mul(base, f.step_inv);
    }
}

/* out_k[i] = component k of sum_c beta[c] in_c[i]: one row per thread step,
 * the products unreduced (gs_fp3_acc_); 8 cols bytes read and 24 written a
 * row, memory-bound. */
__global__ void __launch_bounds__(THREADS)
combine_kernel(uint64_t *out, const uint64_t *in, const gs_fp3 *beta, uint32_t cols, size_t len) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len; i += stride) {
        gs_fp3_acc_ s = gs_fp3_acc_zero_();
#pragma unroll 8
        for (uint32_t c = 0; c < cols; c++) gs_fp3_acc_mul_fp_(&s, beta[c], __ldg(in + (size_t)c * len + i));
        const gs_fp3 f = gs_fp3_acc_done_(&s);
#pragma unroll
        for (int k = 0; k < 3; k++) out[(size_t)k * len + i] = f.c[k];
    }
}

/* ---- out-of-domain evaluation ---- */

/* pw[t] = x^t for t < THREADS, pw[THREADS + s] = x^(s seg) for s < nseg. */
__global__ void __launch_bounds__(THREADS)
eval_pows_kernel(gs_fp3 *pw, gs_fp3 x, size_t seg, size_t nseg) {
    const size_t total = THREADS + nseg;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x)
        pw[k] = gs_fp3_pow(x, k < THREADS ? k : (k - THREADS) * seg);
}

/* partial[c nseg + s] = sum over i in segment s of coeffs[c len + i] x^i;
 * block (s, g): segment s = blockIdx.x, column groups g, g + gridDim.y, ... */
__global__ void __launch_bounds__(THREADS)
eval_partial_kernel(gs_fp3 *partial, const uint64_t *__restrict__ coeffs, size_t cols, size_t len,
                    size_t seg, size_t nseg, const gs_fp3 *pw, gs_fp3 x_step /* x^THREADS */) {
    /* The sums stay reduced per product: 8 unreduced Fp3 accumulators (72
     * words) measured 11% slower here (occupancy). */
    __shared__ gs_fp3 red[WARPS][EVAL_COLS];
    const size_t s = blockIdx.x, start = s * seg, end = min_size(start + seg, len);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const gs_fp3 p0 = gs_fp3_mul(pw[THREADS + s], pw[threadIdx.x]); /* x^(start + t) */
    for (size_t c0 = blockIdx.y * (size_t)EVAL_COLS; c0 < cols;
         c0 += (size_t)gridDim.y * EVAL_COLS) {
        gs_fp3 acc[EVAL_COLS];
#pragma unroll
        for (unsigned j = 0; j < EVAL_COLS; j++) acc[j] = gs_fp3_zero();
        gs_fp3 p = p0;
        for (size_t i = start + threadIdx.x; i < end; i += THREADS) {
#pragma unroll
            for (unsigned j = 0; j < EVAL_COLS; j++)
                if (c0 + j < cols)
                    acc[j] = gs_fp3_add(acc[j], gs_fp3_mul_fp(p, __ldg(coeffs + (c0 + j) * len + i)));
            p = gs_fp3_mul(p, x_step);
        }
#pragma unroll
        for (unsigned j = 0; j < EVAL_COLS; j++) {
            const gs_fp3 v = warp_sum(acc[j]);
            if (lane == 0) red[warp][j] = v;
        }
        __syncthreads();
        if (threadIdx.x < EVAL_COLS && c0 + threadIdx.x < cols) {
            gs_fp3 v = red[0][threadIdx.x];
            for (unsigned w = 1; w < WARPS; w++) v = gs_fp3_add(v, red[w][threadIdx.x]);
            partial[(c0 + threadIdx.x) * nseg + s] = v;
        }
        __syncthreads(); /* red is rewritten for the next group */
    }
}

/* out[c] = sum_s partial[c nseg + s]; block b takes columns b, b + gridDim.x, ... */
__global__ void __launch_bounds__(THREADS)
eval_final_kernel(gs_fp3 *out, const gs_fp3 *partial, size_t cols, size_t nseg) {
    __shared__ gs_fp3 red[WARPS];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (size_t c = blockIdx.x; c < cols; c += gridDim.x) {
        gs_fp3 acc = gs_fp3_zero();
        for (size_t s = threadIdx.x; s < nseg; s += THREADS)
            acc = gs_fp3_add(acc, partial[c * nseg + s]);
        acc = warp_sum(acc);
        if (lane == 0) red[warp] = acc;
        __syncthreads();
        if (threadIdx.x == 0) {
            gs_fp3 v = red[0];
            for (unsigned w = 1; w < WARPS; w++) v = gs_fp3_add(v, red[w]);
            out[c] = v;
        }
        __syncthreads();
    }
}

/* ---- values at many base-field points ---- */

/* Point j's row of the power table (THREADS + nseg + 1 values): x_j^t for
 * t < THREADS, x_j^(s seg) at THREADS + s, x_j^THREADS last. */
__global__ void __launch_bounds__(THREADS)
pts_pows_kernel(gs_fp *pw, const gs_fp *x, size_t npts, size_t seg, size_t nseg) {
    const size_t row = THREADS + nseg + 1, total = npts * row;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x) {
        const size_t j = k / row, e = k % row;
        pw[k] = gs_fp_pow(x[j], e < THREADS ? e : e < THREADS + nseg ? (e - THREADS) * seg : THREADS);
    }
}

__device__ __forceinline__ gs_fp warp_sum_fp(gs_fp v) {
#pragma unroll
    for (unsigned off = 16; off > 0; off >>= 1)
        v = gs_fp_add(v, __shfl_down_sync(0xffffffffu, (unsigned long long)v, off));
    return v; /* lane 0 holds the warp's sum */
}

/* partial[(c npts + j) nseg + s] = sum over i in segment s of
 * coeffs[c len + i] x_j^i; block (s, g): segment s = blockIdx.x, groups g,
 * g + gridDim.y, ... of PTS_POINTS points by PTS_COLS columns (point group
 * g / ncg, column group g % ncg). */
__global__ void __launch_bounds__(THREADS, 2)
pts_partial_kernel(gs_fp *partial, const uint64_t *__restrict__ coeffs, size_t cols, size_t len,
                   size_t seg, size_t nseg, const gs_fp *__restrict__ pw, size_t npts) {
    constexpr unsigned R = PTS_POINTS * PTS_COLS;
    __shared__ gs_fp red[WARPS][R];
    __shared__ gs_fp step[PTS_POINTS]; /* x_j^THREADS, the same for every thread */
    const size_t s = blockIdx.x, start = s * seg, end = min_size(start + seg, len), row = THREADS + nseg + 1;
    const size_t ncg = (cols + PTS_COLS - 1) / PTS_COLS, groups = ((npts + PTS_POINTS - 1) / PTS_POINTS) * ncg;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (size_t g = blockIdx.y; g < groups; g += gridDim.y) {
        const size_t j0 = g / ncg * PTS_POINTS, c0 = g % ncg * PTS_COLS;
        gs_fp p[PTS_POINTS], acc[PTS_POINTS][PTS_COLS];
#pragma unroll
        for (unsigned j = 0; j < PTS_POINTS; j++) {
            const gs_fp *q = pw + min_size(j0 + j, npts - 1) * row; /* past the last point: a copy of it */
            p[j] = gs_fp_mul(q[THREADS + s], q[threadIdx.x]);
            if (threadIdx.x == j) step[j] = q[THREADS + nseg];
#pragma unroll
            for (unsigned c = 0; c < PTS_COLS; c++) acc[j][c] = 0;
        }
        __syncthreads();
        for (size_t i = start + threadIdx.x; i < end; i += THREADS) {
            gs_fp a[PTS_COLS];
#pragma unroll
            for (unsigned c = 0; c < PTS_COLS; c++) a[c] = c0 + c < cols ? __ldg(coeffs + (c0 + c) * len + i) : 0;
#pragma unroll
            for (unsigned j = 0; j < PTS_POINTS; j++) {
#pragma unroll
                for (unsigned c = 0; c < PTS_COLS; c++) acc[j][c] = gs_fp_add(acc[j][c], gs_fp_mul(p[j], a[c]));
                p[j] = gs_fp_mul(p[j], step[j]);
            }
        }
#pragma unroll
        for (unsigned j = 0; j < PTS_POINTS; j++)
#pragma unroll
            for (unsigned c = 0; c < PTS_COLS; c++) {
                const gs_fp v = warp_sum_fp(acc[j][c]);
                if (lane == 0) red[warp][j * PTS_COLS + c] = v;
            }
        __syncthreads();
        if (threadIdx.x < R) {
            const unsigned j = threadIdx.x / PTS_COLS, c = threadIdx.x % PTS_COLS;
            if (j0 + j < npts && c0 + c < cols) {
                gs_fp v = red[0][threadIdx.x];
                for (unsigned w = 1; w < WARPS; w++) v = gs_fp_add(v, red[w][threadIdx.x]);
                partial[((c0 + c) * npts + j0 + j) * nseg + s] = v;
            }
        }
        __syncthreads(); /* red is rewritten for the next group */
    }
}

/* out[j cols + c] = sum_s partial[(c npts + j) nseg + s]; one warp a value. */
__global__ void __launch_bounds__(THREADS)
pts_final_kernel(gs_fp *out, const gs_fp *partial, size_t cols, size_t npts, size_t nseg) {
    const unsigned lane = threadIdx.x % 32;
    const size_t warps = (size_t)gridDim.x * WARPS;
    for (size_t q = blockIdx.x * (size_t)WARPS + threadIdx.x / 32; q < cols * npts; q += warps) {
        gs_fp v = 0;
        for (size_t s = lane; s < nseg; s += 32) v = gs_fp_add(v, partial[q * nseg + s]);
        v = warp_sum_fp(v);
        if (lane == 0) out[(q % npts) * cols + q / npts] = v;
    }
}

/* How eval_at and eval_points cut [0, len) (len >= 1) for `groups` blocks
 * a segment: nseg segments of seg indices. */
struct eval_plan {
    size_t seg, nseg, groups;
};

eval_plan eval_plan_make(size_t groups, size_t len) {
    eval_plan e;
    e.groups = groups;
    size_t want = EVAL_TARGET_BLOCKS / e.groups;
    if (want == 0) want = 1;
    size_t nseg = min_size(min_size(want, ceil_div(len, THREADS * EVAL_MIN_STEPS)), EVAL_MAX_SEGS);
    e.seg = ceil_div(ceil_div(len, nseg), THREADS) * THREADS;
    e.nseg = ceil_div(len, e.seg);
    return e;
}

/* ---- grinding ---- */

struct pow_prefix {
    uint64_t lane[4]; /* prefix bytes 0..31 (the transcript state S) as four LE lanes */
    uint64_t head;    /* prefix bytes 32, 33 (tag, bits) in the low 16 bits */
};

struct grind_result {
    unsigned long long best; /* smallest valid nonce seen (UINT64_MAX at first) */
    unsigned int found;
};

__device__ __forceinline__ uint64_t bswap64(uint64_t v) {
    const uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
    return ((uint64_t)__byte_perm(lo, 0, 0x0123) << 32) | __byte_perm(hi, 0, 0x0123);
}

/* Whether H(prefix || u64le(nonce)) starts with `bits` zero bits
 * (1 <= bits <= 64), the digest read big-endian as in pow.c. The 42 bytes
 * are lanes 0..5 (bytes 32, 33 = the prefix's last two, 34..41 = nonce),
 * padded with 0x01 at byte 42 and 0x80 at byte 135. */
__device__ __forceinline__ bool pow_ok(const pow_prefix &pre, unsigned bits, uint64_t nonce) {
    uint64_t s[25];
#pragma unroll
    for (int i = 0; i < 4; i++) s[i] = pre.lane[i];
    s[4] = pre.head | (nonce << 16);
    s[5] = (nonce >> 48) | (0x01ull << 16);
#pragma unroll
    for (int i = 6; i < 25; i++) s[i] = 0;
    s[16] = 0x8000000000000000ull;
    gs_cuda_keccak::f1600<GRIND_FORM>(s);
    return (bswap64(s[0]) >> (64 - bits)) == 0;
}

__global__ void __launch_bounds__(GRIND_THREADS)
grind_kernel(grind_result *res, const pow_prefix pre, unsigned bits) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const volatile unsigned long long *best = &res->best;
    for (uint64_t n = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;; n += stride) {
        if (n > *best) return; /* another thread found a smaller one */
        if (pow_ok(pre, bits, n)) {
            atomicMin(&res->best, (unsigned long long)n);
            atomicExch(&res->found, 1u);
            return; /* this thread's later nonces are larger */
        }
        if (n > UINT64_MAX - stride) return; /* past 2^64 - 1 */
    }
}

/* Threads for the grind: as many as the current device runs at once. */
gs_status grind_blocks(unsigned *blocks) {
    int device = 0, sms = 0, per_sm = 0;
    GS_TRY(checked(cudaGetDevice(&device), "cudaGetDevice"));
    GS_TRY(checked(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                   "cudaDeviceGetAttribute (SM count)"));
    GS_TRY(checked(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grind_kernel,
                                                                 GRIND_THREADS, 0),
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessor (grind)"));
    *blocks = (unsigned)(sms > 0 ? sms : 1) * (unsigned)(per_sm > 0 ? per_sm : 1);
    return GS_OK;
}

uint64_t load_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The search itself: *found and *best from the device. */
gs_status grind_search(int *found, uint64_t *best, const uint8_t *prefix, unsigned bits,
                       cudaStream_t s) {
    pow_prefix pre;
    for (int i = 0; i < 4; i++) pre.lane[i] = load_le64(prefix + 8 * i);
    pre.head = (uint64_t)prefix[32] | ((uint64_t)prefix[33] << 8);
    unsigned blocks = 0;
    GS_TRY(grind_blocks(&blocks));
    grind_result host = {~0ull, 0}, *d_res = NULL;
    GS_TRY(dev_alloc((void **)&d_res, sizeof *d_res, s, "cudaMallocAsync (grind result)"));
    gs_status st = copy_async(d_res, &host, sizeof host, cudaMemcpyHostToDevice, s,
                              "cudaMemcpyAsync (grind start)");
    if (st == GS_OK) {
        grind_kernel<<<blocks, GRIND_THREADS, 0, s>>>(d_res, pre, bits);
        st = gs_cuda_launched("grind_kernel");
    }
    if (st == GS_OK)
        st = copy_async(&host, d_res, sizeof host, cudaMemcpyDeviceToHost, s,
                        "cudaMemcpyAsync (grind result)");
    dev_free(d_res, s);
    /* Also on an error: the copy into `host` must be over before it goes. */
    gs_status w = checked(cudaStreamSynchronize(s), "cudaStreamSynchronize (grind)");
    if (st != GS_OK) return st;
    GS_TRY(w);
    *found = host.found != 0;
    *best = host.best;
    return GS_OK;
}

} // namespace

extern "C" gs_status gs_cuda_fold(uint64_t *d_out, const uint64_t *d_in, unsigned log_size,
                                  unsigned folds, gs_fp shift, gs_fp3 gamma, void *stream) {
    if (!d_out || !d_in || folds == 0 || folds > GS_CUDA_FOLD_MAX || folds > log_size ||
        log_size > GS_FP_TWO_ADICITY || shift == 0)
        return GS_ERR_INVALID_ARG;
    const size_t M = (size_t)1 << (log_size - folds);
    const uintptr_t o = (uintptr_t)d_out, i = (uintptr_t)d_in;
    if (o < i + 3 * (M << folds) * sizeof(gs_fp) && i < o + 3 * M * sizeof(gs_fp)) return GS_ERR_INVALID_ARG;
    const unsigned threads = M < THREADS ? (unsigned)M : THREADS;
    const size_t blocks = min_size(M / threads, FOLD_MAX_BLOCKS);
    fold_params p;
    p.out = d_out;
    p.in = d_in;
    p.M = M;
    p.shift_inv = gs_fp_inv(shift);
    p.w_inv = gs_fp_inv(gs_fp_root_of_unity(log_size));
    p.step_inv = gs_fp_pow(p.w_inv, blocks * threads);
    p.inv2 = gs_fp_inv(2);
    p.gamma = gamma;
    const gs_fp wm = gs_fp_pow(p.w_inv, M);
    p.rt[0] = 1;
    for (unsigned k = 1; k < (1u << GS_CUDA_FOLD_MAX); k++) p.rt[k] = gs_fp_mul(p.rt[k - 1], wm);
    (void)cudaGetLastError(); /* a stale error is not this launch's */
    const unsigned g = (unsigned)blocks;
    const cudaStream_t st = as_stream(stream);
    switch (folds) {
    case 1: fold_kernel<1><<<g, threads, 0, st>>>(p); break;
    case 2: fold_kernel<2><<<g, threads, 0, st>>>(p); break;
    case 3: fold_kernel<3><<<g, threads, 0, st>>>(p); break;
    default: fold_kernel<4><<<g, threads, 0, st>>>(p); break;
    }
    return gs_cuda_launched("fold_kernel");
}

extern "C" gs_status gs_cuda_add_scaled(uint64_t *d_dst, size_t dst_rows, const uint64_t *d_src,
                                        size_t src_rows, size_t len, gs_fp3 c, void *stream) {
    if (!d_dst || !d_src || len > dst_rows || len > src_rows) return GS_ERR_INVALID_ARG;
    if (len == 0) return GS_OK;
    const unsigned threads = len < THREADS ? (unsigned)len : THREADS;
    const size_t blocks = min_size((len + threads - 1) / threads, FOLD_MAX_BLOCKS);
    (void)cudaGetLastError(); /* a stale error is not this launch's */
    add_scaled_kernel<<<(unsigned)blocks, threads, 0, as_stream(stream)>>>(d_dst, dst_rows, d_src,
                                                                           src_rows, len, c);
    return gs_cuda_launched("add_scaled_kernel");
}

/* The DEEP kernels' parameters but for p.out, p.w_block and p.w_tile, with
 * the weights copied to the device (*d_beta, freed by the caller in stream
 * order after the launch; *betas_host likewise with free_host_after). */
static gs_status deep_setup(deep_params *p, gs_fp3 **d_beta, gs_fp3 **betas_host, int *copying,
                            const uint64_t *d_trace, const uint64_t *d_chunks, const uint64_t *d_aux,
                            const gs_cuda_deep_args *a, cudaStream_t s) {
    *d_beta = NULL, *betas_host = NULL, *copying = 0;
    if (!a || !a->beta_pows || a->log_size > GS_FP_TWO_ADICITY) return GS_ERR_INVALID_ARG;
    const uint32_t tw = a->trace_combined ? 3 : a->cols; /* the trace's weights */
    if ((tw && !d_trace) || (a->chunks && !d_chunks) || (a->aux_cols && !d_aux))
        return GS_ERR_INVALID_ARG;
    /* On the device: the trace's weights, then the chunks' (beta^(2C+j))
     * and the aux columns' (beta^(2C+K+j)). The caller's array may change
     * once we return, and an asynchronous copy may read its source later
     * (always so from pinned memory): the copy reads a private one, freed
     * in stream order after the kernel. */
    const size_t nbeta = 2 * (size_t)a->cols + a->chunks + 2 * (size_t)a->aux_cols;
    const size_t nup = (size_t)tw + a->chunks + a->aux_cols;
    gs_fp3 *betas = (gs_fp3 *)calloc(nup ? nup : 1, sizeof *betas);
    if (!betas) return GS_ERR_NOMEM;
    if (a->trace_combined) {
        for (int k = 0; k < 3; k++) betas[k].c[k] = 1; /* 1, X, X^2 */
    } else {
        memcpy(betas, a->beta_pows, (size_t)tw * sizeof *betas);
    }
    memcpy(betas + tw, a->beta_pows + 2 * (size_t)a->cols, ((size_t)a->chunks + a->aux_cols) * sizeof *betas);
    *betas_host = betas;
    (void)cudaGetLastError();
    GS_TRY(dev_alloc((void **)d_beta, (nup ? nup : 1) * sizeof **d_beta, s, "cudaMallocAsync (DEEP betas)"));
    if (nup)
        GS_TRY(copy_async(*d_beta, betas, nup * sizeof *betas, cudaMemcpyHostToDevice, s,
                          "cudaMemcpyAsync (DEEP betas)"));
    *copying = nup != 0;
    p->trace = d_trace;
    p->chunks = d_chunks;
    p->aux = d_aux;
    p->beta = *d_beta;
    p->beta_chunks = *d_beta + tw;
    p->beta_aux = *d_beta + tw + a->chunks;
    p->N = (size_t)1 << a->log_size;
    p->cols = tw;
    p->n_chunks = a->chunks;
    p->aux_cols = a->aux_cols;
    p->shift = a->shift;
    p->w = gs_fp_root_of_unity(a->log_size);
    p->k1 = a->k1;
    p->k2 = a->k2;
    /* beta^C; with no columns at all the CPU multiplies it by an empty sum
     * (and it lies past the empty array), so a zero stands in. */
    p->bC = nbeta > a->cols ? a->beta_pows[a->cols] : gs_fp3_zero();
    p->bA = a->aux_cols ? a->beta_pows[a->aux_cols] : gs_fp3_zero(); /* aux_cols < nbeta */
    p->l1 = gs_inv_lin_make(a->z);
    p->l2 = gs_inv_lin_make(a->zw);
    return GS_OK;
}

extern "C" gs_status gs_cuda_deep_word(uint64_t *d_out, const uint64_t *d_trace,
                                       const uint64_t *d_chunks, const uint64_t *d_aux,
                                       const gs_cuda_deep_args *a, void *stream) {
    if (!d_out) return GS_ERR_INVALID_ARG;
    const cudaStream_t s = as_stream(stream);
    deep_params p;
    gs_fp3 *d_beta, *betas;
    int copying;
    gs_status st = deep_setup(&p, &d_beta, &betas, &copying, d_trace, d_chunks, d_aux, a, s);
    if (st == GS_OK) {
        const size_t tile = (size_t)DEEP_ROWS * THREADS;
        const size_t blocks = min_size(ceil_div(p.N, tile), DEEP_MAX_BLOCKS);
        p.out = d_out;
        p.w_block = gs_fp_pow(p.w, THREADS);
        p.w_tile = gs_fp_pow(p.w, blocks * tile);
        deep_kernel<<<(unsigned)blocks, THREADS, 0, s>>>(p);
        st = gs_cuda_launched("deep_kernel");
    }
    if (betas) free_host_after(betas, copying, s);
    dev_free(d_beta, s); /* after the kernel, in stream order */
    return st;
}

extern "C" gs_status gs_cuda_deep_fold(uint64_t *d_out, const uint64_t *d_trace,
                                       const uint64_t *d_chunks, const uint64_t *d_aux,
                                       const gs_cuda_deep_args *a, unsigned folds, gs_fp3 gamma,
                                       void *stream) {
    if (!d_out || !a || folds == 0 || folds > GS_CUDA_FOLD_MAX || folds > a->log_size || a->shift == 0)
        return GS_ERR_INVALID_ARG;
    const cudaStream_t s = as_stream(stream);
    deep_params p;
    gs_fp3 *d_beta, *betas;
    int copying;
    gs_status st = deep_setup(&p, &d_beta, &betas, &copying, d_trace, d_chunks, d_aux, a, s);
    if (st == GS_OK) {
        const size_t M = p.N >> folds;
        const unsigned threads = M < THREADS ? (unsigned)M : THREADS;
        const size_t blocks = min_size(M / threads, FOLD_MAX_BLOCKS);
        fold_params f;
        f.out = d_out;
        f.in = NULL;
        f.M = M;
        f.shift_inv = gs_fp_inv(a->shift);
        f.w_inv = gs_fp_inv(p.w);
        f.step_inv = gs_fp_pow(f.w_inv, blocks * threads);
        f.inv2 = gs_fp_inv(2);
        f.gamma = gamma;
        const gs_fp wm = gs_fp_pow(f.w_inv, M);
        f.rt[0] = 1;
        for (unsigned k = 1; k < (1u << GS_CUDA_FOLD_MAX); k++) f.rt[k] = gs_fp_mul(f.rt[k - 1], wm);
        p.out = NULL;
        p.w_block = gs_fp_pow(p.w, M);
        p.w_tile = gs_fp_pow(p.w, blocks * threads);
        const unsigned g = (unsigned)blocks;
        switch (folds) {
        case 1: deep_fold_kernel<1><<<g, threads, 0, s>>>(p, f); break;
        case 2: deep_fold_kernel<2><<<g, threads, 0, s>>>(p, f); break;
        case 3: deep_fold_kernel<3><<<g, threads, 0, s>>>(p, f); break;
        default: deep_fold_kernel<4><<<g, threads, 0, s>>>(p, f); break;
        }
        st = gs_cuda_launched("deep_fold_kernel");
    }
    if (betas) free_host_after(betas, copying, s);
    dev_free(d_beta, s);
    return st;
}

extern "C" gs_status gs_cuda_deep_combine(uint64_t *d_out, const uint64_t *d_in, size_t cols, size_t len,
                                          const gs_fp3 *beta_pows, void *stream) {
    if (len == 0) return GS_OK;
    if (!d_out || (cols && (!d_in || !beta_pows)) || cols > UINT32_MAX) return GS_ERR_INVALID_ARG;
    const cudaStream_t s = as_stream(stream);
    gs_fp3 *betas = (gs_fp3 *)malloc((cols ? cols : 1) * sizeof *betas), *d_beta = NULL;
    if (!betas) return GS_ERR_NOMEM;
    if (cols) memcpy(betas, beta_pows, cols * sizeof *betas);
    int copying = 0;
    (void)cudaGetLastError();
    gs_status st = dev_alloc((void **)&d_beta, (cols ? cols : 1) * sizeof *d_beta, s, "cudaMallocAsync (DEEP sum)");
    if (st == GS_OK && cols)
        st = copy_async(d_beta, betas, cols * sizeof *betas, cudaMemcpyHostToDevice, s, "cudaMemcpyAsync (DEEP sum)");
    copying = st == GS_OK && cols;
    if (st == GS_OK) {
        const size_t blocks = min_size(ceil_div(len, THREADS), FOLD_MAX_BLOCKS);
        combine_kernel<<<(unsigned)blocks, THREADS, 0, s>>>(d_out, d_in, d_beta, (uint32_t)cols, len);
        st = gs_cuda_launched("combine_kernel");
    }
    free_host_after(betas, copying, s);
    dev_free(d_beta, s);
    return st;
}

extern "C" gs_status gs_cuda_eval_at(gs_fp3 *out, const uint64_t *d_coeffs, size_t cols,
                                     size_t len, gs_fp3 x, void *stream) {
    if (cols == 0) return GS_OK;
    if (!out) return GS_ERR_INVALID_ARG;
    if (len == 0) {
        for (size_t c = 0; c < cols; c++) out[c] = gs_fp3_zero();
        return GS_OK;
    }
    if (!d_coeffs || len > SIZE_MAX / sizeof(gs_fp) / cols) return GS_ERR_INVALID_ARG;
    const eval_plan e = eval_plan_make(ceil_div(cols, EVAL_COLS), len);
    /* Scratch: the power tables, the partial sums, then (nseg > 1) the sums. */
    const size_t n_pw = THREADS + e.nseg, n_sum = e.nseg > 1 ? cols : 0;
    if (cols > (SIZE_MAX / sizeof(gs_fp3) - n_pw) / (e.nseg + 1)) return GS_ERR_INVALID_ARG;
    const cudaStream_t s = as_stream(stream);
    (void)cudaGetLastError();
    gs_fp3 *d_tmp = NULL;
    GS_TRY(dev_alloc((void **)&d_tmp, (n_pw + cols * e.nseg + n_sum) * sizeof *d_tmp, s,
                     "cudaMallocAsync (eval_at scratch)"));
    gs_fp3 *d_pw = d_tmp, *d_partial = d_tmp + n_pw, *d_sum = d_partial + cols * e.nseg;
    eval_pows_kernel<<<(unsigned)ceil_div(n_pw, THREADS), THREADS, 0, s>>>(d_pw, x, e.seg, e.nseg);
    gs_status st = gs_cuda_launched("eval_pows_kernel");
    if (st == GS_OK) {
        const dim3 grid((unsigned)e.nseg, (unsigned)min_size(e.groups, EVAL_MAX_GROUPS));
        eval_partial_kernel<<<grid, THREADS, 0, s>>>(d_partial, d_coeffs, cols, len, e.seg, e.nseg,
                                                     d_pw, gs_fp3_pow(x, THREADS));
        st = gs_cuda_launched("eval_partial_kernel");
    }
    const gs_fp3 *d_res = d_partial; /* one segment: the partial sums are the sums */
    if (st == GS_OK && e.nseg > 1) {
        eval_final_kernel<<<(unsigned)min_size(cols, FINAL_MAX_BLOCKS), THREADS, 0, s>>>(
            d_sum, d_partial, cols, e.nseg);
        st = gs_cuda_launched("eval_final_kernel");
        d_res = d_sum;
    }
    if (st == GS_OK)
        st = copy_async(out, d_res, cols * sizeof *out, cudaMemcpyDeviceToHost, s,
                        "cudaMemcpyAsync (eval_at values)");
    dev_free(d_tmp, s);
    /* Also on an error: nothing may still write to out after the return. */
    gs_status w = checked(cudaStreamSynchronize(s), "cudaStreamSynchronize (eval_at)");
    return st != GS_OK ? st : w;
}

extern "C" gs_status gs_cuda_eval_points(gs_fp *out, const uint64_t *d_coeffs, size_t cols, size_t len,
                                         const gs_fp *x, size_t npts, void *stream) {
    if (cols == 0 || npts == 0) return GS_OK;
    if (!out || !x) return GS_ERR_INVALID_ARG;
    if (len == 0) {
        memset(out, 0, cols * npts * sizeof *out);
        return GS_OK;
    }
    if (!d_coeffs || len > SIZE_MAX / sizeof(gs_fp) / cols || npts > SIZE_MAX / sizeof(gs_fp) / cols)
        return GS_ERR_INVALID_ARG;
    const eval_plan e = eval_plan_make(ceil_div(npts, PTS_POINTS) * ceil_div(cols, PTS_COLS), len);
    const size_t seg = e.seg, nseg = e.nseg;
    /* Scratch: the points, their power tables, the partial sums, the values. */
    const size_t row = THREADS + nseg + 1;
    if (npts > (SIZE_MAX / sizeof(gs_fp) - 1) / (row + 1 + cols * (nseg + 1))) return GS_ERR_INVALID_ARG;
    const cudaStream_t s = as_stream(stream);
    (void)cudaGetLastError();
    gs_fp *d_tmp = NULL;
    GS_TRY(dev_alloc((void **)&d_tmp, npts * (1 + row + cols * (nseg + 1)) * sizeof *d_tmp, s,
                     "cudaMallocAsync (eval_points scratch)"));
    gs_fp *d_x = d_tmp, *d_pw = d_x + npts, *d_partial = d_pw + npts * row, *d_out = d_partial + cols * npts * nseg;
    gs_status st = copy_async(d_x, x, npts * sizeof *x, cudaMemcpyHostToDevice, s, "cudaMemcpyAsync (eval_points points)");
    if (st == GS_OK) {
        pts_pows_kernel<<<(unsigned)min_size(ceil_div(npts * row, THREADS), FINAL_MAX_BLOCKS), THREADS, 0, s>>>(
            d_pw, d_x, npts, seg, nseg);
        st = gs_cuda_launched("pts_pows_kernel");
    }
    if (st == GS_OK) {
        const dim3 grid((unsigned)nseg, (unsigned)min_size(e.groups, EVAL_MAX_GROUPS));
        pts_partial_kernel<<<grid, THREADS, 0, s>>>(d_partial, d_coeffs, cols, len, seg, nseg, d_pw, npts);
        st = gs_cuda_launched("pts_partial_kernel");
    }
    if (st == GS_OK) {
        pts_final_kernel<<<(unsigned)min_size(ceil_div(cols * npts, WARPS), FINAL_MAX_BLOCKS), THREADS, 0, s>>>(
            d_out, d_partial, cols, npts, nseg);
        st = gs_cuda_launched("pts_final_kernel");
    }
    if (st == GS_OK)
        st = copy_async(out, d_out, cols * npts * sizeof *out, cudaMemcpyDeviceToHost, s,
                        "cudaMemcpyAsync (eval_points values)");
    dev_free(d_tmp, s);
    /* Also on an error: nothing may still write to out after the return. */
    gs_status w = checked(cudaStreamSynchronize(s), "cudaStreamSynchronize (eval_points)");
    return st != GS_OK ? st : w;
}

extern "C" gs_status gs_cuda_pow_search(int *found, uint64_t *nonce, const uint8_t *prefix,
                                        unsigned bits, void *stream) {
    if (!found || !nonce || !prefix || bits == 0 || bits > 64) return GS_ERR_INVALID_ARG;
    (void)cudaGetLastError();
    int f = 0;
    uint64_t best = 0;
    GS_TRY(grind_search(&f, &best, prefix, bits, as_stream(stream)));
    *found = f;
    *nonce = best;
    return GS_OK;
}
