/* The gstark command. Every failure prints a message on stderr and exits
 * non-zero; nothing else in gstark exits. */
#include <string.h>

#include "cli.h"

void cli_usage(FILE *f) {
    fprintf(f,
            "usage: gstark <command> [options]\n"
            "\n"
            "commands:\n"
            "  prove     prove a built-in AIR and write the proof file\n"
            "  verify    check a proof file (exit 0 valid, 1 invalid, 2 usage or I/O error)\n"
            "  inspect   print a proof file's header, part sizes and security level\n"
            "  demo      commit a synthetic trace: NTT, coset LDE and Merkle timings, the root\n"
            "  version   print the version and the build's features\n"
            "  help      this text\n"
            "\n"
            "prove options:\n"
            "  --air fib|mix|synth the statement (default fib)\n"
            "  --preset P         synth: vm, skew or uniform (default vm)\n"
            "  --shrink K         synth: divide every table height by 2^K (default 0, 0..20)\n"
            "  --tables-parallel K  synth: tables proven at once (default GS_TABLES_PARALLEL or\n"
            "                     max(2, cores / 4))\n"
            "  --mem-budget SIZE  synth: memory gate budget, e.g. 512M, 2G or unlimited\n"
            "                     (default 80%% of available RAM)\n"
            "  --report           synth: print the timing report (phases add up to the wall time)\n"
            "  --metrics FILE     synth: one JSON line per proving piece\n"
            "  --backend B        cpu, cuda or auto (default auto: CUDA when a device is present)\n"
            "  --no-fallback      cuda: fail instead of proving a table on the CPU after a device\n"
            "                     failure (by default it falls back and the summary says so)\n"
            "  --device-mem-budget SIZE  cuda: device bytes the proof may hold at once\n"
            "                     (default 90%% of the free device memory)\n"
            "  --log-rows N       trace height 2^N (default 16)\n"
            "  --cols C           mix: columns (default 16, 1..1024)\n"
            "  --degree D         mix: constraint degree (default 3, 2..blowup+1)\n"
            "  --seed S           mix, synth: constants and first row (default 1)\n"
            "  --blowup B         LDE blowup 2, 4, 8, 16, 32 or 64 (default 4)\n"
            "  --security BITS    derive the query count for this target (default 128)\n"
            "  --queries Q        or set the query count directly\n"
            "  --grinding G       proof-of-work bits (default 20)\n"
            "  --threads T        worker threads (default: GS_THREADS or all cores)\n"
            "  --no-check         do not check the trace first (the proof will not verify if it is wrong)\n"
            "  -o FILE            where to write the proof (required; written atomically)\n"
            "\n"
            "verify options:  FILE [--min-security BITS (default 80)] [--threads T]\n"
            "inspect options: FILE\n"
            "\n"
            "demo options:\n"
            "  --log-rows N --cols N --log-blowup N --threads N --seed N\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        cli_usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "prove")) return cli_prove(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cli_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "inspect")) return cli_inspect(argc - 2, argv + 2);
    if (!strcmp(cmd, "demo")) return cli_demo(argc - 2, argv + 2);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("gstark %s (CUDA backend %s, %d device(s))\n", GSTARK_VERSION,
               gs_cuda_built() ? "built" : "not built", gs_cuda_device_count());
        return CLI_OK;
    }
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        cli_usage(stdout);
        return CLI_OK;
    }
    fprintf(stderr, "gstark: unknown command '%s'\n", cmd);
    cli_usage(stderr);
    return CLI_USAGE;
}
