/* bwrap.c — see bwrap.h. */
#include "bwrap_layer.h"

#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bwrap_find(char *path, size_t pathlen, char *why, size_t whylen)
{
	const char *env = getenv("PATH");
	if (!env || !*env) {
		snprintf(why, whylen, "bwrap not found: PATH is empty");
		return -1;
	}
	const char *p = env;
	while (*p) {
		size_t n = strcspn(p, ":");
		if (n && p[0] == '/' && n + sizeof "/bwrap" <= pathlen) {
			snprintf(path, pathlen, "%.*s/bwrap", (int)n, p);
			struct stat st;
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
				return 0;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	snprintf(why, whylen, "bwrap not found on PATH (install the bubblewrap package)");
	path[0] = 0;
	return -1;
}

enum item_kind { IT_RO, IT_RW, IT_TMPFS, IT_PROC, IT_DEV, IT_SYMLINK };
struct item { const char *path; enum item_kind kind; char target[PATH_MAX]; };

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	return (int)y->kind - (int)x->kind; /* same path: keep one order, deterministic */
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == 0);
}

/* Paths bwrap provides itself or that must stay private. */
static bool skip_dir(const char *path)
{
	return under(path, "/proc") || under(path, "/dev") || !strcmp(path, "/tmp") ||
	       under(path, SBX_RUN_DIR) || !strcmp(path, "/");
}

int bwrap_argv(const struct policy *p, const struct bwrap_in *in, struct strv *out, char *err,
	       size_t errlen)
{
	size_t nd = pol_dir_count(p);
	struct item *it = calloc(nd + 4, sizeof *it);
	if (!it) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t n = 0;
	for (size_t i = 0; i < nd; i++) {
		struct pol_dir d;
		if (pol_dir_get(p, i, &d) < 0 || !d.path || d.path[0] != '/' || skip_dir(d.path) ||
		    !(d.access & (POL_READ | POL_WRITE))) /* POL_LIST only: nothing to bind */
			continue;
		struct stat st;
		if (lstat(d.path, &st) < 0)
			continue; /* SPEC: a hint whose directory does not exist is skipped by bwrap */
		struct item *x = &it[n];
		x->path = d.path;
		x->kind = (d.access & POL_WRITE) ? IT_RW : IT_RO;
		/* A top-level symlink such as /bin -> usr/bin is recreated, not bound. */
		if (S_ISLNK(st.st_mode) && strchr(d.path + 1, '/') == NULL) {
			ssize_t l = readlink(d.path, x->target, sizeof x->target - 1);
			if (l > 0) {
				x->target[l] = 0;
				x->kind = IT_SYMLINK;
			}
		}
		/* A path granted twice keeps the strongest access. */
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(it[j].path, x->path)) {
				if (x->kind == IT_RW && it[j].kind == IT_RO)
					it[j].kind = IT_RW;
				dup = true;
			}
		if (!dup)
			n++;
	}
	it[n++] = (struct item){.path = "/proc", .kind = IT_PROC};
	it[n++] = (struct item){.path = "/dev", .kind = IT_DEV};
	it[n++] = (struct item){.path = "/tmp", .kind = IT_TMPFS};
	qsort(it, n, sizeof *it, item_cmp);

	int rc = 0;
	rc |= strv_addv(out, in->bwrap, "--unshare-user", "--unshare-ipc", "--unshare-uts",
			"--unshare-pid", "--unshare-cgroup-try", NULL);
	if (!in->share_net)
		rc |= strv_add(out, "--unshare-net");
	rc |= strv_addv(out, "--die-with-parent", "--new-session", NULL);
	for (size_t i = 0; i < n; i++) {
		const struct item *x = &it[i];
		switch (x->kind) {
		case IT_RO: rc |= strv_addv(out, "--ro-bind", x->path, x->path, NULL); break;
		case IT_RW: rc |= strv_addv(out, "--bind", x->path, x->path, NULL); break;
		case IT_TMPFS: rc |= strv_addv(out, "--tmpfs", x->path, NULL); break;
		case IT_PROC: rc |= strv_addv(out, "--proc", x->path, NULL); break;
		case IT_DEV: rc |= strv_addv(out, "--dev", x->path, NULL); break;
		case IT_SYMLINK: rc |= strv_addv(out, "--symlink", x->target, x->path, NULL); break;
		}
	}
	/* Masks, after every bind: only paths that exist and that some bind made visible. */
	size_t nm = pol_mask_count(p);
	for (size_t i = 0; i < nm; i++) {
		struct pol_dir d;
		struct stat st;
		if (pol_mask_get(p, i, &d) < 0 || !d.path || d.path[0] != '/' || lstat(d.path, &st) < 0)
			continue;
		bool visible = false;
		for (size_t j = 0; j < n; j++)
			if ((it[j].kind == IT_RO || it[j].kind == IT_RW) && under(d.path, it[j].path))
				visible = true;
		if (!visible || skip_dir(d.path))
			continue;
		if (S_ISDIR(st.st_mode))
			rc |= strv_addv(out, "--perms", "0000", "--tmpfs", d.path, "--remount-ro", d.path, NULL);
		else
			rc |= strv_addv(out, "--ro-bind", "/dev/null", d.path, NULL);
	}
	free(it);

	rc |= strv_addv(out, "--ro-bind", in->self_exe, SBX_RUN_SBXSUP, NULL);
	if (in->report_sock)
		rc |= strv_addv(out, "--ro-bind", in->report_sock, SBX_RUN_REPORT, NULL);
	if (in->preload_lib) {
		rc |= strv_addv(out, "--ro-bind", in->preload_lib, SBX_RUN_PRELOAD, NULL);
		if (in->ldso_fd >= 0) {
			rc |= strv_add(out, "--ro-bind-data");
			rc |= strv_addf(out, "%d", in->ldso_fd);
			rc |= strv_add(out, "/etc/ld.so.preload");
		}
	}
	rc |= strv_add(out, "--clearenv");
	for (size_t i = 0; in->env && i < in->env->n; i++) {
		const char *e = in->env->v[i], *eq = strchr(e, '=');
		if (!eq)
			continue;
		rc |= strv_add(out, "--setenv");
		rc |= strv_addf(out, "%.*s", (int)(eq - e), e);
		rc |= strv_add(out, eq + 1);
	}
	rc |= strv_addv(out, "--chdir", in->workspace, "--", NULL);
	if (rc) {
		snprintf(err, errlen, "out of memory building the bwrap argv");
		return -1;
	}
	return 0;
}
