/* gs_parse_size: byte counts as users write them on the command line or in
 * the environment ("512M", "2G", "unlimited"). Strict on purpose: a budget
 * that silently parsed as something else (" 2G" as 0, "1.5G" as 1) would be
 * worse than an error. */
#include "gstark/sched.h"

static char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static int equals_nocase(const char *s, const char *word) {
    for (; *word; s++, word++)
        if (ascii_lower(*s) != *word) return 0;
    return *s == '\0';
}

gs_status gs_parse_size(size_t *out, const char *s) {
    if (!out || !s || !*s) return GS_ERR_INVALID_ARG;
    if (equals_nocase(s, "unlimited")) {
        *out = GS_GATE_UNLIMITED;
        return GS_OK;
    }
    size_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10) return GS_ERR_INVALID_ARG;
        v = v * 10 + d;
    }
    if (p == s) return GS_ERR_INVALID_ARG; /* no digits: sign, space, letter... */
    unsigned shift = 0;
    switch (ascii_lower(*p)) {
    case '\0': break;
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: return GS_ERR_INVALID_ARG;
    }
    if (shift) {
        if (p[1] != '\0') return GS_ERR_INVALID_ARG; /* "1KB", "1G ", "2GG" */
        /* On a 32-bit size_t a T shift is as wide as the type (undefined
         * behaviour): only "0T" fits there. */
        if (shift >= sizeof(size_t) * 8) return v == 0 ? (*out = 0, GS_OK) : GS_ERR_INVALID_ARG;
        if (v > (SIZE_MAX >> shift)) return GS_ERR_INVALID_ARG;
        v <<= shift;
    }
    *out = v;
    return GS_OK;
}
