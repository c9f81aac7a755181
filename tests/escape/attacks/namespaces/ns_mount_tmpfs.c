/* mount(2) a tmpfs over the workspace (in a private mount namespace when possible, so a success
 * never changes the host's mount table).
// profile: syscall
*/
#include <sched.h>
#include <sys/mount.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (unshare(CLONE_NEWNS) == 0)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	else
		return esc_result(0, "unshare(CLONE_NEWNS) (refusing to mount in the host namespace)");
	return esc_result(mount("none", esc_arg("ws"), "tmpfs", 0, NULL) == 0, "mount tmpfs");
}
