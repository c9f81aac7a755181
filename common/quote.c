/* quote.c — one quoting style for names shown to a person (contract: quote.h). */
#include "quote.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static unsigned code_point(const unsigned char *s, size_t l)
{
	if (l == 2)
		return ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
	if (l == 3)
		return ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
	return ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
}

static bool hidden_cp(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The escaped form of the unit at s[0..n): written to out (room >= 8), its length returned;
 * *used = input bytes consumed. */
static size_t unit(const unsigned char *s, size_t n, char *out, size_t *used, bool json)
{
	unsigned char c = s[0];
	*used = 1;
	if ((c == '"' || c == '\\') && json) { /* a JSON text: its quotes and backslashes are its own */
		out[0] = (char)c;
		return 1;
	}
	if (c == '"' || c == '\\')
		return (size_t)snprintf(out, 8, "\\%c", c);
	if (c < 0x20 || c == 0x7f) {
		static const char named[] = "\a\b\t\n\v\f\r";
		static const char letter[] = "abtnvfr";
		const char *k = c ? strchr(named, c) : NULL;
		if (k)
			return (size_t)snprintf(out, 8, "\\%c", letter[k - named]);
		return (size_t)snprintf(out, 8, "\\%03o", c);
	}
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	size_t l = utf8_seq_len(s, n);
	if (!l)
		return (size_t)snprintf(out, 8, "\\x%02x", c);
	*used = l;
	unsigned cp = code_point(s, l);
	if (hidden_cp(cp))
		return (size_t)snprintf(out, 8, "\\u%04x", cp);
	memcpy(out, s, l);
	return l;
}

/* Escape s into out (cap bytes incl. NUL, or compute only when out is NULL); quotes when q. Stops
 * before a unit that would not fit with `reserve` bytes left. Returns the length written. */
static size_t render(const char *str, bool q, bool json, char *out, size_t cap, size_t reserve, bool *cut)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, o = 0;
	char u[8];
	*cut = false;
	if (q) {
		if (out)
			out[o] = '"';
		o++;
	}
	while (i < n) {
		size_t used, k = unit(s + i, n - i, u, &used, json);
		if (out && o + k + reserve >= cap) {
			*cut = true;
			break;
		}
		if (out)
			memcpy(out + o, u, k);
		o += k;
		i += used;
	}
	if (q) {
		if (out)
			out[o] = '"';
		o++;
	}
	if (out)
		out[o] = '\0';
	return o;
}

static char *dup_render(const char *s, bool q, bool json)
{
	bool cut;
	if (!s)
		s = "(null)";
	size_t len = render(s, q, json, NULL, 0, 0, &cut);
	char *out = malloc(len + 1);
	if (out)
		render(s, q, json, out, len + 1, 0, &cut);
	return out;
}

char *sbx_quote(const char *s)
{
	return dup_render(s, true, false);
}

char *sbx_escape(const char *s)
{
	return dup_render(s, false, false);
}

char *sbx_escape_json(const char *s)
{
	return dup_render(s, false, true);
}

const char *sbx_q(const char *s, char *buf, size_t len)
{
	bool cut;
	if (!buf || len < 8)
		return buf && len ? (buf[0] = 0, buf) : "";
	size_t o = render(s ? s : "(null)", true, false, buf, len, 4, &cut);
	if (cut && o + 4 <= len)
		memcpy(buf + o, "...", 4);
	return buf;
}

bool sbx_escape_fit(char *s, size_t cap)
{
	bool cut = false;
	if (!s || !cap)
		return false;
	char *e = sbx_escape(s);
	if (e && strlen(e) < cap) {
		memcpy(s, e, strlen(e) + 1);
	} else {
		char *tmp = malloc(cap);
		cut = true;
		if (tmp) {
			render(s, false, false, tmp, cap, 0, &cut);
			memcpy(s, tmp, strlen(tmp) + 1);
		} else {
			for (char *p = s; *p; p++)   /* out of memory: at least nothing a terminal acts on */
				if ((unsigned char)*p < 0x20 || *p == 0x7f || (unsigned char)*p >= 0x80)
					*p = '?';
		}
		free(tmp);
	}
	free(e);
	return cut;
}
