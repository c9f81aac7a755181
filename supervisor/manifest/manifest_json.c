/* manifest_json.c — the syntactic front end of the manifest parser.
 *
 * Promise: mf_json_parse() refuses, before cJSON sees a byte, input larger than MF_MAX_BYTES, NUL
 * bytes, "\u0000" escapes (cJSON would silently cut the string there), invalid UTF-8 and nesting
 * deeper than MF_MAX_DEPTH — one linear pass, so a 1 GB or 10 000-deep input costs nothing.
 * Syntax errors (found by manifest_syntax.c) are reported as "line L, column C: <what>"; duplicate keys in any object as
 * "<json path>: duplicate key". Also the shared message helpers of manifest_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest_int.h"

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
	size_t o = 0, max = outlen > 96 ? 80 : (outlen > 8 ? outlen - 8 : 0);
	if (!outlen)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (o >= max) {
			if (o + 4 <= outlen)
				memcpy(out + o, "...", 3), o += 3;
			break;
		}
		if (*p < 0x20 || *p >= 0x7f) {
			if (o + 5 > outlen)
				break;
			snprintf(out + o, 5, "\\x%02x", *p);
			o += 4;
		} else if (*p == '"' || *p == '\\') {
			if (o + 3 > outlen)
				break;
			out[o++] = '\\';
			out[o++] = (char)*p;
		} else {
			if (o + 2 > outlen)
				break;
			out[o++] = (char)*p;
		}
	}
	out[o < outlen ? o : outlen - 1] = '\0';
}

/* ---- positions ------------------------------------------------------------------------------ */

void mf_linecol(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
	size_t l = 1, c = 1;
	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		unsigned char b = (unsigned char)buf[i];
		if (b == '\n') {
			l++;
			c = 1;
		} else if ((b & 0xc0) != 0x80) { /* count characters, not continuation bytes */
			c++;
		}
	}
	*line = l;
	*col = c;
}

static void err_at(struct mf_errors *e, const char *buf, size_t len, size_t off, const char *what)
{
	size_t l, c;
	mf_linecol(buf, len, off, &l, &c);
	mf_err(e, "line %zu, column %zu: %s", l, c, what);
}

/* Length of the valid UTF-8 sequence at p (strict: no overlongs, no surrogates, <= U+10FFFF),
 * or 0 when invalid. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned char b = p[0];
	if (b < 0x80)
		return 1;
	size_t n;
	unsigned cp;
	if (b >= 0xc2 && b <= 0xdf)
		n = 2, cp = b & 0x1f;
	else if (b >= 0xe0 && b <= 0xef)
		n = 3, cp = b & 0x0f;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 4, cp = b & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* ---- pre-scan ------------------------------------------------------------------------------- */

static int prescan(const char *buf, size_t len, struct mf_errors *e)
{
	if (len > MF_MAX_BYTES) {
		mf_err(e, "manifest is %zu bytes; the limit is %u bytes", len, (unsigned)MF_MAX_BYTES);
		return -1;
	}
	const unsigned char *p = (const unsigned char *)buf;
	bool in_str = false, escaped = false;
	unsigned depth = 0;
	char what[96];
	for (size_t i = 0; i < len;) {
		unsigned char b = p[i];
		if (b == 0) {
			err_at(e, buf, len, i, "NUL byte in the manifest");
			return -1;
		}
		if (b >= 0x80) {
			size_t n = utf8_seq(p + i, len - i);
			if (!n) {
				err_at(e, buf, len, i, "invalid UTF-8");
				return -1;
			}
			i += n;
			escaped = false;
			continue;
		}
		if (in_str) {
			if (escaped) {
				escaped = false;
			} else if (b == '"') {
				in_str = false;
			} else if (b == '\\') {
				if (i + 5 < len && p[i + 1] == 'u' && !memcmp(p + i + 2, "0000", 4)) {
					err_at(e, buf, len, i, "\\u0000 (NUL) is not allowed in a string");
					return -1;
				}
				escaped = true;
			}
		} else if (b == '"') {
			in_str = true;
		} else if (b == '[' || b == '{') {
			if (++depth > MF_MAX_DEPTH) {
				snprintf(what, sizeof what, "nesting deeper than %d levels", MF_MAX_DEPTH);
				err_at(e, buf, len, i, what);
				return -1;
			}
		} else if ((b == ']' || b == '}') && depth > 0) {
			depth--;
		}
		i++;
	}
	return 0;
}

static size_t skip_ws(const char *buf, size_t len, size_t i)
{
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i;
}

/* ---- duplicate keys ------------------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(x->string, y->string);
}

static void child_path(char *out, size_t ol, const char *parent, const cJSON *it, size_t idx)
{
	char q[128];
	if (it->string) {
		mf_quote(it->string, q, sizeof q);
		if (parent[0])
			snprintf(out, ol, "%s.%s", parent, q);
		else
			snprintf(out, ol, "%s", q);
	} else {
		snprintf(out, ol, "%s[%zu]", parent, idx);
	}
}

/* Depth is bounded by the pre-scan (MF_MAX_DEPTH), so the recursion is too. Returns the number of
 * duplicates found. */
static size_t dupkeys(const cJSON *node, const char *path, struct mf_errors *e)
{
	size_t found = 0, n = 0, idx = 0;
	char cp[MF_JPATH_MAX];
	for (const cJSON *c = node->child; c; c = c->next)
		n++;
	if (cJSON_IsObject(node) && n > 1) {
		const cJSON **v = malloc(n * sizeof *v);
		if (!v) {
			mf_err(e, "%s: out of memory", path[0] ? path : "(top level)");
			return 1;
		}
		size_t k = 0;
		for (const cJSON *c = node->child; c; c = c->next)
			v[k++] = c;
		qsort(v, n, sizeof *v, cmp_key);
		for (size_t i = 1; i < n; i++) {
			if (!strcmp(v[i]->string, v[i - 1]->string) &&
			    (i < 2 || strcmp(v[i]->string, v[i - 2]->string))) {
				child_path(cp, sizeof cp, path, v[i], 0);
				mf_err(e, "%s: duplicate key", cp);
				found++;
			}
		}
		free(v);
	}
	for (const cJSON *c = node->child; c; c = c->next, idx++) {
		if (c->child) {
			child_path(cp, sizeof cp, path, c, idx);
			found += dupkeys(c, cp, e);
		}
	}
	return found;
}

/* ---- entry ---------------------------------------------------------------------------------- */

cJSON *mf_json_parse(const char *buf, size_t len, struct mf_errors *e)
{
	char what[160];
	size_t off = 0;
	if (prescan(buf, len, e) < 0)
		return NULL;
	if (mf_json_check(buf, len, &off, what, sizeof what) < 0) {
		err_at(e, buf, len, off, what);
		return NULL;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
	if (!root) {
		/* the checker accepted it: cJSON can only have run out of memory (or disagree) */
		off = (end && end >= buf && end <= buf + len) ? (size_t)(end - buf) : len;
		err_at(e, buf, len, off, "cannot parse the manifest (out of memory?)");
		return NULL;
	}
	if (end && skip_ws(buf, len, (size_t)(end - buf)) < len) {
		err_at(e, buf, len, skip_ws(buf, len, (size_t)(end - buf)), "unexpected data after the JSON value");
		cJSON_Delete(root);
		return NULL;
	}
	if (dupkeys(root, "", e)) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}
