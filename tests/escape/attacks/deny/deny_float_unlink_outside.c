/* A manifest with a deny ("**" "/.env") removes, by raw unlink from a static binary, a file no grant
 * covers (target=, outside the workspace). With a deny the seccomp filter routes the write class
 * to sbxsup, which decides it and performs what it allows: where bwrap hides the file's directory
 * (ENOENT) the name as read must still be decided and the refusal reported — a call sbxsup answers
 * never reaches the probes, and with the layer off the sensor reported the same unlink as an
 * attempt in a run without a deny.
// profile: fs-raw
// manifest: deny-float
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,path~target.txt)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,path~target.txt)
// expect-preload-only: blocked; events: kernel.violation(path~target.txt)
// expect-bwrap: blocked; events: kernel.violation(outcome=contained,path~target.txt)
// expect-landlock: blocked; events: kernel.violation(path~target.txt)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,path~target.txt)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_result(ESC_SYS(SYS_unlinkat, AT_FDCWD, esc_arg("target"), 0) == 0, "raw unlink");
}
