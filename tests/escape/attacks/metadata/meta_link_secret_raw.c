/* Raw link/linkat of the secret and of ~/.ssh/id_rsa into the workspace, then read them there (a
 * new name under the workspace's rights for a file nothing grants).
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
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char a[4096], b[4096];
	esc_join(a, sizeof a, esc_arg("ws"), "stolen-secret");
	esc_join(b, sizeof b, esc_arg("ws"), "stolen-key");
	if (ESC_SYS(SYS_linkat, AT_FDCWD, esc_arg("secret"), AT_FDCWD, a, 0) == 0)
		ok = 1, fprintf(stderr, "attack: linkat secret SUCCEEDED\n");
#ifdef SYS_link
	if (ESC_SYS(SYS_link, esc_arg("ssh"), b) == 0)
#else
	if (ESC_SYS(SYS_linkat, AT_FDCWD, esc_arg("ssh"), AT_FDCWD, b, 0) == 0)
#endif
		ok = 1, fprintf(stderr, "attack: link key SUCCEEDED\n");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, a, O_RDONLY, 0);
	if (fd >= 0)
		esc_dump_fd((int)fd);
	return esc_result(ok, "raw link of secrets into the workspace");
}
