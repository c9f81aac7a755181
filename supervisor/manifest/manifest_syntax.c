/* manifest_syntax.c — a strict JSON (RFC 8259) syntax checker that says exactly where and what.
 *
 * Promise: mf_json_check() accepts exactly the JSON that cJSON accepts for a manifest (one value,
 * surrounded by whitespace; strings with valid escapes and paired surrogates; no comments, no
 * trailing commas, no single quotes) and, for anything else, gives the byte offset of the first
 * problem and a short human message. It only runs after the pre-scan (size, NUL, UTF-8, depth), so
 * its recursion is bounded by MF_MAX_DEPTH. cJSON's own error pointer is too coarse for "line L,
 * column C" messages users can act on; this is why the check exists.
 */
#include <stdio.h>
#include <string.h>

#include "manifest_int.h"

struct jc {
	const char *s;
	size_t len, i;
	char *what;
	size_t wl;
};

static void ws(struct jc *c)
{
	while (c->i < c->len && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' ||
				 c->s[c->i] == '\r'))
		c->i++;
}

static int fail(struct jc *c, const char *msg)
{
	snprintf(c->what, c->wl, "%s", msg);
	return -1;
}

static int eof(struct jc *c)
{
	return c->i >= c->len;
}

/* What is wrong with the byte at c->i where a value was expected. */
static int bad_value(struct jc *c)
{
	if (eof(c))
		return fail(c, "unexpected end of input (an unclosed object or array?)");
	unsigned char ch = (unsigned char)c->s[c->i];
	if (ch == '}' || ch == ']') {
		snprintf(c->what, c->wl, "unexpected '%c' where a value was expected (a trailing comma?)", ch);
		return -1;
	}
	if (ch == '\'')
		return fail(c, "single quotes are not JSON; use double quotes");
	if (ch == '/' || ch == '#')
		return fail(c, "comments are not allowed in JSON");
	if (ch == ',')
		return fail(c, "unexpected ',' where a value was expected");
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')
		return fail(c, "unexpected word (strings need double quotes; the literals are true, false, null)");
	if (ch >= 0x20 && ch < 0x7f) {
		snprintf(c->what, c->wl, "unexpected '%c' where a value was expected", ch);
		return -1;
	}
	return fail(c, "unexpected character where a value was expected");
}

static int hex4(struct jc *c, unsigned *v)
{
	*v = 0;
	for (int k = 0; k < 4; k++, c->i++) {
		if (eof(c))
			return fail(c, "unterminated \\u escape");
		char h = c->s[c->i];
		unsigned d;
		if (h >= '0' && h <= '9')
			d = (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f')
			d = (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F')
			d = (unsigned)(h - 'A' + 10);
		else
			return fail(c, "\\u must be followed by 4 hex digits");
		*v = *v * 16 + d;
	}
	return 0;
}

static int string(struct jc *c)
{
	size_t start = c->i;
	c->i++; /* opening quote */
	for (;;) {
		if (eof(c)) {
			c->i = start;
			return fail(c, "unterminated string (missing closing '\"')");
		}
		unsigned char ch = (unsigned char)c->s[c->i];
		if (ch == '"') {
			c->i++;
			return 0;
		}
		if (ch < 0x20) {
			if (ch == '\n') {
				c->i = start;
				return fail(c, "unterminated string (missing closing '\"' before the end of the line)");
			}
			return fail(c, "raw control character in a string (write it as an escape: \\t, \\u0001, ...)");
		}
		if (ch != '\\') {
			c->i++;
			continue;
		}
		c->i++;
		if (eof(c))
			continue; /* reported as unterminated */
		char e = c->s[c->i];
		if (strchr("\"\\/bfnrt", e) && e) {
			c->i++;
			continue;
		}
		if (e != 'u') {
			c->i--;
			if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f)
				snprintf(c->what, c->wl, "invalid escape '\\%c' (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", e);
			else
				snprintf(c->what, c->wl, "invalid escape in a string");
			return -1;
		}
		size_t esc = c->i - 1;
		c->i++;
		unsigned v, lo;
		if (hex4(c, &v) < 0)
			return -1;
		if (v >= 0xdc00 && v <= 0xdfff) {
			c->i = esc;
			return fail(c, "invalid \\u escape: a low surrogate without a high surrogate before it");
		}
		if (v >= 0xd800 && v <= 0xdbff) {
			if (c->i + 1 >= c->len || c->s[c->i] != '\\' || c->s[c->i + 1] != 'u') {
				c->i = esc;
				return fail(c, "invalid \\u escape: a high surrogate must be followed by a low one");
			}
			c->i += 2;
			if (hex4(c, &lo) < 0)
				return -1;
			if (lo < 0xdc00 || lo > 0xdfff) {
				c->i = esc;
				return fail(c, "invalid \\u escape: a high surrogate must be followed by a low one");
			}
		}
	}
}

static int digits(struct jc *c)
{
	size_t s = c->i;
	while (!eof(c) && c->s[c->i] >= '0' && c->s[c->i] <= '9')
		c->i++;
	return c->i > s ? 0 : -1;
}

static int number(struct jc *c)
{
	size_t start = c->i;
	if (c->s[c->i] == '-')
		c->i++;
	if (!eof(c) && c->s[c->i] == '0') {
		c->i++;
		if (!eof(c) && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
			c->i = start;
			return fail(c, "invalid number (no leading zeros)");
		}
	} else if (digits(c) < 0) {
		c->i = start;
		return fail(c, "invalid number");
	}
	if (!eof(c) && c->s[c->i] == '.') {
		c->i++;
		if (digits(c) < 0) {
			c->i = start;
			return fail(c, "invalid number (a digit must follow '.')");
		}
	}
	if (!eof(c) && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (!eof(c) && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		if (digits(c) < 0) {
			c->i = start;
			return fail(c, "invalid number (bad exponent)");
		}
	}
	return 0;
}

static int value(struct jc *c);

static int after_item(struct jc *c, char close)
{
	ws(c);
	if (eof(c))
		return fail(c, close == '}' ? "unexpected end of input (missing '}')"
					    : "unexpected end of input (missing ']')");
	char ch = c->s[c->i];
	if (ch == ',' || ch == close)
		return 0;
	if (close == '}')
		return fail(c, "expected ',' or '}' here (a missing comma?)");
	return fail(c, "expected ',' or ']' here (a missing comma?)");
}

/* At the '{' or '[' of a container closed by `close`: consumes the bracket; true when the
 * container is empty (its `close` consumed too). */
static bool opens_empty(struct jc *c, char close)
{
	c->i++;
	ws(c);
	if (!eof(c) && c->s[c->i] == close) {
		c->i++;
		return true;
	}
	return false;
}

static int object(struct jc *c)
{
	if (opens_empty(c, '}'))
		return 0;
	for (;;) {
		ws(c);
		if (eof(c))
			return fail(c, "unexpected end of input (missing '}')");
		char ch = c->s[c->i];
		if (ch == '}')
			return fail(c, "unexpected '}' after ',' (a trailing comma?)");
		if (ch == '\'')
			return fail(c, "single quotes are not JSON; use double quotes");
		if (ch != '"')
			return fail(c, "expected a key in double quotes");
		if (string(c) < 0)
			return -1;
		ws(c);
		if (eof(c))
			return fail(c, "unexpected end of input (missing '}')");
		if (c->s[c->i] != ':')
			return fail(c, "expected ':' after the key");
		c->i++;
		if (value(c) < 0)
			return -1;
		if (after_item(c, '}') < 0)
			return -1;
		if (c->s[c->i++] == '}')
			return 0;
	}
}

static int array(struct jc *c)
{
	if (opens_empty(c, ']'))
		return 0;
	for (;;) {
		ws(c);
		if (!eof(c) && c->s[c->i] == ']')
			return fail(c, "unexpected ']' after ',' (a trailing comma?)");
		if (value(c) < 0)
			return -1;
		if (after_item(c, ']') < 0)
			return -1;
		if (c->s[c->i++] == ']')
			return 0;
	}
}

static int literal(struct jc *c, const char *w)
{
	size_t n = strlen(w);
	if (c->len - c->i >= n && !memcmp(c->s + c->i, w, n)) {
		c->i += n;
		return 0;
	}
	return bad_value(c);
}

static int value(struct jc *c)
{
	ws(c);
	if (eof(c))
		return bad_value(c);
	switch (c->s[c->i]) {
	case '{':
		return object(c);
	case '[':
		return array(c);
	case '"':
		return string(c);
	case 't':
		return literal(c, "true");
	case 'f':
		return literal(c, "false");
	case 'n':
		return literal(c, "null");
	default:
		if (c->s[c->i] == '-' || (c->s[c->i] >= '0' && c->s[c->i] <= '9'))
			return number(c);
		return bad_value(c);
	}
}

int mf_json_check(const char *buf, size_t len, size_t *err_off, char *what, size_t wl)
{
	struct jc c = {.s = buf, .len = len, .i = 0, .what = what, .wl = wl};
	/* a UTF-8 byte order mark is tolerated, as cJSON does */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		c.i = 3;
	ws(&c);
	if (eof(&c)) {
		*err_off = c.i;
		snprintf(what, wl, "empty manifest (expected a JSON object)");
		return -1;
	}
	if (value(&c) < 0) {
		*err_off = c.i;
		return -1;
	}
	ws(&c);
	if (!eof(&c)) {
		*err_off = c.i;
		snprintf(what, wl, "unexpected data after the JSON value");
		return -1;
	}
	return 0;
}
