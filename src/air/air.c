/* The AIR builder: hash-consed expression DAG, constraint lists, sticky
 * errors, finalize (compile + fingerprint) and the queries. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air/air_internal.h"
#include "air/logup.h"

#define MAX_NODES (1u << 24)

static void set_err(gs_air *air, gs_status s, const char *fmt, ...) {
    if (air->err != GS_OK) return; /* keep the first error */
    air->err = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(air->err_msg, sizeof air->err_msg, fmt, ap);
    va_end(ap);
}

gs_air *gs_air_new(const char *name, uint32_t num_cols, uint32_t num_public) {
    if (num_cols == 0 || num_cols > GS_AIR_MAX_COLS || num_public > GS_AIR_MAX_PUBLIC) return NULL;
    gs_air *air = calloc(1, sizeof *air);
    if (!air) return NULL;
    snprintf(air->name, sizeof air->name, "%s", name ? name : "air");
    air->num_cols = num_cols;
    air->num_public = num_public;
    return air;
}

void gs_air_free(gs_air *air) {
    if (!air) return;
    free(air->nodes);
    free(air->hash);
    free(air->trans);
    free(air->bounds);
    free(air->inters);
    gs_air_program_free(&air->prog_inter);
    gs_air_program_free(&air->prog_trans);
    gs_air_program_free(&air->prog_bound);
    free(air);
}

static uint64_t node_key(uint8_t op, uint32_t a, uint32_t b, uint64_t val) {
    uint64_t h = val * 0x9E3779B97F4A7C15ull ^ ((uint64_t)op << 56) ^ ((uint64_t)a << 28) ^ b;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static int grow_hash(gs_air *air) {
    uint32_t cap = air->hash_cap ? air->hash_cap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return 0;
    for (uint32_t i = 0; i < air->n_nodes; i++) {
        const gs_air_node *n = &air->nodes[i];
        uint32_t at = (uint32_t)node_key(n->op, n->a, n->b, n->val) & (cap - 1);
        while (h[at]) at = (at + 1) & (cap - 1);
        h[at] = i + 1;
    }
    free(air->hash);
    air->hash = h;
    air->hash_cap = cap;
    return 1;
}

/* Find or add a node; its degree is computed here. */
static gs_expr node(gs_air *air, uint8_t op, uint32_t a, uint32_t b, uint64_t val) {
    if (air->err != GS_OK) return GS_EXPR_INVALID;
    if (air->finalized) {
        set_err(air, GS_ERR_AIR, "AIR '%s': expression built after gs_air_finalize", air->name);
        return GS_EXPR_INVALID;
    }
    if (2 * (air->n_nodes + 1) > air->hash_cap && !grow_hash(air)) {
        set_err(air, GS_ERR_NOMEM, "AIR '%s': out of memory", air->name);
        return GS_EXPR_INVALID;
    }
    uint32_t mask = air->hash_cap - 1, at = (uint32_t)node_key(op, a, b, val) & mask;
    for (; air->hash[at]; at = (at + 1) & mask) {
        const gs_air_node *n = &air->nodes[air->hash[at] - 1];
        if (n->op == op && n->a == a && n->b == b && n->val == val) return air->hash[at] - 1;
    }
    if (air->n_nodes == MAX_NODES) {
        set_err(air, GS_ERR_AIR, "AIR '%s': more than %u expression nodes", air->name, MAX_NODES);
        return GS_EXPR_INVALID;
    }
    if (air->n_nodes == air->cap_nodes) {
        uint32_t cap = air->cap_nodes ? air->cap_nodes * 2 : 256;
        gs_air_node *nn = realloc(air->nodes, cap * sizeof *nn);
        if (!nn) {
            set_err(air, GS_ERR_NOMEM, "AIR '%s': out of memory", air->name);
            return GS_EXPR_INVALID;
        }
        air->nodes = nn;
        air->cap_nodes = cap;
    }
    unsigned da = 0, db = 0, d;
    if (op >= GS_N_ADD) da = air->nodes[a].degree;
    if (op >= GS_N_ADD && op != GS_N_NEG) db = air->nodes[b].degree;
    switch (op) {
    case GS_N_COL: case GS_N_NEXT: d = 1; break;
    case GS_N_PUB: case GS_N_CONST: d = 0; break;
    case GS_N_MUL: d = da + db; break;
    default: d = da > db ? da : db; break;
    }
    if (d > 0xFFFF) {
        set_err(air, GS_ERR_AIR, "AIR '%s': expression degree above 65535", air->name);
        return GS_EXPR_INVALID;
    }
    uint8_t next = op == GS_N_NEXT;
    if (op >= GS_N_ADD) next |= air->nodes[a].uses_next;
    if (op >= GS_N_ADD && op != GS_N_NEG) next |= air->nodes[b].uses_next;
    gs_air_node *n = &air->nodes[air->n_nodes];
    n->op = op, n->uses_next = next, n->degree = (uint16_t)d, n->a = a, n->b = b, n->val = val;
    air->hash[at] = air->n_nodes + 1;
    return air->n_nodes++;
}

static int valid(gs_air *air, gs_expr e, const char *what) {
    if (air->err != GS_OK) return 0;
    if (e >= air->n_nodes) {
        set_err(air, GS_ERR_AIR, "AIR '%s': %s of an invalid expression", air->name, what);
        return 0;
    }
    return 1;
}

gs_expr gs_air_col(gs_air *air, uint32_t col) {
    if (col >= air->num_cols) {
        set_err(air, GS_ERR_AIR, "AIR '%s': column %u out of range (%u columns)", air->name, col,
                air->num_cols);
        return GS_EXPR_INVALID;
    }
    return node(air, GS_N_COL, 0, 0, col);
}

gs_expr gs_air_next(gs_air *air, uint32_t col) {
    if (col >= air->num_cols) {
        set_err(air, GS_ERR_AIR, "AIR '%s': next-row column %u out of range (%u columns)",
                air->name, col, air->num_cols);
        return GS_EXPR_INVALID;
    }
    return node(air, GS_N_NEXT, 0, 0, col);
}

gs_expr gs_air_public(gs_air *air, uint32_t idx) {
    if (idx >= air->num_public) {
        set_err(air, GS_ERR_AIR, "AIR '%s': public input %u out of range (%u publics)", air->name,
                idx, air->num_public);
        return GS_EXPR_INVALID;
    }
    return node(air, GS_N_PUB, 0, 0, idx);
}

gs_expr gs_air_const(gs_air *air, gs_fp v) { return node(air, GS_N_CONST, 0, 0, gs_fp_from_u64(v)); }

static gs_expr binary(gs_air *air, uint8_t op, gs_expr a, gs_expr b, const char *what) {
    if (!valid(air, a, what) || !valid(air, b, what)) return GS_EXPR_INVALID;
    if (op != GS_N_SUB && a > b) { /* commutative: one canonical order shares more */
        gs_expr t = a;
        a = b, b = t;
    }
    return node(air, op, a, b, 0);
}

gs_expr gs_air_add(gs_air *air, gs_expr a, gs_expr b) { return binary(air, GS_N_ADD, a, b, "sum"); }
gs_expr gs_air_sub(gs_air *air, gs_expr a, gs_expr b) { return binary(air, GS_N_SUB, a, b, "difference"); }
gs_expr gs_air_mul(gs_air *air, gs_expr a, gs_expr b) { return binary(air, GS_N_MUL, a, b, "product"); }

gs_expr gs_air_neg(gs_air *air, gs_expr a) {
    if (!valid(air, a, "negation")) return GS_EXPR_INVALID;
    return node(air, GS_N_NEG, a, 0, 0);
}

gs_expr gs_air_pow(gs_air *air, gs_expr a, unsigned e) {
    if (!valid(air, a, "power")) return GS_EXPR_INVALID;
    if (e > GS_AIR_MAX_POW) {
        set_err(air, GS_ERR_AIR, "AIR '%s': power %u above %u", air->name, e, GS_AIR_MAX_POW);
        return GS_EXPR_INVALID;
    }
    gs_expr r = GS_EXPR_INVALID, sq = a;
    if (e == 0) return gs_air_const(air, 1);
    for (; e; e >>= 1) { /* square and multiply: shared squares */
        if (e & 1) r = r == GS_EXPR_INVALID ? sq : gs_air_mul(air, r, sq);
        if (e > 1) sq = gs_air_mul(air, sq, sq);
    }
    return r;
}

static int push(gs_air *air, void **arr, uint32_t *n, uint32_t *cap, size_t elem) {
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 16;
        void *p = realloc(*arr, c * elem);
        if (!p) {
            set_err(air, GS_ERR_NOMEM, "AIR '%s': out of memory", air->name);
            return 0;
        }
        *arr = p;
        *cap = c;
    }
    return 1;
}

void gs_air_transition(gs_air *air, gs_expr c) {
    if (air->finalized) {
        set_err(air, GS_ERR_AIR, "AIR '%s': constraint added after gs_air_finalize", air->name);
        return;
    }
    if (!valid(air, c, "transition constraint")) return;
    if (!push(air, (void **)&air->trans, &air->n_trans, &air->cap_trans, sizeof *air->trans)) return;
    air->trans[air->n_trans++] = c;
}

void gs_air_fix_height(gs_air *air, unsigned log_n) {
    if (air->finalized) {
        set_err(air, GS_ERR_AIR, "AIR '%s': height pinned after gs_air_finalize", air->name);
        return;
    }
    if (log_n > 32) {
        set_err(air, GS_ERR_AIR, "AIR '%s': a pinned height of 2^%u rows (at most 2^32)", air->name,
                log_n);
        return;
    }
    air->fixed_log_n = (int)log_n + 1;
}

void gs_air_boundary(gs_air *air, uint32_t col, int64_t row, gs_expr value) {
    if (air->finalized) {
        set_err(air, GS_ERR_AIR, "AIR '%s': constraint added after gs_air_finalize", air->name);
        return;
    }
    if (col >= air->num_cols) {
        set_err(air, GS_ERR_AIR, "AIR '%s': boundary column %u out of range (%u columns)",
                air->name, col, air->num_cols);
        return;
    }
    if (!valid(air, value, "boundary value")) return;
    if (air->nodes[value].degree != 0) {
        set_err(air, GS_ERR_AIR,
                "AIR '%s': boundary value on column %u uses trace columns; it must be built "
                "from public inputs and constants", air->name, col);
        return;
    }
    if (!push(air, (void **)&air->bounds, &air->n_bounds, &air->cap_bounds, sizeof *air->bounds))
        return;
    air->bounds[air->n_bounds++] = (gs_air_bound){col, row, value};
}

static void interact(gs_air *air, uint32_t bus, const gs_expr *values, uint32_t width,
                     gs_expr mult, int sign) {
    if (air->err != GS_OK) return;
    if (air->finalized) {
        set_err(air, GS_ERR_AIR, "AIR '%s': interaction added after gs_air_finalize", air->name);
        return;
    }
    if (width < 1 || width > GS_AIR_MAX_TUPLE || !values) {
        set_err(air, GS_ERR_AIR, "AIR '%s': interaction on bus %u has width %u (1..%u)", air->name,
                bus, width, GS_AIR_MAX_TUPLE);
        return;
    }
    gs_air_inter in = {bus, width, sign, mult, {0}};
    for (uint32_t k = 0; k <= width; k++) {
        gs_expr e = k < width ? values[k] : mult;
        if (!valid(air, e, "interaction")) return;
        if (air->nodes[e].uses_next) {
            set_err(air, GS_ERR_AIR,
                    "AIR '%s': interaction on bus %u reads the next row; use current-row "
                    "expressions only", air->name, bus);
            return;
        }
        if (k < width) in.values[k] = e;
    }
    if (!push(air, (void **)&air->inters, &air->n_inters, &air->cap_inters, sizeof *air->inters))
        return;
    air->inters[air->n_inters++] = in;
}

void gs_air_send(gs_air *air, uint32_t bus, const gs_expr *values, uint32_t width, gs_expr mult) {
    interact(air, bus, values, width, mult, +1);
}

void gs_air_receive(gs_air *air, uint32_t bus, const gs_expr *values, uint32_t width,
                    gs_expr mult) {
    interact(air, bus, values, width, mult, -1);
}

uint32_t gs_air_num_interactions(const gs_air *air) { return air->n_inters; }

gs_status gs_air_interaction(const gs_air *air, uint32_t i, uint32_t *bus, uint32_t *width,
                             int *sign) {
    if (!air || i >= air->n_inters) return GS_ERR_INVALID_ARG;
    if (bus) *bus = air->inters[i].bus;
    if (width) *width = air->inters[i].width;
    if (sign) *sign = air->inters[i].sign;
    return GS_OK;
}

static void put_u64(gs_hasher *h, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    gs_hasher_update(h, b, 8);
}

static void hash_program(gs_hasher *h, const gs_air_program *p) {
    put_u64(h, p->n_insns);
    put_u64(h, p->n_consts);
    put_u64(h, p->n_regs);
    put_u64(h, p->n_out);
    for (uint32_t i = 0; i < p->n_insns; i++) {
        const gs_air_insn *in = &p->insns[i];
        put_u64(h, (uint64_t)in->op | (uint64_t)in->dst << 16 | (uint64_t)in->a << 32 |
                       (uint64_t)in->b << 48);
    }
    for (uint32_t i = 0; i < p->n_consts; i++) put_u64(h, p->consts[i]);
}

gs_status gs_air_finalize(gs_air *air) {
    if (!air) return GS_ERR_INVALID_ARG;
    if (air->finalized) return GS_OK;
    if (air->err != GS_OK) return air->err;
    if (air->n_trans + air->n_bounds + air->n_inters == 0) {
        set_err(air, GS_ERR_AIR_EMPTY, "AIR '%s' has no constraints", air->name);
        return air->err;
    }
    unsigned maxd = 1;
    for (uint32_t i = 0; i < air->n_trans; i++)
        if (air->nodes[air->trans[i]].degree > maxd) maxd = air->nodes[air->trans[i]].degree;
    if (air->n_inters) { /* the LogUp constraints count towards the composition degree */
        gs_logup L;
        if (gs_logup_layout(&L, air) != GS_OK) return GS_ERR_NOMEM;
        if (L.max_degree > maxd) maxd = L.max_degree;
        gs_logup_free(&L);
    }
    air->max_degree = maxd;
    gs_expr *bv = malloc((air->n_bounds + 1) * sizeof *bv);
    if (!bv) return GS_ERR_NOMEM;
    for (uint32_t i = 0; i < air->n_bounds; i++) bv[i] = air->bounds[i].value;
    uint32_t n_iout = 0;
    for (uint32_t i = 0; i < air->n_inters; i++) n_iout += 1 + air->inters[i].width;
    gs_expr *iv = malloc((n_iout + 1) * sizeof *iv);
    if (!iv) {
        free(bv);
        return GS_ERR_NOMEM;
    }
    for (uint32_t i = 0, at = 0; i < air->n_inters; i++) {
        iv[at++] = air->inters[i].mult;
        for (uint32_t k = 0; k < air->inters[i].width; k++) iv[at++] = air->inters[i].values[k];
    }
    gs_status s = gs_air_compile_program(air, &air->prog_trans, air->trans, air->n_trans);
    if (s == GS_OK) s = gs_air_compile_program(air, &air->prog_bound, bv, air->n_bounds);
    if (s == GS_OK) s = gs_air_compile_program(air, &air->prog_inter, iv, n_iout);
    free(bv);
    free(iv);
    if (s != GS_OK) {
        gs_air_program_free(&air->prog_trans);
        gs_air_program_free(&air->prog_bound);
        gs_air_program_free(&air->prog_inter);
        set_err(air, s, "AIR '%s': compiling its constraints failed (%s)", air->name,
                gs_status_str(s));
        return s;
    }
    /* The fingerprint covers what a proof depends on: shape, programs and
     * boundary positions; not the name. */
    gs_hasher h;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    gs_hasher_update(&h, "gstark-air-v1", 13);
    put_u64(&h, air->num_cols);
    put_u64(&h, air->num_public);
    put_u64(&h, air->n_trans);
    put_u64(&h, air->n_bounds);
    put_u64(&h, air->max_degree);
    for (uint32_t i = 0; i < air->n_bounds; i++) {
        put_u64(&h, air->bounds[i].col);
        put_u64(&h, (uint64_t)air->bounds[i].row);
    }
    hash_program(&h, &air->prog_trans);
    hash_program(&h, &air->prog_bound);
    if (air->n_inters) { /* appended only when present: AIRs without buses keep their digest */
        gs_hasher_update(&h, "interactions", 12);
        put_u64(&h, air->n_inters);
        for (uint32_t i = 0; i < air->n_inters; i++) {
            put_u64(&h, air->inters[i].bus);
            put_u64(&h, air->inters[i].width);
            put_u64(&h, (uint64_t)(int64_t)air->inters[i].sign);
        }
        hash_program(&h, &air->prog_inter);
    }
    gs_hasher_final(&h, &air->fingerprint);
    air->finalized = 1;
    return GS_OK;
}

const char *gs_air_error(const gs_air *air) { return air ? air->err_msg : "no AIR"; }
const char *gs_air_name(const gs_air *air) { return air->name; }
int gs_air_fixed_log_n(const gs_air *air) { return air->fixed_log_n - 1; }
uint32_t gs_air_num_cols(const gs_air *air) { return air->num_cols; }
uint32_t gs_air_num_public(const gs_air *air) { return air->num_public; }
uint32_t gs_air_num_transitions(const gs_air *air) { return air->n_trans; }
uint32_t gs_air_num_boundaries(const gs_air *air) { return air->n_bounds; }
unsigned gs_air_max_degree(const gs_air *air) { return air->max_degree; }
unsigned gs_air_num_chunks(const gs_air *air) { return air->max_degree > 2 ? air->max_degree - 1 : 1; }
gs_digest gs_air_fingerprint(const gs_air *air) { return air->fingerprint; }

gs_status gs_air_check_degree(const gs_air *air, unsigned log_blowup) {
    if (!air || !air->finalized) return GS_ERR_INVALID_ARG;
    if (log_blowup > 16) return GS_ERR_INVALID_ARG;
    return air->max_degree > (1u << log_blowup) + 1 ? GS_ERR_AIR_DEGREE : GS_OK;
}

gs_status gs_air_check_height(const gs_air *air, unsigned log_n) {
    if (!air) return GS_ERR_INVALID_ARG;
    return air->fixed_log_n && log_n + 1 != (unsigned)air->fixed_log_n ? GS_ERR_INVALID_ARG : GS_OK;
}

gs_status gs_air_boundary_at(const gs_air *air, uint32_t i, unsigned log_n, uint32_t *col,
                             uint64_t *row) {
    if (!air || !air->finalized || i >= air->n_bounds || log_n > 40) return GS_ERR_INVALID_ARG;
    int64_t n = (int64_t)1 << log_n, r = air->bounds[i].row;
    if (r < 0) r += n;
    if (r < 0 || r >= n) return GS_ERR_INVALID_ARG;
    *col = air->bounds[i].col;
    *row = (uint64_t)r;
    return GS_OK;
}
