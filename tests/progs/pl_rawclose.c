/* pl_rawclose.c — closes every descriptor from 3 up with the raw close system call (no libc
 * wrapper the preload could see), then opens FILE through libc.
 *   usage: pl_rawclose FILE      exit 0 if the open succeeded, 1 if refused */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static long raw1(long n, long a)
{
	long r;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8) : "memory");
	r = x0;
#else
	r = syscall(n, a);
#endif
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	/* every descriptor from 3 up, wherever the library keeps its own (it moves them high) */
	struct rlimit rl;
	long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 1L << 20;
	if (top > 1L << 20)
		top = 1L << 20;
	for (long fd = 3; fd < top; fd++)
		raw1(SYS_close, fd);
	int fd = open(argv[1], O_RDONLY);
	printf("open %s\n", fd >= 0 ? "ok" : "refused");
	return fd >= 0 ? 0 : 1;
}
