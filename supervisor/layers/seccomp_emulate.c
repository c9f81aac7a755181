/* seccomp_emulate.c — notified calls performed on the target's behalf (see seccomp_emulate.h). */
#include "seccomp_emulate.h"
#include "fdpass.h"
#include "fdpath.h"
#include "procids.h"
#include "actas.h"
#include "idmap.h"
#include "smallfile.h"
#include "seccomp_notify.h"
#include "seccomp_unix.h"
#include "vmchild.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#define SE_O_TMPFILE_BIT 020000000 /* the kernel's __O_TMPFILE bit alone */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* ---- the one table ---------------------------------------------------------------------------- */

static bool in(const char *sys, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(sys, *list))
			return true;
	return false;
}

static const char *const open_calls[] = {"open", "openat", "creat", NULL};
static const char *const net_calls[] = {"connect", "bind", NULL};
/* a send's peer (sendto's address, a msghdr's msg_name) and the socket are in memory or the
 * descriptor table: no layer but bwrap's mount tree (the host's sockets outside the grants are not
 * in the target's view) stands behind a "continue" */
static const char *const send_calls[] = {"sendto", "sendmsg", "sendmmsg", NULL};
/* Landlock has no right for these: only bwrap (the object outside the grants is not in the
 * target's view; read grants are read-only binds) stands behind them */
static const char *const meta_emulated[] = {"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "lchown",
					     "fchown", "fchownat", "utime", "utimes", "futimesat", "utimensat",
					     "inotify_add_watch", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
					     "lremovexattr", "fremovexattr", NULL};
static const char *const meta_refused[] = {"setxattrat", "removexattrat", "fanotify_mark", NULL};
/* Landlock has a right for these (MAKE_*, REMOVE_*, REFER, TRUNCATE, EXECUTE) */
static const char *const ll_covered[] = {"mknod", "mknodat", "link", "linkat", "unlink", "unlinkat", "rmdir",
					  "mkdir", "mkdirat", "truncate", "symlink", "symlinkat", "rename",
					  "renameat", "renameat2", "execve", "execveat", NULL};

enum sbx_sn_route sbx_sn_route(const struct sbx_sn_walls *w, const char *sys)
{
	if (in(sys, net_calls))
		return SBX_SN_EMULATE; /* no layer decides a unix path by its name; the family is in
					* memory too (a flip to AF_UNIX after an AF_INET check) */
	if (in(sys, send_calls))
		return w->bwrap ? SBX_SN_CONTINUE : SBX_SN_EMULATE;
	if (in(sys, open_calls))
		return w->landlock || w->bwrap ? SBX_SN_CONTINUE : SBX_SN_EMULATE;
	if (in(sys, meta_emulated))
		return w->bwrap ? SBX_SN_CONTINUE : SBX_SN_EMULATE;
	if (in(sys, meta_refused))
		return w->bwrap ? SBX_SN_CONTINUE : SBX_SN_REFUSE;
	if (in(sys, ll_covered)) {
		/* a filter holding a manifest deny (w->deny): neither wall knows a match created since
		 * the start, so a name made or moved is performed here (an exec cannot be) */
		if ((w->landlock || w->bwrap) && !(w->deny && strncmp(sys, "exec", 4)))
			return SBX_SN_CONTINUE;
		/* an exec cannot be performed for the target; the exec gate (no code:exec) refuses
		 * every later exec, and with code:exec the policy grants execution */
		return !strncmp(sys, "exec", 4) ? SBX_SN_CONTINUE : SBX_SN_EMULATE;
	}
	return SBX_SN_CONTINUE; /* registers only (socket, rlimits), or decided elsewhere (sendto,
				 * openat2: refused by the layer) */
}

/* ---- answering ------------------------------------------------------------------------------- */

static void answer(int listener, uint64_t id, long val, int err)
{
	struct seccomp_notif_resp r = {.id = id, .val = err ? 0 : val, .error = err ? -err : 0, .flags = 0};
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r); /* ENOENT: the task left the call */
}

/* Install `fd` in the target as the call's result (closes fd). */
static void answer_fd(int listener, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {.id = id, .flags = SECCOMP_ADDFD_FLAG_SEND, .srcfd = (uint32_t)fd,
					.newfd = 0, .newfd_flags = cloexec ? O_CLOEXEC : 0};
	int r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
	int e = errno;
	close(fd);
	if (r < 0 && e != ENOENT)
		answer(listener, id, 0, e); /* EMFILE, ...: the call fails as the kernel's would */
}

/* The path of this process's descriptor fd, a deleted file on its last name (fdpath.h). */
static int obj_path(int fd, char *out, size_t outlen)
{
	if (fd_path(fd, out, outlen) < 0)
		return -1;
	path_drop_deleted(out);
	return 0;
}

/* A refusal of the object actually reached (`real`; `requested` as copied). */
static int refuse(const struct sbx_sn_ctx *c, pid_t pid, const char *access, const char *real, const char *requested,
		  uint32_t rule, int err, struct sbx_sn_report *rep)
{
	return sbx_sn_violation(rep, pid, access, err, real, requested, "%s",
				c->pol ? pol_rule_text(c->pol, rule) : "no policy (fail closed)");
}

#define SE_AGAIN_AS_TARGET 10 /* internal: the target's memory or descriptors are out of the
				* supervisor's own reach: the whole call again as the target */
static int undecidable(pid_t pid, const char *access, const char *requested, int e, struct sbx_sn_report *rep)
{
	if (geteuid() == 0 && (e == EPERM || e == EACCES))
		return SE_AGAIN_AS_TARGET;
	return sbx_sn_violation(rep, pid, access, EPERM, requested, requested,
				"undecidable: the call cannot be performed for the caller (%s)", strerror(e));
}

/* The policy on the object reached: path of `fd` (or `real` when given), /proc/<own pid> as
 * /proc/self. A descriptor that is not a file of a file system (pipe, socket, anon inode, memfd)
 * has nothing of the host to protect. 0 allowed, 1 denied (*rule). */
static int decide_obj(const struct sbx_sn_ctx *c, pid_t pid, int fd, unsigned acc, bool meta, char *real,
		      size_t reallen, uint32_t *rule)
{
	if (fd >= 0 && obj_path(fd, real, reallen) < 0) {
		snprintf(real, reallen, "?");
		*rule = POL_RULE_DEFAULT;
		return 1;
	}
	if (real[0] != '/' || !strncmp(real, "/memfd:", 7))
		return 0;
	sbx_sn_proc_self_rewrite(pid, real, reallen);
	struct pol_decision d = {.verdict = POL_DENY, .rule = POL_RULE_DEFAULT};
	if (c->pol)
		pol_path(c->pol, real, acc, &d);
	*rule = d.rule;
	if (d.verdict == POL_ALLOW || (meta && d.rule == POL_RULE_DEFAULT && c->pol))
		return 0;
	return 1;
}

/* ---- resolving in the target's view ----------------------------------------------------------- */

/* `path` names one of the target's own descriptors through a magic link: /dev/std{in,out,err},
 * /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N, /proc/<its pid>/fd/N. Its number, or -1. */
static int own_fd_name(pid_t pid, const char *path)
{
	if (!strcmp(path, "/dev/stdin"))
		return 0;
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	sbx_sn_proc_self_rewrite(pid, buf, sizeof buf);
	const char *n = NULL;
	if (!strncmp(buf, "/dev/fd/", 8))
		n = buf + 8;
	else if (!strncmp(buf, "/proc/self/fd/", 14))
		n = buf + 14;
	else if (!strncmp(buf, "/proc/thread-self/fd/", 21))
		n = buf + 21;
	if (!n || *n < '0' || *n > '9')
		return -1;
	char *end;
	long v = strtol(n, &end, 10);
	return *end || v > 1 << 20 ? -1 : (int)v;
}

/* /proc/self/exe, /proc/thread-self/exe or /proc/<its pid there>/exe: the target's executable (a
 * magic link, which the resolution here does not follow). */
static bool own_exe_name(pid_t pid, const char *req)
{
	if (!strcmp(req, "/proc/self/exe") || !strcmp(req, "/proc/thread-self/exe"))
		return true;
	size_t n = strlen(req);
	if (strncmp(req, "/proc/", 6) || n < 10 || strcmp(req + n - 4, "/exe"))
		return false; /* no /proc/<pid>/exe: no read of the target's status on every open */
	char p[64];
	long nsp = sbx_sn_ns_pid(pid);
	snprintf(p, sizeof p, "/proc/%ld/exe", nsp);
	return nsp > 0 && !strcmp(req, p);
}

/* The target's executable as an O_PATH descriptor (opened as the supervisor: the target may always
 * reach its own), or -1 with errno. */
static int take_exe(pid_t pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
	return open(p, O_PATH | O_CLOEXEC);
}

/* Where `path` starts in the target's view: its root (absolute: *resolve gets RESOLVE_IN_ROOT),
 * its cwd, or its dirfd. An O_PATH fd, or -1 with errno. `path` may be rewritten (/proc/self ->
 * /proc/<its own pid>, which the target's procfs knows). */
static int target_base(pid_t pid, int dirfd, char *path, size_t len, uint64_t *resolve)
{
	char p[64];
	if (path[0] == '/') {
		*resolve |= RESOLVE_IN_ROOT;
		const char *rest = NULL;
		if (!strncmp(path, "/proc/self", 10) && (path[10] == '/' || !path[10]))
			rest = path + 10;
		else if (!strncmp(path, "/proc/thread-self", 17) && (path[17] == '/' || !path[17]))
			rest = path + 17;
		long nsp = rest ? sbx_sn_ns_pid(pid) : 0;
		if (rest && nsp > 0) {
			char t[4096];
			int n = snprintf(t, sizeof t, "/proc/%ld%s", nsp, rest);
			if (n > 0 && (size_t)n < len && (size_t)n < sizeof t)
				memcpy(path, t, (size_t)n + 1);
		}
		snprintf(p, sizeof p, "/proc/%d/root", (int)pid);
		return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (dirfd == AT_FDCWD) {
		snprintf(p, sizeof p, "/proc/%d/cwd", (int)pid);
		return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	return sbx_pidfd_getfd(pid, dirfd);
}

static int o2(int dfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	struct open_how how = {.flags = flags, .mode = mode, .resolve = resolve};
	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof how);
}

/* The directory holding the last name of `path` (written to in place and restored), as an O_PATH
 * fd below dfd with `resolve`; *base = that name. A fd, or -1 with errno. */
static int o2_parent(int dfd, char *path, uint64_t resolve, const char **base)
{
	char *sl = strrchr(path, '/');
	*base = sl ? sl + 1 : path;
	if (sl == path)
		return o2(dfd, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, resolve);
	if (!sl)
		return o2(dfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, resolve);
	*sl = 0;
	int fd = o2(dfd, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, resolve);
	int e = errno;
	*sl = '/';
	errno = e;
	return fd;
}

/* The start time (field 22 of stat) of the process a procfs directory `dirfd` names, or 0. */
static unsigned long long proc_start(int dirfd)
{
	char buf[1024];
	int f = openat(dirfd, "stat", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (f < 0)
		return 0;
	ssize_t n = read(f, buf, sizeof buf - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* after the name, which may hold spaces and parentheses */
	unsigned long long v = 0;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%llu", &v) != 1)
		v = 0;
	return v;
}

/* A read-only open of the target's own /proc entry (`path` as rewritten by target_base:
 * "/proc/<its pid there>/..."), refused to the target's identity: as root, the supervisor holds
 * none of the run's user namespace's capabilities while it acts as the executor, and the kernel
 * asks for one to read another namespace's process's maps or exe. The process itself may always
 * open these. True when `path` names, without "..", an entry below the target's own directory in
 * a procfs, and that directory is the target (same start time as the host's /proc/<pid>), and the
 * entry is one whose content does not depend on its opener's privileges: then the supervisor may
 * reopen it as itself, read-only. Called as the supervisor itself. */
static bool own_proc_entry(pid_t pid, const char *path, int obj)
{
	/* only entries whose content does not depend on the opener's privileges: pagemap (physical
	 * frames), stack, syscall and wchan (kernel addresses), mem and attr/ are decided by the
	 * opener's credentials and stay the executor's */
	static const char *const readable[] = {
		"maps",	   "smaps",  "smaps_rollup", "numa_maps", "environ",	"auxv",	  "cmdline",
		"stat",	   "statm",  "status",	     "limits",	  "mountinfo", "mounts", "mountstats",
		"cgroup",  "comm",   "io",	     "sched",	  "schedstat", "oom_score", "oom_score_adj",
		"cpuset",  "fd",     "fdinfo",	     "task",	  "timens_offsets"};
	const char *leaf = strrchr(path, '/');
	leaf = leaf ? leaf + 1 : path;
	bool known = false;
	for (size_t i = 0; i < sizeof readable / sizeof readable[0] && !known; i++)
		known = !strcmp(leaf, readable[i]);
	if (!known)
		return false;
	struct statfs sf;
	long nsp = sbx_sn_ns_pid(pid);
	char pre[64];
	int n = snprintf(pre, sizeof pre, "/proc/%ld/", nsp);
	if (nsp <= 0 || n <= 0 || strncmp(path, pre, (size_t)n) || strstr(path, "/..") || fstatfs(obj, &sf) ||
	    sf.f_type != PROC_SUPER_MAGIC)
		return false;
	char p[64];
	snprintf(p, sizeof p, "/proc/%d", (int)pid);
	int host = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof p, "/proc/%d/root", (int)pid);
	int root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int mine = root < 0 ? -1 : o2(root, pre, O_PATH | O_DIRECTORY | O_CLOEXEC, 0,
				     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS);
	unsigned long long a = host < 0 ? 0 : proc_start(host), b = mine < 0 ? 0 : proc_start(mine);
	if (host >= 0)
		close(host);
	if (root >= 0)
		close(root);
	if (mine >= 0)
		close(mine);
	return a && a == b;
}

/* ---- ids as the run sees them --------------------------------------------------------------------
 * A procfs entry whose text names user and group ids (status: Uid, Gid, Groups) renders them in
 * the user namespace of whoever opened it. Opened by sbxsup (the host's namespace) it would show
 * the executor its host ids, never what getuid() says (ps, psutil, id checks). Such an entry,
 * once the executor's own open of it succeeded, is opened again from inside the target's user
 * namespace: by a child sharing our memory and descriptor table that joins that namespace for
 * one reopen of the object already decided (nothing else is resolved there). */
static bool ids_in_text(int obj)
{
	struct statfs sf;
	char p[4096];
	if (fstatfs(obj, &sf) || sf.f_type != PROC_SUPER_MAGIC || obj_path(obj, p, sizeof p) < 0)
		return false;
	const char *leaf = strrchr(p, '/');
	return leaf && !strcmp(leaf + 1, "status");
}

struct ns_reopen {
	int nsfd;
	char path[40]; /* /proc/self/fd/N of the object, in the shared descriptor table */
	int flags;
	int fd;        /* the new descriptor, or -1 */
};

static int ns_reopen_child(void *arg)
{
	struct ns_reopen *r = arg;
	if (syscall(SYS_setns, r->nsfd, CLONE_NEWUSER))
		return 1;
	long fd = syscall(SYS_openat, AT_FDCWD, r->path, r->flags | O_CLOEXEC);
	r->fd = fd < 0 ? -1 : (int)fd;
	return fd < 0;
}

/* The object `obj` reopened read-only from inside the user namespace of `pid`: a descriptor, or -1
 * (the same namespace as ours, none to join, or the join refused: the caller keeps its own). */
static int reopen_in_userns(pid_t pid, int obj, uint64_t flags)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/ns/user", (int)pid);
	struct ns_reopen r = {.nsfd = open(p, O_RDONLY | O_CLOEXEC), .flags = (int)(flags & ~(uint64_t)O_CREAT), .fd = -1};
	struct stat a, b;
	if (r.nsfd < 0 || fstat(r.nsfd, &a) || stat("/proc/self/ns/user", &b) || (a.st_ino == b.st_ino && a.st_dev == b.st_dev)) {
		if (r.nsfd >= 0)
			close(r.nsfd);
		return -1;
	}
	snprintf(r.path, sizeof r.path, "/proc/self/fd/%d", obj);
	struct sbx_vm_child c;
	int st = -1;
	if (sbx_vm_child_start(&c, ns_reopen_child, &r, CLONE_VFORK | CLONE_FILES) > 0)
		st = sbx_vm_child_wait(&c);
	close(r.nsfd);
	if (st != 0 && r.fd >= 0) {
		close(r.fd);
		r.fd = -1;
	}
	return r.fd;
}

/* Reopen the O_PATH object `obj` with the caller's flags (raw openat2: no fortify check on a
 * mode-less O_TMPFILE). O_TMPFILE makes a new file in the directory `obj`; mode as given (already
 * masked by the caller's umask). A fd, or -1 with errno. */
static int reopen(int obj, uint64_t flags, uint64_t mode)
{
	uint64_t f = (flags & ~(uint64_t)(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC;
	if ((flags & SE_O_TMPFILE_BIT) == SE_O_TMPFILE_BIT)
		return o2(obj, ".", flags | O_CLOEXEC, mode, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	char p[40];
	snprintf(p, sizeof p, "/proc/self/fd/%d", obj);
	return o2(AT_FDCWD, p, f, 0, 0);
}

/* ---- the connector: connects made by a process with the executor's identity -------------------
 * A connected unix stream socket carries its connector's credentials (SO_PEERCRED, SO_PEERPIDFD):
 * a connect made by the supervisor itself would name a root process to the listener. So connects
 * are made by one process per run, forked by the supervisor's main thread (PR_SET_PDEATHSIG),
 * with the executor's identity in full (real, effective, saved, fs ids and groups; no
 * capabilities, no_new_privs, not dumpable): the listener sees a live process of the executor's
 * uid. It receives (SCM_RIGHTS) the executor's socket, the reached socket's O_PATH descriptor and a
 * reply descriptor, connects in a thread of its own (a connect may block) and writes the errno
 * back; the supervisor's job thread answers the notification. The listener never leaves the
 * supervisor. The run's end kills it with the run's other children (lifetime.c). */
struct sbx_sn_emu {
	pthread_mutex_t mu;
	int sp;       /* our end of the SOCK_SEQPACKET pair, -1: none */
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

struct conn_req {
	int named;    /* 1: connect to the received O_PATH descriptor (a reached unix socket) */
	socklen_t len;
	struct sockaddr_storage ss;
	int send;     /* 1: a send (below), not a connect; len 0: no address */
	int flags;    /* send: the call's flags (MSG_NOSIGNAL added) */
	uint32_t dlen, clen, nrights; /* send: payload and control bytes, then descriptors, follow on
				       * the reply stream; the reply is a struct conn_sent */
};

struct conn_sent {
	long val;     /* bytes sent, or -1 */
	int err;
};

#define SE_SEND_MAX  (256 * 1024) /* payload bytes of one emulated send (more: a stream sends a
				   * prefix, a datagram is EMSGSIZE) */
#define SE_CTL_MAX   4096         /* control bytes of one emulated send */
#define SE_RIGHTS_MAX 253         /* the kernel's SCM_MAX_FD */

static int read_all(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

static int send_all(int fd, const void *buf, size_t n)
{
	for (size_t put = 0; put < n;) {
		ssize_t k = send(fd, (const char *)buf + put, n - put, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		put += (size_t)k;
	}
	return 0;
}

/* In the connector: the send of a request (payload, control and descriptors read from `reply`),
 * made on `sock`; the result written back on `reply`. */
static void conn_send(int sock, int reply, const struct conn_req *r)
{
	struct conn_sent out = {.val = -1, .err = EAGAIN};
	int rights[SE_RIGHTS_MAX], nr = 0;
	char *data = NULL, *ctl = NULL;
	if (r->dlen > SE_SEND_MAX || r->clen > SE_CTL_MAX || r->nrights > SE_RIGHTS_MAX)
		goto done;
	if (r->nrights) {
		char one;
		if (sbx_recv_fds(reply, &one, 1, rights, SE_RIGHTS_MAX, &nr, NULL) != 1)
			goto done;
		if ((uint32_t)nr != r->nrights)
			goto done;
	}
	data = malloc(r->dlen ? r->dlen : 1);
	ctl = malloc(r->clen ? r->clen : 1);
	if (!data || !ctl || read_all(reply, data, r->dlen) || read_all(reply, ctl, r->clen))
		goto done;
	struct iovec iov = {data, r->dlen};
	struct msghdr m = {.msg_name = r->len ? (void *)&r->ss : NULL, .msg_namelen = r->len, .msg_iov = &iov,
			   .msg_iovlen = 1, .msg_control = r->clen ? ctl : NULL, .msg_controllen = r->clen};
	/* the executor's descriptors, in the order its SCM_RIGHTS named them, as ours */
	int next = 0;
	for (struct cmsghdr *h = r->clen ? CMSG_FIRSTHDR(&m) : NULL; h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
			int k = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			for (int i = 0; i < k; i++) {
				if (next >= nr)
					goto done;
				memcpy(CMSG_DATA(h) + (size_t)i * sizeof(int), &rights[next++], sizeof(int));
			}
		}
	if (next != nr)
		goto done;
	ssize_t n = sendmsg(sock, &m, r->flags | MSG_NOSIGNAL);
	out.val = n;
	out.err = n < 0 ? errno : 0;
done:
	(void)send_all(reply, &out, sizeof out);
	for (int i = 0; i < nr; i++)
		close(rights[i]);
	free(data);
	free(ctl);
}

struct conn_job {
	int sock, hold, reply;
	struct conn_req r;
};

static void *conn_thread(void *arg)
{
	struct conn_job *c = arg;
	if (c->r.named) {
		struct sockaddr_un *u = (struct sockaddr_un *)&c->r.ss;
		memset(u->sun_path, 0, sizeof u->sun_path);
		int k = snprintf(u->sun_path, sizeof u->sun_path, "/proc/self/fd/%d", c->hold);
		c->r.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)k + 1);
	}
	if (c->r.send) {
		conn_send(c->sock, c->reply, &c->r);
	} else {
		int e = connect(c->sock, (struct sockaddr *)&c->r.ss, c->r.len) < 0 ? errno : 0;
		(void)!write(c->reply, &e, sizeof e);
	}
	close(c->sock);
	close(c->reply);
	if (c->hold >= 0)
		close(c->hold);
	free(c);
	return NULL;
}

static void __attribute__((noreturn)) connector_main(int sp, const struct sbx_act_ids *cr, pid_t parent)
{
	if (geteuid() == 0 &&
	    (syscall(SYS_setgroups, (size_t)cr->ngroups, cr->groups) || syscall(SYS_setresgid, cr->egid, cr->egid, cr->egid) ||
	     syscall(SYS_setresuid, cr->euid, cr->euid, cr->euid)))
		_exit(1);
	if (geteuid() != 0 && (syscall(SYS_setresgid, cr->egid, cr->egid, cr->egid) ||
			       syscall(SYS_setresuid, cr->euid, cr->euid, cr->euid)))
		_exit(1);
	if (getuid() == 0 || geteuid() == 0 || sbx_cap_eff() != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		_exit(1);
	for (;;) {
		struct conn_req r;
		int fds[3] = {-1, -1, -1}, nf = 0;
		ssize_t n = sbx_recv_fds(sp, &r, sizeof r, fds, 3, &nf, NULL);
		if (n <= 0)
			_exit(0);
		/* sock, reply[, hold] */
		struct conn_job *c = (n == (ssize_t)sizeof r && nf >= 2) ? malloc(sizeof *c) : NULL;
		if (!c) {
			for (int i = 0; i < 3; i++)
				if (fds[i] >= 0)
					close(fds[i]);
			continue;
		}
		*c = (struct conn_job){.sock = fds[0], .reply = fds[1], .hold = nf >= 3 ? fds[2] : -1, .r = r};
		pthread_t t;
		pthread_attr_t at;
		if (pthread_attr_init(&at) || pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) ||
		    pthread_create(&t, &at, conn_thread, c)) {
			int e = EAGAIN;
			(void)!write(c->reply, &e, sizeof e);
			close(c->sock);
			close(c->reply);
			if (c->hold >= 0)
				close(c->hold);
			free(c);
		}
		pthread_attr_destroy(&at);
	}
}

struct sbx_sn_emu *sbx_sn_emu_new(void)
{
	struct sbx_sn_emu *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	pthread_mutex_init(&e->mu, NULL);
	e->sp = -1;
	e->pid = -1;
	return e;
}

void sbx_sn_emu_free(struct sbx_sn_emu *e)
{
	if (!e)
		return;
	if (e->sp >= 0)
		close(e->sp); /* the connector sees EOF and exits */
	if (e->pid > 0) {
		kill(e->pid, SIGKILL);
		(void)waitpid(e->pid, NULL, 0);
	}
	pthread_mutex_destroy(&e->mu);
	free(e);
}

/* In the main thread: a live connector for identity `cr`. 0, or -1 (errno). */
static int connector_ready(struct sbx_sn_emu *e, const struct sbx_act_ids *cr)
{
	pthread_mutex_lock(&e->mu);
	int rc = 0;
	if (e->pid > 0 && (e->uid != cr->euid || e->gid != cr->egid || waitpid(e->pid, NULL, WNOHANG) != 0 ||
			   kill(e->pid, 0) < 0)) {
		/* another identity, or gone: a new one */
		if (e->sp >= 0)
			close(e->sp);
		kill(e->pid, SIGKILL);
		(void)waitpid(e->pid, NULL, WNOHANG);
		e->sp = -1;
		e->pid = -1;
	}
	if (e->pid <= 0) {
		int sv[2];
		pid_t parent = getpid();
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
			rc = -1;
		} else {
			pid_t p = fork();
			if (p == 0) {
				/* keep only the pair's end (as fd 3) */
				if (dup2(sv[1], 3) < 0 || syscall(SYS_close_range, 4, ~0U, 0) < 0)
					_exit(1);
				for (int i = 0; i < 3; i++)
					if (i != 3) {
						int nul = open("/dev/null", O_RDWR);
						if (nul >= 0 && nul != i) {
							dup2(nul, i);
							close(nul);
						}
					}
				connector_main(3, cr, parent);
			}
			close(sv[1]);
			if (p < 0) {
				close(sv[0]);
				rc = -1;
			} else {
				e->sp = sv[0];
				e->pid = p;
				e->uid = cr->euid;
				e->gid = cr->egid;
			}
		}
	}
	pthread_mutex_unlock(&e->mu);
	return rc;
}

/* Hand the connector one request: r, the executor's socket, the reply end of a fresh socketpair
 * and `hold` (-1: none). The reply end kept here, or -1 (the request did not go out). */
static int connector_request(struct sbx_sn_emu *e, int sock, int hold, const struct conn_req *r)
{
	int rp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rp) < 0)
		return -1;
	int fds[3] = {sock, rp[1], hold};
	pthread_mutex_lock(&e->mu);
	int sp = e->sp >= 0 ? fcntl(e->sp, F_DUPFD_CLOEXEC, 0) : -1;
	pthread_mutex_unlock(&e->mu);
	ssize_t n = sp >= 0 ? sbx_send_fds(sp, r, sizeof *r, fds, hold >= 0 ? 3 : 2) : -1;
	if (sp >= 0)
		close(sp);
	close(rp[1]);
	if (n != (ssize_t)sizeof *r) {
		close(rp[0]);
		return -1;
	}
	return rp[0];
}

/* In a job thread: the connect of `sock` to `r`, made by the connector; the errno (0: connected). */
static int connector_connect(struct sbx_sn_emu *e, int sock, int hold, const struct conn_req *r)
{
	int rp0 = connector_request(e, sock, hold, r);
	int err = EAGAIN;
	if (rp0 >= 0) {
		ssize_t k;
		do
			k = read(rp0, &err, sizeof err);
		while (k < 0 && errno == EINTR);
		if (k != (ssize_t)sizeof err)
			err = ECONNABORTED; /* the connector died meanwhile */
		close(rp0);
	}
	return err;
}

/* In a job thread: the send of `r` on `sock` by the connector, with the payload `data`, control
 * `ctl` (its SCM_RIGHTS numbers are replaced there by `rights`, in order). Bytes sent, or -1 with
 * *err. */
static long connector_send(struct sbx_sn_emu *e, int sock, int hold, const struct conn_req *r, const char *data,
			   const char *ctl, const int *rights, int *err)
{
	*err = EAGAIN;
	int rp0 = connector_request(e, sock, hold, r);
	long val = -1;
	if (rp0 >= 0) {
		int ok = 0;
		if (r->nrights) {
			char one = 0;
			ok = sbx_send_fds(rp0, &one, 1, rights, (int)r->nrights) == 1 ? 0 : -1;
		}
		struct conn_sent out;
		if (ok == 0 && send_all(rp0, data, r->dlen) == 0 && send_all(rp0, ctl, r->clen) == 0 &&
		    read_all(rp0, &out, sizeof out) == 0) {
			val = out.val;
			*err = out.err;
		} else {
			*err = ECONNABORTED; /* the connector died meanwhile */
		}
		close(rp0);
	}
	return val;
}

/* ---- blocking calls: a detached thread acting as the target ------------------------------------ */

enum job_op { JOB_REOPEN, JOB_CONNECT, JOB_SEND };
struct job {
	enum job_op op;
	struct sbx_sn_emu *emu;   /* CONNECT, SEND: the run's connector */
	int listener;
	uint64_t id;
	struct sbx_act_ids cr;
	int fd;                   /* REOPEN: the O_PATH object; CONNECT: the target's socket */
	uint64_t flags;           /* REOPEN */
	struct sockaddr_storage ss; /* CONNECT */
	socklen_t sslen;
	int holdfd;               /* CONNECT, SEND: an O_PATH fd named by ss (a unix path), or -1 */
	/* SEND: the copied payload and control, the executor's SCM_RIGHTS descriptors as ours, the
	 * call's flags; mm: a sendmmsg's first mmsghdr in the target (its msg_len is written), or 0 */
	char *data, *ctl;
	uint32_t dlen, clen;
	int *rights;
	uint32_t nrights;
	int sflags;
	pid_t pid;
	uint64_t mm;
	int done;                 /* SEND: the call's errno is sent here once answered (-1: none) */
};

/* Close and free what a job holds (not its listener). */
static void job_drop(struct job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	if (j->op != JOB_REOPEN && j->holdfd >= 0)
		close(j->holdfd);
	if (j->op == JOB_SEND && j->done >= 0)
		close(j->done);
	for (uint32_t i = 0; j->rights && i < j->nrights; i++)
		close(j->rights[i]);
	free(j->rights);
	free(j->data);
	free(j->ctl);
	free(j);
}

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct sbx_act_saved sv;
	/* a sendmmsg writes its msg_len into the target: with the target's real ids (the thread never
	 * switches back anyway) */
	if (sbx_act_as(&j->cr, &sv, j->op == JOB_SEND && j->mm) < 0) {
		answer(j->listener, j->id, 0, EPERM);
	} else if (j->op == JOB_SEND) {
		struct conn_req r = {.named = j->holdfd >= 0, .len = j->sslen, .ss = j->ss, .send = 1,
				     .flags = j->sflags, .dlen = j->dlen, .clen = j->clen, .nrights = j->nrights};
		int err = 0;
		long n = connector_send(j->emu, j->fd, j->holdfd, &r, j->data, j->ctl, j->rights, &err);
		if (n >= 0 && j->mm) {
			/* the first message went: msg_len of msgvec[0], the call's result 1 (the caller
			 * sends the rest again, as after any partial sendmmsg) */
			unsigned int ml = (unsigned int)n;
			struct iovec l = {&ml, sizeof ml},
				     rr = {(void *)(uintptr_t)(j->mm + offsetof(struct mmsghdr, msg_len)), sizeof ml};
			(void)process_vm_writev(j->pid, &l, 1, &rr, 1, 0);
			n = 1;
		}
		answer(j->listener, j->id, n < 0 ? 0 : n, n < 0 ? err : 0);
		if (j->done >= 0) {
			int e = n < 0 ? err : 0;
			(void)send(j->done, &e, sizeof e, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
	} else if (j->op == JOB_REOPEN) {
		int fd = reopen(j->fd, j->flags, 0);
		if (fd < 0)
			answer(j->listener, j->id, 0, errno);
		else
			answer_fd(j->listener, j->id, fd, j->flags & O_CLOEXEC);
	} else {
		struct conn_req r = {.named = j->holdfd >= 0, .len = j->sslen, .ss = j->ss};
		answer(j->listener, j->id, 0, connector_connect(j->emu, j->fd, j->holdfd, &r));
	}
	/* this thread never switches back: it ends here */
	close(j->listener);
	job_drop(j);
	return NULL;
}

/* Hand `j` to a detached thread (it answers). 0, or -1 (j freed, fds closed, answered EAGAIN). */
static int job_start(struct job *j)
{
	pthread_attr_t at;
	pthread_t t;
	/* the thread answers on its own copy of the listener: the run may close its own meanwhile */
	int own = fcntl(j->listener, F_DUPFD_CLOEXEC, 0);
	if (own < 0) {
		answer(j->listener, j->id, 0, EAGAIN);
		job_drop(j);
		return -1;
	}
	int shared = j->listener;
	j->listener = own;
	int rc = pthread_attr_init(&at);
	if (!rc)
		rc = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (!rc)
		rc = pthread_attr_setstacksize(&at, 64 * 1024);
	if (!rc)
		rc = pthread_create(&t, &at, job_run, j);
	pthread_attr_destroy(&at);
	if (rc) {
		answer(shared, j->id, 0, EAGAIN);
		close(own);
		job_drop(j);
		return -1;
	}
	return 0;
}

/* ---- open ---------------------------------------------------------------------------------- */

/* real + "/" + base in place (no "/" after the root); the caller checked that it fits. */
static void join_name(char *real, const char *base)
{
	size_t l = strlen(real);
	if (strcmp(real, "/"))
		real[l++] = '/';
	memcpy(real + l, base, strlen(base) + 1);
}

static int emulate_open(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			const uint64_t args[6], struct sbx_sn_report *rep)
{
	int dirfd = AT_FDCWD;
	uint64_t paddr, flags, mode;
	if (!strcmp(sys, "open")) {
		paddr = args[0], flags = args[1], mode = args[2];
	} else if (!strcmp(sys, "creat")) {
		paddr = args[0], flags = O_CREAT | O_WRONLY | O_TRUNC, mode = args[1];
	} else if (!strcmp(sys, "openat")) {
		dirfd = (int)args[0], paddr = args[1], flags = args[2], mode = args[3];
	} else {
		return 2;
	}
	/* the flags open(2) knows (openat2 refuses unknown bits, open ignores them) */
	flags &= (uint64_t)(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_DSYNC |
			    FASYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC |
			    O_SYNC | O_PATH | SE_O_TMPFILE_BIT);
	mode &= 07777;
	if (flags & O_PATH)
		return 3; /* an O_PATH descriptor gives no access by itself (SECCOMP_IOCTL_NOTIF_ADDFD cannot
			   * install one either): every use of it (reopen through /proc/self/fd, a dirfd, a
			   * link) is a call decided again on the object. The flags are a register. */
	char req[4096], path[4096];
	if (sbx_sn_read_str(pid, paddr, req, sizeof req) < 0) {
		if (paddr && (errno == EPERM || errno == EACCES))
			return undecidable(pid, "read", "?", errno, rep); /* nothing else stands behind */
		answer(listener, req_id, 0, !paddr || errno == EFAULT ? EFAULT : ENAMETOOLONG);
		return 0;
	}
	if (!req[0]) {
		answer(listener, req_id, 0, ENOENT);
		return 0;
	}
	snprintf(path, sizeof path, "%s", req);
	bool meta = (flags & O_PATH) != 0;
	unsigned acc = POL_READ;
	if (!meta && ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND | SE_O_TMPFILE_BIT))))
		acc = POL_WRITE;
	struct sbx_act_ids cr;
	if (sbx_act_ids_of(pid, &cr) < 0) {
		answer(listener, req_id, 0, ESRCH);
		return 0;
	}
	char real[4096];
	uint32_t rule;
	int obj = -1, parent = -1, fd = -1, e = 0;
	const char *base = NULL;
	struct sbx_act_saved sv;
	memset(&sv, 0, sizeof sv);

	/* one switch to the caller's identity for the whole call: resolving, deciding (pure) and
	 * performing; back before any answer that reports */
	int own = req[0] == '/' ? own_fd_name(pid, req) : -1;
	bool exe = own < 0 && own_exe_name(pid, req);
	if (own >= 0 || exe) {
		/* one of the target's descriptors, or its executable: that object, reopened */
		obj = exe ? take_exe(pid) : sbx_pidfd_getfd(pid, own);
		if (obj < 0 && (errno == EPERM || errno == EACCES))
			return undecidable(pid, acc == POL_WRITE ? "write" : "read", req, errno, rep);
		if (obj < 0) {
			answer(listener, req_id, 0, errno == EBADF ? ENOENT : errno);
			return 0;
		}
		if (sbx_act_as(&cr, &sv, false) < 0) {
			e = errno;
			close(obj);
			return undecidable(pid, acc == POL_WRITE ? "write" : "read", req, e, rep);
		}
	} else {
		uint64_t resolve = RESOLVE_NO_MAGICLINKS;
		int b = target_base(pid, dirfd, path, sizeof path, &resolve);
		if (b < 0 && (errno == EPERM || errno == EACCES))
			return undecidable(pid, acc == POL_WRITE ? "write" : "read", req, errno, rep);
		if (b < 0) {
			answer(listener, req_id, 0, dirfd != AT_FDCWD && req[0] != '/' ? EBADF : ENOENT);
			return 0;
		}
		if (sbx_act_as(&cr, &sv, false) < 0) {
			e = errno;
			close(b);
			return undecidable(pid, acc == POL_WRITE ? "write" : "read", req, e, rep);
		}
		obj = o2(b, path, O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY)), 0, resolve);
		e = errno;
		if (obj < 0 && e == ENOENT && (flags & O_CREAT)) {
			/* a new name: its directory, and the name in it */
			char *sl = strrchr(path, '/');
			base = sl ? sl + 1 : path;
			if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
				e = EISDIR;
			} else {
				parent = o2_parent(b, path, resolve, &base);
				e = parent < 0 ? errno : 0;
			}
		}
		if (obj < 0 && parent < 0) {
			/* nothing reached (a name a layer hides, or none): the name as read is decided
			 * as the check before the call decides it, through the links it names (their
			 * text, where bwrap does not mount their target) — a second thread may have
			 * written a denied name since, and the kernel never sees this call to report it */
			char base_path[4096];
			bool lex = req[0] == '/' ? pol_normalize("/", req, real, sizeof real) == 0
						 : obj_path(b, base_path, sizeof base_path) == 0 &&
							   pol_normalize(base_path, req, real, sizeof real) == 0;
			close(b);
			sbx_act_self(&sv);
			if (lex && (decide_obj(c, pid, -1, acc, meta, real, sizeof real, &rule) ||
				    sbx_sn_decide_links(c, pid, acc, (flags & O_NOFOLLOW) != 0, real, sizeof real,
							&rule))) {
				if (seccomp_notify_id_valid(listener, req_id) != 0)
					return 0;
				return refuse(c, pid, acc == POL_WRITE ? "write" : "read", real, req, rule, e, rep);
			}
			answer(listener, req_id, 0, e);
			return 0;
		}
		close(b);
	}
	/* the policy, on the object reached (a new name: its directory's real path + the name) */
	int denied;
	if (obj >= 0) {
		denied = decide_obj(c, pid, obj, acc, meta, real, sizeof real, &rule);
	} else {
		if (obj_path(parent, real, sizeof real) < 0 || strlen(real) + strlen(base) + 2 > sizeof real)
			snprintf(real, sizeof real, "?");
		else
			join_name(real, base); /* the length was checked above */
		denied = decide_obj(c, pid, -1, POL_WRITE, false, real, sizeof real, &rule);
	}
	/* An object the policy does not grant is what Landlock and bwrap would refuse; an open
	 * performed here does not meet them (the supervisor is in neither), so it is refused here as
	 * they would refuse it, EACCES, and reported here whatever routed the call (the layer's filter
	 * for the manifest's denies too): the probes see a call only after seccomp let it through, so
	 * nothing else can report a call answered here. */
	if (denied) {
		sbx_act_self(&sv);
		if (obj >= 0)
			close(obj);
		if (parent >= 0)
			close(parent);
		if (seccomp_notify_id_valid(listener, req_id) != 0)
			return 0;
		return refuse(c, pid, acc == POL_WRITE ? "write" : "read", real, req, rule, EACCES, rep);
	}
	if (seccomp_notify_id_valid(listener, req_id) != 0)
		goto done;
	if (obj >= 0) {
		struct stat st;
		if (fstat(obj, &st) < 0) {
			answer(listener, req_id, 0, errno);
			goto done;
		}
		if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
			answer(listener, req_id, 0, EEXIST);
			goto done;
		}
		if (S_ISLNK(st.st_mode)) { /* O_NOFOLLOW on a final symlink */
			answer(listener, req_id, 0, ELOOP);
			goto done;
		}
		if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
			/* blocks until the other end comes: a thread of its own */
			sbx_act_self(&sv);
			struct job *j = calloc(1, sizeof *j);
			if (!j) {
				answer(listener, req_id, 0, ENOMEM);
				goto done;
			}
			*j = (struct job){.op = JOB_REOPEN, .listener = listener, .id = req_id, .cr = cr, .fd = obj,
					  .flags = flags, .holdfd = -1};
			job_start(j);
			return 0;
		}
		mode_t old = umask(0);
		fd = reopen(obj, flags, mode & ~(uint64_t)cr.umask);
		e = errno;
		umask(old);
		if (fd < 0 && (e == EACCES || e == EPERM) && acc == POL_READ && !meta && sv.switched) {
			sbx_act_self(&sv);
			if (own_proc_entry(pid, path, obj)) {
				fd = reopen(obj, flags, 0);
				e = errno;
			}
		}
		if (fd >= 0 && acc == POL_READ && !meta && ids_in_text(obj)) {
			sbx_act_self(&sv);
			int inns = reopen_in_userns(pid, obj, flags);
			if (inns >= 0) {
				close(fd);
				fd = inns;
			}
		}
	} else {
		/* the target's umask, not ours (umask is per process: the supervisor is the only
		 * thread that creates files) */
		mode_t old = umask(0);
		fd = o2(parent, base, flags | O_CLOEXEC, mode & ~(uint64_t)cr.umask,
			RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		e = errno;
		umask(old);
	}
	sbx_act_self(&sv);
	if (fd < 0)
		answer(listener, req_id, 0, e);
	else
		answer_fd(listener, req_id, fd, flags & O_CLOEXEC);
done:
	sbx_act_self(&sv);
	if (obj >= 0)
		close(obj);
	if (parent >= 0)
		close(parent);
	return 0;
}

/* ---- connect / bind --------------------------------------------------------------------------- */

/* A named unix socket address (copied in `ss`, `*len` bytes): resolved here, by the target (`cr`),
 * decided on what is reached (bind: the parent directory and the name; else the socket), and
 * rewritten to name the reached object through our descriptor *hold ("/proc/self/fd/N[/name]",
 * which the performer — the connector — rewrites to its own number). -1: go on (the call may be
 * performed); else what the emulation returns (answered, refused with rep, or undecidable). */
static int unix_path_obj(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const struct sbx_act_ids *crp,
			 bool bind_, const char *access, struct sockaddr_storage *ssp, socklen_t *lenp, int *holdp,
			 struct sbx_sn_report *rep)
{
	struct sbx_act_ids cr = *crp;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_un *sun = (struct sockaddr_un *)ssp;
	socklen_t len = *lenp;
	int hold = -1;
	/* a named unix socket: resolved here, by the target, decided on what is reached */
	char req[sizeof sun->sun_path + 1], path[4096], real[4096];
	size_t n = len - off;
	memcpy(req, sun->sun_path, n);
	req[n] = 0;
	snprintf(path, sizeof path, "%s", req);
	uint64_t resolve = RESOLVE_NO_MAGICLINKS;
	int b = target_base(pid, AT_FDCWD, path, sizeof path, &resolve);
	struct sbx_act_saved sv;
	if (b < 0 && (errno == EPERM || errno == EACCES)) {
		int e = errno;
		return undecidable(pid, access, req, e, rep);
	}
	if (b < 0) {
		answer(listener, req_id, 0, ENOENT);
		return 0;
	}
	if (sbx_act_as(&cr, &sv, false) < 0) {
		int e = errno;
		close(b);
		return undecidable(pid, access, req, e, rep);
	}
	const char *base = NULL;
	if (bind_) {
		hold = o2_parent(b, path, resolve, &base);
	} else {
		hold = o2(b, path, O_PATH | O_CLOEXEC, 0, resolve);
	}
	int e = errno;
	sbx_act_self(&sv);
	close(b);
	if (hold < 0) {
		answer(listener, req_id, 0, e);
		return 0;
	}
	uint32_t rule;
	int denied;
	if (bind_) {
		if (obj_path(hold, real, sizeof real) < 0)
			snprintf(real, sizeof real, "?");
		else if (strlen(real) + strlen(base) + 2 < sizeof real)
			join_name(real, base); /* the length was checked above */
		denied = decide_obj(c, pid, -1, POL_WRITE, false, real, sizeof real, &rule);
	} else {
		denied = decide_obj(c, pid, hold, POL_WRITE, false, real, sizeof real, &rule);
	}
	if (denied) {
		close(hold);
		if (seccomp_notify_id_valid(listener, req_id) != 0)
			return 0;
		refuse(c, pid, access, real, req, rule, bind_ ? EACCES : EPERM, rep);
		return 1;
	}
	/* the object reached, named by our descriptor (short enough for sun_path) */
	memset(sun->sun_path, 0, sizeof sun->sun_path);
	int k = bind_ ? snprintf(sun->sun_path, sizeof sun->sun_path, "/proc/self/fd/%d/%s", hold, base)
		      : snprintf(sun->sun_path, sizeof sun->sun_path, "/proc/self/fd/%d", hold);
	if (k < 0 || (size_t)k >= sizeof sun->sun_path) {
		close(hold);
		answer(listener, req_id, 0, ENAMETOOLONG);
		return 0;
	}
	len = (socklen_t)(off + (size_t)k + 1);
	*holdp = hold;
	*lenp = len;
	return -1;
}


static int emulate_net(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, bool bind_,
		       const uint64_t args[6], struct sbx_sn_report *rep)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t len = (socklen_t)(args[2] > sizeof ss ? sizeof ss + 1 : args[2]);
	if (len > sizeof ss) {
		answer(listener, req_id, 0, EINVAL);
		return 0;
	}
	struct iovec l = {.iov_base = &ss, .iov_len = len}, r = {.iov_base = (void *)(uintptr_t)args[1], .iov_len = len};
	if (len && process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)len) {
		if (errno == EPERM || errno == EACCES)
			return undecidable(pid, bind_ ? "bind" : "connect", "?", errno, rep);
		answer(listener, req_id, 0, EFAULT);
		return 0;
	}
	struct sbx_act_ids cr;
	if (sbx_act_ids_of(pid, &cr) < 0) {
		answer(listener, req_id, 0, ESRCH);
		return 0;
	}
	int sock = sbx_pidfd_getfd(pid, (int)args[0]);
	if (sock < 0 && (errno == EPERM || errno == EACCES))
		return undecidable(pid, bind_ ? "bind" : "connect", "?", errno, rep);
	if (sock < 0) {
		answer(listener, req_id, 0, errno == EBADF ? EBADF : ENOTSOCK);
		return 0;
	}
	int hold = -1;
	const char *access = bind_ ? "bind" : "connect";
	size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_un *sun = (struct sockaddr_un *)&ss;
	if (ss.ss_family == AF_UNIX && len > off && sun->sun_path[0]) {
		int u = unix_path_obj(c, listener, req_id, pid, &cr, bind_, access, &ss, &len, &hold, rep);
		if (u >= 0) {
			close(sock);
			return u;
		}
	}
	if (ss.ss_family == AF_UNIX && len > off + 1 && !sun->sun_path[0] && c->pol && !pol_abstract_inside(c->pol)) {
		/* an abstract name in the host's network namespace: the policy refuses it whatever the
		 * network grant (docs/layers.md "Abstract unix sockets", seccomp_unix.h). Performed here, the
		 * connect would not meet Landlock's abstract-socket scoping (the connector is outside the
		 * run's domain), so the policy is applied itself. */
		close(sock);
		if (seccomp_notify_id_valid(listener, req_id) != 0)
			return 0;
		memset(rep, 0, sizeof *rep);
		rep->port = -1;
		rep->access = access;
		rep->err = EPERM;
		size_t n = len - off - 1;
		if (n > sizeof sun->sun_path - 1)
			n = sizeof sun->sun_path - 1;
		rep->path[0] = '@';
		for (size_t i = 0; i < n && i + 2 < sizeof rep->path; i++)
			rep->path[i + 1] = sun->sun_path[i + 1] >= 0x20 && sun->sun_path[i + 1] < 0x7f ? sun->sun_path[i + 1] : '?';
		rep->path[n + 1] = 0;
		snprintf(rep->requested, sizeof rep->requested, "%s", rep->path);
		snprintf(rep->rule, sizeof rep->rule, "abstract unix socket");
		sbx_sn_fill_proc(pid, rep);
		return 1;
	}
	if (!(ss.ss_family == AF_UNIX && len > off && sun->sun_path[0])) {
		/* every other address (IP peers and local addresses, abstract and unnamed unix): decided
		 * again on this copy, the one used below */
		if (sbx_sn_decide_addr(c, pid, bind_, &ss, len, rep) == 1) {
			close(sock);
			if (seccomp_notify_id_valid(listener, req_id) != 0)
				return 0;
			rep->violation = false; /* a seccomp.deny, as sbx_sn_decide's own */
			sbx_sn_fill_proc(pid, rep);
			return 1;
		}
	}
	if (seccomp_notify_id_valid(listener, req_id) != 0) {
		if (hold >= 0)
			close(hold);
		close(sock);
		return 0;
	}
	if (bind_) {
		struct sbx_act_saved sv;
		if (sbx_act_as(&cr, &sv, false) < 0) {
			answer(listener, req_id, 0, EPERM);
		} else {
			mode_t old = umask(cr.umask);
			int rr = bind(sock, (struct sockaddr *)&ss, len);
			int e = errno;
			umask(old);
			sbx_act_self(&sv);
			answer(listener, req_id, 0, rr < 0 ? e : 0);
		}
		if (hold >= 0)
			close(hold);
		close(sock);
		return 0;
	}
	/* the connect itself: by the run's connector (a process of the executor's identity) */
	struct job *j = c->emu && connector_ready(c->emu, &cr) == 0 ? calloc(1, sizeof *j) : NULL;
	if (!j) {
		int e = errno;
		if (hold >= 0)
			close(hold);
		close(sock);
		if (!c->emu)
			return undecidable(pid, access, "?", ENOSYS, rep);
		answer(listener, req_id, 0, e == ENOMEM ? ENOMEM : EAGAIN);
		return 0;
	}
	*j = (struct job){.op = JOB_CONNECT, .listener = listener, .id = req_id, .cr = cr, .fd = sock, .sslen = len,
			  .holdfd = hold, .emu = c->emu};
	memcpy(&j->ss, &ss, sizeof ss);
	job_start(j);
	return 0;
}

/* ---- sends: sendto with an address, sendmsg, sendmmsg ------------------------------------------ */

/* A refusal of something the connector cannot carry for the caller. */
static int send_refuse(pid_t pid, const char *what, struct sbx_sn_report *rep)
{
	return sbx_sn_violation(rep, pid, "connect", EPERM, what, what,
				"%s cannot be passed for the caller (no layer stands behind a send in this mode)", what);
}

/* The whole send copied once (the message header, the address, the payload up to SE_SEND_MAX, the
 * control), decided on that copy, and made by the connector on the executor's socket. A sendmmsg
 * sends its first message only (result 1; callers send the rest again, as after any partial
 * sendmmsg). SCM_RIGHTS descriptors are taken from the executor and passed on; SCM_CREDENTIALS are
 * refused (the connector's pid is not the caller's: the kernel would refuse them, or they would
 * name another process). */
static int emulate_send(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			const uint64_t args[6], struct sbx_sn_report *rep)
{
	bool to = !strcmp(sys, "sendto"), mm = !strcmp(sys, "sendmmsg");
	if (to && !args[4])
		return 3; /* no address, and a register says so: nothing to race */
	struct msghdr m;
	memset(&m, 0, sizeof m);
	struct iovec one;
	uint64_t tiov_addr = 0;
	int flags;
	if (to) {
		one.iov_base = (void *)(uintptr_t)args[1];
		one.iov_len = (size_t)args[2];
		m.msg_name = (void *)(uintptr_t)args[4];
		m.msg_namelen = (socklen_t)args[5];
		m.msg_iovlen = 1;
		flags = (int)args[3];
	} else {
		if (mm && (uint32_t)args[2] == 0) {
			answer(listener, req_id, 0, 0);
			return 0;
		}
		/* a sendmmsg sends its first message here, but every peer it names is decided (and a
		 * refused one refuses the call, as sbx_sn_decide does where it can read the target) */
		if (mm && sbx_sn_decide_send(c, pid, sys, args, rep) == 1) {
			if (seccomp_notify_id_valid(listener, req_id) != 0)
				return 0;
			sbx_sn_fill_proc(pid, rep);
			return 1;
		}
		flags = (int)(mm ? args[3] : args[2]);
		struct iovec l = {&m, sizeof m}, r = {(void *)(uintptr_t)args[1], sizeof m};
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof m) {
			if (errno == EPERM || errno == EACCES)
				return undecidable(pid, "connect", "?", errno, rep);
			answer(listener, req_id, 0, EFAULT);
			return 0;
		}
		tiov_addr = (uint64_t)(uintptr_t)m.msg_iov;
		if (m.msg_iovlen > 1024) {
			answer(listener, req_id, 0, EMSGSIZE);
			return 0;
		}
	}
	size_t niov = m.msg_iovlen;
	struct iovec *tiov = calloc(niov ? niov : 1, sizeof *tiov);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t len = 0;
	char *data = NULL, *ctl = NULL;
	int *rights = NULL, sock = -1, hold = -1, rc = 0, sent[2] = {-1, -1};
	uint32_t nrights = 0, clen = 0;
	size_t total = 0, dlen = 0;
	if (!tiov)
		goto nomem;
	if (to) {
		tiov[0] = one;
	} else if (niov) {
		struct iovec l = {tiov, niov * sizeof *tiov}, r = {(void *)(uintptr_t)tiov_addr, niov * sizeof *tiov};
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)(niov * sizeof *tiov))
			goto fault;
	}
	/* the peer, once */
	if (m.msg_name && m.msg_namelen) {
		if (m.msg_namelen > sizeof ss) {
			answer(listener, req_id, 0, EINVAL);
			goto out;
		}
		len = m.msg_namelen;
		struct iovec l = {&ss, len}, r = {m.msg_name, len};
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)len)
			goto fault;
	}
	/* the control, once: SCM_RIGHTS counted, SCM_CREDENTIALS refused */
	if (m.msg_control && m.msg_controllen) {
		if (m.msg_controllen > SE_CTL_MAX) {
			answer(listener, req_id, 0, ENOBUFS);
			goto out;
		}
		clen = (uint32_t)m.msg_controllen;
		ctl = malloc(clen);
		if (!ctl)
			goto nomem;
		struct iovec l = {ctl, clen}, r = {m.msg_control, clen};
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)clen)
			goto fault;
		struct msghdr cm = {.msg_control = ctl, .msg_controllen = clen};
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&cm); h; h = CMSG_NXTHDR(&cm, h)) {
			if (h->cmsg_level != SOL_SOCKET)
				continue;
			if (h->cmsg_type == SCM_CREDENTIALS) {
				rc = send_refuse(pid, "SCM_CREDENTIALS", rep);
				goto out;
			}
			if (h->cmsg_type == SCM_RIGHTS)
				nrights += (uint32_t)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		}
		if (nrights > SE_RIGHTS_MAX) {
			answer(listener, req_id, 0, EINVAL);
			goto out;
		}
		if (nrights) {
			rights = calloc(nrights, sizeof *rights);
			if (!rights)
				goto nomem;
			uint32_t k = 0;
			for (struct cmsghdr *h = CMSG_FIRSTHDR(&cm); h; h = CMSG_NXTHDR(&cm, h))
				if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
					int cnt = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
					for (int i = 0; i < cnt; i++) {
						int tfd;
						memcpy(&tfd, CMSG_DATA(h) + (size_t)i * sizeof(int), sizeof tfd);
						int f = sbx_pidfd_getfd(pid, tfd);
						if (f < 0) {
							int e = errno;
							for (uint32_t q = 0; q < k; q++)
								close(rights[q]);
							k = 0;
							nrights = 0;
							if (e == EPERM || e == EACCES) {
								rc = undecidable(pid, "connect", "?", e, rep);
								goto out;
							}
							answer(listener, req_id, 0, EBADF);
							goto out;
						}
						rights[k++] = f;
					}
				}
		}
	}
	/* the payload, once (bounded) */
	for (size_t i = 0; i < niov; i++)
		total += tiov[i].iov_len;
	dlen = total > SE_SEND_MAX ? SE_SEND_MAX : total;
	data = malloc(dlen ? dlen : 1);
	if (!data)
		goto nomem;
	if (dlen) {
		size_t k = 0, left = dlen;
		while (k < niov && left) { /* the remote list cut to dlen bytes */
			if (tiov[k].iov_len > left)
				tiov[k].iov_len = left;
			left -= tiov[k].iov_len;
			k++;
		}
		struct iovec l = {data, dlen};
		if (process_vm_readv(pid, &l, 1, tiov, (unsigned long)k, 0) != (ssize_t)dlen)
			goto fault;
	}
	/* the socket, once */
	sock = sbx_pidfd_getfd(pid, (int)args[0]);
	if (sock < 0) {
		if (errno == EPERM || errno == EACCES) {
			rc = undecidable(pid, "connect", "?", errno, rep);
			goto out;
		}
		answer(listener, req_id, 0, errno == EBADF ? EBADF : ENOTSOCK);
		goto out;
	}
	int type = 0;
	socklen_t tl = sizeof type;
	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) < 0) {
		answer(listener, req_id, 0, ENOTSOCK);
		goto out;
	}
	if (total > dlen && type != SOCK_STREAM) {
		answer(listener, req_id, 0, EMSGSIZE); /* a datagram is never cut */
		goto out;
	}
	struct sbx_act_ids cr;
	if (sbx_act_ids_of(pid, &cr) < 0) {
		answer(listener, req_id, 0, ESRCH);
		goto out;
	}
	/* the peer decided on this copy, the one sent to */
	size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_un *sun = (struct sockaddr_un *)&ss;
	if (len && ss.ss_family == AF_UNIX && len > off && sun->sun_path[0]) {
		int u = unix_path_obj(c, listener, req_id, pid, &cr, false, "connect", &ss, &len, &hold, rep);
		if (u >= 0) {
			rc = u;
			goto out;
		}
	} else if (len && sbx_sn_decide_addr(c, pid, false, &ss, len, rep) == 1) {
		if (seccomp_notify_id_valid(listener, req_id) == 0) {
			sbx_sn_fill_proc(pid, rep);
			rc = 1;
		}
		goto out;
	}
	if (seccomp_notify_id_valid(listener, req_id) != 0)
		goto out;
	/* An internet peer netfilter decides (sbx_sn_decide_addr left it to it) that the policy does
	 * not grant: netfilter refuses the connector's send and reports it (netfilter.deny), but the
	 * probes, which watch the run's processes, never see the call. Its refusal is reported here
	 * as theirs would be (kernel.violation with the peer), once the call's errno is known. */
	struct sbx_sn_report pred;
	if (c->netfilter && len && (ss.ss_family == AF_INET || ss.ss_family == AF_INET6)) {
		struct sbx_sn_ctx own = *c;
		own.netfilter = false;
		memset(&pred, 0, sizeof pred);
		pred.port = -1;
		if (sbx_sn_decide_addr(&own, pid, false, &ss, len, &pred) == 1 &&
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sent) == 0)
			sbx_sn_fill_proc(pid, &pred);
	}
	struct job *j = c->emu && connector_ready(c->emu, &cr) == 0 ? calloc(1, sizeof *j) : NULL;
	if (!j) {
		if (!c->emu) {
			rc = undecidable(pid, "connect", "?", ENOSYS, rep);
			goto out;
		}
		answer(listener, req_id, 0, EAGAIN);
		goto out;
	}
	*j = (struct job){.op = JOB_SEND, .listener = listener, .id = req_id, .cr = cr, .fd = sock, .sslen = len,
			  .holdfd = hold, .emu = c->emu, .data = data, .ctl = ctl, .dlen = (uint32_t)dlen,
			  .clen = clen, .rights = rights, .nrights = nrights, .sflags = flags, .pid = pid,
			  .mm = mm ? args[1] : 0, .done = sent[1]};
	sent[1] = -1;
	memcpy(&j->ss, &ss, sizeof ss);
	sock = hold = -1;
	data = ctl = NULL;
	rights = NULL;
	nrights = 0;
	if (job_start(j) == 0 && sent[0] >= 0) {
		/* the hook refuses before anything could block: a short wait; no answer in time, no
		 * report (the job has answered or will) */
		struct pollfd pw = {.fd = sent[0], .events = POLLIN};
		int e = 0;
		if (poll(&pw, 1, 2000) == 1 && recv(sent[0], &e, sizeof e, 0) == (ssize_t)sizeof e && e == EPERM) {
			*rep = pred;
			rep->violation = true;
			rep->err = EPERM;
			rc = 1; /* answered by the job: the caller's answer finds no notification */
		}
	}
	goto out;
fault: /* the target's memory: out of our reach (as the target then), or not mapped */
	if (errno == EPERM || errno == EACCES)
		rc = undecidable(pid, "connect", "?", errno, rep);
	else
		answer(listener, req_id, 0, EFAULT);
	goto out;
nomem:
	answer(listener, req_id, 0, ENOMEM);
out:
	for (int i = 0; i < 2; i++)
		if (sent[i] >= 0)
			close(sent[i]);
	if (sock >= 0)
		close(sock);
	if (hold >= 0)
		close(hold);
	for (uint32_t i = 0; rights && i < nrights; i++)
		close(rights[i]);
	free(rights);
	free(data);
	free(ctl);
	free(tiov);
	return rc;
}

/* ---- metadata: modes, owners, times, watches --------------------------------------------------- */

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* The object a metadata call names, as an O_PATH descriptor reached by the target: `paddr` (0:
 * none: the descriptor `dirfd` itself) relative to `dirfd`; "" with empty_ok: the descriptor.
 * 0 (*obj set, req = the name as copied), or an errno for the target. */
static int meta_obj(pid_t pid, const struct sbx_act_ids *cr, int dirfd, uint64_t paddr, bool empty_ok, bool nofollow,
		    char *req, size_t reqlen, int *obj)
{
	*obj = -1;
	req[0] = 0;
	if (paddr && sbx_sn_read_str(pid, paddr, req, reqlen) < 0) {
		snprintf(req, reqlen, "?");
		return errno == EPERM || errno == EACCES ? -errno : EFAULT;
	}
	if (paddr && !req[0] && !empty_ok)
		return ENOENT;
	int own = req[0] == '/' ? own_fd_name(pid, req) : -1;
	if (!req[0] || own >= 0) {
		if (!req[0])
			snprintf(req, reqlen, "fd %d", dirfd);
		int tfd = own >= 0 ? own : dirfd;
		if (tfd == AT_FDCWD) {
			char p[64];
			snprintf(p, 64, "/proc/%d/cwd", (int)pid);
			*obj = open(p, O_PATH | O_CLOEXEC);
			if (*obj < 0 && (errno == EPERM || errno == EACCES))
				return -errno;
		} else {
			*obj = sbx_pidfd_getfd(pid, tfd);
		}
		if (*obj < 0 && (errno == EPERM || errno == EACCES))
			return -errno;
		return *obj < 0 ? (errno ? errno : EBADF) : 0;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s", req);
	uint64_t resolve = RESOLVE_NO_MAGICLINKS;
	int b = target_base(pid, dirfd, path, sizeof path, &resolve);
	if (b < 0 && (errno == EPERM || errno == EACCES))
		return -errno;
	if (b < 0)
		return req[0] != '/' && dirfd != AT_FDCWD ? EBADF : ENOENT;
	struct sbx_act_saved sv;
	if (sbx_act_as(cr, &sv, false) < 0) {
		int e = errno;
		close(b);
		return -e; /* negative: cannot act as the target */
	}
	*obj = o2(b, path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0, resolve);
	int e = errno;
	sbx_act_self(&sv);
	close(b);
	return *obj < 0 ? e : 0;
}

static int copy_times(pid_t pid, const char *sys, uint64_t addr, struct timespec ts[2], bool *null)
{
	*null = !addr;
	if (!addr)
		return 0;
	struct iovec l, r = {.iov_base = (void *)(uintptr_t)addr};
	if (!strcmp(sys, "utime")) {
		struct utimbuf u;
		l = (struct iovec){&u, sizeof u};
		r.iov_len = sizeof u;
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof u)
			return errno == EPERM || errno == EACCES ? -errno : EFAULT;
		ts[0] = (struct timespec){u.actime, 0};
		ts[1] = (struct timespec){u.modtime, 0};
	} else if (!strcmp(sys, "utimensat")) {
		l = (struct iovec){ts, 2 * sizeof *ts};
		r.iov_len = 2 * sizeof *ts;
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)(2 * sizeof *ts))
			return errno == EPERM || errno == EACCES ? -errno : EFAULT;
	} else {
		struct timeval tv[2];
		l = (struct iovec){tv, sizeof tv};
		r.iov_len = sizeof tv;
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof tv)
			return errno == EPERM || errno == EACCES ? -errno : EFAULT;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return EINVAL;
			ts[i] = (struct timespec){tv[i].tv_sec, tv[i].tv_usec * 1000};
		}
	}
	return 0;
}

/* An id (-1: unchanged) of the target's user namespace as ours numbers it, through
 * /proc/<pid>/uid_map or gid_map (its second field is relative to the reader's namespace; the same
 * namespace gives the identity map). 0, or -1 when the namespace does not map it; an unreadable map
 * leaves the id as it is (the kernel decides). */
static int to_own_ids(pid_t pid, const char *map, uint32_t *id)
{
	if (*id == (uint32_t)-1)
		return 0;
	char p[64], buf[1024];
	snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, map);
	if (sbx_read_small(p, buf, sizeof buf) <= 0)
		return 0;
	return sbx_idmap_out(buf, *id, id) ? 0 : -1;
}

/* xval: XATTR_SIZE_MAX bytes for an attribute's value (NULL for the other calls) */
static int emulate_meta_in(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			   const uint64_t args[6], struct sbx_sn_report *rep, char *xval)
{
	enum { M_MODE, M_OWNER, M_TIMES, M_WATCH, M_XSET, M_XREMOVE } kind;
	int dirfd = AT_FDCWD;
	uint64_t paddr = 0, fl = 0;
	bool nofollow = false, fd_only = false;
	uint32_t mode = 0, uid = 0, gid = 0, mask = 0;
	uint64_t taddr = 0;
	int ifd = -1;
	if (!strcmp(sys, "chmod"))
		kind = M_MODE, paddr = args[0], mode = (uint32_t)args[1];
	else if (!strcmp(sys, "fchmod"))
		kind = M_MODE, dirfd = (int)args[0], fd_only = true, mode = (uint32_t)args[1];
	else if (!strcmp(sys, "fchmodat"))
		kind = M_MODE, dirfd = (int)args[0], paddr = args[1], mode = (uint32_t)args[2];
	else if (!strcmp(sys, "fchmodat2"))
		kind = M_MODE, dirfd = (int)args[0], paddr = args[1], mode = (uint32_t)args[2], fl = args[3];
	else if (!strcmp(sys, "chown") || !strcmp(sys, "lchown"))
		kind = M_OWNER, paddr = args[0], uid = (uint32_t)args[1], gid = (uint32_t)args[2],
		nofollow = sys[0] == 'l';
	else if (!strcmp(sys, "fchown"))
		kind = M_OWNER, dirfd = (int)args[0], fd_only = true, uid = (uint32_t)args[1], gid = (uint32_t)args[2];
	else if (!strcmp(sys, "fchownat"))
		kind = M_OWNER, dirfd = (int)args[0], paddr = args[1], uid = (uint32_t)args[2], gid = (uint32_t)args[3],
		fl = args[4];
	else if (!strcmp(sys, "utime") || !strcmp(sys, "utimes"))
		kind = M_TIMES, paddr = args[0], taddr = args[1];
	else if (!strcmp(sys, "futimesat"))
		kind = M_TIMES, dirfd = (int)args[0], paddr = args[1], taddr = args[2];
	else if (!strcmp(sys, "utimensat"))
		kind = M_TIMES, dirfd = (int)args[0], paddr = args[1], taddr = args[2], fl = args[3],
		fd_only = !args[1];
	else if (!strcmp(sys, "inotify_add_watch"))
		kind = M_WATCH, ifd = (int)args[0], paddr = args[1], mask = (uint32_t)args[2],
		nofollow = (mask & IN_DONT_FOLLOW) != 0;
	else if (!strcmp(sys, "setxattr") || !strcmp(sys, "lsetxattr") || !strcmp(sys, "fsetxattr"))
		kind = M_XSET, paddr = sys[0] == 'f' ? 0 : args[0], dirfd = sys[0] == 'f' ? (int)args[0] : AT_FDCWD,
		fd_only = sys[0] == 'f', nofollow = sys[0] == 'l';
	else if (!strcmp(sys, "removexattr") || !strcmp(sys, "lremovexattr") || !strcmp(sys, "fremovexattr"))
		kind = M_XREMOVE, paddr = sys[0] == 'f' ? 0 : args[0], dirfd = sys[0] == 'f' ? (int)args[0] : AT_FDCWD,
		fd_only = sys[0] == 'f', nofollow = sys[0] == 'l';
	else
		return 2;
	/* the owner's ids are the target's user namespace's: the call is made here, in ours */
	if (kind == M_OWNER && (to_own_ids(pid, "uid_map", &uid) < 0 || to_own_ids(pid, "gid_map", &gid) < 0)) {
		answer(listener, req_id, 0, EPERM); /* unmapped: what a process without CAP_CHOWN gets */
		return 0;
	}
	/* an attribute's name and value: copied once, the privilege guard asked again on the copy */
	char xname[256] = "";
	size_t xlen = 0;
	if (kind == M_XSET || kind == M_XREMOVE) {
		if (sbx_sn_read_str(pid, args[1], xname, sizeof xname) < 0) {
			if (errno == EPERM || errno == EACCES)
				return undecidable(pid, "write", "?", errno, rep);
			answer(listener, req_id, 0, errno == EFAULT ? EFAULT : ERANGE);
			return 0;
		}
		if (kind == M_XSET) {
			xlen = (size_t)args[3];
			if (xlen > XATTR_SIZE_MAX) {
				answer(listener, req_id, 0, E2BIG);
				return 0;
			}
			if (!xval) {
				answer(listener, req_id, 0, ENOMEM);
				return 0;
			}
			struct iovec xl = {xval, xlen}, xr = {(void *)(uintptr_t)args[2], xlen};
			if (xlen && process_vm_readv(pid, &xl, 1, &xr, 1, 0) != (ssize_t)xlen) {
				if (errno == EPERM || errno == EACCES)
					return undecidable(pid, "write", "?", errno, rep);
				answer(listener, req_id, 0, EFAULT);
				return 0;
			}
		}
	}
	if (fl & AT_SYMLINK_NOFOLLOW)
		nofollow = true;
	if (fl & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
		answer(listener, req_id, 0, EINVAL);
		return 0;
	}
	if (!fd_only && !paddr) {
		answer(listener, req_id, 0, EFAULT);
		return 0;
	}
	struct timespec ts[2];
	bool tnull = true;
	if (kind == M_TIMES) {
		int te = copy_times(pid, sys, taddr, ts, &tnull);
		if (te < 0)
			return undecidable(pid, "write", "?", -te, rep);
		if (te) {
			answer(listener, req_id, 0, te);
			return 0;
		}
	}
	struct sbx_act_ids cr;
	if (sbx_act_ids_of(pid, &cr) < 0) {
		answer(listener, req_id, 0, ESRCH);
		return 0;
	}
	char req[4096], real[4096];
	int obj;
	int e = meta_obj(pid, &cr, dirfd, fd_only ? 0 : paddr, (fl & AT_EMPTY_PATH) != 0, nofollow, req, sizeof req, &obj);
	const char *access = kind == M_WATCH ? "read" : "write";
	if (e < 0)
		return undecidable(pid, access, req, -e, rep);
	if (e) {
		answer(listener, req_id, 0, e);
		return 0;
	}
	uint32_t rule;
	if (decide_obj(c, pid, obj, kind == M_WATCH ? POL_READ : POL_WRITE, false, real, sizeof real, &rule)) {
		close(obj);
		if (seccomp_notify_id_valid(listener, req_id) != 0)
			return 0;
		return refuse(c, pid, access, real, req, rule, kind == M_WATCH ? EACCES : EPERM, rep);
	}
	struct stat ost;
	if (kind == M_XSET && fstat(obj, &ost) == 0) {
		const char *prule = pol_priv_xattr(xname, (uint32_t)ost.st_mode);
		if (prule) {
			close(obj);
			if (seccomp_notify_id_valid(listener, req_id) != 0)
				return 0;
			sbx_sn_violation(rep, pid, "privilege", EPERM, real, req, "%s", prule);
			snprintf(rep->what, sizeof rep->what, "%.*s", (int)sizeof rep->what - 1, xname);
			return 1;
		}
	}
	int wfd = -1;
	if (kind == M_WATCH && (wfd = sbx_pidfd_getfd(pid, ifd)) < 0) {
		int e2 = errno;
		close(obj);
		if (e2 == EPERM || e2 == EACCES)
			return undecidable(pid, access, req, e2, rep);
		answer(listener, req_id, 0, EBADF);
		return 0;
	}
	struct sbx_act_saved sv;
	long rv = -1;
	if (seccomp_notify_id_valid(listener, req_id) != 0) {
		e = ENOENT;
	} else if (sbx_act_as(&cr, &sv, false) < 0) {
		e = EPERM;
	} else {
		char p[40];
		snprintf(p, sizeof p, "/proc/self/fd/%d", obj);
		switch (kind) {
		case M_MODE:
			rv = syscall(SYS_fchmodat2, obj, "", mode & 07777, AT_EMPTY_PATH);
			/* a container runtime's seccomp profile that predates fchmodat2 answers ENOSYS for
			 * it (runc, podman's and Docker's defaults): the object's own magic link instead,
			 * which resolves to the object, never to a name (a symlink's mode cannot change) */
			if (rv < 0 && errno == ENOSYS) {
				if (fstat(obj, &ost) == 0 && S_ISLNK(ost.st_mode))
					rv = -1, errno = EOPNOTSUPP;
				else
					rv = chmod(p, mode & 07777);
			}
			break;
		case M_OWNER:
			rv = fchownat(obj, "", uid, gid, AT_EMPTY_PATH);
			break;
		case M_TIMES:
			rv = utimensat(obj, "", tnull ? NULL : ts, AT_EMPTY_PATH);
			break;
		case M_WATCH:
			rv = inotify_add_watch(wfd, p, mask);
			break;
		case M_XSET:
		case M_XREMOVE:
			if (fd_only) /* the caller's own descriptor: the kernel's answer for it (EBADF on O_PATH) */
				rv = kind == M_XSET ? fsetxattr(obj, xname, xval, xlen, (int)args[4]) : fremovexattr(obj, xname);
			else if (nofollow && fstat(obj, &ost) == 0 && S_ISLNK(ost.st_mode))
				rv = -1, errno = EPERM; /* attributes of a symlink itself: user.* is refused by the
							 * kernel, the rest needs a capability the caller lacks */
			else
				rv = kind == M_XSET ? setxattr(p, xname, xval, xlen, (int)args[4]) : removexattr(p, xname);
			break;
		}
		e = errno;
		sbx_act_self(&sv);
		answer(listener, req_id, rv, rv < 0 ? e : 0);
	}
	if (wfd >= 0)
		close(wfd);
	close(obj);
	return 0;
}

static int emulate_meta(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			const uint64_t args[6], struct sbx_sn_report *rep)
{
	char *xval = strstr(sys, "xattr") ? malloc(XATTR_SIZE_MAX) : NULL;
	int r = emulate_meta_in(c, listener, req_id, pid, sys, args, rep, xval);
	free(xval);
	return r;
}

/* ---- the write class without Landlock: new names, removals, links, renames, truncate ----------- */

/* The directory a path's last name is in, reached by the target (O_PATH), and that name: `req`
 * copied from paddr, trailing slashes dropped. 0 (*pfd, base set), an errno for the target, or a
 * negative errno: cannot act as the target. */
static int parent_obj(pid_t pid, const struct sbx_act_ids *cr, int dirfd, uint64_t paddr, char *req, size_t reqlen,
		      int *pfd, char *base, size_t baselen)
{
	*pfd = -1;
	if (!paddr)
		return EFAULT;
	if (sbx_sn_read_str(pid, paddr, req, reqlen) < 0) {
		snprintf(req, reqlen, "?");
		return errno == EPERM || errno == EACCES ? -errno : EFAULT;
	}
	if (!req[0])
		return ENOENT;
	char path[4096];
	snprintf(path, sizeof path, "%s", req);
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = 0;
	char *sl = strrchr(path, '/');
	const char *b = sl ? sl + 1 : path;
	if (!*b || !strcmp(b, ".") || !strcmp(b, ".."))
		return !*b ? EBUSY : EINVAL;
	if (strlen(b) >= baselen)
		return ENAMETOOLONG;
	snprintf(base, baselen, "%s", b);
	const char *dir = ".";
	if (sl == path)
		dir = "/";
	else if (sl) {
		*sl = 0;
		dir = path;
	}
	char dbuf[4096];
	snprintf(dbuf, sizeof dbuf, "%s", dir);
	uint64_t resolve = RESOLVE_NO_MAGICLINKS;
	int bfd = target_base(pid, req[0] == '/' ? AT_FDCWD : dirfd, dbuf, sizeof dbuf, &resolve);
	if (bfd < 0 && (errno == EPERM || errno == EACCES))
		return -errno;
	if (bfd < 0)
		return req[0] != '/' && dirfd != AT_FDCWD ? EBADF : ENOENT;
	struct sbx_act_saved sv;
	if (sbx_act_as(cr, &sv, false) < 0) {
		int e = errno;
		close(bfd);
		return -e;
	}
	*pfd = o2(bfd, dbuf, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, resolve);
	int e = errno;
	sbx_act_self(&sv);
	close(bfd);
	return *pfd < 0 ? e : 0;
}

/* "<real path of pfd>/<base>" into out. */
static void join_real(int pfd, const char *base, char *out, size_t outlen)
{
	if (obj_path(pfd, out, outlen) < 0 || strlen(out) + strlen(base) + 2 > outlen) {
		snprintf(out, outlen, "?");
		return;
	}
	snprintf(out + strlen(out), outlen - strlen(out), "%s%s", strcmp(out, "/") ? "/" : "", base);
}

/* The name `base` in the directory `dirfd` exists for the target (looked up with its identity: a
 * directory it cannot search answers as the kernel would, no). */
static bool name_taken(const struct sbx_act_ids *cr, int dirfd, const char *base)
{
	struct sbx_act_saved sv;
	struct stat st;
	if (sbx_act_as(cr, &sv, false) < 0)
		return false;
	bool taken = fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
	sbx_act_self(&sv);
	return taken;
}

static int emulate_names(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			 const uint64_t args[6], struct sbx_sn_report *rep)
{
	/* the name (and for link/rename the second one): dirfd / path argument indexes */
	int d1 = -1, p1 = 0, d2 = -1, p2 = -1;
	bool obj1 = false; /* link/truncate: the first name is an existing object, not a new name */
	if (!strcmp(sys, "unlink") || !strcmp(sys, "rmdir") || !strcmp(sys, "mkdir") || !strcmp(sys, "mknod"))
		p1 = 0;
	else if (!strcmp(sys, "unlinkat") || !strcmp(sys, "mkdirat") || !strcmp(sys, "mknodat"))
		d1 = 0, p1 = 1;
	else if (!strcmp(sys, "symlink"))
		p1 = 1;
	else if (!strcmp(sys, "symlinkat"))
		d1 = 1, p1 = 2;
	else if (!strcmp(sys, "truncate"))
		p1 = 0, obj1 = true;
	else if (!strcmp(sys, "link"))
		p1 = 0, p2 = 1, obj1 = true;
	else if (!strcmp(sys, "linkat"))
		d1 = 0, p1 = 1, d2 = 2, p2 = 3, obj1 = true;
	else if (!strcmp(sys, "rename"))
		p1 = 0, p2 = 1;
	else if (!strcmp(sys, "renameat") || !strcmp(sys, "renameat2"))
		d1 = 0, p1 = 1, d2 = 2, p2 = 3;
	else
		return 2;
	struct sbx_act_ids cr;
	if (sbx_act_ids_of(pid, &cr) < 0) {
		answer(listener, req_id, 0, ESRCH);
		return 0;
	}
	char req1[4096], req2[4096] = "", base1[256] = "", base2[256] = "", real[4096], lnk[4096] = "";
	int f1 = -1, f2 = -1, e;
	int dirfd1 = d1 >= 0 ? (int)args[d1] : AT_FDCWD, dirfd2 = d2 >= 0 ? (int)args[d2] : AT_FDCWD;
	if (!strncmp(sys, "symlink", 7) && sbx_sn_read_str(pid, args[0], lnk, sizeof lnk) < 0) {
		if (errno == EPERM || errno == EACCES)
			return undecidable(pid, "write", "?", errno, rep);
		answer(listener, req_id, 0, EFAULT);
		return 0;
	}
	if (obj1) {
		uint64_t fl = !strcmp(sys, "linkat") ? args[4] : 0;
		bool follow = !strcmp(sys, "truncate") || (fl & AT_SYMLINK_FOLLOW);
		e = meta_obj(pid, &cr, dirfd1, args[p1], (fl & AT_EMPTY_PATH) != 0, !follow, req1, sizeof req1, &f1);
	} else {
		e = parent_obj(pid, &cr, dirfd1, args[p1], req1, sizeof req1, &f1, base1, sizeof base1);
	}
	if (!e && p2 >= 0)
		e = parent_obj(pid, &cr, dirfd2, args[p2], req2, sizeof req2, &f2, base2, sizeof base2);
	if (e) {
		bool second = f1 >= 0; /* the first name was reached: the second failed */
		if (f1 >= 0)
			close(f1);
		if (e < 0)
			return undecidable(pid, "write", second ? req2 : req1, -e, rep);
		/* nothing reached (a directory a layer hides, or none): the name as read is decided as
		 * the check before the call decides it, and a refusal reported with the kernel's own
		 * errno — the probes never see a call answered here */
		const char *rq = second ? req2 : req1;
		char lex[4096];
		uint32_t lrule;
		if (rq[0] && strcmp(rq, "?") &&
		    sbx_sn_target_abs(pid, second ? dirfd2 : dirfd1, rq, lex, sizeof lex) == 0 &&
		    decide_obj(c, pid, -1, POL_WRITE, false, lex, sizeof lex, &lrule) &&
		    seccomp_notify_id_valid(listener, req_id) == 0)
			return refuse(c, pid, "write", lex, rq, lrule, e, rep);
		answer(listener, req_id, 0, e);
		return 0;
	}
	/* the policy: every name written (a link's existing object too: writable where it is) */
	uint32_t rule;
	int denied;
	const char *requested = req1;
	if (obj1) {
		denied = decide_obj(c, pid, f1, POL_WRITE, false, real, sizeof real, &rule);
	} else {
		join_real(f1, base1, real, sizeof real);
		denied = decide_obj(c, pid, -1, POL_WRITE, false, real, sizeof real, &rule);
	}
	if (!denied && f2 >= 0) {
		join_real(f2, base2, real, sizeof real);
		denied = decide_obj(c, pid, -1, POL_WRITE, false, real, sizeof real, &rule);
		requested = req2;
	}
	if (denied && !strncmp(sys, "mkdir", 5) && name_taken(&cr, f1, base1)) {
		/* the kernel answers a mkdir of a name that exists with EEXIST before any permission
		 * check, and nothing is written: `mkdir -p` or CMake walking down an absolute path
		 * through directories outside the grants is not a write attempt */
		close(f1);
		answer(listener, req_id, 0, EEXIST);
		return 0;
	}
	if (denied) {
		close(f1);
		if (f2 >= 0)
			close(f2);
		if (seccomp_notify_id_valid(listener, req_id) != 0)
			return 0;
		return refuse(c, pid, "write", real, requested, rule, EACCES, rep);
	}
	struct sbx_act_saved sv;
	if (seccomp_notify_id_valid(listener, req_id) != 0) {
		/* gone */
	} else if (sbx_act_as(&cr, &sv, false) < 0) {
		answer(listener, req_id, 0, EPERM);
	} else {
		long rv = -1;
		mode_t old = umask(cr.umask);
		char p[40];
		snprintf(p, sizeof p, "/proc/self/fd/%d", f1);
		struct stat st;
		if (!strcmp(sys, "unlink"))
			rv = unlinkat(f1, base1, 0);
		else if (!strcmp(sys, "unlinkat"))
			rv = unlinkat(f1, base1, (int)(args[2] & AT_REMOVEDIR));
		else if (!strcmp(sys, "rmdir"))
			rv = unlinkat(f1, base1, AT_REMOVEDIR);
		else if (!strcmp(sys, "mkdir"))
			rv = mkdirat(f1, base1, (mode_t)args[1]);
		else if (!strcmp(sys, "mkdirat"))
			rv = mkdirat(f1, base1, (mode_t)args[2]);
		else if (!strcmp(sys, "mknod"))
			rv = mknodat(f1, base1, (mode_t)args[1], (dev_t)args[2]);
		else if (!strcmp(sys, "mknodat"))
			rv = mknodat(f1, base1, (mode_t)args[2], (dev_t)args[3]);
		else if (!strncmp(sys, "symlink", 7))
			rv = symlinkat(lnk, f1, base1);
		else if (!strcmp(sys, "truncate")) {
			if (fstat(f1, &st) < 0)
				rv = -1;
			else if (S_ISDIR(st.st_mode))
				errno = EISDIR;
			else if (!S_ISREG(st.st_mode))
				errno = EINVAL;
			else {
				int w = open(p, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
				if (w >= 0) {
					rv = ftruncate(w, (off_t)args[1]);
					int k = errno;
					close(w);
					errno = k;
				}
			}
		} else if (!strncmp(sys, "link", 4))
			rv = linkat(AT_FDCWD, p, f2, base2, AT_SYMLINK_FOLLOW);
		else if (!strcmp(sys, "renameat2"))
			rv = syscall(SYS_renameat2, f1, base1, f2, base2, (unsigned)args[4]);
		else
			rv = renameat(f1, base1, f2, base2);
		e = errno;
		umask(old);
		sbx_act_self(&sv);
		answer(listener, req_id, 0, rv < 0 ? e : 0);
	}
	close(f1);
	if (f2 >= 0)
		close(f2);
	return 0;
}

static int emulate_once(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			const uint64_t args[6], struct sbx_sn_report *rep)
{
	if (in(sys, open_calls))
		return emulate_open(c, listener, req_id, pid, sys, args, rep);
	if (in(sys, net_calls))
		return emulate_net(c, listener, req_id, pid, !strcmp(sys, "bind"), args, rep);
	if (in(sys, send_calls))
		return emulate_send(c, listener, req_id, pid, sys, args, rep);
	if (in(sys, meta_emulated))
		return emulate_meta(c, listener, req_id, pid, sys, args, rep);
	if (in(sys, ll_covered) && strncmp(sys, "exec", 4))
		return emulate_names(c, listener, req_id, pid, sys, args, rep);
	return 2;
}

/* The call; when the supervisor itself may not reach the target (root without CAP_SYS_PTRACE, a
 * target of another uid: SE_AGAIN_AS_TARGET), once more with the calling thread as the target
 * throughout, real ids included (as_target_real; the nested switches are then no-ops). */
static int emulate_reach(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			 const uint64_t args[6], struct sbx_sn_report *rep, bool open_only)
{
	int r = open_only ? emulate_open(c, listener, req_id, pid, sys, args, rep)
			  : emulate_once(c, listener, req_id, pid, sys, args, rep);
	if (r != SE_AGAIN_AS_TARGET)
		return r;
	struct sbx_act_ids cr;
	struct sbx_act_saved sv;
	if (sbx_act_ids_of(pid, &cr) < 0) {
		answer(listener, req_id, 0, ESRCH);
		return 0;
	}
	if (sbx_act_as(&cr, &sv, true) < 0)
		r = SE_AGAIN_AS_TARGET;
	else {
		r = open_only ? emulate_open(c, listener, req_id, pid, sys, args, rep)
			      : emulate_once(c, listener, req_id, pid, sys, args, rep);
		sbx_act_self(&sv);
	}
	if (r == SE_AGAIN_AS_TARGET)
		r = sbx_sn_violation(rep, pid, strstr(sys, "open") || !strcmp(sys, "creat") ? "read" : "write", EPERM,
				     NULL, NULL,
				     "undecidable: the caller's memory and descriptors are out of reach (no CAP_SYS_PTRACE)");
	return r;
}

int sbx_sn_emulate(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
		   const uint64_t args[6], struct sbx_sn_report *rep)
{
	return emulate_reach(c, listener, req_id, pid, sys, args, rep, false);
}

int sbx_sn_emulate_open(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			const uint64_t args[6], struct sbx_sn_report *rep)
{
	return emulate_reach(c, listener, req_id, pid, sys, args, rep, true);
}
