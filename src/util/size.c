/* Byte counts: the parser and the printer of include/gstark/size.h. */
#include <stdio.h>
#include <string.h>

#include "gstark/size.h"

static char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* s equals word (lower case) ignoring the case of s. */
static int equals_nocase(const char *s, const char *word) {
    for (; *word; s++, word++)
        if (ascii_lower(*s) != *word) return 0;
    return *s == '\0';
}

gs_status gs_size_parse(const char *s, uint64_t *out) {
    if (!s || !out || !*s) return GS_ERR_INVALID_ARG;
    if (equals_nocase(s, "unlimited")) {
        *out = GS_SIZE_UNLIMITED;
        return GS_OK;
    }
    uint64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) return GS_ERR_INVALID_ARG;
        v = v * 10 + d;
    }
    if (p == s) return GS_ERR_INVALID_ARG; /* no digits: sign, space, letter, "." ... */
    static const struct {
        const char *name; /* lower case */
        uint64_t base;
        unsigned power;
    } units[] = {
        {"", 1, 0},       {"b", 1, 0},
        {"k", 1024, 1},   {"m", 1024, 2},   {"g", 1024, 3},   {"t", 1024, 4},
        {"kib", 1024, 1}, {"mib", 1024, 2}, {"gib", 1024, 3}, {"tib", 1024, 4},
        {"kb", 1000, 1},  {"mb", 1000, 2},  {"gb", 1000, 3},  {"tb", 1000, 4},
    };
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (!equals_nocase(p, units[u].name)) continue;
        for (unsigned k = 0; k < units[u].power; k++) {
            if (v > UINT64_MAX / units[u].base) return GS_ERR_INVALID_ARG;
            v *= units[u].base;
        }
        *out = v;
        return GS_OK;
    }
    return GS_ERR_INVALID_ARG;
}

const char *gs_size_format(char buf[GS_SIZE_BUF], uint64_t bytes) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const unsigned last = sizeof unit / sizeof unit[0] - 1;
    if (!buf) return "?";
    if (bytes == GS_SIZE_UNLIMITED) {
        snprintf(buf, GS_SIZE_BUF, "unlimited");
        return buf;
    }
    if (bytes < 1024) {
        snprintf(buf, GS_SIZE_BUF, "%u B", (unsigned)bytes);
        return buf;
    }
    double v = (double)bytes;
    unsigned u = 0;
    while (v >= 1024.0 && u < last) v /= 1024.0, u++;
    /* Three significant digits; a value that would round up to 1024 is
     * shown in the next unit ("1 MiB", not "1024 KiB"). */
    if (v >= 1023.5 && u < last) v /= 1024.0, u++;
    int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    char num[8]; /* at most "1023.99"'s length: v < 1024 */
    if (snprintf(num, sizeof num, "%.*f", decimals, v) >= (int)sizeof num) num[0] = '\0';
    char *dot = strchr(num, '.');
    if (dot) { /* "1.50" -> "1.5", "2.00" -> "2" */
        char *end = dot + strlen(dot);
        while (end > dot + 1 && end[-1] == '0') end--;
        if (end == dot + 1) end = dot;
        *end = '\0';
    }
    snprintf(buf, GS_SIZE_BUF, "%s %s", num, unit[u]);
    return buf;
}
