/* code:exec granted: take the preload's fixed channel away with raw system calls — unlink or
 * rename /run/sbxsup/policy and /etc/ld.so.preload, rename /run and /etc out of the way, plant an
 * own /run/sbxsup/policy (garbage) and an empty /etc/ld.so.preload, mount a tmpfs over /run/sbxsup
 * — then start /bin/cat on the canary with an empty environment by a raw execve. Every change must
 * fail (read-only scaffolding, no mount rights): the child is still preloaded with the real policy,
 * and its open is refused and reported.
// profile: fs-raw
// manifest: exec
// expect-full: blocked; events: preload.deny(op=open)
// expect-no-bwrap: blocked; events: preload.deny(op=open)
*/
#include "esc.h"
#include <fcntl.h>
static void plant(const char *path)
{
	long fd = ESC_SYS(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		ESC_SYS(SYS_write, fd, "x", 1);
		ESC_SYS(SYS_close, fd);
	}
}
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	ESC_SYS(SYS_unlinkat, AT_FDCWD, "/run/sbxsup/policy", 0);
	ESC_SYS(SYS_unlinkat, AT_FDCWD, "/etc/ld.so.preload", 0);
	ESC_SYS(SYS_renameat, AT_FDCWD, "/run/sbxsup/policy", AT_FDCWD, "/run/sbxsup/p2");
	ESC_SYS(SYS_renameat, AT_FDCWD, "/run/sbxsup", AT_FDCWD, "/run/sbxsup2");
	ESC_SYS(SYS_renameat, AT_FDCWD, "/run", AT_FDCWD, "/run2");
	ESC_SYS(SYS_renameat, AT_FDCWD, "/etc", AT_FDCWD, "/etc2");
	ESC_SYS(SYS_mkdirat, AT_FDCWD, "/run", 0755);
	ESC_SYS(SYS_mkdirat, AT_FDCWD, "/run/sbxsup", 0755);
	plant("/run/sbxsup/policy");
	plant("/etc/ld.so.preload");
	ESC_SYS(SYS_mount, "tmpfs", "/run/sbxsup", "tmpfs", 0, 0);
	char *a[] = {"cat", (char *)esc_arg("ssh"), NULL};
	char *env[] = {NULL};
	ESC_SYS(SYS_execve, "/bin/cat", a, env);
	return esc_result(0, "raw execve after the channel was attacked");
}
