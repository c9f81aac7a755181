/* jsonlite_get.c — reading the spans jl_check() recorded: lookup, string decoding, integers
 * (contract: jsonlite.h). */
#include "jsonlite.h"

#include <string.h>


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
