/* The hash interface: dispatch on gs_hash_id (Keccak-256, Poseidon2), CPU feature
 * detection, the choice of multi-message implementation behind gs_hash_many, and Poseidon2's
 * byte mode (gstark/hash.h and docs/hash.md give its rules). */
#include <string.h>

#include "hash/keccak_internal.h"
#include "hash/poseidon2_internal.h"

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

/* ---- Poseidon2 over bytes ---- */

#define P2_BYTES_TAG 9u /* the state element set to 1 in byte mode */
#define P2_MANY_GROUP 64u /* messages per group of gs_hash_many */

static uint64_t load_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void store_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* One 56-byte block into the rate: element j is bytes 7j..7j+6, little-endian (< 2^56 < p,
 * and the state's elements are canonical, so one conditional subtraction is the add). */
static void p2_add_block(uint64_t st[12], const uint8_t *blk) {
    for (unsigned j = 0; j < GS_POSEIDON2_RATE; j++) st[j] = gs_fp_add(st[j], load_le(blk + 7 * j, 7));
}

static void p2_bytes_init(gs_poseidon2_bytes_ctx *c) {
    memset(c, 0, sizeof *c);
    c->st[P2_BYTES_TAG] = 1;
}

static void p2_bytes_update(gs_poseidon2_bytes_ctx *c, const uint8_t *in, size_t len) {
    if (c->pos) {
        size_t take = GS_POSEIDON2_BYTES_BLOCK - c->pos;
        if (take > len) take = len;
        memcpy(c->buf + c->pos, in, take);
        c->pos += take, in += take, len -= take;
        if (c->pos < GS_POSEIDON2_BYTES_BLOCK) return;
        p2_add_block(c->st, c->buf);
        gs_poseidon2_permute_w12(c->st);
        c->pos = 0;
    }
    for (; len >= GS_POSEIDON2_BYTES_BLOCK; in += GS_POSEIDON2_BYTES_BLOCK, len -= GS_POSEIDON2_BYTES_BLOCK) {
        p2_add_block(c->st, in);
        gs_poseidon2_permute_w12(c->st);
    }
    if (len) memcpy(c->buf, in, len);
    c->pos = len;
}

static void p2_digest_out(gs_digest *out, const uint64_t *st) {
    for (unsigned i = 0; i < GS_POSEIDON2_DIGEST_ELEMS; i++) store_le64(out->b + 8 * i, st[i]);
}

/* Pads (0x01, zeros to the block's end), absorbs the last block, writes the digest. */
static void p2_bytes_final(gs_poseidon2_bytes_ctx *c, gs_digest *out) {
    memset(c->buf + c->pos, 0, GS_POSEIDON2_BYTES_BLOCK - c->pos);
    c->buf[c->pos] = 0x01;
    p2_add_block(c->st, c->buf);
    gs_poseidon2_permute_w12(c->st);
    p2_digest_out(out, c->st);
}

/* Same-length messages a group at a time: block b of every message, then one bulk permutation
 * of the group's states (the SIMD paths of poseidon2_internal.h). */
static void p2_bytes_many(gs_digest *out, const uint8_t *in, size_t len, size_t stride, size_t n) {
    uint64_t st[P2_MANY_GROUP * 12];
    uint8_t last[GS_POSEIDON2_BYTES_BLOCK];
    size_t full = len / GS_POSEIDON2_BYTES_BLOCK, tail = len % GS_POSEIDON2_BYTES_BLOCK;
    gs_p2_impl impl = gs_p2_best();
    for (size_t g = 0; g < n; g += P2_MANY_GROUP) {
        size_t m = n - g < P2_MANY_GROUP ? n - g : P2_MANY_GROUP;
        memset(st, 0, m * 12 * sizeof *st);
        for (size_t k = 0; k < m; k++) st[12 * k + P2_BYTES_TAG] = 1;
        for (size_t b = 0; b <= full; b++) {
            for (size_t k = 0; k < m; k++) {
                const uint8_t *msg = in ? in + (g + k) * stride + b * GS_POSEIDON2_BYTES_BLOCK : in;
                if (b < full) {
                    p2_add_block(st + 12 * k, msg);
                } else {
                    if (tail) memcpy(last, msg, tail);
                    memset(last + tail, 0, sizeof last - tail);
                    last[tail] = 0x01;
                    p2_add_block(st + 12 * k, last);
                }
            }
            gs_p2_permute_w12_many_with(impl, st, m);
        }
        /* Written after every read of the group: out may overlap messages <= its own index. */
        for (size_t k = 0; k < m; k++) p2_digest_out(&out[g + k], st + 12 * k);
    }
}

static uint64_t p2_canon(uint64_t v) { return v >= GS_FP_P ? v - GS_FP_P : v; }

/* gs_hash_pair for Poseidon2: elements read little-endian, reduced mod p. */
static void p2_pair(gs_digest *out, const gs_digest *l, const gs_digest *r) {
    gs_poseidon2_digest a, b, o;
    for (unsigned i = 0; i < GS_POSEIDON2_DIGEST_ELEMS; i++) {
        a.v[i] = p2_canon(load_le(l->b + 8 * i, 8));
        b.v[i] = p2_canon(load_le(r->b + 8 * i, 8));
    }
    gs_poseidon2_compress(&o, &a, &b);
    p2_digest_out(out, o.v);
}

/* ---- the interface ---- */

const char *gs_hash_name(gs_hash_id id) {
    switch (id) {
    case GS_HASH_KECCAK256: return "keccak256";
    case GS_HASH_POSEIDON2: return "poseidon2";
    default: return NULL;
    }
}

void gs_hasher_init(gs_hasher *h, gs_hash_id id) {
    if (id == GS_HASH_POSEIDON2) {
        h->id = GS_HASH_POSEIDON2;
        p2_bytes_init(&h->u.p2);
        return;
    }
    h->id = GS_HASH_KECCAK256;
    gs_keccak256_init(&h->u.keccak);
}

void gs_hasher_update(gs_hasher *h, const void *in, size_t len) {
    if (h->id == GS_HASH_POSEIDON2) p2_bytes_update(&h->u.p2, in, len);
    else gs_keccak256_absorb(&h->u.keccak, in, len);
}

void gs_hasher_final(gs_hasher *h, gs_digest *out) {
    if (h->id == GS_HASH_POSEIDON2) p2_bytes_final(&h->u.p2, out);
    else gs_keccak256_final(&h->u.keccak, out->b);
}

void gs_hash(gs_hash_id id, gs_digest *out, const void *in, size_t len) {
    if (id == GS_HASH_POSEIDON2) {
        gs_poseidon2_bytes_ctx c;
        p2_bytes_init(&c);
        p2_bytes_update(&c, in, len);
        p2_bytes_final(&c, out);
        return;
    }
    gs_keccak256(out->b, in, len);
}

void gs_hash_pair(gs_hash_id id, gs_digest *out, const gs_digest *l, const gs_digest *r) {
    if (id == GS_HASH_POSEIDON2) {
        p2_pair(out, l, r);
        return;
    }
    uint8_t buf[2 * GS_DIGEST_BYTES]; /* a copy, so out may alias l or r */
    memcpy(buf, l->b, GS_DIGEST_BYTES);
    memcpy(buf + GS_DIGEST_BYTES, r->b, GS_DIGEST_BYTES);
    gs_keccak256_64(out->b, buf);
}

void gs_hash_many(gs_hash_id id, gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                  size_t n) {
    if (id == GS_HASH_POSEIDON2) {
        p2_bytes_many(out, in, len, stride, n);
        return;
    }
    static int best; /* 1 + gs_keccak_many_impl, 0 = not yet chosen */
    int b = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (!b) {
        b = 1 + (int)gs_keccak_many_best();
        __atomic_store_n(&best, b, __ATOMIC_RELAXED);
    }
    gs_keccak256_many_with((gs_keccak_many_impl)(b - 1), out, in, len, stride, n);
}
