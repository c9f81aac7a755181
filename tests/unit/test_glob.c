/* test_glob.c — the path glob matcher, literal prefixes, and lexical normalisation (policy.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy.h"

struct grow { const char *glob, *path; bool match; };

static const struct grow glob_table[] = {
	/* literals */
	{ "/a/b", "/a/b", true },
	{ "/a/b", "/a/bc", false },
	{ "/a/b", "/a", false },
	{ "/", "/", true },
	{ "/a", "/", false },
	{ "a/b", "/a/b", false },              /* relative vs absolute */
	{ "a/b", "a/b", true },
	{ "/a//b", "/a/b", true },             /* empty components ignored */
	/* '*' within one component */
	{ "/a/*", "/a/b", true },
	{ "/a/*", "/a/b/c", false },           /* '*' never crosses '/' */
	{ "/a/*", "/a", false },
	{ "/*", "/", false },
	{ "/a/*.txt", "/a/x.txt", true },
	{ "/a/*.txt", "/a/.txt", true },
	{ "/a/*.txt", "/a/x.txt.gz", false },
	{ "/a/*x*y*", "/a/0x1y2", true },
	{ "/a/*x*y*", "/a/0y1x2", false },
	{ "/etc/shadow*", "/etc/shadow", true },
	{ "/etc/shadow*", "/etc/shadow-", true },
	{ "/etc/shadow*", "/etc/shadow/x", false },
	{ "/a/b*c", "/a/bc", true },
	{ "/a/b*c", "/a/bxxc", true },
	{ "/a/b*c", "/a/bxxcd", false },
	/* '?' */
	{ "/a/?", "/a/b", true },
	{ "/a/?", "/a/bc", false },
	{ "/a/?", "/a", false },
	{ "/a?b", "/a/b", false },             /* '?' never matches '/' */
	{ "/a/b?d", "/a/bcd", true },
	{ "/?/?", "/x/y", true },
	/* '**' at the start, middle, end */
	{ "/**", "/", true },
	{ "/**", "/a/b/c", true },
	{ "/**/.env", "/.env", true },
	{ "/**/.env", "/a/b/.env", true },
	{ "/**/.env", "/a/b/.envx", false },
	{ "/**/.env", "/a/.env/b", false },
	{ "**/.env", "x/.env", true },
	{ "/a/**/z", "/a/z", true },
	{ "/a/**/z", "/a/b/c/z", true },
	{ "/a/**/z", "/a/b/c/zz", false },
	{ "/a/**/z", "/b/z", false },
	{ "/a/**", "/a", true },               /* zero components */
	{ "/a/**", "/a/b/c", true },
	{ "/a/**", "/ab", false },
	{ "/home/u/.ssh/**", "/home/u/.ssh/id_rsa", true },
	{ "/home/u/.ssh/**", "/home/u/.sshx", false },
	{ "/a/**/b/**/c", "/a/x/b/y/c", true },
	{ "/a/**/b/**/c", "/a/b/c", true },
	{ "/a/**/b/**/c", "/a/x/y/c", false },
	{ "/a/**/*.py", "/a/x/y/m.py", true },
	{ "/a/**/*.py", "/a/m.py", true },
	{ "/a/**/*.py", "/a/x/m.pyc", false },
	{ "/home/*/**", "/home/u/x", true },
	{ "/home/*/**", "/home/u", true },
	{ "/home/*/**", "/home", false },
	{ "/proc/*", "/proc/cpuinfo", true },
	{ "/proc/*", "/proc/1/environ", false },
	{ "/proc/self/**", "/proc/self", true },
	{ "/proc/self/**", "/proc/self/fd/3", true },
	/* '**' not a whole component behaves like '*' */
	{ "/a/b**", "/a/bcd", true },
	{ "/a/b**", "/a/b/c", false },
	{ "/a/**x", "/a/yx", true },
	{ "/a/**x", "/a/y/x", false },
	{ "/***", "/a", true },
	{ "/***", "/a/b", false },
	/* backtracking */
	{ "/**/a/b", "/a/a/a/b", true },
	{ "/**/a/**/b", "/a/x/a/y/b", true },
	{ "/a/*a*a*a*b", "/a/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
	/* no character classes; a backslash makes the next byte literal */
	{ "/a/[b]", "/a/[b]", true },
	{ "/a/[b]", "/a/b", false },
	{ "/a/\\*", "/a/\\x", false },
	{ "/a/\\*", "/a/*", true },
	{ "/a/\\*", "/a/x", false },
	{ "/\\*\\*/x", "/**/x", true },
	{ "/\\*\\*/x", "/usr/x", false },
	{ "/\\*\\*/x", "/x", false },
	{ "/a/b\\?", "/a/b?", true },
	{ "/a/b\\?", "/a/bc", false },
	{ "/a/\\\\", "/a/\\", true },
	{ "/a/x\\", "/a/x\\", true },            /* a trailing backslash matches itself */
	{ "/a/*\\*", "/a/abc*", true },
	{ "/a/*\\*", "/a/abc", false },
	{ "/a/\\x", "/a/x", true },                /* an escaped ordinary byte is that byte */
};

static void test_glob_table(void **state)
{
	(void)state;
	size_t bad = 0;
	for (size_t i = 0; i < sizeof glob_table / sizeof glob_table[0]; i++) {
		const struct grow *r = &glob_table[i];
		bool got = pol_glob_match(r->glob, r->path);
		if (got != r->match) {
			print_error("row %zu: glob %s path %s: want %d got %d\n", i, r->glob, r->path,
				    r->match, got);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(sizeof glob_table / sizeof glob_table[0] >= 40);
}

static void test_glob_null(void **state)
{
	(void)state;
	assert_false(pol_glob_match(NULL, "/a"));
	assert_false(pol_glob_match("/a", NULL));
}

/* Hostile patterns must stay polynomial: these would take astronomically long with a naive
 * recursive matcher. No timing assertion: the test simply has to finish (run.sh has a timeout). */
static void test_glob_hostile(void **state)
{
	(void)state;
	static char pat[4200], path[4200];
	size_t n = 0;
	while (n + 3 < 4000) {
		memcpy(pat + n, "/**", 3);
		n += 3;
	}
	memcpy(pat + n, "/x", 3);
	n = 0;
	while (n + 2 < 4000) {
		memcpy(path + n, "/a", 2);
		n += 2;
	}
	path[n] = '\0';
	assert_false(pol_glob_match(pat, path));
	path[n - 1] = 'x';
	assert_true(pol_glob_match(pat, path));

	/* Many stars inside one long component. */
	n = 0;
	pat[n++] = '/';
	while (n + 2 < 4000) {
		pat[n++] = '*';
		pat[n++] = 'a';
	}
	pat[n++] = 'b';
	pat[n] = '\0';
	n = 0;
	path[n++] = '/';
	while (n < 4000)
		path[n++] = 'a';
	path[n] = '\0';
	assert_false(pol_glob_match(pat, path));

	/* Alternating "**" and "*" components against a deep path. */
	n = 0;
	for (int i = 0; i < 500; i++) {
		memcpy(pat + n, i % 2 ? "/*" : "/**", i % 2 ? 2 : 3);
		n += i % 2 ? 2 : 3;
	}
	memcpy(pat + n, "/q", 3);
	assert_false(pol_glob_match(pat, path));
}

/* Reference matcher: plain recursion over split components (exponential, fine for tiny inputs). */
static bool ref_comp(const char *p, size_t pl, const char *s, size_t sl)
{
	if (pl == 0)
		return sl == 0;
	if (p[0] == '*')
		return ref_comp(p + 1, pl - 1, s, sl) || (sl > 0 && ref_comp(p, pl, s + 1, sl - 1));
	if (sl == 0)
		return false;
	return (p[0] == '?' || p[0] == s[0]) && ref_comp(p + 1, pl - 1, s + 1, sl - 1);
}

struct comps { const char *c[16]; size_t len[16]; size_t n; };

static void split(const char *s, struct comps *out)
{
	out->n = 0;
	while (*s) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		size_t l = strcspn(s, "/");
		out->c[out->n] = s;
		out->len[out->n++] = l;
		s += l;
	}
}

static bool ref_path(const struct comps *p, size_t pi, const struct comps *s, size_t si)
{
	if (pi == p->n)
		return si == s->n;
	if (p->len[pi] == 2 && p->c[pi][0] == '*' && p->c[pi][1] == '*')
		return ref_path(p, pi + 1, s, si) || (si < s->n && ref_path(p, pi, s, si + 1));
	if (si == s->n)
		return false;
	return ref_comp(p->c[pi], p->len[pi], s->c[si], s->len[si]) && ref_path(p, pi + 1, s, si + 1);
}

/* Random small globs and paths against the reference: the greedy matcher must agree. */
static void test_glob_vs_reference(void **state)
{
	(void)state;
	uint32_t seed = 12345;
#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
	static const char pal[] = "ab*?";
	size_t mism = 0, matches = 0;
	for (int iter = 0; iter < 200000; iter++) {
		char pat[64], path[64];
		size_t n = 0;
		int pc = 1 + (int)(RND() % 4);
		for (int c = 0; c < pc; c++) {
			pat[n++] = '/';
			if (RND() % 4 == 0) {
				pat[n++] = '*';
				pat[n++] = '*';
				continue;
			}
			int l = 1 + (int)(RND() % 3);
			for (int k = 0; k < l; k++)
				pat[n++] = pal[RND() % 4];
		}
		pat[n] = 0;
		n = 0;
		int sc = (int)(RND() % 6);
		for (int c = 0; c < sc; c++) {
			path[n++] = '/';
			int l = 1 + (int)(RND() % 3);
			for (int k = 0; k < l; k++)
				path[n++] = "ab"[RND() % 2];
		}
		if (n == 0)
			path[n++] = '/';
		path[n] = 0;
		struct comps P, S;
		split(pat, &P);
		split(path, &S);
		bool want = ref_path(&P, 0, &S, 0), got = pol_glob_match(pat, path);
		matches += want;
		if (want != got && mism++ < 10)
			print_error("glob %s path %s: reference %d, matcher %d\n", pat, path, want, got);
	}
#undef RND
	print_message("%zu of 200000 random pairs match\n", matches);
	assert_int_equal(mism, 0);
	assert_true(matches > 5000); /* the sample exercises both outcomes */
}

struct prow { const char *glob; size_t len; };

static void test_literal_prefix(void **state)
{
	(void)state;
	static const struct prow rows[] = {
		{ "/home/u/notes/**", 13 }, { "**/.env", 0 }, { "/**/.env", 0 }, { "/a/b", 4 },
		{ "/", 1 }, { "/a/*", 2 }, { "/*", 0 }, { "/etc/shadow*", 4 }, { "/a/b?/c", 2 },
		{ "/home/*/**", 5 }, { "a/*", 1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		size_t got = pol_glob_literal_prefix(rows[i].glob);
		if (got != rows[i].len)
			print_error("%s: want %zu got %zu\n", rows[i].glob, rows[i].len, got);
		assert_int_equal(got, rows[i].len);
	}
	assert_true(pol_glob_has_magic("/a/*"));
	assert_true(pol_glob_has_magic("/a/?"));
	assert_false(pol_glob_has_magic("/a/[b]"));
	assert_true(pol_glob_has_magic("/a/\\*"));
	assert_int_equal(pol_glob_literal_prefix("/w/a\\*b/c"), 2);  /* an escaped name is not a directory path */
	assert_false(pol_glob_has_magic(NULL));
}

/* A name from the executor, escaped, matches exactly itself (learn's proposals, issue 30). */
static void test_escape_literal(void **state)
{
	(void)state;
	static const char *const names[] = {
		"/**/x", "/w/*", "/w/?", "/w/[a]", "/w/a\\b", "/w/\\*", "/w/**", "/w/a*b?c\\", "/w/plain",
	};
	static const char *const others[] = {
		"/usr/x", "/x", "/w/a", "/w/b", "/w/ab", "/w/a\\", "/w/abbc", "/w/*/x", "/etc/cron.d",
	};
	char g[256];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		assert_int_equal(pol_glob_escape(names[i], g, sizeof g), 0);
		if (!pol_glob_match(g, names[i]))
			print_error("%s -> %s does not match itself\n", names[i], g);
		assert_true(pol_glob_match(g, names[i]));
		for (size_t k = 0; k < sizeof others / sizeof others[0]; k++)
			if (strcmp(others[k], names[i]) != 0) {
				if (pol_glob_match(g, others[k]))
					print_error("%s matches %s\n", g, others[k]);
				assert_false(pol_glob_match(g, others[k]));
			}
	}
	assert_int_equal(pol_glob_escape("/a*", g, 4), -1);    /* does not fit */
	assert_int_equal(pol_glob_escape("/a*", g, 5), 0);
	assert_string_equal(g, "/a\\*");
}

struct nrow { const char *cwd, *path, *want; };

static void test_normalize(void **state)
{
	(void)state;
	static const struct nrow rows[] = {
		{ "/", "/", "/" },
		{ "/", "/a/b", "/a/b" },
		{ "/", "/a/b/", "/a/b" },
		{ "/", "//a///b//", "/a/b" },
		{ "/", "/a/./b/.", "/a/b" },
		{ "/", "/a/../b", "/b" },
		{ "/", "/..", "/" },
		{ "/", "/../../..", "/" },
		{ "/", "/../etc/passwd", "/etc/passwd" },
		{ "/w", "x", "/w/x" },
		{ "/w/", "./x/../y", "/w/y" },
		{ "/w/d", "..", "/w" },
		{ "/w/d", "../../../..", "/" },
		{ "/w", "", "/w" },
		{ "/w", ".", "/w" },
		{ "/a/b", "../c/./d/", "/a/c/d" },
		{ "/", "/a/...", "/a/..." },
		{ "/", "/a/..b", "/a/..b" },
		{ "/x/../y", "z", "/y/z" },
	};
	char out[256];
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		assert_int_equal(pol_normalize(rows[i].cwd, rows[i].path, out, sizeof out), 0);
		if (strcmp(out, rows[i].want) != 0)
			print_error("cwd %s path %s: want %s got %s\n", rows[i].cwd, rows[i].path,
				    rows[i].want, out);
		assert_string_equal(out, rows[i].want);
	}
}

static void test_normalize_errors(void **state)
{
	(void)state;
	char out[8];
	errno = 0;
	assert_int_equal(pol_normalize("/", "/abcdefgh", out, sizeof out), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(pol_normalize("/", "/abcdef", out, sizeof out), 0);
	assert_string_equal(out, "/abcdef");
	/* ".." may shorten an over-long intermediate only if it fits at every step: refuse. */
	assert_int_equal(pol_normalize("/", "/abcdefgh/..", out, sizeof out), -1);
	/* relative path without an absolute cwd */
	assert_int_equal(pol_normalize(NULL, "a", out, sizeof out), -1);
	assert_int_equal(pol_normalize("rel", "a", out, sizeof out), -1);
	assert_int_equal(pol_normalize("/", "a", out, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob_table),
		cmocka_unit_test(test_glob_null),
		cmocka_unit_test(test_glob_hostile),
		cmocka_unit_test(test_glob_vs_reference),
		cmocka_unit_test(test_literal_prefix),
		cmocka_unit_test(test_escape_literal),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_normalize_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
