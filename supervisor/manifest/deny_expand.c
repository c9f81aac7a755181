/* deny_expand.c — see deny_expand.h. */
#include "deny_expand.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy.h"
#include "policy_write.h"
#include "syspaths.h"

#define DX_DEPTH 64

struct walk {
	struct pol_writer *w;
	const struct dx_deny *d;
	size_t nd;
	size_t budget;
	struct dx_result *r;
	bool failed;
	bool floating;      /* the floating denies apply to this root (not a system tree) */
};

static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* Can deny `g` match `dir` or something below it? A floating glob anywhere (outside the system
 * trees); else only when its literal prefix lies below dir or dir below it. */
static bool may_match_below(const struct walk *k, const char *g, const char *dir)
{
	size_t n = pol_glob_literal_prefix(g);
	if (n == 0)
		return k->floating;
	char lit[PATH_MAX];
	if (n >= sizeof lit)
		return true;
	memcpy(lit, g, n);
	lit[n] = 0;
	return is_under(lit, dir) || is_under(dir, lit);
}

static void stop(struct walk *k, const char *where, const char *why)
{
	if (k->r->truncated)
		return;
	k->r->truncated = true;
	snprintf(k->r->note, sizeof k->r->note, "%s: %s; not walked further (the seccomp layer's deny "
		 "decision holds what was not walked)", where, why);
}

/* The rule of the first deny matching `path`, or -1. A directory matches a "GLOB/" "**" deny whose
 * GLOB matches it: all of it is denied, it is masked whole. */
static long match(const struct walk *k, const char *path, bool isdir)
{
	for (size_t i = 0; i < k->nd; i++) {
		const char *g = k->d[i].glob;
		if (!k->floating && pol_glob_literal_prefix(g) == 0)
			continue;
		if (pol_glob_match(g, path))
			return (long)k->d[i].rule;
		size_t gl = strlen(g);
		char head[PATH_MAX];
		if (isdir && gl > 3 && gl < sizeof head && !strcmp(g + gl - 3, "/**")) {
			memcpy(head, g, gl - 3);
			head[gl - 3] = 0;
			if (pol_glob_match(head, path))
				return (long)k->d[i].rule;
		}
	}
	return -1;
}

static void walk_dir(struct walk *k, char *path, size_t len, int depth)
{
	if (k->failed || k->r->truncated)
		return;
	if (depth > DX_DEPTH) {
		stop(k, path, "too deep");
		return;
	}
	bool any = false;
	for (size_t i = 0; i < k->nd && !any; i++)
		any = may_match_below(k, k->d[i].glob, path);
	if (!any)
		return;
	DIR *dir = opendir(path);
	if (!dir)
		return; /* unreadable here: the executor cannot reach it through this path either */
	struct dirent *e;
	while (!k->failed && !k->r->truncated && (e = readdir(dir)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++k->r->walked > k->budget) {
			stop(k, path, "more directory entries than the start-up budget");
			break;
		}
		size_t nl = strlen(e->d_name);
		if (len + 1 + nl >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, nl + 1);
		if (len == 1) /* below "/" */
			memmove(path + 1, path + 2, nl + 1);
		size_t cl = len == 1 ? 1 + nl : len + 1 + nl;
		bool isdir = e->d_type == DT_DIR;
		struct stat st;
		if (e->d_type == DT_UNKNOWN && lstat(path, &st) == 0)
			isdir = S_ISDIR(st.st_mode);
		long rule = match(k, path, isdir);
		if (rule >= 0) {
			if (k->r->matches >= DX_MAX_MASKS) {
				stop(k, path, "more matches than can be masked");
			} else if (pol_writer_mask(k->w, path, (uint32_t)rule) < 0) {
				k->failed = true;
			} else {
				k->r->matches++;
			}
		} else if (isdir) {
			walk_dir(k, path, cl, depth + 1);
		}
		path[len] = 0;
	}
	closedir(dir);
}

/* Never walked: kernel file systems, and "/tmp" itself — the run's /tmp is never the host's (a
 * tmpfs in bwrap, the run's private directory bound there otherwise). */
static bool skipped_root(const char *p)
{
	return is_under(p, "/proc") || is_under(p, "/sys") || is_under(p, "/dev") || !strcmp(p, "/tmp");
}

int deny_expand(struct pol_writer *w, const struct dx_deny *d, size_t nd, const char *workspace,
		size_t budget, struct dx_result *r)
{
	memset(r, 0, sizeof *r);
	if (nd == 0)
		return 0;
	/* the grants, copied (the writer's strings move as masks are added); the workspace first */
	size_t n = 0;
	const char *gp;
	unsigned acc;
	while (pol_writer_dir_at(w, n, &gp, &acc) == 0)
		n++;
	char **roots = calloc(n + 1, sizeof *roots);
	if (!roots)
		return -1;
	size_t nr = 0;
	if (workspace && workspace[0] == '/')
		roots[nr++] = strdup(workspace);
	for (size_t i = 0; i < n; i++) {
		if (pol_writer_dir_at(w, i, &gp, &acc) < 0 || !(acc & (POL_READ | POL_WRITE)) ||
		    skipped_root(gp) || (workspace && !strcmp(gp, workspace)))
			continue;
		roots[nr++] = strdup(gp);
	}
	struct walk k = {.w = w, .d = d, .nd = nd, .budget = budget, .r = r, .floating = true};
	char path[PATH_MAX];
	for (size_t i = 0; i < nr && !k.failed && !r->truncated; i++) {
		if (!roots[i]) {
			k.failed = true;
			break;
		}
		bool done = false; /* below a root walked already */
		for (size_t j = 0; j < i && !done; j++)
			done = roots[j] && is_under(roots[i], roots[j]);
		struct stat st;
		if (done || strlen(roots[i]) >= sizeof path || lstat(roots[i], &st) < 0)
			continue;
		/* a floating deny is not looked for in the system trees (/usr, /etc, ...: read-only,
		 * root's, and large): the seccomp layer's decision holds matches there */
		k.floating = true;
		for (size_t j = 0; never_writable(j) && k.floating; j++)
			k.floating = !path_under(roots[i], never_writable(j));
		long rule = match(&k, roots[i], S_ISDIR(st.st_mode));
		if (rule >= 0 || !S_ISDIR(st.st_mode)) { /* a granted path that a deny names */
			if (rule >= 0 && pol_writer_mask(w, roots[i], (uint32_t)rule) < 0)
				k.failed = true;
			else if (rule >= 0)
				r->matches++;
			continue;
		}
		snprintf(path, sizeof path, "%s", roots[i]);
		walk_dir(&k, path, strlen(path), 0);
	}
	for (size_t i = 0; i < nr; i++)
		free(roots[i]);
	free(roots);
	return k.failed ? -1 : 0;
}
