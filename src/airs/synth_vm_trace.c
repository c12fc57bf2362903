/* The vm preset's traces (AIRs in synth_vm.c).
 *
 * The program (a random instruction list ending in "jmp 0") is made first;
 * the cpu executes it in a loop, one instruction a row, so pc = row mod P.
 * The budgets keep every statement satisfiable at every shrink:
 *  - memory: at most 3P/8 memory instructions, so the accesses (3/8 of the
 *    cpu rows at most) leave the memory table at least one padding row
 *    (its height is at least half the cpu's, or 8);
 *  - hash: only min(E, hash rows - 1) of the E executed hash instructions
 *    make a call (hash_en), spread evenly; the others are no-ops;
 *  - ordering: an address is reused only if its last access is less than W
 *    rows back (a timestamp gap must fit the two range-checked diff limbs),
 *    otherwise the access goes to a fresh address. Addresses are 1, 2, ...
 *    in order of first use; the memory table starts with its padding rows
 *    (address 0, inactive).
 * Phase 1: the execution (cpu, hash call inputs, memory log and table),
 * range and bitwise fixed columns; phase 2: hash rows, which also write the
 * cpu's hash outputs; phase 3: range, bitwise and program multiplicities. */
#include <stdlib.h>
#include <string.h>

#include "airs/synth_internal.h"

#define KEY_PROG ((uint64_t)1 << 40 | 1)
#define KEY_CPU ((uint64_t)1 << 40 | 16) /* + 0, 1, 2 */
#define POOL 64u
#define HASH_CHUNK 256u
#define TILE 32u

struct gs_synth_vm_gen {
    const gs_synth_plan *p;
    gs_workload *tables;
    uint64_t seed;
    gs_synth_vm_dims d;
    uint32_t ti[GS_SYNTH_K_PROGRAM + 1]; /* table index of each vm kind */
    size_t P;                            /* program length */
    uint8_t *op, *rd;
    uint64_t hash_exec, hash_calls; /* executed hash instructions, calls made */
    size_t mem_total;               /* memory accesses */
    /* the access log in execution order, and execution scratch by address */
    uint32_t *log_addr, *log_ts, *order, *count;
    uint64_t *log_val, *mval, *last;
    uint8_t *log_wr;
    uint32_t *call_row; /* cpu row of each hash call */
};

static int writes(unsigned o) {
    return o == GS_SYNTH_OP_ADD || o == GS_SYNTH_OP_MUL || o == GS_SYNTH_OP_LT ||
           o == GS_SYNTH_OP_AND || o == GS_SYNTH_OP_XOR || o == GS_SYNTH_OP_LOAD;
}
static int is_mem(unsigned o) { return o == GS_SYNTH_OP_LOAD || o == GS_SYNTH_OP_STORE; }

void gs_synth_vm_gen_free(gs_synth_vm_gen *g) {
    if (!g) return;
    free(g->op);
    free(g->rd);
    free(g->log_addr);
    free(g->log_ts);
    free(g->order);
    free(g->count);
    free(g->log_val);
    free(g->mval);
    free(g->last);
    free(g->log_wr);
    free(g->call_row);
    free(g);
}

/* The program and the program table's fixed columns (mult comes in phase 3). */
static void make_program(gs_synth_vm_gen *g, size_t *mem_slots, size_t *hash_slots) {
    static const uint8_t first[9] = {GS_SYNTH_OP_NOP, GS_SYNTH_OP_ADD,  GS_SYNTH_OP_MUL,
                                     GS_SYNTH_OP_LT,  GS_SYNTH_OP_AND,  GS_SYNTH_OP_XOR,
                                     GS_SYNTH_OP_LOAD, GS_SYNTH_OP_STORE, GS_SYNTH_OP_HASH};
    static const uint8_t mix[16] = {
        GS_SYNTH_OP_ADD, GS_SYNTH_OP_ADD,  GS_SYNTH_OP_ADD,  GS_SYNTH_OP_MUL,
        GS_SYNTH_OP_MUL, GS_SYNTH_OP_LT,   GS_SYNTH_OP_LT,   GS_SYNTH_OP_AND,
        GS_SYNTH_OP_AND, GS_SYNTH_OP_XOR,  GS_SYNTH_OP_XOR,  GS_SYNTH_OP_LOAD,
        GS_SYNTH_OP_LOAD, GS_SYNTH_OP_STORE, GS_SYNTH_OP_STORE, GS_SYNTH_OP_HASH};
    uint8_t order[9];
    memcpy(order, first, sizeof order);
    for (uint32_t i = 8; i > 0; i--) { /* every opcode early on, in a seeded order */
        uint32_t j = (uint32_t)(gs_synth_rand(g->seed, KEY_PROG, 100000 + i) % (i + 1));
        uint8_t tmp = order[i];
        order[i] = order[j], order[j] = tmp;
    }
    size_t P = g->P, cap = 3 * P / 8;
    gs_fp *m = g->tables[g->ti[GS_SYNTH_K_PROGRAM]].trace;
    *mem_slots = *hash_slots = 0;
    for (size_t pc = 0; pc < P; pc++) {
        uint64_t u = gs_synth_rand(g->seed, KEY_PROG, pc);
        unsigned o = pc + 1 == P ? GS_SYNTH_OP_JMP : pc < 9 ? order[pc] : mix[u & 15];
        if (is_mem(o) && *mem_slots >= cap) o = GS_SYNTH_OP_ADD;
        *mem_slots += is_mem(o);
        *hash_slots += o == GS_SYNTH_OP_HASH;
        g->op[pc] = (uint8_t)o;
        g->rd[pc] = writes(o) ? (uint8_t)(u >> 8 & 7) : 0;
        m[GS_SYNTH_PROG_PC * P + pc] = pc;
        m[GS_SYNTH_PROG_OP * P + pc] = o;
        m[GS_SYNTH_PROG_IMM * P + pc] = o == GS_SYNTH_OP_JMP ? 0 : (u >> 20) & (g->d.W - 1);
        m[GS_SYNTH_PROG_RD * P + pc] = g->rd[pc];
        m[GS_SYNTH_PROG_RS1 * P + pc] = o == GS_SYNTH_OP_JMP ? 0 : u >> 11 & 7;
        m[GS_SYNTH_PROG_RS2 * P + pc] = o == GS_SYNTH_OP_JMP ? 0 : u >> 14 & 7;
    }
}

gs_status gs_synth_vm_gen_new(gs_synth_vm_gen **out, const gs_synth_plan *p,
                              gs_workload *tables, uint64_t seed) {
    *out = NULL;
    gs_synth_vm_gen *g = calloc(1, sizeof *g);
    if (!g) return GS_ERR_NOMEM;
    g->p = p, g->tables = tables, g->seed = seed;
    gs_synth_vm_dims_of(&g->d, p->shrink);
    for (uint32_t t = 0; t < p->n; t++)
        if (p->kind[t] != GS_SYNTH_K_LOOKUP) g->ti[p->kind[t]] = t;
    g->P = (size_t)1 << g->d.log_prog;
    g->op = malloc(g->P);
    g->rd = malloc(g->P);
    if (!g->op || !g->rd) {
        gs_synth_vm_gen_free(g);
        return GS_ERR_NOMEM;
    }
    size_t mem_slots, hash_slots;
    make_program(g, &mem_slots, &hash_slots);
    size_t n = (size_t)1 << g->d.log_cpu, loops = n / g->P;
    size_t n_mem = (size_t)1 << g->d.log_mem, n_hash = (size_t)1 << g->d.log_hash;
    g->mem_total = mem_slots * loops;
    g->hash_exec = hash_slots * loops;
    g->hash_calls = g->hash_exec < n_hash - 1 ? g->hash_exec : n_hash - 1;
    if (g->mem_total >= n_mem) { /* cannot happen: 3/8 of the cpu rows < memory rows */
        gs_synth_vm_gen_free(g);
        return GS_ERR_INVALID_ARG;
    }
    size_t M = g->mem_total + 2;
    g->log_addr = malloc(M * sizeof *g->log_addr);
    g->log_ts = malloc(M * sizeof *g->log_ts);
    g->order = malloc(M * sizeof *g->order);
    g->count = malloc(M * sizeof *g->count);
    g->log_val = malloc(M * sizeof *g->log_val);
    g->mval = malloc(M * sizeof *g->mval);
    g->last = malloc(M * sizeof *g->last);
    g->log_wr = malloc(M);
    g->call_row = malloc((g->hash_calls + 1) * sizeof *g->call_row);
    if (!g->log_addr || !g->log_ts || !g->order || !g->count || !g->log_val || !g->mval ||
        !g->last || !g->log_wr || !g->call_row) {
        gs_synth_vm_gen_free(g);
        return GS_ERR_NOMEM;
    }
    *out = g;
    return GS_OK;
}

/* ---- phase 1: execution ---- */

typedef struct {
    uint32_t pool[POOL];
    size_t pool_n;
    uint64_t fresh; /* addresses used so far: 1..fresh */
} addr_state;

static uint64_t pick_addr(gs_synth_vm_gen *g, addr_state *s, uint64_t u, size_t t) {
    uint64_t addr = 0;
    if (s->pool_n && (u & 3) != 0) {
        addr = s->pool[(u >> 2) % s->pool_n];
        if (t - g->last[addr] - 1 >= g->d.W) addr = 0; /* too long ago: the ts gap would not fit */
    }
    if (!addr) {
        addr = ++s->fresh;
        g->mval[addr] = 0;
        if (s->pool_n < POOL)
            s->pool[s->pool_n++] = (uint32_t)addr;
        else
            s->pool[(u >> 10) % POOL] = (uint32_t)addr;
    }
    g->last[addr] = t;
    return addr;
}

/* Runs the program over every cpu row. Only nonzero cells are written (the
 * trace is zeroed). */
static void run_cpu(gs_synth_vm_gen *g) {
    const gs_synth_vm_dims *d = &g->d;
    gs_workload *cw = &g->tables[g->ti[GS_SYNTH_K_CPU]];
    gs_fp *m = cw->trace, *hs = g->tables[g->ti[GS_SYNTH_K_HASH]].trace;
    const gs_fp *prog = g->tables[g->ti[GS_SYNTH_K_PROGRAM]].trace;
    const size_t n = (size_t)1 << d->log_cpu, nh = (size_t)1 << d->log_hash, P = g->P;
    const unsigned lr = d->log_range;
    const uint64_t H = d->H, W = d->W;
    const uint64_t mx = ((uint64_t)1 << d->lx) - 1, my = ((uint64_t)1 << d->ly) - 1;
    gs_fp reg[8] = {0}, acc = 0;
    addr_state as;
    memset(&as, 0, sizeof as);
    uint64_t hash_j = 0;
    size_t calls = 0, n_log = 0;
#define SET(c, v) (m[(size_t)(c) * n + t] = (v))
    for (size_t t = 0; t < n; t++) {
        size_t pc = t & (P - 1);
        unsigned o = g->op[pc];
        uint64_t u0 = gs_synth_rand(g->seed, KEY_CPU, t);
        uint64_t u1 = gs_synth_rand(g->seed, KEY_CPU + 1, t);
        uint64_t a = u0 & (W - 1), b = u1 & (W - 1), r = 0, carry = 0, ex = 0, mv = 0;
        switch (o) {
        case GS_SYNTH_OP_ADD:
            r = a + b;
            carry = r >= W;
            r &= W - 1;
            break;
        case GS_SYNTH_OP_MUL: /* a, b < 2^32: the product fits */
            r = (a * b) & (W - 1);
            ex = (a * b) >> (2 * lr);
            break;
        case GS_SYNTH_OP_LT:
            r = a < b;
            ex = a + r * W - b;
            break;
        case GS_SYNTH_OP_AND:
        case GS_SYNTH_OP_XOR:
            a = u0 & mx, b = u1 & my;
            r = o == GS_SYNTH_OP_AND ? (a & b) : (a ^ b);
            SET(GS_SYNTH_CPU_X, a), SET(GS_SYNTH_CPU_Y, b), SET(GS_SYNTH_CPU_Z, a & b);
            break;
        case GS_SYNTH_OP_LOAD:
        case GS_SYNTH_OP_STORE: {
            uint64_t u2 = gs_synth_rand(g->seed, KEY_CPU + 2, t);
            a = pick_addr(g, &as, u2, t);
            if (o == GS_SYNTH_OP_LOAD) {
                r = mv = g->mval[a];
            } else {
                mv = b;
                g->mval[a] = b;
            }
            g->log_addr[n_log] = (uint32_t)a, g->log_ts[n_log] = (uint32_t)t;
            g->log_val[n_log] = mv;
            g->log_wr[n_log++] = o == GS_SYNTH_OP_STORE;
            break;
        }
        case GS_SYNTH_OP_HASH:
            if (g->hash_exec && ((hash_j + 1) * g->hash_calls) / g->hash_exec >
                                    (hash_j * g->hash_calls) / g->hash_exec) {
                SET(GS_SYNTH_CPU_HASH_EN, 1);
                hs[calls] = a, hs[nh + calls] = b;
                hs[(GS_SYNTH_HASH_WIDTH - 1) * nh + calls] = 1;
                g->call_row[calls++] = (uint32_t)t;
            }
            hash_j++;
            break;
        default: /* nop, jmp */
            break;
        }
        SET(GS_SYNTH_CPU_CLK, t);
        SET(GS_SYNTH_CPU_PC, pc);
        if (o) SET(GS_SYNTH_CPU_SEL + o - 1, 1);
        SET(GS_SYNTH_CPU_IMM, prog[GS_SYNTH_PROG_IMM * P + pc]);
        SET(GS_SYNTH_CPU_RD, g->rd[pc]);
        SET(GS_SYNTH_CPU_RS1, prog[GS_SYNTH_PROG_RS1 * P + pc]);
        SET(GS_SYNTH_CPU_RS2, prog[GS_SYNTH_PROG_RS2 * P + pc]);
        SET(GS_SYNTH_CPU_A_LO, a & (H - 1)), SET(GS_SYNTH_CPU_A_HI, a >> lr);
        SET(GS_SYNTH_CPU_B_LO, b & (H - 1)), SET(GS_SYNTH_CPU_B_HI, b >> lr);
        SET(GS_SYNTH_CPU_R_LO, r & (H - 1)), SET(GS_SYNTH_CPU_R_HI, r >> lr);
        if (carry) SET(GS_SYNTH_CPU_CARRY, 1);
        if (ex) SET(GS_SYNTH_CPU_EX_LO, ex & (H - 1)), SET(GS_SYNTH_CPU_EX_HI, ex >> lr);
        if (mv) SET(GS_SYNTH_CPU_MV_LO, mv & (H - 1)), SET(GS_SYNTH_CPU_MV_HI, mv >> lr);
        for (uint32_t k = 0; k < 8; k++)
            if (reg[k]) SET(GS_SYNTH_CPU_REG + k, reg[k]);
        if (writes(o)) {
            SET(GS_SYNTH_CPU_W + g->rd[pc], 1);
            reg[g->rd[pc]] = r;
        }
        SET(GS_SYNTH_CPU_ACC, acc);
        acc = gs_fp_add(acc, r);
    }
#undef SET
}

/* The memory table from the access log: padding rows at address 0, then the
 * accesses sorted by (address, timestamp) (a counting sort on the address
 * keeps execution order, i.e. timestamp order, within an address). */
static void fill_memory(gs_synth_vm_gen *g) {
    const gs_synth_vm_dims *d = &g->d;
    gs_fp *m = g->tables[g->ti[GS_SYNTH_K_MEMORY]].trace;
    const size_t n = (size_t)1 << d->log_mem, M = g->mem_total, pad = n - M;
    const unsigned lr = d->log_range;
    const uint64_t H = d->H;
    uint64_t max_addr = 0;
    for (size_t k = 0; k < M; k++)
        if (g->log_addr[k] > max_addr) max_addr = g->log_addr[k];
    memset(g->count, 0, (max_addr + 2) * sizeof *g->count);
    for (size_t k = 0; k < M; k++) g->count[g->log_addr[k] + 1]++;
    for (uint64_t a = 1; a <= max_addr + 1; a++) g->count[a] += g->count[a - 1];
    for (size_t k = 0; k < M; k++) g->order[g->count[g->log_addr[k]]++] = (uint32_t)k;
#define SET(c, i, v) (m[(size_t)(c) * n + (i)] = (v))
#define GET(c, i) (m[(size_t)(c) * n + (i)])
    for (size_t i = 0; i < pad; i++) {
        SET(GS_SYNTH_MEM_TS, i, i);
        SET(GS_SYNTH_MEM_CNT, i, i);
    }
    for (size_t i = pad; i < n; i++) {
        uint32_t k = g->order[i - pad];
        uint64_t v = g->log_val[k];
        SET(GS_SYNTH_MEM_ADDR, i, g->log_addr[k]);
        SET(GS_SYNTH_MEM_V_LO, i, v & (H - 1)), SET(GS_SYNTH_MEM_V_HI, i, v >> lr);
        SET(GS_SYNTH_MEM_TS, i, g->log_ts[k]);
        SET(GS_SYNTH_MEM_IS_WRITE, i, g->log_wr[k]);
        SET(GS_SYNTH_MEM_ACTIVE, i, 1);
        if (GET(GS_SYNTH_MEM_ADDR, i - 1) == g->log_addr[k]) { /* not the first: i > pad */
            SET(GS_SYNTH_MEM_PREV_LO, i, GET(GS_SYNTH_MEM_V_LO, i - 1));
            SET(GS_SYNTH_MEM_PREV_HI, i, GET(GS_SYNTH_MEM_V_HI, i - 1));
            SET(GS_SYNTH_MEM_CNT, i, GET(GS_SYNTH_MEM_CNT, i - 1) + 1);
        }
    }
    for (size_t i = 0; i + 1 < n; i++) {
        gs_fp a0 = GET(GS_SYNTH_MEM_ADDR, i), a1 = GET(GS_SYNTH_MEM_ADDR, i + 1);
        gs_fp t0 = GET(GS_SYNTH_MEM_TS, i), t1 = GET(GS_SYNTH_MEM_TS, i + 1);
        uint64_t diff = a1 != a0 ? a1 - a0 - 1 : t1 - t0 - 1;
        SET(GS_SYNTH_MEM_NEW, i, a1 != a0);
        SET(GS_SYNTH_MEM_DIFF_LO, i, diff & (H - 1)), SET(GS_SYNTH_MEM_DIFF_HI, i, diff >> lr);
    }
#undef SET
#undef GET
}

static void fill_fixed(gs_synth_vm_gen *g, int bitwise) {
    const gs_synth_vm_dims *d = &g->d;
    if (!bitwise) {
        gs_fp *m = g->tables[g->ti[GS_SYNTH_K_RANGE]].trace;
        for (size_t i = 0; i < d->H; i++) m[i] = i;
        return;
    }
    gs_fp *m = g->tables[g->ti[GS_SYNTH_K_BITWISE]].trace;
    size_t n = (size_t)1 << d->log_bit, my = ((size_t)1 << d->ly) - 1;
    for (size_t i = 0; i < n; i++) {
        size_t x = i >> d->ly, y = i & my;
        m[GS_SYNTH_BIT_X * n + i] = x, m[GS_SYNTH_BIT_Y * n + i] = y;
        m[GS_SYNTH_BIT_Z * n + i] = x & y;
    }
}

/* ---- phase 2: hash rows ---- */

static void fill_hash(gs_synth_vm_gen *g, size_t r0, size_t r1) {
    enum { TW = GS_SYNTH_HASH_WIDTH };
    const size_t nh = (size_t)1 << g->d.log_hash, nc = (size_t)1 << g->d.log_cpu;
    gs_fp *m = g->tables[g->ti[GS_SYNTH_K_HASH]].trace;
    gs_fp *hout = g->tables[g->ti[GS_SYNTH_K_CPU]].trace + (size_t)GS_SYNTH_CPU_HOUT * nc;
    gs_fp tile[GS_SYNTH_HASH_COLS][TILE]; /* 100 KiB: rows are written out column by column */
    for (size_t b = r0; b < r1; b += TILE) {
        size_t rows = r1 - b < TILE ? r1 - b : TILE;
        for (size_t i = 0; i < rows; i++) {
            gs_fp st[TW], states[GS_SYNTH_HASH_COLS];
            for (uint32_t j = 0; j < TW; j++) st[j] = m[j * nh + b + i];
            gs_synth_hash_perm(st, states);
            for (uint32_t c = 0; c < GS_SYNTH_HASH_COLS; c++) tile[c][i] = states[c];
            if (b + i < g->hash_calls) hout[g->call_row[b + i]] = st[0];
        }
        for (uint32_t c = 0; c < GS_SYNTH_HASH_COLS; c++)
            memcpy(m + c * nh + b, tile[c], rows * sizeof(gs_fp));
    }
}

/* ---- phase 3: multiplicities ---- */

static void count_range(gs_synth_vm_gen *g) {
    static const uint32_t cpu_cols[8] = {GS_SYNTH_CPU_A_LO, GS_SYNTH_CPU_A_HI, GS_SYNTH_CPU_B_LO,
                                         GS_SYNTH_CPU_B_HI, GS_SYNTH_CPU_R_LO, GS_SYNTH_CPU_R_HI,
                                         GS_SYNTH_CPU_EX_LO, GS_SYNTH_CPU_EX_HI};
    const uint64_t H = g->d.H;
    gs_fp *mult = g->tables[g->ti[GS_SYNTH_K_RANGE]].trace + H;
    const size_t nc = (size_t)1 << g->d.log_cpu, nm = (size_t)1 << g->d.log_mem;
    const gs_fp *cpu = g->tables[g->ti[GS_SYNTH_K_CPU]].trace;
    const gs_fp *mem = g->tables[g->ti[GS_SYNTH_K_MEMORY]].trace;
    for (uint32_t k = 0; k < 10; k++) {
        const gs_fp *c = k < 8 ? cpu + (size_t)cpu_cols[k] * nc
                               : mem + (size_t)(GS_SYNTH_MEM_DIFF_LO + k - 8) * nm;
        size_t rows = k < 8 ? nc : nm;
        for (size_t i = 0; i < rows; i++)
            if (c[i] < H) mult[c[i]]++; /* out of range: left unbalanced, for a test to see */
    }
}

static void count_bitwise(gs_synth_vm_gen *g) {
    const size_t nc = (size_t)1 << g->d.log_cpu, nb = (size_t)1 << g->d.log_bit;
    const gs_fp *cpu = g->tables[g->ti[GS_SYNTH_K_CPU]].trace;
    const gs_fp *s_and = cpu + (size_t)(GS_SYNTH_CPU_SEL + GS_SYNTH_OP_AND - 1) * nc;
    const gs_fp *s_xor = cpu + (size_t)(GS_SYNTH_CPU_SEL + GS_SYNTH_OP_XOR - 1) * nc;
    const gs_fp *x = cpu + (size_t)GS_SYNTH_CPU_X * nc, *y = cpu + (size_t)GS_SYNTH_CPU_Y * nc;
    gs_fp *mult = g->tables[g->ti[GS_SYNTH_K_BITWISE]].trace + (size_t)GS_SYNTH_BIT_MULT * nb;
    const uint64_t mx = ((uint64_t)1 << g->d.lx) - 1, my = ((uint64_t)1 << g->d.ly) - 1;
    for (size_t t = 0; t < nc; t++)
        if ((s_and[t] || s_xor[t]) && x[t] <= mx && y[t] <= my)
            mult[x[t] << g->d.ly | y[t]] += s_and[t] + s_xor[t];
}

static void count_program(gs_synth_vm_gen *g) {
    const size_t nc = (size_t)1 << g->d.log_cpu;
    const gs_fp *pc = g->tables[g->ti[GS_SYNTH_K_CPU]].trace + (size_t)GS_SYNTH_CPU_PC * nc;
    gs_fp *mult = g->tables[g->ti[GS_SYNTH_K_PROGRAM]].trace + (size_t)GS_SYNTH_PROG_MULT * g->P;
    for (size_t t = 0; t < nc; t++)
        if (pc[t] < g->P) mult[pc[t]]++;
}

/* ---- jobs ---- */

static size_t hash_jobs(const gs_synth_vm_gen *g) {
    size_t nh = (size_t)1 << g->d.log_hash;
    return (nh + HASH_CHUNK - 1) / HASH_CHUNK;
}

size_t gs_synth_vm_jobs(const gs_synth_vm_gen *g, int phase) {
    return phase == 1 ? 3 : phase == 2 ? hash_jobs(g) : 3;
}

void gs_synth_vm_job(gs_synth_vm_gen *g, int phase, size_t job) {
    if (phase == 1) {
        if (job == 0) {
            run_cpu(g);
            fill_memory(g);
        } else {
            fill_fixed(g, job == 2);
        }
    } else if (phase == 2) {
        size_t nh = (size_t)1 << g->d.log_hash, r0 = job * HASH_CHUNK;
        fill_hash(g, r0, r0 + HASH_CHUNK < nh ? r0 + HASH_CHUNK : nh);
    } else if (job == 0) {
        count_range(g);
    } else if (job == 1) {
        count_bitwise(g);
    } else {
        count_program(g);
    }
}

void gs_synth_vm_publics(gs_synth_vm_gen *g) {
    gs_workload *cw = &g->tables[g->ti[GS_SYNTH_K_CPU]];
    size_t n = (size_t)1 << cw->log_n;
    cw->pub[0] = cw->trace[(size_t)GS_SYNTH_CPU_ACC * n + n - 1];
}
