/* open(canary, O_PATH) (no read access asked), then re-open /proc/self/fd/N for reading.
// profile: fs
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("ssh"), O_PATH);
	if (fd < 0)
		return esc_result(0, "open O_PATH");
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	return esc_read_path(p);
}
