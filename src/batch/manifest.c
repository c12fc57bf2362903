/* The batch manifest: JSON (cJSON) to gs_manifest, with every check that
 * needs no trace (docs/batch.md, "Manifest"). The join tree (given, or the
 * default balanced tree) is checked and put in topological order in
 * src/batch/joins.c. Every refusal is GS_ERR_MANIFEST with one line in err
 * that names the claim (by id, or by position before its id is known) or the
 * line, column and byte of a syntax error. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch/manifest_internal.h"
#include "cJSON.h"
#include "proof/shape.h"

/* ---- errors ---- */

gs_status gs_manifest_fail(gs_manifest_pc *p, const char *fmt, ...) {
    if (!p->err || !p->err_len) return GS_ERR_MANIFEST;
    size_t n = 0;
    if (p->label[0]) {
        int w = snprintf(p->err, p->err_len, "%s: ", p->label);
        n = w < 0 ? 0 : (size_t)w < p->err_len ? (size_t)w : p->err_len - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->err_len - n, fmt, ap);
    va_end(ap);
    return GS_ERR_MANIFEST;
}

/* A user string fit for a one-line message: at most 64 bytes, anything but
 * printable ASCII shown as '?'. */
const char *gs_manifest_safe(char out[GS_MANIFEST_SAFE], const char *s) {
    size_t i = 0;
    for (; s && s[i] && i < 64; i++) out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (s && s[i]) out[i++] = '.', out[i++] = '.', out[i++] = '.';
    out[i] = 0;
    return out;
}

const char *gs_manifest_type_name(const cJSON *it) {
    if (cJSON_IsString(it)) return "a string";
    if (cJSON_IsNumber(it)) return "a number";
    if (cJSON_IsArray(it)) return "an array";
    if (cJSON_IsObject(it)) return "an object";
    if (cJSON_IsBool(it)) return "a boolean";
    if (cJSON_IsNull(it)) return "null";
    return "an invalid value";
}

/* ---- fields ---- */

/* Refuses keys outside `allowed` (NULL-terminated) and repeated keys. */
gs_status gs_manifest_check_keys(gs_manifest_pc *p, const cJSON *obj, const char *where,
                                 const char *const *allowed) {
    char sk[GS_MANIFEST_SAFE];
    const cJSON *k;
    cJSON_ArrayForEach(k, obj) {
        const char *const *a = allowed;
        while (*a && strcmp(*a, k->string)) a++;
        if (!*a) {
            char list[160] = "";
            for (a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == allowed ? "" : ", ", *a);
            return gs_manifest_fail(p, "%s%sunknown key '%s' (allowed: %s)", where ? where : "",
                                    where ? ": " : "", gs_manifest_safe(sk, k->string), list);
        }
        for (const cJSON *e = obj->child; e != k; e = e->next)
            if (!strcmp(e->string, k->string))
                return gs_manifest_fail(p, "%s%skey '%s' given twice", where ? where : "",
                                        where ? ": " : "", k->string);
    }
    return GS_OK;
}

#define EXACT_LIMIT 9007199254740992.0 /* 2^53: every integer below is exact in a double */

/* An integer in lo..hi: a JSON number (below 2^53), or with allow_string a
 * string of decimal digits (any uint64_t). */
static gs_status get_uint(gs_manifest_pc *p, const cJSON *it, const char *field, int allow_string,
                          uint64_t lo, uint64_t hi, uint64_t *out) {
    uint64_t v = 0;
    if (cJSON_IsNumber(it)) {
        double d = it->valuedouble;
        if (!isfinite(d) || d != floor(d))
            return gs_manifest_fail(p, "%s: expected an integer, got %g", field, d);
        if (d < 0) return gs_manifest_fail(p, "%s: %.0f is negative", field, d);
        if (d >= EXACT_LIMIT)
            return gs_manifest_fail(p, "%s: %.0f is not exact as a JSON number (2^53 or more)%s",
                                    field, d, allow_string ? "; give it as a string of digits" : "");
        v = (uint64_t)d;
    } else if (allow_string && cJSON_IsString(it)) {
        const char *s = it->valuestring;
        size_t n = strlen(s);
        if (n < 1 || n > 20 || strspn(s, "0123456789") != n)
            return gs_manifest_fail(p, "%s: expected a string of decimal digits", field);
        errno = 0;
        unsigned long long x = strtoull(s, NULL, 10);
        if (errno) return gs_manifest_fail(p, "%s: %s does not fit in 64 bits", field, s);
        v = x;
    } else {
        return gs_manifest_fail(p, "%s: expected an integer%s, got %s", field,
                                allow_string ? " (or a string of digits)" : "", gs_manifest_type_name(it));
    }
    if (v < lo || v > hi)
        return gs_manifest_fail(p, "%s: %llu is outside %llu..%llu", field, (unsigned long long)v,
                                (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return GS_OK;
}

static gs_status get_unsigned(gs_manifest_pc *p, const cJSON *it, const char *field, unsigned lo,
                              unsigned hi, unsigned *out) {
    uint64_t v;
    GS_TRY(get_uint(p, it, field, 0, lo, hi, &v));
    *out = (unsigned)v;
    return GS_OK;
}

static gs_status get_string(gs_manifest_pc *p, const cJSON *it, const char *field, const char **out) {
    if (!cJSON_IsString(it)) return gs_manifest_fail(p, "%s: expected a string, got %s", field, gs_manifest_type_name(it));
    *out = it->valuestring;
    return GS_OK;
}

gs_status gs_manifest_get_id(gs_manifest_pc *p, const cJSON *it, const char *field,
                             char out[GS_CLAIM_ID_CAP]) {
    const char *s = NULL;
    if (!it) return gs_manifest_fail(p, "missing '%s'", field);
    GS_TRY(get_string(p, it, field, &s));
    size_t n = strlen(s);
    char sk[GS_MANIFEST_SAFE];
    if (n < 1 || n > GS_CLAIM_ID_MAX)
        return gs_manifest_fail(p, "%s '%s': an id has 1 to %u bytes", field, gs_manifest_safe(sk, s),
                                GS_CLAIM_ID_MAX);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return gs_manifest_fail(p, "%s '%s': an id is made of letters, digits, '_', '.' and '-'",
                                    field, gs_manifest_safe(sk, s));
    }
    memcpy(out, s, n + 1);
    return GS_OK;
}

/* ---- workloads ---- */

static gs_status parse_fib(gs_manifest_pc *p, const cJSON *w, gs_claim *c) {
    static const char *const keys[] = {"air", "log_rows", "steps", "start", NULL};
    GS_TRY(gs_manifest_check_keys(p, w, "workload", keys));
    const cJSON *lr = cJSON_GetObjectItemCaseSensitive(w, "log_rows");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(w, "steps");
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(w, "start");
    c->kind = GS_CLAIM_FIB;
    if (!lr == !st) return gs_manifest_fail(p, "workload: fib takes one of 'log_rows' and 'steps'");
    if (lr) {
        unsigned k;
        GS_TRY(get_unsigned(p, lr, "workload.log_rows", 1, GS_AIRS_FIB_MAX_LOG_N, &k));
        c->w.fib.steps = ((uint64_t)1 << k) - 1;
    } else {
        GS_TRY(get_uint(p, st, "workload.steps", 0, 1, GS_CLAIM_FIB_MAX_STEPS, &c->w.fib.steps));
    }
    c->w.fib.start[0] = c->w.fib.start[1] = 1; /* `gstark prove fib` */
    if (start) {
        if (!cJSON_IsArray(start) || cJSON_GetArraySize(start) != 2)
            return gs_manifest_fail(p, "workload.start: expected an array of 2 integers (a[0], b[0]), got %s",
                                    cJSON_IsArray(start) ? "another length" : gs_manifest_type_name(start));
        for (int i = 0; i < 2; i++) {
            char f[32];
            uint64_t v;
            snprintf(f, sizeof f, "workload.start[%d]", i);
            GS_TRY(get_uint(p, cJSON_GetArrayItem(start, i), f, 1, 0, GS_FP_P - 1, &v));
            c->w.fib.start[i] = v;
        }
    }
    return GS_OK;
}

static gs_status parse_mix(gs_manifest_pc *p, const cJSON *w, gs_claim *c) {
    static const char *const keys[] = {"air", "cols", "log_rows", "degree", "seed", NULL};
    GS_TRY(gs_manifest_check_keys(p, w, "workload", keys));
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(w, "cols");
    const cJSON *lr = cJSON_GetObjectItemCaseSensitive(w, "log_rows");
    const cJSON *deg = cJSON_GetObjectItemCaseSensitive(w, "degree");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(w, "seed");
    c->kind = GS_CLAIM_MIX;
    gs_mix_params *m = &c->w.mix;
    if (!cols) return gs_manifest_fail(p, "workload: mix needs 'cols'");
    if (!lr) return gs_manifest_fail(p, "workload: mix needs 'log_rows'");
    unsigned u;
    GS_TRY(get_unsigned(p, cols, "workload.cols", 1, GS_AIRS_MIX_MAX_COLS, &u));
    m->cols = u;
    GS_TRY(get_unsigned(p, lr, "workload.log_rows", 1, GS_AIRS_MIX_MAX_LOG_N, &m->log_n));
    m->degree = 3, m->seed = 1; /* `gstark prove mix` */
    if (deg) GS_TRY(get_unsigned(p, deg, "workload.degree", GS_AIRS_MIX_MIN_DEGREE, GS_AIRS_MIX_MAX_DEGREE, &m->degree));
    if (seed) GS_TRY(get_uint(p, seed, "workload.seed", 1, 0, UINT64_MAX, &m->seed));
    return GS_OK;
}

static gs_status parse_synth(gs_manifest_pc *p, const cJSON *w, gs_claim *c) {
    static const char *const keys[] = {"air", "preset", "shrink", "seed", NULL};
    GS_TRY(gs_manifest_check_keys(p, w, "workload", keys));
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(w, "preset");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(w, "shrink");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(w, "seed");
    c->kind = GS_CLAIM_SYNTH;
    gs_claim_synth *s = &c->w.synth;
    if (!pr) return gs_manifest_fail(p, "workload: synth needs 'preset' (vm, skew or uniform)");
    const char *name = NULL;
    GS_TRY(get_string(p, pr, "workload.preset", &name));
    uint32_t tables;
    char sk[GS_MANIFEST_SAFE];
    if (strlen(name) >= sizeof s->preset || gs_synth_preset_tables(&tables, name) != GS_OK)
        return gs_manifest_fail(p, "workload.preset: unknown preset '%s' (vm, skew or uniform)",
                                gs_manifest_safe(sk, name));
    snprintf(s->preset, sizeof s->preset, "%s", name);
    s->shrink = 0, s->seed = 1;
    if (sh) GS_TRY(get_unsigned(p, sh, "workload.shrink", 0, GS_SYNTH_MAX_SHRINK, &s->shrink));
    if (seed) GS_TRY(get_uint(p, seed, "workload.seed", 1, 0, UINT64_MAX, &s->seed));
    return GS_OK;
}

static gs_status parse_custom(gs_manifest_pc *p, const cJSON *w, const char *air, gs_claim *c) {
    gs_claim_custom *cu = &c->w.custom;
    void *ctx[1] = {NULL};
    char sk[GS_MANIFEST_SAFE];
    if (strlen(air) >= sizeof cu->air || !gs_batch_registry_get(air, &cu->build, ctx)) {
        char names[512];
        gs_batch_registry_names(names, sizeof names);
        return gs_manifest_fail(p, "workload.air: unknown AIR '%s' (built in: fib, mix, synth%s%s)",
                                gs_manifest_safe(sk, air), names[0] ? "; registered: " : "", names);
    }
    c->kind = GS_CLAIM_CUSTOM;
    snprintf(cu->air, sizeof cu->air, "%s", air);
    cu->ctx = ctx[0];
    char *json = cJSON_PrintUnformatted(w);
    if (!json) return GS_ERR_NOMEM;
    cu->json = json; /* owned by the manifest from here: gs_manifest_free frees it */
    cu->json_len = strlen(json);
    return GS_OK;
}

/* ---- parameters and what the shapes allow ---- */

static gs_status parse_params(gs_manifest_pc *p, const cJSON *par, gs_claim *c) {
    unsigned security = GS_DEFAULT_SECURITY_BITS, blowup = 4;
    unsigned cap_height = 0, shared_fri = 0, coset = 1;
    int coset_given = 0;
    gs_hash_id hash = GS_HASH_KECCAK256;
    if (par) {
        static const char *const keys[] = {"security", "blowup", "hash", "cap_height", "shared_fri",
                                           "coset_leaves", NULL};
        if (!cJSON_IsObject(par)) return gs_manifest_fail(p, "params: expected an object, got %s", gs_manifest_type_name(par));
        GS_TRY(gs_manifest_check_keys(p, par, "params", keys));
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(par, "security");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(par, "blowup");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(par, "hash");
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(par, "cap_height");
        if (ch) GS_TRY(get_unsigned(p, ch, "params.cap_height", 0, GS_MAX_CAP_HEIGHT, &cap_height));
        const cJSON *sf = cJSON_GetObjectItemCaseSensitive(par, "shared_fri");
        if (sf) GS_TRY(get_unsigned(p, sf, "params.shared_fri", 0, GS_SHARED_TREES, &shared_fri));
        const cJSON *cl = cJSON_GetObjectItemCaseSensitive(par, "coset_leaves");
        if (cl) {
            GS_TRY(get_unsigned(p, cl, "params.coset_leaves", 0, GS_COSET_LEAVES_ALL, &coset));
            coset_given = 1;
        }
        if (shared_fri && coset && coset_given)
            return gs_manifest_fail(p, "params: coset_leaves %u and shared_fri %u do not go together yet", coset,
                                    shared_fri);
        if (shared_fri == GS_SHARED_TREES && cap_height)
            return gs_manifest_fail(p, "params: cap_height %u and shared_fri 2 (one tree per round, sent as its root) do not go together",
                                    cap_height);
        if (shared_fri) coset = 0; /* the default gives way to an explicit shared FRI */
        if (h) {
            const char *name = NULL;
            GS_TRY(get_string(p, h, "params.hash", &name));
            if (!strcmp(name, "poseidon2")) hash = GS_HASH_POSEIDON2;
            else if (strcmp(name, "keccak") && strcmp(name, "keccak256")) {
                char sk[GS_MANIFEST_SAFE];
                return gs_manifest_fail(p, "params.hash: '%s' is not keccak or poseidon2",
                                        gs_manifest_safe(sk, name));
            }
        }
        if (s) GS_TRY(get_unsigned(p, s, "params.security", GS_MIN_SECURITY_BITS, GS_MAX_SECURITY_BITS, &security));
        if (b) {
            GS_TRY(get_unsigned(p, b, "params.blowup", 2, 64, &blowup));
            if (blowup & (blowup - 1))
                return gs_manifest_fail(p, "params.blowup: %u is not a power of two (2, 4, 8, 16, 32 or 64)", blowup);
        }
    }
    c->security = security;
    if (gs_params_for_security(&c->params, security) != GS_OK) return GS_ERR_INVALID_ARG;
    c->params.log_blowup = 0;
    while ((1u << c->params.log_blowup) < blowup) c->params.log_blowup++;
    c->params.hash = hash;
    c->params.cap_height = cap_height;
    c->params.shared_fri = shared_fri;
    c->params.coset_leaves = coset;
    /* The least query count reaching the target, as `gstark prove` picks it
     * (the blowups and targets the parser accepts always reach it). */
    return gs_params_set_queries(&c->params, security) == GS_OK ? GS_OK : GS_ERR_INVALID_ARG;
}

/* Degrees against the blowup and heights against the largest LDE domain, for
 * the workloads that cannot be split (a fib claim too tall for one proof is
 * valid: the scheduler bisects it). Synth shapes depend on (preset, shrink)
 * only and are cached. */
static gs_status check_shapes(gs_manifest_pc *p, gs_claim *c) {
    unsigned lb = c->params.log_blowup, blowup = 1u << lb, max_log = GS_MAX_LOG_LDE - lb;
    unsigned degree = 0, log_n = 0;
    if (c->kind == GS_CLAIM_FIB) {
        return GS_OK;
    } else if (c->kind == GS_CLAIM_MIX) {
        degree = c->w.mix.degree, log_n = c->w.mix.log_n;
    } else if (c->kind == GS_CLAIM_SYNTH) {
        gs_manifest_synth_shape *e = NULL;
        for (unsigned i = 0; i < p->num_synth && !e; i++)
            if (!strcmp(p->synth[i].preset, c->w.synth.preset) && p->synth[i].shrink == c->w.synth.shrink)
                e = &p->synth[i];
        if (!e) { /* at most 3 presets x 21 shrinks: the cache never fills */
            gs_batch_shapes sh;
            gs_status s = gs_batch_shapes_make(&sh, c, NULL, 0);
            if (s != GS_OK) return s == GS_ERR_NOMEM ? s : gs_manifest_fail(p, "workload: %s", gs_status_str(s));
            e = &p->synth[p->num_synth++ % GS_MANIFEST_SYNTH_CACHE];
            snprintf(e->preset, sizeof e->preset, "%s", c->w.synth.preset);
            e->shrink = c->w.synth.shrink, e->degree = 0, e->log_n = 0;
            for (uint32_t t = 0; t < sh.n; t++) {
                if (gs_air_max_degree(sh.airs[t]) > e->degree) e->degree = gs_air_max_degree(sh.airs[t]);
                if (sh.log_n[t] > e->log_n) e->log_n = sh.log_n[t];
            }
            gs_batch_shapes_free(&sh);
        }
        degree = e->degree, log_n = e->log_n;
    } else { /* custom: the builder, AIR only */
        gs_batch_shapes sh;
        char msg[256] = "";
        gs_status s = gs_batch_shapes_make(&sh, c, msg, sizeof msg);
        if (s == GS_ERR_NOMEM) return s;
        if (s != GS_OK) return gs_manifest_fail(p, "workload (air '%s'): %s", c->w.custom.air, msg);
        degree = gs_air_max_degree(sh.airs[0]);
        log_n = sh.log_n[0];
        gs_batch_shapes_free(&sh);
        if (log_n < 1) return gs_manifest_fail(p, "workload (air '%s'): the builder gave log_n 0", c->w.custom.air);
    }
    if (degree > blowup + 1) {
        unsigned need = 2;
        while (need + 1 < degree) need *= 2;
        return gs_manifest_fail(p, "constraint degree %u needs a blowup of %u or more (degree <= blowup + 1; params.blowup is %u)",
                                degree, need, blowup);
    }
    if (log_n > max_log)
        return gs_manifest_fail(p, "a table of 2^%u rows with blowup %u exceeds the largest LDE domain (2^%u rows)",
                                log_n, blowup, GS_MAX_LOG_LDE);
    return GS_OK;
}

/* ---- claims ---- */

static gs_status parse_claim(gs_manifest_pc *p, const cJSON *it, uint32_t i, gs_claim *c) {
    static const char *const keys[] = {"id", "workload", "params", NULL};
    snprintf(p->label, sizeof p->label, "claims[%u]", i);
    if (!cJSON_IsObject(it)) return gs_manifest_fail(p, "expected an object, got %s", gs_manifest_type_name(it));
    GS_TRY(gs_manifest_get_id(p, cJSON_GetObjectItemCaseSensitive(it, "id"), "id", c->id));
    snprintf(p->label, sizeof p->label, "claim '%s'", c->id);
    GS_TRY(gs_manifest_check_keys(p, it, NULL, keys));
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(it, "workload");
    if (!w) return gs_manifest_fail(p, "missing 'workload'");
    if (!cJSON_IsObject(w)) return gs_manifest_fail(p, "workload: expected an object, got %s", gs_manifest_type_name(w));
    const cJSON *air = cJSON_GetObjectItemCaseSensitive(w, "air");
    if (!air) return gs_manifest_fail(p, "workload: missing 'air'");
    const char *name = NULL;
    GS_TRY(get_string(p, air, "workload.air", &name));
    GS_TRY(parse_params(p, cJSON_GetObjectItemCaseSensitive(it, "params"), c));
    if (!strcmp(name, "fib")) GS_TRY(parse_fib(p, w, c));
    else if (!strcmp(name, "mix")) GS_TRY(parse_mix(p, w, c));
    else if (!strcmp(name, "synth")) GS_TRY(parse_synth(p, w, c));
    else GS_TRY(parse_custom(p, w, name, c));
    if (c->params.shared_fri && (c->kind == GS_CLAIM_FIB || c->kind == GS_CLAIM_MIX))
        return gs_manifest_fail(p, "params.shared_fri: one FRI for many tables; '%s' is one table", name);
    return check_shapes(p, c);
}

static gs_status parse_claims(gs_manifest_pc *p, gs_manifest *m, const cJSON *arr) {
    if (!arr) return gs_manifest_fail(p, "missing 'claims'");
    if (!cJSON_IsArray(arr)) return gs_manifest_fail(p, "claims: expected an array, got %s", gs_manifest_type_name(arr));
    size_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) if (++n > GS_MANIFEST_MAX_CLAIMS) break;
    if (n == 0) return gs_manifest_fail(p, "claims: empty (a manifest needs at least one claim)");
    if (n > GS_MANIFEST_MAX_CLAIMS)
        return gs_manifest_fail(p, "claims: more than %u claims", GS_MANIFEST_MAX_CLAIMS);
    m->claims = calloc(n, sizeof *m->claims);
    if (!m->claims) return GS_ERR_NOMEM;
    uint32_t i = 0;
    cJSON_ArrayForEach(it, arr) {
        gs_claim *c = &m->claims[i];
        gs_status s = parse_claim(p, it, i, c);
        if (c->kind) m->num_claims = i + 1; /* what gs_manifest_free must see */
        if (s != GS_OK) return s;
        p->label[0] = 0;
        i++;
    }
    return GS_OK;
}

/* ---- the manifest ---- */

static gs_status syntax_error(gs_manifest_pc *p, const char *json, size_t len, size_t at,
                              const char *what) {
    if (at > len) at = len;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at; i++) {
        if (json[i] == '\n') line++, col = 1;
        else col++;
    }
    return gs_manifest_fail(p, "JSON %s at line %zu, column %zu (byte %zu)", what, line, col, at);
}

/* What cJSON's values cannot show, on text it parsed: a number with a
 * fraction or an exponent (its double may have been rounded to an integer:
 * 4503599627370497.5, 1e-400, 1.0000000000000001) and a \u0000 escape in a
 * string (cut short at the NUL: "a\u0000zzz" would be the id "a"). Every
 * manifest number is an integer. Found by review, 2026-12-04. */
static gs_status lexical_check(gs_manifest_pc *p, const char *json, size_t len) {
    for (size_t i = 0; i < len; i++) {
        char c = json[i];
        if (c == '"') {
            for (i++; i < len && json[i] != '"'; i++) {
                if (json[i] != '\\' || i + 1 >= len) continue;
                if (json[i + 1] == 'u' && i + 5 < len && !memcmp(json + i + 2, "0000", 4))
                    return syntax_error(p, json, len, i,
                                        "string with a \\u0000 (NUL) escape, which no id, key or name may hold,");
                i++; /* the escaped character */
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t j = i;
            while (j < len && strchr("0123456789+-.eE", json[j])) j++;
            for (size_t k = i; k < j; k++)
                if (json[k] == '.' || json[k] == 'e' || json[k] == 'E')
                    return syntax_error(p, json, len, i,
                                        "number with a fraction or an exponent (manifest numbers are "
                                        "integers, written with digits only)");
            i = j - 1;
        }
    }
    return GS_OK;
}

gs_status gs_manifest_parse(gs_manifest **out, const char *json, size_t len, char *err,
                            size_t err_len) {
    if (err && err_len) err[0] = 0;
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!json && len) return GS_ERR_INVALID_ARG;
    gs_manifest_pc p = {.err = err, .err_len = err ? err_len : 0};
    if (len == 0) return gs_manifest_fail(&p, "JSON syntax error: the manifest is empty");
    const char *end = NULL;
    /* cJSON's parser resets a global error position on every call: one parse at a time. */
    static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&parse_lock);
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    pthread_mutex_unlock(&parse_lock);
    if (!root) {
        if (!end) return GS_ERR_NOMEM;
        return syntax_error(&p, json, len, (size_t)(end - json), "syntax error");
    }
    size_t at = end ? (size_t)(end - json) : len;
    while (at < len && (json[at] == ' ' || json[at] == '\t' || json[at] == '\n' || json[at] == '\r')) at++;
    if (at < len) {
        cJSON_Delete(root);
        return syntax_error(&p, json, len, at, "text after the manifest's object");
    }
    gs_manifest *m = calloc(1, sizeof *m);
    gs_status s = m ? GS_OK : GS_ERR_NOMEM;
    static const char *const keys[] = {"claims", "joins", NULL};
    if (s == GS_OK && !cJSON_IsObject(root))
        s = gs_manifest_fail(&p, "the manifest: expected an object, got %s", gs_manifest_type_name(root));
    if (s == GS_OK) s = gs_manifest_check_keys(&p, root, "the manifest", keys);
    if (s == GS_OK) s = parse_claims(&p, m, cJSON_GetObjectItemCaseSensitive(root, "claims"));
    if (s == GS_OK) s = gs_manifest_joins(&p, m, cJSON_GetObjectItemCaseSensitive(root, "joins"));
    /* after the checks that name the claim, which catch most such values */
    if (s == GS_OK) s = lexical_check(&p, json, len);
    cJSON_Delete(root);
    if (s != GS_OK) {
        gs_manifest_free(m);
        return s == GS_ERR_MANIFEST || s == GS_ERR_NOMEM ? s : gs_manifest_fail(&p, "%s", gs_status_str(s));
    }
    *out = m;
    return GS_OK;
}

gs_status gs_manifest_load(gs_manifest **out, const char *path, char *err, size_t err_len) {
    if (err && err_len) err[0] = 0;
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!path) return GS_ERR_INVALID_ARG;
    FILE *f = fopen(path, "rb");
    char sk[GS_MANIFEST_SAFE];
    if (!f) {
        if (err && err_len) snprintf(err, err_len, "%s: %s", gs_manifest_safe(sk, path), strerror(errno));
        return GS_ERR_IO;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    gs_status s = buf ? GS_OK : GS_ERR_NOMEM;
    while (s == GS_OK) {
        if (len == cap) {
            if (cap > GS_MANIFEST_MAX_BYTES) {
                if (err && err_len)
                    snprintf(err, err_len, "%s: larger than %zu bytes", gs_manifest_safe(sk, path),
                             (size_t)GS_MANIFEST_MAX_BYTES);
                s = GS_ERR_IO;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                s = GS_ERR_NOMEM;
                break;
            }
            buf = nb, cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                if (err && err_len) snprintf(err, err_len, "%s: read error", gs_manifest_safe(sk, path));
                s = GS_ERR_IO;
            }
            break;
        }
    }
    fclose(f);
    if (s == GS_OK && len > GS_MANIFEST_MAX_BYTES) {
        if (err && err_len)
            snprintf(err, err_len, "%s: larger than %zu bytes", gs_manifest_safe(sk, path),
                     (size_t)GS_MANIFEST_MAX_BYTES);
        s = GS_ERR_IO;
    }
    if (s == GS_OK) s = gs_manifest_parse(out, buf, len, err, err_len);
    free(buf);
    return s;
}

void gs_manifest_free(gs_manifest *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->num_claims; i++)
        if (m->claims[i].kind == GS_CLAIM_CUSTOM) cJSON_free((void *)m->claims[i].w.custom.json);
    free(m->claims);
    for (uint32_t j = 0; j < m->num_joins; j++) free(m->joins[j].children);
    free(m->joins);
    gs_manifest_index_free(m->index);
    free(m);
}
