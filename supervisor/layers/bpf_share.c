/* bpf_share.c — see bpf_share.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "bpf_share.h"

#define BS_BPFFS "/sys/fs/bpf"
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

int bs_ensure_fs(char *why, size_t whylen)
{
	struct statfs sf;
	if (statfs(BS_BPFFS, &sf) == 0 && (unsigned long)sf.f_type == BPF_FS_MAGIC)
		return 0;
	if (mkdir(BS_BPFFS, 0700) != 0 && errno != EEXIST) {
		snprintf(why, whylen, "mkdir /sys/fs/bpf: %s", strerror(errno));
		return -1;
	}
	if (mount("bpf", BS_BPFFS, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") != 0) {
		snprintf(why, whylen, "mount bpffs on /sys/fs/bpf: %s", strerror(errno));
		return -1;
	}
	return 0;
}


/* The gate: an exclusive flock on the bpffs root, held for each transition. -1 on error (why). */
static int gate_lock_how(int how, char *why, size_t whylen)
{
	if (bs_ensure_fs(why, whylen) != 0)
		return -1;
	int g = open(BS_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g < 0) {
		snprintf(why, whylen, "open %s: %s", BS_BPFFS, strerror(errno));
		return -1;
	}
	while (flock(g, how) != 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "lock %s: %s", BS_BPFFS, strerror(errno));
			close(g);
			return -1;
		}
	}
	return g;
}

static int gate_lock(char *why, size_t whylen)
{
	return gate_lock_how(LOCK_EX, why, whylen);
}

int bs_locked(void (*fn)(void *), void *arg)
{
	char w[256];
	int g = gate_lock(w, sizeof w);
	if (g < 0)
		return -1;
	fn(arg);
	close(g);
	return 0;
}

/* Does any run hold the set? (called under the gate, before or after our own reference) */
static bool held_by_others(const struct bs_ops *o)
{
	int d = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return false;
	bool held = flock(d, LOCK_EX | LOCK_NB) != 0;
	close(d);                          /* drops the probe lock */
	return held;
}

/* Load and pin in a child: the verifier's work and libbpf's buffers stay out of the supervisor. */
static int load_and_pin(const struct bs_ops *o, char *why, size_t whylen)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		char w[256] = "";
		int rc = o->load_pin(o->dir, w, sizeof w);
		if (rc != 0)
			(void)!write(p[1], w, strlen(w));
		_exit(rc == 0 ? 0 : 1);
	}
	close(p[1]);
	char w[256];
	ssize_t n = read(p[0], w, sizeof w - 1);
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	w[n > 0 ? n : 0] = 0;
	snprintf(why, whylen, "%s", n > 0 ? w : "the loader process failed");
	return -1;
}

static void unpin_all(const struct bs_ops *o)
{
	o->unpin(o->dir);
	rmdir("/sys/fs/bpf/sbxsup");       /* only when empty (no other set) */
}

long bs_idle_secs(const struct bs_ops *o)
{
	const char *e = getenv(o->idle_env);
	if (!e || !*e)
		return BS_IDLE_DEFAULT;
	char *end;
	errno = 0;
	long v = strtol(e, &end, 10);
	if (errno || *end || v < 0)
		return BS_IDLE_DEFAULT;
	return v > BS_IDLE_MAX ? BS_IDLE_MAX : v;
}

/* The last holder is gone (called under the gate, the holders' fds closed): keep the set loaded
 * until now + the idle period, detached, the deadline stamped as the pin directory's mtime (after
 * the detach, whose unlinks move it), or unpin at once (idle 0, a failed detach or stamp). */
static void keep_or_unpin(const struct bs_ops *o)
{
	long idle = bs_idle_secs(o);
	if (idle > 0 && (!o->detach || o->detach(o->dir) == 0)) {
		struct timespec ts[2];
		clock_gettime(CLOCK_REALTIME, &ts[0]);
		ts[0].tv_sec += idle;
		ts[0].tv_nsec = 0;
		ts[1] = ts[0];
		if (utimensat(AT_FDCWD, o->dir, ts, 0) == 0)
			return;
	}
	unpin_all(o);
}

int bs_acquire(const struct bs_ops *o, struct bs_ref *s, void *arg, char *why, size_t whylen)
{
	s->dirfd = -1;
	s->loaded_here = false;
	int g = gate_lock(why, whylen);
	if (g < 0)
		return -1;
	int rc = -1;
	char w[256] = "";
	int op = o->open(o->dir, arg, false, w, sizeof w);
	if (op < 0 && !held_by_others(o)) {
		unpin_all(o);                  /* stale: another layout, or half pinned by a killed loader */
		op = 1;
	}
	if (op < 0) {
		snprintf(why, whylen, "shared set unusable and in use: %s", w);
		goto out;
	}
	if (op == 1) {
		if (access(o->dir, F_OK) == 0 && !held_by_others(o))
			unpin_all(o);          /* partial pins: a loader killed while pinning */
		if (load_and_pin(o, why, whylen) != 0) {
			unpin_all(o);
			goto out;
		}
		s->loaded_here = true;
		if (o->open(o->dir, arg, true, why, whylen) != 0)
			goto out;
	}
	s->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* blocking: a probe of "held?" outside the gate (status, --dry-run) holds LOCK_EX for an instant */
	int fl = -1;
	while (s->dirfd >= 0 && (fl = flock(s->dirfd, LOCK_SH)) != 0 && errno == EINTR)
		;
	if (s->dirfd < 0 || fl != 0) {
		snprintf(why, whylen, "hold %s: %s", o->dir, strerror(errno));
		if (s->dirfd >= 0)
			close(s->dirfd);
		s->dirfd = -1;
		o->drop(arg);
		goto out;
	}
	rc = 0;
out:
	if (rc != 0 && s->loaded_here && !held_by_others(o))
		unpin_all(o);
	close(g);                          /* releases the gate */
	return rc;
}

void bs_release(const struct bs_ops *o, struct bs_ref *s, void *arg)
{
	if (s->dirfd < 0)
		return;
	char w[256];
	int g = gate_lock(w, sizeof w);
	o->drop(arg);                      /* so that detaching an idle set takes effect now */
	close(s->dirfd);                   /* our reference */
	s->dirfd = -1;
	if (g < 0)
		return;                    /* cannot lock: the next run or the janitor reclaims */
	if (!held_by_others(o))
		keep_or_unpin(o);
	close(g);
}

int bs_reclaim(const struct bs_ops *o)
{
	if (access(o->dir, F_OK) != 0)
		return 0;
	char w[256];
	int g = gate_lock(w, sizeof w);
	if (g < 0)
		return 0;
	int done = 0;
	if (access(o->dir, F_OK) == 0 && !held_by_others(o)) {
		keep_or_unpin(o);
		done = access(o->dir, F_OK) != 0;
	}
	close(g);
	return done;
}

time_t bs_idle_until(const struct bs_ops *o)
{
	struct stat st;
	if (stat(o->dir, &st) != 0 || held_by_others(o))
		return -1;
	return st.st_mtime;
}

int bs_expire(const struct bs_ops *o, bool force)
{
	struct stat st;
	if (stat(o->dir, &st) != 0)
		return 0;
	if (!force && st.st_mtime > time(NULL))
		return 0;                  /* still within its idle period (or in use: checked below) */
	char w[256];
	int g = gate_lock_how(force ? LOCK_EX : LOCK_EX | LOCK_NB, w, sizeof w);
	if (g < 0)
		return 0;                  /* busy: a run is loading or leaving; the next check decides */
	int done = 0;
	if (stat(o->dir, &st) == 0 && (force || st.st_mtime <= time(NULL)) && !held_by_others(o)) {
		unpin_all(o);
		done = 1;
	}
	close(g);
	return done;
}

int bs_holders(const struct bs_ops *o)
{
	if (access(o->dir, F_OK) != 0)
		return -1;
	/* /proc/locks would count them; "held or not" is what the callers need */
	return held_by_others(o) ? 1 : 0;
}
