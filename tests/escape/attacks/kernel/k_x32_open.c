/* The x32 ABI: openat with __X32_SYSCALL_BIT set (a filter written for x86_64 numbers only
 * misses it). x86_64 only.
// profile: syscall
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
#if defined(__x86_64__)
	long fd = ESC_SYS(0x40000000L | 257 /* openat */, AT_FDCWD, esc_arg("ssh"), O_RDONLY, 0);
	if (fd < 0)
		return esc_result(0, "x32 openat");
	return esc_result(esc_dump_fd((int)fd) > 0, "x32 openat of the canary");
#else
	errno = ENOSYS;
	return esc_result(0, "x32 (not x86_64)");
#endif
}
