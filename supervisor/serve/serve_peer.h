/* serve_peer.h — who may call `sbxsup serve` (docs/serve.md "Threat model").
 *
 * Promise: serve_peer_check() decides one accepted connection from the kernel's view of the
 * process that connected, never from anything it sent:
 *  - its uid (SO_PEERCRED) must be the server's effective uid;
 *  - it must not be a process of any run: not in a run's cgroup (cgroup.h cg_proc_in_run, every
 *    hierarchy) and not in another user namespace than the server's (where every bwrap sandbox
 *    is, also when no cgroup could be made for the run);
 *  - what cannot be checked is refused (fail closed): no credentials, a pid the server cannot see
 *    (another pid namespace), an unreadable /proc entry, a peer gone before it was checked.
 * The pid is pinned against reuse: the kernel's pidfd of the peer (SO_PEERPIDFD, Linux 6.5; else
 * pidfd_open of the SO_PEERCRED pid, which leaves the window between connect and that call) must
 * still name a live process after its /proc directory was opened, so that directory is the peer's.
 * Returns 1 (may call), 0 (refused: why says it in one line).
 */
#ifndef SBX_SERVE_PEER_H
#define SBX_SERVE_PEER_H

#include <stddef.h>

int serve_peer_check(int conn, char *why, size_t whylen);

#endif
