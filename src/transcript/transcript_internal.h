/* Internals shared by the transcript sources: the tag bytes of the encoding
 * (include/gstark/transcript.h, docs/protocol.md) and the absorb framing. */
#ifndef GS_TRANSCRIPT_INTERNAL_H
#define GS_TRANSCRIPT_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "gstark/transcript.h"

enum {
    GS_TT_BYTES = 0x01,
    GS_TT_U64 = 0x02,
    GS_TT_FP = 0x03,
    GS_TT_FP3 = 0x04,
    GS_TT_DIGEST = 0x05,
    GS_TT_FORK = 0x06,
    GS_TT_POW_NONCE = 0x07,
    GS_TT_SQUEEZE_FP = 0x10,
    GS_TT_SQUEEZE_FP3 = 0x11,
    GS_TT_SQUEEZE_INDICES = 0x12,
    GS_TT_RATCHET = 0x20,
    GS_TT_POW_HASH = 0x30
};

#define GS_TRANSCRIPT_INIT_PREFIX "gstark-transcript"

static inline void gs_tr_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t gs_tr_load_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* h = H(S || tag || u64le(|label|) || label || u64le(len) ... (data follows). */
void gs_tr_absorb_begin(gs_hasher *h, const gs_transcript *t, uint8_t tag, const char *label,
                        uint64_t len);

#endif
