/* gs_batch_run: the batch pipeline (docs/batch.md, "Running a batch").
 *
 * It makes one resident prover per lane (gs_prover_new: on CUDA the device
 * budgets come from them), plans (plan.c), opens the store, writes the
 * partition (partition.c),
 * describes every claim and join to the scheduling engine (engine.h) as a
 * unit with its reservations, and plugs the work in as callbacks; the
 * engine alone decides what runs where and when. A claim's life:
 *
 *   execute  its key (from the statement, before any trace where it can be
 *            known without one); a stored proof under it is loaded,
 *            verified and reused; else the workload is built (and the key
 *            computed from it where it needed the trace, then looked up)
 *   prove    on the lane's prover, with the air_desc `gstark prove` writes,
 *            so the bytes are the command's; verified; put in the store
 *
 * A join loads its children's objects from the store (a proof whose bytes
 * are those its claim verified in this run is not verified again; other
 * bytes are), checks the boundaries between bisection halves, and stores
 * its aggregate object (aggregate.c). Failures are values: a unit that
 * fails is reported with its reason and the engine skips its dependants. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "backend/device.h"
#include "batch/engine.h"
#include "batch/run_internal.h"
#include "gstark/parallel.h"
#include "gstark/sched.h"
#include "gstark/size.h"
#include "gstark/verifier.h"

double bp_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_reason(bp_unit_state *u, gs_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_reason(bp_unit_state *u, gs_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->reason, sizeof u->reason, fmt, ap);
    va_end(ap);
    u->status = s;
}

/* A note about a unit that does not fail it (a corrupt object replaced):
 * on the log, after clearing the progress line. */
static void note(bp_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(bp_run *r, const char *fmt, ...) {
    FILE *f = r->cfg->warnings;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&r->out_mu);
    if (f == r->cfg->progress) bp_report_clear(r);
    fprintf(f, "%s\n", line);
    fflush(f);
    pthread_mutex_unlock(&r->out_mu);
}

static gs_digest hash_bytes(const uint8_t *b, size_t n) {
    gs_digest d;
    gs_keccak256(d.b, b, n);
    return d;
}

/* The fib public inputs of a proof's first and last tables. */
static void take_ends(bp_unit_state *u, const gs_proof *first, const gs_proof *last) {
    if (first->num_public != 4 || last->num_public != 4) return;
    memcpy(u->first_pub, first->pub, sizeof u->first_pub);
    memcpy(u->last_pub, last->pub, sizeof u->last_pub);
    u->has_ends = 1;
}

/* Verifies a proof payload of the claim; fills the statement and ends. */
static gs_status verify_payload(bp_run *r, const bp_node *n, bp_unit_state *u, uint32_t kind,
                                const uint8_t *data, size_t len) {
    gs_batch_shapes sh;
    GS_TRY(gs_batch_shapes_make(&sh, n->claim, NULL, 0));
    gs_status s;
    if (kind == GS_STORE_PROOF) {
        gs_proof *p = NULL;
        s = sh.n == 1 ? gs_proof_parse(&p, data, len) : GS_ERR_CORRUPT;
        if (s == GS_OK) s = gs_verify(sh.airs[0], p, r->cfg->min_security);
        if (s == GS_OK) {
            u->statement = gs_proof_statement_digest(p);
            if (n->claim->kind == GS_CLAIM_FIB) take_ends(u, p, p);
        }
        gs_proof_free(p);
    } else {
        gs_multi_proof *mp = NULL;
        s = gs_multi_proof_parse(&mp, data, len);
        if (s == GS_OK && mp->num_tables != sh.n) s = GS_ERR_PROOF_STATEMENT;
        if (s == GS_OK) s = gs_verify_multi((const gs_air *const *)sh.airs, sh.n, mp, r->cfg->min_security);
        if (s == GS_OK) {
            u->statement = gs_multi_proof_statement_digest(mp);
            if (n->claim->kind == GS_CLAIM_FIB) take_ends(u, &mp->tables[0], &mp->tables[mp->num_tables - 1]);
        }
        gs_multi_proof_free(mp);
    }
    gs_batch_shapes_free(&sh);
    return s;
}

/* Looks the claim's key up: 1 if a stored proof was verified and can be
 * reused; 0 to prove it (nothing stored, or a corrupt or invalid object,
 * which is reported and removed). */
static int try_reuse(bp_run *r, const bp_node *n, bp_unit_state *u) {
    uint32_t kind = 0;
    uint8_t *data = NULL;
    size_t len = 0;
    double t0 = bp_now();
    gs_status s = gs_store_get(r->store, &kind, &data, &len, &u->key);
    if (s == GS_ERR_NOT_FOUND) return 0;
    char path[512] = "";
    gs_store_object_path(r->store, path, sizeof path, &u->key);
    uint32_t want = n->multi ? GS_STORE_MULTI_PROOF : GS_STORE_PROOF;
    if (s == GS_OK && kind != want) s = GS_ERR_CORRUPT;
    if (s == GS_OK) s = verify_payload(r, n, u, kind, data, len);
    u->verify_s += bp_now() - t0;
    if (s == GS_OK) {
        u->kind = kind;
        u->payload_hash = hash_bytes(data, len);
        u->object_bytes = len;
        u->reused = 1;
        free(data);
        return 1;
    }
    free(data);
    if (s == GS_ERR_IO || s == GS_ERR_NOMEM) {
        note(r, "gstark: warning: claim '%s': reading %s: %s; proving it again", n->id, path,
             gs_status_str(s));
        return 0;
    }
    gs_status rm = gs_store_remove(r->store, &u->key);
    /* say what happened to it: a squatting non-empty directory cannot be
     * removed, and storing the new proof then fails (found by review) */
    note(r, "gstark: warning: claim '%s': the stored object %s is %s (%s): %s%s, proving it "
            "again", n->id, path, s == GS_ERR_CORRUPT ? "corrupt" : "not a valid proof",
         gs_status_str(s), rm == GS_OK ? "removed" : "could not be removed: ",
         rm == GS_OK ? "" : gs_status_str(rm));
    u->corrupt_replaced = 1;
    return 0;
}

/* ---- the engine's callbacks ---- */

static gs_status cb_lane_init(void *ctx, uint32_t lane) {
    bp_run *r = ctx;
    (void)lane;
    gs_threads_set_local(r->lanes.threads_per_lane);
    return GS_OK;
}

static void free_work(bp_unit_state *u) {
    if (!u->work) return;
    gs_proof_free(u->work->p);
    gs_multi_proof_free(u->work->mp);
    gs_multi_workload_free(&u->work->w);
    free(u->work);
    u->work = NULL;
}

/* A finisher's work runs with the finishers' share of the host threads. */
static void on_finisher(const bp_run *r) { gs_threads_set_local(r->fin_threads); }

static gs_status cb_execute(void *ctx, uint32_t unit, uint32_t lane) {
    bp_run *r = ctx;
    const bp_node *n = &r->plan.nodes[unit];
    bp_unit_state *u = &r->us[unit];
    if (lane == GS_ENGINE_NONE) on_finisher(r);
    if (n->refused) {
        set_reason(u, n->refuse_status, "%s", n->reason);
        return n->refuse_status;
    }
    double t0 = bp_now();
    bp_work *w = calloc(1, sizeof *w);
    if (!w) {
        set_reason(u, GS_ERR_NOMEM, "out of memory");
        return GS_ERR_NOMEM;
    }
    gs_status s = GS_OK;
    if (!u->has_key) {
        u->has_key = bp_claim_key_early(&u->key, n->claim, n->multi, &s);
        if (s != GS_OK) {
            free(w);
            set_reason(u, s, "its statement: %s", gs_status_str(s));
            return s;
        }
    }
    if (u->has_key && try_reuse(r, n, u)) {
        w->reused = 1;
    } else {
        s = gs_claim_workload(&w->w, n->claim);
        if (s != GS_OK) {
            free(w);
            set_reason(u, s, "building the trace: %s", gs_status_str(s));
            return s;
        }
        if (!u->has_key) {
            s = bp_claim_key_workload(&u->key, n->claim, &w->w, n->multi);
            if (s != GS_OK) {
                gs_multi_workload_free(&w->w);
                free(w);
                set_reason(u, s, "its statement: %s", gs_status_str(s));
                return s;
            }
            u->has_key = 1;
            if (try_reuse(r, n, u)) {
                gs_multi_workload_free(&w->w);
                w->reused = 1;
            }
        }
    }
    u->work = w;
    u->execute_s += bp_now() - t0;
    return GS_OK;
}

static void cb_discard(void *ctx, uint32_t unit, uint32_t lane) {
    bp_run *r = ctx;
    (void)lane;
    free_work(&r->us[unit]);
}

/* Proves the executed claim on the lane, as `gstark prove` proves it; the
 * proof waits in the work for finish. */
static gs_status prove_claim(bp_run *r, const bp_node *n, bp_unit_state *u, uint32_t lane) {
    bp_work *wk = u->work;
    gs_multi_workload *w = &wk->w;
    const bp_lanes *L = &r->lanes;
    uint32_t dev = L->lane_device[lane];
    int cuda = L->backend == GS_BACKEND_CUDA && dev != UINT32_MAX;
    gs_prover *pv = r->pv[lane];
    gs_prove_stats st = {0};
    gs_obs *obs = NULL;
    gs_status s = gs_obs_new(&obs);
    if (s != GS_OK) return s;
    /* The lane's prover meters its share of the device (or of the host,
     * where the budget covers the input traces too). A claim reserved more
     * than that share when it needs it (the engine holds the other lanes of
     * the device back), and the prover then runs its tables one at a time,
     * over its own budget but within the reservation: its warning about
     * that is no news, so it is not shown. */
    size_t need = n->prove_dev + (cuda ? 0 : n->exec_host);
    gs_obs_set_warning_stream(obs, need > r->pv_budget[lane] ? NULL : r->cfg->warnings);
    gs_prove_opts opts = {.stats = &st, .obs = obs};
    char desc[GS_SYNTH_MAX_TABLES][128];
    double t0 = bp_now();
    if (!n->multi) {
        s = gs_claim_air_desc(desc[0], sizeof desc[0], n->claim, 0);
        opts.air_desc = desc[0];
        if (s == GS_OK) s = gs_prover_prove(pv, &wk->p, w->tables[0].air, w->tables[0].trace,
                                            w->tables[0].log_n, w->tables[0].pub,
                                            &n->claim->params, &opts);
    } else {
        gs_table_input *in = calloc(w->num_tables, sizeof *in);
        s = in && w->num_tables <= GS_SYNTH_MAX_TABLES ? GS_OK : GS_ERR_NOMEM;
        for (uint32_t t = 0; s == GS_OK && t < w->num_tables; t++) {
            s = gs_claim_air_desc(desc[t], sizeof desc[t], n->claim, t);
            in[t] = (gs_table_input){.air = w->tables[t].air, .trace = w->tables[t].trace,
                                     .log_n = w->tables[t].log_n, .pub = w->tables[t].pub,
                                     .air_desc = desc[t]};
        }
        if (s == GS_OK) s = gs_prover_prove_multi(pv, &wk->mp, in, w->num_tables, &n->claim->params, &opts);
        free(in);
    }
    u->prove_s += bp_now() - t0;
    if (s != GS_OK) set_reason(u, s, "proving: %s", gs_status_str(s));
    /* Host bytes: on the CPU what the prover charged plus the traces it
     * covers; on CUDA (where the prover charges the device) the traces (the
     * proof's bytes are added by finish). */
    u->on_device = st.backend && !strcmp(st.backend, "cuda");
    u->peak_bytes = u->on_device ? n->exec_host : st.peak_bytes + st.input_bytes;
    u->device_peak_bytes = st.device_peak_bytes;
    u->device_busy_s = st.device_busy;
    if (st.cpu_fallbacks)
        note(r, "gstark: warning: claim '%s': %u table%s moved to the CPU after a device failure "
                "(%s)", n->id, st.cpu_fallbacks, st.cpu_fallbacks == 1 ? "" : "s", st.device_error);
    gs_obs_free(obs);
    return s;
}

/* Verifies the claim's proof and serializes it (on a finisher). */
static gs_status check_claim(bp_run *r, const bp_node *n, bp_unit_state *u, uint8_t **bytes,
                             size_t *len) {
    bp_work *wk = u->work;
    gs_multi_workload *w = &wk->w;
    double t0 = bp_now();
    gs_status s;
    if (!n->multi) {
        s = gs_verify(w->tables[0].air, wk->p, r->cfg->min_security);
    } else {
        const gs_air **airs = calloc(w->num_tables, sizeof *airs);
        s = airs ? GS_OK : GS_ERR_NOMEM;
        for (uint32_t t = 0; s == GS_OK && t < w->num_tables; t++) airs[t] = w->tables[t].air;
        if (s == GS_OK) s = gs_verify_multi(airs, w->num_tables, wk->mp, r->cfg->min_security);
        free(airs);
    }
    u->verify_s += bp_now() - t0;
    if (s != GS_OK) {
        set_reason(u, s, "its proof does not verify: %s", gs_status_str(s));
        return s;
    }
    s = n->multi ? gs_multi_proof_serialize(bytes, len, wk->mp) : gs_proof_serialize(bytes, len, wk->p);
    if (s != GS_OK) {
        set_reason(u, s, "serializing: %s", gs_status_str(s));
        return s;
    }
    if (!n->multi) {
        u->statement = gs_proof_statement_digest(wk->p);
        u->kind = GS_STORE_PROOF;
        if (n->claim->kind == GS_CLAIM_FIB) take_ends(u, wk->p, wk->p);
    } else {
        const gs_multi_proof *mp = wk->mp;
        u->statement = gs_multi_proof_statement_digest(mp);
        u->kind = GS_STORE_MULTI_PROOF;
        if (n->claim->kind == GS_CLAIM_FIB) take_ends(u, &mp->tables[0], &mp->tables[mp->num_tables - 1]);
    }
    if (u->on_device) u->peak_bytes += *len; /* and the proof */
    return GS_OK;
}

static gs_status cb_prove(void *ctx, uint32_t unit, uint32_t lane) {
    bp_run *r = ctx;
    const bp_node *n = &r->plan.nodes[unit];
    bp_unit_state *u = &r->us[unit];
    if (!u->work) {
        set_reason(u, GS_ERR_INVALID_ARG, "proving: no executed work");
        return GS_ERR_INVALID_ARG;
    }
    if (u->work->reused) return GS_OK;
    gs_status s = prove_claim(r, n, u, lane);
    /* The traces are not needed past the proof; the AIRs are, to verify it. */
    for (uint32_t t = 0; t < u->work->w.num_tables; t++) {
        free(u->work->w.tables[t].trace);
        u->work->w.tables[t].trace = NULL;
    }
    if (s != GS_OK) free_work(u);
    return s;
}

/* Stage 3, off the lane: verify the proof, store it. */
static gs_status cb_finish(void *ctx, uint32_t unit) {
    bp_run *r = ctx;
    const bp_node *n = &r->plan.nodes[unit];
    bp_unit_state *u = &r->us[unit];
    if (r->eng_fins) on_finisher(r);
    if (!u->work || u->work->reused) {
        free_work(u);
        return GS_OK;
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    gs_status s = check_claim(r, n, u, &bytes, &len);
    free_work(u);
    if (s == GS_OK) {
        double t0 = bp_now();
        s = gs_store_put(r->store, &u->key, u->kind, bytes, len);
        u->store_s += bp_now() - t0;
        if (s != GS_OK)
            set_reason(u, s, "storing its proof in %s: %s (the proof's statement is not the "
                             "claim's, or the store cannot be written)",
                       gs_store_dir(r->store), gs_status_str(s));
    }
    if (s == GS_OK) {
        u->payload_hash = hash_bytes(bytes, len);
        u->object_bytes = len;
    }
    free(bytes);
    return s;
}

/* Checks child i's stored object against what its unit verified in this
 * run: the same bytes need no second verification; other bytes (another
 * process stored another proof of the same statement) are verified. */
static gs_status check_child(bp_run *r, const bp_node *n, bp_unit_state *u, uint32_t child) {
    const bp_node *cn = &r->plan.nodes[child];
    bp_unit_state *cu = &r->us[child];
    uint32_t kind = 0;
    uint8_t *data = NULL;
    size_t len = 0;
    gs_status s = gs_store_get(r->store, &kind, &data, &len, &cu->key);
    if (s == GS_OK && kind != cu->kind) s = GS_ERR_CORRUPT;
    gs_digest h = s == GS_OK ? hash_bytes(data, len) : cu->payload_hash;
    if (s == GS_OK && memcmp(h.b, cu->payload_hash.b, 32) != 0) {
        if (cn->is_join) {
            bp_agg a;
            s = bp_agg_decode(&a, data, len);
            if (s == GS_OK && memcmp(a.root.b, cu->statement.b, 32) != 0) s = GS_ERR_CORRUPT;
            free(a.child);
        } else {
            bp_unit_state tmp = *cu;
            s = verify_payload(r, cn, &tmp, kind, data, len);
            if (s == GS_OK && memcmp(tmp.statement.b, cu->statement.b, 32) != 0)
                s = GS_ERR_PROOF_STATEMENT;
        }
    }
    free(data);
    if (s != GS_OK)
        set_reason(u, s, "%s '%s': its stored object: %s", cn->is_join ? "join" : "claim", cn->id,
                   gs_status_str(s));
    (void)n;
    return s;
}

static void fmt_state(char *out, size_t cap, const gs_fp *pub, int next) {
    gs_fp x[2] = {pub[0], pub[1]};
    if (next) gs_fib_next_state(x, pub, 4);
    snprintf(out, cap, "(%llu, %llu)", (unsigned long long)x[0], (unsigned long long)x[1]);
}

static gs_status cb_join(void *ctx, uint32_t unit, uint32_t lane) {
    bp_run *r = ctx;
    const bp_node *n = &r->plan.nodes[unit];
    bp_unit_state *u = &r->us[unit];
    if (lane == GS_ENGINE_NONE) on_finisher(r);
    double t0 = bp_now();
    bp_agg a = {.flags = n->split ? BP_AGG_SPLIT : 0, .n = n->num_children};
    a.child = calloc(n->num_children, sizeof *a.child);
    gs_digest *keys = calloc(n->num_children, sizeof *keys);
    gs_status s = a.child && keys ? GS_OK : GS_ERR_NOMEM;
    if (s != GS_OK) set_reason(u, s, "out of memory");
    for (uint32_t i = 0; s == GS_OK && i < n->num_children; i++) {
        uint32_t c = n->children[i];
        s = check_child(r, n, u, c);
        a.child[i] = (bp_agg_child){r->us[c].kind, r->us[c].key, r->us[c].statement};
        keys[i] = r->us[c].key;
    }
    /* Bisection halves: each starts where the one before leads; the first
     * of a claim's whole chain starts at the claim's start. */
    for (uint32_t i = 0; s == GS_OK && n->split && i < n->num_children; i++) {
        const bp_unit_state *cu = &r->us[n->children[i]];
        const char *cid = r->plan.nodes[n->children[i]].id;
        if (!cu->has_ends) {
            s = GS_ERR_PROOF_STATEMENT;
            set_reason(u, s, "'%s' carries no fib boundary", cid);
            break;
        }
        if (i == 0) {
            const gs_claim *oc = &r->m->claims[n->origin];
            int top = !strcmp(n->id, oc->id);
            if (top && (cu->first_pub[0] != oc->w.fib.start[0] || cu->first_pub[1] != oc->w.fib.start[1])) {
                char got[64];
                fmt_state(got, sizeof got, cu->first_pub, 0);
                s = GS_ERR_PROOF_STATEMENT;
                set_reason(u, s, "boundary check failed: '%s' starts at %s, not at claim '%s''s start",
                           cid, got, oc->id);
            }
            continue;
        }
        const bp_unit_state *pu = &r->us[n->children[i - 1]];
        s = gs_fib_check_boundary(pu->last_pub, 4, cu->first_pub, 4);
        a.checks += s == GS_OK;
        if (s != GS_OK) {
            char lead[64], got[64];
            fmt_state(lead, sizeof lead, pu->last_pub, 1);
            fmt_state(got, sizeof got, cu->first_pub, 0);
            set_reason(u, s, "boundary check failed: '%s' leads to %s but '%s' starts at %s",
                       r->plan.nodes[n->children[i - 1]].id, lead, cid, got);
        }
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (s == GS_OK) {
        if (n->split) {
            memcpy(a.first_pub, r->us[n->children[0]].first_pub, sizeof a.first_pub);
            memcpy(a.last_pub, r->us[n->children[n->num_children - 1]].last_pub, sizeof a.last_pub);
            memcpy(u->first_pub, a.first_pub, sizeof a.first_pub);
            memcpy(u->last_pub, a.last_pub, sizeof a.last_pub);
            u->has_ends = 1;
        }
        a.root = bp_agg_root(a.child, a.n);
        s = bp_agg_encode(&bytes, &len, &a);
        if (s != GS_OK) set_reason(u, s, "encoding its aggregate: %s", gs_status_str(s));
    }
    u->verify_s += bp_now() - t0;
    if (s == GS_OK) {
        /* the flags in the key: a bisection join's object (with the chain's
         * ends) differs from an ordinary join's over the same children
         * (found by review, 2026-12-04: both had one key and replaced
         * each other's object) */
        u->key = gs_store_key_join_flags(GS_BATCH_AGG_FORMAT, a.flags, keys, n->num_children);
        u->has_key = 1;
        u->kind = GS_STORE_JOIN;
        u->statement = a.root;
        u->payload_hash = hash_bytes(bytes, len);
        u->object_bytes = len;
        /* The same object stored before: reused; anything else is replaced. */
        double t1 = bp_now();
        uint32_t kind = 0;
        uint8_t *old = NULL;
        size_t olen = 0;
        gs_status g = gs_store_get(r->store, &kind, &old, &olen, &u->key);
        if (g == GS_OK && kind == GS_STORE_JOIN && olen == len && !memcmp(old, bytes, len)) {
            u->reused = 1;
        } else {
            if (g == GS_ERR_CORRUPT || g == GS_OK) {
                char path[512] = "";
                gs_store_object_path(r->store, path, sizeof path, &u->key);
                note(r, "gstark: warning: join '%s': the stored object %s is %s: replaced", n->id,
                     path, g == GS_OK ? "not this join's aggregate" : "corrupt");
                u->corrupt_replaced = 1;
            }
            s = gs_store_put(r->store, &u->key, GS_STORE_JOIN, bytes, len);
            if (s != GS_OK) set_reason(u, s, "storing its aggregate: %s", gs_status_str(s));
        }
        free(old);
        u->store_s += bp_now() - t1;
    }
    free(bytes);
    free(a.child);
    free(keys);
    return s;
}

static void cb_unit_done(void *ctx, uint32_t unit, const gs_engine_unit_info *info) {
    bp_run *r = ctx;
    const bp_node *n = &r->plan.nodes[unit];
    bp_unit_state *u = &r->us[unit];
    gs_batch_unit *o = &r->res->units[unit];
    free_work(u); /* a unit cancelled without discard (never: the engine discards) */
    o->lane = info->lane != GS_ENGINE_NONE ? (int)info->lane : info->exec_lane != GS_ENGINE_NONE ? (int)info->exec_lane : -1;
    o->device = info->device != GS_ENGINE_NONE ? (int)info->device : -1;
    o->wait_s = (double)info->wait_ns * 1e-9;
    o->execute_s = u->execute_s;
    o->prove_s = n->is_join ? (double)info->prove_ns * 1e-9 : u->prove_s;
    o->verify_s = u->verify_s;
    o->store_s = u->store_s;
    o->reserved_bytes = info->host_bytes + info->dev_bytes; /* the most it held at once */
    o->object_bytes = u->object_bytes;
    o->peak_bytes = u->peak_bytes;
    o->device_peak_bytes = u->device_peak_bytes;
    o->device_busy_s = u->device_busy_s;
    o->has_key = u->has_key;
    o->key = u->key;
    o->corrupt_replaced = u->corrupt_replaced;
    r->res->corrupt += u->corrupt_replaced != 0;
    switch (info->outcome) {
    case GS_ENGINE_DONE:
        o->outcome = u->reused ? GS_BATCH_REUSED : GS_BATCH_PROVEN;
        o->status = GS_OK;
        break;
    case GS_ENGINE_FAILED:
    case GS_ENGINE_REFUSED:
        o->outcome = n->refused ? GS_BATCH_REFUSED : info->outcome == GS_ENGINE_REFUSED
                                                         ? GS_BATCH_REFUSED : GS_BATCH_FAILED;
        o->status = n->refused ? n->refuse_status : info->status;
        if (n->refused || u->reason[0])
            snprintf(o->reason, sizeof o->reason, "%s", n->refused ? n->reason : u->reason);
        else if (info->outcome == GS_ENGINE_REFUSED)
            snprintf(o->reason, sizeof o->reason,
                     "its reservation (%zu bytes on the host, %zu on a device) fits no lane",
                     n->exec_host + n->prove_host, n->prove_dev);
        else
            snprintf(o->reason, sizeof o->reason, "%s", gs_status_str(info->status));
        break;
    case GS_ENGINE_SKIPPED: {
        o->outcome = GS_BATCH_SKIPPED;
        o->status = info->status;
        const bp_node *cn = info->cause < r->plan.n ? &r->plan.nodes[info->cause] : NULL;
        if (cn)
            snprintf(o->reason, sizeof o->reason, "%s '%s' %s", cn->is_join ? "join" : "claim",
                     cn->id, r->plan.nodes[info->cause].refused ? "was refused" : "failed");
        else
            snprintf(o->reason, sizeof o->reason, "a unit below it failed");
        break;
    }
    default:
        o->outcome = GS_BATCH_PENDING;
        o->status = info->status;
        snprintf(o->reason, sizeof o->reason, "%s", gs_engine_outcome_str(info->outcome));
        break;
    }
    switch (o->outcome) {
    case GS_BATCH_PROVEN: r->res->proven++; break;
    case GS_BATCH_REUSED: r->res->reused++; break;
    case GS_BATCH_FAILED: r->res->failed++; break;
    case GS_BATCH_REFUSED: r->res->refused++; break;
    case GS_BATCH_SKIPPED: r->res->skipped++; break;
    default: break;
    }
    r->units_done++;
    if (!n->is_join) r->claims_done++;
    pthread_mutex_lock(&r->out_mu);
    bp_report_unit(r, unit);
    bp_report_progress(r, 0);
    pthread_mutex_unlock(&r->out_mu);
}

/* ---- the run ---- */

/* Finisher threads: as configured, or 4 per lane (verify, store and the
 * joins take a small claim about three times its proof on the H200, and the
 * store's fsyncs wait rather than compute; the finishers execute the claims
 * too), at most the host's threads (at least 4); with device lanes, whose
 * provers leave the host's cores idle, every host thread. Each finisher's
 * work runs with threads / finishers threads (at least 1), so they do not
 * ask for more threads than the host has. */
static uint32_t finishers_for(const gs_batch_config *cfg, unsigned threads, uint32_t lanes,
                              int device_lanes) {
    if (cfg->finishers == GS_BATCH_FINISH_ON_LANE) return 0;
    if (cfg->finishers) return cfg->finishers;
    uint32_t cap = threads > 4 ? threads : 4, want = device_lanes ? cap : 4 * lanes;
    return want < cap ? want : cap;
}

static gs_status make_budget(bp_run *r) {
    const bp_lanes *L = &r->lanes;
    bp_budget *b = &r->budget;
    b->host = L->host_budget;
    b->host_proves = L->num_devices == 0;
    if (b->host_proves) {
        b->device = b->host;
        b->lanes_on_device = L->num_lanes;
        return GS_OK;
    }
    /* The largest device, and the lanes on it. */
    b->device = 0;
    for (unsigned d = 0; d < L->num_devices; d++) {
        if (L->lanes_on[d] && L->device_budget[d] >= b->device) {
            b->device = L->device_budget[d];
            b->lanes_on_device = L->lanes_on[d];
        }
    }
    return GS_OK;
}

/* One resident prover per lane, made before planning: on CUDA the
 * device budgets come from them (the prover's rule, per context and share).
 * On the host and on simulated devices a lane's prover meters its share of
 * its device's budget. */
static gs_status make_provers(bp_run *r, char *err, size_t err_len) {
    bp_lanes *L = &r->lanes;
    r->pv = calloc(L->num_lanes, sizeof *r->pv);
    r->pv_budget = calloc(L->num_lanes, sizeof *r->pv_budget);
    if (!r->pv || !r->pv_budget) return GS_ERR_NOMEM;
    int cuda = L->backend == GS_BACKEND_CUDA;
    if (cuda)
        for (unsigned d = 0; d < L->num_devices; d++) L->device_budget[d] = 0;
    for (unsigned i = 0; i < L->num_lanes; i++) {
        uint32_t d = L->lane_device[i];
        gs_prover_cfg pc = {.backend = cuda ? GS_BACKEND_CUDA : GS_BACKEND_CPU,
                            .threads = L->threads_per_lane};
        if (cuda) {
            pc.device = (int)d;
            pc.device_share = L->lanes_on[d];
        } else {
            size_t whole = d == UINT32_MAX ? L->host_budget : L->device_budget[d];
            unsigned on = d == UINT32_MAX ? L->num_lanes : L->lanes_on[d];
            pc.mem_budget = whole == SIZE_MAX ? GS_GATE_UNLIMITED : whole / (on ? on : 1);
            if (!pc.mem_budget) pc.mem_budget = 1;
        }
        gs_status s = gs_prover_new(&r->pv[i], &pc);
        if (s != GS_OK) {
            bp_err(err, err_len, "lane %u: making its prover%s: %s", i,
                   cuda ? " on a CUDA device" : "", gs_status_str(s));
            return s;
        }
        gs_prover_info info;
        gs_prover_get_info(&info, r->pv[i]);
        r->pv_budget[i] = cuda ? info.device_mem_budget : info.mem_budget;
        if (cuda) L->device_budget[d] += info.device_mem_budget;
    }
    return GS_OK;
}

static void fill_units(bp_run *r) {
    gs_batch_result *res = r->res;
    for (uint32_t i = 0; i < r->plan.n; i++) {
        const bp_node *n = &r->plan.nodes[i];
        gs_batch_unit *o = &res->units[i];
        snprintf(o->id, sizeof o->id, "%s", n->id);
        o->is_join = n->is_join;
        o->split = n->split;
        o->origin = n->origin;
        o->parent = n->parent;
        o->shards = n->shards;
        o->lane = o->device = -1;
        o->cells = n->cost.cells;
        o->fft_cost = n->cost.fft_cost;
        o->need_bytes = n->need;
        if (n->refused) {
            o->status = n->refuse_status;
            snprintf(o->reason, sizeof o->reason, "%s", n->reason);
        }
    }
    res->claims = r->plan.claims;
    res->joins = r->plan.joins;
    res->bisected = r->plan.bisected;
}

/* The timeline windows (backend/device.h) over the engine's run, one on
 * every CUDA device a lane uses: the device busy share of the batch. open[d]
 * says which opened; one that did not (another window is open on the
 * device, or the event could not be made) leaves its device unmeasured. */
static void windows_open(const bp_run *r, int *open) {
    const bp_lanes *L = &r->lanes;
    for (unsigned d = 0; d < L->num_devices; d++)
        open[d] = L->backend == GS_BACKEND_CUDA && L->lanes_on[d] &&
                  gs_device_window_begin((int)d) == GS_OK;
}

static void windows_close(bp_run *r, const int *open) {
    gs_batch_result *res = r->res;
    for (unsigned d = 0; d < r->lanes.num_devices; d++) {
        if (!open[d]) continue;
        double busy = 0, span = 0;
        gs_status s = gs_device_window_end((int)d, &busy, &span);
        if (s == GS_OK && res->device_time)
            res->device_time[d] = (gs_batch_device_time){.measured = 1, .busy_s = busy,
                                                         .span_s = span};
    }
}

static size_t peak_rss(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (size_t)ru.ru_maxrss * 1024;
}

void gs_batch_result_free(gs_batch_result *r) {
    if (!r) return;
    free(r->units);
    free(r->lane_busy_s);
    free(r->device_time);
    memset(r, 0, sizeof *r);
}

gs_status gs_batch_run(gs_batch_result *out, const gs_batch_config *cfg, char *err,
                       size_t err_len) {
    if (err && err_len) err[0] = 0;
    if (!out) return GS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!cfg || !cfg->manifest || !cfg->store_dir || !*cfg->store_dir) {
        bp_err(err, err_len, "a batch needs a manifest and a store directory");
        return GS_ERR_INVALID_ARG;
    }
    bp_run r = {.cfg = cfg, .m = cfg->manifest, .res = out, .t0 = bp_now(),
                .out_mu = PTHREAD_MUTEX_INITIALIZER};
    bp_partition *part = NULL;
    gs_engine *eng = NULL;
    gs_status s = bp_lanes_resolve(&r.lanes, cfg, err, err_len);
    if (s == GS_OK && cfg->partition_file) {
        s = bp_partition_read(&part, cfg->partition_file, r.m, err, err_len);
        if (s == GS_ERR_NOT_FOUND) s = GS_OK;
    }
    if (s == GS_OK) s = make_provers(&r, err, err_len);
    if (s == GS_OK) s = make_budget(&r);
    if (s == GS_OK) s = bp_plan_make(&r.plan, r.m, &r.budget, part, err, err_len);
    bp_partition_free(part);
    if (s == GS_OK) {
        out->units = calloc(r.plan.n, sizeof *out->units);
        r.us = calloc(r.plan.n, sizeof *r.us);
        if (!out->units || !r.us) s = GS_ERR_NOMEM;
    }
    if (s == GS_OK) {
        out->num_units = r.plan.n;
        out->lanes = r.lanes.num_lanes;
        out->devices = r.lanes.num_devices;
        if (out->devices &&
            !(out->device_time = calloc(out->devices, sizeof *out->device_time)))
            s = GS_ERR_NOMEM;
        fill_units(&r);
    }
    if (s == GS_OK) {
        s = gs_store_open(&r.store, cfg->store_dir);
        if (s != GS_OK)
            bp_err(err, err_len, "store %s: %s (%s)", cfg->store_dir, gs_status_str(s),
                   strerror(errno));
    }
    /* Written before anything is proven: a crash later keeps the plan. */
    if (s == GS_OK && cfg->partition_file)
        s = bp_partition_write(cfg->partition_file, &r.plan, r.m, &r.budget, err, err_len);
    gs_engine_unit *units = NULL;
    if (s == GS_OK && !(units = calloc(r.plan.n, sizeof *units))) s = GS_ERR_NOMEM;
    for (uint32_t i = 0; s == GS_OK && i < r.plan.n; i++) {
        bp_node *n = &r.plan.nodes[i];
        if (n->is_join) {
            /* Children's objects are loaded one at a time. */
            size_t most = 0;
            for (uint32_t k = 0; k < n->num_children; k++) {
                const bp_node *c = &r.plan.nodes[n->children[k]];
                size_t e = c->is_join ? BP_AGG_HEAD + (size_t)BP_AGG_CHILD * GS_JOIN_MAX_CHILDREN
                                      : c->proof_estimate;
                if (e > most) most = e;
            }
            n->prove_host = 2 * most;
            units[i] = (gs_engine_unit){.kind = GS_ENGINE_JOIN, .num_children = n->num_children,
                                        .children = n->children, .prove_host = n->prove_host};
        } else if (n->refused) {
            units[i] = (gs_engine_unit){.kind = GS_ENGINE_CLAIM, .exec_host = SIZE_MAX};
        } else {
            units[i] = (gs_engine_unit){.kind = GS_ENGINE_CLAIM, .exec_host = n->exec_host,
                                        .prove_host = n->prove_host, .prove_dev = n->prove_dev};
        }
    }
    gs_engine_callbacks cb = {.ctx = &r, .lane_init = cb_lane_init, .execute = cb_execute,
                              .prove = cb_prove, .finish = cb_finish, .join = cb_join,
                              .discard = cb_discard, .unit_done = cb_unit_done};
    gs_engine_config ec = {.host_budget = r.lanes.host_budget,
                           .num_devices = r.lanes.num_devices,
                           .device_budget = r.lanes.device_budget,
                           .num_lanes = r.lanes.num_lanes,
                           .lane_device = r.lanes.num_devices ? r.lanes.lane_device : NULL};
    unsigned host_threads = cfg->threads ? cfg->threads : gs_threads_get();
    ec.finishers = finishers_for(cfg, host_threads, r.lanes.num_lanes, r.lanes.backend == GS_BACKEND_CUDA);
    /* Claims executed ahead: two waiting per lane, and one executing on each
     * finisher (executes run there), each bounded by the host budget. */
    ec.queue_cap = 2 * r.lanes.num_lanes + ec.finishers;
    r.eng_fins = ec.finishers;
    r.fin_threads = ec.finishers && host_threads / ec.finishers ? host_threads / ec.finishers : 1;
    if (s == GS_OK) {
        s = gs_engine_new(&eng, &ec, &cb, units, r.plan.n);
        if (s != GS_OK) bp_err(err, err_len, "the scheduling engine: %s", gs_status_str(s));
    }
    free(units);
    if (s == GS_OK) {
        r.eng = eng;
        out->setup_s = bp_now() - r.t0;
        int win[GS_BATCH_MAX_SIM_DEVICES];
        windows_open(&r, win);
        s = gs_engine_run(eng);
        windows_close(&r, win);
        if (s != GS_OK) bp_err(err, err_len, "running the batch: %s", gs_status_str(s));
        pthread_mutex_lock(&r.out_mu);
        bp_report_progress(&r, 1);
        pthread_mutex_unlock(&r.out_mu);
        out->wall_s = bp_now() - r.t0;
        out->lane_busy_s = calloc(r.lanes.num_lanes, sizeof *out->lane_busy_s);
        for (uint32_t l = 0; out->lane_busy_s && l < r.lanes.num_lanes; l++) {
            gs_engine_lane_info li;
            if (gs_engine_lane_get(eng, &li, l) == GS_OK) out->lane_busy_s[l] = (double)li.busy_ns * 1e-9;
        }
        out->peak_rss_bytes = peak_rss();
        uint32_t root = r.plan.n - 1;
        if (r.plan.n && out->units[root].outcome != GS_BATCH_PENDING &&
            (out->units[root].outcome == GS_BATCH_PROVEN || out->units[root].outcome == GS_BATCH_REUSED)) {
            out->has_root = 1;
            out->root_key = out->units[root].key;
        }
        bp_report_end(&r);
    }
    gs_engine_free(eng);
    if (r.us)
        for (uint32_t i = 0; i < r.plan.n; i++) free_work(&r.us[i]);
    free(r.us);
    gs_store_close(r.store);
    bp_plan_free(&r.plan);
    for (unsigned i = 0; r.pv && i < r.lanes.num_lanes; i++) gs_prover_free(r.pv[i]);
    free(r.pv);
    free(r.pv_budget);
    return s;
}
