/* The transcript's hash chain: init, absorb, squeeze, fork. The encoding is
 * specified in include/gstark/transcript.h and docs/protocol.md; every
 * message starts with the 32-byte state and a tag byte, and every variable
 * part carries its length, so no two operations hash the same bytes.
 *
 * Squeezing reads a stream of 32-byte blocks (4 words each) keyed by the
 * state, the kind and the label; the hasher state after the common prefix
 * is computed once and copied for each block. */
#include <stdlib.h>

#include "transcript/transcript_internal.h"

static size_t label_len(const char *label) { return label ? strlen(label) : 0; }

void gs_tr_absorb_begin(gs_hasher *h, const gs_transcript *t, uint8_t tag, const char *label,
                        uint64_t len) {
    uint8_t hdr[GS_DIGEST_BYTES + 1 + 8];
    size_t ll = label_len(label);
    memcpy(hdr, t->state.b, GS_DIGEST_BYTES);
    hdr[GS_DIGEST_BYTES] = tag;
    gs_tr_le64(hdr + GS_DIGEST_BYTES + 1, ll);
    gs_hasher_init(h, t->id);
    gs_hasher_update(h, hdr, sizeof hdr);
    if (ll) gs_hasher_update(h, label, ll);
    uint8_t l8[8];
    gs_tr_le64(l8, len);
    gs_hasher_update(h, l8, 8);
}

void gs_transcript_init(gs_transcript *t, gs_hash_id id, const char *domain) {
    static const char prefix[] = GS_TRANSCRIPT_INIT_PREFIX;
    size_t dl = label_len(domain);
    uint8_t l8[8];
    gs_hasher h;
    gs_tr_le64(l8, dl);
    t->id = id;
    gs_hasher_init(&h, id);
    gs_hasher_update(&h, prefix, sizeof prefix - 1);
    gs_hasher_update(&h, l8, 8);
    if (dl) gs_hasher_update(&h, domain, dl);
    gs_hasher_final(&h, &t->state);
}

static void absorb_raw(gs_transcript *t, uint8_t tag, const char *label, const void *data,
                       size_t len) {
    gs_hasher h;
    gs_tr_absorb_begin(&h, t, tag, label, len);
    if (len) gs_hasher_update(&h, data, len);
    gs_hasher_final(&h, &t->state);
}

void gs_transcript_absorb_bytes(gs_transcript *t, const char *label, const void *data, size_t len) {
    absorb_raw(t, GS_TT_BYTES, label, data, len);
}

void gs_transcript_absorb_u64(gs_transcript *t, const char *label, uint64_t v) {
    uint8_t b[8];
    gs_tr_le64(b, v);
    absorb_raw(t, GS_TT_U64, label, b, 8);
}

/* Field values as 8-byte little-endian limbs, converted a chunk at a time
 * (n elements of `limbs` limbs each; limbs is 1 for Fp, 3 for Fp3). */
static void absorb_limbs(gs_transcript *t, uint8_t tag, const char *label, const gs_fp *fp,
                         const gs_fp3 *fp3, size_t n) {
    enum { CHUNK = 63 }; /* limbs per update, a multiple of 3 */
    uint8_t buf[CHUNK * 8];
    size_t limbs = fp3 ? 3 : 1, total = n * limbs, k = 0;
    gs_hasher h;
    gs_tr_absorb_begin(&h, t, tag, label, (uint64_t)total * 8);
    for (size_t i = 0; i < total; i++) {
        gs_fp v = fp3 ? fp3[i / 3].c[i % 3] : fp[i];
        gs_tr_le64(buf + 8 * k++, v);
        if (k == CHUNK || i + 1 == total) {
            gs_hasher_update(&h, buf, 8 * k);
            k = 0;
        }
    }
    gs_hasher_final(&h, &t->state);
}

void gs_transcript_absorb_fp(gs_transcript *t, const char *label, const gs_fp *v, size_t n) {
    absorb_limbs(t, GS_TT_FP, label, v, NULL, n);
}

void gs_transcript_absorb_fp3(gs_transcript *t, const char *label, const gs_fp3 *v, size_t n) {
    absorb_limbs(t, GS_TT_FP3, label, NULL, v, n);
}

void gs_transcript_absorb_digest(gs_transcript *t, const char *label, const gs_digest *d) {
    absorb_raw(t, GS_TT_DIGEST, label, d->b, GS_DIGEST_BYTES);
}

void gs_transcript_fork(gs_transcript *child, const gs_transcript *parent, uint64_t index) {
    gs_transcript c = *parent;
    uint8_t b[8];
    gs_tr_le64(b, index);
    absorb_raw(&c, GS_TT_FORK, NULL, b, 8);
    *child = c;
}

/* ---- squeezing ---- */

typedef struct {
    gs_hasher prefix; /* after S || kind || u64le(|label|) || label */
    uint8_t kind;
    const char *label;
    uint64_t block;    /* index of the next block to hash */
    uint64_t used;     /* words consumed (W) */
    uint8_t buf[GS_DIGEST_BYTES];
    unsigned pos;      /* next unread word of buf, 4 = empty */
} stream;

static void stream_init(stream *s, const gs_transcript *t, uint8_t kind, const char *label) {
    uint8_t hdr[GS_DIGEST_BYTES + 1 + 8];
    size_t ll = label_len(label);
    memcpy(hdr, t->state.b, GS_DIGEST_BYTES);
    hdr[GS_DIGEST_BYTES] = kind;
    gs_tr_le64(hdr + GS_DIGEST_BYTES + 1, ll);
    gs_hasher_init(&s->prefix, t->id);
    gs_hasher_update(&s->prefix, hdr, sizeof hdr);
    if (ll) gs_hasher_update(&s->prefix, label, ll);
    s->kind = kind;
    s->label = label;
    s->block = 0;
    s->used = 0;
    s->pos = 4;
}

static uint64_t stream_word(stream *s) {
    if (s->pos == 4) {
        gs_hasher h = s->prefix;
        uint8_t k8[8];
        gs_digest d;
        gs_tr_le64(k8, s->block++);
        gs_hasher_update(&h, k8, 8);
        gs_hasher_final(&h, &d);
        memcpy(s->buf, d.b, GS_DIGEST_BYTES);
        s->pos = 0;
    }
    s->used++;
    return gs_tr_load_le64(s->buf + 8 * s->pos++);
}

static gs_fp stream_fp(stream *s) {
    for (;;) {
        uint64_t w = stream_word(s);
        if (w < GS_FP_P) return w;
    }
}

/* S = H(S || 0x20 || kind || u64le(|label|) || label || u64le(W)). */
static void stream_ratchet(gs_transcript *t, const stream *s) {
    uint8_t hdr[GS_DIGEST_BYTES + 2 + 8];
    size_t ll = label_len(s->label);
    memcpy(hdr, t->state.b, GS_DIGEST_BYTES);
    hdr[GS_DIGEST_BYTES] = GS_TT_RATCHET;
    hdr[GS_DIGEST_BYTES + 1] = s->kind;
    gs_tr_le64(hdr + GS_DIGEST_BYTES + 2, ll);
    gs_hasher h;
    gs_hasher_init(&h, t->id);
    gs_hasher_update(&h, hdr, sizeof hdr);
    if (ll) gs_hasher_update(&h, s->label, ll);
    uint8_t w8[8];
    gs_tr_le64(w8, s->used);
    gs_hasher_update(&h, w8, 8);
    gs_hasher_final(&h, &t->state);
}

gs_fp gs_transcript_squeeze_fp(gs_transcript *t, const char *label) {
    stream s;
    stream_init(&s, t, GS_TT_SQUEEZE_FP, label);
    gs_fp v = stream_fp(&s);
    stream_ratchet(t, &s);
    return v;
}

gs_fp3 gs_transcript_squeeze_fp3(gs_transcript *t, const char *label) {
    stream s;
    stream_init(&s, t, GS_TT_SQUEEZE_FP3, label);
    gs_fp c0 = stream_fp(&s);
    gs_fp c1 = stream_fp(&s);
    gs_fp c2 = stream_fp(&s);
    stream_ratchet(t, &s);
    return gs_fp3_make(c0, c1, c2);
}

/* The set of indices drawn so far: a bitmap over the domain when that is
 * small next to count, else an open-addressing table of value + 1 (0 marks
 * an empty slot) at most half full. */
typedef struct {
    uint64_t *w;
    uint64_t mask;   /* table slots - 1 (table mode) */
    unsigned shift;  /* 64 - log2(slots) (table mode) */
    int bitmap;
} seen_set;

static gs_status seen_init(seen_set *s, size_t count, unsigned log_domain) {
    uint64_t domain = (uint64_t)1 << log_domain;
    uint64_t bitmap_bytes = domain / 8 + 8;
    s->bitmap = bitmap_bytes <= 4096 || bitmap_bytes / 16 <= (uint64_t)count;
    uint64_t words;
    if (s->bitmap) {
        words = (domain + 63) / 64;
    } else {
        unsigned lg = 4;
        while (lg < 63 && ((uint64_t)1 << lg) < 2 * (uint64_t)count) lg++;
        if (lg >= 60) return GS_ERR_NOMEM;
        words = (uint64_t)1 << lg;
        s->mask = words - 1;
        s->shift = 64 - lg;
    }
    if (words > SIZE_MAX / sizeof(uint64_t)) return GS_ERR_NOMEM;
    s->w = calloc((size_t)words, sizeof(uint64_t));
    return s->w ? GS_OK : GS_ERR_NOMEM;
}

/* 1 if v was not in the set (and adds it), else 0. */
static int seen_add(seen_set *s, uint64_t v) {
    if (s->bitmap) {
        uint64_t bit = (uint64_t)1 << (v & 63);
        if (s->w[v >> 6] & bit) return 0;
        s->w[v >> 6] |= bit;
        return 1;
    }
    uint64_t i = (v * 0x9E3779B97F4A7C15ull) >> s->shift;
    for (;; i = (i + 1) & s->mask) {
        if (s->w[i] == 0) {
            s->w[i] = v + 1;
            return 1;
        }
        if (s->w[i] == v + 1) return 0;
    }
}

gs_status gs_transcript_squeeze_indices(gs_transcript *t, const char *label, size_t *out,
                                        size_t count, unsigned log_domain) {
    if (log_domain > 63 || (count && !out)) return GS_ERR_INVALID_ARG;
    uint64_t mask = ((uint64_t)1 << log_domain) - 1;
    if ((uint64_t)count > mask + 1) return GS_ERR_INVALID_ARG;
    if (log_domain >= 8 * sizeof(size_t) && count) return GS_ERR_INVALID_ARG; /* 32-bit hosts */
    seen_set seen = {0};
    if (count) GS_TRY(seen_init(&seen, count, log_domain));
    stream s;
    stream_init(&s, t, GS_TT_SQUEEZE_INDICES, label);
    for (size_t k = 0; k < count;) {
        uint64_t v = stream_word(&s) & mask;
        if (seen_add(&seen, v)) out[k++] = (size_t)v;
    }
    free(seen.w);
    stream_ratchet(t, &s);
    return GS_OK;
}
