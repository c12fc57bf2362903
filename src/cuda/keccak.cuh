/* Keccak-f[1600] for device code: the permutation on 25 lanes held in
 * registers, and the pieces of Ethereum's Keccak-256 sponge (rate 136 bytes =
 * 17 lanes, pad 0x01 .. 0x80) that the Merkle kernels use.
 *
 * The round is the project's own (src/hash/keccak_round.h, written once for
 * every lane type) instantiated on uint64_t, so the device computes exactly
 * what gs_keccak_f1600 computes. The lanes are named local variables and every
 * index is a compile-time constant, so nothing goes to local memory.
 *
 * Code forms (template parameter V, see gs_cuda_keccak_variant_select):
 *   0 "shf"        24 rounds fully unrolled; each 64-bit rotation is two
 *                  funnel shifts (SHF.L.W), like every 64-bit Keccak on NVIDIA;
 *   1 "shf-loop"   the same, two rounds per loop iteration (12 iterations):
 *                  a twelfth of the code (~7 KB instead of ~72 KB), for when
 *                  the unrolled form misses the instruction cache;
 *   2 "imad"       unrolled; every rotation (rho's 24 and theta's 5 per
 *                  round) done with integer multiply-adds instead of shifts;
 *   3 "imad-loop"  the same, two rounds per loop iteration.
 * Why 2 and 3: a round is ~190 32-bit logic and shift instructions (LOP3,
 * SHF: ~4,500 per permutation in the SASS), all on the integer ALU pipe,
 * which is what bounds Keccak on the GPU, while the multiply-add pipe (a
 * second 16-lane pipe that issues in the other cycles) sits idle.
 * rotl(x, n) for 0 < n < 32 on the halves (hi, lo) of x is
 *     w      = lo * 2^n                  (IMAD.WIDE.U32: {lo >> (32-n) : lo << n})
 *     new_hi = hi * 2^n + hi32(w)        (IMAD)
 *     new_lo = umulhi(hi, 2^n) + lo32(w) (IMAD.HI.U32)
 * (the added bit ranges never overlap, so + is |): the same result from the
 * multiply-add pipe, trading two ALU instructions for three multiply-adds,
 * which leaves ~3,100 LOP3 on the ALU pipe and ~2,000 multiply-adds beside
 * them. 2^n is read from constant memory so the compiler cannot turn the
 * multiply back into a shift. Whether that pays depends on pipe rates this
 * code cannot see, so it is measured, not assumed: the
 * benchmark bench_gpu_merkle times every form. */
#ifndef GSTARK_CUDA_KECCAK_CUH
#define GSTARK_CUDA_KECCAK_CUH

#include <stdint.h>

#include "hash/keccak_round.h"

namespace gs_cuda_keccak {

#define GS_CUDA_KECCAK_VARIANTS 4

static __constant__ uint64_t k_rc[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull};

/* 2^n, n < 32: multipliers the compiler cannot see (constant memory may be
 * rewritten at run time), so a multiply by one stays a multiply. */
static __constant__ uint32_t k_pow2[32] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
    1u << 8,  1u << 9,  1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
    1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
    1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31};

__device__ __forceinline__ uint64_t join64(uint32_t lo, uint32_t hi) {
    return ((uint64_t)hi << 32) | lo;
}

/* rotl(x, N), 0 < N < 64, with funnel shifts: two SHF.L.W (none for N = 32). */
template <int N>
__device__ __forceinline__ uint64_t rotl_shf(uint64_t x) {
    static_assert(N > 0 && N < 64, "rotation out of range");
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    if (N == 32) return join64(hi, lo);
    if (N < 32) return join64(__funnelshift_l(hi, lo, N & 31), __funnelshift_l(lo, hi, N & 31));
    return join64(__funnelshift_l(lo, hi, N & 31), __funnelshift_l(hi, lo, N & 31));
}

/* rotl(x, N) with multiply-adds (see the top of this file), written in PTX
 * so that the compiler keeps exactly these three: IMAD.WIDE.U32, IMAD,
 * IMAD.HI.U32 (left to itself it rewrites them as 64-bit arithmetic with
 * register moves). */
template <int N>
__device__ __forceinline__ uint64_t rotl_imad(uint64_t x) {
    static_assert(N > 0 && N < 64, "rotation out of range");
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    if (N == 32) return join64(hi, lo);
    if (N > 32) { /* rotl by 32 (swap the halves), then by N - 32 */
        uint32_t t = lo;
        lo = hi;
        hi = t;
    }
    const uint32_t p = k_pow2[N & 31];
    uint32_t new_lo, new_hi;
    asm("{\n\t"
        ".reg .u32 t, u;\n\t"
        "mul.hi.u32 t, %3, %4;\n\t"     /* t = hi >> (32-n) */
        "mul.hi.u32 u, %2, %4;\n\t"     /* u = lo >> (32-n) */
        "mad.lo.u32 %0, %2, %4, t;\n\t" /* new_lo = (lo << n) + t */
        "mad.lo.u32 %1, %3, %4, u;\n\t" /* new_hi = (hi << n) + u */
        "}"
        : "=r"(new_lo), "=r"(new_hi)
        : "r"(lo), "r"(hi), "r"(p));
    return join64(new_lo, new_hi);
}

/* The rotation a code form uses. */
template <int V, int N>
__device__ __forceinline__ uint64_t rotl(uint64_t x) {
    if (V >= 2) return rotl_imad<N>(x);
    return rotl_shf<N>(x);
}

/* The lane operations keccak_round.h is written in. */
#define KT uint64_t
#define KXOR(a, b) ((a) ^ (b))
#define KXOR3(a, b, c) ((a) ^ (b) ^ (c))
#define KROL(a, n) (::gs_cuda_keccak::rotl<V_, (n)>(a))
#define KCHI(a, b, c) ((a) ^ (~(b) & (c)))
#define KTHETA_D(l, r) ((l) ^ ::gs_cuda_keccak::rotl<V_, 1>(r))
#define KIOTA(a, i) ((a) ^ ::gs_cuda_keccak::k_rc[i])
#define GS_CUDA_ST_LOAD_(i) s[i]
#define GS_CUDA_ST_STORE_(i, v) s[i] = (v)

/* Keccak-f[1600] on s (lane x + 5y = s[x + 5y]), in code form V_. */
template <int V_>
__device__ __forceinline__ void f1600(uint64_t (&s)[25]) {
    static_assert(V_ >= 0 && V_ < GS_CUDA_KECCAK_VARIANTS, "unknown code form");
    KECCAK_LANES(uint64_t, A);
    KECCAK_LANES(uint64_t, E);
    KECCAK_LOAD_LANES(A, GS_CUDA_ST_LOAD_);
    if (V_ & 1) {
#pragma unroll 1
        for (int r = 0; r < 24; r += 2) {
            KECCAK_ROUND(A, E, r);
            KECCAK_ROUND(E, A, r + 1);
        }
    } else {
#pragma unroll
        for (int r = 0; r < 24; r += 2) {
            KECCAK_ROUND(A, E, r);
            KECCAK_ROUND(E, A, r + 1);
        }
    }
    KECCAK_STORE_LANES(A, GS_CUDA_ST_STORE_);
}

#undef KT
#undef KXOR
#undef KXOR3
#undef KROL
#undef KCHI
#undef KTHETA_D
#undef KIOTA
#undef GS_CUDA_ST_LOAD_
#undef GS_CUDA_ST_STORE_

/* Keccak-256 of a 64-byte message m[0..7] (a Merkle node: left || right as
 * little-endian lanes): one block, pad 0x01 in lane 8 and 0x80 at the top of
 * lane 16. The digest is lanes 0..3. */
template <int V>
__device__ __forceinline__ void hash64(uint64_t d[4], const uint64_t m[8]) {
    uint64_t s[25];
#pragma unroll
    for (int i = 0; i < 8; i++) s[i] = m[i];
    s[8] = 0x01;
#pragma unroll
    for (int i = 9; i < 25; i++) s[i] = 0;
    s[16] = 0x8000000000000000ull;
    f1600<V>(s);
#pragma unroll
    for (int i = 0; i < 4; i++) d[i] = s[i];
}

} // namespace gs_cuda_keccak

#endif
