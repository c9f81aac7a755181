/* Static binary connecting to 127.0.0.1:<bad> (no preload possible).
// profile: net-raw
// manifest: net
// build: static
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("127.0.0.1", esc_int("port_bad")); }
