/* smallfile.h — read or write a small file (procfs, sysfs, cgroupfs) in one system call.
 *
 * Promise: each call opens with O_CLOEXEC, does one read or one write, closes, and preserves the
 * errno of the failing step. Nothing is kept open; no allocation. The caller owns every buffer.
 * Meant for kernel interface files whose whole content fits one read (a sysctl, uid_map,
 * cgroup.procs, /proc/<pid>/limits), not for regular files of unknown size.
 */
#ifndef SBX_SMALLFILE_H
#define SBX_SMALLFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Read at most len-1 bytes of `path` into buf and NUL-terminate it (len must be > 0). Returns the
 * number of bytes read (0 for an empty file), or -1 with errno set. */
ssize_t sbx_read_small(const char *path, char *buf, size_t len);

/* The file's content as a decimal long (leading blanks and a trailing newline allowed). Returns
 * 0 and sets *out, or -1 (unreadable, empty or not a number; errno EINVAL for the last two). */
int sbx_read_long(const char *path, long *out);

/* Write the string s (without its NUL) to `path` in one write. Returns 0, or -1 with errno set
 * (a short write is EIO). */
int sbx_write_small(const char *path, const char *s);

#endif
