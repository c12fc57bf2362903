/* The registry of library users' AIRs for batch manifests: a fixed table of
 * (name, builder, context) under one mutex. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "batch/batch_internal.h"

#define REGISTRY_CAP 64u

typedef struct {
    char name[GS_BATCH_AIR_NAME_MAX];
    gs_batch_air_builder fn;
    void *ctx;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry table[REGISTRY_CAP];
static unsigned used;

static int name_ok(const char *name) {
    size_t n = strlen(name);
    if (n < 1 || n >= GS_BATCH_AIR_NAME_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return 0;
    }
    return strcmp(name, "fib") && strcmp(name, "mix") && strcmp(name, "synth");
}

static int find(const char *name) {
    for (unsigned i = 0; i < used; i++)
        if (!strcmp(table[i].name, name)) return (int)i;
    return -1;
}

gs_status gs_batch_register_air(const char *name, gs_batch_air_builder fn, void *ctx) {
    if (!name || !name_ok(name)) return GS_ERR_INVALID_ARG;
    gs_status s = GS_OK;
    pthread_mutex_lock(&lock);
    int i = find(name);
    if (!fn) { /* remove: the last entry takes its place */
        if (i < 0) s = GS_ERR_INVALID_ARG;
        else table[i] = table[--used];
    } else if (i >= 0) {
        s = GS_ERR_INVALID_ARG;
    } else if (used == REGISTRY_CAP) {
        s = GS_ERR_NOMEM;
    } else {
        snprintf(table[used].name, sizeof table[used].name, "%s", name);
        table[used].fn = fn;
        table[used].ctx = ctx;
        used++;
    }
    pthread_mutex_unlock(&lock);
    return s;
}

int gs_batch_registry_get(const char *name, gs_batch_air_builder *fn, void *ctx[1]) {
    pthread_mutex_lock(&lock);
    int i = find(name);
    if (i >= 0) *fn = table[i].fn, ctx[0] = table[i].ctx;
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

void gs_batch_registry_names(char *out, size_t cap) {
    size_t len = 0;
    out[0] = 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < used && len < cap; i++) {
        int w = snprintf(out + len, cap - len, "%s%s", len ? ", " : "", table[i].name);
        if (w < 0) break;
        len += (size_t)w;
    }
    pthread_mutex_unlock(&lock);
}
