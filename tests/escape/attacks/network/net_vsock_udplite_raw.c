/* Raw socket(AF_VSOCK) and socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE) from a static binary (no
 * libc for the preload to see), network granted: the seccomp allowlist refuses both in every mode
 * that has seccomp. Without seccomp (preload-only mode) a raw one is created and nothing reports it:
 * an open finding (the probes do not trace socket creation; README Known gaps).
// profile: net-raw
// manifest: net
// build: static
// as-user: yes
// expect-full: blocked; events: seccomp.deny(syscall=socket,socket~AF_VSOCK)
// expect-no-bwrap: blocked; events: seccomp.deny(syscall=socket,socket~AF_VSOCK)
// expect-seccomp: blocked; events: seccomp.deny(syscall=socket,socket~UDPLITE)
// expect-preload-only: none   (open finding: preload-only mode has no seccomp and the probes do not observe socket creation — README Known gaps)
// expect-netfilter: none   (no cgroup hook sees AF_VSOCK)
// expect-probes: none   (the probes do not observe socket creation: open finding)
*/
#include <sys/socket.h>
#include "esc.h"
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long v = ESC_SYS(SYS_socket, AF_VSOCK, SOCK_STREAM, 0);
	if (v >= 0)
		fprintf(stderr, "attack: AF_VSOCK socket SUCCEEDED\n");
	long u = ESC_SYS(SYS_socket, AF_INET, SOCK_DGRAM, 136);
	if (u >= 0)
		fprintf(stderr, "attack: UDP-Lite socket SUCCEEDED\n");
	return esc_result(v >= 0 || u >= 0, "raw vsock / UDP-Lite sockets");
}
