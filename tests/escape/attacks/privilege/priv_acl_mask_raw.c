/* Contract v3: the ACL mask trick. A POSIX access ACL (group r-x, mask rwx) on the host's setgid, not group-executable file in the workspace (premade-sgid, 02644) would give it group-exec and keep S_ISGID for a member of its group: refused (EPERM), reported; and an ACL through fsetxattr on the setuid one (static binary).
// manifest: base
// profile: fs-raw
// silent-ok-container-root: container root where no namespace could be made (Docker-like profile): without CAP_SYS_PTRACE the supervisor cannot read the memory of an executor of another uid (README Known gaps), lets the call go on, and the kernel (the identity, Landlock) refuses it unreported
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
#include <stdint.h>
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char f[4096], g[4096];
	const char *ws = esc_arg("ws");
	esc_join(f, sizeof f, ws, "premade-sgid");
	esc_join(g, sizeof g, ws, "premade-suid");
	/* user::rw- group::r-x mask::rwx other::r-- */
	struct { uint32_t version; struct { uint16_t tag, perm; uint32_t id; } e[4]; } acl = {
		2, {{0x01, 6, 0xffffffffu}, {0x04, 5, 0xffffffffu}, {0x10, 7, 0xffffffffu}, {0x20, 4, 0xffffffffu}}};
	struct stat st;
	if (ESC_SYS(SYS_setxattr, f, "system.posix_acl_access", &acl, sizeof acl, 0) == 0 &&
	    stat(f, &st) == 0 && (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP))
		ok = 1, fprintf(stderr, "attack: ACL mask made a setgid executable\n");
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, g, O_RDONLY, 0);
	if (fd >= 0 && ESC_SYS(SYS_fsetxattr, fd, "system.posix_acl_access", &acl, sizeof acl, 0) == 0 &&
	    fstat((int)fd, &st) == 0 && (st.st_mode & S_ISUID))
		ok = 1, fprintf(stderr, "attack: ACL on the setuid file SUCCEEDED\n");
	return esc_result(ok, "ACL mask on setgid/setuid files");
}
