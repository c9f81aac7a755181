/* jsonlite_get.c — reading the spans jl_check() recorded: lookup, string compares, integers
 * (contract: jsonlite.h; decoding a string span, jl_str, is jsonlite.c's: its duplicate-key check
 * compares decoded names). */
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
