/* UDP-Lite to a granted address and port: connect, then send() without an address (the cgroup
 * connect hook never fires for UDP-Lite and the sendmsg hook skips connected sockets).
// profile: syscall
// as-user: yes
// manifest: net
// expect-full: blocked; events: preload.deny(op=socket)|seccomp.deny(syscall=socket,socket=AF_INET SOCK_DGRAM IPPROTO_UDPLITE)
// expect-no-bwrap: blocked; events: preload.deny(op=socket)|seccomp.deny(syscall=socket,socket=AF_INET SOCK_DGRAM IPPROTO_UDPLITE)
// expect-seccomp: blocked; events: seccomp.deny(syscall=socket,socket=AF_INET SOCK_DGRAM IPPROTO_UDPLITE)
// expect-preload-only: blocked; events: preload.deny(op=socket)
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_storage ss;
	socklen_t l = esc_sa(&ss, "127.0.0.1", atoi(esc_arg("port_ok")));
	int s = socket(AF_INET, SOCK_DGRAM, 136 /* IPPROTO_UDPLITE */);
	if (s < 0)
		return esc_result(0, "socket(UDP-Lite)");
	if (connect(s, (struct sockaddr *)&ss, l) < 0)
		return esc_result(0, "connect");
	return esc_result(send(s, "x", 1, 0) == 1, "UDP-Lite connected send");
}
