/* TCP connect over an AF_INET6 socket to the IPv4-mapped [::ffff:192.0.2.1]:<bad>.
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("::ffff:192.0.2.1", esc_int("port_bad")); }
