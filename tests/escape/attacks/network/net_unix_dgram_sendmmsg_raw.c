/* Raw sendmmsg() (a static binary): the first message goes to a datagram socket of the run's own
 * (bound in the workspace: granted), the second to a host 0666 unix datagram socket outside every
 * grant — every message's msg_name is decided, not only the first (where the probes report, which
 * read only the first message's peer, by the privilege guard's filter, which routes sendmmsg and
 * refuses; as a normal user preload-only has the report-only sensor instead, which reports it).
// as-user: yes
// profile: net-raw
// build: static
// expect-full: blocked; events: seccomp.deny(syscall=sendmmsg,path~/outside/host.dgram)|kernel.violation(outcome=contained,path~/outside/host.dgram)
// expect-no-bwrap: blocked; events: seccomp.deny(syscall=sendmmsg,path~/outside/host.dgram)|kernel.violation(outcome=contained,path~/outside/host.dgram)
// expect-seccomp: blocked; events: seccomp.deny(syscall=sendmmsg,path~/outside/host.dgram)
// expect-landlock: blocked-or-reported; events: kernel.violation(syscall=sendmmsg,path~/outside/host.dgram)
// expect-bwrap: blocked; events: kernel.violation(syscall=sendmmsg,path~/outside/host.dgram)
// expect-netfilter: none
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,syscall=sendmmsg,path~/outside/host.dgram)
// expect-probes: blocked; events: kernel.violation(outcome=contained,syscall=sendmmsg,path~/outside/host.dgram)
// expect-preload-only-user: blocked-or-reported; events: kernel.violation(syscall=sendmmsg,path~/outside/host.dgram)
// silent-ok-netfilter: netfilter's cgroup hooks see only AF_INET/AF_INET6
*/
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un own = {.sun_family = AF_UNIX}, host = {.sun_family = AF_UNIX};
	snprintf(own.sun_path, sizeof own.sun_path, "%s/own.dgram", esc_arg("ws"));
	snprintf(host.sun_path, sizeof host.sun_path, "%s", esc_arg("dgram"));
	long r = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	if (r < 0 || syscall(SYS_bind, r, &own, sizeof own) < 0)
		fprintf(stderr, "attack: own receiver: %s\n", strerror(errno));
	long s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	char data[] = "sbxesc datagram";
	struct iovec iov = {.iov_base = data, .iov_len = sizeof data - 1};
	struct mmsghdr v[2];
	memset(v, 0, sizeof v);
	for (int i = 0; i < 2; i++) {
		v[i].msg_hdr.msg_iov = &iov;
		v[i].msg_hdr.msg_iovlen = 1;
		v[i].msg_hdr.msg_name = i ? &host : &own;
		v[i].msg_hdr.msg_namelen = sizeof host;
	}
	long n = s < 0 ? -1 : syscall(SYS_sendmmsg, s, v, 2, 0);
	fprintf(stderr, "attack: sendmmsg sent %ld message(s)\n", n);
	return esc_result(n == 2, "raw sendmmsg unix dgram");
}
