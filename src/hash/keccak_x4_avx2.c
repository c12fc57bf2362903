/* Four Keccak-256 messages at once with AVX2: state lane i of message k is 64-bit element k
 * of ymm "lane" i. AVX2 has no 64-bit rotate or three-input logic, so a rotation is two
 * shifts and an OR (a byte shuffle for the rotations by 8 and 56) and chi is vpandn + vpxor.
 * Message lanes come in four at a time as 32-byte rows transposed in registers, single lanes
 * with vpgatherqq; a ragged last lane goes through a small buffer so that no byte past a
 * message's end is read. Compiled for AVX2 per function; called only where the CPU has it
 * (hash.c). */
#include "hash/keccak_internal.h"

#if GS_KECCAK_X86
#include <immintrin.h>

#define ATTR __attribute__((target("avx2")))

/* Rotations by whole bytes as one vpshufb (indices within each 64-bit element). */
#define ROL8_SHUF_ \
    _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14, 7, 0, 1, 2, 3, 4, 5, 6, \
                     15, 8, 9, 10, 11, 12, 13, 14)
#define ROL56_SHUF_ \
    _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7, 0, \
                     9, 10, 11, 12, 13, 14, 15, 8)

#define KT __m256i
#define KXOR(a, b) _mm256_xor_si256(a, b)
#define KXOR3(a, b, c) _mm256_xor_si256(_mm256_xor_si256(a, b), c)
#define KROL(a, n)                                                             \
    ((n) == 8    ? _mm256_shuffle_epi8(a, ROL8_SHUF_)                          \
     : (n) == 56 ? _mm256_shuffle_epi8(a, ROL56_SHUF_)                         \
                 : _mm256_or_si256(_mm256_slli_epi64(a, (n) & 63),             \
                                   _mm256_srli_epi64(a, (64 - (n)) & 63)))
#define KCHI(a, b, c) _mm256_xor_si256(a, _mm256_andnot_si256(b, c))
#define KTHETA_D(l, r) _mm256_xor_si256(l, KROL(r, 1))
#define KIOTA(a, i) _mm256_xor_si256(a, _mm256_set1_epi64x((long long)gs_keccak_rc[i]))
#include "hash/keccak_round.h"

#define S_LOAD_(i) s[i]
#define S_STORE_(i, v) s[i] = (v)

ATTR static void keccak_x4(__m256i s[25]) {
    KECCAK_LANES(__m256i, A);
    KECCAK_LANES(__m256i, E);
    KECCAK_LOAD_LANES(A, S_LOAD_);
    KECCAK_PERMUTE(A, E);
    KECCAK_STORE_LANES(A, S_STORE_);
}

#define GATHER_(p) _mm256_i64gather_epi64((const long long *)(const void *)(p), idx, 1)
#define LOADU_(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))

/* s[j + i] ^= lane i of each message (i = 0..3): four 32-byte rows, one per message, turned
 * into four lanes by a 4x4 transpose of 64-bit elements. */
ATTR static inline void xor4_transposed(__m256i *s, const uint8_t *p, const long long off[4]) {
    __m256i r0 = LOADU_(p + off[0]), r1 = LOADU_(p + off[1]);
    __m256i r2 = LOADU_(p + off[2]), r3 = LOADU_(p + off[3]);
    __m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
    __m256i t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
    s[0] = _mm256_xor_si256(s[0], _mm256_permute2x128_si256(t0, t2, 0x20));
    s[2] = _mm256_xor_si256(s[2], _mm256_permute2x128_si256(t0, t2, 0x31));
    s[1] = _mm256_xor_si256(s[1], _mm256_permute2x128_si256(t1, t3, 0x20));
    s[3] = _mm256_xor_si256(s[3], _mm256_permute2x128_si256(t1, t3, 0x31));
}

/* s[i] ^= lane i of each message for i < nlanes, the lanes starting at p + off[k]. */
ATTR static inline void xor_lanes(__m256i *s, const uint8_t *p, const long long off[4],
                                  __m256i idx, size_t nlanes) {
    size_t i = 0;
    for (; i + 4 <= nlanes; i += 4) xor4_transposed(s + i, p + 8 * i, off);
    for (; i < nlanes; i++) s[i] = _mm256_xor_si256(s[i], GATHER_(p + 8 * i));
}

/* Messages k = 0..count-1 (1 <= count <= 4) at in + k * stride; lanes past count repeat the
 * last message and their digests are dropped. */
ATTR static void hash_x4(gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                         unsigned count) {
    long long off[4];
    for (unsigned k = 0; k < 4; k++) off[k] = (long long)((k < count ? k : count - 1) * stride);
    const __m256i idx = LOADU_(off);
    __m256i s[25];
    for (int i = 0; i < 25; i++) s[i] = _mm256_setzero_si256();

    const uint8_t *p = in;
    size_t left = len;
    for (; left >= GS_KECCAK256_RATE; left -= GS_KECCAK256_RATE, p += GS_KECCAK256_RATE) {
        xor_lanes(s, p, off, idx, GS_KECCAK256_RATE / 8);
        keccak_x4(s);
    }
    size_t lanes = left / 8, tail = left % 8;
    xor_lanes(s, p, off, idx, lanes);
    if (tail) {
        uint64_t part[4];
        for (unsigned k = 0; k < 4; k++)
            part[k] = gs_load_le_partial(p + (size_t)off[k] + 8 * lanes, tail);
        s[lanes] = _mm256_xor_si256(s[lanes], LOADU_(part));
    }
    s[lanes] = _mm256_xor_si256(s[lanes], _mm256_set1_epi64x((long long)(0x01ull << (8 * tail))));
    s[16] = _mm256_xor_si256(s[16], _mm256_set1_epi64x((long long)(0x80ull << 56)));
    keccak_x4(s);

    uint64_t d[4][4];
    for (int w = 0; w < 4; w++) _mm256_storeu_si256((__m256i *)(void *)d[w], s[w]);
    for (unsigned k = 0; k < count; k++)
        for (int w = 0; w < 4; w++) gs_store_le64(out[k].b + 8 * w, d[w][k]);
}

/* Fewer than this many messages left over go through the scalar path. */
#define X4_MIN_TAIL 2

ATTR void gs_keccak256_many_avx2(gs_digest *out, const uint8_t *in, size_t len, size_t stride,
                                 size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) hash_x4(out + i, in + i * stride, len, stride, 4);
    if (n - i >= X4_MIN_TAIL)
        hash_x4(out + i, in + i * stride, len, stride, (unsigned)(n - i));
    else
        for (; i < n; i++) gs_keccak256(out[i].b, in + i * stride, len);
}

#endif
