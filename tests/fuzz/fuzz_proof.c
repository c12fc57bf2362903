/* libFuzzer target for the proof parser and, behind it, the verifier: the
 * input is a proof file; if it parses, it is verified against the Fibonacci
 * AIR (built once). Neither may crash, leak, read out of bounds, hit
 * undefined behaviour or allocate more than the input justifies. A proof that
 * parses must also serialize back to exactly the input bytes.
 *
 * Build and run: tests/fuzz/run.sh [seconds] (see docs/proof-format.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fib_air.h"
#include "gstark/proof.h"
#include "gstark/verifier.h"

static gs_air *g_air;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void free_air(void) { gs_air_free(g_air); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    g_air = fib_air();
    if (!g_air) abort();
    atexit(free_air);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gs_proof *p = NULL;
    gs_status s = gs_proof_parse(&p, data, size);
    if (s != GS_OK) {
        /* Malformed input is GS_ERR_PROOF_FORMAT and leaves nothing behind. */
        if (s != GS_ERR_PROOF_FORMAT || p != NULL) abort();
        return 0;
    }
    /* The round trip is exact: the format has a single encoding per proof. */
    uint8_t *b = NULL;
    size_t len = 0;
    if (gs_proof_serialize_as(&b, &len, p, gs_proof_file_version(data, size)) != GS_OK || len != size ||
        memcmp(b, data, size) != 0)
        abort();
    free(b);
    (void)gs_verify(g_air, p, 0);
    gs_proof_free(p);
    return 0;
}
