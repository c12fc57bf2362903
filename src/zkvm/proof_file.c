/* A run's proof file (docs/zkvm.md, "Proof files"): the magic, the input and
 * the two outputs, then the multi-table proof. */
#include <stdlib.h>
#include <string.h>

#include "gstark/zkvm.h"

static const char magic[8] = {'G', 'S', 'Z', 'K', 'V', 'M', '0', '1'};

static void put_u64(uint8_t *p, uint64_t v) {
    for (unsigned i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

gs_status gs_zkvm_proof_serialize(uint8_t **out, size_t *len, const gs_zkvm_proof *zp) {
    if (!out || !len || !zp || !zp->proof) return GS_ERR_INVALID_ARG;
    *out = NULL, *len = 0;
    uint8_t *mp = NULL;
    size_t mlen = 0;
    GS_TRY(gs_multi_proof_serialize(&mp, &mlen, zp->proof));
    const uint8_t *part[3] = {zp->input, zp->out[0], zp->out[1]};
    uint64_t plen[3] = {zp->in_len, zp->out_len[0], zp->out_len[1]};
    size_t total = sizeof magic + mlen;
    for (unsigned i = 0; i < 3; i++) total += 8 + (size_t)plen[i];
    uint8_t *b = malloc(total), *w = b;
    if (!b) {
        free(mp);
        return GS_ERR_NOMEM;
    }
    memcpy(w, magic, sizeof magic), w += sizeof magic;
    for (unsigned i = 0; i < 3; i++) {
        put_u64(w, plen[i]), w += 8;
        if (plen[i]) memcpy(w, part[i], (size_t)plen[i]), w += plen[i];
    }
    memcpy(w, mp, mlen);
    free(mp);
    *out = b, *len = total;
    return GS_OK;
}

gs_status gs_zkvm_proof_parse(gs_zkvm_proof **out, const uint8_t *buf, size_t len) {
    if (!out || (!buf && len)) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (len < sizeof magic || memcmp(buf, magic, sizeof magic)) return GS_ERR_PROOF_FORMAT;
    gs_zkvm_proof *zp = calloc(1, sizeof *zp);
    if (!zp) return GS_ERR_NOMEM;
    size_t at = sizeof magic;
    uint8_t **part[3] = {&zp->input, &zp->out[0], &zp->out[1]};
    uint64_t *plen[3] = {&zp->in_len, &zp->out_len[0], &zp->out_len[1]};
    gs_status s = GS_OK;
    for (unsigned i = 0; i < 3 && s == GS_OK; i++) {
        if (len - at < 8) {
            s = GS_ERR_PROOF_FORMAT;
            break;
        }
        uint64_t n = get_u64(buf + at);
        at += 8;
        if (n > GS_ZKVM_MAX_INPUT || n > len - at) {
            s = GS_ERR_PROOF_FORMAT;
            break;
        }
        *plen[i] = n;
        *part[i] = malloc(n ? (size_t)n : 1);
        if (!*part[i]) {
            s = GS_ERR_NOMEM;
            break;
        }
        if (n) memcpy(*part[i], buf + at, (size_t)n);
        at += (size_t)n;
    }
    if (s == GS_OK) s = gs_multi_proof_parse(&zp->proof, buf + at, len - at);
    if (s != GS_OK) {
        gs_zkvm_proof_free(zp);
        return s;
    }
    *out = zp;
    return GS_OK;
}
