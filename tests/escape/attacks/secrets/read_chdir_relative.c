/* chdir into the home directory, then open ".ssh/id_rsa" relative to the cwd.
// profile: fs
// silent-ok-bwrap: as in full mode: the chdir fails with ENOENT under bwrap and the relative open names a workspace path that does not exist (no denied object reaches any sensor)
// silent-ok-full: bwrap does not mount the home, so the chdir fails with ENOENT and the open names a workspace path that does not exist: no denied object ever reaches a layer (run.start layers.bwrap)
// expect-full: blocked; events: preload.deny|kernel.violation(outcome=contained)|run.start(layers.bwrap=true)
// (in bwrap mode the home directory does not exist in the sandbox: chdir fails with ENOENT and the
//  relative open finds nothing, so bwrap — named in run.start — is what stopped it)
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (chdir(esc_arg("home")) < 0)
		fprintf(stderr, "attack: chdir: %s\n", strerror(errno));
	return esc_read_path(".ssh/id_rsa");
}
