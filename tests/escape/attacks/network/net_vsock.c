/* An AF_VSOCK socket (reaches the hypervisor on VM hosts; no cgroup hook sees it), network granted.
// profile: syscall
// as-user: yes
// manifest: net
// expect-full: blocked; events: preload.deny(op=socket)|seccomp.deny(syscall=socket,socket=AF_VSOCK)
// expect-no-bwrap: blocked; events: preload.deny(op=socket)|seccomp.deny(syscall=socket,socket=AF_VSOCK)
// expect-seccomp: blocked; events: seccomp.deny(syscall=socket,socket=AF_VSOCK)
// expect-preload-only: blocked; events: preload.deny(op=socket)
*/
#include "esc_net.h"
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);
	return esc_result(s >= 0, "socket(AF_VSOCK)");
}
