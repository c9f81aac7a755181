/* Double-fork a daemon that setsid()s and outlives the executor: success when, after the run,
 * a process carrying the run's marker is still alive (the runner checks with pgrep; the daemon
 * exits by itself after 20 s). The attack itself exits 1: the verdict is the runner's.
// profile: limits
// silent-ok: not a refused call — the daemon is killed with the run's cgroup / pid namespace at run end (run.end)
// manifest: limits
// expect-full: blocked; events: run.end
// expect-no-bwrap: blocked; events: run.end
// expect-preload-only: blocked; events: run.end
// expect-limits: none
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (fork() == 0) {
		setsid();
		if (fork() == 0) {
			int n = open("/dev/null", O_RDWR);
			dup2(n, 0);
			dup2(n, 1);
			dup2(n, 2);
			/* no exec (code:exec not granted): live on; our argv carries the run's marker */
			for (int i = 0; i < 20; i++)
				sleep(1);
			_exit(0);
		}
		_exit(0);
	}
	return esc_result(0, "daemon started (verdict by the runner)");
}
