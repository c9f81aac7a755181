/* Connect to a host service's AF_UNIX socket (path outside every grant; the runner listens on it).
// profile: net
// silent-ok-netfilter: netfilter's cgroup hooks see only AF_INET/AF_INET6; the executor's identity (DAC on the socket) stops it
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	snprintf(u.sun_path, sizeof u.sun_path, "%s", esc_arg("unix"));
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&u, sizeof u) < 0)
		return esc_result(0, "connect unix");
	return esc_result(esc_got_reply(s), "unix connect + banner");
}
