/* Byte counts as people write and read them: one parser for every size the
 * library or the CLI accepts (memory budgets), one printer for every size
 * they show (reports, warnings).
 *
 * Parsing (gs_size_parse): decimal digits, then an optional unit; nothing
 * else. Case is ignored everywhere ("512m", "512M", "512MiB", "512mib" are
 * the same).
 *   no unit, B          bytes
 *   K  M  G  T          powers of 1024 (what the CLI always accepted)
 *   KiB MiB GiB TiB     powers of 1024
 *   KB  MB  GB  TB      powers of 1000
 *   unlimited           GS_SIZE_UNLIMITED (no number)
 * Refused with GS_ERR_INVALID_ARG, *out left unchanged: NULL or empty input,
 * any whitespace (leading, trailing or between number and unit), a sign, a
 * fraction ("1.5G": write 1536M), exponents, hex, digit separators, a unit
 * without digits, an unknown or doubled unit ("1P", "1GG", "1KiBB"), and
 * every value above UINT64_MAX. The number UINT64_MAX itself, written out,
 * also reads as unlimited. Strict on purpose: a budget that silently parsed
 * as something else (" 2G" as 0, "1.5G" as 1) is worse than an error.
 *
 * Printing (gs_size_format): binary units only, three significant digits,
 * trailing zeros dropped: "0 B", "512 B", "1.5 KiB", "512 MiB", "1.08 GiB",
 * "16 EiB"; GS_SIZE_UNLIMITED prints as "unlimited". Every byte figure the
 * library prints goes through it, so a report never mixes MB and MiB. */
#ifndef GSTARK_SIZE_H
#define GSTARK_SIZE_H

#include <stdint.h>

#include "gstark/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "unlimited". On hosts with a 64-bit size_t this is SIZE_MAX, which is
 * GS_GATE_UNLIMITED (gstark/sched.h) and what gs_prove_opts.mem_budget
 * takes for "no budget". */
#define GS_SIZE_UNLIMITED UINT64_MAX

/* Room for any gs_size_format result, with its terminating NUL. */
#define GS_SIZE_BUF 16

/* Parses s (rules above) into *out. GS_OK, or GS_ERR_INVALID_ARG. */
gs_status gs_size_parse(const char *s, uint64_t *out);

/* Writes bytes (rules above) into buf and returns buf. NULL buf: returns "?"
 * (a static string). */
const char *gs_size_format(char buf[GS_SIZE_BUF], uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
