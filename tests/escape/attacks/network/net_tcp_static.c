/* Static binary connecting to 192.0.2.1:<bad> (no preload possible).
// profile: net-raw
// manifest: net
// build: static
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("192.0.2.1", esc_int("port_bad")); }
