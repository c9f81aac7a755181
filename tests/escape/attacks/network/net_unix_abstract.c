/* Connect to a host service's abstract AF_UNIX socket (the runner listens on it).
// profile: net
// silent-ok-netfilter: netfilter's cgroup hooks see only AF_INET/AF_INET6; the run's network namespace stops it
// silent-ok-seccomp: the run's network namespace stops it (ECONNREFUSED); seccomp cannot tell the run's own abstract sockets from the host's by name
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	const char *n = esc_arg("abstract");
	size_t len = strlen(n);
	memcpy(u.sun_path + 1, n, len);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&u, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0)
		return esc_result(0, "connect abstract");
	return esc_result(esc_got_reply(s), "abstract connect + banner");
}
