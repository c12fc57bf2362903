/* The hash interface: dispatch on gs_hash_id (only Keccak-256 exists today), CPU feature
 * detection, and the choice of multi-message implementation behind gs_hash_many. */
#include <string.h>

#include "hash/keccak_internal.h"

/* ---- CPU features: detected on first use, cached (racing first calls agree) ---- */

enum { CPU_KNOWN = 1, CPU_BMI = 2, CPU_AVX2 = 4, CPU_AVX512 = 8 };
static int cpu_flags;

static int cpu_get(void) {
    int f = __atomic_load_n(&cpu_flags, __ATOMIC_RELAXED);
    if (f) return f;
    f = CPU_KNOWN;
#if GS_KECCAK_X86
    /* libgcc's checks include the OS's XSAVE support for the AVX and AVX-512 registers. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")) f |= CPU_BMI;
    if (__builtin_cpu_supports("avx2")) f |= CPU_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) f |= CPU_AVX512;
#endif
    __atomic_store_n(&cpu_flags, f, __ATOMIC_RELAXED);
    return f;
}

int gs_keccak_cpu_has_bmi(void) { return (cpu_get() & CPU_BMI) != 0; }
int gs_keccak_cpu_has_avx2(void) { return (cpu_get() & CPU_AVX2) != 0; }
int gs_keccak_cpu_has_avx512(void) { return (cpu_get() & CPU_AVX512) != 0; }

/* ---- multi-message Keccak-256 ---- */

int gs_keccak_many_available(gs_keccak_many_impl impl) {
    switch (impl) {
    case GS_KECCAK_MANY_PORTABLE: return 1;
#if GS_KECCAK_X86
    case GS_KECCAK_MANY_AVX2: return gs_keccak_cpu_has_avx2();
    case GS_KECCAK_MANY_AVX512: return gs_keccak_cpu_has_avx512();
#endif
    default: return 0;
    }
}

const char *gs_keccak_many_name(gs_keccak_many_impl impl) {
    switch (impl) {
    case GS_KECCAK_MANY_PORTABLE: return "portable";
    case GS_KECCAK_MANY_AVX2: return "avx2-x4";
    case GS_KECCAK_MANY_AVX512: return "avx512-x8";
    default: return "?";
    }
}

gs_keccak_many_impl gs_keccak_many_best(void) {
    if (gs_keccak_many_available(GS_KECCAK_MANY_AVX512)) return GS_KECCAK_MANY_AVX512;
    if (gs_keccak_many_available(GS_KECCAK_MANY_AVX2)) return GS_KECCAK_MANY_AVX2;
    return GS_KECCAK_MANY_PORTABLE;
}

static void keccak256_many_portable(gs_digest *out, const uint8_t *in, size_t len,
                                    size_t stride, size_t n) {
    if (len == 2 * GS_DIGEST_BYTES)
        for (size_t i = 0; i < n; i++) gs_keccak256_64(out[i].b, in + i * stride);
    else
        for (size_t i = 0; i < n; i++) gs_keccak256(out[i].b, in + i * stride, len);
}

void gs_keccak256_many_with(gs_keccak_many_impl impl, gs_digest *out, const uint8_t *in,
                            size_t len, size_t stride, size_t n) {
    switch (impl) {
#if GS_KECCAK_X86
    case GS_KECCAK_MANY_AVX512: gs_keccak256_many_avx512(out, in, len, stride, n); return;
    case GS_KECCAK_MANY_AVX2: gs_keccak256_many_avx2(out, in, len, stride, n); return;
#endif
    default: keccak256_many_portable(out, in, len, stride, n); return;
    }
}

/* ---- the interface ---- */

void gs_hasher_init(gs_hasher *h, gs_hash_id id) {
    h->id = GS_HASH_KECCAK256;
    (void)id;
    gs_keccak256_init(&h->u.keccak);
}

void gs_hasher_update(gs_hasher *h, const void *in, size_t len) {
    gs_keccak256_absorb(&h->u.keccak, in, len);
}

void gs_hasher_final(gs_hasher *h, gs_digest *out) { gs_keccak256_final(&h->u.keccak, out->b); }

void gs_hash(gs_hash_id id, gs_digest *out, const void *in, size_t len) {
    (void)id;
    gs_keccak256(out->b, in, len);
}

void gs_hash_pair(gs_hash_id id, gs_digest *out, const gs_digest *l, const gs_digest *r) {
    uint8_t buf[2 * GS_DIGEST_BYTES]; /* a copy, so out may alias l or r */
    (void)id;
    memcpy(buf, l->b, GS_DIGEST_BYTES);
    memcpy(buf + GS_DIGEST_BYTES, r->b, GS_DIGEST_BYTES);
    gs_keccak256_64(out->b, buf);
}

void gs_hash_many(gs_hash_id id, gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                  size_t n) {
    (void)id;
    static int best; /* 1 + gs_keccak_many_impl, 0 = not yet chosen */
    int b = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (!b) {
        b = 1 + (int)gs_keccak_many_best();
        __atomic_store_n(&best, b, __ATOMIC_RELAXED);
    }
    gs_keccak256_many_with((gs_keccak_many_impl)(b - 1), out, in, len, stride, n);
}
