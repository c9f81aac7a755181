/* bwrap_layer.c — see bwrap_layer.h. */
#include "bwrap_layer.h"
#include "sandbox_paths.h"
#include "caps.h"
#include "container_env.h"
#include "etc_view.h"
#include "grant_link.h"
#include "grant_nest.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layer.h"
#include "smallfile.h"

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
struct item {
	const char *path;
	const char *src;           /* bind source when not path itself (the /etc view, `target`), else NULL */
	enum item_kind kind;
	char *target;              /* IT_SYMLINK's text, or the object a linked grant reaches; malloc'd */
	bool linked;               /* the path leads through a link to `target` (granted: grant_link.h) */
};

static void free_items(struct item *it, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(it[i].target);
	free(it);
}

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

/* May the POL_TREE entry t be bound whole? Not when the tree must receive a file that the host
 * lacks: bwrap creates the mount point of /etc/ld.so.preload in its own /etc directory, which a
 * read-only bind of the host's /etc does not allow (then the tree stays entry by entry) — unless
 * the child's /etc view (etc_view) already holds the file. */
static bool tree_whole(const struct pol_dir *t, const struct bwrap_in *in)
{
	struct stat st;
	if (!(t->access & POL_TREE) || !t->path)
		return false;
	if (in->preload_lib && !in->etc_view && under(SBX_LDSO_PRELOAD, t->path) &&
	    (lstat(SBX_LDSO_PRELOAD, &st) < 0 || !S_ISREG(st.st_mode)))
		return false;
	return true;
}

/* Is d an entry strictly below one of the trees bound whole (same rule: that bind covers it)? */
static bool in_tree(const struct pol_dir *trees, size_t nt, const struct pol_dir *d)
{
	for (size_t i = 0; i < nt; i++)
		if (trees[i].rule == d->rule && strcmp(trees[i].path, d->path) != 0 &&
		    under(d->path, trees[i].path))
			return true;
	return false;
}

/* A granted path bwrap could not look up as the executor's host identity, and not staged. */
static bool unreachable(const struct bwrap_in *in, const char *path)
{
	for (size_t i = 0; in->stage_dir && i < in->nstaged; i++)
		if (!strcmp(in->staged[i], path))
			return false;
	for (size_t i = 0; in->unreachable && i < in->unreachable->n; i++)
		if (!strcmp(in->unreachable->v[i], path))
			return true;
	return false;
}

/* Is it[i] a read-only bind of a path already bound read-only, unchanged, by its nearest bound
 * ancestor (it[0..i) sorted by path: ancestors come first)? Such a bind shows what the ancestor's
 * bind shows already (bwrap binds recursively), and would cost bwrap a mount and a parse of the
 * mount table: the system paths' own files (sbxsup and its preload installed under /usr), a grant
 * of a directory below another. Also a write grant below a write grant of the same owner
 * (grant_nest.h: one mount, so renames and hard links between them work). A mask
 * that hides part of the ancestor is mounted after every bind, so it covers the path either way. A symlink is kept (bwrap binds what it points to, which
 * may lie outside the ancestor). */
static bool bound_by_ancestor(const struct item *it, size_t i)
{
	struct stat st;
	if ((it[i].kind != IT_RO && it[i].kind != IT_RW) || it[i].src || lstat(it[i].path, &st) < 0 ||
	    S_ISLNK(st.st_mode))
		return false;
	for (size_t j = i; j-- > 0;) /* the nearest ancestor is the last one before i */
		if (strcmp(it[j].path, it[i].path) && under(it[i].path, it[j].path)) {
			if (it[i].kind == IT_RO)
				return it[j].kind == IT_RO && !it[j].src;
			/* a write grant in a write grant: one mount, as in direct mode (sbx_wr_inside) */
			return it[j].kind == IT_RW && !it[j].src && sbx_wr_inside(it[j].path, it[i].path);
		}
	return false;
}

/* A linked grant it[i] lies inside another directory bound (read or write): the link is shown
 * there already, and what it reaches is granted, so shown by its own grant's bind. */
static bool shown_by_ancestor(const struct item *it, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && (it[j].kind == IT_RO || it[j].kind == IT_RW) && strcmp(it[j].path, it[i].path) &&
		    under(it[i].path, it[j].path))
			return true;
	return false;
}

/* Is `path` inside one of the directories masked so far (dirs[0..n))? That directory is an empty
 * read-only tmpfs by then: nothing can be bound inside it, and nothing needs to be (the manifest's
 * denies found by the start-up walk, deny_expand.h, may lie below a deny masked whole). */
static bool under_dir_mask(const char *const *dirs, size_t n, const char *path)
{
	for (size_t j = 0; j < n; j++)
		if (under(path, dirs[j]))
			return true;
	return false;
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
	/* the trees bound whole (a handful: /etc) */
	struct pol_dir trees[8];
	size_t nt = 0;
	for (size_t i = 0; i < nd && nt < sizeof trees / sizeof trees[0]; i++)
		if (pol_dir_get(p, i, &trees[nt]) == 0 && tree_whole(&trees[nt], in))
			nt++;
	/* the plan's view of the grants through links, or one made here */
	struct sbx_grant_links own = {0};
	const struct sbx_grant_links *links = in->links;
	if (!links) {
		if (sbx_grant_links_scan(p, &own) < 0) {
			free(it);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		links = &own;
	}
	size_t n = 0;
	for (size_t i = 0; i < nd; i++) {
		struct pol_dir d;
		if (pol_dir_get(p, i, &d) < 0 || !d.path || d.path[0] != '/' || skip_dir(d.path))
			continue;
		/* A tree readable except its secrets (policy.h POL_TREE): bound once, whole; the masks
		 * below hide the secrets. Its per-entry view (same rule) is Landlock's, not ours. */
		bool whole = false;
		for (size_t j = 0; j < nt; j++)
			whole |= trees[j].rule == d.rule && !strcmp(trees[j].path, d.path);
		if (!whole && in_tree(trees, nt, &d))
			continue;
		if (!whole && !(d.access & (POL_READ | POL_WRITE))) /* POL_LIST only: nothing to bind */
			continue;
		struct stat st;
		if (lstat(d.path, &st) < 0 || (whole && !S_ISDIR(st.st_mode)))
			continue; /* SPEC: a hint whose directory does not exist is skipped by bwrap */
		if (unreachable(in, d.path))
			continue; /* the executor's host identity could not read it on the host either */
		if (!sbx_grant_links_followed(links, i))
			continue; /* a link to what the policy does not grant (grant_link.h) */
		const char *real = sbx_grant_links_real(links, i);
		struct item *x = &it[n];
		x->path = d.path;
		x->src = whole && in->etc_view && under(SBX_LDSO_PRELOAD, d.path) ? in->etc_view : NULL;
		x->kind = (d.access & POL_WRITE) ? IT_RW : IT_RO;
		/* A top-level symlink such as /bin -> usr/bin is recreated, not bound. */
		x->target = NULL;
		x->linked = false;
		if (S_ISLNK(st.st_mode) && strchr(d.path + 1, '/') == NULL) {
			char t[PATH_MAX];
			ssize_t l = readlink(d.path, t, sizeof t - 1);
			if (l > 0) {
				t[l] = 0;
				x->target = strdup(t);
				if (!x->target)
					goto nomem;
				x->kind = IT_SYMLINK;
			}
		} else if (!x->src && real) {
			/* A path through a link to a granted object: that object is bound, pinned here
			 * (the name may be replaced later), unless a bind of an ancestor shows the link
			 * already (then the object is shown by its own grant's bind; bwrap could not
			 * mount on the link in the new root: an absolute one points outside it). */
			x->target = strdup(real);
			if (!x->target)
				goto nomem;
			x->src = x->target;
			x->linked = true;
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
		else
			free(x->target);
	}
	it[n++] = (struct item){.path = "/proc", .kind = IT_PROC};
	it[n++] = (struct item){.path = "/dev", .kind = IT_DEV};
	it[n++] = (struct item){.path = "/tmp", .kind = IT_TMPFS};
	qsort(it, n, sizeof *it, item_cmp);

	int rc = 0;
	rc |= strv_add(out, in->bwrap);
	if (in->userns) { /* the caller's namespace: the executor is never the caller's uid 0 */
		rc |= strv_add(out, "--userns");
		rc |= in->userns_fd >= 0 ? strv_addf(out, "%d", in->userns_fd) : strv_add(out, LAYER_FD_PLACEHOLDER);
	} else {
		rc |= strv_add(out, "--unshare-user");
	}
	rc |= strv_addv(out, "--unshare-ipc", "--unshare-uts", "--unshare-pid", "--unshare-cgroup-try", NULL);
	if (!in->share_net)
		rc |= strv_add(out, "--unshare-net");
	rc |= strv_addv(out, "--die-with-parent", "--new-session", NULL);
	if (in->uid && in->gid) { /* a non-zero identity inside (sandbox_direct.h sd_inside_ids) */
		rc |= strv_add(out, "--uid");
		rc |= strv_addf(out, "%u", (unsigned)in->uid);
		rc |= strv_add(out, "--gid");
		rc |= strv_addf(out, "%u", (unsigned)in->gid);
		/* a non-zero uid inside keeps bwrap's full bounding set unless told: empty it */
		rc |= strv_addv(out, "--cap-drop", "ALL", NULL);
	}
	for (size_t i = 0; i < n; i++) {
		const struct item *x = &it[i];
		if (bound_by_ancestor(it, i) || (x->linked && shown_by_ancestor(it, n, i)))
			continue;
		switch (x->kind) {
		case IT_RO: rc |= strv_addv(out, "--ro-bind", x->src ? x->src : x->path, x->path, NULL); break;
		case IT_RW: {
			size_t k = in->stage_dir ? 0 : in->nstaged;
			while (k < in->nstaged && strcmp(in->staged[k], x->path))
				k++;
			rc |= strv_add(out, "--bind");
			rc |= k < in->nstaged ? strv_addf(out, "%s/w%zu", in->stage_dir, k)
					      : strv_add(out, x->src ? x->src : x->path);
			rc |= strv_add(out, x->path);
			break;
		}
		case IT_TMPFS: rc |= strv_addv(out, "--tmpfs", x->path, NULL); break;
		case IT_PROC: rc |= strv_addv(out, "--proc", x->path, NULL); break;
		case IT_DEV: rc |= strv_addv(out, "--dev", x->path, NULL); break;
		case IT_SYMLINK: rc |= strv_addv(out, "--symlink", x->target, x->path, NULL); break;
		}
	}
	/* Masks, after every bind: only paths that exist and that some bind made visible. */
	size_t nm = pol_mask_count(p), ndm = 0;
	const char **dmasks = calloc(nm + 1, sizeof *dmasks);
	if (!dmasks)
		goto nomem;
	for (size_t i = 0; i < nm; i++) {
		struct pol_dir d;
		struct stat st;
		if (pol_mask_get(p, i, &d) < 0 || !d.path || d.path[0] != '/' || lstat(d.path, &st) < 0 ||
		    under_dir_mask(dmasks, ndm, d.path))
			continue;
		bool visible = false;
		for (size_t j = 0; j < n; j++)
			if ((it[j].kind == IT_RO || it[j].kind == IT_RW) && under(d.path, it[j].path))
				visible = true;
		if (!visible || skip_dir(d.path) || (in->etc_view && etc_view_hides(d.path)))
			continue; /* the /etc view has no such entry at all (a whiteout) */
		if (S_ISDIR(st.st_mode)) {
			rc |= strv_addv(out, "--perms", "0000", "--tmpfs", d.path, "--remount-ro", d.path, NULL);
			dmasks[ndm++] = d.path;
		} else {
			rc |= strv_addv(out, "--ro-bind", "/dev/null", d.path, NULL);
		}
	}
	free(dmasks);
	free_items(it, n);
	sbx_grant_links_free(&own);

	if (in->home_dir) /* the private HOME, in the tmpfs /tmp */
		rc |= strv_addv(out, "--perms", "0700", "--dir", in->home_dir, NULL);
	rc |= strv_addv(out, "--perms", "0755", "--tmpfs", SBX_RUN_DIR, NULL);
	/* (as root from the stage dir: bwrap could not look them up below a 0700 directory) */
	rc |= strv_add(out, "--ro-bind");
	rc |= in->stage_dir ? strv_addf(out, "%s/" SBX_STAGE_SBXSUP, in->stage_dir) : strv_add(out, in->self_exe);
	rc |= strv_add(out, SBX_RUN_SBXSUP);
	if (in->report_sock)
		rc |= strv_addv(out, "--ro-bind", in->report_sock, SBX_RUN_REPORT, NULL);
	if (in->preload_lib) {
		rc |= strv_add(out, "--ro-bind");
		rc |= in->stage_dir ? strv_addf(out, "%s/" SBX_STAGE_PRELOAD, in->stage_dir)
				    : strv_add(out, in->preload_lib);
		rc |= strv_add(out, SBX_RUN_PRELOAD);
		if (!in->etc_view) {
			rc |= strv_add(out, "--ro-bind-data");
			if (in->ldso_fd >= 0)
				rc |= strv_addf(out, "%d", in->ldso_fd);
			else
				rc |= strv_add(out, LAYER_FD_PLACEHOLDER);
			rc |= strv_add(out, SBX_LDSO_PRELOAD);
		}
		if (in->fixed) {
			rc |= strv_add(out, "--ro-bind-data");
			if (in->policy_fd >= 0)
				rc |= strv_addf(out, "%d", in->policy_fd);
			else
				rc |= strv_add(out, LAYER_FD_PLACEHOLDER);
			rc |= strv_add(out, SBX_RUN_POLICY);
		}
	}
	if (in->etc_identity && !in->etc_view) { /* over the host's files: the executor's own entries
						  * (the /etc view holds them itself: etc_view_mount) */
		const struct { int fd; const char *at; } db[] = {{in->passwd_fd, "/etc/passwd"},
								 {in->group_fd, "/etc/group"},
								 {in->resolv_fd, "/etc/resolv.conf"}};
		/* no /etc/resolv.conf to cover (a container started without a network): bwrap could not
		 * make one in the read-only /etc, and none is needed — the resolver's default server,
		 * 127.0.0.1:53, is the run's stub too (every address is local in the run's namespace) */
		struct stat rs;
		bool resolv = in->resolv && lstat("/etc/resolv.conf", &rs) == 0;
		for (size_t i = 0; i < (resolv ? 3u : 2u); i++) {
			rc |= strv_add(out, "--ro-bind-data");
			rc |= db[i].fd >= 0 ? strv_addf(out, "%d", db[i].fd) : strv_add(out, LAYER_FD_PLACEHOLDER);
			rc |= strv_add(out, db[i].at);
		}
	}
	/* nothing of the scaffolding can be renamed or replaced from inside */
	rc |= strv_addv(out, "--remount-ro", SBX_RUN_DIR, "--remount-ro", "/", NULL);
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
nomem:
	free_items(it, n);
	sbx_grant_links_free(&own);
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* ---- the layer entry ---------------------------------------------------------------------------- */

/* True when the sysctl at `path` reads as the number v. */
static bool sysctl_is(const char *path, long v)
{
	long got;
	return sbx_read_long(path, &got) == 0 && got == v;
}

static void userns_remedy(char *out, size_t len)
{
	out[0] = 0;
	size_t l = 0;
	if (sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", 0))
		l += (size_t)snprintf(out + l, len - l, "sysctl -w kernel.unprivileged_userns_clone=1; ");
	if (l < len && sysctl_is("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 1))
		l += (size_t)snprintf(out + l, len - l,
				      "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor "
				      "profile allowing userns for bwrap); ");
	if (l < len && sysctl_is("/proc/sys/user/max_user_namespaces", 0))
		l += (size_t)snprintf(out + l, len - l, "sysctl -w user.max_user_namespaces=15000; ");
	char cwhat[200];
	if (!l && container_detect(cwhat, sizeof cwhat))
		snprintf(out, len, "in a container (%s): a seccomp profile allowing namespaces "
			 "(deploy/seccomp-sbxsup.json) and an unmasked /proc; see docs/deployment.md", cwhat);
	else if (!l)
		snprintf(out, len, "check that user namespaces work: bwrap --unshare-user --ro-bind / / true");
	else if (l >= 2 && l < len)
		out[l - 2] = 0;
}

/* Functional: start a real sandbox the way run would (user, pid, ipc, uts, net namespaces)
 * running `true`. */
static void probe_sandbox(const char *path, struct layer_probe *s)
{
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0) {
		snprintf(s->why, sizeof s->why, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(s->why, sizeof s->why, "fork: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		return;
	}
	if (pid == 0) {
		dup2(ep[1], 2);
		if (getuid() != 0 && geteuid() != 0) /* as run does: bwrap refuses capabilities unless setuid */
			(void)sbx_caps_clear();
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		execl(path, path, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		      "--unshare-net", "--unshare-cgroup-try", "--die-with-parent", "--new-session",
		      "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
		      "--", "true", (char *)NULL);
		dprintf(2, "exec %s: %s", path, strerror(errno));
		_exit(127);
	}
	close(ep[1]);
	char err[400];
	size_t el = 0;
	ssize_t n;
	while (el < sizeof err - 1 && (n = read(ep[0], err + el, sizeof err - 1 - el)) > 0)
		el += (size_t)n;
	err[el] = 0;
	close(ep[0]);
	while (el && (err[el - 1] == '\n' || err[el - 1] == ' '))
		err[--el] = 0;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		s->available = true;
		snprintf(s->level, sizeof s->level, "%s: user, pid, ipc, uts, net, cgroup namespaces", path);
		return;
	}
	char cwhat[200];
	bool cont = container_bwrap_blame(err, cwhat, sizeof cwhat);
	snprintf(s->why, sizeof s->why, "%s cannot create a sandbox: %s%s%s%s", path,
		 err[0] ? err : "it failed without a message", cont ? " (in a container: " : "",
		 cont ? cwhat : "", cont ? ")" : "");
	userns_remedy(s->remedy, sizeof s->remedy);
}

static void bw_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	if (depth == LAYER_CHEAP && !d->self[0]) {
		snprintf(out->why, sizeof out->why, "cannot resolve /proc/self/exe");
		return;
	}
	if (bwrap_find(d->bwrap, sizeof d->bwrap, out->why, sizeof out->why) < 0) {
		snprintf(out->remedy, sizeof out->remedy, "install bubblewrap (apt-get install bubblewrap)");
		return;
	}
	if (depth == LAYER_FUNCTIONAL) {
		probe_sandbox(d->bwrap, out);
		return;
	}
	out->available = true;
	snprintf(out->level, sizeof out->level, "%s", d->bwrap);
}

/* The one place the bwrap argv is made: the sandbox (bwrap_argv), then the stage and the command. */
static int bw_wrap(const struct layer_ctx *c, struct strv *argv, char *err, size_t errlen)
{
	bool preload = sbx_layer_on(c->L, SBX_L_PRELOAD), view = layers_etc_view(c) != NULL;
	struct bwrap_in bi = {
		.bwrap = c->d->bwrap, .self_exe = c->d->stage[0] ? c->d->stage : c->d->self,
		.preload_lib = preload ? c->d->preload : NULL,
		.ldso_fd = c->att->fds.ldso, .workspace = c->workspace,
		.share_net = !pol_own_netns(c->pol), .env = c->att->env,
		.report_sock = preload ? c->att->report_sock : NULL,
		.uid = c->uid, .gid = c->gid, .home_dir = c->home_dir,
		.etc_view = view ? c->etc_view : NULL, .etc_lower = view ? c->etc_lower : NULL,
		.fixed = preload && c->att->fixed_channel, .policy_fd = c->att->fds.policy,
		.userns = c->own_userns, .userns_fd = c->att->fds.userns,
		.stage_dir = c->stage_dir, .staged = c->staged, .nstaged = c->nstaged,
		.unreachable = c->unreachable, .links = c->links,
		.etc_identity = true, .passwd_fd = c->att->fds.passwd, .group_fd = c->att->fds.group,
		.resolv = pol_gateway(c->pol), .resolv_fd = c->att->fds.resolv,
	};
	if (bwrap_argv(c->pol, &bi, argv, err, errlen) < 0)
		return -1;
	int rc = strv_addv(argv, SBX_RUN_SBXSUP, "__stage", "--ctl-fd", NULL);
	rc |= c->att->fds.ctl >= 0 ? strv_addf(argv, "%d", c->att->fds.ctl) : strv_add(argv, LAYER_FD_PLACEHOLDER);
	rc |= strv_add(argv, "--stderr-fd");
	rc |= c->att->fds.stderr_copy >= 0 ? strv_addf(argv, "%d", c->att->fds.stderr_copy)
				      : strv_add(argv, LAYER_FD_PLACEHOLDER);
	if (c->own_userns) { /* bwrap leaves --userns's descriptor open: the stage closes it */
		rc |= strv_add(argv, "--close-fd");
		rc |= c->att->fds.userns >= 0 ? strv_addf(argv, "%d", c->att->fds.userns) : strv_add(argv, LAYER_FD_PLACEHOLDER);
	}
	/* /etc is the view, whose secrets are whiteouts: Landlock grants its tree with one rule
	 * (landlock_layer.h sbx_landlock_apply_stage etc_view) */
	if (bi.etc_view)
		rc |= strv_add(argv, layers_stage_option_flag(LAYER_STAGE_OPT_ETC_VIEW));
	for (size_t i = 0; c->stage_flags && i < c->stage_flags->n; i++) /* layers_wrap / layers_plan */
		rc |= strv_add(argv, c->stage_flags->v[i]);
	rc |= strv_add(argv, "--");
	for (size_t i = 0; c->cmd && c->cmd[i]; i++)
		rc |= strv_add(argv, c->cmd[i]);
	if (rc) {
		snprintf(err, errlen, "out of memory building the bwrap argv");
		return -1;
	}
	return 0;
}

static cJSON *bw_plan(const struct layer_ctx *c)
{
	cJSON *bw = cJSON_CreateObject();
	if (!bw)
		return NULL;
	if (!layer_wrapped(c) || !c->pol) {
		cJSON_AddNullToObject(bw, "argv");
		return bw;
	}
	struct strv argv = {0};
	char err[256];
	if (bw_wrap(c, &argv, err, sizeof err) == 0) {
		cJSON_AddStringToObject(bw, "path", c->d->bwrap);
		cJSON *a = cJSON_AddArrayToObject(bw, "argv");
		for (size_t i = 0; a && i < argv.n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(argv.v[i]));
		if (sbx_layer_on(c->L, SBX_L_PRELOAD)) {
			cJSON_AddStringToObject(bw, "ld_so_preload", SBX_RUN_PRELOAD);
			/* /etc/ld.so.preload from the /etc view (overlay mounted before bwrap) or a bind */
			cJSON_AddStringToObject(bw, "etc_view", c->etc_view ? c->etc_view : "binds");
		}
	} else {
		cJSON_AddStringToObject(bw, "error", err);
	}
	strv_free(&argv);
	return bw;
}

static void bw_on_ready(const struct layer_ctx *c, void **st, const char *status, pid_t pid, int listener)
{
	if (layer_wrapped(c))
		sbx_layer_set_on(c->L, layer_bwrap.id, "%s: user, pid, ipc, uts, cgroup%s namespaces",
				 c->d->bwrap, pol_own_netns(c->pol) ? ", net" : "");
}

const struct layer_ops layer_bwrap = {
	.id = SBX_L_BWRAP,
	.name = "bwrap",
	.lost = "no private mount tree or namespaces: the executor sees the host's filesystem, "
		"processes and network (only the other layers stand in the way)",
	.probe = bw_probe,
	.plan = bw_plan,
	.wrap = bw_wrap,
	.on_ready = bw_on_ready,
};
