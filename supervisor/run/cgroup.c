/* cgroup.c — see cgroup.h. */
#include "cgroup.h"
#include "smallfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const ctl_name[CG__N] = {"memory", "pids", "cpu"};

void cg_init(struct cg_run *c)
{
	memset(c, 0, sizeof *c);
	c->v2_fd = -1;
	for (int i = 0; i < 1 + CG__N; i++)
		c->procs_fd[i] = -1;
}

__attribute__((format(printf, 2, 3)))
static void why_add(struct cg_run *c, const char *fmt, ...)
{
	size_t l = strlen(c->why);
	if (l && l + 2 < sizeof c->why) {
		memcpy(c->why + l, "; ", 3);
		l += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why + l, sizeof c->why - l, fmt, ap);
	va_end(ap);
}

static bool has_word(const char *list, const char *w, const char *seps)
{
	size_t n = strlen(w);
	for (const char *p = list; (p = strstr(p, w)); p += n) {
		bool start = p == list || strchr(seps, p[-1]);
		bool end = p[n] == 0 || strchr(seps, p[n]);
		if (start && end)
			return true;
	}
	return false;
}

/* Mount point of the hierarchy (v2 when ctl is NULL) and its root, from mountinfo. */
static int find_mount(const char *ctl, char *mnt, size_t mntlen, char *root, size_t rootlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	char line[4096];
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		char r[PATH_MAX], m[PATH_MAX];
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2)
			continue;
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		char fstype[64], src[256], opts[1024];
		if (sscanf(sep + 3, "%63s %255s %1023s", fstype, src, opts) != 3)
			continue;
		bool ok = ctl ? (!strcmp(fstype, "cgroup") && has_word(opts, ctl, ","))
			      : !strcmp(fstype, "cgroup2");
		if (ok) {
			snprintf(mnt, mntlen, "%s", m);
			snprintf(root, rootlen, "%s", r);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* Our own cgroup path in the hierarchy (v2 when ctl is NULL), from /proc/self/cgroup. */
static int own_path(const char *ctl, char *out, size_t outlen)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	char line[4096];
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *a = strchr(line, ':');
		char *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*a = 0;
		*b = 0;
		bool ok = ctl ? has_word(a + 1, ctl, ",") : (!strcmp(line, "0") && a[1] == 0);
		if (ok) {
			snprintf(out, outlen, "%s", b + 1);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* Directory of our own cgroup in a hierarchy. */
static int own_dir(const char *ctl, char *dir, size_t dirlen)
{
	char mnt[PATH_MAX], root[PATH_MAX], path[PATH_MAX];
	if (find_mount(ctl, mnt, sizeof mnt, root, sizeof root) < 0 || own_path(ctl, path, sizeof path) < 0)
		return -1;
	const char *rel = path;
	size_t rl = strlen(root);
	if (strcmp(root, "/")) {
		if (strncmp(path, root, rl) || (path[rl] && path[rl] != '/'))
			return -1; /* our cgroup is outside what this mount shows */
		rel = path + rl;
	}
	if (!strcmp(rel, "/"))
		rel = "";
	int n = snprintf(dir, dirlen, "%s%s", mnt, rel);
	return n > 0 && (size_t)n < dirlen ? 0 : -1;
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	return sbx_write_small(p, val);
}

static int read_file(const char *dir, const char *file, char *buf, size_t len)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	return sbx_read_small(p, buf, len) < 0 ? -1 : 0;
}

static int open_procs(const char *dir)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	return open(p, O_WRONLY | O_CLOEXEC);
}

static uint64_t cgroup_id(const char *dir)
{
	struct {
		struct file_handle fh;
		unsigned char buf[64];
	} h;
	int mount_id;
	h.fh.handle_bytes = sizeof h.buf;
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mount_id, 0) == 0 && h.fh.handle_bytes >= 8) {
		uint64_t id;
		memcpy(&id, h.fh.f_handle, sizeof id);
		return id;
	}
	struct stat st;
	return stat(dir, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static int set_limit(const char *dir, enum cg_ctl k, bool v2, const struct cg_limits *lim)
{
	char v[64];
	switch (k) {
	case CG_MEMORY:
		snprintf(v, sizeof v, "%ld", lim->memory_mb * 1024 * 1024);
		if (v2) {
			if (write_file(dir, "memory.max", v) < 0)
				return -1;
			(void)write_file(dir, "memory.swap.max", "0"); /* optional: swap accounting */
			return 0;
		}
		if (write_file(dir, "memory.limit_in_bytes", v) < 0)
			return -1;
		(void)write_file(dir, "memory.memsw.limit_in_bytes", v); /* optional: swap accounting */
		return 0;
	case CG_PIDS:
		snprintf(v, sizeof v, "%ld", lim->pids);
		return write_file(dir, "pids.max", v);
	case CG_CPU:
		if (v2) {
			snprintf(v, sizeof v, "%ld 100000", lim->cpu_pct * 1000);
			return write_file(dir, "cpu.max", v);
		}
		snprintf(v, sizeof v, "%ld", lim->cpu_pct * 1000);
		if (write_file(dir, "cpu.cfs_period_us", "100000") < 0)
			return -1;
		return write_file(dir, "cpu.cfs_quota_us", v);
	default:
		return -1;
	}
}

static long wanted(const struct cg_limits *lim, enum cg_ctl k)
{
	return k == CG_MEMORY ? lim->memory_mb : k == CG_PIDS ? lim->pids : lim->cpu_pct;
}

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* clone3(flags | CLONE_INTO_CGROUP) into `cgfd`: returns like fork(), -1 when refused: ENOSYS
 * (< 5.3, or a container's seccomp filter), E2BIG/EINVAL (< 5.7), EPERM, or the cgroup refused. */
static long clone_into(int cgfd, unsigned long flags)
{
#ifdef SYS_clone3
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = (uint64_t)flags | CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)cgfd;
	return syscall(SYS_clone3, &ca, sizeof ca);
#else
	(void)cgfd;
	(void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* Does a child born in the cgroup live? (Some kernels SIGKILL it: see cgroup.h.) */
static bool clone_into_works(int cgfd)
{
	long pid = clone_into(cgfd, 0);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return false;
	int st;
	while (waitpid((pid_t)pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int cg_setup(struct cg_run *c, const char *run_id, const struct cg_limits *lim, struct janitor *j)
{
	char own[PATH_MAX], name[64];
	snprintf(name, sizeof name, CG_RUN_PREFIX "%s", run_id);

	/* v2: the run cgroup, always (scope for netfilter/probes, cgroup.kill). */
	if (own_dir(NULL, own, sizeof own) < 0) {
		why_add(c, "no cgroup v2 hierarchy");
	} else if (snprintf(c->v2, sizeof c->v2, "%s/%s", own, name) >= (int)sizeof c->v2 ||
		   (j && janitor_add(j, 'c', c->v2) < 0) || mkdir(c->v2, 0700) < 0) {
		why_add(c, "cgroup v2 %s not writable: %s", own, strerror(errno));
		c->v2[0] = 0;
	} else {
		c->v2_fd = open(c->v2, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		c->v2_id = cgroup_id(c->v2);
		c->procs_fd[0] = open_procs(c->v2);
		char p[PATH_MAX + 16];
		snprintf(p, sizeof p, "%s/cgroup.kill", c->v2);
		c->v2_kill = access(p, W_OK) == 0;
		char sub[256] = "";
		(void)read_file(own, "cgroup.subtree_control", sub, sizeof sub);
		for (int k = 0; k < CG__N; k++) {
			if (wanted(lim, k) <= 0 || !has_word(sub, ctl_name[k], " \n"))
				continue;
			if (set_limit(c->v2, k, true, lim) == 0)
				c->ctl_v2[k] = c->ctl_on[k] = true;
		}
		if (c->procs_fd[0] < 0) {
			why_add(c, "cgroup v2 %s: cannot open cgroup.procs: %s", c->v2, strerror(errno));
			rmdir(c->v2);
			c->v2[0] = 0;
		} else if (c->v2_fd >= 0) {
			c->v2_clone3 = clone_into_works(c->v2_fd);
		}
	}
	/* v1 for every wanted controller v2 does not give us. */
	for (int k = 0; k < CG__N; k++) {
		if (wanted(lim, k) <= 0 || c->ctl_on[k])
			continue;
		if (own_dir(ctl_name[k], own, sizeof own) < 0) {
			why_add(c, "%s: no cgroup v2 controller and no v1 hierarchy", ctl_name[k]);
			continue;
		}
		char *d = c->v1[k];
		if (snprintf(d, PATH_MAX, "%s/%s", own, name) >= PATH_MAX || (j && janitor_add(j, 'c', d) < 0) ||
		    mkdir(d, 0700) < 0) {
			why_add(c, "%s: cgroup v1 not writable: %s", ctl_name[k], strerror(errno));
			d[0] = 0;
			continue;
		}
		if (set_limit(d, k, false, lim) < 0 || (c->procs_fd[1 + k] = open_procs(d)) < 0) {
			why_add(c, "%s: cgroup v1 limit not settable: %s", ctl_name[k], strerror(errno));
			rmdir(d);
			d[0] = 0;
			continue;
		}
		c->ctl_on[k] = true;
	}
	return 0;
}

pid_t cg_spawn(struct cg_run *c, unsigned long flags)
{
	c->v2_born_in = false;
	if (c->v2_clone3 && c->v2_fd >= 0 && c->procs_fd[0] >= 0) {
		long pid = clone_into(c->v2_fd, flags);
		if (pid == 0) {
			c->v2_born_in = true;
			return 0;
		}
		if (pid > 0) {
			c->v2_clone3 = false; /* once: a retry follows a cgroup.kill (see cgroup.h) */
			return (pid_t)pid;
		}
		/* refused: start the child as before, its cg_join() writes cgroup.procs */
	}
	if (!flags)
		return fork();
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

int cg_join(const struct cg_run *c)
{
	for (int i = c->v2_born_in ? 1 : 0; i < 1 + CG__N; i++)
		if (c->procs_fd[i] >= 0 && write(c->procs_fd[i], "0", 1) != 1)
			return -1;
	return 0;
}

static int kill_listed(const char *dir)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	FILE *f = fopen(p, "re");
	if (!f)
		return 0;
	int n = 0;
	long pid;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (pid > 0 && pid != getpid()) {
			kill((pid_t)pid, SIGKILL);
			n++;
		}
	}
	fclose(f);
	return n;
}

int cg_kill_all(const struct cg_run *c)
{
	int n = 0;
	if (c->v2[0]) {
		if (c->v2_kill)
			(void)write_file(c->v2, "cgroup.kill", "1");
		n += kill_listed(c->v2);
	}
	for (int k = 0; k < CG__N; k++)
		if (c->v1[k][0])
			n += kill_listed(c->v1[k]);
	return n;
}

bool cg_populated(const struct cg_run *c)
{
	char buf[512];
	if (c->v2[0] && read_file(c->v2, "cgroup.events", buf, sizeof buf) == 0 &&
	    strstr(buf, "populated 1"))
		return true;
	for (int k = 0; k < CG__N; k++)
		if (c->v1[k][0] && read_file(c->v1[k], "cgroup.procs", buf, sizeof buf) == 0 && buf[0])
			return true;
	return false;
}

void cg_wait_empty(const struct cg_run *c, int timeout_ms)
{
	char p[PATH_MAX + 32], buf[512];
	int fd = -1;
	if (c->v2[0] && snprintf(p, sizeof p, "%s/cgroup.events", c->v2) < (int)sizeof p)
		fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) { /* no v2 cgroup: nothing to wait on but the clock */
		usleep(1000);
		return;
	}
	/* kernfs: a read records the file's event count; poll() then wakes (POLLPRI) at the next
	 * change (the cgroup's "populated" flipping), so a change after the read is never missed */
	ssize_t n = read(fd, buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		if (strstr(buf, "populated 1")) {
			struct pollfd pf = {.fd = fd, .events = POLLPRI};
			(void)poll(&pf, 1, timeout_ms);
		}
	}
	close(fd);
}

static uint64_t field(const char *buf, const char *key)
{
	const char *p = buf;
	size_t n = strlen(key);
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

void cg_events(const struct cg_run *c, struct cg_events *ev)
{
	char buf[2048];
	memset(ev, 0, sizeof *ev);
	const char *mem = c->ctl_v2[CG_MEMORY] ? c->v2 : c->v1[CG_MEMORY];
	if (mem[0]) {
		if (c->ctl_v2[CG_MEMORY]) {
			if (read_file(mem, "memory.events", buf, sizeof buf) == 0)
				ev->oom_kill = field(buf, "oom_kill");
		} else if (read_file(mem, "memory.oom_control", buf, sizeof buf) == 0) {
			ev->oom_kill = field(buf, "oom_kill");
		}
	}
	const char *pids = c->ctl_v2[CG_PIDS] ? c->v2 : c->v1[CG_PIDS];
	if (pids[0] && read_file(pids, "pids.events", buf, sizeof buf) == 0)
		ev->pids_max = field(buf, "max");
}

void cg_cleanup(struct cg_run *c)
{
	for (int i = 0; i < 1 + CG__N; i++)
		if (c->procs_fd[i] >= 0) {
			close(c->procs_fd[i]);
			c->procs_fd[i] = -1;
		}
	if (c->v2_fd >= 0) {
		close(c->v2_fd);
		c->v2_fd = -1;
	}
	for (int k = 0; k < CG__N; k++)
		if (c->v1[k][0] && rmdir(c->v1[k]) == 0)
			c->v1[k][0] = 0;
	if (c->v2[0] && rmdir(c->v2) == 0)
		c->v2[0] = 0;
}

void cg_describe(char *out, size_t outlen)
{
	char own[PATH_MAX], sub[256] = "";
	size_t l = 0;
	out[0] = 0;
	if (own_dir(NULL, own, sizeof own) == 0) {
		(void)read_file(own, "cgroup.subtree_control", sub, sizeof sub);
		sub[strcspn(sub, "\n")] = 0;
		l += (size_t)snprintf(out + l, outlen - l, "v2 %s (%s%s)", own,
				      access(own, W_OK) == 0 ? "writable" : "not writable",
				      sub[0] ? "" : ", no controllers delegated");
	} else {
		l += (size_t)snprintf(out + l, outlen - l, "no cgroup v2");
	}
	for (int k = 0; k < CG__N && l < outlen; k++)
		if (!has_word(sub, ctl_name[k], " ") && own_dir(ctl_name[k], own, sizeof own) == 0)
			l += (size_t)snprintf(out + l, outlen - l, "; v1 %s %s", ctl_name[k],
					      access(own, W_OK) == 0 ? "writable" : "not writable");
}

/* The whole cgroup file of a /proc/PID directory (AT_FDCWD + "/proc/self" for ours). */
static int read_cgroups(int dirfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	ssize_t k;
	while (n + 1 < len && (k = read(fd, buf + n, len - 1 - n)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			close(fd);
			return -1;
		}
		n += (size_t)k;
	}
	close(fd);
	buf[n] = 0;
	return n + 1 < len ? 0 : -1; /* (a file this long is not one we can judge) */
}

/* The path our own process has in the hierarchy whose line starts with "ID:CTL:" (NULL: none). */
static const char *own_in(const char *own, const char *head, size_t hl)
{
	for (const char *l = own; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (!strncmp(l, head, hl))
			return l + hl;
	return NULL;
}

int cg_proc_in_run(int procdir, char *which, size_t wlen)
{
	char peer[8192], own[8192];
	if (read_cgroups(procdir, "cgroup", peer, sizeof peer) < 0 ||
	    read_cgroups(AT_FDCWD, "/proc/self/cgroup", own, sizeof own) < 0)
		return -1;
	for (char *l = peer, *next; *l; l = next) {
		char *nl = strchr(l, '\n');
		next = nl ? nl + 1 : l + strlen(l);
		if (nl)
			*nl = 0;
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		const char *path = c2 + 1, *rel = path;
		/* below our own cgroup in that hierarchy: only what lies below it counts (a server that is
		 * itself in a run's cgroup is not every caller's run) */
		const char *mine = own_in(own, l, (size_t)(path - l));
		size_t ml = mine ? strcspn(mine, "\n") : 0;
		if (mine && ml == 1 && mine[0] == '/')
			ml = 0;
		if (mine && !strncmp(path, mine, ml) && (path[ml] == '/' || path[ml] == 0))
			rel = path + ml;
		for (const char *p = rel; (p = strchr(p, '/')); p++)
			if (!strncmp(p + 1, CG_RUN_PREFIX, strlen(CG_RUN_PREFIX))) {
				snprintf(which, wlen, "%s", path);
				return 1;
			}
	}
	return 0;
}
