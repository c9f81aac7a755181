/* Raw timestamp changes of host files: utimensat by path and on a read-only descriptor (futimens),
 * utimes / futimesat / utime of the target (a forensics cover-up: make a change look old).
// manifest: ro
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
#include <sys/time.h>
#include <time.h>
#include <utime.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	struct timespec ts[2] = {{1, 0}, {1, 0}};
	struct timeval tv[2] = {{2, 0}, {2, 0}};
	if (ESC_SYS(SYS_utimensat, AT_FDCWD, esc_arg("rotarget"), ts, 0) == 0)
		ok = 1, fprintf(stderr, "attack: utimensat SUCCEEDED\n");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, esc_arg("rotarget"), O_RDONLY, 0);
	if (fd >= 0 && ESC_SYS(SYS_utimensat, fd, 0, ts, 0) == 0)
		ok = 1, fprintf(stderr, "attack: futimens SUCCEEDED\n");
#ifdef SYS_utimes
	if (ESC_SYS(SYS_utimes, esc_arg("target"), tv) == 0)
		ok = 1, fprintf(stderr, "attack: utimes SUCCEEDED\n");
	if (ESC_SYS(SYS_futimesat, AT_FDCWD, esc_arg("secret"), tv) == 0)
		ok = 1, fprintf(stderr, "attack: futimesat SUCCEEDED\n");
	struct utimbuf ub = {3, 3};
	if (ESC_SYS(SYS_utime, esc_arg("target"), &ub) == 0)
		ok = 1, fprintf(stderr, "attack: utime SUCCEEDED\n");
#endif
	return esc_result(ok, "raw timestamp changes on host files");
}
