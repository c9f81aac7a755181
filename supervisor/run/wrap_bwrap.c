/* wrap_bwrap.c — the bwrap wrapper entry (wrapper.h): the child execs the argv the wrapper layer
 * builds (layers_wrap), after putting what bwrap binds from in a mount namespace of its own (the
 * --shadow overlay, the /etc view, root's staged write grants: sandbox_direct.h sd_bwrap_child).
 * A bwrap that ends before the stage is ready is a set-up failure: the run retries without it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "etc_view.h"
#include "sandbox_paths.h"
#include "caps.h"
#include "mntns.h"
#include "msg.h"
#include "wrapper.h"

static int ldso_memfd(void)
{
	int fd = memfd_create("sbxsup-ld.so.preload", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	static const char line[] = SBX_RUN_PRELOAD "\n";
	if (write(fd, line, sizeof line - 1) != (ssize_t)(sizeof line - 1) || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* bwrap joining a user namespace (--userns) switches to the sandbox uid in its sandbox's init, which
 * then outlives bwrap's own death (bwrap 0.8): a SIGKILL of sbxsup would leave the run behind where
 * no cgroup can end it. So bwrap runs as the init of a pid namespace of ours, bound to this child by
 * PDEATHSIG: when this child dies (sbxsup's death, life_child_setup), bwrap dies and the kernel ends
 * everything in that namespace. This child then only relays bwrap's exit status. Returns in the
 * process that execs bwrap; never in this one. */
static void bwrap_as_init(void)
{
	if (unshare(CLONE_NEWPID) < 0)
		return; /* (refused, e.g. by a container's seccomp profile: bwrap's own binding only) */
	pid_t b = fork();
	if (b < 0) {
		dprintf(2, "child setup failed: fork: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (b == 0) {
		/* the namespace's own procfs, in this child's private mount namespace: bwrap reads its
		 * children's /proc/PID by the pids it sees */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(SBX_EXIT_INTERNAL);
		return;
	}
	/* nothing of the run stays open here (EOF on the control socket and bwrap's stderr is bwrap's) */
	(void)syscall(SYS_close_range, 0u, ~0u, 0u);
	int st;
	while (waitpid(b, &st, 0) < 0)
		if (errno != EINTR)
			_exit(SBX_EXIT_INTERNAL);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static __attribute__((noreturn)) void child_bwrap(struct run *r, const struct attempt_io *f)
{
	char **argv = f->argv.v;
	att_child_signals(&r->oldmask);
	if (att_child_common(r, f, true) < 0) {
		dprintf(f->err_w, "child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	/* --shadow's overlay over the workspace and the /etc view bwrap binds (etc_view.h), in a mount
	 * namespace of this child only, which bwrap then binds from */
	const char *view = layers_etc_view(&r->lc);
	if (r->shadow.sp.on || view || r->lc.own_userns) {
		const char *what = "";
		if (sbx_mntns_private(&what) < 0) {
			dprintf(f->err_w, "child setup failed: %s: %s", what, strerror(errno));
			_exit(SBX_EXIT_INTERNAL);
		}
	}
	/* (root, the workspace staged: the overlay is its staged mount, sd_bwrap_child) */
	bool ws_staged = false;
	for (size_t i = 0; r->lc.stage_dir && i < r->lc.nstaged; i++)
		ws_staged |= !strcmp(r->lc.staged[i], r->shadow.sp.workspace);
	if (r->shadow.sp.on && !ws_staged && shadow_mount_at(&r->shadow.sp, geteuid() != 0) < 0)
		_exit(SBX_EXIT_INTERNAL);
	/* root: the write grants' idmapped mounts where bwrap binds them from, no supplementary groups */
	if (r->lc.own_userns && sd_bwrap_child(&r->sd, r->lc.stage_dir, r->d.stage[0] ? r->d.stage : r->d.self,
						 layers_ld_library(&r->lc)) < 0)
		_exit(SBX_EXIT_INTERNAL);
	/* the view bwrap binds holds the executor's passwd and group (and the run's resolv.conf) */
	const struct etc_view_files vf = {.passwd_fd = f->passwd, .group_fd = f->group, .resolv_fd = f->resolv};
	if (view && etc_view_mount(r->plan.pol, r->plan.etclow, view, SBX_RUN_PRELOAD, &vf) < 0) {
		dprintf(f->err_w, "child setup failed: the /etc view (an overlay adding ld.so.preload) could "
			"not be mounted: %s (SBXSUP_ETC_OVERLAY=0 binds /etc entry by entry instead)", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	/* A non-root sbxsup holding capabilities (file capabilities for the BPF layers, or a container
	 * that grants them to its non-root user): bwrap refuses to run with capabilities unless setuid
	 * ("Unexpected capabilities but not setuid"), and needs none — its user namespace gives it
	 * what it uses. Cleared here, after the layers' set-up and before exec. */
	if (getuid() != 0 && geteuid() != 0 && sbx_caps_clear() < 0) {
		dprintf(f->err_w, "child setup failed: clear capabilities before bwrap: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	att_cloexec_all();
	att_keep_fd(r->pol_fd);
	if (r->lc.att->fixed_channel) {
		/* bwrap copies the policy to /run/sbxsup/policy (--ro-bind-data) from the current
		 * offset, and closes it; the report socket is reached at /run/sbxsup/report */
		if (lseek(r->pol_fd, 0, SEEK_SET) < 0)
			_exit(SBX_EXIT_INTERNAL);
	} else {
		att_keep_fd(f->rep_c);
	}
	att_keep_fd(f->ctl_c);
	att_keep_fd(f->ldso);
	att_keep_fd(r->sd.userns_fd); /* bwrap joins it (--userns) and closes it */
	if (!view) { /* bwrap's --ro-bind-data; else copied into the view above */
		att_keep_fd(f->passwd);
		att_keep_fd(f->group);
		att_keep_fd(f->resolv);
	}
	att_keep_fd(r->att.stderr_copy);
	if (att_child_stdio(r, false) < 0 || dup2(f->err_w, 2) < 0)
		_exit(SBX_EXIT_INTERNAL);
	if (r->lc.own_userns)
		bwrap_as_init();
	execv(argv[0], argv);
	dprintf(2, "exec %s: %s", argv[0], strerror(errno));
	_exit(SBX_EXIT_INTERNAL);
}

/* The executor's identity for bwrap, ld.so.preload's text, its passwd/group/resolv.conf. */
static enum attempt_result bw_prepare(struct run *r, struct attempt_io *io)
{
	struct attempt *t = &r->att;
	int err_fd = r->o.stdio ? r->o.stdio[2] : 2; /* the executor's stderr, which the stage restores */
	int errp[2];
	if (pipe2(errp, O_CLOEXEC) < 0) {
		sbx_msg("pipe: %s", strerror(errno));
		return ATT_FAIL;
	}
	io->err_r = errp[0];
	io->err_w = errp[1];
	if ((t->stderr_copy = fcntl(err_fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		sbx_msg("pipe: %s", strerror(errno));
		return ATT_FAIL;
	}
	/* the executor's identity (root: a user namespace onto an unprivileged host identity, the
	 * write grants' idmapped mounts; sandbox_direct.h) */
	r->sd.shadow = r->shadow.sp.on ? &r->shadow.sp : NULL;
	pt_mark(&r->pt, "attempt.sockets_env");
	if (!r->o.disabled && sd_bwrap_prepare(&r->sd, r->plan.repdir, r->plan.repsock) < 0) {
		/* as a bwrap set-up failure: the run goes on without bwrap (where the executor
		 * still never runs as host root) unless bwrap is required */
		t->wrap_err_len = (size_t)snprintf(t->wrap_err, sizeof t->wrap_err, "the executor's host "
						   "identity (uid %u): %s", (unsigned)r->sd.host_uid, r->sd.why);
		if (t->wrap_err_len >= sizeof t->wrap_err)
			t->wrap_err_len = sizeof t->wrap_err - 1;
		return ATT_SETUP_FAILED;
	}
	pt_mark(&r->pt, "attempt.identity");
	/* ld.so.preload's text for --ro-bind-data, unless the /etc view holds the file */
	if (layers_ld_library(&r->lc) && !r->lc.etc_view && (io->ldso = ldso_memfd()) < 0) {
		sbx_msg("memfd: %s", strerror(errno));
		return ATT_FAIL;
	}
	/* the executor's own passwd and group entries (etc_view.h), bound over the host's */
	struct etc_identity id = {.uid = r->lc.uid, .gid = r->lc.gid,
				  .home = r->lc.home_dir ? r->lc.home_dir : pol_home(r->plan.pol)};
	if (etc_identity_memfds(&id, &io->passwd, &io->group) < 0 ||
	    (pol_gateway(r->plan.pol) && (io->resolv = etc_resolv_memfd()) < 0)) {
		sbx_msg("the executor's passwd and group entries: %s", strerror(errno));
		return ATT_FAIL;
	}
	return ATT_DONE;
}

/* The argv (layers_wrap: the wrapper layer builds it from the attempt's view, its descriptors). */
static enum attempt_result bw_argv(struct run *r, struct attempt_io *io)
{
	char err[256];
	if (layers_wrap(&r->lc, &io->argv, err, sizeof err) < 0) {
		sbx_msg("%s", err);
		return ATT_FAIL;
	}
	return ATT_DONE;
}

static pid_t bw_spawn(struct run *r, struct attempt_io *io)
{
	(void)io;
	pid_t pid = cg_spawn(&r->cg, 0);
	if (pid < 0)
		sbx_msg("fork: %s", strerror(errno));
	return pid;
}

/* bwrap's own warnings during a good set-up: pass them on */
static void bw_on_ready(struct run *r)
{
	struct attempt *t = &r->att;
	if (t->wrap_err_len)
		(void)!write(sbx_msg_fd(), t->wrap_err, t->wrap_err_len);
	t->wrap_err_len = 0;
}

static void bw_done(struct run *r)
{
	sd_bwrap_done(&r->sd);
}

const struct run_wrapper run_wrap_bwrap = {
	.name = "bwrap",
	.pidns = true,             /* --unshare-pid --die-with-parent (bwrap_layer.c) */
	.retry_without = true,
	.signal_as_128 = true,     /* bwrap reports a command killed by signal N as 128+N */
	.prepare = bw_prepare,
	.argv = bw_argv,
	.spawn = bw_spawn,
	.child = child_bwrap,
	.on_ready = bw_on_ready,
	.done = bw_done,
};
