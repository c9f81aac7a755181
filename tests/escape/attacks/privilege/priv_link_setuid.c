/* Contract v3: a hard link of a setuid system binary (/usr/bin/gpasswd, chfn, newgrp) into the workspace, then a rename of it over a workspace name: the existing object must be writable where it is (it is not), refused and reported (static binary).
// manifest: base
// profile: fs-raw
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-no-bwrap: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-preload-only: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-preload: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-bwrap: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-seccomp: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-landlock: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-netfilter: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-probes: blocked; events: kernel.violation|seccomp.deny|preload.deny
// expect-limits: blocked; events: kernel.violation|seccomp.deny|preload.deny
*/
#include <sys/stat.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	int ok = 0;
	static const char *const bins[] = {"/usr/bin/gpasswd", "/usr/bin/chfn", "/usr/bin/newgrp", "/bin/su"};
	char f[4096], g[4096];
	const char *ws = esc_arg("ws");
	esc_join(g, sizeof g, ws, "renamed");
	for (unsigned i = 0; i < sizeof bins / sizeof bins[0]; i++) {
		struct stat st;
		if (stat(bins[i], &st) < 0 || !(st.st_mode & S_ISUID))
			continue;
		esc_join(f, sizeof f, ws, "linked");
		if (ESC_SYS(SYS_linkat, AT_FDCWD, bins[i], AT_FDCWD, f, 0) == 0) {
			ok = 1, fprintf(stderr, "attack: link of %s SUCCEEDED\n", bins[i]);
			(void)ESC_SYS(SYS_renameat, AT_FDCWD, f, AT_FDCWD, g);
		}
	}
	return esc_result(ok, "hard link of a setuid binary into the workspace");
}
