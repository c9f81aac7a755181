/* TCP connect over IPv6 to [::1]:<bad> (only an IPv4 host is granted).
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv) { esc_init(argc, argv); return esc_tcp("2001:db8::1", esc_int("port_bad")); }
