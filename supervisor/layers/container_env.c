/* container_env.c — see container_env.h. */
#include "container_env.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "smallfile.h"

/* The first line of `path` containing any of the words (NULL-terminated), copied to hit. */
static bool file_mentions(const char *path, const char *const *words, char *hit, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	while (!found && fgets(line, sizeof line, f))
		for (size_t i = 0; words[i]; i++)
			if (strstr(line, words[i])) {
				snprintf(hit, len, "%s", words[i]);
				found = true;
				break;
			}
	fclose(f);
	return found;
}

/* The root mount's filesystem type (mountinfo: mount point "/", after the " - " separator). */
static bool root_fstype(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		char mp[1024], fs[64];
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) != 1 || strcmp(mp, "/"))
			continue;
		char *sep = strstr(line, " - ");
		if (sep && sscanf(sep + 3, "%63s", fs) == 1) {
			snprintf(out, len, "%s", fs);
			found = true;
		}
	}
	fclose(f);
	return found;
}

bool container_detect(char *what, size_t len)
{
	static const char *const rt[] = {"docker", "kubepods", "libpod", "containerd", "crio", "lxc", NULL};
	char hit[64] = "", fs[64] = "";
	const char *env = getenv("container");
	if (access("/run/.containerenv", F_OK) == 0)
		snprintf(what, len, "podman: /run/.containerenv");
	else if (access("/.dockerenv", F_OK) == 0)
		snprintf(what, len, "docker: /.dockerenv");
	else if (file_mentions("/proc/1/cgroup", rt, hit, sizeof hit))
		snprintf(what, len, "%s in /proc/1/cgroup", hit);
	else if (env && *env)
		snprintf(what, len, "container=%s in the environment", env);
	else if (root_fstype(fs, sizeof fs) && !strcmp(fs, "overlay") && getpid() < 100)
		snprintf(what, len, "an overlay root filesystem");
	else
		return false;
	return true;
}

bool container_bwrap_blame(char *msg, char *what, size_t len)
{
	if (!container_detect(what, len))
		return false;
	char *likely = strstr(msg, ", likely because the kernel does not allow");
	if (likely)
		*likely = 0;
	return true;
}

/* Can this process make a user namespace (the unprivileged path bwrap and the fallback take)? */
static int try_userns(void)
{
	pid_t c = fork();
	if (c < 0)
		return -1;
	if (c == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f));
	int st;
	while (waitpid(c, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* /proc masked: a runtime's masked paths are mounts over /proc entries (e.g. /proc/kcore). */
static bool proc_masked(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	char line[4096], mp[1024];
	bool m = false;
	while (!m && fgets(line, sizeof line, f))
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) == 1 && !strncmp(mp, "/proc/", 6))
			m = true;
	fclose(f);
	return m;
}

int container_missing(void (*out)(const char *line, void *ctx), void *ctx)
{
	int n = 0;
	char l[512];
	int un = try_userns();
	if (un != 0) {
		snprintf(l, sizeof l, "user namespaces refused (%s): the seccomp profile or the runtime forbids "
			 "unshare/clone of namespaces — fix: --security-opt seccomp=deploy/seccomp-sbxsup.json "
			 "(Kubernetes: seccompProfile Localhost), see docs/deployment.md",
			 un > 0 ? strerror(un) : "cannot test");
		out(l, ctx), n++;
	}
	if (proc_masked()) {
		snprintf(l, sizeof l, "/proc is masked (paths mounted over): bwrap cannot mount the sandbox's "
			 "own /proc — fix: --security-opt unmask=/proc/* (docker: --security-opt "
			 "systempaths=unconfined; Kubernetes: procMount: Unmasked)");
		out(l, ctx), n++;
	}
	struct {
		int cap;
		const char *name, *why;
	} caps[] = {
		{CAP_SETUID, "CAP_SETUID", "the executor cannot be switched to an unprivileged uid without a user namespace"},
		{CAP_SETGID, "CAP_SETGID", "the executor cannot be switched to an unprivileged gid without a user namespace"},
		{CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "no mount/pid namespace as root without a user namespace; no idmapped workspace"},
		{CAP_BPF, "CAP_BPF", "netfilter and probes load BPF programs"},
		{CAP_PERFMON, "CAP_PERFMON", "probes attach to tracepoints"},
		{CAP_NET_ADMIN, "CAP_NET_ADMIN", "netfilter loads cgroup socket programs (CAP_SYS_ADMIN also allows it)"},
	};
	bool sys_admin = sbx_caps_effective(CAP_SYS_ADMIN);
	if (geteuid() == 0)
		for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
			if (!sbx_caps_effective(caps[i].cap) && !(caps[i].cap == CAP_NET_ADMIN && sys_admin)) {
				snprintf(l, sizeof l, "%s missing: %s — fix: --cap-add %s (Kubernetes: "
					 "securityContext.capabilities.add)", caps[i].name, caps[i].why, caps[i].name + 4);
				out(l, ctx), n++;
			}
	struct stat pst;
	if (stat("/proc/self/ns/pid", &pst) == 0 && pst.st_ino != 0xEFFFFFFCu) { /* PROC_PID_INIT_INO */
		snprintf(l, sizeof l, "a pid namespace of its own: the probes would not see the run's pids "
			 "— fix: --pid=host (Kubernetes: hostPID: true)");
		out(l, ctx), n++;
	}
	struct statvfs sv;
	if (statvfs("/sys/fs/cgroup", &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
		snprintf(l, sizeof l, "/sys/fs/cgroup is read-only: no per-run cgroup (limits by rlimits only, "
			 "netfilter cannot attach) — fix: a delegated cgroup v2 subtree holding the container's "
			 "cgroup (podman: --cgroupns=host --cgroup-parent=/P and the host's v2 directory of P "
			 "mounted writable at the v2 mount point), see docs/deployment.md");
		out(l, ctx), n++;
	}
	return n;
}
