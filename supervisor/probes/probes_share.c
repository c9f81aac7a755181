/* probes_share.c — see probes_share.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "probes_share.h"

#define PR_BPFFS "/sys/fs/bpf"

/* The gate: an exclusive flock on the bpffs root, held for each transition. -1 on error (why). */
static int gate_lock_how(int how, char *why, size_t whylen)
{
	if (pr_bpf_ensure_fs(why, whylen) != 0)
		return -1;
	int g = open(PR_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g < 0) {
		snprintf(why, whylen, "open %s: %s", PR_BPFFS, strerror(errno));
		return -1;
	}
	while (flock(g, how) != 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "lock %s: %s", PR_BPFFS, strerror(errno));
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

/* Does any run hold the set? (called under the gate, before or after our own reference) */
static bool held_by_others(void)
{
	int d = open(PR_AUTO_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return false;
	bool held = flock(d, LOCK_EX | LOCK_NB) != 0;
	close(d);                          /* drops the probe lock */
	return held;
}

/* Load and pin in a child: the BTF parse and libbpf's buffers stay out of the supervisor. */
static int load_and_pin(char *why, size_t whylen)
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
		struct pr_loaded L;
		char w[256] = "";
		int rc = pr_bpf_load(&L, w, sizeof w);
		if (rc == 0) {
			rc = pr_bpf_pin(&L, PR_AUTO_DIR, w, sizeof w);
			if (rc == 0)            /* kept while the set is idle, detached */
				rc = pr_bpf_pin_progs(&L, PR_AUTO_DIR, w, sizeof w);
			pr_bpf_close(&L);       /* the pins hold it now */
		}
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

static void unpin_all(void)
{
	char w[256];
	pr_bpf_unpin(PR_AUTO_DIR, w, sizeof w);
	rmdir("/sys/fs/bpf/sbxsup");       /* only when empty (no operator set) */
}

long pr_share_idle_secs(void)
{
	const char *e = getenv("SBXSUP_PROBES_IDLE");
	if (!e || !*e)
		return PR_IDLE_DEFAULT;
	char *end;
	errno = 0;
	long v = strtol(e, &end, 10);
	if (errno || *end || v < 0)
		return PR_IDLE_DEFAULT;
	return v > PR_IDLE_MAX ? PR_IDLE_MAX : v;
}

/* The last holder is gone (called under the gate, the holders' link fds closed): keep the set
 * loaded until now + the idle period with its programs detached (link pins removed, programs and
 * maps kept), the deadline stamped as the pin directory's mtime (after the unlinks, which move it),
 * or unpin at once (idle 0, a set without pinned programs, a failed detach or stamp). */
static void keep_or_unpin(void)
{
	long idle = pr_share_idle_secs();
	char p[sizeof PR_AUTO_DIR + 32];
	snprintf(p, sizeof p, "%s/prog_btf_sys_exit", PR_AUTO_DIR);
	bool progs = access(p, F_OK) == 0;
	snprintf(p, sizeof p, "%s/prog_raw_sys_exit", PR_AUTO_DIR);
	progs = progs || access(p, F_OK) == 0;
	if (idle > 0 && progs && pr_bpf_detach_pinned(PR_AUTO_DIR) == 0) {
		struct timespec ts[2];
		clock_gettime(CLOCK_REALTIME, &ts[0]);
		ts[0].tv_sec += idle;
		ts[0].tv_nsec = 0;
		ts[1] = ts[0];
		if (utimensat(AT_FDCWD, PR_AUTO_DIR, ts, 0) == 0)
			return;
	}
	unpin_all();
}

int pr_share_acquire(struct pr_share *s, struct pr_loaded *L, char *why, size_t whylen)
{
	s->dirfd = -1;
	s->loaded_here = false;
	int g = gate_lock(why, whylen);
	if (g < 0)
		return -1;
	int rc = -1;
	char w[256] = "";
	int o = pr_bpf_open_pinned(PR_AUTO_DIR, L, w, sizeof w);
	if (o < 0 && !held_by_others()) {
		unpin_all();                   /* stale: another layout, or half pinned by a killed loader */
		o = 1;
	}
	if (o == 0 && pr_bpf_attach_pinned(PR_AUTO_DIR, L->tier, w, sizeof w) != 0) {
		pr_bpf_close(L);               /* an idle set whose programs do not attach again */
		o = -1;
		if (!held_by_others()) {
			unpin_all();
			o = 1;
		}
	}
	if (o < 0) {
		snprintf(why, whylen, "shared set unusable and in use: %s", w);
		goto out;
	}
	if (o == 1) {
		if (access(PR_AUTO_DIR, F_OK) == 0 && !held_by_others())
			unpin_all();           /* pins without map_rings: a loader killed while pinning */
		if (load_and_pin(why, whylen) != 0) {
			unpin_all();
			goto out;
		}
		s->loaded_here = true;
		if (pr_bpf_open_pinned(PR_AUTO_DIR, L, why, whylen) != 0)
			goto out;
	}
	if (pr_bpf_hold_links(PR_AUTO_DIR, L, why, whylen) != 0) {
		pr_bpf_close(L);
		goto out;
	}
	s->dirfd = open(PR_AUTO_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* blocking: a probe of "held?" outside the gate (status, --dry-run) holds LOCK_EX for an instant */
	int fl = -1;
	while (s->dirfd >= 0 && (fl = flock(s->dirfd, LOCK_SH)) != 0 && errno == EINTR)
		;
	if (s->dirfd < 0 || fl != 0) {
		snprintf(why, whylen, "hold %s: %s", PR_AUTO_DIR, strerror(errno));
		if (s->dirfd >= 0)
			close(s->dirfd);
		s->dirfd = -1;
		pr_bpf_close(L);
		goto out;
	}
	rc = 0;
out:
	if (rc != 0 && s->loaded_here && !held_by_others())
		unpin_all();
	close(g);                          /* releases the gate */
	return rc;
}

void pr_share_release(struct pr_share *s, struct pr_loaded *L)
{
	if (s->dirfd < 0)
		return;
	char w[256];
	int g = gate_lock(w, sizeof w);
	for (size_t i = 0; i < PR_NLINKS; i++) {
		if (L->links[i] >= 0)
			close(L->links[i]);    /* so that detaching an idle set takes effect now */
		L->links[i] = -1;
	}
	close(s->dirfd);                   /* our reference */
	s->dirfd = -1;
	if (g < 0)
		return;                    /* cannot lock: the next run or the janitor reclaims */
	if (!held_by_others())
		keep_or_unpin();
	close(g);
}

int pr_share_reclaim(void)
{
	if (access(PR_AUTO_DIR, F_OK) != 0)
		return 0;
	char w[256];
	int g = gate_lock(w, sizeof w);
	if (g < 0)
		return 0;
	int done = 0;
	if (access(PR_AUTO_DIR, F_OK) == 0 && !held_by_others()) {
		keep_or_unpin();
		done = access(PR_AUTO_DIR, F_OK) != 0;
	}
	close(g);
	return done;
}

time_t pr_share_idle_until(void)
{
	struct stat st;
	if (stat(PR_AUTO_DIR, &st) != 0 || held_by_others())
		return -1;
	return st.st_mtime;
}

int pr_share_expire(bool force)
{
	struct stat st;
	if (stat(PR_AUTO_DIR, &st) != 0)
		return 0;
	if (!force && st.st_mtime > time(NULL))
		return 0;                  /* still within its idle period (or in use: checked below) */
	char w[256];
	int g = gate_lock_how(force ? LOCK_EX : LOCK_EX | LOCK_NB, w, sizeof w);
	if (g < 0)
		return 0;                  /* busy: a run is loading or leaving; the next check decides */
	int done = 0;
	if (stat(PR_AUTO_DIR, &st) == 0 && (force || st.st_mtime <= time(NULL)) && !held_by_others()) {
		unpin_all();
		done = 1;
	}
	close(g);
	return done;
}

int pr_share_holders(void)
{
	if (access(PR_AUTO_DIR, F_OK) != 0)
		return -1;
	/* /proc/locks would count them; "held or not" is what the callers need */
	return held_by_others() ? 1 : 0;
}
