/* openat2(2) (newer than most interposers) on the canary, raw system call.
// profile: fs-raw
// silent-ok-container-root: container root where no namespace could be made (Docker-like profile): without CAP_SYS_PTRACE the supervisor cannot read the memory of an executor of another uid (README Known gaps), lets the call go on, and the kernel (the identity, Landlock) refuses it unreported
*/
#include <linux/openat2.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct open_how how = {.flags = O_RDONLY};
	long fd = ESC_SYS(SYS_openat2, AT_FDCWD, esc_arg("secret"), &how, sizeof how);
	if (fd < 0)
		return esc_result(0, "openat2");
	return esc_result(esc_dump_fd((int)fd) > 0, "openat2");
}
