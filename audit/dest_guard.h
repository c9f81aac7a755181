/* dest_guard.h — where a destination the caller reads (the audit stream, the result record, the
 * socket of `sbxsup serve`) may lie, and how a file destination is opened: one rule for all of them
 * (docs/audit-keys.md "Destination", docs/result-record.md).
 *
 * Promise: dest_grant() says whether the compiled policy lets the executor reach a path: `access`
 * (POL_READ or POL_WRITE) on the path itself or, for POL_WRITE, on any ancestor directory (whoever
 * can write a directory can rename what is in it); checked on the path as given (made absolute
 * against the working directory) and on the same path with its directory resolved by realpath. A
 * "builtin:tmp" grant does not count when private_tmp (the executor's /tmp is its own: bwrap mode).
 * It returns the grant's rule text and the path it covers in `which`, or NULL.
 * dest_refuse_writable() is dest_grant(POL_WRITE) worded as the one-line refusal every caller
 * prints ("refused: the executor can write ..."). dest_open() opens a file destination for writing
 * without ever following a symbolic link or waiting on a FIFO or device (O_CREAT|O_NOFOLLOW|
 * O_NONBLOCK|O_NOCTTY|O_CLOEXEC, 0600, plus the caller's extra flags such as O_APPEND) and keeps it
 * only when it is a regular file owned by the invoking (real) uid, with a single link and no
 * group/other write bit; O_NONBLOCK is cleared afterwards. Nothing is truncated here.
 * dest_paths() is the lexical and the resolved absolute form of a path (resolved[0] = 0 when its
 * directory does not exist).
 * Ownership: pure functions; dest_open() returns a descriptor the caller closes.
 */
#ifndef SBX_DEST_GUARD_H
#define SBX_DEST_GUARD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "policy.h"

int dest_paths(const char *path, char abs[PATH_MAX], char resolved[PATH_MAX]);
const char *dest_grant(const struct policy *pol, const char *path, unsigned access, bool private_tmp,
		       char *which, size_t wlen);
/* 0 when the executor cannot write path (or pol is NULL), else -1 with the refusal in err: `what`
 * names what it could forge ("the audit stream", "the result record"). */
int dest_refuse_writable(const struct policy *pol, const char *path, bool private_tmp, const char *what,
			 char *err, size_t errlen);
/* The descriptor, or -1 with a one-line reason in err (st filled on success). */
int dest_open(const char *path, int extra_flags, struct stat *st, char *err, size_t errlen);

#endif
