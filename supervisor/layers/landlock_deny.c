/* landlock_deny.c — see landlock_deny.h. */
#include "landlock_deny.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

struct masks {
	const char **v;
	size_t n;
};

static bool strictly_below(const struct masks *m, const char *dir)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i], dir) && is_under(m->v[i], dir))
			return true;
	return false;
}

static bool covered(const struct masks *m, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (is_under(path, m->v[i]))
			return true;
	return false;
}

static int push(struct ll_carve *c, const char *path, unsigned access, uint32_t rule, bool own)
{
	if (c->ndirs == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 64;
		struct pol_dir *d = realloc(c->dirs, nc * sizeof *d);
		if (!d)
			return -1;
		c->dirs = d;
		c->cap = nc;
	}
	const char *p = path;
	if (own) {
		if (c->nowned == c->cowned) {
			size_t nc = c->cowned ? 2 * c->cowned : 64;
			char **o = realloc(c->owned, nc * sizeof *o);
			if (!o)
				return -1;
			c->owned = o;
			c->cowned = nc;
		}
		char *s = strdup(path);
		if (!s)
			return -1;
		c->owned[c->nowned++] = s;
		p = s;
	}
	c->dirs[c->ndirs++] = (struct pol_dir){.path = p, .access = access, .rule = rule};
	return 0;
}

/* Enter `dir` (a grant's directory, or one below it on the way to a match). Returns 0, 1 past the
 * bound (the caller rolls back), -1 out of memory. */
static int carve_dir(struct ll_carve *c, const struct masks *m, char *path, size_t len, unsigned access,
		     uint32_t rule, bool own, size_t *budget)
{
	unsigned self = POL_LIST | ((access & POL_WRITE) ? LL_POL_NAMES : 0);
	if (push(c, path, self, rule, own) < 0)
		return -1;
	DIR *d = opendir(path);
	if (!d)
		return 0; /* unreadable: nothing below it is granted */
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		size_t nl = strlen(e->d_name);
		if (len + 1 + nl >= PATH_MAX)
			continue;
		if (*budget == 0) {
			rc = 1;
			break;
		}
		(*budget)--;
		size_t cl = len == 1 ? 1 + nl : len + 1 + nl;
		if (len == 1)
			memcpy(path + 1, e->d_name, nl + 1);
		else {
			path[len] = '/';
			memcpy(path + len + 1, e->d_name, nl + 1);
		}
		struct stat st;
		if (covered(m, path))
			; /* a match: left out */
		else if (strictly_below(m, path) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = carve_dir(c, m, path, cl, access, rule, true, budget);
		else if (push(c, path, access, rule, true) < 0)
			rc = -1;
		path[len] = 0;
		if (len == 1)
			path[1] = 0;
	}
	closedir(d);
	return rc;
}

static void note_add(struct ll_carve *c, const char *path, const char *why)
{
	size_t l = strlen(c->note);
	if (l + 8 < sizeof c->note)
		snprintf(c->note + l, sizeof c->note - l, "%s%s: %s", l ? "; " : "deny: kept whole ", path, why);
}

int ll_deny_carve(const struct policy *p, const struct pol_dir *in, size_t n, bool carve_writes,
		  struct ll_carve *c)
{
	memset(c, 0, sizeof *c);
	/* the masks a manifest deny owns that exist here */
	size_t nm = pol_mask_count(p), nd = 0;
	uint32_t rule;
	while (pol_manifest_deny(p, nd, &rule))
		nd++;
	struct masks m = {.v = calloc(nm + 1, sizeof *m.v)};
	uint32_t *rules = calloc(nd + 1, sizeof *rules);
	if (!m.v || !rules) {
		free(m.v);
		free(rules);
		return -1;
	}
	for (size_t i = 0; i < nd; i++)
		(void)pol_manifest_deny(p, i, &rules[i]);
	for (size_t i = 0; i < nm; i++) {
		struct pol_dir d;
		struct stat st;
		if (pol_mask_get(p, i, &d) < 0 || !d.path || lstat(d.path, &st) < 0)
			continue;
		for (size_t j = 0; j < nd; j++)
			if (d.rule == rules[j]) {
				m.v[m.n++] = d.path;
				break;
			}
	}
	free(rules);
	int rc = 0;
	char path[PATH_MAX];
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct pol_dir *g = &in[i];
		struct stat st;
		bool grant = g->path && (g->access & (POL_READ | POL_WRITE));
		if (grant && m.n && covered(&m, g->path))
			continue; /* the deny covers the whole grant */
		if (!grant || !m.n || !strictly_below(&m, g->path) || strlen(g->path) >= sizeof path ||
		    lstat(g->path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			rc = push(c, g->path, g->access, g->rule, false);
			continue;
		}
		if ((g->access & POL_WRITE) && !carve_writes) {
			note_add(c, g->path, "a write grant, a seccomp deny decision holds it");
			rc = push(c, g->path, g->access, g->rule, false);
			continue;
		}
		size_t mark = c->ndirs, budget = LL_CARVE_MAX;
		snprintf(path, sizeof path, "%s", g->path);
		int r = carve_dir(c, &m, path, strlen(path), g->access, g->rule, true, &budget);
		if (r < 0) {
			rc = -1;
		} else if (r == 1) { /* too large: whole, and said */
			c->ndirs = mark;
			note_add(c, g->path, "more entries than Landlock's bound, the seccomp layer's deny "
			         "decision holds it");
			rc = push(c, g->path, g->access, g->rule, false);
		} else {
			c->carved++;
		}
	}
	free(m.v);
	return rc;
}

void ll_deny_carve_free(struct ll_carve *c)
{
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->dirs);
	memset(c, 0, sizeof *c);
}
