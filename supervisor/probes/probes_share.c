/* probes_share.c — see probes_share.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/wait.h>
#include "probes_share.h"

#define PR_BPFFS "/sys/fs/bpf"

/* The gate: an exclusive flock on the bpffs root, held for each transition. -1 on error (why). */
static int gate_lock(char *why, size_t whylen)
{
	if (pr_bpf_ensure_fs(why, whylen) != 0)
		return -1;
	int g = open(PR_BPFFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g < 0) {
		snprintf(why, whylen, "open %s: %s", PR_BPFFS, strerror(errno));
		return -1;
	}
	while (flock(g, LOCK_EX) != 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "lock %s: %s", PR_BPFFS, strerror(errno));
			close(g);
			return -1;
		}
	}
	return g;
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
	if (s->dirfd < 0 || flock(s->dirfd, LOCK_SH | LOCK_NB) != 0) {
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

void pr_share_release(struct pr_share *s)
{
	if (s->dirfd < 0)
		return;
	char w[256];
	int g = gate_lock(w, sizeof w);
	close(s->dirfd);                   /* our reference */
	s->dirfd = -1;
	if (g < 0)
		return;                    /* cannot lock: the next run or the janitor reclaims */
	if (!held_by_others())
		unpin_all();
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
