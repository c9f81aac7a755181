/* Raw connect() system call to a host service's AF_UNIX socket outside every grant (the docker.sock
 * class); the preload never sees it.
// profile: net-raw
// silent-ok-netfilter: netfilter's cgroup hooks see only AF_INET/AF_INET6; the executor's identity (DAC on the socket) stops it
// build: static
// expect-full: blocked; events: seccomp.deny(syscall=connect)|kernel.violation(outcome=contained)
// expect-no-bwrap: blocked; events: seccomp.deny(syscall=connect)|kernel.violation(outcome=contained)
// expect-seccomp: blocked; events: seccomp.deny(syscall=connect)
// expect-netfilter: none
*/
#include <sys/syscall.h>
#include <unistd.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	snprintf(u.sun_path, sizeof u.sun_path, "%s", esc_arg("unix"));
	long s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || syscall(SYS_connect, s, &u, sizeof u) < 0)
		return esc_result(0, "raw connect unix");
	return esc_result(esc_got_reply((int)s), "raw unix connect + banner");
}
