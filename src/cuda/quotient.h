/* The quotient evaluation and the LogUp aux trace on a CUDA device: the
 * device counterparts of the CPU backend's `quotient` and `logup_aux`
 * (src/backend/cpu.c, src/air/logup.c), equal to them value for value
 * (docs/protocol.md, "Quotient" and "Buses"). Internal to the CUDA backend;
 * plain C, no CUDA types.
 *
 * Pointers named d_* are device pointers on the calling thread's current
 * device; everything else (the AIR, the LogUp layout, the argument tables,
 * public inputs) is host memory and is copied to the device by the call.
 * `stream` is a cudaStream_t (NULL: the legacy default stream).
 *
 * Errors: GS_ERR_INVALID_ARG for what the CPU path rejects or could not
 * evaluate (NULL pointers, an AIR that is not finalized, a LogUp layout
 * that does not belong to the AIR, a boundary column or row out of range,
 * log_n + log_blowup > 32, a shift >= p or whose coset meets the trace
 * domain, a malformed program), checked before any device work;
 * GS_ERR_NOMEM for host memory; GS_ERR_CUDA when a CUDA call fails
 * (gs_cuda_last_error() says which), GS_ERR_NO_DEVICE without a device or
 * CUDA. On every error all device memory the call allocated is released
 * (stream-ordered) and the outputs are undefined. Sizes and contents of the
 * device buffers cannot be checked: they must match the shapes below. */
#ifndef GSTARK_CUDA_QUOTIENT_H
#define GSTARK_CUDA_QUOTIENT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* backend.h and the src/air headers it pulls in have no guards of their own */
#endif

#include "backend/backend.h"

/* d_out (3 Fp columns of N = 2^(log_n + log_blowup)) = the quotient over the
 * LDE coset, exactly the values of the CPU backend's quotient. d_lde: the
 * trace LDE, num_cols columns of N; d_aux_lde: the aux LDE, 3 * aux_cols
 * columns of N, or NULL when a->logup is NULL. The kernel is enqueued on
 * `stream`; the call waits for the small upload of its tables (programs,
 * constants, public inputs, alpha powers, boundary tables) to finish, so
 * work queued before it on the stream is finished too, but it does not wait
 * for the kernel. */
gs_status gs_cuda_quotient(uint64_t *d_out, const uint64_t *d_lde, const uint64_t *d_aux_lde,
                           const gs_quotient_args *a, void *stream);

/* d_aux (3 * L->aux_cols Fp columns of 2^log_n) = the LogUp aux trace and
 * *sigma its bus sum, exactly as gs_logup_aux_trace; d_trace is the main
 * trace on the device (num_cols columns of 2^log_n), pub on the host.
 * Returns when everything is done (it copies sigma back). GS_ERR_EXHAUSTED
 * if some fingerprint is zero, as the CPU (d_aux is then undefined). */
gs_status gs_cuda_logup_aux(uint64_t *d_aux, gs_fp3 *sigma, const gs_logup *L,
                            const gs_air *air, const uint64_t *d_trace, unsigned log_n,
                            const gs_fp *pub, gs_fp3 z, gs_fp3 alpha, void *stream);

#ifdef __cplusplus
}
#endif
#endif
