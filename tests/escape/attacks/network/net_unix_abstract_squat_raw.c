/* The abstract squat by raw system calls (a static binary: no preload): bind an abstract name a
 * host client then connects to (the runner's client keeps trying squat= during the run), with an
 * unrestricted network grant.
// as-user: yes
// profile: net-raw
// manifest: netany
// setup: abstract-squat
// build: static
// expect-full: blocked; events: seccomp.deny(syscall=bind)|run.start(level.ns~net)
// expect-no-bwrap: blocked; events: seccomp.deny(syscall=bind)|run.start(level.ns~net)
// expect-preload-only: blocked; events: kernel.violation(access=bind,outcome=contained)|run.start(level.ns~net)
// expect-seccomp: blocked; events: seccomp.deny(syscall=bind)|run.start(level.ns~net)
// expect-landlock: blocked-or-reported; events: kernel.violation(access=bind)|run.start(level.ns~net)
// expect-bwrap: blocked-or-reported; events: kernel.violation(access=bind)|run.start(level.ns~net)
// expect-probes: blocked-or-reported; events: kernel.violation(access=bind)|run.start(level.ns~net)
// expect-netfilter: none
// silent-ok: with a network namespace of its own (run.start level.ns has "net") the name stays inside the run: allowed, not reported, and the host's client cannot reach it
*/
#include <sys/syscall.h>
#include <unistd.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	const char *n = esc_arg("squat");
	size_t len = strlen(n);
	memcpy(u.sun_path + 1, n, len);
	long s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || syscall(SYS_bind, s, &u, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0 ||
	    syscall(SYS_listen, s, 4) < 0)
		return esc_result(0, "raw bind abstract squat");
	struct pollfd p = {.fd = (int)s, .events = POLLIN};
	if (poll(&p, 1, 3000) != 1)
		return esc_result(0, "bound, no host client came");
	long c = syscall(SYS_accept, s, NULL, NULL);
	return esc_result(c >= 0 && esc_got_reply((int)c), "host client captured");
}
