/* UDP sendmsg() with msg_name to 192.0.2.1:<udp>.
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
	struct iovec iov = {.iov_base = "sbxesc", .iov_len = 6};
	struct msghdr m = {.msg_name = &ss, .msg_namelen = l, .msg_iov = &iov, .msg_iovlen = 1};
	if (sendmsg(s, &m, 0) < 0)
		return esc_result(0, "sendmsg");
	return esc_result(esc_got_reply(s), "udp echo");
}
