/* Contract v3: raw setxattr of security.capability, v2 (VFS_CAP_REVISION_2) and v3 (namespaced, rootid 0), on a workspace file, lsetxattr on a workspace symlink, fsetxattr and setxattrat (static binary).
// manifest: base
// profile: fs-raw
// silent-ok-container-root: container root where no namespace could be made (Docker-like profile): without CAP_SYS_PTRACE the supervisor cannot read the memory of an executor of another uid (README Known gaps), lets the call go on, and the kernel (the identity, Landlock) refuses it unreported
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
#include <stdint.h>
#include "esc.h"
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
struct cap_v2 { uint32_t magic_etc; struct { uint32_t permitted, inheritable; } data[2]; };
struct cap_v3 { uint32_t magic_etc; struct { uint32_t permitted, inheritable; } data[2]; uint32_t rootid; };
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char f[4096], l[4096];
	const char *ws = esc_arg("ws");
	esc_join(f, sizeof f, ws, "capped");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, f, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return esc_result(0, "create the file");
	/* every capability, effective (VFS_CAP_FLAGS_EFFECTIVE) */
	struct cap_v2 v2 = {0x02000000u | 1u, {{0xffffffffu, 0}, {0x1ffu, 0}}};
	struct cap_v3 v3 = {0x03000000u | 1u, {{0xffffffffu, 0}, {0x1ffu, 0}}, 0};
	const char *n = "security.capability";
	if (ESC_SYS(SYS_setxattr, f, n, &v2, sizeof v2, 0) == 0)
		ok = 1, fprintf(stderr, "attack: setxattr v2 caps SUCCEEDED\n");
	if (ESC_SYS(SYS_setxattr, f, n, &v3, sizeof v3, 0) == 0)
		ok = 1, fprintf(stderr, "attack: setxattr v3 caps SUCCEEDED\n");
	if (ESC_SYS(SYS_fsetxattr, fd, n, &v2, sizeof v2, 0) == 0)
		ok = 1, fprintf(stderr, "attack: fsetxattr caps SUCCEEDED\n");
	esc_join(l, sizeof l, ws, "capped-link");
	if (symlink("capped", l) == 0 && ESC_SYS(SYS_lsetxattr, l, n, &v2, sizeof v2, 0) == 0)
		ok = 1, fprintf(stderr, "attack: lsetxattr on a symlink SUCCEEDED\n");
	if (ESC_SYS(SYS_setxattr, l, n, &v3, sizeof v3, 0) == 0)
		ok = 1, fprintf(stderr, "attack: setxattr through a symlink SUCCEEDED\n");
	struct { uint64_t value; uint32_t size, flags; } xa = {(uint64_t)(uintptr_t)&v2, sizeof v2, 0};
	if (ESC_SYS(SYS_setxattrat, AT_FDCWD, f, 0, n, &xa, sizeof xa) == 0)
		ok = 1, fprintf(stderr, "attack: setxattrat caps SUCCEEDED\n");
	return esc_result(ok, "file capabilities by raw setxattr");
}
