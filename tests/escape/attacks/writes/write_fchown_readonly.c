/* fchown a file the manifest grants read-only, through a read-only descriptor.
// profile: fs
// as-user: yes
// manifest: ro
// expect-landlock: none   (Landlock has no right for chown: not expressible)
// expect-probes: none   (the probes do not trace this call yet: issue 15, probes coverage)
*/
#include <unistd.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("rotarget"), O_RDONLY);
	if (fd < 0)
		return esc_result(0, "open read-only");
	return esc_result(fchown(fd, 65534, 65534) == 0, "fchown 65534 through a read-only fd");
}
