/* seccomp_layer.h — the seccomp layer (libseccomp). Owner: kernel-layers work (issue 5).
 *
 * Promise: sbx_seccomp_install() loads, with TSYNC, into the calling process (the exec stage, just
 * before execve of the command) a filter that denies the SPEC's dangerous syscalls with an errno
 * (never a kill), and — when the kernel has seccomp user notification — routes each denial through
 * a listener fd so the supervisor can emit `seccomp.deny` and answer with the errno.
 * Foreign architectures (i386 int 0x80, x32) are denied and reported the same way.
 */
#ifndef SBX_SECCOMP_LAYER_H
#define SBX_SECCOMP_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "audit.h"

/* Host check without side effects on this process. Returns 1 usable (level: "notify" or
 * "errno (no user notification: <reason>)"), 0 unusable (why). */
int sbx_seccomp_probe(char *level, size_t levellen, char *why, size_t whylen);

/* In the stage: install. *listener gets the notification fd, or -1 when notify is unavailable
 * (denials then return their errno unreported and level says so). Returns 0, or -1 (why). */
int sbx_seccomp_install(int *listener, char *why, size_t whylen);

/* In the supervisor: receive one pending notification from `listener`, answer it with its errno,
 * emit `seccomp.deny` (pid, syscall name, action). Returns 0, or -1 when the listener is gone. */
int sbx_seccomp_handle(int listener, struct audit *a);

/* For --dry-run: the rules as JSON ({"deny":[{"syscall":..,"errno":..,"when":..}],...}). */
cJSON *sbx_seccomp_plan(void);

#endif
