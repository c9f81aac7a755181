/* manifest_int.h — internals shared by manifest.c, manifest_json.c, manifest_hosts.c,
 * manifest_paths.c. Not a public contract: other modules use manifest.h only.
 *
 * Promise: error helpers that never lose the fact that a problem was found (a message that cannot be
 * stored is still counted in ndropped), a bounded syntactic front end (mf_json_parse: size, then
 * the one strict JSON pre-check of jsonlite.h, then cJSON), and printable renderings of
 * untrusted strings for messages.
 */
#ifndef SBX_MANIFEST_INT_H
#define SBX_MANIFEST_INT_H

#include <stdarg.h>
#include <cjson/cJSON.h>
#include "manifest.h"

#define MF_PATH_MAX 4096   /* longest hint / expanded path */
#define MF_JPATH_MAX 512   /* longest JSON path in a message */

/* Append an error / a warning (printf format). Never fails: OOM or overflow -> ndropped++. */
void mf_err(struct mf_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mf_warnf(struct mf_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Render an untrusted string for a message in the one quoting style (common/quote.h, without the
 * quotes: the caller adds them), cut at ~80 bytes with "...". Always NUL-terminates `out`. */
void mf_quote(const char *s, char *out, size_t outlen);

/* Size bound, then the strict pre-check of jsonlite.h (NUL, UTF-8, depth MF_MAX_DEPTH, syntax with
 * line/column, duplicate keys), then cJSON. Returns the tree, or NULL with the problem appended to e. */
cJSON *mf_json_parse(const char *buf, size_t len, struct mf_errors *e);

/* Lexical normalisation (pol_normalize): join onto cwd when relative, collapse
 * "//", ".", "..", drop a trailing "/". Returns 0, or -1 when the result does not fit. */
int mf_normalize(const char *cwd, const char *path, char *out, size_t outlen);

/* Expand a hint into out (see mf_expand_path). Returns 0, or -1 with a reason in *why. */
int mf_expand(const char *hint, const char *home, const char *workspace, char *out, size_t outlen,
	      const char **why);

#endif
