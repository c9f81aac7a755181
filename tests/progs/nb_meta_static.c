/* nb_meta_static.c — permission/metadata attacks on a readable file by raw system calls
 * (statically linked: the preload never sees it). For the identity tests (run_nobwrap.sh).
 *   nb_meta_static PATH
 * Opens PATH read-only, then fchmod(04777), fchown(own uid), fsetxattr(user.sbxsup) and
 * fsetxattr(system.posix_acl_access, an ACL granting everyone rwx). Prints one line per call,
 * "NAME: blocked ERRNO" or "NAME: SUCCEEDED", exits with the number that succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int report(const char *name, long rc)
{
	if (rc == 0) {
		printf("%s: SUCCEEDED\n", name);
		return 1;
	}
	printf("%s: blocked %s\n", name, strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: nb_meta_static PATH\n");
		return 100;
	}
	int fd = (int)syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("open: blocked %s\n", strerror(errno));
		return 0;
	}
	int n = 0;
	n += report("fchmod", syscall(SYS_fchmod, fd, 04777));
	n += report("fchown", syscall(SYS_fchown, fd, getuid(), getgid()));
	n += report("fsetxattr_user", syscall(SYS_fsetxattr, fd, "user.sbxsup", "x", 1, 0));
	/* POSIX ACL v2: USER_OBJ rwx, GROUP_OBJ rwx, OTHER rwx */
	struct { uint32_t version; struct { uint16_t tag, perm; uint32_t id; } e[3]; } acl = {
		2, {{0x01, 7, 0xffffffffu}, {0x04, 7, 0xffffffffu}, {0x20, 7, 0xffffffffu}}};
	n += report("fsetxattr_acl", syscall(SYS_fsetxattr, fd, "system.posix_acl_access", &acl, sizeof acl, 0));
	n += report("chmod_path", syscall(SYS_fchmodat, AT_FDCWD, argv[1], 04777, 0));
	fflush(stdout);
	return n;
}
