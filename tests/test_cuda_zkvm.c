/* A zkVM run proven on the CUDA backend has the same bytes as on the CPU
 * (the determinism rule, docs/architecture.md), and verifies: the assembled
 * benchmark programs (a Fibonacci loop, a memory loop with loads, stores,
 * mul and branches) at two sizes each, the CUDA proofs with no fallback to
 * the CPU; the larger ones also with one FRI for all tables (shared_fri);
 * and on one resident CUDA prover (gs_zkvm_prove_on: the tables built in
 * its pinned host memory, reused from one program to the next). --repeat R
 * runs the whole sequence R times in one process; GS_TEST_DUMP=DIR writes a
 * proof that does not verify, and the CPU's proof of the same program, there.
 * The CPU table's packed rows (the CUDA proofs make its columns on the
 * device) expand to the same columns on the device as on the host, for
 * random tables of every row kind (tests/zkvm_packed.h).
 * Exits GS_TEST_SKIP (77) where no device exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/zkvm_programs.h"
#include "gstark/gstark.h"
#include "test_io.h"
#include "test_util.h"
#include "cuda/device.h"
#include "zkvm_packed.h"

static gs_prover *g_pv; /* the resident CUDA prover */

static const char *be_name(gs_backend_kind be) {
    return be == GS_BACKEND_CPU ? "cpu" : be == GS_BACKEND_CUDA ? "cuda one-shot" : "cuda resident";
}

/* GS_TEST_DUMP=DIR: a proof that does not verify is written to
 * DIR/bad-<n>-<backend>.proof, and the CPU's proof of the same program
 * beside it (good-<n>.proof) when the one-shot proof differs from it, so the
 * two can be compared part by part. */
static unsigned g_dumped;
static void dump(const char *name, const uint8_t *b, size_t len) {
    const char *dir = getenv("GS_TEST_DUMP");
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fprintf(stderr, "%s %s\n", write_file(path, b, len) ? "wrote" : "could not write", path);
}

/* mode 0: the defaults; 1: one FRI for all tables; 2: coset leaves for
 * every table (GS_COSET_LEAVES_ALL: the CPU table's wide leaves too). */
static uint8_t *prove_bytes(const gs_zkvm_program *p, gs_backend_kind be, int mode, size_t *len) {
    gs_params par = gs_params_default(GS_DEFAULT_SECURITY_BITS);
    if (mode == 1) par.shared_fri = 1, par.coset_leaves = 0;
    if (mode == 2) par.coset_leaves = GS_COSET_LEAVES_ALL;
    gs_prove_opts opts = {.backend = be, .no_fallback = 1};
    gs_zkvm_proof *zp = NULL;
    char msg[400];
    /* be = AUTO here: on the resident prover */
    gs_status s = be == GS_BACKEND_AUTO
                      ? gs_zkvm_prove_on(g_pv, &zp, NULL, p, NULL, 0, 0, &par, &opts, msg, sizeof msg)
                      : gs_zkvm_prove(&zp, NULL, p, NULL, 0, 0, &par, &opts, msg, sizeof msg);
    if (s != GS_OK) fprintf(stderr, "prove (%s): %s %s\n", be_name(be), gs_status_str(s), msg);
    CHECK(s == GS_OK);
    if (s != GS_OK) return NULL;
    gs_status v = gs_zkvm_verify(NULL, p, zp, 0, msg, sizeof msg);
    CHECK(v == GS_OK);
    if (v != GS_OK) fprintf(stderr, "verify (%s): %s %s\n", be_name(be), gs_status_str(v), msg);
    uint8_t *b = NULL;
    CHECK(gs_zkvm_proof_serialize(&b, len, zp) == GS_OK);
    gs_zkvm_proof_free(zp);
    if (v != GS_OK && b) {
        char name[64];
        snprintf(name, sizeof name, "bad-%u-%s.proof", ++g_dumped,
                 be == GS_BACKEND_CPU ? "cpu" : be == GS_BACKEND_CUDA ? "oneshot" : "resident");
        dump(name, b, *len);
    }
    return b;
}

/* Device expansion against the host's, every column of every row. */
static void check_expand(uint64_t seed, uint64_t n_active, unsigned log_n) {
    const size_t n = (size_t)1 << log_n, out_bytes = CPU_COLS * n * sizeof(gs_fp);
    size_t bytes;
    void *pk = zp_random(seed, 301, n_active, &bytes), *d_pk = NULL, *d_out = NULL, *stream = NULL;
    gs_fp *host = malloc(out_bytes), *back = NULL, *pinned = NULL;
    int ok = pk && host && gs_cuda_stream_new(&stream) == GS_OK &&
             gs_cuda_host_alloc((void **)&pinned, bytes > out_bytes ? bytes : out_bytes) == GS_OK &&
             gs_cuda_buf_alloc(&d_pk, bytes, stream) == GS_OK && gs_cuda_buf_alloc(&d_out, out_bytes, stream) == GS_OK;
    CHECK(ok);
    if (ok) {
        zk_cpu_expand(pk, host, n, 0, n, NULL);
        memcpy(pinned, pk, bytes);
        ok = gs_cuda_d2d_async(d_pk, pinned, bytes, stream) == GS_OK &&
             zk_cpu_expand_device(d_pk, d_out, log_n, stream, NULL) == 0 &&
             gs_cuda_d2d_async(pinned, d_out, out_bytes, stream) == GS_OK && gs_cuda_stream_wait(stream) == GS_OK;
        CHECK(ok);
        back = pinned;
    }
    size_t diff = 0, first = SIZE_MAX;
    for (size_t i = 0; ok && i < CPU_COLS * n; i++)
        if (back[i] != host[i]) diff++, first = first == SIZE_MAX ? i : first;
    CHECK(ok && diff == 0);
    printf("packed CPU rows, %llu active of %zu: device columns %s the host's", (unsigned long long)n_active, n,
           ok && !diff ? "equal to" : "DIFFERENT from");
    if (diff) printf(" (%zu cells, the first column %zu row %zu)", diff, first / n, first % n);
    printf("\n");
    gs_cuda_buf_free(d_pk, stream), gs_cuda_buf_free(d_out, stream);
    gs_cuda_stream_free(stream);
    gs_cuda_host_free(pinned);
    free(pk), free(host);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    if (gs_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return GS_TEST_SKIP;
    }
    /* --repeat R: the whole sequence R times in one process (for hunting the
     * intermittent failure docs/gpu.md, "An intermittent invalid zkVM proof on CUDA", describes). */
    unsigned repeat = 1;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--repeat") && atoi(argv[i + 1]) > 0) repeat = (unsigned)atoi(argv[i + 1]);
    check_expand(gs_test_u64(), 3001, 12);
    check_expand(gs_test_u64(), (1u << 18) - 5, 18);
    gs_prover_cfg cfg = {.backend = GS_BACKEND_CUDA, .no_fallback = 1};
    CHECK(gs_prover_new(&g_pv, &cfg) == GS_OK);
    for (unsigned k = 0; k < 4 * repeat; k++) {
        const unsigned j = k % 4;
        uint32_t n = j < 2 ? (j ? 20000u : 100u) : (j == 3 ? 5000u : 30u);
        gs_zkvm_program *p = j < 2 ? fib_loop(n) : mem_loop(n);
        CHECK(p != NULL);
        if (!p) continue;
        for (int mode = 0; mode < 3; mode++) {
            if (mode && (j == 0 || j == 2)) continue; /* the larger runs only */
            size_t lc = 0, lg = 0;
            uint8_t *c = prove_bytes(p, GS_BACKEND_CPU, mode, &lc);
            uint8_t *g = prove_bytes(p, GS_BACKEND_CUDA, mode, &lg);
            CHECK(c && g && lc == lg && memcmp(c, g, lc) == 0);
            if (c && g && (lc != lg || memcmp(c, g, lc))) {
                char name[64];
                snprintf(name, sizeof name, "good-%u.proof", g_dumped);
                dump(name, c, lc);
            }
            size_t lr = 0;
            uint8_t *r = g_pv ? prove_bytes(p, GS_BACKEND_AUTO, mode, &lr) : NULL;
            CHECK(c && r && lc == lr && memcmp(c, r, lc) == 0);
            printf("%s %u%s: %zu bytes, %s\n", j < 2 ? "fib" : "mem", n,
                   mode == 1 ? " shared FRI" : mode == 2 ? " coset leaves for every table" : "", lc,
                   c && g && r && lc == lg && lc == lr && !memcmp(c, g, lc) && !memcmp(c, r, lc)
                       ? "same on cpu, cuda and a resident cuda prover"
                       : "DIFFERENT");
            free(c), free(g), free(r);
        }
        gs_zkvm_program_free(p);
    }
    gs_prover_info info;
    gs_prover_get_info(&info, g_pv);
    CHECK(info.host_bytes > 0 && info.host_pinned_bytes == info.host_bytes); /* every block pinned */
    printf("resident prover: %zu host bytes held, %zu pinned\n", info.host_bytes, info.host_pinned_bytes);
    gs_prover_free(g_pv);
    return gs_test_done();
}
