/* A deny nested under a granted directory (fs:read of a tree, deny of its private/ **): a static
 * reader opens private/key.txt with a raw openat. bwrap masks private/, Landlock grants the tree's
 * other entries one by one, the seccomp layer's deny decision refuses the open.
// profile: fs-raw
// manifest: deny-nested
// setup: nested
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
	return esc_read_path_raw(esc_arg("nested"));
}
