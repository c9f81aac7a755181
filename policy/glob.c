/* glob.c — path glob matching on components (see policy.h for the contract).
 *
 * Promise: pol_glob_match() decides `*` (within one component), `?` (one character, never '/')
 * and `**` as a whole component (zero or more components; a `**` inside a component is a `*`).
 * A backslash makes the byte after it literal (`\*` is a star, `\\` a backslash; a backslash at
 * the end of a component matches itself); pol_glob_escape() writes a path as such a literal. There
 * are no character classes: every other byte (`[` included) matches itself. A component holding a
 * backslash counts as magic for pol_glob_has_magic / pol_glob_literal_prefix, so that the layers
 * that take a literal directory never take an escaped name for a path.
 *
 * Cost is bounded and polynomial, never exponential, whatever the pattern: both levels (characters
 * inside a component, components inside a path) use the classic greedy matcher with a single
 * backtracking point. That is correct here because a star absorbs any sequence of units and every
 * other unit matches exactly one unit, so retrying only from the most recent star never misses a
 * match. Worst case O(|glob| * |path|) character comparisons; no allocation, no recursion.
 *
 * libc only (linked into libsbxpreload.so).
 */
#include <string.h>

#include "policy.h"

/* Skip any '/' at s; return the start of the next component (may point at NUL). */
static const char *comp_start(const char *s)
{
	while (*s == '/')
		s++;
	return s;
}

static size_t comp_len(const char *s)
{
	size_t n = 0;
	while (s[n] != '\0' && s[n] != '/')
		n++;
	return n;
}

static const char *comp_next(const char *s)
{
	return comp_start(s + comp_len(s));
}

static bool comp_is_globstar(const char *s)
{
	return s[0] == '*' && s[1] == '*' && (s[2] == '\0' || s[2] == '/');
}

/* One component: p[0..pl) against s[0..sl). Greedy with one backtracking point. */
static bool comp_match(const char *p, size_t pl, const char *s, size_t sl)
{
	size_t pi = 0, si = 0, star_p = 0, star_s = 0;
	bool have_star = false;

	while (si < sl) {
		if (pi < pl && p[pi] == '*') {
			while (pi < pl && p[pi] == '*')
				pi++;
			have_star = true;
			star_p = pi;
			star_s = si;
		} else if (pi + 1 < pl && p[pi] == '\\') {
			if (p[pi + 1] == s[si]) {
				pi += 2;
				si++;
			} else if (have_star) {
				pi = star_p;
				si = ++star_s;
			} else {
				return false;
			}
		} else if (pi < pl && (p[pi] == '?' || p[pi] == s[si])) {
			pi++;
			si++;
		} else if (have_star) {
			pi = star_p;
			si = ++star_s;
		} else {
			return false;
		}
	}
	while (pi < pl && p[pi] == '*')
		pi++;
	return pi == pl;
}

bool pol_glob_match(const char *glob, const char *path)
{
	if (glob == NULL || path == NULL)
		return false;
	if ((glob[0] == '/') != (path[0] == '/'))
		return false;

	const char *pc = comp_start(glob), *sc = comp_start(path);
	const char *star_pc = NULL, *star_sc = NULL;

	for (;;) {
		if (*sc == '\0') {
			while (*pc != '\0' && comp_is_globstar(pc))
				pc = comp_next(pc);
			return *pc == '\0';
		}
		if (*pc != '\0' && comp_is_globstar(pc)) {
			/* `**`: first try to match zero components; remember where to retry. */
			pc = comp_next(pc);
			star_pc = pc;
			star_sc = sc;
			continue;
		}
		if (*pc != '\0' && comp_match(pc, comp_len(pc), sc, comp_len(sc))) {
			pc = comp_next(pc);
			sc = comp_next(sc);
			continue;
		}
		if (star_pc == NULL)
			return false;
		/* Let the last `**` absorb one more component and retry from there. */
		star_sc = comp_next(star_sc);
		sc = star_sc;
		pc = star_pc;
	}
}

bool pol_glob_has_magic(const char *s)
{
	return s != NULL && strpbrk(s, "*?\\") != NULL;
}

int pol_glob_escape(const char *path, char *out, size_t outlen)
{
	size_t o = 0;
	if (path == NULL || out == NULL || outlen == 0)
		return -1;
	for (; *path; path++) {
		bool meta = *path == '*' || *path == '?' || *path == '\\';
		if (o + (meta ? 2 : 1) >= outlen)
			return -1;
		if (meta)
			out[o++] = '\\';
		out[o++] = *path;
	}
	out[o] = '\0';
	return 0;
}

size_t pol_glob_literal_prefix(const char *glob)
{
	if (glob == NULL)
		return 0;
	size_t last_end = 0, i = 0;
	while (glob[i] != '\0') {
		while (glob[i] == '/')
			i++;
		if (glob[i] == '\0')
			break;
		bool magic = false;
		while (glob[i] != '\0' && glob[i] != '/') {
			if (glob[i] == '*' || glob[i] == '?' || glob[i] == '\\')
				magic = true;
			i++;
		}
		if (magic)
			return last_end;
		last_end = i;
	}
	/* No magic at all: the whole glob is literal ("/" stays "/"). */
	if (last_end == 0 && glob[0] == '/')
		return 1;
	return last_end;
}
