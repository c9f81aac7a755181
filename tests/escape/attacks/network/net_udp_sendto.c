/* UDP sendto 192.0.2.1:<udp> (not granted), waits for the echo.
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_udp("192.0.2.1", esc_int("uport")); }
