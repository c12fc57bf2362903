/* What a proof is a proof of: rebuilding each table's AIR from its air_desc
 * (checked against the fingerprint the proof carries), and the --expect
 * checks verify runs on the statement. The fingerprint, the height and the
 * public inputs are the statement (the digest covers them); air_desc is only
 * a hint, trusted once the AIR rebuilt from it has the proof's fingerprint. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Builds the AIR a description names, for a table of 2^proof_log_n rows;
 * 0 if it names no built-in AIR, is not in its canonical form (numbers out
 * of range wrap in sscanf: "log_n=4294967304" read as 8) or names another
 * height than the table's (mix's middle row and the synth tables' shapes
 * depend on it; found by review, 2026-12-04: a 2^10-row mix proof described
 * as log_n=8 verified with its "middle" publics from row 128). */
static int air_from_desc(gs_air **air, cli_table_info *inf, const char *desc, uint32_t index,
                         unsigned proof_log_n) {
    unsigned cols, degree, log_n, shrink, table;
    uint64_t seed;
    char preset[16], canon[sizeof ((gs_proof *)0)->air_desc];
    int used = 0;
    memset(inf, 0, sizeof *inf);
    if (!strcmp(desc, "fib")) {
        snprintf(inf->family, sizeof inf->family, "fib");
        return gs_airs_fib_air(air) == GS_OK;
    }
    if (sscanf(desc, "mix cols=%u degree=%u log_n=%u seed=%" SCNu64 "%n", &cols, &degree, &log_n,
               &seed, &used) == 4 && desc[used] == '\0') {
        snprintf(canon, sizeof canon, "mix cols=%u degree=%u log_n=%u seed=%" PRIu64, cols, degree,
                 log_n, seed);
        if (strcmp(canon, desc) != 0 || log_n != proof_log_n) return 0;
        gs_mix_params mp = {cols, degree, log_n, seed};
        snprintf(inf->family, sizeof inf->family, "mix");
        inf->has_seed = 1, inf->seed = seed;
        return gs_airs_mix_air(air, &mp) == GS_OK;
    }
    used = 0;
    if (sscanf(desc, "synth preset=%15[a-z] shrink=%u table=%u%n", preset, &shrink, &table,
               &used) == 3 && desc[used] == '\0' && table == index) {
        snprintf(canon, sizeof canon, "synth preset=%s shrink=%u table=%u", preset, shrink, table);
        if (strcmp(canon, desc) != 0) return 0;
        snprintf(inf->family, sizeof inf->family, "synth");
        snprintf(inf->preset, sizeof inf->preset, "%s", preset);
        inf->shrink = shrink;
        unsigned want_log_n = 0;
        if (gs_synth_table_air(air, &want_log_n, preset, shrink, 0, table) != GS_OK) return 0;
        return want_log_n == proof_log_n;
    }
    return 0;
}

static int same_air(const gs_air *air, const gs_proof *p) {
    gs_digest fp = gs_air_fingerprint(air);
    return !memcmp(fp.b, p->air_fingerprint.b, sizeof fp.b);
}

int cli_rebuild_airs(gs_air ***airs_out, cli_table_info **info_out, const gs_proof *t, uint32_t n) {
    gs_air **airs = calloc(n, sizeof *airs);
    cli_table_info *info = calloc(n, sizeof *info);
    *airs_out = airs, *info_out = info;
    if (!airs || !info) {
        cli_err("out of memory");
        return CLI_USAGE;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (air_from_desc(&airs[i], &info[i], t[i].air_desc, i, t[i].log_n) && same_air(airs[i], &t[i])) {
            info[i].desc_ok = 1;
            continue;
        }
        gs_air_free(airs[i]);
        airs[i] = NULL;
        /* The description may be wrong while the AIR is still fib (whose
         * fingerprint does not depend on the height). */
        memset(&info[i], 0, sizeof info[i]);
        snprintf(info[i].family, sizeof info[i].family, "fib");
        if (gs_airs_fib_air(&airs[i]) == GS_OK && same_air(airs[i], &t[i])) continue;
        gs_air_free(airs[i]);
        airs[i] = NULL;
        char fp[65], where[32] = "";
        cli_hex(fp, &t[i].air_fingerprint);
        if (n > 1) snprintf(where, sizeof where, "table %u: ", i);
        cli_err("%sunknown AIR %s: verify it with the library (see docs/air-guide.md)", where, fp);
        return CLI_USAGE;
    }
    /* A synth statement is one preset at one shrink, all of its tables in
     * order (the review found a proof of 3 of uniform's 8 tables, and one of
     * shrink 5 relabelled shrink 0, verified as what they claimed). */
    uint32_t want = 0;
    int synth0 = info[0].desc_ok && !strcmp(info[0].family, "synth") &&
                 gs_synth_preset_tables(&want, info[0].preset) == GS_OK;
    for (uint32_t i = 0; i < n; i++) {
        if (!info[i].desc_ok || strcmp(info[i].family, "synth") != 0) continue;
        if (!synth0 || strcmp(info[i].preset, info[0].preset) != 0 || info[i].shrink != info[0].shrink ||
            want != n) {
            cli_err("table %u: a synth proof holds every table of one preset at one shrink, in "
                    "order; this one has %u tables, table 0 %s shrink %u (a preset of %u tables), "
                    "table %u %s shrink %u",
                    i, n, synth0 ? info[0].preset : "(not synth)", info[0].shrink, want, i,
                    info[i].preset, info[i].shrink);
            return CLI_USAGE;
        }
    }
    for (uint32_t i = 0; i < n; i++) info[i].degree = gs_air_max_degree(airs[i]);
    return CLI_OK;
}

void cli_table_name(char *out, size_t cap, const gs_proof *p, const cli_table_info *inf) {
    char d[sizeof p->air_desc];
    cli_safe(d, sizeof d, p->air_desc);
    if (inf->desc_ok) snprintf(out, cap, "%s", d);
    else snprintf(out, cap, "%s (described as '%s')", inf->family, d);
}

/* ---- --expect ---- */

enum { KEY_AIR, KEY_TABLES, KEY_PRESET, KEY_SHRINK, KEY_LOG_ROWS, KEY_COLS, KEY_DEGREE, KEY_SEED,
       KEY_PUB, KEY_PUB_I };
static const char *const key_names[] = {"air",  "tables", "preset", "shrink", "log-rows",
                                        "cols", "degree", "seed",   "pub",    "pub[]"};
/* Keys of one table (need table[T]. on a multi-table proof). */
static int per_table(int key) {
    return key >= KEY_LOG_ROWS;
}

static int parse_u64(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+' || *s == ' ') return 0;
    /* decimal, or hex after 0x; never octal (strtoull's base 0 read "010" as 8) */
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex && (!s[2] || s[2] == '-' || s[2] == '+' || s[2] == ' ')) return 0;
    unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (*end || errno) return 0;
    *out = v;
    return 1;
}

static int parse_fp(const char *s, gs_fp *out) {
    uint64_t v;
    if (!parse_u64(s, &v) || v >= GS_FP_P) return 0;
    *out = v;
    return 1;
}

int cli_expect_parse(cli_expect *e, const char *arg) {
    memset(e, 0, sizeof *e);
    e->text = arg, e->table = -1, e->key = -1;
    const char *eq = strchr(arg, '='), *k = arg;
    if (!eq) {
        cli_err("--expect %s: give KEY=VALUE (see 'gstark verify --help')", arg);
        return 0;
    }
    const char *v = eq + 1;
    unsigned t;
    int used = 0;
    if (!strncmp(k, "table[", 6)) {
        if (sscanf(k, "table[%u].%n", &t, &used) != 1 || used == 0 || t >= GS_PROOF_MAX_TABLES) {
            cli_err("--expect %s: the table prefix is table[T]. with T < %u", arg,
                    GS_PROOF_MAX_TABLES);
            return 0;
        }
        e->table = (int)t, k += used;
    }
    size_t klen = (size_t)(eq - k);
    unsigned long idx;
    for (int i = 0; i < KEY_PUB_I; i++)
        if (strlen(key_names[i]) == klen && !strncmp(k, key_names[i], klen)) e->key = i;
    if (e->key < 0 && !strncmp(k, "pub[", 4)) {
        char *end;
        errno = 0;
        idx = strtoul(k + 4, &end, 10);
        if (end != k + 4 && *end == ']' && end + 1 == eq && !errno && idx < (1ul << 30) &&
            k[4] != '-' && k[4] != '+')
            e->key = KEY_PUB_I, e->index = (long)idx;
    }
    if (e->key < 0) {
        cli_err("--expect %s: unknown key '%.*s' (keys: air, tables, log-rows, cols, degree, "
                "seed, preset, shrink, pub, pub[i]; see 'gstark verify --help')",
                arg, (int)(klen > 40 ? 40 : klen), k);
        return 0;
    }
    if (e->key == KEY_TABLES && e->table >= 0) {
        cli_err("--expect %s: tables is a whole-proof key (no table[T]. prefix)", arg);
        return 0;
    }
    int ok = 1;
    switch (e->key) {
    case KEY_AIR:
    case KEY_PRESET:
        ok = *v && strlen(v) < sizeof e->str;
        if (ok) snprintf(e->str, sizeof e->str, "%s", v);
        break;
    case KEY_PUB: {
        size_t n = 0;
        if (*v) {
            n = 1;
            for (const char *c = v; *c; c++) n += *c == ',';
        }
        e->list = malloc((n ? n : 1) * sizeof *e->list);
        if (!e->list) {
            cli_err("out of memory");
            return 0;
        }
        e->list_len = (uint32_t)n;
        const char *c = v;
        for (size_t i = 0; ok && i < n; i++) {
            char item[32];
            size_t len = strcspn(c, ",");
            ok = len < sizeof item;
            if (ok) {
                memcpy(item, c, len);
                item[len] = '\0';
                ok = parse_fp(item, &e->list[i]);
            }
            c += len + 1;
        }
        break;
    }
    case KEY_PUB_I: ok = parse_fp(v, &e->num); break;
    default: ok = parse_u64(v, &e->num); break;
    }
    if (!ok) {
        cli_err("--expect %s: '%s' is not a valid value for %s%s", arg, v,
                e->key == KEY_PUB || e->key == KEY_PUB_I ? "a public input (a field element < p)"
                                                         : key_names[e->key],
                e->key == KEY_PUB ? " list" : "");
        cli_expect_free(e);
        return 0;
    }
    return 1;
}

void cli_expect_free(cli_expect *e) {
    free(e->list);
    e->list = NULL;
}

/* What the proof has for the key, as text; 0 if it has nothing for it. */
static int have(char *out, size_t cap, const cli_expect *e, const gs_proof *p,
                const cli_table_info *inf, uint32_t num_tables) {
    switch (e->key) {
    case KEY_AIR: snprintf(out, cap, "%s", inf->family); return 1;
    case KEY_TABLES: snprintf(out, cap, "%u", num_tables); return 1;
    case KEY_PRESET:
        if (!inf->preset[0]) return 0;
        snprintf(out, cap, "%s", inf->preset);
        return 1;
    case KEY_SHRINK:
        if (!inf->preset[0]) return 0;
        snprintf(out, cap, "%u", inf->shrink);
        return 1;
    case KEY_LOG_ROWS: snprintf(out, cap, "%u", p->log_n); return 1;
    case KEY_COLS: snprintf(out, cap, "%u", p->table.num_cols); return 1;
    case KEY_DEGREE: snprintf(out, cap, "%u", inf->degree); return 1;
    case KEY_SEED:
        if (!inf->has_seed) return 0;
        snprintf(out, cap, "%" PRIu64, inf->seed);
        return 1;
    case KEY_PUB_I:
        if ((uint64_t)e->index >= p->num_public) return 0;
        snprintf(out, cap, "%" PRIu64, (uint64_t)p->pub[e->index]);
        return 1;
    default: return 0;
    }
}

static int holds(const cli_expect *e, const gs_proof *p, const cli_table_info *inf,
                 uint32_t num_tables) {
    char h[64];
    if (e->key == KEY_PUB)
        return e->list_len == p->num_public &&
               (!p->num_public || !memcmp(e->list, p->pub, p->num_public * sizeof *p->pub));
    if (!have(h, sizeof h, e, p, inf, num_tables)) return 0;
    if (e->key == KEY_AIR || e->key == KEY_PRESET) return !strcmp(h, e->str);
    uint64_t v;
    return parse_u64(h, &v) && v == e->num;
}

static void explain(const cli_expect *e, const gs_proof *p, const cli_table_info *inf,
                    uint32_t num_tables, int multi) {
    char h[64], name[48];
    if (e->key == KEY_PUB_I) snprintf(name, sizeof name, "pub[%ld]", e->index);
    else snprintf(name, sizeof name, "%s", key_names[e->key]);
    char prefix[24] = "";
    if (multi && e->table >= 0) snprintf(prefix, sizeof prefix, "table[%d].", e->table);
    if (e->key == KEY_PUB) {
        fprintf(stderr, "gstark: %s: statement mismatch: expected %s, the proof has %spub=", cli_cmd,
                e->text, prefix);
        cli_print_pub(stderr, p->pub, p->num_public, 0);
        fputc('\n', stderr);
    } else if (have(h, sizeof h, e, p, inf, num_tables)) {
        cli_err("statement mismatch: expected %s, the proof has %s%s=%s", e->text, prefix, name, h);
    } else if (e->key == KEY_PUB_I) {
        cli_err("statement mismatch: expected %s, the proof has %u public inputs", e->text,
                p->num_public);
    } else {
        cli_err("statement mismatch: expected %s, the proof's AIR (%s) has no %s", e->text,
                inf->family, name);
    }
}

int cli_expect_check(const cli_expect *e, size_t n, const gs_proof *tables, uint32_t num_tables,
                     const cli_table_info *info, int multi) {
    for (size_t i = 0; i < n; i++) {
        uint32_t t = 0;
        if (e[i].table >= 0) {
            if ((uint32_t)e[i].table >= num_tables) {
                cli_err("statement mismatch: expected %s, the proof has %u table%s", e[i].text,
                        num_tables, num_tables == 1 ? "" : "s");
                return CLI_REJECTED;
            }
            t = (uint32_t)e[i].table;
        } else if (multi && per_table(e[i].key)) {
            cli_err("--expect %s: a multi-table proof needs the table: table[T].%s", e[i].text,
                    e[i].text);
            return CLI_USAGE;
        }
        if (!holds(&e[i], &tables[t], &info[t], num_tables)) {
            explain(&e[i], &tables[t], &info[t], num_tables, multi);
            return CLI_REJECTED;
        }
    }
    return CLI_OK;
}
