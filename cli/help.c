/* The help texts: `gstark help` and `gstark help COMMAND` (= `gstark COMMAND
 * --help`), printed on stdout with exit 0. */
#include <string.h>

#include "cli.h"

void cli_help_main(FILE *f) {
    fprintf(f,
            "usage: gstark <command> [options]\n"
            "\n"
            "commands:\n"
            "  prove     prove a built-in AIR (fib, mix, synth), or a RISC-V program's run\n"
            "            (--elf), and write the proof file\n"
            "  verify    check a proof file and say what it proves (a run's proof: against\n"
            "            the program given with --elf)\n"
            "  inspect   print a proof file's statement, parameters, part sizes and security\n"
            "  demo      commit a synthetic trace: NTT, coset LDE and Merkle timings, the root\n"
            "  run       run a RISC-V (RV32IM) ELF program on the zkVM: its output, exit code\n"
            "            and cycle count\n"
            "  batch     prove a manifest of claims over lanes into a proof store, with joins,\n"
            "            bisection and resume\n"
            "  version   print the version and the build's features (also -V, --version)\n"
            "  help      this text; 'gstark help COMMAND' (or 'gstark COMMAND --help') for one\n"
            "            command's options\n"
            "\n"
            "Options take their value as '--opt value' or '--opt=value'; short ones as\n"
            "'-o FILE' or '-oFILE'. Common ones: -o/--output, -q/--quiet, -v/--verbose,\n"
            "--json, -h/--help.\n"
            "\n"
            "exit codes:\n"
            "  0  success (verify: the proof is valid and of the expected statement)\n"
            "  1  verify: the proof is invalid, or not of the statement --expect or\n"
            "     --statement asks for, or (a run's proof) of another program or input\n"
            "     than --elf and --input give\n"            "     run: the program exited with a non-zero code\n"
            "  2  usage, parameter, input or output error (bad option, unreadable proof\n"
            "     file, unwritable output, a proof of an AIR gstark cannot rebuild)\n"
            "  3  prove: the prover failed (the trace does not satisfy the AIR, out of\n"
            "     memory, a device failure with --no-fallback)\n"            "     run: the program faulted or reached --max-cycles\n"
            "     batch: a claim failed or was refused (the rest of the batch ran)\n"
            "\n"
            "Security is printed as the conjectured level (what --security and\n"
            "--min-security speak of; at most %u bits, Keccak-256's collision\n"
            "resistance) and the provable level beside it (docs/protocol.md).\n",
            GS_MAX_SECURITY_BITS);
}

static void help_prove(FILE *f) {
    fprintf(f,
            "usage: gstark prove [--air fib|mix|synth] [options] -o FILE\n"
            "       gstark prove --elf PROGRAM.elf [--input FILE] [options] -o FILE\n"
            "\n"
            "Proves a built-in statement, or runs a RISC-V program on the zkVM and proves\n"
            "the run, and writes the proof file.\n"
            "\n"
            "a program's run (docs/zkvm.md; --air and the AIRs' options are refused):\n"
            "  --elf FILE           the RV32IM ELF program (gstark run runs it without proving)\n"
            "  --input FILE         its input (fd 0); '-' for standard input (default: empty;\n"
            "                       at most %llu bytes)\n"
            "  --max-cycles N       refuse a run that has not exited after N instructions\n"
            "                       (default and most: the largest proof, 2^%u - 1 = %llu)\n"
            "  The proof states the program's fingerprint, the input's and the output's\n"
            "  digests, the exit code and the cycle count; the file carries the input and\n"
            "  the output. A fault, a run longer than --max-cycles (longer runs need\n"
            "  segmenting, not built yet) or too much input or output is exit 2. The\n"
            "  parameters, resources and output options below apply; of the scheduler's,\n"
            "  --tables-parallel, --report and --metrics too.\n"
            "\n"
            "statement (an option that does not apply to the chosen AIR is an error):\n"
            "  --air A              fib, mix or synth (default fib)\n"
            "  --log-rows N         fib, mix: trace height 2^N (default 16; fib 1..30, mix 1..26)\n"
            "  --cols C             mix: columns (default 16, 1..1024)\n"
            "  --degree D           mix: constraint degree (default 3, 2..17; at most blowup + 1)\n"
            "  --seed S             mix, synth: constants, first row, trace (default 1)\n"
            "  --preset P           synth: vm, skew or uniform (default vm)\n"
            "  --shrink K           synth: divide every table height by 2^K (default 0, 0..%u)\n"
            "\n"
            "parameters:\n"
            "  --security BITS      conjectured security target, %u..%u (default %u); the query\n"
            "                       count is the least that reaches it\n"
            "  --queries Q          or set the query count directly (1..1024; not with --security)\n"
            "  --provable-security BITS  fib, mix, synth: choose the blowup (up to 16, or the one\n"
            "                       --blowup gives) and the query count for at least BITS\n"
            "                       provable (not conjectured) security, for the smallest proof\n"
            "  --blowup B           LDE blowup 2, 4, 8, 16, 32 or 64 (default 4)\n"
            "  --grinding G         proof-of-work bits (default 20, 0..40); above %u bits the\n"
            "                       expected work (2^G hashes) is refused without --allow-slow\n"
            "  --allow-slow         accept --grinding above %u\n"
            "  --fri-arity K        FRI folds by K = 2, 4, 8 or 16 per committed layer (default 8)\n"
            "  --final-degree D     FRI stops at degree < D, a power of two up to 2^20 (default 256)\n"
            "  --hash H             keccak (Keccak-256, the default) or poseidon2 (Poseidon2 over\n"
            "                       Goldilocks): the hash of every Merkle commitment and of the\n"
            "                       transcript; verify reads it from the proof\n"
            "  --cap-height H       send each Merkle commitment as the 2^H nodes H levels below\n"
            "                       its root (a Merkle cap; 0..%u, default 0: the root); paths\n"
            "                       stop below the cap\n"
            "  --no-check           do not check the trace first (a wrong trace then gives a\n"
            "                       proof that does not verify)\n"
            "\n"
            "resources:\n"
            "  --threads T          worker threads (default: GS_THREADS or all cores)\n"
            "  --backend B          cpu, cuda or auto (default auto: CUDA when a device is present)\n"
            "  --no-fallback        cuda, auto: fail instead of proving a table on the CPU after\n"
            "                       a device failure (by default it falls back and says so)\n"
            "  --device-mem-budget SIZE  cuda, auto: device bytes the proof may hold at once\n"
            "                       (default 90%% of the free device memory)\n"
            "  --tables-parallel K  synth, --elf: tables proven at once (default GS_TABLES_PARALLEL or\n"
            "                       max(2, cores / 4))\n"
            "  --mem-budget SIZE    memory budget: input traces plus what the prover charges\n"
            "                       (on CUDA, device bytes); synth's scheduler keeps the tables\n"
            "                       proven at once within it (default 80%% of available RAM)\n"
            "  --strict-budget      refuse, before proving (exit 2), when one table alone needs\n"
            "                       more than the budget (by default it runs alone, over the\n"
            "                       budget, after a warning with the numbers)\n"
            "  SIZE is bytes with an optional unit: K, M, G, T or KiB, MiB, GiB, TiB (powers of\n"
            "  1024), KB, MB, GB, TB (powers of 1000), or 'unlimited'.\n"
            "\n"
            "output:\n"
            "  -o, --output FILE    where to write the proof (required); '-' for standard\n"
            "                       output (not a terminal; the summary then goes to stderr)\n"
            "  --report             synth, --elf: print the timing report (phases add up to the\n"
            "                       wall time)\n"
            "  --metrics FILE       synth, --elf: one JSON line per proving piece\n"
            "  --timeline FILE      the proof's host spans and device operations as a Chrome\n"
            "                       trace (JSON; open it in ui.perfetto.dev or chrome://tracing;\n"
            "                       docs/gpu.md, \"Reading a timeline\")\n"
            "  -q, --quiet          no progress line and no summary (errors and warnings still\n"
            "                       print)\n"
            "  -v, --verbose        also print every public input\n"
            "  --json               print the summary as one JSON object on stdout (not with -o -)\n"
            "  -h, --help           this text\n"
            "\n"
            "Output files (-o, --metrics, --timeline) are checked before any proving\n"
            "starts. A file that is absent or regular is written to a temporary file beside\n"
            "it and renamed over it (never half written). A character device (/dev/null) or\n"
            "a FIFO is written through in place. A symbolic link, a directory, a block\n"
            "device or a socket is refused: nothing is ever replaced but a regular file.\n"
            "\n"
            "A progress line (tables committed and proven, elapsed time, ETA; redrawn as the\n"
            "prover reports progress) is drawn on stderr when it is a terminal, and nowhere\n"
            "else.\n"
            "\n"
            "exit: 0 proved and written, 2 usage, parameter or output error (before proving;\n"
            "--elf: a bad ELF, a fault, the cycle limit, too much input or output), 3 the\n"
            "prover failed.\n",
            (unsigned long long)GS_ZKVM_MAX_INPUT, GS_ZKVM_MAX_LOG_ROWS,
            (unsigned long long)CLI_ZKVM_MAX_CYCLES, GS_SYNTH_MAX_SHRINK, GS_MIN_SECURITY_BITS, GS_MAX_SECURITY_BITS,
            GS_DEFAULT_SECURITY_BITS, CLI_GRINDING_FAST_MAX, CLI_GRINDING_FAST_MAX, GS_MAX_CAP_HEIGHT);
}

static void help_verify(FILE *f) {
    fprintf(f,
            "usage: gstark verify [options] FILE\n"
            "       gstark verify FILE --elf PROGRAM.elf [--input FILE] [options]\n"
            "\n"
            "Checks a proof file ('-' reads standard input) and prints what it proves: the\n"
            "AIR, the shape (tables, rows, columns), the security level, the public inputs\n"
            "and the statement digest (Keccak-256 over the parameters, AIR fingerprints,\n"
            "heights and public inputs; docs/protocol.md).\n"
            "\n"
            "options:\n"
            "  --min-security BITS  refuse proofs below BITS conjectured (default %u, at most %u)\n"
            "  --expect KEY=VALUE   fail (exit 1) unless the proof's statement has it; repeatable\n"
            "  --statement DIGEST   fail (exit 1) unless the statement digest is DIGEST (64 hex)\n"
            "  --threads T          worker threads\n"
            "  -q, --quiet          print nothing on success\n"
            "  -v, --verbose        print every public input (by default long lists are cut);\n"
            "                       a run's proof: list its tables\n"
            "  --json               print the result as one JSON object on stdout\n"
            "  --elf PROGRAM.elf    a run's proof (gstark prove --elf): the program it must be\n"
            "                       of (required for one, refused for other proofs)\n"
            "  --input FILE         a run's proof: the input it must be of, byte for byte\n"
            "                       (default: any; the proof carries its input)\n"
            "  -h, --help           this text\n"
            "\n"
            "A run's proof is checked against the program --elf gives, never against\n"
            "anything the file says of its program. When valid, what the program wrote to\n"
            "fd 1 goes to standard output, exactly its bytes, and what it wrote to fd 2 to\n"
            "standard error, followed there by the summary: the program's fingerprint and\n"
            "entry, the exit code and cycle count, the input's and output's sizes and\n"
            "digests, the security and the statement digest. --json prints one object\n"
            "instead (\"run\": exit_code, cycles, program, the digests, and the output and\n"
            "stderr bytes as strings, bytes outside printable ASCII as \\u00XX); -q prints\n"
            "nothing. A rejected run's proof prints \"rejected: REASON\" on standard error\n"
            "(another program, another input, a proof that does not verify). The exit\n"
            "status says whether the proof holds, not the program's exit code.\n"
            "\n"
            "--expect keys (numbers in decimal or 0x hex):\n"
            "  air=fib|mix|synth    the built-in AIR family\n"
            "  tables=N             the number of tables (1 for fib and mix)\n"
            "  log-rows=N           the trace height 2^N\n"
            "  cols=C               trace columns\n"
            "  degree=D             the largest constraint degree\n"
            "  seed=S               mix: the seed its constants come from\n"
            "  preset=P, shrink=K   synth: the preset and its shrink\n"
            "  pub[i]=V             public input i\n"
            "  pub=V1,V2,...        all public inputs, in order ('pub=' for none)\n"
            "On a multi-table proof, log-rows, cols, degree and pub name a table:\n"
            "table[T].log-rows=N, table[T].pub[i]=V, ... (quote the brackets in a shell).\n"
            "\n"
            "A proof whose AIR gstark cannot rebuild (not a built-in AIR) is exit 2, \"unknown\n"
            "AIR <fingerprint>\": verify it with the library (docs/air-guide.md).\n"
            "\n"
            "exit: 0 valid (and of the expected statement), 1 invalid or another statement,\n"
            "2 usage or input error.\n",
            GS_MIN_SECURITY_BITS, GS_MAX_SECURITY_BITS);
}

static void help_inspect(FILE *f) {
    fprintf(f,
            "usage: gstark inspect [options] FILE\n"
            "\n"
            "Prints a proof file's statement (AIR, shape, public inputs, digest), parameters,\n"
            "security (conjectured and provable) and the bytes of each part. It does not\n"
            "verify the proof ('gstark verify' does). For a run's proof (gstark prove --elf)\n"
            "it prints the input's and output's sizes and digests and each table (name,\n"
            "rows, columns, public inputs, bytes); it needs no ELF.\n"
            "\n"
            "options:\n"
            "  -v, --verbose        print every public input\n"
            "  --json               print one JSON object on stdout\n"
            "  -h, --help           this text\n"
            "\n"
            "exit: 0 printed, 2 usage or input error (malformed proof bytes included).\n");
}

static void help_demo(FILE *f) {
    fprintf(f,
            "usage: gstark demo [options]\n"
            "\n"
            "Commits a pseudorandom trace (inverse NTT, coset LDE, Keccak Merkle tree), opens\n"
            "and checks four paths, and prints the timings and the root.\n"
            "\n"
            "options:\n"
            "  --log-rows N         2^N rows (default 20, 1..26)\n"
            "  --cols C             columns (default 16, 1..1024)\n"
            "  --log-blowup B       blowup 2^B (default 2, 1..4)\n"
            "  --threads T          worker threads\n"
            "  --seed S             trace seed (default 1)\n"
            "  -h, --help           this text\n");
}

static void help_run(FILE *f) {
    fprintf(f,
            "usage: gstark run [options] PROGRAM.elf\n"
            "\n"
            "Runs a statically linked RV32IM ELF program on the zkVM's machine (docs/zkvm.md)\n"
            "and prints what it wrote to fd 1 on standard output, exactly its bytes (fd 2 on\n"
            "standard error), then on standard error how it stopped, its cycle count (one\n"
            "cycle per instruction) and the speed. Programs use ecall 63 read (fd 0, the\n"
            "input), 64 write (fd 1, 2) and 93 exit; guest/build.sh builds them from C.\n"
            "\n"
            "options:\n"
            "  --input FILE         the program's input (fd 0); '-' for standard input\n"
            "                       (default: empty)\n"
            "  --max-cycles N       stop after N instructions (default 2^32 = 4294967296)\n"
            "  --traced             run the trace-recording path (what proving runs) and\n"
            "                       report the trace's size\n"
            "  --json               print one JSON object on stdout instead: stop, exit_code,\n"
            "                       cycles, seconds, the fault, and the output and stderr\n"
            "                       bytes as strings (bytes outside printable ASCII as\n"
            "                       \\u00XX)\n"
            "  -q, --quiet          no summary line when the program exits 0\n"
            "  -h, --help           this text\n"
            "\n"
            "A fault (an illegal, compressed, CSR or ebreak instruction, an unknown ecall,\n"
            "a misaligned or out-of-range access, a store into the text, a jump outside\n"
            "it) stops the program with the pc, the instruction and the reason.\n"
            "\n"
            "exit: 0 the program exited with code 0, 1 it exited with another code, 2 usage\n"
            "or input error (a file that is not an RV32IM executable, an unreadable input),\n"
            "3 the program faulted or did not exit within --max-cycles.\n");
}

static void help_version(FILE *f) {
    fprintf(f,
            "usage: gstark version (or gstark -V, gstark --version)\n"
            "\n"
            "Prints the version, whether the CUDA backend is built and how many devices\n"
            "it sees.\n");
}

static void help_help(FILE *f) {
    fprintf(f,
            "usage: gstark help [COMMAND]\n"
            "\n"
            "Lists the commands and exit codes, or prints one command's options.\n");
}

static void help_batch(FILE *f) {
    fprintf(f,
            "usage: gstark batch MANIFEST --store DIR [options]\n"
            "\n"
            "Proves every claim of a JSON manifest (docs/batch.md) on resident provers\n"
            "(lanes), stores each proof in a content-addressed store, aggregates them along\n"
            "the manifest's join tree and prints the root join's key, the batch's output.\n"
            "A claim whose memory estimate exceeds the largest lane's budget is bisected\n"
            "(fib) or refused up front with the numbers. A claim already in the store is\n"
            "verified and reused, so a batch killed at any point resumes where it stopped;\n"
            "a corrupt stored object is reported, removed and proven again.\n"
            "\n"
            "options:\n"
            "  --store DIR          the proof store (created where missing; required)\n"
            "  --lanes N            lanes, one resident prover each (default: every CUDA\n"
            "                       device times --lanes-per-device, or max(1, cores / 4)\n"
            "                       CPU lanes without a device; threads split between them)\n"
            "  --lanes-per-device M lanes sharing one device and its budget (default 1)\n"
            "  --out-partition FILE write the refined partition (claims after bisection, and\n"
            "                       the joins) as JSON, atomically; when FILE exists it is\n"
            "                       read first and reused (it must match the manifest)\n"
            "  --backend B          cpu, cuda or auto (default auto: CUDA when a device is\n"
            "                       present)\n"
            "  --mem-budget SIZE    the host's memory budget (default 80%% of available RAM)\n"
            "  --threads T          host threads, split between the lanes\n"
            "  --report             print the report: per claim execute-time, prove-time,\n"
            "                       throughput, peak RAM and device memory, proof size,\n"
            "                       verify-time, fft-cost, shards; joins; the pipeline total\n"
            "  --metrics FILE       JSON lines: one per unit, per lane, and the pipeline\n"
            "  -q, --quiet          no unit lines, progress or summary (errors and warnings\n"
            "                       still print)\n"
            "  --json               print the summary as one JSON object on stdout\n"
            "  -h, --help           this text\n"
            "\n"
            "One line per finished claim or join goes to stderr (lane, device, wait,\n"
            "execute, prove and verify times, reserved bytes, proof size); a progress line\n"
            "(claims done, ETA) is drawn there when it is a terminal. Simulated devices for\n"
            "tests and CPU machines: GS_BATCH_SIM_DEVICES=D:BUDGET (e.g. 2:64M) makes D\n"
            "devices of BUDGET bytes each, with CPU lanes bound to them.\n"
            "\n"
            "The manifest is parsed whole and the output paths checked before anything\n"
            "runs: a bad manifest (its error names the claim) proves and writes nothing.\n"
            "\n"
            "exit: 0 every claim and join proven or reused, 2 usage, manifest or output\n"
            "error (nothing proven), 3 a claim failed (prover error, a proof or boundary\n"
            "that does not verify) or was refused up front; the rest of the batch ran and\n"
            "its dependants were skipped.\n");
}

int cli_help_command(FILE *f, const char *cmd) {
    static const struct {
        const char *name;
        void (*fn)(FILE *);
    } all[] = {{"prove", help_prove},     {"verify", help_verify}, {"inspect", help_inspect},
               {"demo", help_demo},       {"version", help_version}, {"help", help_help},
               {"run", help_run},         {"batch", help_batch}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (!strcmp(cmd, all[i].name)) {
            all[i].fn(f);
            return 1;
        }
    }
    return 0;
}
