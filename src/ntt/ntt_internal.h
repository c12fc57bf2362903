/* Internals of the NTT module (src/ntt): the four-step plan, the kernel
 * table (portable C and AVX-512 implementations of the same group
 * operations), and the cached twiddle tables. Not part of the public API;
 * tests include it to compare the kernels with each other.
 *
 * Terminology. A transform of size N = 2^K = N1 * N2 (K >= NTT_MIN_FOURSTEP)
 * views the column as an N1 x N2 row-major matrix. "Column groups" are 8
 * adjacent matrix columns, "row groups" 8 matrix rows. Every sub-transform
 * runs on a scratch block of m rows x 8 lanes (m = N1 or N2): the 8 lanes are
 * 8 independent sub-transforms done in lock step, so every butterfly is a
 * whole row of 8 values with one broadcast twiddle (an AVX-512 vector). */
#ifndef GS_NTT_INTERNAL_H
#define GS_NTT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/field.h"
#include "gstark/status.h"

#define NTT_LANES 8
/* Sub-transforms (N1, N2) have at most 2^NTT_MAX_SUB points; with K <= 32
 * and K1 = ceil(K/2) that always holds. */
#define NTT_MAX_SUB 16
/* Below this log size the transform is a direct radix-2 loop. */
#define NTT_MIN_FOURSTEP 6

typedef struct ntt_plan {
    unsigned K, K1, K2; /* N = 2^K, N1 = 2^K1 rows, N2 = 2^K2 columns */
    size_t N1, N2;
    /* dif: the source has N1 >> logB nonzero rows (the rest are zero: the
     * zero padding of a low-degree extension). */
    unsigned logB;
    /* Stage twiddles, forward or inverse: tw[s][j] = w_{2^(s+1)}^(+-j),
     * tw3[s][j] = w_{2^(s+1)}^(+-3j). inv: the inverse tables (the radix-4
     * butterflies multiply by w_4^(+-1) = +-2^48 with shifts). */
    const gs_fp *tw[NTT_MAX_SUB], *tw3[NTT_MAX_SUB];
    int inv;
    /* The inter-step twiddle of the four-step, with any diagonal scaling
     * folded in, is a geometric sequence per lane: lane idx starts at
     * cv0[idx] and is multiplied by cb[idx] per step. */
    const gs_fp *cv0, *cb;
    /* dif: source row i multiplied by rho0 * rho^i; dit: output row k1
     * multiplied by rho0 * rho^k1. */
    int rowf;
    gs_fp rho0, rho;
    /* dif rows: output scratch row t multiplied by ftab[t] (size N2); NULL:
     * no factor. */
    const gs_fp *ftab;
} ntt_plan;

/* Group operations; each processes groups [g0, g1) with scratch S of at
 * least max(N1, N2) * 8 values (64-byte aligned).
 *  dif_cols: step 1 of the decimation-in-frequency four-step: column DIFs of
 *            src (natural order) with the inter-step twiddle, into dst.
 *  dif_rows: step 2: row DIFs in place. dif_cols + dif_rows map natural
 *            order to bit-reversed order.
 *  dit_rows: step 1 of the decimation-in-time four-step, reading a natural
 *            order src so that the bit reversal costs nothing (it is folded
 *            into which rows form a group); writes dst (dst != src).
 *  dit_cols: step 2: column DITs of src into dst (may be equal). dit_rows +
 *            dit_cols map natural order to natural order.
 *  bitrev:   in-place bit reversal of 2^K values (K >= 6): the pairs of
 *            8x8 tiles (m, rev m) for m = g0, g0 + step, ... < g1 of the
 *            2^(K-6) tiles (a pair belongs to its smaller m; the small m own
 *            more pairs, so threads take interleaved m, not ranges). */
typedef struct ntt_kernels {
    const char *name;
    void (*dif_cols)(const ntt_plan *p, gs_fp *dst, const gs_fp *src, size_t g0, size_t g1,
                     gs_fp *S);
    void (*dif_rows)(const ntt_plan *p, gs_fp *x, size_t g0, size_t g1, gs_fp *S);
    void (*dit_rows)(const ntt_plan *p, gs_fp *dst, const gs_fp *src, size_t g0, size_t g1,
                     gs_fp *S);
    void (*dit_cols)(const ntt_plan *p, gs_fp *dst, const gs_fp *src, size_t g0, size_t g1,
                     gs_fp *S);
    void (*bitrev)(gs_fp *x, unsigned K, size_t g0, size_t g1, size_t step);
} ntt_kernels;

extern const ntt_kernels gs_ntt_kernels_portable;
#if defined(__x86_64__) && defined(__GNUC__)
#define GS_NTT_HAVE_AVX512 1
extern const ntt_kernels gs_ntt_kernels_avx512;
#endif

/* Kernel choice: 0 = automatic (AVX-512 where the CPU has it), 1 = portable
 * only. Process-wide; tests use it to compare the two. Returns the previous
 * value. */
int gs_ntt_set_kernel_mode(int mode);
/* The name of the kernels the next call will use ("avx512" or "portable"). */
const char *gs_ntt_kernel_name(void);

/* The cached stage table w_{2^(s+1)}^j (inverse: w^-j), j < 2^s, s <
 * NTT_MAX_SUB. Built once on first use under a lock, published atomically,
 * never freed. NULL only if the allocation failed (a later call retries). */
const gs_fp *gs_ntt_stage_table(int inverse, unsigned s);
/* The same for w_{2^(s+1)}^(3j), j < 2^(s-1). */
const gs_fp *gs_ntt_stage_table3(int inverse, unsigned s);

/* Every allocation of the module goes through gs_ntt_alloc (64-byte aligned
 * when align is set; free with free()). Test hook: after
 * gs_ntt_fail_allocs(k, count), the next k allocations succeed, the count
 * after them fail (count < 0: all of them), then they succeed again; k < 0
 * turns the hook off. Not for concurrent use. */
void *gs_ntt_alloc(size_t bytes, int align);
void gs_ntt_fail_allocs(long k, long count);

/* Bit reversal of the low `bits` bits of x (bits <= 63; 0 gives 0). */
static inline size_t gs_ntt_rev(size_t x, unsigned bits) {
    if (bits == 0) return 0;
    uint64_t v = (uint64_t)x;
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((v & 0x0F0F0F0F0F0F0F0Full) << 4);
    v = __builtin_bswap64(v);
    return (size_t)(v >> (64 - bits));
}

#endif
