/* No network capability at all: TCP connect to the granted-elsewhere 127.0.0.1:<ok>.
// profile: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("127.0.0.1", esc_int("port_ok")); }
