#include "gstark/status.h"

const char *gs_status_str(gs_status s) {
    switch (s) {
    case GS_OK: return "ok";
    case GS_ERR_INVALID_ARG: return "invalid argument";
    case GS_ERR_NOMEM: return "out of memory";
    case GS_ERR_IO: return "i/o error";
    case GS_ERR_UNSUPPORTED: return "unsupported";
    case GS_ERR_NO_DEVICE: return "no CUDA device";
    case GS_ERR_CUDA: return "CUDA error";
    case GS_ERR_MERKLE_PATH: return "Merkle path does not match the root";
    case GS_ERR_POW: return "proof-of-work check failed";
    case GS_ERR_EXHAUSTED: return "search space exhausted";
    case GS_ERR_AIR: return "invalid AIR";
    case GS_ERR_AIR_EMPTY: return "AIR has no constraints";
    case GS_ERR_AIR_DEGREE: return "AIR constraint degree exceeds blowup + 1";
    case GS_ERR_AIR_UNSATISFIED: return "trace does not satisfy the AIR";
    case GS_ERR_BUS_UNBALANCED: return "bus interactions do not balance across the tables";
    case GS_ERR_DEVICE_MEM: return "device memory budget exhausted";
    case GS_ERR_BUDGET: return "a table needs more memory than the budget allows";
    case GS_ERR_NOT_FOUND: return "not found";
    case GS_ERR_CORRUPT: return "stored object failed its integrity check";
    case GS_ERR_MANIFEST: return "bad batch manifest";
    case GS_ERR_CANCELLED: return "cancelled";
    case GS_ERR_PROOF_AUX_PATH: return "proof: LogUp aux opening does not match its commitment";
    case GS_ERR_PROOF_BUS: return "proof: bus sums do not add to zero";
    case GS_ERR_PROOF_FORMAT: return "proof: malformed bytes";
    case GS_ERR_PROOF_PARAMS: return "proof: unsafe or invalid parameters";
    case GS_ERR_PROOF_STATEMENT: return "proof: statement (AIR, shape, public inputs) does not match";
    case GS_ERR_PROOF_OOD: return "proof: out-of-domain constraint check failed";
    case GS_ERR_PROOF_POW: return "proof: proof-of-work check failed";
    case GS_ERR_PROOF_TRACE_PATH: return "proof: trace opening does not match its commitment";
    case GS_ERR_PROOF_CHUNK_PATH: return "proof: quotient opening does not match its commitment";
    case GS_ERR_PROOF_FRI_PATH: return "proof: FRI opening does not match its commitment";
    case GS_ERR_PROOF_DEEP: return "proof: FRI layer 0 disagrees with the DEEP composition";
    case GS_ERR_PROOF_FRI_FOLD: return "proof: FRI fold check failed";
    case GS_ERR_PROOF_FRI_FINAL: return "proof: FRI final polynomial check failed";
    case GS_ERR_PROOF_FIXED: return "proof: a preprocessed column disagrees with its known values";
    case GS_ERR_PROOF_QUERIES: return "proof: the query positions are not the drawn ones";
    case GS_ERR_PROOF_LOGUP_V1:
        return "proof: made before 2026-12-05's LogUp layout (one aux column more than its groups); prove it again";
    }
    return "unknown status";
}
