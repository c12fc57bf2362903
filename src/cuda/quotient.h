/* The quotient evaluation and the LogUp aux trace on a CUDA device: the
 * device counterparts of the CPU backend's `quotient` and `logup_aux`
 * (src/backend/cpu.c, src/air/logup.c), equal to them value for value
 * (docs/protocol.md, "Quotient" and "Buses"). Plain C, no CUDA types, and no
 * type of the layers above: the AIR arrives as the plain description below,
 * which src/backend/cuda.c makes from a gs_air and its gs_logup.
 *
 * Pointers named d_* are device pointers on the calling thread's current
 * device; everything else (the programs, the LogUp layout, the argument
 * tables, public inputs) is host memory and is copied to the device by the
 * call. `stream` is a cudaStream_t (NULL: the legacy default stream).
 *
 * Errors: GS_ERR_INVALID_ARG for what the CPU path rejects or could not
 * evaluate (NULL pointers, a LogUp layout that does not fit the interaction
 * program, a boundary column or row out of range, log_n + log_blowup > 32, a
 * shift >= p or whose coset meets the trace domain, a malformed program),
 * checked before any device work; GS_ERR_NOMEM for host memory; GS_ERR_CUDA
 * when a CUDA call fails (gs_cuda_last_error() says which), GS_ERR_NO_DEVICE
 * without a device or CUDA. On every error all device memory the call
 * allocated is released (stream-ordered) and the outputs are undefined.
 * Sizes and contents of the device buffers cannot be checked: they must
 * match the shapes below. */
#ifndef GSTARK_CUDA_QUOTIENT_H
#define GSTARK_CUDA_QUOTIENT_H

#include <stdint.h>

#include "gstark/field.h"
#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The AIR bytecode (src/air/air_internal.h, which src/backend/cuda.c checks
 * against these at compile time): 8-byte instructions {op, dst, a, b}.
 *   LOAD_CUR  dst, a = column        LOAD_NEXT dst, a = column
 *   LOAD_PUB  dst, a = public index  LOAD_CONST dst, a | b << 16 = pool index
 *   ADD/SUB/MUL dst, a, b (registers) NEG dst, a
 *   STORE     dst = output index, a = register */
enum {
    GS_CUDA_OP_LOAD_CUR, GS_CUDA_OP_LOAD_NEXT, GS_CUDA_OP_LOAD_PUB, GS_CUDA_OP_LOAD_CONST,
    GS_CUDA_OP_ADD, GS_CUDA_OP_SUB, GS_CUDA_OP_MUL, GS_CUDA_OP_NEG, GS_CUDA_OP_STORE
};

typedef struct gs_cuda_insn {
    uint16_t op, dst, a, b;
} gs_cuda_insn;

typedef struct gs_cuda_program {
    const gs_cuda_insn *insns;
    uint32_t n_insns;
    const gs_fp *consts;
    uint32_t n_consts;
    uint32_t n_regs; /* registers the program uses */
    uint32_t n_out;  /* outputs it stores */
} gs_cuda_program;

/* What the kernels need of an AIR. */
typedef struct gs_cuda_air {
    uint32_t num_cols, num_public;
    uint32_t n_trans;      /* transition constraints (trans's outputs; 0: none) */
    gs_cuda_program trans; /* the transition program */
    gs_cuda_program inter; /* the interaction program: per interaction m, then the tuple */
} gs_cuda_air;

/* The longest tuple a bus carries (GS_AIR_MAX_TUPLE). */
#define GS_CUDA_MAX_TUPLE 16u

/* One interaction (gs_air_inter): tuple width, direction and bus id. */
typedef struct gs_cuda_inter {
    uint32_t width;
    uint32_t receives; /* 1: sign -1 (receive), 0: send */
    uint64_t bus;      /* the bus id (its field element is gs_fp_from_u64(bus)) */
} gs_cuda_inter;

/* The LogUp layout (gs_logup, src/air/logup.h) with its interactions. */
typedef struct gs_cuda_bus {
    uint32_t n_inters, n_groups, n_outs;
    const uint32_t *group_first, *group_size; /* n_groups each */
    const uint32_t *out_off;                  /* n_inters: offset of m in inter's outputs */
    const gs_cuda_inter *inters;              /* n_inters */
} gs_cuda_bus;

/* What the quotient needs besides the LDE (gs_quotient_args). */
typedef struct gs_cuda_quotient_args {
    const gs_cuda_air *air;
    const gs_fp *pub; /* air->num_public values */
    unsigned log_n, log_blowup;
    unsigned log_step; /* the values at every 2^log_step-th point (<= log_blowup) */
    gs_fp shift;
    /* alpha^k weights: transitions, then boundaries, then (with bus) one
     * per LogUp group (the last group's is also the running sum's) */
    const gs_fp3 *alpha_pows;
    uint32_t n_bounds;
    const uint32_t *bound_cols;
    const uint64_t *bound_rows;
    const gs_fp *bound_vals;
    const gs_cuda_bus *bus; /* NULL: no LogUp */
    gs_fp3 bus_z, sigma;
    const gs_fp3 *bus_alpha_pows; /* bus alpha^0 .. alpha^GS_CUDA_MAX_TUPLE */
} gs_cuda_quotient_args;

/* d_out (3 Fp columns of N >> log_step, N = 2^(log_n + log_blowup)) = the
 * quotient at every 2^log_step-th point of the LDE coset, exactly the values
 * of the CPU backend's quotient. d_lde: the
 * trace LDE, num_cols columns of N; d_aux_lde: the aux LDE, 3 * n_groups
 * columns of N, or NULL when a->bus is NULL. The kernel is enqueued on
 * `stream`; the call waits for the small upload of its tables (programs,
 * constants, public inputs, alpha powers, boundary tables) to finish, so
 * work queued before it on the stream is finished too, but it does not wait
 * for the kernel. */
gs_status gs_cuda_quotient_eval(uint64_t *d_out, const uint64_t *d_lde, const uint64_t *d_aux_lde,
                                const gs_cuda_quotient_args *a, void *stream);
/* The same values from an LDE (and aux LDE) that lie outside the device,
 * in page-locked host memory (a buffer out of core): pieces of piece_rows
 * rows (a power of 2, 2^log_step <= piece_rows <= N), each with the next
 * rows of its last ones, are copied on copy_stream into d_piece[0] and
 * d_piece[1] in turn (device buffers of (num_cols + 3 n_groups) *
 * (piece_rows + 2^log_blowup) words each) while the kernel works on the
 * other one on `stream`. The copies start after the work queued on stream
 * before the call; the call returns with the kernels queued (stream's later
 * work follows them; the buffers may be freed stream-ordered on stream). */
gs_status gs_cuda_quotient_eval_pieces(uint64_t *d_out, const uint64_t *lde, const uint64_t *aux_lde,
                                       const gs_cuda_quotient_args *a, uint64_t *const d_piece[2],
                                       size_t piece_rows, void *stream, void *copy_stream);

/* The same values from the trace's coefficients on the device (num_cols
 * columns of n = 2^log_n), for a table without LogUp (a->bus NULL): an LDE
 * out of core is made again in parts instead of brought back over the bus.
 * The quotient's K n points (K = 2^(log_blowup - log_step)) are K cosets of
 * <w_n>, each cut into U = 2^log_sub (<= n) cosets of <w_m>, m = n / U. The
 * columns' values on sub-coset u go into slot u mod 2 of d_slots (2 num_cols
 * m words): the coefficients folded modulo x^m - s^m and scaled, then an NTT
 * of size m. The kernel takes sub-coset u's rows from one slot and their
 * next rows (x w_n, sub-coset u + 1's) from the other; for the last one
 * those are sub-coset U, the first one's points shifted by one. So K (U + 1)
 * sub-cosets are made, each reading every coefficient. Queued on `stream`
 * (the call waits only for the upload of the tables, as
 * gs_cuda_quotient_eval). */
gs_status gs_cuda_quotient_eval_coeffs(uint64_t *d_out, const uint64_t *d_coeffs,
                                       const gs_cuda_quotient_args *a, uint64_t *d_slots,
                                       unsigned log_sub, void *stream);

/* d_aux (3 * bus->n_groups Fp columns of 2^log_n) = the LogUp aux
 * trace and *sigma its bus sum, exactly as gs_logup_aux_trace; d_trace is
 * the main trace on the device (num_cols columns of 2^log_n), pub on the
 * host. Returns when everything is done (it copies sigma back).
 * GS_ERR_EXHAUSTED if some fingerprint is zero, as the CPU (d_aux is then
 * undefined). */
gs_status gs_cuda_aux_trace(uint64_t *d_aux, gs_fp3 *sigma, const gs_cuda_air *air,
                            const gs_cuda_bus *bus, const uint64_t *d_trace, unsigned log_n,
                            const gs_fp *pub, gs_fp3 z, gs_fp3 alpha, void *stream);

/* Check mode on the device: every transition constraint on rows 0 .. 2^log_n
 * - 2 of the trace d_trace (column-major, 2^log_n rows) against the next
 * row. *bad_row = the least row where one is not zero, or UINT64_MAX when all
 * hold. Boundary constraints are not checked here. */
gs_status gs_cuda_trace_check(uint64_t *bad_row, const gs_cuda_air *air, const uint64_t *d_trace,
                              unsigned log_n, const gs_fp *pub, void *stream);

/* Transitional: the same operations on the backend's types, defined in
 * src/backend/cuda.c (which adapts them to the functions above), declared
 * here only because tests/test_cuda_quotient.c calls them through this
 * header. The structs are named by tag, never defined here: src/cuda/ does
 * not include the layers above it. To move to a backend header once the
 * test includes one. */
struct gs_quotient_args;
struct gs_logup;
struct gs_air;
gs_status gs_cuda_quotient(uint64_t *d_out, const uint64_t *d_lde, const uint64_t *d_aux_lde,
                           const struct gs_quotient_args *a, void *stream);
gs_status gs_cuda_quotient_coeffs(uint64_t *d_out, const uint64_t *d_coeffs, uint64_t *d_slots,
                                  unsigned log_sub, const struct gs_quotient_args *a, void *stream);
gs_status gs_cuda_logup_aux(uint64_t *d_aux, gs_fp3 *sigma, const struct gs_logup *L,
                            const struct gs_air *air, const uint64_t *d_trace, unsigned log_n,
                            const gs_fp *pub, gs_fp3 z, gs_fp3 alpha, void *stream);

#ifdef __cplusplus
}
#endif
#endif
