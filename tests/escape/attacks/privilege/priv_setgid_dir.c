/* Contract v3: a setgid directory in the workspace (new files inherit its group): chmod g+s (libc) of a directory the executor made, and mkdir with 02777 (the kernel masks the mode: asserted by the runner).
// manifest: base
// profile: fs
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
	if (mkdir(d, 0775) < 0)
		return esc_result(0, "mkdir");
	if (chmod(d, 02775) == 0 && stat(d, &st) == 0 && (st.st_mode & S_ISGID))
		ok = 1, fprintf(stderr, "attack: chmod g+s of a directory SUCCEEDED\n");
	esc_join(d2, sizeof d2, ws, "gdir2");
	if (mkdir(d2, 06777) == 0 && stat(d2, &st) == 0 && (st.st_mode & (S_ISGID | S_ISUID)))
		ok = 1, fprintf(stderr, "attack: mkdir 06777 kept the bits\n");
	return esc_result(ok, "setgid directory (libc)");
}
