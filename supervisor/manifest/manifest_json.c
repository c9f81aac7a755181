/* manifest_json.c — the syntactic front end of the manifest parser.
 *
 * Promise: mf_json_parse() refuses input larger than MF_MAX_BYTES without looking at it, then runs
 * the project's one strict JSON pre-check (jsonlite.h: NUL bytes, "\u0000", invalid UTF-8,
 * nesting deeper than MF_MAX_DEPTH, duplicate keys at any depth, every syntax error) before cJSON
 * sees a byte — one linear pass, so a 1 GB or 10 000-deep input costs nothing. Every problem is
 * reported as "line L, column C: <what>" (a duplicate also names its JSON path); only then does
 * cJSON build the tree. Also the shared message helpers of manifest_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlite.h"
#include "manifest_int.h"
#include "quote.h"

/* ---- messages ------------------------------------------------------------------------------- */

static void add_msg(struct mf_errors *e, char **arr, size_t *n, const char *fmt, va_list ap)
{
	char buf[1024];
	if (vsnprintf(buf, sizeof buf, fmt, ap) < 0)
		snprintf(buf, sizeof buf, "(unprintable message)");
	if (*n >= MF_MAX_ERRORS) {
		e->ndropped++;
		return;
	}
	char *m = strdup(buf);
	if (!m) {
		e->ndropped++;
		return;
	}
	arr[(*n)++] = m;
}

void mf_err(struct mf_errors *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_msg(e, e->msg, &e->n, fmt, ap);
	va_end(ap);
}

void mf_warnf(struct mf_errors *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t before = e->ndropped;
	add_msg(e, e->warn, &e->nwarn, fmt, ap);
	e->ndropped = before; /* a lost warning is not a problem */
	va_end(ap);
}

void mf_errors_free(struct mf_errors *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		free(e->msg[i]);
	for (size_t i = 0; i < e->nwarn; i++)
		free(e->warn[i]);
	memset(e, 0, sizeof *e);
}

void mf_quote(const char *s, char *out, size_t outlen)
{
	/* the one quoting style (common/quote.h), cut to about 80 bytes for a message */
	size_t max = outlen > 96 ? 84 : (outlen > 8 ? outlen - 4 : 0);
	if (!outlen)
		return;
	snprintf(out, outlen, "%.*s", (int)max, s ? s : "");
	if (!max || sbx_escape_fit(out, max) || strlen(s ? s : "") > max)
		snprintf(out + strlen(out), outlen - strlen(out), "...");
}

/* ---- entry ---------------------------------------------------------------------------------- */

cJSON *mf_json_parse(const char *buf, size_t len, struct mf_errors *e)
{
	if (len > MF_MAX_BYTES) {
		mf_err(e, "manifest is %zu bytes; the limit is %u bytes", len, (unsigned)MF_MAX_BYTES);
		return NULL;
	}
	size_t i = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	struct jl_error je;
	if (i == len) {
		jl_linecol(buf, len, i, &je.line, &je.col);
		mf_err(e, "line %zu, column %zu: empty manifest (expected a JSON object)", je.line, je.col);
		return NULL;
	}
	if (jl_check(buf, len, JL_BOM, MF_MAX_DEPTH, NULL, &je) < 0) {
		mf_err(e, "line %zu, column %zu: %s", je.line, je.col, je.what);
		return NULL;
	}
	cJSON *root = cJSON_ParseWithLength(buf, len);
	if (!root) /* the pre-check accepted it: cJSON can only have run out of memory */
		mf_err(e, "cannot parse the manifest (out of memory?)");
	return root;
}
