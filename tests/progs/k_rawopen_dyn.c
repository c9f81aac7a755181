/* k_rawopen_dyn.c — a dynamically linked program (the preload loads into it) that opens argv[1]
 * with a raw system call instruction, never through libc or syscall(2): what the preload cannot
 * see in a program it covers. Prints "rawopen: SUCCEEDED" or "rawopen: blocked ERRNO"; exit 0 when
 * the open failed, 1 when it succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

static long raw_openat(const char *path)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path), "d"((long)O_RDONLY), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_openat;
	register long x0 __asm__("x0") = AT_FDCWD;
	register long x1 __asm__("x1") = (long)path;
	register long x2 __asm__("x2") = O_RDONLY;
	register long x3 __asm__("x3") = 0;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	r = x0;
#else
#error "k_rawopen_dyn: add this architecture's system call instruction"
#endif
	return r;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: k_rawopen_dyn PATH\n");
		return 2;
	}
	long r = raw_openat(argv[1]);
	if (r >= 0) {
		printf("rawopen: SUCCEEDED\n");
		return 1;
	}
	const char *n = strerrorname_np((int)-r);
	printf("rawopen: blocked %s\n", n ? n : "?");
	return 0;
}
