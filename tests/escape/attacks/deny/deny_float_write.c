/* A floating manifest deny holds for writes too: a static binary truncates and overwrites the
 * workspace's app/.env with a raw openat (the workspace itself is writable).
// profile: fs-raw
// manifest: deny-float
// setup: dotenv
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0],access=write)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],access=write)
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical,access=write)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0],access=write)
// expect-preload: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical,access=write)
// expect-landlock: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical,access=write)
// expect-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical,access=write)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *p = esc_arg("dotenv");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, p, O_WRONLY | O_TRUNC, 0);
	if (fd < 0)
		return esc_result(0, p);
	long n = ESC_SYS(SYS_write, fd, "overwritten\n", 12);
	return esc_result(n == 12, p);
}
