/* The RV32IM executor: the machine object, the system calls, fault
 * messages, the trace buffers, and the two instances of the interpreter
 * loop (exec_loop.h): the fast path and the trace-recording path. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/pages.h"
#include "zkvm/zkvm_int.h"

/* The steps reserved before a traced run: one proof's largest height
 * (128 MiB of address space, touched only as steps are written). */
#define ZK_TRACE_RESERVE ((uint64_t)1 << 22)

#define IN_MEMORY(buf, len) \
    ((buf) >= GS_ZKVM_MEM_LO && (uint64_t)(buf) + (len) <= GS_ZKVM_MEM_TOP)

const char *gs_zkvm_fault_str(gs_zkvm_fault f) {
    switch (f) {
    case GS_ZKVM_FAULT_NONE: return "no fault";
    case GS_ZKVM_FAULT_ILLEGAL: return "illegal instruction";
    case GS_ZKVM_FAULT_COMPRESSED: return "compressed instruction";
    case GS_ZKVM_FAULT_CSR: return "CSR or privileged instruction";
    case GS_ZKVM_FAULT_EBREAK: return "ebreak";
    case GS_ZKVM_FAULT_ECALL: return "unknown ecall";
    case GS_ZKVM_FAULT_ECALL_FD: return "ecall on a bad file descriptor";
    case GS_ZKVM_FAULT_ECALL_BUF: return "ecall buffer outside memory";
    case GS_ZKVM_FAULT_LOAD_MISALIGNED: return "misaligned load";
    case GS_ZKVM_FAULT_STORE_MISALIGNED: return "misaligned store";
    case GS_ZKVM_FAULT_LOAD_RANGE: return "load outside memory";
    case GS_ZKVM_FAULT_STORE_RANGE: return "store outside memory";
    case GS_ZKVM_FAULT_STORE_TEXT: return "store into the text";
    case GS_ZKVM_FAULT_JUMP_MISALIGNED: return "misaligned jump target";
    case GS_ZKVM_FAULT_JUMP_RANGE: return "jump outside the text";
    case GS_ZKVM_FAULT_FETCH: return "fetch outside the text";
    case GS_ZKVM_FAULT_OUTPUT_LIMIT: return "output limit exceeded";
    }
    return "unknown fault";
}

/* ---- the machine ---- */

gs_status gs_zkvm_vm_new(gs_zkvm_vm **out, const gs_zkvm_program *p, const uint8_t *input,
                         size_t len) {
    if (!out || !p || (len && !input)) return GS_ERR_INVALID_ARG;
    *out = NULL;
    gs_zkvm_vm *vm = calloc(1, sizeof *vm);
    if (!vm) return GS_ERR_NOMEM;
    vm->prog = p;
    /* Indexed by address; mapped lazily, so untouched pages cost nothing. */
    vm->mem = gs_zero_map(GS_ZKVM_MEM_TOP);
    vm->written = calloc(GS_ZKVM_MEM_TOP >> 12, 1);
    vm->input = malloc(len ? len : 1);
    if (!vm->mem || !vm->written || !vm->input) {
        gs_zkvm_vm_free(vm);
        return GS_ERR_NOMEM;
    }
    if (len) memcpy(vm->input, input, len);
    vm->in_len = len;
    for (size_t i = 0; i < p->nseg; i++)
        if (p->seg[i].filesz) memcpy(vm->mem + p->seg[i].vaddr, p->seg[i].data, p->seg[i].filesz);
    vm->pc_index = (p->entry - p->text_lo) / 4;
    vm->last.stop = GS_ZKVM_READY;
    *out = vm;
    return GS_OK;
}

void gs_zkvm_reset_state(gs_zkvm_state *out, const gs_zkvm_program *p) {
    memset(out, 0, sizeof *out);
    out->pc = p->entry;
}

void gs_zkvm_vm_get_state(const gs_zkvm_vm *vm, gs_zkvm_state *out) {
    memset(out, 0, sizeof *out);
    out->pc = gs_zkvm_vm_pc(vm);
    memcpy(out->regs, vm->x, sizeof out->regs);
    out->regs[0] = 0;
    out->clk = vm->cycles;
    out->input_pos = vm->in_pos;
}

#define ZK_PAGE 4096u

static int page_zero(const uint8_t *b) {
    uint64_t any = 0;
    for (unsigned i = 0; i < ZK_PAGE; i += 8) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        any |= v;
    }
    return any == 0;
}

gs_status gs_zkvm_vm_new_at(gs_zkvm_vm **out, const gs_zkvm_program *p, const uint8_t *input,
                            size_t len, const gs_zkvm_state *st, const uint8_t *mem) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = NULL;
    if (!p) return GS_ERR_INVALID_ARG;
    const uint32_t text_hi = p->text_lo + 4 * p->n;
    if (st && ((st->pc & 3) || st->pc < p->text_lo || st->pc > text_hi || st->regs[0] != 0 ||
               st->input_pos > len))
        return GS_ERR_INVALID_ARG;
    gs_zkvm_vm *vm = NULL;
    GS_TRY(gs_zkvm_vm_new(&vm, p, input, len));
    if (mem) /* everything but the text, which stays the program's */
        for (uint32_t a = GS_ZKVM_MEM_LO; a < GS_ZKVM_MEM_TOP; a += ZK_PAGE) {
            uint32_t lo = a, hi = a + ZK_PAGE;
            if (lo < text_hi && hi > p->text_lo) { /* the page holds text: copy around it */
                if (lo < p->text_lo) memcpy(vm->mem + lo, mem + (lo - GS_ZKVM_MEM_LO), p->text_lo - lo);
                if (hi > text_hi) memcpy(vm->mem + text_hi, mem + (text_hi - GS_ZKVM_MEM_LO), hi - text_hi);
                vm->written[lo >> 12] = 1;
                continue;
            }
            /* A page zero in both stays untouched (the machine's memory
             * maps lazily: a segment pays for the pages in use). */
            const uint8_t *src = mem + (lo - GS_ZKVM_MEM_LO);
            if (page_zero(src) && page_zero(vm->mem + lo)) continue;
            memcpy(vm->mem + lo, src, ZK_PAGE);
            vm->written[lo >> 12] = 1;
        }
    if (st) {
        vm->pc_index = (st->pc - p->text_lo) / 4;
        memcpy(vm->x, st->regs, sizeof st->regs);
        vm->cycles = st->clk;
        vm->in_pos = (size_t)st->input_pos;
    }
    *out = vm;
    return GS_OK;
}

void gs_zkvm_vm_free(gs_zkvm_vm *vm) {
    if (!vm) return;
    gs_zero_unmap(vm->mem, GS_ZKVM_MEM_TOP);
    free(vm->written);
    free(vm->input);
    free(vm->out[0].p);
    free(vm->out[1].p);
    free(vm);
}

const uint32_t *gs_zkvm_vm_regs(const gs_zkvm_vm *vm) { return vm->x; }
uint32_t gs_zkvm_vm_pc(const gs_zkvm_vm *vm) { return vm->prog->text_lo + 4 * vm->pc_index; }
uint64_t gs_zkvm_vm_cycles(const gs_zkvm_vm *vm) { return vm->cycles; }
const uint8_t *gs_zkvm_vm_memory(const gs_zkvm_vm *vm) { return vm->mem + GS_ZKVM_MEM_LO; }
uint64_t gs_zkvm_vm_input_pos(const gs_zkvm_vm *vm) { return vm->in_pos; }

const uint8_t *gs_zkvm_vm_output(const gs_zkvm_vm *vm, unsigned fd, size_t *len) {
    if (fd != 1 && fd != 2) {
        *len = 0;
        return NULL;
    }
    *len = vm->out[fd - 1].len;
    return vm->out[fd - 1].p;
}

gs_status gs_zkvm_vm_set_reg(gs_zkvm_vm *vm, unsigned reg, uint32_t value) {
    if (!vm || reg == 0 || reg > 31) return GS_ERR_INVALID_ARG;
    vm->x[reg] = value;
    return GS_OK;
}

gs_status gs_zkvm_vm_write(gs_zkvm_vm *vm, uint32_t addr, const void *buf, size_t len) {
    if (!vm || (len && !buf)) return GS_ERR_INVALID_ARG;
    if (len == 0) return GS_OK;
    const gs_zkvm_program *p = vm->prog;
    if (len > GS_ZKVM_MEM_TOP || !IN_MEMORY(addr, len)) return GS_ERR_INVALID_ARG;
    if (addr < p->text_lo + 4 * p->n && addr + len > p->text_lo) return GS_ERR_INVALID_ARG;
    memcpy(vm->mem + addr, buf, len);
    return GS_OK;
}

/* ---- system calls ---- */

typedef struct zk_ecall_info {
    gs_zkvm_fault fault;
    uint32_t addr;  /* the fd, buffer or number that faulted */
    uint32_t done;  /* bytes moved */
    uint64_t pos;   /* where in the stream */
} zk_ecall_info;

/* 0: go on; 1: the guest exited; -1: a fault (e says which). */
static int zk_ecall(gs_zkvm_vm *vm, uint32_t *x, zk_ecall_info *e) {
    uint32_t num = x[17], a0 = x[10], buf = x[11], len = x[12];
    const gs_zkvm_program *p = vm->prog;
    *e = (zk_ecall_info){.fault = GS_ZKVM_FAULT_NONE};
    switch (num) {
    case GS_ZKVM_SYS_EXIT: vm->last.exit_code = a0; return 1;
    case GS_ZKVM_SYS_WRITE: {
        if (a0 != 1 && a0 != 2) {
            e->fault = GS_ZKVM_FAULT_ECALL_FD, e->addr = a0;
            return -1;
        }
        if (len && !IN_MEMORY(buf, len)) {
            e->fault = GS_ZKVM_FAULT_ECALL_BUF, e->addr = buf;
            return -1;
        }
        zk_buf *o = &vm->out[a0 - 1];
        if ((uint64_t)vm->out[0].len + vm->out[1].len + len > GS_ZKVM_MAX_OUTPUT) {
            e->fault = GS_ZKVM_FAULT_OUTPUT_LIMIT, e->addr = len;
            return -1;
        }
        if (o->len + len > o->cap) {
            size_t cap = o->cap ? o->cap : 4096;
            while (cap < o->len + len) cap *= 2;
            uint8_t *q = realloc(o->p, cap);
            if (!q) { /* the host's failure, reported as the limit it is */
                e->fault = GS_ZKVM_FAULT_OUTPUT_LIMIT, e->addr = len;
                return -1;
            }
            o->p = q, o->cap = cap;
        }
        if (len) memcpy(o->p + o->len, vm->mem + buf, len);
        e->pos = o->len;
        o->len += len;
        e->done = len;
        x[10] = len;
        return 0;
    }
    case GS_ZKVM_SYS_READ: {
        if (a0 != 0) {
            e->fault = GS_ZKVM_FAULT_ECALL_FD, e->addr = a0;
            return -1;
        }
        /* Only the bytes the call writes must be writable memory: a buffer
         * longer than the input left is fine (the AIR sees only the bytes
         * moved, docs/zkvm.md "The ABI"). */
        size_t k = vm->in_len - vm->in_pos;
        if (k > len) k = len;
        if (k && (!IN_MEMORY(buf, k) ||
                  (buf < p->text_lo + 4 * p->n && (uint64_t)buf + k > p->text_lo))) {
            e->fault = GS_ZKVM_FAULT_ECALL_BUF, e->addr = buf;
            return -1;
        }
        if (k) memcpy(vm->mem + buf, vm->input + vm->in_pos, k);
        for (uint64_t a = buf; a < (uint64_t)buf + k; a = (a | 4095) + 1) vm->written[a >> 12] = 1;
        e->pos = vm->in_pos;
        vm->in_pos += k;
        e->done = (uint32_t)k;
        x[10] = (uint32_t)k;
        return 0;
    }
    default: e->fault = GS_ZKVM_FAULT_ECALL, e->addr = num; return -1;
    }
}

/* ---- stopping ---- */

static void zk_finish(gs_zkvm_vm *vm, gs_zkvm_result *res, gs_zkvm_stop stop, gs_zkvm_fault f,
                      uint32_t addr) {
    const gs_zkvm_program *p = vm->prog;
    gs_zkvm_result *r = &vm->last;
    uint32_t pc = p->text_lo + 4 * vm->pc_index;
    r->stop = stop;
    r->cycles = vm->cycles;
    r->fault = GS_ZKVM_FAULT_NONE;
    r->fault_pc = r->fault_addr = 0;
    r->msg[0] = 0;
    if (stop == GS_ZKVM_CYCLE_LIMIT) {
        snprintf(r->msg, sizeof r->msg, "pc 0x%08x: stopped after %llu cycles (the cycle limit)", pc,
                 (unsigned long long)vm->cycles);
    } else if (stop == GS_ZKVM_FAULT) {
        uint32_t w = p->words[vm->pc_index];
        char dis[48], what[160];
        gs_zkvm_disasm(dis, sizeof dis, w, pc);
        uint32_t lo = p->text_lo, hi = p->text_lo + 4 * p->n;
        if (f == GS_ZKVM_FAULT_JUMP_RANGE && addr == 0 && (w & 0x7F) != 0x67) {
            /* A branch or jal: the target is in the word. */
            addr = gs_zkvm_jump_target(w, pc);
            if (addr & 3) f = GS_ZKVM_FAULT_JUMP_MISALIGNED;
        }
        unsigned size = 1u << ((w >> 12) & 3);
        switch (f) {
        case GS_ZKVM_FAULT_ILLEGAL: snprintf(what, sizeof what, "illegal instruction 0x%08x", w); break;
        case GS_ZKVM_FAULT_COMPRESSED:
            snprintf(what, sizeof what,
                     "compressed instruction 0x%04x (the machine is RV32IM: build with "
                     "-march=rv32im)",
                     w & 0xFFFF);
            break;
        case GS_ZKVM_FAULT_CSR:
            snprintf(what, sizeof what, "CSR or privileged instruction 0x%08x (user level only)", w);
            break;
        case GS_ZKVM_FAULT_EBREAK: snprintf(what, sizeof what, "ebreak"); break;
        case GS_ZKVM_FAULT_ECALL:
            snprintf(what, sizeof what,
                     "unknown ecall %u in a7 (the machine has 63 read, 64 write, 93 exit)", addr);
            break;
        case GS_ZKVM_FAULT_ECALL_FD:
            snprintf(what, sizeof what, "%s fd %u (read takes fd 0, write fd 1 or 2)",
                     vm->x[17] == GS_ZKVM_SYS_READ ? "read from" : "write to", addr);
            break;
        case GS_ZKVM_FAULT_ECALL_BUF:
            snprintf(what, sizeof what, "%s buffer [0x%08x, +%u) outside memory%s",
                     vm->x[17] == GS_ZKVM_SYS_READ ? "read" : "write", addr, vm->x[12],
                     vm->x[17] == GS_ZKVM_SYS_READ ? " or in the text" : "");
            break;
        case GS_ZKVM_FAULT_LOAD_MISALIGNED:
        case GS_ZKVM_FAULT_STORE_MISALIGNED:
            snprintf(what, sizeof what, "misaligned %u-byte %s at 0x%08x", size,
                     f == GS_ZKVM_FAULT_LOAD_MISALIGNED ? "load" : "store", addr);
            break;
        case GS_ZKVM_FAULT_LOAD_RANGE:
        case GS_ZKVM_FAULT_STORE_RANGE:
            snprintf(what, sizeof what, "%s at 0x%08x outside memory [0x%08x, 0x%08x)",
                     f == GS_ZKVM_FAULT_LOAD_RANGE ? "load" : "store", addr, GS_ZKVM_MEM_LO,
                     GS_ZKVM_MEM_TOP);
            break;
        case GS_ZKVM_FAULT_STORE_TEXT:
            snprintf(what, sizeof what, "store at 0x%08x into the read-only text [0x%08x, 0x%08x)",
                     addr, lo, hi);
            break;
        case GS_ZKVM_FAULT_JUMP_MISALIGNED:
            snprintf(what, sizeof what, "jump to 0x%08x, not 4-byte aligned", addr);
            break;
        case GS_ZKVM_FAULT_JUMP_RANGE:
            snprintf(what, sizeof what, "jump to 0x%08x outside the text [0x%08x, 0x%08x)", addr, lo,
                     hi);
            break;
        case GS_ZKVM_FAULT_FETCH:
            snprintf(what, sizeof what, "no instruction at 0x%08x (outside the executable segments)",
                     addr);
            break;
        case GS_ZKVM_FAULT_OUTPUT_LIMIT:
            snprintf(what, sizeof what, "writing %u more bytes passes the output limit of %zu MiB",
                     addr, GS_ZKVM_MAX_OUTPUT >> 20);
            break;
        default: snprintf(what, sizeof what, "%s", gs_zkvm_fault_str(f)); break;
        }
        r->fault = f;
        r->fault_pc = pc;
        r->fault_addr = addr;
        if (f == GS_ZKVM_FAULT_FETCH)
            snprintf(r->msg, sizeof r->msg, "pc 0x%08x: %s", pc, what);
        else
            snprintf(r->msg, sizeof r->msg, "pc 0x%08x (%s): %s", pc, dis, what);
    }
    *res = *r;
}

/* ---- the trace ---- */

gs_status gs_zkvm_trace_new(gs_zkvm_trace **out) {
    if (!out) return GS_ERR_INVALID_ARG;
    *out = calloc(1, sizeof **out);
    return *out ? GS_OK : GS_ERR_NOMEM;
}

void gs_zkvm_trace_free(gs_zkvm_trace *t) {
    if (!t) return;
    gs_pages_free(t->steps);
    free(t->io);
    free(t);
}

void gs_zkvm_trace_clear(gs_zkvm_trace *t) {
    if (!t) return;
    t->n_steps = t->n_io = 0;
    t->clk0 = 0;
}

/* The steps live in the page cache's blocks (util/pages.h), not malloc's:
 * a freed trace's block, already touched, serves the next run of a resident
 * prover, so recording 4 M steps costs no page faults after the first
 * (mapping them fresh is most of a traced run: 128 MB of first touches).
 * Grown to at least `want` steps, doubling, the steps so far copied. */
static gs_status zk_trace_reserve(gs_zkvm_trace *t, uint64_t want) {
    if (want <= t->cap_steps) return GS_OK;
    uint64_t cap = t->cap_steps ? 2 * t->cap_steps : 4096;
    if (cap < want) cap = want;
    if (cap > SIZE_MAX / sizeof *t->steps) return GS_ERR_NOMEM;
    gs_zkvm_step *s = gs_pages_alloc((size_t)cap * sizeof *s);
    if (!s) return GS_ERR_NOMEM;
#ifdef MADV_NOHUGEPAGE
    /* Small pages for what is fresh: the steps are written once, in order,
     * and a huge page's first touch cost 4 times a small page's per byte
     * on the VMs measured (a first traced run of 1 M steps 0.095 s against
     * 0.016-0.033 s); cached pages, already touched, keep what they have. */
    uintptr_t lo = ((uintptr_t)s + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)s + (size_t)cap * sizeof *s) & ~(uintptr_t)4095;
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
#endif
    if (t->n_steps) memcpy(s, t->steps, (size_t)t->n_steps * sizeof *s);
    gs_pages_free(t->steps);
    t->steps = s, t->cap_steps = cap;
    return GS_OK;
}

static gs_status zk_trace_grow(gs_zkvm_trace *t) { return zk_trace_reserve(t, t->cap_steps + 1); }

static gs_status zk_trace_grow_io(gs_zkvm_trace *t) {
    uint64_t cap = t->cap_io ? 2 * t->cap_io : 64;
    if (cap > SIZE_MAX / sizeof *t->io) return GS_ERR_NOMEM;
    gs_zkvm_io *s = realloc(t->io, (size_t)cap * sizeof *s);
    if (!s) return GS_ERR_NOMEM;
    t->io = s, t->cap_io = cap;
    return GS_OK;
}

/* ---- the two paths ---- */

#define ZK_TRACED 0
#include "zkvm/exec_loop.h"
#undef ZK_TRACED
#define ZK_TRACED 1
#include "zkvm/exec_loop.h"
#undef ZK_TRACED

static int halted(gs_zkvm_vm *vm, gs_zkvm_result *res) {
    if (vm->last.stop != GS_ZKVM_EXITED && vm->last.stop != GS_ZKVM_FAULT) return 0;
    *res = vm->last;
    return 1;
}

gs_status gs_zkvm_vm_run(gs_zkvm_vm *vm, gs_zkvm_result *res, uint64_t max_cycles) {
    if (!vm || !res) return GS_ERR_INVALID_ARG;
    if (halted(vm, res)) return GS_OK;
    return zk_run_fast(vm, NULL, res, max_cycles);
}

gs_status gs_zkvm_vm_run_traced(gs_zkvm_vm *vm, gs_zkvm_trace *tr, gs_zkvm_result *res,
                                uint64_t max_cycles) {
    if (!vm || !tr || !res) return GS_ERR_INVALID_ARG;
    if (halted(vm, res)) return GS_OK;
    if (tr->n_steps == 0) tr->clk0 = vm->cycles;
    /* A new trace gets room for the whole run up front (mapped, touched
     * only as written), up to one proof's height; beyond that, and for a
     * trace that already has room, it grows by doubling. */
    uint64_t room = max_cycles < ZK_TRACE_RESERVE ? max_cycles : ZK_TRACE_RESERVE;
    if (tr->cap_steps == 0 && room && zk_trace_reserve(tr, room) != GS_OK) return GS_ERR_NOMEM;
    return zk_run_traced(vm, tr, res, max_cycles);
}
