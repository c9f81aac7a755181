/* Contract v3: write and copy_file_range into a setuid file the host put in the workspace (premade-suid, 04755): the kernel drops the bit on a write by a process without CAP_FSETID (asserted by the runner: changed content with the bit kept is an escape); then fchmod 04755 to put it back (refused, reported).
// manifest: base
// profile: fs-raw
// build: static
// setup: setuid-files
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
	char f[4096], src[4096];
	const char *ws = esc_arg("ws");
	esc_join(f, sizeof f, ws, "premade-suid");
	esc_join(src, sizeof src, ws, "payload");
	long s = ESC_SYS(SYS_openat, AT_FDCWD, src, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (s < 0 || ESC_SYS(SYS_write, s, "#!/bin/sh\nid\n", 13) != 13)
		return esc_result(0, "payload");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, f, O_WRONLY, 0);
	struct stat st;
	if (fd >= 0) {
		loff_t in = 0, out = 0;
		long n = ESC_SYS(SYS_copy_file_range, s, &in, fd, &out, 13, 0);
		if (n > 0 && fstat((int)fd, &st) == 0 && (st.st_mode & S_ISUID))
			ok = 1, fprintf(stderr, "attack: copy_file_range kept the setuid bit\n");
		if (ESC_SYS(SYS_pwrite64, fd, "#", 1, 0) == 1 && fstat((int)fd, &st) == 0 && (st.st_mode & S_ISUID))
			ok = 1, fprintf(stderr, "attack: write kept the setuid bit\n");
		if (ESC_SYS(SYS_fchmod, fd, 04755) == 0)
			ok = 1, fprintf(stderr, "attack: fchmod 4755 back SUCCEEDED\n");
	} else if (ESC_SYS(SYS_fchmodat, AT_FDCWD, f, 04755) == 0) {
		ok = 1, fprintf(stderr, "attack: fchmodat 4755 SUCCEEDED\n");
	}
	return esc_result(ok, "write into a setuid file");
}
