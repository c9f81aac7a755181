/* A file matching a floating deny that appears during the run (the host writes the workspace's
 * late/.env one second after the start), reached under a name the deny does not match: a static
 * binary waits for it, then by raw system calls makes a hard link to it (late/alias), renames it
 * (late/moved), and makes a symlink to it (late/sym), reading each new name. The workspace is a
 * write grant: only the deny decision stands in the way — the seccomp layer's, or with the layer
 * off the report-only sensor's filter (--layers bwrap, landlock, preload) or the privilege guard's
 * (preload-only): link and rename name the match (refused), the symlink's open reaches it (refused
 * on the object, the open being performed by sbxsup).
// profile: fs-raw
// manifest: deny-float
// setup: dotenv-late
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-landlock: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-preload: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
*/
#include "esc.h"
#include <time.h>
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *p = esc_arg("lateenv");
	struct stat st;
	for (int i = 0; i < 80 && ESC_SYS(SYS_newfstatat, AT_FDCWD, p, &st, 0) < 0; i++) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	char dir[4096], alias[4200], moved[4200], sym[4200];
	snprintf(dir, sizeof dir, "%s", p);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 2;
	*slash = 0;
	esc_join(alias, sizeof alias, dir, "alias");
	esc_join(moved, sizeof moved, dir, "moved");
	esc_join(sym, sizeof sym, dir, "sym");
	int got = 0;
	if (ESC_SYS(SYS_linkat, AT_FDCWD, p, AT_FDCWD, alias, 0) == 0)
		got |= esc_read_path_raw(alias) == 0;
	if (ESC_SYS(SYS_renameat, AT_FDCWD, p, AT_FDCWD, moved) == 0)
		got |= esc_read_path_raw(moved) == 0;
	if (ESC_SYS(SYS_symlinkat, p, AT_FDCWD, sym) == 0)
		got |= esc_read_path_raw(sym) == 0;
	return esc_result(got, "a second name for the late match");
}
