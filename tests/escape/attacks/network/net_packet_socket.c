/* AF_PACKET socket (link-layer sniffing / injection).
// profile: syscall
// manifest: net
*/
#include <linux/if_ether.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	return esc_result(s >= 0, "socket(AF_PACKET)");
}
