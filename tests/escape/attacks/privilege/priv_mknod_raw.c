/* Contract v3: raw mknod/mknodat of S_IFREG|04755 (a setuid regular file), S_IFREG|02755, a character device (1:3) and a block device (static binary).
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
#include <sys/sysmacros.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char f[4096];
	const char *ws = esc_arg("ws");
#ifdef SYS_mknod
	if (ESC_SYS(SYS_mknod, esc_join(f, sizeof f, ws, "m1"), S_IFREG | 04755, 0) == 0)
		ok = 1, fprintf(stderr, "attack: mknod S_IFREG|04755 SUCCEEDED\n");
#endif
	if (ESC_SYS(SYS_mknodat, AT_FDCWD, esc_join(f, sizeof f, ws, "m2"), S_IFREG | 02755, 0) == 0)
		ok = 1, fprintf(stderr, "attack: mknodat S_IFREG|02755 SUCCEEDED\n");
	if (ESC_SYS(SYS_mknodat, AT_FDCWD, esc_join(f, sizeof f, ws, "m3"), S_IFCHR | 0666, makedev(1, 3)) == 0)
		ok = 1, fprintf(stderr, "attack: mknodat char 1:3 SUCCEEDED\n");
	if (ESC_SYS(SYS_mknodat, AT_FDCWD, esc_join(f, sizeof f, ws, "m4"), S_IFBLK | 0600, makedev(7, 0)) == 0)
		ok = 1, fprintf(stderr, "attack: mknodat block 7:0 SUCCEEDED\n");
	return esc_result(ok, "setuid files and devices by raw mknod");
}
