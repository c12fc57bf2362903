/* Sorts the input's integers: reads unsigned decimal numbers (below 2^32)
 * separated by whitespace, sorts them with picolibc's qsort and prints them
 * one per line. A number too large, another character or more than
 * MAX_VALUES numbers is an error (a message on fd 2, exit 1). */
#include <stdlib.h>

#include "gstark_guest.h"

#define MAX_VALUES (2u << 20) /* 8 MiB of values in the 16 MiB image */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int fail(const char *why) {
    gs_puts(2, "sort: ");
    gs_puts(2, why);
    gs_puts(2, "\n");
    return 1;
}

static char io[1 << 16];

int main(void) {
    uint32_t cap = 1024, n = 0, cur = 0;
    uint32_t *v = malloc(cap * sizeof *v);
    int in_num = 0;
    size_t got;
    if (!v) return fail("out of memory");
    while ((got = gs_read(io, sizeof io)) > 0) {
        for (size_t i = 0; i < got; i++) {
            char c = io[i];
            if (c >= '0' && c <= '9') {
                uint32_t d = (uint32_t)(c - '0');
                if (cur > (0xFFFFFFFFu - d) / 10) return fail("a number does not fit in 32 bits");
                cur = cur * 10 + d;
                in_num = 1;
            } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                if (!in_num) continue;
                if (n == cap) {
                    if (cap == MAX_VALUES) return fail("more than 2097152 numbers");
                    cap *= 2;
                    v = realloc(v, cap * sizeof *v);
                    if (!v) return fail("out of memory");
                }
                v[n++] = cur;
                cur = 0, in_num = 0;
            } else {
                return fail("the input has a character that is not a digit or a space");
            }
        }
    }
    if (in_num) {
        if (n == cap) {
            if (cap == MAX_VALUES) return fail("more than 2097152 numbers");
            v = realloc(v, (cap + 1) * sizeof *v);
            if (!v) return fail("out of memory");
        }
        v[n++] = cur;
    }
    qsort(v, n, sizeof *v, cmp_u32);
    size_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (o > sizeof io - 16) {
            gs_write(1, io, o);
            o = 0;
        }
        o += gs_fmt_u64(io + o, v[i]);
        io[o++] = '\n';
    }
    gs_write(1, io, o);
    return 0;
}
