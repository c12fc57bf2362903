#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int cli_fail(const char *what, gs_status s) {
    fprintf(stderr, "gstark: %s: %s\n", what, gs_status_str(s));
    return CLI_INVALID;
}

void cli_print_backend(const gs_prove_stats *st) {
    printf("  backend %s", st->backend);
    if (st->device_peak_bytes) printf(", device peak %.1f MB", (double)st->device_peak_bytes / 1e6);
    if (st->cpu_fallbacks)
        printf(", %u table(s) fell back to the CPU after a device failure (%s)", st->cpu_fallbacks,
               st->device_error);
    printf("\n");
}

int cli_parse_result(const char *path, gs_status s) {
    if (s == GS_OK) return CLI_OK;
    fprintf(stderr, "gstark: %s: %s\n", path, gs_status_str(s));
    return s == GS_ERR_NOMEM ? CLI_USAGE : CLI_INVALID;
}

int cli_parse_uint(const char *opt, const char *v, unsigned long lo, unsigned long hi,
                   unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long x = v ? strtoul(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || x < lo || x > hi || v[0] == '-') {
        fprintf(stderr, "gstark: %s needs an integer in %lu..%lu (got %s)\n", opt, lo, hi,
                v ? v : "nothing");
        return 0;
    }
    *out = x;
    return 1;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_hex(char out[65], const gs_digest *d) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d->b[i]);
}

gs_status cli_read_file(const char *path, uint8_t **buf, size_t *len, size_t max) {
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return GS_ERR_IO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        fclose(f);
        errno = EFBIG;
        return GS_ERR_IO;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) {
        fclose(f);
        return GS_ERR_NOMEM;
    }
    size_t got = fread(b, 1, n, f);
    int extra = fgetc(f) != EOF; /* the file grew while being read */
    fclose(f);
    if (got != n || extra) {
        free(b);
        errno = EIO;
        return GS_ERR_IO;
    }
    *buf = b;
    *len = n;
    return GS_OK;
}

gs_status cli_write_atomic(const char *path, const uint8_t *buf, size_t len) {
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 32);
    if (!tmp) return GS_ERR_NOMEM;
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(tmp);
        return GS_ERR_IO;
    }
    int ok = fwrite(buf, 1, len, f) == len;
    ok = fflush(f) == 0 && ok;
    ok = fsync(fileno(f)) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return ok ? GS_OK : GS_ERR_IO;
}

void cli_table_parts(cli_parts *o, const gs_proof *p) {
    const gs_table_proof *t = &p->table;
    size_t Q = t->num_queries, D = sizeof(gs_digest), logN = p->log_n + p->params.log_blowup;
    size_t fri_path = 0, A = t->aux_cols;
    for (uint32_t l = 0; l < t->num_layers; l++) fri_path += logN - 1 - l;
    o->commits = (2 + (A ? 1 : 0)) * D + t->num_layers * D;
    o->ood = (2 * (size_t)t->num_cols + t->num_chunks + 2 * A + (A ? 1 : 0)) * 24;
    o->final = (size_t)t->final_len * 24;
    o->trace_q = Q * (t->num_cols * 8 + logN * D);
    o->chunk_q = Q * (t->num_chunks * 24 + logN * D);
    o->fri_q = Q * (t->num_layers * 48 + fri_path * D);
    o->aux_q = A ? Q * (A * 24 + logN * D) : 0;
    o->total = o->commits + o->ood + o->final + o->trace_q + o->chunk_q + o->fri_q + o->aux_q;
}
