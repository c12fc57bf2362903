/* Memory budgets mean what they say (src/prover/budget.c, the gate, the
 * estimates): on a synth statement whose tables together exceed the budget,
 *   - a budget every table fits: inputs + charged peak <= budget, no overrun,
 *     and the process's peak RSS during the proof <= budget + GS_TEST_RSS_SLACK
 *     (the documented fixed overhead, docs/architecture.md);
 *   - on the CPU no table has a lean figure below its whole one (the CPU
 *     takes its out-of-domain values from the LDEs and holds no coefficients
 *     anyway); the rule that picks lean tables on the device is checked on
 *     estimates made up for it (test_lean_rule; test_cuda_prove proves one);
 *   - a budget below the largest table: lenient, the run proceeds with one
 *     warning carrying the numbers, overruns counted in the stats, the report
 *     and the metrics, bytes over = inputs + peak - budget, RSS <= need + slack;
 *     strict, GS_ERR_BUDGET before anything is proven (no span, nothing
 *     charged) with the numbers in the stats;
 *   - a 1-byte budget: every table over it, the same rule;
 *   - the proof bytes are the same under every budget;
 *   - gs_prove (one table) follows the same rule.
 * Each proof runs in a child process of its own (fork), so each peak RSS is
 * that proof's alone; the child resets its high-water mark after building
 * the traces (/proc/self/clear_refs) and sends its numbers back over a pipe.
 * Where /proc cannot be read or reset, the RSS checks are skipped (said so),
 * the accountant's checks still run. */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gstark/gstark.h"
#include "prover/prover_internal.h"
#include "test_util.h"

/* The fixed overhead RSS may show above the budget (docs/architecture.md):
 * the program and its libraries, thread stacks, the proof being built,
 * scratch the accountant does not see (NTT and Merkle tiles, interpreter
 * blocks), allocator slack: 16 MiB + 256 KiB per host thread. Measured here:
 * 3 to 4 MiB above inputs + charged peak with 2 threads, 6 MiB with 32 (and
 * 20 MiB before the accountant's buffers were given pages of their own). */
#define GS_TEST_RSS_SLACK (((uint64_t)16 << 20) + ((uint64_t)gs_threads_get() << 18))

/* Under AddressSanitizer the allocator is ASan's (shadow memory, a
 * quarantine of freed blocks): RSS then says nothing about gstark's
 * allocations, so the RSS bound is checked only in builds without it. */
#if defined(__SANITIZE_ADDRESS__)
#define GS_TEST_RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GS_TEST_RSS_MEANINGFUL 0
#endif
#endif
#ifndef GS_TEST_RSS_MEANINGFUL
#define GS_TEST_RSS_MEANINGFUL 1
#endif

#define PRESET "vm"
#define SHRINK 6u

static const gs_params PAR = {2, 3, 4, 40, 1, 0, 0, 0, 0};

typedef struct {
    gs_status status;
    gs_prove_stats st;
    int rss_ok;           /* /proc readable and the high-water mark reset */
    uint64_t hwm, rss0;   /* peak RSS during the proof; RSS before it */
    size_t warnings;      /* obs warnings */
    int warn_has_numbers; /* the warning names the budget and the need in bytes */
    int spans;            /* spans begun (0: nothing was proven) */
    int report_ok, metrics_ok;
    uint8_t digest[32]; /* Keccak-256 of the serialized proof */
} result;

static uint64_t proc_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    uint64_t kb = 0;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && sscanf(line + kl, " %" SCNu64, &kb) == 1) break;
    fclose(f);
    return kb;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0); 1 on success. */
static int reset_hwm(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return 0;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Whether the stream's text contains s. */
static int stream_has(FILE *f, const char *s) {
    rewind(f);
    char line[2048];
    while (fgets(line, sizeof line, f))
        if (strstr(line, s)) return 1;
    return 0;
}

/* In the child: build the statement, prove it under (budget, strict, k), fill r. */
static void child_prove(result *r, size_t budget, int strict, unsigned k) {
    memset(r, 0, sizeof *r);
    gs_multi_workload w = {0};
    r->status = gs_synth_preset(&w, PRESET, SHRINK, 3);
    if (r->status != GS_OK) return;
    uint32_t n = w.num_tables;
    gs_table_input *in = calloc(n, sizeof *in);
    for (uint32_t i = 0; in && i < n; i++)
        in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                 .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
    gs_obs *obs = NULL;
    if (gs_obs_new(&obs) != GS_OK || !in) {
        r->status = GS_ERR_NOMEM;
        return;
    }
    gs_obs_set_warning_stream(obs, NULL); /* kept, not printed: checked below */
    gs_prove_opts o = {.skip_check = !strict, .stats = &r->st, .obs = obs, .tables_parallel = k,
                       .mem_budget = budget, .strict_budget = strict};
    r->rss0 = proc_kb("VmRSS:") << 10;
    r->rss_ok = GS_TEST_RSS_MEANINGFUL && r->rss0 > 0 && reset_hwm();
    gs_multi_proof *mp = NULL;
    r->status = gs_prove_multi(&mp, in, n, &PAR, &o);
    r->hwm = proc_kb("VmHWM:") << 10;
    r->rss_ok = r->rss_ok && r->hwm > 0;
    r->warnings = gs_obs_warning_count(obs);
    if (r->warnings) {
        char b[32], need[32];
        snprintf(b, sizeof b, "(%zu bytes)", r->st.mem_budget);
        snprintf(need, sizeof need, "(%zu bytes", r->st.mem_need_bytes);
        const char *w0 = gs_obs_warning(obs, 0);
        r->warn_has_numbers = w0 && strstr(w0, b) && strstr(w0, need);
    }
    r->spans = (int)gs_obs_span_count(obs);
    FILE *f = tmpfile();
    if (f && gs_obs_report(obs, f) == GS_OK) {
        char line[128];
        snprintf(line, sizeof line, "budget overruns %u ", r->st.budget_overruns);
        r->report_ok = stream_has(f, "memory: budget ") &&
                       (r->st.budget_overruns == 0) != stream_has(f, line);
    }
    if (f) fclose(f);
    f = tmpfile();
    if (f && gs_obs_write_metrics(obs, f) == GS_OK) {
        char a[96], b[96];
        snprintf(a, sizeof a, "{\"counter\":\"budget_overruns\",\"value\":%u}",
                 r->st.budget_overruns);
        snprintf(b, sizeof b, "{\"counter\":\"budget_over_bytes\",\"value\":%zu}",
                 r->st.budget_over_bytes);
        r->metrics_ok = stream_has(f, a) && stream_has(f, b) &&
                        (r->warnings == 0) != stream_has(f, "{\"warning\":");
    }
    if (f) fclose(f);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (mp && gs_multi_proof_serialize(&bytes, &len, mp) == GS_OK) gs_keccak256(r->digest, bytes, len);
    free(bytes);
    gs_multi_proof_free(mp);
    gs_obs_free(obs);
    free(in);
    gs_multi_workload_free(&w);
}

/* Runs child_prove in a child process; 0 if the child failed to report. */
static int run_child(result *r, size_t budget, int strict, unsigned k) {
    int fd[2];
    if (pipe(fd) != 0) return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        close(fd[0]);
        result mine;
        child_prove(&mine, budget, strict, k);
        const uint8_t *p = (const uint8_t *)&mine;
        size_t left = sizeof mine;
        while (left) {
            ssize_t wr = write(fd[1], p, left);
            if (wr <= 0) _exit(2);
            p += wr, left -= (size_t)wr;
        }
        _exit(0);
    }
    close(fd[1]);
    uint8_t *p = (uint8_t *)r;
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t rd = read(fd[0], p + got, sizeof *r - got);
        if (rd <= 0) break;
        got += (size_t)rd;
    }
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return got == sizeof *r && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void show(const char *what, size_t budget, const result *r) {
    char b[GS_SIZE_BUF], in[GS_SIZE_BUF], pk[GS_SIZE_BUF], nd[GS_SIZE_BUF], h[GS_SIZE_BUF];
    char over[GS_SIZE_BUF];
    uint64_t held = r->st.input_bytes + r->st.peak_bytes;
    printf("%-22s budget %9s: %-48s inputs %8s + charged %8s, need %8s, overruns %u, over %8s, "
           "rss peak %8s (%+.1f MiB over inputs + charged)\n",
           what, gs_size_format(b, budget), gs_status_str(r->status),
           gs_size_format(in, r->st.input_bytes), gs_size_format(pk, r->st.peak_bytes),
           gs_size_format(nd, r->st.mem_need_bytes), r->st.budget_overruns,
           gs_size_format(over, r->st.budget_over_bytes),
           r->rss_ok ? gs_size_format(h, r->hwm) : "n/a",
           r->rss_ok ? ((double)r->hwm - (double)held) / (1 << 20) : 0.0);
}

static int rss_skipped;

/* RSS during the proof within bound + the fixed overhead. */
static void check_rss(const result *r, uint64_t bound) {
    if (!r->rss_ok) {
        rss_skipped = 1;
        return;
    }
    if (r->hwm > bound + GS_TEST_RSS_SLACK)
        fprintf(stderr, "peak RSS %" PRIu64 " > %" PRIu64 " + slack %" PRIu64 "\n", r->hwm,
                (uint64_t)bound, GS_TEST_RSS_SLACK);
    CHECK(r->hwm <= bound + GS_TEST_RSS_SLACK);
}

static void test_multi(void) {
    /* The sizes, from the estimates: the parent builds the statement once. */
    gs_multi_workload w = {0};
    CHECK(gs_synth_preset(&w, PRESET, SHRINK, 3) == GS_OK);
    size_t largest = 0, sum = 0, inputs = 0;
    gs_mem_estimate e[16];
    uint32_t n = w.num_tables;
    CHECK(n <= 16);
    for (uint32_t i = 0; i < n && i < 16; i++) {
        CHECK(gs_estimate_table_on(&e[i], w.tables[i].air, w.tables[i].log_n, &PAR, GS_BACKEND_CPU) == GS_OK);
        CHECK(e[i].lean_total == e[i].total); /* nothing to make lean on the CPU */
        if (e[i].total > largest) largest = e[i].total;
        sum += e[i].total;
        inputs += (size_t)gs_air_num_cols(w.tables[i].air) * sizeof(gs_fp) << w.tables[i].log_n;
    }
    gs_multi_workload_free(&w);
    /* What a budget must hold for the largest table. */
    size_t need = inputs + largest;

    result ref, r;
    CHECK(run_child(&ref, GS_GATE_UNLIMITED, 0, 2));
    show("unlimited", GS_GATE_UNLIMITED, &ref);
    CHECK(ref.status == GS_OK && ref.st.budget_overruns == 0 && ref.warnings == 0);
    CHECK(ref.st.mem_budget == GS_GATE_UNLIMITED && ref.st.budget_over_bytes == 0);
    CHECK(ref.st.input_bytes == inputs && ref.st.mem_need_bytes == need);
    /* The statement is one that needs the gate: all tables at once exceed
     * the budgets below. */
    CHECK(ref.st.input_bytes + ref.st.peak_bytes > need);

    /* Every table fits, not all at once: within the budget, strict or not. */
    size_t fits = need + (sum - largest) / 4;
    for (int strict = 0; strict <= 1; strict++) {
        CHECK(run_child(&r, fits, strict, 2));
        show(strict ? "fits, strict" : "fits", fits, &r);
        CHECK(r.status == GS_OK);
        CHECK(r.st.mem_budget == fits && r.st.budget_overruns == 0 && r.warnings == 0);
        CHECK(r.st.input_bytes + r.st.peak_bytes <= fits);
        CHECK(r.st.gate_peak_bytes <= fits - inputs);
        CHECK(r.st.budget_over_bytes == 0);
        CHECK(r.report_ok && r.metrics_ok);
        CHECK(memcmp(r.digest, ref.digest, 32) == 0);
        check_rss(&r, fits);
    }

    /* Below the largest table, and a 1-byte budget: the tables over the
     * budget overrun it. */
    const size_t small[3] = {need - 1, need / 2, 1};
    for (int b = 0; b < 3; b++) {
        const char *what = b == 2 ? "1 byte" : b ? "half the largest" : "the largest less 1 byte";
        CHECK(run_child(&r, small[b], 0, 2));
        show(what, small[b], &r);
        CHECK(r.status == GS_OK);
        CHECK(r.st.mem_need_bytes == need && r.st.input_bytes == inputs);
        CHECK(r.st.budget_overruns >= 1 && r.st.budget_overruns <= n);
        if (b == 2) CHECK(r.st.budget_overruns == n); /* every table is over 1 byte */
        CHECK(r.warnings == 1 && r.warn_has_numbers);
        CHECK(r.st.budget_over_bytes == r.st.input_bytes + r.st.peak_bytes - small[b]);
        CHECK(r.report_ok && r.metrics_ok);
        CHECK(memcmp(r.digest, ref.digest, 32) == 0);
        /* Over-budget tables run alone: the charged peak is the largest's. */
        CHECK(r.st.input_bytes + r.st.peak_bytes <= need);
        check_rss(&r, need);

        char sw[64];
        snprintf(sw, sizeof sw, "%s, strict", what);
        CHECK(run_child(&r, small[b], 1, 2));
        show(sw, small[b], &r);
        CHECK(r.status == GS_ERR_BUDGET);
        CHECK(r.st.mem_budget == small[b] && r.st.mem_need_bytes == need);
        CHECK(r.st.budget_overruns >= 1);
        CHECK(r.spans <= 2); /* at most the "setup" (the context) and "check" spans: nothing proven */
        CHECK(r.st.peak_bytes == 0);           /* nothing was ever charged */
        CHECK(r.warnings == 0);                /* an error, not a warning */
    }
}

/* gs_prove: one table, nothing to schedule, the same rule. */
static void test_single(void) {
    gs_mix_params mp = {128, 3, 11, 5};
    gs_workload w = {0};
    CHECK(gs_airs_mix(&w, &mp) == GS_OK);
    gs_mem_estimate e;
    CHECK(gs_estimate_table_on(&e, w.air, w.log_n, &PAR, GS_BACKEND_CPU) == GS_OK); /* the CPU backend proves */
    size_t inputs = (size_t)128 * sizeof(gs_fp) << 11, need = inputs + e.total;
    CHECK(e.lean_total == e.total);
    /* whole; 1 byte short; 1 byte */
    const size_t budgets[3] = {need, need - 1, 1};
    uint8_t ref[32];
    for (int b = 0; b < 3; b++)
        for (int strict = 0; strict <= 1; strict++) {
            gs_prove_stats st;
            gs_obs *obs = NULL;
            CHECK(gs_obs_new(&obs) == GS_OK);
            gs_obs_set_warning_stream(obs, NULL);
            gs_prove_opts o = {.stats = &st, .obs = obs, .mem_budget = budgets[b],
                               .strict_budget = strict};
            gs_proof *p = NULL;
            gs_status s = gs_prove(&p, w.air, w.trace, w.log_n, w.pub, &PAR, &o);
            int over = b >= 1;
            CHECK(st.mem_budget == budgets[b] && st.mem_need_bytes == need);
            CHECK(st.input_bytes == inputs);
            CHECK(st.budget_lean_tables == 0);
            CHECK(st.budget_overruns == (unsigned)over);
            if (over && strict) {
                CHECK(s == GS_ERR_BUDGET && p == NULL && st.peak_bytes == 0);
                CHECK(gs_obs_warning_count(obs) == 0);
            } else {
                CHECK(s == GS_OK);
                CHECK(gs_obs_warning_count(obs) == (size_t)over);
                CHECK(st.peak_bytes <= e.total);
                CHECK(st.budget_over_bytes ==
                      (inputs + st.peak_bytes > budgets[b] ? inputs + st.peak_bytes - budgets[b] : 0));
                uint8_t *bytes = NULL, d[32];
                size_t len = 0;
                CHECK(gs_proof_serialize(&bytes, &len, p) == GS_OK);
                gs_keccak256(d, bytes, len);
                if (b == 0 && !strict) memcpy(ref, d, 32);
                CHECK(memcmp(d, ref, 32) == 0);
                free(bytes);
            }
            gs_proof_free(p);
            gs_obs_free(obs);
        }
    gs_workload_free(&w);
}

/* The up-front rule's choice of lean tables (budget.c), on estimates made
 * up with a lean figure below the whole (as a device table's are): table 0
 * 100 whole / 60 lean, table 1 50 / 50 (nothing to save), inputs 10. A
 * budget of 110 holds both whole: none lean, no overrun. 109: table 0 goes
 * lean (its figures become 60), table 1 stays whole, no overrun, the need
 * is 10 + 60. 69: table 0 lean and still over, table 1 fits: one overrun,
 * one warning, or GS_ERR_BUDGET when strict. 1 byte: both over, only table
 * 0 lean. */
static void test_lean_rule(void) {
    static const struct {
        size_t budget;
        int lean0, over, need;
    } cases[] = {{110, 0, 0, 110}, {109, 1, 0, 70}, {69, 1, 1, 70}, {1, 1, 2, 70}, {GS_GATE_UNLIMITED, 0, 0, 110}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int strict = 0; strict <= 1; strict++) {
            gs_mem_estimate est[2] = {{.main_commit = 30, .chain = 70, .total = 100, .lean_total = 60},
                                      {.main_commit = 20, .chain = 30, .total = 50, .lean_total = 50}};
            int lean[2] = {-1, -1};
            gs_prove_stats ps = {0};
            gs_obs *obs = NULL;
            CHECK(gs_obs_new(&obs) == GS_OK);
            gs_obs_set_warning_stream(obs, NULL);
            gs_status r = gs_prover_budget_check(&ps, obs, est, lean, 2, cases[k].budget, 10, strict, 0);
            CHECK(r == (cases[k].over && strict ? GS_ERR_BUDGET : GS_OK));
            CHECK(lean[0] == cases[k].lean0 && lean[1] == 0);
            CHECK(ps.budget_lean_tables == (uint32_t)cases[k].lean0);
            CHECK(ps.budget_overruns == (uint32_t)cases[k].over);
            CHECK(ps.mem_need_bytes == (size_t)cases[k].need);
            CHECK(est[0].total == (cases[k].lean0 ? 60u : 100u) && est[0].chain == est[0].total - 30);
            CHECK(est[1].total == 50 && est[1].chain == 30);
            CHECK(gs_obs_warning_count(obs) == (size_t)(cases[k].over && !strict));
            gs_obs_free(obs);
        }
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_lean_rule();
    test_multi();
    test_single();
    if (rss_skipped) printf("RSS checks skipped: /proc/self/status or clear_refs unavailable\n");
    return gs_test_done();
}
