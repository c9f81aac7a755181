/* A floating manifest deny ("**" "/.env") below libc: a statically linked reader opens the
 * workspace's app/.env with a raw openat (no preload ever loads). bwrap masks the existing match,
 * Landlock leaves it out of the workspace grant, the seccomp layer's deny decision refuses the
 * open (rule deny[0], critical).
// profile: fs-raw
// manifest: deny-float
// setup: dotenv
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-preload-only: blocked-or-reported; events: kernel.violation(rule~deny[0])
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,rule~deny[0])
// expect-landlock: blocked; events: kernel.violation(rule~deny[0])
// expect-bwrap: blocked; events: kernel.violation(rule~deny[0])
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path_raw(esc_arg("dotenv"));
}
