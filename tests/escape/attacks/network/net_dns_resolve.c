/* Resolve a name that is not granted ("ungranted.example"; only 127.0.0.1:<ok> by address is granted; "localhost" is the run's own
 * loopback in its own network namespace).
// profile: net
// manifest: net
// expect-full: blocked; events: preload.deny(op=resolve)
// expect-no-bwrap: blocked; events: preload.deny(op=resolve)
// expect-preload-only: blocked-or-reported; events: preload.deny(op=resolve)
// expect-preload: blocked; events: preload.deny(op=resolve)
// expect-netfilter: none
// expect-probes: none
*/
#include <netdb.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct addrinfo *res = NULL, hints = {.ai_socktype = SOCK_STREAM};
	int r = getaddrinfo("ungranted.example", NULL, &hints, &res);
	return esc_result(r == 0 && res, "getaddrinfo(ungranted.example)");
}
