/* container_env.h — is sbxsup running inside a container, and what does the container withhold
 * that a layer needs.
 *
 * Promise: read-only probes of this process's view (no process started except, in
 * container_missing, one short-lived child that tries a user namespace): the container markers
 * (/.dockerenv, /run/.containerenv, the `container` environment variable, a container runtime in
 * /proc/1/cgroup, an overlay root in /proc/self/mountinfo), and — for `status` — one line per
 * missing piece with the setting that would give it (capabilities, the seccomp profile, an
 * unmasked /proc, a delegated cgroup v2). The texts name docs/deployment.md. No global state.
 */
#ifndef SBX_CONTAINER_ENV_H
#define SBX_CONTAINER_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* True inside a container; `what` says how it was recognised (e.g. "podman: /run/.containerenv"). */
bool container_detect(char *what, size_t len);

/* bwrap blames the kernel's sysctl for any EPERM of clone(CLONE_NEWUSER) ("..., likely because the
 * kernel does not allow non-privileged user namespaces. See ..."). Inside a container the seccomp
 * profile or the capabilities refuse it: there, that blame is cut from msg (in place) and true is
 * returned with the container's description in `what`; elsewhere msg is left alone (false). */
bool container_bwrap_blame(char *msg, char *what, size_t len);

/* Calls out(line, ctx) once per missing piece ("CAP_SYS_ADMIN: ... — fix: ..."); returns how many. */
int container_missing(void (*out)(const char *line, void *ctx), void *ctx);

#endif
