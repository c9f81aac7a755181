/* Raw connect system call to 192.0.2.1:<bad> (bypasses the preload).
// profile: net-raw
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, "192.0.2.1", esc_int("port_bad"));
	int s = (int)ESC_SYS(SYS_socket, AF_INET, SOCK_STREAM, 0);
	if (ESC_SYS(SYS_connect, s, &ss, l) < 0)
		return esc_result(0, "raw connect");
	return esc_result(esc_got_reply(s), "raw connect + banner");
}
