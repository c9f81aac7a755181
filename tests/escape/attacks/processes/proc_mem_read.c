/* Read another process's memory via /proc/<victim>/mem (its environment holds the canary).
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[64];
	snprintf(p, sizeof p, "/proc/%s/mem", esc_arg("victim"));
	int fd = open(p, O_RDONLY);
	return esc_result(fd >= 0, "open /proc/<victim>/mem");
}
