/* Static binary truncating the target (no LD_PRELOAD possible).
// profile: fs-raw
// silent-ok-container-root: container root: the probes are off or do not see the run (README Known gaps); where no namespace could be made, the seccomp file reporter cannot read the memory of an executor of another uid (no CAP_SYS_PTRACE) and leaves the open to Landlock and the identity, which refuse it unreported
// build: static
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("target"), O_WRONLY | O_TRUNC);
	if (fd < 0)
		return esc_result(0, "open O_TRUNC");
	return esc_result(write(fd, "pwned\n", 6) == 6, "write");
}
