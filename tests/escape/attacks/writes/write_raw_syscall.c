/* Raw openat(O_WRONLY|O_TRUNC) of the target (no libc wrapper).
// profile: fs-raw
// silent-ok-container-root: container root: the probes, which report a raw open the preload cannot see, are off or do not see the run (README Known gaps); the seccomp file reporter runs only where the preload is blind, so Landlock, bwrap or the identity refuse it unreported
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, esc_arg("target"), O_WRONLY | O_TRUNC, 0);
	if (fd < 0)
		return esc_result(0, "raw openat O_TRUNC");
	return esc_result(write((int)fd, "pwned\n", 6) == 6, "write");
}
