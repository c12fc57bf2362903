/* A diagnostic for the zkVM's tables: the tuples whose sends and receives
 * do not cancel, with their net multiplicity and the table and row of one
 * occurrence. gs_zkvm_prove prints it to stderr when the buses do not
 * balance and GS_ZKVM_DEBUG is set in the environment (a bug in a table's
 * fill: the prover itself only says "unbalanced"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/logup.h"
#include "gstark/prover.h"
#include "zkvm/zk_air.h"
#include "zkvm/zk_cpu.h"

#define MAXW 8

typedef struct {
    uint32_t bus, width, table;
    uint64_t row;
    gs_fp v[MAXW];
    gs_fp net;
    int used;
} entry;

static uint64_t key_hash(uint32_t bus, const gs_fp *v, uint32_t w) {
    uint64_t h = bus * 0x9e3779b97f4a7c15ull;
    for (uint32_t k = 0; k < w; k++) h = (h ^ v[k]) * 0x100000001b3ull;
    return h;
}

gs_status zk_each_interaction(const gs_air *air, const gs_fp *trace, unsigned log_n,
                              const gs_fp *pub, zk_inter_fn fn, void *ctx) {
    gs_logup L;
    GS_TRY(gs_logup_layout(&L, air));
    size_t rows = (size_t)1 << log_n;
    void *scratch = malloc(gs_air_scratch_size(air));
    gs_fp *outs = malloc(((size_t)L.n_outs + 1) * GS_AIR_BLOCK * sizeof *outs);
    gs_status s = scratch && outs ? GS_OK : GS_ERR_NOMEM;
    for (size_t start = 0; s == GS_OK && start < rows; start += GS_AIR_BLOCK) {
        size_t cnt = rows - start < GS_AIR_BLOCK ? rows - start : GS_AIR_BLOCK;
        s = gs_air_eval_inter_block(air, scratch, outs, trace, rows, start, cnt, pub);
        for (uint32_t i = 0; s == GS_OK && i < L.n_inters; i++) {
            uint32_t bus, w;
            int sign;
            gs_air_interaction(air, i, &bus, &w, &sign);
            for (size_t r = 0; r < cnt; r++) {
                gs_fp v[GS_AIR_MAX_TUPLE];
                for (uint32_t k = 0; k < w; k++) v[k] = outs[((size_t)L.out_off[i] + 1 + k) * cnt + r];
                fn(ctx, start + r, bus, sign, outs[(size_t)L.out_off[i] * cnt + r], v, w);
            }
        }
    }
    free(scratch), free(outs);
    gs_logup_free(&L);
    return s;
}

typedef struct {
    entry *e;
    size_t cap;
    uint32_t table;
} net_ctx;

/* Adds one interaction's signed multiplicity to its tuple's net. */
static void add_net(void *ctx, uint64_t row, uint32_t bus, int sign, gs_fp m, const gs_fp *v,
                    uint32_t w) {
    net_ctx *c = ctx;
    entry *e = c->e;
    if (!m || w > MAXW) return;
    size_t h = key_hash(bus, v, w) & (c->cap - 1);
    while (e[h].used && !(e[h].bus == bus && !memcmp(e[h].v, v, w * sizeof *v))) h = (h + 1) & (c->cap - 1);
    if (!e[h].used) {
        e[h].used = 1, e[h].bus = bus, e[h].width = w, e[h].table = c->table, e[h].row = row;
        memcpy(e[h].v, v, w * sizeof *v);
    }
    e[h].net = sign > 0 ? gs_fp_add(e[h].net, m) : gs_fp_sub(e[h].net, m);
}

void zk_debug_buses(const gs_table_input *in, uint32_t n) {
    net_ctx c = {.cap = (size_t)1 << 22};
    entry *e = c.e = calloc(c.cap, sizeof *e);
    if (!e) return;
    for (c.table = 0; c.table < n; c.table++)
        (void)zk_each_interaction(in[c.table].air, in[c.table].trace, in[c.table].log_n,
                                  in[c.table].pub, add_net, &c);
    size_t cap = c.cap;
    unsigned shown = 0;
    for (size_t h = 0; h < cap && shown < 40; h++) {
        if (!e[h].used || !e[h].net) continue;
        fprintf(stderr, "bus %u net %lld from %s row %llu: (", e[h].bus,
                (long long)(e[h].net > GS_FP_P / 2 ? -(long long)(GS_FP_P - e[h].net) : (long long)e[h].net),
                in[e[h].table].air_desc ? in[e[h].table].air_desc : "?", (unsigned long long)e[h].row);
        for (uint32_t k = 0; k < e[h].width; k++)
            fprintf(stderr, "%s%llu", k ? ", " : "", (unsigned long long)e[h].v[k]);
        fprintf(stderr, ")\n");
        shown++;
    }
    free(e);
}
