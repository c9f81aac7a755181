/* system("exit 0"): glibc spawns /bin/sh through posix_spawn/clone internally.
// profile: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int r = system("exit 0");
	return esc_result(r == 0, "system()");
}
