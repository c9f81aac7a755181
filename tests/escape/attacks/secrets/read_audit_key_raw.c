/* Read root's audit key with a raw openat system call (no libc wrapper: the preload cannot see
 * it); the kernel layers must refuse it, and the probes report it. The bytes are never printed.
// profile: fs-raw
// silent-ok-container-root: container root: the probes, which report a raw open the preload cannot see, are off or do not see the run (README Known gaps); the seccomp file reporter runs only where the preload is blind, so Landlock, bwrap or the identity refuse it unreported
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, "/var/lib/sbxsup/audit.key", O_RDONLY, 0);
	char b[64];
	long n = fd >= 0 ? (long)read((int)fd, b, sizeof b) : -1;
	return esc_result(n > 0, "/var/lib/sbxsup/audit.key");
}
