/* janitor.c — see janitor.h. */
#include "janitor.h"
#include "layer.h"
#include "smallfile.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define JAN_MAX 16

void janitor_init(struct janitor *j)
{
	j->fd = -1;
	j->pid = -1;
	j->layers = 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	(void)(flag == FTW_DP ? rmdir(path) : unlink(path));
	return 0;
}

/* Kill what is left in a cgroup and remove it; bounded (the processes need a moment to exit). */
static void clean_cgroup(const char *dir)
{
	char p[PATH_MAX + 32];
	for (int round = 0; round < 1000; round++) {
		snprintf(p, sizeof p, "%s/cgroup.kill", dir);
		(void)sbx_write_small(p, "1"); /* absent on kernels without cgroup.kill: the loop below */
		snprintf(p, sizeof p, "%s/cgroup.procs", dir);
		FILE *f = fopen(p, "re");
		if (!f)
			return; /* gone already */
		long pid;
		while (fscanf(f, "%ld", &pid) == 1)
			if (pid > 0)
				kill((pid_t)pid, SIGKILL);
		fclose(f);
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		usleep(10000);
	}
}

static __attribute__((noreturn)) void janitor_main(int rfd)
{
	char *path[JAN_MAX];
	char kind[JAN_MAX];
	int n = 0;
	char buf[8192];
	size_t len = 0;
	bool done = false;
	for (;;) {
		ssize_t k = read(rfd, buf + len, sizeof buf - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
		buf[len] = 0;
		char *nl;
		while ((nl = memchr(buf, '\n', len))) {
			*nl = 0;
			if (!strcmp(buf, "done"))
				done = true;
			else if ((buf[0] == 'c' || buf[0] == 't') && buf[1] == ' ' && buf[2] == '/' && n < JAN_MAX) {
				kind[n] = buf[0];
				path[n] = strdup(buf + 2);
				if (path[n])
					n++;
			}
			size_t used = (size_t)(nl - buf) + 1;
			memmove(buf, nl + 1, len - used);
			len -= used;
		}
		if (len == sizeof buf - 1)
			len = 0; /* an absurd line: drop it */
	}
	if (!done) {
		for (int i = n - 1; i >= 0; i--) /* deepest (latest announced) first */
			if (kind[i] == 'c')
				clean_cgroup(path[i]);
		for (int i = 0; i < n; i++)
			if (kind[i] == 't')
				(void)nftw(path[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
		/* the supervisor's hold on the layers' shared sets died with it (layer.h reclaim) */
		layers_reclaim();
	}
	_exit(0);
}

int janitor_start(struct janitor *j)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		close(p[1]);
		if (dup2(p[0], 3) < 0)
			_exit(1);
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		/* hold nothing of the supervisor's: not the audit fd, not the run's sockets */
		syscall(SYS_close_range, 4u, ~0u, 0u);
		/* off the run's path: idle shared sets past their deadline are unloaded here
		 * (never waits for the gate, so janitor_done is not held up) */
		layers_expire_idle(j->layers);
		janitor_main(3);
	}
	close(p[0]);
	j->fd = p[1];
	j->pid = pid;
	return 0;
}

int janitor_add(struct janitor *j, char kind, const char *path)
{
	if (j->fd < 0)
		return -1;
	char line[PATH_MAX + 8];
	int n = snprintf(line, sizeof line, "%c %s\n", kind, path);
	if (n < 0 || (size_t)n >= sizeof line || strchr(path, '\n'))
		return -1;
	return write(j->fd, line, (size_t)n) == n ? 0 : -1;
}

void janitor_done(struct janitor *j)
{
	if (j->fd < 0)
		return;
	(void)!write(j->fd, "done\n", 5);
	close(j->fd);
	j->fd = -1;
	int st;
	while (j->pid > 0 && waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	j->pid = -1;
}
