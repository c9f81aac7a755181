/* Raw IP socket (ICMP echo to 127.0.0.1): needs CAP_NET_RAW, bypasses port rules.
// profile: syscall
// manifest: net
*/
#include <netinet/ip_icmp.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (s < 0)
		return esc_result(0, "socket(SOCK_RAW)");
	struct icmphdr h = {.type = ICMP_ECHO};
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, "127.0.0.1", 0);
	return esc_result(sendto(s, &h, sizeof h, 0, (struct sockaddr *)&ss, l) > 0, "raw ICMP sendto");
}
