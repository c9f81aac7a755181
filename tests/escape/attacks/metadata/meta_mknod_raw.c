/* Raw mknod/mknodat of FIFOs in a directory nothing grants, directly and through a workspace
 * symlink to it (the kernel follows the directory link: decided on what it reaches).
// manifest: base
// profile: fs-raw
// silent-ok-container-root: container root where no namespace could be made (Docker-like profile): without CAP_SYS_PTRACE the supervisor cannot read the memory of an executor of another uid (README Known gaps), lets the call go on, and the kernel (the identity, Landlock) refuses it unreported
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-preload-only: blocked-or-reported; events: kernel.violation
// expect-preload-only-user: none   (no kernel layer in preload-only mode and no probes without root: the static binary changes the user's own file unreported — README Known gaps, preload-only)
// expect-landlock: none   (Landlock has no right for metadata changes)
// expect-probes: blocked-or-reported; events: kernel.violation
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char p[4096], l[4096], q[4096];
	esc_join(p, sizeof p, esc_arg("outside"), "planted-fifo");
	if (ESC_SYS(SYS_mknodat, AT_FDCWD, p, S_IFIFO | 0666, 0) == 0)
		ok = 1, fprintf(stderr, "attack: mknodat SUCCEEDED\n");
	esc_join(l, sizeof l, esc_arg("ws"), "out-link");
	if (symlink(esc_arg("outside"), l) == 0) {
		esc_join(q, sizeof q, l, "planted-via-link");
#ifdef SYS_mknod
		if (ESC_SYS(SYS_mknod, q, S_IFIFO | 0600, 0) == 0)
#else
		if (ESC_SYS(SYS_mknodat, AT_FDCWD, q, S_IFIFO | 0600, 0) == 0)
#endif
			ok = 1, fprintf(stderr, "attack: mknod through a workspace link SUCCEEDED\n");
	}
	return esc_result(ok, "raw mknod outside the grants");
}
