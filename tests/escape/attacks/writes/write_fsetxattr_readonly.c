/* fsetxattr on a file the manifest grants read-only, through a read-only descriptor (the class of
 * a POSIX ACL written onto a readable file), then fremovexattr.
// profile: fs
// as-user: yes
// manifest: ro
// expect-landlock: none   (Landlock has no right for xattrs: not expressible)
// expect-probes: none   (the probes do not trace this call yet: issue 15, probes coverage)
*/
#include <sys/xattr.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int fd = open(esc_arg("rotarget"), O_RDONLY);
	if (fd < 0)
		return esc_result(0, "open read-only");
	int a = fsetxattr(fd, "user.sbxesc", "pwned", 5, 0);
	return esc_result(a == 0, "fsetxattr user.sbxesc through a read-only fd");
}
