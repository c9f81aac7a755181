/* sd_expose.c — direct mode's view of the host's /tmp (sandbox_direct.h): which host paths under
 * /tmp the run needs bound again over its private /tmp (sd_expose, sd_expose_cmd), the write grants
 * (sd_writable), the PATH entries it can see (sd_filter_path), and sd_mount_point. Pure bookkeeping
 * on struct sd_plan, in the parent; the child binds them (sd_child.c). */
#include "sandbox_direct.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "grant_nest.h"

bool sd_under_tmp(const char *path)
{
	return !strncmp(path, "/tmp/", 5) && path[5];
}

/* path is dir or lies inside it */
static bool covers(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	return !strncmp(dir, path, n) && (path[n] == '/' || !path[n]);
}

static bool exposed(const struct sd_plan *p, const char *path)
{
	for (size_t i = 0; i < p->nexpose; i++)
		if (!p->expose_file[i] && covers(p->expose[i], path))
			return true;
	return false;
}

static int expose_add(struct sd_plan *p, const char *path, bool rw, bool file)
{
	for (size_t i = 0; i < p->nexpose; i++)
		if (!strcmp(p->expose[i], path)) {
			p->expose_rw[i] |= rw;
			return 0;
		}
	for (size_t i = 0; rw && !file && i < p->nexpose; i++)
		if (p->expose_rw[i] && !p->expose_file[i] && sbx_wr_inside(p->expose[i], path))
			return 0; /* shown writable by its enclosing bind, one mount (sbx_wr_inside) */
	if (p->nexpose >= SD_MAX_EXPOSE || strlen(path) >= sizeof p->expose[0]) {
		errno = ENOSPC;
		return -1;
	}
	p->expose_rw[p->nexpose] = rw;
	p->expose_file[p->nexpose] = file;
	snprintf(p->expose[p->nexpose++], sizeof p->expose[0], "%s", path);
	return 0;
}

int sd_writable(struct sd_plan *p, const char *path)
{
	struct stat st;
	if (!path || path[0] != '/' || !path[1] || !strcmp(path, "/tmp") ||
	    covers("/dev", path) || covers("/proc", path) || covers("/sys", path) ||
	    stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	for (size_t i = 0; i < p->nwr; i++)
		if (!strcmp(p->wr[i], path) || sbx_wr_inside(p->wr[i], path))
			return 0;
	if (p->nwr >= SD_MAX_EXPOSE || strlen(path) >= sizeof p->wr[0]) {
		errno = ENOSPC;
		return -1;
	}
	p->wr_fd[p->nwr] = -1;
	snprintf(p->wr[p->nwr++], sizeof p->wr[0], "%s", path);
	return 0;
}

int sd_expose(struct sd_plan *p, const char *path, bool rw)
{
	struct stat st;
	if (!path || !sd_under_tmp(path) || stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0; /* files are reached through their exposed directory */
	return expose_add(p, path, rw, false);
}

int sd_expose_cmd(struct sd_plan *p, const char *cmd)
{
	char f[1024], cwd[512];
	int k = -1;
	if (!cmd || !strchr(cmd, '/'))
		return 0;
	if (cmd[0] == '/')
		k = snprintf(f, sizeof f, "%s", cmd);
	else if (getcwd(cwd, sizeof cwd))
		k = snprintf(f, sizeof f, "%.511s/%.400s", cwd, cmd);
	struct stat st;
	if (k < 0 || (size_t)k >= sizeof f || !sd_under_tmp(f) || exposed(p, f) || stat(f, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return expose_add(p, f, false, true);
}

int sd_expose_file(struct sd_plan *p, const char *path, bool rw)
{
	struct stat st;
	if (!path || !sd_under_tmp(path) || lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < p->nexpose; i++)
		if (!p->expose_file[i] && covers(p->expose[i], path) && (p->expose_rw[i] || !rw))
			return 0; /* shown by its directory, as granted */
	return expose_add(p, path, rw, true);
}

/* A PATH entry the run can see: not under the host's /tmp, or exposed again in the run's own. */
static bool run_sees_dir(const char *dir, const void *arg)
{
	return strlen(dir) < 1024 && (!sd_under_tmp(dir) || exposed(arg, dir));
}

int sd_filter_path(const struct sd_plan *p, struct strv *env)
{
	if (!strv_getenv(env, "PATH") || !(p->flags & CLONE_NEWNS) || !p->tmp_host[0])
		return 0;
	return env_path_keep(env, run_sees_dir, p);
}

bool sd_mount_point(const char *path)
{
	struct statx a, b;
	char parent[4096];
	snprintf(parent, sizeof parent, "%s/..", path);
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &a) < 0 ||
	    statx(AT_FDCWD, parent, 0, STATX_MNT_ID, &b) < 0 || !(a.stx_mask & b.stx_mask & STATX_MNT_ID))
		return false;
	return a.stx_mnt_id != b.stx_mnt_id;
}
