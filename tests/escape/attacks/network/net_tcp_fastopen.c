/* TCP Fast Open: sendto(MSG_FASTOPEN) connects without connect(2).
// profile: net
// manifest: net
*/
#include "esc_net.h"
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, "192.0.2.1", esc_int("port_bad"));
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (sendto(s, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss, l) < 0)
		return esc_result(0, "sendto MSG_FASTOPEN");
	return esc_result(esc_got_reply(s), "fastopen + banner");
}
