/* Backend selection (gs_prove_opts.backend): AUTO proves on CUDA when a
 * device is present and on the CPU otherwise, with the same bytes; CUDA
 * without a device is GS_ERR_NO_DEVICE (no proof, no crash); an unknown kind
 * is GS_ERR_INVALID_ARG. Runs everywhere (the CUDA side of it is
 * test_cuda_prove's). */
#include <string.h>

#include "gstark/cuda.h"
#include "gstark/gstark.h"
#include "test_util.h"

static gs_status prove(uint8_t **bytes, size_t *len, const gs_workload *w, gs_prove_opts *o) {
    gs_params par = {2, 3, 4, 12, 1, 0, 0, 0, 0};
    gs_proof *p = NULL;
    *bytes = NULL;
    gs_status s = gs_prove(&p, w->air, w->trace, w->log_n, w->pub, &par, o);
    if (s == GS_OK) s = gs_proof_serialize(bytes, len, p);
    gs_proof_free(p);
    return s;
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    int devices = gs_cuda_device_count();
    gs_workload w = {0};
    CHECK(gs_airs_fib(&w, 8, 1, 1) == GS_OK);
    gs_prove_stats s_cpu = {0}, s_auto = {0}, s_cuda = {0};
    gs_prove_opts o_cpu = {.allow_insecure = 1, .stats = &s_cpu};
    gs_prove_opts o_auto = {.allow_insecure = 1, .stats = &s_auto, .backend = GS_BACKEND_AUTO};
    gs_prove_opts o_cuda = {.allow_insecure = 1, .stats = &s_cuda, .backend = GS_BACKEND_CUDA};
    uint8_t *a = NULL, *b = NULL, *c = NULL;
    size_t la = 0, lb = 0, lc = 0;
    CHECK(prove(&a, &la, &w, &o_cpu) == GS_OK);
    CHECK(s_cpu.backend && !strcmp(s_cpu.backend, "cpu") && s_cpu.device_peak_bytes == 0);
    CHECK(prove(&b, &lb, &w, &o_auto) == GS_OK);
    CHECK(la == lb && a && b && memcmp(a, b, la) == 0);
    CHECK(s_auto.backend && !strcmp(s_auto.backend, devices ? "cuda" : "cpu"));
    gs_status sc = prove(&c, &lc, &w, &o_cuda);
    if (devices) {
        CHECK(sc == GS_OK && lc == la && memcmp(a, c, la) == 0);
    } else {
        CHECK(sc == GS_ERR_NO_DEVICE && c == NULL);
        gs_multi_workload mw = {0};
        CHECK(gs_synth_preset(&mw, "uniform", 14, 1) == GS_OK);
        gs_table_input in[64];
        CHECK(mw.num_tables <= 64);
        for (uint32_t i = 0; i < mw.num_tables && i < 64; i++)
            in[i] = (gs_table_input){.air = mw.tables[i].air, .trace = mw.tables[i].trace,
                                     .log_n = mw.tables[i].log_n, .pub = mw.tables[i].pub};
        gs_params par = {2, 3, 4, 12, 1, 0, 0, 0, 0};
        gs_multi_proof *mp = (gs_multi_proof *)&mw; /* must be reset to NULL */
        CHECK(gs_prove_multi(&mp, in, mw.num_tables, &par, &o_cuda) == GS_ERR_NO_DEVICE);
        CHECK(mp == NULL);
        gs_multi_workload_free(&mw);
    }
    /* pinned host memory: argument errors everywhere; without a device none */
    void *pin = (void *)&w;
    CHECK(gs_cuda_host_alloc(NULL, 64) == GS_ERR_INVALID_ARG);
    CHECK(gs_cuda_host_alloc(&pin, 0) == GS_ERR_INVALID_ARG);
    if (!devices) CHECK(gs_cuda_host_alloc(&pin, 64) == GS_ERR_NO_DEVICE && pin == NULL);
    gs_cuda_host_free(NULL);
    gs_prove_opts o_bad = {.allow_insecure = 1, .backend = (gs_backend_kind)7};
    uint8_t *d = NULL;
    size_t ld = 0;
    CHECK(prove(&d, &ld, &w, &o_bad) == GS_ERR_INVALID_ARG && d == NULL);
    printf("backend selection: %d device(s); auto chose %s; same bytes as the CPU\n", devices,
           s_auto.backend ? s_auto.backend : "?");
    free(a), free(b), free(c), free(d);
    gs_workload_free(&w);
    return gs_test_done();
}
