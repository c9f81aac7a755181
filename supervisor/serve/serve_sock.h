/* serve_sock.h — the listening socket of `sbxsup serve` (docs/serve.md "Threat model").
 *
 * Promise: serve_listen() makes an AF_UNIX SOCK_SEQPACKET socket at PATH that only its owner can
 * use: the directory holding it must be a directory owned by the caller (or root) that neither
 * group nor others can write (else nobody but the owner could have placed or replaced the name);
 * an existing name is refused unless it is a socket of the caller's that no server answers on
 * (a stale one, then unlinked); the socket is bound under umask 0177 and fchmod'ed 0600 before
 * listen(2), and checked (lstat: a socket, mode 0600, ours) after. serve_unlisten() closes it and
 * removes the name only while it is still the socket we bound (same device and inode).
 * Who may call is serve_peer.h's.
 * Ownership: the caller owns the returned descriptor and struct serve_sock.
 */
#ifndef SBX_SERVE_SOCK_H
#define SBX_SERVE_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct serve_sock {
	int fd;
	dev_t dev;
	ino_t ino;
	char path[108];
};

int serve_listen(const char *path, struct serve_sock *s, char *why, size_t whylen);
void serve_unlisten(struct serve_sock *s);

#endif
