/* seccomp_unix.h — the supervisor's decision on abstract unix names (the peer of a send is decided
 * in seccomp_notify.c, sbx_sn_decide_send, as a connect to it is). Owner: kernel (issue 28). Called
 * by seccomp_notify.c for the layer's filter, the report-only sensor and the privilege guard's own
 * filter alike; it knows the policy, not the notification (no circle with seccomp_notify).
 *
 * Promise:
 *   - Sends: sendto (its address argument), sendmsg (msghdr.msg_name) and sendmmsg (every message's
 *     msg_name, up to the kernel's UIO_MAXIOV messages) naming a peer are decided as a connect to
 *     that peer is (sbx_sn_decide_sockaddr): a unix path outside the write grants is refused with
 *     EPERM and reported with the path the kernel would reach; AF_INET/6 peers as connect decides
 *     them (left to netfilter where it enforces). A send without a peer (a connected socket) is
 *     not a decision. The first refused message refuses the whole call.
 *   - Abstract names (sun_path[0] == 0) and autobind (addrlen == sizeof(sa_family_t)): where the
 *     run has a network namespace of its own (pol_abstract_inside) they stay inside the run and
 *     are allowed. Where it shares the host's — whatever the network grant — a bind (and an
 *     autobind) is refused (EPERM, rule "abstract unix socket"; rep->hard: the report-only
 *     sensor refuses it too), since a name bound there is
 *     one a host client could connect to; and a connect or send to an abstract name is refused
 *     (EPERM): the run can hold no name there (every bind a decision sees is refused), so any
 *     name there is the host's.
 * Races: the address is copied once from the target and decided; an allowed send is continued
 * only where bwrap's mount tree stands behind it, and otherwise performed by the supervisor's
 * connector on a second copy decided again (seccomp_emulate.h sbx_sn_route), so a second thread
 * cannot swap the peer after the check; refusals are final.
 * Memory: nothing is allocated beyond the call.
 */
#ifndef SBX_SECCOMP_UNIX_H
#define SBX_SECCOMP_UNIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

struct policy;

/* An AF_UNIX address of `len` bytes (as given) that is abstract or an autobind, for a run with
 * policy `pol` (report_only: the sensor's question): 0 allow, 1 refuse (`path` set to "@name",
 * control bytes as '?', or "@ (autobind)"; the caller reports it with EPERM, rule "abstract unix
 * socket", hard for a bind); -1 not abstract (a path: the caller decides). */
int sbx_sn_abstract(const struct policy *pol, bool report_only, pid_t pid, bool bind, const struct sockaddr_un *sun,
		    size_t len, char *path, size_t pathlen);

#endif
