/* run_setup.c — step 2 of a run: the set-up acts on the plan (run_int.h). Everything it creates on
 * the host is announced to the janitor and removed by run_setup_undo(). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "msg.h"
#include "quote.h"
#include "policy_build.h"
#include "run_int.h"
#include "etc_view.h"
#include "pidname.h"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	char q[SBX_Q_MAX];
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0)
		sbx_msg("warning: cannot remove %s: %s", sbx_q(path, q, sizeof q), strerror(errno));
	return 0;
}

/* Remove a private dir of the run (its tree is dead; never follow symlinks out of it). */
static void remove_tree(const char *dir)
{
	(void)nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* A run killed by SIGKILL cannot remove its private dirs; the next run does: directories named
 * sbxsup-<pid>-XXXXXX, owned by us, whose sbxsup process no longer exists. */
static void sweep_stale_tmp(void)
{
	DIR *d = opendir("/tmp");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *end;
		long pid = sbx_name_pid(e->d_name, "sbxsup-", &end);
		if (!pid || *end != '-' || strlen(end + 1) != 6)
			continue;
		char path[300];
		struct stat st;
		snprintf(path, sizeof path, "/tmp/%s", e->d_name);
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || sd_mount_point(path))
			continue;
		if (sbx_pid_gone(pid))
			remove_tree(path);
	}
	closedir(d);
}

/* mkdir 0700 of a name the plan chose: never an existing path (no symlink followed). The stale
 * sweep lists the whole of /tmp: once per run (*swept), not once per directory. */
static int make_private_dir(const char *dir, char *made, size_t madelen, struct janitor *j, bool *swept)
{
	if (!*swept)
		sweep_stale_tmp();
	*swept = true;
	if (mkdir(dir, 0700) < 0)
		return -1;
	snprintf(made, madelen, "%s", dir);
	(void)janitor_add(j, 't', dir);
	return 0;
}

/* The run's report address (SBXSUP_REPORT_ADDR): a datagram socket bound in a private directory
 * (0700, named like the tmp dir so the janitor and the stale sweep remove it), read by the event
 * loop like the inherited socketpair. The preload sends there when its inherited descriptor is
 * gone (a raw close of every fd) or its environment was stripped (bwrap mode: bound at
 * /run/sbxsup/report). A failure is said, and the run goes on with the socketpair alone (the
 * caller re-plans without it: r->rep_failed). */
static void setup_report(struct run *r)
{
	struct run_plan *p = &r->plan;
	bool report = p->repsock[0] && layers_want_report(&r->L);
	if (!p->repdir[0] || r->repsrv >= 0 || (!report && !p->stagedir[0]))
		return;
	if (strcmp(r->made_rep, p->repdir) &&
	    make_private_dir(p->repdir, r->made_rep, sizeof r->made_rep, &r->jan, &r->swept) < 0) {
		sbx_msg("warning: cannot create the run's private dir: %s (%s)", strerror(errno),
			report ? "denials after a raw close of every fd will not be reported"
			       : "the write grants are not idmapped");
		goto failed;
	}
	if (!report)
		return;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", p->repsock);
	int one = 1, rcv = 1 << 20;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || chmod(p->repsock, 0600) < 0) {
		char q[SBX_Q_MAX];
		sbx_msg("warning: cannot bind the report socket %s: %s (denials after a raw close of "
			"every fd will not be reported)", sbx_q(p->repsock, q, sizeof q), strerror(errno));
		if (fd >= 0)
			close(fd);
		goto failed;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	r->repsrv = fd;
	return;
failed:
	r->rep_failed = true;
	p->repdir[0] = p->repsock[0] = p->stagedir[0] = 0;
}

int run_setup_dirs(struct run *r)
{
	setup_report(r);
	/* the /etc view's mount point, in the report dir (the janitor removes both; its content is
	 * made by the child, in a tmpfs of its own); without it /etc is bound entry by entry: slower,
	 * the same view */
	struct run_plan *p = &r->plan;
	if (p->etcview[0] && (!p->repdir[0] || etc_view_make(p->etcview) < 0)) {
		char q[SBX_Q_MAX];
		if (p->repdir[0])
			sbx_msg("warning: cannot prepare the /etc view in %s: %s (/etc is bound entry by entry)",
				sbx_q(p->repdir, q, sizeof q), strerror(errno));
		p->etclow[0] = p->etcview[0] = 0;
	}
	/* bwrap as root: where the child stages the write grants' idmapped mounts (sd_bwrap_child) */
	if (p->stagedir[0] && (!p->repdir[0] || (mkdir(p->stagedir, 0700) < 0 && errno != EEXIST))) {
		char q[SBX_Q_MAX];
		sbx_msg("warning: cannot prepare %s: %s (the write grants are not idmapped)",
			sbx_q(p->stagedir, q, sizeof q), strerror(errno));
		p->stagedir[0] = 0;
	}
	run_ctx_from_plan(r); /* the layers follow what was given up above */
	const char *tmp = r->plan.tmpdir;
	if (tmp[0] && strcmp(tmp, r->made_tmp)) {
		if (make_private_dir(tmp, r->made_tmp, sizeof r->made_tmp, &r->jan, &r->swept) < 0) {
			sbx_msg("cannot create the run's private tmp dir: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The sealed memfd the preload maps (close-on-exec here; the child clears the flag). */
int run_setup_policy_fd(struct run *r)
{
	if (r->pol_fd >= 0)
		close(r->pol_fd);
	if ((r->pol_fd = pol_to_sealed_memfd(r->plan.blob, r->plan.bloblen)) < 0) {
		sbx_msg("cannot seal the compiled policy: %s", strerror(errno));
		return -1;
	}
	if (fcntl(r->pol_fd, F_SETFD, FD_CLOEXEC) < 0) {
		sbx_msg("fcntl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void run_setup_cgroups(struct run *r)
{
	if (layers_need_cgroup(&r->L)) {
		bool lim_on = layers_cgroup_limits(&r->L);
		struct cg_limits cl = {
			.memory_mb = lim_on ? r->lim.memory_mb : -1,
			.pids = lim_on ? r->lim.pids : -1,
			.cpu_pct = -1,
		};
		cg_setup(&r->cg, r->a.run, &cl, &r->jan);
		run_ctx_cgroup(r);
		if (lim_on && r->cg.why[0] && ((r->lim.memory_mb > 0 && !r->cg.ctl_on[CG_MEMORY]) ||
					       (r->lim.pids > 0 && !r->cg.ctl_on[CG_PIDS])))
			sbx_msg("warning: limits partly unenforced: %s", r->cg.why);
	}
	pt_mark(&r->pt, "setup.cgroup");
	layers_start(&r->lc, &r->lrt);
}

int run_setup_signals(struct run *r)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask) < 0)
		return -1;
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (r->sfd < 0 || r->tfd < 0)
		return -1;
	struct itimerspec it = {.it_value = {.tv_sec = r->lim.wall_ms / 1000,
					     .tv_nsec = r->lim.wall_ms % 1000 * 1000000L}};
	return timerfd_settime(r->tfd, 0, &it, NULL);
}

void run_setup_undo(struct run *r)
{
	cg_cleanup(&r->cg);
	pt_mark(&r->pt, "end.cgroup");
	if (r->made_tmp[0])
		remove_tree(r->made_tmp);
	if (r->repsrv >= 0)
		close(r->repsrv);
	if (r->made_rep[0])
		remove_tree(r->made_rep);
	pt_mark(&r->pt, "end.dirs");
	janitor_done(&r->jan);
	pt_mark(&r->pt, "end.janitor");
	if (r->pol_fd >= 0)
		close(r->pol_fd);
	if (r->sfd >= 0)
		close(r->sfd);
	if (r->tfd >= 0)
		close(r->tfd);
}
