/* File descriptor exhaustion: tries to hold 4096 descriptors (limits.nofile is 64), first trying
 * to raise its own RLIMIT_NOFILE (root could). The rlimit refuses silently (EMFILE), so when no
 * limit.hit is written the layer is named by run.start (its level lists the nofile rlimit).
// profile: limits
// silent-ok-probes: RLIMIT_NOFILE refuses with EMFILE, which no layer observes without seccomp
// silent-ok-preload-only: RLIMIT_NOFILE refuses with EMFILE, which no layer observes without seccomp (its rlimit rule reports the raise in the other modes); run.start level.limits names the limit
// expect-preload-only: blocked; events: limit.hit(limit~nofile)|run.start(level.limits~nofile)
// manifest: limits
// expect-full: blocked; events: limit.hit(limit~nofile)|run.start(level.limits~nofile)
// expect-no-bwrap: blocked; events: limit.hit(limit~nofile)|run.start(level.limits~nofile)
// expect-limits: blocked; events: limit.hit(limit~nofile)|run.start(level.limits~nofile)
*/
#include <sys/resource.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct rlimit rl = {8192, 8192};
	setrlimit(RLIMIT_NOFILE, &rl); /* root could raise it: try */
	int n = 0;
	for (; n < 4096; n++)
		if (open("/dev/null", O_RDONLY) < 0)
			break;
	fprintf(stderr, "attack: %d descriptors\n", n);
	return esc_result(n >= 4096, "fd exhaustion");
}
