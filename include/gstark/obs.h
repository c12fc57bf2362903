/* Observability: spans per phase and per table, a timing
 * report whose phase rows add up to the wall time, one JSON line per proving
 * piece, and a progress line on a terminal.
 *
 * One gs_obs per proof run (or batch). Every function is thread-safe, and
 * every function accepts a NULL gs_obs and then does nothing (returns -1, 0
 * or GS_OK as fitting), so the prover calls them unconditionally. Recording
 * takes a mutex: spans are meant for coarse pieces (a phase, a table's
 * round), not for per-row loops.
 *
 * Spans and workers. gs_obs_begin opens a span on the calling thread. Spans
 * nest per thread: a span begun while another is open on the same thread
 * becomes its child; spans on different threads never nest implicitly (use
 * gs_obs_begin_under to hang a worker's span under a span of another
 * thread). Each span records a "worker": a small lane number. A live thread
 * keeps one lane for the whole gs_obs (the first thread to record gets 0,
 * the next 1, ...); a lane whose thread has exited and whose spans are all
 * closed is reused by the next new thread, so gs_parallel_for (which starts
 * threads per call) does not make the numbers grow without bound. Spans on
 * one lane are either nested or disjoint in time.
 *
 * Time is kept in integer nanoseconds since gs_obs_new, so sums are exact.
 *
 * The report (gs_obs_report, gs_obs_summarize):
 *   - phase rows: the spans with table -1 and no parent (the whole-proof
 *     phases: "check", "main commits", "table chains", ...), grouped by phase
 *     name, plus an "other" row for the time no such span covers. Each
 *     instant between gs_obs_new and the report is charged to exactly one
 *     row (where top-level spans overlap, to the earliest begun), so the rows
 *     add up to the total exactly. Spans still open count up to "now".
 *   - per-table rows: each table's spans summed by phase, and each table's
 *     total (the sum of its outermost spans: those whose parent is not a span
 *     of the same table). Tables run concurrently, so these are marked
 *     "summed over concurrent tables: may exceed wall time".
 *
 * Metrics (gs_obs_write_metrics): one JSON object per line for each finished
 * span, in span-id order (the order spans were begun):
 *   {"span":3,"parent":1,"table":0,"phase":"quotient","rows":1024,"cols":12,
 *    "bytes":65536,"worker":2,"device":-1,"start":0.012000000,
 *    "seconds":0.004000000}
 * start: seconds since gs_obs_new; parent: a span id or -1; table: -1 for
 * whole-proof phases; device: -1 for host work, else the CUDA device.
 *
 * Progress: the caller reports counts of tables committed and proven; the
 * line "tables committed C/N, proven P/N | elapsed T | eta E" is redrawn in
 * place (\r) at most 10 times a second, on the notes themselves (there is no
 * timer thread). With enabled -1 it is drawn only if the stream is a
 * terminal, so nothing reaches a pipe or a file. ETA: fraction done f =
 * (committed/3 + 2*proven/3) / N (a commit is about a third of a table's
 * work), eta = (time since progress_init) * (1 - f) / f. */
#ifndef GSTARK_OBS_H
#define GSTARK_OBS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_obs gs_obs;

/* A monotonic clock in nanoseconds (any origin). */
typedef uint64_t (*gs_obs_clock_fn)(void *ctx);

/* A recorder using CLOCK_MONOTONIC; time 0 is now. */
gs_status gs_obs_new(gs_obs **out);
/* The same with another clock (tests, replays): fn must be thread-safe and
 * never go backwards. */
gs_status gs_obs_new_with_clock(gs_obs **out, gs_obs_clock_fn fn, void *ctx);
/* NULL is a no-op. Frees the phase names too (rows and span records that
 * point to them die with it). */
void gs_obs_free(gs_obs *o);

/* Nanoseconds since gs_obs_new (0 for NULL). */
uint64_t gs_obs_elapsed_ns(const gs_obs *o);

/* Open a span: phase name (copied; any string), table index or -1 for a
 * whole-proof phase, rows and columns of the piece (0 if none). Returns its
 * id (0, 1, 2, ... in the order begun), or -1 (NULL o, NULL phase, out of
 * memory): gs_obs_end(-1) is a no-op, so callers need not check. */
int64_t gs_obs_begin(gs_obs *o, const char *phase, int32_t table, uint64_t rows, uint32_t cols);
/* The same, but if the calling thread has no span open, the new span's parent
 * is `parent` (a span of another thread, e.g. the "table chains" span of the
 * thread that hands tables to workers; -1: none). With a span open on the
 * calling thread this is gs_obs_begin. */
int64_t gs_obs_begin_under(gs_obs *o, int64_t parent, const char *phase, int32_t table,
                           uint64_t rows, uint32_t cols);
/* Close a span, recording the bytes charged to it (e.g. the memory gate's
 * admission or the accountant's peak; 0 if none). Any thread may close it;
 * ending a span twice, or -1, or an unknown id, is a no-op. Ending a parent
 * before its child is tolerated (the child stays the thread's innermost). */
void gs_obs_end(gs_obs *o, int64_t span, uint64_t bytes_charged);
/* Record the device a span ran on (-1: host, the default). */
void gs_obs_set_device(gs_obs *o, int64_t span, int32_t device);

/* One span as recorded. */
typedef struct gs_obs_span {
    const char *phase; /* owned by the gs_obs */
    int32_t table;     /* -1: whole-proof phase */
    int32_t worker;    /* lane (see above) */
    int32_t device;    /* -1: host */
    int32_t done;      /* 1 once ended */
    int64_t parent;    /* span id or -1 */
    uint64_t rows, bytes;
    uint32_t cols;
    uint64_t start_ns, end_ns; /* since gs_obs_new; end_ns is 0 while open */
} gs_obs_span;

/* Number of spans begun so far (0 for NULL). */
int64_t gs_obs_span_count(const gs_obs *o);
/* Copy span `id` out. GS_ERR_INVALID_ARG for NULL arguments or an unknown id. */
gs_status gs_obs_span_get(const gs_obs *o, int64_t id, gs_obs_span *out);
/* All spans at one instant ((*out)[i] is span i; free(*out) after), and that
 * instant in ns since gs_obs_new (now may be NULL). Phase pointers are
 * interned: equal names share one pointer. A NULL o gives no spans. */
gs_status gs_obs_snapshot(const gs_obs *o, gs_obs_span **out, size_t *n, uint64_t *now);

/* The report as numbers. */
typedef struct gs_obs_row {
    const char *phase; /* owned by the gs_obs, or the static "other" */
    int32_t table;     /* -1 in phase rows and in by_phase rows */
    uint32_t spans;    /* spans summed into the row (0 in "other") */
    uint64_t ns;       /* phase rows: wall time charged to the row; others: summed */
    uint64_t rows;     /* largest rows / cols among the row's spans */
    uint32_t cols;
    uint64_t bytes; /* summed bytes_charged */
} gs_obs_row;

typedef struct gs_obs_summary {
    uint64_t total_ns;     /* gs_obs_new to the summary */
    size_t n_phases;       /* phase rows in first-begun order, then "other": */
    gs_obs_row *phases;    /* their ns add up to total_ns exactly */
    size_t n_by_phase;     /* table spans summed over all tables, per phase */
    gs_obs_row *by_phase;  /* (summed over concurrent tables) */
    size_t n_tables;       /* per (table, phase), by table then phase order; */
    gs_obs_row *tables;    /* (summed over concurrent tables) */
    size_t n_table_totals; /* per table: its outermost spans summed; phase "total" */
    gs_obs_row *table_totals;
} gs_obs_summary;

/* Fill *out (free with gs_obs_summary_free). A NULL o gives an empty summary. */
gs_status gs_obs_summarize(const gs_obs *o, gs_obs_summary *out);
void gs_obs_summary_free(gs_obs_summary *s); /* NULL-safe; zeroes *s */

/* The timing report as text. Seconds are printed to the millisecond and
 * rounded so that the printed phase rows add up to the printed total. Byte
 * figures use gs_size_format's units (gstark/size.h). After the phase rows:
 * the cpu fallbacks (if any), the memory budget line (if one was noted:
 * budget, inputs, charged peak, the most one table needs, overruns and
 * bytes over),
 * and the warnings. A NULL o prints nothing. GS_ERR_IO if the stream reports
 * an error. */
gs_status gs_obs_report(const gs_obs *o, FILE *f);
/* Counts a table that moved to the CPU after a device failure; the report
 * and the metrics show the count when it is not 0. */
void gs_obs_count_fallback(gs_obs *o);
unsigned gs_obs_fallbacks(const gs_obs *o);

/* Warnings: what a user must know that does not stop the run (a memory
 * budget below what one table needs alone). Each is written at once, as
 * "gstark: warning: TEXT" and a newline, to the warning stream (stderr
 * unless gs_obs_set_warning_stream changed it; NULL: written nowhere),
 * clearing a progress line drawn on the same stream first; and each is kept:
 * the report lists them and the metrics write one {"warning":TEXT} line
 * each. TEXT is printf-formatted and cut at 511 bytes. */
void gs_obs_set_warning_stream(gs_obs *o, FILE *f);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void gs_obs_warn(gs_obs *o, const char *fmt, ...);
size_t gs_obs_warning_count(const gs_obs *o);
/* Warning i (owned by o, valid until gs_obs_free), or NULL if there is none. */
const char *gs_obs_warning(const gs_obs *o, size_t i);

/* The memory budget of a run and how it went (docs/architecture.md,
 * "Memory, the gate and the scheduler"), noted by the prover after a run
 * for the report and the metrics. */
typedef struct gs_obs_budget {
    uint64_t budget;   /* bytes; UINT64_MAX: unlimited */
    uint64_t inputs;   /* the input traces the budget covers (0 on CUDA) */
    uint64_t need;     /* the most one table needs alone, inputs included */
    uint64_t peak;     /* the most bytes the prover charged at once (inputs not included) */
    uint32_t overruns; /* tables whose need exceeded the budget (each ran alone) */
    uint32_t lean;     /* tables proven lean for the budget (gs_mem_estimate.lean_total) */
} gs_obs_budget;
/* Records b (a later note replaces an earlier one). */
void gs_obs_note_budget(gs_obs *o, const gs_obs_budget *b);
/* 1 and *out filled if a budget was noted, else 0. */
int gs_obs_budget_get(const gs_obs *o, gs_obs_budget *out);

/* The metrics lines (see above), then the counters: cpu_fallbacks when not
 * 0; when a budget was noted, mem_budget (left out when unlimited),
 * mem_input_bytes, mem_need_bytes, mem_peak_bytes, budget_lean_tables,
 * budget_overruns and budget_over_bytes (how far inputs + charged peak went
 * over the budget, 0 when within it), each {"counter":NAME,"value":N}; then one {"warning":TEXT} line per warning.
 * A NULL o writes nothing. GS_ERR_IO if the stream reports an error. */
gs_status gs_obs_write_metrics(const gs_obs *o, FILE *f);

/* Device operations: what ran on a device and when, on the obs's time base
 * (ns since gs_obs_new). The prover adds one per device operation of a
 * proof (upload, interpolate, lde, commit, quotient, deep, fold, gather,
 * grind, ...) at the end of the proof, from the CUDA events around each
 * operation, their reference event placed on the host clock when the proof
 * began (to a few microseconds: the device is idle then). They are not
 * spans: the report and the metrics leave them out; the timeline shows
 * them, one track per device lane (stream). */
/* A lane's copy stream (its uploads that overlap the lane's work) is
 * numbered GS_OBS_COPY_LANES + the lane in gs_obs_device_op.lane. */
#define GS_OBS_COPY_LANES 256
typedef struct gs_obs_device_op {
    const char *op;            /* the operation's name (copied by add; owned by the gs_obs after) */
    int32_t device;            /* the CUDA device index */
    int32_t lane;              /* the device lane (one stream each) it ran on, or its copy stream */
    int32_t table;             /* the table it was for, -1 if none */
    uint64_t start_ns, end_ns; /* since gs_obs_new; end_ns < start_ns is taken as start_ns */
} gs_obs_device_op;
/* Records n operations. GS_OK for a NULL o (nothing recorded),
 * GS_ERR_INVALID_ARG for a NULL op name, GS_ERR_NOMEM. */
gs_status gs_obs_add_device_ops(gs_obs *o, const gs_obs_device_op *ops, size_t n);
size_t gs_obs_device_op_count(const gs_obs *o); /* 0 for NULL */
/* All of them, in the order added (free(*out) after; names owned by o). */
gs_status gs_obs_device_ops(const gs_obs *o, gs_obs_device_op **out, size_t *n);

/* The timeline (gs_obs_write_chrome_trace): the spans and the device
 * operations as one Chrome trace (the Trace Event Format, which Perfetto
 * and chrome://tracing open), one JSON object:
 *   {"traceEvents":[...],"displayTimeUnit":"ms"}
 * Events, timestamps and durations in microseconds since gs_obs_new (three
 * decimals: nanoseconds):
 *   - "M" (metadata) events naming the processes and threads: pid 1 is
 *     "gstark host", with one thread per obs lane (tid = lane + 1, named
 *     "host thread L"); pid 2 + D is "gstark cuda:D" for each CUDA device D
 *     that ran an operation, with one thread per device lane (tid = lane +
 *     1, named "cuda:D lane L (stream)").
 *   - an "X" (complete) event per span, cat "host": name the phase, args
 *     span, parent, table, rows, cols, bytes, device (and "open":true for a
 *     span still open, which then ends at the moment of writing). Spans of
 *     one lane nest (obs.h, "Spans and workers"), so each host track shows
 *     the proof's phases with the per-table spans inside them.
 *   - an "X" event per device operation, cat "device": name the operation,
 *     args table and lane.
 * Events are sorted by start, then longest first (parents before their
 * children). Without device operations (a CPU run) there are host tracks
 * only. A NULL o writes an empty trace. GS_ERR_IO if the stream reports an
 * error, GS_ERR_NOMEM. */
gs_status gs_obs_write_chrome_trace(const gs_obs *o, FILE *f);

/* Progress on stderr. enabled: 1 always, 0 never, -1 if stderr is a terminal. */
void gs_obs_progress_init(gs_obs *o, uint32_t tables_total, int enabled);
/* The same on another stream (tests; enabled -1 tests isatty(fileno(f))). */
void gs_obs_progress_init_file(gs_obs *o, uint32_t tables_total, FILE *f, int enabled);
/* Absolute counts; a count lower than one already noted is ignored (notes
 * from several threads may arrive out of order). */
void gs_obs_progress_note(gs_obs *o, uint32_t committed, uint32_t proven);
/* Relative counts, for workers that do not know the totals. */
void gs_obs_progress_add(gs_obs *o, uint32_t committed, uint32_t proven);
/* Clear the line (if one was drawn) and stop drawing. */
void gs_obs_progress_done(gs_obs *o);

#ifdef __cplusplus
}
#endif
#endif
