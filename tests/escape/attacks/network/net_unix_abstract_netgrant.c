/* Same abstract-socket attack with a network grant (a host list): the run has a network namespace
 * of its own then too (out only through the gateway, docs/network.md), where the host's abstract
 * names do not exist (ECONNREFUSED, the listener gets nothing).
// profile: net
// manifest: net
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
