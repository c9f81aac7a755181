/* A file matching a floating deny that appears during the run (the host writes the workspace's
 * late/.env one second after the start): bwrap's masks and Landlock's rules were made at start, so
 * only the seccomp layer's deny decision, made at each open, holds it. A static reader waits for it
 * and opens it with a raw openat.
// profile: fs-raw
// manifest: deny-float
// setup: dotenv-late
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-preload-only: blocked-or-reported; events: kernel.violation(rule~deny[0])
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-landlock: none (a file created after the start is not in Landlock's rules; docs/known-gaps.md)
// expect-bwrap: none (a file created after the start is not masked; docs/known-gaps.md)
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
	return esc_read_path_raw(p);
}
