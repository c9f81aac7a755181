/* Contract v3: chmod, fchmodat and fchmod (libc) of a file the executor created in the workspace to setuid/setgid: refused (EPERM) and reported, whatever the layers.
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
	char f[4096];
	esc_join(f, sizeof f, esc_arg("ws"), "plant");
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return esc_result(0, "create the plant");
	(void)!write(fd, "#!/bin/sh\nid\n", 13);
	if (chmod(f, 04755) == 0)
		ok = 1, fprintf(stderr, "attack: chmod 4755 SUCCEEDED\n");
	if (fchmodat(AT_FDCWD, f, 06755, 0) == 0)
		ok = 1, fprintf(stderr, "attack: fchmodat 6755 SUCCEEDED\n");
	if (fchmod(fd, 02755) == 0)
		ok = 1, fprintf(stderr, "attack: fchmod 2755 SUCCEEDED\n");
	close(fd);
	return esc_result(ok, "setuid/setgid by the chmod family (libc)");
}
