/* seccomp_notify.h — the supervisor's decisions on notified system calls that need more than the
 * syscall number: arguments, the target's memory, the policy. Owner: kernel (issues 13/15/17).
 *
 * Promise: every function here decides one notified call of a task of the run and says how to
 * answer it — continue (the kernel runs the call as made) or refuse with an errno — and, for a
 * refusal, fills a report (struct sbx_sn_report) that seccomp_layer.c writes as `seccomp.deny` or,
 * for the file/exec reporter, `kernel.violation` with `sensor: "seccomp-notify"` (the probes' own
 * emitter, kv_emit, so both sensors write the same event). Decisions use only the one
 * policy engine (pol_path, pol_net_addr, pol_normalize): no second rule set.
 *   - socket/socketpair: the family/type/protocol allowlist (register values only: no race).
 *   - setrlimit/prlimit64: lowering is allowed; a new hard limit above the caller's current hard
 *     limit (the run's limit) is refused with EPERM.
 *   - connect/bind, and the peer of sendto/sendmsg/sendmmsg (sbx_sn_decide_send): named AF_UNIX paths
 *     decided as a write of the socket path (as the preload does), lexically AND on the object the
 *     kernel resolves in the target's root; abstract names and autobind as seccomp_unix.h says
 *     (refused where the run shares the host's network namespace); AF_INET/6 peers (connect,
 *     sends) and local addresses (bind: only granted loopback addresses) when netfilter does not
 *     enforce them.
 *   - metadata changes (issue 13: Landlock has no right for them): chmod/fchmod/fchmodat/
 *     fchmodat2, chown/lchown/fchown/fchownat, set/removexattr (path, l*, f*, *at), utime/utimes/
 *     futimesat/utimensat, mknod/mknodat, link/linkat are writes of their object (descriptors via
 *     /proc/<pid>/fd/N, dirfds joined, symlinks followed as the call does; a link's existing object
 *     and new name both); inotify_add_watch/fanotify_mark are reads of the watched object. Outside
 *     the grants: refused (EPERM for mode/owner/xattr/times — the kernel's answer to a non-owner —,
 *     EACCES for mknod/link/watches — a missing permission) and reported as kernel.violation.
 *   - open/openat/openat2/creat/execve/execveat, and with them the rest of the write class
 *     (unlink/unlinkat/rmdir/mkdir/mkdirat/truncate/symlink/symlinkat/rename/renameat/renameat2,
 *     decided like the metadata calls, EACCES) (the reporter, for programs the preload does not
 *     see when the probes are off): the path as given, joined onto the dirfd or cwd, decided with
 *     pol_path; a denial answers ENOENT (the path does not exist) or EACCES.
 *   Symlinks: a path allowed as given is decided again on the object the kernel reaches; where
 *   that object does not exist in the target's view (a workspace link to ~/.ssh under bwrap, which
 *   does not mount the home), each link is followed by its text, as the kernel would follow it on
 *   the host, so the attempt is still decided on what it names (opens/execs: answered ENOENT, the
 *   kernel's own answer; metadata calls: only for the report-only sensor).
 * Memory arguments are read with process_vm_readv after the call was made, and the kernel would
 * read them again if the call continued: a second thread of the target can change them in between
 * (time-of-check/time-of-use). So what this module decides is final only as a refusal; an allowed
 * call whose arguments are in memory is answered "continue" only where bwrap or Landlock stops the
 * same object independently — everywhere else the caller (seccomp_layer.c) has it performed by
 * seccomp_emulate.c on the object the supervisor decided, or refused (seccomp_emulate.h
 * sbx_sn_route: the one table, per call and per mode). A continue is never the only defence.
 * Register arguments (socket, rlimit resource) have no race.
 * Memory / fds: the caller owns the request; nothing here allocates beyond the call.
 */
#ifndef SBX_SECCOMP_NOTIFY_H
#define SBX_SECCOMP_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "policy.h"


/* What a refusal reports (fields left empty are not written). */
struct sbx_sn_report {
	int err;
	bool violation;            /* kernel.violation (reporter) instead of seccomp.deny */
	const char *access;        /* "read", "write", "exec", "connect", "bind", "rlimit", "socket" */
	char what[160];            /* socket: family/type/protocol; rlimit: "RLIMIT_NOFILE 4096 > 1024" */
	char path[4096];           /* resolved path (unix sockets, reporter) */
	char requested[4096];      /* the string as given */
	char addr[64];
	int port;                  /* -1: none */
	char rule[1024];
	char comm[17];
	char exe[4096];
	bool hard;                 /* refused by the report-only sensor too (an abstract bind in the
				    * host's network namespace: seccomp_unix.h) */
	bool signal;               /* a signal outside the run (report-only sensor): target, sig */
	int target, sig;           /* the pid as given; the signal (-1: none, pidfd_open) */
};

/* The context of one run's filter (set by the supervisor). */
struct sbx_sn_ctx {
	const struct policy *pol;  /* NULL: every decision that needs it refuses (fail closed) */
	bool netfilter;            /* netfilter enforces AF_INET/6 connect, sendmsg and bind: those are
				    * left to it (it decides on the kernel's copy of the address) */
	bool report_only;          /* the report-only sensor asks (nothing is refused, so decisions
				    * whose refusal errno could differ from the kernel's are made too):
				    * connects to abstract names nobody in the run's own network
				    * namespace holds (seccomp_unix.h), metadata calls through dangling links, and
				    * signals: kill/tkill/tgkill/rt_[tg]sigqueueinfo/pidfd_open naming a
				    * process outside the run (rule "signal outside the run") */
	struct sbx_sn_emu *emu;    /* seccomp_emulate.h: the run's connector (NULL: connects cannot
				    * be performed and are refused) */
	bool files_deny_only;      /* the opens, execs and write class were routed only to hold the
				    * manifest's denies (sbx_seccomp_opts.deny_files, not the reporter):
				    * refused only where a hard deny decides (pol_rule_hard_deny), with
				    * the reporter's event (critical: rule "deny[N]: ..."); everything else
				    * goes on to Landlock and bwrap. An allowed open is not continued but
				    * performed by the supervisor (seccomp_emulate.h sbx_sn_emulate_open,
				    * decided on the object actually reached, or the name when nothing is
				    * there), so a second thread rewriting the name cannot reach a match;
				    * what the policy does not grant is refused there (EACCES, as Landlock
				    * would: the supervisor is outside its domain) and reported there as
				    * contained — the probes never see a call seccomp answered; the write
				    * class is decided on the name and the object it resolves to, and
				    * continued or emulated as sbx_sn_route says. */
};

/* A peer or local address in the target's memory (`addr`, `len` bytes as given), decided as
 * connect (bind: as bind) decides it: 0 allowed (or left to the kernel: unreadable, another family,
 * netfilter's), 1 refused (rep filled). The address is copied once. */
int sbx_sn_decide_sockaddr(const struct sbx_sn_ctx *c, pid_t pid, bool bind, uint64_t addr, uint64_t len,
			   struct sbx_sn_report *rep);
/* process_vm_readv of `len` bytes at `addr` of `pid`: bytes read, or -1. */
ssize_t sbx_sn_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Whether `sys` is one of the metadata calls decided here (chmod/chown/xattr/utimes/mknod/link
 * families, inotify_add_watch, fanotify_mark). */
bool sbx_sn_is_meta(const char *sys);

/* Shared with seccomp_emulate.c (one copy of each idea): a NUL-terminated string from the
 * target's memory (its length, or -1: unreadable or not shorter than len); /proc/<the target's own
 * pid>/... rewritten to /proc/self/... as the preload and the probes write it; the target's thread
 * id as it sees it (its own pid namespace; 0 unknown). */
ssize_t sbx_sn_read_str(pid_t pid, uint64_t addr, char *buf, size_t len);
void sbx_sn_proc_self_rewrite(pid_t pid, char *path, size_t len);
/* `req` as the target names it, made absolute and normalized lexically (no link followed) against
 * its cwd (AT_FDCWD) or `dirfd`, read from its /proc entries: 0, or -1 (a dirfd that is no
 * directory of a file system, or too long). */
int sbx_sn_target_abs(pid_t pid, int dirfd, const char *req, char *out, size_t outlen);
/* A name the policy allows as written (`path`, absolute in the target's root): the object the
 * kernel would reach, symlinks followed (unless nofollow: the last one) — and where nothing is
 * reached there (bwrap does not mount a link's target), what the links name by their text. 1 when
 * that is denied (`path` replaced by it, *rule set), else 0. The decision of the file reporter,
 * for an open sbxsup performs and finds nothing at. */
int sbx_sn_decide_links(const struct sbx_sn_ctx *c, pid_t pid, unsigned acc, bool nofollow, char *path,
			size_t pathlen, uint32_t *rule);
long sbx_sn_ns_pid(pid_t pid);
/* connect/bind's decision on an address already copied from the target (len bytes of *ss):
 * 0 allowed (or not decided here), 1 refused (rep filled, rep->err). */
struct sockaddr_storage;
int sbx_sn_decide_addr(const struct sbx_sn_ctx *c, pid_t pid, bool bind, const struct sockaddr_storage *ss,
		       uint64_t len, struct sbx_sn_report *rep);

/* What the kernel loaded for `pid`, stopped at its exec (seccomp_execpin.h): its binary
 * (/proc/PID/exe) and every descriptor the new image holds (/proc/PID/fd/N: a binfmt_misc `O`
 * handler's AT_EXECFD), against the denies. 1 refused (rep filled: access exec and the binary, or
 * access read, the descriptor's file and requested "fd N held by the new image"; a deny's rule, or
 * "undecidable" when either cannot be read back), 0 not. */
int sbx_sn_decide_exe(const struct sbx_sn_ctx *c, pid_t pid, struct sbx_sn_report *rep);

/* comm and exe of `pid` into rep (a report of a call decided without sbx_sn_decide's refusal). */
void sbx_sn_fill_proc(pid_t pid, struct sbx_sn_report *rep);

/* The one builder of a whole refusal report (a contained kernel.violation) of `pid`'s call: rep
 * cleared, then `access`, `err`, the object as reached (`path`) and as requested (`requested`;
 * either NULL: empty; either may point into rep), the rule (printf-style), and the caller's comm and
 * exe. Returns 1, what a decision returns for "refused". */
int sbx_sn_violation(struct sbx_sn_report *rep, pid_t pid, const char *access, int err, const char *path,
		     const char *requested, const char *rulefmt, ...) __attribute__((format(printf, 7, 8)));

/* The privilege guard (policy.h pol_priv_mode / pol_priv_xattr), asked before any other
 * decision, by the layer's filter and the report-only sensor's alike: the chmod family, mknod,
 * open/openat/creat (registers), openat2 (its open_how), the setxattr family (the name, and for
 * an ACL the object's mode). Returns 1 refuse with EPERM (rep: access "privilege", rule
 * POL_PRIV_*, what = the attribute name, path/requested/comm/exe), 0 not privileged (or the task
 * is gone). The attribute name is in memory and can change after the check: the kernel's
 * CAP_SETFCAP check, which the executor never passes, is the wall; this makes the attempt seen. */
int sbx_sn_privilege(int listener, uint64_t id, pid_t pid, const char *sys, const uint64_t args[6],
		     struct sbx_sn_report *rep);

/* Whether `sys` is a send whose peer is decided (sendto, sendmsg, sendmmsg). */
bool sbx_sn_is_send(const char *sys);

/* A notified send: its peer (sendto's address, every message's msg_name, up to the kernel's
 * UIO_MAXIOV messages) decided as a connect to it is (sbx_sn_decide_sockaddr); a send without a
 * peer (a connected socket) is no decision; the first refused message refuses the call.
 * 0 continue, 1 refuse (rep filled), like sbx_sn_decide. */
int sbx_sn_decide_send(const struct sbx_sn_ctx *c, pid_t pid, const char *sys, const uint64_t args[6],
		       struct sbx_sn_report *rep);

/* One notified call: nr name, args, pid (the supervisor's view). id/listener are used to check
 * that the pid still belongs to the notified task after reading /proc. Returns 0 continue, 1
 * refuse (rep filled, rep->err set), 2 not a call of this module, 3 answer rep->err without a
 * report (not a policy refusal: errno fidelity — chown to an id the run's user namespace does not
 * map gets EPERM, as for any process without CAP_CHOWN, where the kernel would say EINVAL; never
 * from the report-only sensor). */
int sbx_sn_decide(const struct sbx_sn_ctx *c, int listener, uint64_t id, pid_t pid, const char *sys,
		  const uint64_t args[6], struct sbx_sn_report *rep);

#endif
