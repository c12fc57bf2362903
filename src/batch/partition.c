/* The partition file (docs/batch.md, "Partition file"): the refined plan of
 * a batch as JSON, one claim or join a line, written atomically after
 * planning and read back on a rerun, where planning starts from it:
 *
 *   {"gstark_partition": 1,
 *    "budget": {"device": 67108864, "host": null, "lanes_on_device": 1},
 *    "claims": [
 *     {"id": "a", "workload": {"air": "mix", ...}, "params": {"security": 128, "blowup": 4}},
 *     {"id": "big/0", "of": "big", "workload": {"air": "fib", "steps": 2047, "start": ["1", "1"]}, "params": ...},
 *     ...],
 *    "joins": [
 *     {"id": "big", "split": true, "children": ["big/0", "big/1"]},
 *     {"id": "root", "children": ["a", "big"]}]}
 *
 * Reading checks that the file belongs to the manifest: its claims are the
 * manifest's (same workload and parameters) or pieces of them, its other
 * joins are the manifest's, and the pieces of every split cover their claim
 * (the first piece starts at the claim's start, each first half has an even
 * row count, the rows add up). It does not check that a second half starts
 * where the first ends: the split join checks that boundary on the proofs,
 * which is the check that matters. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/manifest_internal.h"
#include "batch/run_internal.h"
#include "cJSON.h"

typedef struct {
    char id[GS_CLAIM_ID_CAP];
    int split;      /* a split join */
    int piece;      /* a piece claim (fib) */
    gs_fp start[2];
    uint64_t steps;
    int used;       /* reached from a manifest claim */
} entry;

struct bp_partition {
    uint32_t n;
    entry *e;
    size_t mask;
    uint32_t *slots; /* index + 1; 0: empty */
};

static uint64_t hash_id(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static entry *find(const bp_partition *p, const char *id) {
    if (!p || !p->slots) return NULL;
    for (size_t i = hash_id(id) & p->mask;; i = (i + 1) & p->mask) {
        if (!p->slots[i]) return NULL;
        if (!strcmp(p->e[p->slots[i] - 1].id, id)) return &p->e[p->slots[i] - 1];
    }
}

void bp_partition_free(bp_partition *p) {
    if (!p) return;
    free(p->e);
    free(p->slots);
    free(p);
}

int bp_partition_split(const bp_partition *p, const char *id) {
    const entry *e = find(p, id);
    return e && e->split;
}

int bp_partition_piece(const bp_partition *p, const char *id, const gs_claim *origin,
                       gs_claim *out) {
    const entry *e = find(p, id);
    if (!e || !e->piece) return 0;
    *out = *origin;
    snprintf(out->id, sizeof out->id, "%s", id);
    out->w.fib.start[0] = e->start[0];
    out->w.fib.start[1] = e->start[1];
    out->w.fib.steps = e->steps;
    return 1;
}

/* ---- writing ---- */

static void put_workload(FILE *f, const gs_claim *c) {
    switch (c->kind) {
    case GS_CLAIM_FIB:
        fprintf(f, "{\"air\": \"fib\", \"steps\": %" PRIu64 ", \"start\": [\"%" PRIu64 "\", \"%" PRIu64 "\"]}",
                c->w.fib.steps, c->w.fib.start[0], c->w.fib.start[1]);
        break;
    case GS_CLAIM_MIX:
        fprintf(f, "{\"air\": \"mix\", \"cols\": %" PRIu32 ", \"log_rows\": %u, \"degree\": %u, \"seed\": \"%" PRIu64 "\"}",
                c->w.mix.cols, c->w.mix.log_n, c->w.mix.degree, c->w.mix.seed);
        break;
    case GS_CLAIM_SYNTH:
        fprintf(f, "{\"air\": \"synth\", \"preset\": \"%s\", \"shrink\": %u, \"seed\": \"%" PRIu64 "\"}",
                c->w.synth.preset, c->w.synth.shrink, c->w.synth.seed);
        break;
    default: fputs(c->w.custom.json, f); break;
    }
}

static void put_params(FILE *f, const gs_claim *c) {
    fprintf(f, "{\"security\": %u, \"blowup\": %u", c->security, 1u << c->params.log_blowup);
    if (c->params.hash != GS_HASH_KECCAK256) fprintf(f, ", \"hash\": \"%s\"", gs_hash_name((gs_hash_id)c->params.hash));
    if (c->params.cap_height) fprintf(f, ", \"cap_height\": %u", c->params.cap_height);
    if (c->params.shared_fri) fprintf(f, ", \"shared_fri\": %u", c->params.shared_fri);
    /* coset_leaves when it is not what the manifest parser defaults to (1; 0 with a shared FRI) */
    if (c->params.coset_leaves != (c->params.shared_fri ? 0u : 1u))
        fprintf(f, ", \"coset_leaves\": %u", c->params.coset_leaves);
    fputc('}', f);
}

/* One claim's object, as the writer puts it. */
static void put_claim(FILE *f, const char *id, const char *of, const gs_claim *c) {
    fprintf(f, "{\"id\": \"%s\", ", id);
    if (of) fprintf(f, "\"of\": \"%s\", ", of);
    fputs("\"workload\": ", f);
    put_workload(f, c);
    fputs(", \"params\": ", f);
    put_params(f, c);
    fputc('}', f);
}

static void put_size(FILE *f, size_t v) {
    if (v == SIZE_MAX) fputs("null", f);
    else fprintf(f, "%zu", v);
}

/* Writes buf to path through a temporary beside it, fsync, rename, and an
 * fsync of the directory. */
static gs_status write_atomic(const char *path, const char *buf, size_t len, char *err,
                              size_t err_len) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        bp_err(err, err_len, "partition file %s: not a regular file", path);
        return GS_ERR_IO;
    }
    char *copy = strdup(path), *tmp = malloc(strlen(path) + 32);
    if (!copy || !tmp) {
        free(copy), free(tmp);
        return GS_ERR_NOMEM;
    }
    sprintf(tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    gs_status s = GS_OK;
    int e = 0;
    if (fd < 0) {
        e = errno, s = GS_ERR_IO;
    } else {
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd, buf + off, len - off);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) break;
            off += (size_t)w;
        }
        if (off < len || fchmod(fd, 0644) != 0 || fsync(fd) != 0) e = errno, s = GS_ERR_IO;
        if (close(fd) != 0 && s == GS_OK) e = errno, s = GS_ERR_IO;
        if (s == GS_OK && rename(tmp, path) != 0) e = errno, s = GS_ERR_IO;
        if (s != GS_OK) unlink(tmp);
    }
    if (s == GS_OK) {
        int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    } else {
        bp_err(err, err_len, "partition file %s: %s", path, strerror(e));
    }
    free(copy), free(tmp);
    return s;
}

gs_status bp_partition_write(const char *path, const bp_plan *plan, const gs_manifest *m,
                             const bp_budget *b, char *err, size_t err_len) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return GS_ERR_NOMEM;
    fputs("{\"gstark_partition\": 1,\n \"budget\": {\"device\": ", f);
    put_size(f, b->host_proves ? SIZE_MAX : b->device);
    fputs(", \"host\": ", f);
    put_size(f, b->host);
    fprintf(f, ", \"lanes_on_device\": %u},\n \"claims\": [", b->lanes_on_device);
    for (uint32_t i = 0; i < plan->claims; i++) {
        const bp_node *n = &plan->nodes[i];
        fputs(i ? ",\n  " : "\n  ", f);
        int piece = n->origin < m->num_claims && strcmp(n->id, m->claims[n->origin].id) != 0;
        put_claim(f, n->id, piece ? m->claims[n->origin].id : NULL, n->claim);
    }
    fputs("\n ],\n \"joins\": [", f);
    for (uint32_t i = plan->claims; i < plan->n; i++) {
        const bp_node *n = &plan->nodes[i];
        fprintf(f, "%s{\"id\": \"%s\", %s\"children\": [", i > plan->claims ? ",\n  " : "\n  ",
                n->id, n->split ? "\"split\": true, " : "");
        for (uint32_t k = 0; k < n->num_children; k++)
            fprintf(f, "%s\"%s\"", k ? ", " : "", plan->nodes[n->children[k]].id);
        fputs("]}", f);
    }
    fputs("\n ]}\n", f);
    if (fclose(f) != 0 || !buf) {
        free(buf);
        return GS_ERR_NOMEM;
    }
    gs_status s = write_atomic(path, buf, len, err, err_len);
    free(buf);
    return s;
}

/* ---- reading ---- */

typedef struct {
    const char *path;
    const gs_manifest *m;
    bp_partition *p;
    char *err;
    size_t err_len;
} reader;

static gs_status fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static gs_status fail(reader *r, const char *fmt, ...) {
    if (r->err && r->err_len) {
        int w = snprintf(r->err, r->err_len, "partition file %s: ", r->path);
        size_t n = w < 0 ? 0 : (size_t)w < r->err_len ? (size_t)w : r->err_len - 1;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->err_len - n, fmt, ap);
        va_end(ap);
    }
    return GS_ERR_MANIFEST;
}

/* cJSON's compact text of an object (NULL on failure); free() it. */
static char *compact(const cJSON *it) { return it ? cJSON_PrintUnformatted(it) : NULL; }

/* Whether the file's text `got` is what the writer would put for `want`
 * (both through cJSON, so spacing does not matter). */
static int same_text(const char *want_text, const cJSON *got) {
    cJSON *w = cJSON_Parse(want_text);
    char *a = compact(w), *b = compact(got);
    int same = a && b && !strcmp(a, b);
    cJSON_Delete(w);
    free(a), free(b);
    return same;
}

static char *claim_text(void (*put)(FILE *, const gs_claim *), const gs_claim *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    put(f, c);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int field_matches(const cJSON *obj, const char *key, void (*put)(FILE *, const gs_claim *),
                         const gs_claim *c) {
    char *t = claim_text(put, c);
    int ok = t && same_text(t, cJSON_GetObjectItemCaseSensitive(obj, key));
    free(t);
    return ok;
}

static int id_ok(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (!n || n >= GS_CLAIM_ID_CAP) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || strchr("_.-/", s[i])))
            return 0;
    return 1;
}

static gs_status add(reader *r, const char *id, entry **out) {
    bp_partition *p = r->p;
    if (find(p, id)) return fail(r, "'%s' appears twice", id);
    size_t i = hash_id(id) & p->mask;
    while (p->slots[i]) i = (i + 1) & p->mask;
    entry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    p->slots[i] = ++p->n;
    *out = e;
    return GS_OK;
}

/* A u64 from a JSON integer below 2^53 or a string of decimal digits. */
static int get_u64(const cJSON *it, uint64_t *out) {
    if (cJSON_IsNumber(it)) {
        double d = it->valuedouble;
        if (d < 0 || d >= 9007199254740992.0 || d != (double)(uint64_t)d) return 0;
        *out = (uint64_t)d;
        return 1;
    }
    if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) > 20) return 0;
    for (const char *c = it->valuestring; *c; c++)
        if (*c < '0' || *c > '9') return 0;
    errno = 0;
    unsigned long long v = strtoull(it->valuestring, NULL, 10);
    if (errno) return 0;
    *out = v;
    return 1;
}

/* The manifest claim a piece id belongs to: the part before the first '/',
 * followed by "/0" or "/1" groups only. */
static uint32_t piece_origin(reader *r, const char *id) {
    const char *sl = strchr(id, '/');
    if (!sl) return BP_NONE;
    char root[GS_CLAIM_ID_CAP];
    memcpy(root, id, (size_t)(sl - id));
    root[sl - id] = 0;
    for (const char *q = sl; *q; q += 2)
        if (q[0] != '/' || (q[1] != '0' && q[1] != '1')) return BP_NONE;
    uint32_t o = gs_manifest_find(r->m, root);
    return o < r->m->num_claims ? o : BP_NONE;
}

static gs_status read_claim(reader *r, const cJSON *it) {
    const cJSON *jid = cJSON_GetObjectItemCaseSensitive(it, "id");
    if (!cJSON_IsObject(it) || !cJSON_IsString(jid) || !id_ok(jid->valuestring))
        return fail(r, "claims: an entry without a valid id");
    const char *id = jid->valuestring;
    entry *e;
    if (!strchr(id, '/')) {
        uint32_t c = gs_manifest_find(r->m, id);
        if (c >= r->m->num_claims)
            return fail(r, "claim '%s' is not in the manifest (written for another manifest? "
                           "remove it or name another file)", id);
        const gs_claim *mc = &r->m->claims[c];
        if (!field_matches(it, "workload", put_workload, mc) || !field_matches(it, "params", put_params, mc))
            return fail(r, "claim '%s' differs from the manifest's (written for another manifest? "
                           "remove it or name another file)", id);
        return add(r, id, &e);
    }
    uint32_t o = piece_origin(r, id);
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(it, "of");
    if (o == BP_NONE && cJSON_IsString(of) && gs_manifest_find(r->m, of->valuestring) == BP_NONE)
        return fail(r, "claim '%s' (a piece of '%s') is not in the manifest (written for another "
                       "manifest? remove it or name another file)", id, of->valuestring);
    if (o == BP_NONE || !cJSON_IsString(of) || strcmp(of->valuestring, r->m->claims[o].id) ||
        r->m->claims[o].kind != GS_CLAIM_FIB)
        return fail(r, "claim '%s' is no piece of a fib claim of the manifest", id);
    const gs_claim *oc = &r->m->claims[o];
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(it, "workload");
    const cJSON *air = cJSON_GetObjectItemCaseSensitive(w, "air");
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(w, "start");
    uint64_t steps, a, b;
    if (!cJSON_IsString(air) || strcmp(air->valuestring, "fib") ||
        !get_u64(cJSON_GetObjectItemCaseSensitive(w, "steps"), &steps) || steps < 1 ||
        steps > GS_CLAIM_FIB_MAX_STEPS || !cJSON_IsArray(start) || cJSON_GetArraySize(start) != 2 ||
        !get_u64(cJSON_GetArrayItem(start, 0), &a) || !get_u64(cJSON_GetArrayItem(start, 1), &b) ||
        a >= GS_FP_P || b >= GS_FP_P)
        return fail(r, "claim '%s': workload is not a fib run (steps 1..2^30, start below p)", id);
    if (!field_matches(it, "params", put_params, oc))
        return fail(r, "claim '%s': params differ from claim '%s''s", id, oc->id);
    GS_TRY(add(r, id, &e));
    e->piece = 1;
    e->steps = steps;
    e->start[0] = a, e->start[1] = b;
    return GS_OK;
}

static gs_status read_join(reader *r, const cJSON *it, uint32_t *manifest_joins) {
    const cJSON *jid = cJSON_GetObjectItemCaseSensitive(it, "id");
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(it, "children");
    const cJSON *split = cJSON_GetObjectItemCaseSensitive(it, "split");
    if (!cJSON_IsObject(it) || !cJSON_IsString(jid) || !id_ok(jid->valuestring) ||
        !cJSON_IsArray(kids))
        return fail(r, "joins: an entry without a valid id or children");
    const char *id = jid->valuestring;
    int n = cJSON_GetArraySize(kids);
    if (cJSON_IsTrue(split)) {
        uint32_t o = strchr(id, '/') ? piece_origin(r, id) : gs_manifest_find(r->m, id);
        if (o >= r->m->num_claims || r->m->claims[o].kind != GS_CLAIM_FIB)
            return fail(r, "split '%s' is no fib claim of the manifest or piece of one", id);
        for (int k = 0; k < 2 && n == 2; k++) {
            char want[GS_CLAIM_ID_CAP + 4];
            snprintf(want, sizeof want, "%s/%d", id, k);
            const cJSON *c = cJSON_GetArrayItem(kids, k);
            if (!cJSON_IsString(c) || strcmp(c->valuestring, want)) n = -1;
        }
        if (n != 2) return fail(r, "split '%s': children must be '%s/0' and '%s/1'", id, id, id);
        entry *e;
        GS_TRY(add(r, id, &e));
        e->split = 1;
        return GS_OK;
    }
    if (split && !cJSON_IsFalse(split)) return fail(r, "join '%s': split must be true or false", id);
    uint32_t j = gs_manifest_find(r->m, id);
    int same = j != BP_NONE && j >= r->m->num_claims;
    const gs_join *mj = same ? &r->m->joins[j - r->m->num_claims] : NULL;
    same = same && (uint32_t)n == mj->num_children;
    for (int k = 0; same && k < n; k++) {
        const cJSON *c = cJSON_GetArrayItem(kids, k);
        same = cJSON_IsString(c) &&
               !strcmp(c->valuestring, gs_manifest_node_id(r->m, mj->children[k]));
    }
    if (!same)
        return fail(r, "join '%s' is not the manifest's (written for another manifest? remove "
                       "it or name another file)", id);
    (*manifest_joins)++;
    return GS_OK;
}

/* The rows and start of the chain under `id`, checked (see the top). */
static gs_status cover(reader *r, const char *id, uint64_t *rows, gs_fp start[2], int depth) {
    entry *e = find(r->p, id);
    if (!e || (!e->split && !e->piece) || depth > 40)
        return fail(r, "'%s' is neither a piece nor a split", id);
    if (e->used) return fail(r, "'%s' is used twice", id);
    e->used = 1;
    if (e->piece) {
        *rows = e->steps + 1;
        start[0] = e->start[0], start[1] = e->start[1];
        return GS_OK;
    }
    char c0[GS_CLAIM_ID_CAP + 4], c1[GS_CLAIM_ID_CAP + 4];
    snprintf(c0, sizeof c0, "%s/0", id);
    snprintf(c1, sizeof c1, "%s/1", id);
    uint64_t r0, r1;
    gs_fp s1[2];
    GS_TRY(cover(r, c0, &r0, start, depth + 1));
    GS_TRY(cover(r, c1, &r1, s1, depth + 1));
    if (r0 % 2) return fail(r, "'%s' has %" PRIu64 " rows: a first half needs an even count", c0, r0);
    *rows = r0 + r1;
    return GS_OK;
}

gs_status bp_partition_read(bp_partition **out, const char *path, const gs_manifest *m,
                            char *err, size_t err_len) {
    *out = NULL;
    reader r = {.path = path, .m = m, .err = err, .err_len = err_len};
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return GS_ERR_NOT_FOUND;
        bp_err(err, err_len, "partition file %s: %s", path, strerror(errno));
        return GS_ERR_IO;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    gs_status s = GS_OK;
    for (;;) {
        if (len + 65536 > cap) {
            cap = cap ? 2 * cap : 1 << 20;
            char *q = cap > GS_MANIFEST_MAX_BYTES + 65536 ? NULL : realloc(buf, cap + 1);
            if (!q) {
                s = cap > GS_MANIFEST_MAX_BYTES ? fail(&r, "larger than 1 GiB") : GS_ERR_NOMEM;
                break;
            }
            buf = q;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (s == GS_OK && ferror(f)) {
        bp_err(err, err_len, "partition file %s: read error", path);
        s = GS_ERR_IO;
    }
    fclose(f);
    cJSON *root = NULL;
    if (s == GS_OK) {
        buf[len] = 0;
        root = cJSON_ParseWithLength(buf, len);
        if (!root || !cJSON_IsObject(root)) s = fail(&r, "not JSON (a partition file is JSON)");
    }
    free(buf);
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "gstark_partition");
    const cJSON *claims = cJSON_GetObjectItemCaseSensitive(root, "claims");
    const cJSON *joins = cJSON_GetObjectItemCaseSensitive(root, "joins");
    if (s == GS_OK && (!cJSON_IsNumber(ver) || ver->valuedouble != 1 || !cJSON_IsArray(claims) ||
                       !cJSON_IsArray(joins)))
        s = fail(&r, "not a gstark partition file of format 1");
    bp_partition *p = NULL;
    if (s == GS_OK) {
        size_t n = (size_t)cJSON_GetArraySize(claims) + (size_t)cJSON_GetArraySize(joins), slots = 16;
        while (slots < 2 * n) slots *= 2;
        p = calloc(1, sizeof *p);
        if (p) p->e = calloc(n ? n : 1, sizeof *p->e), p->slots = calloc(slots, sizeof *p->slots);
        if (!p || !p->e || !p->slots) s = GS_ERR_NOMEM;
        else p->mask = slots - 1;
    }
    r.p = p;
    const cJSON *it;
    if (s == GS_OK) cJSON_ArrayForEach(it, claims) if (s == GS_OK) s = read_claim(&r, it);
    uint32_t mj = 0;
    if (s == GS_OK) cJSON_ArrayForEach(it, joins) if (s == GS_OK) s = read_join(&r, it, &mj);
    if (s == GS_OK && mj != m->num_joins) s = fail(&r, "its joins are not the manifest's");
    for (uint32_t i = 0; s == GS_OK && i < m->num_claims; i++) {
        const gs_claim *c = &m->claims[i];
        entry *e = find(p, c->id);
        if (!e) {
            s = fail(&r, "claim '%s' of the manifest is missing", c->id);
        } else if (e->split) {
            uint64_t rows;
            gs_fp start[2];
            s = cover(&r, c->id, &rows, start, 0);
            if (s == GS_OK && (rows != c->w.fib.steps + 1 || start[0] != c->w.fib.start[0] ||
                               start[1] != c->w.fib.start[1]))
                s = fail(&r, "the pieces of '%s' do not cover it (rows %" PRIu64 " of %" PRIu64
                             ", or another start)", c->id, rows, c->w.fib.steps + 1);
        }
    }
    for (uint32_t i = 0; s == GS_OK && p && i < p->n; i++)
        if ((p->e[i].piece || p->e[i].split) && !p->e[i].used)
            s = fail(&r, "'%s' belongs to no split of a manifest claim", p->e[i].id);
    cJSON_Delete(root);
    if (s != GS_OK) {
        bp_partition_free(p);
        return s;
    }
    *out = p;
    return GS_OK;
}
