/* Contract v3: raw chmod, fchmod, fchmodat and fchmodat2 (452, unknown to older libseccomp) with 06755 on a workspace file (static binary, real syscall instructions).
// manifest: base
// profile: fs-raw
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-no-bwrap: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-preload-only: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-preload: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-bwrap: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-seccomp: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-landlock: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-netfilter: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-probes: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-limits: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
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
	char f[4096];
	esc_join(f, sizeof f, esc_arg("ws"), "plant");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, f, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return esc_result(0, "create the plant");
#ifdef SYS_chmod
	if (ESC_SYS(SYS_chmod, f, 04755) == 0)
		ok = 1, fprintf(stderr, "attack: chmod 4755 SUCCEEDED\n");
#endif
	if (ESC_SYS(SYS_fchmod, fd, 06755) == 0)
		ok = 1, fprintf(stderr, "attack: fchmod 6755 SUCCEEDED\n");
	if (ESC_SYS(SYS_fchmodat, AT_FDCWD, f, 02755) == 0)
		ok = 1, fprintf(stderr, "attack: fchmodat 2755 SUCCEEDED\n");
	if (ESC_SYS(SYS_fchmodat2, AT_FDCWD, f, 06755, 0) == 0)
		ok = 1, fprintf(stderr, "attack: fchmodat2 6755 SUCCEEDED\n");
	/* junk in the upper half of the mode register: the kernel reads a umode_t */
	if (ESC_SYS(SYS_fchmodat, AT_FDCWD, f, 0x100000000L | 04755) == 0)
		ok = 1, fprintf(stderr, "attack: fchmodat with a wide mode SUCCEEDED\n");
	return esc_result(ok, "setuid/setgid by the raw chmod family");
}
