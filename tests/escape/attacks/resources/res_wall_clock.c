/* Outlive the wall-clock limit (limits.wall_s is 3): sleeps 8 s; the run must end with 124.
// profile: limits
// manifest: limits
// expect-full: blocked; events: limit.hit(limit~wall)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	sleep(8);
	return esc_result(1, "slept past the wall-clock limit");
}
