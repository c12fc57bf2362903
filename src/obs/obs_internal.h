/* What the files of src/obs share (not part of the public API). */
#ifndef GSTARK_OBS_INTERNAL_H
#define GSTARK_OBS_INTERNAL_H

#include <stdio.h>

/* s as a JSON string: quoted, '"' and '\\' escaped, control bytes \u00XX. */
void gs_obs_put_json_string(FILE *f, const char *s);

#endif
