/* probes_decode.h — one kernel probe record (bpf/probes.h) -> a policy decision -> kernel.violation.
 *
 * Promise: pure functions, no system calls except the optional /proc/<pid>/exe lookup in
 * kv_emit. The record is bounds-checked before use (lengths, component counts, enums).
 * Decisions use only the compiled policy's functions (pol_normalize, pol_path, pol_net_addr,
 * pol_net_mode, pol_rule_text): there is no second rule engine here.
 *   - path syscalls: the absolute path is assembled from the kernel's dentry walk (the file of a
 *     returned fd / the new exe: complete; else the dirfd's or cwd's directory + the requested
 *     string, joined by pol_normalize); /proc/<own pid> is rewritten to /proc/self as the preload
 *     does; access = write for O_WRONLY/O_RDWR/O_CREAT/O_TRUNC/O_APPEND/O_TMPFILE and every
 *     modifying call (chmod/chown/truncate/xattr/mknod/link/symlink/utimes/rename families, the
 *     fd-based ones decided on the fd's file), exec for execve*, read for getxattr/listxattr,
 *     inotify/fanotify marks and the rest. O_PATH opens are not candidates (no data
 *     access; every open or exec through such an fd is seen and resolved itself).
 *   - connect/sendto/sendmsg/sendmmsg (its first message's name): pol_net_addr(family, addr, port);
 *     bind: violation only when the
 *     policy grants no network at all. AF_UNIX names: a path is decided as a write of the socket
 *     path (as the preload does); an abstract name is a violation unless the network is
 *     unrestricted (rule "abstract unix socket").
 *   - signals (kill, tkill, tgkill, rt_[tg]sigqueueinfo, pidfd_send_signal, pidfd_open): the BPF
 *     side only sends those aimed outside the run; each is a violation, rule "signal outside the
 *     run", with target_pid and signal.
 *   - the seccomp deny list (keyctl, perf_event_open, userfaultfd, chroot, clone/clone3 with
 *     namespace flags, module/kexec/swap/reboot/acct/quotactl/iopl/ioperm, *_handle_at,
 *     io_uring_register, ioctl TIOCSTI, personality changes, raw/packet sockets unless the network
 *     is unrestricted, raising RLIMIT_CORE): escape class.
 *   - a path argument the BPF side could not read (even again at exit) on a call that did not fail
 *     with EFAULT is a violation "unverifiable".
 *   - escape class (ptrace, mount family, pivot_root, unshare with namespace flags, setns, bpf,
 *     io_uring_setup/enter, io_uring operations, exec of a memfd): always a violation, rule
 *     "escape-class syscall".
 *   - a requested string longer than the enter copy (PR_NAME_MAX - 1 bytes) is decided on the whole
 *     string the BPF side read again at exit (up to PATH_MAX, PR_EVF_REQ_LONG), when it begins
 *     with the enter copy.
 *   - what the probes cannot decide — a path deeper than the walk bound (PATH_MAX of names), a
 *     requested string longer than PATH_MAX or changed between enter and exit, a path argument unreadable although the call did
 *     not fail with EFAULT, a relative path whose directory is not found or lies outside the task's
 *     tree — is reported with outcome "undecidable" (errno added when the call failed) and a rule
 *     saying why: never silently allowed, never called a breach.
 *   - an open whose result has no path in the task's tree (a pipe, socket, namespace or memfd
 *     reached through /dev/stdin, /proc/self/fd/N, /proc/self/ns/x) is decided on the string as
 *     given, as the preload decides it (the BPF side sends it so; bpf/probes.h).
 *   - an AF_UNIX name is abstract only when the kernel record says so (PR_EVF_ABSTRACT); a socket
 *     file whose name begins with '@' is a path.
 *   - a raced record (PR_EVF_RACED: the kernel's own copy of the name differs from what the buffer
 *     held at sys_enter) is always reported, with both names: `path` is what the kernel used (the
 *     object of a successful open, else the kernel's string joined like the requested one),
 *     `path_raced` the other name. Either name denied: a violation with that name's rule, stamped
 *     critical; neither: rule PR_RULE_RACED. Outcome: contained (failed), breach (succeeded on a
 *     denied object), raced (succeeded on an allowed object while the other name was denied).
 */
#ifndef SBX_PROBES_DECODE_H
#define SBX_PROBES_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include "audit.h"
#include "policy.h"
#include "bpf/probes.h"
#include "kviolation.h"

#define PR_RULE_SIGNAL "signal outside the run"
#define PR_RULE_ABSTRACT "abstract unix socket"
#define PR_RULE_DEEP "probes: path deeper than the walk bound (undecidable)"
#define PR_RULE_LONG "probes: requested path longer than the copy bound (undecidable)"
#define PR_RULE_UNREADABLE "probes: path argument unreadable (undecidable)"
#define PR_RULE_UNASSEMBLED "probes: path could not be assembled (undecidable)"
#define PR_RULE_DETACHED "probes: directory outside the task's tree (undecidable)"
#define PR_RULE_NOBASE "probes: relative path without its directory (undecidable)"
#define PR_RULE_GONE "probes: refused, and its name was gone before the decode (a link removed: undecidable)"
#define PR_RULE_LOST "probes: records lost when the ring and its overflow counters were full (undecidable)"
#define PR_RULE_RACED "probes: the name changed while the kernel used it (raced)"


const char *pr_sc_name(unsigned sc);
const char *pr_sensor_name(unsigned sensor);
/* Assemble the absolute path of a record (see bpf/probes.h "Path encoding"). 0, or -1 (too long /
 * malformed). Applies the /proc/<own pid> -> /proc/self rewrite. */
int pr_event_path(const struct pr_event *ev, char *out, size_t outlen);
/* Decide one record. Returns 1 violation, 0 allowed / not a candidate, -1 malformed record. */
int pr_decide(const struct policy *p, const struct pr_event *ev, struct kv_view *v);
/* Whether the call follows a symlink in the final component of path argument argi (open without
 * O_NOFOLLOW, chmod, chown, truncate, utimes without AT_SYMLINK_NOFOLLOW, the xattr calls without
 * "l", inotify, exec...); intermediate components are always followed. */
bool pr_follows_final(const struct pr_event *ev);
/* A record pr_decide() allowed on the path as given, decided again on `resolved` (the path the
 * kernel reaches through symlinks, found by the caller): 1 violation (v filled, requested = the
 * string as given), 0 allowed. Pure. */
int pr_decide_resolved(const struct policy *p, const struct pr_event *ev, const char *resolved,
		       struct kv_view *v);

#endif
