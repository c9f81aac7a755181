/* setxattr / lsetxattr / removexattr by path on a file the manifest grants read-only.
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
	const char *t = esc_arg("rotarget");
	int a = setxattr(t, "user.sbxesc", "pwned", 5, 0);
	int b = lsetxattr(t, "user.sbxesc2", "pwned", 5, 0);
	return esc_result(a == 0 || b == 0, "setxattr/lsetxattr on a read-only file");
}
