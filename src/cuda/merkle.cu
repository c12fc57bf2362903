/* Keccak-256 Merkle trees on the device (include/gstark/cuda_merkle.h),
 * byte-identical to src/merkle/merkle.c: same leaves, same nodes, same layout
 * (level l of a depth-d tree, 2^(d-l) digests, starts at digest
 * 2^(d+1) - 2^(d-l+1); the children of node j of level l+1 are the 64
 * contiguous bytes of nodes 2j, 2j+1 of level l).
 *
 * Algorithm (all on one stream, no host round trip):
 *   1. leaf_kernel: one thread per row. Thread i walks the columns, reading
 *      m[c][i] (adjacent threads read adjacent rows of the same column: every
 *      warp load is 256 contiguous bytes), 17 lanes (136 bytes, the rate) per
 *      block: all 17 loads issued, then xored into the state, then one
 *      Keccak-f[1600] with the 25 lanes in registers. The last block takes
 *      the cols mod 17 remaining lanes, 0x01 in the lane after them and 0x80
 *      in the top byte of lane 16 (the CPU's padding: cols * 8 bytes always
 *      end on a lane boundary). The digest (lanes 0..3, 32 bytes) goes to
 *      level 0 with two 16-byte stores.
 *   2. level_kernel, once per level l = 1 .. d-8: one thread per parent node;
 *      its children are 64 contiguous bytes (four 16-byte loads), hashed
 *      with one permutation (pad 0x01 in lane 8, 0x80 at the top of lane 16).
 *   3. tail_kernel: the top min(d, 8) levels (128, 64, .. 1 nodes) in one
 *      block of at most 128 threads: each level reads its children from the
 *      previous one in shared memory (the first from global memory), writes
 *      to global memory and to shared memory, then __syncthreads(). This
 *      replaces 8 launches whose work is a few microseconds each.
 *   An event recorded after the last kernel is what root and open wait for;
 *   open gathers every requested sibling with one kernel (one thread per
 *   digest of the output) and one copy back.
 *
 * Cost per row (cols columns): reads 8 * cols bytes of the matrix once, and
 * hashes floor(cols / 17) + 1 permutations for the leaf plus ~1 for the
 * node above it; memory writes 32 bytes per node (~64 per row) and the node
 * levels read 64 bytes per parent. Keccak-f is ~4,500 32-bit integer
 * instructions (LOP3 and SHF in the SASS of the "shf" form), all on the ALU
 * pipe, so everything here is compute-bound, not memory-bound: at an
 * H200's ~3.5 G permutations/s, 64 columns (4 permutations per leaf) hash at
 * ~450 GB/s of matrix bytes and 8 columns (1 per leaf) at ~230 GB/s. The
 * node levels add one permutation per row on top of the leaf's
 * floor(cols/17) + 1, so commit / leaves is at least about
 * (floor(cols/17) + 2) / (floor(cols/17) + 1): 1.25 for 64 columns, 2 for 8.
 *
 * Every kernel exists in each Keccak code form of src/cuda/keccak.cuh; a
 * process-wide choice (gs_cuda_keccak_variant_select) picks the set used.
 *
 * Poseidon2 trees (gs_cuda_merkle_commit_hash with GS_HASH_POSEIDON2): the
 * same layout, filled by the kernels of src/cuda/poseidon2.cu: the leaves
 * with gs_cuda_poseidon2_hash_rows over the columns (row stride 1: a warp
 * reads 256 contiguous bytes of a column), then one
 * gs_cuda_poseidon2_compress_many per level (level l - 1 into level l,
 * disjoint ranges). A digest's 4 little-endian u64 elements are its bytes.
 * Cost per row: max(1, ceil(cols / 8)) width-12 permutations for the leaf and
 * ~1 width-8 permutation for the node above it.
 *
 * Mixed trees (src/cuda/mixed.h, gs_cuda_mixed_build): the shared trees of a
 * multi-table proof from the tables' row digests, per level one level_kernel
 * (or Poseidon2 compress) launch for the pairs and one fold_kernel launch per
 * matrix entering there, all on one stream: one permutation per node and
 * per entering row, ~2 launches per level. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "cuda/cuda_util.cuh"
#include "cuda/device.h"
#include "cuda/keccak.cuh"
#include "cuda/mixed.h"
#include "gstark/cuda_merkle.h"
#include "gstark/cuda_poseidon2.h"

static_assert(sizeof(size_t) == 8, "indices are copied to the device as 64-bit words");
static_assert(sizeof(gs_digest) == 32, "a digest is 4 lanes");

namespace {

using gs_cuda_keccak::f1600;
using gs_cuda_keccak::hash64;

constexpr unsigned RATE_LANES = 17;   /* 136-byte rate */
constexpr unsigned LEAF_THREADS = 128;
constexpr unsigned LEVEL_THREADS = 128;
constexpr unsigned TAIL_LOG = 7;      /* the tail does the levels of <= 2^7 nodes */
constexpr unsigned TAIL_THREADS = 1u << TAIL_LOG;
constexpr unsigned OPEN_THREADS = 256;
constexpr unsigned MSG_THREADS = 128;
constexpr uint64_t PAD_END = 0x8000000000000000ull; /* 0x80 in the last byte of the rate */

/* First digest of level `level` in a tree of depth `depth`. */
__host__ __device__ __forceinline__ size_t level_offset(unsigned depth, unsigned level) {
    return ((size_t)2 << depth) - ((size_t)2 << (depth - level));
}

/* ---- kernels ---- */

template <int V>
__global__ void __launch_bounds__(LEAF_THREADS)
leaf_kernel(uint64_t *__restrict__ out, const uint64_t *__restrict__ m, size_t cols, size_t stride,
            uint32_t rows) {
    const uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const uint64_t *p = m + row;
    const size_t nfull = cols / RATE_LANES;
    const unsigned rem = (unsigned)(cols - nfull * RATE_LANES);
    uint64_t s[25];
#pragma unroll
    for (int i = 0; i < 25; i++) s[i] = 0;
    /* One permutation call site (the unrolled permutation is large). */
    for (size_t b = 0;; b++) {
        if (b < nfull) {
            uint64_t w[RATE_LANES];
#pragma unroll
            for (unsigned j = 0; j < RATE_LANES; j++) w[j] = __ldg(p + j * stride);
#pragma unroll
            for (unsigned j = 0; j < RATE_LANES; j++) s[j] ^= w[j];
            p += RATE_LANES * stride;
        } else {
#pragma unroll
            for (unsigned j = 0; j < RATE_LANES; j++) {
                uint64_t v = j == rem ? 0x01 : 0; /* pad right after the message */
                if (j < rem) v = __ldg(p + j * stride);
                s[j] ^= v;
            }
            s[RATE_LANES - 1] ^= PAD_END;
        }
        f1600<V>(s);
        if (b == nfull) break;
    }
    ulonglong2 *dst = reinterpret_cast<ulonglong2 *>(out) + 2 * (size_t)row;
    dst[0] = make_ulonglong2(s[0], s[1]);
    dst[1] = make_ulonglong2(s[2], s[3]);
}

/* Leaves absorbed a piece of columns at a time (gs_cuda_keccak_rows_absorb):
 * the sponge of every row kept in st, lane l of row r at st[l * rows + r].
 * pos: the rate lane the piece's first value goes to (the row's values so
 * far mod 17). The lanes are indexed statically (a dynamic index would put
 * the state in local memory): a partial first block, full blocks, a partial
 * last block, as leaf_kernel absorbs a whole row. */
template <int V>
__global__ void __launch_bounds__(LEAF_THREADS)
absorb_kernel(uint64_t *__restrict__ st, const uint64_t *__restrict__ m, size_t cols, size_t stride,
              uint32_t rows, unsigned pos) {
    const uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    uint64_t s[25];
#pragma unroll
    for (int i = 0; i < 25; i++) s[i] = st[(size_t)i * rows + row];
    const uint64_t *p = m + row;
    size_t left = cols;
    if (pos) { /* the rest of the block the previous piece began */
        const size_t take = RATE_LANES - pos < left ? RATE_LANES - pos : left;
#pragma unroll
        for (unsigned j = 1; j < RATE_LANES; j++)
            if (j >= pos && j - pos < take) s[j] ^= __ldg(p + (j - pos) * stride);
        p += take * stride, left -= take;
        if (pos + take == RATE_LANES) f1600<V>(s);
    }
    for (; left >= RATE_LANES; left -= RATE_LANES) {
        uint64_t w[RATE_LANES];
#pragma unroll
        for (unsigned j = 0; j < RATE_LANES; j++) w[j] = __ldg(p + j * stride);
#pragma unroll
        for (unsigned j = 0; j < RATE_LANES; j++) s[j] ^= w[j];
        p += RATE_LANES * stride;
        f1600<V>(s);
    }
#pragma unroll
    for (unsigned j = 0; j < RATE_LANES - 1; j++)
        if (j < left) s[j] ^= __ldg(p + j * stride);
#pragma unroll
    for (int i = 0; i < 25; i++) st[(size_t)i * rows + row] = s[i];
}

/* The padding after the row's last value (at lane pos) and the last
 * permutation: the leaf digests, as leaf_kernel writes them. */
template <int V>
__global__ void __launch_bounds__(LEAF_THREADS)
finish_kernel(uint64_t *__restrict__ out, const uint64_t *__restrict__ st, uint32_t rows, unsigned pos) {
    const uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    uint64_t s[25];
#pragma unroll
    for (int i = 0; i < 25; i++) s[i] = st[(size_t)i * rows + row];
#pragma unroll
    for (unsigned j = 0; j < RATE_LANES; j++)
        if (j == pos) s[j] ^= 0x01;
    s[RATE_LANES - 1] ^= PAD_END;
    f1600<V>(s);
    ulonglong2 *dst = reinterpret_cast<ulonglong2 *>(out) + 2 * (size_t)row;
    dst[0] = make_ulonglong2(s[0], s[1]);
    dst[1] = make_ulonglong2(s[2], s[3]);
}

/* out[j] = H(in[2j] || in[2j+1]) for j < n (digests as 4 lanes). */
template <int V>
__global__ void __launch_bounds__(LEVEL_THREADS)
level_kernel(uint64_t *__restrict__ out, const uint64_t *__restrict__ in, uint32_t n) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const ulonglong2 *src = reinterpret_cast<const ulonglong2 *>(in) + 4 * (size_t)j;
    uint64_t msg[8], d[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        ulonglong2 v = __ldg(src + i);
        msg[2 * i] = v.x;
        msg[2 * i + 1] = v.y;
    }
    hash64<V>(d, msg);
    ulonglong2 *dst = reinterpret_cast<ulonglong2 *>(out) + 2 * (size_t)j;
    dst[0] = make_ulonglong2(d[0], d[1]);
    dst[1] = make_ulonglong2(d[2], d[3]);
}

/* A mixed tree's matrix entering a level of n = 2^lr nodes (src/cuda/mixed.h):
 * node j = fresh ? rows[bitrev(j)] : H(node j || rows[bitrev(j)]), in place. */
template <int V>
__global__ void __launch_bounds__(LEVEL_THREADS)
fold_kernel(uint64_t *__restrict__ level, const uint64_t *__restrict__ rows, uint32_t n, unsigned lr,
            int fresh) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const size_t r = lr ? __brev(j) >> (32 - lr) : 0;
    const ulonglong2 *row = reinterpret_cast<const ulonglong2 *>(rows) + 2 * r;
    ulonglong2 *node = reinterpret_cast<ulonglong2 *>(level) + 2 * (size_t)j;
    if (fresh) {
        node[0] = __ldg(row), node[1] = __ldg(row + 1);
        return;
    }
    uint64_t msg[8], d[4];
    const ulonglong2 v[4] = {node[0], node[1], __ldg(row), __ldg(row + 1)};
#pragma unroll
    for (int i = 0; i < 4; i++) msg[2 * i] = v[i].x, msg[2 * i + 1] = v[i].y;
    hash64<V>(d, msg);
    node[0] = make_ulonglong2(d[0], d[1]);
    node[1] = make_ulonglong2(d[2], d[3]);
}

/* Levels first .. depth (level first has <= TAIL_THREADS nodes, one thread
 * each; blockDim.x = that count). */
template <int V>
__global__ void __launch_bounds__(TAIL_THREADS)
tail_kernel(uint64_t *nodes, unsigned depth, unsigned first) {
    __shared__ uint64_t buf[2][TAIL_THREADS * 4];
    const unsigned t = threadIdx.x;
    for (unsigned l = first; l <= depth; l++) {
        const unsigned n = 1u << (depth - l);
        if (t < n) {
            const uint64_t *src = l == first
                                      ? nodes + 4 * level_offset(depth, l - 1) + 8 * (size_t)t
                                      : buf[(l - 1) & 1] + 8 * t;
            uint64_t msg[8], d[4];
#pragma unroll
            for (int i = 0; i < 8; i++) msg[i] = src[i];
            hash64<V>(d, msg);
            uint64_t *dst = nodes + 4 * level_offset(depth, l) + 4 * (size_t)t;
#pragma unroll
            for (int i = 0; i < 4; i++) {
                dst[i] = d[i];
                buf[l & 1][4 * t + i] = d[i];
            }
        }
        /* Level l + 1 reads buf[l & 1] and writes buf[(l + 1) & 1], which
         * level l read: one barrier between levels orders both. */
        __syncthreads();
    }
}

/* paths[g] = sibling at level skip + g % depth of leaf idx[g / depth], in
 * a tree storing levels skip .. skip + depth. */
__global__ void __launch_bounds__(OPEN_THREADS)
open_kernel(uint64_t *__restrict__ paths, const uint64_t *__restrict__ idx,
            const uint64_t *__restrict__ nodes, unsigned depth, unsigned skip, size_t total) {
    for (size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x; g < total;
         g += (size_t)gridDim.x * blockDim.x) {
        const size_t k = g / depth;
        const unsigned l = (unsigned)(g - k * depth);
        const uint64_t node = level_offset(depth, l) + ((idx[k] >> (l + skip)) ^ 1);
        const ulonglong2 *src = reinterpret_cast<const ulonglong2 *>(nodes) + 2 * node;
        ulonglong2 *dst = reinterpret_cast<ulonglong2 *>(paths) + 2 * g;
        dst[0] = src[0];
        dst[1] = src[1];
    }
}

/* Keccak-256 of n messages of len bytes (any alignment), for the tests: the
 * permutation and the padding on every length, byte by byte. */
template <int V>
__global__ void __launch_bounds__(MSG_THREADS)
msg_kernel(uint64_t *__restrict__ out, const uint8_t *__restrict__ in, size_t len, size_t n) {
    const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k >= n) return;
    const uint8_t *p = in + k * len;
    const size_t rate = 8 * RATE_LANES;
    const size_t nfull = len / rate;
    const unsigned rem = (unsigned)(len - nfull * rate);
    uint64_t s[25];
#pragma unroll
    for (int i = 0; i < 25; i++) s[i] = 0;
    for (size_t b = 0;; b++, p += rate) {
#pragma unroll
        for (unsigned j = 0; j < RATE_LANES; j++) {
            uint64_t v = 0;
#pragma unroll
            for (unsigned i = 0; i < 8; i++) {
                const unsigned pos = 8 * j + i;
                uint64_t byte = 0;
                if (b < nfull || pos < rem)
                    byte = p[pos];
                else if (pos == rem)
                    byte = 0x01;
                v |= byte << (8 * i);
            }
            s[j] ^= v;
        }
        if (b == nfull) s[RATE_LANES - 1] ^= PAD_END;
        f1600<V>(s);
        if (b == nfull) break;
    }
#pragma unroll
    for (int i = 0; i < 4; i++) out[4 * k + i] = s[i];
}

/* ---- the code forms ---- */

struct kernel_set {
    void (*leaf)(uint64_t *, const uint64_t *, size_t, size_t, uint32_t);
    void (*level)(uint64_t *, const uint64_t *, uint32_t);
    void (*tail)(uint64_t *, unsigned, unsigned);
    void (*msg)(uint64_t *, const uint8_t *, size_t, size_t);
    void (*absorb)(uint64_t *, const uint64_t *, size_t, size_t, uint32_t, unsigned);
    void (*finish)(uint64_t *, const uint64_t *, uint32_t, unsigned);
    void (*fold)(uint64_t *, const uint64_t *, uint32_t, unsigned, int);
    const char *name;
};

template <int V>
kernel_set make_set(const char *name) {
    return kernel_set{leaf_kernel<V>,   level_kernel<V>,  tail_kernel<V>, msg_kernel<V>,
                      absorb_kernel<V>, finish_kernel<V>, fold_kernel<V>, name};
}

const kernel_set g_sets[GS_CUDA_KECCAK_VARIANTS] = {
    make_set<0>("shf"), make_set<1>("shf-loop"), make_set<2>("imad"), make_set<3>("imad-loop")};

/* The form used unless gs_cuda_keccak_variant_select says otherwise:
 * shf-loop, the fastest on the H200 (2026-12-02, bench_gpu_merkle: 2^22 x 64
 * leaves 445.7 GB/s against 414.8 for the fully unrolled shf). */
constexpr int DEFAULT_VARIANT = 1;

std::atomic<int> g_variant{DEFAULT_VARIANT};

const kernel_set &current_set() { return g_sets[g_variant.load(std::memory_order_relaxed)]; }

/* ---- host helpers ---- */

/* cudaMalloc for the tree and scratch, with the test fault injector. A failed
 * allocation is reported and its (non-sticky) error cleared. */
gs_status dev_malloc(void **p, size_t bytes, const char *what) {
    *p = NULL;
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, what));
    cudaError_t e = gs_cuda_counted_malloc(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        (void)cudaGetLastError();
    }
    return gs_cuda_check(e, what);
}

/* The same, stream-ordered from the device's pool on s: no device-wide
 * synchronisation (cudaMalloc and cudaFree wait for every stream of the
 * device, so a tree made or freed on one lane used to stall the others). */
gs_status dev_malloc_async(void **p, size_t bytes, cudaStream_t s, const char *what) {
    *p = NULL;
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_ALLOC, what));
    cudaError_t e = gs_cuda_counted_malloc_async(p, bytes, s);
    if (e != cudaSuccess) *p = NULL;
    return gs_cuda_check(e, what);
}

/* Makes `device` current for the scope of a call, restoring the previous. */
class device_scope {
  public:
    explicit device_scope(int device) : device_(device) {
        status_ = gs_cuda_check(cudaGetDevice(&prev_), "cudaGetDevice");
        if (status_ == GS_OK && prev_ != device_)
            status_ = gs_cuda_check(cudaSetDevice(device_), "cudaSetDevice");
    }
    ~device_scope() {
        if (status_ == GS_OK && prev_ != device_) (void)cudaSetDevice(prev_);
    }
    device_scope(const device_scope &) = delete;
    device_scope &operator=(const device_scope &) = delete;
    gs_status status() const { return status_; }

  private:
    int device_, prev_ = -1;
    gs_status status_;
};

/* Arguments that need no device: pointer, shape, alignment, extent. */
gs_status check_shape(const uint64_t *d_m, size_t cols, size_t col_stride, unsigned log_rows) {
    if (!d_m || cols == 0 || log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    const size_t rows = (size_t)1 << log_rows;
    if (col_stride < rows) return GS_ERR_INVALID_ARG;
    if ((uintptr_t)d_m % 8) return GS_ERR_INVALID_ARG;
    /* The last element read, (cols - 1) * col_stride + rows - 1, must be addressable. */
    if (cols - 1 > (SIZE_MAX / 8 - rows) / col_stride) return GS_ERR_INVALID_ARG;
    return GS_OK;
}

/* Whether the current device (`device`) can read p: its own device memory,
 * managed memory, or mapped pinned host memory at the same address. */
gs_status check_readable(const void *p, int device) {
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e == cudaErrorInvalidValue) {
        (void)cudaGetLastError();
        return GS_ERR_INVALID_ARG;
    }
    if (e != cudaSuccess) return gs_cuda_check(e, "cudaPointerGetAttributes");
    switch (a.type) {
    case cudaMemoryTypeDevice:
        return a.device == device ? GS_OK : GS_ERR_INVALID_ARG;
    case cudaMemoryTypeManaged:
        return GS_OK;
    case cudaMemoryTypeHost:
        return a.devicePointer == p ? GS_OK : GS_ERR_INVALID_ARG;
    default:
        return GS_ERR_INVALID_ARG;
    }
}

gs_status check_launch(const char *what) { return gs_cuda_launched(what); }

unsigned blocks_for(size_t n, unsigned threads) { return (unsigned)((n + threads - 1) / threads); }

gs_status launch_leaves(const kernel_set &k, uint64_t *out, const uint64_t *d_m, size_t cols,
                        size_t stride, unsigned log_rows, cudaStream_t s) {
    const uint32_t rows = 1u << log_rows;
    const unsigned threads = rows < LEAF_THREADS ? rows : LEAF_THREADS;
    k.leaf<<<blocks_for(rows, threads), threads, 0, s>>>(out, d_m, cols, stride, rows);
    return check_launch("merkle leaf kernel launch");
}

/* Every level above the leaves, already in nodes[0 .. 2^d). */
gs_status launch_levels(const kernel_set &k, uint64_t *nodes, unsigned d, cudaStream_t s) {
    if (d == 0) return GS_OK;
    const unsigned first = d > TAIL_LOG ? d - TAIL_LOG : 1;
    for (unsigned l = 1; l < first; l++) {
        const uint32_t n = 1u << (d - l);
        const unsigned threads = n < LEVEL_THREADS ? n : LEVEL_THREADS;
        k.level<<<blocks_for(n, threads), threads, 0, s>>>(nodes + 4 * level_offset(d, l),
                                                          nodes + 4 * level_offset(d, l - 1), n);
        GS_TRY(check_launch("merkle level kernel launch"));
    }
    k.tail<<<1, 1u << (d - first), 0, s>>>(nodes, d, first);
    return check_launch("merkle tail kernel launch");
}

} // namespace

struct gs_cuda_tree {
    gs_hash_id id;
    unsigned depth;
    unsigned skip;    /* levels below it are not stored */
    int device;
    /* levels skip..depth: 2^(depth-skip+1) - 1 digests, 4 lanes each, level
     * l at level_offset(depth - skip, l - skip) */
    uint64_t *nodes;
    cudaEvent_t done; /* recorded after the last kernel of the latest commit */
};

/* Validates the matrix and makes sure the current device can read it. */
static gs_status check_matrix(int *device, const uint64_t *d_m, size_t cols, size_t col_stride,
                              unsigned log_rows) {
    GS_TRY(check_shape(d_m, cols, col_stride, log_rows));
    GS_TRY(gs_cuda_check(cudaGetDevice(device), "cudaGetDevice"));
    return check_readable(d_m, *device);
}

/* Levels 0 .. up of `rows` rows at d_m (up <= skip): the leaves into lv,
 * each level into the next part of lv, level `up` into top. */
static gs_status hash_block(const gs_cuda_tree *t, uint64_t *lv, uint64_t *top, const uint64_t *d_m,
                            size_t cols, size_t stride, unsigned log_rows, unsigned up,
                            cudaStream_t s) {
    uint64_t *lo = up ? lv : top;
    if (t->id == GS_HASH_POSEIDON2)
        GS_TRY(gs_cuda_poseidon2_hash_rows((gs_poseidon2_digest *)lo, d_m, (size_t)1 << log_rows,
                                           cols, 1, stride, s));
    else
        GS_TRY(launch_leaves(current_set(), lo, d_m, cols, stride, log_rows, s));
    for (unsigned l = 1; l <= up; l++) {
        const uint32_t n = 1u << (log_rows - l);
        uint64_t *out = l == up ? top : lv + 4 * level_offset(log_rows, l);
        if (t->id == GS_HASH_POSEIDON2) {
            GS_TRY(gs_cuda_poseidon2_compress_many((gs_poseidon2_digest *)out,
                                                   (const gs_poseidon2_digest *)lo, n, s));
        } else {
            const unsigned threads = n < LEVEL_THREADS ? n : LEVEL_THREADS;
            current_set().level<<<blocks_for(n, threads), threads, 0, s>>>(out, lo, n);
            GS_TRY(check_launch("merkle level kernel launch"));
        }
        lo = out;
    }
    return GS_OK;
}

/* The stored levels above the lowest (already in t->nodes), then t->done. */
static gs_status enqueue_levels(gs_cuda_tree *t, cudaStream_t s) {
    const unsigned d = t->depth - t->skip;
    if (t->id == GS_HASH_POSEIDON2) {
        gs_poseidon2_digest *nodes = (gs_poseidon2_digest *)t->nodes;
        for (unsigned l = 1; l <= d; l++)
            GS_TRY(gs_cuda_poseidon2_compress_many(nodes + level_offset(d, l),
                                                   nodes + level_offset(d, l - 1),
                                                   (size_t)1 << (d - l), s));
    } else {
        GS_TRY(launch_levels(current_set(), t->nodes, d, s));
    }
    GS_CUDA_TRY(cudaEventRecord(t->done, s));
    return GS_OK;
}

/* Leaves then levels into t->nodes, on s after t's previous commit. A
 * skipping tree hashes the rows in passes of 2^GS_CUDA_MERKLE_PASS_LOG_ROWS through a
 * scratch (stream-ordered) and keeps level skip of each pass. */
static gs_status enqueue_commit(gs_cuda_tree *t, const uint64_t *d_m, size_t cols, size_t stride,
                                cudaStream_t s, int after_previous) {
    (void)cudaGetLastError(); /* a stale non-sticky error is not this launch's */
    if (after_previous) GS_CUDA_TRY(cudaStreamWaitEvent(s, t->done, 0));
    if (t->skip) {
        const unsigned P = GS_CUDA_MERKLE_PASS_LOG_ROWS;
        const unsigned lr = t->depth < P ? t->depth : P;
        const size_t scratch_bytes = gs_cuda_merkle_tree_bytes_skip(t->depth, t->skip) -
                                     gs_cuda_merkle_stored_bytes(t->depth, t->skip);
        uint64_t *scratch = NULL;
        GS_TRY(gs_cuda_check(gs_cuda_counted_malloc_async((void **)&scratch, scratch_bytes, s),
                             "cudaMallocAsync (Merkle scratch)"));
        gs_status r = GS_OK;
        for (size_t p = 0; r == GS_OK && p < ((size_t)1 << (t->depth - lr)); p++)
            r = hash_block(t, scratch, t->nodes + 4 * (p << (lr - t->skip)), d_m + (p << lr), cols,
                           stride, lr, t->skip, s);
        (void)gs_cuda_counted_free_async(scratch, s);
        GS_TRY(r);
    } else {
        GS_TRY(hash_block(t, NULL, t->nodes, d_m, cols, stride, t->depth, 0, s));
    }
    return enqueue_levels(t, s);
}

/* Out of core (gs_cuda_merkle_commit_pieces): two device buffers for row
 * pieces of 2^log_rows, the stream their copies run on. */
struct row_pieces {
    uint64_t *buf[2];
    unsigned log_rows;
    cudaStream_t cs;
};

/* enqueue_commit for a matrix in host memory: each piece's rows copied
 * into a buffer on pc->cs while s hashes the other buffer's, levels 0 ..
 * skip of the piece, then the stored levels above as enqueue_commit. */
static gs_status enqueue_commit_pieces(gs_cuda_tree *t, const uint64_t *h_m, size_t cols,
                                       size_t stride, cudaStream_t s, const row_pieces *pc) {
    (void)cudaGetLastError(); /* a stale non-sticky error is not this launch's */
    const unsigned lr = pc->log_rows;
    const size_t R = (size_t)1 << lr;
    uint64_t *scratch = NULL;
    if (t->skip)
        GS_TRY(gs_cuda_check(gs_cuda_counted_malloc_async((void **)&scratch,
                                                          gs_cuda_merkle_tree_bytes_skip(t->depth, t->skip) -
                                                              gs_cuda_merkle_stored_bytes(t->depth, t->skip),
                                                          s),
                             "cudaMallocAsync (Merkle scratch)"));
    /* ev[0]: the work queued on s before; ev[1 + b]: buffer b filled;
     * ev[3 + b]: its hashes done, so it may be refilled. */
    cudaEvent_t ev[5] = {};
    gs_status r = GS_OK;
    for (int e = 0; e < 5 && r == GS_OK; e++)
        r = gs_cuda_check(cudaEventCreateWithFlags(&ev[e], cudaEventDisableTiming), "cudaEventCreate (Merkle pieces)");
    if (r == GS_OK) r = gs_cuda_check(cudaEventRecord(ev[0], s), "cudaEventRecord (Merkle pieces)");
    if (r == GS_OK) r = gs_cuda_check(cudaStreamWaitEvent(pc->cs, ev[0], 0), "cudaStreamWaitEvent (Merkle pieces)");
    for (size_t p = 0; r == GS_OK && p < ((size_t)1 << (t->depth - lr)); p++) {
        int b = (int)(p & 1);
        if (p >= 2) r = gs_cuda_check(cudaStreamWaitEvent(pc->cs, ev[3 + b], 0), "cudaStreamWaitEvent (Merkle pieces)");
        if (r == GS_OK) r = gs_cuda_copy_rows_async(pc->buf[b], R, h_m, stride, cols, p * R, R, pc->cs);
        if (r == GS_OK) r = gs_cuda_check(cudaEventRecord(ev[1 + b], pc->cs), "cudaEventRecord (Merkle pieces)");
        if (r == GS_OK) r = gs_cuda_check(cudaStreamWaitEvent(s, ev[1 + b], 0), "cudaStreamWaitEvent (Merkle pieces)");
        if (r == GS_OK)
            r = hash_block(t, scratch, t->nodes + 4 * (p << (lr - t->skip)), pc->buf[b], cols, R, lr, t->skip, s);
        if (r == GS_OK) r = gs_cuda_check(cudaEventRecord(ev[3 + b], s), "cudaEventRecord (Merkle pieces)");
    }
    if (r != GS_OK) (void)cudaStreamSynchronize(pc->cs); /* no copy writes a freed piece */
    for (int e = 0; e < 5; e++)
        if (ev[e]) (void)cudaEventDestroy(ev[e]);
    if (scratch) (void)gs_cuda_counted_free_async(scratch, s);
    GS_TRY(r);
    return enqueue_levels(t, s);
}

static void tree_destroy(gs_cuda_tree *t) {
    if (t->done) {
        (void)cudaEventSynchronize(t->done);
        (void)cudaEventDestroy(t->done);
    }
    /* Every use of the nodes is over: the commits before `done` (waited for
     * above; a failed one synchronised its stream), and the opens and level
     * reads, which synchronise before they return. So the free needs no
     * stream order of its own. */
    if (t->nodes) (void)gs_cuda_counted_free_async(t->nodes, cudaStreamPerThread);
    (void)cudaGetLastError();
    free(t);
}

extern "C" unsigned gs_cuda_merkle_depth(const gs_cuda_tree *t) { return t ? t->depth : 0; }

extern "C" unsigned gs_cuda_merkle_skip(const gs_cuda_tree *t) { return t ? t->skip : 0; }

extern "C" gs_status gs_cuda_merkle_commit(gs_cuda_tree **out, const uint64_t *d_m, size_t cols,
                                           size_t col_stride, unsigned log_rows, void *stream) {
    return gs_cuda_merkle_commit_hash(out, GS_HASH_KECCAK256, d_m, cols, col_stride, log_rows,
                                      stream);
}

extern "C" gs_status gs_cuda_merkle_commit_hash(gs_cuda_tree **out, gs_hash_id id,
                                                const uint64_t *d_m, size_t cols,
                                                size_t col_stride, unsigned log_rows,
                                                void *stream) {
    return gs_cuda_merkle_commit_skip(out, id, d_m, cols, col_stride, log_rows, 0, stream);
}

/* An empty tree (its done event and stored levels allocated on stream),
 * or nothing on an error. */
static gs_status tree_new(gs_cuda_tree **out, gs_hash_id id, unsigned log_rows, unsigned skip, int device,
                          cudaStream_t stream) {
    gs_cuda_tree *t = (gs_cuda_tree *)calloc(1, sizeof *t);
    if (!t) return GS_ERR_NOMEM;
    t->id = id;
    t->depth = log_rows;
    t->skip = skip;
    t->device = device;
    gs_status s = gs_cuda_check(cudaEventCreateWithFlags(&t->done, cudaEventDisableTiming),
                                "cudaEventCreateWithFlags");
    if (s != GS_OK) t->done = NULL;
    if (s == GS_OK)
        s = dev_malloc_async((void **)&t->nodes, gs_cuda_merkle_stored_bytes(log_rows, skip), stream,
                             "cudaMallocAsync (Merkle tree)");
    if (s != GS_OK) {
        tree_destroy(t);
        return s;
    }
    *out = t;
    return GS_OK;
}

/* A new tree of m's rows: enqueue_commit, or with pc its pieces variant. */
static gs_status commit_new(gs_cuda_tree **out, gs_hash_id id, const uint64_t *d_m, size_t cols,
                            size_t col_stride, unsigned log_rows, unsigned skip, cudaStream_t stream,
                            const row_pieces *pc) {
    if (out) *out = NULL;
    if (!out || (id != GS_HASH_KECCAK256 && id != GS_HASH_POSEIDON2) ||
        skip > GS_CUDA_MERKLE_MAX_SKIP)
        return GS_ERR_INVALID_ARG;
    if (skip > log_rows) skip = log_rows;
    int device;
    GS_TRY(check_matrix(&device, d_m, cols, col_stride, log_rows));
    if (pc && (pc->log_rows < skip || pc->log_rows > log_rows || pc->log_rows > GS_CUDA_MERKLE_PASS_LOG_ROWS ||
               !pc->buf[0] || !pc->buf[1] || !pc->cs))
        return GS_ERR_INVALID_ARG;
    gs_cuda_tree *t = NULL;
    GS_TRY(tree_new(&t, id, log_rows, skip, device, stream));
    gs_status s = pc ? enqueue_commit_pieces(t, d_m, cols, col_stride, stream, pc)
                     : enqueue_commit(t, d_m, cols, col_stride, stream, 0);
    if (s != GS_OK) {
        /* Kernels enqueued before a failed launch still use the tree. */
        (void)cudaStreamSynchronize(stream);
        tree_destroy(t);
        return s;
    }
    *out = t;
    return GS_OK;
}

extern "C" gs_status gs_cuda_merkle_commit_skip(gs_cuda_tree **out, gs_hash_id id,
                                                const uint64_t *d_m, size_t cols,
                                                size_t col_stride, unsigned log_rows,
                                                unsigned skip, void *stream) {
    return commit_new(out, id, d_m, cols, col_stride, log_rows, skip, (cudaStream_t)stream, NULL);
}

extern "C" gs_status gs_cuda_merkle_commit_pieces(gs_cuda_tree **out, gs_hash_id id, const uint64_t *h_m,
                                                  size_t cols, size_t col_stride, unsigned log_rows,
                                                  unsigned skip, uint64_t *const d_piece[2],
                                                  unsigned piece_log_rows, void *stream, void *copy_stream) {
    if (!d_piece) return GS_ERR_INVALID_ARG;
    row_pieces pc = {{d_piece[0], d_piece[1]}, piece_log_rows, (cudaStream_t)copy_stream};
    return commit_new(out, id, h_m, cols, col_stride, log_rows, skip, (cudaStream_t)stream, &pc);
}

extern "C" gs_status gs_cuda_merkle_recommit(gs_cuda_tree *t, const uint64_t *d_m, size_t cols,
                                             size_t col_stride, void *stream) {
    if (!t) return GS_ERR_INVALID_ARG;
    int device;
    GS_TRY(check_matrix(&device, d_m, cols, col_stride, t->depth));
    if (device != t->device) return GS_ERR_INVALID_ARG;
    gs_status s = enqueue_commit(t, d_m, cols, col_stride, (cudaStream_t)stream, 1);
    /* Whatever was enqueued finishes before the caller frees the tree. */
    if (s != GS_OK) (void)cudaStreamSynchronize((cudaStream_t)stream);
    return s;
}

extern "C" gs_status gs_cuda_merkle_hash_leaves(gs_digest *d_leaves, const uint64_t *d_m,
                                                size_t cols, size_t col_stride, unsigned log_rows,
                                                void *stream) {
    if (!d_leaves || (uintptr_t)d_leaves % 16) return GS_ERR_INVALID_ARG;
    int device;
    GS_TRY(check_matrix(&device, d_m, cols, col_stride, log_rows));
    GS_TRY(check_readable(d_leaves, device));
    (void)cudaGetLastError();
    return launch_leaves(current_set(), (uint64_t *)d_leaves, d_m, cols, col_stride, log_rows,
                         (cudaStream_t)stream);
}

extern "C" gs_status gs_cuda_keccak_rows_begin(uint64_t *d_state, unsigned log_rows, void *stream) {
    if (!d_state || log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemsetAsync (row sponges)"));
    return gs_cuda_check(cudaMemsetAsync(d_state, 0, (size_t)25 * sizeof *d_state << log_rows,
                                         (cudaStream_t)stream),
                         "cudaMemsetAsync (row sponges)");
}

extern "C" gs_status gs_cuda_keccak_rows_absorb(uint64_t *d_state, const uint64_t *d_m, size_t cols,
                                                size_t col_stride, unsigned log_rows, unsigned pos,
                                                void *stream) {
    if (!d_state || pos >= RATE_LANES) return GS_ERR_INVALID_ARG;
    GS_TRY(check_shape(d_m, cols, col_stride, log_rows));
    (void)cudaGetLastError();
    const uint32_t rows = 1u << log_rows;
    const unsigned threads = rows < LEAF_THREADS ? rows : LEAF_THREADS;
    current_set().absorb<<<blocks_for(rows, threads), threads, 0, (cudaStream_t)stream>>>(
        d_state, d_m, cols, col_stride, rows, pos);
    return check_launch("merkle absorb kernel launch");
}

extern "C" gs_status gs_cuda_keccak_rows_finish(gs_digest *d_leaves, const uint64_t *d_state,
                                                unsigned log_rows, unsigned pos, void *stream) {
    if (!d_leaves || !d_state || (uintptr_t)d_leaves % 16 || pos >= RATE_LANES ||
        log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS)
        return GS_ERR_INVALID_ARG;
    (void)cudaGetLastError();
    const uint32_t rows = 1u << log_rows;
    const unsigned threads = rows < LEAF_THREADS ? rows : LEAF_THREADS;
    current_set().finish<<<blocks_for(rows, threads), threads, 0, (cudaStream_t)stream>>>(
        (uint64_t *)d_leaves, d_state, rows, pos);
    return check_launch("merkle finish kernel launch");
}

extern "C" gs_status gs_cuda_merkle_commit_leaves(gs_cuda_tree **out, const gs_digest *d_leaves,
                                                  unsigned log_rows, void *stream) {
    if (out) *out = NULL;
    if (!out || !d_leaves || log_rows > GS_CUDA_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
    int device;
    GS_TRY(gs_cuda_check(cudaGetDevice(&device), "cudaGetDevice"));
    GS_TRY(check_readable(d_leaves, device));
    cudaStream_t s = (cudaStream_t)stream;
    gs_cuda_tree *t = NULL;
    GS_TRY(tree_new(&t, GS_HASH_KECCAK256, log_rows, 0, device, s));
    gs_status r = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (leaves)");
    if (r == GS_OK)
        r = gs_cuda_check(cudaMemcpyAsync(t->nodes, d_leaves, sizeof *d_leaves << log_rows,
                                          cudaMemcpyDeviceToDevice, s),
                          "cudaMemcpyAsync (leaves)");
    if (r == GS_OK) r = enqueue_levels(t, s);
    if (r != GS_OK) {
        (void)cudaStreamSynchronize(s);
        tree_destroy(t);
        return r;
    }
    *out = t;
    return GS_OK;
}

extern "C" gs_status gs_cuda_merkle_root(const gs_cuda_tree *t, gs_digest *root) {
    if (!t || !root) return GS_ERR_INVALID_ARG;
    return gs_cuda_merkle_level(t, t->depth, root); /* the top level, one node */
}

extern "C" gs_status gs_cuda_merkle_level(const gs_cuda_tree *t, unsigned level, gs_digest *out) {
    if (!t || !out || level < t->skip || level > t->depth) return GS_ERR_INVALID_ARG;
    device_scope scope(t->device);
    GS_TRY(scope.status());
    const cudaStream_t s = cudaStreamPerThread;
    GS_CUDA_TRY(cudaStreamWaitEvent(s, t->done, 0));
    GS_TRY(gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (level)"));
    const unsigned d = t->depth - t->skip;
    GS_CUDA_TRY(cudaMemcpyAsync(out, t->nodes + 4 * level_offset(d, level - t->skip),
                                sizeof *out << (t->depth - level), cudaMemcpyDeviceToHost, s));
    GS_CUDA_TRY(cudaStreamSynchronize(s));
    return GS_OK;
}

extern "C" gs_status gs_cuda_merkle_open(const gs_cuda_tree *t, gs_digest *paths, const size_t *idx,
                                         size_t n) {
    if (!t || (n && (!idx || (t->depth && !paths)))) return GS_ERR_INVALID_ARG;
    const unsigned D = t->depth, d = t->depth - t->skip; /* d stored levels below the root */
    for (size_t k = 0; k < n; k++)
        if ((uint64_t)idx[k] >> D) return GS_ERR_INVALID_ARG;
    if (n == 0 || d == 0) return GS_OK;
    /* Scratch: the indices, then the paths (32-byte aligned). */
    if (n > SIZE_MAX / 2 / ((size_t)d * sizeof(gs_digest) + 8)) return GS_ERR_INVALID_ARG;
    const size_t total = n * d;
    const size_t idx_bytes = (n * 8 + 31) & ~(size_t)31;
    const size_t path_bytes = total * sizeof(gs_digest);
    device_scope scope(t->device);
    GS_TRY(scope.status());
    uint8_t *scratch = NULL;
    const cudaStream_t s = cudaStreamPerThread;
    GS_TRY(dev_malloc_async((void **)&scratch, idx_bytes + path_bytes, s, "cudaMallocAsync (Merkle open)"));
    uint64_t *d_idx = (uint64_t *)scratch, *d_paths = (uint64_t *)(scratch + idx_bytes);
    (void)cudaGetLastError();
    gs_status st = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (open indices)");
    if (st == GS_OK)
        st = gs_cuda_check(cudaMemcpyAsync(d_idx, idx, n * 8, cudaMemcpyHostToDevice, s),
                           "cudaMemcpyAsync (open indices)");
    if (st == GS_OK) st = gs_cuda_check(cudaStreamWaitEvent(s, t->done, 0), "cudaStreamWaitEvent");
    if (st == GS_OK) {
        size_t blocks = (total + OPEN_THREADS - 1) / OPEN_THREADS;
        if (blocks > 65535u * 16) blocks = 65535u * 16; /* the kernel strides over the rest */
        open_kernel<<<(unsigned)blocks, OPEN_THREADS, 0, s>>>(d_paths, d_idx, t->nodes, d, t->skip,
                                                             total);
        st = check_launch("merkle open kernel launch");
    }
    if (st == GS_OK)
        st = gs_cuda_fault_point(GS_CUDA_FAULT_COPY, "cudaMemcpyAsync (open paths)");
    /* Path k's levels skip .. D-1 land at paths[k * D + skip ..]. */
    if (st == GS_OK)
        st = gs_cuda_check(cudaMemcpy2DAsync(paths + t->skip, D * sizeof(gs_digest), d_paths,
                                             d * sizeof(gs_digest), d * sizeof(gs_digest), n,
                                             cudaMemcpyDeviceToHost, s),
                           "cudaMemcpyAsync (open paths)");
    gs_status f = gs_cuda_check(gs_cuda_counted_free_async(scratch, s), "cudaFreeAsync (Merkle open)");
    /* Also on an error: the copy into `paths` must be over before it returns. */
    gs_status w = gs_cuda_check(cudaStreamSynchronize(s), "cudaStreamSynchronize (open)");
    return st != GS_OK ? st : w != GS_OK ? w : f;
}

extern "C" void gs_cuda_merkle_free(gs_cuda_tree *t) {
    if (!t) return;
    device_scope scope(t->device);
    tree_destroy(t);
}

/* ---- code forms ---- */

extern "C" int gs_cuda_keccak_variant_count(void) { return GS_CUDA_KECCAK_VARIANTS; }

extern "C" const char *gs_cuda_keccak_variant_name(int which) {
    return which >= 0 && which < GS_CUDA_KECCAK_VARIANTS ? g_sets[which].name : "?";
}

extern "C" int gs_cuda_keccak_variant_select(int which) {
    if (which < 0 || which >= GS_CUDA_KECCAK_VARIANTS) return g_variant.load();
    return g_variant.exchange(which);
}

/* ---- support for tests and benchmarks ---- */

extern "C" gs_status gs_cuda_keccak256_many(uint8_t *out, const void *in, size_t len, size_t n) {
    if (n == 0) return GS_OK;
    if (!out || (!in && len)) return GS_ERR_INVALID_ARG;
    if (n > SIZE_MAX / 64 || (len && n > SIZE_MAX / 2 / len)) return GS_ERR_INVALID_ARG;
    const size_t in_bytes = (n * len + 31) & ~(size_t)31, out_bytes = 32 * n;
    int device;
    GS_CUDA_TRY(cudaGetDevice(&device));
    uint8_t *scratch = NULL;
    GS_TRY(dev_malloc((void **)&scratch, in_bytes + out_bytes, "cudaMalloc (keccak messages)"));
    (void)cudaGetLastError();
    gs_status st = GS_OK;
    if (len)
        st = gs_cuda_check(cudaMemcpy(scratch, in, n * len, cudaMemcpyHostToDevice),
                           "cudaMemcpy (messages)");
    if (st == GS_OK) {
        const size_t blocks = (n + MSG_THREADS - 1) / MSG_THREADS;
        if (blocks > 0x7fffffffu) st = GS_ERR_INVALID_ARG;
        else {
            current_set().msg<<<(unsigned)blocks, MSG_THREADS>>>((uint64_t *)(scratch + in_bytes),
                                                                 scratch, len, n);
            st = check_launch("keccak message kernel launch");
        }
    }
    if (st == GS_OK)
        st = gs_cuda_check(cudaMemcpy(out, scratch + in_bytes, out_bytes, cudaMemcpyDeviceToHost),
                           "cudaMemcpy (digests)");
    gs_status f = gs_cuda_check(gs_cuda_counted_free(scratch), "cudaFree (keccak messages)");
    return st != GS_OK ? st : f;
}


extern "C" gs_status gs_cuda_merkle_dev_alloc(void **d_ptr, size_t bytes) {
    if (!d_ptr) return GS_ERR_INVALID_ARG;
    *d_ptr = NULL;
    cudaError_t e = gs_cuda_counted_malloc(d_ptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *d_ptr = NULL;
        (void)cudaGetLastError();
    }
    return gs_cuda_check(e, "cudaMalloc");
}

extern "C" void gs_cuda_merkle_dev_free(void *d_ptr) {
    if (d_ptr) (void)gs_cuda_counted_free(d_ptr);
}

extern "C" gs_status gs_cuda_merkle_dev_copy(void *dst, const void *src, size_t bytes) {
    if (!bytes) return GS_OK;
    if (!dst || !src) return GS_ERR_INVALID_ARG;
    return gs_cuda_check(gs_cuda_memcpy_landed(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

extern "C" gs_status gs_cuda_merkle_dev_mem(size_t *free_bytes, size_t *total_bytes) {
    size_t f = 0, t = 0;
    GS_CUDA_TRY(cudaMemGetInfo(&f, &t));
    if (free_bytes) *free_bytes = f;
    if (total_bytes) *total_bytes = t;
    return GS_OK;
}

extern "C" gs_status gs_cuda_merkle_stream_create(void **stream) {
    if (!stream) return GS_ERR_INVALID_ARG;
    cudaStream_t s = NULL;
    gs_status st = gs_cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                                 "cudaStreamCreateWithFlags");
    *stream = st == GS_OK ? (void *)s : NULL;
    return st;
}

extern "C" void gs_cuda_merkle_stream_destroy(void *stream) {
    if (stream) (void)cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" gs_status gs_cuda_merkle_stream_sync(void *stream) {
    return gs_cuda_check(cudaStreamSynchronize((cudaStream_t)stream), "cudaStreamSynchronize");
}

extern "C" gs_status gs_cuda_merkle_event_record(void **event, void *stream) {
    if (!event) return GS_ERR_INVALID_ARG;
    *event = NULL;
    cudaEvent_t e = NULL;
    GS_CUDA_TRY(cudaEventCreate(&e));
    gs_status st = gs_cuda_check(cudaEventRecord(e, (cudaStream_t)stream), "cudaEventRecord");
    if (st != GS_OK) {
        (void)cudaEventDestroy(e);
        return st;
    }
    *event = (void *)e;
    return GS_OK;
}

extern "C" gs_status gs_cuda_merkle_event_elapsed(double *ms, void *start, void *stop) {
    if (!ms || !start || !stop) return GS_ERR_INVALID_ARG;
    GS_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)stop));
    float f = 0;
    GS_CUDA_TRY(cudaEventElapsedTime(&f, (cudaEvent_t)start, (cudaEvent_t)stop));
    *ms = f;
    return GS_OK;
}

extern "C" void gs_cuda_merkle_event_destroy(void *event) {
    if (event) (void)cudaEventDestroy((cudaEvent_t)event);
}

/* ---- mixed trees (src/cuda/mixed.h) ---- */

extern "C" gs_status gs_cuda_mixed_build(gs_hash_id id, void *d_nodes, void *d_scratch,
                                         const void *const *d_rows, const unsigned *log_rows,
                                         uint32_t n, unsigned skip, void *stream) {
    if (id != GS_HASH_KECCAK256 && id != GS_HASH_POSEIDON2) return GS_ERR_INVALID_ARG;
    if (!d_nodes || !d_rows || !log_rows || n == 0) return GS_ERR_INVALID_ARG;
    unsigned depth = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (!d_rows[t] || log_rows[t] > GS_CUDA_MERKLE_MAX_LOG_ROWS) return GS_ERR_INVALID_ARG;
        if (log_rows[t] > depth) depth = log_rows[t];
    }
    if (skip > depth || (skip && !d_scratch)) return GS_ERR_INVALID_ARG;
    cudaStream_t s = (cudaStream_t)stream;
    const kernel_set &k = current_set();
    uint64_t *nodes = static_cast<uint64_t *>(d_nodes), *scratch = static_cast<uint64_t *>(d_scratch);
    /* Below the skip, level l in scratch (even levels at 0, odd ones after 2^depth digests). */
    const uint64_t *below = NULL;
    for (unsigned l = 0; l <= depth; l++) {
        const unsigned lr = depth - l;
        const uint32_t count = 1u << lr;
        uint64_t *out = l < skip ? scratch + (l & 1 ? 4 * ((size_t)1 << depth) : 0)
                                 : nodes + 4 * level_offset(depth - skip, l - skip);
        if (l && id == GS_HASH_POSEIDON2) {
            GS_TRY(gs_cuda_poseidon2_compress_many(reinterpret_cast<gs_poseidon2_digest *>(out),
                                                   reinterpret_cast<const gs_poseidon2_digest *>(below),
                                                   count, stream));
        } else if (l) {
            const unsigned threads = count < LEVEL_THREADS ? count : LEVEL_THREADS;
            k.level<<<blocks_for(count, threads), threads, 0, s>>>(out, below, count);
            GS_TRY(check_launch("mixed tree level kernel launch"));
        }
        int fresh = l == 0;
        for (uint32_t t = 0; t < n; t++) {
            if (log_rows[t] != lr) continue;
            const uint64_t *rows = static_cast<const uint64_t *>(d_rows[t]);
            if (id == GS_HASH_POSEIDON2) {
                GS_TRY(gs_cuda_poseidon2_fold(out, rows, lr, fresh, stream));
            } else {
                const unsigned threads = count < LEVEL_THREADS ? count : LEVEL_THREADS;
                k.fold<<<blocks_for(count, threads), threads, 0, s>>>(out, rows, count, lr, fresh);
                GS_TRY(check_launch("mixed tree fold kernel launch"));
            }
            fresh = 0;
        }
        below = out;
    }
    return GS_OK;
}
