/* Planning a batch before anything runs (docs/batch.md, "Planning"): every
 * claim's estimate against the largest lane's budget; a claim that does not
 * fit is bisected (gs_claim_split) until every piece fits, the pieces
 * becoming claims under a split join that takes the claim's id; a claim that
 * does not fit and cannot be split is refused with the numbers. A partition
 * file read before (partition.c) is where planning starts: the splits it
 * records are kept, so a rerun proves the same pieces (the same keys) even
 * under another budget, and pieces that still do not fit are cut further. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "batch/run_internal.h"
#include "gstark/size.h"

#define SPLIT_REF 0x80000000u /* a child reference to the split-join list */

typedef struct {
    bp_plan *p;
    const gs_manifest *m;
    const bp_budget *b;
    const bp_partition *part;
    uint32_t cap_nodes;
    bp_node *splits; /* split joins, children before parents */
    uint32_t num_splits, cap_splits;
    char *err;
    size_t err_len;
} planner;

static size_t sat_add(size_t a, size_t b) { return b > SIZE_MAX - a ? SIZE_MAX : a + b; }

static gs_status grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return GS_OK;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need) nc = nc > UINT32_MAX / 2 ? need : nc * 2;
    void *q = realloc(*arr, (size_t)nc * elem);
    if (!q) return GS_ERR_NOMEM;
    *arr = q;
    *cap = nc;
    return GS_OK;
}

static gs_status push_kids(bp_plan *p, const uint32_t *k, uint32_t n, size_t *at) {
    if (p->num_kids + n > p->cap_kids) {
        size_t nc = p->cap_kids ? p->cap_kids : 64;
        while (nc < p->num_kids + n) nc *= 2;
        uint32_t *q = realloc(p->kids, nc * sizeof *q);
        if (!q) return GS_ERR_NOMEM;
        p->kids = q;
        p->cap_kids = nc;
    }
    memcpy(p->kids + p->num_kids, k, n * sizeof *k);
    *at = p->num_kids;
    p->num_kids += n;
    return GS_OK;
}

static const char *kind_name(const gs_claim *c) {
    switch (c->kind) {
    case GS_CLAIM_FIB: return "fib";
    case GS_CLAIM_MIX: return "mix";
    case GS_CLAIM_SYNTH: return "synth";
    default: return c->w.custom.air;
    }
}

/* Sizes the claim into n; 1 if it fits the budget, 0 if not (n->reason
 * says why), or an error. */
static int size_claim(planner *pl, bp_node *n, const gs_claim *c, gs_status *st) {
    const bp_budget *b = pl->b;
    *st = GS_OK;
    gs_status e = gs_claim_estimate(&n->cost, c);
    if (e == GS_OK) e = bp_claim_multi(&n->multi, c);
    if (e == GS_ERR_NOMEM) {
        *st = e;
        return 0;
    }
    if (e != GS_OK) {
        n->refuse_status = e;
        if (c->kind == GS_CLAIM_FIB && e == GS_ERR_INVALID_ARG)
            snprintf(n->reason, sizeof n->reason,
                     "a table of 2^%u rows exceeds the 2^30-row LDE domain at blowup %u",
                     (unsigned)(63 - __builtin_clzll(c->w.fib.steps + 1)), 1u << c->params.log_blowup);
        else
            snprintf(n->reason, sizeof n->reason, "cannot be sized: %s", gs_status_str(e));
        return 0;
    }
    const gs_claim_cost *k = &n->cost;
    n->proof_estimate = bp_proof_estimate(c);
    n->exec_host = k->trace_bytes;
    n->prove_host = sat_add(n->proof_estimate, n->proof_estimate); /* the bytes and the struct */
    /* Proving reserves the largest table's estimate, or every table's at once
     * when that fits in the lane's share of its device (tables in parallel). */
    size_t share = b->device == SIZE_MAX ? SIZE_MAX : b->device / (b->lanes_on_device ? b->lanes_on_device : 1);
    size_t r = k->prove_all_bytes < share ? k->prove_all_bytes : share;
    n->prove_dev = r > k->prove_bytes ? r : k->prove_bytes;
    size_t host_fixed = sat_add(n->exec_host, n->prove_host);
    for (int lean = 0; lean < 2; lean++) {
        size_t dev = lean ? k->prove_lean_bytes : k->prove_bytes;
        int fits = b->host_proves ? sat_add(host_fixed, dev) <= b->host
                                  : host_fixed <= b->host && dev <= b->device;
        if (fits) {
            if (lean) n->prove_dev = k->prove_lean_bytes;
            n->lean = lean;
            n->need = b->host_proves ? sat_add(host_fixed, dev) : dev;
            return 1;
        }
        /* Splittable claims are cut rather than proven lean. */
        if (c->kind == GS_CLAIM_FIB && c->w.fib.steps >= 3) break;
    }
    char need[GS_SIZE_BUF], prove[GS_SIZE_BUF], traces[GS_SIZE_BUF], budget[GS_SIZE_BUF];
    size_t dev = k->prove_lean_bytes < k->prove_bytes ? k->prove_lean_bytes : k->prove_bytes;
    n->need = b->host_proves ? sat_add(host_fixed, dev) : dev;
    n->refuse_status = GS_ERR_BUDGET;
    if (b->host_proves || host_fixed > b->host)
        snprintf(n->reason, sizeof n->reason,
                 "needs %s (%zu bytes: proving %s, traces and proof %s), more than the host "
                 "budget of %s (%zu bytes)",
                 gs_size_format(need, b->host_proves ? n->need : host_fixed),
                 b->host_proves ? n->need : host_fixed, gs_size_format(prove, dev),
                 gs_size_format(traces, host_fixed), gs_size_format(budget, b->host), b->host);
    else
        snprintf(n->reason, sizeof n->reason,
                 "needs %s (%zu bytes) to prove, more than the largest device budget of %s "
                 "(%zu bytes)",
                 gs_size_format(need, n->need), n->need, gs_size_format(budget, b->device),
                 b->device);
    return 0;
}

#define PIECE_BLOCK 256u

static gs_status add_piece(planner *pl, const gs_claim *c, const gs_claim **out) {
    bp_plan *p = pl->p;
    uint32_t blk = p->num_pieces / PIECE_BLOCK;
    if (blk == p->num_blocks) {
        gs_claim **nb = realloc(p->piece_blocks, (blk + 1) * sizeof *nb);
        if (!nb) return GS_ERR_NOMEM;
        p->piece_blocks = nb;
        if (!(nb[blk] = malloc(PIECE_BLOCK * sizeof **nb))) return GS_ERR_NOMEM;
        p->num_blocks++;
    }
    gs_claim *slot = &p->piece_blocks[blk][p->num_pieces % PIECE_BLOCK];
    *slot = *c;
    p->num_pieces++;
    *out = slot;
    return GS_OK;
}

/* Split levels one claim may take (2^12 pieces at most). */
#define BP_MAX_SPLIT_LEVELS 12u

/* "<id>/<k>", 0 if it does not fit an id buffer. */
static int child_id(char out[GS_CLAIM_ID_CAP], const char *id, int k) {
    size_t n = strlen(id);
    if (n + 3 > GS_CLAIM_ID_CAP) return 0;
    memcpy(out, id, n);
    out[n] = '/', out[n + 1] = (char)('0' + k), out[n + 2] = 0;
    return 1;
}

/* Builds the subtree of claim `id` (c: its claim; NULL when the partition
 * says it is split) and returns its reference: a claim node index or
 * SPLIT_REF | split index. */
static gs_status build(planner *pl, const char *id, const gs_claim *c, uint32_t origin,
                       int depth, uint32_t *ref) {
    bp_plan *p = pl->p;
    const gs_claim *oc = &pl->m->claims[origin];
    gs_claim halves[2];
    bp_node n;
    memset(&n, 0, sizeof n);
    snprintf(n.id, sizeof n.id, "%s", id);
    n.origin = origin;
    n.parent = BP_NONE;
    if (pl->part && bp_partition_split(pl->part, id)) {
        for (int k = 0; k < 2; k++) {
            char cid[GS_CLAIM_ID_CAP];
            if (!child_id(cid, id, k) || !bp_partition_piece(pl->part, cid, oc, &halves[k]))
                halves[k].id[0] = 0;
        }
    } else {
        gs_status st;
        if (!c) {
            bp_err(pl->err, pl->err_len, "partition file: '%s' is neither a piece nor a split", n.id);
            return GS_ERR_MANIFEST;
        }
        int fits = size_claim(pl, &n, c, &st);
        if (st != GS_OK) return st;
        gs_status sp = fits ? GS_OK : gs_claim_split(&halves[0], &halves[1], c);
        /* A claim that pieces of 2^-BP_MAX_SPLIT_LEVELS of it would not fit
         * either is refused as it is, not split: without this bound a fib
         * 2^30 claim under a 64K budget planned about 2^24 pieces and ran out
         * of memory (found by review, 2026-12-04). Bisection halves the rows
         * a level, the larger half at most rows / 2 + 2. */
        if (!fits && sp == GS_OK && depth == 0) {
            uint64_t rows = c->w.fib.steps + 1;
            int some_fit = 0;
            bp_node t;
            for (unsigned d = 1; d <= BP_MAX_SPLIT_LEVELS && !some_fit; d++) {
                gs_claim piece = *c;
                piece.w.fib.steps = (rows >> d) + 1;
                memset(&t, 0, sizeof t);
                some_fit = size_claim(pl, &t, &piece, &st);
                if (st != GS_OK) return st;
            }
            if (!some_fit) {
                size_t l = strlen(n.reason);
                char tn[GS_SIZE_BUF];
                snprintf(n.reason + l, sizeof n.reason - l,
                         "; not split: pieces of 1/%u of it still need %s",
                         1u << BP_MAX_SPLIT_LEVELS, gs_size_format(tn, t.need));
                sp = GS_ERR_BUDGET;
            }
        }
        if (fits || sp != GS_OK) {
            if (!fits) {
                size_t l = strlen(n.reason);
                if (c->kind != GS_CLAIM_FIB)
                    snprintf(n.reason + l, sizeof n.reason - l,
                             "; a %s claim cannot be split (only fib claims can)", kind_name(c));
                else if (sp != GS_ERR_BUDGET)
                    snprintf(n.reason + l, sizeof n.reason - l, "; %s",
                             sp == GS_ERR_UNSUPPORTED ? "too few steps to split"
                                                      : "split too deep (the id would be too long)");
            }
            GS_TRY(grow((void **)&p->nodes, &pl->cap_nodes, p->n + 1, sizeof *p->nodes));
            n.claim = c;
            n.refused = !fits;
            p->refused += !fits;
            n.shards = 1;
            *ref = p->n;
            p->nodes[p->n++] = n;
            return GS_OK;
        }
    }
    /* A split join over the halves. */
    uint32_t kid[2];
    for (int k = 0; k < 2; k++) {
        char cid[GS_CLAIM_ID_CAP];
        if (!child_id(cid, id, k)) return GS_ERR_INVALID_ARG;
        const gs_claim *hc = NULL;
        if (halves[k].id[0]) GS_TRY(add_piece(pl, &halves[k], &hc));
        GS_TRY(build(pl, cid, hc, origin, depth + 1, &kid[k]));
    }
    memset(&n, 0, sizeof n);
    snprintf(n.id, sizeof n.id, "%s", id);
    n.is_join = n.split = 1;
    n.origin = origin;
    n.parent = BP_NONE;
    n.num_children = 2;
    size_t at;
    GS_TRY(push_kids(p, kid, 2, &at));
    n.kids_at = at; /* kids may move until planning ends */
    GS_TRY(grow((void **)&pl->splits, &pl->cap_splits, pl->num_splits + 1, sizeof *pl->splits));
    *ref = SPLIT_REF | pl->num_splits;
    pl->splits[pl->num_splits++] = n;
    return GS_OK;
}

void bp_plan_free(bp_plan *p) {
    if (!p) return;
    free(p->nodes);
    for (uint32_t i = 0; i < p->num_blocks; i++) free(p->piece_blocks[i]);
    free(p->piece_blocks);
    free(p->kids);
    memset(p, 0, sizeof *p);
}

uint32_t bp_plan_find(const bp_plan *p, const char *id) {
    for (uint32_t i = 0; i < p->n; i++)
        if (!strcmp(p->nodes[i].id, id)) return i;
    return BP_NONE;
}

gs_status bp_plan_make(bp_plan *out, const gs_manifest *m, const bp_budget *b,
                       const bp_partition *part, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    planner pl = {.p = out, .m = m, .b = b, .part = part, .err = err, .err_len = err_len};
    bp_plan *p = out;
    gs_status s = GS_OK;
    uint32_t *top = calloc(m->num_claims, sizeof *top); /* manifest claim -> its subtree */
    if (!top) s = GS_ERR_NOMEM;
    for (uint32_t i = 0; s == GS_OK && i < m->num_claims; i++)
        s = build(&pl, m->claims[i].id, &m->claims[i], i, 0, &top[i]);
    if (s != GS_OK) goto done;
    p->claims = p->n;
    uint32_t C = p->n, S = pl.num_splits;
    p->joins = S + m->num_joins;
    bp_node *nodes = realloc(p->nodes, ((size_t)C + p->joins) * sizeof *nodes);
    if (!nodes) {
        s = GS_ERR_NOMEM;
        goto done;
    }
    p->nodes = nodes;
    /* Split joins: resolve their children's references. */
    for (uint32_t j = 0; j < S; j++) {
        bp_node *n = &pl.splits[j];
        size_t at = n->kids_at;
        for (uint32_t k = 0; k < n->num_children; k++) {
            uint32_t r = p->kids[at + k];
            p->kids[at + k] = r & SPLIT_REF ? C + (r & ~SPLIT_REF) : r;
        }
        p->nodes[C + j] = *n;
    }
    /* The manifest's joins, their children mapped to the plan. */
    for (uint32_t j = 0; s == GS_OK && j < m->num_joins; j++) {
        const gs_join *mj = &m->joins[j];
        bp_node n;
        memset(&n, 0, sizeof n);
        snprintf(n.id, sizeof n.id, "%s", mj->id);
        n.is_join = 1;
        n.origin = m->num_claims + j;
        n.parent = BP_NONE;
        n.num_children = mj->num_children;
        size_t at = p->num_kids;
        for (uint32_t k = 0; s == GS_OK && k < mj->num_children; k++) {
            uint32_t c = mj->children[k], r;
            if (c < m->num_claims) r = top[c] & SPLIT_REF ? C + (top[c] & ~SPLIT_REF) : top[c];
            else r = C + S + (c - m->num_claims);
            size_t dummy;
            s = push_kids(p, &r, 1, &dummy);
        }
        n.kids_at = at;
        p->nodes[C + S + j] = n;
    }
    if (s != GS_OK) goto done;
    p->n = C + p->joins;
    /* Offsets to pointers, parents, shards. */
    for (uint32_t i = C; i < p->n; i++) {
        bp_node *n = &p->nodes[i];
        n->children = p->kids + n->kids_at;
        for (uint32_t k = 0; k < n->num_children; k++) p->nodes[n->children[k]].parent = i;
    }
    uint32_t run = 0;
    for (uint32_t i = 0; i <= C; i++) {
        if (i == C || (i && p->nodes[i].origin != p->nodes[i - 1].origin)) {
            for (uint32_t k = i - run; k < i; k++) p->nodes[k].shards = run;
            run = 0;
        }
        run++;
    }
    for (uint32_t i = 0; i < m->num_claims; i++) p->bisected += (top[i] & SPLIT_REF) != 0;
    p->from_partition = part != NULL;
done:
    free(top);
    free(pl.splits);
    if (s != GS_OK) bp_plan_free(p);
    return s;
}
