/* jsonlite.c — validating, allocation-free JSON scanner (contract: jsonlite.h). */
#include "jsonlite.h"

#include <string.h>

struct scan {
	const char *s;
	size_t n, i;
	const char *err;
};

static void ws(struct scan *c)
{
	while (c->i < c->n) {
		char ch = c->s[c->i];
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			break;
		c->i++;
	}
}

static int fail(struct scan *c, const char *msg)
{
	if (!c->err)
		c->err = msg;
	return -1;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* at '"'; on success c->i is past the closing quote */
static int str(struct scan *c, struct jl_span *sp)
{
	c->i++;
	size_t start = c->i;
	bool esc = false;
	const char *s = c->s;
	for (;;) {
		/* fast skip of plain bytes */
		while (c->i < c->n) {
			unsigned char ch = (unsigned char)s[c->i];
			if (ch == '"' || ch == '\\' || ch < 0x20)
				break;
			c->i++;
		}
		if (c->i >= c->n)
			return fail(c, "unterminated string");
		unsigned char ch = (unsigned char)s[c->i];
		if (ch == '"')
			break;
		if (ch < 0x20)
			return fail(c, "control character in string");
		esc = true;
		c->i++;
		if (c->i >= c->n)
			return fail(c, "unterminated string");
		switch (s[c->i]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			c->i++;
			break;
		case 'u':
			if (c->i + 4 >= c->n)
				return fail(c, "bad \\u escape");
			for (int k = 1; k <= 4; k++)
				if (hexval(s[c->i + k]) < 0)
					return fail(c, "bad \\u escape");
			c->i += 5;
			break;
		default:
			return fail(c, "bad escape in string");
		}
	}
	if (sp) {
		sp->p = s + start;
		sp->n = c->i - start;
		sp->type = JL_STR;
		sp->esc = esc;
	}
	c->i++;
	return 0;
}

/* One or more decimal digits at *i: true with *i past them; false, *i untouched, when none. */
static bool digits(const struct scan *c, size_t *i)
{
	size_t j = *i;
	while (j < c->n && c->s[j] >= '0' && c->s[j] <= '9')
		j++;
	if (j == *i)
		return false;
	*i = j;
	return true;
}

static int num(struct scan *c)
{
	const char *s = c->s;
	size_t i = c->i;
	if (i < c->n && s[i] == '-')
		i++;
	if (i >= c->n)
		return fail(c, "bad number");
	if (s[i] == '0')
		i++;
	else if (s[i] >= '1' && s[i] <= '9')
		digits(c, &i);
	else
		return fail(c, "bad number");
	if (i < c->n && s[i] == '.') {
		i++;
		if (!digits(c, &i))
			return fail(c, "bad number");
	}
	if (i < c->n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < c->n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!digits(c, &i))
			return fail(c, "bad number");
	}
	c->i = i;
	return 0;
}

static int lit(struct scan *c, const char *w)
{
	size_t l = strlen(w);
	if (c->n - c->i < l || memcmp(c->s + c->i, w, l) != 0)
		return fail(c, "invalid literal");
	c->i += l;
	return 0;
}

static int value(struct scan *c, struct jl_span *sp, int depth, struct jl_obj *rec);

/* At the '{' or '[' of a container closed by `close`: checks the depth and consumes the bracket.
 * Returns 0 when the container is empty (its `close` consumed too), 1 when items follow, -1 when
 * nested too deep. */
static int open_container(struct scan *c, int depth, char close)
{
	if (depth > JL_MAX_DEPTH)
		return fail(c, "nested too deep");
	c->i++;
	ws(c);
	if (c->i < c->n && c->s[c->i] == close) {
		c->i++;
		return 0;
	}
	return 1;
}

/* After a member or an element: a ',' (consumed; returns 1, another item follows) or `close`
 * (consumed; returns 0, the container ends). Anything else fails (-1). */
static int next_item(struct scan *c, char close)
{
	ws(c);
	if (c->i >= c->n)
		return fail(c, close == '}' ? "unterminated object" : "unterminated array");
	if (c->s[c->i] == ',') {
		c->i++;
		return 1;
	}
	if (c->s[c->i] == close) {
		c->i++;
		return 0;
	}
	return fail(c, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

static int object(struct scan *c, int depth, struct jl_obj *rec)
{
	int more = open_container(c, depth, '}');
	while (more > 0) {
		ws(c);
		if (c->i >= c->n || c->s[c->i] != '"')
			return fail(c, "expected a member name");
		struct jl_span k, v;
		if (str(c, &k) < 0)
			return -1;
		ws(c);
		if (c->i >= c->n || c->s[c->i] != ':')
			return fail(c, "expected ':'");
		c->i++;
		ws(c);
		if (value(c, &v, depth, NULL) < 0)
			return -1;
		if (rec) {
			if (rec->n < JL_MAX_MEMBERS) {
				rec->m[rec->n].key = k;
				rec->m[rec->n].val = v;
				rec->n++;
			}
			rec->total++;
		}
		more = next_item(c, '}');
	}
	return more;
}

static int array(struct scan *c, int depth)
{
	int more = open_container(c, depth, ']');
	while (more > 0) {
		ws(c);
		if (value(c, NULL, depth, NULL) < 0)
			return -1;
		more = next_item(c, ']');
	}
	return more;
}

static int value(struct scan *c, struct jl_span *sp, int depth, struct jl_obj *rec)
{
	if (c->i >= c->n)
		return fail(c, "expected a value");
	size_t start = c->i;
	enum jl_type t;
	int r;
	switch (c->s[c->i]) {
	case '"':
		return str(c, sp);
	case '{':
		t = JL_OBJ;
		r = object(c, depth + 1, rec);
		break;
	case '[':
		t = JL_ARR;
		r = array(c, depth + 1);
		break;
	case 't':
		t = JL_TRUE;
		r = lit(c, "true");
		break;
	case 'f':
		t = JL_FALSE;
		r = lit(c, "false");
		break;
	case 'n':
		t = JL_NULL;
		r = lit(c, "null");
		break;
	default:
		t = JL_NUM;
		r = num(c);
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

int jl_object(const char *s, size_t n, struct jl_obj *o, const char **err, size_t *err_off)
{
	struct scan c = {.s = s, .n = n, .i = 0, .err = NULL};
	o->n = 0;
	o->total = 0;
	ws(&c);
	int r = -1;
	if (c.i >= c.n || s[c.i] != '{')
		fail(&c, "not a JSON object");
	else if (object(&c, 1, o) == 0) {
		ws(&c);
		if (c.i != c.n)
			fail(&c, "trailing bytes after the object");
		else
			r = 0;
	}
	if (r < 0) {
		if (err)
			*err = c.err;
		if (err_off)
			*err_off = c.i;
	}
	return r;
}

bool jl_key_eq(const struct jl_span *k, const char *lit_)
{
	size_t l = strlen(lit_);
	return k->n == l && memcmp(k->p, lit_, l) == 0;
}

const struct jl_span *jl_get(const struct jl_obj *o, const char *key)
{
	for (size_t i = 0; i < o->n; i++)
		if (jl_key_eq(&o->m[i].key, key))
			return &o->m[i].val;
	return NULL;
}

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

static unsigned hex4(const char *p)
{
	return (unsigned)(hexval(p[0]) << 12 | hexval(p[1]) << 8 | hexval(p[2]) << 4 | hexval(p[3]));
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
				unsigned cp = hex4(p);
				p += 4;
				if (cp >= 0xD800 && cp <= 0xDBFF && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
					unsigned lo = hex4(p + 2);
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

bool jl_str_eq(const struct jl_span *v, const char *lit_)
{
	if (!v || v->type != JL_STR)
		return false;
	size_t l = strlen(lit_);
	if (!v->esc)
		return v->n == l && memcmp(v->p, lit_, l) == 0;
	char buf[256];
	long d = jl_str(v, buf, sizeof buf);
	return d >= 0 && (size_t)d == l && l < sizeof buf && memcmp(buf, lit_, l) == 0;
}

int jl_u64(const struct jl_span *v, uint64_t *out)
{
	if (!v || v->type != JL_NUM || v->n == 0 || v->n > 20)
		return -1;
	uint64_t r = 0;
	for (size_t i = 0; i < v->n; i++) {
		char ch = v->p[i];
		if (ch < '0' || ch > '9')
			return -1;
		uint64_t d = (uint64_t)(ch - '0');
		if (r > (UINT64_MAX - d) / 10)
			return -1;
		r = r * 10 + d;
	}
	*out = r;
	return 0;
}

int jl_i64(const struct jl_span *v, int64_t *out)
{
	if (!v || v->type != JL_NUM || v->n == 0)
		return -1;
	struct jl_span t = *v;
	bool neg = t.p[0] == '-';
	if (neg) {
		t.p++;
		t.n--;
	}
	uint64_t u;
	if (jl_u64(&t, &u) < 0 || u > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}
