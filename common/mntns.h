/* mntns.h — a private mount namespace for the calling process (a forked child before it execs the
 * sandbox), so what it mounts is seen by what it execs and never by the host.
 *
 * Promise: sbx_mntns_private() unshares a mount namespace; when the caller is not root it first
 * unshares a user namespace that maps only its own uid and gid onto themselves (setgroups denied),
 * so it keeps its identity and gains only the right to mount there. Propagation is then made
 * private (nothing mounted here reaches the host). Returns 0, or -1 with errno set and `what` (the
 * step that failed) set. Nothing is allocated; for a forked child of a threaded parent.
 */
#ifndef SBX_MNTNS_H
#define SBX_MNTNS_H

#include <stdbool.h>

int sbx_mntns_private(const char **what);

/* Is anything mounted strictly below dir (and, with at_too, at dir itself) in the caller's mount
 * namespace (field 5 of /proc/self/mountinfo), other than the mount point `except` (NULL: none)?
 * true when it cannot tell (mountinfo unreadable): callers treat "maybe" as "yes". */
bool sbx_mounted_below(const char *dir, bool at_too, const char *except);

#endif
