/* Contract v3: setxattr/fsetxattr (libc) of security.capability on a workspace file, lsetxattr on a symlink to it.
// manifest: base
// profile: fs
// as-user: yes
// expect-full: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-no-bwrap: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-preload-only: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-preload: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-bwrap: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-seccomp: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-landlock: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-netfilter: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-probes: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
// expect-limits: blocked; events: kernel.violation(rule~privilege,outcome=contained)|preload.deny(rule~privilege)
*/
#include <stdint.h>
#include <sys/xattr.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	char f[4096], l[4096];
	const char *ws = esc_arg("ws");
	esc_join(f, sizeof f, ws, "capped");
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		return esc_result(0, "create the file");
	struct { uint32_t magic_etc; struct { uint32_t permitted, inheritable; } data[2]; } v2 =
		{0x02000000u | 1u, {{0xffffffffu, 0}, {0x1ffu, 0}}};
	if (setxattr(f, "security.capability", &v2, sizeof v2, 0) == 0)
		ok = 1, fprintf(stderr, "attack: setxattr caps SUCCEEDED\n");
	if (fsetxattr(fd, "security.capability", &v2, sizeof v2, 0) == 0)
		ok = 1, fprintf(stderr, "attack: fsetxattr caps SUCCEEDED\n");
	esc_join(l, sizeof l, ws, "capped-link");
	if (symlink("capped", l) == 0 && lsetxattr(l, "security.capability", &v2, sizeof v2, 0) == 0)
		ok = 1, fprintf(stderr, "attack: lsetxattr on a symlink SUCCEEDED\n");
	return esc_result(ok, "file capabilities by setxattr (libc)");
}
