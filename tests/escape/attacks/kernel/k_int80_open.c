/* The i386 ABI from a 64-bit process: int 0x80 open(5) of the canary. x86_64 only.
// profile: syscall
*/
#include <sys/mman.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
#if defined(__x86_64__)
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return esc_result(0, "mmap 32bit");
	snprintf(low, 4096, "%s", esc_arg("ssh"));
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(5L), "b"((long)low), "c"(0L), "d"(0L) : "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return esc_result(0, "int 0x80 open");
	}
	return esc_result(esc_dump_fd((int)ret) > 0, "int 0x80 open of the canary");
#else
	errno = ENOSYS;
	return esc_result(0, "int 0x80 (not x86_64)");
#endif
}
