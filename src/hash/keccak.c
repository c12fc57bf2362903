/* Keccak-f[1600] and Keccak-256 (FIPS 202 permutation, Ethereum's padding 0x01 .. 0x80).
 *
 * Three scalar forms of the permutation:
 *   gs_keccak_f1600_ref       the specification's loops over the 5x5 lanes, the yardstick;
 *   keccak_*_portable         fully unrolled (keccak_round.h), two rounds per iteration with
 *                             the lanes renamed instead of copied; plain C;
 *   keccak_*_bmi              the same source compiled for BMI1/BMI2 (andn for chi, rorx for
 *                             the rotations), chosen at run time where the CPU has them.
 * The sponge absorbs whole 8-byte little-endian lanes straight into the state held in
 * registers (keccak_absorb_*), so a long message never round-trips the state through memory
 * between blocks. */
#include <string.h>

#include "hash/keccak_internal.h"

const uint64_t gs_keccak_rc[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull};

/* ---- reference permutation: the specification's loops ---- */

static const unsigned ROT[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

static inline uint64_t rotl_ref(uint64_t v, unsigned r) {
    return r ? (v << r) | (v >> (64 - r)) : v;
}

void gs_keccak_f1600_ref(uint64_t a[25]) {
    for (int round = 0; round < 24; round++) {
        uint64_t c[5], b[25];
        for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; x++) {
            uint64_t d = c[(x + 4) % 5] ^ rotl_ref(c[(x + 1) % 5], 1);
            for (int y = 0; y < 25; y += 5) a[x + y] ^= d;
        }
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++)
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl_ref(a[x + 5 * y], ROT[x + 5 * y]);
        for (int y = 0; y < 25; y += 5)
            for (int x = 0; x < 5; x++)
                a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
        a[0] ^= gs_keccak_rc[round];
    }
}

/* ---- unrolled scalar permutation ---- */

#define KT uint64_t
#define KXOR(a, b) ((a) ^ (b))
#define KXOR3(a, b, c) ((a) ^ (b) ^ (c))
#define KROL(a, n) (((a) << (n)) | ((a) >> (64 - (n))))
#define KCHI(a, b, c) ((a) ^ (~(b) & (c)))
#define KTHETA_D(l, r) ((l) ^ KROL(r, 1))
#define KIOTA(a, i) ((a) ^ gs_keccak_rc[i])
#include "hash/keccak_round.h"

#define ST_LOAD_(i) st[i]
#define ST_STORE_(i, v) st[i] = (v)

/* The permutation, and "absorb nblocks whole rate-sized blocks then permute after each",
 * as one body compiled once per target. */
#define KECCAK_SCALAR_FUNCS(SUFFIX, ATTR)                                                  \
    ATTR static void keccak_f1600_##SUFFIX(uint64_t st[25]) {                              \
        KECCAK_LANES(uint64_t, A);                                                         \
        KECCAK_LANES(uint64_t, E);                                                         \
        KECCAK_LOAD_LANES(A, ST_LOAD_);                                                    \
        KECCAK_PERMUTE(A, E);                                                              \
        KECCAK_STORE_LANES(A, ST_STORE_);                                                  \
    }                                                                                      \
    ATTR static void keccak_absorb_##SUFFIX(uint64_t st[25], const uint8_t *p,             \
                                            size_t nblocks) {                              \
        KECCAK_LANES(uint64_t, A);                                                         \
        KECCAK_LANES(uint64_t, E);                                                         \
        KECCAK_LOAD_LANES(A, ST_LOAD_);                                                    \
        for (; nblocks; nblocks--, p += GS_KECCAK256_RATE) {                               \
            Aba ^= gs_load_le64(p + 0); Abe ^= gs_load_le64(p + 8);                        \
            Abi ^= gs_load_le64(p + 16); Abo ^= gs_load_le64(p + 24);                      \
            Abu ^= gs_load_le64(p + 32); Aga ^= gs_load_le64(p + 40);                      \
            Age ^= gs_load_le64(p + 48); Agi ^= gs_load_le64(p + 56);                      \
            Ago ^= gs_load_le64(p + 64); Agu ^= gs_load_le64(p + 72);                      \
            Aka ^= gs_load_le64(p + 80); Ake ^= gs_load_le64(p + 88);                      \
            Aki ^= gs_load_le64(p + 96); Ako ^= gs_load_le64(p + 104);                     \
            Aku ^= gs_load_le64(p + 112); Ama ^= gs_load_le64(p + 120);                    \
            Ame ^= gs_load_le64(p + 128);                                                  \
            KECCAK_PERMUTE(A, E);                                                          \
        }                                                                                  \
        KECCAK_STORE_LANES(A, ST_STORE_);                                                  \
    }

KECCAK_SCALAR_FUNCS(portable, )
#if GS_KECCAK_X86
KECCAK_SCALAR_FUNCS(bmi, __attribute__((target("bmi,bmi2"))))
#endif

void gs_keccak_f1600_portable(uint64_t st[25]) { keccak_f1600_portable(st); }

/* ---- choosing the scalar form ---- */

typedef struct {
    void (*f1600)(uint64_t st[25]);
    void (*absorb)(uint64_t st[25], const uint8_t *p, size_t nblocks);
} scalar_impl;

static const scalar_impl SCALAR_PORTABLE = {keccak_f1600_portable, keccak_absorb_portable};
#if GS_KECCAK_X86
static const scalar_impl SCALAR_BMI = {keccak_f1600_bmi, keccak_absorb_bmi};
#endif

/* 0 = not yet chosen; else 1 + index (portable 0, bmi 1). Racing first calls all store the
 * same value. */
static int scalar_choice;

int gs_keccak_scalar_available(int which) {
    if (which == 0) return 1;
#if GS_KECCAK_X86
    if (which == 1) return gs_keccak_cpu_has_bmi();
#endif
    return 0;
}

static const scalar_impl *scalar_get(void) {
    int c = __atomic_load_n(&scalar_choice, __ATOMIC_RELAXED);
    if (!c) {
        c = gs_keccak_scalar_available(1) ? 2 : 1;
        __atomic_store_n(&scalar_choice, c, __ATOMIC_RELAXED);
    }
#if GS_KECCAK_X86
    if (c == 2) return &SCALAR_BMI;
#endif
    return &SCALAR_PORTABLE;
}

int gs_keccak_scalar_select(int which) {
    int prev = scalar_get() == &SCALAR_PORTABLE ? 0 : 1;
    if (which >= 0 && gs_keccak_scalar_available(which))
        __atomic_store_n(&scalar_choice, which + 1, __ATOMIC_RELAXED);
    return prev;
}

void gs_keccak_f1600(uint64_t st[25]) { scalar_get()->f1600(st); }

/* ---- the sponge ---- */

/* st ^= in[0..len) placed at byte offset pos of the state (pos + len <= 200). */
void gs_keccak_xor_bytes(uint64_t st[25], size_t pos, const uint8_t *in, size_t len) {
    while (len && (pos & 7)) {
        st[pos >> 3] ^= (uint64_t)*in++ << (8 * (pos & 7));
        pos++;
        len--;
    }
    for (; len >= 8; len -= 8, pos += 8, in += 8) st[pos >> 3] ^= gs_load_le64(in);
    if (len) st[pos >> 3] ^= gs_load_le_partial(in, len);
}

void gs_keccak256_init(gs_keccak_ctx *ctx) { memset(ctx, 0, sizeof *ctx); }

void gs_keccak256_absorb(gs_keccak_ctx *ctx, const void *in, size_t len) {
    const uint8_t *p = in;
    if (!len) return;
    const scalar_impl *impl = scalar_get();
    if (ctx->pos) {
        size_t take = GS_KECCAK256_RATE - ctx->pos;
        if (take > len) take = len;
        gs_keccak_xor_bytes(ctx->st, ctx->pos, p, take);
        ctx->pos += take;
        p += take;
        len -= take;
        if (ctx->pos < GS_KECCAK256_RATE) return;
        impl->f1600(ctx->st);
        ctx->pos = 0;
    }
    size_t nblocks = len / GS_KECCAK256_RATE;
    if (nblocks) {
        impl->absorb(ctx->st, p, nblocks);
        p += nblocks * GS_KECCAK256_RATE;
        len -= nblocks * GS_KECCAK256_RATE;
    }
    gs_keccak_xor_bytes(ctx->st, 0, p, len);
    ctx->pos = len;
}

void gs_keccak256_final(gs_keccak_ctx *ctx, uint8_t out[32]) {
    ctx->st[ctx->pos >> 3] ^= 0x01ull << (8 * (ctx->pos & 7));
    ctx->st[(GS_KECCAK256_RATE - 1) >> 3] ^= 0x80ull << 56;
    scalar_get()->f1600(ctx->st);
    for (int i = 0; i < 4; i++) gs_store_le64(out + 8 * i, ctx->st[i]);
}

void gs_keccak256(uint8_t out[32], const void *in, size_t len) {
    gs_keccak_ctx ctx;
    gs_keccak256_init(&ctx);
    gs_keccak256_absorb(&ctx, in, len);
    gs_keccak256_final(&ctx, out);
}

/* Keccak-256 of a 64-byte message (a Merkle node): one block, no buffering. */
void gs_keccak256_64(uint8_t out[32], const uint8_t in[64]) {
    uint64_t st[25] = {0};
    for (int i = 0; i < 8; i++) st[i] = gs_load_le64(in + 8 * i);
    st[8] = 0x01;
    st[16] = 0x80ull << 56;
    scalar_get()->f1600(st);
    for (int i = 0; i < 4; i++) gs_store_le64(out + 8 * i, st[i]);
}
