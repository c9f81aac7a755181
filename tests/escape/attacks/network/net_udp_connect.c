/* UDP connect() + send() (no address on the send itself) to 192.0.2.1:<udp>.
// profile: net
// manifest: net
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, "192.0.2.1", esc_int("uport"));
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (connect(s, (struct sockaddr *)&ss, l) < 0)
		return esc_result(0, "connect udp");
	if (send(s, "sbxesc", 6, 0) < 0)
		return esc_result(0, "send");
	return esc_result(esc_got_reply(s), "udp echo");
}
