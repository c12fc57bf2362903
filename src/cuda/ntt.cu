/* NTT and coset LDE on the device (gstark/cuda_ntt.h): the CPU conventions of
 * gstark/ntt.h, bit for bit.
 *
 * Passes. A transform of N = 2^L points is a sequence of passes; a pass is
 * one kernel that takes every value of the column through shared memory
 * once (one read, one write), TILE = 2^12 values per block of 256 threads:
 *
 *   position i = (o, t, v): o the bits above the pass, t its 2^r bits, v the
 *   2^m bits below (the inner stride M = 2^m). For every (o, v) a pass does
 *   a pure DFT of size R = 2^r over t and one "four-step" twiddle per value:
 *   decimation in frequency (DIF: natural order in, output k stored at slot
 *   bitrev_r(k), times w_{RM}^(v k)) or in time (DIT: bit-reversed in,
 *   natural out, input at t times w_{RM}^(v bitrev(t))). DIF passes run from
 *   the high bits down (the last has M = 1, contiguous chunks); DIT passes
 *   from the low bits up. A tile is V = min(M, TILE/R) consecutive v times
 *   the R values of t (or several whole chunks), so global accesses are runs
 *   of >= 4 values (whole 32-byte sectors) or whole 256-byte warp rows. The
 *   four-step twiddles come from two lookups per thread and a running product
 *   (one multiplication per value; see fast_ok).
 *
 *   In a block the size-R DFT is done the same way in shared memory: radix-16
 *   steps (a 16-point DFT in registers, 16 values per thread) and at most one
 *   radix-2/4/8 step, twiddled from a table of the 2^l-th roots (l <= 12,
 *   64 KiB, L1-resident). The register DFTs use only 16th roots of unity,
 *   which are powers of two (w_4 = 2^48, w_8 = -2^24, w_16 = -2^60): most of
 *   their products are a shift and a reduction, the others (2^72 = -2^-24,
 *   2^84 = -2^-12) a division by 2^k (f_div2k), signs fold into the
 *   butterflies. Shared memory has one padding word per 16 (conflict-free for
 *   the strides used).
 *
 *   Pass sizes: L <= 12: one pass (a whole column per tile; natural order is
 *   restored in shared memory). L = 13..22: two (L-12, 12); L = 23..32: three
 *   (4 and L-16 bits up to L = 26, two halves of L-12 beyond, then 12). A
 *   pass of 4 bits (R = 16) runs in registers alone (k_pass16): each thread
 *   holds one whole 16-point problem, so no shared memory and no barrier.
 *   The in-place forward and inverse transforms are DIF passes then an
 *   in-place bit reversal (pairs of 32x32 tiles swapped through shared
 *   memory; the 1/n of the inverse folded in): 3 passes over memory for
 *   2^13..2^22, 4 for 2^23..2^32.
 *
 * LDE, natural order out (blowups 2..256; from evaluations or coefficients):
 *   - from evaluations: the DIF passes of the size-n inverse (no bit
 *     reversal: the forward DIT wants its coefficients bit-reversed) write
 *     d_out in a "spread" layout (chunk o of R_m = TILE/B values at d_out +
 *     o B R_m); from coefficients: one pass that copies them bit-reversed
 *     into that layout;
 *   - one kernel per chunk (k_lde_mid): the scaling by shift^j / n (shift^j
 *     from coefficients; a two-level power table of shift), the replication
 *     of each coefficient B times (the first log B DIT stages of the
 *     zero-padded input are exactly that), and the forward DIT over the
 *     B R_m values of the chunk, stored in place; when n <= R_m it also does
 *     the whole inverse first (one kernel in all). A chunk a tile (n >=
 *     R_m, the usual case) takes k_lde_mid1: coefficients into registers,
 *     for B = 2, 4, 8 the replication and the DIT stages up to bit 4 in
 *     registers too, the top radix-16 step in the registers of the storing
 *     thread (30% fewer instructions than k_lde_mid, whose shared-memory
 *     round trips and per-value index arithmetic it drops);
 *   - the remaining forward DIT passes, in place.
 *   So from 2^20 with B = 4 it is 4 kernels: the inverse's two passes (read
 *   n + write n each), the middle (read n + write N), one forward pass (read
 *   N + write N): 5n + 3N values moved (floor: n + N). Until 2026-12-06 the
 *   middle kernel also did the inverse's last pass (one pass over n fewer),
 *   at 128 registers and a quarter of its threads busy in that half: the
 *   LDE x4 from 2^22 took 0.82 ms on an H100 that way, 0.70 ms after, and
 *   0.61 ms with k_lde_mid1 (2026-12-06).
 * Other LDEs (bit-reversed order, blowup 1 or > 256) take the generic path:
 * the inverse (DIF + bit reversal) into the first n values of each output
 * column, then the DIF of size N whose first pass reads them zero-padded and
 * scaled, then (natural order) a bit reversal.
 *
 * Arithmetic (src/cuda/fp.cuh): canonical values everywhere (< p). Per
 * butterfly: one product (24 SASS instructions: a 64x64-bit product from
 * four 32-bit multiply-adds in PTX, a reduction through 2^64 = 2^32 - 1 and
 * 2^96 = -1 with 32-bit carries; a root of the register DFTs costs a shift
 * and a reduction or a division by 2^k instead), one addition and one
 * subtraction written with the carry flags in
 * PTX (carries and borrows become masks of EPS: no compare, no select). The
 * passes are bound by the integer ALU pipe rather than by memory on an H200
 * (ncu: ALU ~80% busy, DRAM ~20%): one pass moves 16 bytes per value (2^24
 * values in 0.06 ms at 4.3 TB/s) while its 12 stages take ~300 instructions
 * per value. So what pays is fewer ALU instructions: the PTX addition and
 * subtraction (which drop the compares and selects the compiler made) took
 * the NTT from 0.84 to 0.69 ms at 2^24; per-value index arithmetic, gone from
 * the fast tile mapping (see fast_ok), took it from 0.93 to 0.84 ms.
 *
 * Errors: every CUDA call is checked (GS_CUDA_TRY / gs_cuda_check); nothing
 * falls back to the CPU. Twiddle tables are built once per device under a
 * mutex; shift power tables are cached per (device, shift, log n, kind), up
 * to CACHE_MAX of them, then made per call with stream-ordered allocation.
 * GS_NTT_LOG_TILE may be set smaller (e.g. 8) to exercise the multi-pass
 * logic at small sizes; the default, 12, is what the analysis above assumes.
 * With 8, transforms of more than 2^24 points are out of reach (split_dif's
 * three passes then need one of more than LOG_TILE bits): test_cuda_ntt built
 * that way passes every case up to 2^24 points and fails the bit-reversed
 * (generic) LDEs of 2^25..2^27. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "gstark/cuda.h"
#include "gstark/cuda_ntt.h"
#include "gstark/field.h"
#include "cuda/cuda_util.cuh"
#include "cuda/fp.cuh"

#ifndef GS_NTT_LOG_TILE
#define GS_NTT_LOG_TILE 12 /* smaller values are for testing the pass logic */
#endif
#define LOG_TILE GS_NTT_LOG_TILE
#define TILE (1u << LOG_TILE)
#define NTHREADS (TILE / 16)           /* 16 values per thread: 256 */
#define MAX_BITS (LOG_TILE - 2)        /* pass bits when M > 1: V >= 4 */
#define SM_WORDS (TILE + TILE / 16)    /* one padding word per 16 */
#define PHYS(e) ((e) + ((e) >> 4))     /* shared-memory slot of tile element e */
#define MAX_GRID (1u << 20)            /* blocks per launch; grid-stride beyond */

#define DEV static __device__ __forceinline__

/* x times the root 2^e, e in [0, 192) (2^96 = -1, 2^192 = 1), compile-time
 * once inlined, up to the sign root_neg(e), which the butterflies fold in:
 * 2^e for e < 64, -2^-(96-e) below 96, -2^(e-96) below 160, 2^-(192-e).
 * The register DFTs' exponents are multiples of 12 (tw_exp), so f_div2k
 * gets k = 12 or 24. */
__host__ __device__ constexpr bool root_neg(unsigned e) { return e >= 64 && e < 160; }
DEV uint64_t f_mul_root(uint64_t x, unsigned e) {
    const unsigned f = e % 96;
    return f < 64 ? f_mul_pow2(x, f) : f_div2k(x, 96 - f);
}

/* ------------------------------------------------------------------ */
/* bit reversal and the register DFTs                                  */

__host__ __device__ __forceinline__ uint32_t rev_bits(uint32_t x, unsigned bits) {
#if defined(__CUDA_ARCH__)
    return bits ? __brev(x) >> (32 - bits) : 0;
#else
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
#endif
}

__host__ __device__ constexpr unsigned clog2(unsigned x) { return x <= 1 ? 0 : 1 + clog2(x >> 1); }

/* w_m = 2^root_exp(m) (mod p) for m = 2, 4, 8, 16, where w_m is the
 * convention's root gs_fp_root_of_unity(log2 m) (checked at start-up).
 * tw_exp: the exponent of w_m^i (inverse: w_m^-i) modulo 192 (2^192 = 1). */
__host__ __device__ constexpr unsigned root_exp(unsigned m) {
    return m == 2 ? 96 : m == 4 ? 48 : m == 8 ? 120 : m == 16 ? 156 : 0;
}
__host__ __device__ constexpr unsigned tw_exp(unsigned m, unsigned i, bool inv) {
    return inv ? (192 - (root_exp(m) * i) % 192) % 192 : (root_exp(m) * i) % 192;
}

/* One radix-2 stage of span S over E registers. DIF: (a, b) -> (a + b,
 * (a - b) w); DIT: (a, b) -> (a + b w, a - b w). w = 2^e (f_mul_root). */
template <int E, int S, bool DIT, bool INV>
DEV void reg_stage(uint64_t (&x)[E]) {
#pragma unroll
    for (int g = 0; g < E; g += 2 * S) {
#pragma unroll
        for (int i = 0; i < S; i++) {
            const unsigned e = tw_exp(2 * S, i, INV);
            uint64_t a = x[g + i], b = x[g + i + S];
            if (!DIT) {
                x[g + i] = f_add(a, b);
                x[g + i + S] = root_neg(e) ? f_mul_root(f_sub(b, a), e) : f_mul_root(f_sub(a, b), e);
            } else if (root_neg(e)) {
                uint64_t t = f_mul_root(b, e);
                x[g + i] = f_sub(a, t);
                x[g + i + S] = f_add(a, t);
            } else {
                uint64_t t = f_mul_root(b, e);
                x[g + i] = f_add(a, t);
                x[g + i + S] = f_sub(a, t);
            }
        }
    }
}

/* DIF: natural order in, x[j] = X[bitrev(j)] out. DIT: x[j] = input
 * bitrev(j) in, natural order out. Pure DFTs of size E (E <= 16). */
template <int E, bool INV>
DEV void reg_dft_dif(uint64_t (&x)[E]) {
    if (E >= 16) reg_stage<E, (E >= 16 ? 8 : 1), false, INV>(x);
    if (E >= 8) reg_stage<E, (E >= 8 ? 4 : 1), false, INV>(x);
    if (E >= 4) reg_stage<E, (E >= 4 ? 2 : 1), false, INV>(x);
    reg_stage<E, 1, false, INV>(x);
}

template <int E, bool INV>
DEV void reg_dft_dit(uint64_t (&x)[E]) {
    reg_stage<E, 1, true, INV>(x);
    if (E >= 4) reg_stage<E, (E >= 4 ? 2 : 1), true, INV>(x);
    if (E >= 8) reg_stage<E, (E >= 8 ? 4 : 1), true, INV>(x);
    if (E >= 16) reg_stage<E, (E >= 16 ? 8 : 1), true, INV>(x);
}

/* ------------------------------------------------------------------ */
/* twiddles                                                            */

/* Device tables, one allocation per device:
 *   hi[i] = g^(i 2^16), lo[i] = g^i (i < 2^16), g = w_{2^32};
 *   w[2^l + i] = w_{2^l}^i (l <= 12, i < 2^l). */
#define TW_HALF 65536u
#define TW_SMALL (2u << LOG_TILE)
#define TW_WORDS (2 * TW_HALF + TW_SMALL)

typedef struct tw_tabs {
    const uint64_t *hi, *lo, *w;
} tw_tabs;

/* w_{2^l}^e (inverse: w_{2^l}^-e), l <= LOG_TILE, e < 2^l. */
DEV uint64_t tw_small(const uint64_t *w, unsigned l, uint32_t e, bool inv) {
    uint32_t m = (1u << l) - 1;
    return w[(1u << l) + (inv ? (0u - e) & m : e)];
}

/* w_{2^l}^e (inverse: w_{2^l}^-e), l <= 32, e < 2^l. */
DEV uint64_t tw_any(const tw_tabs &t, unsigned l, uint64_t e, bool inv) {
    if (l <= LOG_TILE) return tw_small(t.w, l, (uint32_t)e, inv);
    uint32_t x = (uint32_t)(e << (32 - l));
    if (inv) x = 0u - x;
    return f_mul(t.hi[x >> 16], t.lo[x & 0xFFFFu]);
}

/* Power table of a coset shift: factor(j) = T[j mod 2^h] * T[2^h + (j >> h)]
 * = c shift^j (c folded into the high half). */
DEV uint64_t scale_at(const uint64_t *tab, unsigned h, uint64_t j) {
    return f_mul(tab[j & ((1ull << h) - 1)], tab[(1ull << h) + (j >> h)]);
}

/* ------------------------------------------------------------------ */
/* the in-block DFT over a tile in shared memory                       */

/* One radix-E step over the span h = 2^lh on the E values t0 + j h (u = t0
 * mod h) held in registers: DIF: pure DFT, then output k (slot bitrev(k))
 * times w_{Eh}^(u k); DIT: slot j times w_{Eh}^(u bitrev(j)), then the pure
 * DFT. */
template <int E, bool DIT, bool INV>
DEV void reg_step(uint64_t (&x)[E], unsigned lh, uint32_t u, const uint64_t *w) {
    constexpr unsigned LE = clog2(E);
    auto twiddle = [&]() {
        if (lh == 0) return;
#pragma unroll
        for (int j = 1; j < E; j++) x[j] = f_mul(x[j], tw_small(w, LE + lh, u * rev_bits(j, LE), INV));
    };
    if (DIT) {
        twiddle();
        reg_dft_dit<E, INV>(x);
    } else {
        reg_dft_dif<E, INV>(x);
        twiddle();
    }
}

/* The tile is [t][q]: element (q, t) at e = t * Q + q, Q = 2^log_q problems
 * of R = 2^log_r values (Q R = TILE). One radix-E step over the span
 * h = 2^lh: every task (q, group) takes the E values t0 + j h, u = t0 mod h,
 * through registers (reg_step). */
template <int E, bool DIT, bool INV>
DEV void tile_step(uint64_t *sm, unsigned log_q, unsigned lh, unsigned log_rows,
                   const uint64_t *w) {
    constexpr unsigned LE = clog2(E);
    constexpr unsigned TASKS = 16 / E; /* per thread */
#pragma unroll
    for (unsigned it = 0; it < TASKS; it++) {
        uint32_t tau = threadIdx.x + it * NTHREADS;
        uint32_t q = tau & ((1u << log_q) - 1), tp = tau >> log_q;
        if ((tp >> (log_rows - LE)) != 0) continue; /* rows beyond 2^log_rows: unused */
        uint32_t u = tp & ((1u << lh) - 1);
        uint32_t t0 = u + ((tp >> lh) << (lh + LE));
        uint32_t base = (t0 << log_q) + q, step = 1u << (lh + log_q);
        uint64_t x[E];
#pragma unroll
        for (int j = 0; j < E; j++) x[j] = sm[PHYS(base + j * step)];
        reg_step<E, DIT, INV>(x, lh, u, w);
#pragma unroll
        for (int j = 0; j < E; j++) sm[PHYS(base + j * step)] = x[j];
    }
}

template <bool DIT, bool INV>
DEV void tile_step_any(uint64_t *sm, unsigned le, unsigned log_q, unsigned lh, unsigned log_rows,
                       const uint64_t *w) {
    switch (le) {
    case 1: tile_step<2, DIT, INV>(sm, log_q, lh, log_rows, w); break;
    case 2: tile_step<4, DIT, INV>(sm, log_q, lh, log_rows, w); break;
    case 3: tile_step<8, DIT, INV>(sm, log_q, lh, log_rows, w); break;
    default: tile_step<16, DIT, INV>(sm, log_q, lh, log_rows, w); break;
    }
}

/* The DFT stages over the bits [lo, hi) of t (all of them: lo = 0, hi =
 * log_r): DIF from the high bits down, DIT from the low bits up. The odd
 * radix (2, 4 or 8) takes the high end of the bits (DIF: the first step,
 * DIT: the last), or with ODD_LOW the low end: the step at the high bits is
 * then a radix-16 one, whose 16 values a thread of the fast tile mapping
 * holds itself (k_pass), and with skip_top the caller does it in registers
 * (DIF: before storing the tile, DIT: after reading it back), saving a round
 * trip through shared memory and a barrier. (k_pass takes ODD_LOW on both of
 * its paths: one inlined order, not two, keeps its spills down.) Only rows
 * t < 2^hi are touched. Synchronizes before returning after any step. */
template <bool DIT, bool INV, bool ODD_LOW = false>
DEV void tile_dft(uint64_t *sm, unsigned log_q, unsigned lo, unsigned hi, const uint64_t *w,
                  bool skip_top = false) {
    const unsigned bits = hi - lo, odd = bits & 3u, n16 = bits >> 2;
    if (!ODD_LOW) {
        if (!DIT) {
            unsigned top = hi;
            if (odd) {
                top -= odd;
                tile_step_any<false, INV>(sm, odd, log_q, top, hi, w);
                __syncthreads();
            }
            for (unsigned s = 0; s < n16; s++) {
                top -= 4;
                tile_step_any<false, INV>(sm, 4, log_q, top, hi, w);
                __syncthreads();
            }
        } else {
            unsigned b = lo;
            for (unsigned s = 0; s < n16; s++, b += 4) {
                tile_step_any<true, INV>(sm, 4, log_q, b, hi, w);
                __syncthreads();
            }
            if (odd) {
                tile_step_any<true, INV>(sm, odd, log_q, b, hi, w);
                __syncthreads();
            }
        }
        return;
    }
    const unsigned skip = skip_top ? 1 : 0;
    if (!DIT) {
        unsigned top = hi;
        for (unsigned s = 0; s < n16; s++) {
            top -= 4;
            if (s < skip) continue;
            tile_step_any<false, INV>(sm, 4, log_q, top, hi, w);
            __syncthreads();
        }
        if (odd) {
            tile_step_any<false, INV>(sm, odd, log_q, lo, hi, w);
            __syncthreads();
        }
    } else {
        if (odd) {
            tile_step_any<true, INV>(sm, odd, log_q, lo, hi, w);
            __syncthreads();
        }
        for (unsigned s = 0; s + skip < n16; s++) {
            tile_step_any<true, INV>(sm, 4, log_q, lo + odd + 4 * s, hi, w);
            __syncthreads();
        }
    }
}

/* ------------------------------------------------------------------ */
/* the pass kernel                                                     */

/* Memory position of logical position `pos` in a "spread" column layout:
 * chunks of 2^lr positions placed 2^(lr + lb) apart (lb = 0: natural). */
__host__ __device__ inline uint64_t spread(uint64_t pos, unsigned lr, unsigned lb) {
    return ((pos >> lr) << (lr + lb)) + (pos & ((1ull << lr) - 1));
}

typedef struct pass_args {
    const uint64_t *src;
    uint64_t *dst;
    unsigned src_lcs, dst_lcs; /* column strides: 2^lcs values */
    uint64_t cols;
    unsigned log_size;       /* L: the transform has 2^L positions per column */
    unsigned log_r, log_m;   /* this pass: R = 2^log_r values along t, stride M */
    unsigned log_v, log_p;   /* a tile: V inner indices x P (column, o) problems */
    unsigned src_lr, src_lb, dst_lr, dst_lb; /* spread layouts (lb = 0: natural) */
    uint64_t n_valid;        /* loads at positions >= n_valid read zero */
    const uint64_t *load_tab; unsigned load_h;   /* load scale (NULL: none) */
    uint64_t store_c; int store_scale;           /* constant store scale */
    int store_natural;       /* single pass: undo the DIF bit reversal */
    tw_tabs tw;
    /* the fast mapping (fast_ok): value i's offset from the thread's first
     * position in the source and destination layouts (set by launch_pass) */
    uint32_t src_off[16], dst_off[16];
} pass_args;

/* The fast tile mapping (P = 1, R = TILE / V >= 16, not store_natural):
 * thread j keeps one inner index v = v0 + (j mod V) and the low slot bits
 * s = j / V (< R/16); its 16 values are the slots s + bitrev_4(i) R/16,
 * whose output indices bitrev_r(slot) are k0 + i, k0 = 16 bitrev_(r-4)(s).
 *   - Addresses: a position is a sum of disjoint bit fields and a spread
 *     layout only moves bits, so value i sits at the thread's first offset
 *     plus a per-kernel offset (src_off / dst_off, the strides of the bits
 *     of bitrev_4(i), summed on the host); its shared-memory slot is the
 *     thread's first slot plus a compile-time constant. No per-value index
 *     arithmetic, and without zero padding or load and store scales (the
 *     usual case) no per-value test either.
 *   - Four-step twiddles w_{RM}^(v k) (M > 1) by running products: two table
 *     lookups per thread, then one product per value (instead of two
 *     scattered loads of a 1 MiB table per value). DIF: the output in that
 *     slot gets w^(v k); DIT: the input at position t = slot does.
 * Other tiles (several problems, short transforms, natural-order stores)
 * take the generic per-value mapping. */
__host__ __device__ inline bool fast_ok(const pass_args &a) {
    return a.log_p == 0 && a.log_r >= 4 && !a.store_natural;
}

/* Shared-memory slot offset of value i of the fast mapping. */
#define FAST_SLOT(i) PHYS(rev_bits((i), 4) << (LOG_TILE - 4))

/* Four blocks a multiprocessor for DIT passes (64 registers, a few spilled),
 * three for DIF passes (80): each the faster on an H200 (docs/benchmarks.md). */
template <bool DIT, bool INV>
__global__ void __launch_bounds__(NTHREADS, DIT ? 4 : 3) k_pass(pass_args a) {
    __shared__ uint64_t sm[SM_WORDS];
    const unsigned log_r = a.log_r, log_v = a.log_v, log_p = a.log_p, log_m = a.log_m;
    const unsigned log_q = log_p + log_v;
    const unsigned log_o = a.log_size - log_r - log_m;
    const uint64_t n_w = a.cols << log_o; /* (column, o) problems */
    const uint64_t tiles_w = (n_w + (1ull << log_p) - 1) >> log_p;
    const unsigned log_tv = log_m - log_v;
    const uint64_t tiles = tiles_w << log_tv;
    const uint32_t vmask = (1u << log_v) - 1, rmask = (1u << log_r) - 1;
    const unsigned log_rm = log_r + log_m;
    const bool fast = fast_ok(a), twiddled = fast && log_m > 0;
    /* the fast mapping's per-thread constants */
    const uint32_t vq = threadIdx.x & vmask, sl = threadIdx.x >> log_v;
    const unsigned lhi = fast ? log_r - 4 : 0, ls = lhi + log_m; /* bitrev_4(i) at bit ls */
    const uint32_t e0 = PHYS((sl << log_v) + vq);
    const bool check_valid = a.n_valid < (1ull << a.log_size);
    const bool plain_load = !check_valid && !a.load_tab;
    /* the running product's start w^(v k0) and step w^v */
    auto four_step = [&](uint64_t v, uint64_t &tw, uint64_t &step) {
        tw = tw_any(a.tw, log_rm, v * ((uint64_t)rev_bits(sl, lhi) << 4), INV);
        step = tw_any(a.tw, log_rm, v, INV);
    };

    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t w0 = (tile >> log_tv) << log_p;
        const uint64_t v0 = (tile & ((1ull << log_tv) - 1)) << log_v;
        /* fast: P = 1, so the tile is one (column, o) problem, w0 < n_w */
        const uint64_t col = w0 >> log_o, o = w0 & ((1ull << log_o) - 1), v = v0 + vq;
        const uint64_t pos0 = (o << log_rm) + ((uint64_t)sl << log_m) + v;
        uint64_t tw = 1, step = 1;
        if (DIT && twiddled) four_step(v, tw, step);
        if (fast) {
            const uint64_t *src = a.src + (col << a.src_lcs) + spread(pos0, a.src_lr, a.src_lb);
            /* one loop body, compiled with and without the per-value tests */
            uint64_t x[16]; /* x[bitrev_4(i)] = value i: slot sl + bitrev_4(i) R / 16 */
            auto load16 = [&](auto plain) {
#pragma unroll
                for (uint32_t i = 0; i < 16; i++) {
                    uint64_t val = 0;
                    if (decltype(plain)::value) {
                        val = src[a.src_off[i]];
                    } else {
                        uint64_t pos = pos0 + ((uint64_t)rev_bits(i, 4) << ls);
                        if (!check_valid || pos < a.n_valid) {
                            val = src[a.src_off[i]];
                            if (a.load_tab) val = f_mul(val, scale_at(a.load_tab, a.load_h, pos));
                        }
                    }
                    if (DIT && twiddled) {
                        val = f_mul(val, tw);
                        if (i < 15) tw = f_mul(tw, step);
                    }
                    x[rev_bits(i, 4)] = val;
                }
            };
            if (plain_load) load16(std::true_type());
            else load16(std::false_type());
            if (!DIT) reg_step<16, false, INV>(x, lhi, sl, a.tw.w); /* tile_dft's top step */
#pragma unroll
            for (uint32_t i = 0; i < 16; i++) sm[e0 + FAST_SLOT(i)] = x[rev_bits(i, 4)];
        } else {
            for (uint32_t idx = threadIdx.x; idx < TILE; idx += NTHREADS) {
                uint32_t iq = idx & vmask, t = (idx >> log_v) & rmask, wq = idx >> (log_v + log_r);
                uint64_t w = w0 + wq, val = 0;
                if (w < n_w) {
                    uint64_t c = w >> log_o, ow = w & ((1ull << log_o) - 1), vi = v0 + iq;
                    uint64_t pos = (ow << log_rm) + ((uint64_t)t << log_m) + vi;
                    if (pos < a.n_valid) {
                        val = a.src[(c << a.src_lcs) + spread(pos, a.src_lr, a.src_lb)];
                        if (a.load_tab) val = f_mul(val, scale_at(a.load_tab, a.load_h, pos));
                    }
                    if (DIT && log_m > 0)
                        val = f_mul(val, tw_any(a.tw, log_rm, vi * rev_bits(t, log_r), INV));
                }
                sm[PHYS((t << log_q) + (wq << log_v) + iq)] = val;
            }
        }
        __syncthreads();
        tile_dft<DIT, INV, true>(sm, log_q, 0, log_r, a.tw.w, fast);
        if (fast) {
            uint64_t *dst = a.dst + (col << a.dst_lcs) + spread(pos0, a.dst_lr, a.dst_lb);
            if (!DIT && twiddled) four_step(v, tw, step);
            uint64_t x[16];
#pragma unroll
            for (uint32_t i = 0; i < 16; i++) x[rev_bits(i, 4)] = sm[e0 + FAST_SLOT(i)];
            if (DIT) reg_step<16, true, INV>(x, lhi, sl, a.tw.w); /* tile_dft's top step */
            auto store16 = [&](auto scaled) {
#pragma unroll
                for (uint32_t i = 0; i < 16; i++) {
                    uint64_t val = x[rev_bits(i, 4)];
                    if (!DIT && twiddled) {
                        val = f_mul(val, tw);
                        if (i < 15) tw = f_mul(tw, step);
                    }
                    if (decltype(scaled)::value) val = f_mul(val, a.store_c);
                    dst[a.dst_off[i]] = val;
                }
            };
            if (a.store_scale) store16(std::true_type());
            else store16(std::false_type());
        } else {
            for (uint32_t idx = threadIdx.x; idx < TILE; idx += NTHREADS) {
                uint32_t iq = idx & vmask, t = (idx >> log_v) & rmask, wq = idx >> (log_v + log_r);
                uint64_t w = w0 + wq;
                if (w >= n_w) continue;
                uint32_t slot = a.store_natural ? rev_bits(t, log_r) : t;
                uint64_t val = sm[PHYS((slot << log_q) + (wq << log_v) + iq)];
                uint64_t c = w >> log_o, ow = w & ((1ull << log_o) - 1), vi = v0 + iq;
                if (!DIT && log_m > 0)
                    val = f_mul(val, tw_any(a.tw, log_rm, vi * rev_bits(slot, log_r), INV));
                if (a.store_scale) val = f_mul(val, a.store_c);
                uint64_t pos = (ow << log_rm) + ((uint64_t)t << log_m) + vi;
                a.dst[(c << a.dst_lcs) + spread(pos, a.dst_lr, a.dst_lb)] = val;
            }
        }
        __syncthreads();
    }
}

/* A pass of 4 bits (R = 16) in registers, no shared memory: one thread per
 * (column, o, v) problem takes its 16 values at stride M, does the
 * four-step twiddle (DIT: first) and the 16-point DFT, and stores them back
 * in place of the same positions (slot t = position t, as in k_pass).
 * Consecutive threads take consecutive v, so a warp reads and writes runs
 * of 32 values (M >= 32). Only for passes without zero padding, load or
 * store scales (reg16_ok). */
__host__ __device__ inline bool reg16_ok(const pass_args &a) {
    return a.log_r == 4 && a.log_m >= 5 && !a.store_natural && !a.load_tab && !a.store_scale &&
           a.n_valid >= (1ull << a.log_size);
}

template <bool DIT, bool INV>
__global__ void __launch_bounds__(NTHREADS) k_pass16(pass_args a) {
    const unsigned log_m = a.log_m, log_rm = 4 + log_m;
    const unsigned log_o = a.log_size - log_rm;
    const uint64_t problems = (a.cols << log_o) << log_m;
    for (uint64_t g = (uint64_t)blockIdx.x * NTHREADS + threadIdx.x; g < problems;
         g += (uint64_t)gridDim.x * NTHREADS) {
        const uint64_t v = g & ((1ull << log_m) - 1), w = g >> log_m;
        const uint64_t col = w >> log_o, o = w & ((1ull << log_o) - 1);
        const uint64_t pos0 = (o << log_rm) + v;
        const uint64_t *src = a.src + (col << a.src_lcs) + spread(pos0, a.src_lr, a.src_lb);
        uint64_t *dst = a.dst + (col << a.dst_lcs) + spread(pos0, a.dst_lr, a.dst_lb);
        uint64_t x[16];
        /* value i sits at t = bitrev_4(i) (src_off[i]) and takes w^(v i) */
#pragma unroll
        for (uint32_t i = 0; i < 16; i++) x[rev_bits(i, 4)] = src[a.src_off[i]];
        uint64_t tw = 1, step = tw_any(a.tw, log_rm, v, INV);
        auto twiddle = [&]() {
#pragma unroll
            for (uint32_t i = 1; i < 16; i++) {
                tw = f_mul(tw, step);
                x[rev_bits(i, 4)] = f_mul(x[rev_bits(i, 4)], tw);
            }
        };
        if (DIT) {
            twiddle();
            reg_dft_dit<16, INV>(x);
        } else {
            reg_dft_dif<16, INV>(x);
            twiddle();
        }
#pragma unroll
        for (uint32_t i = 0; i < 16; i++) dst[a.dst_off[i]] = x[rev_bits(i, 4)];
    }
}

/* ------------------------------------------------------------------ */
/* the middle of the natural-order LDE                                 */

/* Chunk o (R_m = 2^log_rm positions of the size-n inverse DIF, its last
 * pass): finish the inverse (INVERSE; otherwise the source already holds the
 * coefficients bit-reversed: the inverse's passes or the bit-reversing copy
 * wrote them), scale coefficient j = bitrev_logn(o R_m + s) by shift^j / n,
 * replicate each B = 2^log_b times (slots B s .. B s + B - 1), run the
 * forward DIT over the bits [log_b, log_b + log_rm) of the chunk of B R_m
 * positions of the size-N transform, store it at d_out + o B R_m. P =
 * 2^log_p chunks per tile (P B R_m = TILE). The source is the spread layout
 * in d_out (src_cs = N) or, when this is the whole inverse, `in` itself.
 * INVERSE only for the small LDEs (n <= R_m, one kernel in all): with both
 * DFTs the kernel needs 128 registers (two blocks a multiprocessor) and its
 * inverse keeps a quarter of the threads busy (R_m = TILE / 4 values), so
 * larger LDEs run the inverse as ordinary passes (docs/benchmarks.md). */
typedef struct mid_args {
    const uint64_t *src;
    uint64_t *dst;
    uint64_t src_cs, dst_cs;
    unsigned src_lr, src_lb; /* spread layout of the source */
    uint64_t cols;
    unsigned log_n, log_rm, log_b, log_p;
    const uint64_t *tab; unsigned h; /* shift^j / n (shift^j from coefficients) */
    tw_tabs tw;
} mid_args;

template <bool INVERSE>
__global__ void __launch_bounds__(NTHREADS, INVERSE ? 2 : 3) k_lde_mid(mid_args a) {
    __shared__ uint64_t sm[SM_WORDS];
    const unsigned log_rm = a.log_rm, log_b = a.log_b, log_p = a.log_p;
    const unsigned log_o = a.log_n - log_rm;
    const uint64_t n_w = a.cols << log_o;
    const uint64_t tiles = (n_w + (1ull << log_p) - 1) >> log_p;
    const uint32_t rmask = (1u << log_rm) - 1;
    const unsigned log_chunk = log_rm + log_b; /* forward chunk: 2^log_chunk values */
    const uint32_t in_count = 1u << (log_rm + log_p);
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t w0 = tile << log_p;
        /* load the inverse tile: [s][q], Q = P */
        for (uint32_t idx = threadIdx.x; idx < in_count; idx += NTHREADS) {
            uint32_t s = idx & rmask, wq = idx >> log_rm;
            uint64_t w = w0 + wq, val = 0;
            if (w < n_w) {
                uint64_t col = w >> log_o, o = w & ((1ull << log_o) - 1);
                uint64_t pos = (o << log_rm) + s;
                val = a.src[col * a.src_cs + spread(pos, a.src_lr, a.src_lb)];
            }
            sm[PHYS((s << log_p) + wq)] = val;
        }
        __syncthreads();
        if (INVERSE) tile_dft<false, true>(sm, log_p, 0, log_rm, a.tw.w);
        /* scale and replicate: slot s of chunk wq -> slots B s + r of the
         * forward tile [t][q] (t < B R_m). Through registers: all reads, a
         * barrier, then all writes. */
        constexpr unsigned PER = TILE / NTHREADS / 2; /* >= values per thread (B >= 2) */
        uint64_t keep[PER];
#pragma unroll
        for (unsigned i = 0; i < PER; i++) {
            uint32_t idx = threadIdx.x + i * NTHREADS;
            if (idx < in_count) {
                uint32_t s = idx & rmask, wq = idx >> log_rm;
                uint64_t w = w0 + wq;
                uint64_t o = w & ((1ull << log_o) - 1);
                uint64_t val = sm[PHYS((s << log_p) + wq)];
                uint64_t j = rev_bits((uint32_t)((o << log_rm) + s), a.log_n);
                keep[i] = f_mul(val, scale_at(a.tab, a.h, j));
            }
        }
        __syncthreads();
#pragma unroll
        for (unsigned i = 0; i < PER; i++) {
            uint32_t idx = threadIdx.x + i * NTHREADS;
            if (idx < in_count) {
                uint32_t s = idx & rmask, wq = idx >> log_rm;
                for (uint32_t r = 0; r < (1u << log_b); r++)
                    sm[PHYS((((s << log_b) + r) << log_p) + wq)] = keep[i];
            }
        }
        __syncthreads();
        tile_dft<true, false>(sm, log_p, log_b, log_chunk, a.tw.w);
        const uint32_t cmask = (1u << log_chunk) - 1;
        for (uint32_t idx = threadIdx.x; idx < TILE; idx += NTHREADS) {
            uint32_t t = idx & cmask, wq = idx >> log_chunk;
            uint64_t w = w0 + wq;
            if (w >= n_w) continue;
            uint64_t col = w >> log_o, o = w & ((1ull << log_o) - 1);
            a.dst[col * a.dst_cs + (o << log_chunk) + t] = sm[PHYS((t << log_p) + wq)];
        }
        __syncthreads();
    }
}

/* k_lde_mid without the inverse for one chunk a tile (P = 1: B R_m = TILE,
 * every LDE of n >= R_m points), with less traffic through shared memory:
 *   - the coefficients come from global memory straight into registers and
 *     are scaled there; with LB = log B in 1..3, thread u takes the 16 / B
 *     coefficients of the positions [16 u, 16 u + 16) and does the DIT step
 *     over the bits [LB, 4) for each of the B replicas in registers, so the
 *     tile is written once, not replicated and then read and written again;
 *     with LB = 0 (any B) they are replicated into the tile;
 *   - the forward DIT's top radix-16 step (the bits [LOG_TILE - 4, LOG_TILE),
 *     span NTHREADS) is done in the registers of the thread that stores its
 *     16 values: thread u holds the positions u + i NTHREADS, so the stores
 *     are runs of NTHREADS values. */
template <int LB>
__global__ void __launch_bounds__(NTHREADS, 3) k_lde_mid1(mid_args a) {
    __shared__ uint64_t sm[SM_WORDS];
    const unsigned log_rm = a.log_rm, log_b = LB ? LB : a.log_b;
    const unsigned log_o = a.log_n - log_rm;
    const uint64_t tiles = a.cols << log_o;
    const uint32_t u = threadIdx.x;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t col = tile >> log_o, o = tile & ((1ull << log_o) - 1);
        const uint64_t *src = a.src + col * a.src_cs;
        auto coef = [&](uint32_t s) { /* coefficient s of the chunk, scaled */
            uint64_t pos = (o << log_rm) + s;
            uint64_t j = rev_bits((uint32_t)pos, a.log_n);
            return f_mul(src[spread(pos, a.src_lr, a.src_lb)], scale_at(a.tab, a.h, j));
        };
        if (LB > 0) {
            constexpr int E = 16 >> (LB > 0 ? LB : 1); /* coefficients a thread, the step's radix */
            uint64_t c[E];
#pragma unroll
            for (int j = 0; j < E; j++) c[j] = coef(u * E + j);
#pragma unroll
            for (uint32_t r = 0; r < (1u << LB); r++) {
                uint64_t y[E];
#pragma unroll
                for (int j = 0; j < E; j++) y[j] = c[j];
                reg_step<E, true, false>(y, LB, r, a.tw.w);
#pragma unroll
                for (int k = 0; k < E; k++) sm[PHYS(16 * u + r + (k << LB))] = y[k];
            }
            __syncthreads();
            tile_dft<true, false, true>(sm, 0, 4, LOG_TILE, a.tw.w, true);
        } else {
            constexpr unsigned PER = TILE / NTHREADS / 2; /* >= values per thread (B >= 2) */
            uint64_t keep[PER];
#pragma unroll
            for (unsigned i = 0; i < PER; i++) {
                uint32_t s = u + i * NTHREADS;
                if (s < (1u << log_rm)) keep[i] = coef(s);
            }
#pragma unroll
            for (unsigned i = 0; i < PER; i++) {
                uint32_t s = u + i * NTHREADS;
                if (s < (1u << log_rm))
                    for (uint32_t r = 0; r < (1u << log_b); r++) sm[PHYS((s << log_b) + r)] = keep[i];
            }
            __syncthreads();
            tile_dft<true, false, true>(sm, 0, log_b, LOG_TILE, a.tw.w, true);
        }
        uint64_t x[16];
#pragma unroll
        for (uint32_t i = 0; i < 16; i++) x[i] = sm[PHYS(u + i * NTHREADS)];
        reg_step<16, true, false>(x, LOG_TILE - 4, u, a.tw.w);
        uint64_t *dst = a.dst + col * a.dst_cs + (o << LOG_TILE) + u;
#pragma unroll
        for (uint32_t k = 0; k < 16; k++) dst[k * NTHREADS] = x[k];
        __syncthreads();
    }
}

/* ------------------------------------------------------------------ */
/* in-place bit reversal                                               */

/* Column positions i = (a, b, c), a and c `lt` bits (lt <= 5), b the
 * K - 2 lt middle bits; bitrev(i) = (rev c, rev b, rev a). Block (column, b)
 * with b <= rev b swaps the 2^lt x 2^lt tiles b and rev b (or permutes tile b
 * in itself), optionally multiplying by a constant. */
__global__ void __launch_bounds__(NTHREADS) k_bitrev(uint64_t *v, uint64_t cs, uint64_t cols,
                                                     unsigned K, unsigned lt, uint64_t c,
                                                     int scale) {
    __shared__ uint64_t s1[32 * 33], s2[32 * 33];
    const unsigned mb = K - 2 * lt, row = (1u << lt) + 1;
    const uint32_t count = 1u << (2 * lt), lmask = (1u << lt) - 1;
    const uint64_t per_col = 1ull << mb, blocks = cols << mb;
    for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
        uint64_t col = blk >> mb;
        uint32_t b = (uint32_t)(blk & (per_col - 1)), rb = rev_bits(b, mb);
        if (b > rb) continue; /* uniform across the block */
        uint64_t *base = v + col * cs;
        for (uint32_t idx = threadIdx.x; idx < count; idx += NTHREADS) {
            uint32_t hi = idx >> lt, lo = idx & lmask;
            uint64_t off = ((uint64_t)hi << (K - lt)) + lo;
            s1[hi * row + lo] = base[off + ((uint64_t)b << lt)];
            if (b != rb) s2[hi * row + lo] = base[off + ((uint64_t)rb << lt)];
        }
        __syncthreads();
        for (uint32_t idx = threadIdx.x; idx < count; idx += NTHREADS) {
            uint32_t hi = idx >> lt, lo = idx & lmask;
            uint32_t src = rev_bits(lo, lt) * row + rev_bits(hi, lt);
            uint64_t off = ((uint64_t)hi << (K - lt)) + lo;
            uint64_t x = s1[src];
            if (scale) x = f_mul(x, c);
            base[off + ((uint64_t)rb << lt)] = x;
            if (b != rb) {
                uint64_t y = s2[src];
                if (scale) y = f_mul(y, c);
                base[off + ((uint64_t)b << lt)] = y;
            }
        }
        __syncthreads();
    }
}

/* Out of place: dst[spread(i)] = src[bitrev_K(i)] for every column (the
 * coefficients of an LDE from coefficients, bit-reversed into the spread
 * layout of d_out). Block (column, b) moves tile b of the source, rows of
 * 2^lt contiguous values, to tile rev b of the destination. */
__global__ void __launch_bounds__(NTHREADS) k_bitrev_copy(uint64_t *dst, const uint64_t *src,
                                                          uint64_t dst_cs, uint64_t src_cs,
                                                          uint64_t cols, unsigned K, unsigned lt,
                                                          unsigned dst_lr, unsigned dst_lb) {
    __shared__ uint64_t s1[32 * 33];
    const unsigned mb = K - 2 * lt, row = (1u << lt) + 1;
    const uint32_t count = 1u << (2 * lt), lmask = (1u << lt) - 1;
    const uint64_t per_col = 1ull << mb, blocks = cols << mb;
    for (uint64_t blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
        uint64_t col = blk >> mb;
        uint32_t b = (uint32_t)(blk & (per_col - 1)), rb = rev_bits(b, mb);
        const uint64_t *sb = src + col * src_cs;
        uint64_t *db = dst + col * dst_cs;
        for (uint32_t idx = threadIdx.x; idx < count; idx += NTHREADS) {
            uint32_t hi = idx >> lt, lo = idx & lmask;
            s1[hi * row + lo] = sb[((uint64_t)hi << (K - lt)) + ((uint64_t)b << lt) + lo];
        }
        __syncthreads();
        for (uint32_t idx = threadIdx.x; idx < count; idx += NTHREADS) {
            uint32_t hi = idx >> lt, lo = idx & lmask;
            uint64_t pos = ((uint64_t)hi << (K - lt)) + ((uint64_t)rb << lt) + lo;
            db[spread(pos, dst_lr, dst_lb)] = s1[rev_bits(lo, lt) * row + rev_bits(hi, lt)];
        }
        __syncthreads();
    }
}

/* ------------------------------------------------------------------ */
/* per-device tables                                                   */

#define MAX_DEVICES 64
#define CACHE_MAX 64

typedef struct scale_entry {
    uint64_t shift;
    unsigned log_n;
    int inv_n;
    uint64_t *d_tab;
} scale_entry;

typedef struct dev_state {
    uint64_t *d_tw; /* TW_WORDS values, or NULL before the first use */
    scale_entry scale[CACHE_MAX];
    int n_scale;
} dev_state;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static dev_state g_dev[MAX_DEVICES];

static uint64_t h_mul(uint64_t a, uint64_t b) { return gs_fp_mul(a, b); }

static gs_status fill_twiddles(uint64_t *h) {
    uint64_t g = gs_fp_root_of_unity(32), g16 = gs_fp_pow(g, TW_HALF);
    uint64_t *hi = h, *lo = h + TW_HALF, *w = h + 2 * TW_HALF;
    hi[0] = lo[0] = 1;
    for (uint32_t i = 1; i < TW_HALF; i++) {
        hi[i] = h_mul(hi[i - 1], g16);
        lo[i] = h_mul(lo[i - 1], g);
    }
    w[0] = 0;
    for (unsigned l = 0; l <= LOG_TILE; l++) {
        uint64_t r = gs_fp_root_of_unity(l);
        w[1u << l] = 1;
        for (uint32_t i = 1; i < (1u << l); i++) w[(1u << l) + i] = h_mul(w[(1u << l) + i - 1], r);
    }
    /* the register DFTs assume w_m = 2^root_exp(m) */
    for (unsigned l = 1; l <= 4; l++)
        if (gs_fp_root_of_unity(l) != gs_fp_pow(2, root_exp(1u << l))) return GS_ERR_UNSUPPORTED;
    return GS_OK;
}

static gs_status current_device(int *dev) {
    GS_CUDA_TRY(cudaGetDevice(dev));
    if (*dev < 0 || *dev >= MAX_DEVICES) return GS_ERR_UNSUPPORTED;
    return GS_OK;
}

/* Twiddle tables of the current device, built on first use. */
static gs_status get_twiddles(tw_tabs *t) {
    int dev;
    GS_TRY(current_device(&dev));
    pthread_mutex_lock(&g_lock);
    gs_status s = GS_OK;
    if (!g_dev[dev].d_tw) {
        uint64_t *h = (uint64_t *)malloc(TW_WORDS * sizeof(uint64_t));
        uint64_t *d = NULL;
        if (!h) s = GS_ERR_NOMEM;
        if (s == GS_OK) s = fill_twiddles(h);
        if (s == GS_OK) s = gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, "cudaMalloc(twiddles)");
        if (s == GS_OK) s = gs_cuda_check(gs_cuda_counted_malloc((void **)&d, TW_WORDS * sizeof(uint64_t)), "cudaMalloc(twiddles)");
        if (s == GS_OK) {
            s = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpy(twiddles)");
            if (s == GS_OK) s = gs_cuda_check(gs_cuda_memcpy_landed(d, h, TW_WORDS * sizeof(uint64_t), cudaMemcpyHostToDevice),
                              "cudaMemcpy(twiddles)");
            if (s == GS_OK) g_dev[dev].d_tw = d;
            else (void)gs_cuda_counted_free(d);
        }
        free(h);
    }
    if (s == GS_OK) {
        t->hi = g_dev[dev].d_tw;
        t->lo = g_dev[dev].d_tw + TW_HALF;
        t->w = g_dev[dev].d_tw + 2 * TW_HALF;
    }
    pthread_mutex_unlock(&g_lock);
    return s;
}

/* The host table of factor(j) = c shift^j, j < 2^log_n, c = 1/n or 1. */
static unsigned scale_h(unsigned log_n) { return (log_n + 1) / 2; }
static size_t scale_words(unsigned log_n) {
    unsigned h = scale_h(log_n);
    return ((size_t)1 << h) + ((size_t)1 << (log_n - h));
}

static uint64_t *make_scale_host(uint64_t shift, unsigned log_n, int inv_n) {
    unsigned h = scale_h(log_n);
    size_t lo_n = (size_t)1 << h, hi_n = (size_t)1 << (log_n - h);
    uint64_t *t = (uint64_t *)malloc((lo_n + hi_n) * sizeof(uint64_t));
    if (!t) return NULL;
    t[0] = 1;
    for (size_t i = 1; i < lo_n; i++) t[i] = h_mul(t[i - 1], shift);
    uint64_t step = gs_fp_pow(shift, (uint64_t)lo_n);
    /* c = n^-1 = ((p + 1) / 2)^log_n */
    t[lo_n] = inv_n ? gs_fp_pow((GS_FP_P + 1) / 2, log_n) : 1;
    for (size_t i = 1; i < hi_n; i++) t[lo_n + i] = h_mul(t[lo_n + i - 1], step);
    return t;
}

/* A device scale table for (shift, log_n, inv_n): cached, or (cache full)
 * allocated on `stream` and to be released with cudaFreeAsync (*owned). */
static gs_status get_scale(uint64_t shift, unsigned log_n, int inv_n, cudaStream_t stream,
                           const uint64_t **tab, uint64_t **owned) {
    int dev;
    *owned = NULL;
    GS_TRY(current_device(&dev));
    size_t bytes = scale_words(log_n) * sizeof(uint64_t);
    pthread_mutex_lock(&g_lock);
    dev_state *ds = &g_dev[dev];
    for (int i = 0; i < ds->n_scale; i++) {
        scale_entry *e = &ds->scale[i];
        if (e->shift == shift && e->log_n == log_n && e->inv_n == inv_n) {
            *tab = e->d_tab;
            pthread_mutex_unlock(&g_lock);
            return GS_OK;
        }
    }
    gs_status s = GS_OK;
    uint64_t *h = make_scale_host(shift, log_n, inv_n), *d = NULL;
    if (!h) s = GS_ERR_NOMEM;
    if (s == GS_OK && ds->n_scale < CACHE_MAX) {
        s = gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, "cudaMalloc(scale table)");
        if (s == GS_OK) s = gs_cuda_check(gs_cuda_counted_malloc((void **)&d, bytes), "cudaMalloc(scale table)");
        if (s == GS_OK) {
            s = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpy(scale table)");
            if (s == GS_OK) s = gs_cuda_check(gs_cuda_memcpy_landed(d, h, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(scale table)");
            if (s == GS_OK) {
                scale_entry *e = &ds->scale[ds->n_scale++];
                e->shift = shift, e->log_n = log_n, e->inv_n = inv_n, e->d_tab = d;
                *tab = d;
            } else {
                (void)gs_cuda_counted_free(d);
            }
        }
        pthread_mutex_unlock(&g_lock);
        free(h);
        return s;
    }
    pthread_mutex_unlock(&g_lock);
    if (s == GS_OK) {
        s = gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, "cudaMallocAsync(scale table)");
        if (s == GS_OK)
            s = gs_cuda_check(gs_cuda_counted_malloc_async((void **)&d, bytes, stream), "cudaMallocAsync(scale table)");
        if (s == GS_OK) {
            /* pageable source: staged before the call returns, so h may go */
            s = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync(scale table)");
            if (s == GS_OK) s = gs_cuda_check(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream),
                              "cudaMemcpyAsync(scale table)");
            if (s == GS_OK) {
                *tab = d;
                *owned = d;
            } else {
                (void)gs_cuda_counted_free_async(d, stream);
            }
        }
    }
    free(h);
    return s;
}

/* ------------------------------------------------------------------ */
/* launching                                                           */

static unsigned grid_for(uint64_t tiles) {
    return (unsigned)(tiles < MAX_GRID ? (tiles ? tiles : 1) : MAX_GRID);
}

static gs_status launch_pass(pass_args *a, int dit, int inv, cudaStream_t st) {
    if (fast_ok(*a) || reg16_ok(*a)) {
        /* value i of the fast mapping is at slot bits bitrev_4(i), placed at
         * bit ls = log_r - 4 + log_m of the position */
        unsigned ls = a->log_r - 4 + a->log_m;
        for (unsigned i = 0; i < 16; i++) {
            uint64_t c = rev_bits(i, 4);
            a->src_off[i] = (uint32_t)spread(c << ls, a->src_lr, a->src_lb);
            a->dst_off[i] = (uint32_t)spread(c << ls, a->dst_lr, a->dst_lb);
        }
    }
    unsigned log_o = a->log_size - a->log_r - a->log_m;
    uint64_t n_w = a->cols << log_o;
    if (reg16_ok(*a)) {
        unsigned grid = grid_for(((n_w << a->log_m) + NTHREADS - 1) / NTHREADS);
        if (!dit && !inv) k_pass16<false, false><<<grid, NTHREADS, 0, st>>>(*a);
        else if (!dit && inv) k_pass16<false, true><<<grid, NTHREADS, 0, st>>>(*a);
        else if (dit && !inv) k_pass16<true, false><<<grid, NTHREADS, 0, st>>>(*a);
        else k_pass16<true, true><<<grid, NTHREADS, 0, st>>>(*a);
        return gs_cuda_launched("k_pass16 launch");
    }
    uint64_t tiles = ((n_w + (1ull << a->log_p) - 1) >> a->log_p) << (a->log_m - a->log_v);
    unsigned grid = grid_for(tiles);
    if (!dit && !inv) k_pass<false, false><<<grid, NTHREADS, 0, st>>>(*a);
    else if (!dit && inv) k_pass<false, true><<<grid, NTHREADS, 0, st>>>(*a);
    else if (dit && !inv) k_pass<true, false><<<grid, NTHREADS, 0, st>>>(*a);
    else k_pass<true, true><<<grid, NTHREADS, 0, st>>>(*a);
    return gs_cuda_launched("k_pass launch");
}

static gs_status launch_bitrev(uint64_t *v, uint64_t cs, uint64_t cols, unsigned K, uint64_t c,
                               int scale, cudaStream_t st) {
    unsigned lt = K / 2 < 5 ? K / 2 : 5;
    uint64_t blocks = cols << (K - 2 * lt);
    k_bitrev<<<grid_for(blocks), NTHREADS, 0, st>>>(v, cs, cols, K, lt, c, scale);
    return gs_cuda_launched("k_bitrev launch");
}

/* Pass sizes of a DIF of 2^L points (high bits first). Non-last passes take
 * <= MAX_BITS (10) bits so that a tile has V >= 4 consecutive inner indices
 * (a first pass of 12 bits at 2^24, V = 1, took as long as the two passes it
 * replaced: its strided accesses wait on memory); of three passes the first
 * takes 4 bits where it can, as in split_10. Returns the count (L <= 32: at
 * most 3). */
static int split_dif(unsigned L, unsigned r[3]) {
    if (L <= LOG_TILE) {
        r[0] = L;
        return 1;
    }
    if (L <= LOG_TILE + MAX_BITS) {
        r[0] = L - LOG_TILE, r[1] = LOG_TILE;
        return 2;
    }
    unsigned rest = L - LOG_TILE; /* as split_10's two passes */
    r[0] = rest - 4 <= MAX_BITS ? 4 : (rest + 1) / 2;
    r[1] = rest - r[0], r[2] = LOG_TILE;
    return 3;
}

/* Split of `bits` (<= 3 MAX_BITS) into passes of <= MAX_BITS bits. Two
 * passes: the first (the high bits) of 4 bits where the other can take the
 * rest, a register-only pass (k_pass16; measured against balanced halves on
 * an H100: NTT 2^24 0.621 -> 0.590 ms, LDE x4 from 2^22 0.884 -> 0.824 ms,
 * docs/benchmarks.md); otherwise balanced. */
static int split_10(unsigned bits, unsigned r[3]) {
    int np = bits == 0 ? 0 : bits <= MAX_BITS ? 1 : bits <= 2 * MAX_BITS ? 2 : 3;
    for (int i = 0; i < np; i++) r[i] = bits / np + ((unsigned)i < bits % np ? 1 : 0);
    if (np == 2 && bits - 4 <= MAX_BITS) r[0] = 4, r[1] = bits - 4;
    return np;
}

static unsigned ilog2(uint64_t x) {
    unsigned l = 0;
    while (x > 1) x >>= 1, l++;
    return l;
}

static void pass_shape(pass_args *a, unsigned log_size, unsigned log_r, unsigned log_m) {
    a->log_size = log_size;
    a->log_r = log_r;
    a->log_m = log_m;
    a->log_v = log_m < LOG_TILE - log_r ? log_m : LOG_TILE - log_r;
    a->log_p = LOG_TILE - log_r - a->log_v;
}

static void pass_defaults(pass_args *a, const tw_tabs *tw) {
    memset(a, 0, sizeof *a);
    a->n_valid = ~0ull;
    a->store_c = 1;
    a->tw = *tw;
}

/* An in-place DIF of 2^L points on `cols` columns (column stride cs),
 * natural order in; the first pass may read from `src` (column stride
 * src_cs, positions >= n_valid read as zero, times the load table).
 * natural_out: restore natural order (single pass: in shared memory;
 * otherwise a bit-reversal pass), multiplying by `c` when scale is set. */
static gs_status run_dif(uint64_t *v, uint64_t cs, const uint64_t *src, uint64_t src_cs,
                         uint64_t cols, unsigned L, int inv, uint64_t n_valid,
                         const uint64_t *load_tab, unsigned load_h, int natural_out, uint64_t c,
                         int scale, const tw_tabs *tw, cudaStream_t st) {
    unsigned r[3];
    int np = split_dif(L, r);
    unsigned done = 0;
    for (int p = 0; p < np; p++) {
        pass_args a;
        pass_defaults(&a, tw);
        a.src = p == 0 ? src : v;
        a.src_lcs = ilog2(p == 0 ? src_cs : cs);
        a.dst = v;
        a.dst_lcs = ilog2(cs);
        a.cols = cols;
        done += r[p];
        pass_shape(&a, L, r[p], L - done);
        if (p == 0) {
            a.n_valid = n_valid;
            a.load_tab = load_tab;
            a.load_h = load_h;
        }
        if (np == 1) {
            a.store_natural = natural_out;
            a.store_scale = scale;
            a.store_c = c;
        }
        GS_TRY(launch_pass(&a, 0, inv, st));
    }
    if (np > 1 && natural_out) GS_TRY(launch_bitrev(v, cs, cols, L, c, scale, st));
    return GS_OK;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */

static gs_status check_cols(size_t cols, unsigned log_size) {
    if (log_size > 63) return GS_ERR_INVALID_ARG;
    if (cols > (SIZE_MAX / sizeof(uint64_t)) >> log_size) return GS_ERR_INVALID_ARG;
    return GS_OK;
}

static gs_status ntt_batch(uint64_t *d_v, size_t cols, unsigned log_n, int inv, void *stream) {
    if (log_n > GS_FP_TWO_ADICITY) return GS_ERR_INVALID_ARG;
    if (cols && !d_v) return GS_ERR_INVALID_ARG;
    GS_TRY(check_cols(cols, log_n));
    if (cols == 0 || log_n == 0) return GS_OK;
    tw_tabs tw;
    GS_TRY(get_twiddles(&tw));
    cudaStream_t st = (cudaStream_t)stream;
    uint64_t n = 1ull << log_n;
    uint64_t ninv = gs_fp_pow((GS_FP_P + 1) / 2, log_n);
    return run_dif(d_v, n, d_v, n, cols, log_n, inv, ~0ull, NULL, 0, 1, ninv, inv, &tw, st);
}

extern "C" gs_status gs_cuda_ntt_forward_batch(uint64_t *d_v, size_t cols, unsigned log_n,
                                               void *stream) {
    return ntt_batch(d_v, cols, log_n, 0, stream);
}

extern "C" gs_status gs_cuda_ntt_inverse_batch(uint64_t *d_v, size_t cols, unsigned log_n,
                                               void *stream) {
    return ntt_batch(d_v, cols, log_n, 1, stream);
}

static int ranges_overlap(const void *a, size_t abytes, const void *b, size_t bbytes) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + bbytes && y < x + abytes;
}

/* The natural-order LDE (see the top). From coefficients, a bit-reversing
 * copy into the spread layout replaces the inverse passes. */
static gs_status lde_natural_fast(uint64_t *out, const uint64_t *in, uint64_t cols, unsigned log_n,
                                  unsigned log_b, int from_coeffs, const uint64_t *tab,
                                  const tw_tabs *tw, cudaStream_t st) {
    const unsigned K = log_n + log_b;
    const uint64_t n = 1ull << log_n, N = 1ull << K;
    unsigned log_rm = LOG_TILE - log_b < log_n ? LOG_TILE - log_b : log_n;
    unsigned rest = log_n - log_rm, r[3];
    int np = split_10(rest, r);
    if (from_coeffs) {
        unsigned lt = log_n / 2 < 5 ? log_n / 2 : 5;
        uint64_t blocks = cols << (log_n - 2 * lt);
        k_bitrev_copy<<<grid_for(blocks), NTHREADS, 0, st>>>(out, in, N, n, cols, log_n, lt, log_rm,
                                                             log_b);
        GS_TRY(gs_cuda_launched("k_bitrev_copy launch"));
    }
    /* n > R_m: the inverse as the DIF passes of a size-n NTT (no bit
     * reversal: the DIT wants the coefficients bit-reversed), into the spread
     * layout of d_out */
    const int fused = !from_coeffs && np == 0; /* n <= R_m: one kernel */
    if (!from_coeffs && !fused) {
        unsigned ri[3], done = 0;
        int ni = split_dif(log_n, ri);
        for (int p = 0; p < ni; p++) {
            pass_args a;
            pass_defaults(&a, tw);
            a.src = p == 0 ? in : out;
            a.src_lcs = p == 0 ? log_n : K;
            if (p > 0) a.src_lr = log_rm, a.src_lb = log_b;
            a.dst = out;
            a.dst_lcs = K;
            a.dst_lr = log_rm, a.dst_lb = log_b;
            a.cols = cols;
            done += ri[p];
            pass_shape(&a, log_n, ri[p], log_n - done);
            GS_TRY(launch_pass(&a, 0, 1, st));
        }
    }
    mid_args m;
    memset(&m, 0, sizeof m);
    m.src = fused ? in : out;
    m.src_cs = fused ? n : N;
    if (!fused) m.src_lr = log_rm, m.src_lb = log_b;
    m.dst = out;
    m.dst_cs = N;
    m.cols = cols;
    m.log_n = log_n, m.log_rm = log_rm, m.log_b = log_b;
    m.log_p = LOG_TILE - log_rm - log_b;
    m.tab = tab;
    m.h = scale_h(log_n);
    m.tw = *tw;
    uint64_t tiles = ((cols << (log_n - log_rm)) + (1ull << m.log_p) - 1) >> m.log_p;
    const unsigned grid = grid_for(tiles);
    if (fused) k_lde_mid<true><<<grid, NTHREADS, 0, st>>>(m);
    else if (m.log_p > 0) k_lde_mid<false><<<grid, NTHREADS, 0, st>>>(m);
    else if (log_b == 1) k_lde_mid1<1><<<grid, NTHREADS, 0, st>>>(m);
    else if (log_b == 2) k_lde_mid1<2><<<grid, NTHREADS, 0, st>>>(m);
    else if (log_b == 3) k_lde_mid1<3><<<grid, NTHREADS, 0, st>>>(m);
    else k_lde_mid1<0><<<grid, NTHREADS, 0, st>>>(m);
    GS_TRY(gs_cuda_launched("k_lde_mid launch"));
    /* forward DIT passes over the remaining high bits of the size-N index */
    unsigned done = log_rm + log_b;
    for (int p = 0; p < np; p++) {
        pass_args a;
        pass_defaults(&a, tw);
        a.src = out;
        a.dst = out;
        a.src_lcs = a.dst_lcs = K;
        a.cols = cols;
        pass_shape(&a, K, r[np - 1 - p], done);
        done += r[np - 1 - p];
        GS_TRY(launch_pass(&a, 1, 0, st));
    }
    return GS_OK;
}

static gs_status lde(uint64_t *out, const uint64_t *in, size_t cols, unsigned log_n,
                     unsigned log_b, uint64_t shift, int bitrev_out, int from_coeffs,
                     void *stream) {
    if (log_n > GS_FP_TWO_ADICITY || log_b > GS_FP_TWO_ADICITY ||
        log_n + log_b > GS_FP_TWO_ADICITY)
        return GS_ERR_INVALID_ARG;
    if (bitrev_out != 0 && bitrev_out != 1) return GS_ERR_INVALID_ARG;
    if (shift >= GS_FP_P) return GS_ERR_INVALID_ARG;
    if (cols == 0) return GS_OK;
    if (!out || !in) return GS_ERR_INVALID_ARG;
    const unsigned K = log_n + log_b;
    GS_TRY(check_cols(cols, K));
    const uint64_t n = 1ull << log_n, N = 1ull << K;
    if (ranges_overlap(out, cols * N * sizeof(uint64_t), in, cols * n * sizeof(uint64_t)))
        return GS_ERR_INVALID_ARG;
    cudaStream_t st = (cudaStream_t)stream;
    tw_tabs tw;
    GS_TRY(get_twiddles(&tw));
    const uint64_t *tab = NULL;
    uint64_t *owned = NULL;
    gs_status s = get_scale(shift, log_n, !from_coeffs, st, &tab, &owned);
    if (s != GS_OK) return s;

    if (!bitrev_out && log_n >= 1 && log_b >= 1 && log_b + 4 <= LOG_TILE) {
        s = lde_natural_fast(out, in, cols, log_n, log_b, from_coeffs, tab, &tw, st);
    } else {
        /* generic: natural coefficients into the first n values of each
         * output column, then the zero-padded, scaled DIF of size N */
        const uint64_t *src = in;
        uint64_t src_cs = n;
        if (!from_coeffs && log_n >= 1) {
            /* inverse without 1/n (it is in the table): first pass in -> out */
            s = run_dif(out, N, in, n, cols, log_n, 1, ~0ull, NULL, 0, 1, 1, 0, &tw, st);
            src = out;
            src_cs = N;
        }
        if (s == GS_OK)
            s = run_dif(out, N, src, src_cs, cols, K, 0, n, tab, scale_h(log_n), !bitrev_out, 1,
                        0, &tw, st);
    }
    if (owned) {
        gs_status f = gs_cuda_check(gs_cuda_counted_free_async(owned, st), "cudaFreeAsync(scale table)");
        if (s == GS_OK) s = f;
    }
    return s;
}

extern "C" gs_status gs_cuda_lde_coset(uint64_t *d_out, const uint64_t *d_in, size_t cols,
                                       unsigned log_n, unsigned log_blowup, uint64_t shift,
                                       int bitrev_out, void *stream) {
    return lde(d_out, d_in, cols, log_n, log_blowup, shift, bitrev_out, 0, stream);
}

extern "C" gs_status gs_cuda_lde_coset_from_coeffs(uint64_t *d_out, const uint64_t *d_coeffs,
                                                   size_t cols, unsigned log_n,
                                                   unsigned log_blowup, uint64_t shift,
                                                   int bitrev_out, void *stream) {
    return lde(d_out, d_coeffs, cols, log_n, log_blowup, shift, bitrev_out, 1, stream);
}

/* ------------------------------------------------------------------ */
/* helpers for tests and benchmarks                                    */

extern "C" gs_status gs_cuda_mem_alloc(void **d_ptr, size_t bytes) {
    if (!d_ptr) return GS_ERR_INVALID_ARG;
    *d_ptr = NULL;
    gs_status s = gs_cuda_check(gs_cuda_counted_malloc(d_ptr, bytes ? bytes : 1), "cudaMalloc");
    if (s != GS_OK) *d_ptr = NULL;
    return s;
}

extern "C" gs_status gs_cuda_mem_free(void *d_ptr) {
    return gs_cuda_check(gs_cuda_counted_free(d_ptr), "cudaFree");
}

extern "C" gs_status gs_cuda_mem_h2d(void *d_dst, const void *src, size_t bytes) {
    if (bytes && (!d_dst || !src)) return GS_ERR_INVALID_ARG;
    return gs_cuda_check(gs_cuda_memcpy_landed(d_dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(h2d)");
}

extern "C" gs_status gs_cuda_mem_d2h(void *dst, const void *d_src, size_t bytes) {
    if (bytes && (!dst || !d_src)) return GS_ERR_INVALID_ARG;
    return gs_cuda_check(cudaMemcpy(dst, d_src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(d2h)");
}

extern "C" gs_status gs_cuda_mem_d2d(void *d_dst, const void *d_src, size_t bytes) {
    if (bytes && (!d_dst || !d_src)) return GS_ERR_INVALID_ARG;
    return gs_cuda_check(cudaMemcpy(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy(d2d)");
}

extern "C" gs_status gs_cuda_sync(void) {
    return gs_cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

struct gs_cuda_timer {
    cudaEvent_t start, stop;
};

extern "C" gs_status gs_cuda_timer_create(gs_cuda_timer **timer) {
    if (!timer) return GS_ERR_INVALID_ARG;
    *timer = NULL;
    gs_cuda_timer *t = (gs_cuda_timer *)calloc(1, sizeof *t);
    if (!t) return GS_ERR_NOMEM;
    gs_status s = gs_cuda_check(cudaEventCreate(&t->start), "cudaEventCreate");
    if (s == GS_OK) {
        s = gs_cuda_check(cudaEventCreate(&t->stop), "cudaEventCreate");
        if (s != GS_OK) (void)cudaEventDestroy(t->start);
    }
    if (s != GS_OK) {
        free(t);
        return s;
    }
    *timer = t;
    return GS_OK;
}

extern "C" gs_status gs_cuda_timer_start(gs_cuda_timer *timer, void *stream) {
    if (!timer) return GS_ERR_INVALID_ARG;
    return gs_cuda_check(cudaEventRecord(timer->start, (cudaStream_t)stream), "cudaEventRecord");
}

extern "C" gs_status gs_cuda_timer_stop(gs_cuda_timer *timer, void *stream, double *ms) {
    if (!timer || !ms) return GS_ERR_INVALID_ARG;
    *ms = 0;
    GS_CUDA_TRY(cudaEventRecord(timer->stop, (cudaStream_t)stream));
    GS_CUDA_TRY(cudaEventSynchronize(timer->stop));
    float f = 0;
    GS_CUDA_TRY(cudaEventElapsedTime(&f, timer->start, timer->stop));
    *ms = f;
    return GS_OK;
}

extern "C" void gs_cuda_timer_destroy(gs_cuda_timer *timer) {
    if (!timer) return;
    (void)cudaEventDestroy(timer->start);
    (void)cudaEventDestroy(timer->stop);
    free(timer);
}

extern "C" gs_status gs_cuda_device_info(char *name, size_t name_len, size_t *total_bytes) {
    if (name && name_len) name[0] = 0;
    if (total_bytes) *total_bytes = 0;
    int dev;
    GS_CUDA_TRY(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    GS_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
    if (name && name_len) snprintf(name, name_len, "%s", prop.name);
    if (total_bytes) *total_bytes = prop.totalGlobalMem;
    return GS_OK;
}
