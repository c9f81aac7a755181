/* Squat an abstract AF_UNIX name a host client then connects to (the runner's client keeps trying
 * squat= during the run), with an unrestricted network grant. Where the run has a network namespace
 * of its own the name is bound there, out of the host client's reach (run.start level.ns says
 * "net"); where none could be made the bind itself is refused and reported.
// as-user: yes
// profile: net
// manifest: netany
// setup: abstract-squat
// expect-full: blocked; events: preload.deny(op=bind)|run.start(level.ns~net)
// expect-no-bwrap: blocked; events: preload.deny(op=bind)|run.start(level.ns~net)
// expect-preload-only: blocked; events: preload.deny(op=bind)|run.start(level.ns~net)
// expect-preload: blocked; events: preload.deny(op=bind)|run.start(level.ns~net)
// expect-probes: blocked-or-reported; events: kernel.violation(access=bind)|run.start(level.ns~net)
// silent-ok: with a network namespace of its own (run.start level.ns has "net") the name stays inside the run: allowed, not reported, and the host's client cannot reach it
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	const char *n = esc_arg("squat");
	size_t len = strlen(n);
	memcpy(u.sun_path + 1, n, len);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&u, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0 ||
	    listen(s, 4) < 0)
		return esc_result(0, "bind abstract squat");
	struct pollfd p = {.fd = s, .events = POLLIN};
	if (poll(&p, 1, 3000) != 1)
		return esc_result(0, "bound, no host client came");
	int c = accept(s, NULL, NULL);
	return esc_result(c >= 0 && esc_got_reply(c), "host client captured");
}
