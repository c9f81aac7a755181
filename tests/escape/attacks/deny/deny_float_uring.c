/* A floating manifest deny against io_uring: IORING_OP_OPENAT + IORING_OP_READ of the workspace's
 * app/.env, no open system call made. The seccomp layer refuses io_uring_setup (ENOSYS) in every
 * mode it is on; without it (preload-only) the probes report the ring's open.
// profile: syscall
// manifest: deny-float
// setup: dotenv
// as-user: yes
// silent-ok-container: the container runtime's own seccomp profile (Docker's default, and the documented one) refuses io_uring_setup before sbxsup's filter is asked (its errno outranks user notification), so nothing reports it; the file is never read
// expect-preload-only: blocked-or-reported; events: kernel.violation
*/
#include "esc_uring.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_uring_read(esc_arg("dotenv"));
}
