/* Byte counts (src/util/size.c): gs_size_parse's accepted forms, near misses
 * and overflow edges, gs_size_format's one unit style, and that the two
 * agree (a formatted exact power parses back to the same bytes). */
#include "gstark/size.h"
#include "test_util.h"

#define KI UINT64_C(1024)
#define MI (KI * KI)
#define GI (MI * KI)
#define TI (GI * KI)

static void test_parse_good(void) {
    static const struct {
        const char *s;
        uint64_t v;
    } good[] = {
        {"0", 0},
        {"1", 1},
        {"007", 7},
        {"1048576", 1048576},
        {"1b", 1},
        {"512B", 512},
        {"1K", KI},
        {"1k", KI},
        {"512M", 512 * MI},
        {"512m", 512 * MI},
        {"2G", 2 * GI},
        {"3g", 3 * GI},
        {"1T", TI},
        {"1KiB", KI},
        {"1kib", KI},
        {"1KIB", KI},
        {"512MiB", 512 * MI},
        {"2GiB", 2 * GI},
        {"2gib", 2 * GI},
        {"1TiB", TI},
        {"1KB", 1000},
        {"1kb", 1000},
        {"512MB", 512000000},
        {"2GB", 2000000000},
        {"2gB", 2000000000},
        {"1TB", 1000000000000},
        {"0T", 0},
        {"0KB", 0},
        {"unlimited", GS_SIZE_UNLIMITED},
        {"UNLIMITED", GS_SIZE_UNLIMITED},
        {"Unlimited", GS_SIZE_UNLIMITED},
        {"18446744073709551615", UINT64_MAX}, /* reads as unlimited too */
        {"18446744073709551614", UINT64_MAX - 1},
        {"16777215T", UINT64_C(16777215) * TI},
        {"16777215TiB", UINT64_C(16777215) * TI},
        {"17179869183G", UINT64_C(17179869183) * GI},
        {"18014398509481983K", UINT64_C(18014398509481983) * KI},
        {"18446744TB", UINT64_C(18446744) * 1000000000000},
        {"18446744073709551KB", UINT64_C(18446744073709551000)},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 12345;
        gs_status s = gs_size_parse(good[i].s, &v);
        if (s != GS_OK || v != good[i].v)
            fprintf(stderr, "gs_size_parse(\"%s\"): status %d value %" PRIu64 "\n", good[i].s,
                    (int)s, v);
        CHECK(s == GS_OK);
        CHECK(v == good[i].v);
    }
}

static void test_parse_bad(void) {
    static const char *const bad[] = {
        "", " ", " 1", "1 ", "\t1", "1\n", "-1", "+1", "-0", "1.5G", "1.0", ".5", "1,5G", "1KBB",
        "1Ki", "1iB", "1IB", "1Bi", "1BB", "K", "KiB", "G1", "1GG", "1P", "1PiB", "1PB", "1E",
        "12x", "0x10", "1e3", "1_000", "1,000", "1 G", "1G ", "1 GiB", "1\x80", "1G\x80",
        "unlimitedx", "unlimite", "unlim", "infinite", "none", "-", "1unlimited",
        /* overflow: the digits, then each unit's multiplication */
        "18446744073709551616", "99999999999999999999999999", "16777216T", "16777216TiB",
        "17179869184G", "18014398509481984K", "18446744073709552KB", "18446745TB",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 12345;
        gs_status s = gs_size_parse(bad[i], &v);
        if (s != GS_ERR_INVALID_ARG || v != 12345)
            fprintf(stderr, "gs_size_parse(\"%s\") should fail: status %d value %" PRIu64 "\n",
                    bad[i], (int)s, v);
        CHECK(s == GS_ERR_INVALID_ARG);
        CHECK(v == 12345); /* untouched on error */
    }
    uint64_t v = 0;
    CHECK(gs_size_parse(NULL, &v) == GS_ERR_INVALID_ARG);
    CHECK(gs_size_parse("1", NULL) == GS_ERR_INVALID_ARG);
}

static void test_format(void) {
    static const struct {
        uint64_t b;
        const char *s;
    } cases[] = {
        {0, "0 B"},
        {1, "1 B"},
        {512, "512 B"},
        {1023, "1023 B"},
        {1024, "1 KiB"},
        {1536, "1.5 KiB"},
        {1025, "1 KiB"},
        {10 * KI, "10 KiB"},
        {10 * KI + 100, "10.1 KiB"},
        {100 * KI + 300, "100 KiB"},
        {1000 * KI, "1000 KiB"},
        {1023 * KI, "1023 KiB"},
        {1023 * KI + 600, "1 MiB"}, /* would round to 1024 KiB */
        {MI, "1 MiB"},
        {512 * MI, "512 MiB"},
        {GI, "1 GiB"},
        {GI + 80 * MI + 5 * MI / 10, "1.08 GiB"},
        {1105153824, "1.03 GiB"},
        {UINT64_C(1999) * MI, "1.95 GiB"},
        {9 * GI + 1000 * MI, "9.98 GiB"},
        {9 * GI + 1020 * MI, "10 GiB"}, /* 9.996: three digits are 10.0 */
        {99 * GI + 900 * MI, "99.9 GiB"},
        {99 * GI + 1023 * MI, "100 GiB"},
        {TI, "1 TiB"},
        {1024 * TI, "1 PiB"},
        {1024 * 1024 * TI, "1 EiB"},
        {UINT64_MAX - 1, "16 EiB"},
        {GS_SIZE_UNLIMITED, "unlimited"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[GS_SIZE_BUF];
        memset(buf, 'x', sizeof buf);
        const char *s = gs_size_format(buf, cases[i].b);
        if (strcmp(s, cases[i].s) != 0)
            fprintf(stderr, "gs_size_format(%" PRIu64 ") = \"%s\", want \"%s\"\n", cases[i].b, s,
                    cases[i].s);
        CHECK(s == buf);
        CHECK(strcmp(s, cases[i].s) == 0);
    }
    CHECK(strcmp(gs_size_format(NULL, 1), "?") == 0);
}

/* Random values: the text always fits, is "<number> <unit>" with at most
 * three significant digits (four below 1 KiB or at 1000-1023), and its
 * value is within half a unit in the last digit of the input. */
static void test_format_random(void) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    for (int i = 0; i < 20000; i++) {
        uint64_t b = gs_test_u64() >> gs_test_below(64);
        char buf[GS_SIZE_BUF];
        gs_size_format(buf, b);
        CHECK(strlen(buf) < GS_SIZE_BUF);
        char *sp = strchr(buf, ' ');
        CHECK(sp != NULL);
        if (!sp) continue;
        int u = -1;
        for (int k = 0; k < 7; k++)
            if (strcmp(sp + 1, unit[k]) == 0) u = k;
        if (b == GS_SIZE_UNLIMITED) continue;
        CHECK(u >= 0);
        if (u < 0) continue;
        double v = strtod(buf, NULL), scale = 1.0;
        for (int k = 0; k < u; k++) scale *= 1024.0;
        double rel = (v * scale - (double)b) / (double)(b ? b : 1);
        if (rel < 0) rel = -rel;
        CHECK(rel <= 0.00501); /* three significant digits: at most half of 1% off */
        CHECK(b < 1024 ? u == 0 && v == (double)b : u > 0 && v >= 1.0 && v < 1024.0);
    }
}

/* An exact binary figure the printer shows survives the parser, once the
 * space is removed (the parser takes no whitespace). */
static void test_round_trip(void) {
    static const uint64_t exact[] = {0, 1, 512, 1023, KI, 3 * KI, 512 * MI, GI, 7 * TI};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        char buf[GS_SIZE_BUF], joined[GS_SIZE_BUF];
        gs_size_format(buf, exact[i]);
        size_t n = 0;
        for (const char *p = buf; *p; p++)
            if (*p != ' ') joined[n++] = *p;
        joined[n] = '\0';
        uint64_t v = 0;
        CHECK(gs_size_parse(joined, &v) == GS_OK);
        CHECK(v == exact[i]);
    }
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_parse_good();
    test_parse_bad();
    test_format();
    test_format_random();
    test_round_trip();
    return gs_test_done();
}
