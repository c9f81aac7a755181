/* A file matching a floating deny that appears during the run (the host writes the workspace's
 * late/.env one second after the start): bwrap's masks and Landlock's rules were made at start, so
 * only the seccomp deny decision, made at each open, holds it — the seccomp layer's filter, or with
 * the layer off the report-only sensor's (--layers bwrap, landlock, preload) or the privilege
 * guard's (preload-only). A static reader waits for it and opens it with a raw openat.
// profile: fs-raw
// manifest: deny-float
// setup: dotenv-late
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
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
	return esc_read_path_raw(p);
}
