/* Contract v3: raw fchmodat g+s (02775) of a workspace directory and raw mkdirat with 06777 (static binary).
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
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char d[4096], d2[4096];
	const char *ws = esc_arg("ws");
	struct stat st;
	esc_join(d, sizeof d, ws, "gdir");
	if (ESC_SYS(SYS_mkdirat, AT_FDCWD, d, 0775) < 0)
		return esc_result(0, "mkdir");
	if (ESC_SYS(SYS_fchmodat, AT_FDCWD, d, 02775) == 0 && stat(d, &st) == 0 && (st.st_mode & S_ISGID))
		ok = 1, fprintf(stderr, "attack: fchmodat g+s of a directory SUCCEEDED\n");
	esc_join(d2, sizeof d2, ws, "gdir2");
	if (ESC_SYS(SYS_mkdirat, AT_FDCWD, d2, 06777) == 0 && stat(d2, &st) == 0 && (st.st_mode & (S_ISGID | S_ISUID)))
		ok = 1, fprintf(stderr, "attack: mkdirat 06777 kept the bits\n");
	return esc_result(ok, "setgid directory (raw)");
}
