/* Memory bomb, bounded: touches 512 MiB (limits.memory_mb is 64).
// profile: limits
// expect-no-bwrap: none   (a cgroup limit: the limits layer, which this mode does not include)
// expect-preload-only: none   (a cgroup limit: the limits layer, which this mode does not include)
// manifest: limits
// expect-full: blocked; events: limit.hit(limit~memory)
*/
#include <sys/mman.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	size_t total = 512u << 20, step = 16u << 20, got = 0;
	while (got < total) {
		char *p = mmap(NULL, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		memset(p, 0x5a, step);
		got += step;
	}
	fprintf(stderr, "attack: touched %zu MiB\n", got >> 20);
	return esc_result(got >= total, "memory bomb");
}
