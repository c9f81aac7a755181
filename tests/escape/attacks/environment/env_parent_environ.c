/* Read the supervisor's environment through /proc/<ppid>/environ (it holds the canary
 * SBXESC_SUP_SECRET); also tries /proc/<victim>/environ.
// profile: fs
// expect-landlock: none   (Landlock works on file hierarchies, not on /proc/<pid> ownership)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/environ", (int)getppid());
	if (esc_read_path(p) == 0)
		return 0;
	snprintf(p, sizeof p, "/proc/%s/environ", esc_arg("victim"));
	return esc_read_path(p);
}
