/* code:exec granted: unset SBXSUP_POLICY_FD and re-exec ourselves; the child's preload has no
 * policy and must fail closed (deny), never open. Stage 2 reads the canary.
// profile: fs
// manifest: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (esc_opt("stage"))
		return esc_read_path(esc_arg("ssh"));
	unsetenv("SBXSUP_POLICY_FD");
	return esc_reexec_stage2();
}
