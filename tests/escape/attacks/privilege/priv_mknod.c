/* Contract v3: mknod (libc) of a setuid regular file (S_IFREG|04755), a character device (1:3, /dev/null) and a block device in the workspace.
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
#include <sys/sysmacros.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char f[4096];
	const char *ws = esc_arg("ws");
	if (mknod(esc_join(f, sizeof f, ws, "n1"), S_IFREG | 04755, 0) == 0)
		ok = 1, fprintf(stderr, "attack: mknod S_IFREG|04755 SUCCEEDED\n");
	if (mknod(esc_join(f, sizeof f, ws, "n2"), S_IFCHR | 0666, makedev(1, 3)) == 0)
		ok = 1, fprintf(stderr, "attack: mknod char 1:3 SUCCEEDED\n");
	if (mknodat(AT_FDCWD, esc_join(f, sizeof f, ws, "n3"), S_IFBLK | 0600, makedev(7, 0)) == 0)
		ok = 1, fprintf(stderr, "attack: mknodat block 7:0 SUCCEEDED\n");
	return esc_result(ok, "setuid files and devices by mknod (libc)");
}
