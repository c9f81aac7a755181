/* bwrap_layer.h — the bubblewrap layer (entry layer_bwrap): locate bwrap, probe it, and derive its
 * argv from the compiled policy. The entry's `wrap` is the one builder of the argv the run execs
 * (bwrap_argv, then `sbxsup __stage` with the stage layers' flags, then the command); --dry-run
 * prints the same, with "<fd>" for descriptor numbers.
 *
 * Promise: bwrap_argv() maps the policy's directory table (pol_dir_*) onto bwrap options, in path
 * order so a parent is always mounted before what lies inside it: existing system paths and /etc
 * parts and fs:read dirs `--ro-bind` (top-level symlinks such as /bin -> usr/bin as `--symlink`),
 * fs:write dirs and the workspace `--bind` (a read-only path whose nearest bound ancestor is bound
 * read-only from itself is not bound again: that bind shows it already; symlinks excepted),
 * `--proc /proc`, `--dev /dev`, a private `--tmpfs /tmp`
 * (host /tmp is never bound); then the masks: every existing deny path that a bind made visible is
 * covered (`--tmpfs` + `--remount-ro` for a directory, `--ro-bind /dev/null` for a file). Paths
 * that do not exist are skipped. Namespaces: user, ipc, uts, pid, cgroup (try), and net unless the
 * policy grants network. `--die-with-parent --new-session --clearenv`, one `--setenv` per entry of
 * the environment, `--chdir` the workspace, sbxsup and the preload library bound read-only under
 * /run/sbxsup, the run's report socket at /run/sbxsup/report, `/etc/ld.so.preload` as
 * `--ro-bind-data` (or, with etc_view, /etc bound from the view the child mounted before bwrap),
 * `--uid`/`--gid` and a private HOME (`--dir`) when given; as root, `--userns FD` (the run's own user
 * namespace mapping the executor onto an unprivileged host identity) and the write grants bound
 * from their staged idmapped mounts (stage_dir); the executor's own /etc/passwd and /etc/group as
 * `--ro-bind-data` (etc_identity; etc_view.h) unless /etc is the view, which holds them itself
 * (etc_view_mount). /run/sbxsup is a
 * tmpfs of its own; with the preload's fixed channel the sealed policy is `--ro-bind-data` at
 * /run/sbxsup/policy. Last, /run/sbxsup and the sandbox's root tmpfs (the scaffolding bwrap makes
 * for the binds: /, /etc, /run...) are remounted read-only, so no process of the run can rename
 * /etc or /run away and plant its own /etc/ld.so.preload or /run/sbxsup/policy. Nothing here
 * starts a process.
 */
#ifndef SBX_BWRAP_H
#define SBX_BWRAP_H

#include <stdbool.h>
#include <stddef.h>
#include "policy.h"
#include "strv.h"

/* Find an executable `bwrap` on $PATH. Returns 0 (path set) or -1 (why set). */
int bwrap_find(char *path, size_t pathlen, char *why, size_t whylen);

struct bwrap_in {
	const char *bwrap;         /* path of bwrap */
	const char *self_exe;      /* real path of the stage binary (sbxsup-stage, else sbxsup) */
	const char *preload_lib;   /* real path of libsbxpreload.so, or NULL (preload off) */
	int ldso_fd;               /* fd with "/run/sbxsup/libsbxpreload.so\n" for --ro-bind-data, or -1 */
	const char *workspace;
	bool share_net;            /* network granted: no --unshare-net */
	const struct strv *env;    /* the executor environment (envp form) */
	const char *report_sock;   /* host path of the run's bound report socket, or NULL: bound
				    * `--ro-bind` at SBX_RUN_REPORT (connect() needs no writable mount) */
	unsigned uid, gid;         /* non-zero: --uid/--gid (the identity inside); 0: bwrap's default */
	const char *home_dir;      /* a private HOME made with --dir (under /tmp), or NULL */
	const char *etc_view;      /* non-NULL: the /etc view mounted there by the child (etc_view.h):
				    * bound whole at /etc, no --ro-bind-data, no masks for what it hides */
	const char *etc_lower;     /* its layer holding ld.so.preload and the secrets' whiteouts */
	bool fixed;                /* the preload's fixed channel: the policy bound at SBX_RUN_POLICY */
	int policy_fd;             /* the sealed policy for --ro-bind-data, or -1 ("<fd>") */
	bool userns;               /* --userns FD (a namespace the caller made) instead of --unshare-user */
	int userns_fd;             /* its descriptor, or -1 ("<fd>") */
	const char *stage_dir;     /* non-NULL: a write grant (--bind) whose path is staged[i] is bound from
				    * stage_dir/w<i> (its idmapped mount, put there before bwrap runs), and
				    * sbxsup and the preload from stage_dir/SBX_STAGE_* */
	const char *const *staged;
	size_t nstaged;
	const struct strv *unreachable; /* granted paths bwrap (as the executor's host identity) cannot
					 * look up: left out unless staged (NULL: none) */
	const struct sbx_grant_links *links; /* the policy's grants through links (grant_link.h); NULL:
					      * bwrap_argv scans them itself */
	bool etc_identity;         /* the executor's passwd and group (etc_view.h) --ro-bind-data at
				    * /etc/passwd and /etc/group from passwd_fd, group_fd (-1: "<fd>"),
				    * unless etc_view (the view holds them, and resolv.conf) */
	int passwd_fd, group_fd;
	bool resolv;               /* the run's /etc/resolv.conf (the gateway's stub, pol_gateway) as
				    * --ro-bind-data from resolv_fd (-1: "<fd>") */
	int resolv_fd;
};

/* argv up to and including the "--" before the stage; the caller appends the stage argv.
 * Returns 0, or -1 (allocation) with err set. */
int bwrap_argv(const struct policy *p, const struct bwrap_in *in, struct strv *out, char *err,
	       size_t errlen);

#endif
