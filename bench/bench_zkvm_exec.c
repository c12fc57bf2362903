/* The zkVM executor's speed: instructions per second of the fast path
 * (gs_zkvm_vm_run) and of the trace-recording path (gs_zkvm_vm_run_traced),
 * one core.
 *
 * Always: two programs assembled here in C (an iterative Fibonacci loop, the
 * guest example's inner loop, and a memory loop mixing loads, stores, mul
 * and branches). When guest/build.sh can build (the cross toolchain is
 * installed): the guest examples fib (n = 50,000,000), sha256 (4 MiB) and
 * sort (10^6 integers), built from guest/examples/. The fast path is the
 * median of 3 runs; the traced path records at most 2^24 steps (512 MiB)
 * of each run and its rate is over those: "new" into a new trace (the
 * kernel zeroes every page on first touch), "warm" into the same buffers
 * again (gs_zkvm_trace_clear, as consecutive segments would).
 *
 *   bench_zkvm_exec [--quick] [--scale K] [--asm-only] [--json]
 *
 * --quick: inputs 10x smaller; --scale K: K times smaller (for tiny runs);
 * --asm-only: only the two programs assembled here; --json: one JSON object
 * per row on stdout (the table goes to stderr), the statement
 * "<program> <input>". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "zkvm_programs.h"
#include "gstark/zkvm.h"

#define TRACE_MAX ((uint64_t)1 << 24)

static void row(const char *name, const char *input, gs_zkvm_program *p, const uint8_t *in,
                size_t in_len) {
    if (!p) {
        printf("  %-10s %-16s (could not make the program)\n", name, input);
        return;
    }
    double t[3];
    gs_zkvm_result r = {0};
    for (int k = 0; k < 3; k++) {
        gs_zkvm_vm *vm = NULL;
        if (gs_zkvm_vm_new(&vm, p, in, in_len) != GS_OK) return;
        double t0 = bench_now();
        gs_zkvm_vm_run(vm, &r, UINT64_MAX);
        t[k] = bench_now() - t0;
        gs_zkvm_vm_free(vm);
    }
    double fast = bench_median(t, 3);
    /* Traced: into a new trace (its pages touched for the first time), then
     * again into the same buffers (as segment after segment would). */
    gs_zkvm_trace *tr = NULL;
    gs_zkvm_result rt;
    double tt[2] = {0, 0};
    uint64_t steps = 0;
    if (gs_zkvm_trace_new(&tr) != GS_OK) return;
    for (int k = 0; k < 2; k++) {
        gs_zkvm_vm *vm = NULL;
        gs_zkvm_trace_clear(tr);
        if (gs_zkvm_vm_new(&vm, p, in, in_len) != GS_OK) break;
        double t0 = bench_now();
        if (gs_zkvm_vm_run_traced(vm, tr, &rt, TRACE_MAX) == GS_OK) steps = tr->n_steps;
        tt[k] = bench_now() - t0;
        gs_zkvm_vm_free(vm);
    }
    gs_zkvm_trace_free(tr);
    printf("  %-10s %-16s %13" PRIu64 " %5s %9.3f %10.1f %12" PRIu64 " %9.1f %9.1f\n", name, input,
           r.cycles, r.stop == GS_ZKVM_EXITED ? "exit" : "FAULT", fast, r.cycles / fast / 1e6, steps,
           steps / tt[0] / 1e6, steps / tt[1] / 1e6);
    char stmt[96];
    snprintf(stmt, sizeof stmt, "%s %s", name, input);
    bench_jrow j;
    bench_json_begin(&j, "bench_zkvm_exec", stmt);
    bench_json_metric(&j, "cycles", (double)r.cycles, "count");
    bench_json_metric(&j, "exec_s", fast, "s");
    bench_json_metric(&j, "exec_mcycles_s", r.cycles / fast / 1e6, "Mcycles/s");
    bench_json_metric(&j, "traced_steps", (double)steps, "count");
    bench_json_metric(&j, "traced_new_msteps_s", steps / tt[0] / 1e6, "Msteps/s");
    bench_json_metric(&j, "traced_warm_msteps_s", steps / tt[1] / 1e6, "Msteps/s");
    if (r.stop == GS_ZKVM_EXITED) bench_json_end(&j);
}

static gs_zkvm_program *load_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *b = malloc(GS_ZKVM_MAX_ELF_BYTES);
    size_t n = b ? fread(b, 1, GS_ZKVM_MAX_ELF_BYTES, f) : 0;
    fclose(f);
    gs_zkvm_program *p = NULL;
    if (b) gs_zkvm_load_elf(&p, NULL, 0, b, n);
    free(b);
    return p;
}

/* Builds guest/examples/NAME.c into dir; 1 on success. */
static int build_example(const char *src_dir, const char *dir, const char *name) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s/guest/build.sh' -o '%s/%s.elf' '%s/guest/examples/%s.c' >/dev/null 2>&1",
             src_dir, dir, name, src_dir, name);
    return system(cmd) == 0;
}

int main(int argc, char **argv) {
    uint32_t scale = 1;
    int json = 0, asm_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) scale = 10;
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc) scale = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--asm-only")) asm_only = 1;
        else if (!strcmp(argv[i], "--json")) json = 1;
        else {
            fprintf(stderr, "usage: bench_zkvm_exec [--quick] [--scale K] [--asm-only] [--json]\n");
            return 2;
        }
    }
    if (scale < 1 || scale > 100000) {
        fprintf(stderr, "bench_zkvm_exec: --scale 1..100000\n");
        return 2;
    }
    if (json && !bench_json_start()) return 1;
    printf("bench_zkvm_exec: RV32IM executor, one core; fast path median of 3, traced path up to "
           "%" PRIu64 " steps (%zu-byte steps)\n\n",
           TRACE_MAX, sizeof(gs_zkvm_step));
    printf("  %-10s %-16s %13s %5s %9s %10s %12s %9s %9s\n", "program", "input", "cycles", "stop",
           "fast s", "fast M/s", "traced steps", "new M/s", "warm M/s");
    char label[64];
    gs_zkvm_program *p = fib_loop(200000000u / scale);
    snprintf(label, sizeof label, "n=%u", 200000000u / scale);
    row("fib (asm)", label, p, NULL, 0);
    gs_zkvm_program_free(p);
    p = mem_loop(20000000u / scale);
    snprintf(label, sizeof label, "n=%u", 20000000u / scale);
    row("mem (asm)", label, p, NULL, 0);
    gs_zkvm_program_free(p);

    if (asm_only) return 0;
    /* The guest examples, where the toolchain is. */
    char src[4096];
    snprintf(src, sizeof src, "%s", __FILE__);
    char *slash = strrchr(src, '/');
    if (slash) *slash = 0;
    slash = strrchr(src, '/');
    if (slash) *slash = 0;
    else snprintf(src, sizeof src, "..");
    char dir[] = "/tmp/gs_bench_zkvm_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    int have = build_example(src, dir, "fib") && build_example(src, dir, "sha256") &&
               build_example(src, dir, "sort");
    if (!have) {
        printf("  (guest examples skipped: guest/build.sh could not build them; install "
               "gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf)\n");
    } else {
        char path[4200], in[64];
        uint32_t n = 50000000u / scale;
        snprintf(path, sizeof path, "%s/fib.elf", dir);
        int len = snprintf(in, sizeof in, "%u\n", n);
        p = load_file(path);
        snprintf(label, sizeof label, "n=%u", n);
        row("fib", label, p, (const uint8_t *)in, (size_t)len);
        gs_zkvm_program_free(p);

        size_t sha_len = ((size_t)4 << 20) / scale;
        uint8_t *buf = malloc(sha_len > 12000000 ? sha_len : 12000000);
        if (!buf) return 1;
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (size_t i = 0; i < sha_len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        snprintf(path, sizeof path, "%s/sha256.elf", dir);
        p = load_file(path);
        snprintf(label, sizeof label, "%zu KiB", sha_len >> 10);
        row("sha256", label, p, buf, sha_len);
        gs_zkvm_program_free(p);

        uint32_t count = 1000000u / scale;
        size_t o = 0;
        for (uint32_t i = 0; i < count; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            o += (size_t)sprintf((char *)buf + o, "%u\n", (uint32_t)x);
        }
        snprintf(path, sizeof path, "%s/sort.elf", dir);
        p = load_file(path);
        snprintf(label, sizeof label, "%u ints", count);
        row("sort", label, p, buf, o);
        gs_zkvm_program_free(p);
        free(buf);
        for (const char *e = "fib\0sha256\0sort\0"; *e; e += strlen(e) + 1) {
            snprintf(path, sizeof path, "%s/%s.elf", dir, e);
            unlink(path);
        }
    }
    rmdir(dir);
    return 0;
}
