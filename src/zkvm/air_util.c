/* Helpers shared by the zkVM's tables (src/zkvm/zk_air.h). */
#include <stdlib.h>

#include "gstark/parallel.h"
#include "gstark/prover.h"
#include "zkvm/zk_air.h"
#include "zkvm/zkvm_int.h"

static _Thread_local gs_prover *tl_arena;

void zk_table_arena(gs_prover *pv) { tl_arena = pv; }

unsigned zk_log_rows(uint64_t rows) {
    unsigned log_n = ZK_MIN_LOG_N;
    while (log_n < 40 && ((uint64_t)1 << log_n) < rows) log_n++;
    return ((uint64_t)1 << log_n) < rows ? 41 : log_n;
}

gs_status zk_bytes_alloc(zk_bytes *b, size_t bytes) {
    b->owner = tl_arena, b->bytes = bytes, b->p = NULL;
    if (b->owner) return gs_prover_host_alloc_dirty(b->owner, &b->p, bytes);
    return (b->p = malloc(bytes ? bytes : 1)) ? GS_OK : GS_ERR_NOMEM;
}

void zk_bytes_free(zk_bytes *b) {
    if (!b->p) return;
    if (b->owner) (void)gs_prover_host_free(b->owner, b->p);
    else free(b->p);
    b->p = NULL;
}

static gs_status table_alloc(zk_table *t, uint32_t cols, uint64_t rows, int zero) {
    unsigned log_n = zk_log_rows(rows);
    if (log_n > 40 || cols == 0) return GS_ERR_INVALID_ARG;
    t->owner = tl_arena;
    if (t->owner) {
        void *p = NULL;
        size_t bytes = ((size_t)cols << log_n) * sizeof(gs_fp);
        gs_status s = zero ? gs_prover_host_alloc(t->owner, &p, bytes)
                           : gs_prover_host_alloc_dirty(t->owner, &p, bytes);
        t->cols = p;
        if (s != GS_OK) return s;
        t->zeroed = zero;
    } else {
        /* calloc: a large table is fresh zero pages (the kernel's zeroing,
         * no second memset); the fills write only the cells that are not
         * 0. (Huge pages were tried: on a VM whose host backs memory lazily
         * their first touch costs 4 times more than small pages'.) */
        t->cols = calloc((size_t)cols << log_n, sizeof(gs_fp));
        if (!t->cols) return GS_ERR_NOMEM;
        t->zeroed = 1;
    }
    t->num_cols = cols, t->log_n = log_n;
    return GS_OK;
}

gs_status zk_table_alloc(zk_table *t, uint32_t cols, uint64_t rows) {
    return table_alloc(t, cols, rows, 1);
}

gs_status zk_table_alloc_dense(zk_table *t, uint32_t cols, uint64_t rows) {
    return table_alloc(t, cols, rows, 0);
}

void zk_table_free(zk_table *t) {
    if (!t->cols) return;
    if (t->owner) (void)gs_prover_host_free(t->owner, t->cols);
    else free(t->cols);
    t->cols = NULL;
}

uint32_t zk_alu_ref(uint32_t op, uint32_t a, uint32_t b) {
    switch (op) {
    case ZK_ALU_ADD: return a + b;
    case ZK_ALU_SUB: return a - b;
    case ZK_ALU_XOR: return a ^ b;
    case ZK_ALU_OR: return a | b;
    case ZK_ALU_AND: return a & b;
    case ZK_ALU_SLT: return zk_i32(a) < zk_i32(b);
    case ZK_ALU_SLTU: return a < b;
    case ZK_ALU_EQ: return a == b;
    case ZK_ALU_SLL: return a << (b & 31);
    case ZK_ALU_SRL: return a >> (b & 31);
    case ZK_ALU_SRA: return zk_sra(a, b);
    case ZK_ALU_MUL: return a * b;
    case ZK_ALU_MULH: return zk_mulh(a, b);
    case ZK_ALU_MULHSU: return zk_mulhsu(a, b);
    case ZK_ALU_MULHU: return zk_mulhu(a, b);
    case ZK_ALU_DIV: return zk_div(a, b);
    case ZK_ALU_DIVU: return zk_divu(a, b);
    case ZK_ALU_REM: return zk_rem(a, b);
    default: return zk_remu(a, b);
    }
}

/* ---- filling in parallel ---- */

typedef struct {
    zk_part_fn fn;
    void *ctx;
    size_t n, parts;
    zk_lookups **lk;
} parts_job;

static void parts_run(void *c, size_t b, size_t e) {
    const parts_job *j = c;
    for (size_t k = b; k < e; k++) j->fn(j->ctx, j->n * k / j->parts, j->n * (k + 1) / j->parts, j->lk[k]);
}

typedef struct {
    zk_lookups **lk;
    size_t parts;
} merge_job;

#define LK_WORDS (sizeof(zk_lookups) / sizeof(uint32_t))

static void merge_run(void *c, size_t b, size_t e) {
    const merge_job *j = c;
    uint32_t *dst = (uint32_t *)j->lk[0];
    for (size_t k = 1; k < j->parts; k++) {
        const uint32_t *src = (const uint32_t *)j->lk[k];
        for (size_t i = b; i < e; i++) dst[i] += src[i];
    }
}

void zk_parallel_lookups(size_t n, size_t grain, zk_lookups *lk, zk_part_fn fn, void *ctx) {
    if (grain == 0) grain = 1;
    size_t parts = n / grain, t = gs_threads_get();
    if (parts > t) parts = t;
    if (parts > ZK_MAX_PARTS) parts = ZK_MAX_PARTS;
    zk_lookups *mine[ZK_MAX_PARTS] = {lk};
    for (size_t k = 1; k < parts && lk; k++)
        if (!(mine[k] = calloc(1, sizeof(zk_lookups)))) {
            parts = k; /* fewer parts: the same result */
            break;
        }
    if (parts <= 1) {
        fn(ctx, 0, n, lk);
        return;
    }
    parts_job j = {fn, ctx, n, parts, mine};
    gs_parallel_for(parts, 1, parts_run, &j);
    if (lk) {
        merge_job m = {mine, parts};
        gs_parallel_for(LK_WORDS, 1u << 14, merge_run, &m);
        for (size_t k = 1; k < parts; k++) free(mine[k]);
    }
}

void zk_inv_in_place(gs_fp *x, size_t n) {
    gs_fp pre[256];
    for (size_t b = 0; b < n; b += 256) {
        size_t e = n - b < 256 ? n : b + 256;
        gs_fp acc = 1;
        for (size_t i = b; i < e; i++) {
            pre[i - b] = acc;
            if (x[i] > 1) acc = gs_fp_mul(acc, x[i]);
        }
        gs_fp inv = gs_fp_inv(acc);
        for (size_t i = e; i-- > b;) {
            gs_fp v = x[i];
            if (v <= 1) continue; /* 0 stays 0; 1 is its own inverse */
            x[i] = gs_fp_mul(inv, pre[i - b]);
            inv = gs_fp_mul(inv, v);
        }
    }
}

gs_status zk_chip_fill(zk_table *out, uint32_t cols, const zk_alu_req *req, size_t n,
                       int (*handled)(uint32_t op), int all_rows, zk_lookups *lk, zk_part_fn fn) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += handled(req[i].op) != 0;
    zk_alu_req *tmp = NULL; /* the handled requests, when others are mixed in */
    if (m != n) {
        if (!(tmp = malloc((m ? m : 1) * sizeof *tmp))) return GS_ERR_NOMEM;
        for (size_t i = 0, r = 0; i < n; i++)
            if (handled(req[i].op)) tmp[r++] = req[i];
    }
    gs_status s = zk_table_alloc(out, cols, (uint64_t)m + 1); /* the last row is padding */
    if (s == GS_OK) {
        zk_chip_job j = {out, tmp ? tmp : req, m};
        zk_parallel_lookups(all_rows ? (size_t)1 << out->log_n : m, ZK_FILL_GRAIN, lk, fn, &j);
    }
    free(tmp);
    return s;
}
