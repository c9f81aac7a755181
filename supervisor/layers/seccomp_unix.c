/* seccomp_unix.c — sends and abstract unix names (see seccomp_unix.h for the promise). */
#include "seccomp_unix.h"
#include "seccomp_notify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

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
		if (sbx_sn_read_mem(pid, args[1], &m, sizeof m) != (ssize_t)sizeof m)
			return 0; /* unreadable: EFAULT from the kernel */
		return decide_msghdr(c, pid, &m, rep);
	}
	/* sendmmsg: every message the kernel would send, read in chunks */
	uint64_t vlen = (uint32_t)args[2];
	if (vlen > MAX_MMSG)
		vlen = MAX_MMSG;
	struct mmsghdr v[32];
	for (uint64_t i = 0; i < vlen;) {
		size_t k = vlen - i < 32 ? (size_t)(vlen - i) : 32;
		ssize_t got = sbx_sn_read_mem(pid, args[1] + i * sizeof v[0], v, k * sizeof v[0]);
		if (got < (ssize_t)sizeof v[0])
			return 0; /* the kernel stops at the first unreadable message (EFAULT) */
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

/* Is the abstract name (`name`, `n` bytes after the leading NUL) bound in the network namespace of
 * task `pid`? /proc/<pid>/net/unix lists that namespace's sockets, an abstract one as "@" and its
 * name with each NUL shown as "@". Unreadable: false (the caller reports). */
static bool abstract_bound_in(pid_t pid, const char *name, size_t n)
{
	char p[64], want[110];
	if (n + 2 > sizeof want)
		return false;
	want[0] = '@';
	for (size_t i = 0; i < n; i++)
		want[i + 1] = name[i] ? name[i] : '@';
	want[n + 1] = 0;
	snprintf(p, sizeof p, "/proc/%d/net/unix", (int)pid);
	FILE *f = fopen(p, "re");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (!found && getline(&line, &cap, f) > 0) {
		int at = -1;
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %n", &at) < 0 || at <= 0)
			continue;
		char *path = line + at;
		path[strcspn(path, "\n")] = 0;
		found = strcmp(path, want) == 0;
	}
	free(line);
	fclose(f);
	return found;
}

int sbx_sn_decide_abstract(const struct sbx_sn_ctx *c, pid_t pid, bool bind, const struct sockaddr_un *sun,
			   size_t len, struct sbx_sn_report *rep)
{
	size_t off = offsetof(struct sockaddr_un, sun_path);
	bool autobind = len == off;
	if (len < off || (!autobind && sun->sun_path[0] != 0))
		return -1; /* a path (or too short for a family: the kernel's EINVAL) */
	if (autobind && !bind)
		return 0; /* no name: EINVAL from the kernel */
	size_t n = autobind ? 0 : len - off - 1;
	if (n > sizeof sun->sun_path - 1)
		n = sizeof sun->sun_path - 1;
	const char *name = sun->sun_path + 1;
	bool inside = pol_abstract_inside(c->pol);
	if (inside) {
		/* the run's own network namespace: the name is the run's. For the sensor, a connect to
		 * a name nobody in the run holds is an attempt to reach outside (the kernel refuses it
		 * there: the host's names do not exist) */
		if (bind || !c->report_only || abstract_bound_in(pid, name, n))
			return 0;
	}
	if (autobind) {
		snprintf(rep->path, sizeof rep->path, "@ (autobind)");
	} else {
		rep->path[0] = '@';
		for (size_t i = 0; i < n; i++)
			rep->path[i + 1] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
		rep->path[n + 1] = 0;
	}
	snprintf(rep->requested, sizeof rep->requested, "%s", rep->path);
	rep->access = bind ? "bind" : "connect";
	rep->port = -1;
	rep->err = EPERM;
	rep->hard = bind; /* a name bound in the host's namespace: refused even by the sensor */
	snprintf(rep->rule, sizeof rep->rule, "abstract unix socket"); /* as the probes say it */
	return 1;
}
