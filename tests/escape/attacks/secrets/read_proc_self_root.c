/* Reach the canary through the /proc/self/root magic link.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096];
	snprintf(p, sizeof p, "/proc/self/root%s", esc_arg("ssh"));
	return esc_read_path(p);
}
