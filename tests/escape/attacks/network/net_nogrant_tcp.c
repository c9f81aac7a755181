/* No network capability at all: TCP connect to 192.0.2.1:<ok> (outside the run: its
 * loopback is its own).
// profile: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("192.0.2.1", esc_int("port_ok")); }
