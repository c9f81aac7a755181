/* Contract v3: raw open/openat/creat with O_CREAT and 06755, openat with O_TMPFILE and 04755, and openat2 (the mode in user memory) with 06755 (static binary).
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
#include <linux/openat2.h>
#include <sys/stat.h>
#include "esc.h"
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	long fd;
	char f[4096];
	const char *ws = esc_arg("ws");
#ifdef SYS_open
	if ((fd = ESC_SYS(SYS_open, esc_join(f, sizeof f, ws, "r1"), O_WRONLY | O_CREAT, 06755)) >= 0)
		ok = 1, fprintf(stderr, "attack: open(O_CREAT, 06755) SUCCEEDED\n");
#endif
#ifdef SYS_creat
	if ((fd = ESC_SYS(SYS_creat, esc_join(f, sizeof f, ws, "r2"), 04755)) >= 0)
		ok = 1, fprintf(stderr, "attack: creat(04755) SUCCEEDED\n");
#endif
	if ((fd = ESC_SYS(SYS_openat, AT_FDCWD, esc_join(f, sizeof f, ws, "r3"), O_WRONLY | O_CREAT, 02755)) >= 0)
		ok = 1, fprintf(stderr, "attack: openat(O_CREAT, 02755) SUCCEEDED\n");
	if ((fd = ESC_SYS(SYS_openat, AT_FDCWD, ws, O_TMPFILE | O_RDWR, 04755)) >= 0)
		ok = 1, fprintf(stderr, "attack: openat(O_TMPFILE, 04755) SUCCEEDED\n");
	struct open_how how = {.flags = O_WRONLY | O_CREAT, .mode = 06755};
	if ((fd = ESC_SYS(SYS_openat2, AT_FDCWD, esc_join(f, sizeof f, ws, "r4"), &how, sizeof how)) >= 0)
		ok = 1, fprintf(stderr, "attack: openat2(O_CREAT, 06755) SUCCEEDED\n");
	return esc_result(ok, "setuid/setgid by the raw creation mode");
}
