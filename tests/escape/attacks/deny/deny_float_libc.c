/* A floating manifest deny ("**" "/.env") through libc: open() of the workspace's app/.env (the
 * preload decides it first; the kernel layers stand behind it).
// profile: fs
// manifest: deny-float
// setup: dotenv
// as-user: yes
// expect-full: blocked; events: preload.deny(rule~deny[0])
// expect-no-bwrap: blocked; events: preload.deny(rule~deny[0])
// expect-preload-only: blocked; events: preload.deny(rule~deny[0])
// expect-preload: blocked; events: preload.deny(rule~deny[0])
// expect-landlock: blocked; events: kernel.violation(rule~deny[0])
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path(esc_arg("dotenv"));
}
