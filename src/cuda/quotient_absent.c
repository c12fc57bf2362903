/* Built instead of src/cuda/quotient.cu when CUDA is not compiled in: every
 * entry point of src/cuda/quotient.h reports GS_ERR_NO_DEVICE. */
#include "cuda/quotient.h"

gs_status gs_cuda_quotient_eval(uint64_t *d_out, const uint64_t *d_lde, const uint64_t *d_aux_lde,
                                const gs_cuda_quotient_args *a, void *stream) {
    (void)d_out, (void)d_lde, (void)d_aux_lde, (void)a, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_quotient_eval_pieces(uint64_t *d_out, const uint64_t *lde, const uint64_t *aux_lde,
                                       const gs_cuda_quotient_args *a, uint64_t *const d_piece[2],
                                       size_t piece_rows, void *stream, void *copy_stream) {
    (void)d_out, (void)lde, (void)aux_lde, (void)a, (void)d_piece, (void)piece_rows, (void)stream,
        (void)copy_stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_quotient_eval_coeffs(uint64_t *d_out, const uint64_t *d_coeffs,
                                       const gs_cuda_quotient_args *a, uint64_t *d_slots,
                                       unsigned log_sub, void *stream) {
    (void)d_out, (void)d_coeffs, (void)a, (void)d_slots, (void)log_sub, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_trace_check(uint64_t *bad_row, const gs_cuda_air *air, const uint64_t *d_trace,
                              unsigned log_n, const gs_fp *pub, void *stream) {
    (void)bad_row, (void)air, (void)d_trace, (void)log_n, (void)pub, (void)stream;
    return GS_ERR_NO_DEVICE;
}

gs_status gs_cuda_aux_trace(uint64_t *d_aux, gs_fp3 *sigma, const gs_cuda_air *air,
                            const gs_cuda_bus *bus, const uint64_t *d_trace, unsigned log_n,
                            const gs_fp *pub, gs_fp3 z, gs_fp3 alpha, void *stream) {
    (void)d_aux, (void)sigma, (void)air, (void)bus, (void)d_trace, (void)log_n, (void)pub;
    (void)z, (void)alpha, (void)stream;
    return GS_ERR_NO_DEVICE;
}
