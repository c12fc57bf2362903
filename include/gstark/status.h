/* gstark status codes: every library function that can fail returns one.
 * The numeric values are fixed (they appear in logs and exit codes); new
 * codes are appended, never renumbered. */
#ifndef GSTARK_STATUS_H
#define GSTARK_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_status {
    GS_OK = 0,
    GS_ERR_INVALID_ARG = 1,  /* a parameter is out of its documented range */
    GS_ERR_NOMEM = 2,        /* a host allocation failed */
    GS_ERR_IO = 3,           /* a file could not be read or written */
    GS_ERR_UNSUPPORTED = 4,  /* the request is valid but not implemented here */
    GS_ERR_NO_DEVICE = 5,    /* no CUDA device present (or CUDA not built) */
    GS_ERR_CUDA = 6,         /* a CUDA call failed; see gs_cuda_last_error() */
    GS_ERR_MERKLE_PATH = 7,  /* an authentication path does not match the root */
    GS_ERR_POW = 8,          /* a proof-of-work nonce does not meet the target */
    GS_ERR_EXHAUSTED = 9,    /* a search (grinding, sampling) ran out of space */
    GS_ERR_AIR = 10,         /* the AIR builder recorded an error (gs_air_error) */
    GS_ERR_AIR_EMPTY = 11,   /* the AIR has no constraints */
    GS_ERR_AIR_DEGREE = 12,  /* a constraint's degree exceeds blowup + 1 */
    GS_ERR_AIR_UNSATISFIED = 13, /* the trace does not satisfy the AIR */
    GS_ERR_BUS_UNBALANCED = 14,  /* the tables' bus interactions do not cancel */
    GS_ERR_DEVICE_MEM = 15,      /* the device memory budget cannot hold the request */
    GS_ERR_BUDGET = 16,          /* a table alone needs more than the memory budget (strict_budget) */
    GS_ERR_NOT_FOUND = 17,       /* no such object (proof store) */
    GS_ERR_CORRUPT = 18,         /* a stored object failed its integrity check */
    GS_ERR_MANIFEST = 19,        /* a batch manifest is malformed or inconsistent */
    /* Verification failures: one code per kind of check. */
    GS_ERR_PROOF_FORMAT = 20,    /* malformed proof bytes */
    GS_ERR_PROOF_PARAMS = 21,    /* parameters out of range or below the security minimum */
    GS_ERR_PROOF_STATEMENT = 22, /* AIR, shape or public inputs do not match */
    GS_ERR_PROOF_OOD = 23,       /* constraints at z disagree with the quotient chunks */
    GS_ERR_PROOF_POW = 24,       /* the proof-of-work nonce is wrong */
    GS_ERR_PROOF_TRACE_PATH = 25, /* a trace opening does not match its root */
    GS_ERR_PROOF_CHUNK_PATH = 26, /* a quotient-chunk opening does not match its root */
    GS_ERR_PROOF_FRI_PATH = 27,  /* a FRI layer opening does not match its root */
    GS_ERR_PROOF_DEEP = 28,      /* the first FRI layer disagrees with the DEEP composition */
    GS_ERR_PROOF_FRI_FOLD = 29,  /* a FRI layer disagrees with the fold of the one before */
    GS_ERR_PROOF_FRI_FINAL = 30, /* the last fold disagrees with the final polynomial */
    GS_ERR_PROOF_AUX_PATH = 31,  /* a LogUp aux opening does not match its commitment */
    GS_ERR_PROOF_BUS = 32,       /* the tables' bus sums do not add to zero */
    GS_ERR_CANCELLED = 33,       /* the work was cancelled before it finished */
    GS_ERR_PROOF_FIXED = 34,     /* a preprocessed column's values at z or z w are not the known ones */
    GS_ERR_PROOF_QUERIES = 35,   /* the proof's query positions are not the drawn ones */
    GS_ERR_PROOF_LOGUP_V1 = 36   /* a table's LogUp part is in the layout of before 2026-12-05 */
} gs_status;

/* A short, static, human-readable description ("ok", "out of memory", ...).
 * Unknown values give "unknown status". */
const char *gs_status_str(gs_status s);

/* Evaluate an expression returning gs_status; return it from the caller if
 * it is not GS_OK. */
#define GS_TRY(expr)                          \
    do {                                      \
        gs_status gs_try_s_ = (expr);         \
        if (gs_try_s_ != GS_OK) return gs_try_s_; \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
