/* Byte helpers shared by the proof-format tests: little-endian reads and
 * writes at a pointer, and whole-file read/write for the golden files. */
#ifndef GSTARK_TEST_IO_H
#define GSTARK_TEST_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint32_t rd32(const uint8_t *b) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)b[i] << (8 * i);
    return v;
}

static inline uint64_t rd64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static inline void wr32(uint8_t *b, uint32_t v) {
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static inline void wr64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static inline uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    for (size_t r; b && (r = fread(b + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

static inline int write_file(const char *path, const uint8_t *b, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(b, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

#endif
