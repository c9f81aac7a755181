/* quote.h — how sbxsup shows a name (a path, a file name, an argument, a host) to a person.
 *
 * Promise: one style everywhere, that of `ls --quoting-style=c`: the name between double quotes,
 * every byte that could change what a terminal shows escaped, so that no name can clear the screen,
 * move the cursor, start a new line, reorder text, or pass for the end of the quotes:
 *   \" and \\ for the quote and the backslash; \a \b \t \n \v \f \r; other C0 controls and DEL as
 *   three-digit octal (\033, \177); a byte that does not start well-formed UTF-8 as \xNN (always
 *   two hex digits); C1 controls (U+0080..U+009F), the bidirectional controls (U+061C, U+200E,
 *   U+200F, U+202A..U+202E, U+2066..U+2069) and the line/paragraph separators (U+2028, U+2029) as
 *   \uXXXX. Everything else (printable ASCII, well-formed UTF-8) is copied as it is.
 * sbx_escape() applies the same escapes without the quotes (a name inside a longer text that is
 * already delimited). The result of either never holds a byte below 0x20 or DEL.
 * `--json` outputs do not use this: they carry the exact string, JSON-escaped.
 * Ownership: sbx_quote/sbx_escape return malloc'd strings (NULL when out of memory); sbx_q writes
 * into the caller's buffer and returns it.
 */
#ifndef SBX_QUOTE_H
#define SBX_QUOTE_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any path up to PATH_MAX, each byte escaped, plus the quotes. */
#define SBX_Q_MAX (4 * 4096 + 8)

char *sbx_quote(const char *s);
char *sbx_escape(const char *s);
/* A text with quoting of its own (cJSON's output, a shell-quoted command line) for a terminal: the
 * same escapes, except that its quotes and backslashes are left as they are (they are its own). */
char *sbx_escape_json(const char *s);
/* Quoted into buf (len > 8); when it does not fit, cut at an escape boundary and closed as
 * "...". NULL s is shown as (null). Returns buf. */
const char *sbx_q(const char *s, char *buf, size_t len);
/* The same escapes, in place, into a fixed buffer of `cap` bytes (cut at an escape boundary).
 * Returns true when it was cut. */
bool sbx_escape_fit(char *s, size_t cap);

#endif
