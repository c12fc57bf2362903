/* Proof of work (grinding). The pow hash of a nonce is
 * H(S || 0x30 || u8 bits || u64le(nonce)), 42 bytes: one permutation.
 *
 * grind finds the smallest valid nonce. Nonces are searched in rounds of
 * consecutive nonces (1 Ki first, doubling up to 256 Ki per round, so small
 * targets stay cheap and large ones amortise the thread starts). Each round
 * is split into blocks of BLOCK nonces hashed with one gs_hash_many call;
 * gs_parallel_for gives every thread a contiguous run of blocks, which it
 * scans in increasing order until its first valid nonce, or until it passes
 * the best nonce another thread has already found (those cannot win). The
 * round's answer is the minimum found; the first round with one ends the
 * search. Every nonce below the answer has been hashed and rejected, so the
 * answer is the global minimum, whatever the thread count. */
#include <stdatomic.h>

#include "gstark/parallel.h"
#include "transcript/transcript_internal.h"

#define BLOCK 64u           /* nonces per gs_hash_many call */
#define MSG_BYTES 42u       /* S || tag || bits || nonce */
#define MSG_STRIDE 48u
#define FIRST_ROUND 1024u   /* nonces */
#define MAX_ROUND (256u * 1024u)
#define GRAIN_BLOCKS 8u     /* blocks per thread at least */

static void pow_prefix(uint8_t *msg, const gs_transcript *t, unsigned bits) {
    memcpy(msg, t->state.b, GS_DIGEST_BYTES);
    msg[GS_DIGEST_BYTES] = GS_TT_POW_HASH;
    msg[GS_DIGEST_BYTES + 1] = (uint8_t)bits;
}

/* The first `bits` bits of d, most significant bit of byte 0 first, are 0. */
static int leading_zeros_ok(const gs_digest *d, unsigned bits) {
    uint64_t top = 0;
    for (int i = 0; i < 8; i++) top = (top << 8) | d->b[i];
    return bits == 0 || (top >> (64 - bits)) == 0;
}

int gs_transcript_pow_valid(const gs_transcript *t, unsigned bits, uint64_t nonce) {
    if (bits > 64) return 0;
    uint8_t msg[MSG_BYTES];
    gs_digest d;
    pow_prefix(msg, t, bits);
    gs_tr_le64(msg + GS_DIGEST_BYTES + 2, nonce);
    gs_hash(t->id, &d, msg, sizeof msg);
    return leading_zeros_ok(&d, bits);
}

static void absorb_nonce(gs_transcript *t, unsigned bits, uint64_t nonce) {
    uint8_t data[9];
    gs_hasher h;
    data[0] = (uint8_t)bits;
    gs_tr_le64(data + 1, nonce);
    gs_tr_absorb_begin(&h, t, GS_TT_POW_NONCE, NULL, sizeof data);
    gs_hasher_update(&h, data, sizeof data);
    gs_hasher_final(&h, &t->state);
}

gs_status gs_transcript_check_pow(gs_transcript *t, unsigned bits, uint64_t nonce) {
    if (bits > 64) return GS_ERR_INVALID_ARG;
    if (!gs_transcript_pow_valid(t, bits, nonce)) return GS_ERR_POW;
    absorb_nonce(t, bits, nonce);
    return GS_OK;
}

typedef struct {
    const gs_transcript *t;
    unsigned bits;
    uint64_t base, last; /* this round: nonces base..last (inclusive) */
    atomic_uint_fast64_t best;
    atomic_int found;
} grind_ctx;

static void note_found(grind_ctx *c, uint64_t nonce) {
    uint_fast64_t cur = atomic_load_explicit(&c->best, memory_order_relaxed);
    while (nonce < cur &&
           !atomic_compare_exchange_weak_explicit(&c->best, &cur, nonce, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
    atomic_store_explicit(&c->found, 1, memory_order_relaxed);
}

static void grind_blocks(void *p, size_t b, size_t e) {
    grind_ctx *c = p;
    uint8_t msgs[BLOCK * MSG_STRIDE];
    gs_digest out[BLOCK];
    for (unsigned i = 0; i < BLOCK; i++) pow_prefix(msgs + i * MSG_STRIDE, c->t, c->bits);
    for (size_t blk = b; blk < e; blk++) {
        uint64_t start = c->base + (uint64_t)blk * BLOCK;
        if (atomic_load_explicit(&c->found, memory_order_relaxed) &&
            start > atomic_load_explicit(&c->best, memory_order_relaxed))
            return;
        uint64_t left = c->last - start; /* nonces after start in this round */
        unsigned n = left < BLOCK ? (unsigned)left + 1 : BLOCK;
        for (unsigned i = 0; i < n; i++)
            gs_tr_le64(msgs + i * MSG_STRIDE + GS_DIGEST_BYTES + 2, start + i);
        gs_hash_many(c->t->id, out, msgs, MSG_BYTES, MSG_STRIDE, n);
        for (unsigned i = 0; i < n; i++)
            if (leading_zeros_ok(&out[i], c->bits)) {
                note_found(c, start + i);
                return; /* the rest of this range is larger */
            }
    }
}

gs_status gs_transcript_grind(gs_transcript *t, unsigned bits, uint64_t *nonce) {
    if (bits > 64 || !nonce) return GS_ERR_INVALID_ARG;
    if (bits == 0) {
        *nonce = 0;
        absorb_nonce(t, bits, 0);
        return GS_OK;
    }
    grind_ctx c = {.t = t, .bits = bits};
    atomic_init(&c.best, UINT64_MAX);
    atomic_init(&c.found, 0);
    uint64_t round = FIRST_ROUND, base = 0;
    for (;;) {
        c.base = base;
        c.last = UINT64_MAX - base < round - 1 ? UINT64_MAX : base + (round - 1);
        uint64_t span = c.last - base; /* nonces in the round - 1 */
        size_t blocks = (size_t)(span / BLOCK) + 1;
        gs_parallel_for(blocks, GRAIN_BLOCKS, grind_blocks, &c);
        if (atomic_load(&c.found)) break;
        if (c.last == UINT64_MAX) return GS_ERR_EXHAUSTED;
        base = c.last + 1;
        if (round < MAX_ROUND) round *= 2;
    }
    *nonce = (uint64_t)atomic_load(&c.best);
    absorb_nonce(t, bits, *nonce);
    return GS_OK;
}
