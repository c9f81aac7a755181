/* syspaths.h — the one list of what is never writable, shared by the policy build, manifest
 * validation, `explain` and `learn`.
 *
 * Promise: sys_path(i) is the SPEC's list of system paths (always readable, never writable: /usr
 * /bin /sbin /lib /lib64 /lib32 /opt /var/lib/python3); policy_build.c grants them read-only from
 * this list. never_writable(i) is that list plus /etc: no manifest may grant a write that could
 * reach them — sys_write_conflicts() names those a write glob would include (the manifest is then
 * invalid: "fs:write would include /usr /etc, never writable"), so that the policy core, and
 * hence `explain`, never says ALLOWED where bwrap and Landlock refuse. A grant at or under the
 * workspace is the workspace's (the caller chose it) and is not checked. learn_write_refused()
 * says why `learn` must not propose a write of a path (an absolute, normalised path): "/", under
 * a never-writable path, /boot, /var/lib, /root, /lib* or another user's home; else NULL.
 * Pure (no I/O); the strings are static.
 */
#ifndef SBX_SYSPATHS_H
#define SBX_SYSPATHS_H

#include <stdbool.h>
#include <stddef.h>

const char *sys_path(size_t i);       /* NULL past the end */
const char *never_writable(size_t i); /* NULL past the end */
/* True when `path` is dir or below it (both absolute, normalised). */
bool path_under(const char *path, const char *dir);
/* How many never-writable paths some path matching `glob` (absolute, normalised) would be at or
 * below; their names, space-separated, in out. `workspace` (may be NULL): a glob whose literal
 * prefix lies at or under it is not checked (0). */
size_t sys_write_conflicts(const char *glob, const char *workspace, char *out, size_t len);
/* Why a write of `path` is never proposed by learn, or NULL. `home`: the invoking user's home. */
const char *learn_write_refused(const char *path, const char *home);

#endif
