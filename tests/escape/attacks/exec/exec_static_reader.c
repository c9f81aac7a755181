/* code:exec granted: exec the static canary reader (LD_PRELOAD cannot apply to it).
// profile: fs-raw
// manifest: exec
*/
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	char p[4096], a1[4200];
	esc_join(p, sizeof p, esc_arg("bin"), "read_static");
	snprintf(a1, sizeof a1, "ssh=%s", esc_arg("ssh"));
	char *a[] = {p, a1, NULL};
	execv(p, a);
	return esc_result(0, "exec static reader");
}
