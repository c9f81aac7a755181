/* File descriptor exhaustion: tries to hold 4096 descriptors (limits.nofile is 64). The rlimit
 * refuses silently (EMFILE), so the layer is named by run.start (limits active) when no
 * limit.hit is written.
// profile: limits
// manifest: limits
// expect-full: blocked; events: limit.hit(limit~nofile)|run.start(layers.limits=true)
// expect-no-bwrap: blocked; events: limit.hit(limit~nofile)|run.start(layers.limits=true)
// expect-limits: blocked; events: limit.hit(limit~nofile)|run.start(layers.limits=true)
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
