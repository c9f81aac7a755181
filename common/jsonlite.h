/* jsonlite.h — the one strict JSON pre-check of sbxsup, for manifests and audit lines.
 *
 * Promise: jl_check() accepts exactly one RFC 8259 JSON value filling s[0..n) (whitespace around
 * it allowed; a UTF-8 byte order mark too with JL_BOM) under these extra rules, in one linear pass
 * that never allocates and recurses at most max_depth (<= JL_MAX_DEPTH) deep:
 *   - no NUL byte anywhere and no "\u0000" escape (cJSON would cut the string there);
 *   - strings are well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF) and
 *     their \u escapes pair surrogates correctly;
 *   - no object has two members with the same name (compared decoded, so "a" and "\u0061" are
 *     the same name), at every depth; at most JL_MAX_OPEN_KEYS names in the objects open at once.
 * Anything else fails with the byte offset, 1-based line and column (in characters) and one short
 * message a person can act on, e.g. "expected ',' or '}' here (a missing comma?)" or
 * "env.set.A: duplicate key (first at line 3, column 12)" — the JSON path of a duplicate.
 *
 * Building a tree is cJSON's job (the manifest parser runs cJSON after this check). The audit
 * reader needs no tree: with o != NULL the value must be an object, and the spans of its first
 * JL_MAX_MEMBERS top-level members are recorded (key without quotes, escapes undecoded; value as
 * written, strings without quotes) for the accessors below; a nested object is read by calling
 * jl_object() on a member's value span. Spans point into s; nothing is owned.
 */
#ifndef SBX_JSONLITE_H
#define SBX_JSONLITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_MAX_DEPTH 64
#define JL_MAX_MEMBERS 64
#define JL_MAX_OPEN_KEYS 2048

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

/* What kind of problem jl_check found (callers that keep older, coarser messages map these). */
enum jl_errkind { JL_E_SYNTAX = 1, JL_E_UTF8, JL_E_NUL, JL_E_DEPTH, JL_E_DUP, JL_E_BOUND };

struct jl_error {
	enum jl_errkind kind;
	size_t off;       /* byte offset of the problem */
	size_t line, col; /* 1-based; col counts characters, not bytes */
	char what[256];   /* the message, without the position */
};

#define JL_BOM 1u /* tolerate a UTF-8 byte order mark before the value (as cJSON does) */

/* Returns 0, or -1 with *e filled (e may be NULL). max_depth 0 means JL_MAX_DEPTH. */
int jl_check(const char *s, size_t n, unsigned flags, unsigned max_depth, struct jl_obj *o,
	     struct jl_error *e);

/* jl_check(s, n, 0, JL_MAX_DEPTH, o, ...) with the message as static text (*err, may be NULL)
 * and the byte offset (*err_off, may be NULL). */
int jl_object(const char *s, size_t n, struct jl_obj *o, const char **err, size_t *err_off);

/* 1-based line and column (in characters) of byte offset off of s[0..n). */
void jl_linecol(const char *s, size_t n, size_t off, size_t *line, size_t *col);

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

/* The value of one hex digit, or -1. */
static inline int jl_hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

#endif
