/* Keccak: published Keccak-256 vectors; the permutation against OpenSSL (SHA3-256 built here on
 * gs_keccak_f1600, pad 0x06, compared with EVP_sha3_256 at every length 0..600); every scalar
 * form of the permutation against the reference loops; incremental absorption in random
 * pieces against one-shot; gs_hash_many through every multi-message path this CPU has (and
 * the portable one) against per-message gs_keccak256, for n = 0..33, many lengths and
 * strides, in place; gs_hash_pair against hashing the concatenation. */
#include <openssl/evp.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gstark/hash.h"
#include "hash/keccak_internal.h"
#include "test_util.h"

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes hex into out (at most cap bytes); returns the byte count. */
static size_t unhex(uint8_t *out, size_t cap, const char *hex) {
    size_t n = 0;
    for (; hex[0] && hex[1] && n < cap; hex += 2)
        out[n++] = (uint8_t)(hexval(hex[0]) * 16 + hexval(hex[1]));
    return n;
}

static int digest_is(const uint8_t d[32], const char *hex) {
    uint8_t want[32];
    return unhex(want, 32, hex) == 32 && memcmp(d, want, 32) == 0;
}

static void fill_random(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)gs_test_u64();
}

/* ---- published vectors ---- */

typedef struct {
    const char *msg_hex; /* NULL: use msg_text */
    const char *msg_text;
    const char *digest;
} vector;

static const vector VECTORS[] = {
    /* Ethereum's keccak256(""), also Keccak team ShortMsgKAT_256 Len = 0 */
    {NULL, "", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
    {NULL, "abc", "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
    {NULL, "The quick brown fox jumps over the lazy dog",
     "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"},
    /* Keccak team, ShortMsgKAT_256 (Keccak submission, round 3): Len = 8, 920, 1952 */
    {"CC", NULL, "eead6dbfc7340a56caedc044696a168870549a6a7f6f56961e84a54bd9970b8a"},
    {"B55C10EAE0EC684C16D13463F29291BF26C82E2FA0422A99C71DB4AF14DD9C7F33EDA52FD73D017CC0F2DBE734"
     "D831F0D820D06D5F89DACC485739144F8CFD4799223B1AFF9031A105CB6A029BA71E6E5867D85A554991C38DF3"
     "C9EF8C1E1E9A7630BE61CAABCA69280C399C1FB7A12D12AEFC",
     NULL, "0347901965d3635005e75a1095695cca050bc9ed2d440c0372a31b348514a889"},
    {"2EDC282FFB90B97118DD03AAA03B145F363905E3CBD2D50ECD692B37BF000185C651D3E9726C690D3773EC1E48"
     "510E42B17742B0B0377E7DE6B8F55E00A8A4DB4740CEE6DB0830529DD19617501DC1E9359AA3BCF147E0A76B3A"
     "B70C4984C13E339E6806BB35E683AF8527093670859F3D8A0FC7D493BCBA6BB12B5F65E71E705CA5D6C948D66E"
     "D3D730B26DB395B3447737C26FAD089AA0AD0E306CB28BF0ACF106F89AF3745F0EC72D534968CCA543CD2CA50C"
     "94B1456743254E358C1317C07A07BF2B0ECA438A709367FAFC89A57239028FC5FECFD53B8EF958EF10EE0608B7"
     "F5CB9923AD97058EC067700CC746C127A61EE3",
     NULL, "dd1d2a92b3f3f3902f064365838e1f5f3468730c343e2974e7a9ecfcd84aa6db"},
};
#define NVECTORS (sizeof VECTORS / sizeof VECTORS[0])

/* Keccak-f[1600] applied to the all-zero state (Keccak team, KeccakF-1600-IntermediateValues). */
static const uint64_t ZERO_PERMUTED[25] = {
    0xF1258F7940E1DDE7ull, 0x84D5CCF933C0478Aull, 0xD598261EA65AA9EEull, 0xBD1547306F80494Dull,
    0x8B284E056253D057ull, 0xFF97A42D7F8E6FD4ull, 0x90FEE5A0A44647C4ull, 0x8C5BDA0CD6192E76ull,
    0xAD30A6F71B19059Cull, 0x30935AB7D08FFC64ull, 0xEB5AA93F2317D635ull, 0xA9A6E6260D712103ull,
    0x81A57C16DBCF555Full, 0x43B831CD0347C826ull, 0x01F22F1A11A5569Full, 0x05E5635A21D9AE61ull,
    0x64BEFEF28CC970F2ull, 0x613670957BC46611ull, 0xB87C5A554FD00ECBull, 0x8C3EE88A1CCF32C8ull,
    0x940C7922AE3A2614ull, 0x1841F924A2C509E4ull, 0x16F53526E70465C2ull, 0x75F644E97F30A13Bull,
    0xEAF1FF7B5CECA249ull};

static void test_vectors(void) {
    uint8_t msg[512], d[32];
    for (size_t v = 0; v < NVECTORS; v++) {
        size_t len = VECTORS[v].msg_hex ? unhex(msg, sizeof msg, VECTORS[v].msg_hex)
                                        : strlen(VECTORS[v].msg_text);
        if (!VECTORS[v].msg_hex) memcpy(msg, VECTORS[v].msg_text, len);
        gs_keccak256(d, msg, len);
        CHECK(digest_is(d, VECTORS[v].digest));
        gs_digest g;
        gs_hash(GS_HASH_KECCAK256, &g, msg, len);
        CHECK(digest_is(g.b, VECTORS[v].digest));
        gs_hash_many(GS_HASH_KECCAK256, &g, msg, len, len, 1);
        CHECK(digest_is(g.b, VECTORS[v].digest));
        /* byte by byte through the hasher */
        gs_hasher h;
        gs_hasher_init(&h, GS_HASH_KECCAK256);
        for (size_t i = 0; i < len; i++) gs_hasher_update(&h, msg + i, 1);
        gs_hasher_final(&h, &g);
        CHECK(digest_is(g.b, VECTORS[v].digest));
    }
    uint64_t st[25] = {0};
    gs_keccak_f1600(st);
    for (int i = 0; i < 25; i++) CHECK_EQ_U64(st[i], ZERO_PERMUTED[i]);
    memset(st, 0, sizeof st);
    gs_keccak_f1600_ref(st);
    for (int i = 0; i < 25; i++) CHECK_EQ_U64(st[i], ZERO_PERMUTED[i]);
}

/* ---- SHA3-256 on gs_keccak_f1600 against OpenSSL ---- */

static void sha3_256_here(uint8_t out[32], const uint8_t *in, size_t len) {
    uint64_t st[25] = {0};
    size_t pos = 0;
    for (size_t i = 0; i < len; i++) {
        st[pos >> 3] ^= (uint64_t)in[i] << (8 * (pos & 7));
        if (++pos == GS_KECCAK256_RATE) {
            gs_keccak_f1600(st);
            pos = 0;
        }
    }
    st[pos >> 3] ^= 0x06ull << (8 * (pos & 7));
    st[(GS_KECCAK256_RATE - 1) >> 3] ^= 0x80ull << 56;
    gs_keccak_f1600(st);
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(st[i >> 3] >> (8 * (i & 7)));
}

static void sha3_256_openssl(uint8_t out[32], const uint8_t *in, size_t len) {
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned outlen = 0;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha3_256(), NULL) && EVP_DigestUpdate(c, in, len) &&
             EVP_DigestFinal_ex(c, out, &outlen);
    CHECK(ok && outlen == 32);
    EVP_MD_CTX_free(c);
}

static void test_against_openssl(void) {
    enum { MAXLEN = 600 };
    uint8_t msg[MAXLEN], a[32], b[32];
    int saved = gs_keccak_scalar_select(0);
    for (int form = 0; form < GS_KECCAK_SCALAR_COUNT; form++) {
        if (!gs_keccak_scalar_available(form)) continue;
        gs_keccak_scalar_select(form);
        sha3_256_here(a, (const uint8_t *)"abc", 3); /* FIPS 202 example */
        CHECK(digest_is(a, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"));
        for (size_t len = 0; len <= MAXLEN; len++) {
            fill_random(msg, len);
            sha3_256_here(a, msg, len);
            sha3_256_openssl(b, msg, len);
            CHECK(memcmp(a, b, 32) == 0);
        }
    }
    gs_keccak_scalar_select(saved);
}

/* ---- every scalar form against the reference loops ---- */

static void test_permutation_forms(void) {
    int saved = gs_keccak_scalar_select(0);
    for (int t = 0; t < 300; t++) {
        uint64_t ref[25], x[25], y[25];
        for (int i = 0; i < 25; i++) ref[i] = gs_test_u64();
        if (t % 10 == 0) /* sparse states too */
            for (int i = 0; i < 25; i++) ref[i] &= gs_test_u64() & gs_test_u64();
        memcpy(x, ref, sizeof ref);
        memcpy(y, ref, sizeof ref);
        gs_keccak_f1600_ref(ref);
        gs_keccak_f1600_portable(x);
        for (int i = 0; i < 25; i++) CHECK_EQ_U64(x[i], ref[i]);
        for (int form = 0; form < GS_KECCAK_SCALAR_COUNT; form++) {
            if (!gs_keccak_scalar_available(form)) continue;
            gs_keccak_scalar_select(form);
            memcpy(x, y, sizeof y);
            gs_keccak_f1600(x);
            for (int i = 0; i < 25; i++) CHECK_EQ_U64(x[i], ref[i]);
        }
    }
    gs_keccak_scalar_select(saved);
}

/* ---- incremental absorption ---- */

static void test_incremental(void) {
    enum { MAXLEN = 1200 };
    static uint8_t msg[MAXLEN];
    int saved = gs_keccak_scalar_select(0);
    for (int t = 0; t < 400; t++) {
        int form = (int)gs_test_below(GS_KECCAK_SCALAR_COUNT);
        if (gs_keccak_scalar_available(form)) gs_keccak_scalar_select(form);
        size_t len = gs_test_below(MAXLEN + 1);
        fill_random(msg, len);
        uint8_t one[32], inc[32];
        gs_keccak256(one, msg, len);
        gs_keccak_ctx ctx;
        gs_keccak256_init(&ctx);
        size_t done = 0;
        while (done < len) {
            uint64_t r = gs_test_u64();
            size_t piece;
            switch (r & 3) {
            case 0: piece = 0; break;
            case 1: piece = (r >> 8) % 9; break;
            case 2: piece = (r >> 8) % 300; break;
            default: piece = GS_KECCAK256_RATE * ((r >> 8) % 3) + ((r >> 16) % 3) - 1; break;
            }
            if (piece > len - done) piece = len - done;
            gs_keccak256_absorb(&ctx, msg + done, piece);
            CHECK(ctx.pos < GS_KECCAK256_RATE);
            done += piece;
        }
        gs_keccak256_final(&ctx, inc);
        CHECK(memcmp(one, inc, 32) == 0);
        /* unaligned source */
        if (len) {
            memmove(msg + 1, msg, len - 1);
            gs_keccak256(one, msg + 1, len - 1);
            gs_hasher h;
            gs_hasher_init(&h, GS_HASH_KECCAK256);
            gs_hasher_update(&h, msg + 1, len - 1);
            gs_digest g;
            gs_hasher_final(&h, &g);
            CHECK(memcmp(one, g.b, 32) == 0);
        }
    }
    gs_keccak_scalar_select(saved);
}

/* ---- gs_hash_many ---- */

/* Runs one path (impl < 0: the public gs_hash_many) over n messages of len bytes, stride apart,
 * in a buffer of exactly the bytes they span (so sanitizers see over-reads), and compares with
 * per-message gs_keccak256; the digest after the last is a canary. */
static void check_many(int impl, size_t len, size_t stride, size_t n) {
    size_t span = n ? (n - 1) * stride + len : 0;
    uint8_t *in = malloc(span ? span : 1);
    gs_digest *out = malloc((n + 1) * sizeof *out);
    if (!in || !out) {
        CHECK(!"out of memory");
        free(in);
        free(out);
        return;
    }
    fill_random(in, span);
    memset(out, 0xA5, (n + 1) * sizeof *out);
    if (impl < 0)
        gs_hash_many(GS_HASH_KECCAK256, out, in, len, stride, n);
    else
        gs_keccak256_many_with((gs_keccak_many_impl)impl, out, in, len, stride, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t want[32];
        gs_keccak256(want, in + i * stride, len);
        bad |= memcmp(want, out[i].b, 32) != 0;
    }
    for (size_t j = 0; j < 32; j++) bad |= out[n].b[j] != 0xA5;
    CHECK(!bad);
    if (bad)
        fprintf(stderr, "  gs_hash_many path %s: len %zu stride %zu n %zu\n",
                impl < 0 ? "public" : gs_keccak_many_name((gs_keccak_many_impl)impl), len,
                stride, n);
    free(in);
    free(out);
}

/* The messages end exactly where an inaccessible page begins, so that any read past the last
 * byte (vector loads and gathers included, which sanitizers do not all see) faults. */
static void check_many_guarded(int impl, size_t len, size_t stride, size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (n - 1) * stride + len;
    size_t body = (span + page - 1) / page * page;
    uint8_t *map =
        mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        CHECK(!"mmap failed");
        return;
    }
    CHECK(mprotect(map + body, page, PROT_NONE) == 0);
    uint8_t *in = map + body - span;
    fill_random(in, span);
    gs_digest out[40];
    gs_keccak256_many_with((gs_keccak_many_impl)impl, out, in, len, stride, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t want[32];
        gs_keccak256(want, in + i * stride, len);
        bad |= memcmp(want, out[i].b, 32) != 0;
    }
    CHECK(!bad);
    munmap(map, body + page);
}

static void test_many(void) {
    static const size_t LENS[] = {0, 1, 7, 8, 9, 31, 32, 63, 64, 65, 127, 128, 135, 136, 137,
                                  200, 271, 272, 273, 512, 1000};
    for (int impl = -1; impl < GS_KECCAK_MANY_COUNT; impl++) {
        if (impl >= 0 && !gs_keccak_many_available((gs_keccak_many_impl)impl)) {
            printf("  multi-message path %s: not on this CPU, skipped\n",
                   gs_keccak_many_name((gs_keccak_many_impl)impl));
            continue;
        }
        if (impl >= 0)
            printf("  multi-message path %s: tested\n",
                   gs_keccak_many_name((gs_keccak_many_impl)impl));
        for (size_t l = 0; l < sizeof LENS / sizeof LENS[0]; l++) {
            size_t len = LENS[l];
            for (size_t n = 0; n <= 33; n++) {
                check_many(impl, len, len, n);
                check_many(impl, len, len + 1 + gs_test_below(40), n);
                if (n % 4 == 1) check_many(impl, len, len + 4096 + gs_test_below(8), n);
            }
        }
        if (impl >= 0)
            for (size_t l = 0; l < sizeof LENS / sizeof LENS[0]; l++)
                for (size_t n = 1; n <= 17; n++) {
                    check_many_guarded(impl, LENS[l], LENS[l], n);
                    check_many_guarded(impl, LENS[l], LENS[l] + 3, n);
                }
        /* stride 0: the same message n times */
        check_many(impl, 100, 0, 11);
        /* in place, as a Merkle tree halves a level: out[i] = H(in[2i] || in[2i+1]) */
        for (size_t m = 1; m <= 40; m++) {
            gs_digest *lvl = malloc(2 * m * sizeof *lvl), *want = malloc(m * sizeof *want);
            if (!lvl || !want) {
                CHECK(!"out of memory");
                free(lvl);
                free(want);
                return;
            }
            fill_random(lvl[0].b, 2 * m * sizeof *lvl);
            for (size_t i = 0; i < m; i++)
                gs_hash_pair(GS_HASH_KECCAK256, &want[i], &lvl[2 * i], &lvl[2 * i + 1]);
            if (impl < 0)
                gs_hash_many(GS_HASH_KECCAK256, lvl, lvl[0].b, 64, 64, m);
            else
                gs_keccak256_many_with((gs_keccak_many_impl)impl, lvl, lvl[0].b, 64, 64, m);
            CHECK(memcmp(lvl, want, m * sizeof *want) == 0);
            free(lvl);
            free(want);
        }
    }
}

/* ---- gs_hash_pair ---- */

static void test_pair(void) {
    for (int t = 0; t < 200; t++) {
        gs_digest l, r, out, want;
        uint8_t cat[64];
        fill_random(l.b, 32);
        fill_random(r.b, 32);
        memcpy(cat, l.b, 32);
        memcpy(cat + 32, r.b, 32);
        gs_keccak256(want.b, cat, 64);
        gs_hash_pair(GS_HASH_KECCAK256, &out, &l, &r);
        CHECK(memcmp(out.b, want.b, 32) == 0);
        gs_digest a = l;
        gs_hash_pair(GS_HASH_KECCAK256, &a, &a, &r); /* out aliases l */
        CHECK(memcmp(a.b, want.b, 32) == 0);
        a = r;
        gs_hash_pair(GS_HASH_KECCAK256, &a, &l, &a); /* out aliases r */
        CHECK(memcmp(a.b, want.b, 32) == 0);
        a = l;
        gs_hash_pair(GS_HASH_KECCAK256, &a, &a, &a); /* both */
        memcpy(cat + 32, l.b, 32);
        gs_keccak256(want.b, cat, 64);
        CHECK(memcmp(a.b, want.b, 32) == 0);
    }
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    printf("  cpu: bmi %d avx2 %d avx512 %d; gs_hash_many uses %s\n", gs_keccak_cpu_has_bmi(),
           gs_keccak_cpu_has_avx2(), gs_keccak_cpu_has_avx512(),
           gs_keccak_many_name(gs_keccak_many_best()));
    test_vectors();
    test_against_openssl();
    test_permutation_forms();
    test_incremental();
    test_many();
    test_pair();
    return gs_test_done();
}
