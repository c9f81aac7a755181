/* esc_uring.h — read a file through io_uring (IORING_OP_OPENAT + IORING_OP_READ submitted through
 * the ring: the kernel does the open, the process makes no open/openat system call) and copy it to
 * stdout. Returns esc_result's value (0: content obtained). */
#ifndef ESC_URING_H
#define ESC_URING_H
#include <linux/io_uring.h>
#include <sys/mman.h>
#include "esc.h"
static inline int esc_uring_read(const char *path)
{
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
	/* 1: openat */
	memset(&sqes[0], 0, sizeof sqes[0]);
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = AT_FDCWD;
	sqes[0].addr = (unsigned long)path;
	sqes[0].open_flags = O_RDONLY;
	arr[0] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (ESC_SYS(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return esc_result(0, "io_uring_enter(openat)");
	int rfd = cqes[*chead & (p.cq_entries - 1)].res;
	__atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
	if (rfd < 0) {
		errno = -rfd;
		return esc_result(0, "IORING_OP_OPENAT");
	}
	/* 2: read */
	static char buf[4096];
	memset(&sqes[1], 0, sizeof sqes[1]);
	sqes[1].opcode = IORING_OP_READ;
	sqes[1].fd = rfd;
	sqes[1].addr = (unsigned long)buf;
	sqes[1].len = sizeof buf - 1;
	arr[1 & (p.sq_entries - 1)] = 1;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (ESC_SYS(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return esc_result(0, "io_uring_enter(read)");
	int n = cqes[*chead & (p.cq_entries - 1)].res;
	if (n > 0)
		(void)!write(1, buf, (size_t)n);
	return esc_result(n > 0, path);
}
#endif
