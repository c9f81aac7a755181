/* A manifest with a deny ("**" "/.env") reads, by raw openat from a static binary, a file that
 * no grant covers and no deny names (secret=, world-readable outside the workspace). With a deny
 * the seccomp layer routes every open and performs the allowed ones on the object it decided, so
 * the kernel never runs the call and the probes, which see a call only after seccomp let it
 * through, never see it: the layer's refusal of an object (no-bwrap) or a name (full: bwrap hides
 * it, ENOENT) the policy does not grant must be its own report, as the probes report the same
 * read in a run without a deny (secrets/read_static).
// profile: fs-raw
// manifest: deny-float
// build: static
// as-user: yes
// expect-full: blocked; events: kernel.violation(outcome=contained,path~secret.txt)
// expect-no-bwrap: blocked; events: kernel.violation(outcome=contained,path~secret.txt)
// expect-preload-only: blocked; events: kernel.violation(outcome=contained,path~secret.txt)
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,path~secret.txt)
// expect-landlock: blocked; events: kernel.violation(outcome=contained,path~secret.txt)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	return esc_read_path_raw(esc_arg("secret"));
}
