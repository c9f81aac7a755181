/* fchownat(fd, "", AT_EMPTY_PATH) and utimensat(fd, NULL): the *at calls acting on the descriptor
 * itself, on a file the manifest grants read-only.
// profile: fs
// as-user: yes
// manifest: ro
// expect-landlock: none   (Landlock has no right for chown/utimes: not expressible)
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
	int a = fchownat(fd, "", 65534, 65534, AT_EMPTY_PATH);
	struct timespec ts[2] = {{0, 0}, {0, 0}};
	const char *volatile none = NULL; /* glibc declares the path nonnull; the kernel takes NULL */
	int b = utimensat(fd, none, ts, 0);
	return esc_result(a == 0 || b == 0, "fchownat(AT_EMPTY_PATH) / utimensat(fd, NULL)");
}
