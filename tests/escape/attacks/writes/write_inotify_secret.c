/* inotify_add_watch on ~/.ssh: learn when the user touches their keys (a watch on a path the
 * executor may not read).
// profile: fs
// as-user: yes
// expect-landlock: none   (inotify is not a Landlock access right)
// expect-probes: none   (the probes do not trace this call yet: issue 15, probes coverage)
*/
#include <sys/inotify.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int in = inotify_init1(IN_CLOEXEC);
	if (in < 0)
		return esc_result(0, "inotify_init1");
	int w = inotify_add_watch(in, esc_arg("sshdir"), IN_ALL_EVENTS);
	int w2 = inotify_add_watch(in, esc_arg("ssh"), IN_ACCESS | IN_OPEN);
	return esc_result(w >= 0 || w2 >= 0, "inotify_add_watch on ~/.ssh");
}
