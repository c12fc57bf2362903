/* The backend interface: everything the prover does to bulk data goes
 * through these operations, so a CUDA backend slots in without touching the
 * protocol code (docs/architecture.md gives the layers). Objects are
 * {iface, ctx}; buffers are opaque handles the prover never dereferences (on
 * CUDA they live on the device).
 *
 * Layouts (all column-major; an Fp3 column is three Fp columns c0, c1, c2):
 * - trace and LDE matrices: column c at offset c * rows;
 * - the quotient over the LDE domain and the DEEP word: 3 Fp columns;
 * - quotient chunks: 3 * K Fp columns, chunk j's c_i at column 3 j + i. */
#ifndef GSTARK_BACKEND_H
#define GSTARK_BACKEND_H

#include <stdint.h>

#include "air/logup.h"
#include "gstark/air.h"
#include "gstark/field.h"
#include "gstark/hash.h"
#include "gstark/mem.h"
#include "gstark/proof.h"
#include "gstark/prover.h"
#include "gstark/status.h"
#include "gstark/transcript.h"
#include "merkle/mixed.h"

typedef struct gs_buf {
    void *ptr;    /* backend-specific (host memory on the CPU backend) */
    size_t bytes;
    gs_mem *acct; /* charged with `bytes` while allocated (may be NULL) */
    /* CUDA: out of core, ptr is page-locked host memory the device reads
     * and writes over the bus (not charged: acct meters device bytes). */
    int host;
    /* With host: an extension not held anywhere (ptr NULL; alloc_unheld).
     * extend hashed its leaves as it made it, and its rows come from the
     * coefficients (gather_coeffs); no other operation takes it. */
    int unheld;
} gs_buf;

/* Whether `rows` rows of `cols` columns (cols >= 1) at stride col_stride lie in m. */
static inline int gs_rows_fit(const gs_buf *m, size_t cols, size_t col_stride, size_t rows) {
    size_t elems = m->bytes / sizeof(gs_fp);
    return cols >= 1 && col_stride >= rows && cols - 1 <= elems / col_stride &&
           (cols - 1) * col_stride + rows <= elems;
}

/* Whether copy's ranges lie in dst and src (n >= 1; see gs_backend_iface.copy). */
static inline int gs_copy_fits(const gs_buf *dst, size_t dst_off, const gs_buf *src, size_t src_off,
                               size_t n, unsigned log_step) {
    const size_t e = sizeof(gs_fp), most = SIZE_MAX / sizeof(gs_fp);
    if (log_step >= 64 || src_off >= most || n - 1 > (most - src_off - 1) >> log_step ||
        dst_off > most - n)
        return 0;
    return (dst_off + n) * e <= dst->bytes && (src_off + ((n - 1) << log_step) + 1) * e <= src->bytes;
}

typedef struct gs_backend gs_backend;
typedef struct gs_bcommit gs_bcommit; /* a Merkle tree held by the backend */

/* What the quotient evaluation needs besides the LDE (docs/protocol.md,
 * "Quotient"): alpha^k weights, transitions first then boundaries. */
typedef struct gs_quotient_args {
    const gs_air *air;
    const gs_fp *pub;
    unsigned log_n, log_blowup;
    /* The values at every 2^log_step-th point of the LDE domain only, the
     * coset shift <w_(N >> log_step)> (log_step <= log_blowup; 0: all N). */
    unsigned log_step;
    gs_fp shift;
    const gs_fp3 *alpha_pows; /* num_transitions + num_boundaries */
    const uint32_t *bound_cols;
    const uint64_t *bound_rows;
    const gs_fp *bound_vals;
    /* LogUp (NULL logup: none). Its alpha^k weights follow the boundaries,
     * one per group (the last group's is also the running sum's). */
    const gs_logup *logup;
    gs_fp3 bus_z, sigma;
    const gs_fp3 *bus_alpha_pows; /* bus alpha^0 .. alpha^GS_AIR_MAX_TUPLE */
    /* The trace's coefficients (num_cols columns of 2^log_n), or NULL. A
     * backend may evaluate the columns from them rather than read the LDE
     * (CUDA, when that LDE is out of core and there is no LogUp). */
    const gs_buf *coeffs;
} gs_quotient_args;

/* The DEEP composition (docs/protocol.md, "DEEP"). */
typedef struct gs_deep_args {
    unsigned log_size; /* the LDE domain, N = 2^log_size */
    gs_fp shift;
    uint32_t cols, chunks, aux_cols;
    gs_fp3 z, zw;
    gs_fp3 k1, k2;           /* the constant parts at z and z w */
    /* beta^k for k < 2 * cols + chunks + 2 * aux_cols: powers, so a sum
     * whose weights are beta^m times another's is beta^m times that sum
     * (the backends weight the columns at z w that way). */
    const gs_fp3 *beta_pows;
    /* The trace's coefficients (cols columns of 2^(log_size - log_blowup)),
     * or NULL. A backend may extend sum_c beta^c t_c from them rather than
     * read the trace LDE (CUDA, when that LDE is out of core). */
    const gs_buf *coeffs;
    /* The trace LDE's blowup: its columns have degree < 2^(log_size -
     * log_blowup), and a backend may rely on it (the CPU sums wide tables'
     * columns on one coset and extends the sum). 0: no such promise. */
    unsigned log_blowup;
} gs_deep_args;

/* A commit the prover will make of an LDE matrix (commit_lde): a tree with
 * hash `hash` whose leaf i holds leaf_cols values, row i of the matrix seen
 * as leaf_cols columns of 2^log_rows (column stride 2^log_rows; more columns
 * than the matrix has when a leaf takes a folding coset of rows). */
typedef struct gs_leaf_plan {
    gs_hash_id hash;
    size_t leaf_cols;
    unsigned log_rows;
} gs_leaf_plan;

typedef struct gs_backend_iface {
    const char *name;
    /* Whether the prover should keep a copy of a bus table's uploaded trace
     * for logup_aux (the trace lives elsewhere: CUDA), rather than have it
     * read the host trace (the CPU). */
    int keeps_evals;
    /* Every allocation is charged to `acct` (and its parents) until freed. */
    gs_status (*alloc)(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes);
    /* Optional (NULL: the prover allocs). The main trace's LDE, for a
     * prover that keeps the coefficients on the device to the openings and
     * reads the LDE only through extend (with a leaf plan), commit,
     * quotient and DEEP from those coefficients, and gather_coeffs: as
     * alloc, except that a buffer alloc would put out of core is left
     * unheld (CUDA: the extension is then hashed as it is made and not
     * copied out; an extend that cannot hash it so holds it after all). */
    gs_status (*alloc_unheld)(gs_backend *be, gs_mem *acct, gs_buf *out, size_t bytes);
    void (*free)(gs_backend *be, gs_buf *buf);
    gs_status (*upload)(gs_backend *be, gs_buf *dst, const void *src, size_t bytes);
    /* dst[dst_off + i] = src[src_off + (i << log_step)] for i < n (offsets
     * and n in field elements): a range, or every 2^log_step-th value; the
     * ranges must not overlap. */
    gs_status (*copy)(gs_backend *be, gs_buf *dst, size_t dst_off, const gs_buf *src,
                      size_t src_off, size_t n, unsigned log_step);
    /* In-place inverse NTT of `cols` columns of 2^log_n: evaluations on the
     * subgroup (shift 1) or a coset -> coefficients. */
    gs_status (*interpolate)(gs_backend *be, gs_buf *v, size_t cols, unsigned log_n, gs_fp shift);
    /* Coefficients (2^log_n per column) -> natural-order evaluations on
     * shift * <w_{n B}>. */
    gs_status (*lde)(gs_backend *be, gs_buf *out, const gs_buf *coeffs, size_t cols,
                     unsigned log_n, unsigned log_blowup, gs_fp shift);
    /* Optional (NULL: the prover runs upload, copy, interpolate and lde).
     * The main trace in one call: coeffs (cols columns of 2^log_n) gets the
     * coefficients of the host trace's columns (trace NULL: of the columns
     * expand made in coeffs), lde their extension as lde
     * gives it, and evals (when not NULL) the evaluations as uploaded. A
     * backend may pipeline it (CUDA: column chunks, each chunk's upload
     * overlapping the previous chunk's NTTs); the trace may be reused on
     * return. leaves (may be NULL): how the prover will commit lde next,
     * which a backend may hash as it extends (CUDA out of core). */
    gs_status (*extend)(gs_backend *be, gs_buf *coeffs, gs_buf *lde, gs_buf *evals,
                        const gs_fp *trace, size_t cols, unsigned log_n, unsigned log_blowup,
                        gs_fp shift, const gs_leaf_plan *leaves);
    /* Optional (NULL: the prover expands packed traces on the host). A
     * packed trace's columns (cols of 2^log_n) made in dst where upload
     * would put them; extend with trace NULL then takes them from coeffs.
     * GS_ERR_UNSUPPORTED where the backend cannot (no device expander, dst
     * not on the device): the prover then expands on the host. */
    gs_status (*expand)(gs_backend *be, gs_buf *dst, const gs_packed_trace *pk, size_t cols,
                        unsigned log_n);
    /* A Merkle tree (gstark/merkle.h's) over the rows with hash `hash` (a
     * proof's params.hash); it is charged to `acct` until commit_free. The
     * matrix m must stay allocated and unchanged until then: a backend may
     * keep only the upper levels and hash rows again when opening (the CPU
     * backend does). */
    gs_status (*commit)(gs_backend *be, gs_mem *acct, gs_bcommit **out, gs_hash_id hash,
                        const gs_buf *m, size_t cols, size_t col_stride, unsigned log_rows);
    /* The tree's Merkle cap of height cap_log (<= GS_MAX_CAP_HEIGHT and the
     * depth): the 2^cap_log nodes of level depth - cap_log, left to right,
     * into out (cap_log 0: the root). Both backends store every level at or
     * above depth - 13 (gs_merkle_skip_for), so such a level is there. */
    gs_status (*cap)(gs_backend *be, const gs_bcommit *c, gs_digest *out, unsigned cap_log);
    gs_status (*open)(gs_backend *be, const gs_bcommit *c, gs_digest *paths, const size_t *idx,
                      size_t n);
    void (*commit_free)(gs_backend *be, gs_bcommit *c);
    /* Host copy of rows: out[k * cols + c] = m[c * col_stride + idx[k]]. */
    gs_status (*gather)(gs_backend *be, gs_fp *out, const gs_buf *m, size_t cols,
                        size_t col_stride, const size_t *idx, size_t n);
    /* Optional with alloc_unheld. gather's rows of the extension of `cols`
     * columns of coefficients (2^log_n each, on this backend) over
     * shift * <w_N>, N = 2^(log_n + log_blowup), read as cols << fold
     * columns of N >> fold rows: out[k * (cols << fold) + (c << fold) + i]
     * = column c's value at shift * w_N^(idx[k] + i N / 2^fold). */
    gs_status (*gather_coeffs)(gs_backend *be, gs_fp *out, const gs_buf *coeffs, size_t cols,
                               unsigned log_n, unsigned log_blowup, unsigned fold, gs_fp shift,
                               const size_t *idx, size_t n);
    /* The leaf digests (gstark/merkle.h's, with `hash`) of the 2^log_rows
     * rows of m (cols columns at stride col_stride) into out, a buffer of
     * this backend of at least 2^log_rows digests (32 bytes each, in their
     * byte form): what a tree of those rows has as its leaves, without the
     * tree (shared trees, docs/protocol.md "One tree per round"). May be
     * NULL: shared trees are then GS_ERR_UNSUPPORTED on the backend. */
    gs_status (*row_digests)(gs_backend *be, gs_buf *out, const gs_buf *m, size_t cols,
                             size_t col_stride, unsigned log_rows, gs_hash_id hash);
    /* The shared tree (merkle/mixed.h) of n matrices from their row digests
     * (row_digests' buffers: rowd[t] of 2^log_rows[t] digests), keeping
     * the levels skip and up (gs_mixed_build_skip's tree, node for node),
     * into *out on the host. A buffer with `host` set is host memory (a
     * table on another backend, or one out of core); every other one is
     * this backend's. Host memory the build borrows is charged to acct.
     * Required with row_digests. */
    gs_status (*mixed_build)(gs_backend *be, gs_mem *acct, gs_mixed_tree **out,
                             gs_hash_id hash, const gs_buf *const *rowd, const unsigned *log_rows,
                             uint32_t n, unsigned skip);
    /* The LogUp aux trace (3 * aux_cols columns of 2^log_n, see logup.h)
     * and the bus sum, from the trace: `evals` (the backend's copy of the
     * trace's evaluations, cols columns of 2^log_n) when not NULL, else the
     * host trace. */
    gs_status (*logup_aux)(gs_backend *be, gs_buf *aux, gs_fp3 *sigma, const gs_logup *L,
                           const gs_air *air, const gs_fp *trace, const gs_buf *evals,
                           unsigned log_n, const gs_fp *pub, gs_fp3 z, gs_fp3 alpha);
    /* Optional (NULL: the prover checks traces on the host). Check mode:
     * every transition constraint of `air` on the uploaded trace `evals`
     * (cols columns of 2^log_n evaluations); *bad_row = the least failing
     * row, or UINT64_MAX. Boundary constraints are the caller's. */
    gs_status (*check_trace)(gs_backend *be, uint64_t *bad_row, const gs_buf *evals,
                             const gs_air *air, unsigned log_n, const gs_fp *pub);
    /* out (3 columns of N >> a->log_step) = the quotient over the LDE domain
     * (at every 2^log_step-th point); aux_lde may be NULL when a->logup is
     * NULL. */
    gs_status (*quotient)(gs_backend *be, gs_buf *out, const gs_buf *lde, const gs_buf *aux_lde,
                          const gs_quotient_args *a);
    /* out[c] = sum_i coeffs[c][i] * x^i for `cols` columns of `len`. */
    gs_status (*eval_at)(gs_backend *be, gs_fp3 *out, const gs_buf *coeffs, size_t cols,
                         size_t len, gs_fp3 x);
    /* Optional (NULL: the prover keeps coefficients for eval_at). out_z[c]
     * and, when out_zw is not NULL, out_zw[c] = the values at z and z w_n of
     * the polynomial of degree < n = 2^log_n whose value at shift w_n^j is
     * m[c * col_stride + (j << log_step)] (j < n): column c of an LDE over
     * shift * <w_{n 2^log_step}> holds it at every 2^log_step-th row. z must
     * lie off that coset (gs_draw_ood_point's z lies off the LDE domain). */
    gs_status (*eval_values_at)(gs_backend *be, gs_fp3 *out_z, gs_fp3 *out_zw, const gs_buf *m,
                                size_t cols, size_t col_stride, unsigned log_step, unsigned log_n,
                                gs_fp shift, gs_fp3 z);
    /* out (3 columns of N) = the DEEP word over the LDE domain. */
    gs_status (*deep)(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                      const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a);
    /* Optional (NULL: deep, then fold). The DEEP word folded `folds` times
     * with gamma, as fold would fold deep's output over a->shift, without
     * the word: out has 3 columns of 2^(a->log_size - folds). */
    gs_status (*deep_fold)(gs_backend *be, gs_buf *out, const gs_buf *trace_lde,
                           const gs_buf *chunk_lde, const gs_buf *aux_lde, const gs_deep_args *a,
                           unsigned folds, gs_fp3 gamma);
    /* A FRI layer's folds: in has 3 columns of 2^log_size over shift * <w>,
     * out 3 columns of 2^(log_size - folds) (1 <= folds <= GS_MAX_LOG_ARITY):
     * in folded by 2 with gamma, then by 2 with gamma^2 (over shift^2), ...
     * folds times, without the intermediate words. */
    gs_status (*fold)(gs_backend *be, gs_buf *out, const gs_buf *in, unsigned log_size,
                      unsigned folds, gs_fp shift, gs_fp3 gamma);
    /* dst += c * src over the first len rows of two 3-column Fp3 words
     * (dst of dst_rows rows, src of src_rows, both >= len): the shared FRI's
     * join of a table's DEEP word (docs/protocol.md, "One FRI for many
     * tables"). dst and src must not overlap. */
    gs_status (*add_scaled)(gs_backend *be, gs_buf *dst, size_t dst_rows, const gs_buf *src,
                            size_t src_rows, size_t len, gs_fp3 c);
    /* gs_transcript_grind's answer and effect, with the transcript's hash. */
    gs_status (*grind)(gs_backend *be, gs_transcript *t, unsigned bits, uint64_t *nonce);
    /* Releases the backend object (after every buffer and tree is freed);
     * the process-wide CPU backend ignores it. */
    void (*destroy)(gs_backend *be);
} gs_backend_iface;

/* The CUDA backend's extend works in pieces of about this many trace bytes
 * (64 MiB; tests make it small to run many pieces), and so do the NTTs of
 * buffers out of core. */
extern size_t gs_cuda_extend_piece_bytes;
/* A CUDA buffer of at least this many bytes (1 MiB) that the device budget
 * cannot hold goes out of core (docs/gpu.md, "Out of core"); a smaller one
 * fails with GS_ERR_DEVICE_MEM. */
extern size_t gs_cuda_spill_min_bytes;

struct gs_backend {
    const gs_backend_iface *iface;
    void *ctx;
};

/* The CPU backend (threads through gs_parallel_for); a process-wide object. */
gs_backend *gs_backend_cpu(void);

/* A CUDA backend object for one table on the device object `dev` (a CUDA
 * one; src/backend/device.h): every device byte it allocates (buffers and
 * Merkle trees) is charged, besides the caller's account, to the device's
 * account, which may never exceed the device's budget: a request beyond it
 * fails with GS_ERR_DEVICE_MEM. Its operations run on the calling thread's
 * lane of the device (GS_ERR_CUDA on a thread not bound to it). Released
 * with iface->destroy, which adds the device intervals of its operations
 * (an event before and after each, named by operation, with the lane and
 * `table`, -1 for none) to the device's busy log. Makes no CUDA call:
 * GS_ERR_INVALID_ARG for a CPU device, GS_ERR_NOMEM. */
typedef struct gs_device gs_device;
gs_status gs_backend_cuda_new(gs_backend **out, gs_device *dev, int32_t table);

/* Whether s reports a device failure that proving the table on the CPU
 * instead can get around (GS_ERR_CUDA, GS_ERR_DEVICE_MEM, GS_ERR_NO_DEVICE);
 * defined with the fallback rule in device.c. */
int gs_status_is_device(gs_status s);

#endif
