/* The gstark command's pieces. The CLI uses only the public API, and it
 * derives nothing the library derives (security levels, query counts,
 * digests): it asks the library. */
#ifndef GSTARK_CLI_H
#define GSTARK_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gstark/gstark.h"
#include "gstark/sched.h"
#include "gstark/size.h"
#include "gstark/zkvm.h"

/* Exit codes (documented in `gstark help` and README.md). */
typedef enum cli_exit {
    CLI_OK = 0,       /* success; verify: the proof is valid (and of the expected statement) */
    CLI_REJECTED = 1, /* verify only: the proof is invalid or not of the expected statement */
    CLI_USAGE = 2,    /* usage, parameter, input or output errors (nothing was proven) */
    CLI_PROVER = 3    /* prove: the prover failed (unsatisfied trace, out of memory, device) */
} cli_exit;

/* --grinding above this many bits needs --allow-slow (2^30 hashes is about a
 * minute on a few cores; every further bit doubles it). */
#define CLI_GRINDING_FAST_MAX 30u
/* The largest proof file verify and inspect read. */
#define CLI_MAX_PROOF_BYTES ((size_t)1 << 30)

/* The command being run ("prove", ...; "" before one is chosen): every
 * message starts "gstark: <command>: ". */
extern const char *cli_cmd;
/* Prints "gstark: <command>: <message>\n" on stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- help (cli/help.c) ---- */
void cli_help_main(FILE *f);
/* That command's help; 0 if there is no such command. */
int cli_help_command(FILE *f, const char *cmd);

/* ---- options (cli/opts.c) ----
 * getopt_long over argv (argv[0] is the command name). Returns the option's
 * value, -1 when the options end, or '?' after printing one line for an
 * unknown option, a missing value or an unexpected one, with a hint to the
 * command's help. Long options that have no short form use values >= 256. */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);
/* The name an option value stands for ("--air", "-o"), for messages. */
const char *cli_opt_name(const struct option *longopts, int val);
/* Parses a decimal integer within [lo, hi]; prints why not. */
int cli_parse_uint(const char *opt, const char *v, unsigned long lo, unsigned long hi,
                   unsigned long *out);
/* Parses a byte size with gs_size_parse (K/M/G/T, KiB.., KB.., "unlimited"
 * as SIZE_MAX); 0 is refused (it would mean "the default"); prints why not. */
int cli_parse_size(const char *opt, const char *v, size_t *out);
/* A byte count in the library's one unit style (gs_size_format). */
void cli_size_str(char *out, size_t cap, size_t bytes);

/* ---- output files (cli/output.c) ----
 * Rules, one per kind of target (also in `gstark help prove`):
 *   absent or a regular file  written to a temporary file beside it, synced,
 *                             then renamed over it (atomic: never half written)
 *   "-" (for -o only)         standard output (refused when it is a terminal)
 *   character device, FIFO    written through: opened and written in place
 *                             (e.g. /dev/null, a pipe a reader holds open)
 *   symbolic link             refused (give the path it points to)
 *   directory, block device,
 *   socket                    refused
 * cli_out_check runs before any proving: it returns 1 if `path` can take
 * the file (its directory exists and is writable, the target is of an
 * accepted kind), else prints why and returns 0. */
int cli_out_check(const char *opt, const char *path, int allow_stdout);
/* 1 if paths a and b name the same file: the same device and inode when both
 * exist, else the same canonical path (the directory's realpath and the
 * name), so "./f.proof" and "f.proof" match; "-" matches only "-". */
int cli_same_file(const char *a, const char *b);
/* Writes by the rules above; returns CLI_OK or CLI_USAGE (message printed). */
int cli_out_write(const char *path, const uint8_t *buf, size_t len);
/* 1 if `path` is "-" (standard output). */
int cli_out_is_stdout(const char *path);

/* ---- reading inputs (cli/util.c) ---- */
/* Reads a whole file, or standard input for "-" (at most max bytes); on
 * failure prints why, naming the file as `what` ("proof file", "ELF file":
 * "is a directory", "larger than ...") and returns CLI_USAGE. */
int cli_read_input(const char *what, const char *path, uint8_t **buf, size_t *len, size_t max);
/* The exit code for parsing a proof file: CLI_OK, or (printing why)
 * CLI_REJECTED for malformed bytes and CLI_USAGE when memory ran out. */
int cli_parse_result(const char *path, gs_status s);

/* --quiet on a terminal: the prover draws its progress line whenever stderr
 * is a terminal, so while it runs, fd 2 points at /dev/null and the obs's
 * warnings (which --quiet keeps) go to a stream on the real stderr. Does
 * nothing when stderr is not a terminal (no line is drawn then). */
typedef struct cli_hush {
    int saved;  /* the real fd 2, or -1 */
    FILE *warn; /* the warnings' stream on it, or NULL */
} cli_hush;
void cli_hush_begin(cli_hush *h, gs_obs *obs);
void cli_hush_end(cli_hush *h, gs_obs *obs);

/* ---- printing (cli/util.c) ---- */
double cli_now(void);
void cli_hex(char out[65], const gs_digest *d);
/* Parses 64 hex digits into a digest; 0 if malformed. */
int cli_unhex(gs_digest *out, const char *hex);
/* A copy of untrusted text (a proof's air_desc) safe to print: bytes outside
 * printable ASCII become '?'. */
void cli_safe(char *out, size_t cap, const char *in);
/* A proof's params.hash as the library names it ("keccak256", "poseidon2"),
 * "unknown" for an id it does not know. */
const char *cli_hash_name(uint32_t hash);
/* inspect's "  parameters  blowup 4, 54 queries, ..." line, with the layout
 * the parameters choose (shared FRI or trees, coset leaves). */
void cli_print_params(const gs_params *q);
/* "80 bits (conjectured; 41 bits provable)" */
void cli_security_str(char *out, size_t cap, unsigned conjectured, unsigned provable);
/* The public inputs, "[1, 2, 3]"; with more than 8 and !all, the first 6,
 * "...", the last 2 and the count. */
void cli_print_pub(FILE *f, const gs_fp *pub, uint32_t n, int all);
/* A JSON string (quoted, escaped) and a JSON array of numbers. */
void cli_json_str(FILE *f, const char *s);
void cli_json_pub(FILE *f, const gs_fp *pub, uint32_t n);
/* Bytes as a JSON string: printable ASCII as is, the rest \u00XX (so each
 * code point is one byte, and the bytes come back exactly as latin-1). */
void cli_json_bytes(FILE *f, const uint8_t *p, size_t n);
/* The backend line of a proof's summary. */
void cli_print_backend(FILE *f, const gs_prove_stats *st);

/* ---- commands ---- */
int cli_demo(int argc, char **argv);
int cli_prove(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_run(int argc, char **argv); /* cli/run.c: the zkVM */
int cli_batch(int argc, char **argv); /* cli/batch.c: many claims over lanes */

/* How a command prints: quiet drops summaries and progress, verbose prints
 * every public input, json prints one JSON object on stdout instead of the
 * human summary. `human` is where the human summary goes: stdout, or
 * stderr when stdout carries the proof or the JSON; NULL when quiet. */
typedef struct cli_print {
    int quiet, verbose, json;
    FILE *human;
} cli_print;

/* ---- the zkVM's proofs (cli/zkvm.c) ----
 * A run's proof file (gs_zkvm_proof_serialize) starts with "GSZKVM01" and
 * carries the input and outputs; verify checks it against the ELF the user
 * gives (--elf), never against anything the file says of its program. */
/* The most cycles one proof holds (the zkVM's tallest table, one row kept
 * for padding): --max-cycles' default and upper bound. */
#define CLI_ZKVM_MAX_CYCLES ((UINT64_C(1) << GS_ZKVM_MAX_LOG_ROWS) - 1)
/* The largest input file read (the library then refuses inputs above
 * GS_ZKVM_MAX_INPUT with its own message). */
#define CLI_ZKVM_MAX_INPUT_READ ((size_t)1 << 30)
/* 1 if the bytes start like a run's proof file. */
int cli_zkvm_is_proof(const uint8_t *buf, size_t len);
/* Reads and loads an ELF program; CLI_OK or CLI_USAGE (the loader's reason
 * printed, as gstark run prints it). */
int cli_zkvm_load(gs_zkvm_program **p, const char *path);

/* Multi-table proving (cli/multi.c). */
typedef struct cli_sched {
    unsigned tables_parallel; /* 0: default */
    size_t mem_budget;        /* 0: default */
    int strict_budget;
    int report;               /* print the timing report */
    const char *metrics;      /* write JSON-lines metrics here (NULL: no) */
    const char *timeline;     /* write the Chrome-trace timeline here (NULL: no) */
    gs_backend_kind backend;
    int no_fallback;
    size_t device_budget;     /* 0: default */
    unsigned provable;        /* --provable-security BITS (0: no): parameters chosen per statement */
    unsigned provable_min_log_blowup, provable_max_log_blowup;
} cli_sched;
/* The parameters for --provable-security (sc->provable) for these tables,
 * from *par's grinding, final degree, arity and hash (gs_params_for_provable);
 * CLI_USAGE with the reachable level if none reaches it. */
int cli_params_provable(gs_params *par, const cli_sched *sc, const gs_air *const *airs,
                        const unsigned *log_n, uint32_t n);
int cli_prove_synth(const char *preset, unsigned shrink, uint64_t seed, const gs_params *par,
                    int no_check, const cli_sched *sc, const char *out, const cli_print *pr);
/* The exit code for a failed gs_prove / gs_prove_multi (message printed,
 * with st's budget numbers for GS_ERR_BUDGET): CLI_USAGE for parameter
 * errors (found before proving), CLI_PROVER for the rest. */
int cli_prove_failed(gs_status s, const gs_prove_stats *st);
/* --metrics: the obs's JSON lines as one buffer, written by the output rules
 * like the proof; CLI_OK or CLI_USAGE (message printed). */
int cli_write_metrics(const char *path, const gs_obs *obs);
/* --timeline: gs_obs_write_chrome_trace's JSON, written the same way. */
int cli_write_timeline(const char *path, const gs_obs *obs);
/* Both, as asked for in sc (metrics, then the timeline); CLI_OK or CLI_USAGE. */
int cli_write_obs_files(const cli_sched *sc, const gs_obs *obs);

/* gstark prove --elf (cli/zkvm.c). */
typedef struct cli_zkvm_run {
    const char *elf;          /* the program */
    const char *input;        /* its input file ("-": standard input), or NULL: empty */
    uint64_t max_cycles;      /* 0: CLI_ZKVM_MAX_CYCLES */
} cli_zkvm_run;
int cli_zkvm_prove(const cli_zkvm_run *z, const gs_params *par, int no_check,
                   const cli_sched *sc, const char *out, const cli_print *pr);

/* gstark verify and inspect on a run's proof file (its bytes already read;
 * path names it). */
typedef struct cli_zkvm_check {
    const char *elf;          /* the program the proof must be of (required) */
    const char *input;        /* the input it must be of, or NULL: any */
    unsigned min_bits;        /* --min-security */
    const gs_digest *statement; /* --statement, or NULL */
    const char *statement_text;
} cli_zkvm_check;
int cli_zkvm_verify(const char *path, const uint8_t *buf, size_t len, const cli_zkvm_check *c,
                    const cli_print *pr);
int cli_zkvm_inspect(const char *path, const uint8_t *buf, size_t len, int verbose, int json);

/* What prove prints once the proof is written (cli/summary.c). */
typedef struct cli_proved {
    const char *name;         /* "fib", "mix cols=...", "synth preset=vm shrink=4" */
    gs_proof *single;         /* the proof: one of these two */
    gs_multi_proof *mp;
    const gs_prove_stats *st;
    double trace_s;           /* building the trace(s) */
    size_t cells;             /* trace cells, all tables */
    const char *out;          /* where it was written */
    size_t bytes;             /* its size */
    /* What a kind of statement adds (cli/zkvm.c: a run's claim), or NULL:
     * human lines after the first line, or JSON fields (each starting with
     * ','). With it, the tables' public inputs print only with --verbose. */
    void (*extra)(FILE *f, int json, const void *ctx);
    const void *extra_ctx;
} cli_proved;
void cli_print_proved(const cli_print *pr, const cli_proved *x);

/* The bytes of a table's proof by part (what inspect prints). */
typedef gs_proof_parts cli_parts;

/* ---- a proof file, single- or multi-table (cli/load.c) ---- */
typedef struct cli_loaded {
    int multi;                /* a multi-table file (version 2, or 3 with MHDR) */
    uint32_t version;         /* the file's format version (0 for a proof not read from a file) */
    gs_proof *single;         /* the parsed proof: one of these two */
    gs_multi_proof *mp;
    const gs_proof *tables;   /* its tables (one for a single-table proof) */
    uint32_t n;
    const gs_params *params;
    size_t bytes;             /* the file's size */
    gs_digest statement;      /* gs_proof_statement_digest or the multi one */
    unsigned conjectured;     /* gs_params_security */
    unsigned provable;        /* gs_proof_security_provable or the multi one */
} cli_loaded;
/* Reads and parses `path` ("-": standard input). Returns CLI_OK, CLI_USAGE
 * when it cannot be read, or `malformed` (message printed) when its bytes
 * are not a proof. */
int cli_load(cli_loaded *L, const char *path, int malformed);
/* The same for a file's bytes already read (path names it in messages). */
int cli_load_buf(cli_loaded *L, const char *path, const uint8_t *buf, size_t len, int malformed);
void cli_loaded_free(cli_loaded *L);
/* The same fields for a proof in memory (not owned: do not free the view). */
void cli_loaded_view(cli_loaded *L, gs_proof *single, gs_multi_proof *mp, size_t bytes);
/* "fib", "mix cols=..." or, for several tables, "synth preset=vm shrink=4"
 * (what the tables have in common), made safe to print. */
void cli_loaded_name(char *out, size_t cap, const cli_loaded *L);
/* The JSON fields every command prints about a proof (no braces): "tables",
 * "security_bits", "provable_bits", "params", "statement". */
void cli_json_proof(FILE *f, const cli_loaded *L, int parts);

/* ---- statements (cli/statement.c) ----
 * Rebuilding the AIR of each table from its air_desc ("fib", "mix cols=C
 * degree=D log_n=N seed=S", "synth preset=P shrink=K table=I"): a table is
 * known when the AIR so rebuilt (or the fib AIR) has the proof's
 * fingerprint; the verifier then checks the proof against it. */
typedef struct cli_table_info {
    char family[8];   /* "fib", "mix" or "synth" */
    int desc_ok;      /* the AIR is the one air_desc names (else: fib, whatever it says) */
    unsigned degree;  /* the AIR's largest constraint degree */
    int has_seed;     /* mix: seed is part of the AIR */
    uint64_t seed;
    char preset[16];  /* synth */
    unsigned shrink;
} cli_table_info;
/* airs[i] and info[i] for each of the n entries; returns CLI_OK, or prints
 * "unknown AIR <fingerprint>: ..." and returns CLI_USAGE (or CLI_USAGE on out
 * of memory). airs are freed by the caller (gs_air_free each, free(airs)). */
int cli_rebuild_airs(gs_air ***airs, cli_table_info **info, const gs_proof *tables, uint32_t n);
/* What table p verified as: its air_desc when that named its AIR, else
 * "fib (described as '...')"; safe to print. */
void cli_table_name(char *out, size_t cap, const gs_proof *p, const cli_table_info *inf);

/* --expect KEY=VALUE, parsed before the proof is read. */
typedef struct cli_expect {
    const char *text; /* as given */
    int table;        /* table[T]. prefix, or -1 */
    int key;          /* CLI_KEY_* */
    long index;       /* pub[i] */
    char str[64];     /* air, preset */
    uint64_t num;     /* numeric keys */
    gs_fp *list;      /* pub=V1,V2,... */
    uint32_t list_len;
} cli_expect;
/* Parses one --expect argument; prints why not and returns 0 if malformed. */
int cli_expect_parse(cli_expect *e, const char *arg);
void cli_expect_free(cli_expect *e);
/* CLI_OK if every expectation holds for the proof's tables; else prints the
 * first that fails ("statement mismatch: ...") and returns CLI_REJECTED, or
 * CLI_USAGE for a per-table key without table[T]. on a multi-table proof.
 * `multi` says whether the proof is a multi-table one. */
int cli_expect_check(const cli_expect *e, size_t n, const gs_proof *tables, uint32_t num_tables,
                     const cli_table_info *info, int multi);

#endif
