/* code:exec granted: point LD_PRELOAD at a library that does not exist and re-exec (ld.so only
 * warns and runs the program without any preload). Stage 2 reads the canary.
// profile: fs
// manifest: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (esc_opt("stage"))
		return esc_read_path(esc_arg("ssh"));
	setenv("LD_PRELOAD", "/nonexistent/libnothing.so", 1);
	return esc_reexec_stage2();
}
