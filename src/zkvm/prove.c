/* Proving and verifying a run (docs/zkvm.md, "Proving a run"): execute with
 * the trace recorded, replay the trace into the tables' requests and traces
 * (src/zkvm/replay.c), prove them as one multi-table statement; the verifier
 * rebuilds the program's fixed columns from the program it is given. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gstark/prover.h"
#include "gstark/verifier.h"
#include "gstark/zkvm.h"
#include "prover/prover_internal.h"
#include "zkvm/zk_cpu.h"

static gs_status refuse(char *msg, size_t cap, gs_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static gs_status refuse(char *msg, size_t cap, gs_status s, const char *fmt, ...) {
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return s;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the statement's AIRs ---- */

static void airs_free(gs_air **airs) {
    for (unsigned t = 0; t < ZK_T_NUM; t++) gs_air_free(airs[t]), airs[t] = NULL;
}

static gs_status airs_make(gs_air **airs) {
    airs[ZK_T_CPU] = zk_cpu_air();
    airs[ZK_T_PROG] = zk_prog_air();
    airs[ZK_T_IMAGE] = zk_image_air();
    airs[ZK_T_FRESH] = zk_fresh_air();
    airs[ZK_T_ALU] = zk_alu_air();
    airs[ZK_T_SHIFT] = zk_shift_air();
    airs[ZK_T_MUL] = zk_mul_air();
    airs[ZK_T_DIV] = zk_div_air();
    airs[ZK_T_LS] = zk_ls_air();
    airs[ZK_T_IO] = zk_io_air();
    airs[ZK_T_STREAM] = zk_stream_air();
    airs[ZK_T_RANGE] = zk_range_air();
    airs[ZK_T_BYTE] = zk_byte_air();
    for (unsigned t = 0; t < ZK_T_NUM; t++)
        if (!airs[t]) {
            airs_free(airs);
            return GS_ERR_NOMEM;
        }
    return GS_OK;
}

/* ---- the program's fingerprint ---- */

gs_digest gs_zkvm_program_fingerprint(const gs_zkvm_program *p) {
    gs_hasher h;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    static const char tag[] = "gstark zkvm program v1";
    gs_hasher_update(&h, tag, sizeof tag);
    uint8_t hdr[16];
    zk_st32(hdr, p->entry), zk_st32(hdr + 4, p->text_lo), zk_st32(hdr + 8, p->n);
    zk_st32(hdr + 12, (uint32_t)p->nseg);
    gs_hasher_update(&h, hdr, sizeof hdr);
    for (size_t s = 0; s < p->nseg; s++) {
        uint8_t sh[12];
        zk_st32(sh, p->seg[s].vaddr), zk_st32(sh + 4, p->seg[s].memsz), zk_st32(sh + 8, p->seg[s].filesz);
        gs_hasher_update(&h, sh, sizeof sh);
        gs_hasher_update(&h, p->seg[s].data, p->seg[s].filesz);
    }
    gs_digest d;
    gs_hasher_final(&h, &d);
    return d;
}

static void digest_hash(gs_hasher *h, const char *tag, const uint8_t *b, uint64_t len) {
    uint8_t n[8];
    for (unsigned i = 0; i < 8; i++) n[i] = (uint8_t)(len >> (8 * i));
    gs_hasher_update(h, tag, strlen(tag) + 1);
    gs_hasher_update(h, n, sizeof n);
    if (len) gs_hasher_update(h, b, (size_t)len);
}

gs_digest gs_zkvm_input_digest(const uint8_t *in, uint64_t len) {
    gs_hasher h;
    gs_digest d;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    digest_hash(&h, "gstark zkvm input v1", in, len);
    gs_hasher_final(&h, &d);
    return d;
}

gs_digest gs_zkvm_output_digest(const uint8_t *out1, uint64_t len1, const uint8_t *out2,
                                uint64_t len2) {
    gs_hasher h;
    gs_digest d;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    digest_hash(&h, "gstark zkvm output v1 fd 1", out1, len1);
    digest_hash(&h, "fd 2", out2, len2);
    gs_hasher_final(&h, &d);
    return d;
}

gs_digest gs_zkvm_regs_digest(const uint32_t regs[32]) {
    uint8_t b[128];
    for (unsigned r = 0; r < 32; r++) zk_st32(b + 4 * r, regs[r]);
    gs_hasher h;
    gs_digest d;
    gs_hasher_init(&h, GS_HASH_KECCAK256);
    digest_hash(&h, "gstark zkvm registers v1", b, sizeof b);
    gs_hasher_final(&h, &d);
    return d;
}

static void put_digest(gs_fp *pub, gs_digest d) {
    for (unsigned i = 0; i < 8; i++) pub[i] = zk_ld32(d.b + 4 * i);
}

/* The CPU's publics: what the statement claims. */
static void cpu_publics(gs_fp *pub, const gs_zkvm_claim *c) {
    pub[ZK_PUB_ENTRY] = c->entry;
    pub[ZK_PUB_EXIT_CODE] = c->exit_code;
    pub[ZK_PUB_CYCLES] = gs_fp_from_u64(c->cycles);
    put_digest(pub + ZK_PUB_PROGRAM, c->program);
    put_digest(pub + ZK_PUB_INPUT, c->input);
    put_digest(pub + ZK_PUB_OUTPUT, c->output);
    pub[ZK_PUB_START_PC] = c->start.pc;
    pub[ZK_PUB_START_CLK] = gs_fp_from_u64(c->start.clk);
    pub[ZK_PUB_END_PC] = c->end.pc;
    pub[ZK_PUB_EXITED] = c->exited;
}

/* ---- the tables ---- */

typedef zk_run_tables run_tables;

/* Replays the trace into every table (src/zkvm/replay.c) and sets the CPU's publics. */
static gs_status build(run_tables *rt, const gs_zkvm_program *p, const zk_image *im,
                       const gs_zkvm_trace *tr, const gs_zkvm_vm *vm, const gs_zkvm_claim *claim,
                       const uint8_t *input, uint64_t in_len, zk_trace_times *tt, char *msg,
                       size_t cap) {
    cpu_publics(rt->cpu_pub, claim);
    return zk_build_tables(rt, p, im, &claim->start, tr, vm, input, in_len, tt, msg, cap);
}

static gs_fp *pub_of(run_tables *rt, unsigned t) {
    switch (t) {
    case ZK_T_CPU: return rt->cpu_pub;
    case ZK_T_IMAGE: return rt->image_pub;
    case ZK_T_FRESH: return rt->fresh_pub;
    case ZK_T_IO: return rt->io_pub;
    default: return NULL;
    }
}

/* ---- the proof object ---- */

void gs_zkvm_proof_free(gs_zkvm_proof *zp) {
    if (!zp) return;
    gs_multi_proof_free(zp->proof);
    free(zp->input), free(zp->out[0]), free(zp->out[1]);
    free(zp);
}

static uint8_t *copy_bytes(const uint8_t *b, uint64_t len) {
    uint8_t *c = malloc(len ? (size_t)len : 1);
    if (c && len) memcpy(c, b, (size_t)len);
    return c;
}

/* ---- proving ---- */

/* The run to prove: executed with the trace recorded from start (NULL: the
 * reset state), refused if it faulted, or if it did not exit within the
 * limits and `whole` asks for a whole run. */
typedef struct {
    gs_zkvm_vm *vm;
    gs_zkvm_trace *tr;
    gs_zkvm_claim claim;
} traced;

static void traced_free(traced *r) {
    gs_zkvm_trace_free(r->tr);
    gs_zkvm_vm_free(r->vm);
    r->tr = NULL, r->vm = NULL;
}

static gs_status traced_run(traced *r, const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                            const gs_zkvm_state *start, uint64_t max_cycles, int whole, char *msg,
                            size_t msg_cap) {
    memset(r, 0, sizeof *r);
    uint64_t limit = ((uint64_t)1 << GS_ZKVM_MAX_LOG_ROWS) - 1;
    if (!max_cycles || max_cycles > limit) max_cycles = limit;
    if (in_len > GS_ZKVM_MAX_INPUT)
        return refuse(msg, msg_cap, GS_ERR_INVALID_ARG, "the input has %zu bytes; a proof holds at most %llu",
                      in_len, (unsigned long long)GS_ZKVM_MAX_INPUT);
    if (start && start->clk >= ZK_MAX_START_CLK)
        return refuse(msg, msg_cap, GS_ERR_INVALID_ARG, "the start clk %llu is past 2^48",
                      (unsigned long long)start->clk);
    gs_zkvm_result res;
    gs_status s = gs_zkvm_vm_new_at(&r->vm, p, input, in_len, start, NULL);
    if (s == GS_ERR_INVALID_ARG)
        return refuse(msg, msg_cap, s, "the start state is not one of this program (its pc outside the "
                      "text or misaligned, x0 not 0, or an input position past the input)");
    if (s == GS_OK) s = gs_zkvm_trace_new(&r->tr);
    if (s == GS_OK) s = gs_zkvm_vm_run_traced(r->vm, r->tr, &res, max_cycles);
    if (s != GS_OK) return s;
    if (res.stop == GS_ZKVM_FAULT)
        return refuse(msg, msg_cap, GS_ERR_INVALID_ARG, "the program faulted, so there is no run to prove: %s",
                      res.msg);
    if (res.stop != GS_ZKVM_EXITED && (whole || r->tr->n_steps == 0))
        return refuse(msg, msg_cap, GS_ERR_UNSUPPORTED,
                      "the run did not exit within %llu cycles: one proof holds at most 2^%u - 1 "
                      "cycles (the CPU table's largest height, one row kept for padding); longer "
                      "runs need segmenting, which is not built yet",
                      (unsigned long long)max_cycles, GS_ZKVM_MAX_LOG_ROWS);
    size_t len1 = 0, len2 = 0;
    const uint8_t *out1 = gs_zkvm_vm_output(r->vm, 1, &len1), *out2 = gs_zkvm_vm_output(r->vm, 2, &len2);
    if ((uint64_t)len1 + len2 > GS_ZKVM_MAX_INPUT)
        return refuse(msg, msg_cap, GS_ERR_UNSUPPORTED, "the run wrote %zu bytes; a proof holds at most %llu",
                      len1 + len2, (unsigned long long)GS_ZKVM_MAX_INPUT);
    gs_zkvm_claim *c = &r->claim; /* zeroed above, padding included: claims compare with memcmp */
    c->program = gs_zkvm_program_fingerprint(p);
    c->input = gs_zkvm_input_digest(input, in_len);
    c->output = gs_zkvm_output_digest(out1, len1, out2, len2);
    c->entry = p->entry;
    c->exited = res.stop == GS_ZKVM_EXITED;
    c->exit_code = c->exited ? res.exit_code : 0;
    gs_zkvm_reset_state(&c->start, p); /* field by field: no padding bytes from the caller */
    if (start) {
        c->start.pc = start->pc, c->start.clk = start->clk, c->start.input_pos = start->input_pos;
        memcpy(c->start.regs, start->regs, sizeof start->regs);
    }
    gs_zkvm_vm_get_state(r->vm, &c->end); /* after an exit its pc is the exit's + 4 */
    c->cycles = c->end.clk;
    if (!c->exited && c->end.pc == (uint64_t)p->text_lo + 4ull * p->n)
        return refuse(msg, msg_cap, GS_ERR_INVALID_ARG,
                      "the segment stops at pc 0x%08x, just past the program's text: its next fetch "
                      "faults, so no segment can end there (the verifier refuses such an end state)",
                      c->end.pc);
    return GS_OK;
}

gs_status zk_trace_run(zk_table *t, const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                       uint64_t max_cycles, zk_trace_times *times, char *msg, size_t msg_cap) {
    if (!t || !p || (in_len && !input)) return GS_ERR_INVALID_ARG;
    if (msg && msg_cap) msg[0] = 0;
    memset(t, 0, ZK_T_NUM * sizeof *t);
    zk_trace_times tt = {0};
    double t0 = now_s();
    traced r;
    run_tables rt;
    memset(&rt, 0, sizeof rt);
    zk_image im = {0};
    gs_status s = traced_run(&r, p, input, in_len, NULL, max_cycles, 1, msg, msg_cap);
    tt.exec = now_s() - t0;
    if (s == GS_OK) s = zk_image_make(&im, p);
    if (s == GS_OK) s = build(&rt, p, &im, r.tr, r.vm, &r.claim, input, in_len, &tt, msg, msg_cap);
    double t1 = now_s();
    if (s == GS_OK) s = zk_cpu_unpack(&rt);
    tt.unpack = now_s() - t1;
    tt.total = now_s() - t0;
    if (s != GS_OK) zk_run_tables_free(&rt);
    memcpy(t, rt.t, sizeof rt.t);
    zk_image_free(&im);
    traced_free(&r);
    if (times) *times = tt;
    return s;
}

/* The parameters for a provable-security target, from the tables' shapes
 * (gs_params_for_provable, base the rest of them). */
static gs_status choose_provable(gs_zkvm_provable *tg, const gs_params *base, gs_air *const *airs,
                                 const run_tables *rt, char *msg, size_t msg_cap) {
    unsigned log_n[ZK_T_NUM], lo = tg->min_log_blowup, hi = tg->max_log_blowup;
    for (unsigned t = 0; t < ZK_T_NUM; t++) log_n[t] = rt->t[t].log_n;
    if (!lo && !hi) lo = 1, hi = 4;
    tg->reachable = 0;
    gs_params def = gs_params_default(GS_DEFAULT_SECURITY_BITS);
    gs_status s = gs_params_for_provable(&tg->chosen, tg->bits, (const gs_air *const *)airs, log_n, ZK_T_NUM,
                                         base ? base : &def, lo, hi, &tg->reachable);
    if (s == GS_ERR_PROOF_PARAMS)
        return refuse(msg, msg_cap, s, "%u bits provable cannot be reached for this run with blowup "
                      "%u..%u (at most %u with 1024 queries)", tg->bits, 1u << lo, 1u << hi, tg->reachable);
    return s;
}

/* The run a proof is of: program p on input from `start` (NULL: the entry)
 * for at most `cycles` cycles (0: the most a proof holds); `whole`: it must
 * exit within them, else a segment may stop there (traced_run). */
typedef struct run_spec {
    const gs_zkvm_program *p;
    const uint8_t *input;
    size_t in_len;
    const gs_zkvm_state *start;
    uint64_t cycles;
    int whole;
} run_spec;

/* How it is proven: pv NULL, a one-shot proof (its context made ahead,
 * beside the building of the tables: gs_prover_ahead_start), else on pv, the
 * tables built in its host memory; with `params`, or the parameters chosen
 * for `target` from them (gs_zkvm_prove_provable); `fn(ctx)` edits the
 * tables first (the tests' cheating provers: zk_prove_tampered). */
typedef struct run_how {
    gs_prover *pv;
    const gs_params *params;
    gs_zkvm_provable *target;
    const gs_prove_opts *opts;
    zk_tamper_fn fn;
    void *ctx;
} run_how;

static gs_status prove_run(const run_spec *run, const run_how *how, gs_zkvm_proof **out,
                           gs_zkvm_claim *claim, char *msg, size_t msg_cap) {
    const gs_zkvm_program *p = run->p;
    const uint8_t *input = run->input;
    size_t in_len = run->in_len;
    gs_prover *pv = how->pv;
    const gs_params *params = how->params;
    const gs_prove_opts *opts = how->opts;
    if (!out || !p || (in_len && !input)) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (msg && msg_cap) msg[0] = 0;
    traced r;
    gs_air *airs[ZK_T_NUM] = {0};
    run_tables rt;
    memset(&rt, 0, sizeof rt);
    zk_image im = {0};
    gs_zkvm_proof *zp = calloc(1, sizeof *zp);
    /* The run and the tables: a span of their own on a timeline ("trace"). */
    gs_obs *obs = opts ? opts->obs : NULL;
    int64_t span = gs_obs_begin(obs, "trace", -1, 0, 0);
    gs_prover_ahead *ahead = NULL;
    int64_t exec_span = gs_obs_begin(obs, "execute", -1, 0, 0);
    gs_status s = zp ? traced_run(&r, p, input, in_len, run->start, run->cycles, run->whole, msg, msg_cap)
                     : GS_ERR_NOMEM;
    gs_obs_end(obs, exec_span, 0);
    if (!zp) memset(&r, 0, sizeof r);
    if (s != GS_OK) goto out;
    /* A one-shot proof's context (on CUDA the device's set-up) is made while
     * the run's tables are built ("setup ahead"); not before the run, so a
     * refused run (a fault, the cycle limit) does not wait for it. */
    if (!pv) ahead = gs_prover_ahead_start(opts);
    size_t len1 = 0, len2 = 0;
    const uint8_t *out1 = gs_zkvm_vm_output(r.vm, 1, &len1), *out2 = gs_zkvm_vm_output(r.vm, 2, &len2);
    zp->input = copy_bytes(input, in_len), zp->in_len = in_len;
    zp->out[0] = copy_bytes(out1, len1), zp->out_len[0] = len1;
    zp->out[1] = copy_bytes(out2, len2), zp->out_len[1] = len2;
    if (!zp->input || !zp->out[0] || !zp->out[1]) {
        s = GS_ERR_NOMEM;
        goto out;
    }
    if ((s = zk_image_make(&im, p)) != GS_OK) goto out;
    if ((s = airs_make(airs)) != GS_OK) goto out;
    zk_table_arena(pv);
    zk_trace_times tt = {.obs = obs};
    s = build(&rt, p, &im, r.tr, r.vm, &r.claim, input, in_len, &tt, msg, msg_cap);
    zk_table_arena(NULL);
    if (s != GS_OK) goto out;
    int64_t free_span = gs_obs_begin(obs, "free the run", -1, 0, 0);
    traced_free(&r); /* the trace is no longer needed: its memory goes back before proving */
    gs_obs_end(obs, free_span, 0);
    gs_obs_end(obs, span, 0), span = -1;
    if (how->fn && (s = zk_cpu_unpack(&rt)) != GS_OK) goto out;
    if (how->fn) {
        gs_fp *pubs[ZK_T_NUM];
        for (unsigned t = 0; t < ZK_T_NUM; t++) pubs[t] = pub_of(&rt, t);
        how->fn(rt.t, pubs, how->ctx);
    }
    gs_table_input in[ZK_T_NUM];
    for (unsigned t = 0; t < ZK_T_NUM; t++)
        in[t] = (gs_table_input){.air = airs[t], .trace = rt.t[t].cols, .log_n = rt.t[t].log_n,
                                 .packed = rt.t[t].cols ? NULL : &rt.cpu_pk,
                                 .pub = pub_of(&rt, t), .air_desc = zk_table_names[t]};
    if (how->target && (s = choose_provable(how->target, params, airs, &rt, msg, msg_cap)) != GS_OK)
        goto out;
    if (how->target) params = &how->target->chosen;
    s = pv ? gs_prover_prove_multi(pv, &zp->proof, in, ZK_T_NUM, params, opts)
           : gs_prove_multi_ahead(ahead, &zp->proof, in, ZK_T_NUM, params, opts);
    ahead = NULL; /* consumed */
    if (s == GS_ERR_BUS_UNBALANCED && getenv("GS_ZKVM_DEBUG") && zk_cpu_unpack(&rt) == GS_OK) {
        in[ZK_T_CPU].trace = rt.t[ZK_T_CPU].cols, in[ZK_T_CPU].packed = NULL;
        zk_debug_buses(in, ZK_T_NUM);
    }
    if (s != GS_OK && msg && msg_cap && !msg[0])
        snprintf(msg, msg_cap, "proving the run's tables failed: %s", gs_status_str(s));
    if (s == GS_OK && claim) *claim = r.claim;
out:
    gs_prover_ahead_free(ahead); /* not proven on: a failure before */
    gs_obs_end(obs, span, 0); /* a no-op when it ended above */
    if (s == GS_OK) *out = zp;
    else gs_zkvm_proof_free(zp);
    zk_run_tables_free(&rt);
    airs_free(airs);
    zk_image_free(&im);
    traced_free(&r);
    return s;
}

gs_status gs_zkvm_prove(gs_zkvm_proof **out, gs_zkvm_claim *claim, const gs_zkvm_program *p,
                        const uint8_t *input, size_t in_len, uint64_t max_cycles,
                        const gs_params *params, const gs_prove_opts *opts, char *msg,
                        size_t msg_cap) {
    return prove_run(&(run_spec){p, input, in_len, NULL, max_cycles, 1},
                     &(run_how){.params = params, .opts = opts}, out, claim, msg, msg_cap);
}

gs_status gs_zkvm_prove_provable(gs_zkvm_proof **out, gs_zkvm_claim *claim, const gs_zkvm_program *p,
                                 const uint8_t *input, size_t in_len, uint64_t max_cycles,
                                 const gs_params *base, gs_zkvm_provable *target,
                                 const gs_prove_opts *opts, char *msg, size_t msg_cap) {
    if (!target) return GS_ERR_INVALID_ARG;
    return prove_run(&(run_spec){p, input, in_len, NULL, max_cycles, 1},
                     &(run_how){.params = base, .target = target, .opts = opts}, out, claim, msg, msg_cap);
}

gs_status gs_zkvm_prove_on(gs_prover *pv, gs_zkvm_proof **out, gs_zkvm_claim *claim,
                           const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                           uint64_t max_cycles, const gs_params *params, const gs_prove_opts *opts,
                           char *msg, size_t msg_cap) {
    if (!pv) return GS_ERR_INVALID_ARG;
    return prove_run(&(run_spec){p, input, in_len, NULL, max_cycles, 1},
                     &(run_how){.pv = pv, .params = params, .opts = opts}, out, claim, msg, msg_cap);
}

gs_status gs_zkvm_prove_segment(gs_zkvm_proof **out, gs_zkvm_claim *claim,
                                const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                                const gs_zkvm_state *start, uint64_t cycles,
                                const gs_params *params, const gs_prove_opts *opts, char *msg,
                                size_t msg_cap) {
    return prove_run(&(run_spec){p, input, in_len, start, cycles, 0},
                     &(run_how){.params = params, .opts = opts}, out, claim, msg, msg_cap);
}

gs_status zk_prove_tampered(gs_zkvm_proof **out, const gs_zkvm_program *p, const uint8_t *input,
                            size_t in_len, const gs_zkvm_state *start, uint64_t cycles,
                            const gs_params *params, const gs_prove_opts *opts, zk_tamper_fn fn,
                            void *ctx, char *msg, size_t msg_cap) {
    return prove_run(&(run_spec){p, input, in_len, start, cycles, !start && !cycles},
                     &(run_how){.params = params, .opts = opts, .fn = fn, .ctx = ctx}, out, NULL, msg,
                     msg_cap);
}

/* Has zp a run's shape (tables and publics)? */
static int run_shape(const gs_multi_proof *mp) {
    return mp->num_tables == ZK_T_NUM && mp->tables[ZK_T_CPU].num_public == ZK_CPU_NUM_PUBLIC &&
           mp->tables[ZK_T_IMAGE].num_public == ZK_IMAGE_NUM_PUBLIC &&
           mp->tables[ZK_T_FRESH].num_public == ZK_FRESH_NUM_PUBLIC &&
           mp->tables[ZK_T_IO].num_public == ZK_IO_NUM_PUBLIC;
}

/* The claim as the publics state it (values reduced to the claim's widths:
 * the verifier checks the ranges before it trusts them). */
static void claim_of(gs_zkvm_claim *out, const gs_multi_proof *mp) {
    const gs_fp *pub = mp->tables[ZK_T_CPU].pub, *ipub = mp->tables[ZK_T_IMAGE].pub;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < 8; i++) {
        zk_st32(out->program.b + 4 * i, (uint32_t)pub[ZK_PUB_PROGRAM + i]);
        zk_st32(out->input.b + 4 * i, (uint32_t)pub[ZK_PUB_INPUT + i]);
        zk_st32(out->output.b + 4 * i, (uint32_t)pub[ZK_PUB_OUTPUT + i]);
    }
    out->entry = (uint32_t)pub[ZK_PUB_ENTRY];
    out->exit_code = (uint32_t)pub[ZK_PUB_EXIT_CODE];
    out->cycles = pub[ZK_PUB_CYCLES];
    out->exited = (uint32_t)pub[ZK_PUB_EXITED];
    out->start.pc = (uint32_t)pub[ZK_PUB_START_PC];
    out->start.clk = pub[ZK_PUB_START_CLK];
    out->end.pc = (uint32_t)pub[ZK_PUB_END_PC];
    out->end.clk = pub[ZK_PUB_CYCLES];
    for (unsigned r = 0; r < 32; r++) {
        out->start.regs[r] = (uint32_t)ipub[ZK_IMAGE_PUB_START + r];
        out->end.regs[r] = (uint32_t)ipub[ZK_IMAGE_PUB_END + r];
    }
    out->start.input_pos = ipub[ZK_IMAGE_PUB_START + ZK_CURSOR_ADDR];
    out->end.input_pos = ipub[ZK_IMAGE_PUB_END + ZK_CURSOR_ADDR];
}

gs_status gs_zkvm_proof_claim(gs_zkvm_claim *out, const gs_zkvm_proof *zp) {
    if (!out || !zp || !zp->proof) return GS_ERR_INVALID_ARG;
    if (!run_shape(zp->proof)) return GS_ERR_PROOF_STATEMENT;
    claim_of(out, zp->proof);
    return GS_OK;
}

/* ---- verifying ---- */

/* The state publics' ranges and their agreement across tables; NULL if
 * they hold, else what is wrong. */
static const char *state_publics_bad(const gs_multi_proof *mp, const gs_zkvm_program *p,
                                     const gs_zkvm_proof *zp) {
    const gs_fp *cpu = mp->tables[ZK_T_CPU].pub, *img = mp->tables[ZK_T_IMAGE].pub,
                *fresh = mp->tables[ZK_T_FRESH].pub;
    const uint64_t text_hi = (uint64_t)p->text_lo + 4ull * p->n;
    if (cpu[ZK_PUB_EXITED] > 1) return "its exit flag is not 0 or 1";
    if (cpu[ZK_PUB_EXIT_CODE] > UINT32_MAX || (!cpu[ZK_PUB_EXITED] && cpu[ZK_PUB_EXIT_CODE]))
        return "its exit code is out of range (or set on a run that did not exit)";
    if (cpu[ZK_PUB_START_CLK] >= ZK_MAX_START_CLK || cpu[ZK_PUB_CYCLES] <= cpu[ZK_PUB_START_CLK] ||
        cpu[ZK_PUB_CYCLES] - cpu[ZK_PUB_START_CLK] >= ((uint64_t)1 << GS_ZKVM_MAX_LOG_ROWS))
        return "its start clk or cycle count is out of range";
    if (img[ZK_IMAGE_PUB_CLK0] != cpu[ZK_PUB_START_CLK] || fresh[ZK_FRESH_PUB_CLK0] != cpu[ZK_PUB_START_CLK])
        return "its tables disagree on the start clk";
    const gs_fp pcs[2] = {cpu[ZK_PUB_START_PC], cpu[ZK_PUB_END_PC]};
    for (unsigned i = 0; i < 2; i++)
        if ((pcs[i] & 3) || pcs[i] < p->text_lo || pcs[i] > text_hi)
            return "its start or end pc is not an instruction address of the program";
    /* Only an exit may end just past the text (pc + 4 of an ecall in the last
     * word). The AIR never fetches the pc after the last row, and a jump to
     * text_hi faults in the executor, so a segment ending there could claim
     * a jump that never completes (found 2026-12-04). */
    if (pcs[0] == text_hi || (!cpu[ZK_PUB_EXITED] && pcs[1] == text_hi))
        return "its start pc, or the end pc of a run that did not exit, is just past the text "
               "(no instruction is there; a jump there faults)";
    for (unsigned r = 0; r < ZK_IMAGE_REGS; r++)
        if (img[ZK_IMAGE_PUB_START + r] > UINT32_MAX || img[ZK_IMAGE_PUB_END + r] > UINT32_MAX)
            return "a start or end register is not a 32-bit value";
    const gs_fp *st = img + ZK_IMAGE_PUB_START, *en = img + ZK_IMAGE_PUB_END;
    if (st[0] || en[0]) return "its x0 is not 0";
    if (st[ZK_CURSOR_ADDR + 1] || st[ZK_CURSOR_ADDR + 2] || en[ZK_CURSOR_ADDR + 1] != zp->out_len[0] ||
        en[ZK_CURSOR_ADDR + 2] != zp->out_len[1])
        return "its output positions disagree with the output it carries";
    if (st[ZK_CURSOR_ADDR] > en[ZK_CURSOR_ADDR] || en[ZK_CURSOR_ADDR] > zp->in_len)
        return "its input positions are out of range";
    return NULL;
}

static gs_status verify_run(gs_zkvm_claim *claim, const gs_zkvm_program *p, const gs_zkvm_proof *zp,
                            unsigned min_security_bits, int whole, char *msg, size_t msg_cap) {
    if (!p || !zp || !zp->proof || (zp->in_len && !zp->input) || (zp->out_len[0] && !zp->out[0]) ||
        (zp->out_len[1] && !zp->out[1]))
        return GS_ERR_INVALID_ARG;
    if (msg && msg_cap) msg[0] = 0;
    const gs_multi_proof *proof = zp->proof;
    if (proof->num_tables != ZK_T_NUM)
        return refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "a run's proof has %u tables, this one %u",
                      ZK_T_NUM, proof->num_tables);
    if (zp->in_len > GS_ZKVM_MAX_INPUT || zp->out_len[0] + zp->out_len[1] > GS_ZKVM_MAX_INPUT)
        return refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof's input or output is too large");
    if (!run_shape(proof))
        return refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof's public inputs do not have a run's shape");
    gs_zkvm_claim c;
    claim_of(&c, proof);

    gs_air *airs[ZK_T_NUM] = {0};
    zk_image im = {0};
    zk_table fx[ZK_T_NUM];
    memset(fx, 0, sizeof fx);
    zk_lookups *none = calloc(1, sizeof *none);
    uint32_t init[ZK_IMAGE_REGS];
    for (unsigned r = 0; r < ZK_IMAGE_REGS; r++)
        init[r] = (uint32_t)proof->tables[ZK_T_IMAGE].pub[ZK_IMAGE_PUB_START + r];
    gs_status s = none ? GS_OK : GS_ERR_NOMEM;
    if (s == GS_OK) s = zk_image_make(&im, p);
    if (s == GS_OK) s = airs_make(airs);
    if (s == GS_OK) s = zk_prog_fill(&fx[ZK_T_PROG], p, NULL);
    if (s == GS_OK) s = zk_image_fill(&fx[ZK_T_IMAGE], &im, init, NULL, NULL);
    if (s == GS_OK)
        s = zk_stream_fill(&fx[ZK_T_STREAM], zp->input, zp->in_len, zp->out[0], zp->out_len[0], zp->out[1],
                           zp->out_len[1], NULL);
    if (s == GS_OK) s = zk_range_fill(&fx[ZK_T_RANGE], none);
    if (s == GS_OK) s = zk_byte_fill(&fx[ZK_T_BYTE], none);
    if (s != GS_OK) goto out;

    /* The publics: what the program, the input and the outputs fix. */
    const gs_proof *cpu = &proof->tables[ZK_T_CPU], *fresh = &proof->tables[ZK_T_FRESH],
                   *io = &proof->tables[ZK_T_IO];
    gs_zkvm_claim want_c = c;
    want_c.program = gs_zkvm_program_fingerprint(p);
    want_c.input = gs_zkvm_input_digest(zp->input, zp->in_len);
    want_c.output = gs_zkvm_output_digest(zp->out[0], zp->out_len[0], zp->out[1], zp->out_len[1]);
    want_c.entry = p->entry;
    gs_fp want[ZK_CPU_NUM_PUBLIC];
    cpu_publics(want, &want_c);
    const char *which = NULL;
    if (cpu->pub[ZK_PUB_ENTRY] != want[ZK_PUB_ENTRY] ||
        memcmp(cpu->pub + ZK_PUB_PROGRAM, want + ZK_PUB_PROGRAM, 8 * sizeof *want) ||
        fresh->pub[ZK_FRESH_PUB_LO] != im.lo / 4 || fresh->pub[ZK_FRESH_PUB_HI] != im.hi / 4)
        which = "of another program (its fingerprint or entry differs from the program given)";
    else if (memcmp(cpu->pub + ZK_PUB_INPUT, want + ZK_PUB_INPUT, 8 * sizeof *want) ||
             io->pub[ZK_IO_PUB_IN_LEN] != zp->in_len)
        which = "of a run on another input than the one it carries";
    else if (memcmp(cpu->pub + ZK_PUB_OUTPUT, want + ZK_PUB_OUTPUT, 8 * sizeof *want))
        which = "of a run with another output than the one it carries";
    if (which) {
        s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof is %s", which);
        goto out;
    }

    /* The start and end states. */
    const char *bad = state_publics_bad(proof, p, zp);
    if (bad) {
        s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT, "the proof's state is invalid: %s", bad);
        goto out;
    }
    if (whole) {
        int reset = c.start.pc == p->entry && c.start.clk == 0 && c.start.input_pos == 0;
        for (unsigned r = 0; r < 32; r++) reset &= c.start.regs[r] == 0;
        if (!reset) {
            s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT,
                       "the proof is of a segment that does not start at the program's reset state "
                       "(pc 0x%08x, clk %llu), not of a whole run",
                       c.start.pc, (unsigned long long)c.start.clk);
            goto out;
        }
        if (!c.exited) {
            s = refuse(msg, msg_cap, GS_ERR_PROOF_STATEMENT,
                       "the proof is of a segment that stops at clk %llu without exiting, not of a "
                       "whole run", (unsigned long long)c.end.clk);
            goto out;
        }
    }

    /* Every fixed column, then the proof. */
    static const struct { unsigned table, cols; } fixed_tabs[5] = {
        {ZK_T_PROG, ZK_PROG_FIXED}, {ZK_T_IMAGE, ZK_IMAGE_FIXED}, {ZK_T_STREAM, ZK_STREAM_FIXED},
        {ZK_T_RANGE, ZK_RANGE_FIXED}, {ZK_T_BYTE, ZK_BYTE_FIXED}};
    gs_fixed_col fixed[ZK_PROG_FIXED + ZK_IMAGE_FIXED + ZK_STREAM_FIXED + ZK_RANGE_FIXED + ZK_BYTE_FIXED];
    size_t nf = 0;
    for (unsigned i = 0; i < 5; i++) {
        zk_table *t = &fx[fixed_tabs[i].table];
        for (uint32_t col = 0; col < fixed_tabs[i].cols; col++)
            fixed[nf++] = (gs_fixed_col){fixed_tabs[i].table, col, t->log_n, zk_col(t, col)};
    }
    s = gs_verify_multi_fixed((const gs_air *const *)airs, ZK_T_NUM, proof, fixed, nf, min_security_bits);
    if (s != GS_OK) {
        refuse(msg, msg_cap, s, "the proof does not verify: %s", gs_status_str(s));
        goto out;
    }
    if (claim) *claim = want_c;
out:
    for (unsigned t = 0; t < ZK_T_NUM; t++) zk_table_free(&fx[t]);
    free(none);
    airs_free(airs);
    zk_image_free(&im);
    return s;
}

gs_status gs_zkvm_verify(gs_zkvm_claim *claim, const gs_zkvm_program *p, const gs_zkvm_proof *zp,
                         unsigned min_security_bits, char *msg, size_t msg_cap) {
    return verify_run(claim, p, zp, min_security_bits, 1, msg, msg_cap);
}

gs_status gs_zkvm_verify_segment(gs_zkvm_claim *claim, const gs_zkvm_program *p,
                                 const gs_zkvm_proof *zp, unsigned min_security_bits, char *msg,
                                 size_t msg_cap) {
    return verify_run(claim, p, zp, min_security_bits, 0, msg, msg_cap);
}
