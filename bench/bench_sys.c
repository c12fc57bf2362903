/* bench_sys: the system time of a one-shot `gstark prove`, against the
 * system time this machine takes to give a fresh process the same number
 * of bytes of fresh memory (the floor: every page of a proof's peak RSS is
 * faulted in, and the kernel zeroes it, at least once).
 *
 * Each round runs, as separate child processes, alternating:
 *   prove   GSTARK prove ARGS -q -o /dev/null (wall, user, sys, peak RSS,
 *           minor faults from wait4);
 *   touch   this program again (--touch BYTES), mapping BYTES = the proof's
 *           peak RSS and writing one byte a page (sys from wait4).
 * and prints both, the proof's sys as a share of its wall, and the floor's
 * share of the same wall (touch sys / prove wall): the part of the
 * system time that no allocation strategy can remove at that peak.
 *
 * usage: bench_sys [--rounds R] GSTARK [prove args...]
 *   e.g. build/bench_sys --rounds 3 build/gstark --air fib --log-rows 23 */
#include <unistd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double secs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* Runs argv to completion: its wall seconds and rusage; -1 if it could not
 * run or did not exit 0. */
static int run(char **argv, double *wall, struct rusage *ru) {
    pid_t pid;
    double t0 = now();
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) return -1;
    int st;
    if (wait4(pid, &st, 0, ru) != pid) return -1;
    *wall = now() - t0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int touch(size_t bytes) {
    unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < bytes; i += page) p[i] = 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--touch")) return touch(strtoull(argv[2], NULL, 10));
    int rounds = 3, a = 1;
    if (argc > 2 && !strcmp(argv[1], "--rounds")) rounds = atoi(argv[2]), a = 3;
    if (a >= argc || rounds < 1) {
        fprintf(stderr, "usage: bench_sys [--rounds R] GSTARK [prove args...]\n");
        return 2;
    }
    int n = argc - a;
    char **pa = calloc((size_t)n + 6, sizeof *pa);
    if (!pa) return 1;
    pa[0] = argv[a], pa[1] = "prove";
    for (int i = 1; i < n; i++) pa[i + 1] = argv[a + i];
    pa[n + 1] = "-q", pa[n + 2] = "-o", pa[n + 3] = "/dev/null";
    char self[4096];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l <= 0) return 1;
    self[l] = 0;
    printf("bench_sys: %s prove", argv[a]);
    for (int i = 1; i < n; i++) printf(" %s", argv[a + i]);
    printf(", %d rounds, prove and touch alternating, each a fresh process\n", rounds);
    printf("%5s %8s %8s %7s %6s %9s %10s | %9s %7s %7s\n", "round", "wall_s", "user_s", "sys_s",
           "sys%", "peakMiB", "minflt", "touchMiB", "sys_s", "floor%");
    for (int r = 0; r < rounds; r++) {
        double w, tw;
        struct rusage ru, tu;
        if (run(pa, &w, &ru) != 0) {
            fprintf(stderr, "bench_sys: the proof failed\n");
            return 1;
        }
        size_t bytes = (size_t)ru.ru_maxrss * 1024;
        char nb[32];
        snprintf(nb, sizeof nb, "%zu", bytes);
        char *ta[] = {self, "--touch", nb, NULL};
        if (run(ta, &tw, &tu) != 0) {
            fprintf(stderr, "bench_sys: the touch failed\n");
            return 1;
        }
        double sys = secs(ru.ru_stime), tsys = secs(tu.ru_stime);
        printf("%5d %8.2f %8.2f %7.2f %6.1f %9.0f %10ld | %9.0f %7.2f %7.1f\n", r + 1, w, secs(ru.ru_utime),
               sys, 100 * sys / w, ru.ru_maxrss / 1024.0, ru.ru_minflt, bytes / 1048576.0, tsys, 100 * tsys / w);
        fflush(stdout);
    }
    printf("floor%%: the touch's system time as a share of the proof's wall time\n");
    free(pa);
    return 0;
}
