/* A deny nested under a granted directory (fs:read of a tree, deny of its private/ **): a static
 * reader opens private/key.txt with a raw openat. bwrap masks private/, Landlock grants the tree's
 * other entries one by one, the seccomp deny decision (the layer's filter, or with the layer off
 * the report-only sensor's or the privilege guard's) refuses the open.
// profile: fs-raw
// manifest: deny-nested
// setup: nested
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
	return esc_read_path_raw(esc_arg("nested"));
}
