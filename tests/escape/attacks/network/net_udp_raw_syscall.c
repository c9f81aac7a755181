/* Raw sendto system call, UDP to 192.0.2.1:<udp> (bypasses the preload).
// profile: net-raw
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, "192.0.2.1", esc_int("uport"));
	int s = (int)ESC_SYS(SYS_socket, AF_INET, SOCK_DGRAM, 0);
	if (ESC_SYS(SYS_sendto, s, "sbxesc", 6, 0, &ss, l) < 0)
		return esc_result(0, "raw sendto");
	return esc_result(esc_got_reply(s), "udp echo");
}
