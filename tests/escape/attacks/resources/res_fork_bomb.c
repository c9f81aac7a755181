/* Fork bomb, bounded: tries to hold 300 live processes (limits.pids is 32). Every child exits on
 * its own after 5 s, so even an unlimited run cannot harm the host.
// profile: limits
// expect-no-bwrap: none   (a cgroup limit: the limits layer, which this mode does not include)
// expect-preload-only: none   (a cgroup limit: the limits layer, which this mode does not include)
// manifest: limits
// expect-full: blocked; events: limit.hit(limit~pids)
*/
#include <signal.h>
#include <sys/wait.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	static pid_t kids[300];
	int n = 0;
	for (; n < 300; n++) {
		pid_t p = fork();
		if (p < 0)
			break;
		if (p == 0) {
			sleep(5);
			_exit(0);
		}
		kids[n] = p;
	}
	fprintf(stderr, "attack: %d processes\n", n);
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return esc_result(n >= 300, "fork bomb");
}
