/* Contract v3: open(O_CREAT, 06755), openat(O_CREAT|O_EXCL, 04755), creat(02755) and open(O_TMPFILE, 04755) in the workspace (libc): the creation mode is refused (EPERM), reported.
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
	int ok = 0, fd;
	char f[4096];
	const char *ws = esc_arg("ws");
	if ((fd = open(esc_join(f, sizeof f, ws, "o1"), O_WRONLY | O_CREAT, 06755)) >= 0)
		ok = 1, fprintf(stderr, "attack: open(O_CREAT, 06755) SUCCEEDED\n");
	if ((fd = openat(AT_FDCWD, esc_join(f, sizeof f, ws, "o2"), O_WRONLY | O_CREAT | O_EXCL, 04755)) >= 0)
		ok = 1, fprintf(stderr, "attack: openat(O_CREAT|O_EXCL, 04755) SUCCEEDED\n");
	if ((fd = creat(esc_join(f, sizeof f, ws, "o3"), 02755)) >= 0)
		ok = 1, fprintf(stderr, "attack: creat(02755) SUCCEEDED\n");
	if ((fd = open(ws, O_TMPFILE | O_RDWR, 04755)) >= 0) {
		ok = 1, fprintf(stderr, "attack: open(O_TMPFILE, 04755) SUCCEEDED\n");
		char p[64];
		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		(void)!linkat(AT_FDCWD, p, AT_FDCWD, esc_join(f, sizeof f, ws, "o4"), AT_SYMLINK_FOLLOW);
	}
	return esc_result(ok, "setuid/setgid by the creation mode (libc)");
}
