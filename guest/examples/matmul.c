/* A matrix product over the integers mod 2^32: reads "n seed" (decimal,
 * 1 <= n <= 256), fills A and B (n x n) from a xorshift32 stream started at
 * seed (A row by row, then B), computes C = A * B and prints
 * "n=<n> trace=<sum of C[i][i]> hash=<h>", where h is FNV-1a over C's
 * entries row by row (h = (h ^ c) * 16777619 from 2166136261), all mod 2^32.
 * Multiplications (the M extension) and nested loops. */
#include <stdlib.h>

#include "gstark_guest.h"

static int read_u32(const char *s, size_t len, size_t *i, uint32_t *out) {
    while (*i < len && (s[*i] == ' ' || s[*i] == '\n' || s[*i] == '\t' || s[*i] == '\r')) (*i)++;
    uint64_t v = 0;
    size_t start = *i;
    while (*i < len && s[*i] >= '0' && s[*i] <= '9' && v <= 0xFFFFFFFFu) v = v * 10 + (uint32_t)(s[(*i)++] - '0');
    if (*i == start || v > 0xFFFFFFFFu) return 0;
    *out = (uint32_t)v;
    return 1;
}

int main(void) {
    char buf[64];
    size_t len = gs_read_full(buf, sizeof buf), i = 0;
    uint32_t n, seed;
    if (!read_u32(buf, len, &i, &n) || !read_u32(buf, len, &i, &seed) || n < 1 || n > 256) {
        gs_puts(2, "matmul: give \"n seed\" with 1 <= n <= 256\n");
        return 2;
    }
    uint32_t *a = malloc(3 * (size_t)n * n * sizeof *a);
    if (!a) return 1;
    uint32_t *b = a + n * n, *c = b + n * n;
    uint32_t x = seed ? seed : 1;
    for (uint32_t k = 0; k < 2 * n * n; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        a[k] = x;
    }
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t col = 0; col < n; col++) {
            uint32_t s = 0;
            for (uint32_t k = 0; k < n; k++) s += a[r * n + k] * b[k * n + col];
            c[r * n + col] = s;
        }
    uint32_t trace = 0, h = 2166136261u;
    for (uint32_t r = 0; r < n; r++) trace += c[r * n + r];
    for (uint32_t k = 0; k < n * n; k++) h = (h ^ c[k]) * 16777619u;
    gs_puts(1, "n=");
    gs_put_u64(1, n, ' ');
    gs_puts(1, "trace=");
    gs_put_u64(1, trace, ' ');
    gs_puts(1, "hash=");
    gs_put_u64(1, h, '\n');
    free(a);
    return 0;
}
