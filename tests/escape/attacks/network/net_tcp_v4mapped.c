/* TCP connect over an AF_INET6 socket to the IPv4-mapped [::ffff:127.0.0.1]:<bad>.
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("::ffff:127.0.0.1", esc_int("port_bad")); }
