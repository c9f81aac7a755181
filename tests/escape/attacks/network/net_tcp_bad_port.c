/* TCP connect to a granted address on a port that is not granted (127.0.0.1:<bad>).
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("127.0.0.1", esc_int("port_bad")); }
