/* TCP connect to a granted address on a port that is not granted (192.0.2.1:<bad>; the run's loopback is its own).
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("192.0.2.1", esc_int("port_bad")); }
