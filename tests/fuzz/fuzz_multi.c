/* libFuzzer target for the multi-table proof parser (file version 2) and,
 * behind it, the multi-table verifier: the input is a proof file; if it
 * parses, it must serialize back to exactly the input bytes, and it is
 * verified against the AIRs of the small statement of multi_stmt.h (built
 * once; three tables, two on a LogUp bus and one without aux columns).
 * Neither may crash, leak, read out of bounds, hit undefined behaviour or
 * allocate more than the input justifies.
 *
 * Build and run: tests/fuzz/run.sh [seconds] (see docs/proof-format.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/multi_stmt.h"
#include "gstark/proof.h"
#include "gstark/verifier.h"

static gs_air *g_airs[MULTI_STMT_TABLES];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void free_airs(void) {
    for (uint32_t t = 0; t < MULTI_STMT_TABLES; t++) gs_air_free(g_airs[t]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    if (multi_stmt_airs(g_airs) != GS_OK) abort();
    atexit(free_airs);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gs_multi_proof *p = NULL;
    gs_status s = gs_multi_proof_parse(&p, data, size);
    if (s != GS_OK) {
        /* Malformed input is GS_ERR_PROOF_FORMAT and leaves nothing behind. */
        if (s != GS_ERR_PROOF_FORMAT || p != NULL) abort();
        return 0;
    }
    if (gs_proof_file_kind(data, size) != 2) abort();
    for (uint32_t i = 0; i < p->num_tables; i++)
        if (memcmp(&p->tables[i].params, &p->params, sizeof p->params) != 0) abort();
    /* The round trip is exact: the format has a single encoding per proof. */
    uint8_t *b = NULL;
    size_t len = 0;
    if (gs_multi_proof_serialize_as(&b, &len, p, gs_proof_file_version(data, size)) != GS_OK ||
        len != size || memcmp(b, data, size) != 0)
        abort();
    free(b);
    (void)gs_verify_multi((const gs_air *const *)g_airs, MULTI_STMT_TABLES, p, 0);
    gs_multi_proof_free(p);
    return 0;
}
