/* The join tree of a manifest and the id index (docs/batch.md, "Joins").
 *
 * Given joins may name children defined later in the list; they are checked
 * (unknown child, a child used twice, a cycle, several roots, a claim under
 * no join) and put in topological order by Kahn's algorithm, taking the
 * earliest listed ready join first, so a list already in order keeps it.
 * Without joins, the default balanced binary tree is made in post-order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/manifest_internal.h"

/* ---- the id index: open addressing over (id, node) ---- */

typedef struct {
    const char *id; /* NULL: empty */
    uint32_t node;
} slot;

struct gs_manifest_index {
    size_t mask;
    slot *slots;
};

static uint64_t hash_id(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static gs_manifest_index *index_new(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    gs_manifest_index *ix = malloc(sizeof *ix);
    if (!ix) return NULL;
    ix->mask = cap - 1;
    ix->slots = calloc(cap, sizeof *ix->slots);
    if (!ix->slots) {
        free(ix);
        return NULL;
    }
    return ix;
}

void gs_manifest_index_free(gs_manifest_index *ix) {
    if (!ix) return;
    free(ix->slots);
    free(ix);
}

static uint32_t index_get(const gs_manifest_index *ix, const char *id) {
    for (size_t i = hash_id(id) & ix->mask;; i = (i + 1) & ix->mask) {
        if (!ix->slots[i].id) return GS_MANIFEST_NONE;
        if (!strcmp(ix->slots[i].id, id)) return ix->slots[i].node;
    }
}

/* Inserts (id, node); returns the node already holding id, or NONE. */
static uint32_t index_put(gs_manifest_index *ix, const char *id, uint32_t node) {
    size_t i = hash_id(id) & ix->mask;
    for (; ix->slots[i].id; i = (i + 1) & ix->mask)
        if (!strcmp(ix->slots[i].id, id)) return ix->slots[i].node;
    ix->slots[i].id = id;
    ix->slots[i].node = node;
    return GS_MANIFEST_NONE;
}

/* ---- node helpers ---- */

const char *gs_manifest_node_id(const gs_manifest *m, uint32_t node) {
    if (!m) return NULL;
    if (node < m->num_claims) return m->claims[node].id;
    if (node - m->num_claims < m->num_joins) return m->joins[node - m->num_claims].id;
    return NULL;
}

uint32_t gs_manifest_find(const gs_manifest *m, const char *id) {
    if (!m || !id || !m->index) return GS_MANIFEST_NONE;
    return index_get(m->index, id);
}

uint32_t gs_manifest_root(const gs_manifest *m) {
    return m && m->num_joins ? m->num_claims + m->num_joins - 1 : GS_MANIFEST_NONE;
}

static gs_status build_index(gs_manifest *m) {
    gs_manifest_index *ix = index_new((size_t)m->num_claims + m->num_joins);
    if (!ix) return GS_ERR_NOMEM;
    for (uint32_t i = 0; i < m->num_claims + m->num_joins; i++)
        index_put(ix, gs_manifest_node_id(m, i), i); /* unique: checked before */
    m->index = ix;
    return GS_OK;
}

/* ---- the default tree ---- */

typedef struct {
    gs_manifest *m;
    char path[GS_CLAIM_ID_CAP];
} tree;

/* The subtree over claims lo..hi-1 (hi - lo >= 2), its joins appended in
 * post-order; returns its node. */
static uint32_t build(tree *t, uint32_t lo, uint32_t hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2, kids[2];
    size_t len = strlen(t->path);
    for (int side = 0; side < 2; side++) {
        uint32_t a = side ? mid : lo, b = side ? hi : mid;
        snprintf(t->path + len, sizeof t->path - len, "/%d", side);
        kids[side] = b - a == 1 ? a : build(t, a, b);
        t->path[len] = 0;
    }
    gs_join *j = &t->m->joins[t->m->num_joins];
    snprintf(j->id, sizeof j->id, "%s", t->path);
    j->num_children = 2;
    memcpy(j->children, kids, sizeof kids);
    return t->m->num_claims + t->m->num_joins++;
}

static gs_status default_tree(gs_manifest_pc *p, gs_manifest *m, const gs_manifest_index *ix) {
    uint32_t n = m->num_claims, count = n == 1 ? 1 : n - 1;
    if (index_get(ix, "root") != GS_MANIFEST_NONE) {
        snprintf(p->label, sizeof p->label, "claim 'root'");
        return gs_manifest_fail(p, "'root' names the default join tree's root: rename the claim or give 'joins'");
    }
    m->default_joins = 1;
    m->joins = calloc(count, sizeof *m->joins);
    if (!m->joins) return GS_ERR_NOMEM;
    /* One allocation per join keeps gs_manifest_free uniform. */
    for (uint32_t j = 0; j < count; j++) {
        m->joins[j].children = malloc(2 * sizeof(uint32_t));
        if (!m->joins[j].children) {
            for (uint32_t k = 0; k < j; k++) free(m->joins[k].children);
            memset(m->joins, 0, count * sizeof *m->joins);
            return GS_ERR_NOMEM;
        }
    }
    if (n == 1) {
        snprintf(m->joins[0].id, sizeof m->joins[0].id, "root");
        m->joins[0].num_children = 1;
        m->joins[0].children[0] = 0;
        m->num_joins = 1;
        return GS_OK;
    }
    tree t = {.m = m, .path = "root"};
    build(&t, 0, n);
    return GS_OK;
}

/* ---- given joins ---- */

/* A min-heap of join positions (the earliest listed ready join first). */
typedef struct {
    uint32_t *a;
    uint32_t n;
} heap;

static void heap_push(heap *h, uint32_t v) {
    uint32_t i = h->n++;
    for (; i && h->a[(i - 1) / 2] > v; i = (i - 1) / 2) h->a[i] = h->a[(i - 1) / 2];
    h->a[i] = v;
}

static uint32_t heap_pop(heap *h) {
    uint32_t top = h->a[0], v = h->a[--h->n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1] < h->a[c]) c++;
        if (h->a[c] >= v) break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n) h->a[i] = v;
    return top;
}

typedef struct {
    uint32_t *parent;  /* per node: the join position listing it, or NONE */
    uint32_t *pending; /* per join: children that are joins not yet placed */
    uint32_t *order;   /* placed joins, in order */
    uint32_t *pos;     /* per join: its place in order, NONE if unplaced */
    heap h;
} work;

static void work_free(work *w) {
    free(w->parent);
    free(w->pending);
    free(w->order);
    free(w->pos);
    free(w->h.a);
}

/* The manifest's joins: ids, then children by name (forward names allowed). */
static gs_status read_joins(gs_manifest_pc *p, gs_manifest *m, gs_manifest_index *ix,
                            const cJSON *arr, work *w) {
    static const char *const keys[] = {"id", "children", NULL};
    uint32_t nc = m->num_claims, k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        gs_join *j = &m->joins[k];
        snprintf(p->label, sizeof p->label, "joins[%u]", k);
        if (!cJSON_IsObject(it)) return gs_manifest_fail(p, "expected an object, got %s", gs_manifest_type_name(it));
        GS_TRY(gs_manifest_get_id(p, cJSON_GetObjectItemCaseSensitive(it, "id"), "id", j->id));
        snprintf(p->label, sizeof p->label, "join '%s'", j->id);
        GS_TRY(gs_manifest_check_keys(p, it, NULL, keys));
        uint32_t had = index_put(ix, j->id, nc + k);
        if (had != GS_MANIFEST_NONE)
            return gs_manifest_fail(p, "id already used by %s '%s'", had < nc ? "claim" : "another join", j->id);
        m->num_joins = ++k;
    }
    k = 0;
    cJSON_ArrayForEach(it, arr) {
        gs_join *j = &m->joins[k];
        snprintf(p->label, sizeof p->label, "join '%s'", j->id);
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(it, "children");
        if (!ch) return gs_manifest_fail(p, "missing 'children'");
        if (!cJSON_IsArray(ch))
            return gs_manifest_fail(p, "children: expected an array of ids, got %s", gs_manifest_type_name(ch));
        int n = cJSON_GetArraySize(ch);
        if (n < 1 || n > (int)GS_JOIN_MAX_CHILDREN)
            return gs_manifest_fail(p, "children: a join has 1 to %u children (got %d)", GS_JOIN_MAX_CHILDREN, n);
        j->children = malloc((size_t)n * sizeof *j->children);
        if (!j->children) return GS_ERR_NOMEM;
        const cJSON *c;
        cJSON_ArrayForEach(c, ch) {
            char sk[GS_MANIFEST_SAFE];
            if (!cJSON_IsString(c))
                return gs_manifest_fail(p, "children: expected ids (strings), got %s", gs_manifest_type_name(c));
            uint32_t node = index_get(ix, c->valuestring);
            if (node == GS_MANIFEST_NONE)
                return gs_manifest_fail(p, "child '%s' is not a claim or join of the manifest",
                                        gs_manifest_safe(sk, c->valuestring));
            if (node == nc + k) return gs_manifest_fail(p, "lists itself as a child (a cycle)");
            if (w->parent[node] != GS_MANIFEST_NONE)
                return gs_manifest_fail(p, "child '%s' is already a child of join '%s' (each node has one parent)",
                                        c->valuestring, w->parent[node] == k ? j->id : m->joins[w->parent[node]].id);
            w->parent[node] = k;
            if (node >= nc) w->pending[k]++;
            j->children[j->num_children++] = node;
        }
        k++;
    }
    p->label[0] = 0;
    return GS_OK;
}

static gs_status report_cycle(gs_manifest_pc *p, const gs_manifest *m, const work *w) {
    uint32_t nc = m->num_claims, nj = m->num_joins, u = 0;
    while (w->pos[u] != GS_MANIFEST_NONE) u++; /* an unplaced join: it lies on or above a cycle */
    uint32_t *seen = calloc(nj, sizeof *seen), step = 0;
    if (!seen) return GS_ERR_NOMEM;
    while (!seen[u]) { /* down through unplaced join children until one repeats */
        seen[u] = ++step;
        const gs_join *j = &m->joins[u];
        for (uint32_t c = 0; c < j->num_children; c++) {
            uint32_t v = j->children[c];
            if (v >= nc && w->pos[v - nc] == GS_MANIFEST_NONE) {
                u = v - nc;
                break;
            }
        }
    }
    char msg[512] = "";
    uint32_t v = u, shown = 0;
    do {
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "'%s' -> ", m->joins[v].id);
        const gs_join *j = &m->joins[v];
        for (uint32_t c = 0; c < j->num_children; c++) {
            uint32_t x = j->children[c];
            if (x >= nc && seen[x - nc] && w->pos[x - nc] == GS_MANIFEST_NONE) {
                v = x - nc;
                break;
            }
        }
    } while (v != u && ++shown < 8);
    if (v == u) snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "'%s'", m->joins[u].id);
    else snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "...");
    free(seen);
    p->label[0] = 0;
    return gs_manifest_fail(p, "joins: a cycle: %s", msg);
}

static gs_status given_joins(gs_manifest_pc *p, gs_manifest *m, gs_manifest_index *ix,
                             const cJSON *arr) {
    if (!cJSON_IsArray(arr)) return gs_manifest_fail(p, "joins: expected an array, got %s", gs_manifest_type_name(arr));
    size_t nj = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) if (++nj > 2 * (size_t)GS_MANIFEST_MAX_CLAIMS) break;
    if (nj == 0) return gs_manifest_fail(p, "joins: empty (leave 'joins' out for the default tree)");
    if (nj > 2 * (size_t)GS_MANIFEST_MAX_CLAIMS)
        return gs_manifest_fail(p, "joins: more than %u joins", 2 * GS_MANIFEST_MAX_CLAIMS);
    uint32_t nc = m->num_claims, nodes = nc + (uint32_t)nj;
    work w = {.parent = malloc(nodes * sizeof(uint32_t)), .pending = calloc(nj, sizeof(uint32_t)),
              .order = malloc(nj * sizeof(uint32_t)), .pos = malloc(nj * sizeof(uint32_t)),
              .h = {.a = malloc(nj * sizeof(uint32_t))}};
    m->joins = calloc(nj, sizeof *m->joins);
    gs_status s = GS_OK;
    if (!w.parent || !w.pending || !w.order || !w.pos || !w.h.a || !m->joins) s = GS_ERR_NOMEM;
    if (s == GS_OK) {
        memset(w.parent, 0xff, nodes * sizeof(uint32_t));
        memset(w.pos, 0xff, nj * sizeof(uint32_t));
        s = read_joins(p, m, ix, arr, &w);
    }
    uint32_t placed = 0;
    if (s == GS_OK) { /* Kahn: a join is ready once its join children are placed */
        for (uint32_t j = 0; j < nj; j++)
            if (!w.pending[j]) heap_push(&w.h, j);
        while (w.h.n) {
            uint32_t j = heap_pop(&w.h), up = w.parent[nc + j];
            w.pos[j] = placed;
            w.order[placed++] = j;
            if (up != GS_MANIFEST_NONE && --w.pending[up] == 0) heap_push(&w.h, up);
        }
        if (placed < nj) s = report_cycle(p, m, &w);
    }
    for (uint32_t j = 0, root = GS_MANIFEST_NONE; s == GS_OK && j < nj; j++) {
        if (w.parent[nc + j] != GS_MANIFEST_NONE) continue;
        if (root != GS_MANIFEST_NONE)
            s = gs_manifest_fail(p, "joins: '%s' and '%s' are both roots (nobody's child): the joins form one tree",
                                 m->joins[root].id, m->joins[j].id);
        root = j;
    }
    for (uint32_t i = 0; s == GS_OK && i < nc; i++)
        if (w.parent[i] == GS_MANIFEST_NONE) {
            snprintf(p->label, sizeof p->label, "claim '%s'", m->claims[i].id);
            s = gs_manifest_fail(p, "in no join: every claim must be under the root join");
        }
    if (s == GS_OK) { /* permute into topological order; children renumbered */
        gs_join *sorted = malloc(nj * sizeof *sorted);
        if (!sorted) s = GS_ERR_NOMEM;
        for (uint32_t k = 0; s == GS_OK && k < nj; k++) {
            sorted[k] = m->joins[w.order[k]];
            for (uint32_t c = 0; c < sorted[k].num_children; c++) {
                uint32_t v = sorted[k].children[c];
                if (v >= nc) sorted[k].children[c] = nc + w.pos[v - nc];
            }
        }
        if (s == GS_OK) {
            free(m->joins);
            m->joins = sorted;
        }
    }
    work_free(&w);
    return s;
}

gs_status gs_manifest_joins(gs_manifest_pc *p, gs_manifest *m, const cJSON *joins) {
    size_t nj = 0; /* room in the index for the given joins' ids */
    const cJSON *it;
    cJSON_ArrayForEach(it, joins) if (++nj > 2 * (size_t)GS_MANIFEST_MAX_CLAIMS) break;
    gs_manifest_index *ix = index_new((size_t)m->num_claims + nj + 1);
    if (!ix) return GS_ERR_NOMEM;
    gs_status s = GS_OK;
    for (uint32_t i = 0; s == GS_OK && i < m->num_claims; i++) {
        uint32_t had = index_put(ix, m->claims[i].id, i);
        if (had != GS_MANIFEST_NONE) {
            snprintf(p->label, sizeof p->label, "claim '%s'", m->claims[i].id);
            s = gs_manifest_fail(p, "duplicate id (claims[%u] and claims[%u])", had, i);
        }
    }
    if (s == GS_OK) s = joins ? given_joins(p, m, ix, joins) : default_tree(p, m, ix);
    gs_manifest_index_free(ix); /* its join ids point where the joins were before sorting */
    if (s == GS_OK) s = build_index(m);
    return s;
}
