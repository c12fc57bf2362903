/* Proving zkVM runs: for each program and size, the cycles, the execute
 * time (the fast path, no trace), the prove time (gs_zkvm_prove: the traced
 * run, the tables and the multi-table proof), main-trace cells per cycle
 * (every table's columns x rows over the cycles); trace time, the part of
 * prove time outside the multi-table prover (the traced run, the replay
 * and every table's fill), proven cycles per second,
 * the proof's size (the file form) and the verify time. The programs are
 * assembled here (bench/zkvm_programs.h): an iterative Fibonacci loop (5
 * instructions per step) and a memory loop (loads, stores, mul, branches).
 * Published references are printed beside them (not measured here).
 *
 *   bench_zkvm_prove [--backend cpu|cuda] [--log-cycles L ...]
 *                    [--elf PROG.elf INPUT ...] [--quick] [--json]
 *                    [--threads N] [--trace-only [--reps R]] [--resident] [--shared-fri M]
 *                    [--blowup B] [--coset-all]
 *                    [--timeline PREFIX] [--lanes L [--proofs K]]
 *
 * Default sizes 2^16 and 2^18 cycles (about: the programs' loop counts are
 * chosen for them); --log-cycles L (repeatable) picks others, up to 22;
 * --quick: 2^12 and 2^14. --elf PROG.elf INPUT (repeatable) adds a row for
 * an ELF program on that input file (the guest examples: guest/build.sh);
 * with --elf and no --log-cycles only the ELF rows run. Parameters: 128-bit conjectured, blowup 4, the
 * library's defaults; --blowup B (2, 4 or 8) sets the blowup, the query
 * count then the least that keeps 128 bits conjectured; --coset-all: coset
 * leaves for every table (gs_params.coset_leaves = GS_COSET_LEAVES_ALL: the
 * CPU table's too). --threads N: host threads (as GS_THREADS). --trace-only
 * times trace generation alone (the traced run, the replay, the memory
 * tables, the fills: zk_trace_run, what gs_zkvm_prove does before proving;
 * then the CPU table's columns from its packed rows, which the CPU backend
 * makes on the host and the CUDA backend on the device: "unpack s"),
 * the best of R runs (default 3), without proving. --resident: every proof
 * on one resident prover (gs_zkvm_prove_on; made before the first row,
 * untimed), each statement proven once untimed and then timed, its tables
 * built in the prover's host memory (pinned on CUDA) that the first proof
 * allocated; without it each proof is gs_zkvm_prove, one-shot (its CUDA
 * context, pools and trace memory made and freed inside); with --trace-only
 * the tables are built in that prover's host memory, as a resident proof's
 * are (the first of the R runs allocates it). --shared-fri M: the proofs
 * with gs_params.shared_fri = M (1: one FRI for the 13 tables, 2: and one
 * Merkle tree per round; docs/protocol.md), coset leaves then off. --timeline
 * PREFIX: each timed proof's host spans and device operations as a Chrome
 * trace in PREFIX-<program>-<size>-<backend>.json (other than
 * letters, digits, '.' and '-' written '_') (docs/gpu.md, "Reading a
 * timeline"). --lanes L: L resident provers on the device (gs_prover_cfg
 * device_share L, the host threads split between them), each in its own
 * thread proving the statement K times (default 4) back to back after one
 * untimed proof, all lanes started together: the wall time of the L x K
 * proofs and the cycles proven per second over it, so one lane's trace
 * generation overlaps another's device work (a stream of runs, as a batch
 * of programs or segments has); --lanes 1 is the same loop on one prover.
 * Prints the same table
 * every run; never decides pass or fail. */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gstark/gstark.h"
#include "zkvm/zk_cpu.h"
#include "zkvm_programs.h"

static const char *stmt_name(const char *name, const char *size) {
    static char b[64];
    snprintf(b, sizeof b, "%s %s", name, size);
    return b;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (f) fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

static int trace_only, reps = 3;
static gs_prover *g_pv; /* --resident */
static uint32_t g_shared; /* --shared-fri */
static unsigned g_log_blowup = 2; /* --blowup */
static int g_coset_all;           /* --coset-all */

/* The proofs' parameters: 128 bits conjectured at the chosen blowup. */
static gs_params bench_params(void) {
    gs_params par = gs_params_default(GS_DEFAULT_SECURITY_BITS);
    par.log_blowup = g_log_blowup;
    (void)gs_params_set_queries(&par, GS_DEFAULT_SECURITY_BITS); /* blowups 2..8 reach it */
    par.shared_fri = g_shared;
    if (g_coset_all) par.coset_leaves = GS_COSET_LEAVES_ALL;
    if (g_shared) par.coset_leaves = 0;
    return par;
}
static const char *g_timeline; /* --timeline PREFIX */
static unsigned g_lanes, g_proofs = 4; /* --lanes L, --proofs K */
static gs_prover *g_lane_pv[16];

/* Trace generation alone: the best of `reps` runs (each phase from that run). */
static void run_trace(const char *name, const char *size, gs_zkvm_program *p, const uint8_t *in,
                      size_t in_len) {
    zk_trace_times best = {0};
    uint64_t rows = 0;
    for (int k = 0; k < reps; k++) {
        zk_table t[ZK_T_NUM];
        zk_trace_times tt;
        char msg[400];
        zk_table_arena(g_pv); /* --resident: the tables in the prover's host memory, reused */
        gs_status s = zk_trace_run(t, p, in, in_len, 0, &tt, msg, sizeof msg);
        zk_table_arena(NULL);
        rows = 0;
        for (unsigned i = 0; i < ZK_T_NUM; i++) {
            if (t[i].cols) rows += (uint64_t)t[i].num_cols << t[i].log_n;
            zk_table_free(&t[i]);
        }
        if (s != GS_OK) {
            fprintf(stderr, "%s %s: %s (%s)\n", name, size, gs_status_str(s), msg);
            return;
        }
        if (k == 0 || tt.total < best.total) best = tt;
    }
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_result r;
    if (gs_zkvm_vm_new(&vm, p, in, in_len) != GS_OK) return;
    gs_zkvm_vm_run(vm, &r, UINT64_MAX);
    gs_zkvm_vm_free(vm);
    fprintf(stderr, "%-14s %10" PRIu64 " %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.2f %9.1f\n",
            stmt_name(name, size), r.cycles, best.exec, best.replay, best.state, best.memory, best.fills,
            best.unpack, best.total, r.cycles / best.total / 1e6, (double)rows / (double)r.cycles);
    char stmt[96];
    snprintf(stmt, sizeof stmt, "%s %s trace", name, size);
    bench_jrow j;
    bench_json_begin(&j, "bench_zkvm_prove", stmt);
    bench_json_metric(&j, "cycles", (double)r.cycles, "count");
    bench_json_metric(&j, "exec_traced_s", best.exec, "s");
    bench_json_metric(&j, "replay_s", best.replay, "s");
    bench_json_metric(&j, "replay_seq_s", best.state, "s");
    bench_json_metric(&j, "memory_s", best.memory, "s");
    bench_json_metric(&j, "fills_s", best.fills, "s");
    bench_json_metric(&j, "unpack_s", best.unpack, "s");
    bench_json_metric(&j, "trace_s", best.total, "s");
    bench_json_metric(&j, "trace_mcycles_s", r.cycles / best.total / 1e6, "Mcycles/s");
    bench_json_end(&j);
}

/* --lanes: one lane's proofs. */
typedef struct {
    gs_prover *pv;
    unsigned threads;
    const gs_zkvm_program *p;
    const uint8_t *in;
    size_t in_len;
    pthread_barrier_t *go;
    double busy; /* seconds in its timed proofs */
    int failed, verified;
    uint64_t cycles;
} lane_job;

static void *lane_run(void *arg) {
    lane_job *j = arg;
    gs_threads_set_local(j->threads); /* the trace generation's threads too */
    gs_params par = bench_params();
    gs_prove_opts opts = {0};
    gs_zkvm_claim claim;
    gs_zkvm_proof *zp = NULL;
    char msg[400];
    /* untimed: the prover's memory is made for the statement; verified */
    gs_status s = gs_zkvm_prove_on(j->pv, &zp, &claim, j->p, j->in, j->in_len, 0, &par, &opts, msg, sizeof msg);
    if (s == GS_OK) j->verified = gs_zkvm_verify(NULL, j->p, zp, 0, msg, sizeof msg) == GS_OK;
    if (s != GS_OK) fprintf(stderr, "lane proof: %s (%s)\n", gs_status_str(s), msg);
    gs_zkvm_proof_free(zp);
    j->failed = s != GS_OK;
    j->cycles = claim.cycles;
    pthread_barrier_wait(j->go);
    double t0 = bench_now();
    for (unsigned k = 0; k < g_proofs && !j->failed; k++) {
        zp = NULL;
        if (gs_zkvm_prove_on(j->pv, &zp, &claim, j->p, j->in, j->in_len, 0, &par, &opts, msg, sizeof msg) != GS_OK)
            j->failed = 1;
        gs_zkvm_proof_free(zp);
    }
    j->busy = bench_now() - t0;
    return NULL;
}

static void run_lanes(const char *name, const char *size, const gs_zkvm_program *p, const uint8_t *in,
                      size_t in_len) {
    lane_job jobs[16];
    pthread_t tid[16];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, g_lanes + 1);
    unsigned per = gs_threads_get() / g_lanes ? gs_threads_get() / g_lanes : 1;
    for (unsigned l = 0; l < g_lanes; l++) {
        jobs[l] = (lane_job){.pv = g_lane_pv[l], .threads = per, .p = p, .in = in, .in_len = in_len, .go = &go};
        if (pthread_create(&tid[l], NULL, lane_run, &jobs[l]) != 0) {
            fprintf(stderr, "bench_zkvm_prove: no thread for lane %u\n", l);
            exit(1);
        }
    }
    pthread_barrier_wait(&go);
    double t0 = bench_now();
    for (unsigned l = 0; l < g_lanes; l++) pthread_join(tid[l], NULL);
    double wall = bench_now() - t0, busy = 0;
    pthread_barrier_destroy(&go);
    int failed = 0, verified = 1;
    for (unsigned l = 0; l < g_lanes; l++) failed |= jobs[l].failed, verified &= jobs[l].verified, busy += jobs[l].busy;
    unsigned n = g_lanes * g_proofs;
    double cyc = (double)jobs[0].cycles * n;
    fprintf(stderr, "%-20s %5u %6u %10" PRIu64 " %8.3f %9.3f %9.2f  %s\n", stmt_name(name, size), g_lanes, n,
            jobs[0].cycles, wall, busy / n, cyc / wall / 1e6,
            failed ? "FAILED" : verified ? "ok (each lane's first proof verified)" : "NOT VERIFIED");
    char stmt[96];
    snprintf(stmt, sizeof stmt, "%s %s lanes %u", name, size, g_lanes);
    bench_jrow j;
    bench_json_begin(&j, "bench_zkvm_prove", stmt);
    bench_json_metric(&j, "cycles", (double)jobs[0].cycles, "count");
    bench_json_metric(&j, "wall_s", wall, "s");
    bench_json_metric(&j, "proof_s", busy / n, "s");
    bench_json_metric(&j, "proven_mcycles_s", cyc / wall / 1e6, "Mcycles/s");
    if (!failed && verified) bench_json_end(&j);
}

static void run(const char *name, const char *size, gs_zkvm_program *p, const uint8_t *in,
                size_t in_len, gs_backend_kind be, const char *be_name) {
    if (!p) {
        fprintf(stderr, "%s: could not make the program\n", name);
        return;
    }
    if (trace_only) {
        run_trace(name, size, p, in, in_len);
        return;
    }
    if (g_lanes) {
        run_lanes(name, size, p, in, in_len);
        return;
    }
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_result r;
    if (gs_zkvm_vm_new(&vm, p, in, in_len) != GS_OK) return;
    double t0 = bench_now();
    gs_zkvm_vm_run(vm, &r, UINT64_MAX);
    double exec_s = bench_now() - t0;
    gs_zkvm_vm_free(vm);

    gs_params par = bench_params();
    gs_prove_stats st = {0};
    gs_prove_opts opts = {.backend = be, .stats = &st};
    gs_obs *obs = NULL;
    gs_zkvm_proof *zp = NULL;
    gs_zkvm_claim claim;
    char msg[400];
    gs_status s = GS_OK;
    if (g_pv) { /* the statement once, untimed: the prover's memory is made for it */
        s = gs_zkvm_prove_on(g_pv, &zp, &claim, p, in, in_len, 0, &par, &opts, msg, sizeof msg);
        gs_zkvm_proof_free(zp);
        zp = NULL;
    }
    if (g_timeline && gs_obs_new(&obs) == GS_OK) opts.obs = obs; /* the timed proof's timeline */
    t0 = bench_now();
    if (s == GS_OK)
        s = g_pv ? gs_zkvm_prove_on(g_pv, &zp, &claim, p, in, in_len, 0, &par, &opts, msg, sizeof msg)
                 : gs_zkvm_prove(&zp, &claim, p, in, in_len, 0, &par, &opts, msg, sizeof msg);
    double prove_s = bench_now() - t0;
    if (obs && s == GS_OK) {
        char path[4096];
        char tag[256];
        snprintf(tag, sizeof tag, "%s-%s-%s", name, size, be_name);
        for (char *c = tag; *c; c++) /* "2^22", a path: a plain file name */
            if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-') *c = '_';
        snprintf(path, sizeof path, "%s-%s.json", g_timeline, tag);
        FILE *f = fopen(path, "w");
        if (!f || gs_obs_write_chrome_trace(obs, f) != GS_OK) fprintf(stderr, "timeline %s: not written\n", path);
        if (f) fclose(f);
    }
    gs_obs_free(obs);
    if (s != GS_OK) {
        fprintf(stderr, "%s %s: %s (%s)\n", name, size, gs_status_str(s), msg);
        return;
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    gs_zkvm_proof_serialize(&bytes, &len, zp);
    free(bytes);
    t0 = bench_now();
    s = gs_zkvm_verify(NULL, p, zp, 0, msg, sizeof msg);
    double verify_s = bench_now() - t0;
    uint64_t cells = 0;
    for (uint32_t t = 0; t < zp->proof->num_tables; t++)
        cells += (uint64_t)zp->proof->tables[t].table.num_cols << zp->proof->tables[t].log_n;
    const gs_proof *cpu = &zp->proof->tables[0];
    double cpc = (double)cells / (double)claim.cycles;
    /* the run, its trace and the tables: what gs_zkvm_prove spends outside
     * gs_prove_multi */
    double tables_s = prove_s - st.total;
    fprintf(stderr, "%-14s %-5s %10" PRIu64 " %9.4f %9.3f %9.3f %7.1f %11.1f %9.3f %9.1f %8.1f  %s\n",
            stmt_name(name, size), be_name, claim.cycles, exec_s, tables_s, prove_s, cpc,
            (double)((uint64_t)cpu->table.num_cols << cpu->log_n) / (double)claim.cycles,
            claim.cycles / prove_s / 1e6, len / 1024.0, verify_s * 1e3,
            s == GS_OK ? "ok" : gs_status_str(s));
    char stmt[96];
    snprintf(stmt, sizeof stmt, "%s %s %s", name, size, be_name);
    bench_jrow j;
    bench_json_begin(&j, "bench_zkvm_prove", stmt);
    bench_json_metric(&j, "cycles", (double)claim.cycles, "count");
    bench_json_metric(&j, "exec_s", exec_s, "s");
    bench_json_metric(&j, "trace_s", tables_s, "s");
    bench_json_metric(&j, "prove_s", prove_s, "s");
    bench_json_metric(&j, "cells_per_cycle", cpc, "cells");
    bench_json_metric(&j, "proven_mcycles_s", claim.cycles / prove_s / 1e6, "Mcycles/s");
    bench_json_metric(&j, "proof_bytes", (double)len, "bytes");
    bench_json_metric(&j, "verify_s", verify_s, "s");
    if (s == GS_OK) bench_json_end(&j);
    gs_zkvm_proof_free(zp);
}

int main(int argc, char **argv) {
    unsigned logs[8], nlogs = 0, nelf = 0;
    const char *elf[8], *elf_in[8];
    const char *backend = "cpu";
    int quick = 0, resident = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = argv[++i];
        else if (!strcmp(argv[i], "--log-cycles") && i + 1 < argc && nlogs < 8) {
            logs[nlogs] = (unsigned)atoi(argv[++i]);
            if (logs[nlogs] < 8 || logs[nlogs] > GS_ZKVM_MAX_LOG_ROWS) {
                fprintf(stderr, "bench_zkvm_prove: --log-cycles is 8..%u\n", GS_ZKVM_MAX_LOG_ROWS);
                return 2;
            }
            nlogs++;
        } else if (!strcmp(argv[i], "--elf") && i + 2 < argc && nelf < 8) {
            elf[nelf] = argv[++i], elf_in[nelf++] = argv[++i];
        } else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--trace-only")) trace_only = 1;
        else if (!strcmp(argv[i], "--resident")) resident = 1;
        else if (!strcmp(argv[i], "--timeline") && i + 1 < argc) g_timeline = argv[++i];
        else if (!strcmp(argv[i], "--lanes") && i + 1 < argc && atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= 16)
            g_lanes = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--proofs") && i + 1 < argc && atoi(argv[i + 1]) >= 1)
            g_proofs = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--shared-fri") && i + 1 < argc && atoi(argv[i + 1]) >= 0 &&
                 atoi(argv[i + 1]) <= (int)GS_SHARED_TREES)
            g_shared = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--blowup") && i + 1 < argc && (!strcmp(argv[i + 1], "2") ||
                 !strcmp(argv[i + 1], "4") || !strcmp(argv[i + 1], "8")))
            g_log_blowup = (unsigned)(argv[++i][0] == '2' ? 1 : argv[i][0] == '4' ? 2 : 3);
        else if (!strcmp(argv[i], "--coset-all")) g_coset_all = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc && atoi(argv[i + 1]) > 0) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            gs_threads_set((unsigned)atoi(argv[++i]));
        else if (!strcmp(argv[i], "--json")) {
            if (!bench_json_start()) return 1;
        } else {
            fprintf(stderr, "usage: bench_zkvm_prove [--backend cpu|cuda] [--log-cycles L ...] "
                            "[--elf PROG.elf INPUT ...] [--quick] [--json] [--threads N] "
                            "[--trace-only [--reps R]] [--resident] [--shared-fri 0|1|2] [--timeline PREFIX] "
                            "[--lanes L [--proofs K]]\n");
            return 2;
        }
    }
    gs_backend_kind be;
    if (!strcmp(backend, "cpu")) be = GS_BACKEND_CPU;
    else if (!strcmp(backend, "cuda")) be = GS_BACKEND_CUDA;
    else {
        fprintf(stderr, "bench_zkvm_prove: --backend is cpu or cuda\n");
        return 2;
    }
    if (be == GS_BACKEND_CUDA && !gs_cuda_device_count()) {
        fprintf(stderr, "bench_zkvm_prove: no CUDA device\n");
        return 0;
    }
    if (resident) {
        gs_prover_cfg cfg = {.backend = be};
        if (gs_prover_new(&g_pv, &cfg) != GS_OK) {
            fprintf(stderr, "bench_zkvm_prove: the resident prover could not be made\n");
            return 1;
        }
    }
    for (unsigned l = 0; l < g_lanes; l++) {
        gs_prover_cfg cfg = {.backend = be, .device_share = g_lanes,
                             .threads = gs_threads_get() / g_lanes ? gs_threads_get() / g_lanes : 1};
        if (gs_prover_new(&g_lane_pv[l], &cfg) != GS_OK) {
            fprintf(stderr, "bench_zkvm_prove: lane %u's prover could not be made\n", l);
            return 1;
        }
    }
    if (!nlogs && !nelf) {
        logs[nlogs++] = quick ? 12 : 16;
        logs[nlogs++] = quick ? 14 : 18;
    }
    if (g_lanes) {
        fprintf(stderr, "bench_zkvm_prove: %s backend, %u lanes (resident provers, device shared), %u threads "
                        "each, %u timed proofs a lane after one untimed, blowup %u%s\n",
                backend, g_lanes, gs_threads_get() / g_lanes ? gs_threads_get() / g_lanes : 1, g_proofs,
                1u << g_log_blowup, g_coset_all ? ", coset leaves for every table" : "");
        fprintf(stderr, "%-20s %5s %6s %10s %8s %9s %9s\n", "program", "lanes", "proofs", "cycles", "wall s",
                "proof s", "Mcyc/s");
        fprintf(stderr, "  (proof s: a lane's mean time a proof; Mcyc/s: all lanes' cycles over the wall time)\n");
    } else if (trace_only) {
        fprintf(stderr, "bench_zkvm_prove: trace generation only, %u threads, best of %d\n",
                gs_threads_get(), reps);
        fprintf(stderr, "%-14s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "program", "cycles", "exec s",
                "replay s", "(seq s)", "memory s", "fills s", "unpack s", "trace s", "Mcyc/s", "cells/c");
        fprintf(stderr, "  (seq s: the replay's sequential pass, inside replay s; unpack s: the CPU table's\n"
                        "   columns from its packed rows, made on the device in a CUDA proof)\n");
    } else {
    fprintf(stderr, "bench_zkvm_prove: %s backend, %u threads, 128-bit conjectured, blowup %u%s%s%s\n",
            backend, gs_threads_get(), 1u << g_log_blowup, g_coset_all ? ", coset leaves for every table" : "",
            g_shared == GS_SHARED_TREES ? ", shared FRI and trees" : g_shared ? ", shared FRI" : "",
            g_pv ? "; a resident prover: each statement once untimed, then timed" : "");
    fprintf(stderr, "%-14s %-5s %10s %9s %9s %9s %7s %11s %9s %9s %8s\n", "program", "be", "cycles",
            "exec s", "trace s", "prove s", "cells/c", "cpu cells/c", "Mcyc/s", "proof KB",
            "verify ms");
    fprintf(stderr, "  (trace s: the traced run, the replay and the tables, inside prove s)\n");
    }
    for (unsigned k = 0; k < nlogs; k++) {
        uint64_t target = ((uint64_t)1 << logs[k]) - 16; /* under the power of two (one padding row) */
        char size[16];
        snprintf(size, sizeof size, "2^%u", logs[k]);
        gs_zkvm_program *p = fib_loop((uint32_t)(target / 5));
        run("fib-asm", size, p, NULL, 0, be, backend);
        gs_zkvm_program_free(p);
        p = mem_loop((uint32_t)(target / 12));
        run("mem-asm", size, p, NULL, 0, be, backend);
        gs_zkvm_program_free(p);
    }
    for (unsigned k = 0; k < nelf; k++) { /* ELF programs on their inputs */
        size_t el = 0, il = 0;
        uint8_t *e = slurp(elf[k], &el), *in = slurp(elf_in[k], &il);
        gs_zkvm_program *p = NULL;
        char msg[200];
        if (!e || !in || gs_zkvm_load_elf(&p, msg, sizeof msg, e, el) != GS_OK) {
            fprintf(stderr, "bench_zkvm_prove: cannot load %s with %s\n", elf[k], elf_in[k]);
        } else {
            const char *base = strrchr(elf[k], '/'), *ib = strrchr(elf_in[k], '/');
            char size[48];
            snprintf(size, sizeof size, "%s", ib ? ib + 1 : elf_in[k]);
            run(base ? base + 1 : elf[k], size, p, in, il, be, backend);
        }
        gs_zkvm_program_free(p);
        free(e), free(in);
    }
    fprintf(stderr, "references (published, not measured here): OpenVM fibonacci 1.5 M cycles, "
                    "51.5 M main-trace cells (34 per cycle), 5.1 s on a CPU; lambda_vm "
                    "fib_iterative 1 M iterations, 12.04 s on an RTX 5090\n");
    gs_prover_free(g_pv);
    for (unsigned l = 0; l < g_lanes; l++) gs_prover_free(g_lane_pv[l]);
    return 0;
}
