/* Burn CPU past limits.cpu_s (1 s): spins for up to 6 s of CPU time.
// profile: limits
// manifest: limits
// limits: {"wall_s": 15}
// expect-full: blocked; events: limit.hit(limit~cpu)
*/
#include <time.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	struct timespec t;
	volatile unsigned long x = 0;
	do {
		for (int i = 0; i < 1000000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec < 6);
	return esc_result(1, "6 s of CPU");
}
