/* futimens on a file the manifest grants read-only, through a read-only descriptor (back-dating
 * a file to hide a change).
// profile: fs
// as-user: yes
// manifest: ro
// expect-landlock: none   (Landlock has no right for utimes: not expressible)
// expect-probes: none   (the probes do not trace this call yet: issue 15, probes coverage)
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("rotarget"), O_RDONLY);
	if (fd < 0)
		return esc_result(0, "open read-only");
	struct timespec ts[2] = {{1, 0}, {1, 0}};
	return esc_result(futimens(fd, ts) == 0, "futimens through a read-only fd");
}
