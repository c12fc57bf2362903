/* gs_pages_alloc (pages.h): every block starts with a 64-byte header that
 * holds its size, so the free needs no size and knows how it was made. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/pages.h"

#define HEADER 64

void *gs_pages_alloc(size_t bytes) {
    if (bytes > SIZE_MAX - HEADER - 63) return NULL;
    size_t total = HEADER + ((bytes + 63) & ~(size_t)63);
    uint8_t *base;
    if (bytes >= GS_PAGES_MIN) {
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        base = m;
    } else {
        base = aligned_alloc(64, total);
        if (!base) return NULL;
    }
    *(size_t *)base = bytes;
    return base + HEADER;
}

void gs_pages_free(void *p) {
    if (!p) return;
    uint8_t *base = (uint8_t *)p - HEADER;
    size_t bytes = *(size_t *)base;
    if (bytes >= GS_PAGES_MIN)
        munmap(base, HEADER + ((bytes + 63) & ~(size_t)63));
    else
        free(base);
}
