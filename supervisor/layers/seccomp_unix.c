/* seccomp_unix.c — abstract unix names (see seccomp_unix.h for the promise). */
#include "seccomp_unix.h"
#include "policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

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

int sbx_sn_abstract(const struct policy *pol, bool report_only, pid_t pid, bool bind, const struct sockaddr_un *sun,
		    size_t len, char *path, size_t pathlen)
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
	bool inside = pol_abstract_inside(pol);
	if (inside) {
		/* the run's own network namespace: the name is the run's. For the sensor, a connect to
		 * a name nobody in the run holds is an attempt to reach outside (the kernel refuses it
		 * there: the host's names do not exist) */
		if (bind || !report_only || abstract_bound_in(pid, name, n))
			return 0;
	}
	if (autobind || pathlen < n + 2) {
		snprintf(path, pathlen, "@ (autobind)");
	} else {
		path[0] = '@';
		for (size_t i = 0; i < n; i++)
			path[i + 1] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
		path[n + 1] = 0;
	}
	return 1;
}
