/* code:exec granted: replace the policy descriptor by a memfd of garbage (same fd number) and
 * re-exec; the child's preload must reject the blob and fail closed. Stage 2 reads the canary.
// profile: fs
// manifest: exec
*/
#include <sys/mman.h>
#include "esc.h"
int main(int argc, char **argv)
{
	esc_init(argc, argv);
	if (esc_opt("stage"))
		return esc_read_path(esc_arg("ssh"));
	const char *pf = getenv("SBXSUP_POLICY_FD");
	int m = memfd_create("p", 0);
	char junk[4096];
	memset(junk, 0xff, sizeof junk);
	(void)!write(m, junk, sizeof junk);
	if (pf)
		dup2(m, atoi(pf));
	return esc_reexec_stage2();
}
