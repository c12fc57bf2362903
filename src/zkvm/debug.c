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

void zk_debug_buses(const gs_table_input *in, uint32_t n) {
    size_t cap = (size_t)1 << 22;
    entry *e = calloc(cap, sizeof *e);
    if (!e) return;
    for (uint32_t t = 0; t < n; t++) {
        const gs_air *air = in[t].air;
        gs_logup L;
        if (gs_logup_layout(&L, air) != GS_OK) continue;
        size_t rows = (size_t)1 << in[t].log_n;
        void *scratch = malloc(gs_air_scratch_size(air));
        gs_fp *outs = malloc(((size_t)L.n_outs + 1) * GS_AIR_BLOCK * sizeof *outs);
        for (size_t s = 0; scratch && outs && s < rows; s += GS_AIR_BLOCK) {
            size_t cnt = rows - s < GS_AIR_BLOCK ? rows - s : GS_AIR_BLOCK;
            if (gs_air_eval_inter_block(air, scratch, outs, in[t].trace, rows, s, cnt, in[t].pub) != GS_OK) break;
            for (uint32_t i = 0; i < L.n_inters; i++) {
                uint32_t bus, w;
                int sign;
                gs_air_interaction(air, i, &bus, &w, &sign);
                for (size_t r = 0; r < cnt; r++) {
                    gs_fp m = outs[(size_t)L.out_off[i] * cnt + r];
                    if (!m || w > MAXW) continue;
                    gs_fp v[MAXW];
                    for (uint32_t k = 0; k < w; k++) v[k] = outs[((size_t)L.out_off[i] + 1 + k) * cnt + r];
                    size_t h = key_hash(bus, v, w) & (cap - 1);
                    while (e[h].used && !(e[h].bus == bus && !memcmp(e[h].v, v, w * sizeof *v)))
                        h = (h + 1) & (cap - 1);
                    if (!e[h].used) {
                        e[h].used = 1, e[h].bus = bus, e[h].width = w, e[h].table = t, e[h].row = s + r;
                        memcpy(e[h].v, v, w * sizeof *v);
                    }
                    e[h].net = sign > 0 ? gs_fp_add(e[h].net, m) : gs_fp_sub(e[h].net, m);
                }
            }
        }
        free(scratch), free(outs);
        gs_logup_free(&L);
    }
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
