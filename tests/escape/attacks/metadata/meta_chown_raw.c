/* Raw chown family on host files: fchown of a read-only granted file to the caller's own ids (the
 * kernel changes ctime and drops setuid bits even then), chown/lchown/fchownat of the secret.
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
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	long u = (long)getuid(), g = (long)getgid();
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, esc_arg("rotarget"), O_RDONLY, 0);
	if (fd >= 0 && ESC_SYS(SYS_fchown, fd, u, g) == 0)
		ok = 1, fprintf(stderr, "attack: fchown SUCCEEDED\n");
#ifdef SYS_chown
	if (ESC_SYS(SYS_chown, esc_arg("secret"), u, g) == 0)
		ok = 1, fprintf(stderr, "attack: chown SUCCEEDED\n");
	if (ESC_SYS(SYS_lchown, esc_arg("secret"), u, g) == 0)
		ok = 1, fprintf(stderr, "attack: lchown SUCCEEDED\n");
#endif
	if (ESC_SYS(SYS_fchownat, AT_FDCWD, esc_arg("rotarget"), u, g, 0) == 0)
		ok = 1, fprintf(stderr, "attack: fchownat SUCCEEDED\n");
	return esc_result(ok, "raw chown family on host files");
}
