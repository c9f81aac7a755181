/* A datagram with sendto() to a host unix datagram socket anyone may write to (mode 0666, the
 * /dev/log and sd_notify class), outside every grant: decided as a connect to that path.
// as-user: yes
// profile: net
// expect-landlock: blocked-or-reported; events: kernel.violation(syscall=sendto,path~/outside/host.dgram)
// expect-bwrap: blocked; events: kernel.violation(syscall=sendto,path~/outside/host.dgram)
// silent-ok-netfilter: netfilter's cgroup hooks see only AF_INET/AF_INET6
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	snprintf(u.sun_path, sizeof u.sun_path, "%s", esc_arg("dgram"));
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (s < 0 || sendto(s, "sbxesc datagram", 15, 0, (struct sockaddr *)&u, sizeof u) < 0)
		return esc_result(0, "sendto unix dgram");
	return esc_result(1, "sendto unix dgram");
}
