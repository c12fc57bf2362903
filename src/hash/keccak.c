/* Keccak-f[1600] and Keccak-256 (FIPS 202 permutation, Ethereum padding).
 * Reference form: loops over the 5x5 lanes. */
#include <string.h>

#include "gstark/hash.h"

static const uint64_t RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808Aull, 0x8000000080008000ull,
    0x000000000000808Bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008Aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000Aull,
    0x000000008000808Bull, 0x800000000000008Bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800Aull, 0x800000008000000Aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull};

static const unsigned ROT[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

static inline uint64_t rotl(uint64_t v, unsigned r) { return r ? (v << r) | (v >> (64 - r)) : v; }

void gs_keccak_f1600(uint64_t a[25]) {
    for (int round = 0; round < 24; round++) {
        uint64_t c[5], b[25];
        for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; x++) {
            uint64_t d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
            for (int y = 0; y < 25; y += 5) a[x + y] ^= d;
        }
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], ROT[x + 5 * y]);
        for (int y = 0; y < 25; y += 5)
            for (int x = 0; x < 5; x++) a[x + y] = b[x + y] ^ (~b[(x + 1) % 5 + y] & b[(x + 2) % 5 + y]);
        a[0] ^= RC[round];
    }
}

static inline void xor_lane_bytes(uint64_t st[25], size_t pos, const uint8_t *in, size_t len) {
    /* Lanes are little-endian: byte i of the state is byte i%8 of lane i/8. */
    for (size_t i = 0; i < len; i++) st[(pos + i) >> 3] ^= (uint64_t)in[i] << (8 * ((pos + i) & 7));
}

void gs_keccak256_init(gs_keccak_ctx *ctx) { memset(ctx, 0, sizeof *ctx); }

void gs_keccak256_absorb(gs_keccak_ctx *ctx, const void *in, size_t len) {
    const uint8_t *p = in;
    while (len) {
        size_t take = GS_KECCAK256_RATE - ctx->pos;
        if (take > len) take = len;
        xor_lane_bytes(ctx->st, ctx->pos, p, take);
        ctx->pos += take;
        p += take;
        len -= take;
        if (ctx->pos == GS_KECCAK256_RATE) {
            gs_keccak_f1600(ctx->st);
            ctx->pos = 0;
        }
    }
}

void gs_keccak256_final(gs_keccak_ctx *ctx, uint8_t out[32]) {
    ctx->st[ctx->pos >> 3] ^= 0x01ull << (8 * (ctx->pos & 7));
    ctx->st[(GS_KECCAK256_RATE - 1) >> 3] ^= 0x80ull << 56;
    gs_keccak_f1600(ctx->st);
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(ctx->st[i >> 3] >> (8 * (i & 7)));
}

void gs_keccak256(uint8_t out[32], const void *in, size_t len) {
    gs_keccak_ctx ctx;
    gs_keccak256_init(&ctx);
    gs_keccak256_absorb(&ctx, in, len);
    gs_keccak256_final(&ctx, out);
}
