/* gs_parse_size: gs_size_parse (include/gstark/size.h) for size_t
 * callers, with "unlimited" mapped to GS_GATE_UNLIMITED. */
#include "gstark/sched.h"
#include "gstark/size.h"

gs_status gs_parse_size(size_t *out, const char *s) {
    uint64_t v;
    if (!out) return GS_ERR_INVALID_ARG;
    GS_TRY(gs_size_parse(s, &v));
    if (v == GS_SIZE_UNLIMITED) {
        *out = GS_GATE_UNLIMITED;
        return GS_OK;
    }
    if (v > SIZE_MAX) return GS_ERR_INVALID_ARG; /* only on a 32-bit size_t */
    *out = (size_t)v;
    return GS_OK;
}
