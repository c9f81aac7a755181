/* Raw sendmsg() system call (a static binary: no preload) carrying a host unix datagram socket's
 * path in msg_name: a 0666 socket outside every grant (the /dev/log and sd_notify class).
// as-user: yes
// profile: net-raw
// build: static
// expect-full: blocked; events: seccomp.deny(syscall=sendmsg,path~/outside/host.dgram)|kernel.violation(outcome=contained,path~/outside/host.dgram)
// expect-no-bwrap: blocked; events: seccomp.deny(syscall=sendmsg,path~/outside/host.dgram)|kernel.violation(outcome=contained,path~/outside/host.dgram)
// expect-seccomp: blocked; events: seccomp.deny(syscall=sendmsg,path~/outside/host.dgram)
// expect-landlock: blocked-or-reported; events: kernel.violation(syscall=sendmsg,path~/outside/host.dgram)
// expect-bwrap: blocked; events: kernel.violation(syscall=sendmsg,path~/outside/host.dgram)
// expect-netfilter: none
// silent-ok-netfilter: netfilter's cgroup hooks see only AF_INET/AF_INET6
*/
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "esc_net.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	snprintf(u.sun_path, sizeof u.sun_path, "%s", esc_arg("dgram"));
	char data[] = "sbxesc datagram";
	struct iovec iov = {.iov_base = data, .iov_len = sizeof data - 1};
	struct msghdr m = {.msg_name = &u, .msg_namelen = sizeof u, .msg_iov = &iov, .msg_iovlen = 1};
	long s = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	if (s < 0 || syscall(SYS_sendmsg, s, &m, 0) < 0)
		return esc_result(0, "raw sendmsg unix dgram");
	return esc_result(1, "raw sendmsg unix dgram");
}
