/* fchmod a file the manifest grants read-only, through a read-only descriptor: make it setuid and
 * world-writable (issue 13: a readable root-owned file must not change mode).
// profile: fs
// as-user: yes
// manifest: ro
// expect-landlock: none   (Landlock has no right for chmod: not expressible)
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
	return esc_result(fchmod(fd, 04777) == 0, "fchmod 04777 through a read-only fd");
}
