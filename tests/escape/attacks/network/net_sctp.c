/* An SCTP socket (another transport the network layers do not model), network granted.
// profile: syscall
// silent-ok: this kernel has no SCTP: without seccomp's allowlist the kernel itself answers EPROTONOSUPPORT (nothing reached a layer)
// manifest: net
// expect-full: blocked; events: preload.deny(op=socket)|seccomp.deny(syscall=socket,socket~IPPROTO_SCTP)
// expect-no-bwrap: blocked; events: preload.deny(op=socket)|seccomp.deny(syscall=socket,socket~IPPROTO_SCTP)
// expect-seccomp: blocked; events: seccomp.deny(syscall=socket,socket~IPPROTO_SCTP)
// expect-preload-only: blocked; events: preload.deny(op=socket)
*/
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int s = socket(AF_INET, SOCK_SEQPACKET, 132 /* IPPROTO_SCTP */);
	return esc_result(s >= 0, "socket(SCTP)");
}
