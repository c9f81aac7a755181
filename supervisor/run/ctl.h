/* ctl.h — the stage <-> supervisor control protocol on an AF_UNIX SOCK_SEQPACKET pair.
 *
 * Promise: the command is exec'd only after the supervisor's "go"; the supervisor learns the
 * stage's real pid from the kernel, never from the message. Stage -> supervisor: one "ready" message: "ready\n" + "key=value\n" lines (landlock / seccomp
 * status), with the seccomp listener fd attached (SCM_RIGHTS) when there is one. The supervisor
 * sets SO_PASSCRED on its end, so the kernel attaches the stage's pid (translated into the
 * supervisor's pid namespace) — the record's own claims are never trusted for the pid.
 * Supervisor -> stage: "go". Anything else, or EOF, means "do not exec".
 */
#ifndef SBX_CTL_H
#define SBX_CTL_H

#include <stddef.h>
#include <sys/types.h>

#define CTL_MAX 2048

int ctl_send_ready(int fd, const char *status, int passfd);
/* Returns 1 (ready received; *passfd = attached fd or -1; *pid from SCM_CREDENTIALS or 0),
 * 0 on EOF (the stage died before being ready), -1 on error or a malformed message. */
int ctl_recv_ready(int fd, char *status, size_t len, int *passfd, pid_t *pid);
int ctl_send_go(int fd);
/* Returns 0 when "go" arrived, -1 otherwise. */
int ctl_wait_go(int fd);
/* Value of `key` in a status text ("key=value" lines), copied into out; returns 0 or -1. */
int ctl_status_get(const char *status, const char *key, char *out, size_t outlen);

#endif
