/* Statically linked reader: ld.so never runs, so LD_PRELOAD is never loaded.
// profile: fs-raw
// silent-ok-container-root: container root: the probes are off or do not see the run (README Known gaps); where no namespace could be made, the seccomp file reporter cannot read the memory of an executor of another uid (no CAP_SYS_PTRACE) and leaves the open to Landlock and the identity, which refuse it unreported
// build: static
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *p = esc_opt("path");
	return esc_read_path(p ? p : esc_arg("ssh"));
}
