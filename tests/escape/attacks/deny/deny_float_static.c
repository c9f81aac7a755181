/* A floating manifest deny ("**" "/.env") below libc: a statically linked reader opens the
 * workspace's app/.env with a raw openat (no preload ever loads). bwrap masks the existing match,
 * Landlock leaves it out of the workspace grant, the seccomp deny decision (the layer's filter, or
 * with the layer off the report-only sensor's or the privilege guard's) refuses the open (rule
 * deny[0], critical).
// profile: fs-raw
// manifest: deny-float
// setup: dotenv
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-preload: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-landlock: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
// expect-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0],sev=critical)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path_raw(esc_arg("dotenv"));
}
