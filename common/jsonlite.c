/* jsonlite.c — the strict JSON pre-check and the span accessors (contract: jsonlite.h). */
#include "jsonlite.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects with up to this many members are checked for duplicates as each key arrives; larger
 * ones are sorted once when they close (so a 100 000-member object stays linear-logarithmic).
 * An audit line has 15 to ~25 members: at 16 nearly every line was sorted (qsort_r allocates), the
 * larger part of the reader's check. */
#define LINEAR_KEYS 32

struct key {
	uint32_t off, len; /* the name's bytes (inside the quotes) */
	bool esc;
};

struct level {
	bool obj;
	size_t base; /* first of this object's keys in scan.keys */
	size_t cur;  /* the current member's key (objects) */
	size_t idx;  /* the current element's index (arrays) */
};

struct scan {
	const char *s;
	size_t n, i;
	unsigned max_depth, depth;
	enum jl_errkind kind;
	const char *err; /* static message (also the fallback of a dynamic one) */
	char *what;      /* dynamic message, or "" */
	size_t wl;
	size_t nkeys;
	struct level lv[JL_MAX_DEPTH + 1];
	struct key keys[JL_MAX_OPEN_KEYS];
};

static const char NUL_MSG[] = "NUL byte (not allowed in JSON)";

static int fail(struct scan *c, enum jl_errkind kind, const char *msg)
{
	if (!c->err) {
		c->err = msg;
		c->kind = kind;
	}
	return -1;
}

static int failf(struct scan *c, enum jl_errkind kind, const char *fallback, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int failf(struct scan *c, enum jl_errkind kind, const char *fallback, const char *fmt, ...)
{
	if (c->err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->what, c->wl, fmt, ap);
	va_end(ap);
	return fail(c, kind, fallback);
}

static bool eof(const struct scan *c)
{
	return c->i >= c->n;
}

static void ws(struct scan *c)
{
	while (c->i < c->n) {
		char ch = c->s[c->i];
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			break;
		c->i++;
	}
}

/* The byte at c->i is not what the grammar wants: say why, NUL and bad UTF-8 first. */
static int bad_byte(struct scan *c, const char *msg)
{
	if (!eof(c)) {
		unsigned char ch = (unsigned char)c->s[c->i];
		if (ch == 0)
			return fail(c, JL_E_NUL, NUL_MSG);
		if (ch >= 0x80 && !utf8_seq_len((const unsigned char *)c->s + c->i, c->n - c->i))
			return fail(c, JL_E_UTF8, "invalid UTF-8");
	}
	return fail(c, JL_E_SYNTAX, msg);
}

/* What is wrong with the byte at c->i where a value was expected. */
static int bad_value(struct scan *c)
{
	if (eof(c))
		return fail(c, JL_E_SYNTAX, "unexpected end of input (an unclosed object or array?)");
	unsigned char ch = (unsigned char)c->s[c->i];
	if (ch == '}' || ch == ']')
		return failf(c, JL_E_SYNTAX, "unexpected bracket where a value was expected",
			     "unexpected '%c' where a value was expected (a trailing comma?)", ch);
	if (ch == '\'')
		return fail(c, JL_E_SYNTAX, "single quotes are not JSON; use double quotes");
	if (ch == '/' || ch == '#')
		return fail(c, JL_E_SYNTAX, "comments are not allowed in JSON");
	if (ch == ',')
		return fail(c, JL_E_SYNTAX, "unexpected ',' where a value was expected");
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_')
		return fail(c, JL_E_SYNTAX,
			    "unexpected word (strings need double quotes; the literals are true, false, null)");
	if (ch >= 0x20 && ch < 0x7f)
		return failf(c, JL_E_SYNTAX, "unexpected character where a value was expected",
			     "unexpected '%c' where a value was expected", ch);
	return bad_byte(c, "unexpected character where a value was expected");
}


static int hex4(struct scan *c, unsigned *v)
{
	*v = 0;
	for (int k = 0; k < 4; k++, c->i++) {
		if (eof(c))
			return fail(c, JL_E_SYNTAX, "unterminated \\u escape");
		int d = jl_hexval(c->s[c->i]);
		if (d < 0)
			return fail(c, JL_E_SYNTAX, "\\u must be followed by 4 hex digits");
		*v = *v * 16 + (unsigned)d;
	}
	return 0;
}

/* At '"'; on success c->i is past the closing quote and *sp (if any) spans the contents. */
static int string(struct scan *c, struct jl_span *sp)
{
	const char *s = c->s;
	size_t start = c->i;
	bool esc = false;
	c->i++;
	for (;;) {
		while (c->i < c->n) { /* fast skip of plain ASCII */
			unsigned char ch = (unsigned char)s[c->i];
			if (ch < 0x20 || ch == '"' || ch == '\\' || ch >= 0x80)
				break;
			c->i++;
		}
		if (eof(c)) {
			c->i = start;
			return fail(c, JL_E_SYNTAX, "unterminated string (missing closing '\"')");
		}
		unsigned char ch = (unsigned char)s[c->i];
		if (ch == '"')
			break;
		if (ch >= 0x80) {
			size_t l = utf8_seq_len((const unsigned char *)s + c->i, c->n - c->i);
			if (!l)
				return fail(c, JL_E_UTF8, "invalid UTF-8");
			c->i += l;
			continue;
		}
		if (ch < 0x20) {
			if (ch == 0)
				return fail(c, JL_E_NUL, NUL_MSG);
			if (ch == '\n') {
				c->i = start;
				return fail(c, JL_E_SYNTAX,
					    "unterminated string (missing closing '\"' before the end of the line)");
			}
			return fail(c, JL_E_SYNTAX,
				    "raw control character in a string (write it as an escape: \\t, \\u0001, ...)");
		}
		/* a backslash */
		esc = true;
		size_t bs = c->i++;
		if (eof(c))
			continue; /* reported as unterminated */
		char e = s[c->i];
		if (e && strchr("\"\\/bfnrt", e)) {
			c->i++;
			continue;
		}
		if (e != 'u') {
			c->i = bs;
			if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f)
				return failf(c, JL_E_SYNTAX, "invalid escape in a string",
					     "invalid escape '\\%c' (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", e);
			return fail(c, JL_E_SYNTAX, "invalid escape in a string");
		}
		c->i++;
		unsigned v, lo;
		if (hex4(c, &v) < 0)
			return -1;
		if (v == 0) {
			c->i = bs;
			return fail(c, JL_E_NUL, "\\u0000 (NUL) is not allowed in a string");
		}
		if (v >= 0xdc00 && v <= 0xdfff) {
			c->i = bs;
			return fail(c, JL_E_SYNTAX, "invalid \\u escape: a low surrogate without a high surrogate before it");
		}
		if (v >= 0xd800 && v <= 0xdbff) {
			if (c->i + 1 >= c->n || s[c->i] != '\\' || s[c->i + 1] != 'u') {
				c->i = bs;
				return fail(c, JL_E_SYNTAX, "invalid \\u escape: a high surrogate must be followed by a low one");
			}
			c->i += 2;
			if (hex4(c, &lo) < 0)
				return -1;
			if (lo < 0xdc00 || lo > 0xdfff) {
				c->i = bs;
				return fail(c, JL_E_SYNTAX, "invalid \\u escape: a high surrogate must be followed by a low one");
			}
		}
	}
	if (sp) {
		sp->p = s + start + 1;
		sp->n = c->i - start - 1;
		sp->type = JL_STR;
		sp->esc = esc;
	}
	c->i++;
	return 0;
}

static bool digits(struct scan *c)
{
	size_t st = c->i;
	while (!eof(c) && c->s[c->i] >= '0' && c->s[c->i] <= '9')
		c->i++;
	return c->i > st;
}

static int number(struct scan *c)
{
	size_t start = c->i;
	if (c->s[c->i] == '-')
		c->i++;
	if (!eof(c) && c->s[c->i] == '0') {
		c->i++;
		if (!eof(c) && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
			c->i = start;
			return fail(c, JL_E_SYNTAX, "invalid number (no leading zeros)");
		}
	} else if (!digits(c)) {
		c->i = start;
		return fail(c, JL_E_SYNTAX, "invalid number");
	}
	if (!eof(c) && c->s[c->i] == '.') {
		c->i++;
		if (!digits(c)) {
			c->i = start;
			return fail(c, JL_E_SYNTAX, "invalid number (a digit must follow '.')");
		}
	}
	if (!eof(c) && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (!eof(c) && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		if (!digits(c)) {
			c->i = start;
			return fail(c, JL_E_SYNTAX, "invalid number (bad exponent)");
		}
	}
	return 0;
}

static int literal(struct scan *c, const char *w)
{
	size_t l = strlen(w);
	if (c->n - c->i >= l && !memcmp(c->s + c->i, w, l)) {
		c->i += l;
		return 0;
	}
	return bad_value(c);
}

/* ---- member names: duplicates and the JSON path of a message ------------------------------------ */

static struct jl_span key_span(const struct scan *c, const struct key *k)
{
	return (struct jl_span){.p = c->s + k->off, .n = k->len, .type = JL_STR, .esc = k->esc};
}

/* Order of two names by their decoded bytes (raw bytes when neither has an escape). */
static int key_cmp(const struct scan *c, const struct key *a, const struct key *b)
{
	if (!a->esc && !b->esc) {
		int r = memcmp(c->s + a->off, c->s + b->off, a->len < b->len ? a->len : b->len);
		return r ? r : (a->len > b->len) - (a->len < b->len);
	}
	char x[512], y[512];
	struct jl_span sa = key_span(c, a), sb = key_span(c, b);
	long lx = jl_str(&sa, x, sizeof x), ly = jl_str(&sb, y, sizeof y);
	size_t cx = (size_t)lx < sizeof x ? (size_t)lx : sizeof x - 1;
	size_t cy = (size_t)ly < sizeof y ? (size_t)ly : sizeof y - 1;
	int r = memcmp(x, y, cx < cy ? cx : cy);
	return r ? r : (lx > ly) - (lx < ly);
}

static int key_order(const void *pa, const void *pb, void *ctx)
{
	const struct key *a = pa, *b = pb;
	int r = key_cmp(ctx, a, b);
	return r ? r : (a->off > b->off) - (a->off < b->off);
}

/* A name for a message: decoded, control and non-ASCII bytes as \xNN, cut at ~80 characters. */
static size_t put_name(const struct scan *c, const struct key *k, char *out, size_t ol)
{
	char dec[256];
	struct jl_span sp = key_span(c, k);
	long dl = jl_str(&sp, dec, sizeof dec);
	size_t o = 0;
	for (size_t i = 0; dec[i] && o + 8 < ol; i++) {
		unsigned char b = (unsigned char)dec[i];
		if (o >= 80 || (dl > 0 && (size_t)dl >= sizeof dec && i + 1 >= sizeof dec - 1)) {
			o += (size_t)snprintf(out + o, ol - o, "...");
			break;
		}
		if (b < 0x20 || b >= 0x7f)
			o += (size_t)snprintf(out + o, ol - o, "\\x%02x", b);
		else if (b == '"' || b == '\\')
			o += (size_t)snprintf(out + o, ol - o, "\\%c", b);
		else
			out[o++] = (char)b;
	}
	out[o < ol ? o : ol - 1] = '\0';
	return o < ol ? o : ol - 1;
}

/* The JSON path (a.b[2].c) of member `last` of the object at depth `depth`. */
static void json_path(const struct scan *c, const struct key *last, char *out, size_t ol)
{
	size_t o = 0;
	out[0] = '\0';
	for (unsigned d = 1; d <= c->depth && o + 16 < ol; d++) {
		const struct level *L = &c->lv[d];
		if (!L->obj) {
			o += (size_t)snprintf(out + o, ol - o, "[%zu]", L->idx);
			continue;
		}
		if (o)
			out[o++] = '.';
		o += put_name(c, d == c->depth ? last : &c->keys[L->cur], out + o, ol - o);
	}
}

static int duplicate(struct scan *c, const struct key *first, const struct key *dup)
{
	char path[160];
	size_t l, col;
	json_path(c, dup, path, sizeof path);
	jl_linecol(c->s, c->n, first->off - 1, &l, &col);
	c->i = dup->off - 1; /* its opening quote */
	return failf(c, JL_E_DUP, "duplicate key", "%s: duplicate key (first at line %zu, column %zu)", path, l,
		     col);
}

static int add_key(struct scan *c, struct level *L, const struct jl_span *k)
{
	struct key nk = {.off = (uint32_t)(k->p - c->s), .len = (uint32_t)k->n, .esc = k->esc};
	if (c->nkeys >= JL_MAX_OPEN_KEYS) {
		c->i = nk.off - 1;
		return failf(c, JL_E_BOUND, "too many keys", "more than %d keys in the objects open at once",
			     JL_MAX_OPEN_KEYS);
	}
	if (c->nkeys - L->base < LINEAR_KEYS)
		for (size_t j = L->base; j < c->nkeys; j++) {
			const struct key *old = &c->keys[j];
			/* unescaped names differ at a glance when their length or first byte does */
			if ((old->esc || nk.esc || (old->len == nk.len && c->s[old->off] == c->s[nk.off])) &&
			    !key_cmp(c, old, &nk))
				return duplicate(c, old, &nk);
		}
	L->cur = c->nkeys;
	c->keys[c->nkeys++] = nk;
	return 0;
}

/* An object closes: a large one is sorted once to find the earliest duplicate. */
static int close_keys(struct scan *c, struct level *L)
{
	size_t cnt = c->nkeys - L->base;
	if (cnt <= LINEAR_KEYS)
		return 0;
	struct key *k = c->keys + L->base;
	qsort_r(k, cnt, sizeof *k, key_order, c);
	const struct key *first = NULL, *dup = NULL;
	for (size_t j = 1; j < cnt; j++)
		if (!key_cmp(c, &k[j - 1], &k[j]) && (!dup || k[j].off < dup->off)) {
			first = &k[j - 1];
			dup = &k[j];
		}
	if (!dup)
		return 0;
	while (first > k && !key_cmp(c, first - 1, first)) /* the very first occurrence */
		first--;
	struct key f = *first, d = *dup;
	return duplicate(c, &f, &d);
}

/* ---- containers ------------------------------------------------------------------------------ */

static int value(struct scan *c, struct jl_span *sp, struct jl_obj *rec);

/* At '{' or '[': one level deeper (bounded), the bracket consumed. */
static struct level *enter(struct scan *c, bool obj)
{
	if (c->depth >= c->max_depth) {
		failf(c, JL_E_DEPTH, "nested too deep", "nesting deeper than %u levels", c->max_depth);
		return NULL;
	}
	struct level *L = &c->lv[++c->depth];
	L->obj = obj;
	L->base = c->nkeys;
	L->cur = 0;
	L->idx = 0;
	c->i++;
	ws(c);
	return L;
}

static void leave(struct scan *c, struct level *L)
{
	c->nkeys = L->base;
	c->depth--;
}

static int after_item(struct scan *c, char close)
{
	ws(c);
	if (eof(c))
		return fail(c, JL_E_SYNTAX, close == '}' ? "unexpected end of input (missing '}')"
							: "unexpected end of input (missing ']')");
	char ch = c->s[c->i];
	if (ch == ',' || ch == close)
		return 0;
	return bad_byte(c, close == '}' ? "expected ',' or '}' here (a missing comma?)"
					: "expected ',' or ']' here (a missing comma?)");
}

static int object(struct scan *c, struct jl_obj *rec)
{
	struct level *L = enter(c, true);
	if (!L)
		return -1;
	if (!eof(c) && c->s[c->i] == '}') {
		c->i++;
		leave(c, L);
		return 0;
	}
	for (;;) {
		ws(c);
		if (eof(c))
			return fail(c, JL_E_SYNTAX, "unexpected end of input (missing '}')");
		char ch = c->s[c->i];
		if (ch == '}')
			return fail(c, JL_E_SYNTAX, "unexpected '}' after ',' (a trailing comma?)");
		if (ch == '\'')
			return fail(c, JL_E_SYNTAX, "single quotes are not JSON; use double quotes");
		if (ch != '"')
			return bad_byte(c, "expected a key in double quotes");
		struct jl_span k, v;
		if (string(c, &k) < 0 || add_key(c, L, &k) < 0)
			return -1;
		ws(c);
		if (eof(c))
			return fail(c, JL_E_SYNTAX, "unexpected end of input (missing '}')");
		if (c->s[c->i] != ':')
			return bad_byte(c, "expected ':' after the key");
		c->i++;
		ws(c);
		if (value(c, rec ? &v : NULL, NULL) < 0)
			return -1;
		if (rec) {
			if (rec->n < JL_MAX_MEMBERS) {
				rec->m[rec->n].key = k;
				rec->m[rec->n].val = v;
				rec->n++;
			}
			rec->total++;
		}
		if (after_item(c, '}') < 0)
			return -1;
		if (c->s[c->i++] == '}')
			break;
	}
	if (close_keys(c, L) < 0)
		return -1;
	leave(c, L);
	return 0;
}

static int array(struct scan *c)
{
	struct level *L = enter(c, false);
	if (!L)
		return -1;
	if (!eof(c) && c->s[c->i] == ']') {
		c->i++;
		leave(c, L);
		return 0;
	}
	for (;; L->idx++) {
		ws(c);
		if (!eof(c) && c->s[c->i] == ']')
			return fail(c, JL_E_SYNTAX, "unexpected ']' after ',' (a trailing comma?)");
		if (value(c, NULL, NULL) < 0 || after_item(c, ']') < 0)
			return -1;
		if (c->s[c->i++] == ']')
			break;
	}
	leave(c, L);
	return 0;
}

static int value(struct scan *c, struct jl_span *sp, struct jl_obj *rec)
{
	ws(c);
	if (eof(c))
		return bad_value(c);
	size_t start = c->i;
	enum jl_type t;
	int r;
	switch (c->s[c->i]) {
	case '"':
		return string(c, sp);
	case '{':
		t = JL_OBJ;
		r = object(c, rec);
		break;
	case '[':
		t = JL_ARR;
		r = array(c);
		break;
	case 't':
		t = JL_TRUE;
		r = literal(c, "true");
		break;
	case 'f':
		t = JL_FALSE;
		r = literal(c, "false");
		break;
	case 'n':
		t = JL_NULL;
		r = literal(c, "null");
		break;
	default:
		if (c->s[c->i] != '-' && (c->s[c->i] < '0' || c->s[c->i] > '9'))
			return bad_value(c);
		t = JL_NUM;
		r = number(c);
		break;
	}
	if (r < 0)
		return -1;
	if (sp) {
		sp->p = c->s + start;
		sp->n = c->i - start;
		sp->type = t;
		sp->esc = false;
	}
	return 0;
}

/* ---- entry points ---------------------------------------------------------------------------- */

void jl_linecol(const char *s, size_t n, size_t off, size_t *line, size_t *col)
{
	size_t l = 1, c = 1;
	if (off > n)
		off = n;
	for (size_t i = 0; i < off; i++) {
		unsigned char b = (unsigned char)s[i];
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

static int check(const char *s, size_t n, unsigned flags, unsigned max_depth, struct jl_obj *o,
		 struct jl_error *e, const char **static_err, size_t *err_off)
{
	struct scan c; /* ~25 KiB: on the stack, never allocated */
	char what[sizeof e->what];
	c.s = s;
	c.n = n;
	c.i = 0;
	c.depth = 0;
	c.nkeys = 0;
	c.err = NULL;
	c.kind = 0;
	c.what = e ? e->what : what;
	c.wl = sizeof what;
	c.what[0] = '\0';
	c.max_depth = !max_depth || max_depth > JL_MAX_DEPTH ? JL_MAX_DEPTH : max_depth;
	if (o)
		o->n = o->total = 0;
	int r;
	if (n > UINT32_MAX) {
		r = fail(&c, JL_E_BOUND, "input larger than 4 GiB");
	} else {
		if ((flags & JL_BOM) && n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
			c.i = 3;
		ws(&c);
		if (o && eof(&c))
			r = fail(&c, JL_E_SYNTAX, "empty input (expected a JSON object)");
		else if (o && s[c.i] != '{')
			r = bad_byte(&c, "not a JSON object");
		else
			r = value(&c, NULL, o);
		if (r == 0) {
			ws(&c);
			if (!eof(&c))
				r = bad_byte(&c, "unexpected data after the JSON value");
		}
	}
	if (r == 0)
		return 0;
	if (static_err)
		*static_err = c.err;
	if (err_off)
		*err_off = c.i;
	if (e) {
		e->kind = c.kind;
		e->off = c.i;
		jl_linecol(s, n, c.i, &e->line, &e->col);
		if (!e->what[0])
			snprintf(e->what, sizeof e->what, "%s", c.err ? c.err : "syntax error");
	}
	return -1;
}

int jl_check(const char *s, size_t n, unsigned flags, unsigned max_depth, struct jl_obj *o,
	     struct jl_error *e)
{
	return check(s, n, flags, max_depth, o, e, NULL, NULL);
}

int jl_object(const char *s, size_t n, struct jl_obj *o, const char **err, size_t *err_off)
{
	return check(s, n, 0, JL_MAX_DEPTH, o, NULL, err, err_off);
}

/* Decoding a string span (jsonlite.h): the duplicate-key check above and the readers of
 * jsonlite_get.c. */
static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

static unsigned hex4_at(const char *p)
{
	return (unsigned)(jl_hexval(p[0]) << 12 | jl_hexval(p[1]) << 8 | jl_hexval(p[2]) << 4 | jl_hexval(p[3]));
}

long jl_str(const struct jl_span *v, char *out, size_t outlen)
{
	if (!v || v->type != JL_STR)
		return -1;
	size_t o = 0; /* decoded length */
	const char *p = v->p, *e = v->p + v->n;
	while (p < e) {
		char tmp[4];
		size_t tl;
		if (*p != '\\') {
			tmp[0] = *p++;
			tl = 1;
		} else {
			p++;
			char ch = *p++;
			switch (ch) {
			case 'b': tmp[0] = '\b'; tl = 1; break;
			case 'f': tmp[0] = '\f'; tl = 1; break;
			case 'n': tmp[0] = '\n'; tl = 1; break;
			case 'r': tmp[0] = '\r'; tl = 1; break;
			case 't': tmp[0] = '\t'; tl = 1; break;
			case 'u': {
				unsigned cp = hex4_at(p);
				p += 4;
				if (cp >= 0xD800 && cp <= 0xDBFF && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
					unsigned lo = hex4_at(p + 2);
					if (lo >= 0xDC00 && lo <= 0xDFFF) {
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
						p += 6;
					}
				}
				if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
					cp = 0xFFFD;
				tl = put_utf8(tmp, cp);
				break;
			}
			default: tmp[0] = ch; tl = 1; break;
			}
		}
		for (size_t k = 0; k < tl; k++, o++)
			if (out && o + 1 < outlen)
				out[o] = tmp[k];
	}
	if (out && outlen)
		out[o < outlen ? o : outlen - 1] = '\0';
	return (long)o;
}
