/* TCP connect to the granted port on an address that is not granted (127.0.0.2:<ok>) — "connect
 * to the IP of a name that was not granted".
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("127.0.0.2", esc_int("port_ok")); }
