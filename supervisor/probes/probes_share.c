/* probes_share.c — see probes_share.h: the probe set as a bpf_share.h set. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "probes_share.h"

/* In the loader child: load, pin maps, links and (kept while idle, detached) the programs. */
static int probes_load_pin(const char *dir, char *why, size_t whylen)
{
	struct pr_loaded L;
	int rc = pr_bpf_load(&L, why, whylen);
	if (rc == 0) {
		rc = pr_bpf_pin(&L, dir, why, whylen);
		if (rc == 0)
			rc = pr_bpf_pin_progs(&L, dir, why, whylen);
		pr_bpf_close(&L);       /* the pins hold it now */
	}
	return rc;
}

/* Open the maps, attach an idle set's pinned programs again (not for a set just loaded, whose
 * loader pinned its links), and hold the links. */
static int probes_open(const char *dir, void *arg, bool fresh, char *why, size_t whylen)
{
	struct pr_loaded *L = arg;
	int o = pr_bpf_open_pinned(dir, L, why, whylen);
	if (o != 0)
		return o;
	if ((!fresh && pr_bpf_attach_pinned(dir, L->tier, why, whylen) != 0) ||
	    pr_bpf_hold_links(dir, L, why, whylen) != 0) {
		pr_bpf_close(L);
		return -1;
	}
	return 0;
}

/* Close the run's link fds, so that detaching an idle set takes effect now. */
static void probes_drop(void *arg)
{
	struct pr_loaded *L = arg;
	for (size_t i = 0; i < PR_NLINKS; i++) {
		if (L->links[i] >= 0)
			close(L->links[i]);
		L->links[i] = -1;
	}
}

/* Idle: remove the link pins (the programs detach; an idle set costs the host's processes nothing)
 * — only for a set whose programs are pinned, so that the next run can attach them again. */
static int probes_detach(const char *dir)
{
	char p[256];
	snprintf(p, sizeof p, "%s/prog_btf_sys_exit", dir);
	bool progs = access(p, F_OK) == 0;
	snprintf(p, sizeof p, "%s/prog_raw_sys_exit", dir);
	progs = progs || access(p, F_OK) == 0;
	return progs ? pr_bpf_detach_pinned(dir) : -1;
}

static void probes_unpin(const char *dir)
{
	char w[256];
	pr_bpf_unpin(dir, w, sizeof w);
}

static const struct bs_ops probes_ops = {
	.dir = PR_AUTO_DIR,
	.idle_env = "SBXSUP_PROBES_IDLE",
	.load_pin = probes_load_pin,
	.open = probes_open,
	.drop = probes_drop,
	.detach = probes_detach,
	.unpin = probes_unpin,
};

int pr_share_acquire(struct pr_share *s, struct pr_loaded *L, char *why, size_t whylen)
{
	struct bs_ref r;
	int rc = bs_acquire(&probes_ops, &r, L, why, whylen);
	s->dirfd = r.dirfd;
	s->loaded_here = r.loaded_here;
	return rc;
}

void pr_share_release(struct pr_share *s, struct pr_loaded *L)
{
	struct bs_ref r = {.dirfd = s->dirfd, .loaded_here = s->loaded_here};
	bs_release(&probes_ops, &r, L);
	s->dirfd = -1;
}

int pr_share_reclaim(void)
{
	return bs_reclaim(&probes_ops);
}

long pr_share_idle_secs(void)
{
	return bs_idle_secs(&probes_ops);
}

int pr_share_expire(bool force)
{
	return bs_expire(&probes_ops, force);
}

time_t pr_share_idle_until(void)
{
	return bs_idle_until(&probes_ops);
}

int pr_share_holders(void)
{
	return bs_holders(&probes_ops);
}
