/* openat2(2) (newer than most interposers) on the canary, raw system call.
// profile: fs-raw
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
