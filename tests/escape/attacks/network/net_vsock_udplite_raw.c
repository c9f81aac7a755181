/* Raw socket(AF_VSOCK) and socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE) from a static binary (no
 * libc for the preload to see), network granted: the seccomp allowlist refuses both in every mode
 * that has seccomp. Without seccomp (preload-only mode) nothing can stop a raw one; the probes
 * report its creation (kernel.violation with the refused family named, decided by the same socket
 * allowlist); without root (no BPF) that mode has no reporter for it.
// profile: net-raw
// manifest: net
// build: static
// as-user: yes
// expect-full: blocked; events: seccomp.deny(syscall=socket,socket~AF_VSOCK)
// expect-no-bwrap: blocked; events: seccomp.deny(syscall=socket,socket~AF_VSOCK)
// expect-seccomp: blocked; events: seccomp.deny(syscall=socket,socket~UDPLITE)
// expect-preload-only: blocked-or-reported; events: kernel.violation(syscall=socket,socket~AF_VSOCK)
// expect-preload-only-user: none   (no seccomp in that mode and no BPF probes without root: nothing can see a raw socket())
// expect-netfilter: none   (no cgroup hook sees AF_VSOCK)
// expect-probes: blocked-or-reported; events: kernel.violation(syscall=socket,socket~AF_VSOCK)
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
