/* seccomp_emulate.h — notified calls performed by the supervisor on the target's behalf, so that a
 * decision on the target's memory cannot be raced (issue 27). Owner: kernel.
 *
 * Why: a decision made by reading the target's memory (process_vm_readv) and answered "continue"
 * lets the kernel read that memory again; a second thread of the target can rewrite a path or an
 * address in between. Where no other layer stands behind the decision (no bwrap, no Landlock, or
 * an object Landlock has no right for: unix sockets, modes, owners, attributes, times, watches),
 * such a "continue" is a race the target wins. The functions here instead:
 *   1. copy the call's memory arguments ONCE (path, sockaddr, open_how, times),
 *   2. resolve the object in the supervisor — absolute paths in the target's root
 *      (/proc/<pid>/root, openat2 RESOLVE_IN_ROOT), relative ones from its cwd (/proc/<pid>/cwd)
 *      or its dirfd (pidfd_getfd), never through magic links (RESOLVE_NO_MAGICLINKS; the target's
 *      own /proc/self and /dev/std{in,out,err}, /dev/fd/N are mapped to its descriptors) — as an
 *      O_PATH descriptor, with the TARGET's credentials (see below),
 *   3. decide the policy (pol_path / pol_net_addr) on the object actually reached (its path as
 *      /proc/self/fd/N reads) — never on the name as given; an open whose copied name reaches
 *      nothing (none there, or a layer hides it) is decided on that copied name as the check
 *      before the call decides names, and a refusal is reported (the kernel never sees the call),
 *   4. perform the call on that descriptor (reopen via /proc/self/fd/N with the requested flags;
 *      fchmodat2/fchownat/utimensat with AT_EMPTY_PATH; setxattr/removexattr/inotify_add_watch
 *      through /proc/self/fd/N; mkdirat/unlinkat/linkat/renameat2/... in the reached parent;
 *      connect/bind of the target's own socket taken with pidfd_getfd, with the copied address;
 *      a send (sendto with an address, sendmsg, a sendmmsg's first message) with the copied
 *      header, peer, payload (SE_SEND_MAX) and control, SCM_RIGHTS descriptors taken with
 *      pidfd_getfd, SCM_CREDENTIALS refused)
 *      and answer the notification with
 *      its result: an fd installed with SECCOMP_IOCTL_NOTIF_ADDFD (SECCOMP_ADDFD_FLAG_SEND,
 *      O_CLOEXEC as requested), or the call's return value / errno. Never
 *      SECCOMP_USER_NOTIF_FLAG_CONTINUE.
 *
 * Credentials: the permission checks the kernel makes (search, read/write, owner, socket write
 * permission, privileged ports) are made with the target's identity: the calling thread of the
 * supervisor switches ITS OWN fsuid/euid, fsgid/egid and supplementary groups to the target's
 * (/proc/<pid>/status) with raw per-thread system calls (never glibc's process-wide wrappers) and
 * with no capabilities in its effective set (the executor never holds any: caps.h), and switches
 * back afterwards (a failure to switch back aborts the supervisor: fail closed). A call that may
 * block (connect, a FIFO opened for reading or writing) is performed by a short-lived detached
 * thread that takes the target's identity, never switches back, answers the notification itself
 * and exits. A root supervisor that may not reach the target's memory or descriptors itself (no
 * CAP_SYS_PTRACE: a container's default) makes the whole call with the target's real ids as well
 * (saved ids stay root's). When the supervisor is not root and the target's identity differs from
 * its own, or the target cannot be reached either way, the call is refused (EPERM, reported:
 * "undecidable").
 * Fidelity differences (documented in docs/layers.md): SO_PEERCRED of an emulated unix connect
 * (and SCM_CREDENTIALS a receiver gets with SO_PASSCRED from an emulated send) names the run's
 * connector (a process of the executor's identity), not the calling process; a send on a broken
 * stream gets EPIPE without SIGPIPE; an absolute symlink met below a relative
 * path is followed in the supervisor's root; O_CREAT through a dangling final symlink and magic
 * links other than the target's own descriptors fail with ELOOP.
 *
 * Which calls are emulated, refused, or still continued, per mode: sbx_sn_route (the one table),
 * docs/layers.md "Decisions that cannot be raced".
 */
#ifndef SBX_SECCOMP_EMULATE_H
#define SBX_SECCOMP_EMULATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "seccomp_notify.h"

/* Per-run state of the emulation: the connector, a process with the executor's identity that makes
 * the run's emulated connects (a connected unix socket names its connecting process to the
 * listener: never the supervisor). Owned by the layer's per-listener state; made before the first
 * notification, freed (the connector killed and reaped) with it. NULL from _new: memory. */
struct sbx_sn_emu;
struct sbx_sn_emu *sbx_sn_emu_new(void);
void sbx_sn_emu_free(struct sbx_sn_emu *e);

/* What stands behind a "continue" in this run (set from the run's layers). */
struct sbx_sn_walls {
	bool bwrap;     /* the target sees only its grants (bwrap's mount namespace), read grants
			 * read-only */
	bool landlock;  /* Landlock enforces the grants on file access (open/create/remove/rename/
			 * link/truncate/mknod) */
	bool deny;      /* this filter holds a manifest deny: a call that makes or moves a name (the
			 * write class, link, mknod) is performed here whatever the walls — neither wall
			 * knows a match created since the start, and a racing thread could otherwise
			 * link or rename it to a name the deny does not match and read it there */
};

/* How a routed call is answered after the notify decision allowed it. */
enum sbx_sn_route {
	SBX_SN_CONTINUE = 0, /* another layer stops the same object: "continue" */
	SBX_SN_EMULATE,      /* performed here (sbx_sn_emulate) */
	SBX_SN_REFUSE,       /* cannot be emulated soundly and nothing stands behind: EPERM, reported */
};

/* The one table: the answer for `sys` (bare name) under `w`. Calls not in the table (registers
 * only: socket, rlimit, signals) continue. */
enum sbx_sn_route sbx_sn_route(const struct sbx_sn_walls *w, const char *sys);

/* Perform one notified call that sbx_sn_decide allowed (or any call of the open family, for a
 * caller that routes opens itself): open/openat/openat2/creat, connect/bind, the chmod/chown/
 * utimes/xattr families, inotify_add_watch. `req_id`/`listener`: the notification; `args`: its
 * registers. Returns
 *   0  answered here (the fd installed, or the call's result / errno given to the target; or the
 *      task is gone) — the caller answers nothing and writes nothing,
 *   1  refused: the object actually reached is outside the grants (rep filled as a
 *      kernel.violation: path = the object reached, requested = the name as copied, access,
 *      rule, err) — the caller answers rep->err and reports,
 *   2  not a call emulated here — the caller decides what to do (never continue where
 *      sbx_sn_route says emulate),
 *   3  continue: nothing to race (an O_PATH open: the descriptor gives no access by itself and
 *      cannot be installed with ADDFD; every use of it is a call decided again).
 * The target's memory is read once; nothing read from /proc is trusted unless the notification
 * is still valid afterwards. Thread-safe with respect to other notifications (no shared state). */
int sbx_sn_emulate(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
		   const uint64_t args[6], struct sbx_sn_report *rep);

/* The open family alone (same contract as sbx_sn_emulate): for callers that route every open of
 * a run through the supervisor (manifest deny globs below libc). */
int sbx_sn_emulate_open(const struct sbx_sn_ctx *c, int listener, uint64_t req_id, pid_t pid, const char *sys,
			const uint64_t args[6], struct sbx_sn_report *rep);

#endif
