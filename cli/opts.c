/* Option parsing for every command: getopt_long with one-line errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_cmd = "";

void cli_err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (*cli_cmd) fprintf(stderr, "gstark: %s: ", cli_cmd);
    else fprintf(stderr, "gstark: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *cli_opt_name(const struct option *longopts, int val) {
    static char buf[64];
    for (const struct option *o = longopts; o && o->name; o++) {
        if (!o->flag && o->val == val) {
            snprintf(buf, sizeof buf, "--%s", o->name);
            return buf;
        }
    }
    snprintf(buf, sizeof buf, "-%c", val > 0 && val < 128 ? val : '?');
    return buf;
}

static void hint(void) {
    fprintf(stderr, " (see 'gstark %s --help')\n", cli_cmd);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts) {
    char spec[64];
    snprintf(spec, sizeof spec, ":%s", shortopts); /* ':' reports a missing value apart */
    opterr = 0;
    int prev = optind;
    int c = getopt_long(argc, argv, spec, longopts, NULL);
    if (c != '?' && c != ':') return c;
    /* The word that failed: the one getopt stepped over (a short option
     * inside a cluster leaves optind where it was). */
    const char *word = optind > prev ? argv[optind - 1] : argv[prev];
    int is_long = word && word[0] == '-' && word[1] == '-';
    fprintf(stderr, "gstark: %s: ", cli_cmd);
    if (c == ':') {
        fprintf(stderr, "option '%s' needs a value", is_long ? cli_opt_name(longopts, optopt)
                                                           : cli_opt_name(NULL, optopt));
    } else if (is_long && optopt) {
        fprintf(stderr, "option '%s' takes no value", cli_opt_name(longopts, optopt));
    } else if (is_long) {
        size_t n = strcspn(word, "=");
        int matches = 0;
        for (const struct option *o = longopts; o->name; o++)
            matches += n > 2 && !strncmp(o->name, word + 2, n - 2);
        fprintf(stderr, "%s option '%.*s'", matches > 1 ? "ambiguous" : "unknown",
                (int)(n > 60 ? 60 : n), word);
    } else {
        fprintf(stderr, "unknown option '-%c'", optopt > 32 && optopt < 127 ? optopt : '?');
    }
    hint();
    return '?';
}

int cli_parse_uint(const char *opt, const char *v, unsigned long lo, unsigned long hi,
                   unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long x = v ? strtoul(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || x < lo || x > hi || v[0] == '-' || v[0] == '+' ||
        v[0] == ' ') {
        cli_err("%s needs an integer in %lu..%lu (got '%s')", opt, lo, hi, v ? v : "");
        return 0;
    }
    *out = x;
    return 1;
}

int cli_parse_size(const char *opt, const char *v, size_t *out) {
    uint64_t x;
    if (gs_size_parse(v, &x) != GS_OK || (x > SIZE_MAX && x != GS_SIZE_UNLIMITED)) {
        cli_err("%s needs a size such as 512M, 2GiB, 1500MB, 1048576 or unlimited (got '%s')", opt,
                v);
        return 0;
    }
    if (x == 0) {
        cli_err("%s 0: give a size above 0 (leave the option out for the default)", opt);
        return 0;
    }
    *out = x == GS_SIZE_UNLIMITED ? SIZE_MAX : (size_t)x;
    return 1;
}

void cli_size_str(char *out, size_t cap, size_t bytes) {
    char b[GS_SIZE_BUF];
    snprintf(out, cap, "%s", gs_size_format(b, bytes == SIZE_MAX ? GS_SIZE_UNLIMITED : bytes));
}
