/* Batched Merkle openings (multipath.h gives the node order). */
#include "merkle/multipath.h"

#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t gs_mpath_unique(size_t *uniq, const size_t *idx, size_t n) {
    if (!n) return 0;
    memcpy(uniq, idx, n * sizeof *uniq);
    qsort(uniq, n, sizeof *uniq, cmp_size);
    size_t m = 1;
    for (size_t j = 1; j < n; j++)
        if (uniq[j] != uniq[m - 1]) uniq[m++] = uniq[j];
    return m;
}

/* Whether the sibling of node v = uniq[j] >> l (j the first of its group at
 * level l) is itself a node of level l. */
static int sibling_known(const size_t *uniq, size_t nu, size_t j, unsigned l) {
    size_t v = uniq[j] >> l;
    if (v & 1) return j && (uniq[j - 1] >> l) == (v ^ 1);
    size_t k = j + 1;
    while (k < nu && (uniq[k] >> l) == v) k++;
    return k < nu && (uniq[k] >> l) == (v ^ 1);
}

/* Whether uniq[j] starts a new node at level l. */
static int first_of_node(const size_t *uniq, size_t j, unsigned l) {
    return j == 0 || (uniq[j - 1] >> l) != (uniq[j] >> l);
}

size_t gs_mpath_count(const size_t *uniq, size_t nu, unsigned depth) {
    size_t count = 0;
    for (unsigned l = 0; l < depth; l++)
        for (size_t j = 0; j < nu; j++)
            if (first_of_node(uniq, j, l) && !sibling_known(uniq, nu, j, l)) count++;
    return count;
}

gs_status gs_mpath_compress(gs_digest *out, const size_t *idx, size_t n, const gs_digest *paths,
                            unsigned depth) {
    size_t *uniq = malloc((n ? n : 1) * sizeof *uniq);
    if (!uniq) return GS_ERR_NOMEM;
    size_t nu = gs_mpath_unique(uniq, idx, n), w = 0;
    gs_status r = GS_OK;
    for (unsigned l = 0; r == GS_OK && l < depth; l++)
        for (size_t j = 0; r == GS_OK && j < nu; j++) {
            if (!first_of_node(uniq, j, l) || sibling_known(uniq, nu, j, l)) continue;
            /* Every path through node v carries the same sibling. */
            size_t v = uniq[j] >> l;
            const gs_digest *d = NULL;
            for (size_t k = 0; k < n; k++) {
                if ((idx[k] >> l) != v) continue;
                const gs_digest *e = &paths[k * depth + l];
                if (!d) d = e;
                else if (memcmp(d, e, sizeof *d) != 0) r = GS_ERR_INVALID_ARG;
            }
            out[w++] = *d;
        }
    free(uniq);
    return r;
}

/* A level's nodes: index and digest, ascending by index. */
typedef struct {
    size_t i;
    gs_digest d;
} node;

static int cmp_node(const void *key, const void *elem) {
    size_t x = *(const size_t *)key, y = ((const node *)elem)->i;
    return (x > y) - (x < y);
}

gs_status gs_mpath_expand(gs_digest *paths, const size_t *idx, size_t n, const size_t *uniq,
                          const gs_digest *leaves, size_t nu, const gs_digest *nodes,
                          unsigned depth, gs_hash_id id) {
    /* cur: the level's known nodes (at most nu); full: with the sent siblings. */
    node *cur = malloc((nu ? nu : 1) * sizeof *cur), *full = malloc((2 * nu + 1) * sizeof *full);
    if (!cur || !full) {
        free(cur), free(full);
        return GS_ERR_NOMEM;
    }
    size_t m = nu;
    for (size_t j = 0; j < nu; j++) cur[j].i = uniq[j], cur[j].d = leaves[j];
    for (unsigned l = 0; l < depth; l++) {
        size_t f = 0;
        for (size_t j = 0; j < m; j++) {
            size_t v = cur[j].i;
            int known = (v & 1) ? j && cur[j - 1].i == (v ^ 1) : j + 1 < m && cur[j + 1].i == (v ^ 1);
            if (!known && (v & 1)) full[f].i = v ^ 1, full[f++].d = *nodes++;
            full[f++] = cur[j];
            if (!known && !(v & 1)) full[f].i = v ^ 1, full[f++].d = *nodes++;
        }
        for (size_t k = 0; k < n; k++) {
            size_t sib = (idx[k] >> l) ^ 1;
            const node *e = bsearch(&sib, full, f, sizeof *full, cmp_node);
            paths[k * depth + l] = e->d; /* present: every path's node is in cur */
        }
        for (size_t j = 0; j < f; j += 2) {
            cur[j / 2].i = full[j].i >> 1;
            gs_hash_pair(id, &cur[j / 2].d, &full[j].d, &full[j + 1].d);
        }
        m = f / 2;
    }
    free(cur), free(full);
    return GS_OK;
}
