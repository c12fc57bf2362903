/* Eight Keccak-256 messages at once with AVX-512: state lane i of message k is 64-bit element
 * k of zmm "lane" i. Rotations are vprolq; chi (a ^ (~b & c)) and the three-way XORs of theta
 * are each one vpternlogq. Message lanes come in eight at a time as 64-byte rows transposed
 * in registers, single lanes with vpgatherqq (the messages sit `stride` bytes apart); a
 * ragged last lane goes through a small buffer so that no byte past a message's end is read.
 * Compiled for AVX-512 F+VL per function; called only where the CPU has them (hash.c). */
#include "hash/keccak_internal.h"

#if GS_KECCAK_X86
#include <immintrin.h>

#define ATTR __attribute__((target("avx512f,avx512vl")))

#define KT __m512i
#define KXOR(a, b) _mm512_xor_si512(a, b)
#define KXOR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0x96)
#define KROL(a, n) _mm512_rol_epi64(a, n)
#define KCHI(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xD2)
#define KTHETA_D(l, r) _mm512_xor_si512(l, _mm512_rol_epi64(r, 1))
#define KIOTA(a, i) _mm512_xor_si512(a, _mm512_set1_epi64((long long)gs_keccak_rc[i]))
#include "hash/keccak_round.h"

#define S_LOAD_(i) s[i]
#define S_STORE_(i, v) s[i] = (v)

ATTR static void keccak_x8(__m512i s[25]) {
    KECCAK_LANES(__m512i, A);
    KECCAK_LANES(__m512i, E);
    KECCAK_LOAD_LANES(A, S_LOAD_);
    KECCAK_PERMUTE(A, E);
    KECCAK_STORE_LANES(A, S_STORE_);
}

/* s[j + i] ^= lane i of each message (i = 0..7): eight 64-byte rows, one per message, turned
 * into eight lanes by an 8x8 transpose of 64-bit elements (24 shuffles; a gather of 8 lanes
 * costs several times more). */
ATTR static inline void xor8_transposed(__m512i *s, const uint8_t *p, const long long off[8]) {
    __m512i r0 = _mm512_loadu_si512(p + off[0]), r1 = _mm512_loadu_si512(p + off[1]);
    __m512i r2 = _mm512_loadu_si512(p + off[2]), r3 = _mm512_loadu_si512(p + off[3]);
    __m512i r4 = _mm512_loadu_si512(p + off[4]), r5 = _mm512_loadu_si512(p + off[5]);
    __m512i r6 = _mm512_loadu_si512(p + off[6]), r7 = _mm512_loadu_si512(p + off[7]);
    /* t: pairs of rows interleaved, (rA[e], rB[e]) for even e (lo) or odd e (hi) */
    __m512i t0 = _mm512_unpacklo_epi64(r0, r1), t1 = _mm512_unpackhi_epi64(r0, r1);
    __m512i t2 = _mm512_unpacklo_epi64(r2, r3), t3 = _mm512_unpackhi_epi64(r2, r3);
    __m512i t4 = _mm512_unpacklo_epi64(r4, r5), t5 = _mm512_unpackhi_epi64(r4, r5);
    __m512i t6 = _mm512_unpacklo_epi64(r6, r7), t7 = _mm512_unpackhi_epi64(r6, r7);
    /* 128-bit chunks: 0x88 takes chunks 0 and 2 of each source, 0xDD chunks 1 and 3 */
    __m512i v0 = _mm512_shuffle_i64x2(t0, t2, 0x88), v2 = _mm512_shuffle_i64x2(t0, t2, 0xDD);
    __m512i v1 = _mm512_shuffle_i64x2(t1, t3, 0x88), v3 = _mm512_shuffle_i64x2(t1, t3, 0xDD);
    __m512i w0 = _mm512_shuffle_i64x2(t4, t6, 0x88), w2 = _mm512_shuffle_i64x2(t4, t6, 0xDD);
    __m512i w1 = _mm512_shuffle_i64x2(t5, t7, 0x88), w3 = _mm512_shuffle_i64x2(t5, t7, 0xDD);
    s[0] = _mm512_xor_si512(s[0], _mm512_shuffle_i64x2(v0, w0, 0x88));
    s[4] = _mm512_xor_si512(s[4], _mm512_shuffle_i64x2(v0, w0, 0xDD));
    s[2] = _mm512_xor_si512(s[2], _mm512_shuffle_i64x2(v2, w2, 0x88));
    s[6] = _mm512_xor_si512(s[6], _mm512_shuffle_i64x2(v2, w2, 0xDD));
    s[1] = _mm512_xor_si512(s[1], _mm512_shuffle_i64x2(v1, w1, 0x88));
    s[5] = _mm512_xor_si512(s[5], _mm512_shuffle_i64x2(v1, w1, 0xDD));
    s[3] = _mm512_xor_si512(s[3], _mm512_shuffle_i64x2(v3, w3, 0x88));
    s[7] = _mm512_xor_si512(s[7], _mm512_shuffle_i64x2(v3, w3, 0xDD));
}

/* s[i] ^= lane i of each message for i < nlanes, the lanes starting at p + off[k]. */
ATTR static inline void xor_lanes(__m512i *s, const uint8_t *p, const long long off[8],
                                  __m512i idx, size_t nlanes) {
    size_t i = 0;
    for (; i + 8 <= nlanes; i += 8) xor8_transposed(s + i, p + 8 * i, off);
    for (; i < nlanes; i++)
        s[i] = _mm512_xor_si512(s[i], _mm512_i64gather_epi64(idx, p + 8 * i, 1));
}

/* Messages k = 0..count-1 (1 <= count <= 8) at in + k * stride; lanes past count repeat the
 * last message and their digests are dropped. */
ATTR static void hash_x8(gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                         unsigned count) {
    long long off[8];
    for (unsigned k = 0; k < 8; k++) off[k] = (long long)((k < count ? k : count - 1) * stride);
    const __m512i idx = _mm512_loadu_si512(off);
    __m512i s[25];
    for (int i = 0; i < 25; i++) s[i] = _mm512_setzero_si512();

    const uint8_t *p = in;
    size_t left = len;
    for (; left >= GS_KECCAK256_RATE; left -= GS_KECCAK256_RATE, p += GS_KECCAK256_RATE) {
        xor_lanes(s, p, off, idx, GS_KECCAK256_RATE / 8);
        keccak_x8(s);
    }
    size_t lanes = left / 8, tail = left % 8;
    xor_lanes(s, p, off, idx, lanes);
    if (tail) {
        uint64_t part[8];
        for (unsigned k = 0; k < 8; k++)
            part[k] = gs_load_le_partial(p + (size_t)off[k] + 8 * lanes, tail);
        s[lanes] = _mm512_xor_si512(s[lanes], _mm512_loadu_si512(part));
    }
    s[lanes] = _mm512_xor_si512(s[lanes], _mm512_set1_epi64((long long)(0x01ull << (8 * tail))));
    s[16] = _mm512_xor_si512(s[16], _mm512_set1_epi64((long long)(0x80ull << 56)));
    keccak_x8(s);

    uint64_t d[4][8];
    for (int w = 0; w < 4; w++) _mm512_storeu_si512(d[w], s[w]);
    for (unsigned k = 0; k < count; k++)
        for (int w = 0; w < 4; w++) gs_store_le64(out[k].b + 8 * w, d[w][k]);
}

/* Fewer than this many messages left over go through the scalar path. */
#define X8_MIN_TAIL 2

ATTR void gs_keccak256_many_avx512(gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                                   size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) hash_x8(out + i, in + i * stride, len, stride, 8);
    if (n - i >= X8_MIN_TAIL)
        hash_x8(out + i, in + i * stride, len, stride, (unsigned)(n - i));
    else
        for (; i < n; i++) gs_keccak256(out[i].b, in + i * stride, len);
}

#endif
