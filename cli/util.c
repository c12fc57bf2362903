/* Reading input files and printing what the commands print. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int cli_read_input(const char *what, const char *path, uint8_t **buf, size_t *len, size_t max) {
    *buf = NULL;
    *len = 0;
    int is_stdin = !strcmp(path, "-");
    const char *name = is_stdin ? "standard input" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_err("reading the %s %s: %s", what, name, strerror(errno));
        return CLI_USAGE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        cli_err("reading the %s %s: %s", what, name, strerror(errno));
        if (!is_stdin) close(fd);
        return CLI_USAGE;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!is_stdin) close(fd);
        cli_err("reading the %s %s: is a directory", what, name);
        return CLI_USAGE;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        if (!is_stdin) close(fd);
        cli_err("reading the %s %s: larger than %zu MiB, the most it may be", what, name, max >> 20);
        return CLI_USAGE;
    }
    /* Read to the end (a FIFO or a pipe has no size up front), refusing
     * more than max bytes. */
    size_t cap = S_ISREG(st.st_mode) && (uint64_t)st.st_size < max ? (size_t)st.st_size + 1 : 65536;
    uint8_t *b = malloc(cap);
    size_t n = 0;
    int rc = b ? CLI_OK : CLI_USAGE;
    if (!b) cli_err("reading the %s %s: out of memory", what, name);
    while (rc == CLI_OK) {
        if (n == cap) {
            size_t ncap = cap * 2;
            uint8_t *nb = realloc(b, ncap);
            if (!nb) {
                cli_err("reading the %s %s: out of memory", what, name);
                rc = CLI_USAGE;
                break;
            }
            b = nb, cap = ncap;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            cli_err("reading the %s %s: %s", what, name, strerror(errno));
            rc = CLI_USAGE;
        } else if (r == 0) {
            break;
        } else if ((n += (size_t)r) > max) {
            cli_err("reading the %s %s: larger than %zu MiB, the most it may be", what, name,
                    max >> 20);
            rc = CLI_USAGE;
        }
    }
    if (!is_stdin) close(fd);
    if (rc != CLI_OK) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return CLI_OK;
}

void cli_hush_begin(cli_hush *h, gs_obs *obs) {
    h->saved = -1, h->warn = NULL;
    if (!isatty(STDERR_FILENO)) return;
    int w = dup(STDERR_FILENO);
    h->warn = w >= 0 ? fdopen(w, "w") : NULL;
    if (!h->warn) {
        if (w >= 0) close(w);
        return;
    }
    int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
    fflush(stderr);
    h->saved = nul >= 0 ? dup(STDERR_FILENO) : -1;
    if (h->saved >= 0 && dup2(nul, STDERR_FILENO) < 0) {
        close(h->saved);
        h->saved = -1;
    }
    if (nul >= 0) close(nul);
    gs_obs_set_warning_stream(obs, h->warn);
}

void cli_hush_end(cli_hush *h, gs_obs *obs) {
    if (h->saved >= 0) {
        fflush(stderr);
        dup2(h->saved, STDERR_FILENO);
        close(h->saved);
    }
    if (h->warn) {
        gs_obs_set_warning_stream(obs, stderr);
        fclose(h->warn);
    }
    h->saved = -1, h->warn = NULL;
}

int cli_parse_result(const char *path, gs_status s) {
    if (s == GS_OK) return CLI_OK;
    cli_err("%s: %s", path, gs_status_str(s));
    return s == GS_ERR_NOMEM ? CLI_USAGE : CLI_REJECTED;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_hex(char out[65], const gs_digest *d) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d->b[i]);
}

int cli_unhex(gs_digest *out, const char *hex) {
    if (strlen(hex) != 64) return 0;
    for (int i = 0; i < 64; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
        if (v < 0) return 0;
        if (i % 2 == 0) out->b[i / 2] = (uint8_t)(v << 4);
        else out->b[i / 2] |= (uint8_t)v;
    }
    return 1;
}

void cli_safe(char *out, size_t cap, const char *in) {
    size_t i = 0;
    for (; cap && i + 1 < cap && in[i]; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (cap) out[i] = '\0';
}

const char *cli_hash_name(uint32_t hash) {
    const char *n = gs_hash_name((gs_hash_id)hash);
    return n ? n : "unknown";
}

void cli_print_params(const gs_params *q) {
    printf("  parameters  blowup %u, %u queries, %u grinding bits, final degree < %u, fold by %u, "
           "cap height %u%s\n",
           1u << q->log_blowup, q->num_queries, q->grinding_bits, 1u << q->log_final,
           1u << q->log_arity, q->cap_height,
           q->shared_fri == GS_SHARED_TREES ? ", one FRI and one tree per round for all tables"
           : q->shared_fri                          ? ", one FRI for all tables"
           : q->coset_leaves == GS_COSET_LEAVES_ALL ? ", coset leaves (every table)"
           : q->coset_leaves                        ? ", coset leaves"
                                                    : "");
}

void cli_security_str(char *out, size_t cap, unsigned conjectured, unsigned provable) {
    snprintf(out, cap, "%u bits (conjectured; %u bits provable)", conjectured, provable);
}

void cli_print_pub(FILE *f, const gs_fp *pub, uint32_t n, int all) {
    fputc('[', f);
    int cut = !all && n > 8;
    for (uint32_t i = 0; i < n; i++) {
        if (cut && i == 6) {
            fprintf(f, ", ...");
            i = n - 2;
        }
        fprintf(f, "%s%" PRIu64, i ? ", " : "", (uint64_t)pub[i]);
    }
    fputc(']', f);
    if (cut) fprintf(f, " (%u values; -v prints all)", n);
}

void cli_json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void cli_json_pub(FILE *f, const gs_fp *pub, uint32_t n) {
    fputc('[', f);
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", (uint64_t)pub[i]);
    fputc(']', f);
}

void cli_json_bytes(FILE *f, const uint8_t *p, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c >= 0x20 && c < 0x7F) fputc(c, f);
        else fprintf(f, "\\u%04x", c);
    }
    fputc('"', f);
}

void cli_print_backend(FILE *f, const gs_prove_stats *st) {
    fprintf(f, "  backend %s", st->backend);
    if (st->device_peak_bytes) {
        char b[32];
        cli_size_str(b, sizeof b, st->device_peak_bytes);
        fprintf(f, ", device peak %s", b);
    }
    if (st->spill_peak_bytes) {
        char b[32];
        cli_size_str(b, sizeof b, st->spill_peak_bytes);
        fprintf(f, ", out of core %s (page-locked host memory)", b);
    }
    if (st->cpu_fallbacks) {
        char e[sizeof st->device_error];
        cli_safe(e, sizeof e, st->device_error);
        fprintf(f, ", %u table(s) fell back to the CPU after a device failure (%s)",
                st->cpu_fallbacks, e);
    }
    fprintf(f, "\n");
}

