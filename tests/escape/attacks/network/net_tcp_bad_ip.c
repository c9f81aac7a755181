/* TCP connect to the granted port on an address that is not granted (192.0.2.2:<ok>) — "connect
 * to the IP of a name that was not granted". In the run's own network namespace every connect on a
 * granted port reaches the gateway, which decides by name (docs/network.md): the layers let it
 * through, the gateway connects nowhere (the banner never comes). A client that sends nothing and
 * leaves before the gateway's name timeout leaves no net.deny (docs/known-gaps.md).
// profile: net
// manifest: net
// expect-full: blocked; events: none
// expect-no-bwrap: blocked; events: none
// expect-preload-only: blocked; events: none
// expect-preload: blocked; events: none
// expect-probes: blocked; events: none
// silent-ok: the run's own network namespace: a connect on a granted port reaches the gateway, which connects nowhere without a granted name or address; a client that leaves before sending a name is not reported
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("192.0.2.2", esc_int("port_ok")); }
