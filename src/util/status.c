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
    }
    return "unknown status";
}
