/* fdpath.h — the path the kernel names an open descriptor by.
 *
 * Promise: fd_path() is one readlink(2) of /proc/self/fd/N: the text as the kernel gives it (an
 * absolute path, " (deleted)" after an unlinked file's last name, or "pipe:[N]", "socket:[N]",
 * "anon_inode:..." for what has no path), NUL-terminated and never cut short (a text that does not
 * fit fails). path_drop_deleted() drops that " (deleted)" in place, for callers that decide a
 * deleted file on its last name. The one reader of /proc/self/fd links for the seccomp decisions
 * (seccomp_notify.c, seccomp_emulate.c) and the probes' run-root paths (probes_layer.c).
 *
 * Ownership: the caller owns every buffer; nothing is kept open; no allocation, no global state.
 */
#ifndef SBX_FDPATH_H
#define SBX_FDPATH_H

#include <stddef.h>

/* 0 and out set, or -1 with errno (EBADF, ENOENT without /proc, ENAMETOOLONG when the text does
 * not fit outlen bytes with its NUL). */
int fd_path(int fd, char *out, size_t outlen);

/* A trailing " (deleted)" removed in place (a path that is exactly that is left alone). */
void path_drop_deleted(char *path);

#endif
