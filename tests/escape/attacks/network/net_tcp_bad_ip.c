/* TCP connect to the granted port on an address that is not granted (192.0.2.2:<ok>) — "connect
 * to the IP of a name that was not granted". In the run's own network namespace every connect on a
 * granted port reaches the gateway, which decides by name (docs/network.md): the layers let it
 * through, the gateway connects nowhere (the banner never comes). A client that sends nothing and
 * leaves before naming a host, to an address no granted name resolved to, is refused and reported
 * by the gateway (net.deny reason no-name). In a container whose profile refuses namespaces (Docker's
 * default) the direct sandbox has no network namespace of its own, hence no gateway: the preload
 * refuses the address there (preload.deny).
// profile: net
// manifest: net
// expect-full: blocked; events: net.deny
// expect-no-bwrap: blocked; events: net.deny
// expect-preload-only: blocked; events: net.deny
// expect-preload: blocked; events: net.deny
// expect-probes: blocked; events: net.deny
// expect-no-bwrap-container: blocked; events: net.deny|preload.deny
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("192.0.2.2", esc_int("port_ok")); }
