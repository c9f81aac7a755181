/* sandbox_direct.h — the executor's identity in every mode, its namespaces when bwrap is not used
 * (direct mode), and the per-run HOME of every mode.
 *
 * Promise (every mode, SPEC v3 "The executor is never host root"): as root the executor's host
 * identity is host_uid/host_gid below, never 0 (a root without CAP_SETUID/CAP_SETGID, or an
 * SBXSUP_USER naming no user or uid 0, is refused by sd_probe); in bwrap mode bwrap joins a user
 * namespace made here (sd_bwrap_prepare: in_uid -> host_uid) and binds each write grant from its
 * idmapped mount staged by its child (sd_bwrap_child); root's supplementary groups never reach it.
 *
 * Promise (direct mode, SPEC v2 "The fallback is still a sandbox", "An ordinary world"):
 * - The executor never runs as the host's uid 0. As root: in a user namespace of its own, uid/gid
 *   `in_uid`/`in_gid` inside (default 1000, SBXSUP_UID=N[:G]) mapped to an unprivileged host
 *   identity `host_uid`/`host_gid` (SBXSUP_USER=NAME|UID[:GID], else the system user `sbxsup`
 *   when it exists, else nobody/nogroup); when the kernel refuses a user namespace, the init of the
 *   run (also with SBXSUP_USERNS=0) empties its bounding set and setresuid()s to that host identity (no_new_privs comes from
 *   the stage, caps.h). As a normal user: a user namespace mapping in_uid (default: the own uid)
 *   to the own uid, when the kernel allows it.
 * - Namespaces: pid always when possible; as root (or in the own user namespace) also ipc, uts,
 *   mount, and net when the policy grants no network (loopback brought up). In the mount
 *   namespace (propagation private): the run's private tmp dir bound at /tmp, a fresh tmpfs at
 *   /dev/shm, a procfs of the run's pid namespace at /proc, and (preload on) the preload's
 *   read-only /run/sbxsup and /etc/ld.so.preload as bwrap gives them (sd_fixed.h), and /etc/passwd
 *   and /etc/group naming the executor "sbxsup" with its HOME as its home (etc_id, sd_fixed_identity).
 * - The workspace (and every other directory granted for writing) stays writable without touching
 *   the user's files: as root it is re-mounted in the run's mount namespace through an idmapped
 *   mount (the directory's on-disk owner <-> host_uid); nothing is chmod/chown'ed in the user's
 *   tree; a directory that cannot be idmapped is warned about. Only the run's own
 *   private tmp dir (created by sbxsup) is chown'ed to the executor's host identity.
 * - HOME: a private, empty, writable per-run directory `<run tmp>/home` in every mode (bwrap:
 *   /tmp/home in bwrap's tmpfs; direct: /tmp/home with a mount namespace, else
 *   <private tmp dir>/home), unless the manifest grants writing the real home ("~" itself).
 *   It lies under the run's tmp grant, so the policy needs no extra rule.
 * - --shadow (shadow_mount.h): the workspace path shows an overlay whose upper layer is the run's
 *   store. As root it is built in the parent from descriptors (lower: the workspace's idmapped
 *   clone, upper/work: idmapped clones of the store's directories, root <-> host_uid) and moved in
 *   like an idmapped dir; as a normal user the run's init mounts it (userxattr) in its own user +
 *   mount namespaces. Without a mount namespace there is no shadow (the run refuses it, run_shadow.c).
 * - What applied is said in run.start.level (one formatter for both modes): "identity" (e.g.
 *   "userns uid 1000 gid 1000 -> host uid 65534 gid 65534[ (bwrap)]; workspace: ...; writable dirs
 *   idmapped: N of M"),
 *   "ns" (e.g. "pid,user,ipc,uts,mnt,net"), "home".
 *
 * Files: sandbox_direct.c (identities, namespaces, the spawn, the level), sd_expose.c (the host
 * paths under /tmp shown again, PATH), sd_child.c (what runs in the forked child: the run init's
 * mounts and identity, bwrap's staged grants), sd_fixed.c (the preload's fixed channel). The direct
 * wrapper entry that drives them is run/wrap_direct.c (wrapper.h).
 *
 * Ownership: struct sd_plan is plain data owned by the caller (struct run); wr_fd[] (detached
 * idmapped mounts) are owned by the plan until sd_spawn() returns in the parent (closed there).
 * No global state. The "child" functions run in the forked child of the single-threaded
 * supervisor, before the stage.
 */
#ifndef SBX_SANDBOX_DIRECT_H
#define SBX_SANDBOX_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "bwrap_etc.h"
#include "cgroup.h"
#include "sd_fixed.h"
#include "shadow_mount.h"
#include "strv.h"

#define SD_HOME_NAME "home"
#define SD_DEFAULT_UID 1000
#define SD_MAX_EXPOSE 16

struct sd_plan {
	bool probed;               /* sd_probe() ran */
	bool root;                 /* sbxsup runs with euid 0 */
	bool mnt;                  /* a mount namespace is possible (decides the policy's tmp path) */
	bool userns, setid;        /* chosen at spawn: own user ns / setresuid fallback */
	bool no_userns;            /* SBXSUP_USERNS=0: never try a user namespace */
	bool keep_bset;            /* setid without CAP_SETPCAP: bounding set kept (no_new_privs) */
	bool netns;                /* wanted: no network granted */
	bool real_home;            /* the manifest grants writing the real home */
	unsigned long flags;       /* clone flags actually used */
	uid_t in_uid, host_uid;
	gid_t in_gid, host_gid;
	char wr[SD_MAX_EXPOSE][1024]; /* writable granted dirs (workspace first): idmapped as root */
	int wr_fd[SD_MAX_EXPOSE];  /* their detached idmapped mounts, or -1 */
	size_t nwr;
	char ws_path[4096];        /* workspace (absolute) */
	char tmp_host[80];         /* the run's private tmp dir on the host ("" none) */
	char cwd[4096];            /* cwd to re-enter after the mounts ("" none) */
	char expose[SD_MAX_EXPOSE][1024]; /* host paths under /tmp bound again over the private /tmp */
	bool expose_rw[SD_MAX_EXPOSE], expose_file[SD_MAX_EXPOSE];
	size_t nexpose;
	char how[200];             /* root: the workspace's write grant ("idmapped mount (...)", or why not) */
	size_t nid;                /* root: how many of wr[] are idmapped */
	int userns_fd;             /* root, bwrap mode: the user namespace bwrap joins (--userns), or -1 */
	char identity[320], ns[64], home[200], why[256];
	struct etc_identity_text etc_id; /* the executor's /etc/passwd and /etc/group (made in the
				    * parent before sd_spawn, freed by the caller after it) */
	bool proc_own;             /* the policy grants the run's processes' listing files (it has its
				    * own pid namespace's /proc): the init fails unless it mounts one */
	struct sd_fixed fixed;     /* the preload's /run/sbxsup and /etc/ld.so.preload (sd_fixed.h) */
	const struct shadow_plan *shadow; /* --shadow: the overlay replaces the workspace, or NULL */
};

/* Decide (no process is started except, for a normal user, one probe child): identities from
 * the environment and the passwd database, whether a mount namespace is possible. Returns 0, or
 * -1 with p->why (bad SBXSUP_UID / SBXSUP_USER). */
int sd_probe(struct sd_plan *p, bool no_net, bool real_home, const char *workspace);

/* The tmp path the policy grants and the executor sees: "/tmp" with a mount namespace, else
 * tmp_host. */
const char *sd_tmp_path(const struct sd_plan *p, const char *tmp_host);

/* Parent, before spawning: chown the run's own tmp dir to the executor's host identity and make
 * <tmp>/home in it; let that identity connect to the run's report socket (chown of the socket,
 * its dir 0711). Returns 0 or -1 (why). */
int sd_prepare_dirs(struct sd_plan *p, const char *tmp_host, const char *repdir, const char *repsock);

/* Start the run's init like fork(): in the namespaces above (user ns maps written before the
 * child goes on). Returns the pid in the parent, 0 in the child, -1 when no namespace at all
 * could be made (the caller then forks without). */
pid_t sd_spawn(struct sd_plan *p, struct cg_run *cg);

/* Parent: a host directory under /tmp the run needs (workspace, granted dir, report socket dir)
 * is bound again at the same path over the private /tmp, read-only unless rw. Other paths and
 * files: ignored. 0 or -1 (too many). Nothing else of the host's /tmp is visible (as in bwrap). */
int sd_expose(struct sd_plan *p, const char *path, bool rw);

/* Parent: a directory granted for writing (the workspace first): as root idmapped, else (and where
 * the idmap is refused) bound over itself nosuid,nodev in the run's mount namespace. Paths
 * that are not directories, /tmp itself, /dev, /proc, /sys: ignored. 0 or -1 (too many). */
int sd_writable(struct sd_plan *p, const char *path);

/* A write grant `path` inside the write grant `outer` (both directories, on one file system, of
 * the same owner and group) is not mounted again, in either mode (sd_writable, bwrap_argv): the
 * outer mount shows it writable with the same idmap, and a mount of its own would make a rename
 * or a hard link between the two fail with EXDEV (the SPEC's "./out" in the workspace: `ln
 * src/f out/`, os.rename, git's object moves; mv falls back to a copy). */
bool sd_wr_inside(const char *outer, const char *path);

/* The command named after `--` with a '/' and under /tmp: that one file, read-only. */
int sd_expose_cmd(struct sd_plan *p, const char *cmd);

/* Parent, after sd_spawn: PATH entries under the host's /tmp that the run cannot see (not
 * exposed) are dropped (the default PATH when none is left), as env_filter_path drops entries the
 * policy does not grant. */
int sd_filter_path(const struct sd_plan *p, struct strv *env);

/* bwrap mode, parent, before spawning (after sd_writable for each write grant bwrap binds): as
 * root, what sd_prepare_dirs does for the report socket (repdir 0711, the socket the executor's),
 * each writable dir as a detached idmapped mount (--shadow: the overlay of sd_spawn), and
 * p->userns_fd, a user namespace mapping only in_uid/in_gid to host_uid/host_gid (setgroups
 * denied) for bwrap's --userns. run.start.level.identity is set for either invoker. 0, or -1 (why;
 * nothing left open). */
int sd_bwrap_prepare(struct sd_plan *p, const char *repdir, const char *repsock);

/* bwrap mode, the child before exec of bwrap, in its private mount namespace (root; else a
 * no-op): drop the supplementary groups; mount a small tmpfs at stage_dir and put write grant i at
 * stage_dir/w<i> (its idmapped mount, else a nosuid,nodev bind of the path itself), and sbxsup
 * (self) and the preload library (NULL: none) read-only at stage_dir/SBX_STAGE_*, where bwrap binds
 * them from (bwrap_layer.h `stage_dir`): bwrap looks its sources up as the executor's host identity,
 * which may not reach their own paths. 0, or -1 (errno, a message). */
int sd_bwrap_child(const struct sd_plan *p, const char *stage_dir, const char *self, const char *preload);

/* Root: bad[i] = the host identity cannot look paths[i] up (EACCES on the way; one short-lived
 * child as that identity). bwrap, joined to the run's user namespace, looks its bind sources up as
 * that identity: such a read grant is left out (the executor could not read it on the host
 * either) rather than failing bwrap's set-up. 0, or -1 (bad[] only partly known, the rest false). */
int sd_unreachable(const struct sd_plan *p, const char *const *paths, size_t n, bool *bad);

/* bwrap mode, parent, after spawning: close what sd_bwrap_prepare opened. */
void sd_bwrap_done(struct sd_plan *p);
/* Something is mounted below the host's /proc (a container's masked /proc; the kernel's own
 * /proc/sys/fs/binfmt_misc aside): a user namespace may then not mount a procfs of its own. */
bool sd_proc_overmounted(void);

/* Child (the run's init, before forking the stage): mounts, loopback, identity. Returns 0, or -1
 * with errno and a message on stderr. */
int sd_child_setup(const struct sd_plan *p);

/* The setresuid switch alone (p->setid): bounding set emptied (when CAP_SETPCAP is held),
 * no supplementary groups, host_gid/host_uid, no_new_privs, PR_SET_PDEATHSIG re-armed. Used by
 * sd_child_setup and, when no namespace could be made at all, by the exec stage itself (the run's
 * init stays the invoker's identity, out of the executor's reach). 0 or -1 (errno, message). */
int sd_child_identity(const struct sd_plan *p);

/* After sd_spawn (or the set-up before it) returned -1: true when the executor would keep the host's uid 0 (root, and no
 * CAP_SETUID/CAP_SETGID to switch); *accepted when the operator accepted that explicitly
 * (SBXSUP_ALLOW_ROOT_EXECUTOR=1). */
bool sd_root_executor(struct sd_plan *p, bool *accepted);

/* SBXSUP_ALLOW_ROOT_EXECUTOR=1: the operator accepts a uid-0 executor where no unprivileged identity
 * can be lent (else such a run is refused, reason identity_unavailable; --require identity refuses
 * it anyway). */
bool sd_root_accepted(void);

/* HOME (and TMPDIR) of the executor for this mode: sets them in env unless real_home.
 * tmp_in_sandbox is the run's tmp path as the executor sees it ("/tmp" in bwrap mode). */
int sd_env(struct sd_plan *p, struct strv *env, const char *tmp_in_sandbox);

/* The inside uid/gid for every mode (bwrap: --uid/--gid): non-zero. */
void sd_inside_ids(const struct sd_plan *p, uid_t *uid, gid_t *gid);

/* run.start.level: "identity", "ns", "home" (level_obj is the cJSON object). Also in bwrap mode
 * (what bwrap is told: --uid/--gid; bwrap_net: --unshare-net, the run's own network namespace).
 * Nothing when the sandbox is disabled. */
void sd_level(struct sd_plan *p, void *level_obj, bool bwrap_mode, bool bwrap_net, bool disabled);

/* True when path is a mount point (e.g. a parent run's directory bound into this run's private
 * /tmp, sd_expose): never a stale tmp dir of ours, even when its pid is not in our pid namespace. */
bool sd_mount_point(const char *path);

/* A path below the host's /tmp ("/tmp/x", not /tmp itself): what the private /tmp hides. */
bool sd_under_tmp(const char *path);

/* True when the manifest's write hints include the home directory itself. */
bool sd_manifest_grants_home(const void *manifest);

#endif
