/* stdio_lend.h — the executor's stdio pipes, opened to its host identity for the run (root only).
 *
 * A pipe the invoking shell made is root's, mode 0600. The executor, an unprivileged host identity
 * (sandbox_direct.h), holds it open but could not open it again by name — /dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N: `echo x > /dev/stderr`, `tee /dev/stdout`, Python's
 * open("/dev/stdout", "w") — as any program can outside a sandbox.
 *
 * Promise: stdio_lend() opens each of the executor's stdin/stdout/stderr that is an anonymous pipe
 * (pipefs) owned by uid 0 to others in the way the executor holds it only (the read end o+r, the
 * write end o+w, both o+rw; the owner's and group's bits as they were). The owner stays root, so
 * the executor (an "other": never uid 0, never group 0) can open it again as it holds it but can
 * never change its mode: it never reads what another writer sends to its output nor writes into
 * its input. Who else could open it by name needs ptrace access to a process holding it (root, or
 * the executor's own uid inside its pid namespace). stdio_return() gives back the mode each had,
 * unless the pipe is no longer as lent (another run changed it, or the descriptor now names
 * something else). Named FIFOs, files, terminals and sockets are never
 * touched (reopening those stays the kernel's decision for the executor's identity;
 * docs/known-gaps.md). A pipe that cannot be lent is left as it was.
 * Ownership: plain data; the descriptors are the caller's (neither closed nor kept open here).
 */
#ifndef SBX_STDIO_LEND_H
#define SBX_STDIO_LEND_H

#include <stdbool.h>
#include <sys/types.h>

struct stdio_lend {
	int fd[3];
	bool lent[3];
	dev_t dev[3];
	ino_t ino[3];
	uid_t uid[3];   /* the owner (root), unchanged: checked before the mode is given back */
	mode_t mode[3]; /* the permission bits before, and as lent */
	mode_t as_lent[3];
};

/* fds: the executor's stdin, stdout, stderr. Nothing is done for host_uid 0. */
void stdio_lend(struct stdio_lend *s, const int fds[3], uid_t host_uid);
void stdio_return(struct stdio_lend *s);

#endif
