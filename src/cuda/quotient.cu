/* The quotient over the LDE coset and the LogUp aux trace on the device
 * (src/cuda/quotient.h): the CPU backend's quotient (src/backend/cpu.c) and
 * gs_logup_aux_trace (src/air/logup.c), value for value. Field arithmetic is
 * exact and canonical (gstark/field.h), so any evaluation order of the same
 * formula gives the same bits; only the formulas have to match.
 *
 * Quotient: one thread per LDE row i (grid-stride), x = shift w_N^i kept by
 * one product per step. The thread interprets the AIR bytecode (the CPU block
 * interpreter's semantics, src/air/eval.c) in a per-thread register file:
 *   - prog_trans with LOAD_NEXT reading row (i + B) mod N; each STORE k is
 *     folded at once into sum_k alpha^k C_k (no output array), and the sum
 *     is multiplied by (x - w^(n-1)) / (x^n - 1), 1/(x^n - 1) from a table of
 *     its B distinct values;
 *   - boundaries grouped by distinct row: sum alpha^(T+b) (t_col(x) - v_b)
 *     per group, times 1/(x - w^row);
 *   - with LogUp, prog_inter (LOAD_NEXT = the same row, as on the CPU)
 *     writes its outputs after its registers, then the group constraints of
 *     air/logup_eval.h (the last group's is the running sum's), the
 *     definition the CPU's gs_logup_constraints_fp instantiates too, all
 *     over x^n - 1.
 *   The row's denominators (x - w^row per boundary group)
 *   are inverted together, 4 at a time, by Montgomery's trick: one field
 *   inversion (an addition chain, 64 squarings and 9 products) per 4. None is
 *   zero: the call refuses a coset that meets the trace domain (x^n = 1).
 *   Memory per row: the columns the program loads (8 bytes each, coalesced
 *   column reads), the boundary columns, 2 x 3 x aux_cols aux values with
 *   LogUp, 24 bytes written; the tables (bytecode, constants, alpha powers)
 *   are read warp-uniformly through the L1 cache.
 *
 * Register files: a program needs max(n_regs) words (plus the interaction
 * outputs, plus 3 per interaction in the aux kernel). Up to 32 or 128 words
 * the file is a local array (template kernels; local memory is interleaved
 * per thread, so accesses coalesce; the driver reserves that much local
 * memory per resident thread: about 70 MiB and 280 MiB on an H200). Larger
 * files live in a global scratch, word k of thread t at k * T + t, with the
 * grid cut so that the scratch stays within SCRATCH_BUDGET; every size works.
 *
 * LogUp aux trace (n rows): kernel 1, one thread per row: prog_inter, the
 * fingerprints d_i = z - (bus_i + sum_k alpha^(k+1) v_k) (logup_eval.h), their inverses by
 * Montgomery's trick within the row (one Fp3 inversion per row; a zero
 * fingerprint raises a flag, reported as GS_ERR_EXHAUSTED), h_g into the aux
 * columns but the last group's, and the row's total over every group into
 * the S column one row down (the last row's into a tail word, S[0] = 0).
 * Then S becomes its inclusive prefix sum over Fp3 (reduce-then-scan: tiles
 * of 2048 values per block of 256 threads, a tile scanned in 8 coalesced
 * rounds with warp shuffles; the tile sums are scanned the same way,
 * recursively, then added back): S[r] = sum_(r' < r) t[r']. sigma = S[n-1]
 * + the tail and sigma / n (one thread), then S[r] -= r sigma / n, and
 * sigma comes back with the flag in one 32-byte copy. Scan and step
 * traffic: 3 reads and 2 writes of 24 bytes per row.
 *
 * The aux kernel reads the columns prog_inter loads and writes 24 bytes per
 * aux column and row.
 *
 * Device memory per call: one stream-ordered allocation holding the tables
 * (the programs and their constants, publics, alpha powers, the B values of
 * 1/(x^n - 1), a few words per boundary, interaction and group) and, when
 * used, the global register scratch and the scan's tile sums (24 bytes per
 * 2048 rows); freed on the stream on every path, the CUDA text of the first
 * failure kept.
 *
 * Layering: the AIR arrives as the plain gs_cuda_air / gs_cuda_bus of
 * quotient.h (src/backend/cuda.c makes them); the only header included from
 * a layer above is air/logup_eval.h, the LogUp formulas shared with the CPU. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_util.cuh"
#include "cuda/device.h"
#include "cuda/quotient.h"
#include "gstark/cuda.h"
#include "gstark/cuda_ntt.h"
#include "gstark/field.h"

#define HD static __host__ __device__ __forceinline__

static_assert(sizeof(gs_cuda_insn) == 8, "the kernels read instructions as 64-bit words");
static_assert(sizeof(gs_fp3) == 24, "Fp3 tables are read as three words");

namespace {

constexpr unsigned ROW_THREADS = 256;   /* threads per block of the row kernels */
constexpr size_t MAX_BLOCKS = 1u << 14; /* blocks per row kernel; grid-stride beyond */
constexpr size_t SCRATCH_BUDGET = (size_t)256 << 20; /* global register files, bytes */
constexpr unsigned DEN_CHUNK = 4;       /* denominators per Montgomery batch */
constexpr unsigned SCAN_THREADS = 256;
constexpr unsigned SCAN_ROUNDS = 8;
constexpr size_t SCAN_TILE = (size_t)SCAN_THREADS * SCAN_ROUNDS;
constexpr size_t SCAN_MAX_BLOCKS = 1u << 16;
constexpr size_t ALIGN_WORDS = 32; /* 256-byte alignment of the scratch regions */

/* ---- field helpers ---- */

#if defined(__CUDA_ARCH__)
#define LDG(p) ((uint64_t)__ldg((const unsigned long long *)(p)))
#define UNROLL _Pragma("unroll")
#else
#define LDG(p) (*(p))
#define UNROLL
#endif

/* Fp3 value k of an Fp3 column stored as three Fp columns `cs` apart. */
HD gs_fp3 ld3(const uint64_t *d, size_t cs, size_t k) {
    return gs_fp3_make(d[k], d[cs + k], d[2 * cs + k]);
}

HD void st3(uint64_t *d, size_t cs, size_t k, gs_fp3 v) {
    d[k] = v.c[0], d[cs + k] = v.c[1], d[2 * cs + k] = v.c[2];
}

/* ---- register files ---- */

/* A local array of MAXR words... */
template <int MAXR> struct regfile {
    uint64_t r[MAXR];
    __host__ __device__ void bind(uint64_t *, size_t, size_t) {}
    __host__ __device__ uint64_t get(uint32_t k) const { return r[k]; }
    __host__ __device__ void set(uint32_t k, uint64_t v) { r[k] = v; }
};

/* ...or thread t's words in a global scratch: word k at k * T + t. */
template <> struct regfile<0> {
    uint64_t *p;
    size_t stride;
    __host__ __device__ void bind(uint64_t *scratch, size_t tid, size_t threads) {
        p = scratch + tid;
        stride = threads;
    }
    __host__ __device__ uint64_t get(uint32_t k) const { return p[(size_t)k * stride]; }
    __host__ __device__ void set(uint32_t k, uint64_t v) { p[(size_t)k * stride] = v; }
};

/* ---- the interpreter ---- */

/* One program on one row of the column-major matrix m (`rows` per column):
 * LOAD_CUR reads row cur, LOAD_NEXT row nxt; STORE k calls sink(k, value). */
template <class RF, class SINK>
HD void run_program(const uint64_t *insns, uint32_t n_insns, const gs_fp *consts,
                    const gs_fp *pub, const uint64_t *m, size_t rows, size_t cur, size_t nxt,
                    RF &R, SINK &sink) {
    for (uint32_t k = 0; k < n_insns; k++) {
        uint64_t w = LDG(insns + k);
        uint32_t op = (uint32_t)(w & 0xFFFF), dst = (uint32_t)((w >> 16) & 0xFFFF);
        uint32_t a = (uint32_t)((w >> 32) & 0xFFFF), b = (uint32_t)(w >> 48);
        switch (op) {
        case GS_CUDA_OP_LOAD_CUR: R.set(dst, m[(size_t)a * rows + cur]); break;
        case GS_CUDA_OP_LOAD_NEXT: R.set(dst, m[(size_t)a * rows + nxt]); break;
        case GS_CUDA_OP_LOAD_PUB: R.set(dst, LDG(pub + a)); break;
        case GS_CUDA_OP_LOAD_CONST: R.set(dst, LDG(consts + (a | b << 16))); break;
        case GS_CUDA_OP_ADD: R.set(dst, gs_fp_add(R.get(a), R.get(b))); break;
        case GS_CUDA_OP_SUB: R.set(dst, gs_fp_sub(R.get(a), R.get(b))); break;
        case GS_CUDA_OP_MUL: R.set(dst, gs_fp_mul(R.get(a), R.get(b))); break;
        case GS_CUDA_OP_NEG: R.set(dst, gs_fp_neg(R.get(a))); break;
        default: sink(dst, R.get(a)); break; /* GS_CUDA_OP_STORE (checked on the host) */
        }
    }
}

/* Transition outputs folded into sum_k alpha^k C_k, the products added
 * unreduced (one reduction per component: gs_fp3_acc_done_). */
struct weigh_sink {
    const gs_fp3 *alpha;
    gs_fp3_acc_ acc;
    __host__ __device__ void operator()(uint32_t k, gs_fp v) { gs_fp3_acc_mul_fp_(&acc, alpha[k], v); }
};

/* Interaction outputs kept in the register file from word `base` on. */
template <class RF> struct keep_sink {
    RF *R;
    uint32_t base;
    __host__ __device__ void operator()(uint32_t k, gs_fp v) { R->set(base + k, v); }
};

/* The tables both kernels read for LogUp (per interaction: output offset,
 * width, bus, sign; per group: first interaction and size). */
struct bus_tables {
    const uint64_t *grp_first, *grp_size, *off, *width, *neg;
    const gs_fp *bus;
    const gs_fp3 *ap; /* bus alpha^0 .. alpha^GS_CUDA_MAX_TUPLE */
    gs_fp3 z;
    uint32_t ni, G;
};

/* A row for the shared LogUp definition (air/logup_eval.h): the interaction
 * outputs in R from word `base`, the aux LDE (column j at 3 j N) on rows cur
 * and nxt, and the quotient's sum of the group constraints weighted by
 * lap[g] (acc). The aux kernel uses only the fingerprint and mult. */
template <class RF> struct bus_row {
    const bus_tables *T;
    const RF *R;
    uint32_t base;
    const uint64_t *aux;
    size_t N, cur, nxt;
    const gs_fp3 *lap;
    gs_fp3 acc;
};

#define GS_LU_NAME(x) lu_dev_##x
#define GS_LU_QUAL template <class RF> HD
#define GS_LU_CTX bus_row<RF>
#define GS_LU_V gs_fp
#define GS_LU_MUL(x, v) gs_fp3_mul_fp(x, v)
#define GS_LU_NEG(v) gs_fp_neg(v)
#define GS_LU_LIFT(v) gs_fp3_from_fp(v)
#define GS_LU_OUT(c, k) ((c)->R->get((c)->base + (k)))
#define GS_LU_GROUPS(c) ((c)->T->G)
#define GS_LU_FIRST(c, g) ((c)->T->grp_first[g])
#define GS_LU_SIZE(c, g) ((c)->T->grp_size[g])
#define GS_LU_OFF(c, i) ((c)->T->off[i])
#define GS_LU_WIDTH(c, i) ((c)->T->width[i])
#define GS_LU_RECEIVES(c, i) ((c)->T->neg[i])
#define GS_LU_BUS(c, i) ((c)->T->bus[i])
#define GS_LU_Z(c) ((c)->T->z)
#define GS_LU_AP(c, k) ((c)->T->ap[k])
#define GS_LU_AUX(c, j) ld3((c)->aux + (size_t)3 * (j) * (c)->N, (c)->N, (c)->cur)
#define GS_LU_AUX_NEXT(c, j) ld3((c)->aux + (size_t)3 * (j) * (c)->N, (c)->N, (c)->nxt)
#define GS_LU_GROUP(c, g, v) ((c)->acc = gs_fp3_add((c)->acc, gs_fp3_mul((c)->lap[g], (v))))
#define GS_LU_DOT(c, at, w) lu_dev_dot(c, at, w)
/* sum_(k < w) alpha^(k+1) output (at + k), unreduced until the end. */
template <class RF> HD gs_fp3 lu_dev_dot(const bus_row<RF> *c, uint32_t at, uint32_t w) {
    gs_fp3_acc_ s = gs_fp3_acc_zero_();
    for (uint32_t k = 0; k < w; k++) gs_fp3_acc_mul_fp_(&s, c->T->ap[k + 1], c->R->get(c->base + at + k));
    return gs_fp3_acc_done_(&s);
}
#include "air/logup_eval.h"

/* ---- quotient ---- */

struct quot_args {
    const uint64_t *lde, *aux;
    uint64_t *out;
    /* The launch's rows v < count are the outputs j = j0 + v jstride (the
     * points i = j << log_step). lde and aux have columns N apart; row v
     * lies at li = lrow0 + v lstep there and its next row at (li + step) &
     * mask: all N rows lrow0 0, lstep 2^log_step, step B, mask N - 1; a row
     * piece the same with its next rows copied after it and mask ~0; a
     * sub-coset's next rows in the other slot (quotient_eval_coeffs). */
    size_t N, mask, step;
    size_t j0, jstride, count, lrow0, lstep;
    size_t bmask;         /* B - 1 */
    size_t n_out;         /* N >> log_step rows out: rows i = j << log_step */
    unsigned log_step;
    gs_fp shift, wN, wstep, wlast;
    const uint64_t *t_insns, *i_insns;
    const gs_fp *t_consts, *i_consts, *pub;
    uint32_t t_n, i_n, i_base, nt;
    const gs_fp3 *alpha; /* transitions at [0, nt); LogUp weights at lap */
    const gs_fp *zinv;   /* 1 / (x^n - 1) by i mod B */
    const gs_fp *pts;    /* denominators x - pts[k], one per boundary group */
    uint32_t nd;
    const uint64_t *bg_start, *b_col; /* boundaries sorted by group */
    const gs_fp *b_val;
    const gs_fp3 *b_alpha;
    bus_tables bt;       /* bt.G == 0: no LogUp */
    const gs_fp3 *lap;   /* alpha + nt + nb */
    gs_fp3 sigma_n;      /* sigma / n (air/logup.h) */
    uint64_t *scratch;   /* global register files (tier 0) */
};

/* The point i = x at li in the launch's rows. */
template <class RF> HD void quot_row(const quot_args &A, RF &R, size_t i, size_t li, gs_fp x) {
    gs_fp zi = A.zinv[i & A.bmask];
    gs_fp tdiv = gs_fp_mul(gs_fp_sub(x, A.wlast), zi); /* (x - w^(n-1)) / (x^n - 1) */
    size_t in = (li + A.step) & A.mask; /* where its next row lies */
    gs_fp3 acc = gs_fp3_zero();
    if (A.nt) {
        weigh_sink ws = {A.alpha, gs_fp3_acc_zero_()};
        run_program(A.t_insns, A.t_n, A.t_consts, A.pub, A.lde, A.N, li, in, R, ws);
        acc = gs_fp3_mul_fp(gs_fp3_acc_done_(&ws.acc), tdiv);
    }
    for (uint32_t c0 = 0; c0 < A.nd; c0 += DEN_CHUNK) {
        uint32_t cn = A.nd - c0 < DEN_CHUNK ? A.nd - c0 : DEN_CHUNK;
        gs_fp den[DEN_CHUNK], pre[DEN_CHUNK], p = 1;
UNROLL
        for (uint32_t j = 0; j < DEN_CHUNK; j++)
            if (j < cn) {
                den[j] = gs_fp_sub(x, A.pts[c0 + j]);
                pre[j] = p;
                p = gs_fp_mul(p, den[j]);
            }
        gs_fp inv = gs_fp_inv(p);
UNROLL
        for (int j = (int)DEN_CHUNK - 1; j >= 0; j--)
            if ((uint32_t)j < cn) {
                gs_fp dj = den[j];
                den[j] = gs_fp_mul(inv, pre[j]);
                inv = gs_fp_mul(inv, dj);
            }
UNROLL
        for (uint32_t j = 0; j < DEN_CHUNK; j++) {
            if (j >= cn) continue;
            uint32_t g = c0 + j;
            gs_fp3 ga = gs_fp3_zero();
            for (uint64_t b = A.bg_start[g]; b < A.bg_start[g + 1]; b++) {
                gs_fp v = A.lde[(size_t)A.b_col[b] * A.N + li];
                ga = gs_fp3_add(ga, gs_fp3_mul_fp(A.b_alpha[b], gs_fp_sub(v, A.b_val[b])));
            }
            acc = gs_fp3_add(acc, gs_fp3_mul_fp(ga, den[j]));
        }
    }
    if (A.bt.G) {
        const bus_tables &T = A.bt;
        keep_sink<RF> ks = {&R, A.i_base};
        run_program(A.i_insns, A.i_n, A.i_consts, A.pub, A.lde, A.N, li, li, R, ks);
        bus_row<RF> row = {&T, &R, A.i_base, A.aux, A.N, li, in, A.lap, gs_fp3_zero()};
        lu_dev_constraints(&row, A.sigma_n);
        acc = gs_fp3_add(acc, gs_fp3_mul_fp(row.acc, zi));
    }
    st3(A.out, A.n_out, i >> A.log_step, acc);
}

template <int MAXR> __global__ void __launch_bounds__(ROW_THREADS) quotient_kernel(const quot_args A) {
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= A.count) return;
    regfile<MAXR> R;
    R.bind(A.scratch, tid, threads);
    gs_fp x = gs_fp_mul(A.shift, gs_fp_pow(A.wN, (A.j0 + tid * A.jstride) << A.log_step));
    for (size_t v = tid; v < A.count; v += threads) {
        quot_row(A, R, (A.j0 + v * A.jstride) << A.log_step, A.lrow0 + v * A.lstep, x);
        x = gs_fp_mul(x, A.wstep);
    }
}

/* A sub-coset's NTT input (gs_cuda_quotient_eval_coeffs): for each of cols
 * columns of n coefficients, out_c[a] = s^a sum_(b < n / m) in_c[a + b m]
 * H^b (H = s^m), a < m, whose forward NTT of size m is the column's values
 * on s <w_m>. A thread takes a row a and every column (s^a made once). */
__global__ void __launch_bounds__(ROW_THREADS)
subcoset_kernel(uint64_t *out, const uint64_t *in, size_t cols, size_t n, size_t m, gs_fp s, gs_fp H) {
    const size_t threads = (size_t)gridDim.x * blockDim.x, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (first >= m) return;
    const gs_fp step = gs_fp_pow(s, threads);
    gs_fp sa = gs_fp_pow(s, first);
    for (size_t a = first; a < m; a += threads) {
        for (size_t c = 0; c < cols; c++) {
            const uint64_t *col = in + c * n + a;
            gs_fp acc = 0;
            for (size_t b = n / m; b-- > 0;) acc = gs_fp_add(gs_fp_mul(acc, H), __ldg(col + b * m));
            out[c * m + a] = gs_fp_mul(acc, sa);
        }
        sa = gs_fp_mul(sa, step);
    }
}

/* ---- the trace check (check mode) ---- */

/* Any nonzero transition output of a row. */
struct zero_sink {
    int bad;
    __host__ __device__ void operator()(uint32_t, gs_fp v) { bad |= v != 0; }
};

struct tcheck_args {
    const uint64_t *trace;
    size_t n; /* rows; rows 0 .. n - 2 are checked against their next */
    const uint64_t *t_insns;
    const gs_fp *t_consts, *pub;
    uint32_t t_n;
    unsigned long long *first_bad; /* the least failing row, or ~0 */
    uint64_t *scratch;
};

template <int MAXR> __global__ void __launch_bounds__(ROW_THREADS) tcheck_kernel(const tcheck_args A) {
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid + 1 >= A.n) return;
    regfile<MAXR> R;
    R.bind(A.scratch, tid, threads);
    for (size_t r = tid; r + 1 < A.n; r += threads) {
        zero_sink z = {0};
        run_program(A.t_insns, A.t_n, A.t_consts, A.pub, A.trace, A.n, r, r + 1, R, z);
        if (z.bad) {
            atomicMin(A.first_bad, (unsigned long long)r);
            return; /* later rows of this thread cannot be earlier */
        }
    }
}

/* ---- LogUp aux trace ---- */

struct aux_args {
    const uint64_t *trace;
    uint64_t *aux;
    size_t n;
    const uint64_t *i_insns;
    const gs_fp *i_consts, *pub;
    uint32_t i_n, base, pbase; /* outputs at base, prefix products at pbase */
    bus_tables bt;
    uint64_t *flag;
    uint64_t *tail; /* 3 words: the last row's total */
    uint64_t *scratch;
};

template <class RF> HD void aux_row(const aux_args &A, RF &R, size_t r) {
    const bus_tables &T = A.bt;
    keep_sink<RF> ks = {&R, A.base};
    run_program(A.i_insns, A.i_n, A.i_consts, A.pub, A.trace, A.n, r, r, R, ks);
    bus_row<RF> row = {&T, &R, A.base, NULL, 0, 0, 0, NULL, gs_fp3_zero()};
    /* Montgomery's trick over the row's fingerprints: word pbase + 3 i holds
     * d_0 ... d_(i-1), then 1 / d_i. */
    gs_fp3 p = gs_fp3_one();
    int zero = 0;
    for (uint32_t i = 0; i < T.ni; i++) {
        gs_fp3 d = lu_dev_fingerprint(&row, i);
        zero |= gs_fp3_is_zero(d);
        for (int c = 0; c < 3; c++) R.set(A.pbase + 3 * i + c, p.c[c]);
        p = gs_fp3_mul(p, d);
    }
    gs_fp3 inv = gs_fp3_inv(p);
    for (uint32_t i = T.ni; i-- > 0;) {
        uint32_t at = A.pbase + 3 * i;
        gs_fp3 pre = gs_fp3_make(R.get(at), R.get(at + 1), R.get(at + 2));
        gs_fp3 di = gs_fp3_mul(inv, pre);
        inv = gs_fp3_mul(inv, lu_dev_fingerprint(&row, i));
        for (int c = 0; c < 3; c++) R.set(at + c, di.c[c]);
    }
    if (zero) *A.flag = 1;
    gs_fp3 total = gs_fp3_zero();
    for (uint32_t g = 0; g < T.G; g++) {
        gs_fp3 h = gs_fp3_zero();
        for (uint32_t t = 0; t < (uint32_t)T.grp_size[g]; t++) {
            uint32_t i = (uint32_t)T.grp_first[g] + t, at = A.pbase + 3 * i;
            gs_fp3 di = gs_fp3_make(R.get(at), R.get(at + 1), R.get(at + 2));
            h = gs_fp3_add(h, gs_fp3_mul_fp(di, lu_dev_mult(&row, i)));
        }
        if (g + 1 < T.G) st3(A.aux + (size_t)3 * g * A.n, A.n, r, h); /* the last group's lives in S */
        total = gs_fp3_add(total, h);
    }
    /* The row's total one row down in S (the last row's in the tail), so
     * the inclusive scan next gives sum_(r' < r) t[r'] */
    uint64_t *S = A.aux + (size_t)3 * (T.G - 1) * A.n;
    if (r + 1 < A.n) st3(S, A.n, r + 1, total);
    else st3(A.tail, 1, 0, total);
    if (r == 0) st3(S, A.n, 0, gs_fp3_zero());
}

template <int MAXR> __global__ void __launch_bounds__(ROW_THREADS) aux_kernel(const aux_args A) {
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= A.n) return;
    regfile<MAXR> R;
    R.bind(A.scratch, tid, threads);
    for (size_t r = tid; r < A.n; r += threads) aux_row(A, R, r);
}

/* ---- inclusive prefix sum over Fp3 (reduce, scan the tile sums, scan) ---- */

__device__ __forceinline__ gs_fp3 shfl_up3(gs_fp3 v, unsigned d) {
    for (int c = 0; c < 3; c++)
        v.c[c] = (gs_fp)__shfl_up_sync(0xFFFFFFFFu, (unsigned long long)v.c[c], d);
    return v;
}

/* The exclusive prefix of v over the block in thread order; *total gets the
 * block's sum. Every thread of the block calls it (SCAN_THREADS threads). */
__device__ gs_fp3 block_exclusive(gs_fp3 v, gs_fp3 *total) {
    constexpr unsigned WARPS = SCAN_THREADS / 32;
    __shared__ gs_fp3 warp_sums[WARPS];
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    gs_fp3 inc = v;
    for (unsigned d = 1; d < 32; d <<= 1) {
        gs_fp3 y = shfl_up3(inc, d);
        if (lane >= d) inc = gs_fp3_add(inc, y);
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        gs_fp3 w = lane < WARPS ? warp_sums[lane] : gs_fp3_zero();
        for (unsigned d = 1; d < 32; d <<= 1) {
            gs_fp3 y = shfl_up3(w, d);
            if (lane >= d) w = gs_fp3_add(w, y);
        }
        if (lane < WARPS) warp_sums[lane] = w;
    }
    __syncthreads();
    gs_fp3 before = warp ? warp_sums[warp - 1] : gs_fp3_zero();
    *total = warp_sums[WARPS - 1];
    __syncthreads(); /* warp_sums is free for the next call */
    return gs_fp3_add(before, gs_fp3_sub(inc, v));
}

/* sums[t] = the sum of tile t of d (count values, components cs apart). */
__global__ void __launch_bounds__(SCAN_THREADS)
    scan_reduce_kernel(const uint64_t *d, size_t cs, size_t count, uint64_t *sums, size_t tiles) {
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        gs_fp3 s = gs_fp3_zero(), total;
        for (unsigned k = 0; k < SCAN_ROUNDS; k++) {
            size_t e = t * SCAN_TILE + (size_t)k * SCAN_THREADS + threadIdx.x;
            if (e < count) s = gs_fp3_add(s, ld3(d, cs, e));
        }
        (void)block_exclusive(s, &total);
        if (threadIdx.x == 0) st3(sums, tiles, t, total);
    }
}

/* Each tile in place to its inclusive prefix sum, plus offs[t - 1] (the
 * inclusive prefix of the tile sums) when offs is not NULL. */
__global__ void __launch_bounds__(SCAN_THREADS)
    scan_tile_kernel(uint64_t *d, size_t cs, size_t count, const uint64_t *offs, size_t tiles) {
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        gs_fp3 carry = offs && t ? ld3(offs, tiles, t - 1) : gs_fp3_zero();
        for (unsigned k = 0; k < SCAN_ROUNDS; k++) {
            size_t first = t * SCAN_TILE + (size_t)k * SCAN_THREADS;
            if (first >= count) break; /* uniform over the block */
            size_t e = first + threadIdx.x;
            gs_fp3 v = e < count ? ld3(d, cs, e) : gs_fp3_zero(), total;
            gs_fp3 ex = block_exclusive(v, &total);
            if (e < count) st3(d, cs, e, gs_fp3_add(carry, gs_fp3_add(ex, v)));
            carry = gs_fp3_add(carry, total);
        }
    }
}

/* status: [flag, sigma (3), the last row's total (3), sigma / n (3)]. After
 * the scan S[n-1] is the sum of every row's total but the last. */
__global__ void sigma_kernel(const uint64_t *S, size_t n, uint64_t *status, gs_fp inv_n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        gs_fp3 sigma = gs_fp3_add(ld3(S, n, n - 1), ld3(status + 4, 1, 0));
        st3(status + 1, 1, 0, sigma);
        st3(status + 7, 1, 0, gs_fp3_mul_fp(sigma, inv_n));
    }
}

/* S[r] -= r sigma / n: the running sum's step (air/logup.h). */
__global__ void sum_step_kernel(uint64_t *S, size_t n, const uint64_t *status) {
    const gs_fp3 sn = ld3(status + 7, 1, 0);
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += threads)
        st3(S, n, r, gs_fp3_sub(ld3(S, n, r), gs_fp3_mul_fp(sn, (gs_fp)r)));
}

/* ---- host side ---- */

/* gs_cuda_check that also clears the (non-sticky) error it reports, so a
 * later launch check does not see it again. */
gs_status check(cudaError_t e, const char *what) {
    if (e == cudaSuccess) return GS_OK;
    (void)cudaGetLastError();
    return gs_cuda_check(e, what);
}

/* A clean-up call's result: its error only when nothing failed before (the
 * first failure keeps its text in gs_cuda_last_error()). */
gs_status cleanup(gs_status st, cudaError_t e, const char *what) {
    if (st == GS_OK) return check(e, what);
    if (e != cudaSuccess) (void)cudaGetLastError();
    return st;
}

size_t round_up(size_t w) { return (w + ALIGN_WORDS - 1) / ALIGN_WORDS * ALIGN_WORDS; }

size_t scan_scratch_words(size_t count) {
    size_t w = 0;
    while (count > SCAN_TILE) {
        count = (count + SCAN_TILE - 1) / SCAN_TILE;
        w += 3 * count;
    }
    return w;
}

unsigned grid_for(size_t items, size_t per_block, size_t cap) {
    size_t b = (items + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);
}

/* The inclusive prefix sum of count Fp3 values in place (components cs
 * apart); scratch: scan_scratch_words(count) words. */
gs_status scan_fp3(uint64_t *d, size_t cs, size_t count, uint64_t *scratch, cudaStream_t s) {
    size_t tiles = (count + SCAN_TILE - 1) / SCAN_TILE;
    unsigned grid = grid_for(tiles, 1, SCAN_MAX_BLOCKS);
    if (tiles == 1) {
        scan_tile_kernel<<<1, SCAN_THREADS, 0, s>>>(d, cs, count, NULL, 1);
        return gs_cuda_launched("scan_tile_kernel");
    }
    scan_reduce_kernel<<<grid, SCAN_THREADS, 0, s>>>(d, cs, count, scratch, tiles);
    GS_TRY(gs_cuda_launched("scan_reduce_kernel"));
    GS_TRY(scan_fp3(scratch, tiles, tiles, scratch + 3 * tiles, s));
    scan_tile_kernel<<<grid, SCAN_THREADS, 0, s>>>(d, cs, count, scratch, tiles);
    return gs_cuda_launched("scan_tile_kernel");
}

/* Every instruction in range: registers < n_regs, columns, publics and
 * constants present, STORE targets < n_out. */
gs_status check_program(const gs_cuda_air *air, const gs_cuda_program *p) {
    if (p->n_insns && !p->insns) return GS_ERR_INVALID_ARG;
    if (p->n_consts && !p->consts) return GS_ERR_INVALID_ARG;
    for (uint32_t k = 0; k < p->n_insns; k++) {
        gs_cuda_insn in;
        memcpy(&in, p->insns + k, sizeof in);
        int ok;
        switch (in.op) {
        case GS_CUDA_OP_LOAD_CUR:
        case GS_CUDA_OP_LOAD_NEXT: ok = in.dst < p->n_regs && in.a < air->num_cols; break;
        case GS_CUDA_OP_LOAD_PUB: ok = in.dst < p->n_regs && in.a < air->num_public; break;
        case GS_CUDA_OP_LOAD_CONST:
            ok = in.dst < p->n_regs && (in.a | (uint32_t)in.b << 16) < p->n_consts;
            break;
        case GS_CUDA_OP_ADD:
        case GS_CUDA_OP_SUB:
        case GS_CUDA_OP_MUL: ok = in.dst < p->n_regs && in.a < p->n_regs && in.b < p->n_regs; break;
        case GS_CUDA_OP_NEG: ok = in.dst < p->n_regs && in.a < p->n_regs; break;
        case GS_CUDA_OP_STORE: ok = in.dst < p->n_out && in.a < p->n_regs; break;
        default: ok = 0;
        }
        if (!ok) return GS_ERR_INVALID_ARG;
    }
    return GS_OK;
}

/* The layout fits the interaction program: groups cover the interactions in
 * order, every tuple lies inside the program's outputs. */
gs_status check_logup(const gs_cuda_bus *L, const gs_cuda_air *air) {
    if (!L->n_inters || !L->n_groups || air->inter.n_out != L->n_outs || !L->group_first ||
        !L->group_size || !L->out_off || !L->inters)
        return GS_ERR_INVALID_ARG;
    uint32_t next = 0;
    for (uint32_t g = 0; g < L->n_groups; g++) {
        uint32_t sz = L->group_size[g];
        if (L->group_first[g] != next || sz == 0 || sz > L->n_inters - next)
            return GS_ERR_INVALID_ARG;
        next += sz;
    }
    if (next != L->n_inters) return GS_ERR_INVALID_ARG;
    for (uint32_t i = 0; i < L->n_inters; i++) {
        uint32_t w = L->inters[i].width;
        if (w > GS_CUDA_MAX_TUPLE || L->out_off[i] >= L->n_outs || w >= L->n_outs - L->out_off[i])
            return GS_ERR_INVALID_ARG;
    }
    return check_program(air, &air->inter);
}

/* Word offsets into one host image of a kernel's tables. */
struct layout {
    size_t words = 0;
    size_t take(size_t n) {
        size_t o = words;
        words += n;
        return o;
    }
};

struct bus_offsets {
    size_t grp_first, grp_size, off, width, neg, bus, ap;
};

bus_offsets take_bus(layout &ly, const gs_cuda_bus *L) {
    bus_offsets o;
    o.grp_first = ly.take(L->n_groups);
    o.grp_size = ly.take(L->n_groups);
    o.off = ly.take(L->n_inters);
    o.width = ly.take(L->n_inters);
    o.neg = ly.take(L->n_inters);
    o.bus = ly.take(L->n_inters);
    o.ap = ly.take(3 * (GS_CUDA_MAX_TUPLE + 1));
    return o;
}

void fill_bus(uint64_t *h, const bus_offsets &o, const gs_cuda_bus *L, const gs_fp3 *ap) {
    for (uint32_t g = 0; g < L->n_groups; g++) {
        h[o.grp_first + g] = L->group_first[g];
        h[o.grp_size + g] = L->group_size[g];
    }
    for (uint32_t i = 0; i < L->n_inters; i++) {
        h[o.off + i] = L->out_off[i];
        h[o.width + i] = L->inters[i].width;
        h[o.neg + i] = L->inters[i].receives != 0;
        h[o.bus + i] = gs_fp_from_u64(L->inters[i].bus);
    }
    memcpy(h + o.ap, ap, (GS_CUDA_MAX_TUPLE + 1) * sizeof(gs_fp3));
}

bus_tables bind_bus(const uint64_t *base, const bus_offsets &o, const gs_cuda_bus *L, gs_fp3 z) {
    bus_tables t;
    t.grp_first = base + o.grp_first;
    t.grp_size = base + o.grp_size;
    t.off = base + o.off;
    t.width = base + o.width;
    t.neg = base + o.neg;
    t.bus = base + o.bus;
    t.ap = (const gs_fp3 *)(base + o.ap);
    t.z = z;
    t.ni = L->n_inters;
    t.G = L->n_groups;
    return t;
}

/* Register-file tier for `words`: 32 or 128 (local arrays) or 0 (global). */
int tier_for(size_t words) { return words <= 32 ? 32 : words <= 128 ? 128 : 0; }

/* Blocks for `rows` rows at this tier and the global scratch they need. */
unsigned row_grid(size_t rows, int tier, size_t words, size_t *scratch_words) {
    unsigned blocks = grid_for(rows, ROW_THREADS, MAX_BLOCKS);
    *scratch_words = 0;
    if (tier == 0) {
        size_t per_block = words * 8 * ROW_THREADS, fit = SCRATCH_BUDGET / per_block;
        if (fit < 1) fit = 1;
        if (blocks > fit) blocks = (unsigned)fit;
        *scratch_words = words * blocks * ROW_THREADS;
    }
    return blocks;
}

/* One device allocation of `words` words on stream s. */
gs_status dev_alloc(uint64_t **d, size_t words, cudaStream_t s, const char *what) {
    *d = NULL;
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, what));
    gs_status st = check(gs_cuda_counted_malloc_async((void **)d, words * sizeof(uint64_t), s), what);
    if (st != GS_OK) *d = NULL;
    return st;
}

gs_status upload(uint64_t *d, const uint64_t *h, size_t words, cudaStream_t s, const char *what) {
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_COPY, what));
    return check(cudaMemcpyAsync(d, h, words * sizeof(uint64_t), cudaMemcpyHostToDevice, s), what);
}

/* The host image of the quotient's tables and its kernel arguments (pointers
 * as offsets until bound). */
struct quot_plan {
    uint64_t *h = NULL;
    size_t words = 0, scratch_words = 0;
    int tier = 32;
    unsigned blocks = 1;
    size_t o_tins, o_tcon, o_iins, o_icon, o_pub, o_alpha, o_zinv, o_pts, o_bgs, o_bcol, o_bval,
        o_balpha;
    bus_offsets bo;
    quot_args A;
};

/* w_N^((threads in the grid) jstride 2^log_step): between a thread's points. */
gs_fp wstep_for(const quot_plan &P, const quot_args &A) {
    const size_t N = A.n_out << A.log_step;
    const size_t e = (((size_t)P.blocks * ROW_THREADS % N) * (A.jstride % N) % N << A.log_step) % N;
    return gs_fp_pow(A.wN, e);
}

gs_status quot_plan_make(quot_plan *P, const gs_cuda_quotient_args *a) {
    const gs_cuda_air *air = a->air;
    const gs_cuda_bus *L = a->bus;
    const gs_cuda_program *pt = &air->trans, *pi = &air->inter;
    uint32_t nt = air->n_trans, nb = a->n_bounds, nl = L ? L->n_groups : 0;
    size_t n = (size_t)1 << a->log_n, B = (size_t)1 << a->log_blowup, N = n * B;
    for (uint32_t b = 0; b < nb; b++)
        if (a->bound_cols[b] >= air->num_cols || a->bound_rows[b] >= n) return GS_ERR_INVALID_ARG;
    gs_status st = GS_ERR_NOMEM;
    gs_fp wn = gs_fp_root_of_unity(a->log_n), wlast = gs_fp_pow(wn, n - 1);
    /* Distinct boundary rows: group points, each boundary's group. */
    gs_fp *gpt = (gs_fp *)malloc((nb + 1) * sizeof(gs_fp));
    uint32_t *bgroup = (uint32_t *)malloc((nb + 1) * sizeof(uint32_t));
    uint32_t *cnt = (uint32_t *)calloc(nb + 2, sizeof(uint32_t));
    uint32_t ng = 0;
    uint64_t *h = NULL;
    layout ly;
    if (!gpt || !bgroup || !cnt) goto out;
    for (uint32_t b = 0; b < nb; b++) {
        gs_fp p = gs_fp_pow(wn, a->bound_rows[b]);
        uint32_t g = 0;
        while (g < ng && gpt[g] != p) g++;
        if (g == ng) gpt[ng++] = p;
        bgroup[b] = g;
        cnt[g + 1]++;
    }
    for (uint32_t g = 0; g < ng; g++) cnt[g + 1] += cnt[g]; /* cnt[g]: first slot of group g */
    P->o_tins = ly.take(pt->n_insns);
    P->o_tcon = ly.take(pt->n_consts);
    P->o_iins = ly.take(L ? pi->n_insns : 0);
    P->o_icon = ly.take(L ? pi->n_consts : 0);
    P->o_pub = ly.take(air->num_public);
    P->o_alpha = ly.take(3 * ((size_t)nt + nb + nl));
    P->o_zinv = ly.take(B);
    P->o_pts = ly.take((size_t)ng);
    P->o_bgs = ly.take((size_t)ng + 1);
    P->o_bcol = ly.take(nb);
    P->o_bval = ly.take(nb);
    P->o_balpha = ly.take(3 * (size_t)nb);
    if (L) P->bo = take_bus(ly, L);
    P->words = ly.words;
    h = (uint64_t *)calloc(ly.words + 1, sizeof(uint64_t));
    if (!h) goto out;
    if (pt->n_insns) memcpy(h + P->o_tins, pt->insns, pt->n_insns * sizeof(gs_cuda_insn));
    if (pt->n_consts) memcpy(h + P->o_tcon, pt->consts, pt->n_consts * sizeof(gs_fp));
    if (L && pi->n_insns) memcpy(h + P->o_iins, pi->insns, pi->n_insns * sizeof(gs_cuda_insn));
    if (L && pi->n_consts) memcpy(h + P->o_icon, pi->consts, pi->n_consts * sizeof(gs_fp));
    if (air->num_public) memcpy(h + P->o_pub, a->pub, air->num_public * sizeof(gs_fp));
    memcpy(h + P->o_alpha, a->alpha_pows, ((size_t)nt + nb + nl) * sizeof(gs_fp3));
    {
        /* x^n over the coset: shift^n w_B^j for j = i mod B; never 1 (the
         * coset avoids the trace domain, so no denominator below is 0). */
        gs_fp *zinv = (gs_fp *)(h + P->o_zinv), t = gs_fp_pow(a->shift, n);
        gs_fp wB = gs_fp_root_of_unity(a->log_blowup);
        for (size_t j = 0; j < B; j++) {
            zinv[j] = gs_fp_sub(t, 1);
            if (!zinv[j]) {
                st = GS_ERR_INVALID_ARG;
                goto out;
            }
            t = gs_fp_mul(t, wB);
        }
        if ((st = gs_fp_batch_inv(zinv, zinv, B)) != GS_OK) goto out;
        st = GS_ERR_NOMEM;
    }
    {
        gs_fp *pts = (gs_fp *)(h + P->o_pts);
        uint32_t k = 0;
        for (uint32_t g = 0; g < ng; g++) pts[k++] = gpt[g];
        for (uint32_t g = 0; g <= ng; g++) h[P->o_bgs + g] = cnt[g];
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t at = cnt[bgroup[b]]++;
            h[P->o_bcol + at] = a->bound_cols[b];
            h[P->o_bval + at] = a->bound_vals[b];
            memcpy(h + P->o_balpha + 3 * (size_t)at, &a->alpha_pows[nt + b], sizeof(gs_fp3));
        }
    }
    if (L) fill_bus(h, P->bo, L, a->bus_alpha_pows);
    {
        quot_args &A = P->A;
        memset(&A, 0, sizeof A);
        A.N = N, A.mask = N - 1, A.step = B, A.bmask = B - 1;
        A.log_step = a->log_step, A.n_out = N >> a->log_step;
        A.j0 = 0, A.jstride = 1, A.count = A.n_out, A.lrow0 = 0, A.lstep = (size_t)1 << a->log_step;
        A.shift = a->shift, A.wN = gs_fp_root_of_unity(a->log_n + a->log_blowup), A.wlast = wlast;
        A.t_n = nt ? pt->n_insns : 0, A.nt = nt;
        A.i_n = L ? pi->n_insns : 0, A.i_base = pi->n_regs;
        A.nd = ng;
        if (L) A.sigma_n = gs_fp3_mul_fp(a->sigma, gs_fp_inv((gs_fp)n));
        size_t words = pt->n_regs;
        if (L && (size_t)pi->n_regs + pi->n_out > words) words = (size_t)pi->n_regs + pi->n_out;
        if (!words) words = 1;
        P->tier = tier_for(words);
        P->blocks = row_grid(A.n_out, P->tier, words, &P->scratch_words);
        A.wstep = wstep_for(*P, A);
    }
    P->h = h, h = NULL;
    st = GS_OK;
out:
    free(gpt), free(bgroup), free(cnt), free(h);
    return st;
}

/* Points the plan's table pointers into `base` (device or host image). */
void quot_bind(quot_plan *P, const gs_cuda_quotient_args *a, const uint64_t *base) {
    quot_args &A = P->A;
    A.t_insns = base + P->o_tins;
    A.t_consts = base + P->o_tcon;
    A.i_insns = base + P->o_iins;
    A.i_consts = base + P->o_icon;
    A.pub = base + P->o_pub;
    A.alpha = (const gs_fp3 *)(base + P->o_alpha);
    A.lap = A.alpha + a->air->n_trans + a->n_bounds;
    A.zinv = base + P->o_zinv;
    A.pts = base + P->o_pts;
    A.bg_start = base + P->o_bgs;
    A.b_col = base + P->o_bcol;
    A.b_val = base + P->o_bval;
    A.b_alpha = (const gs_fp3 *)(base + P->o_balpha);
    if (a->bus) A.bt = bind_bus(base, P->bo, a->bus, a->bus_z);
}

gs_status quot_check(const uint64_t *d_out, const uint64_t *d_lde, const uint64_t *d_aux_lde,
                     const gs_cuda_quotient_args *a) {
    if (!a || !d_out || !d_lde || !a->air) return GS_ERR_INVALID_ARG;
    const gs_cuda_air *air = a->air;
    const gs_cuda_bus *L = a->bus;
    uint32_t nt = air->n_trans, nb = a->n_bounds;
    if (a->log_n + a->log_blowup > GS_FP_TWO_ADICITY || a->shift >= GS_FP_P || !a->alpha_pows ||
        a->log_step > a->log_blowup)
        return GS_ERR_INVALID_ARG;
    if (nb && (!a->bound_cols || !a->bound_rows || !a->bound_vals)) return GS_ERR_INVALID_ARG;
    if (air->num_public && !a->pub) return GS_ERR_INVALID_ARG;
    if (nt && air->trans.n_out != nt) return GS_ERR_INVALID_ARG;
    if (nt) GS_TRY(check_program(air, &air->trans));
    if (L) {
        if (!d_aux_lde || !a->bus_alpha_pows) return GS_ERR_INVALID_ARG;
        GS_TRY(check_logup(L, air));
    }
    return GS_OK;
}

/* ---- the aux trace's plan ---- */

struct aux_plan {
    uint64_t *h = NULL;
    size_t words = 0, table_words = 0, reg_words = 0, scan_words = 0;
    int tier = 32;
    unsigned blocks = 1;
    size_t o_status, o_iins, o_icon, o_pub;
    bus_offsets bo;
    aux_args A;
};

gs_status aux_plan_make(aux_plan *P, const gs_cuda_bus *L, const gs_cuda_air *air, unsigned log_n,
                        const gs_fp *pub, gs_fp3 z, gs_fp3 alpha) {
    const gs_cuda_program *pi = &air->inter;
    size_t n = (size_t)1 << log_n;
    layout ly;
    P->o_status = ly.take(10); /* zero-fingerprint flag, sigma, the last row's total, sigma / n */
    P->o_iins = ly.take(pi->n_insns);
    P->o_icon = ly.take(pi->n_consts);
    P->o_pub = ly.take(air->num_public);
    P->bo = take_bus(ly, L);
    P->table_words = round_up(ly.words);
    uint64_t *h = (uint64_t *)calloc(P->table_words, sizeof(uint64_t));
    if (!h) return GS_ERR_NOMEM;
    if (pi->n_insns) memcpy(h + P->o_iins, pi->insns, pi->n_insns * sizeof(gs_cuda_insn));
    if (pi->n_consts) memcpy(h + P->o_icon, pi->consts, pi->n_consts * sizeof(gs_fp));
    if (air->num_public) memcpy(h + P->o_pub, pub, air->num_public * sizeof(gs_fp));
    gs_fp3 ap[GS_CUDA_MAX_TUPLE + 1];
    gs_fp3_powers(ap, alpha, GS_CUDA_MAX_TUPLE + 1);
    fill_bus(h, P->bo, L, ap);
    aux_args &A = P->A;
    memset(&A, 0, sizeof A);
    A.n = n;
    A.i_n = pi->n_insns, A.base = pi->n_regs, A.pbase = pi->n_regs + pi->n_out;
    A.bt.z = z;
    size_t words = (size_t)pi->n_regs + pi->n_out + 3 * (size_t)L->n_inters;
    P->tier = tier_for(words);
    P->blocks = row_grid(n, P->tier, words, &P->reg_words);
    P->reg_words = round_up(P->reg_words);
    P->scan_words = scan_scratch_words(n);
    P->words = P->table_words + P->reg_words + P->scan_words;
    P->h = h;
    return GS_OK;
}

void aux_bind(aux_plan *P, const gs_cuda_bus *L, const uint64_t *base) {
    aux_args &A = P->A;
    A.i_insns = base + P->o_iins;
    A.i_consts = base + P->o_icon;
    A.pub = base + P->o_pub;
    A.bt = bind_bus(base, P->bo, L, A.bt.z);
}

} // namespace

namespace {

/* The plan of a, its tables copied to the device (*d: the tables, then the
 * register files) and bound; the host image is freed. */
gs_status quot_setup(quot_plan *P, uint64_t **d, const gs_cuda_quotient_args *a, cudaStream_t s) {
    *d = NULL;
    GS_TRY(quot_plan_make(P, a));
    size_t table_words = round_up(P->words);
    gs_status st = dev_alloc(d, table_words + P->scratch_words, s, "cudaMallocAsync (quotient tables)");
    if (st == GS_OK) st = upload(*d, P->h, P->words, s, "cudaMemcpyAsync (quotient tables)");
    /* The host image may be read until the copy is done. */
    if (st == GS_OK) st = check(cudaStreamSynchronize(s), "cudaStreamSynchronize (quotient tables)");
    free(P->h);
    if (st != GS_OK) {
        if (*d) st = cleanup(st, gs_cuda_counted_free_async(*d, s), "cudaFreeAsync");
        *d = NULL;
        return st;
    }
    quot_bind(P, a, *d);
    P->A.scratch = P->scratch_words ? *d + table_words : NULL;
    return GS_OK;
}

gs_status launch_quot(const quot_plan &P, const quot_args &A, cudaStream_t s) {
    switch (P.tier) {
    case 32: quotient_kernel<32><<<P.blocks, ROW_THREADS, 0, s>>>(A); break;
    case 128: quotient_kernel<128><<<P.blocks, ROW_THREADS, 0, s>>>(A); break;
    default: quotient_kernel<0><<<P.blocks, ROW_THREADS, 0, s>>>(A); break;
    }
    return gs_cuda_launched("quotient_kernel");
}

} // namespace

extern "C" gs_status gs_cuda_quotient_eval(uint64_t *d_out, const uint64_t *d_lde,
                                           const uint64_t *d_aux_lde,
                                           const gs_cuda_quotient_args *a, void *stream) {
    GS_TRY(quot_check(d_out, d_lde, d_aux_lde, a));
    cudaStream_t s = (cudaStream_t)stream;
    quot_plan P;
    uint64_t *d = NULL;
    GS_TRY(quot_setup(&P, &d, a, s));
    quot_args &A = P.A;
    A.lde = d_lde, A.aux = a->bus ? d_aux_lde : NULL, A.out = d_out;
    gs_status st = launch_quot(P, A, s);
    return cleanup(st, gs_cuda_counted_free_async(d, s), "cudaFreeAsync (quotient tables)");
}

extern "C" gs_status gs_cuda_quotient_eval_pieces(uint64_t *d_out, const uint64_t *lde,
                                                  const uint64_t *aux_lde,
                                                  const gs_cuda_quotient_args *a,
                                                  uint64_t *const d_piece[2], size_t piece_rows,
                                                  void *stream, void *copy_stream) {
    GS_TRY(quot_check(d_out, lde, aux_lde, a));
    size_t N = (size_t)1 << (a->log_n + a->log_blowup), B = (size_t)1 << a->log_blowup;
    if (!d_piece || !d_piece[0] || !d_piece[1] || !copy_stream || piece_rows > N ||
        piece_rows < ((size_t)1 << a->log_step) || (piece_rows & (piece_rows - 1)))
        return GS_ERR_INVALID_ARG;
    cudaStream_t s = (cudaStream_t)stream, cs = (cudaStream_t)copy_stream;
    quot_plan P;
    uint64_t *d = NULL;
    GS_TRY(quot_setup(&P, &d, a, s));
    size_t cols = a->air->num_cols, acols = a->bus ? 3 * (size_t)a->bus->n_groups : 0;
    size_t S = piece_rows + B; /* a piece's rows and the next rows of its last ones */
    /* ev[0]: the work queued on s before; ev[1 + b]: piece buffer b copied;
     * ev[3 + b]: its kernel done, so the buffer may be refilled. */
    cudaEvent_t ev[5] = {};
    gs_status st = GS_OK;
    for (int e = 0; e < 5 && st == GS_OK; e++)
        st = check(cudaEventCreateWithFlags(&ev[e], cudaEventDisableTiming), "cudaEventCreate (quotient pieces)");
    if (st == GS_OK) st = check(cudaEventRecord(ev[0], s), "cudaEventRecord (quotient pieces)");
    if (st == GS_OK) st = check(cudaStreamWaitEvent(cs, ev[0], 0), "cudaStreamWaitEvent (quotient pieces)");
    for (size_t a0 = 0, k = 0; st == GS_OK && a0 < N; a0 += piece_rows, k++) {
        int b = (int)(k & 1);
        uint64_t *buf = d_piece[b];
        if (k >= 2) st = check(cudaStreamWaitEvent(cs, ev[3 + b], 0), "cudaStreamWaitEvent (quotient pieces)");
        if (st == GS_OK) st = gs_cuda_copy_rows_async(buf, S, lde, N, cols, a0, S, cs);
        if (st == GS_OK && acols) st = gs_cuda_copy_rows_async(buf + cols * S, S, aux_lde, N, acols, a0, S, cs);
        if (st == GS_OK) st = check(cudaEventRecord(ev[1 + b], cs), "cudaEventRecord (quotient pieces)");
        if (st == GS_OK) st = check(cudaStreamWaitEvent(s, ev[1 + b], 0), "cudaStreamWaitEvent (quotient pieces)");
        if (st == GS_OK) {
            quot_args A = P.A;
            A.lde = buf, A.aux = acols ? buf + cols * S : NULL, A.out = d_out;
            A.N = S, A.mask = ~(size_t)0;
            A.j0 = a0 >> a->log_step, A.count = piece_rows >> a->log_step;
            st = launch_quot(P, A, s);
        }
        if (st == GS_OK) st = check(cudaEventRecord(ev[3 + b], s), "cudaEventRecord (quotient pieces)");
    }
    /* On an error, no copy may still write the pieces the caller frees. */
    if (st != GS_OK) (void)cudaStreamSynchronize(cs);
    for (int e = 0; e < 5; e++)
        if (ev[e]) (void)cudaEventDestroy(ev[e]);
    return cleanup(st, gs_cuda_counted_free_async(d, s), "cudaFreeAsync (quotient tables)");
}

extern "C" gs_status gs_cuda_quotient_eval_coeffs(uint64_t *d_out, const uint64_t *d_coeffs,
                                                  const gs_cuda_quotient_args *a, uint64_t *d_slots,
                                                  unsigned log_sub, void *stream) {
    GS_TRY(quot_check(d_out, d_coeffs, NULL, a));
    if (a->bus || !d_slots || log_sub > a->log_n) return GS_ERR_INVALID_ARG;
    cudaStream_t s = (cudaStream_t)stream;
    quot_plan P;
    uint64_t *d = NULL;
    GS_TRY(quot_setup(&P, &d, a, s));
    const size_t n = (size_t)1 << a->log_n, m = n >> log_sub, U = (size_t)1 << log_sub;
    const size_t K = (size_t)1 << (a->log_blowup - a->log_step), cols = a->air->num_cols, slot = cols * m;
    const gs_fp wKn = gs_fp_root_of_unity(a->log_n + a->log_blowup - a->log_step);
    const gs_fp wn = gs_fp_root_of_unity(a->log_n);
    const unsigned grid = (unsigned)(m / ROW_THREADS < 1024 ? (m + ROW_THREADS - 1) / ROW_THREADS : 1024);
    quot_args A = P.A;
    A.lde = d_slots, A.aux = NULL, A.out = d_out;
    A.N = m, A.mask = ~(size_t)0, A.count = m, A.jstride = K * U, A.lstep = 1;
    A.wstep = wstep_for(P, A);
    gs_status st = GS_OK;
    gs_fp h = a->shift; /* shift w_(K n)^r: coset r's */
    for (size_t r = 0; r < K && st == GS_OK; r++, h = gs_fp_mul(h, wKn)) {
        gs_fp sh = h; /* h w_n^u: sub-coset u's */
        for (size_t u = 0; u <= U && st == GS_OK; u++, sh = gs_fp_mul(sh, wn)) {
            /* Sub-coset u into slot u mod 2, after the kernel of u - 2 that read it. */
            uint64_t *dst = d_slots + (u & 1) * slot;
            subcoset_kernel<<<grid, ROW_THREADS, 0, s>>>(dst, d_coeffs, cols, n, m, sh, gs_fp_pow(sh, m));
            st = gs_cuda_launched("subcoset_kernel");
            if (st == GS_OK) st = gs_cuda_ntt_forward_batch(dst, cols, a->log_n - log_sub, stream);
            if (st == GS_OK && u > 0) { /* sub-coset u - 1: its next rows are u's */
                const size_t q = u - 1, here = (q & 1) * slot;
                A.j0 = r + K * q, A.lrow0 = here, A.step = (slot - here) - here; /* +slot or -slot */
                st = launch_quot(P, A, s);
            }
        }
    }
    return cleanup(st, gs_cuda_counted_free_async(d, s), "cudaFreeAsync (quotient tables)");
}

extern "C" gs_status gs_cuda_trace_check(uint64_t *bad_row, const gs_cuda_air *air,
                                        const uint64_t *d_trace, unsigned log_n, const gs_fp *pub,
                                        void *stream) {
    if (!bad_row || !air || !d_trace || log_n > GS_FP_TWO_ADICITY || (air->num_public && !pub) ||
        (air->n_trans && air->trans.n_out != air->n_trans))
        return GS_ERR_INVALID_ARG;
    *bad_row = UINT64_MAX;
    size_t n = (size_t)1 << log_n;
    if (!air->n_trans || n < 2) return GS_OK;
    GS_TRY(check_program(air, &air->trans));
    const gs_cuda_program *pt = &air->trans;
    cudaStream_t s = (cudaStream_t)stream;
    layout ly;
    size_t o_bad = ly.take(1), o_ins = ly.take(pt->n_insns), o_con = ly.take(pt->n_consts),
           o_pub = ly.take(air->num_public);
    size_t table_words = round_up(ly.words), reg_words = 0;
    size_t words = pt->n_regs ? pt->n_regs : 1;
    int tier = tier_for(words);
    unsigned blocks = row_grid(n - 1, tier, words, &reg_words);
    uint64_t *h = (uint64_t *)calloc(table_words, sizeof(uint64_t)), *d = NULL, res = 0;
    if (!h) return GS_ERR_NOMEM;
    h[o_bad] = UINT64_MAX;
    if (pt->n_insns) memcpy(h + o_ins, pt->insns, pt->n_insns * sizeof(gs_cuda_insn));
    if (pt->n_consts) memcpy(h + o_con, pt->consts, pt->n_consts * sizeof(gs_fp));
    if (air->num_public) memcpy(h + o_pub, pub, air->num_public * sizeof(gs_fp));
    gs_status st = dev_alloc(&d, table_words + reg_words, s, "cudaMallocAsync (trace check)");
    if (st == GS_OK) st = upload(d, h, table_words, s, "cudaMemcpyAsync (trace check)");
    if (st == GS_OK) {
        tcheck_args A = {d_trace, n, d + o_ins, (const gs_fp *)(d + o_con), (const gs_fp *)(d + o_pub),
                         pt->n_insns, (unsigned long long *)(d + o_bad), reg_words ? d + table_words : NULL};
        switch (tier) {
        case 32: tcheck_kernel<32><<<blocks, ROW_THREADS, 0, s>>>(A); break;
        case 128: tcheck_kernel<128><<<blocks, ROW_THREADS, 0, s>>>(A); break;
        default: tcheck_kernel<0><<<blocks, ROW_THREADS, 0, s>>>(A); break;
        }
        st = gs_cuda_launched("tcheck_kernel");
    }
    if (st == GS_OK) st = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (trace check)");
    if (st == GS_OK)
        st = check(cudaMemcpyAsync(&res, d + o_bad, sizeof res, cudaMemcpyDeviceToHost, s),
                   "cudaMemcpyAsync (trace check)");
    if (d) st = cleanup(st, gs_cuda_counted_free_async(d, s), "cudaFreeAsync (trace check)");
    /* Always: the host image and res may be in use until the stream is done. */
    st = cleanup(st, cudaStreamSynchronize(s), "cudaStreamSynchronize (trace check)");
    free(h);
    if (st == GS_OK) *bad_row = res;
    return st;
}

extern "C" gs_status gs_cuda_aux_trace(uint64_t *d_aux, gs_fp3 *sigma, const gs_cuda_air *air,
                                       const gs_cuda_bus *L, const uint64_t *d_trace,
                                       unsigned log_n, const gs_fp *pub, gs_fp3 z, gs_fp3 alpha,
                                       void *stream) {
    if (!d_aux || !sigma || !L || !air || !d_trace ||
        log_n > GS_FP_TWO_ADICITY || (air->num_public && !pub))
        return GS_ERR_INVALID_ARG;
    GS_TRY(check_logup(L, air));
    cudaStream_t s = (cudaStream_t)stream;
    aux_plan P;
    GS_TRY(aux_plan_make(&P, L, air, log_n, pub, z, alpha));
    uint64_t *d = NULL, res[4] = {0, 0, 0, 0}; /* the flag and sigma */
    gs_status st = dev_alloc(&d, P.words, s, "cudaMallocAsync (LogUp aux tables)");
    if (st != GS_OK) {
        free(P.h);
        return st;
    }
    aux_bind(&P, L, d);
    aux_args &A = P.A;
    A.trace = d_trace, A.aux = d_aux;
    A.flag = d + P.o_status;
    A.tail = d + P.o_status + 4;
    A.scratch = P.reg_words ? d + P.table_words : NULL;
    uint64_t *scan_scratch = d + P.table_words + P.reg_words;
    size_t n = A.n;
    uint64_t *S = d_aux + (size_t)3 * (L->n_groups - 1) * n;
    st = upload(d, P.h, P.table_words, s, "cudaMemcpyAsync (LogUp aux tables)");
    if (st == GS_OK) {
        switch (P.tier) {
        case 32: aux_kernel<32><<<P.blocks, ROW_THREADS, 0, s>>>(A); break;
        case 128: aux_kernel<128><<<P.blocks, ROW_THREADS, 0, s>>>(A); break;
        default: aux_kernel<0><<<P.blocks, ROW_THREADS, 0, s>>>(A); break;
        }
        st = gs_cuda_launched("aux_kernel");
    }
    if (st == GS_OK) st = scan_fp3(S, n, n, scan_scratch, s);
    if (st == GS_OK) {
        sigma_kernel<<<1, 32, 0, s>>>(S, n, d + P.o_status, gs_fp_inv((gs_fp)n));
        st = gs_cuda_launched("sigma_kernel");
    }
    if (st == GS_OK) {
        unsigned grid = (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
        sum_step_kernel<<<grid, 256, 0, s>>>(S, n, d + P.o_status);
        st = gs_cuda_launched("sum_step_kernel");
    }
    if (st == GS_OK) st = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (bus sum)");
    if (st == GS_OK)
        st = check(cudaMemcpyAsync(res, d + P.o_status, sizeof res, cudaMemcpyDeviceToHost, s),
                   "cudaMemcpyAsync (bus sum)");
    st = cleanup(st, gs_cuda_counted_free_async(d, s), "cudaFreeAsync (LogUp aux tables)");
    /* Always: the host image and res may be in use until the stream is done. */
    st = cleanup(st, cudaStreamSynchronize(s), "cudaStreamSynchronize (LogUp aux)");
    free(P.h);
    if (st != GS_OK) return st;
    if (res[0]) return GS_ERR_EXHAUSTED;
    *sigma = gs_fp3_make(res[1], res[2], res[3]);
    return GS_OK;
}
