/* The gstark command's pieces. The CLI uses only the public API. */
#ifndef GSTARK_CLI_H
#define GSTARK_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gstark/gstark.h"
#include "gstark/sched.h"

/* Exit codes: 0 success / valid proof, 1 invalid proof or failed proving,
 * 2 usage or I/O error. */
enum { CLI_OK = 0, CLI_INVALID = 1, CLI_USAGE = 2 };

void cli_usage(FILE *f);
int cli_demo(int argc, char **argv);
int cli_prove(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_inspect(int argc, char **argv);

/* Multi-table statements (cli/multi.c). */
typedef struct {
    unsigned tables_parallel; /* 0: default */
    size_t mem_budget;        /* 0: default */
    int report;               /* print the timing report on stdout */
    const char *metrics;      /* write JSON-lines metrics here (NULL: no) */
    gs_backend_kind backend;
    int no_fallback;
    size_t device_budget;     /* 0: default */
} cli_sched;
/* The backend line of a proof's summary: which backend, device peak, and
 * how many tables fell back to the CPU. */
void cli_print_backend(const gs_prove_stats *st);
int cli_prove_synth(const char *preset, unsigned shrink, uint64_t seed, const gs_params *par,
                    int no_check, const cli_sched *sc, const char *out);
int cli_verify_multi(const char *path, const uint8_t *buf, size_t len, unsigned min_bits);
int cli_inspect_multi(const char *path, const uint8_t *buf, size_t len);

/* The bytes of a table's proof by part (what inspect prints). */
typedef struct {
    size_t commits, ood, final, trace_q, chunk_q, fri_q, aux_q, total;
} cli_parts;
void cli_table_parts(cli_parts *out, const gs_proof *p);

/* The exit code for parsing a proof file: CLI_OK, or (printing why)
 * CLI_INVALID for malformed bytes and CLI_USAGE when memory ran out. */
int cli_parse_result(const char *path, gs_status s);

/* Prints "gstark: what: status" and returns 1. */
int cli_fail(const char *what, gs_status s);
/* Parses a decimal integer option value within [lo, hi]; prints why not. */
int cli_parse_uint(const char *opt, const char *v, unsigned long lo, unsigned long hi,
                   unsigned long *out);
double cli_now(void);
void cli_hex(char out[65], const gs_digest *d);
/* Reads a whole file (at most max bytes); GS_ERR_IO with errno kept. */
gs_status cli_read_file(const char *path, uint8_t **buf, size_t *len, size_t max);
/* Writes a file atomically: a temporary name beside it, fsync, rename. On
 * any failure the temporary is removed and `path` is untouched. */
gs_status cli_write_atomic(const char *path, const uint8_t *buf, size_t len);

#endif
