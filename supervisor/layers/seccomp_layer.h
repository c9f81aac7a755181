/* seccomp_layer.h — the seccomp layer (libseccomp); its entry in the layer table is layer_seccomp.
 *
 * Promise: sbx_seccomp_install() loads, with TSYNC, into the calling process (the exec stage, just
 * before execve of the command) a filter that denies the SPEC's dangerous syscalls with an errno
 * (never a kill), and — when the kernel has seccomp user notification — routes each denial through
 * a listener fd so the supervisor can emit `seccomp.deny` and answer with the errno.
 * Foreign architectures (i386 int 0x80, x32) are denied and reported the same way.
 * The rule table (seccomp_layer.c, also printed by sbx_seccomp_plan) is the SPEC list plus
 * pidfd_getfd, raw IP / packet sockets and setting RLIMIT_CORE; clone3 is refused with ENOSYS
 * silently (glibc falls back to clone, whose namespace flags are checked and reported).
 */
#ifndef SBX_SECCOMP_LAYER_H
#define SBX_SECCOMP_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "audit.h"
#include "seccomp_notify.h"
#include "seccomp_emulate.h"
#include "seccomp_execpin.h"

/* Host check without side effects on this process. Returns 1 usable (level: "notify" or
 * "errno (unreported: <reason>)"), 0 unusable (why). */
int sbx_seccomp_probe(char *level, size_t levellen, char *why, size_t whylen);

/* In the stage, before any filter of its own: true when a filter it installs now can have a
 * user-notification listener — the API level allows notification and no filter is installed yet
 * (an outer sandbox's may hold the chain's only listener; conservative: any filter counts, a
 * container runtime's too). No side effect. */
bool sbx_seccomp_listener_possible(void);

/* In the stage: install. *listener gets the notification fd (O_CLOEXEC), or -1 when notify is
 * unavailable (denials then return their errno unreported and level says so). Also sets
 * no_new_privs. Returns 0, or -1 (why). The caller must hand the listener to the supervisor before
 * it makes any call the filter denies (it would block until someone answers), and must not let it
 * reach the executor. If every holder of the listener closes it, denied calls fail with ENOSYS. */
int sbx_seccomp_install(int *listener, char *why, size_t whylen);

/* The same, with options. deny_exec (the policy has no code:exec): execve/execveat are routed to
 * the supervisor as well; sbx_seccomp_handle_state lets the FIRST one continue (the stage's own
 * execve of the command) and refuses every later one with EACCES + `seccomp.deny`. Needs user
 * notification: exec_gated (out) tells whether the gate is in the filter (false without
 * notification — then only Landlock stands in the way of an exec). sbx_seccomp_install(l, ...) =
 * _opts({.deny_exec = false}, l, ...). */
struct sbx_seccomp_opts {
	bool deny_exec;   /* in */
	bool net_notify;  /* in: route connect/bind to the supervisor (named unix sockets, loopback
			   * binds, and AF_INET/6 peers when netfilter is off): seccomp_notify.h */
	bool netfilter;   /* in: netfilter enforces AF_INET/6 (sendto with an address is then its job) */
	bool report_files;/* in: the reporter — open/openat/openat2/creat/execve/execveat routed to the
			   * supervisor, decided with the policy, refused + kernel.violation
			   * (sensor seccomp-notify). For when the probes are off and the preload does not
			   * see the command. */
	bool deny_files;  /* in: the policy has manifest denies (pol_manifest_deny): the opens, execs
			   * and write class are routed to the supervisor as for report_files, which
			   * refuses only what a hard deny decides (sbx_sn_ctx.files_deny_only) — a
			   * deny below libc in every mode with this layer, for files that exist at
			   * start and files created later. Needs user notification. */
	bool meta_notify; /* in: metadata changes and watches (chmod/chown/xattr/utimes/mknod/link
			   * families, inotify_add_watch, fanotify_mark) routed to the supervisor, decided by
			   * path with the policy, refused outside the grants + kernel.violation
			   * (seccomp_notify.h). Every mode with a policy: Landlock has no right for them. */
	bool report_only; /* in: the report-only sensor (layer seccomp off, probes off): every rule is
			   * SCMP_ACT_NOTIFY or absent (never an errno: nothing is refused), the
			   * supervisor decides with the same policy, writes kernel.violation (sensor
			   * seccomp-notify, outcome "attempted") and lets every call continue. Needs user
			   * notification: without it (or with an outer listener) install fails (why). */
	bool guard;       /* in: the privilege guard's own filter (sbx_privguard_install): no deny table */
	bool guard_abstract; /* in, with guard: bind/connect routed to the supervisor, which refuses
			   * abstract names (the run shares the host's network namespace: seccomp_unix.h) */
	bool exec_gated;  /* out */
	bool notify_busy; /* out: an outer filter already has a listener (sbxsup in sbxsup): errno only */
};
int sbx_seccomp_install_opts(struct sbx_seccomp_opts *o, int *listener, char *why, size_t whylen);

/* The same rules with SCMP_ACT_ERRNO only (what a host without user notification gets): denials
 * return their errno, unreported. Used by sbx_seccomp_install on such hosts, and by tests. */
int sbx_seccomp_install_errno_only(char *why, size_t whylen);

/* In the supervisor: receive one pending notification from `listener`, answer it with its errno,
 * emit `seccomp.deny` (pid, syscall name — "<arch>:<name>" for a foreign architecture —, action
 * "errno EPERM"). Never blocks (polls the listener first). Returns 0 (also when nothing was pending
 * or the caller died meanwhile), or -1 when the listener is gone (no filter user left: remove it
 * from the event loop and close it) or the audit stream failed (a->failed set: fail closed).
 * `a` may be NULL (answer only). */
int sbx_seccomp_handle(int listener, struct audit *a);

/* sbx_seccomp_handle with the exec gate's state: one per filter (per listener), zeroed before its
 * first notification. sbx_seccomp_handle(l, a) = _state(l, a, NULL): with the gate installed, a
 * NULL state refuses every exec, the command's own included (fail closed). */
struct sbx_seccomp_state {
	bool exec_spent;  /* the stage's own execve was let through */
	bool exec_open;   /* code:exec: later execs go to the reporter's decision, not the gate */
	bool report_only; /* the report-only sensor's filter: every call continues, refusals the
			   * policy would make are written as kernel.violation outcome "attempted"
			   * (but the guard's refusals and, with deny_held, a manifest deny's) */
	bool guard_only;  /* the privilege guard's own filter (sbx_privguard_install): what the guard
			   * does not refuse continues, unreported */
	struct sbx_sn_ctx ctx; /* policy + netfilter for the argument decisions (seccomp_notify.h) */
	bool deny_opens;  /* the policy has a manifest deny: every allowed open is performed by the
			   * supervisor on the object it decided (seccomp_emulate.h), never continued */
	bool deny_held;   /* the layer is off and the report-only sensor's or the guard's filter holds
			   * the manifest's denies (the stage's status "denies"): every call of the
			   * deny's class (open/openat/creat, the write class, execs after the
			   * command's own, link/linkat) is decided with the layer's deny-only decision
			   * (files_deny_only) and performed or refused as the layer's filter does it
			   * (opens emulated on the object decided); the sensor's report besides */
	struct execpin_set *pins; /* a run with a deny: each exec that continues is traced to the
				   * binary the kernel loads (seccomp_execpin.h); NULL: not (the
				   * layer entry's run state owns it) */
	struct sbx_sn_walls walls; /* what stands behind a "continue" (seccomp_emulate.h sbx_sn_route):
				    * an allowed call the table routes to emulation is performed by the
				    * supervisor, one it routes to refusal is refused */
};
/* The state for one run's filter: zeroed, the policy (may be NULL: argument decisions then fail
 * closed), whether netfilter enforces AF_INET/6 connects. */
void sbx_seccomp_state_init(struct sbx_seccomp_state *st, const struct policy *pol, bool netfilter);
int sbx_seccomp_handle_state(int listener, struct audit *a, struct sbx_seccomp_state *st);

/* The kernel layers' stage options (--netfilter, --report-files, --sensor) and the report-only
 * sensor — wanted when neither seccomp nor the probes are on and the operator did not turn it off
 * (sbx_layers.sensor_off) — are the entry's (layer.h stage_options, sensor, stage_said). */

/* In the stage, when neither the layer's filter nor the sensor's was installed (and the run is
 * not SBXSUP_SANDBOX=0): the privilege guard alone. chmod family and mknod with S_ISUID/S_ISGID,
 * open/openat/creat creating a file with them, mknod of a character or block device, the setxattr
 * family and foreign-architecture calls are routed to the supervisor (*listener), which refuses
 * the privileged ones with EPERM and a critical kernel.violation and lets the rest continue
 * (sbx_seccomp_state.guard_only); unshare/clone with CLONE_NEWUSER: EPERM; openat2 and clone3
 * (their mode/flags are in memory) and io_uring_setup (a ring opens files with no system call):
 * ENOSYS. abstract (the run shares the host's network namespace): bind and connect are routed too,
 * and an abstract name (or an autobind) is refused with EPERM and reported (seccomp_unix.h); the
 * rest continues. denies (the policy has a manifest deny, the layer is off): the calls the layer
 * routes for the denies — open/openat/creat, the write class, execve/execveat — and link/linkat
 * are routed too, and the supervisor decides and performs them as the layer does
 * (sbx_seccomp_state.deny_held). Without user notification (or with an outer
 * listener) the same rules answer EPERM themselves (*listener -1; the setxattr family is then
 * left to the kernel, foreign calls are refused). The layer's and the sensor's filters carry the
 * same rules. Needs no_new_privs (set by the capability drop). 0, or -1 (why). */
int sbx_privguard_install(int *listener, bool abstract, bool denies, char *why, size_t whylen);

/* For --dry-run: the rules as JSON ({"deny":[{"syscall":..,"errno":..,"when":..}],...}). */
cJSON *sbx_seccomp_plan(void);

/* The entry's stage op (layer.h): the layer, the report-only sensor or the privilege guard
 * alone . */
struct layer_stage;
int sbx_seccomp_stage(struct layer_stage *s, bool on);

#endif
