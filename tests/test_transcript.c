/* Transcript tests: the byte encoding against fixed vectors from an
 * independent (Python, from-the-spec Keccak) implementation and against a
 * reference rebuilt here from one-shot gs_keccak256 over assembled bytes;
 * determinism and sensitivity to every input; forks; canonical challenges;
 * distinct in-range indices on bitmap- and table-filtered domains;
 * grinding: validity, minimality, thread-count independence. */
#include "gstark/parallel.h"
#include "gstark/transcript.h"
#include "test_util.h"

static const char *hex32(const gs_digest *d, char out[65]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", d->b[i]);
    return out;
}

static int state_is(const gs_transcript *t, const char *hex) {
    char h[65];
    int ok = strcmp(hex32(&t->state, h), hex) == 0;
    if (!ok) fprintf(stderr, "  state %s\n  want  %s\n", h, hex);
    return ok;
}

static int same_state(const gs_transcript *a, const gs_transcript *b) {
    return memcmp(a->state.b, b->state.b, 32) == 0;
}

/* ---- fixed vectors (Python reference, same sequence) ---- */

static void test_vectors(void) {
    gs_transcript t;
    gs_transcript_init(&t, GS_HASH_KECCAK256, "gstark-v1");
    CHECK(state_is(&t, "80e52065d503d458660524d1276632e49c861d8a07a94cd2b2beb52fcd89fe36"));
    gs_transcript_absorb_bytes(&t, "data", "hello", 5);
    CHECK(state_is(&t, "cc550465452f8153acfe00aa580faade8e7d4f9a4fc15b7875788e325abf8598"));
    gs_transcript_absorb_u64(&t, "n", 12345);
    CHECK(state_is(&t, "b830e4f9d9ff76ecbe6ac70f37d31ab1c4094847166fdba85135170517dad934"));
    gs_fp v[3] = {1, GS_FP_P - 1, 1ull << 32};
    gs_transcript_absorb_fp(&t, "fp", v, 3);
    CHECK(state_is(&t, "ff7c651265c699b98a26f2997a04018e8830b8689d7028dfa9b16403fda718a2"));
    gs_fp3 e[2] = {gs_fp3_make(1, 2, 3), gs_fp3_make(GS_FP_P - 2, 0, 7)};
    gs_transcript_absorb_fp3(&t, "fp3", e, 2);
    CHECK(state_is(&t, "4d93227e9aac98cd809c6bb58ab01dca42d3b6b9bd69e285830c692b62c89a73"));
    gs_digest d;
    for (int i = 0; i < 32; i++) d.b[i] = (uint8_t)i;
    gs_transcript_absorb_digest(&t, "root", &d);
    CHECK(state_is(&t, "a1289115e0ee1b1c7a8fd68aeb303609b6618c41295337fd7cafc6b4de3c3745"));
    CHECK_EQ_U64(gs_transcript_squeeze_fp(&t, "alpha"), 0x7a8804a61074a201ull);
    CHECK(state_is(&t, "7cd9dba44e0e06709985a27538f8ce862ef11dbde53da446ce56ed1305433454"));
    gs_fp3 b = gs_transcript_squeeze_fp3(&t, "beta");
    CHECK_EQ_U64(b.c[0], 0x67489792aaed5babull);
    CHECK_EQ_U64(b.c[1], 0x91340c8f7d5ec435ull);
    CHECK_EQ_U64(b.c[2], 0xfe897d50e96f1174ull);
    CHECK(state_is(&t, "58a32936219835d49988cf9950fcba67beb041e1271ee89928e5efed172bda27"));
    size_t q[8], want[8] = {928, 739, 177, 955, 479, 59, 56, 734};
    CHECK(gs_transcript_squeeze_indices(&t, "queries", q, 8, 10) == GS_OK);
    for (int i = 0; i < 8; i++) CHECK_EQ_U64(q[i], want[i]);
    CHECK(state_is(&t, "d3fe3a18dee3fd7d6c471ca52903e03157cedab104ba7880b7faf1b277628ca4"));
    gs_transcript child;
    gs_transcript_fork(&child, &t, 3);
    CHECK(state_is(&child, "1aeed671df57e560dd1e8fde883ce379c427790eab37543df4208fe407b5191f"));
    uint64_t nonce = 0;
    CHECK(gs_transcript_grind(&t, 8, &nonce) == GS_OK);
    CHECK_EQ_U64(nonce, 744);
    CHECK(state_is(&t, "2826526ff5e8fd01bb7336d4960552dfa49f280c39e25879360d350de0399461"));
    gs_transcript_absorb_bytes(&t, NULL, NULL, 0);
    CHECK(state_is(&t, "073c3871a218c16ae9a0b33dd5de09a726cbd52cb8fa329cf80f718b04a46390"));
}

/* ---- a reference built from assembled bytes and one-shot Keccak ---- */

typedef struct {
    uint8_t *p;
    size_t n;
} buf;

static void put(buf *b, const void *x, size_t n) {
    b->p = realloc(b->p, b->n + n + 1);
    if (!b->p) abort();
    if (n) memcpy(b->p + b->n, x, n);
    b->n += n;
}
static void put_u8(buf *b, uint8_t v) { put(b, &v, 1); }
static void put_le(buf *b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    put(b, x, 8);
}

static gs_digest ref_absorb(const gs_digest *s, uint8_t tag, const char *label, const uint8_t *data,
                            size_t len) {
    buf b = {0};
    gs_digest out;
    put(&b, s->b, 32);
    put_u8(&b, tag);
    put_le(&b, strlen(label));
    put(&b, label, strlen(label));
    put_le(&b, len);
    put(&b, data, len);
    gs_keccak256(out.b, b.p, b.n);
    free(b.p);
    return out;
}

static uint64_t ref_word(const gs_digest *s, uint8_t kind, const char *label, uint64_t w) {
    buf b = {0};
    gs_digest blk;
    put(&b, s->b, 32);
    put_u8(&b, kind);
    put_le(&b, strlen(label));
    put(&b, label, strlen(label));
    put_le(&b, w / 4);
    gs_keccak256(blk.b, b.p, b.n);
    free(b.p);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)blk.b[8 * (w % 4) + i] << (8 * i);
    return v;
}

static gs_digest ref_ratchet(const gs_digest *s, uint8_t kind, const char *label, uint64_t used) {
    buf b = {0};
    gs_digest out;
    put(&b, s->b, 32);
    put_u8(&b, 0x20);
    put_u8(&b, kind);
    put_le(&b, strlen(label));
    put(&b, label, strlen(label));
    put_le(&b, used);
    gs_keccak256(out.b, b.p, b.n);
    free(b.p);
    return out;
}

static void random_label(char *l, size_t max) {
    size_t n = (size_t)gs_test_below(max);
    for (size_t i = 0; i < n; i++) l[i] = (char)('a' + gs_test_below(26));
    l[n] = 0;
}

static void test_reference(void) {
    static char label[700];
    static uint8_t data[2400];
    static gs_fp fv[300];
    gs_transcript t;
    gs_transcript_init(&t, GS_HASH_KECCAK256, "ref");
    for (int it = 0; it < 300; it++) {
        random_label(label, it % 10 == 0 ? sizeof label : 12); /* lengths over 255 too */
        gs_digest s = t.state, want;
        int op = (int)gs_test_below(8);
        if (op == 0) {
            size_t n = (size_t)gs_test_below(sizeof data);
            for (size_t i = 0; i < n; i++) data[i] = (uint8_t)gs_test_u64();
            gs_transcript_absorb_bytes(&t, label, data, n);
            want = ref_absorb(&s, 0x01, label, data, n);
        } else if (op == 1) {
            uint64_t v = gs_test_u64();
            for (int i = 0; i < 8; i++) data[i] = (uint8_t)(v >> (8 * i));
            gs_transcript_absorb_u64(&t, label, v);
            want = ref_absorb(&s, 0x02, label, data, 8);
        } else if (op == 2 || op == 3) {
            size_t n = (size_t)gs_test_below(op == 2 ? 300 : 100);
            for (size_t i = 0; i < n * (op == 2 ? 1 : 3); i++) {
                fv[i] = gs_test_fp();
                for (int k = 0; k < 8; k++) data[8 * i + k] = (uint8_t)(fv[i] >> (8 * k));
            }
            if (op == 2) {
                gs_transcript_absorb_fp(&t, label, fv, n);
                want = ref_absorb(&s, 0x03, label, data, 8 * n);
            } else {
                gs_fp3 f3[100];
                for (size_t i = 0; i < n; i++) f3[i] = gs_fp3_make(fv[3 * i], fv[3 * i + 1], fv[3 * i + 2]);
                gs_transcript_absorb_fp3(&t, label, f3, n);
                want = ref_absorb(&s, 0x04, label, data, 24 * n);
            }
        } else if (op == 4) {
            gs_digest d;
            for (int i = 0; i < 32; i++) d.b[i] = (uint8_t)gs_test_u64();
            gs_transcript_absorb_digest(&t, label, &d);
            want = ref_absorb(&s, 0x05, label, d.b, 32);
        } else if (op == 5) {
            gs_fp v = gs_transcript_squeeze_fp(&t, label);
            CHECK_EQ_U64(v, ref_word(&s, 0x10, label, 0)); /* < p but with prob. 2^-32 */
            want = ref_ratchet(&s, 0x10, label, 1);
        } else if (op == 6) {
            gs_fp3 v = gs_transcript_squeeze_fp3(&t, label);
            for (int i = 0; i < 3; i++) CHECK_EQ_U64(v.c[i], ref_word(&s, 0x11, label, (uint64_t)i));
            want = ref_ratchet(&s, 0x11, label, 3);
        } else {
            unsigned logd = (unsigned)gs_test_below(20);
            size_t dom = (size_t)1 << logd;
            size_t count = (size_t)gs_test_below(dom < 40 ? dom + 1 : 40);
            size_t out[40], ref[40], k = 0;
            uint64_t w = 0;
            CHECK(gs_transcript_squeeze_indices(&t, label, out, count, logd) == GS_OK);
            while (k < count) {
                size_t v = (size_t)(ref_word(&s, 0x12, label, w++) & (dom - 1)), j = 0;
                while (j < k && ref[j] != v) j++;
                if (j == k) ref[k++] = v;
            }
            for (size_t i = 0; i < count; i++) CHECK_EQ_U64(out[i], ref[i]);
            want = ref_ratchet(&s, 0x12, label, w);
        }
        CHECK(memcmp(want.b, t.state.b, 32) == 0);
    }
}

/* ---- determinism and sensitivity ---- */

/* A fixed script; `variant` changes one thing in it. Returns a fingerprint
 * of the challenges and the final state. */
static void script(int variant, gs_fp out[6]) {
    gs_transcript t;
    gs_transcript_init(&t, GS_HASH_KECCAK256, variant == 1 ? "gstark-v2" : "gstark-v1");
    uint8_t data[16];
    for (int i = 0; i < 16; i++) data[i] = (uint8_t)(i * 7);
    if (variant == 2) data[9] ^= 1;
    gs_fp vals[3] = {5, 6, variant == 3 ? 8 : 7};
    if (variant == 4) {
        gs_transcript_absorb_fp(&t, "vals", vals, 3);
        gs_transcript_absorb_bytes(&t, "data", data, 16);
    } else {
        gs_transcript_absorb_bytes(&t, variant == 5 ? "datb" : "data", data, variant == 6 ? 15 : 16);
        gs_transcript_absorb_fp(&t, "vals", vals, 3);
    }
    if (variant == 7) gs_transcript_absorb_bytes(&t, "x", "", 0);
    if (variant == 8)
        gs_transcript_absorb_bytes(&t, "n", "\x2a\0\0\0\0\0\0\0", 8); /* same bytes, other op */
    else
        gs_transcript_absorb_u64(&t, "n", 42);
    if (variant == 9) { /* label and data boundary moved */
        gs_transcript_absorb_bytes(&t, "ab", "c", 1);
    } else {
        gs_transcript_absorb_bytes(&t, "a", "bc", 2);
    }
    out[0] = gs_transcript_squeeze_fp(&t, variant == 10 ? "beta" : "alpha");
    gs_fp3 b = gs_transcript_squeeze_fp3(&t, "beta");
    out[1] = b.c[0];
    out[2] = b.c[1];
    out[3] = b.c[2];
    size_t idx[2];
    CHECK(gs_transcript_squeeze_indices(&t, "q", idx, 2, 40) == GS_OK);
    out[4] = idx[0] ^ (idx[1] << 24);
    out[5] = 0;
    for (int i = 0; i < 8; i++) out[5] = (out[5] << 8) | t.state.b[i];
}

static void test_sensitivity(void) {
    enum { NV = 11 };
    gs_fp fp[NV][6], again[6];
    for (int v = 0; v < NV; v++) script(v, fp[v]);
    script(0, again);
    CHECK(memcmp(fp[0], again, sizeof again) == 0);
    for (int a = 0; a < NV; a++)
        for (int b = a + 1; b < NV; b++)
            for (int i = 0; i < 6; i++) CHECK(fp[a][i] != fp[b][i]);

    /* successive squeezes with one label differ; NULL label == "" */
    gs_transcript t, u;
    gs_transcript_init(&t, GS_HASH_KECCAK256, "s");
    gs_transcript_init(&u, GS_HASH_KECCAK256, NULL);
    gs_transcript s0;
    gs_transcript_init(&s0, GS_HASH_KECCAK256, "");
    CHECK(same_state(&u, &s0));
    gs_fp x = gs_transcript_squeeze_fp(&t, "c"), y = gs_transcript_squeeze_fp(&t, "c");
    CHECK(x != y);
    gs_transcript a = t, b = t;
    gs_transcript_absorb_u64(&a, NULL, 1);
    gs_transcript_absorb_u64(&b, "", 1);
    CHECK(same_state(&a, &b));
    /* a squeeze changes what later absorbs give */
    a = t, b = t;
    (void)gs_transcript_squeeze_fp(&a, "c");
    gs_transcript_absorb_u64(&a, "v", 1);
    gs_transcript_absorb_u64(&b, "v", 1);
    CHECK(!same_state(&a, &b));
    /* squeeze kinds are separated: fp3's c0 is not fp's value */
    a = t, b = t;
    CHECK(gs_transcript_squeeze_fp(&a, "k") != gs_transcript_squeeze_fp3(&b, "k").c[0]);
}

static void test_forks(void) {
    gs_transcript p, c0, c1, c0b, same;
    gs_transcript_init(&p, GS_HASH_KECCAK256, "gstark-v1");
    gs_transcript_absorb_u64(&p, "tables", 3);
    gs_transcript before = p;
    gs_transcript_fork(&c0, &p, 0);
    gs_transcript_fork(&c1, &p, 1);
    gs_transcript_fork(&c0b, &p, 0);
    CHECK(same_state(&p, &before)); /* the parent is untouched */
    CHECK(!same_state(&c0, &c1));
    CHECK(!same_state(&c0, &p));
    CHECK(!same_state(&c1, &p));
    CHECK(same_state(&c0, &c0b));
    same = p;
    gs_transcript_fork(&same, &same, 1); /* child == parent */
    CHECK(same_state(&same, &c1));
    /* a fork is not an absorb_u64 of the index */
    gs_transcript u = p;
    gs_transcript_absorb_u64(&u, "", 1);
    CHECK(!same_state(&u, &c1));
    gs_fp a = gs_transcript_squeeze_fp(&c0, "z"), b = gs_transcript_squeeze_fp(&c1, "z");
    gs_fp c = gs_transcript_squeeze_fp(&p, "z");
    CHECK(a != b && a != c && b != c);
}

static void test_canonical(void) {
    gs_transcript t;
    gs_transcript_init(&t, GS_HASH_KECCAK256, "canon");
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        gs_fp v = gs_transcript_squeeze_fp(&t, "x");
        gs_fp3 e = gs_transcript_squeeze_fp3(&t, "y");
        bad += v >= GS_FP_P || e.c[0] >= GS_FP_P || e.c[1] >= GS_FP_P || e.c[2] >= GS_FP_P;
    }
    CHECK_EQ_U64(bad, 0);
}

static int distinct_in_range(const size_t *v, size_t n, unsigned logd) {
    uint64_t dom = (uint64_t)1 << logd;
    for (size_t i = 0; i < n; i++)
        if ((uint64_t)v[i] >= dom) return 0;
    size_t *s = malloc((n + 1) * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    for (size_t i = 1; i < n; i++) { /* insertion sort: n is small here */
        size_t x = s[i], j = i;
        while (j > 0 && s[j - 1] > x) s[j] = s[j - 1], j--;
        s[j] = x;
    }
    int ok = 1;
    for (size_t i = 1; i < n; i++) ok &= s[i] != s[i - 1];
    free(s);
    return ok;
}

static void test_indices(void) {
    gs_transcript t;
    gs_transcript_init(&t, GS_HASH_KECCAK256, "idx");
    static size_t out[1 << 12];
    /* a permutation when count == domain */
    for (unsigned logd = 0; logd <= 10; logd++) {
        size_t n = (size_t)1 << logd;
        CHECK(gs_transcript_squeeze_indices(&t, "perm", out, n, logd) == GS_OK);
        CHECK(distinct_in_range(out, n, logd));
    }
    /* a few thousand on large domains (table filter), and on mid ones */
    static const unsigned LOGS[] = {12, 16, 20, 24, 32, 40, 63};
    for (size_t k = 0; k < sizeof LOGS / sizeof LOGS[0]; k++) {
        size_t count = LOGS[k] == 12 ? 4000 : 3000;
        CHECK(gs_transcript_squeeze_indices(&t, "q", out, count, LOGS[k]) == GS_OK);
        CHECK(distinct_in_range(out, count, LOGS[k]));
    }
    /* errors leave the transcript as it was */
    gs_transcript before = t;
    CHECK(gs_transcript_squeeze_indices(&t, "q", out, 17, 4) == GS_ERR_INVALID_ARG);
    CHECK(gs_transcript_squeeze_indices(&t, "q", out, 1, 64) == GS_ERR_INVALID_ARG);
    CHECK(gs_transcript_squeeze_indices(&t, "q", NULL, 1, 4) == GS_ERR_INVALID_ARG);
    CHECK(same_state(&t, &before));
    /* count 0 is fine and still ratchets */
    CHECK(gs_transcript_squeeze_indices(&t, "q", NULL, 0, 4) == GS_OK);
    CHECK(!same_state(&t, &before));
}

/* ---- grinding ---- */

static void test_grind(void) {
    gs_transcript base;
    gs_transcript_init(&base, GS_HASH_KECCAK256, "pow");
    for (unsigned bits = 0; bits <= 12; bits++) {
        gs_transcript_absorb_u64(&base, "round", bits);
        uint64_t first = 0;
        gs_transcript after[4];
        for (unsigned th = 1; th <= 3; th++) {
            gs_threads_set(th);
            gs_transcript t = base;
            uint64_t nonce = ~0ull;
            CHECK(gs_transcript_grind(&t, bits, &nonce) == GS_OK);
            if (th == 1) first = nonce;
            CHECK_EQ_U64(nonce, first);
            after[th] = t;
            CHECK(same_state(&after[th], &after[1]));
        }
        gs_threads_set(0);
        if (bits == 0) CHECK_EQ_U64(first, 0);
        CHECK(gs_transcript_pow_valid(&base, bits, first));
        /* smallest: nothing below passes */
        int smaller = 0;
        for (uint64_t n = 0; n < first; n++) smaller += gs_transcript_pow_valid(&base, bits, n);
        CHECK_EQ_U64(smaller, 0);
        /* check_pow on the same nonce ends in the same state as grind */
        gs_transcript c = base;
        CHECK(gs_transcript_check_pow(&c, bits, first) == GS_OK);
        CHECK(same_state(&c, &after[1]));
        CHECK(!same_state(&c, &base));
        /* a wrong nonce fails and leaves the transcript alone */
        if (bits > 0) {
            uint64_t wrong = first ? first - 1 : 1;
            while (gs_transcript_pow_valid(&base, bits, wrong)) wrong++;
            c = base;
            CHECK(gs_transcript_check_pow(&c, bits, wrong) == GS_ERR_POW);
            CHECK(same_state(&c, &base));
        }
        /* the nonce is bound to bits: the same nonce with bits + 1 may pass or
         * not, but the resulting state differs */
        gs_transcript d = base;
        if (gs_transcript_check_pow(&d, bits + 1, first) == GS_OK) CHECK(!same_state(&d, &c));
    }
    /* a larger target crosses several search rounds, same answer per thread count */
    uint64_t n1 = 0, n2 = 0;
    gs_transcript a = base, b = base;
    gs_threads_set(1);
    CHECK(gs_transcript_grind(&a, 15, &n1) == GS_OK);
    gs_threads_set(2);
    CHECK(gs_transcript_grind(&b, 15, &n2) == GS_OK);
    gs_threads_set(0);
    CHECK_EQ_U64(n1, n2);
    CHECK(same_state(&a, &b));
    gs_transcript c = base;
    CHECK(gs_transcript_check_pow(&c, 15, n1) == GS_OK);
    CHECK(same_state(&a, &c));
    /* bad arguments */
    c = base;
    uint64_t n;
    CHECK(gs_transcript_grind(&c, 65, &n) == GS_ERR_INVALID_ARG);
    CHECK(gs_transcript_grind(&c, 4, NULL) == GS_ERR_INVALID_ARG);
    CHECK(gs_transcript_check_pow(&c, 65, 0) == GS_ERR_INVALID_ARG);
    CHECK(gs_transcript_pow_valid(&c, 65, 0) == 0);
    CHECK(same_state(&c, &base));
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_vectors();
    test_reference();
    test_sensitivity();
    test_forks();
    test_canonical();
    test_indices();
    test_grind();
    return gs_test_done();
}
