/* serve_peer.c — see serve_peer.h. */
#include "serve_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* The peer's pidfd: the kernel's (the process that connected), else one opened now for its pid. */
static int peer_pidfd(int conn, pid_t pid)
{
	int fd = -1;
	socklen_t len = sizeof fd;
	if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0 && len == sizeof fd && fd >= 0) {
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		return fd;
	}
	return pidfd_open(pid, 0);
}

static bool same_ns(int procdir, const char *ns)
{
	char self[32];
	struct stat a, b;
	snprintf(self, sizeof self, "/proc/self/%s", ns);
	return fstatat(procdir, ns, &a, 0) == 0 && stat(self, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int serve_peer_check(int conn, char *why, size_t whylen)
{
	struct ucred cr;
	socklen_t len = sizeof cr;
	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || len != sizeof cr) {
		snprintf(why, whylen, "no peer credentials");
		return 0;
	}
	if (cr.uid != geteuid()) {
		snprintf(why, whylen, "peer uid %u is not the server's uid %u", (unsigned)cr.uid, (unsigned)geteuid());
		return 0;
	}
	if (cr.pid <= 0) {
		snprintf(why, whylen, "the peer's pid is not visible here (another pid namespace): it cannot be "
			 "checked");
		return 0;
	}
	int pidfd = peer_pidfd(conn, cr.pid);
	char dir[32];
	snprintf(dir, sizeof dir, "/proc/%d", (int)cr.pid);
	int procdir = pidfd >= 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	/* alive after the open: the directory is the peer's, not a later process's with its pid */
	bool pinned = procdir >= 0 && pidfd_send_signal(pidfd, 0, NULL, 0) == 0;
	int rc = 0;
	char cg[512] = "";
	int in_run = pinned ? cg_proc_in_run(procdir, cg, sizeof cg) : -1;
	if (in_run < 0)
		snprintf(why, whylen, "pid %d cannot be checked (%s): refused", (int)cr.pid,
			 pidfd < 0 ? "no pidfd" : !pinned ? "gone, or its /proc entry is not readable"
							 : "its cgroups are not readable");
	else if (in_run)
		snprintf(why, whylen, "pid %d is a process of a run (cgroup %s): a sandboxed process never "
			 "calls the server", (int)cr.pid, cg);
	else if (!same_ns(procdir, "ns/user"))
		snprintf(why, whylen, "pid %d is in another user namespace than the server (a sandbox): "
			 "refused", (int)cr.pid);
	else
		rc = 1;
	if (procdir >= 0)
		close(procdir);
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}
