/* io_uring: an IORING_OP_OPENAT + IORING_OP_READ of the canary, submitted through the ring —
 * the kernel does the open, no open/openat syscall is ever made by the process.
// profile: syscall
// expect-preload-only: blocked-or-reported; events: kernel.violation
*/
#include "esc_uring.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_uring_read(esc_arg("ssh"));
}
