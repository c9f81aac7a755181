/* Connect to a host service's abstract AF_UNIX socket (the runner listens on it).
 * No network is granted, so every mode gives the run a network namespace of its own: the host's
 * abstract names do not exist there (ECONNREFUSED, the listener gets nothing) and abstract sockets
 * are allowed inside the run without a report (issue 17; policy POL_F_ABSTRACT_INSIDE). Where no
 * namespace can be made the preload still refuses and reports it (tests/integration/preload_abstract).
// profile: net
// expect-full: blocked; events: none
// expect-no-bwrap: blocked; events: none
// expect-preload-only: blocked; events: none
// expect-preload: blocked; events: none
// expect-probes: blocked; events: none
// silent-ok: the run's network namespace stops it (the host's name does not exist there: ECONNREFUSED); an abstract name inside the run is the run's own, allowed and not reported
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
