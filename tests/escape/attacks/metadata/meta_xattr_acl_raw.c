/* Raw setxattr of a POSIX ACL (everyone rwx) on the secret and on a read-only granted file, plus
 * lsetxattr / fsetxattr / setxattrat (6.13) of a user attribute and the remove variants.
// manifest: ro
// profile: fs-raw
// silent-ok-container-root: container root where no namespace could be made (Docker-like profile): without CAP_SYS_PTRACE the supervisor cannot read the memory of an executor of another uid (README Known gaps), lets the call go on, and the kernel (the identity, Landlock) refuses it unreported
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
// expect-preload-only: blocked-or-reported; events: kernel.violation
// expect-preload-only-user: none   (no kernel layer in preload-only mode and no probes without root: the static binary changes the user's own file unreported — README Known gaps, preload-only)
// expect-landlock: none   (Landlock has no right for metadata changes)
// expect-probes: blocked-or-reported; events: kernel.violation
*/
#include <stdint.h>
#include "esc.h"
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	struct { uint32_t version; struct { uint16_t tag, perm; uint32_t id; } e[3]; } acl = {
		2, {{0x01, 7, 0xffffffffu}, {0x04, 7, 0xffffffffu}, {0x20, 7, 0xffffffffu}}};
	const char *sec = esc_arg("secret"), *ro = esc_arg("rotarget");
	if (ESC_SYS(SYS_setxattr, sec, "system.posix_acl_access", &acl, sizeof acl, 0) == 0)
		ok = 1, fprintf(stderr, "attack: ACL on the secret SUCCEEDED\n");
	if (ESC_SYS(SYS_setxattr, ro, "system.posix_acl_access", &acl, sizeof acl, 0) == 0)
		ok = 1, fprintf(stderr, "attack: ACL on the read-only file SUCCEEDED\n");
	if (ESC_SYS(SYS_lsetxattr, ro, "user.sbxesc", "l", 1, 0) == 0)
		ok = 1, fprintf(stderr, "attack: lsetxattr SUCCEEDED\n");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, ro, O_RDONLY, 0);
	if (fd >= 0 && ESC_SYS(SYS_fsetxattr, fd, "user.sbxesc", "f", 1, 0) == 0)
		ok = 1, fprintf(stderr, "attack: fsetxattr SUCCEEDED\n");
	struct { uint64_t value; uint32_t size, flags; } xa = {(uint64_t)(uintptr_t)"a", 1, 0};
	if (ESC_SYS(SYS_setxattrat, AT_FDCWD, ro, 0, "user.sbxesc2", &xa, sizeof xa) == 0)
		ok = 1, fprintf(stderr, "attack: setxattrat SUCCEEDED\n");
	/* removals: only the attribute the runner put there counts (the others do not exist) */
	if (ESC_SYS(SYS_removexattr, ro, "user.sbxesc_keep") == 0)
		ok = 1, fprintf(stderr, "attack: removexattr SUCCEEDED\n");
	if (ESC_SYS(SYS_removexattrat, AT_FDCWD, ro, 0, "user.sbxesc_keep") == 0)
		ok = 1, fprintf(stderr, "attack: removexattrat SUCCEEDED\n");
	return esc_result(ok, "raw xattr family on host files");
}
