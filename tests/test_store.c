/* The proof store (src/store/store.c; layout in docs/batch.md, "Store"):
 * keys against an independent computation of the documented formula (and
 * computable before proving); put/get round trips of real proofs (fib 2^6, a
 * small multi-table proof, join objects) whose loaded copies verify; the
 * on-disk layout as documented; wrong keys, truncated, extended, bit-flipped,
 * header-edited and payload-swapped objects, and files that are not objects,
 * all GS_ERR_CORRUPT; stale temporaries cleaned (and a writer killed with
 * SIGKILL mid-stream leaves no partial object); several threads and two
 * processes putting the same and different keys while readers loop get():
 * every successful get returns the exact bytes; store paths that are files
 * or not writable refused with their status and errno. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fib_air.h"
#include "fuzz/multi_stmt.h"
#include "gstark/prover.h"
#include "gstark/store.h"
#include "gstark/verifier.h"
#include "test_io.h"
#include "test_util.h"

#define HDR 88u /* the documented header size */

static const gs_params FIB_PARAMS = {1, 2, 2, 78, 1, 0, 0, 0, 0}; /* 80 bits: small and quick */
#define FIB_LOG_N 6u

static char g_base[256];     /* this run's scratch directory */
static gs_air *g_fib;        /* the fib AIR */
static gs_air *g_mairs[MULTI_STMT_TABLES];
static gs_proof *g_pa, *g_pb; /* fib 2^6 from (1, 1) and from (2, 3) */
/* The small multi statement: g_ma (seed 1) and g_mw (seed 2: another witness,
 * the same statement, as its tables have no public inputs), and g_mb (seed 2
 * under other parameters: another statement). */
static gs_multi_proof *g_ma, *g_mb, *g_mw;
static const gs_params MULTI_B_PARAMS = {1, 1, 2, 79, 1, 0, 0, 0, 0};
static gs_fp g_pub_a[4];
typedef struct {
    uint8_t *b;
    size_t n;
} bytes;
static bytes g_ba, g_bb, g_bma, g_bmb, g_bj; /* serialized proofs and a join payload */
static gs_digest g_ka, g_kb, g_kma, g_kmb, g_kj;

/* ---- helpers ---- */

/* snprintf for paths; a path that does not fit fails the test. */
static void pathf(char *out, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    CHECK(n >= 0 && (size_t)n < cap);
}

static void hex_of(char out[65], const gs_digest *k) {
    for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", k->b[i]);
}

/* DIR/objects/<2 hex>/<62 hex>, from the documentation. */
static void obj_file(char *out, size_t cap, const char *dir, const gs_digest *k) {
    char h[65];
    hex_of(h, k);
    snprintf(out, cap, "%s/objects/%.2s/%s", dir, h, h + 2);
}

static int same_key(const gs_digest *a, const gs_digest *b) { return memcmp(a->b, b->b, 32) == 0; }

/* Replaces a file's bytes (objects are read-only files: unlink first). */
static int write_raw(const char *path, const uint8_t *b, size_t n) {
    unlink(path);
    return write_file(path, b, n);
}

static void rm_rf(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[1024];
            pathf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rm_rf(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Entries in DIR/tmp. */
static int count_tmp(const char *dir) {
    char p[512];
    pathf(p, sizeof p, "%s/tmp", dir);
    DIR *d = opendir(p);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* The documented check: Keccak-256 of header bytes 0..56, then the payload. */
static void doc_check(uint8_t out[32], const uint8_t *obj, size_t n) {
    gs_keccak_ctx c;
    gs_keccak256_init(&c);
    gs_keccak256_absorb(&c, obj, 56);
    gs_keccak256_absorb(&c, obj + HDR, n - HDR);
    gs_keccak256_final(&c, out);
}

/* An object built here from the documentation (check computed, fields as given). */
static uint8_t *make_obj(size_t *n, uint32_t kind, const gs_digest *key, const uint8_t *payload,
                         size_t len) {
    uint8_t *o = malloc(HDR + len + 1);
    memcpy(o, "GSTOREOB", 8);
    wr32(o + 8, 1);
    wr32(o + 12, kind);
    wr64(o + 16, len);
    memcpy(o + 24, key->b, 32);
    if (len) memcpy(o + HDR, payload, len);
    doc_check(o + 56, o, HDR + len);
    *n = HDR + len;
    return o;
}

static const char *st(gs_status s) { return gs_status_str(s); }

/* ---- fixtures ---- */

static gs_proof *prove_fib(gs_fp a0, gs_fp a1, gs_fp pub[4]) {
    pub[0] = a0, pub[1] = a1;
    gs_fp *m = fib_trace(FIB_LOG_N, pub);
    gs_prove_opts o = {.air_desc = "fib"};
    gs_proof *p = NULL;
    gs_status s = m ? gs_prove(&p, g_fib, m, FIB_LOG_N, pub, &FIB_PARAMS, &o) : GS_ERR_NOMEM;
    free(m);
    if (s != GS_OK) fprintf(stderr, "prove fib: %s\n", st(s));
    CHECK(s == GS_OK);
    return p;
}

static gs_multi_proof *prove_multi(uint64_t seed, const gs_params *par) {
    gs_multi_workload w = {0};
    gs_status s = multi_stmt_workload(&w, seed);
    gs_multi_proof *mp = NULL;
    gs_table_input in[MULTI_STMT_TABLES];
    if (s == GS_OK) {
        for (uint32_t i = 0; i < w.num_tables; i++)
            in[i] = (gs_table_input){.air = w.tables[i].air, .trace = w.tables[i].trace,
                                     .log_n = w.tables[i].log_n, .pub = w.tables[i].pub};
        s = gs_prove_multi(&mp, in, w.num_tables, par, NULL);
    }
    gs_multi_workload_free(&w);
    if (s != GS_OK) fprintf(stderr, "prove multi: %s\n", st(s));
    CHECK(s == GS_OK);
    return mp;
}

static int setup(void) {
    const char *t = getenv("TMPDIR");
    pathf(g_base, sizeof g_base, "%s/gstark-test-store.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(g_base)) return 0;
    chmod(g_base, 0755); /* the unwritable-store check runs as another user */
    g_fib = fib_air();
    if (!g_fib || multi_stmt_airs(g_mairs) != GS_OK) return 0;
    gs_fp pub_b[4];
    g_pa = prove_fib(1, 1, g_pub_a);
    g_pb = prove_fib(2, 3, pub_b);
    g_ma = prove_multi(1, &MULTI_STMT_PARAMS);
    g_mb = prove_multi(2, &MULTI_B_PARAMS);
    g_mw = prove_multi(2, &MULTI_STMT_PARAMS);
    if (!g_pa || !g_pb || !g_ma || !g_mb || !g_mw) return 0;
    CHECK(gs_proof_serialize(&g_ba.b, &g_ba.n, g_pa) == GS_OK);
    CHECK(gs_proof_serialize(&g_bb.b, &g_bb.n, g_pb) == GS_OK);
    CHECK(gs_multi_proof_serialize(&g_bma.b, &g_bma.n, g_ma) == GS_OK);
    CHECK(gs_multi_proof_serialize(&g_bmb.b, &g_bmb.n, g_mb) == GS_OK);
    g_ka = gs_store_key_proof(g_pa), g_kb = gs_store_key_proof(g_pb);
    g_kma = gs_store_key_multi(g_ma), g_kmb = gs_store_key_multi(g_mb);
    gs_digest ch[2] = {g_ka, g_kb};
    g_kj = gs_store_key_join(1, ch, 2);
    g_bj.n = 200;
    g_bj.b = malloc(g_bj.n);
    for (size_t i = 0; g_bj.b && i < g_bj.n; i++) g_bj.b[i] = (uint8_t)gs_test_u64();
    return g_ba.b && g_bb.b && g_bma.b && g_bmb.b && g_bj.b;
}

static gs_store *open_dir(const char *name) {
    char p[512];
    pathf(p, sizeof p, "%s/%s", g_base, name);
    gs_store *s = NULL;
    gs_status r = gs_store_open(&s, p);
    if (r != GS_OK) fprintf(stderr, "open %s: %s (%s)\n", p, st(r), strerror(errno));
    CHECK(r == GS_OK && s);
    return s;
}

/* ---- status codes and keys ---- */

static void test_status(void) {
    CHECK(GS_ERR_NOT_FOUND == 17 && GS_ERR_CORRUPT == 18 && GS_ERR_MANIFEST == 19 &&
          GS_ERR_CANCELLED == 33);
    CHECK(strcmp(gs_status_str(GS_ERR_NOT_FOUND), "not found") == 0);
    CHECK(strcmp(gs_status_str(GS_ERR_CORRUPT), "stored object failed its integrity check") == 0);
    CHECK(strcmp(gs_status_str(GS_ERR_MANIFEST), "bad batch manifest") == 0);
    CHECK(strcmp(gs_status_str(GS_ERR_CANCELLED), "cancelled") == 0);
}

/* Keccak-256(tag || LE32 version || statement digest), computed here. */
static gs_digest doc_key(uint32_t version, gs_digest stmt) {
    uint8_t buf[19 + 4 + 32];
    memcpy(buf, "gstark-store-key-v1", 19);
    wr32(buf + 19, version);
    memcpy(buf + 23, stmt.b, 32);
    gs_digest d;
    gs_keccak256(d.b, buf, sizeof buf);
    return d;
}

static void test_keys(void) {
    gs_digest k = gs_store_key_proof(g_pa);
    CHECK(same_key(&k, &g_ka));
    k = doc_key(1, gs_proof_statement_digest(g_pa));
    CHECK(same_key(&k, &g_ka));
    k = doc_key(2, gs_multi_proof_statement_digest(g_ma));
    CHECK(same_key(&k, &g_kma));
    CHECK(!same_key(&g_ka, &g_kb) && !same_key(&g_kma, &g_kmb) && !same_key(&g_ka, &g_kma));

    /* A key names a statement, not a witness: another witness of the same
     * statement has the same key (and is as good a proof of it). */
    k = gs_store_key_multi(g_mw);
    CHECK(same_key(&k, &g_kma));

    /* Before proving: a gs_proof with only the statement fields. */
    gs_proof stub = {.params = FIB_PARAMS, .air_fingerprint = gs_air_fingerprint(g_fib),
                     .log_n = FIB_LOG_N, .num_public = 4, .pub = g_pub_a};
    k = gs_store_key_proof(&stub);
    CHECK(same_key(&k, &g_ka));
    snprintf(stub.air_desc, sizeof stub.air_desc, "another description");
    k = gs_store_key_proof(&stub);
    CHECK(same_key(&k, &g_ka)); /* air_desc is informative, not in the key */
    stub.params.num_queries++;
    k = gs_store_key_proof(&stub);
    CHECK(!same_key(&k, &g_ka));
    stub.params = FIB_PARAMS, stub.log_n++;
    k = gs_store_key_proof(&stub);
    CHECK(!same_key(&k, &g_ka));

    gs_multi_workload w = {0};
    CHECK(multi_stmt_workload(&w, 1) == GS_OK);
    gs_proof tabs[MULTI_STMT_TABLES];
    memset(tabs, 0, sizeof tabs);
    for (uint32_t i = 0; i < w.num_tables && i < MULTI_STMT_TABLES; i++)
        tabs[i] = (gs_proof){.params = MULTI_STMT_PARAMS,
                             .air_fingerprint = gs_air_fingerprint(w.tables[i].air),
                             .log_n = w.tables[i].log_n,
                             .num_public = gs_air_num_public(w.tables[i].air),
                             .pub = w.tables[i].pub};
    gs_multi_proof mstub = {.params = MULTI_STMT_PARAMS, .num_tables = MULTI_STMT_TABLES, .tables = tabs};
    k = gs_store_key_multi(&mstub);
    CHECK(same_key(&k, &g_kma));
    gs_multi_workload_free(&w);

    /* Joins: Keccak-256("gstark-store-join-v1" || LE32 format || LE32 n || keys). */
    uint8_t jb[20 + 8 + 64];
    memcpy(jb, "gstark-store-join-v1", 20);
    wr32(jb + 20, 1), wr32(jb + 24, 2);
    memcpy(jb + 28, g_ka.b, 32), memcpy(jb + 60, g_kb.b, 32);
    gs_keccak256(k.b, jb, sizeof jb);
    CHECK(same_key(&k, &g_kj));
    gs_digest sw[2] = {g_kb, g_ka}, one[1] = {g_ka};
    k = gs_store_key_join(1, sw, 2);
    CHECK(!same_key(&k, &g_kj));
    k = gs_store_key_join(2, (gs_digest[2]){g_ka, g_kb}, 2);
    CHECK(!same_key(&k, &g_kj));
    k = gs_store_key_join(1, one, 1);
    CHECK(!same_key(&k, &g_kj));
    /* flags: 0 is the same key; 1 (a bisection join) absorbs them after n */
    k = gs_store_key_join_flags(1, 0, (gs_digest[2]){g_ka, g_kb}, 2);
    CHECK(same_key(&k, &g_kj));
    k = gs_store_key_join_flags(1, 1, (gs_digest[2]){g_ka, g_kb}, 2);
    CHECK(!same_key(&k, &g_kj));
    uint8_t jf[20 + 12 + 64];
    memcpy(jf, "gstark-store-join-v1", 20);
    wr32(jf + 20, 1), wr32(jf + 24, 2), wr32(jf + 28, 1);
    memcpy(jf + 32, g_ka.b, 32), memcpy(jf + 64, g_kb.b, 32);
    gs_digest kf;
    gs_keccak256(kf.b, jf, sizeof jf);
    CHECK(same_key(&k, &kf));
}

/* ---- round trips and the layout ---- */

static void check_get(gs_store *s, const gs_digest *k, uint32_t want_kind, const bytes *want) {
    uint32_t kind = 0;
    uint8_t *d = NULL;
    size_t n = 0;
    gs_status r = gs_store_get(s, &kind, &d, &n, k);
    if (r != GS_OK) fprintf(stderr, "get: %s\n", st(r));
    CHECK(r == GS_OK && kind == want_kind && d && n == want->n && memcmp(d, want->b, n) == 0);
    free(d);
}

static void test_round_trip(void) {
    gs_store *s = open_dir("rt");
    if (!s) return;
    char dir[512], p[600], q[600];
    pathf(dir, sizeof dir, "%s/rt", g_base);
    CHECK(strcmp(gs_store_dir(s), dir) == 0);

    uint8_t *d = (uint8_t *)1;
    size_t n = 7;
    uint32_t kind = 99;
    CHECK(!gs_store_has(s, &g_ka));
    CHECK(gs_store_get(s, &kind, &d, &n, &g_ka) == GS_ERR_NOT_FOUND && d == NULL && n == 0);
    gs_proof *pp = NULL;
    CHECK(gs_store_get_proof(s, &pp, &g_ka) == GS_ERR_NOT_FOUND && pp == NULL);

    /* A single-table proof. */
    gs_digest k;
    CHECK(gs_store_put_proof(s, &k, g_pa) == GS_OK && same_key(&k, &g_ka));
    CHECK(gs_store_has(s, &g_ka));
    check_get(s, &g_ka, GS_STORE_PROOF, &g_ba);
    CHECK(gs_store_get_proof(s, &pp, &g_ka) == GS_OK && pp);
    if (pp) CHECK(gs_verify(g_fib, pp, 0) == GS_OK);
    gs_proof_free(pp);
    gs_multi_proof *mp = (gs_multi_proof *)1;
    CHECK(gs_store_get_multi(s, &mp, &g_ka) == GS_ERR_CORRUPT && mp == NULL); /* another kind */

    /* The file as documented. */
    obj_file(p, sizeof p, dir, &g_ka);
    CHECK(gs_store_object_path(s, q, sizeof q, &g_ka) == GS_OK && strcmp(p, q) == 0);
    CHECK(gs_store_object_path(s, q, strlen(p), &g_ka) == GS_ERR_INVALID_ARG);
    uint8_t *f = read_file(p, &n);
    CHECK(f && n == HDR + g_ba.n);
    if (f && n == HDR + g_ba.n) {
        uint8_t c[32];
        doc_check(c, f, n);
        CHECK(memcmp(f, "GSTOREOB", 8) == 0 && rd32(f + 8) == 1 && rd32(f + 12) == 1 &&
              rd64(f + 16) == g_ba.n && memcmp(f + 24, g_ka.b, 32) == 0 &&
              memcmp(f + 56, c, 32) == 0 && memcmp(f + HDR, g_ba.b, g_ba.n) == 0);
    }
    free(f);
    struct stat sb;
    CHECK(stat(p, &sb) == 0 && (sb.st_mode & 0222) == 0); /* objects are read-only files */

    /* A multi-table proof, put as bytes. */
    CHECK(gs_store_put(s, &g_kma, GS_STORE_MULTI_PROOF, g_bma.b, g_bma.n) == GS_OK);
    check_get(s, &g_kma, GS_STORE_MULTI_PROOF, &g_bma);
    mp = NULL;
    CHECK(gs_store_get_multi(s, &mp, &g_kma) == GS_OK && mp);
    if (mp) CHECK(gs_verify_multi((const gs_air *const *)g_mairs, MULTI_STMT_TABLES, mp, 0) == GS_OK);
    gs_multi_proof_free(mp);
    CHECK(gs_store_get_proof(s, &pp, &g_kma) == GS_ERR_CORRUPT && pp == NULL);
    CHECK(gs_store_put_multi(s, &k, g_mb) == GS_OK && same_key(&k, &g_kmb));
    check_get(s, &g_kmb, GS_STORE_MULTI_PROOF, &g_bmb);

    /* Joins: opaque bytes, an empty payload included. */
    CHECK(gs_store_put(s, &g_kj, GS_STORE_JOIN, g_bj.b, g_bj.n) == GS_OK);
    check_get(s, &g_kj, GS_STORE_JOIN, &g_bj);
    gs_digest ke = gs_store_key_join(1, NULL, 0);
    CHECK(gs_store_put(s, &ke, GS_STORE_JOIN, NULL, 0) == GS_OK);
    d = NULL;
    CHECK(gs_store_get(s, &kind, &d, &n, &ke) == GS_OK && kind == GS_STORE_JOIN && d && n == 0);
    free(d);
    CHECK(gs_store_get_proof(s, &pp, &g_kj) == GS_ERR_CORRUPT);

    /* Another witness's proof of the same statement is accepted under its key
     * and replaces the first one whole; then the first one is put back. */
    {
        bytes w = {NULL, 0};
        CHECK(gs_multi_proof_serialize(&w.b, &w.n, g_mw) == GS_OK);
        CHECK(w.b && (w.n != g_bma.n || memcmp(w.b, g_bma.b, w.n) != 0));
        if (w.b) {
            CHECK(gs_store_put(s, &g_kma, GS_STORE_MULTI_PROOF, w.b, w.n) == GS_OK);
            check_get(s, &g_kma, GS_STORE_MULTI_PROOF, &w);
            CHECK(gs_store_put(s, &g_kma, GS_STORE_MULTI_PROOF, g_bma.b, g_bma.n) == GS_OK);
        }
        free(w.b);
    }

    /* Putting again replaces the object with the same bytes. */
    CHECK(gs_store_put(s, &g_ka, GS_STORE_PROOF, g_ba.b, g_ba.n) == GS_OK);
    check_get(s, &g_ka, GS_STORE_PROOF, &g_ba);

    /* Refused puts write nothing: a proof under another key or kind, garbage, unknown kinds. */
    CHECK(gs_store_put(s, &g_kb, GS_STORE_PROOF, g_ba.b, g_ba.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, &g_kb, GS_STORE_MULTI_PROOF, g_ba.b, g_ba.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, &g_kb, GS_STORE_PROOF, g_ba.b, g_ba.n - 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, &g_kb, GS_STORE_PROOF, g_bj.b, g_bj.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, &g_kb, 0, g_bj.b, g_bj.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, &g_kb, 4, g_bj.b, g_bj.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, &g_kb, GS_STORE_JOIN, NULL, 1) == GS_ERR_INVALID_ARG);
    CHECK(!gs_store_has(s, &g_kb));

    /* Remove, idempotently. */
    CHECK(gs_store_remove(s, &g_ka) == GS_OK && !gs_store_has(s, &g_ka));
    CHECK(gs_store_get(s, &kind, &d, &n, &g_ka) == GS_ERR_NOT_FOUND);
    CHECK(gs_store_remove(s, &g_ka) == GS_OK);
    CHECK(gs_store_put_proof(s, NULL, g_pa) == GS_OK && gs_store_has(s, &g_ka));
    CHECK(count_tmp(dir) == 0); /* every temporary was renamed or removed */

    /* Arguments. */
    CHECK(gs_store_put(NULL, &g_ka, GS_STORE_PROOF, g_ba.b, g_ba.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put(s, NULL, GS_STORE_PROOF, g_ba.b, g_ba.n) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_get(s, &kind, NULL, &n, &g_ka) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_get(s, &kind, &d, &n, NULL) == GS_ERR_INVALID_ARG && d == NULL);
    CHECK(gs_store_get(NULL, &kind, &d, &n, &g_ka) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_get_proof(s, NULL, &g_ka) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_put_proof(s, &k, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_store_remove(NULL, &g_ka) == GS_ERR_INVALID_ARG);
    CHECK(!gs_store_has(NULL, &g_ka) && !gs_store_has(s, NULL));
    CHECK(gs_store_get(s, NULL, &d, &n, &g_ka) == GS_OK); /* kind is optional */
    free(d);
    gs_store_close(s);
    gs_store_close(NULL);

    /* Reopening finds everything. */
    s = open_dir("rt");
    if (s) check_get(s, &g_kma, GS_STORE_MULTI_PROOF, &g_bma);
    gs_store_close(s);
}

/* ---- damaged objects ---- */

static int g_corrupt_cases;

/* Writes `obj` as the object `key` and expects every reader to refuse it;
 * then a put repairs it. */
static void expect_corrupt(gs_store *s, const char *dir, const gs_digest *key, uint32_t kind,
                           const bytes *good, const uint8_t *obj, size_t n, const char *what) {
    char p[600];
    obj_file(p, sizeof p, dir, key);
    CHECK(write_raw(p, obj, n));
    uint8_t *d = (uint8_t *)1;
    size_t len = 5;
    gs_status r = gs_store_get(s, NULL, &d, &len, key);
    if (r != GS_ERR_CORRUPT) fprintf(stderr, "%s: get gave %s\n", what, st(r));
    CHECK(r == GS_ERR_CORRUPT && d == NULL && len == 0);
    gs_proof *pp = NULL;
    gs_multi_proof *mp = NULL;
    if (kind == GS_STORE_PROOF) CHECK(gs_store_get_proof(s, &pp, key) == GS_ERR_CORRUPT && !pp);
    if (kind == GS_STORE_MULTI_PROOF) CHECK(gs_store_get_multi(s, &mp, key) == GS_ERR_CORRUPT && !mp);
    g_corrupt_cases++;
    CHECK(gs_store_put(s, key, kind, good->b, good->n) == GS_OK);
    check_get(s, key, kind, good);
}

static void corrupt_family(gs_store *s, const char *dir, const gs_digest *key, uint32_t kind,
                           const bytes *good, const bytes *other, int flips) {
    size_t n;
    uint8_t *o = make_obj(&n, kind, key, good->b, good->n);
    uint8_t *m = malloc(n + 128);
    /* Truncations: the header's edges, the payload's end, random lengths. */
    size_t cuts[] = {0, 1, 8, 23, 55, HDR - 1, HDR, HDR + 1, n - 1, n / 2};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        expect_corrupt(s, dir, key, kind, good, o, cuts[i], "truncated");
    for (int i = 0; i < 10; i++)
        expect_corrupt(s, dir, key, kind, good, o, HDR + (size_t)gs_test_below(n - HDR), "truncated");
    /* Extended: a byte or more past the payload. */
    memcpy(m, o, n), memset(m + n, 0, 128);
    expect_corrupt(s, dir, key, kind, good, m, n + 1, "extended by 1");
    expect_corrupt(s, dir, key, kind, good, m, n + 128, "extended by 128");
    /* Bit flips: every header byte once, random payload bits. */
    for (size_t i = 0; i < HDR; i++) {
        memcpy(m, o, n);
        m[i] ^= (uint8_t)(1u << gs_test_below(8));
        expect_corrupt(s, dir, key, kind, good, m, n, "header bit flip");
    }
    for (int i = 0; i < flips && good->n; i++) {
        memcpy(m, o, n);
        m[HDR + gs_test_below(good->n)] ^= (uint8_t)(1u << gs_test_below(8));
        expect_corrupt(s, dir, key, kind, good, m, n, "payload bit flip");
    }
    /* Header edits with the check recomputed: each field's own rule must catch it. */
    struct { size_t at; int width; uint64_t v; const char *what; } edits[] = {
        {0, 8, 0x434f45524f545347ull /* "GSTOREOC" */, "magic"},
        {8, 4, 2, "format 2"},
        {8, 4, 0, "format 0"},
        {12, 4, 0, "kind 0"},
        {12, 4, 9, "kind 9"},
        {16, 8, good->n + 1, "length + 1"},
        {16, 8, good->n ? good->n - 1 : 1, "length - 1"},
        {16, 8, 1ull << 62, "huge length"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(m, o, n);
        if (edits[i].width == 8) wr64(m + edits[i].at, edits[i].v);
        else wr32(m + edits[i].at, (uint32_t)edits[i].v);
        doc_check(m + 56, m, n);
        expect_corrupt(s, dir, key, kind, good, m, n, edits[i].what);
    }
    if (kind != GS_STORE_JOIN) {
        /* The other proof kind, check recomputed: the payload does not parse as it. */
        memcpy(m, o, n);
        wr32(m + 12, kind == GS_STORE_PROOF ? GS_STORE_MULTI_PROOF : GS_STORE_PROOF);
        doc_check(m + 56, m, n);
        expect_corrupt(s, dir, key, kind, good, m, n, "other proof kind");
        /* As a join, check recomputed: get() cannot tell (joins are opaque), the proof getters refuse. */
        wr32(m + 12, GS_STORE_JOIN);
        doc_check(m + 56, m, n);
        char p[600];
        obj_file(p, sizeof p, dir, key);
        CHECK(write_raw(p, m, n));
        gs_proof *pp = NULL;
        gs_multi_proof *mp = NULL;
        CHECK((kind == GS_STORE_PROOF ? gs_store_get_proof(s, &pp, key)
                                      : gs_store_get_multi(s, &mp, key)) == GS_ERR_CORRUPT);
        CHECK(!pp && !mp);
        CHECK(gs_store_put(s, key, kind, good->b, good->n) == GS_OK);
    }
    /* Payload swapped: another object's payload under this key, header and check
     * consistent; proofs fail their key check (a join cannot: its bytes are opaque). */
    if (kind != GS_STORE_JOIN) {
        size_t n2;
        uint8_t *o2 = make_obj(&n2, kind, key, other->b, other->n);
        expect_corrupt(s, dir, key, kind, good, o2, n2, "payload swapped");
        free(o2);
    }
    /* Another key's whole object: the header's key is not the one asked for. */
    {
        gs_digest k2 = *key;
        k2.b[31] ^= 1;
        size_t n2;
        uint8_t *o2 = make_obj(&n2, kind, &k2, good->b, good->n);
        expect_corrupt(s, dir, key, kind, good, o2, n2, "wrong key");
        free(o2);
    }
    free(m);
    free(o);
}

static void test_corruption(void) {
    gs_store *s = open_dir("bad");
    if (!s) return;
    char dir[512], p[600], q[600];
    pathf(dir, sizeof dir, "%s/bad", g_base);
    CHECK(gs_store_put(s, &g_ka, GS_STORE_PROOF, g_ba.b, g_ba.n) == GS_OK);
    CHECK(gs_store_put(s, &g_kb, GS_STORE_PROOF, g_bb.b, g_bb.n) == GS_OK);
    CHECK(gs_store_put(s, &g_kma, GS_STORE_MULTI_PROOF, g_bma.b, g_bma.n) == GS_OK);
    CHECK(gs_store_put(s, &g_kj, GS_STORE_JOIN, g_bj.b, g_bj.n) == GS_OK);
    corrupt_family(s, dir, &g_ka, GS_STORE_PROOF, &g_ba, &g_bb, 100);
    corrupt_family(s, dir, &g_kma, GS_STORE_MULTI_PROOF, &g_bma, &g_bmb, 40);
    corrupt_family(s, dir, &g_kj, GS_STORE_JOIN, &g_bj, NULL, 40);

    /* kb's object file copied into ka's place. */
    obj_file(p, sizeof p, dir, &g_kb);
    size_t n;
    uint8_t *f = read_file(p, &n);
    CHECK(f != NULL);
    if (f) expect_corrupt(s, dir, &g_ka, GS_STORE_PROOF, &g_ba, f, n, "another object's file");
    free(f);

    /* Names that are not regular files: a directory, a symbolic link to a
     * valid object, a FIFO (must not hang the reader). */
    obj_file(p, sizeof p, dir, &g_ka);
    obj_file(q, sizeof q, dir, &g_kb);
    uint8_t *d = NULL;
    CHECK(gs_store_remove(s, &g_ka) == GS_OK && mkdir(p, 0755) == 0);
    CHECK(gs_store_get(s, NULL, &d, &n, &g_ka) == GS_ERR_CORRUPT && !gs_store_has(s, &g_ka));
    CHECK(gs_store_remove(s, &g_ka) == GS_OK && access(p, F_OK) != 0);
    CHECK(symlink(q, p) == 0);
    CHECK(gs_store_get(s, NULL, &d, &n, &g_ka) == GS_ERR_CORRUPT);
    CHECK(gs_store_remove(s, &g_ka) == GS_OK && access(q, F_OK) == 0); /* the link, not its target */
    CHECK(mkfifo(p, 0644) == 0);
    CHECK(gs_store_get(s, NULL, &d, &n, &g_ka) == GS_ERR_CORRUPT);
    CHECK(gs_store_remove(s, &g_ka) == GS_OK);
    /* The object's directory replaced by a file. */
    char sub[600];
    pathf(sub, sizeof sub, "%s/objects/%02x", dir, g_ka.b[0]);
    rm_rf(sub);
    CHECK(write_file(sub, (const uint8_t *)"x", 1));
    CHECK(gs_store_get(s, NULL, &d, &n, &g_ka) == GS_ERR_CORRUPT && d == NULL);
    gs_store *s2 = NULL;
    CHECK(gs_store_open(&s2, dir) == GS_ERR_INVALID_ARG && errno == ENOTDIR && !s2);
    unlink(sub);
    /* ... or missing: a put makes it again. */
    CHECK(gs_store_put(s, &g_ka, GS_STORE_PROOF, g_ba.b, g_ba.n) == GS_OK);
    check_get(s, &g_ka, GS_STORE_PROOF, &g_ba);
    CHECK(count_tmp(dir) == 0);
    gs_store_close(s);
    printf("corrupt objects refused: %d\n", g_corrupt_cases);
}

/* ---- temporaries and crashes ---- */

/* The host as the store writes it in temporaries (docs/batch.md). */
static void doc_host(char out[65]) {
    char h[256] = {0};
    if (gethostname(h, sizeof h - 1) != 0) h[0] = 0;
    size_t n = 0;
    for (; h[n] && n < 64; n++) {
        char c = h[n];
        out[n] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-') ? c : '-';
    }
    if (n == 0) strcpy(out, "host"), n = 4;
    out[n] = 0;
}

static pid_t dead_pid(void) {
    pid_t c = fork();
    if (c == 0) _exit(0);
    waitpid(c, NULL, 0);
    return c;
}

static void make_tmp(const char *dir, const char *name, int age_s, int is_dir) {
    char p[700];
    pathf(p, sizeof p, "%s/tmp/%s", dir, name);
    if (is_dir) CHECK(mkdir(p, 0755) == 0);
    else CHECK(write_file(p, (const uint8_t *)"partial", 7));
    if (age_s) {
        struct timespec t[2];
        clock_gettime(CLOCK_REALTIME, &t[0]);
        t[0].tv_sec -= age_s, t[1] = t[0];
        CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
    }
}

static int tmp_exists(const char *dir, const char *name) {
    char p[700];
    pathf(p, sizeof p, "%s/tmp/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* A writer putting objects in a loop until killed. */
static void writer_loop(const char *dir) {
    gs_store *s = NULL;
    if (gs_store_open(&s, dir) != GS_OK) _exit(2);
    for (uint32_t i = 0;; i++) {
        gs_digest k = gs_store_key_join(7, NULL, i % 16);
        gs_store_put(s, &k, GS_STORE_JOIN, g_bma.b, g_bma.n);
        gs_store_put(s, &g_ka, GS_STORE_PROOF, g_ba.b, g_ba.n);
        gs_store_put(s, &g_kma, GS_STORE_MULTI_PROOF, g_bma.b, g_bma.n);
    }
}

static void test_temporaries(void) {
    char dir[512];
    pathf(dir, sizeof dir, "%s/tmp-clean", g_base);
    gs_store *s = open_dir("tmp-clean");
    gs_store_close(s);
    char host[65], key[65], names[8][200];
    doc_host(host);
    hex_of(key, &g_ka);
    long dead = (long)dead_pid(), me = (long)getpid();
    snprintf(names[0], 200, "%s.%s.%ld.0.tmp", key, host, dead);   /* writer gone: removed */
    snprintf(names[1], 200, "%s.%s.%ld.0.tmp", key, host, me);     /* writer alive: kept */
    snprintf(names[2], 200, "%s.%s.%ld.1.tmp", key, host, me);     /* alive but 2 h old: removed */
    snprintf(names[3], 200, "%s.other-host.%ld.0.tmp", key, dead); /* another host's, fresh: kept */
    snprintf(names[4], 200, "%s.other-host.%ld.1.tmp", key, dead); /* another host's, old: removed */
    snprintf(names[5], 200, "notes.txt");                          /* not a temporary: kept */
    snprintf(names[6], 200, "%s.%s.%ld.2.tmp", key, host, dead);   /* a directory: kept */
    snprintf(names[7], 200, "%.63sX.%s.%ld.0.tmp", key, host, dead); /* not a key: kept */
    int age[8] = {0, 0, 7200, 0, 7200, 7200, 0, 0};
    int keep[8] = {0, 1, 0, 1, 0, 1, 1, 1};
    for (int i = 0; i < 8; i++) make_tmp(dir, names[i], age[i], i == 6);
    s = open_dir("tmp-clean");
    for (int i = 0; i < 8; i++) {
        if (tmp_exists(dir, names[i]) != keep[i]) fprintf(stderr, "temporary %s: kept %d\n", names[i], !keep[i]);
        CHECK(tmp_exists(dir, names[i]) == keep[i]);
    }
    CHECK(!gs_store_has(s, &g_ka)); /* a temporary is never an object */
    gs_store_close(s);
    char p[700];
    for (int i = 0; i < 8; i++) {
        pathf(p, sizeof p, "%s/tmp/%s", dir, names[i]);
        rm_rf(p);
    }

    /* Writers killed at random moments: what is left is whole objects and
     * temporaries, and the next open removes the temporaries. */
    pathf(dir, sizeof dir, "%s/crash", g_base);
    s = open_dir("crash");
    gs_store_close(s);
    int left = 0, objects = 0;
    for (int round = 0; round < 6; round++) {
        pid_t c = fork();
        if (c == 0) writer_loop(dir);
        struct timespec t = {0, (long)(1000000 + gs_test_below(40000000))};
        nanosleep(&t, NULL);
        kill(c, SIGKILL);
        int ws = 0;
        waitpid(c, &ws, 0);
        CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
        left += count_tmp(dir) > 0;
        s = open_dir("crash");
        CHECK(count_tmp(dir) == 0);
        for (uint32_t i = 0; s && i < 16; i++) {
            gs_digest k = gs_store_key_join(7, NULL, i);
            bytes want = g_bma;
            if (gs_store_has(s, &k)) check_get(s, &k, GS_STORE_JOIN, &want), objects++;
        }
        if (s && gs_store_has(s, &g_ka)) check_get(s, &g_ka, GS_STORE_PROOF, &g_ba), objects++;
        if (s && gs_store_has(s, &g_kma)) check_get(s, &g_kma, GS_STORE_MULTI_PROOF, &g_bma), objects++;
        gs_store_close(s);
    }
    printf("crash rounds leaving a temporary: %d of 6; objects checked after them: %d\n", left, objects);
}

/* ---- concurrency ---- */

#define WRITERS 4
#define READERS 2
#define PROCS 2
#define ROUNDS 6

typedef struct {
    gs_store *s;
    int id;
    int bad;          /* failures seen by this thread */
    long ok, missing; /* reader: gets that succeeded / found nothing */
} worker;

static atomic_int g_writers_left;

static gs_digest own_key(int id) {
    gs_digest k = {{0}};
    k.b[0] = 0xee, k.b[1] = (uint8_t)id;
    return gs_store_key_join(9, &k, 1);
}

/* Every writer puts the same four objects and one of its own, ROUNDS times. */
static int put_all(gs_store *s, int id) {
    int bad = 0;
    uint8_t own[64];
    memset(own, id, sizeof own);
    gs_digest ko = own_key(id);
    for (int r = 0; r < ROUNDS; r++) {
        bad += gs_store_put(s, &g_ka, GS_STORE_PROOF, g_ba.b, g_ba.n) != GS_OK;
        bad += gs_store_put(s, &g_kb, GS_STORE_PROOF, g_bb.b, g_bb.n) != GS_OK;
        bad += gs_store_put(s, &g_kma, GS_STORE_MULTI_PROOF, g_bma.b, g_bma.n) != GS_OK;
        bad += gs_store_put(s, &g_kj, GS_STORE_JOIN, g_bj.b, g_bj.n) != GS_OK;
        bad += gs_store_put(s, &ko, GS_STORE_JOIN, own, sizeof own) != GS_OK;
    }
    return bad;
}

static void *writer_main(void *arg) {
    worker *w = arg;
    w->bad = put_all(w->s, w->id);
    atomic_fetch_sub(&g_writers_left, 1);
    return NULL;
}

/* 0 if the get found nothing or exactly `want`; 1 for anything else. */
static int read_one(worker *w, const gs_digest *k, uint32_t kind, const bytes *want) {
    uint32_t got_kind = 0;
    uint8_t *d = NULL;
    size_t n = 0;
    gs_status r = gs_store_get(w->s, &got_kind, &d, &n, k);
    int bad = 0;
    if (r == GS_ERR_NOT_FOUND) w->missing++;
    else if (r == GS_OK && got_kind == kind && n == want->n && memcmp(d, want->b, n) == 0) w->ok++;
    else bad = 1, fprintf(stderr, "reader: %s\n", st(r));
    free(d);
    return bad;
}

static void *reader_main(void *arg) {
    worker *w = arg;
    do {
        w->bad += read_one(w, &g_ka, GS_STORE_PROOF, &g_ba);
        w->bad += read_one(w, &g_kb, GS_STORE_PROOF, &g_bb);
        w->bad += read_one(w, &g_kma, GS_STORE_MULTI_PROOF, &g_bma);
        w->bad += read_one(w, &g_kj, GS_STORE_JOIN, &g_bj);
        gs_proof *p = NULL;
        gs_status r = gs_store_get_proof(w->s, &p, &g_kb);
        w->bad += r != GS_OK && r != GS_ERR_NOT_FOUND;
        gs_proof_free(p);
    } while (atomic_load(&g_writers_left) > 0);
    return NULL;
}

static void test_concurrency(void) {
    char dir[512];
    pathf(dir, sizeof dir, "%s/conc", g_base);
    gs_store *shared = open_dir("conc");
    if (!shared) return;
    /* Processes first (no threads yet), held at a pipe until the threads run. */
    int gate[2];
    CHECK(pipe(gate) == 0);
    pid_t kids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            close(gate[1]);
            char c;
            if (read(gate[0], &c, 1) < 0) _exit(3);
            gs_store *s = NULL;
            if (gs_store_open(&s, dir) != GS_OK) _exit(2);
            int bad = put_all(s, 100 + i);
            gs_store_close(s);
            _exit(bad ? 1 : 0);
        }
    }
    close(gate[0]);
    worker w[WRITERS + READERS];
    memset(w, 0, sizeof w);
    pthread_t th[WRITERS + READERS];
    atomic_store(&g_writers_left, WRITERS);
    for (int i = 0; i < WRITERS + READERS; i++) {
        w[i].id = i;
        w[i].s = i % 2 ? shared : open_dir("conc"); /* shared handles and own ones */
        CHECK(w[i].s != NULL);
    }
    for (int i = 0; i < READERS; i++) pthread_create(&th[WRITERS + i], NULL, reader_main, &w[WRITERS + i]);
    close(gate[1]); /* releases the processes */
    for (int i = 0; i < WRITERS; i++) pthread_create(&th[i], NULL, writer_main, &w[i]);
    for (int i = 0; i < WRITERS + READERS; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < PROCS; i++) {
        int ws = 0;
        CHECK(waitpid(kids[i], &ws, 0) == kids[i] && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
    long ok = 0, missing = 0;
    for (int i = 0; i < WRITERS + READERS; i++) {
        CHECK(w[i].bad == 0);
        ok += w[i].ok, missing += w[i].missing;
    }
    CHECK(ok > 0);
    printf("concurrent gets: %ld whole objects, %ld not yet there, 0 partial\n", ok, missing);
    /* Everything is there, whole, and nothing is left in tmp/. */
    check_get(shared, &g_ka, GS_STORE_PROOF, &g_ba);
    check_get(shared, &g_kb, GS_STORE_PROOF, &g_bb);
    check_get(shared, &g_kma, GS_STORE_MULTI_PROOF, &g_bma);
    check_get(shared, &g_kj, GS_STORE_JOIN, &g_bj);
    for (int i = 0; i < WRITERS; i++) {
        uint8_t own[64];
        memset(own, i, sizeof own);
        bytes b = {own, sizeof own};
        gs_digest k = own_key(i);
        check_get(shared, &k, GS_STORE_JOIN, &b);
    }
    for (int i = 0; i < PROCS; i++) {
        uint8_t own[64];
        memset(own, 100 + i, sizeof own);
        bytes b = {own, sizeof own};
        gs_digest k = own_key(100 + i);
        check_get(shared, &k, GS_STORE_JOIN, &b);
    }
    CHECK(count_tmp(dir) == 0);
    for (int i = 0; i < WRITERS + READERS; i++)
        if (w[i].s != shared) gs_store_close(w[i].s);
    gs_store_close(shared);
}

/* ---- store directories that cannot be used ---- */

/* Expected: open fails with `want` and errno `want_errno`; returns 1 if so. */
static int open_fails(const char *path, gs_status want, int want_errno) {
    gs_store *s = (gs_store *)1;
    errno = 0;
    gs_status r = gs_store_open(&s, path);
    int e = errno;
    int ok = r == want && e == want_errno && s == NULL;
    if (!ok) fprintf(stderr, "open %s: %s (%s)\n", path, st(r), strerror(e));
    if (r == GS_OK) gs_store_close(s);
    return ok;
}

static void test_bad_dirs(void) {
    char p[600], q[600];
    gs_store *s = NULL;
    CHECK(gs_store_open(NULL, "x") == GS_ERR_INVALID_ARG);
    CHECK(gs_store_open(&s, NULL) == GS_ERR_INVALID_ARG && !s);
    CHECK(gs_store_open(&s, "") == GS_ERR_INVALID_ARG && !s);

    pathf(p, sizeof p, "%s/a-file", g_base);
    CHECK(write_file(p, (const uint8_t *)"x", 1));
    CHECK(open_fails(p, GS_ERR_INVALID_ARG, ENOTDIR));
    pathf(q, sizeof q, "%s/a-file/below", g_base);
    CHECK(open_fails(q, GS_ERR_INVALID_ARG, ENOTDIR));
    pathf(p, sizeof p, "%s/objects-file", g_base);
    pathf(q, sizeof q, "%s/objects-file/objects", g_base);
    CHECK(mkdir(p, 0755) == 0 && write_file(q, (const uint8_t *)"x", 1));
    CHECK(open_fails(p, GS_ERR_INVALID_ARG, ENOTDIR));
    pathf(p, sizeof p, "%s/tmp-file", g_base);
    pathf(q, sizeof q, "%s/tmp-file/tmp", g_base);
    CHECK(mkdir(p, 0755) == 0 && write_file(q, (const uint8_t *)"x", 1));
    CHECK(open_fails(p, GS_ERR_INVALID_ARG, ENOTDIR));

    /* Parents are created; the layout is all there. */
    pathf(p, sizeof p, "%s/deep/er/store/", g_base);
    s = NULL;
    CHECK(gs_store_open(&s, p) == GS_OK && s);
    gs_store_close(s);
    int subs = 0;
    for (int i = 0; i < 256; i++) {
        struct stat sb;
        pathf(q, sizeof q, "%s/deep/er/store/objects/%02x", g_base, i);
        subs += stat(q, &sb) == 0 && S_ISDIR(sb.st_mode);
    }
    CHECK(subs == 256);

    /* Not writable: an existing empty directory, a new one below it, and a
     * complete store. As root, permissions do not bind: check as nobody. */
    char ro[600], ro_new[600], ro_store[600];
    pathf(ro, sizeof ro, "%s/ro", g_base);
    pathf(ro_new, sizeof ro_new, "%s/ro/new", g_base);
    pathf(ro_store, sizeof ro_store, "%s/ro-store", g_base);
    CHECK(mkdir(ro, 0755) == 0);
    s = NULL;
    CHECK(gs_store_open(&s, ro_store) == GS_OK);
    gs_store_close(s);
    chmod(ro, 0555);
    char sub[700];
    pathf(sub, sizeof sub, "%s/tmp", ro_store);
    chmod(sub, 0555);
    pid_t c = fork();
    if (c == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(GS_TEST_SKIP);
        int bad = !open_fails(ro, GS_ERR_IO, EACCES);
        bad += !open_fails(ro_new, GS_ERR_IO, EACCES);
        bad += !open_fails(ro_store, GS_ERR_IO, EACCES);
        _exit(bad);
    }
    int ws = 0;
    CHECK(waitpid(c, &ws, 0) == c && WIFEXITED(ws));
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == GS_TEST_SKIP)
        printf("unwritable store: skipped (running as root and cannot become another user)\n");
    else CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    chmod(ro, 0755), chmod(sub, 0755);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    if (!setup()) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    test_status();
    test_keys();
    test_round_trip();
    test_corruption();
    test_temporaries();
    test_concurrency();
    test_bad_dirs();

    rm_rf(g_base);
    free(g_ba.b), free(g_bb.b), free(g_bma.b), free(g_bmb.b), free(g_bj.b);
    gs_proof_free(g_pa), gs_proof_free(g_pb);
    gs_multi_proof_free(g_ma), gs_multi_proof_free(g_mb), gs_multi_proof_free(g_mw);
    gs_air_free(g_fib);
    for (uint32_t i = 0; i < MULTI_STMT_TABLES; i++) gs_air_free(g_mairs[i]);
    return gs_test_done();
}
