/* Raw fchmod of a readable host file (granted read-only) to setuid + world-writable, fchmodat and
 * fchmodat2(AT_SYMLINK_NOFOLLOW) of it, chmod of the secret (static binary, real syscall
 * instructions: no libc for a preload to see). Issue 13: metadata changes are writes.
// manifest: ro
// profile: fs-raw
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
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, esc_arg("rotarget"), O_RDONLY, 0);
	if (fd >= 0 && ESC_SYS(SYS_fchmod, fd, 04777) == 0)
		ok = 1, fprintf(stderr, "attack: fchmod 04777 SUCCEEDED\n");
	if (ESC_SYS(SYS_fchmodat, AT_FDCWD, esc_arg("rotarget"), 0666) == 0)
		ok = 1, fprintf(stderr, "attack: fchmodat SUCCEEDED\n");
	if (ESC_SYS(SYS_fchmodat2, AT_FDCWD, esc_arg("rotarget"), 02777, 0x100 /* AT_SYMLINK_NOFOLLOW */) == 0)
		ok = 1, fprintf(stderr, "attack: fchmodat2 SUCCEEDED\n");
#ifdef SYS_chmod
	if (ESC_SYS(SYS_chmod, esc_arg("secret"), 0666) == 0)
		ok = 1, fprintf(stderr, "attack: chmod secret SUCCEEDED\n");
#endif
	return esc_result(ok, "raw chmod family on host files");
}
