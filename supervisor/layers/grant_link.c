/* grant_link.c — see grant_link.h. */
#include "grant_link.h"
#include "fdpath.h"
#include "syspaths.h" /* path_under */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool kernel_fs(const char *path)
{
	return path_under(path, "/proc") || path_under(path, "/dev") || path_under(path, "/sys");
}

/* The object a grant's path reached (`real`, not the path itself) is granted for the grant's
 * read/write part (a list-only entry: read). The one answer of both checks below. */
static bool object_granted(const struct policy *p, const char *real, unsigned access)
{
	unsigned want = access & (POL_READ | POL_WRITE);
	return pol_path(p, real, want ? want : POL_READ, NULL) == POL_ALLOW;
}

bool sbx_grant_followed(const struct policy *p, const char *path, unsigned access, char *real,
			size_t reallen)
{
	char rp[PATH_MAX];
	if (real && reallen)
		real[0] = 0;
	if (!p || !path || path[0] != '/' || kernel_fs(path) || !realpath(path, rp) || !strcmp(rp, path))
		return true;
	if (real && reallen)
		snprintf(real, reallen, "%s", rp);
	return object_granted(p, rp, access);
}

bool sbx_grant_fd_followed(const struct policy *p, const char *path, unsigned access, int fd)
{
	char real[PATH_MAX];
	if (!p || !path || path[0] != '/' || kernel_fs(path) || fd_path(fd, real, sizeof real) < 0 ||
	    real[0] != '/')
		return true;
	size_t n = strlen(real);
	path_drop_deleted(real);
	if (strlen(real) != n)
		return true; /* an unlinked object: nothing anyone can have planted a link to */
	return !strcmp(real, path) || object_granted(p, real, access);
}

void sbx_grant_links_free(struct sbx_grant_links *g)
{
	for (size_t i = 0; g->real && i < g->n; i++)
		free(g->real[i]);
	free(g->real);
	free(g->followed);
	memset(g, 0, sizeof *g);
}

int sbx_grant_links_scan(const struct policy *p, struct sbx_grant_links *g)
{
	memset(g, 0, sizeof *g);
	size_t n = p ? pol_dir_count(p) : 0;
	g->real = calloc(n ? n : 1, sizeof *g->real);
	g->followed = calloc(n ? n : 1, sizeof *g->followed);
	if (!g->real || !g->followed) {
		sbx_grant_links_free(g);
		return -1;
	}
	g->n = n;
	for (size_t i = 0; i < n; i++) {
		struct pol_dir d;
		char real[PATH_MAX];
		g->followed[i] = true;
		if (pol_dir_get(p, i, &d) < 0 || !d.path)
			continue;
		g->followed[i] = sbx_grant_followed(p, d.path, d.access, real, sizeof real);
		if (real[0] && !(g->real[i] = strdup(real))) {
			sbx_grant_links_free(g);
			return -1;
		}
	}
	return 0;
}

bool sbx_grant_links_followed(const struct sbx_grant_links *g, size_t i)
{
	return !g || i >= g->n || g->followed[i];
}

const char *sbx_grant_links_real(const struct sbx_grant_links *g, size_t i)
{
	return g && i < g->n ? g->real[i] : NULL;
}
