/* The gstark command. Every failure prints a message on stderr and exits
 * with one of the codes of cli.h; nothing else in gstark exits. */
#include <string.h>

#include "cli.h"

static int version(void) {
    printf("gstark %s (CUDA backend %s, %d device(s))\n", GSTARK_VERSION,
           gs_cuda_built() ? "built" : "not built", gs_cuda_device_count());
    return CLI_OK;
}

static int cmd_version(int argc, char **argv) {
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
        if (c != 'h') return CLI_USAGE;
        cli_help_command(stdout, "version");
        return CLI_OK;
    }
    if (optind < argc) {
        cli_err("takes no arguments (see 'gstark version --help')");
        return CLI_USAGE;
    }
    return version();
}

static int cmd_help(int argc, char **argv) {
    if (argc > 2) {
        cli_err("give at most one command (see 'gstark help')");
        return CLI_USAGE;
    }
    if (argc == 1) {
        cli_help_main(stdout);
        return CLI_OK;
    }
    if (cli_help_command(stdout, argv[1])) return CLI_OK;
    cli_err("unknown command '%s' (see 'gstark help')", argv[1]);
    return CLI_USAGE;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        cli_help_main(stderr);
        return CLI_USAGE;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"prove", cli_prove},     {"verify", cli_verify},   {"inspect", cli_inspect},
                {"demo", cli_demo},       {"version", cmd_version}, {"help", cmd_help},
                {"run", cli_run},         {"batch", cli_batch}};
    const char *cmd = argv[1];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (!strcmp(cmd, cmds[i].name)) {
            cli_cmd = cmds[i].name;
            /* The command's arguments, its name first as getopt expects. */
            return cmds[i].fn(argc - 1, argv + 1);
        }
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        if (argc == 2) return version();
        fprintf(stderr, "gstark: %s takes no arguments (see 'gstark help')\n", cmd);
        return CLI_USAGE;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        cli_help_main(stdout);
        return CLI_OK;
    }
    if (cmd[0] == '-')
        fprintf(stderr, "gstark: unknown option '%s' (see 'gstark help')\n", cmd);
    else
        fprintf(stderr, "gstark: unknown command '%s' (see 'gstark help')\n", cmd);
    return CLI_USAGE;
}
