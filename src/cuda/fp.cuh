/* Goldilocks arithmetic for the NTT kernels (src/cuda/ntt.cu): canonical
 * values in, canonical values out, written with PTX carry flags (a carry or
 * borrow becomes a mask of EPS: no compare, no select). The other kernels
 * use gs_fp_* from gstark/field.h; these are the NTT's, counted instruction
 * by instruction (docs/benchmarks.md, "NTT and LDE"): a product is 24 SASS
 * instructions, a division by 2^k (k < 32) 15. The host branches only let
 * the host pass of nvcc parse the functions. Internal. */
#ifndef GSTARK_CUDA_FP_CUH
#define GSTARK_CUDA_FP_CUH

#include <stdint.h>

#define FP_P 0xFFFFFFFF00000001ull
#define FP_EPS 0xFFFFFFFFull

#define FP_DEV static __device__ __forceinline__

#if defined(__CUDA_ARCH__)
/* Canonical a, b. a + b with its carry c, then + EPS with its carry; when
 * neither carried, a + b < p and the EPS is taken back (c + carry - 1 is 0
 * or 0xFFFFFFFF = EPS; both never carry: a + b - 2^64 + EPS < 2^64). */
FP_DEV uint64_t f_add(uint64_t a, uint64_t b) {
    uint32_t lo, hi;
    asm("{\n\t.reg .u32 c, t0, t1;\n\t"
        "add.cc.u32 t0, %2, %4;\n\t"
        "addc.cc.u32 t1, %3, %5;\n\t"
        "addc.u32 c, 0, 0;\n\t"
        "add.cc.u32 t0, t0, 0xFFFFFFFF;\n\t"
        "addc.cc.u32 t1, t1, 0;\n\t"
        "addc.u32 c, c, 0xFFFFFFFF;\n\t"
        "sub.cc.u32 %0, t0, c;\n\t"
        "subc.u32 %1, t1, 0;\n\t}"
        : "=r"(lo), "=r"(hi)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return ((uint64_t)hi << 32) | lo;
}

/* Canonical a, b. a - b with its borrow as a mask (0 or EPS); on a borrow
 * the difference + 2^64 is at least 2^32, so taking EPS (adding p) cannot
 * borrow again. */
FP_DEV uint64_t f_sub(uint64_t a, uint64_t b) {
    uint32_t lo, hi;
    asm("{\n\t.reg .u32 m, t0, t1;\n\t"
        "sub.cc.u32 t0, %2, %4;\n\t"
        "subc.cc.u32 t1, %3, %5;\n\t"
        "subc.u32 m, 0, 0;\n\t"
        "sub.cc.u32 %0, t0, m;\n\t"
        "subc.u32 %1, t1, 0;\n\t}"
        : "=r"(lo), "=r"(hi)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return ((uint64_t)hi << 32) | lo;
}
#else
FP_DEV uint64_t f_add(uint64_t a, uint64_t b) {
    uint64_t s = a + b, r = s + FP_EPS; /* r = s - p (mod 2^64) */
    return ((s < a) | (r < s)) ? r : s;
}

FP_DEV uint64_t f_sub(uint64_t a, uint64_t b) {
    uint64_t d = a - b;
    return a < b ? d - FP_EPS : d; /* on borrow: a - b + p */
}
#endif

/* y + br 2^64 (mod p), canonical, for br in {-1, 0, 1} (see f_reduce128). */
FP_DEV uint64_t reduce_tail(uint64_t y, int32_t br) {
    uint64_t adj = ((uint64_t)(uint32_t)(br >> 31) << 32) | (uint32_t)(-br);
    uint64_t r = y + adj; /* br = 1: + EPS; br = -1: + p = - EPS (mod 2^64) */
    return r >= FP_P ? r - FP_P : r;
}

/* hi * 2^64 + lo mod p for any 128-bit value. With hi = t3 2^32 + t2:
 * V = lo - t2 - t3 + t2 2^32 (2^64 = 2^32 - 1, 2^96 = -1) lies in
 * (-2^33, 2^65); br = floor(V / 2^64) in {-1, 0, 1}, y = V mod 2^64, and
 * y + br 2^64 = y + br EPS (mod p) is already canonical when br != 0. */
FP_DEV uint64_t f_reduce128(uint64_t lo, uint64_t hi) {
    uint64_t y;
    int32_t br;
#if defined(__CUDA_ARCH__)
    uint32_t t0 = (uint32_t)lo, t1 = (uint32_t)(lo >> 32), t2 = (uint32_t)hi,
             t3 = (uint32_t)(hi >> 32);
    uint32_t y0, y1, b;
    asm("sub.cc.u32 %0, %3, %5;\n\t"
        "subc.cc.u32 %1, %4, 0;\n\t"
        "subc.u32 %2, 0, 0;\n\t"
        "sub.cc.u32 %0, %0, %6;\n\t"
        "subc.cc.u32 %1, %1, 0;\n\t"
        "subc.u32 %2, %2, 0;\n\t"
        "add.cc.u32 %1, %1, %5;\n\t"
        "addc.u32 %2, %2, 0;"
        : "=r"(y0), "=r"(y1), "=r"(b)
        : "r"(t0), "r"(t1), "r"(t2), "r"(t3));
    y = ((uint64_t)y1 << 32) | y0;
    br = (int32_t)b;
#else
    __int128 v = (__int128)lo - (__int128)(hi & 0xFFFFFFFFull) - (__int128)(hi >> 32) +
                 ((__int128)(hi & 0xFFFFFFFFull) << 32);
    y = (uint64_t)v;
    br = (int32_t)(v >> 64);
#endif
    return reduce_tail(y, br);
}

/* f_reduce128 for hi = t2 < 2^32 (t3 = 0): three instructions fewer. */
FP_DEV uint64_t f_reduce96(uint64_t lo, uint32_t t2) {
#if defined(__CUDA_ARCH__)
    uint32_t y0, y1, b;
    asm("sub.cc.u32 %0, %3, %5;\n\t"
        "subc.cc.u32 %1, %4, 0;\n\t"
        "subc.u32 %2, 0, 0;\n\t"
        "add.cc.u32 %1, %1, %5;\n\t"
        "addc.u32 %2, %2, 0;"
        : "=r"(y0), "=r"(y1), "=r"(b)
        : "r"((uint32_t)lo), "r"((uint32_t)(lo >> 32)), "r"(t2));
    return reduce_tail(((uint64_t)y1 << 32) | y0, (int32_t)b);
#else
    return f_reduce128(lo, t2);
#endif
}

FP_DEV uint64_t f_mul(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
    uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32), b0 = (uint32_t)b,
             b1 = (uint32_t)(b >> 32);
    uint32_t t0, t1, t2, t3;
    asm("mul.lo.u32 %0, %4, %6;\n\t"
        "mul.hi.u32 %1, %4, %6;\n\t"
        "mul.lo.u32 %2, %5, %7;\n\t"
        "mul.hi.u32 %3, %5, %7;\n\t"
        "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
        "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
        "addc.u32 %3, %3, 0;\n\t"
        "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
        "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
        "addc.u32 %3, %3, 0;"
        : "=r"(t0), "=r"(t1), "=r"(t2), "=r"(t3)
        : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    return f_reduce128(((uint64_t)t1 << 32) | t0, ((uint64_t)t3 << 32) | t2);
#else
    unsigned __int128 x = (unsigned __int128)a * b;
    return f_reduce128((uint64_t)x, (uint64_t)(x >> 64));
#endif
}

/* x * 2^e for a compile-time e in [0, 64) once inlined: a shift and a
 * reduction (of a 96-bit value for e <= 32). */
FP_DEV uint64_t f_mul_pow2(uint64_t x, unsigned e) {
    if (e == 0) return x;
    if (e <= 32) return f_reduce96(x << e, (uint32_t)(x >> (64 - e)));
    return f_reduce128(x << e, x >> (64 - e));
}

/* x * 2^-k for a compile-time k in [1, 32) once inlined, canonical x: with
 * m = -x mod 2^k, T = x + m p is a multiple of 2^k (p = 1 mod 2^32), so
 * x 2^-k = T / 2^k (mod p), and T / 2^k < p + 2^(64-k): one conditional
 * subtraction. T = x + m - m 2^32 + m 2^64 in three 32-bit words with the
 * carry flags; 15 SASS instructions against a product's 24 (the register
 * DFTs' roots 2^72 and 2^84 are -2^-24 and -2^-12). */
FP_DEV uint64_t f_div2k(uint64_t x, unsigned k) {
#if defined(__CUDA_ARCH__)
    uint32_t x0 = (uint32_t)x, x1 = (uint32_t)(x >> 32);
    uint32_t m = (0u - x0) & ((1u << k) - 1);
    uint32_t t0, t1, t2, c;
    asm("add.cc.u32 %0, %3, %5;\n\t"
        "addc.cc.u32 %1, %4, 0;\n\t"
        "addc.u32 %2, %5, 0;\n\t"
        "sub.cc.u32 %1, %1, %5;\n\t"
        "subc.u32 %2, %2, 0;"
        : "=r"(t0), "=r"(t1), "=r"(t2)
        : "r"(x0), "r"(x1), "r"(m));
    uint32_t r0 = __funnelshift_r(t0, t1, k), r1 = __funnelshift_r(t1, t2, k);
    /* c = 1 iff T / 2^k >= p: its bit 64 (t2 >> k) or a carry of + EPS */
    asm("add.cc.u32 %0, %2, 0xFFFFFFFF;\n\t"
        "addc.cc.u32 %0, %3, 0;\n\t"
        "addc.u32 %1, %4, 0;"
        : "=r"(t0), "=r"(c)
        : "r"(r0), "r"(r1), "r"(t2 >> k));
    asm("add.cc.u32 %0, %2, %4;\n\t" /* + EPS when c (the bit 64 drops) */
        "addc.u32 %1, %3, 0;"
        : "=r"(t0), "=r"(t1)
        : "r"(r0), "r"(r1), "r"(0u - c));
    return ((uint64_t)t1 << 32) | t0;
#else
    uint64_t m = (0 - x) & ((1ull << k) - 1), a = x + m, mh = m << 32;
    uint32_t t2 = (uint32_t)(a < m) + (uint32_t)m - (uint32_t)(a < mh);
    uint64_t r = ((a - mh) >> k) | ((uint64_t)t2 << (64 - k)), s = r + FP_EPS;
    return ((t2 >> k) | (s < r)) ? s : r;
#endif
}

#endif
