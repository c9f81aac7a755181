/* Bind-mount trick: private mount namespace, bind the canary directory onto a workspace
 * directory, read through the workspace path.
// profile: syscall
// silent-ok-container-root: container root with the Docker-like profile: the runtime's own seccomp profile refuses unshare and mount without CAP_SYS_ADMIN before sbxsup's filter is asked; its errno outranks user notification
*/
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char m[4096], p[4096];
	esc_join(m, sizeof m, esc_arg("ws"), "m");
	mkdir(m, 0755);
	if (unshare(CLONE_NEWNS) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return esc_result(0, "unshare");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return esc_result(0, "make-private");
	if (mount(esc_arg("outside"), m, NULL, MS_BIND, NULL) < 0)
		return esc_result(0, "bind mount");
	return esc_read_path(esc_join(p, sizeof p, m, "secret.txt"));
}
