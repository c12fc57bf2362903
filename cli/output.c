/* Output files: one rule per kind of target (cli.h), checked before any
 * proving and applied when writing. Only a regular file (or nothing) is ever
 * replaced, and then atomically: a temporary file in the same directory,
 * synced, renamed over the target. Devices and FIFOs are written in place;
 * links and everything else are refused. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_out_is_stdout(const char *path) {
    return path && !strcmp(path, "-");
}

/* What a target's kind means for writing it. */
enum { KIND_NEW, KIND_REPLACE, KIND_THROUGH, KIND_REFUSE };

static int kind_of(const struct stat *st, const char **why) {
    if (S_ISREG(st->st_mode)) return KIND_REPLACE;
    if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) return KIND_THROUGH;
    if (S_ISLNK(st->st_mode))
        *why = "is a symbolic link (refused: give the path it points to)";
    else if (S_ISDIR(st->st_mode))
        *why = "is a directory";
    else if (S_ISBLK(st->st_mode))
        *why = "is a block device (refused)";
    else
        *why = "is not a regular file, character device or FIFO (refused)";
    return KIND_REFUSE;
}

/* The directory part of path ("." for a bare name); free() it. */
static char *dir_of(const char *path) {
    char *copy = strdup(path);
    if (!copy) return NULL;
    char *d = strdup(dirname(copy));
    free(copy);
    return d;
}

/* realpath of path's directory, then its last name; 0 if the directory
 * cannot be resolved. */
static int canon_path(char *out, size_t cap, const char *path) {
    char d[PATH_MAX], b[PATH_MAX], dir[PATH_MAX];
    snprintf(d, sizeof d, "%s", path);
    snprintf(b, sizeof b, "%s", path);
    if (!realpath(dirname(d), dir)) return 0;
    return snprintf(out, cap, "%s/%s", dir, basename(b)) < (int)cap;
}

int cli_same_file(const char *a, const char *b) {
    if (!a || !b) return 0;
    if (cli_out_is_stdout(a) || cli_out_is_stdout(b)) return !strcmp(a, b);
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX], cb[PATH_MAX];
    if (canon_path(ca, sizeof ca, a) && canon_path(cb, sizeof cb, b)) return !strcmp(ca, cb);
    return !strcmp(a, b);
}

int cli_out_check(const char *opt, const char *path, int allow_stdout) {
    if (!path || !*path) {
        cli_err("%s needs a file name", opt);
        return 0;
    }
    if (cli_out_is_stdout(path)) {
        if (!allow_stdout) {
            cli_err("%s -: only the proof (-o) can go to standard output", opt);
            return 0;
        }
        if (isatty(STDOUT_FILENO)) {
            cli_err("-o -: standard output is a terminal; redirect it to a file or a pipe");
            return 0;
        }
        return 1;
    }
    struct stat st;
    const char *why = NULL;
    if (lstat(path, &st) == 0) {
        int k = kind_of(&st, &why);
        if (k == KIND_REFUSE) {
            cli_err("%s %s: %s", opt, path, why);
            return 0;
        }
        if (access(path, W_OK) != 0) { /* a read-only file is not replaced either */
            cli_err("%s %s: %s", opt, path, strerror(errno));
            return 0;
        }
        if (k == KIND_THROUGH) return 1;
    } else if (errno != ENOENT) {
        cli_err("%s %s: %s", opt, path, strerror(errno));
        return 0;
    } else if (path[strlen(path) - 1] == '/') {
        cli_err("%s %s: no such directory", opt, path);
        return 0;
    }
    /* Absent or regular: a temporary file is created in its directory. */
    char *dir = dir_of(path);
    if (!dir) {
        cli_err("%s %s: out of memory", opt, path);
        return 0;
    }
    int ok = 0;
    if (stat(dir, &st) != 0)
        cli_err("%s %s: directory %s: %s", opt, path, dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        cli_err("%s %s: %s is not a directory", opt, path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        cli_err("%s %s: directory %s: %s", opt, path, dir, strerror(errno));
    else
        ok = 1;
    free(dir);
    return ok;
}

/* Writes all of buf to fd; 0 with errno set on failure. */
static int write_all(int fd, const uint8_t *buf, size_t len) {
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        buf += w, len -= (size_t)w;
    }
    return 1;
}

static int fail_write(const char *path, int e) {
    cli_err("writing %s: %s", cli_out_is_stdout(path) ? "standard output" : path, strerror(e));
    return CLI_USAGE;
}

/* Opens an existing device or FIFO and writes in place (no truncation, no
 * rename); O_NOFOLLOW so a link swapped in since the check is refused. */
static int write_through(const char *path, const uint8_t *buf, size_t len) {
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return fail_write(path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        close(fd);
        cli_err("writing %s: it changed kind since it was checked", path);
        return CLI_USAGE;
    }
    int ok = write_all(fd, buf, len);
    int e = errno;
    if (close(fd) != 0 && ok) ok = 0, e = errno;
    return ok ? CLI_OK : fail_write(path, e);
}

static int write_replace(const char *path, const uint8_t *buf, size_t len, const struct stat *old) {
    char *dir = dir_of(path);
    char *copy = strdup(path);
    char *tmp = NULL;
    if (dir && copy) {
        const char *base = basename(copy);
        size_t cap = strlen(dir) + 200;
        tmp = malloc(cap);
        /* ".NAME.tmp.XXXXXX" beside the target (NAME cut to stay a legal name). */
        if (tmp) snprintf(tmp, cap, "%s/.%.160s.tmp.XXXXXX", dir, base);
    }
    free(copy);
    free(dir);
    if (!tmp) {
        cli_err("writing %s: out of memory", path);
        return CLI_USAGE;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return fail_write(path, e);
    }
    mode_t mode;
    if (old) {
        mode = old->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    int ok = write_all(fd, buf, len) && fchmod(fd, mode) == 0 && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) ok = 0, e = errno;
    /* The target must still be absent or regular: never rename over
     * anything else, even if it appeared since the check. */
    struct stat st;
    if (ok && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        unlink(tmp);
        free(tmp);
        cli_err("writing %s: it is no longer a regular file; nothing written", path);
        return CLI_USAGE;
    }
    if (ok && rename(tmp, path) != 0) ok = 0, e = errno;
    if (!ok) unlink(tmp);
    free(tmp);
    return ok ? CLI_OK : fail_write(path, e);
}

int cli_out_write(const char *path, const uint8_t *buf, size_t len) {
    if (cli_out_is_stdout(path)) {
        fflush(stdout);
        return write_all(STDOUT_FILENO, buf, len) ? CLI_OK : fail_write(path, errno);
    }
    struct stat st;
    const char *why = NULL;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) return fail_write(path, errno);
        return write_replace(path, buf, len, NULL);
    }
    switch (kind_of(&st, &why)) {
    case KIND_REPLACE: return write_replace(path, buf, len, &st);
    case KIND_THROUGH: return write_through(path, buf, len);
    default:
        cli_err("writing %s: %s", path, why);
        return CLI_USAGE;
    }
}
