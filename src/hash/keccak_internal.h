/* Private to src/hash and its tests/benchmarks: the reference permutation, lane loads, CPU
 * detection, and explicit choice of the scalar and multi-message implementations so that
 * every fast path can be compared with the portable one. */
#ifndef GS_KECCAK_INTERNAL_H
#define GS_KECCAK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gstark/hash.h"

/* x86 fast paths (BMI, AVX2, AVX-512 kernels, chosen at run time); -DGS_KECCAK_X86=0 builds
 * the portable code alone, as on other architectures. */
#ifndef GS_KECCAK_X86
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define GS_KECCAK_X86 1
#else
#define GS_KECCAK_X86 0
#endif
#endif

extern const uint64_t gs_keccak_rc[24];

/* ---- little-endian lanes ---- */

static inline uint64_t gs_load_le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void gs_store_le64(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* The first n < 8 bytes at p as the low bytes of a lane; reads only those n bytes. */
static inline uint64_t gs_load_le_partial(const uint8_t *p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- scalar permutation ---- */

/* The specification's loop form; slow; the yardstick for every other form. */
void gs_keccak_f1600_ref(uint64_t st[25]);
/* The unrolled plain-C form, whatever the CPU. */
void gs_keccak_f1600_portable(uint64_t st[25]);
/* st ^= in[0..len) at byte offset pos of the state (pos + len <= 200). */
void gs_keccak_xor_bytes(uint64_t st[25], size_t pos, const uint8_t *in, size_t len);
/* Keccak-256 of exactly 64 bytes (a Merkle node). */
void gs_keccak256_64(uint8_t out[32], const uint8_t in[64]);

/* Scalar forms behind gs_keccak_f1600 and the sponge: 0 portable C, 1 BMI1/BMI2 (x86).
 * By default the best available is used. select makes `which` current if available (tests
 * and benchmarks only: not meant to race with hashing in other threads) and returns the
 * previous one. */
#define GS_KECCAK_SCALAR_COUNT 2
int gs_keccak_scalar_available(int which);
int gs_keccak_scalar_select(int which);

/* ---- CPU features (detected once, cached) ---- */

int gs_keccak_cpu_has_bmi(void);    /* BMI1 and BMI2 */
int gs_keccak_cpu_has_avx2(void);   /* AVX2 */
int gs_keccak_cpu_has_avx512(void); /* AVX-512 F and VL */

/* ---- multi-message Keccak-256 (gs_hash_many) ---- */

typedef enum gs_keccak_many_impl {
    GS_KECCAK_MANY_PORTABLE = 0, /* one message at a time, scalar */
    GS_KECCAK_MANY_AVX2 = 1,     /* 4 states, one per 64-bit lane of a ymm register */
    GS_KECCAK_MANY_AVX512 = 2,   /* 8 states, one per 64-bit lane of a zmm register */
    GS_KECCAK_MANY_COUNT = 3
} gs_keccak_many_impl;

int gs_keccak_many_available(gs_keccak_many_impl impl);
const char *gs_keccak_many_name(gs_keccak_many_impl impl);
/* The fastest available (what gs_hash_many uses). */
gs_keccak_many_impl gs_keccak_many_best(void);
/* gs_hash_many's Keccak-256 through a given implementation, which must be available. */
void gs_keccak256_many_with(gs_keccak_many_impl impl, gs_digest *out, const uint8_t *in,
                            size_t len, size_t stride, size_t n);

/* The kernels (keccak_x4_avx2.c, keccak_x8_avx512.c): any n, tails included. */
void gs_keccak256_many_avx2(gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                            size_t n);
void gs_keccak256_many_avx512(gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                              size_t n);

#endif
