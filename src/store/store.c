/* The content-addressed proof store (include/gstark/store.h; the layout and
 * the publishing protocol are in docs/batch.md, "Store"). One object per
 * file, DIR/objects/<2 hex>/<62 hex> (the key in lower-case hex), holding:
 *
 *    0  magic "GSTOREOB"   8 bytes
 *    8  format (1)         u32 LE
 *   12  kind               u32 LE (gs_store_kind)
 *   16  payload length     u64 LE
 *   24  key                32 bytes
 *   56  check              32 bytes: Keccak-256 of bytes 0..56, then the payload
 *   88  payload
 *
 * The check covers the header as well as the payload, so a flipped bit in
 * the kind or the length is caught like one in the payload.
 *
 * Publishing: the object is written to DIR/tmp/<64 hex key>.<host>.<pid>.<n>.tmp
 * (n a process-wide counter, so threads never share a name), fsync'd,
 * renamed over its final name, and the object's directory fsync'd. A rename
 * is atomic, so a reader opens the old file or the new one, whole; a crash
 * leaves at most a temporary, which gs_store_open removes once its writer is
 * gone. Two writers of one key write the same bytes (proofs are
 * deterministic), so whichever rename lands last is as good as the other. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "gstark/store.h"

#define HOST_MAX 64

struct gs_store {
    char *dir;     /* as given */
    char *objects; /* DIR/objects */
    char *tmp;     /* DIR/tmp */
    char host[HOST_MAX + 1]; /* this host's name as temporaries carry it */
};

static atomic_uint_fast64_t g_tmp_counter;

/* ---- small helpers ---- */

static char *path_join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + 1 + lb + 1);
    if (!p) return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

static void to_hex(char *out, const uint8_t *b, size_t n) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) out[2 * i] = digits[b[i] >> 4], out[2 * i + 1] = digits[b[i] & 15];
    out[2 * n] = 0;
}

static void put_le32(uint8_t *b, uint32_t v) {
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *b) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)b[i] << (8 * i);
    return v;
}

static uint64_t get_le64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int kind_known(uint32_t kind) {
    return kind == GS_STORE_PROOF || kind == GS_STORE_MULTI_PROOF || kind == GS_STORE_JOIN;
}

static int write_all(int fd, const uint8_t *b, size_t n) {
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        b += w, n -= (size_t)w;
    }
    return 1;
}

/* Bytes read until n or end of file; -1 on a read error. */
static ssize_t read_all(int fd, uint8_t *b, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* fsync a directory so that the entries just created or renamed in it
 * survive a crash. File systems that cannot (EINVAL) have nothing to do. */
static int fsync_dir(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0 && e == EINVAL) rc = 0;
    errno = e;
    return rc;
}

static gs_status status_of_errno(int e) {
    return e == ENOTDIR ? GS_ERR_INVALID_ARG : e == ENOMEM ? GS_ERR_NOMEM : GS_ERR_IO;
}

/* mkdir that accepts an existing directory; *created says whether it made one. */
static int ensure_dir(const char *path, int *created) {
    *created = 0;
    if (mkdir(path, 0777) == 0) return *created = 1, 0;
    if (errno != EEXIST) return -1;
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) return errno = ENOTDIR, -1;
    return 0;
}

/* mkdir -p; fsyncs the parent of each directory it creates. */
static int make_dirs(const char *path) {
    char *p = malloc(strlen(path) + 1);
    if (!p) return errno = ENOMEM, -1;
    strcpy(p, path);
    int rc = 0;
    for (char *c = p + 1;; c++) {
        if (*c != '/' && *c != 0) continue;
        char saved = *c;
        *c = 0;
        int created = 0;
        rc = ensure_dir(p, &created);
        if (rc == 0 && created) {
            char *slash = strrchr(p, '/');
            if (slash == p) rc = fsync_dir("/");
            else if (slash) *slash = 0, rc = fsync_dir(p), *slash = '/';
            else rc = fsync_dir(".");
        }
        *c = saved;
        if (rc != 0 || saved == 0) break;
        while (c[1] == '/') c++;
        if (c[1] == 0) break; /* a trailing slash */
    }
    int e = errno;
    free(p);
    errno = e;
    return rc;
}

/* This host's name with every character outside [A-Za-z0-9_-] made '-':
 * the temporaries' names split on '.'. */
static void host_name(char out[HOST_MAX + 1]) {
    char h[256] = {0};
    if (gethostname(h, sizeof h - 1) != 0) h[0] = 0;
    size_t n = 0;
    for (; h[n] && n < HOST_MAX; n++) {
        char c = h[n];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        out[n] = ok ? c : '-';
    }
    if (n == 0) memcpy(out, "host", 5), n = 4;
    out[n] = 0;
}

static int pid_alive(long pid) {
    if (pid <= 0 || (long)(pid_t)pid != pid) return 1; /* not one we can judge */
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* ---- paths ---- */

/* DIR/objects/<2 hex>/<62 hex> and, in *dir_len, the length of its directory part. */
static char *object_path(const gs_store *s, const gs_digest *key, size_t *dir_len) {
    char hex[2 * GS_DIGEST_BYTES + 1];
    to_hex(hex, key->b, GS_DIGEST_BYTES);
    size_t lo = strlen(s->objects);
    char *p = malloc(lo + 1 + 2 + 1 + 62 + 1);
    if (!p) return NULL;
    sprintf(p, "%s/%.2s/%s", s->objects, hex, hex + 2);
    if (dir_len) *dir_len = lo + 3;
    return p;
}

static char *tmp_path(const gs_store *s, const gs_digest *key) {
    char hex[2 * GS_DIGEST_BYTES + 1];
    to_hex(hex, key->b, GS_DIGEST_BYTES);
    unsigned long long n = (unsigned long long)atomic_fetch_add(&g_tmp_counter, 1);
    size_t cap = strlen(s->tmp) + 1 + 64 + 1 + HOST_MAX + 1 + 20 + 1 + 20 + 5;
    char *p = malloc(cap);
    if (!p) return NULL;
    snprintf(p, cap, "%s/%s.%s.%ld.%llu.tmp", s->tmp, hex, s->host, (long)getpid(), n);
    return p;
}

/* ---- open and close ---- */

static gs_status make_layout(gs_store *s) {
    if (make_dirs(s->dir) != 0) return status_of_errno(errno);
    int c_obj = 0, c_tmp = 0, c_sub = 0;
    if (ensure_dir(s->objects, &c_obj) != 0 || ensure_dir(s->tmp, &c_tmp) != 0)
        return status_of_errno(errno);
    size_t lo = strlen(s->objects);
    char *sub = malloc(lo + 4);
    if (!sub) return GS_ERR_NOMEM;
    int rc = 0;
    for (unsigned i = 0; i < 256 && rc == 0; i++) {
        int created = 0;
        sprintf(sub, "%s/%02x", s->objects, i);
        rc = ensure_dir(sub, &created);
        c_sub |= created;
    }
    int e = errno;
    free(sub);
    if (rc != 0) return status_of_errno(e);
    if ((c_sub && fsync_dir(s->objects) != 0) || ((c_obj || c_tmp) && fsync_dir(s->dir) != 0))
        return status_of_errno(errno);
    return GS_OK;
}

/* Directories can be made read-only after creation: try to write. */
static gs_status probe_writable(const gs_store *s) {
    gs_digest zero = {{0}};
    char *p = tmp_path(s, &zero);
    if (!p) return GS_ERR_NOMEM;
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int e = errno;
    if (fd >= 0) close(fd), unlink(p);
    free(p);
    errno = e;
    return fd >= 0 ? GS_OK : status_of_errno(e);
}

/* Parses "<64 hex>.<host>.<pid>.<n>.tmp"; 0 if the name is not a temporary. */
static int parse_tmp_name(const char *name, char host[HOST_MAX + 1], long *pid) {
    size_t len = strlen(name);
    if (len < 64 + 1 + 1 + 1 + 1 + 1 + 1 + 4 || strcmp(name + len - 4, ".tmp") != 0) return 0;
    for (int i = 0; i < 64; i++)
        if (!name[i] || !strchr("0123456789abcdef", name[i])) return 0;
    if (name[64] != '.') return 0;
    const char *h = name + 65, *end = name + len - 4; /* end: the ".tmp" */
    const char *dot2 = strchr(h, '.');                /* after the host */
    if (!dot2 || dot2 == h || dot2 - h > HOST_MAX || dot2 >= end) return 0;
    const char *dot3 = strchr(dot2 + 1, '.'); /* after the pid */
    if (!dot3 || dot3 == dot2 + 1 || dot3 >= end || dot3 + 1 == end) return 0;
    if (strchr(dot3 + 1, '.') != end) return 0;
    long v = 0;
    for (const char *c = dot2 + 1; c < dot3; c++) {
        if (*c < '0' || *c > '9' || v > 99999999) return 0;
        v = v * 10 + (*c - '0');
    }
    for (const char *c = dot3 + 1; c < end; c++)
        if (*c < '0' || *c > '9') return 0;
    memcpy(host, h, (size_t)(dot2 - h));
    host[dot2 - h] = 0;
    *pid = v;
    return 1;
}

/* Removes the temporaries that no writer will rename any more: those of a
 * process on this host that is gone, and any older than
 * GS_STORE_STALE_SECONDS (a process of another host, or a reused pid). Other
 * files are left alone; failures are ignored (another opener may be
 * cleaning too). */
static void clean_tmp(const gs_store *s) {
    DIR *d = opendir(s->tmp);
    if (!d) return;
    time_t now = time(NULL);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        char host[HOST_MAX + 1];
        long pid;
        if (!parse_tmp_name(ent->d_name, host, &pid)) continue;
        struct stat st;
        if (fstatat(dirfd(d), ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        int old = now - st.st_mtime > GS_STORE_STALE_SECONDS;
        int orphan = strcmp(host, s->host) == 0 && !pid_alive(pid);
        if (old || orphan) unlinkat(dirfd(d), ent->d_name, 0);
    }
    closedir(d);
}

gs_status gs_store_open(gs_store **out, const char *dir) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!dir || !*dir) return GS_ERR_INVALID_ARG;
    gs_store *s = calloc(1, sizeof *s);
    if (!s) return GS_ERR_NOMEM;
    s->dir = malloc(strlen(dir) + 1);
    if (s->dir) strcpy(s->dir, dir);
    s->objects = path_join(dir, "objects");
    s->tmp = path_join(dir, "tmp");
    host_name(s->host);
    gs_status st = s->dir && s->objects && s->tmp ? GS_OK : GS_ERR_NOMEM;
    if (st == GS_OK) st = make_layout(s);
    if (st == GS_OK) st = probe_writable(s);
    if (st != GS_OK) {
        int e = errno;
        gs_store_close(s);
        errno = e;
        return st;
    }
    clean_tmp(s);
    *out = s;
    return GS_OK;
}

void gs_store_close(gs_store *s) {
    if (!s) return;
    free(s->dir), free(s->objects), free(s->tmp);
    free(s);
}

const char *gs_store_dir(const gs_store *s) { return s ? s->dir : NULL; }

/* ---- keys ---- */

static gs_digest key_of(uint32_t version, gs_digest statement) {
    static const char tag[] = "gstark-store-key-v1";
    uint8_t v[4];
    put_le32(v, version);
    gs_keccak_ctx c;
    gs_keccak256_init(&c);
    gs_keccak256_absorb(&c, tag, sizeof tag - 1);
    gs_keccak256_absorb(&c, v, 4);
    gs_keccak256_absorb(&c, statement.b, GS_DIGEST_BYTES);
    gs_digest d;
    gs_keccak256_final(&c, d.b);
    return d;
}

gs_digest gs_store_key_proof(const gs_proof *p) {
    return key_of(GS_PROOF_VERSION, gs_proof_statement_digest(p));
}

gs_digest gs_store_key_multi(const gs_multi_proof *p) {
    return key_of(GS_PROOF_VERSION_MULTI, gs_multi_proof_statement_digest(p));
}

gs_digest gs_store_key_join(uint32_t format, const gs_digest *children, uint32_t n) {
    return gs_store_key_join_flags(format, 0, children, n);
}

gs_digest gs_store_key_join_flags(uint32_t format, uint32_t flags, const gs_digest *children,
                                  uint32_t n) {
    static const char tag[] = "gstark-store-join-v1";
    uint8_t v[12];
    put_le32(v, format);
    put_le32(v + 4, n);
    put_le32(v + 8, flags);
    gs_keccak_ctx c;
    gs_keccak256_init(&c);
    gs_keccak256_absorb(&c, tag, sizeof tag - 1);
    gs_keccak256_absorb(&c, v, flags ? 12 : 8); /* flags 0: the keys of before */
    for (uint32_t i = 0; children && i < n; i++) gs_keccak256_absorb(&c, children[i].b, GS_DIGEST_BYTES);
    gs_digest d;
    gs_keccak256_final(&c, d.b);
    return d;
}

/* ---- objects ---- */

static void object_check(uint8_t out[GS_DIGEST_BYTES], const uint8_t *hdr, const uint8_t *data,
                         size_t len) {
    gs_keccak_ctx c;
    gs_keccak256_init(&c);
    gs_keccak256_absorb(&c, hdr, 56);
    if (len) gs_keccak256_absorb(&c, data, len);
    gs_keccak256_final(&c, out);
}

/* 1 if the payload parses as a proof file of `kind` whose store key is
 * `key`; the parsed proof goes to *single or *multi when asked for. */
static int proof_payload_ok(uint32_t kind, const uint8_t *data, size_t len, const gs_digest *key,
                            gs_proof **single, gs_multi_proof **multi) {
    gs_digest k;
    if (kind == GS_STORE_PROOF) {
        gs_proof *p = NULL;
        if (gs_proof_parse(&p, data, len) != GS_OK) return 0;
        k = gs_store_key_proof(p);
        int ok = memcmp(k.b, key->b, GS_DIGEST_BYTES) == 0;
        if (ok && single) *single = p;
        else gs_proof_free(p);
        return ok;
    }
    gs_multi_proof *p = NULL;
    if (gs_multi_proof_parse(&p, data, len) != GS_OK) return 0;
    k = gs_store_key_multi(p);
    int ok = memcmp(k.b, key->b, GS_DIGEST_BYTES) == 0;
    if (ok && multi) *multi = p;
    else gs_multi_proof_free(p);
    return ok;
}

gs_status gs_store_put(gs_store *s, const gs_digest *key, uint32_t kind, const uint8_t *data,
                       size_t len) {
    if (!s || !key || (!data && len) || !kind_known(kind)) return GS_ERR_INVALID_ARG;
    if (kind != GS_STORE_JOIN && !proof_payload_ok(kind, data, len, key, NULL, NULL))
        return GS_ERR_INVALID_ARG;
    uint8_t hdr[GS_STORE_HEADER_BYTES];
    memcpy(hdr, GS_STORE_MAGIC, 8);
    put_le32(hdr + 8, GS_STORE_FORMAT);
    put_le32(hdr + 12, kind);
    put_le64(hdr + 16, (uint64_t)len);
    memcpy(hdr + 24, key->b, GS_DIGEST_BYTES);
    object_check(hdr + 56, hdr, data, len);

    size_t dir_len = 0;
    char *tmp = tmp_path(s, key), *obj = object_path(s, key, &dir_len);
    if (!tmp || !obj) {
        free(tmp), free(obj);
        return GS_ERR_NOMEM;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    int ok = fd >= 0, e = errno;
    if (ok) {
        ok = write_all(fd, hdr, sizeof hdr) && write_all(fd, data, len) && fsync(fd) == 0;
        e = errno;
        if (close(fd) != 0 && ok) ok = 0, e = errno;
    }
    if (ok && rename(tmp, obj) != 0) {
        e = errno;
        /* Its objects/xx directory was removed since open: make it again. */
        int created = 0;
        obj[dir_len] = 0;
        int again = e == ENOENT && ensure_dir(obj, &created) == 0 &&
                    (!created || fsync_dir(s->objects) == 0);
        obj[dir_len] = '/';
        if (!again || rename(tmp, obj) != 0) ok = 0, e = again ? errno : e;
    }
    if (!ok && fd >= 0) unlink(tmp);
    if (ok) {
        obj[dir_len] = 0;
        if (fsync_dir(obj) != 0) ok = 0, e = errno;
    }
    free(tmp), free(obj);
    if (ok) return GS_OK;
    errno = e;
    return GS_ERR_IO;
}

gs_status gs_store_put_proof(gs_store *s, gs_digest *key, const gs_proof *p) {
    if (!s || !p) return GS_ERR_INVALID_ARG;
    uint8_t *b = NULL;
    size_t len = 0;
    GS_TRY(gs_proof_serialize(&b, &len, p));
    gs_digest k = gs_store_key_proof(p);
    gs_status st = gs_store_put(s, &k, GS_STORE_PROOF, b, len);
    free(b);
    if (st == GS_OK && key) *key = k;
    return st;
}

gs_status gs_store_put_multi(gs_store *s, gs_digest *key, const gs_multi_proof *p) {
    if (!s || !p) return GS_ERR_INVALID_ARG;
    uint8_t *b = NULL;
    size_t len = 0;
    GS_TRY(gs_multi_proof_serialize(&b, &len, p));
    gs_digest k = gs_store_key_multi(p);
    gs_status st = gs_store_put(s, &k, GS_STORE_MULTI_PROOF, b, len);
    free(b);
    if (st == GS_OK && key) *key = k;
    return st;
}

/* Reads and checks the object `key`; want = 0 accepts any kind. */
static gs_status load(gs_store *s, const gs_digest *key, uint32_t want, uint32_t *kind_out,
                      uint8_t **data_out, size_t *len_out, gs_proof **single,
                      gs_multi_proof **multi) {
    char *path = object_path(s, key, NULL);
    if (!path) return GS_ERR_NOMEM;
    /* O_NONBLOCK: a FIFO squatting on the name must not hang the reader. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    int e = errno;
    free(path);
    if (fd < 0) {
        if (e == ENOENT) return GS_ERR_NOT_FOUND;
        if (e == ELOOP || e == ENOTDIR || e == ENXIO) return GS_ERR_CORRUPT;
        errno = e;
        return GS_ERR_IO;
    }
    gs_status st = GS_ERR_CORRUPT;
    uint8_t hdr[GS_STORE_HEADER_BYTES], check[GS_DIGEST_BYTES], *data = NULL;
    struct stat sb;
    uint64_t len = 0;
    ssize_t r;
    if (fstat(fd, &sb) != 0) {
        st = GS_ERR_IO;
        goto done;
    }
    if (!S_ISREG(sb.st_mode) || sb.st_size < (off_t)GS_STORE_HEADER_BYTES) goto done;
    if ((r = read_all(fd, hdr, sizeof hdr)) != (ssize_t)sizeof hdr) {
        if (r < 0) st = GS_ERR_IO;
        goto done;
    }
    uint32_t kind = get_le32(hdr + 12);
    len = get_le64(hdr + 16);
    if (memcmp(hdr, GS_STORE_MAGIC, 8) != 0 || get_le32(hdr + 8) != GS_STORE_FORMAT ||
        !kind_known(kind) || (want && kind != want) ||
        len != (uint64_t)sb.st_size - GS_STORE_HEADER_BYTES || len > SIZE_MAX - 1 ||
        memcmp(hdr + 24, key->b, GS_DIGEST_BYTES) != 0)
        goto done;
    data = malloc(len ? (size_t)len : 1);
    if (!data) {
        st = GS_ERR_NOMEM;
        goto done;
    }
    if ((r = read_all(fd, data, (size_t)len)) != (ssize_t)len) {
        if (r < 0) st = GS_ERR_IO;
        goto done;
    }
    object_check(check, hdr, data, (size_t)len);
    if (memcmp(check, hdr + 56, GS_DIGEST_BYTES) != 0) goto done;
    if (kind != GS_STORE_JOIN && !proof_payload_ok(kind, data, (size_t)len, key, single, multi))
        goto done;
    st = GS_OK;
    if (kind_out) *kind_out = kind;
done:
    e = errno;
    close(fd);
    if (st == GS_OK && data_out) {
        *data_out = data, *len_out = (size_t)len;
    } else {
        free(data);
    }
    errno = e;
    return st;
}

gs_status gs_store_get(gs_store *s, uint32_t *kind, uint8_t **data, size_t *len,
                       const gs_digest *key) {
    if (data) *data = NULL;
    if (len) *len = 0;
    if (!s || !data || !len || !key) return GS_ERR_INVALID_ARG;
    return load(s, key, 0, kind, data, len, NULL, NULL);
}

gs_status gs_store_get_proof(gs_store *s, gs_proof **out, const gs_digest *key) {
    if (out) *out = NULL;
    if (!s || !out || !key) return GS_ERR_INVALID_ARG;
    return load(s, key, GS_STORE_PROOF, NULL, NULL, NULL, out, NULL);
}

gs_status gs_store_get_multi(gs_store *s, gs_multi_proof **out, const gs_digest *key) {
    if (out) *out = NULL;
    if (!s || !out || !key) return GS_ERR_INVALID_ARG;
    return load(s, key, GS_STORE_MULTI_PROOF, NULL, NULL, NULL, NULL, out);
}

int gs_store_has(const gs_store *s, const gs_digest *key) {
    if (!s || !key) return 0;
    char *path = object_path(s, key, NULL);
    if (!path) return 0;
    struct stat st;
    int has = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return has;
}

gs_status gs_store_remove(gs_store *s, const gs_digest *key) {
    if (!s || !key) return GS_ERR_INVALID_ARG;
    size_t dir_len = 0;
    char *path = object_path(s, key, &dir_len);
    if (!path) return GS_ERR_NOMEM;
    int rc = unlink(path);
    if (rc != 0 && (errno == EISDIR || errno == EPERM)) rc = rmdir(path); /* a directory squatting */
    if (rc != 0 && errno == ENOENT) {
        free(path);
        return GS_OK;
    }
    if (rc == 0) path[dir_len] = 0, rc = fsync_dir(path);
    int e = errno;
    free(path);
    errno = e;
    return rc == 0 ? GS_OK : GS_ERR_IO;
}

gs_status gs_store_object_path(const gs_store *s, char *buf, size_t cap, const gs_digest *key) {
    if (!s || !buf || !key) return GS_ERR_INVALID_ARG;
    char *p = object_path(s, key, NULL);
    if (!p) return GS_ERR_NOMEM;
    size_t n = strlen(p);
    gs_status st = n < cap ? GS_OK : GS_ERR_INVALID_ARG;
    if (st == GS_OK) memcpy(buf, p, n + 1);
    else if (cap) buf[0] = 0;
    free(p);
    return st;
}
