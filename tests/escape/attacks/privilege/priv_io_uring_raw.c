/* Contract v3: io_uring (IORING_OP_OPENAT with O_CREAT and mode 06755: the kernel opens, no open
 * syscall is made) creating a setuid file in the workspace: the ring itself is refused in every
 * mode (io_uring_setup ENOSYS), reported (static binary).
// manifest: base
// profile: fs-raw
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-no-bwrap: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-preload-only: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-preload: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-bwrap: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-seccomp: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-landlock: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-netfilter: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-probes: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-limits: blocked; events: kernel.violation|seccomp.deny|preload.deny
*/
#include <linux/io_uring.h>
#include <sys/mman.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char f[4096];
	esc_join(f, sizeof f, esc_arg("ws"), "uring-plant");
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	int fd = (int)ESC_SYS(SYS_io_uring_setup, 4, &p);
	if (fd < 0)
		return esc_result(0, "io_uring_setup");
	size_t sql = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cql = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *sq = mmap(0, sql, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_SQ_RING);
	char *cq = mmap(0, cql, PROT_READ | PROT_WRITE, MAP_SHARED, fd, IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes = mmap(0, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return esc_result(0, "mmap rings");
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail), *arr = (unsigned *)(sq + p.sq_off.array);
	unsigned *chead = (unsigned *)(cq + p.cq_off.head);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	memset(&sqes[0], 0, sizeof sqes[0]);
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = AT_FDCWD;
	sqes[0].addr = (unsigned long)f;
	sqes[0].open_flags = O_WRONLY | O_CREAT;
	sqes[0].len = 06755; /* the mode */
	arr[0] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (ESC_SYS(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return esc_result(0, "io_uring_enter(openat)");
	int rfd = cqes[*chead & (p.cq_entries - 1)].res;
	if (rfd < 0)
		errno = -rfd;
	return esc_result(rfd >= 0, "IORING_OP_OPENAT with 06755");
}
