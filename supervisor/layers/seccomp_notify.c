/* seccomp_notify.c — decisions on notified calls (see seccomp_notify.h for the promise). */
#include "seccomp_notify.h"
#include "actas.h"
#include "fdpath.h"
#include "idmap.h"
#include "procids.h"
#include "seccomp_unix.h"
#include "smallfile.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
#include <sys/auxv.h>
#include <sys/fsuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define SN_O_TMPFILE_BIT 020000000 /* the kernel's __O_TMPFILE bit alone */

/* ---- the target ----------------------------------------------------------------------------- */

/* The target's memory through /proc/PID/mem, opened with the target's ids as this thread's fs ids:
 * the kernel's check for that open compares the fs ids (process_vm_readv compares the real ones),
 * so a root supervisor without CAP_SYS_PTRACE (a container's default) still reads an executor of
 * another uid — a dumpable one, as every command is after its exec. -1 with errno otherwise. */
static ssize_t read_mem_fs(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	char p[64];
	struct sbx_proc_ids id;
	int got = sbx_proc_ids(pid, &id);
	if (got < 0 || id.uid[0] == 0) {
		errno = got == 0 || errno == EINVAL ? EPERM : errno;
		return -1;
	}
	uid_t u = id.uid[0];
	gid_t g = id.gid[0];
	snprintf(p, sizeof p, "/proc/%d/mem", (int)pid);
	int pg = setfsgid((gid_t)g), pu = setfsuid((uid_t)u);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	int e = errno;
	setfsuid((uid_t)pu);
	setfsgid((gid_t)pg);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	ssize_t n = pread(fd, buf, len, (off_t)addr);
	e = errno;
	close(fd);
	errno = n < 0 && e == EIO ? EFAULT : e;
	return n;
}

static ssize_t read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {.iov_base = buf, .iov_len = len};
	struct iovec r = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0 && (errno == EPERM || errno == EACCES) && geteuid() == 0)
		n = read_mem_fs(pid, addr, buf, len);
	return n;
}

ssize_t sbx_sn_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return read_mem(pid, addr, buf, len);
}

/* A NUL-terminated string from the target, read page by page (a string may end just before an
 * unmapped page). Returns its length, or -1 (unreadable, or longer than len - 1). */
static ssize_t read_str(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;
	while (got < len - 1) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);
		if (chunk > len - 1 - got)
			chunk = len - 1 - got;
		ssize_t n = read_mem(pid, a, buf + got, chunk);
		if (n <= 0)
			return -1;
		char *z = memchr(buf + got, 0, (size_t)n);
		if (z)
			return z - buf;
		got += (size_t)n;
	}
	return -1;
}

static void proc_text(pid_t pid, const char *what, char *out, size_t outlen, bool link)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, what);
	out[0] = 0;
	ssize_t n;
	if (link) {
		n = readlink(p, out, outlen - 1);
	} else {
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, out, outlen - 1);
		if (fd >= 0)
			close(fd);
		while (n > 0 && out[n - 1] == '\n')
			n--;
	}
	out[n > 0 ? n : 0] = 0;
}

/* `req` (as given) joined onto the dirfd's or the cwd's path, normalised. 0, or -1. */
int sbx_sn_target_abs(pid_t pid, int dirfd, const char *req, char *out, size_t outlen)
{
	char base[4096], w[32];
	if (req[0] == '/')
		return pol_normalize("/", req, out, outlen);
	if (dirfd == AT_FDCWD)
		snprintf(w, sizeof w, "cwd");
	else
		snprintf(w, sizeof w, "fd/%d", dirfd);
	proc_text(pid, w, base, sizeof base, true);
	if (base[0] != '/')
		return -1; /* not a directory of a file system (pipe:[..], anon_inode, ...) */
	if (!req[0])
		return pol_normalize("/", base, out, outlen);
	return pol_normalize(base, req, out, outlen);
}

/* The target's root directory (/proc/<pid>/root) as an O_PATH fd, or -1 with errno. */
static int target_root(pid_t pid)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/root", (int)pid);
	return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* `abs` opened O_PATH in the target's root as the kernel resolves it there (symlinks followed in
 * that root, no magic links; nofollow: not a final symlink). An fd, or -1 with errno. */
static int target_open(pid_t pid, const char *abs, bool nofollow)
{
	int rfd = target_root(pid);
	if (rfd < 0)
		return -1;
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, rfd, abs, &how, sizeof how);
	int e = errno;
	close(rfd);
	errno = e;
	return fd;
}

/* The object the kernel would reach for the absolute `abs` in the target's root: its path, as
 * readlink of an O_PATH fd gives it. nofollow: do not follow a final symlink (bind). Returns 0,
 * or -1 with errno (ENOENT: nothing there). */
static int target_resolve(pid_t pid, const char *abs, bool nofollow, char *out, size_t outlen)
{
	int fd = target_open(pid, abs, nofollow);
	if (fd < 0)
		return -1;
	int r = fd_path(fd, out, outlen);
	close(fd);
	if (r < 0 || out[0] != '/') {
		errno = EACCES;
		return -1;
	}
	path_drop_deleted(out);
	return 0;
}

/* The target's pid as it sees it (its own pid namespace): the last NSpid field. 0 when unknown. */
static long ns_pid(pid_t pid)
{
	char st[4096];
	proc_text(pid, "status", st, sizeof st, false);
	const char *l = strstr(st, "\nNSpid:");
	if (!l)
		return 0;
	l += 8;
	long v = 0;
	const char *e = l + strcspn(l, "\n");
	for (const char *q = l; q < e;) {
		char *end;
		long x = strtol(q, &end, 10);
		if (end == q)
			break;
		v = x;
		q = end;
	}
	return v;
}

/* /proc/<the target's own pid>/... -> /proc/self/..., as the preload and the probes do: the policy
 * grants a process its own /proc/self, whatever number it uses for it. */
static void proc_self_rewrite(pid_t pid, char *path, size_t len)
{
	if (strncmp(path, "/proc/", 6) || path[6] < '1' || path[6] > '9')
		return;
	char *end;
	long n = strtol(path + 6, &end, 10);
	if ((*end != '/' && *end) || n != ns_pid(pid))
		return;
	size_t tl = strlen(end), head = strlen("/proc/self");
	if (head + tl + 1 > len)
		return;
	memmove(path + head, end, tl + 1);
	memcpy(path, "/proc/self", head);
}

static void fill_proc(pid_t pid, struct sbx_sn_report *rep)
{
	proc_text(pid, "comm", rep->comm, sizeof rep->comm, false);
	proc_text(pid, "exe", rep->exe, sizeof rep->exe, true);
}

void sbx_sn_fill_proc(pid_t pid, struct sbx_sn_report *rep)
{
	fill_proc(pid, rep);
}

int sbx_sn_violation(struct sbx_sn_report *rep, pid_t pid, const char *access, int err, const char *path,
		     const char *requested, const char *rulefmt, ...)
{
	char p[sizeof rep->path], q[sizeof rep->requested]; /* (either may be rep's own) */
	snprintf(p, sizeof p, "%s", path ? path : "");
	snprintf(q, sizeof q, "%s", requested ? requested : "");
	memset(rep, 0, sizeof *rep);
	rep->port = -1;
	rep->violation = true;
	rep->access = access;
	rep->err = err;
	memcpy(rep->path, p, sizeof p);
	memcpy(rep->requested, q, sizeof q);
	va_list ap;
	va_start(ap, rulefmt);
	vsnprintf(rep->rule, sizeof rep->rule, rulefmt, ap);
	va_end(ap);
	fill_proc(pid, rep);
	return 1;
}

ssize_t sbx_sn_read_str(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	return read_str(pid, addr, buf, len);
}

void sbx_sn_proc_self_rewrite(pid_t pid, char *path, size_t len)
{
	proc_self_rewrite(pid, path, len);
}

long sbx_sn_ns_pid(pid_t pid)
{
	return ns_pid(pid);
}

static void rule_text(const struct policy *pol, uint32_t rule, struct sbx_sn_report *rep)
{
	snprintf(rep->rule, sizeof rep->rule, "%s", pol ? pol_rule_text(pol, rule) : "no policy (fail closed)");
}

/* ---- rlimits -------------------------------------------------------------------------------- */

static const char *const rl_names[] = {
	"RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_CORE", "RLIMIT_RSS",
	"RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_MEMLOCK", "RLIMIT_AS", "RLIMIT_LOCKS",
	"RLIMIT_SIGPENDING", "RLIMIT_MSGQUEUE", "RLIMIT_NICE", "RLIMIT_RTPRIO", "RLIMIT_RTTIME",
};
#define N_RL (sizeof rl_names / sizeof rl_names[0])

/* The hard limit of `res` of `pid`, from /proc/<pid>/limits (readable without privileges, unlike
 * prlimit on another uid's process). Returns 0, or -1. */
static int proc_hard_limit(pid_t pid, unsigned res, uint64_t *hard)
{
	char p[64], buf[4096];
	snprintf(p, sizeof p, "/proc/%d/limits", (int)pid);
	if (sbx_read_small(p, buf, sizeof buf) <= 0)
		return -1;
	char *line = strchr(buf, '\n'); /* skip the header */
	for (unsigned i = 0; line && i <= res; i++) {
		line++;
		if (i == res) {
			if (strlen(line) < 26)
				return -1;
			char soft[32], hd[32];
			if (sscanf(line + 26, "%31s %31s", soft, hd) != 2)
				return -1;
			if (!strcmp(hd, "unlimited")) {
				*hard = RLIM_INFINITY;
				return 0;
			}
			char *end;
			unsigned long long v = strtoull(hd, &end, 10);
			if (*end)
				return -1;
			*hard = v;
			return 0;
		}
		line = strchr(line, '\n');
	}
	return -1;
}

static int decide_rlimit(pid_t pid, unsigned res, uint64_t addr, struct sbx_sn_report *rep)
{
	struct { uint64_t cur, max; } nl;
	if (read_mem(pid, addr, &nl, sizeof nl) != (ssize_t)sizeof nl)
		return 0; /* unreadable: the kernel answers EFAULT itself */
	uint64_t hard;
	if (res >= N_RL || proc_hard_limit(pid, res, &hard) < 0)
		return 0; /* unknown resource: the kernel answers EINVAL */
	if (nl.max <= hard || hard == RLIM_INFINITY)
		return 0; /* lowering, or within the run's hard limit: the kernel checks the rest */
	rep->err = EPERM;
	rep->access = "rlimit";
	if (nl.max == RLIM_INFINITY)
		snprintf(rep->what, sizeof rep->what, "%s unlimited > %llu", rl_names[res],
			 (unsigned long long)hard);
	else
		snprintf(rep->what, sizeof rep->what, "%s %llu > %llu", rl_names[res],
			 (unsigned long long)nl.max, (unsigned long long)hard);
	snprintf(rep->rule, sizeof rep->rule, "limits: raising above the run's hard limit");
	return 1;
}

/* ---- connect / bind ------------------------------------------------------------------------- */

static bool is_loopback(int family, const uint8_t *a)
{
	static const uint8_t v6lo[16] = {[15] = 1};
	if (family == AF_INET)
		return a[0] == 127;
	return !memcmp(a, v6lo, 16);
}

static int decide_unix(const struct sbx_sn_ctx *c, pid_t pid, bool bind, const struct sockaddr_un *sun,
		       size_t len, struct sbx_sn_report *rep)
{
	size_t off = offsetof(struct sockaddr_un, sun_path);
	int ab = sbx_sn_abstract(c->pol, c->report_only, pid, bind, sun, len, rep->path, sizeof rep->path);
	if (ab == 1) { /* seccomp_unix.h */
		snprintf(rep->requested, sizeof rep->requested, "%s", rep->path);
		rep->access = bind ? "bind" : "connect";
		rep->port = -1;
		rep->err = EPERM;
		rep->hard = bind; /* a name bound in the host's namespace: refused even by the sensor */
		snprintf(rep->rule, sizeof rep->rule, "abstract unix socket"); /* as the probes say it */
	}
	if (ab >= 0)
		return ab;
	if (len <= off)
		return 0; /* unnamed */
	size_t n = len - off;
	if (n > sizeof sun->sun_path)
		n = sizeof sun->sun_path;
	char req[sizeof sun->sun_path + 1];
	memcpy(req, sun->sun_path, n);
	req[n] = 0;
	snprintf(rep->requested, sizeof rep->requested, "%s", req);
	rep->access = bind ? "bind" : "connect";
	rep->port = -1;
	if (sbx_sn_target_abs(pid, AT_FDCWD, req, rep->path, sizeof rep->path) < 0)
		snprintf(rep->path, sizeof rep->path, "%s", req);
	struct pol_decision d = {.verdict = POL_DENY, .rule = POL_RULE_DEFAULT};
	if (c->pol)
		pol_path(c->pol, rep->path, POL_WRITE, &d);
	if (d.verdict == POL_ALLOW) {
		/* the kernel follows symlinks: decide the object it would reach as well */
		char res[4096];
		if (target_resolve(pid, rep->path, bind, res, sizeof res) == 0 && strcmp(res, rep->path)) {
			pol_path(c->pol, res, POL_WRITE, &d);
			if (d.verdict != POL_ALLOW)
				snprintf(rep->path, sizeof rep->path, "%s", res);
		}
	}
	if (d.verdict == POL_ALLOW)
		return 0;
	rep->err = bind ? EACCES : EPERM;
	rule_text(c->pol, d.rule, rep);
	return 1;
}

/* A peer (an address, a message header) the supervisor could not read: where the kernel cannot
 * either (EFAULT, a short read over an unmapped page) the call fails there, 0; where the supervisor
 * may not (EPERM, EACCES: a non-dumpable caller of another uid, no CAP_SYS_PTRACE) nothing else
 * decides a unix peer — Landlock has no right for a connect or a send, and a socket under a
 * read-only bind can still be connected — so the call is refused and reported undecidable, 1,
 * never let through unseen. n: what the read returned (errno set when n < 0). */
static int peer_unreadable(pid_t pid, ssize_t n, bool bind, struct sbx_sn_report *rep)
{
	int e = errno;
	if (n >= 0 || e == EFAULT || e == ESRCH)
		return 0;
	return sbx_sn_violation(rep, pid, bind ? "bind" : "connect", EPERM, "?", "?",
				"undecidable: the caller's memory cannot be read (%s)", strerror(e));
}

int sbx_sn_decide_sockaddr(const struct sbx_sn_ctx *c, pid_t pid, bool bind, uint64_t addr, uint64_t len,
			   struct sbx_sn_report *rep)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	if (len < sizeof(sa_family_t))
		return 0;
	if (len > sizeof ss)
		len = sizeof ss;
	ssize_t n = read_mem(pid, addr, &ss, len);
	if (n != (ssize_t)len)
		return peer_unreadable(pid, n, bind, rep);
	return sbx_sn_decide_addr(c, pid, bind, &ss, len, rep);
}

int sbx_sn_decide_addr(const struct sbx_sn_ctx *c, pid_t pid, bool bind, const struct sockaddr_storage *ssp,
		       uint64_t len, struct sbx_sn_report *rep)
{
	const struct sockaddr_storage ss = *ssp;
	if (len < sizeof(sa_family_t))
		return 0;
	if (ss.ss_family == AF_UNIX)
		return decide_unix(c, pid, bind, (const struct sockaddr_un *)&ss, len, rep);
	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return 0;
	if (c->netfilter)
		return 0; /* netfilter's cgroup hooks (connect4/6, bind4/6) decide on the kernel's copy of
			   * the address — no time-of-check race — and report */
	int family = ss.ss_family;
	uint8_t a[16] = {0};
	uint16_t port;
	if (family == AF_INET) {
		if (len < sizeof(struct sockaddr_in))
			return 0;
		const struct sockaddr_in *in = (const void *)&ss;
		memcpy(a, &in->sin_addr, 4);
		port = ntohs(in->sin_port);
	} else {
		if (len < sizeof(struct sockaddr_in6))
			return 0;
		const struct sockaddr_in6 *in6 = (const void *)&ss;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
			family = AF_INET;
			memcpy(a, &in6->sin6_addr.s6_addr[12], 4);
		} else {
			memcpy(a, &in6->sin6_addr, 16);
		}
		port = ntohs(in6->sin6_port);
	}
	inet_ntop(family, a, rep->addr, sizeof rep->addr);
	rep->port = port;
	rep->access = bind ? "bind" : "connect";
	struct pol_decision d = {.verdict = POL_DENY, .rule = POL_RULE_DEFAULT};
	if (c->pol)
		pol_net_addr(c->pol, family, a, port, &d);
	/* (the run's own network namespace: its any-address is inside the run too, POL_RULE_NET_OWN) */
	if (bind && d.verdict == POL_ALLOW && d.rule != POL_RULE_NET_OWN && !is_loopback(family, a)) {
		/* servers only on granted loopback addresses: a granted remote peer is not a local
		 * address to serve on, and a wildcard bind would serve every interface */
		d.verdict = POL_DENY;
		d.rule = POL_RULE_DEFAULT;
	}
	if (d.verdict == POL_ALLOW)
		return 0;
	rep->err = bind ? EACCES : EPERM;
	if (bind && d.rule == POL_RULE_DEFAULT)
		snprintf(rep->rule, sizeof rep->rule, "bind: only granted loopback addresses (%s)",
			 c->pol ? pol_rule_text(c->pol, d.rule) : "no policy");
	else
		rule_text(c->pol, d.rule, rep);
	return 1;
}

/* The magic links of the target's own /proc/self (after proc_self_rewrite): /proc/self/root/X is X
 * in its root, /proc/self/cwd/X its cwd's X, /proc/self/fd/N[/X] the descriptor's object (what
 * glibc's fchmodat(AT_SYMLINK_NOFOLLOW) and f*() on O_PATH descriptors use). The path is replaced
 * by the object's. Returns 0 (replaced or nothing to do), 1 the descriptor is not a file of a file
 * system (nothing of the host to protect), -1 unreadable. *fd_obj: the path is a descriptor's own,
 * already resolved by the kernel. */
static int target_fd_path(pid_t pid, int fd, char *out, size_t outlen);
static int proc_magic_rewrite(pid_t pid, char *path, size_t len, bool *fd_obj)
{
	const char *rest = NULL;
	char base[4096];
	*fd_obj = false;
	const char *p = !strncmp(path, "/proc/self/", 11) ? path + 11
		      : !strncmp(path, "/proc/thread-self/", 18) ? path + 18 : NULL;
	if (!p)
		return 0;
	if (!strncmp(p, "root", 4) && (p[4] == '/' || !p[4])) {
		snprintf(base, sizeof base, "/");
		rest = p + 4;
	} else if (!strncmp(p, "cwd", 3) && (p[3] == '/' || !p[3])) {
		proc_text(pid, "cwd", base, sizeof base, true);
		if (base[0] != '/')
			return -1;
		rest = p + 3;
	} else if (!strncmp(p, "fd/", 3) && p[3] >= '0' && p[3] <= '9') {
		char *end;
		long fd = strtol(p + 3, &end, 10);
		if (*end && *end != '/')
			return 0;
		int r = target_fd_path(pid, (int)fd, base, sizeof base);
		if (r)
			return r;
		rest = end;
		*fd_obj = !*end;
	} else {
		return 0;
	}
	char joined[4096];
	if (!*rest || !strcmp(rest, "/"))
		return pol_normalize("/", base, path, len) < 0 ? -1 : 0;
	if (snprintf(joined, sizeof joined, "%s%s", base, rest) >= (int)sizeof joined)
		return -1;
	return pol_normalize("/", joined, path, len) < 0 ? -1 : 0;
}

/* After a lexical allow of `path` (absolute, in the target's root): decide the object the kernel
 * would reach — symlinks followed unless nofollow, "..", bind mounts; for a new name (nothing there
 * yet), its directory's real place plus the name. On a denial *d is updated and `path` replaced by
 * the resolved one. */
/* What `abs` names through symlinks when the kernel cannot reach it in the target's root (ENOENT):
 * components resolved in the target's root while they exist, each symlink replaced by its text
 * (absolute: from the root), "." / ".." lexically, missing components kept as written. nofollow:
 * the final component is not followed. 0 (out), -1 (a loop, too long, /proc unreadable). */
static int target_resolve_links(pid_t pid, const char *abs, bool nofollow, char *out, size_t outlen)
{
	int rfd = target_root(pid);
	if (rfd < 0)
		return -1;
	char cur[4096] = "", rest[8192], comp[4096], link[4096], tmp[8192];
	snprintf(rest, sizeof rest, "%s", abs);
	int links = 0, rc = -1;
	for (;;) {
		char *r = rest;
		while (*r == '/')
			r++;
		if (!*r) {
			rc = 0;
			break;
		}
		size_t n = strcspn(r, "/");
		if (n >= sizeof comp)
			break;
		memcpy(comp, r, n);
		comp[n] = 0;
		memmove(rest, r + n, strlen(r + n) + 1);
		bool last = !rest[strspn(rest, "/")];
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *s = strrchr(cur, '/');
			if (s)
				*s = 0;
			continue;
		}
		size_t cl = strlen(cur);
		if (cl + 1 + n >= sizeof cur)
			break;
		char cand[4096];
		memcpy(cand, cur, cl);
		cand[cl] = '/';
		memcpy(cand + cl + 1, comp, n + 1);
		ssize_t ln = -1;
		if (!(last && nofollow)) {
			struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
					       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
			int fd = (int)syscall(SYS_openat2, rfd, cand + 1, &how, sizeof how);
			if (fd >= 0) {
				ln = readlinkat(fd, "", link, sizeof link - 1);
				close(fd);
			}
		}
		if (ln <= 0) { /* not a link, or not there: the name as written */
			memcpy(cur, cand, cl + n + 2);
			continue;
		}
		link[ln] = 0;
		if (++links > 40)
			break; /* ELOOP for the kernel too */
		if (snprintf(tmp, sizeof tmp, "%s/%s", link, rest) >= (int)sizeof tmp)
			break;
		snprintf(rest, sizeof rest, "%s", tmp);
		if (link[0] == '/')
			cur[0] = 0;
	}
	close(rfd);
	if (rc == 0 && snprintf(out, outlen, "%s", cur[0] ? cur : "/") >= (int)outlen)
		rc = -1;
	return rc;
}

/* Whether the final component of `abs` is a symlink in the target's root. */
static bool target_is_link(pid_t pid, const char *abs)
{
	int fd = target_open(pid, abs, true);
	struct stat st;
	bool link = fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
	if (fd >= 0)
		close(fd);
	return link;
}

static void decide_resolved(const struct sbx_sn_ctx *c, pid_t pid, bool nofollow, unsigned acc, char *path,
			    size_t pathlen, struct pol_decision *d, bool lexical)
{
	char res[4096];
	int rr = target_resolve(pid, path, nofollow, res, sizeof res);
	bool missing = rr < 0 && errno == ENOENT;
	if (missing) {
		char *slash = strrchr(path, '/');
		if (slash && slash != path) {
			*slash = 0;
			rr = target_resolve(pid, path, false, res, sizeof res);
			*slash = '/';
			if (rr == 0 && strlen(res) + strlen(slash) < sizeof res)
				strcat(res, slash);
			else
				rr = -1;
		}
	}
	/* Not there in the target's view although the name is a link or its directory cannot be
	 * reached (bwrap does not mount a link's target): what the links name, followed by their
	 * text. A new name in an existing directory (every file an extraction creates) costs one
	 * openat2 here, nothing more. */
	if (missing && lexical && (rr < 0 || (!nofollow && target_is_link(pid, path)))) {
		char lex[4096];
		bool fd_obj;
		if (target_resolve_links(pid, path, nofollow, lex, sizeof lex) == 0 && strcmp(lex, path)) {
			proc_self_rewrite(pid, lex, sizeof lex);
			/* a link to the target's own magic links (/dev/stdout -> /proc/self/fd/1): the
			 * descriptor's object, or nothing of the host (a pipe, a socket) */
			if (proc_magic_rewrite(pid, lex, sizeof lex, &fd_obj) != 0)
				return;
			pol_path(c->pol, lex, acc, d);
			if (d->verdict != POL_ALLOW) {
				snprintf(path, pathlen, "%s", lex);
				return;
			}
		}
	}
	if (rr == 0 && strcmp(res, path)) {
		proc_self_rewrite(pid, res, sizeof res);
		pol_path(c->pol, res, acc, d);
		if (d->verdict != POL_ALLOW)
			snprintf(path, pathlen, "%s", res);
	}
}

int sbx_sn_decide_links(const struct sbx_sn_ctx *c, pid_t pid, unsigned acc, bool nofollow, char *path,
			size_t pathlen, uint32_t *rule)
{
	struct pol_decision d = {.verdict = POL_ALLOW, .rule = POL_RULE_DEFAULT};
	if (!c->pol)
		return 0;
	decide_resolved(c, pid, nofollow, acc, path, pathlen, &d, true);
	*rule = d.rule;
	return d.verdict != POL_ALLOW;
}

/* ---- the file / exec reporter -------------------------------------------------------------- */

/* whole: the call is refused whatever it names (openat2: its mode is in memory), so what it names
 * is decided and reported in full even when the file calls are routed only for the denies. */
static int decide_path(const struct sbx_sn_ctx *c, pid_t pid, int dirfd, uint64_t paddr, uint64_t flags,
		       bool exec, bool whole, struct sbx_sn_report *rep)
{
	char req[4096];
	if (read_str(pid, paddr, req, sizeof req) < 0)
		return 0; /* unreadable or too long: the kernel answers EFAULT / ENAMETOOLONG */
	unsigned acc = POL_READ;
	bool meta = false;
	if (exec)
		acc = POL_EXEC;
	else if (flags & O_PATH)
		meta = true;
	else if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND | SN_O_TMPFILE_BIT)))
		acc = POL_WRITE; /* not glibc's __O_TMPFILE: it includes O_DIRECTORY (every opendir) */
	if (sbx_sn_target_abs(pid, dirfd, req, rep->path, sizeof rep->path) < 0)
		return 0; /* relative to something that is not a path: left to the kernel layers */
	proc_self_rewrite(pid, rep->path, sizeof rep->path);
	bool magic_fd;
	if (proc_magic_rewrite(pid, rep->path, sizeof rep->path, &magic_fd) != 0)
		return 0; /* not a file of a file system, or unreadable: the kernel layers decide */
	struct pol_decision d = {.verdict = POL_DENY, .rule = POL_RULE_DEFAULT};
	if (c->pol)
		pol_path(c->pol, rep->path, acc, &d);
	/* the kernel follows symlinks (O_NOFOLLOW: not the last one); an exec follows them all */
	if (d.verdict == POL_ALLOW && c->pol && !magic_fd)
		decide_resolved(c, pid, !exec && (flags & O_NOFOLLOW), acc, rep->path, sizeof rep->path, &d, true);
	/* metadata (O_PATH) is refused only where a rule denies, as the preload does; routed only for
	 * the denies (files_deny_only), only a hard deny is refused (the rest is Landlock's, bwrap's) */
	if (d.verdict == POL_ALLOW || (meta && d.rule == POL_RULE_DEFAULT) ||
	    (c->files_deny_only && !whole && !pol_rule_hard_deny(c->pol, d.rule)))
		return 0;
	char res[4096];
	bool exists = target_resolve(pid, rep->path, false, res, sizeof res) == 0 || errno != ENOENT;
	rep->err = (!exists && !(flags & O_CREAT)) ? ENOENT : EACCES;
	rep->violation = true;
	rep->access = exec ? "exec" : acc == POL_WRITE ? "write" : "read";
	rep->port = -1;
	snprintf(rep->requested, sizeof rep->requested, "%s", req);
	rule_text(c->pol, d.rule, rep);
	return 1;
}

/* What the new image holds, stopped at its exec (seccomp_execpin.h): its binary and its
 * descriptors, read back from /proc/PID/exe and /proc/PID/fd/N (sbx_retry_as: where a root
 * supervisor may not look, as the target's fs ids). */
struct held {
	char path[4096];           /* the object read back (exe; the descriptor found denied) */
	int fd;                    /* that descriptor (the walk), -1 none */
	long execfd;               /* AT_EXECFD of the new image (a binfmt_misc `O` handler), -1 none */
	const struct policy *pol;
	uint32_t rule;             /* the deny that matched */
};

/* One object the new image holds (its binary, or what a descriptor of it names), against the
 * manifest's denies: only a hard deny (pol_rule_hard_deny) — what the policy merely does not grant
 * stays Landlock's and bwrap's, as for the name. Not a file of a file system (pipe:, socket:,
 * anon_inode:) or a memfd: nothing of the host. A deleted file is decided on its last name. */
static bool held_denied(struct held *h, char *path, unsigned acc)
{
	path_drop_deleted(path);
	if (!h->pol || path[0] != '/' || !strncmp(path, "/memfd:", 7))
		return false;
	struct pol_decision d = {.verdict = POL_DENY, .rule = POL_RULE_DEFAULT};
	pol_path(h->pol, path, acc, &d);
	h->rule = d.rule;
	return d.verdict != POL_ALLOW && pol_rule_hard_deny(h->pol, d.rule);
}

static long exe_link(pid_t pid, void *arg)
{
	struct held *h = arg;
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
	return readlink(p, h->path, sizeof h->path);
}

/* The new image's AT_EXECFD (/proc/PID/auxv) into h->execfd (-1 none): which descriptor a
 * report names as the binary a binfmt_misc handler opened. 0, or -1 (errno). */
static long held_execfd(pid_t pid, void *arg)
{
	struct held *h = arg;
	char p[64];
	unsigned long av[128];
	snprintf(p, sizeof p, "/proc/%d/auxv", (int)pid);
	ssize_t n = sbx_read_small(p, (char *)av, sizeof av);
	if (n < 0)
		return -1;
	for (size_t i = 0; (i + 2) * sizeof av[0] <= (size_t)n && av[i] != AT_NULL; i += 2)
		if (av[i] == AT_EXECFD)
			h->execfd = (long)av[i + 1];
	return 0;
}

/* Every descriptor of the new image, decided as held_denied says: 1 one is denied (h->fd, h->path,
 * h->rule), 0 none, -1 the table cannot be read back (errno). The process is stopped at its exec and
 * its table is its own (the exec unshared it): nothing changes under the walk. */
static long held_fds(pid_t pid, void *arg)
{
	struct held *h = arg;
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
	DIR *dir = opendir(p);
	if (!dir)
		return -1;
	long rc = 0;
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(dir);
		if (!e) {
			rc = errno ? -1 : 0; /* the end, or a table not read to its end */
			break;
		}
		char *end;
		long n = strtol(e->d_name, &end, 10);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end || n > INT_MAX)
			continue;
		snprintf(p, sizeof p, "/proc/%d/fd/%ld", (int)pid, n);
		ssize_t k = readlink(p, h->path, sizeof h->path);
		if (k <= 0 || (size_t)k >= sizeof h->path) {
			if (k >= 0)
				errno = ENAMETOOLONG;
			rc = -1;
			break;
		}
		h->path[k] = 0;
		if (held_denied(h, h->path, POL_READ)) {
			h->fd = (int)n;
			rc = 1;
			break;
		}
	}
	int e2 = errno;
	closedir(dir);
	errno = e2;
	return rc;
}

/* What the kernel loaded for `pid` (stopped at its exec, seccomp_execpin.h): a manifest deny there
 * is refused whatever the exec's name said — on its binary (/proc/PID/exe), and on every
 * descriptor the new image holds: a binfmt_misc handler with the `O` flag (qemu-user's) has the
 * kernel open the binary and hand it to its interpreter as a descriptor (AT_EXECFD), and
 * /proc/PID/exe is then the interpreter. No descriptor to a denied file can be had legitimately in
 * the run (every open of one is refused), so any is refused. 1 refused (rep filled: the deny's
 * rule, or "undecidable" when the binary or the descriptors cannot be read back), 0 not. */
int sbx_sn_decide_exe(const struct sbx_sn_ctx *c, pid_t pid, struct sbx_sn_report *rep)
{
	struct held h = {.fd = -1, .execfd = -1, .pol = c->pol};
	memset(rep, 0, sizeof *rep);
	rep->port = -1;
	long n = sbx_retry_as(pid, false, exe_link, &h);
	if (n <= 0 || (size_t)n >= sizeof h.path) {
		/* stopped at its exec, yet its binary cannot be read back: refused, said so */
		int e = n < 0 ? errno : ENAMETOOLONG;
		return sbx_sn_violation(rep, pid, "exec", EACCES, "?", NULL,
					"undecidable: the binary loaded cannot be read back (%s)", strerror(e));
	}
	h.path[n] = 0;
	if (!c->pol)
		return 0;
	if (held_denied(&h, h.path, POL_EXEC))
		return sbx_sn_violation(rep, pid, "exec", EACCES, h.path, h.path, "%s", pol_rule_text(c->pol, h.rule));
	char exe[sizeof h.path];
	snprintf(exe, sizeof exe, "%s", h.path);
	long f = sbx_retry_as(pid, false, held_fds, &h);
	if (f < 0)
		return sbx_sn_violation(rep, pid, "exec", EACCES, exe, NULL,
					"undecidable: the descriptors of the image loaded cannot be read back (%s)",
					strerror(errno));
	if (f == 0)
		return 0;
	char req[160];
	(void)sbx_retry_as(pid, false, held_execfd, &h);
	snprintf(req, sizeof req, "fd %d held by the new image%s", h.fd,
		 h.execfd == h.fd ? " (AT_EXECFD: the binary a binfmt_misc handler opened for its interpreter)" : "");
	return sbx_sn_violation(rep, pid, "read", EACCES, h.path, req, "%s", pol_rule_text(c->pol, h.rule));
}

/* ---- metadata changes (issue 13) ---------------------------------------------------------- */

/* The path of the target's descriptor `fd` (/proc/<pid>/fd/N): 0 with a path in `out`; 1 when the
 * descriptor is not a file of a file system (pipe:, socket:, anon_inode:) or a memfd — nothing
 * of the host to protect; -1 unreadable (the kernel answers EBADF itself). A deleted file is
 * decided on its last name (" (deleted)" dropped): another name may still exist. */
static int target_fd_path(pid_t pid, int fd, char *out, size_t outlen)
{
	char w[32];
	if (fd < 0)
		return -1;
	snprintf(w, sizeof w, "fd/%d", fd);
	proc_text(pid, w, out, outlen, true);
	if (!out[0])
		return -1;
	if (out[0] != '/' || !strncmp(out, "/memfd:", 7))
		return 1;
	path_drop_deleted(out);
	return 0;
}

/* Decide one object of a metadata call: `paddr` (a path in the target's memory, 0 = none) relative
 * to `dirfd`, or the descriptor `dirfd` itself when there is no path (or it is "" with
 * AT_EMPTY_PATH). Lexically AND on the object the kernel would reach (symlinks followed unless
 * nofollow). Returns 0 allowed, 1 denied (rep->path/requested/rule set), 2 undecidable (left to the
 * kernel: EFAULT, EBADF, not a path). */
static int decide_meta_obj(const struct sbx_sn_ctx *c, pid_t pid, int dirfd, uint64_t paddr, bool empty_ok,
			   bool nofollow, unsigned acc, bool hard_only, struct sbx_sn_report *rep)
{
	char req[4096] = "";
	bool by_fd = !paddr, nofollow_fd = false;
	if (paddr) {
		if (read_str(pid, paddr, req, sizeof req) < 0)
			return 2;
		if (!req[0]) {
			if (!empty_ok)
				return 2; /* ENOENT from the kernel */
			by_fd = true;
		}
	}
	if (by_fd) {
		if (dirfd == AT_FDCWD) {
			if (sbx_sn_target_abs(pid, AT_FDCWD, "", rep->path, sizeof rep->path) < 0)
				return 2;
		} else {
			int r = target_fd_path(pid, dirfd, rep->path, sizeof rep->path);
			if (r)
				return r < 0 ? 2 : 0;
		}
		snprintf(req, sizeof req, "fd %d", dirfd);
		nofollow_fd = true; /* the descriptor's path is the kernel's own: nothing to resolve */
	} else if (sbx_sn_target_abs(pid, dirfd, req, rep->path, sizeof rep->path) < 0) {
		return 2;
	}
	proc_self_rewrite(pid, rep->path, sizeof rep->path);
	bool magic_fd;
	int mr = proc_magic_rewrite(pid, rep->path, sizeof rep->path, &magic_fd);
	if (mr)
		return mr < 0 ? 2 : 0;
	if (magic_fd)
		nofollow_fd = true;
	struct pol_decision d = {.verdict = POL_DENY, .rule = POL_RULE_DEFAULT};
	if (c->pol)
		pol_path(c->pol, rep->path, acc, &d);
	if (d.verdict == POL_ALLOW && !nofollow_fd)
		decide_resolved(c, pid, nofollow, acc, rep->path, sizeof rep->path, &d, c->report_only);
	if (d.verdict == POL_ALLOW || (hard_only && !pol_rule_hard_deny(c->pol, d.rule)))
		return 0;
	snprintf(rep->requested, sizeof rep->requested, "%s", req);
	rule_text(c->pol, d.rule, rep);
	return 1;
}

/* The metadata calls: which argument is the dirfd / path / flags, and how a refusal answers.
 *   fd: the descriptor argument (dirfd, or the fd itself when path < 0); path: the path argument
 *   (-1: none); flags: the AT_* flags argument (-1: none); nofollow: the call never follows a final
 *   symlink (lchown, l*xattr); read: decided as a read (watches), else a write; err: the errno of a
 *   refusal — EPERM where the kernel refuses a non-owner (mode, owner, attributes, times), EACCES
 *   where it refuses a missing permission (a new name in a directory, a watch on an unreadable
 *   object); second: linkat/link's new name (decided as a write as well). */
struct meta_call {
	const char *name;
	signed char fd, path, flags;
	bool nofollow, read;
	int err;
	signed char fd2, path2; /* link: the new name (-1: none) */
};

#define MC(n, fd, path, flags, nf, rd, err) {n, fd, path, flags, nf, rd, err, -1, -1}
static const struct meta_call meta_calls[] = {
	MC("chmod", -1, 0, -1, false, false, EPERM),
	MC("fchmod", 0, -1, -1, false, false, EPERM),
	MC("fchmodat", 0, 1, -1, false, false, EPERM),
	MC("fchmodat2", 0, 1, 3, false, false, EPERM),
	MC("chown", -1, 0, -1, false, false, EPERM),
	MC("lchown", -1, 0, -1, true, false, EPERM),
	MC("fchown", 0, -1, -1, false, false, EPERM),
	MC("fchownat", 0, 1, 4, false, false, EPERM),
	MC("setxattr", -1, 0, -1, false, false, EPERM),
	MC("lsetxattr", -1, 0, -1, true, false, EPERM),
	MC("fsetxattr", 0, -1, -1, false, false, EPERM),
	MC("setxattrat", 0, 1, 2, false, false, EPERM),
	MC("removexattr", -1, 0, -1, false, false, EPERM),
	MC("lremovexattr", -1, 0, -1, true, false, EPERM),
	MC("fremovexattr", 0, -1, -1, false, false, EPERM),
	MC("removexattrat", 0, 1, 2, false, false, EPERM),
	MC("utime", -1, 0, -1, false, false, EPERM),
	MC("utimes", -1, 0, -1, false, false, EPERM),
	MC("futimesat", 0, 1, -1, false, false, EPERM),
	MC("utimensat", 0, 1, 3, false, false, EPERM), /* path NULL: futimens on the dirfd */
	MC("mknod", -1, 0, -1, true, false, EACCES),
	MC("mknodat", 0, 1, -1, true, false, EACCES),
	{"link", -1, 0, -1, true, false, EACCES, -1, 1},
	{"linkat", 0, 1, 4, true, false, EACCES, 2, 3},
	/* the rest of the write class: only with the file reporter (Landlock and bwrap refuse these,
	 * silently; the reporter is what reports them when the probes are off) */
	MC("unlink", -1, 0, -1, true, false, EACCES),
	MC("unlinkat", 0, 1, -1, true, false, EACCES),
	MC("rmdir", -1, 0, -1, true, false, EACCES),
	MC("mkdir", -1, 0, -1, true, false, EACCES),
	MC("mkdirat", 0, 1, -1, true, false, EACCES),
	MC("truncate", -1, 0, -1, false, false, EACCES),
	MC("symlink", -1, 1, -1, true, false, EACCES),
	MC("symlinkat", 1, 2, -1, true, false, EACCES),
	{"rename", -1, 0, -1, true, false, EACCES, -1, 1},
	{"renameat", 0, 1, -1, true, false, EACCES, 2, 3},
	{"renameat2", 0, 1, -1, true, false, EACCES, 2, 3},
#define FIRST_WRITE_CLASS 24 /* unlink .. renameat2: the W_FILES entries of seccomp_layer.c */
#define N_WRITE_CLASS 11
	MC("inotify_add_watch", -1, 1, -1, false, true, EACCES),
	MC("fanotify_mark", 3, 4, -1, false, true, EACCES), /* path NULL: the dirfd itself */
};
#undef MC

bool sbx_sn_is_meta(const char *sys)
{
	for (size_t i = 0; i < sizeof meta_calls / sizeof meta_calls[0]; i++)
		if (!strcmp(meta_calls[i].name, sys))
			return true;
	return false;
}

/* Is `id` mapped in the user namespace of `pid` (/proc/<pid>/uid_map or gid_map)? Unreadable:
 * true (the kernel decides). */
static bool id_mapped(pid_t pid, const char *map, uint32_t id)
{
	char p[64], buf[1024];
	snprintf(p, sizeof p, "/proc/%d/%s", (int)pid, map);
	if (sbx_read_small(p, buf, sizeof buf) <= 0)
		return true;
	return sbx_idmap_has(buf, id);
}

/* chown family to an id the run's user namespace does not map: the kernel answers EINVAL, where a
 * process without CAP_CHOWN (the executor, always) gets EPERM; answer that. 3 (EPERM, nothing to
 * report: the policy allowed the call), or 0. */
static int chown_unmapped(pid_t pid, const char *sys, const uint64_t args[6], struct sbx_sn_report *rep)
{
	int ui = !strcmp(sys, "fchownat") ? 2 : (!strcmp(sys, "chown") || !strcmp(sys, "lchown") ||
						 !strcmp(sys, "fchown")) ? 1 : -1;
	if (ui < 0)
		return 0;
	uint32_t u = (uint32_t)args[ui], g = (uint32_t)args[ui + 1];
	if ((u == (uint32_t)-1 || id_mapped(pid, "uid_map", u)) &&
	    (g == (uint32_t)-1 || id_mapped(pid, "gid_map", g)))
		return 0;
	rep->err = EPERM;
	return 3;
}

static int decide_meta(const struct sbx_sn_ctx *c, pid_t pid, const char *sys, const uint64_t args[6],
		       struct sbx_sn_report *rep)
{
	const struct meta_call *m = NULL;
	for (size_t i = 0; i < sizeof meta_calls / sizeof meta_calls[0]; i++)
		if (!strcmp(meta_calls[i].name, sys))
			m = &meta_calls[i];
	if (!m)
		return 2;
	uint64_t fl = m->flags >= 0 ? args[(int)m->flags] : 0;
	bool nofollow = m->nofollow || (fl & AT_SYMLINK_NOFOLLOW);
	bool empty_ok = (fl & AT_EMPTY_PATH) != 0;
	int dirfd = m->fd >= 0 ? (int)args[(int)m->fd] : AT_FDCWD;
	uint64_t paddr = m->path >= 0 ? args[(int)m->path] : 0;
	unsigned acc = m->read ? POL_READ : POL_WRITE;
	if (!strcmp(sys, "inotify_add_watch")) {
		nofollow = (args[2] & IN_DONT_FOLLOW) != 0;
		if (!paddr)
			return 2;
	} else if (!strcmp(sys, "fanotify_mark")) {
		nofollow = (args[1] & FAN_MARK_DONT_FOLLOW) != 0;
		if (args[1] & (FAN_MARK_REMOVE | FAN_MARK_FLUSH)) /* nothing is watched by these */
			return 0;
	} else if (!strcmp(sys, "linkat")) {
		nofollow = !(fl & AT_SYMLINK_FOLLOW);
	}
	if (m->path >= 0 && m->fd < 0 && !paddr)
		return 2; /* a path call without a path: EFAULT from the kernel */
	/* A watch names its object in memory the supervisor may be unable to read (a root sbxsup in a
	 * container without CAP_SYS_PTRACE, the executor switched to another uid): no other layer
	 * stands behind a watch (Landlock has no right for it, DAC allows any readable file), so an
	 * object that cannot be read is refused, not left to the kernel. Other calls keep going to
	 * the kernel there: Landlock and the file modes stand behind them. */
	if (m->read && paddr && !c->report_only) {
		char b;
		if (read_mem(pid, paddr, &b, 1) < 0 && errno != EFAULT) {
			rep->err = EACCES;
			rep->violation = true;
			rep->access = "read";
			rep->port = -1;
			snprintf(rep->rule, sizeof rep->rule, "undecidable: the caller's memory cannot be read (%s)",
				 strerror(errno));
			return 1;
		}
	}
	if (m->fd >= 0 && m->path >= 0 && !paddr && strcmp(sys, "utimensat") && strcmp(sys, "fanotify_mark"))
		return 2;
	/* link/linkat: the existing object (a link makes it reachable under a new name with that
	 * name's rights: it must be writable where it is) and the new name */
	/* routed only for the denies (files_deny_only): the write class refuses hard denies alone */
	bool hard_only = c->files_deny_only && m >= &meta_calls[FIRST_WRITE_CLASS] &&
			 m < &meta_calls[FIRST_WRITE_CLASS + N_WRITE_CLASS];
	int r = decide_meta_obj(c, pid, dirfd, paddr, empty_ok, nofollow, acc, hard_only, rep);
	if (r == 0 && m->path2 >= 0) {
		int d2 = m->fd2 >= 0 ? (int)args[(int)m->fd2] : AT_FDCWD;
		if (!args[(int)m->path2])
			return 2;
		r = decide_meta_obj(c, pid, d2, args[(int)m->path2], false, true, POL_WRITE, hard_only, rep);
	}
	if (r != 1)
		return 0; /* allowed, or the kernel's own error */
	rep->err = m->err;
	rep->violation = true;
	rep->access = m->read ? "read" : "write";
	rep->port = -1;
	return 1;
}

/* ---- the privilege guard (contract version 3; policy.h pol_priv_mode / pol_priv_xattr) ------- */

/* The object a guarded call names, for the report: `paddr` (0: none) relative to `dirfd`, or the
 * descriptor itself. Fills rep->path / rep->requested; *mode gets the object's mode (0 unknown). */
static void priv_object(pid_t pid, int dirfd, uint64_t paddr, bool nofollow, struct sbx_sn_report *rep,
			uint32_t *mode)
{
	char req[4096] = "";
	*mode = 0;
	if (paddr && read_str(pid, paddr, req, sizeof req) < 0)
		req[0] = 0;
	struct stat st;
	if (req[0]) {
		snprintf(rep->requested, sizeof rep->requested, "%s", req);
		if (sbx_sn_target_abs(pid, dirfd, req, rep->path, sizeof rep->path) < 0)
			return;
		int fd = target_open(pid, rep->path, nofollow);
		if (fd >= 0 && fstat(fd, &st) == 0)
			*mode = (uint32_t)st.st_mode;
		if (fd >= 0)
			close(fd);
		return;
	}
	if (dirfd == AT_FDCWD || target_fd_path(pid, dirfd, rep->path, sizeof rep->path) < 0)
		return;
	snprintf(rep->requested, sizeof rep->requested, "fd %d", dirfd);
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)pid, dirfd);
	if (stat(p, &st) == 0)
		*mode = (uint32_t)st.st_mode;
}

int sbx_sn_privilege(int listener, uint64_t id, pid_t pid, const char *sys, const uint64_t args[6],
		     struct sbx_sn_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->port = -1;
	const char *rule = NULL;
	int dirfd = AT_FDCWD;
	uint64_t paddr = 0, name = 0;
	bool nofollow = false;
	uint32_t m = 0;
	/* registers: mode and flags */
	if (!strcmp(sys, "chmod"))
		rule = pol_priv_mode(POL_PRIV_CHMOD, 0, (uint32_t)args[1]), paddr = args[0];
	else if (!strcmp(sys, "fchmod"))
		rule = pol_priv_mode(POL_PRIV_CHMOD, 0, (uint32_t)args[1]), dirfd = (int)args[0];
	else if (!strcmp(sys, "fchmodat") || !strcmp(sys, "fchmodat2"))
		rule = pol_priv_mode(POL_PRIV_CHMOD, 0, (uint32_t)args[2]), dirfd = (int)args[0], paddr = args[1];
	else if (!strcmp(sys, "open"))
		rule = pol_priv_mode(POL_PRIV_CREATE, (uint32_t)args[1], (uint32_t)args[2]), paddr = args[0];
	else if (!strcmp(sys, "openat"))
		rule = pol_priv_mode(POL_PRIV_CREATE, (uint32_t)args[2], (uint32_t)args[3]), dirfd = (int)args[0],
		paddr = args[1];
	else if (!strcmp(sys, "creat"))
		rule = pol_priv_mode(POL_PRIV_CREATE, O_CREAT, (uint32_t)args[1]), paddr = args[0];
	else if (!strcmp(sys, "mknod"))
		rule = pol_priv_mode(POL_PRIV_MKNOD, 0, (uint32_t)args[1]), paddr = args[0];
	else if (!strcmp(sys, "mknodat"))
		rule = pol_priv_mode(POL_PRIV_MKNOD, 0, (uint32_t)args[2]), dirfd = (int)args[0], paddr = args[1];
	else if (!strcmp(sys, "openat2")) {
		/* memory: the filters never let an openat2 continue (seccomp_layer.c), so the check only
		 * chooses the answer (EPERM + report here, ENOSYS there) */
		struct open_how how;
		if (args[3] < sizeof how || read_mem(pid, args[2], &how, sizeof how) != (ssize_t)sizeof how)
			return 0;
		rule = pol_priv_mode(POL_PRIV_CREATE, how.flags, (uint32_t)how.mode);
		dirfd = (int)args[0], paddr = args[1];
	} else if (!strcmp(sys, "setxattr") || !strcmp(sys, "lsetxattr"))
		paddr = args[0], name = args[1], nofollow = sys[0] == 'l';
	else if (!strcmp(sys, "fsetxattr"))
		dirfd = (int)args[0], name = args[1];
	else if (!strcmp(sys, "setxattrat"))
		dirfd = (int)args[0], paddr = args[1], name = args[3], nofollow = (args[2] & AT_SYMLINK_NOFOLLOW) != 0;
	else
		return 0;
	if (!rule && !name)
		return 0;
	char nbuf[256] = "";
	if (name) {
		/* the name is in memory: a second thread can change it after this read; the kernel's own
		 * check (security.* needs CAP_SETFCAP / CAP_SYS_ADMIN, which the executor never holds)
		 * stands behind this one, which makes the attempt seen */
		if (read_str(pid, name, nbuf, sizeof nbuf) < 0)
			return 0;
		if (strncmp(nbuf, "security.", 9) && strcmp(nbuf, "system.posix_acl_access"))
			return 0; /* the only names that can matter: no /proc look-up for the rest */
	}
	priv_object(pid, dirfd, paddr, nofollow, rep, &m);
	if (name && !(rule = pol_priv_xattr(nbuf, m)))
		return 0;
	if (seccomp_notify_id_valid(listener, id) != 0)
		return 0; /* the task is gone: what /proc said may be another's */
	rep->err = EPERM;
	rep->violation = true;
	rep->access = "privilege";
	snprintf(rep->rule, sizeof rep->rule, "%s", rule);
	if (name)
		snprintf(rep->what, sizeof rep->what, "%.*s", (int)sizeof rep->what - 1, nbuf);
	fill_proc(pid, rep);
	return 1;
}

/* The session id of /proc/<pid>/stat (field 6), -1 unknown. */
static long proc_sid(long pid)
{
	char p[64], buf[1024];
	snprintf(p, sizeof p, "/proc/%ld/stat", pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *s = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
	long ppid, pgrp, sid;
	char st;
	if (!s || sscanf(s + 1, " %c %ld %ld %ld", &st, &ppid, &pgrp, &sid) != 4)
		return -1;
	return sid;
}

/* A signal (or a pidfd) the run's task `pid` aims at `target` (a number in its own pid namespace,
 * > 0): a violation when that process is not one of the run's. With a pid namespace of its own
 * the run's /proc (bwrap, the direct sandbox) lists exactly its processes: a number missing there
 * names something outside (the kernel answers ESRCH). Without one, the number is ours: the run's
 * processes share its session (sbxsup starts it in a new one). Only for the report-only sensor. */
static int decide_signal(pid_t pid, long target, int sig, struct sbx_sn_report *rep)
{
	if (target <= 0)
		return 0;
	char p[96];
	struct stat a, b;
	snprintf(p, sizeof p, "/proc/%d/ns/pid", (int)pid);
	if (stat(p, &a) < 0 || stat("/proc/self/ns/pid", &b) < 0)
		return 0;
	bool outside;
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		snprintf(p, sizeof p, "/proc/%d/root/proc/%ld", (int)pid, target);
		struct stat t;
		outside = stat(p, &t) < 0 && errno == ENOENT;
	} else {
		long s1 = proc_sid(pid), s2 = proc_sid(target);
		outside = s1 > 0 && s1 != s2;
	}
	if (!outside)
		return 0;
	rep->signal = true;
	rep->target = (int)target;
	rep->sig = sig;
	rep->access = "signal";
	rep->port = -1;
	rep->err = ESRCH;
	snprintf(rep->rule, sizeof rep->rule, "signal outside the run");
	return 1;
}

/* ---- sends: the peer of sendto, sendmsg and sendmmsg, decided as a connect to it ---------------- */

#define MAX_MMSG 1024 /* the kernel's UIO_MAXIOV: sendmmsg sends at most this many */

bool sbx_sn_is_send(const char *sys)
{
	return !strcmp(sys, "sendto") || !strcmp(sys, "sendmsg") || !strcmp(sys, "sendmmsg");
}

/* One message's peer (msg_name, msg_namelen of a native msghdr): 0 none or allowed, 1 refused. */
static int decide_msghdr(const struct sbx_sn_ctx *c, pid_t pid, const struct msghdr *m, struct sbx_sn_report *rep)
{
	if (!m->msg_name || !m->msg_namelen)
		return 0; /* a connected socket: its peer was decided at connect */
	return sbx_sn_decide_sockaddr(c, pid, false, (uint64_t)(uintptr_t)m->msg_name, m->msg_namelen, rep);
}

int sbx_sn_decide_send(const struct sbx_sn_ctx *c, pid_t pid, const char *sys, const uint64_t args[6],
		       struct sbx_sn_report *rep)
{
	if (!strcmp(sys, "sendto"))
		return args[4] ? sbx_sn_decide_sockaddr(c, pid, false, args[4], (uint32_t)args[5], rep) : 0;
	if (!strcmp(sys, "sendmsg")) {
		struct msghdr m;
		ssize_t n = read_mem(pid, args[1], &m, sizeof m);
		if (n != (ssize_t)sizeof m)
			return peer_unreadable(pid, n, false, rep);
		return decide_msghdr(c, pid, &m, rep);
	}
	/* sendmmsg: every message the kernel would send, read in chunks */
	uint64_t vlen = (uint32_t)args[2];
	if (vlen > MAX_MMSG)
		vlen = MAX_MMSG;
	struct mmsghdr v[32];
	for (uint64_t i = 0; i < vlen;) {
		size_t k = vlen - i < 32 ? (size_t)(vlen - i) : 32;
		ssize_t got = read_mem(pid, args[1] + i * sizeof v[0], v, k * sizeof v[0]);
		if (got < (ssize_t)sizeof v[0]) /* the kernel stops at the first unreadable message */
			return peer_unreadable(pid, got, false, rep);
		size_t have = (size_t)got / sizeof v[0];
		for (size_t j = 0; j < have; j++)
			if (decide_msghdr(c, pid, &v[j].msg_hdr, rep) == 1)
				return 1;
		if (have < k)
			return 0;
		i += have;
	}
	return 0;
}

int sbx_sn_decide(const struct sbx_sn_ctx *c, int listener, uint64_t id, pid_t pid, const char *sys,
		  const uint64_t args[6], struct sbx_sn_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->port = -1;
	int rc = 2;
	if (!strcmp(sys, "socket") || !strcmp(sys, "socketpair")) {
		rep->access = "socket";
		rc = pol_socket_ok((int)args[0], (int)args[1], (int)args[2],
				      c->pol ? pol_net_mode(c->pol) : POL_NET_NONE, &rep->err, rep->what,
				      sizeof rep->what) ? 0 : 1;
		return rc; /* registers only: nothing to re-check */
	}
	if (!strcmp(sys, "setrlimit"))
		rc = decide_rlimit(pid, (unsigned)args[0], args[1], rep);
	else if (!strcmp(sys, "prlimit64"))
		rc = args[2] ? decide_rlimit(pid, (unsigned)args[1], args[2], rep) : 0;
	else if (!strcmp(sys, "connect"))
		rc = sbx_sn_decide_sockaddr(c, pid, false, args[1], args[2], rep);
	else if (!strcmp(sys, "bind"))
		rc = sbx_sn_decide_sockaddr(c, pid, true, args[1], args[2], rep);
	else if (sbx_sn_is_send(sys))
		rc = sbx_sn_decide_send(c, pid, sys, args, rep);
	else if (!strcmp(sys, "open"))
		rc = decide_path(c, pid, AT_FDCWD, args[0], args[1], false, false, rep);
	else if (!strcmp(sys, "creat"))
		rc = decide_path(c, pid, AT_FDCWD, args[0], O_CREAT | O_WRONLY | O_TRUNC, false, false, rep);
	else if (!strcmp(sys, "openat"))
		rc = decide_path(c, pid, (int)args[0], args[1], args[2], false, false, rep);
	else if (!strcmp(sys, "openat2")) {
		uint64_t fl = 0;
		if (read_mem(pid, args[2], &fl, sizeof fl) != (ssize_t)sizeof fl)
			return 0;
		rc = decide_path(c, pid, (int)args[0], args[1], fl, false, true, rep);
	} else if (!strcmp(sys, "execve"))
		rc = decide_path(c, pid, AT_FDCWD, args[0], 0, true, false, rep);
	else if (!strcmp(sys, "execveat"))
		rc = decide_path(c, pid, (int)args[0], args[1], 0, true, false, rep);
	else if (sbx_sn_is_meta(sys)) {
		rc = decide_meta(c, pid, sys, args, rep);
		if (rc == 0 && !c->report_only && (rc = chown_unmapped(pid, sys, args, rep)) == 3 &&
		    seccomp_notify_id_valid(listener, id) != 0)
			rc = 0; /* the task left the call: what /proc said may be another's */
	}
	else if (c->report_only && (!strcmp(sys, "kill") || !strcmp(sys, "tkill") || !strcmp(sys, "rt_sigqueueinfo")))
		rc = decide_signal(pid, (long)(int32_t)args[0], (int)args[1], rep);
	else if (c->report_only && (!strcmp(sys, "tgkill") || !strcmp(sys, "rt_tgsigqueueinfo")))
		rc = decide_signal(pid, (long)(int32_t)args[0], (int)args[2], rep);
	else if (c->report_only && !strcmp(sys, "pidfd_open"))
		rc = decide_signal(pid, (long)(int32_t)args[0], -1, rep);
	else
		return 2;
	/* what we read from /proc is the notified task's only if it is still blocked in the call */
	if (rc == 1 && seccomp_notify_id_valid(listener, id) != 0)
		return 0;
	if (rc == 1)
		fill_proc(pid, rep);
	return rc;
}
