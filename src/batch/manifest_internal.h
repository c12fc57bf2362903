/* What manifest.c (claims) and joins.c (the join tree, the id index) share. */
#ifndef GSTARK_MANIFEST_INTERNAL_H
#define GSTARK_MANIFEST_INTERNAL_H

#include "batch/batch_internal.h"
#include "cJSON.h"

#define GS_MANIFEST_SAFE 72u        /* gs_manifest_safe's buffer */
#define GS_MANIFEST_SYNTH_CACHE 64u /* (preset, shrink) pairs: 3 x 21 exist */

typedef struct {
    char preset[16];
    unsigned shrink, degree, log_n; /* the largest degree and height over the tables */
} gs_manifest_synth_shape;

/* The parse's state: where errors go, what they are prefixed with. */
typedef struct {
    char *err;
    size_t err_len;
    char label[GS_CLAIM_ID_CAP + 16]; /* "claim 'a'", "claims[3]", "join 'j'"; "" for none */
    gs_manifest_synth_shape synth[GS_MANIFEST_SYNTH_CACHE];
    unsigned num_synth;
} gs_manifest_pc;

/* Writes "<label>: <message>" into err; returns GS_ERR_MANIFEST. */
gs_status gs_manifest_fail(gs_manifest_pc *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *gs_manifest_safe(char out[GS_MANIFEST_SAFE], const char *s);
const char *gs_manifest_type_name(const cJSON *it); /* "a string", "an array", ... */
/* Refuses keys of obj outside `allowed` (NULL-terminated) and repeated keys. */
gs_status gs_manifest_check_keys(gs_manifest_pc *p, const cJSON *obj, const char *where,
                                 const char *const *allowed);
/* An id field (it may be NULL: missing), checked, into out. */
gs_status gs_manifest_get_id(gs_manifest_pc *p, const cJSON *it, const char *field,
                             char out[GS_CLAIM_ID_CAP]);

/* The joins of m (its claims parsed): from `joins` (NULL: absent, then the
 * default tree), checked, in topological order, and the id index. */
gs_status gs_manifest_joins(gs_manifest_pc *p, gs_manifest *m, const cJSON *joins);
void gs_manifest_index_free(gs_manifest_index *ix);

#endif
