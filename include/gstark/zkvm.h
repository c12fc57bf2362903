/* The zkVM's machine: RISC-V RV32IM at user level (docs/zkvm.md).
 *
 * A program is a bounded memory image (its loadable segments) and an entry
 * point, made from an ELF32 file (gs_zkvm_load_elf) or from segments given in
 * memory (gs_zkvm_program_new). Its executable segments are decoded once into
 * a pre-decoded instruction array; the text is read-only.
 *
 * A machine (gs_zkvm_vm) runs a program on an input: the registers, the pc,
 * the memory image and the input and output streams. gs_zkvm_vm_run is the
 * fast path (no tracing); gs_zkvm_vm_run_traced records one gs_zkvm_step per
 * cycle for the AIR. Both share one definition of every instruction's
 * semantics and stop in the same state. A run stops when the guest exits
 * (ecall 93), faults (anything outside the machine: see gs_zkvm_fault) or
 * reaches its cycle limit; a machine stopped on its cycle limit can be run
 * further (the state in between is a segment boundary).
 *
 * Memory layout: addresses [GS_ZKVM_MEM_LO, GS_ZKVM_MEM_TOP) are memory,
 * zero where no segment puts bytes; everything else (the first 64 KiB
 * included) is outside and faults. The guest kit's linker script
 * (guest/gstark.ld) puts the text at GS_ZKVM_TEXT_BASE and the stack below
 * GS_ZKVM_MEM_TOP.
 *
 * System calls: ecall with a7 = 93 exit(a0), 64 write(fd a0 = 1 or 2, buf
 * a1, len a2) (returns len in a0), 63 read(fd a0 = 0, buf a1, len a2)
 * (returns the bytes read, 0 at the end of the input, in a0). */
#ifndef GSTARK_ZKVM_H
#define GSTARK_ZKVM_H

#include <stddef.h>
#include <stdint.h>

#include "gstark/hash.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GS_ZKVM_MEM_LO 0x00010000u    /* the lowest memory address */
#define GS_ZKVM_MEM_TOP 0x01000000u   /* one past the highest (16 MiB) */
#define GS_ZKVM_TEXT_BASE 0x00010000u /* where the guest kit links the text */
#define GS_ZKVM_STACK_BYTES 0x00100000u /* the guest kit's stack, below MEM_TOP */
#define GS_ZKVM_MAX_SEGMENTS 64u      /* loadable segments a program may have */
#define GS_ZKVM_MAX_ELF_BYTES ((size_t)64 << 20) /* the largest ELF file loaded */
#define GS_ZKVM_MAX_OUTPUT ((size_t)256 << 20)   /* bytes a run may write, all fds */
/* The system-call numbers (Linux's, a7). */
#define GS_ZKVM_SYS_READ 63u
#define GS_ZKVM_SYS_WRITE 64u
#define GS_ZKVM_SYS_EXIT 93u
/* Segment permissions (the ELF p_flags bits). */
#define GS_ZKVM_SEG_X 1u
#define GS_ZKVM_SEG_W 2u
#define GS_ZKVM_SEG_R 4u

/* ---- programs ---- */

typedef struct gs_zkvm_segment {
    uint32_t vaddr;        /* first address */
    uint32_t memsz;        /* bytes in memory; past filesz they are zero */
    const uint8_t *data;   /* filesz bytes (copied by gs_zkvm_program_new) */
    uint32_t filesz;
    uint32_t flags;        /* GS_ZKVM_SEG_* */
} gs_zkvm_segment;

typedef struct gs_zkvm_program gs_zkvm_program;

/* A program from segments. The rules (each refusal is GS_ERR_INVALID_ARG
 * with a message in msg, which may be NULL; msg_cap bytes, 160 are enough):
 * 1..GS_ZKVM_MAX_SEGMENTS segments, none empty; filesz <= memsz; every
 * segment inside [GS_ZKVM_MEM_LO, GS_ZKVM_MEM_TOP); no two overlap; at least
 * one executable segment, each 4-byte aligned and not writable; no
 * non-executable segment inside the span of the executable ones (the text,
 * which stays read-only); the entry 4-byte aligned, on a whole instruction
 * word of an executable segment. GS_ERR_NOMEM when memory runs out. */
gs_status gs_zkvm_program_new(gs_zkvm_program **out, char *msg, size_t msg_cap,
                              const gs_zkvm_segment *segs, size_t n, uint32_t entry);
/* A program from an ELF32 file: ELFCLASS32, little-endian, EV_CURRENT,
 * ET_EXEC, EM_RISCV, no RVC flag and the soft-float ABI (the machine is
 * RV32IM); program headers inside the file, 32 bytes each; no PT_DYNAMIC or
 * PT_INTERP (statically linked only); PT_LOAD segments with their file bytes
 * inside the file, p_align 0 or a power of two with p_vaddr = p_offset mod
 * p_align; then the rules of gs_zkvm_program_new (empty PT_LOAD segments are
 * skipped). Files above GS_ZKVM_MAX_ELF_BYTES are refused. Every malformed
 * input is GS_ERR_INVALID_ARG with a message, never a crash. */
gs_status gs_zkvm_load_elf(gs_zkvm_program **out, char *msg, size_t msg_cap, const uint8_t *elf,
                           size_t len);
void gs_zkvm_program_free(gs_zkvm_program *p); /* NULL is a no-op */

typedef struct gs_zkvm_program_info {
    uint32_t entry;
    uint32_t text_lo;      /* the text: the span of the executable segments */
    uint32_t text_words;   /* instruction slots in it */
    uint32_t segments;
    uint64_t image_bytes;  /* sum of the segments' memsz */
} gs_zkvm_program_info;
void gs_zkvm_program_get_info(const gs_zkvm_program *p, gs_zkvm_program_info *out);
/* The segments (n of them, by increasing address; data points into the
 * program). */
const gs_zkvm_segment *gs_zkvm_program_segments(const gs_zkvm_program *p, size_t *n);

/* ---- running ---- */

typedef enum gs_zkvm_stop {
    GS_ZKVM_READY = 0,       /* not run yet */
    GS_ZKVM_EXITED = 1,      /* the guest called exit: exit_code */
    GS_ZKVM_FAULT = 2,       /* stopped on a fault: fault, fault_pc, msg */
    GS_ZKVM_CYCLE_LIMIT = 3  /* reached max_cycles first; can be run further */
} gs_zkvm_stop;

typedef enum gs_zkvm_fault {
    GS_ZKVM_FAULT_NONE = 0,
    GS_ZKVM_FAULT_ILLEGAL = 1,          /* not an RV32IM instruction (fence.i included) */
    GS_ZKVM_FAULT_COMPRESSED = 2,       /* a compressed (RVC) instruction */
    GS_ZKVM_FAULT_CSR = 3,              /* a CSR or privileged SYSTEM instruction */
    GS_ZKVM_FAULT_EBREAK = 4,
    GS_ZKVM_FAULT_ECALL = 5,            /* a7 is not 63, 64 or 93 */
    GS_ZKVM_FAULT_ECALL_FD = 6,         /* read from an fd other than 0, write other than 1, 2 */
    GS_ZKVM_FAULT_ECALL_BUF = 7,        /* the bytes a write reads or a read writes outside memory (or, read, in the text) */
    GS_ZKVM_FAULT_LOAD_MISALIGNED = 8,
    GS_ZKVM_FAULT_STORE_MISALIGNED = 9,
    GS_ZKVM_FAULT_LOAD_RANGE = 10,      /* a load outside memory */
    GS_ZKVM_FAULT_STORE_RANGE = 11,     /* a store outside memory */
    GS_ZKVM_FAULT_STORE_TEXT = 12,      /* a store into the (read-only) text */
    GS_ZKVM_FAULT_JUMP_MISALIGNED = 13, /* a jump or taken branch to an address not 4-aligned */
    GS_ZKVM_FAULT_JUMP_RANGE = 14,      /* a jump or taken branch outside the text */
    GS_ZKVM_FAULT_FETCH = 15,           /* execution ran past the text or into a gap in it */
    GS_ZKVM_FAULT_OUTPUT_LIMIT = 16     /* more than GS_ZKVM_MAX_OUTPUT bytes written */
} gs_zkvm_fault;

/* "illegal instruction", ... */
const char *gs_zkvm_fault_str(gs_zkvm_fault f);

typedef struct gs_zkvm_result {
    gs_zkvm_stop stop;
    uint32_t exit_code;    /* EXITED: a0 at the exit call (the full 32 bits) */
    uint64_t cycles;       /* instructions completed by the machine, all runs */
    gs_zkvm_fault fault;   /* FAULT */
    uint32_t fault_pc;     /* FAULT: the pc of the faulting instruction */
    uint32_t fault_addr;   /* FAULT: the address, target or number involved */
    char msg[256];         /* FAULT, CYCLE_LIMIT: "pc 0x00010234 (lw a0,4(a1)): ..." */
} gs_zkvm_result;

typedef struct gs_zkvm_vm gs_zkvm_vm;

/* A machine at the program's entry: its segments loaded, the registers zero,
 * the input copied (len bytes, may be 0). The program must outlive it. */
gs_status gs_zkvm_vm_new(gs_zkvm_vm **out, const gs_zkvm_program *p, const uint8_t *input,
                         size_t len);
void gs_zkvm_vm_free(gs_zkvm_vm *vm); /* NULL is a no-op */

/* Runs at most max_cycles further instructions (UINT64_MAX: no limit) and
 * fills *res. GS_OK whatever the guest did (exit, fault, limit: see res);
 * a machine that exited or faulted stays so. */
gs_status gs_zkvm_vm_run(gs_zkvm_vm *vm, gs_zkvm_result *res, uint64_t max_cycles);

/* ---- the trace (docs/zkvm.md, "The trace record") ----
 * One step per completed instruction, in order; the cycle (timestamp) of
 * steps[i] is clk0 + i. Fields a format does not use are 0:
 *   rs1_val, rs2_val  x[rs1], x[rs2] as read (when the instruction reads them)
 *   rd_val            the value written to x[rd]; 0 when rd is x0 or none
 *   mem_addr          loads and stores: the byte address
 *   mem_before/after  loads and stores: the aligned 32-bit word holding it,
 *                     before and after the access (equal for loads)
 * An ecall's step: rs1_val = a7, rs2_val = a0 (fd or exit code), rd_val = a0
 * after (the byte count for read and write, the exit code for exit),
 * mem_addr = a1 (buf), mem_before = a2 (len), mem_after = its io index + 1
 * (0 for exit). */
typedef struct gs_zkvm_step {
    uint32_t pc, insn;
    uint32_t rs1_val, rs2_val, rd_val;
    uint32_t mem_addr, mem_before, mem_after;
} gs_zkvm_step;

/* One read or write call: its arguments, the bytes moved and where they sit
 * in the input (read) or in that fd's output stream (write). */
typedef struct gs_zkvm_io {
    uint64_t clk;        /* the ecall's cycle */
    uint32_t num;        /* GS_ZKVM_SYS_READ or GS_ZKVM_SYS_WRITE */
    uint32_t fd, buf, len;
    uint32_t done;       /* bytes moved (returned in a0) */
    uint64_t stream_pos; /* offset of the first of them in the stream */
} gs_zkvm_io;

typedef struct gs_zkvm_trace {
    uint64_t clk0;        /* the cycle of steps[0] */
    gs_zkvm_step *steps;
    uint64_t n_steps;
    gs_zkvm_io *io;
    uint64_t n_io;
    uint64_t cap_steps, cap_io; /* allocated (internal) */
} gs_zkvm_trace;

gs_status gs_zkvm_trace_new(gs_zkvm_trace **out);
void gs_zkvm_trace_free(gs_zkvm_trace *t); /* NULL is a no-op */
/* Empties the trace and keeps its buffers, for the next segment. */
void gs_zkvm_trace_clear(gs_zkvm_trace *t);

/* gs_zkvm_vm_run with a step appended to tr per instruction (a read or write
 * call also appends to tr->io); same semantics and final state. An empty tr
 * takes clk0 from the machine's cycle count. GS_ERR_NOMEM when the trace
 * cannot grow (the machine then stops before the instruction it could not
 * record; res says CYCLE_LIMIT). */
gs_status gs_zkvm_vm_run_traced(gs_zkvm_vm *vm, gs_zkvm_trace *tr, gs_zkvm_result *res,
                                uint64_t max_cycles);

/* ---- the machine's state ---- */
/* A segment boundary: what a machine stopped on its cycle limit hands to the
 * next segment, besides its memory (docs/zkvm.md, "Segments"). */
typedef struct gs_zkvm_state {
    uint32_t pc;           /* the next instruction's address */
    uint32_t regs[32];     /* x0..x31 (x0 is 0) */
    uint64_t clk;          /* cycles completed before this state */
    uint64_t input_pos;    /* bytes of the input read before this state */
} gs_zkvm_state;
/* The reset state of p: pc = entry, registers zero, clk 0, input_pos 0. */
void gs_zkvm_reset_state(gs_zkvm_state *out, const gs_zkvm_program *p);
void gs_zkvm_vm_get_state(const gs_zkvm_vm *vm, gs_zkvm_state *out);
/* A machine at st (NULL: the reset state) with memory mem, the window
 * [GS_ZKVM_MEM_LO, GS_ZKVM_MEM_TOP) as gs_zkvm_vm_memory gives it (NULL:
 * the program's image; the text is always the program's), on the whole
 * input (len bytes, read from st->input_pos on), its output streams empty
 * (a segment's output is what it writes). Its cycle count starts at
 * st->clk. GS_ERR_INVALID_ARG for a pc that is not 4-aligned in the text
 * [text_lo, text_hi] (text_hi: running on faults there), x0 != 0 or an
 * input position past the input. */
gs_status gs_zkvm_vm_new_at(gs_zkvm_vm **out, const gs_zkvm_program *p, const uint8_t *input,
                            size_t len, const gs_zkvm_state *st, const uint8_t *mem);

/* x0..x31 (x0 is 0). */
const uint32_t *gs_zkvm_vm_regs(const gs_zkvm_vm *vm);
uint32_t gs_zkvm_vm_pc(const gs_zkvm_vm *vm);
uint64_t gs_zkvm_vm_cycles(const gs_zkvm_vm *vm);
/* The memory [GS_ZKVM_MEM_LO, GS_ZKVM_MEM_TOP): byte a at [a - GS_ZKVM_MEM_LO]. */
const uint8_t *gs_zkvm_vm_memory(const gs_zkvm_vm *vm);
/* The bytes written to fd 1 or 2 so far (NULL, *len 0 for another fd). */
const uint8_t *gs_zkvm_vm_output(const gs_zkvm_vm *vm, unsigned fd, size_t *len);
/* Bytes of the input read so far. */
uint64_t gs_zkvm_vm_input_pos(const gs_zkvm_vm *vm);
/* Before a run: sets x[reg] (1..31) or writes memory (inside memory, not in
 * the text). GS_ERR_INVALID_ARG otherwise. For tests and tools. */
gs_status gs_zkvm_vm_set_reg(gs_zkvm_vm *vm, unsigned reg, uint32_t value);
gs_status gs_zkvm_vm_write(gs_zkvm_vm *vm, uint32_t addr, const void *buf, size_t len);

/* The instruction in assembler syntax ("addi a0,a0,1", "lw a5,-4(s0)",
 * "illegal 0x00000000"); pc gives branch and jump targets. Returns out. */
char *gs_zkvm_disasm(char *out, size_t cap, uint32_t insn, uint32_t pc);

/* ---- proving runs (docs/zkvm.md, "Proving a run") ---- */

/* The tallest CPU table a proof holds: 2^GS_ZKVM_MAX_LOG_ROWS rows, one kept
 * for padding, so a run of at most 2^GS_ZKVM_MAX_LOG_ROWS - 1 cycles. */
#define GS_ZKVM_MAX_LOG_ROWS 22u

/* The most bytes of input, and of output (fd 1 and 2 together), a proof
 * carries (its stream table holds them as rows). */
#define GS_ZKVM_MAX_INPUT ((uint64_t)1 << 24)

/* What a run's proof states: the program (its fingerprint: a hash of the
 * entry, the text span and every segment's address, sizes and bytes) read
 * the input (its digest) and wrote the output (the digest of what fd 1 and
 * fd 2 received), then exited with exit_code after `cycles` instructions. */
typedef struct gs_zkvm_claim {
    gs_digest program, input, output;
    uint32_t entry;
    uint32_t exit_code;    /* 0 unless exited */
    uint64_t cycles;       /* the machine's cycle count at the end: end.clk */
    /* The run proven goes from start to end (docs/zkvm.md, "The statement"):
     * a whole run starts at the reset state and exited; a segment may start
     * elsewhere and stop on its cycle limit (exited 0: end.pc is the next
     * instruction's address; exited 1: the exit's pc + 4). output is what
     * this run wrote; start.input_pos and end.input_pos bound what it read. */
    gs_zkvm_state start, end;
    uint32_t exited;
} gs_zkvm_claim;

gs_digest gs_zkvm_program_fingerprint(const gs_zkvm_program *p);
gs_digest gs_zkvm_input_digest(const uint8_t *in, uint64_t len);
gs_digest gs_zkvm_output_digest(const uint8_t *out1, uint64_t len1, const uint8_t *out2,
                                uint64_t len2);
/* x0..x31 as 32 little-endian words, tagged: how tools print a state's
 * registers in one line (the proof carries the values themselves). */
gs_digest gs_zkvm_regs_digest(const uint32_t regs[32]);

/* A run's proof: the tables' multi-table proof, and the input and outputs
 * it is about (the verifier rebuilds the stream table from them; their
 * digests are public inputs of the proof). */
typedef struct gs_zkvm_proof {
    gs_multi_proof *proof;
    uint8_t *input;
    uint64_t in_len;
    uint8_t *out[2];     /* what fd 1 and fd 2 received */
    uint64_t out_len[2];
} gs_zkvm_proof;
void gs_zkvm_proof_free(gs_zkvm_proof *zp); /* NULL is a no-op */

/* The file form (docs/zkvm.md, "Proof files"): "GSZKVM01", the input and
 * the two outputs (each a little-endian u64 length and the bytes), then the
 * multi-table proof's bytes (gs_multi_proof_serialize). Parse refuses
 * anything else with GS_ERR_PROOF_FORMAT. */
gs_status gs_zkvm_proof_serialize(uint8_t **out, size_t *len, const gs_zkvm_proof *zp);
gs_status gs_zkvm_proof_parse(gs_zkvm_proof **out, const uint8_t *buf, size_t len);

/* Runs p on the input (at most max_cycles instructions; 0 or more than the
 * largest proof: that limit) with the trace recorded and proves the run as
 * one multi-table statement (gs_prove_multi with params and opts, which may
 * be NULL). The run must end by exit: a fault is GS_ERR_INVALID_ARG, a run
 * longer than one proof (or an input or output above GS_ZKVM_MAX_INPUT)
 * GS_ERR_UNSUPPORTED, each with the reason in msg; GS_ERR_AIR_UNSATISFIED
 * means the tables built from the run do not satisfy the AIR (a bug, with
 * the place in msg). claim may be NULL. */
gs_status gs_zkvm_prove(gs_zkvm_proof **out, gs_zkvm_claim *claim, const gs_zkvm_program *p,
                        const uint8_t *input, size_t in_len, uint64_t max_cycles,
                        const gs_params *params, const gs_prove_opts *opts, char *msg,
                        size_t msg_cap);

/* A provable-security target for a run's proof (gs_zkvm_prove_provable):
 * the parameters are chosen once the run's tables are built, when their
 * heights are known. */
typedef struct gs_zkvm_provable {
    unsigned bits;           /* at least this many bits provable, 1..GS_MAX_SECURITY_BITS */
    unsigned min_log_blowup; /* the blowups tried, 2^min..2^max (1..6); 0 and 0: 2..16 */
    unsigned max_log_blowup;
    gs_params chosen;        /* out: the parameters the proof was made with */
    unsigned reachable;      /* out, on GS_ERR_PROOF_PARAMS: the most bits any choice reaches */
} gs_zkvm_provable;

/* gs_zkvm_prove with the blowup and query count that reach target->bits
 * provable bits (gs_params_for_provable over the run's 13 tables) for the
 * smallest proof, the other parameters base's (NULL: the defaults).
 * GS_ERR_PROOF_PARAMS, with the numbers in msg, when no choice reaches it;
 * GS_ERR_INVALID_ARG for target NULL or its bits out of range. */
gs_status gs_zkvm_prove_provable(gs_zkvm_proof **out, gs_zkvm_claim *claim, const gs_zkvm_program *p,
                                 const uint8_t *input, size_t in_len, uint64_t max_cycles,
                                 const gs_params *base, gs_zkvm_provable *target,
                                 const gs_prove_opts *opts, char *msg, size_t msg_cap);

/* gs_zkvm_prove on a resident prover (gstark/prover.h): the same proof,
 * made on pv (its backend and budgets; opts as gs_prover_prove_multi takes
 * them), with the tables built in pv's host memory (gs_prover_host_alloc:
 * page-locked on a CUDA context, so they go up in one DMA each) and given
 * back to it after the proof, for the next one. One proof on pv at a time
 * (GS_ERR_INVALID_ARG for an overlapping call, or pv NULL). */
gs_status gs_zkvm_prove_on(gs_prover *pv, gs_zkvm_proof **out, gs_zkvm_claim *claim,
                           const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                           uint64_t max_cycles, const gs_params *params, const gs_prove_opts *opts,
                           char *msg, size_t msg_cap);

/* A segment: p run from start (NULL: the reset state) with memory the
 * program's image, on the whole input, for at most `cycles` instructions (0
 * or more than the largest proof: that limit), proven whether it exits or
 * stops on the limit (claim->exited says which). A fault is
 * GS_ERR_INVALID_ARG, and so is stopping on the limit at pc = text_hi (just
 * past the text: the next fetch faults; no segment ends there). The initial memory is always the program's image: a
 * later segment, whose memory is not, cannot be proven yet (docs/zkvm.md,
 * "Limits"). */
gs_status gs_zkvm_prove_segment(gs_zkvm_proof **out, gs_zkvm_claim *claim,
                                const gs_zkvm_program *p, const uint8_t *input, size_t in_len,
                                const gs_zkvm_state *start, uint64_t cycles,
                                const gs_params *params, const gs_prove_opts *opts, char *msg,
                                size_t msg_cap);

/* What zp claims, read from its public inputs without verifying anything
 * (for inspection: only gs_zkvm_verify says the claim holds).
 * GS_ERR_PROOF_STATEMENT if zp does not have a run's shape. */
gs_status gs_zkvm_proof_claim(gs_zkvm_claim *out, const gs_zkvm_proof *zp);

/* Verifies that zp proves a run of p (the verifier's own program: the
 * program's fixed columns are rebuilt from it) on zp's input with zp's
 * output, and fills claim with what it states (callers compare the input
 * and output with what they expect). GS_ERR_PROOF_STATEMENT for a proof of
 * another program, input or output, or of another shape; otherwise
 * gs_verify_multi_fixed's codes. msg says why. */
gs_status gs_zkvm_verify(gs_zkvm_claim *claim, const gs_zkvm_program *p, const gs_zkvm_proof *zp,
                         unsigned min_security_bits, char *msg, size_t msg_cap);
/* gs_zkvm_verify for a segment: the same checks, except that the run may
 * start at any state (its memory the program's image) and need not exit;
 * claim->start, end and exited say what was proven. gs_zkvm_verify is this
 * plus start = the reset state and exited = 1. */
gs_status gs_zkvm_verify_segment(gs_zkvm_claim *claim, const gs_zkvm_program *p,
                                 const gs_zkvm_proof *zp, unsigned min_security_bits, char *msg,
                                 size_t msg_cap);

#ifdef __cplusplus
}
#endif
#endif
