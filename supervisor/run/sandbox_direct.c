/* sandbox_direct.c — see sandbox_direct.h. */
#include "sandbox_direct.h"
#include "caps.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mount.h>

#include <cjson/cJSON.h>

#include "etc_view.h"
#include "msg.h"
#include "vmchild.h"
#include "quote.h"
#include "env.h"
#include "manifest.h"
#include "smallfile.h"

#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif


/* ---- identities -------------------------------------------------------------------------------- */

static int parse_ids(const char *s, uid_t *u, gid_t *g)
{
	char *end;
	errno = 0;
	unsigned long a = strtoul(s, &end, 10), b = a;
	if (errno || end == s || a >= 0xfffffffful)
		return -1;
	if (*end == ':') {
		const char *t = end + 1;
		b = strtoul(t, &end, 10);
		if (errno || end == t || b >= 0xfffffffful)
			return -1;
	}
	if (*end)
		return -1;
	*u = (uid_t)a;
	*g = (gid_t)b;
	return 0;
}

/* The host identity a root sbxsup lends the executor: SBXSUP_USER, else `sbxsup`, else nobody. */
static int host_identity(struct sd_plan *p)
{
	const char *u = getenv("SBXSUP_USER");
	struct passwd *pw;
	if (u && *u) {
		if (parse_ids(u, &p->host_uid, &p->host_gid) == 0) {
			if (!strchr(u, ':') && (pw = getpwuid(p->host_uid)))
				p->host_gid = pw->pw_gid;
		} else if ((pw = getpwnam(u))) {
			p->host_uid = pw->pw_uid;
			p->host_gid = pw->pw_gid;
		} else {
			snprintf(p->why, sizeof p->why, "SBXSUP_USER=%s: no such user (NAME or UID[:GID])", u);
			return -1;
		}
		if (p->host_uid == 0 || p->host_gid == 0) {
			snprintf(p->why, sizeof p->why, "SBXSUP_USER=%s: the executor never runs as uid/gid 0", u);
			return -1;
		}
		return 0;
	}
	if ((pw = getpwnam("sbxsup")) && pw->pw_uid != 0 && pw->pw_gid != 0) {
		p->host_uid = pw->pw_uid;
		p->host_gid = pw->pw_gid;
		return 0;
	}
	p->host_uid = 65534;
	p->host_gid = 65534;
	if ((pw = getpwnam("nobody")) && pw->pw_uid != 0)
		p->host_uid = pw->pw_uid;
	struct group *gr = getgrnam("nogroup");
	if (!gr)
		gr = getgrnam("nobody");
	if (gr && gr->gr_gid != 0)
		p->host_gid = gr->gr_gid;
	return 0;
}

void sd_inside_ids(const struct sd_plan *p, uid_t *uid, gid_t *gid)
{
	*uid = p->in_uid;
	*gid = p->in_gid;
}

bool sd_manifest_grants_home(const void *manifest)
{
	const struct manifest *m = manifest;
	if (!m || !m->home)
		return false;
	size_t hl = strlen(m->home);
	for (size_t i = 0; i < m->nwrites; i++) {
		const char *a = m->writes[i].abs;
		if (a && !strncmp(a, m->home, hl) && (!a[hl] || !strcmp(a + hl, "/**") || !strcmp(a + hl, "/")))
			return true;
	}
	return false;
}

/* A normal user: can this process make a user + mount namespace? (one short-lived child) */
static bool can_userns(void)
{
	pid_t c = fork();
	if (c < 0)
		return false;
	if (c == 0)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 : 1);
	int st;
	while (waitpid(c, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int sd_probe(struct sd_plan *p, bool no_net, bool real_home, const char *workspace)
{
	if (p->probed)
		return 0;
	memset(p, 0, sizeof *p);
	p->userns_fd = -1;
	p->root = geteuid() == 0;
	p->netns = no_net;
	p->real_home = real_home;
	const char *un = getenv("SBXSUP_USERNS"); /* "0": never a user namespace (the setresuid path) */
	p->no_userns = un && (!strcmp(un, "0") || !strcasecmp(un, "off") || !strcasecmp(un, "no"));
	snprintf(p->ws_path, sizeof p->ws_path, "%s", workspace ? workspace : "");
	const char *v = getenv("SBXSUP_UID");
	uid_t self = getuid();
	p->in_uid = self ? self : SD_DEFAULT_UID;
	p->in_gid = self ? getgid() : SD_DEFAULT_UID;
	if (v && *v && (parse_ids(v, &p->in_uid, &p->in_gid) < 0 || !p->in_uid || !p->in_gid)) {
		snprintf(p->why, sizeof p->why, "SBXSUP_UID=%s: expected a non-zero N or N:G", v);
		return -1;
	}
	if (p->root) {
		if (host_identity(p) < 0)
			return -1;
		p->mnt = true; /* CLONE_NEWNS needs only CAP_SYS_ADMIN */
	} else {
		p->host_uid = getuid();
		p->host_gid = getgid();
		p->mnt = !p->no_userns && can_userns();
	}
	p->probed = true;
	return 0;
}

const char *sd_tmp_path(const struct sd_plan *p, const char *tmp_host)
{
	return p->mnt ? "/tmp" : tmp_host;
}

int sd_prepare_dirs(struct sd_plan *p, const char *tmp_host, const char *repdir, const char *repsock)
{
	char home[128];
	/* the report socket (ours): the executor's identity may connect, not list or add entries */
	if (p->root && repdir && *repdir &&
	    (chmod(repdir, 0711) < 0 || (repsock && *repsock && lchown(repsock, p->host_uid, p->host_gid) < 0))) {
		snprintf(p->why, sizeof p->why, "report socket %s: %s", repsock ? repsock : repdir, strerror(errno));
		return -1;
	}
	snprintf(p->tmp_host, sizeof p->tmp_host, "%s", tmp_host ? tmp_host : "");
	if (!tmp_host || !*tmp_host)
		return 0;
	snprintf(home, sizeof home, "%s/" SD_HOME_NAME, tmp_host);
	if (mkdir(home, 0700) < 0 && errno != EEXIST) {
		snprintf(p->why, sizeof p->why, "mkdir %s: %s", home, strerror(errno));
		return -1;
	}
	/* Our own directories (created by this run), never the user's tree. */
	if (p->root && (lchown(tmp_host, p->host_uid, p->host_gid) < 0 ||
			lchown(home, p->host_uid, p->host_gid) < 0)) {
		snprintf(p->why, sizeof p->why, "chown %s: %s", tmp_host, strerror(errno));
		return -1;
	}
	return 0;
}

int sd_env(struct sd_plan *p, struct strv *env, const char *tmp_in_sandbox)
{
	if (p->real_home) {
		snprintf(p->home, sizeof p->home, "real (the manifest grants writing it)");
		return 0;
	}
	char home[160];
	snprintf(home, sizeof home, "%s/" SD_HOME_NAME, tmp_in_sandbox);
	snprintf(p->home, sizeof p->home, "private %s", home);
	return env_set(env, "HOME", home) | env_set(env, "TMPDIR", tmp_in_sandbox);
}

/* ---- the workspace through an idmapped mount (root) ------------------------------------------- */

static int write_maps(pid_t pid, uid_t in_u, uid_t out_u, gid_t in_g, gid_t out_g, bool deny_setgroups)
{
	char path[64], m[64];
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	snprintf(m, sizeof m, "%u %u 1\n", (unsigned)in_u, (unsigned)out_u);
	if (sbx_write_small(path, m) < 0)
		return -1;
	if (deny_setgroups) {
		snprintf(path, sizeof path, "/proc/%d/setgroups", (int)pid);
		if (sbx_write_small(path, "deny") < 0 && errno != ENOENT)
			return -1;
	}
	snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
	snprintf(m, sizeof m, "%u %u 1\n", (unsigned)in_g, (unsigned)out_g);
	return sbx_write_small(path, m);
}

static void reap_killed(pid_t c)
{
	kill(c, SIGKILL);
	while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The child of userns_fd: made in its own user namespace (CLONE_NEWUSER), it holds it until the
 * parent has written the maps and opened it (its end of the pipe closed). Raw calls only (vmchild.h). */
static int userns_hold(void *arg)
{
	const int *sp = arg; /* the child has its own copy of our descriptors: close its write end */
	char x;
	close(sp[1]);
	(void)!read(sp[0], &x, 1);
	return 0;
}

/* A user namespace fd whose only map is in_u -> out_u, in_g -> out_g, made by a short-lived child
 * sharing our memory (clone CLONE_NEWUSER: the child is in its namespace when clone returns). */
static int userns_fd(uid_t in_u, uid_t out_u, gid_t in_g, gid_t out_g, bool deny_setgroups)
{
	int sp[2];
	if (pipe2(sp, O_CLOEXEC) < 0)
		return -1;
	struct sbx_vm_child vc;
	if (sbx_vm_child_start(&vc, userns_hold, sp, CLONE_NEWUSER) < 0) {
		int e = errno;
		close(sp[0]);
		close(sp[1]);
		errno = e;
		return -1;
	}
	int fd = -1, e = 0;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)vc.pid);
	if (write_maps(vc.pid, in_u, out_u, in_g, out_g, deny_setgroups) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		e = errno;
	close(sp[1]); /* the child returns */
	(void)sbx_vm_child_wait(&vc);
	close(sp[0]);
	errno = e;
	return fd;
}

/* A detached copy of a writable directory's tree in which its owner's files belong to host_uid. */
static int idmapped_dir(struct sd_plan *p, const char *path, char *how, size_t howlen)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		snprintf(how, howlen, "unreadable: %s", strerror(errno));
		return -1;
	}
	if (st.st_uid == p->host_uid) {
		snprintf(how, howlen, "owned by the executor's uid");
		return -1;
	}
	int us = userns_fd(st.st_uid, p->host_uid, st.st_gid, p->host_gid, false);
	if (us < 0) {
		snprintf(how, howlen, "no idmap user namespace: %s", strerror(errno));
		return -1;
	}
	int t = (int)syscall(SYS_open_tree, AT_FDCWD, path,
			     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (t < 0) {
		snprintf(how, howlen, "open_tree: %s", strerror(errno));
		close(us);
		return -1;
	}
	struct mount_attr a = {.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
			       .userns_fd = (unsigned)us};
	int rc = (int)syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a);
	if (rc < 0) /* a submount that cannot be idmapped: the top one alone */
		rc = (int)syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH, &a, sizeof a);
	int e = errno;
	close(us);
	if (rc < 0) {
		snprintf(how, howlen, "idmapped mount refused: %s", strerror(e));
		close(t);
		return -1;
	}
	snprintf(how, howlen, "idmapped mount (on-disk uid %u -> host uid %u)", (unsigned)st.st_uid,
		 (unsigned)p->host_uid);
	return t;
}

/* --shadow as root: the overlay, built here from descriptors, replaces the workspace's idmapped
 * mount (the child moves it over the workspace path). Its lower layer is that idmapped clone (the
 * workspace owner's files are host_uid's, as without --shadow); the upper layer cannot be a
 * detached (idmapped) mount, so the store's upper root is simply handed to host_uid: what the
 * executor creates or copies up is host_uid's on disk, inside root's 0700 store. */
static int shadow_root_overlay(struct sd_plan *p)
{
	size_t ws = p->nwr;
	for (size_t i = 0; i < p->nwr; i++)
		if (!strcmp(p->wr[i], p->ws_path))
			ws = i;
	if (ws == p->nwr) { /* not a writable dir of the plan: the overlay alone */
		if (p->nwr >= SD_MAX_EXPOSE)
			return errno = ENOSPC, -1;
		snprintf(p->wr[p->nwr], sizeof p->wr[0], "%.1023s", p->ws_path);
		p->wr_fd[p->nwr++] = -1;
	}
	if (p->shadow->copy) { /* the copy fallback: its tree, idmapped like the workspace would be */
		char how[200] = "";
		int t = idmapped_dir(p, p->shadow->tree, how, sizeof how);
		if (t < 0)
			t = (int)syscall(SYS_open_tree, AT_FDCWD, p->shadow->tree, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (t < 0) {
			snprintf(p->why, sizeof p->why, "shadow workspace: %.160s: %s", p->shadow->tree, strerror(errno));
			return -1;
		}
		if (p->wr_fd[ws] >= 0)
			close(p->wr_fd[ws]);
		p->wr_fd[ws] = t;
		return 0;
	}
	int up = open(p->shadow->upper, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int wk = open(p->shadow->work, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int m = -1;
	if (up >= 0 && wk >= 0) {
		if (p->wr_fd[ws] >= 0)
			(void)!fchownat(up, "", p->host_uid, p->host_gid, AT_EMPTY_PATH);
		m = shadow_overlay_fd(p->wr_fd[ws], p->ws_path, up, wk, false);
	}
	int e = errno;
	if (up >= 0)
		close(up);
	if (wk >= 0)
		close(wk);
	if (m < 0) {
		errno = e;
		snprintf(p->why, sizeof p->why, "shadow workspace: the overlay cannot be built");
		return -1;
	}
	if (p->wr_fd[ws] >= 0)
		close(p->wr_fd[ws]);
	p->wr_fd[ws] = m;
	return 0;
}

/* ---- spawning ---------------------------------------------------------------------------------- */

static void ns_text(struct sd_plan *p)
{
	static const struct { unsigned long f; const char *n; } t[] = {
		{CLONE_NEWPID, "pid"}, {CLONE_NEWUSER, "user"}, {CLONE_NEWIPC, "ipc"},
		{CLONE_NEWUTS, "uts"}, {CLONE_NEWNS, "mnt"}, {CLONE_NEWNET, "net"},
	};
	size_t l = 0;
	p->ns[0] = 0;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (p->flags & t[i].f)
			l += (size_t)snprintf(p->ns + l, sizeof p->ns - l, "%s%s", l ? "," : "", t[i].n);
	if (!l)
		snprintf(p->ns, sizeof p->ns, "none");
}

bool sd_root_accepted(void)
{
	const char *a = getenv("SBXSUP_ALLOW_ROOT_EXECUTOR");
	return a && !strcmp(a, "1");
}

/* No namespace at all could be made (a container's default seccomp profile and capabilities): as
 * root the executor still becomes the unprivileged host identity, switched to in the exec stage
 * (setresuid needs CAP_SETUID/CAP_SETGID, which a container's default set holds); without them
 * it would stay uid 0, which the caller refuses unless accepted (sd_root_executor). */
static void fallback_identity(struct sd_plan *p)
{
	p->setid = p->root && sbx_caps_effective(CAP_SETUID) && sbx_caps_effective(CAP_SETGID);
	p->keep_bset = p->setid && !sbx_caps_effective(CAP_SETPCAP);
	if (p->setid)
		snprintf(p->identity, sizeof p->identity, "uid %u gid %u (no namespace could be made: "
			 "setresuid; bounding set %s)", (unsigned)p->host_uid, (unsigned)p->host_gid,
			 p->keep_bset ? "kept (no CAP_SETPCAP), no_new_privs" : "emptied");
	else if (p->root)
		snprintf(p->identity, sizeof p->identity, "uid 0 (no namespace could be made; no CAP_SETUID/"
			 "CAP_SETGID to switch to uid %u)", (unsigned)p->host_uid);
	else
		snprintf(p->identity, sizeof p->identity, "uid %u (no namespace could be made)",
			 (unsigned)getuid());
}

bool sd_root_executor(struct sd_plan *p, bool *accepted)
{
	if (!p->identity[0]) /* the set-up failed before sd_spawn: decide the fallback's identity now */
		fallback_identity(p);
	*accepted = sd_root_accepted();
	return p->root && !p->userns && !p->setid;
}

/* Root, parent, before spawning (both modes): each writable granted dir as a detached idmapped
 * mount (p->wr_fd), warned about once when it cannot be one; then --shadow's overlay replaces the
 * workspace's. p->how (the workspace's, else the first) and p->nid say what applied. */
static int writable_mounts(struct sd_plan *p)
{
	p->how[0] = 0;
	p->nid = 0;
	for (size_t i = 0; p->root && i < p->nwr; i++) {
		char h[200] = "", q[SBX_Q_MAX];
		if (p->wr_fd[i] < 0)
			p->wr_fd[i] = idmapped_dir(p, p->wr[i], h, sizeof h);
		if (p->wr_fd[i] >= 0)
			p->nid++;
		else if (strcmp(h, "owned by the executor's uid"))
			sbx_msg("warning: %s: %s: it is writable to the executor (host uid %u) only where its "
				"modes allow", sbx_q(p->wr[i], q, sizeof q), h, (unsigned)p->host_uid);
		if (!strcmp(p->wr[i], p->ws_path) || !p->how[0])
			snprintf(p->how, sizeof p->how, "%s", h);
	}
	return p->root && p->shadow ? shadow_root_overlay(p) : 0;
}

static void close_writable(struct sd_plan *p)
{
	for (size_t i = 0; i < p->nwr; i++)
		if (p->wr_fd[i] >= 0) {
			close(p->wr_fd[i]);
			p->wr_fd[i] = -1;
		}
}

/* run.start.level.identity, one formatter for every mode. */
static void identity_text(struct sd_plan *p, bool bwrap)
{
	if (bwrap || p->userns)
		snprintf(p->identity, sizeof p->identity, "userns uid %u gid %u -> host uid %u gid %u%s",
			 (unsigned)p->in_uid, (unsigned)p->in_gid, (unsigned)p->host_uid, (unsigned)p->host_gid,
			 bwrap ? " (bwrap)" : "");
	else
		snprintf(p->identity, sizeof p->identity, "uid %u gid %u (no user namespace)",
			 (unsigned)p->host_uid, (unsigned)p->host_gid);
	if (p->root && p->nwr && p->how[0]) { /* (not before the mounts were tried: a refusal) */
		size_t l = strlen(p->identity);
		snprintf(p->identity + l, sizeof p->identity - l, "; workspace: %s; writable dirs idmapped: %zu of %zu",
			 p->how, p->nid, p->nwr);
	}
}

int sd_bwrap_prepare(struct sd_plan *p, const char *repdir, const char *repsock)
{
	p->userns_fd = -1;
	if (p->root) {
		if (sd_prepare_dirs(p, NULL, repdir, repsock) < 0 || writable_mounts(p) < 0)
			goto fail;
		/* the executor's ids inside -> the unprivileged host identity; no setgroups inside */
		p->userns_fd = userns_fd(p->in_uid, p->host_uid, p->in_gid, p->host_gid, true);
		if (p->userns_fd < 0) {
			snprintf(p->why, sizeof p->why, "a user namespace for bwrap (uid %u -> host uid %u): %s",
				 (unsigned)p->in_uid, (unsigned)p->host_uid, strerror(errno));
			goto fail;
		}
	}
	identity_text(p, true);
	return 0;
fail:
	close_writable(p);
	return -1;
}

struct unreach_job {
	const struct sd_plan *p;
	const char *const *paths;
	size_t n;
	bool *bad;
};

/* As the host identity, as bwrap will be once it joined the run's namespace: which paths it cannot
 * look up. Raw calls only, errno read right after its call (vmchild.h; the parent is suspended). */
static int unreach_child(void *arg)
{
	const struct unreach_job *j = arg;
	if (syscall(SYS_setgroups, 0, NULL) < 0 ||
	    syscall(SYS_setresgid, j->p->host_gid, j->p->host_gid, j->p->host_gid) < 0 ||
	    syscall(SYS_setresuid, j->p->host_uid, j->p->host_uid, j->p->host_uid) < 0)
		return 1;
	for (size_t i = 0; i < j->n; i++) {
		int fd = open(j->paths[i], O_PATH | O_CLOEXEC);
		j->bad[i] = fd < 0 && errno == EACCES;
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

int sd_unreachable(const struct sd_plan *p, const char *const *paths, size_t n, bool *bad)
{
	memset(bad, 0, n);
	if (!p->root || !n)
		return 0;
	struct unreach_job j = {.p = p, .paths = paths, .n = n, .bad = bad};
	struct sbx_vm_child vc;
	/* the child's change of uid marks the memory it shares with us not dumpable: put back ours */
	int dumpable = prctl(PR_GET_DUMPABLE);
	/* CLONE_VFORK: we wait while the child looks the paths up and fills bad[] (our memory) */
	if (sbx_vm_child_start(&vc, unreach_child, &j, CLONE_VFORK) < 0)
		return -1;
	int st = sbx_vm_child_wait(&vc);
	if (dumpable >= 0)
		(void)prctl(PR_SET_DUMPABLE, dumpable);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		memset(bad, 0, n);
		errno = ECHILD;
		return -1;
	}
	return 0;
}

void sd_bwrap_done(struct sd_plan *p)
{
	close_writable(p);
	if (p->userns_fd >= 0)
		close(p->userns_fd);
	p->userns_fd = -1;
}

pid_t sd_spawn(struct sd_plan *p, struct cg_run *cg)
{
	unsigned long base = CLONE_NEWPID;
	if (p->mnt)
		base |= CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (p->netns ? CLONE_NEWNET : 0);
	p->userns = p->setid = p->keep_bset = false;
	if (writable_mounts(p) < 0)
		return -1;

	int sp[2];
	if (pipe2(sp, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = -1;
	if (!p->no_userns)
		pid = cg_spawn(cg, base | CLONE_NEWUSER);
	if (pid == 0) {
		char c;
		close(sp[1]);
		if (read(sp[0], &c, 1) != 1)
			_exit(SBX_EXIT_INTERNAL);
		close(sp[0]);
		p->userns = true;
		p->flags = base | CLONE_NEWUSER;
		return 0;
	}
	if (pid > 0) {
		if (write_maps(pid, p->in_uid, p->host_uid, p->in_gid, p->host_gid, !p->root) < 0 ||
		    write(sp[1], "g", 1) != 1) {
			snprintf(p->why, sizeof p->why, "user namespace maps: %s", strerror(errno));
			reap_killed(pid);
			pid = -1;
		} else {
			p->userns = true;
			p->flags = base | CLONE_NEWUSER;
		}
	}
	close(sp[0]);
	close(sp[1]);
	if (pid < 0 && p->root && sbx_caps_effective(CAP_SETUID) && sbx_caps_effective(CAP_SETGID)) {
		/* The kernel refused a user namespace: root still makes the others, the init then
		 * becomes the unprivileged host identity (without CAP_SETUID/CAP_SETGID it could not:
		 * the caller refuses that run, sd_root_executor). */
		pid = cg_spawn(cg, base);
		if (pid == 0) {
			p->setid = true;
			p->flags = base;
			return 0;
		}
		if (pid > 0) {
			p->setid = true;
			p->flags = base;
		}
	}
	if (pid != 0)
		close_writable(p);
	if (pid < 0) {
		p->flags = 0;
		fallback_identity(p);
		if (p->setid && p->nwr) { /* say it in run.start too: the workspace is writable by modes only */
			size_t l = strlen(p->identity);
			snprintf(p->identity + l, sizeof p->identity - l, "; workspace: %s; writable dirs idmapped: "
				 "0 of %zu", p->how, p->nwr);
		}
		ns_text(p);
		return -1;
	}
	ns_text(p);
	identity_text(p, false);
	return pid;
}

void sd_level(struct sd_plan *p, void *level_obj, bool bwrap_mode, bool bwrap_net, bool disabled)
{
	cJSON *level = level_obj;
	if (disabled || !level)
		return;
	if (bwrap_mode) {
		identity_text(p, true);
		snprintf(p->ns, sizeof p->ns, "pid,user,ipc,uts,mnt,cgroup%s", bwrap_net ? ",net" : "");
	} else if (!p->identity[0]) {
		snprintf(p->identity, sizeof p->identity, "uid %u (no namespace)", (unsigned)getuid());
	}
	if (!p->ns[0])
		snprintf(p->ns, sizeof p->ns, "none");
	cJSON_AddStringToObject(level, "identity", p->identity);
	cJSON_AddStringToObject(level, "ns", p->ns);
	if (p->home[0])
		cJSON_AddStringToObject(level, "home", p->home);
}
