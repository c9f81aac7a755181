/* ctl.h — the stage <-> supervisor control protocol on an AF_UNIX SOCK_SEQPACKET pair.
 *
 * Promise: the command is exec'd only after the supervisor's "go"; the supervisor learns the
 * stage's real pid from the kernel, never from the message. Stage -> supervisor: one "ready" message: "ready\n" + "key=value\n" lines (landlock / seccomp
 * status), sent with send() — the stage's filter notifies every sendmsg, so the ready message
 * must not be one; the seccomp listener, when there is one, is named on a first line
 * "listener_fd=N" and the supervisor takes it from the stage with pidfd_getfd (the stage waits
 * for "go" meanwhile, so the number is still its; a root supervisor without CAP_SYS_PTRACE and a
 * stage of another uid take it with a thread switched to the stage's real ids, actas.h
 * sbx_take_fd); a filter that does not route sendmsg (the
 * privilege guard's own) has it attached (SCM_RIGHTS) as before. The supervisor
 * sets SO_PASSCRED on its end, so the kernel attaches the stage's pid (translated into the
 * supervisor's pid namespace) — the record's own claims are never trusted for the pid.
 * Supervisor -> stage: "go". Anything else, or EOF, means "do not exec".
 * A pre-created sandbox (`sbxsup serve`, docs/serve.md) gets the call with its "go" instead:
 * "go\n" + the call's argv (NUL-terminated strings, at most CTL_CALL_MAX bytes in all) and exactly
 * three descriptors (SCM_RIGHTS): the call's stdin, stdout, stderr. The stage execs that argv
 * (its argv[0] must be the one it was prepared for) with those descriptors on 0-2.
 */
#ifndef SBX_CTL_H
#define SBX_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CTL_MAX 2048
#define CTL_LISTENER "listener_fd="

/* by_number: the installed filter routes sendmsg to the supervisor (the seccomp layer's, the
 * sensor's): the listener is named, not attached. Else it is attached (SCM_RIGHTS), which needs no
 * ptrace access (the privilege guard's own filter, e.g. a container without CAP_SYS_PTRACE). */
int ctl_send_ready(int fd, const char *status, int passfd, bool by_number);
/* Returns 1 (ready received; *passfd = attached fd or -1; *pid and *uid from SCM_CREDENTIALS, as
 * the receiver's namespaces see them, or 0 and (uid_t)-1), 0 on EOF (the stage died before being
 * ready), -1 on error or a malformed message. */
int ctl_recv_ready(int fd, char *status, size_t len, int *passfd, pid_t *pid, uid_t *uid);
int ctl_send_go(int fd);
/* Returns 0 when "go" arrived, -1 otherwise. */
int ctl_wait_go(int fd);
#define CTL_CALL_MAX 65536
/* "go" with the call: argv (NULL-terminated) and its stdio[3]. Returns 0, -1 (too long / error). */
int ctl_send_go_call(int fd, char *const *argv, const int stdio[3]);
/* Returns 0 for a plain "go"; 1 for "go" with a call: *argv (malloc'd vector and strings, one block:
 * free(*argv)) and stdio[0..2] (close-on-exec); -1 otherwise (never run the command). */
int ctl_wait_go_call(int fd, char ***argv, int stdio[3]);
/* Value of `key` in a status text ("key=value" lines), copied into out; returns 0 or -1. */
int ctl_status_get(const char *status, const char *key, char *out, size_t outlen);

#endif
