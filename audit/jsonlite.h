/* jsonlite.h — a validating, allocation-free JSON scanner for audit lines.
 *
 * Promise: jl_object() accepts exactly one RFC 8259 JSON object filling s[0..n) (whitespace
 * around it allowed), nesting at most JL_MAX_DEPTH deep, and records the spans of its first
 * JL_MAX_MEMBERS top-level members (key without quotes, escapes undecoded; value as written,
 * strings without quotes). It does not check UTF-8 (use utf8_valid on the line) and never
 * allocates, so scanning is linear and bounded. Nested objects are scanned again by calling
 * jl_object() on a member's value span.
 */
#ifndef SBX_JSONLITE_H
#define SBX_JSONLITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_MAX_DEPTH 64
#define JL_MAX_MEMBERS 64

enum jl_type { JL_NONE = 0, JL_STR, JL_NUM, JL_OBJ, JL_ARR, JL_TRUE, JL_FALSE, JL_NULL };

struct jl_span {
	const char *p;
	size_t n;
	enum jl_type type;
	bool esc; /* string contains a backslash escape */
};

struct jl_member {
	struct jl_span key, val;
};

struct jl_obj {
	size_t n;     /* members recorded */
	size_t total; /* members present (may exceed JL_MAX_MEMBERS) */
	struct jl_member m[JL_MAX_MEMBERS];
};

/* Returns 0, or -1 with *err (static text) and *err_off (byte offset) set. */
int jl_object(const char *s, size_t n, struct jl_obj *o, const char **err, size_t *err_off);

/* Member lookup by key (raw bytes); NULL if absent. */
const struct jl_span *jl_get(const struct jl_obj *o, const char *key);
/* True if the span is a string equal to `lit` (decoding escapes). */
bool jl_str_eq(const struct jl_span *v, const char *lit);
bool jl_key_eq(const struct jl_span *k, const char *lit);
/* Decode a string span into out (NUL-terminated, cut at outlen-1 bytes). Returns the decoded
 * length before cutting, or -1 if v is not a string. \u0000 decodes to U+FFFD. */
long jl_str(const struct jl_span *v, char *out, size_t outlen);
/* A non-negative integer number (no fraction/exponent) into *out. Returns 0 or -1. */
int jl_u64(const struct jl_span *v, uint64_t *out);
/* Any integer number (no fraction/exponent) into *out. Returns 0 or -1. */
int jl_i64(const struct jl_span *v, int64_t *out);

#endif
