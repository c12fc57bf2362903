/* `gstark run`: load an RV32IM ELF, run it on an input and print its output,
 * then (on stderr) how it stopped, its cycle count and the speed.
 * Exit: 0 the guest exited 0; 1 it exited non-zero; 2 usage or input errors
 * (a bad ELF, an unreadable input); 3 it faulted or reached --max-cycles. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gstark/zkvm.h"

/* The default cycle limit: about ten seconds of the fast path. */
#define CLI_RUN_MAX_CYCLES (UINT64_C(1) << 32)
/* The largest input file read. */
#define CLI_RUN_MAX_INPUT ((size_t)1 << 30)

enum { OPT_INPUT = 256, OPT_MAX_CYCLES, OPT_JSON, OPT_TRACED };

static const struct option run_opts[] = {
    {"input", required_argument, NULL, OPT_INPUT},
    {"max-cycles", required_argument, NULL, OPT_MAX_CYCLES},
    {"json", no_argument, NULL, OPT_JSON},
    {"traced", no_argument, NULL, OPT_TRACED},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static const char *stop_name(gs_zkvm_stop s) {
    switch (s) {
    case GS_ZKVM_EXITED: return "exited";
    case GS_ZKVM_FAULT: return "fault";
    case GS_ZKVM_CYCLE_LIMIT: return "cycle-limit";
    default: return "ready";
    }
}

int cli_run(int argc, char **argv) {
    const char *input_path = NULL;
    unsigned long max_cycles = 0;
    int json = 0, traced = 0, quiet = 0, c;
    while ((c = cli_getopt(argc, argv, "qh", run_opts)) != -1) {
        switch (c) {
        case OPT_INPUT: input_path = optarg; break;
        case OPT_MAX_CYCLES:
            if (!cli_parse_uint("--max-cycles", optarg, 1, ~0ul, &max_cycles)) return CLI_USAGE;
            break;
        case OPT_JSON: json = 1; break;
        case OPT_TRACED: traced = 1; break;
        case 'q': quiet = 1; break;
        case 'h': cli_help_command(stdout, "run"); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        cli_err("give the program's ELF file (see 'gstark run --help')");
        return CLI_USAGE;
    }
    if (optind + 1 < argc) {
        cli_err("unexpected argument '%s' (see 'gstark run --help')", argv[optind + 1]);
        return CLI_USAGE;
    }
    const char *elf_path = argv[optind];
    if (input_path && !strcmp(input_path, "-") && !strcmp(elf_path, "-")) {
        cli_err("the ELF file and the input cannot both be standard input");
        return CLI_USAGE;
    }
    uint64_t limit = max_cycles ? (uint64_t)max_cycles : CLI_RUN_MAX_CYCLES;

    uint8_t *input = NULL;
    size_t input_len = 0;
    gs_zkvm_program *prog = NULL;
    gs_zkvm_vm *vm = NULL;
    gs_zkvm_trace *tr = NULL;
    int rc = cli_zkvm_load(&prog, elf_path);
    if (rc != CLI_OK) return rc;
    if (input_path && (rc = cli_read_input("input", input_path, &input, &input_len, CLI_RUN_MAX_INPUT)) != CLI_OK)
        goto out;
    gs_status s;
    if ((s = gs_zkvm_vm_new(&vm, prog, input, input_len)) != GS_OK ||
        (traced && (s = gs_zkvm_trace_new(&tr)) != GS_OK)) {
        cli_err("starting the machine: %s", gs_status_str(s));
        rc = CLI_PROVER;
        goto out;
    }
    gs_zkvm_result res;
    double t0 = cli_now();
    s = traced ? gs_zkvm_vm_run_traced(vm, tr, &res, limit) : gs_zkvm_vm_run(vm, &res, limit);
    double secs = cli_now() - t0;
    if (s != GS_OK) {
        cli_err("running: %s after %" PRIu64 " cycles", gs_status_str(s), res.cycles);
        rc = CLI_PROVER;
        goto out;
    }
    size_t out_len, err_len;
    const uint8_t *out1 = gs_zkvm_vm_output(vm, 1, &out_len);
    const uint8_t *out2 = gs_zkvm_vm_output(vm, 2, &err_len);
    double ips = secs > 0 ? (double)res.cycles / secs : 0;
    rc = res.stop == GS_ZKVM_EXITED ? (res.exit_code ? CLI_REJECTED : CLI_OK) : CLI_PROVER;
    if (json) {
        printf("{\"stop\":\"%s\",", stop_name(res.stop));
        if (res.stop == GS_ZKVM_EXITED) printf("\"exit_code\":%" PRIu32 ",", res.exit_code);
        printf("\"cycles\":%" PRIu64 ",\"seconds\":%.6f,\"instructions_per_second\":%.0f,", res.cycles,
               secs, ips);
        if (res.stop == GS_ZKVM_FAULT) {
            printf("\"fault\":");
            cli_json_str(stdout, gs_zkvm_fault_str(res.fault));
            printf(",\"fault_pc\":%" PRIu32 ",\"fault_addr\":%" PRIu32 ",", res.fault_pc,
                   res.fault_addr);
        }
        if (res.stop != GS_ZKVM_EXITED) {
            printf("\"message\":");
            cli_json_str(stdout, res.msg);
            printf(",");
        }
        if (traced)
            printf("\"trace_steps\":%" PRIu64 ",\"trace_io\":%" PRIu64 ",", tr->n_steps, tr->n_io);
        printf("\"input_bytes\":%zu,\"input_read\":%" PRIu64 ",\"output_bytes\":%zu,\"output\":",
               input_len, gs_zkvm_vm_input_pos(vm), out_len);
        cli_json_bytes(stdout, out1, out_len);
        printf(",\"stderr\":");
        cli_json_bytes(stdout, out2, err_len);
        printf("}\n");
        goto out;
    }
    /* The guest's streams first, exactly their bytes. */
    if (out_len && fwrite(out1, 1, out_len, stdout) != out_len) {
        cli_err("writing the output: %s", strerror(errno));
        rc = CLI_USAGE;
        goto out;
    }
    fflush(stdout);
    if (err_len) fwrite(out2, 1, err_len, stderr);
    char speed[96];
    snprintf(speed, sizeof speed, "%.3f s, %.1f M instructions/s%s", secs, ips / 1e6,
             traced ? ", traced" : "");
    if (res.stop == GS_ZKVM_EXITED && res.exit_code == 0) {
        if (!quiet)
            fprintf(stderr, "gstark: run: exit code 0 after %" PRIu64 " cycles (%s)\n", res.cycles,
                    speed);
    } else if (res.stop == GS_ZKVM_EXITED) {
        cli_err("the program exited with code %" PRIu32 " (0x%08" PRIx32 ") after %" PRIu64
                " cycles (%s)",
                res.exit_code, res.exit_code, res.cycles, speed);
    } else if (res.stop == GS_ZKVM_FAULT) {
        cli_err("the program faulted after %" PRIu64 " cycles: %s", res.cycles, res.msg);
    } else {
        cli_err("the program did not exit within %" PRIu64 " cycles (--max-cycles; %s): next pc 0x%08" PRIx32,
                res.cycles, speed, gs_zkvm_vm_pc(vm));
    }
    if (traced && !quiet)
        fprintf(stderr, "gstark: run: trace: %" PRIu64 " steps (%" PRIu64 " MiB), %" PRIu64 " io records\n",
                tr->n_steps, (tr->n_steps * sizeof(gs_zkvm_step)) >> 20, tr->n_io);
out:
    gs_zkvm_trace_free(tr);
    gs_zkvm_vm_free(vm);
    gs_zkvm_program_free(prog);
    free(input);
    return rc;
}
