/* Reach the canary through /proc/<victim>/cwd of a process outside the sandbox whose cwd is the
 * canary's directory (the victim is started by the runner).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096];
	snprintf(p, sizeof p, "/proc/%s/cwd/secret.txt", esc_arg("victim"));
	return esc_read_path(p);
}
